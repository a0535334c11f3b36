/*
 * Progress lines on stderr (see progress.h).
 */
#include "cli/progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void rk_cli_progress_init(rk_cli_progress *p, const char *cmd, int quiet)
{
	p->cmd = cmd;
	p->start = p->last = now();
	p->tty = isatty(STDERR_FILENO);
	p->quiet = quiet;
	p->shown = 0;
}

void rk_cli_progress_cb(const char *what, uint64_t done, uint64_t bytes, void *payload)
{
	rk_cli_progress *p = payload;
	double t = now();
	if (p->quiet || t - p->start < 1 || t - p->last < (p->tty ? 0.5 : 10))
		return;
	p->last = t;
	p->shown = 1;
	if (!strncmp(what, "design", 6))
		fprintf(stderr, "%srowkey %s: %s: %llu of %llu simulated, %.0f s%s", p->tty ? "\r" : "",
		        p->cmd, what, (unsigned long long)done, (unsigned long long)bytes, t - p->start,
		        p->tty ? "   " : "\n");
	else if (bytes)
		fprintf(stderr, "%srowkey %s: %s: %llu records, %.1f MB, %.0f s%s", p->tty ? "\r" : "",
		        p->cmd, what, (unsigned long long)done, (double)bytes / 1e6, t - p->start,
		        p->tty ? "   " : "\n");
	else
		fprintf(stderr, "%srowkey %s: %s: %llu, %.0f s%s", p->tty ? "\r" : "", p->cmd, what,
		        (unsigned long long)done, t - p->start, p->tty ? "   " : "\n");
	fflush(stderr);
}

void rk_cli_progress_done(rk_cli_progress *p)
{
	if (p->shown && p->tty)
		fprintf(stderr, "\r%72s\r", "");
}
