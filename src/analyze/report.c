/*
 * Reports: an analysis as text (its lines ending in the verdict) and
 * several side by side.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "key/error.h"

/* ---- text ---- */

static void query_line(rk__sb *b, const rk_query_cost *q)
{
	char rd[32], rt[32];
	rk__count_text(rd, sizeof rd, (uint64_t)llround(q->rows_read));
	rk__count_text(rt, sizeof rt, (uint64_t)llround(q->rows_returned));
	rk__sb_printf(b, "query       %s: %s", q->name, q->plan);
	if (q->ranges > 1.5)
		rk__sb_printf(b, ", %.1f %s", q->ranges, !strcmp(q->kind, "gets") ? "gets" : "ranges");
	if (q->merge_ways)
		rk__sb_printf(b, " merged (%u-way) to keep order", q->merge_ways);
	if (q->read_backwards)
		RK__SB_LIT(b, ", read backwards");
	rk__sb_printf(b, ", %.1f region%s; %s%s rows read for %s returned (%.1f per row%s)\n",
	              q->regions, q->regions == 1 ? "" : "s", q->rows_read_estimated ? "~" : "", rd, rt,
	              q->rows_read_per_row, q->rows_read_grow ? ", growing with the history" : "");
}

int rk_analysis_text(char **out, const rk_analysis *a)
{
	const rk_report *r = &a->rep;
	rk__sb b = {0};
	char n[4][RK_NUM_STR]; /* counts, rates and sizes, written one way (key/units.h) */
	rk__sb_printf(&b, "design      %s (%s)\n", r->design, r->engine);
	if (r->offered_rate > 0)
		rk__sb_printf(&b, "workload    %s: %s writes, %s reads (%s offered)\n", r->workload,
		              rk__count_text(n[0], RK_NUM_STR, r->writes),
		              rk__count_text(n[1], RK_NUM_STR, r->reads),
		              rk__rate_str(n[2], r->offered_rate, "ops"));
	else /* a store's recorded load (rk_analysis_from_metrics): no offered rate */
		rk__sb_printf(&b, "workload    %s: %s writes, %s reads\n", r->workload,
		              rk__count_text(n[0], RK_NUM_STR, r->writes),
		              rk__count_text(n[1], RK_NUM_STR, r->reads));
	if (r->records) {
		char w[32], n[32];
		rk__count_text(w, sizeof w, r->writes);
		rk__count_text(n, sizeof n, r->records);
		if (r->limited)
			rk__sb_printf(&b, "replayed    the first %s records of the file (the limit)", w);
		else
			rk__sb_printf(&b, "replayed    %s of the file's %s records", w, n);
		rk__sb_printf(&b, "%s\n", r->own_time == 2 ? ", last record first (the file is newest first), "
		                                              "at the data's own pace (its clock is the time axis)"
		                           : r->own_time ? ", at the data's own pace (its clock is the time axis)"
		                                         : ", at the fixed rate");
	}
	if (r->capacity > 0)
		rk__sb_printf(&b, "servers     %u x %s\n", r->servers,
		              rk__rate_str(n[0], r->capacity, "ops"));
	else
		rk__sb_printf(&b, "servers     %u\n", r->servers);
	rk__sb_printf(&b,
	              "writes      hottest server %u takes %.1f%% (max/mean %.2f), effective servers "
	              "%.2f of %u\n",
	              r->hottest_server, r->hottest_share * 100, r->max_mean, r->effective_servers,
	              r->servers);
	if (a->sw)
		rk__sb_printf(&b, "at a time   the hottest server takes %.1f%% of each time bucket's writes\n",
		              r->peak_share * 100);
	if (r->day_share > 0)
		rk__sb_printf(&b, "another day the hottest server takes %.1f%% of the same writes two days "
		                  "away, against the first regions\n",
		              r->day_share * 100);
	if (r->throughput_measured)
		rk__sb_printf(&b, "measured    on the store: write shares, loads per time bucket (wall "
		                  "clock), throughput; reads not executed\n");
	if (r->throughput_measured)
		rk__sb_printf(&b, "throughput  %s measured: %s rows in %.2f s of wall-clock time, "
		              "hottest server busy %.0f%%%s\n", rk__rate_str(n[0], r->throughput, "rows"),
		              rk__count_text(n[1], RK_NUM_STR, r->writes), r->wall_seconds,
		              r->hottest_busy * 100,
		              r->hottest_busy < 0.9 ? " (this machine, not the servers, set the pace)"
		                                    : "");
	else if (r->capacity > 0)
		rk__sb_printf(&b, "throughput  %s before the hottest server saturates (modelled)\n",
		              rk__rate_str(n[0], r->throughput, "ops"));
	if (r->offered_rate > 0)
		rk__sb_printf(&b, "regions     %zu at start, %zu at end (%s splits, %s moves)\n",
		              r->regions_initial, r->regions, rk__count_text(n[0], RK_NUM_STR, r->splits),
		              rk__count_text(n[1], RK_NUM_STR, r->moves));
	else
		rk__sb_printf(&b, "regions     %zu at the end, %s retired by splits\n", r->regions,
		              rk__count_text(n[0], RK_NUM_STR, r->splits));
	if (r->key_total)
		rk__sb_printf(&b, "key bytes   mean %.1f, max %zu, total %s\n", r->key_mean, r->key_max,
		              rk__size_str(n[0], r->key_total));
	if (r->keys_checked) {
		char d[32], n[32];
		rk__count_text(d, sizeof d, r->key_distinct);
		rk__count_text(n, sizeof n, r->keys_checked);
		rk__sb_printf(&b, "unique      %s on %s of %s records%s\n",
		              r->key_distinct == r->keys_checked ? "yes" : "NO", d, n,
		              r->key_distinct == r->keys_checked ? "" : ": rows overwrite each other");
	}
	for (size_t q = 0; q < r->nqueries; q++)
		query_line(&b, &r->queries[q]);
	for (size_t k = 0; k < r->ncauses; k++)
		rk__sb_printf(&b, "cause       %s: %s\n            remedy: %s\n", r->causes[k].kind,
		              r->causes[k].text, r->causes[k].remedy ? r->causes[k].remedy : "-");
	rk__sb_printf(&b, "verdict     %s\n", r->verdict ? r->verdict : "");
	return rk__sb_done(out, &b);
}

int rk_analysis_compare_text(char **out, const rk_analysis *const *runs, size_t n)
{
	rk__sb b = {0};
	size_t w = 6;
	for (size_t i = 0; i < n; i++)
		if (strlen(runs[i]->design) > w)
			w = strlen(runs[i]->design);
	if (w > 40)
		w = 40;
	int measured = 0;
	rk__sb_printf(&b, "%-*s  %-9s  %7s  %7s  %6s  %9s  %13s  %7s  %6s  %s\n", (int)w, "design",
	              "engine", "hottest", "at-time", "eff", "max/mean", "throughput", "regions",
	              "key B", "reads (regions/query)");
	for (size_t i = 0; i < n; i++) {
		const rk_report *r = &runs[i]->rep;
		char q[256];
		size_t o = 0;
		q[0] = 0;
		for (size_t k = 0; k < r->nqueries && o < sizeof q; k++)
			o += (size_t)snprintf(q + o, sizeof q - o, "%s%s %.1f", k ? ", " : "",
			                      !strcmp(r->queries[k].plan, "full scan") ? "full" :
			                      r->queries[k].ranges > 1.5 ? "fan" : "ok",
			                      r->queries[k].regions);
		char at[16];
		if (runs[i]->sw)
			snprintf(at, sizeof at, "%6.1f%%", r->peak_share * 100);
		else
			snprintf(at, sizeof at, "%7s", "-");
		char tp[RK_NUM_STR];
		rk__sb_printf(&b, "%-*.*s  %-9s  %6.1f%%  %7s  %6.2f  %9.2f  %11s %c  %7zu  %6.1f  %s\n",
		              (int)w, (int)w, r->design, r->engine, r->hottest_share * 100, at,
		              r->effective_servers, r->max_mean, rk__rate_str(tp, r->throughput, NULL),
		              r->throughput_measured ? 'm' : ' ', r->regions, r->key_mean,
		              r->nqueries ? q : "-");
		measured |= r->throughput_measured;
	}
	if (measured)
		rk__sb_printf(&b, "\nthroughput: m = measured on the store (rows per wall-clock second, "
		                  "servers capped at their capacity); others modelled (capacity / the "
		                  "hottest server's load)\n");
	for (size_t i = 0; i < n; i++)
		if (runs[i]->rep.throughput_measured && runs[i]->rep.hottest_busy < 0.9)
			rk__sb_printf(&b, "%s: the store's hottest server was busy %.0f%% of the time: this "
			                  "machine, not the servers, set the pace\n",
			              runs[i]->rep.design, runs[i]->rep.hottest_busy * 100);
	RK__SB_LIT(&b, "\n");
	for (size_t i = 0; i < n; i++)
		rk__sb_printf(&b, "%-*.*s  %s: %s\n", (int)w, (int)w, runs[i]->rep.design,
		              runs[i]->rep.engine, runs[i]->rep.verdict ? runs[i]->rep.verdict : "");
	return rk__sb_done(out, &b);
}
