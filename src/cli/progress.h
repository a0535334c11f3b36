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
} rk_cli_progress;

void rk_cli_progress_init(rk_cli_progress *p, const char *cmd, int quiet);

/* A progress callback (payload: an rk_cli_progress): "what" so far. */
void rk_cli_progress_cb(const char *what, uint64_t done, uint64_t bytes, void *payload);

/* Ends the progress line (a terminal's line is cleared). */
void rk_cli_progress_done(rk_cli_progress *p);

#endif
