/*
 * An analysis as one JSON object, and several as an array.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "key/error.h"

/* ---- JSON ---- */

void rk__fills_json(rk__sb *b, const rk_query_cost *q)
{
	RK__SB_LIT(b, ",\"fills\":[");
	for (size_t k = 0; q->fills && k < q->samples; k++) {
		const rk_query_fill *f = &q->fills[k];
		if (k)
			RK__SB_LIT(b, ",");
		RK__SB_LIT(b, "{\"query\":");
		rk__sb_jstr(b, f->query);
		RK__SB_LIT(b, ",\"rows_read\":");
		rk__sb_jnum(b, f->rows_read);
		RK__SB_LIT(b, ",\"rows_returned\":");
		rk__sb_jnum(b, f->rows_returned);
		rk__sb_printf(b, ",\"estimated\":%s}", f->estimated ? "true" : "false");
	}
	RK__SB_LIT(b, "]");
}

static void query_json(rk__sb *b, const rk_query_cost *q)
{
	RK__SB_LIT(b, ",\"query\":");
	rk__sb_jstr(b, q->query);
	rk__sb_printf(b, ",\"weight\":");
	rk__sb_jnum(b, q->weight);
	rk__sb_printf(b, ",\"kind\":\"%s\",\"rows_read\":", q->kind ? q->kind : "scan");
	rk__sb_jnum(b, q->rows_read);
	RK__SB_LIT(b, ",\"rows_returned\":");
	rk__sb_jnum(b, q->rows_returned);
	RK__SB_LIT(b, ",\"rows_read_per_row\":");
	rk__sb_jnum(b, q->rows_read_per_row);
	rk__sb_printf(b, ",\"rows_read_estimated\":%s,\"merge_ways\":%u,\"ordered\":%s,"
	                 "\"read_backwards\":%s,\"rows_read_grow\":%s",
	              q->rows_read_estimated ? "true" : "false", q->merge_ways,
	              q->ordered ? "true" : "false", q->read_backwards ? "true" : "false",
	              q->rows_read_grow ? "true" : "false");
	rk__fills_json(b, q);
}

void rk__cause_json(rk__sb *b, const rk_cause *c, int first)
{
	rk__sb_printf(b, "%s{\"kind\":\"%s\",\"field\":", first ? "" : ",", c->kind);
	rk__sb_jstr(b, c->field);
	RK__SB_LIT(b, ",\"value\":");
	rk__sb_jstr(b, c->value);
	RK__SB_LIT(b, ",\"number\":");
	rk__sb_jnum(b, c->number);
	RK__SB_LIT(b, ",\"unit\":");
	rk__sb_jstr(b, c->unit);
	RK__SB_LIT(b, ",\"text\":");
	rk__sb_jstr(b, c->text);
	RK__SB_LIT(b, ",\"remedy\":");
	rk__sb_jstr(b, c->remedy);
	RK__SB_LIT(b, ",\"pattern\":");
	rk__sb_jstr(b, c->pattern);
	RK__SB_LIT(b, ",\"query\":");
	rk__sb_jstr(b, c->query);
	RK__SB_LIT(b, "}");
}

static void num(rk__sb *b, const char *member, double v)
{
	rk__sb_printf(b, ",\"%s\":", member);
	rk__sb_jnum(b, v);
}

/* The run's figures: operations, shares, throughput, regions, keys. */
static void metrics_json(rk__sb *b, const rk_report *r)
{
	rk__sb_printf(b, ",\"servers\":%u,\"writes\":%llu,\"reads\":%llu,\"read_visits\":%llu",
	              r->servers, (unsigned long long)r->writes, (unsigned long long)r->reads,
	              (unsigned long long)r->read_visits);
	num(b, "offered_rate", r->offered_rate);
	num(b, "capacity", r->capacity);
	num(b, "hottest_share", r->hottest_share);
	rk__sb_printf(b, ",\"hottest_server\":%u", r->hottest_server);
	num(b, "max_mean", r->max_mean);
	num(b, "effective_servers", r->effective_servers);
	num(b, "effective_at_time", r->effective_at_time);
	num(b, "peak_share", r->peak_share);
	num(b, "day_share", r->day_share);
	num(b, "peak_rate", r->peak_rate);
	num(b, "peak_server_rate", r->peak_server_rate);
	num(b, "throughput", r->throughput);
	rk__sb_printf(b, ",\"throughput_measured\":%s", r->throughput_measured ? "true" : "false");
	if (r->throughput_measured) {
		num(b, "wall_seconds", r->wall_seconds);
		num(b, "hottest_busy", r->hottest_busy);
	}
	rk__sb_printf(b, ",\"regions_initial\":%zu,\"regions\":%zu,\"splits\":%llu,\"moves\":%llu",
	              r->regions_initial, r->regions, (unsigned long long)r->splits,
	              (unsigned long long)r->moves);
	num(b, "key_mean", r->key_mean);
	rk__sb_printf(b, ",\"key_max\":%zu,\"key_total\":%llu,\"server_share\":[", r->key_max,
	              (unsigned long long)r->key_total);
	for (unsigned s = 0; s < r->servers; s++) {
		if (s)
			RK__SB_LIT(b, ",");
		rk__sb_jnum(b, r->server_share[s]);
	}
	RK__SB_LIT(b, "]");
}

/* What the queries cost, the causes, the data replayed, the verdict. */
static void findings_json(rk__sb *b, const rk_report *r)
{
	RK__SB_LIT(b, ",\"queries\":[");
	for (size_t q = 0; q < r->nqueries; q++) {
		rk__sb_printf(b, "%s{\"name\":", q ? "," : "");
		rk__sb_jstr(b, r->queries[q].name);
		rk__sb_printf(b, ",\"plan\":\"%s\"", r->queries[q].plan);
		num(b, "ranges", r->queries[q].ranges);
		num(b, "regions", r->queries[q].regions);
		query_json(b, &r->queries[q]);
		RK__SB_LIT(b, "}");
	}
	RK__SB_LIT(b, "],\"causes\":[");
	for (size_t k = 0; k < r->ncauses; k++)
		rk__cause_json(b, &r->causes[k], k == 0);
	rk__sb_printf(b, "],\"records\":%llu,\"limited\":%s,\"own_time\":%s",
	              (unsigned long long)r->records, r->limited ? "true" : "false",
	              r->own_time ? "true" : "false");
	rk__sb_printf(b, ",\"unique\":{\"distinct\":%llu,\"records\":%llu},\"verdict\":",
	              (unsigned long long)r->key_distinct, (unsigned long long)r->keys_checked);
	rk__sb_jstr(b, r->verdict ? r->verdict : "");
}

/* A time bucket x server matrix as arrays of arrays. */
static void matrix_json(rk__sb *b, const char *member, const uint64_t *m, size_t rows,
                        unsigned cols)
{
	rk__sb_printf(b, ",\"%s\":[", member);
	for (size_t t = 0; t < rows; t++) {
		RK__SB_LIT(b, "[");
		for (unsigned s = 0; s < cols; s++)
			rk__sb_printf(b, "%s%llu", s ? "," : "", (unsigned long long)m[t * cols + s]);
		rk__sb_printf(b, "]%s", t + 1 < rows ? "," : "");
	}
	RK__SB_LIT(b, "]");
}

static void regions_json(rk__sb *b, const rk_analysis *a)
{
	RK__SB_LIT(b, ",\"region_list\":[");
	for (size_t i = 0; i < a->nregions; i++) {
		const rk__region_row *x = &a->regions[i];
		rk__sb_printf(b, "%s{\"id\":%llu,\"server\":%u,\"start\":", i ? "," : "",
		              (unsigned long long)x->id, x->server);
		rk__sb_json_str(b, x->start, x->start_len);
		RK__SB_LIT(b, ",\"end\":");
		if (x->end)
			rk__sb_json_str(b, x->end, x->end_len);
		else
			RK__SB_LIT(b, "null");
		rk__sb_printf(b, ",\"writes\":%llu,\"reads\":%llu", (unsigned long long)x->writes,
		              (unsigned long long)x->reads);
		if (x->wr) {
			rk__sb_printf(b, ",\"first_bucket\":%u,\"series\":[", x->first);
			for (uint32_t k = 0; k < x->len; k++)
				rk__sb_printf(b, "%s[%llu,%llu]", k ? "," : "",
				              (unsigned long long)x->wr[2 * k],
				              (unsigned long long)x->wr[2 * k + 1]);
			RK__SB_LIT(b, "]");
		}
		RK__SB_LIT(b, "}");
	}
	RK__SB_LIT(b, "]");
}

void rk__analysis_json(rk__sb *b, const rk_analysis *a)
{
	const rk_report *r = &a->rep;
	RK__SB_LIT(b, "{\"design\":");
	rk__sb_jstr(b, r->design);
	rk__sb_printf(b, ",\"engine\":\"%s\",\"workload\":", r->engine);
	rk__sb_jstr(b, r->workload);
	metrics_json(b, r);
	findings_json(b, r);
	if (a->sw) {
		num(b, "time_bucket_seconds", a->col_s);
		matrix_json(b, "server_writes", a->sw, a->cols, r->servers);
		matrix_json(b, "server_read_visits", a->sr, a->cols, r->servers);
	}
	regions_json(b, a);
	RK__SB_LIT(b, "}");
}

int rk_analysis_json(char **out, const rk_analysis *a)
{
	rk__sb b = {0};
	rk__analysis_json(&b, a);
	return rk__sb_done(out, &b);
}

int rk_analysis_compare_json(char **out, const rk_analysis *const *runs, size_t n)
{
	rk__sb b = {0};
	RK__SB_LIT(&b, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			RK__SB_LIT(&b, ",");
		rk__analysis_json(&b, runs[i]);
	}
	RK__SB_LIT(&b, "]");
	return rk__sb_done(out, &b);
}

