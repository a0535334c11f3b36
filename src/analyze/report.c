/*
 * Reports: the metrics derived from a run's counters, the verdict line, and
 * the text, JSON and side-by-side forms.
 *
 * Metrics (issue 5):
 *   share_s            writes on server s / all writes
 *   hottest share      max_s share_s;  max/mean = hottest share x S
 *   effective servers  1 / sum_s share_s^2 (1 when one server takes all,
 *                      S when all take the same)
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
#include "key/error.h"

/* ---- strings ---- */

void rk__sb_put(rk__sb *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 1024;
		while (c < b->len + n + 1)
			c *= 2;
		char *q = realloc(b->p, c);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = c;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void rk__sb_printf(rk__sb *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof tmp) {
		rk__sb_put(b, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		b->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	rk__sb_put(b, big, (size_t)n);
	free(big);
}

void rk__sb_json_str(rk__sb *b, const uint8_t *s, size_t n)
{
	RK__SB_LIT(b, "\"");
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			rk__sb_put(b, e, 2);
		} else if (c < 0x20 || c >= 0x7f || c == '<' || c == '>' || c == '&') {
			rk__sb_printf(b, "\\u%04x", c);
		} else {
			rk__sb_put(b, (const char *)&c, 1);
		}
	}
	RK__SB_LIT(b, "\"");
}

int rk__sb_done(char **out, rk__sb *b)
{
	if (b->oom || !b->p) {
		free(b->p);
		*out = NULL;
		return rk__err(RK_ENOMEM, "out of memory writing a report");
	}
	*out = b->p;
	return 0;
}

const char *rk__count_text(char *buf, size_t cap, uint64_t n)
{
	char t[32];
	int len = snprintf(t, sizeof t, "%llu", (unsigned long long)n);
	size_t o = 0;
	for (int i = 0; i < len && o + 1 < cap; i++) {
		if (i && (len - i) % 3 == 0 && o + 2 < cap)
			buf[o++] = ',';
		buf[o++] = t[i];
	}
	buf[o] = 0;
	return buf;
}

const char *rk__share_text(double share)
{
	static _Thread_local char ring[8][16];
	static _Thread_local unsigned next;
	char *b = ring[next++ % 8];
	double pc = share * 100;
	if (pc > 0 && pc < 0.1)
		snprintf(b, 16, "<0.1%%");
	else if (pc < 10 && fabs(pc - round(pc)) > 0.05)
		snprintf(b, 16, "%.1f%%", pc);
	else
		snprintf(b, 16, "%.0f%%", pc > 100 ? 100 : pc);
	return b;
}

const char *rk__key_text(char *buf, size_t cap, const uint8_t *k, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 5 < cap; i++) {
		if (k[i] >= 0x20 && k[i] < 0x7f && k[i] != '\\')
			buf[o++] = (char)k[i];
		else
			o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", k[i]);
	}
	if (o + 4 < cap && o < 4 * n && n && o + 5 >= cap) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = 0;
	return buf;
}

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
	}
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
	} else {
		r->peak_share = r->hottest_share;
		r->effective_at_time = r->effective_servers;
		a->hot_load = r->hottest_share;
	}
	r->throughput = a->hot_load > 0 ? r->capacity / a->hot_load : 0;
	r->queries = a->queries;
	if (!a->queries)
		r->nqueries = 0;
	return rk__causes(a, schema, src, o);
}

/* ---- text ---- */

static void human_bytes(char *buf, size_t cap, double b)
{
	const char *u[] = {"B", "KB", "MB", "GB", "TB"};
	int i = 0;
	while (b >= 1000 && i < 4) {
		b /= 1000;
		i++;
	}
	snprintf(buf, cap, i ? "%.1f %s" : "%.0f %s", b, u[i]);
}

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
	rk__sb_printf(b, ", %.1f region%s; %s%s rows read for %s returned (%.1f per row)\n",
	              q->regions, q->regions == 1 ? "" : "s", q->rows_read_estimated ? "~" : "", rd, rt,
	              q->rows_read_per_row);
}

int rk_analysis_text(char **out, const rk_analysis *a)
{
	const rk_report *r = &a->rep;
	rk__sb b = {0};
	char kb[32];
	rk__sb_printf(&b, "design      %s (%s)\n", r->design, r->engine);
	if (r->offered_rate > 0)
		rk__sb_printf(&b, "workload    %s: %llu writes, %llu reads (%.0f ops/s offered)\n",
		              r->workload, (unsigned long long)r->writes, (unsigned long long)r->reads,
		              r->offered_rate);
	else /* a store's recorded load (rk_analysis_from_metrics): no offered rate */
		rk__sb_printf(&b, "workload    %s: %llu writes, %llu reads\n", r->workload,
		              (unsigned long long)r->writes, (unsigned long long)r->reads);
	if (r->records) {
		char w[32], n[32];
		rk__count_text(w, sizeof w, r->writes);
		rk__count_text(n, sizeof n, r->records);
		if (r->limited)
			rk__sb_printf(&b, "replayed    the first %s records of the file (the limit)", w);
		else
			rk__sb_printf(&b, "replayed    %s of the file's %s records", w, n);
		rk__sb_printf(&b, "%s\n", r->own_time ? ", at the data's own pace (its clock is the time axis)"
		                                      : ", at the fixed rate");
	}
	if (r->capacity > 0)
		rk__sb_printf(&b, "servers     %u x %.0f ops/s\n", r->servers, r->capacity);
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
	if (r->throughput_measured)
		rk__sb_printf(&b, "measured    on the store: write shares, loads per time bucket (wall "
		                  "clock), throughput; reads not executed\n");
	if (r->throughput_measured)
		rk__sb_printf(&b, "throughput  %.0f rows/s measured: %llu rows in %.2f s of wall-clock time, "
		              "hottest server busy %.0f%%%s\n", r->throughput,
		              (unsigned long long)r->writes, r->wall_seconds, r->hottest_busy * 100,
		              r->hottest_busy < 0.9 ? " (this machine, not the servers, set the pace)"
		                                    : "");
	else if (r->capacity > 0)
		rk__sb_printf(&b, "throughput  %.0f ops/s before the hottest server saturates (modelled)\n",
		              r->throughput);
	if (r->offered_rate > 0)
		rk__sb_printf(&b, "regions     %zu at start, %zu at end (%llu splits, %llu moves)\n",
		              r->regions_initial, r->regions, (unsigned long long)r->splits,
		              (unsigned long long)r->moves);
	else
		rk__sb_printf(&b, "regions     %zu at the end, %llu retired by splits\n", r->regions,
		              (unsigned long long)r->splits);
	human_bytes(kb, sizeof kb, (double)r->key_total);
	if (r->key_total)
		rk__sb_printf(&b, "key bytes   mean %.1f, max %zu, total %s\n", r->key_mean, r->key_max, kb);
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

/* ---- JSON ---- */

static void jnum(rk__sb *b, double v)
{
	if (isfinite(v))
		rk__sb_printf(b, "%.6g", v);
	else
		RK__SB_LIT(b, "null");
}

static void jstr(rk__sb *b, const char *s)
{
	if (s)
		rk__sb_json_str(b, (const uint8_t *)s, strlen(s));
	else
		RK__SB_LIT(b, "null");
}

static void query_json(rk__sb *b, const rk_query_cost *q)
{
	RK__SB_LIT(b, ",\"query\":");
	jstr(b, q->query);
	rk__sb_printf(b, ",\"weight\":");
	jnum(b, q->weight);
	rk__sb_printf(b, ",\"kind\":\"%s\",\"rows_read\":", q->kind ? q->kind : "scan");
	jnum(b, q->rows_read);
	RK__SB_LIT(b, ",\"rows_returned\":");
	jnum(b, q->rows_returned);
	RK__SB_LIT(b, ",\"rows_read_per_row\":");
	jnum(b, q->rows_read_per_row);
	rk__sb_printf(b, ",\"rows_read_estimated\":%s,\"merge_ways\":%u,\"ordered\":%s",
	              q->rows_read_estimated ? "true" : "false", q->merge_ways,
	              q->ordered ? "true" : "false");
}

static void cause_json(rk__sb *b, const rk_cause *c, size_t k)
{
	rk__sb_printf(b, "%s{\"kind\":\"%s\",\"field\":", k ? "," : "", c->kind);
	jstr(b, c->field);
	RK__SB_LIT(b, ",\"value\":");
	jstr(b, c->value);
	RK__SB_LIT(b, ",\"number\":");
	jnum(b, c->number);
	RK__SB_LIT(b, ",\"unit\":");
	jstr(b, c->unit);
	RK__SB_LIT(b, ",\"text\":");
	jstr(b, c->text);
	RK__SB_LIT(b, ",\"remedy\":");
	jstr(b, c->remedy);
	RK__SB_LIT(b, ",\"pattern\":");
	jstr(b, c->pattern);
	RK__SB_LIT(b, "}");
}

void rk__analysis_json(rk__sb *b, const rk_analysis *a)
{
	const rk_report *r = &a->rep;
	RK__SB_LIT(b, "{\"design\":");
	rk__sb_json_str(b, (const uint8_t *)r->design, strlen(r->design));
	rk__sb_printf(b, ",\"engine\":\"%s\",\"workload\":", r->engine);
	rk__sb_json_str(b, (const uint8_t *)r->workload, strlen(r->workload));
	rk__sb_printf(b, ",\"servers\":%u,\"writes\":%llu,\"reads\":%llu,\"read_visits\":%llu",
	              r->servers, (unsigned long long)r->writes, (unsigned long long)r->reads,
	              (unsigned long long)r->read_visits);
	RK__SB_LIT(b, ",\"offered_rate\":");
	jnum(b, r->offered_rate);
	RK__SB_LIT(b, ",\"capacity\":");
	jnum(b, r->capacity);
	RK__SB_LIT(b, ",\"hottest_share\":");
	jnum(b, r->hottest_share);
	rk__sb_printf(b, ",\"hottest_server\":%u,\"max_mean\":", r->hottest_server);
	jnum(b, r->max_mean);
	RK__SB_LIT(b, ",\"effective_servers\":");
	jnum(b, r->effective_servers);
	RK__SB_LIT(b, ",\"effective_at_time\":");
	jnum(b, r->effective_at_time);
	RK__SB_LIT(b, ",\"peak_share\":");
	jnum(b, r->peak_share);
	RK__SB_LIT(b, ",\"throughput\":");
	jnum(b, r->throughput);
	rk__sb_printf(b, ",\"throughput_measured\":%s", r->throughput_measured ? "true" : "false");
	if (r->throughput_measured) {
		RK__SB_LIT(b, ",\"wall_seconds\":");
		jnum(b, r->wall_seconds);
		RK__SB_LIT(b, ",\"hottest_busy\":");
		jnum(b, r->hottest_busy);
	}
	rk__sb_printf(b, ",\"regions_initial\":%zu,\"regions\":%zu,\"splits\":%llu,\"moves\":%llu",
	              r->regions_initial, r->regions, (unsigned long long)r->splits,
	              (unsigned long long)r->moves);
	RK__SB_LIT(b, ",\"key_mean\":");
	jnum(b, r->key_mean);
	rk__sb_printf(b, ",\"key_max\":%zu,\"key_total\":%llu,\"server_share\":[", r->key_max,
	              (unsigned long long)r->key_total);
	for (unsigned s = 0; s < r->servers; s++) {
		if (s)
			RK__SB_LIT(b, ",");
		jnum(b, r->server_share[s]);
	}
	RK__SB_LIT(b, "],\"queries\":[");
	for (size_t q = 0; q < r->nqueries; q++) {
		rk__sb_printf(b, "%s{\"name\":", q ? "," : "");
		rk__sb_json_str(b, (const uint8_t *)r->queries[q].name, strlen(r->queries[q].name));
		rk__sb_printf(b, ",\"plan\":\"%s\",\"ranges\":", r->queries[q].plan);
		jnum(b, r->queries[q].ranges);
		RK__SB_LIT(b, ",\"regions\":");
		jnum(b, r->queries[q].regions);
		query_json(b, &r->queries[q]);
		RK__SB_LIT(b, "}");
	}
	RK__SB_LIT(b, "],\"causes\":[");
	for (size_t k = 0; k < r->ncauses; k++)
		cause_json(b, &r->causes[k], k);
	rk__sb_printf(b, "],\"records\":%llu,\"limited\":%s,\"own_time\":%s",
	              (unsigned long long)r->records, r->limited ? "true" : "false",
	              r->own_time ? "true" : "false");
	rk__sb_printf(b, ",\"unique\":{\"distinct\":%llu,\"records\":%llu}",
	              (unsigned long long)r->key_distinct, (unsigned long long)r->keys_checked);
	RK__SB_LIT(b, ",\"writes_spread\":{\"hottest_share\":");
	jnum(b, r->hottest_share);
	RK__SB_LIT(b, ",\"effective_servers\":");
	jnum(b, r->effective_servers);
	RK__SB_LIT(b, "}");
	RK__SB_LIT(b, ",\"verdict\":");
	rk__sb_json_str(b, (const uint8_t *)(r->verdict ? r->verdict : ""),
	                r->verdict ? strlen(r->verdict) : 0);
	if (a->sw) {
		rk__sb_printf(b, ",\"time_bucket_seconds\":");
		jnum(b, a->col_s);
		RK__SB_LIT(b, ",\"server_writes\":[");
		for (size_t t = 0; t < a->cols; t++) {
			rk__sb_put(b, t ? ",[" : "[", t ? 2 : 1);
			for (unsigned s = 0; s < r->servers; s++)
				rk__sb_printf(b, "%s%llu", s ? "," : "",
				              (unsigned long long)a->sw[t * r->servers + s]);
			RK__SB_LIT(b, "]");
		}
		RK__SB_LIT(b, "],\"server_read_visits\":[");
		for (size_t t = 0; t < a->cols; t++) {
			rk__sb_put(b, t ? ",[" : "[", t ? 2 : 1);
			for (unsigned s = 0; s < r->servers; s++)
				rk__sb_printf(b, "%s%llu", s ? "," : "",
				              (unsigned long long)a->sr[t * r->servers + s]);
			RK__SB_LIT(b, "]");
		}
		RK__SB_LIT(b, "]");
	}
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
	RK__SB_LIT(b, "]}");
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
	rk__sb_printf(&b, "%-*s  %-9s  %7s  %7s  %6s  %9s  %11s  %7s  %6s  %s\n", (int)w, "design",
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
		rk__sb_printf(&b, "%-*.*s  %-9s  %6.1f%%  %7s  %6.2f  %9.2f  %9.0f %c  %7zu  %6.1f  %s\n",
		              (int)w, (int)w, r->design, r->engine, r->hottest_share * 100, at,
		              r->effective_servers, r->max_mean, r->throughput,
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
