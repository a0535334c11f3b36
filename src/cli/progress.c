/*
 * Progress lines on stderr (see progress.h).
 */
#include "cli/progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "key/units.h"

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
	p->about = 0;
}

void rk_cli_progress_cb(const char *what, uint64_t done, uint64_t bytes, void *payload)
{
	rk_cli_progress *p = payload;
	double t = now();
	if (p->quiet || t - p->start < 1 || t - p->last < (p->tty ? 0.5 : 10))
		return;
	p->last = t;
	p->shown = 1;
	char n[RK_NUM_STR], m[RK_NUM_STR];
	rk__count_text(n, sizeof n, done);
	if (!strncmp(what, "design", 6)) /* `bytes` is the operations to simulate */
		fprintf(stderr, "%srowkey %s: %s: %s of %s simulated, %.0f s%s", p->tty ? "\r" : "",
		        p->cmd, what, n, rk__count_text(m, sizeof m, bytes), t - p->start,
		        p->tty ? "   " : "\n");
	else if (bytes)
		fprintf(stderr, "%srowkey %s: %s: %s records, %s, %.0f s%s", p->tty ? "\r" : "", p->cmd,
		        what, n, rk__size_str(m, bytes), t - p->start, p->tty ? "   " : "\n");
	else
		fprintf(stderr, "%srowkey %s: %s: %s, %.0f s%s", p->tty ? "\r" : "", p->cmd, what, n,
		        t - p->start, p->tty ? "   " : "\n");
	fflush(stderr);
}

void rk_cli_progress_rows(rk_cli_progress *p, const char *what, uint64_t done, uint64_t total)
{
	double t = now();
	if (p->quiet || t - p->start < 1 || t - p->last < (p->tty ? 0.5 : 10))
		return;
	p->last = t;
	p->shown = 1;
	char n[RK_NUM_STR], m[RK_NUM_STR], r[RK_NUM_STR], eta[64] = "";
	double rate = (double)done / (t - p->start);
	if (total >= done && rate > 0)
		snprintf(eta, sizeof eta, " of %s%s, ETA %.0f s", p->about ? "about " : "",
		         rk__count_text(m, sizeof m, total), (double)(total - done) / rate);
	fprintf(stderr, "%srowkey %s: %s: %s rows%s, %s%s", p->tty ? "\r" : "", p->cmd, what,
	        rk__count_text(n, sizeof n, done), eta, rk__rate_str(r, rate, "rows"),
	        p->tty ? "   " : "\n");
	fflush(stderr);
}

void rk_cli_progress_done(rk_cli_progress *p)
{
	if (p->shown && p->tty)
		fprintf(stderr, "\r%72s\r", "");
}
