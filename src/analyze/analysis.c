/*
 * The analysis object (rk_analysis): what a run fills and the reports read;
 * its life, its accessors, and the metrics derived from its counters:
 *   share_s            writes on server s / all writes
 *   hottest share      max_s share_s;  max/mean = hottest share x S
 *   effective servers  1 / sum_s share_s^2 (1 when one server takes all,
 *                      S when all take the same); at a time: the same over
 *                      each time bucket's writes, averaged over the writes
 *   peak share         sum over time buckets of the busiest server's writes
 *                      / all writes: the hottest server's share "at a time"
 *   throughput         C / (sum over buckets of the busiest server's work
 *                      (writes + region visits of reads) / operations): the
 *                      rate at which the hottest server reaches C
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "analyze/source.h"
#include "key/error.h"

/* ---- the analysis object ---- */

rk_analysis *rk__analysis_new(const char *design, const char *workload, const char *engine,
                              unsigned servers)
{
	rk_analysis *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->design = strdup(design);
	a->workload = strdup(workload);
	a->share = calloc(servers, sizeof *a->share);
	a->srv_writes = calloc(servers, sizeof *a->srv_writes);
	if (!a->design || !a->workload || !a->share || !a->srv_writes) {
		rk_analysis_free(a);
		return NULL;
	}
	a->rep.design = a->design;
	a->rep.workload = a->workload;
	a->rep.engine = engine;
	a->rep.servers = servers;
	a->rep.server_share = a->share;
	return a;
}

void rk_analysis_free(rk_analysis *a)
{
	if (!a)
		return;
	free(a->design);
	free(a->workload);
	free(a->schema_text);
	free(a->share);
	free(a->srv_writes);
	for (size_t q = 0; a->query_str && q < a->rep.nqueries; q++) {
		free(a->query_str[2 * q]);
		free(a->query_str[2 * q + 1]);
		for (size_t k = 0; a->fills && a->fills[q] && k < a->queries[q].samples; k++)
			free((char *)a->fills[q][k].query);
		if (a->fills)
			free(a->fills[q]);
	}
	free(a->fills);
	free(a->query_str);
	free(a->queries);
	free(a->verdict);
	for (size_t i = 0; i < a->ncauses; i++)
		for (int k = 0; k < 4; k++)
			free(a->cause_str[i][k]);
	for (size_t i = 0; i < a->nsplits; i++)
		free(a->split[i]);
	free(a->split);
	free(a->split_len);
	free(a->hw);
	free(a->hr);
	free(a->hb);
	for (size_t i = 0; a->row_key && i < a->rows; i++)
		free(a->row_key[i]);
	free(a->row_key);
	free(a->row_key_len);
	free(a->first2);
	free(a->sw);
	free(a->sr);
	for (size_t i = 0; a->regions && i < a->nregions; i++) {
		free(a->regions[i].start);
		free(a->regions[i].end);
		free(a->regions[i].wr);
	}
	free(a->regions);
	free(a);
}

size_t rk_analysis_splits(const rk_analysis *a, size_t i, const uint8_t **key, size_t *len)
{
	if (i < a->nsplits) {
		*key = a->split[i];
		*len = a->split_len[i];
	}
	return a->nsplits;
}

int rk__analysis_set_splits(rk_analysis *a, const rk_bytes *sp, size_t n)
{
	if (n && (!(a->split = calloc(n, sizeof *a->split)) ||
	          !(a->split_len = calloc(n, sizeof *a->split_len))))
		return rk__err(RK_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (!(a->split[i] = malloc(sp[i].len ? sp[i].len : 1)))
			return rk__err(RK_ENOMEM, "out of memory");
		memcpy(a->split[i], sp[i].ptr, sp[i].len);
		a->split_len[i] = sp[i].len;
		a->nsplits = i + 1;
	}
	return 0;
}

const rk_report *rk_analysis_report(const rk_analysis *a)
{
	return &a->rep;
}

int rk_analysis_heatmap(rk_heatmap *out, const rk_analysis *a)
{
	memset(out, 0, sizeof *out);
	if (!a->hw)
		return rk__err(RK_ENOTFOUND, "design %s: a %s run has no heatmap", a->design,
		               a->rep.engine);
	out->rows = a->rows;
	out->cols = a->cols;
	out->writes = a->hw;
	out->reads = a->hr;
	out->col_seconds = a->col_s;
	return 0;
}

const uint8_t *rk_analysis_row_key(size_t *len, const rk_analysis *a, size_t row)
{
	if (!a->row_key || row >= a->rows) {
		*len = 0;
		return NULL;
	}
	*len = a->row_key_len[row];
	return a->row_key[row];
}

/* The peak load: operations per second of the busiest window of whole time
 * buckets at least a second wide (the whole run when it is shorter: a rate
 * over a few milliseconds measures the clock's ticks), and the busiest
 * server's part of it, the share it takes of each moment's operations
 * (when a moment holds enough of them to tell, else over the run), or of
 * another day's writes when they gather more (rk_report.day_share). A file
 * replayed at its own pace has its clock's busiest second instead, when
 * that is higher. */
static void peak_rates(rk_analysis *a, const rk__source *src)
{
	rk_report *r = &a->rep;
	unsigned S = r->servers;
	if (!(a->col_s > 0) || !a->cols)
		return;
	size_t m = (size_t)ceil(1.0 / a->col_s);
	m = m < 1 ? 1 : m > a->cols ? a->cols : m;
	double most = 0;
	for (size_t b0 = 0; b0 < a->cols; b0 += m) {
		uint64_t all = 0;
		for (size_t b = b0; b < b0 + m && b < a->cols; b++)
			for (unsigned s = 0; s < S; s++)
				all += a->sw[b * S + s] + a->sr[b * S + s];
		most = (double)all > most ? (double)all : most;
	}
	r->peak_rate = most / ((double)m * a->col_s);
	/* a file at its own pace: its clock's busiest second, which time buckets
	 * of days would average away */
	if (src && src->d && r->own_time && src->d->peak_per_s > r->peak_rate)
		r->peak_rate = src->d->peak_per_s;
	double share = rk__moments_tell(a) ? a->hot_load : r->hottest_share;
	/* another day's writes, when a later day concentrates them more */
	r->peak_server_rate = r->peak_rate * (r->day_share > share ? r->day_share : share);
}

int rk__analysis_finish(rk_analysis *a, const rk_schema *schema, const rk__source *src,
                        const rk_analyze_options *o)
{
	rk_report *r = &a->rep;
	unsigned S = r->servers;
	uint64_t W = 0;
	for (unsigned s = 0; s < S; s++)
		W += a->srv_writes[s];
	double sumsq = 0;
	r->hottest_share = 0;
	r->hottest_server = 0;
	for (unsigned s = 0; s < S; s++) {
		a->share[s] = W ? (double)a->srv_writes[s] / (double)W : 0;
		sumsq += a->share[s] * a->share[s];
		if (a->share[s] > r->hottest_share) {
			r->hottest_share = a->share[s];
			r->hottest_server = s;
		}
	}
	r->effective_servers = sumsq > 0 ? 1.0 / sumsq : 0;
	r->max_mean = r->hottest_share * S;
	/* at a time: per time bucket (when the run kept buckets) */
	if (a->sw) {
		uint64_t peak = 0, ops = 0, load = 0;
		double eff = 0;
		for (size_t b = 0; b < a->cols; b++) {
			uint64_t mw = 0, ml = 0, bw = 0;
			double sq = 0;
			for (unsigned s = 0; s < S; s++) {
				uint64_t w = a->sw[b * S + s], rd = a->sr[b * S + s];
				mw = w > mw ? w : mw;
				ml = w + rd > ml ? w + rd : ml;
				bw += w;
				sq += (double)w * (double)w;
			}
			peak += mw;
			load += ml;
			eff += sq > 0 ? (double)bw * (double)bw / sq * (double)bw : 0;
		}
		r->effective_at_time = W ? eff / (double)W : 0;
		ops = r->writes + r->reads;
		r->peak_share = W ? (double)peak / (double)W : 0;
		a->hot_load = ops ? (double)load / (double)ops : 0;
		peak_rates(a, src);
	} else {
		r->peak_share = r->hottest_share;
		r->effective_at_time = r->effective_servers;
		a->hot_load = r->hottest_share;
	}
	/* the hottest server of today's moments, or of another day's writes */
	double hot = a->hot_load > r->day_share ? a->hot_load : r->day_share;
	r->throughput = hot > 0 ? r->capacity / hot : 0;
	r->queries = a->queries;
	if (!a->queries)
		r->nqueries = 0;
	return rk__causes(a, schema, src, o);
}

