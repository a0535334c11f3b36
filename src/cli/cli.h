/*
 * Shared pieces of the `rowkey` command: the subcommand signature, exit codes
 * and small helpers every subcommand uses. Exit status: 0 success, 1 failure
 * while working (bad record, store error), 2 usage error.
 */
#ifndef RK_CLI_H
#define RK_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "cli/opts.h"

#define RK_EXIT_OK 0
#define RK_EXIT_FAIL 1
#define RK_EXIT_USAGE 2
/* The command did its work (a change applied, rows printed), but closing
 * the store failed: the store's metrics (its load counters) were not saved.
 * Distinct so a script does not redo a change that was applied. */
#define RK_EXIT_CLOSE 3

#define RK_CMD(name, fn, summary)                                                          \
	int fn(int argc, char **argv);                                                     \
	extern const rk_cli_spec rk_cli_spec_##name;
#include "cli/commands.def"
#undef RK_CMD

/* Prints "rowkey CMD: message" on stderr and returns RK_EXIT_USAGE. */
int rk_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a non-negative decimal integer (digits only); -1 on junk. */
int rk_cli__parse_u64(uint64_t *out, const char *text);

/* Parses option `opt`'s value, an integer in lo..hi; on junk or out of range
 * prints a usage error for `cmd` naming the option and the range, and
 * returns -1. */
int rk_cli__parse_range(uint64_t *out, const char *cmd, const char *opt, const char *text,
                        uint64_t lo, uint64_t hi);

/* --limit N of scan and query: 1 or more rows. 0 is refused rather than
 * read as "no limit" (Bigtable's rows_limit and cbt's count=0 mean every
 * row; "at most 0 rows" means none): either reading surprises someone, and
 * leaving --limit out already says every row. -1 after the usage error. */
int rk_cli__parse_limit(uint64_t *out, const char *cmd, const char *text);

/* --on-error MODE: *skip is 1 for skip, 0 for stop; anything else prints a
 * usage error for `cmd` and returns -1. */
int rk_cli__parse_on_error(int *skip, const char *cmd, const char *mode);

/* Opens `path` to read into *in, standard input when path is NULL; when it
 * cannot, prints "rowkey CMD: cannot open 'PATH'" and returns -1 (*in is
 * then NULL). */
int rk_cli__open_input(FILE **in, const char *cmd, const char *path);

/* Prints "rowkey CMD: <what>: <rk_error_last()>" on stderr and returns RK_EXIT_FAIL. */
int rk_cli_fail(const char *cmd, const char *what);

/* 1 once a write to standard output failed (a full disk, a closed pipe): a
 * command that writes in a loop stops reading there. main() flushes and
 * closes standard output after every command and turns a failure into exit
 * 1 with a message (none for a closed pipe, as other Unix tools). */
int rk_cli_out_failed(void);

/* Writes a whole text to standard output, remembering why a failed write
 * failed: stdio keeps only the error flag, and a text larger than its
 * buffer is written at once and lost, so the final flush would have no
 * reason to give (a full disk: ENOSPC). */
void rk_cli_out_text(const char *text);

/* The errno of the first failed rk_cli_out_text, or 0. */
int rk_cli_out_errno(void);

#endif
