/*
 * Progress on stderr for commands that read large inputs (profile, suggest,
 * analyze on a file): nothing for the first second, then a line at most
 * every half second on a terminal (rewritten in place) or every ten seconds
 * otherwise, so a log does not fill up.
 */
#ifndef RK_CLI_PROGRESS_H
#define RK_CLI_PROGRESS_H

#include <stdint.h>

typedef struct rk_cli_progress {
	const char *cmd;
	double start, last;
	int tty, quiet, shown;
	int about; /* the totals given are estimates: "of about N" */
} rk_cli_progress;

void rk_cli_progress_init(rk_cli_progress *p, const char *cmd, int quiet);

/* A progress callback (payload: an rk_cli_progress): "what" so far. */
void rk_cli_progress_cb(const char *what, uint64_t done, uint64_t bytes, void *payload);

/* Rows done of total (0: unknown) so far, with the rate since the start
 * and, when total is known, the time left at that rate. */
void rk_cli_progress_rows(rk_cli_progress *p, const char *what, uint64_t done, uint64_t total);

/* Ends the progress line (a terminal's line is cleared). */
void rk_cli_progress_done(rk_cli_progress *p);

#endif
