/*
 * Shared pieces of the `rowkey` command: the subcommand signature, exit codes
 * and small helpers every subcommand uses. Exit status: 0 success, 1 failure
 * while working (bad record, store error), 2 usage error.
 */
#ifndef RK_CLI_H
#define RK_CLI_H

#include <stdio.h>

#define RK_EXIT_OK 0
#define RK_EXIT_FAIL 1
#define RK_EXIT_USAGE 2

#define RK_CMD(name, fn, summary) int fn(int argc, char **argv);
#include "cli/commands.def"
#undef RK_CMD

/* Prints "rowkey CMD: message" on stderr and returns RK_EXIT_USAGE. */
int rk_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "rowkey CMD: <what>: <rk_error_last()>" on stderr and returns RK_EXIT_FAIL. */
int rk_cli_fail(const char *cmd, const char *what);

#endif
