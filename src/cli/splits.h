/*
 * Split points on the command line: a growing list of byte strings, and the
 * file form `rowkey create --splits` and `rowkey analyze --splits` read (one
 * point a line in --split's escaped form, what rowkey suggest --splits
 * writes). Shared so that both read a file the same way.
 */
#ifndef RK_CLI_SPLITS_H
#define RK_CLI_SPLITS_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/key.h>
#include <rowkey/store.h>

/* Takes p (malloc'd) into the list, or frees it when out of memory (-1). */
int rk_cli__split_add(rk_bytes **sp, size_t *n, uint8_t *p, size_t len);

/* A copy of len bytes at src into the list; -1 when out of memory. */
int rk_cli__split_add_copy(rk_bytes **sp, size_t *n, const void *src, size_t len);

/* Reads FILE into the list (blank lines skipped). -1 after saying on
 * stderr, as `rowkey CMD: --splits FILE: ...`, which line is wrong and why. */
int rk_cli__splits_read(rk_bytes **sp, size_t *n, const char *path, const char *cmd);

/* The split points of key design sc (src/cli/schema_splits.c), appended to
 * the list: one region per bucket of a salted design (*bpl then the
 * bucket prefix's bytes, which splits must keep to), or `nregions` regions
 * at quantiles of a hash prefix (0 or 1: none); nothing for a design
 * without a salt or hash prefix. 0, or RK_EXIT_FAIL after saying why as
 * `rowkey CMD: ...`. */
int rk_cli__schema_splits(rk_bytes **sp, size_t *n, unsigned *bpl, const rk_schema *sc,
                          uint64_t nregions, const char *cmd);

/* Frees the list and its points. */
void rk_cli__splits_free(rk_bytes *sp, size_t n);

#endif
