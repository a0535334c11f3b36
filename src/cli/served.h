/*
 * A store held by `rowkey serve`: who serves it (DIR/SERVING, formats.md
 * B.4). Its regions and load are then read from the metrics the server
 * rewrites every 5 seconds (recorded.h), so that `rowkey regions` and
 * `rowkey stats` work while it serves.
 */
#ifndef RK_CLI_SERVED_H
#define RK_CLI_SERVED_H

#include <stddef.h>
#include <stdint.h>

#include "rowkey/store.h"

/* 1 when DIR is held by a running server (its SERVING file is there and the
 * store's lock is taken), with its pid and address; 0 otherwise. */
int rk_cli__served(const char *dir, long *pid, char *listen, size_t cap);

/* 1 when DIR is held by a running server that has an admin door (the
 * `admin` line of its SERVING note), with the door's address. */
int rk_cli__served_admin(const char *dir, char *admin, size_t cap);

#endif
