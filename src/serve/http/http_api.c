/*
 * The JSON the live page reads (docs/serve.md, "The live page" lists every
 * field): /api/tables, what the store recorded of each table; and
 * /api/heatmap, one table's keymap over a time window and a key window
 * (rk_metrics_keymap), its rows' keys decoded through the table's schema
 * with their prefix hierarchy, the live regions with their servers, and the
 * hottest key ranges. Bad arguments are 400 with the reason, in the JSON
 * error body every answer of the server uses. Each answer is made from one
 * record, which http.c fetches.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "key/bytes.h"
#include "key/error.h"
#include "key/keytext.h"
#include "serve/http/http_api.h"

enum { DEF_ROWS = 400, DEF_COLS = 240, MAX_ROWS = 1000, MAX_COLS = 600, LEVELS = 3, HOTTEST = 10 };

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* the span of a table's key buckets: [*from, *to); 0 when it has none */
static int span_of(const rk_metrics *m, const char *table, int64_t *from, int64_t *to)
{
	const rk_keyviz_table *t = rk_metrics_table(m, table);
	if (!t || !t->niv)
		return 0;
	*from = t->iv[0].start_ms;
	*to = t->iv[t->niv - 1].start_ms + (int64_t)t->iv[t->niv - 1].width_ms;
	return 1;
}

static void rows_of(const rk_metrics *m, const char *table, uint64_t *w, uint64_t *r)
{
	const rk_keyviz_table *t = rk_metrics_table(m, table);
	*w = *r = 0;
	for (size_t i = 0; t && i < t->niv; i++)
		for (size_t c = 0; c < t->iv[i].ncells; c++) {
			*w += t->iv[i].cells[c].c.writes;
			*r += t->iv[i].cells[c].c.reads;
		}
}

static void json_text(FILE *f, const char *s)
{
	rk__json_str(f, (const uint8_t *)s, strlen(s));
}

/* every table the record names: with key buckets, a schema or regions */
static size_t table_names(const rk_metrics *m, const char **names, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < m->ntables + m->nregions && n < max; i++) {
		const char *t = i < m->ntables ? m->tables[i].name : m->regions[i - m->ntables].table;
		int seen = 0;
		for (size_t j = 0; j < n && !seen; j++)
			seen = !strcmp(names[j], t);
		if (!seen)
			names[n++] = t;
	}
	return n;
}

int rk_http__tables(char **body, size_t *len, const rk_metrics *m, int live)
{
	FILE *f = open_memstream(body, len);
	if (!f)
		return 500;
	const char *names[1024];
	size_t n = table_names(m, names, 1024);
	fprintf(f, "{\"live\":%s,\"now_ms\":%lld,\"bucket_ms\":%u,\"servers\":%u,\"tables\":[",
	        live ? "true" : "false", (long long)now_ms(), m->bucket_ms, m->servers);
	for (size_t i = 0; i < n; i++) {
		const rk_keyviz_table *t = rk_metrics_table(m, names[i]);
		size_t nreg = 0;
		uint64_t w, r;
		int64_t from = 0, to = 0;
		for (size_t k = 0; k < m->nregions; k++)
			nreg += m->regions[k].live && !strcmp(m->regions[k].table, names[i]);
		rows_of(m, names[i], &w, &r);
		int has = span_of(m, names[i], &from, &to);
		fprintf(f, "%s{\"name\":", i ? "," : "");
		json_text(f, names[i]);
		fputs(",\"schema\":", f);
		if (t && t->schema)
			json_text(f, t->schema);
		else
			fputs("null", f);
		fprintf(f, ",\"regions\":%zu,\"key_buckets\":%s,\"from_ms\":%lld,\"to_ms\":%lld,"
		           "\"rows_written\":%llu,\"rows_read\":%llu}",
		        nreg, has ? "true" : "false", (long long)from, (long long)to,
		        (unsigned long long)w, (unsigned long long)r);
	}
	fputs("]}\n", f);
	fclose(f);
	return 200;
}

/* ---- /api/heatmap ---- */

typedef struct hreq {
	const char *table;
	int64_t from, to;
	uint8_t *lo, *hi;
	size_t lo_len, hi_len;
	size_t rows, cols;
	int recorded; /* the table has key buckets: else the map is empty */
} hreq;

static int arg_i64(int64_t *out, const char *s, int64_t lo, int64_t hi)
{
	char *end;
	errno = 0;
	long long v = s ? strtoll(s, &end, 10) : 0;
	if (!s || !*s || *end || errno || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* the request's arguments; a message for the 400 otherwise */
static const char *parse(hreq *q, const rk_metrics *m, int live, rk_http_arg arg, void *req)
{
	const char *names[1024], *s;
	int64_t v;
	size_t n = table_names(m, names, 1024);
	q->table = NULL;
	if ((s = arg(req, "table"))) {
		for (size_t i = 0; i < n && !q->table; i++)
			if (!strcmp(names[i], s))
				q->table = names[i];
		if (!q->table)
			return "table: no such table in the store's record";
	} else { /* the table that took the most rows */
		uint64_t best = 0, w, r;
		for (size_t i = 0; i < n; i++) {
			rows_of(m, names[i], &w, &r);
			if (!q->table || w + r > best) {
				q->table = names[i];
				best = w + r;
			}
		}
		if (!q->table)
			return "the store has recorded no table yet";
	}
	int64_t f = 0, t = 0;
	q->recorded = span_of(m, q->table, &f, &t);
	if (live) { /* a live store: up to the end of the current interval */
		int64_t now = now_ms(), b = m->bucket_ms ? m->bucket_ms : 1000;
		t = now - now % b + b > t ? now - now % b + b : t;
		f = f ? f : now - now % b;
	}
	q->from = f;
	q->to = t;
	if ((s = arg(req, "from")) && arg_i64(&q->from, s, 0, INT64_MAX / 4))
		return "from: not Unix milliseconds";
	if ((s = arg(req, "to")) && arg_i64(&q->to, s, 1, INT64_MAX / 4))
		return "to: not Unix milliseconds";
	/* a table with nothing recorded yet has no default window: its empty
	 * map needs none */
	if (q->to <= q->from && (q->recorded || arg(req, "from") || arg(req, "to")))
		return "the time window is empty (to must be after from)";
	if ((s = arg(req, "lo")) && *s && rk__unhex(&q->lo, &q->lo_len, s, strlen(s)))
		return "lo: not hex";
	if ((s = arg(req, "hi")) && *s && rk__unhex(&q->hi, &q->hi_len, s, strlen(s)))
		return "hi: not hex";
	if (q->lo && q->hi && rk__bytes_cmp(q->lo, q->lo_len, q->hi, q->hi_len) >= 0)
		return "the key window is empty (lo must sort before hi)";
	q->rows = DEF_ROWS;
	q->cols = DEF_COLS;
	if ((s = arg(req, "rows")) && arg_i64(&v, s, 1, MAX_ROWS) == 0)
		q->rows = (size_t)v;
	else if (s)
		return "rows: not 1..1000";
	if ((s = arg(req, "cols")) && arg_i64(&v, s, 1, MAX_COLS) == 0)
		q->cols = (size_t)v;
	else if (s)
		return "cols: not 1..600";
	return NULL;
}

static void matrix(FILE *f, const char *name, const uint64_t *v, size_t n)
{
	fprintf(f, ",\"%s\":[", name);
	for (size_t i = 0; i < n; i++)
		fprintf(f, i ? ",%llu" : "%llu", (unsigned long long)v[i]);
	putc(']', f);
}

/* the prefix hierarchy of the rows' keys */
static int levels(FILE *f, const rk_keymap *k, rk__keytext *kt)
{
	rk__keygroup *g[LEVELS];
	size_t ng[LEVELS];
	if (rk__keytext_groups(g, ng, LEVELS, kt, (const uint8_t *const *)k->row_start, k->row_start_len,
	                       k->rows))
		return -1;
	fputs(",\"levels\":[", f);
	for (size_t L = 0; L < LEVELS; L++) {
		fprintf(f, "%s[", L ? "," : "");
		for (size_t i = 0; i < ng[L]; i++) {
			fprintf(f, "%s{\"row\":%zu,\"rows\":%zu,\"label\":", i ? "," : "", g[L][i].row, g[L][i].rows);
			json_text(f, g[L][i].label);
			putc('}', f);
		}
		putc(']', f);
		free(g[L]);
	}
	putc(']', f);
	return 0;
}

/* the row holding key k */
static size_t row_of(const rk_keymap *km, const uint8_t *k, size_t len)
{
	return rk__bytes_floor((const uint8_t *const *)km->row_start, km->row_start_len, 0, km->rows, k,
	                       len);
}

/* the live regions of the table that reach into the key window */
static void regions(FILE *f, const rk_metrics *m, const hreq *q, const rk_keymap *k, rk__keytext *kt)
{
	int first = 1;
	fputs(",\"regions\":[", f);
	for (size_t i = 0; i < m->nregions; i++) {
		const rk_metrics_region *g = &m->regions[i];
		if (!g->live || strcmp(g->table, q->table))
			continue;
		if ((q->hi && rk__bytes_cmp(g->start, g->start_len, q->hi, q->hi_len) >= 0) ||
		    (q->lo && g->end && rk__bytes_cmp(g->end, g->end_len, q->lo, q->lo_len) <= 0))
			continue;
		int before = q->lo && rk__bytes_cmp(g->start, g->start_len, q->lo, q->lo_len) < 0;
		fprintf(f, "%s{\"id\":%llu,\"server\":%u,\"row\":%zu,\"start\":", first ? "" : ",",
		        (unsigned long long)g->id, g->server, before ? 0 : row_of(k, g->start, g->start_len));
		rk__keytext_json(f, kt, g->start, g->start_len);
		fputs(",\"end\":", f);
		if (g->end)
			rk__keytext_json(f, kt, g->end, g->end_len);
		else
			fputs("null", f);
		putc('}', f);
		first = 0;
	}
	putc(']', f);
}

/* the rows that took the most (writes and reads) in the window */
static void hottest(FILE *f, const rk_keymap *k, rk__keytext *kt)
{
	size_t top[HOTTEST], n = 0;
	rk_metrics_counts sum[HOTTEST];
	for (size_t r = 0; r < k->rows; r++) {
		rk_metrics_counts s = {0};
		for (size_t c = 0; c < k->cols; c++) {
			s.writes += k->writes[r * k->cols + c];
			s.reads += k->reads[r * k->cols + c];
			s.bytes_written += k->bytes_written[r * k->cols + c];
			s.bytes_read += k->bytes_read[r * k->cols + c];
		}
		uint64_t v = s.writes + s.reads;
		size_t i; /* into the top, kept sorted */
		if (!v)
			continue;
		if (n < HOTTEST)
			i = n++;
		else if (sum[HOTTEST - 1].writes + sum[HOTTEST - 1].reads < v)
			i = HOTTEST - 1;
		else
			continue;
		top[i] = r;
		sum[i] = s;
		for (; i > 0 && sum[i - 1].writes + sum[i - 1].reads < v; i--) {
			size_t tr = top[i];
			rk_metrics_counts ts = sum[i];
			top[i] = top[i - 1];
			sum[i] = sum[i - 1];
			top[i - 1] = tr;
			sum[i - 1] = ts;
		}
	}
	fputs(",\"hottest\":[", f);
	for (size_t i = 0; i < n; i++) {
		size_t r = top[i];
		fprintf(f, "%s{\"row\":%zu,\"writes\":%llu,\"reads\":%llu,\"bytes_written\":%llu,"
		           "\"bytes_read\":%llu,\"start\":",
		        i ? "," : "", r, (unsigned long long)sum[i].writes, (unsigned long long)sum[i].reads,
		        (unsigned long long)sum[i].bytes_written, (unsigned long long)sum[i].bytes_read);
		rk__keytext_json(f, kt, k->row_start[r], k->row_start_len[r]);
		fputs(",\"end\":", f);
		if (r + 1 < k->rows)
			rk__keytext_json(f, kt, k->row_start[r + 1], k->row_start_len[r + 1]);
		else if (k->end)
			rk__keytext_json(f, kt, k->end, k->end_len);
		else
			fputs("null", f);
		putc('}', f);
	}
	putc(']', f);
}

static int heatmap_json(FILE *f, const rk_metrics *m, const hreq *q, const rk_keymap *k, int live)
{
	const rk_keyviz_table *t = rk_metrics_table(m, q->table);
	rk__keytext *kt = rk__keytext_new(t ? t->schema : NULL);
	if (!kt)
		return -1;
	fputs("{\"table\":", f);
	json_text(f, q->table);
	fprintf(f, ",\"live\":%s,\"now_ms\":%lld,\"from_ms\":%lld,\"to_ms\":%lld,\"t0_ms\":%lld,"
	           "\"col_ms\":%llu,\"rows\":%zu,\"cols\":%zu,\"servers\":%u,\"decoded\":%s,\"row_keys\":[",
	        live ? "true" : "false", (long long)now_ms(), (long long)q->from, (long long)q->to,
	        (long long)k->t0_ms, (unsigned long long)k->col_ms, k->rows, k->cols, m->servers,
	        rk__keytext_decodes(kt) ? "true" : "false");
	for (size_t r = 0; r < k->rows; r++) {
		if (r)
			putc(',', f);
		rk__keytext_json(f, kt, k->row_start[r], k->row_start_len[r]);
	}
	fputs("],\"end\":", f);
	if (k->end)
		rk__keytext_json(f, kt, k->end, k->end_len);
	else
		fputs("null", f);
	int rc = levels(f, k, kt);
	regions(f, m, q, k, kt);
	hottest(f, k, kt);
	size_t n = k->rows * k->cols;
	matrix(f, "writes", k->writes, n);
	matrix(f, "reads", k->reads, n);
	matrix(f, "bytes_written", k->bytes_written, n);
	matrix(f, "bytes_read", k->bytes_read, n);
	fputs("}\n", f);
	rk__keytext_free(kt);
	return rc;
}

int rk_http__heatmap(char **body, size_t *len, const rk_metrics *m, int live, rk_http_arg arg,
                     void *req)
{
	int status = 200;
	hreq q = {0};
	rk_keymap *k = NULL;
	const char *bad = parse(&q, m, live, arg, req);
	if (bad) {
		status = rk_http__error(body, len, 400, bad);
		goto out;
	}
	rk_keymap_options o = RK_KEYMAP_OPTIONS_INIT;
	o.from_ms = q.from;
	o.to_ms = q.to;
	o.lo = q.lo;
	o.lo_len = q.lo_len;
	o.hi = q.hi;
	o.hi_len = q.hi_len;
	o.max_rows = q.rows;
	o.max_cols = q.cols;
	/* a table the store knows but has no load of yet (a new one): an empty
	 * map, rows 0 x cols 0, with its regions, not an error the page would
	 * report on every refresh */
	rk_keymap empty = {0};
	empty.t0_ms = q.from;
	int rc = q.recorded ? rk_metrics_keymap(&k, m, q.table, &o) : 0;
	if (rc) {
		status = rk_http__error(body, len, rc == RK_ENOTFOUND ? 404 : rc == RK_EINVALID ? 400 : 500,
		                        rk_error_last());
		goto out;
	}
	FILE *f = open_memstream(body, len);
	if (!f || heatmap_json(f, m, &q, k ? k : &empty, live)) {
		if (f)
			fclose(f);
		free(*body);
		*body = NULL;
		status = rk_http__error(body, len, 500, "out of memory");
		goto out;
	}
	fclose(f);
out:
	rk_keymap_free(k);
	free(q.lo);
	free(q.hi);
	return status;
}

int rk_http__error(char **body, size_t *len, int status, const char *msg)
{
	FILE *f = open_memstream(body, len);
	if (!f)
		return 500;
	fputs("{\"error\":\"", f);
	for (const char *c = msg; *c; c++)
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if ((unsigned char)*c < 0x20)
			fprintf(f, "\\u%04x", *c);
		else
			putc(*c, f);
	fputs("\"}\n", f);
	fclose(f);
	return status;
}
