/*
 * A store's recorded load as an analysis, so the heatmap pictures
 * (heatmap.c, heatmap_html.c) draw a real store the way they draw the
 * simulator: the record read by the store's own reader (rowkey/metrics.h)
 * and turned into a key space x time map of one table.
 *
 * Key rows: the table's key buckets (rk_metrics_keymap: about 1,000 rows
 * cut where the load was, so a sequential key draws its diagonal), in rows
 * written and read. A version 1 file has no key buckets: then the rows are
 * cut at every region boundary the table had, each region's counts (cells)
 * spread evenly over the rows it covers.
 * Servers x time: each bucket of each of the table's regions on the server
 * that served it (cells). The regions shown are the live ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rowkey/metrics.h>

#include "analyze/analyze_int.h"
#include "key/bytes.h"
#include "key/error.h"

enum { MAX_ROWS = 1000, MAX_COLS = 600 };

static uint8_t *dup_key(const uint8_t *k, size_t n)
{
	uint8_t *d = malloc(n + 1);
	if (d && n)
		memcpy(d, k, n);
	return d;
}

/* ---- which table ---- */

/* rows written (key buckets) or else cells written (regions) of a table */
static uint64_t writes_of(const rk_metrics *m, const char *table)
{
	uint64_t w = 0;
	const rk_keyviz_table *t = rk_metrics_table(m, table);
	for (size_t i = 0; t && i < t->niv; i++)
		for (size_t c = 0; c < t->iv[i].ncells; c++)
			w += t->iv[i].cells[c].c.writes;
	if (t && t->niv)
		return w;
	for (size_t i = 0; i < m->nregions; i++)
		if (!strcmp(m->regions[i].table, table) && m->regions[i].load)
			w += m->regions[i].load->total.writes;
	return w;
}

/* the table named, or the one with the most writes */
static int pick_table(const char **out, const rk_metrics *m, const char *table, const char *name)
{
	const char *best = NULL;
	uint64_t bw = 0;
	rk__sb l = {0};
	for (size_t i = 0; i < m->nregions + m->ntables; i++) {
		const char *t = i < m->nregions ? m->regions[i].table : m->tables[i - m->nregions].name;
		if (table && !strcmp(t, table)) {
			*out = t;
			return 0;
		}
		uint64_t w = writes_of(m, t);
		if (!best || w > bw) {
			best = t;
			bw = w;
		}
	}
	if (!table && best) {
		*out = best;
		return 0;
	}
	for (size_t i = 0; i < m->nregions; i++)
		if (!i || strcmp(m->regions[i].table, m->regions[i - 1].table))
			rk__sb_printf(&l, "%s%s", l.len ? ", " : "", m->regions[i].table);
	int rc = rk__err(RK_ENOTFOUND, "%s: no regions of table '%s' recorded (tables: %s)", name,
	                 table ? table : "", l.p ? l.p : "none");
	free(l.p);
	return rc;
}

/* ---- key rows ---- */

static int alloc_map(rk_analysis *a)
{
	size_t n = a->rows * a->cols;
	if (!(a->hw = calloc(n, sizeof *a->hw)) || !(a->hr = calloc(n, sizeof *a->hr)) ||
	    !(a->hb = calloc(n, sizeof *a->hb)) || !(a->row_key = calloc(a->rows, sizeof *a->row_key)) ||
	    !(a->row_key_len = calloc(a->rows, sizeof *a->row_key_len)))
		return RK_ENOMEM;
	return 0;
}

static int rows_from_buckets(rk_analysis *a, const rk_metrics *m, const char *table)
{
	rk_keymap_options o = RK_KEYMAP_OPTIONS_INIT;
	rk_keymap *k;
	o.max_rows = MAX_ROWS;
	o.max_cols = MAX_COLS;
	int rc = rk_metrics_keymap(&k, m, table, &o);
	if (rc)
		return rc;
	a->rows = k->rows;
	a->cols = k->cols;
	a->col_s = (double)k->col_ms / 1000.0;
	a->t0_ms = k->t0_ms;
	if ((rc = alloc_map(a)) == 0) {
		memcpy(a->hw, k->writes, a->rows * a->cols * sizeof *a->hw);
		memcpy(a->hr, k->reads, a->rows * a->cols * sizeof *a->hr);
		memcpy(a->hb, k->bytes_written, a->rows * a->cols * sizeof *a->hb);
		for (size_t r = 0; r < a->rows && !rc; r++) {
			a->row_key_len[r] = k->row_start_len[r];
			if (!(a->row_key[r] = dup_key(k->row_start[r], k->row_start_len[r])))
				rc = RK_ENOMEM;
		}
	}
	for (size_t r = 0; r < a->rows * a->cols; r++) {
		a->rep.writes += k->writes[r];
		a->rep.reads += k->reads[r];
	}
	rk_keymap_free(k);
	return rc;
}

typedef struct kref {
	const uint8_t *k;
	size_t n;
} kref;

static int kref_cmp(const void *x, const void *y)
{
	const kref *a = x, *b = y;
	return rk__bytes_cmp(a->k, a->n, b->k, b->n);
}

/* the time columns of the table's region records: at most MAX_COLS */
static void columns(rk_analysis *a, const rk_metrics *m, const char *table)
{
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	for (size_t i = 0; i < m->nregions; i++) {
		const rk_metrics_series *s = m->regions[i].load;
		for (size_t j = 0; s && !strcmp(m->regions[i].table, table) && j < s->n; j++) {
			t0 = s->b[j].start_ms < t0 ? s->b[j].start_ms : t0;
			t1 = s->b[j].start_ms > t1 ? s->b[j].start_ms : t1;
		}
	}
	if (t0 > t1)
		t0 = t1 = 0;
	int64_t bms = m->bucket_ms, span = (t1 - t0) / bms + 1, merge = (span + MAX_COLS - 1) / MAX_COLS;
	a->cols = (size_t)((span + merge - 1) / merge);
	a->col_s = (double)(bms * merge) / 1000.0;
	a->t0_ms = t0;
}

/* version 1: rows cut at every region boundary of the table */
static int rows_from_regions(rk_analysis *a, const rk_metrics *m, const char *table)
{
	kref *b = malloc((2 * m->nregions + 1) * sizeof *b);
	size_t nb = 0, rows = 0;
	if (!b)
		return RK_ENOMEM;
	b[nb++] = (kref){(const uint8_t *)"", 0};
	for (size_t i = 0; i < m->nregions; i++) {
		const rk_metrics_region *g = &m->regions[i];
		if (strcmp(g->table, table))
			continue;
		b[nb++] = (kref){g->start, g->start_len};
		if (g->end)
			b[nb++] = (kref){g->end, g->end_len};
	}
	qsort(b, nb, sizeof *b, kref_cmp);
	for (size_t i = 0; i < nb; i++)
		if (!rows || kref_cmp(&b[rows - 1], &b[i]))
			b[rows++] = b[i];
	columns(a, m, table);
	a->rows = rows;
	int rc = alloc_map(a);
	for (size_t r = 0; r < rows && !rc; r++) {
		a->row_key_len[r] = b[r].n;
		if (!(a->row_key[r] = dup_key(b[r].k, b[r].n)))
			rc = RK_ENOMEM;
	}
	int64_t col_ms = (int64_t)(a->col_s * 1000 + 0.5);
	for (size_t i = 0; i < m->nregions && !rc; i++) {
		const rk_metrics_region *g = &m->regions[i];
		if (strcmp(g->table, table) || !g->load)
			continue;
		size_t r0 = rk__heat_row_of(a, g->start, g->start_len);
		size_t r1 = g->end ? rk__heat_row_of(a, g->end, g->end_len) : rows;
		if (r1 <= r0)
			r1 = r0 + 1;
		uint64_t k = r1 - r0;
		for (size_t j = 0; j < g->load->n; j++) {
			const rk_metrics_bucket *x = &g->load->b[j];
			size_t c = (size_t)((x->start_ms - a->t0_ms) / col_ms);
			uint64_t v[3] = {x->c.writes, x->c.reads, x->c.bytes_written};
			uint64_t *dst[3] = {a->hw, a->hr, a->hb};
			for (int q = 0; q < 3; q++)
				for (size_t r = r0; r < r1; r++)
					dst[q][r * a->cols + c] += v[q] / k + ((r - r0) < v[q] % k);
			a->rep.writes += x->c.writes;
			a->rep.reads += x->c.reads;
		}
	}
	free(b);
	return rc;
}

/* ---- servers and regions ---- */

/* each bucket of the table's regions on the server that served it */
static int servers_map(rk_analysis *a, const rk_metrics *m, const char *table)
{
	unsigned S = a->rep.servers;
	int64_t col_ms = (int64_t)(a->col_s * 1000 + 0.5);
	if (!(a->sw = calloc(a->cols * S, sizeof *a->sw)) || !(a->sr = calloc(a->cols * S, sizeof *a->sr)))
		return RK_ENOMEM;
	for (size_t i = 0; i < m->nregions; i++) {
		const rk_metrics_series *s = m->regions[i].load;
		for (size_t j = 0; s && !strcmp(m->regions[i].table, table) && j < s->n; j++) {
			const rk_metrics_bucket *x = &s->b[j];
			if (x->server >= S || x->start_ms < a->t0_ms)
				continue;
			size_t c = (size_t)((x->start_ms - a->t0_ms) / (col_ms ? col_ms : 1));
			if (c >= a->cols)
				continue; /* after the key buckets' last interval */
			a->sw[c * S + x->server] += x->c.writes;
			a->sr[c * S + x->server] += x->c.reads;
			a->srv_writes[x->server] += x->c.writes;
		}
	}
	return 0;
}

/* the live regions of the table (by start key, as the record keeps them) */
static int live_regions(rk_analysis *a, const rk_metrics *m, const char *table)
{
	if (!(a->regions = calloc(m->nregions + 1, sizeof *a->regions)))
		return RK_ENOMEM;
	for (size_t i = 0; i < m->nregions; i++) {
		const rk_metrics_region *g = &m->regions[i];
		if (strcmp(g->table, table))
			continue;
		if (!g->live) {
			a->rep.splits++;
			continue;
		}
		rk__region_row *x = &a->regions[a->nregions++];
		x->id = g->id;
		x->server = g->server;
		x->start_len = g->start_len;
		x->end_len = g->end_len;
		if (!(x->start = dup_key(g->start, g->start_len)) || (g->end && !(x->end = dup_key(g->end, g->end_len))))
			return RK_ENOMEM;
	}
	return 0;
}

/* what was measured, over which window, in which unit */
static int describe(rk_analysis *a, int buckets)
{
	char when[32] = "", *w;
	time_t s = (time_t)(a->t0_ms / 1000);
	struct tm tm;
	if (gmtime_r(&s, &tm))
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	size_t n = 200;
	if (!(w = malloc(n)))
		return -1;
	snprintf(w, n, "recorded by the store over %.0f s from %s UTC, %s", (double)a->cols * a->col_s,
	         when, buckets ? "in rows (key buckets)" : "in cells (a version 1 file: per region)");
	free(a->workload);
	a->workload = w;
	a->rep.workload = w;
	return 0;
}

/* a growing key: the hottest row of each active column never moves back */
static double monotonic(const rk_analysis *a)
{
	size_t last = SIZE_MAX, steps = 0, fwd = 0;
	for (size_t c = 0; c < a->cols; c++) {
		size_t best = SIZE_MAX;
		for (size_t r = 0; r < a->rows; r++)
			if (a->hw[r * a->cols + c] && (best == SIZE_MAX || a->hw[r * a->cols + c] > a->hw[best * a->cols + c]))
				best = r;
		if (best == SIZE_MAX)
			continue;
		if (last != SIZE_MAX) {
			steps++;
			fwd += best >= last;
		}
		last = best;
	}
	return steps >= 3 ? (double)fwd / (double)steps : 0;
}

int rk__analysis_from_record(rk_analysis **out, const rk_metrics *m, const char *table,
                             const char *name)
{
	const char *t = NULL;
	rk_analysis *a = NULL;
	int rc;
	*out = NULL;
	if ((rc = pick_table(&t, m, table, name)) != 0)
		return rc;
	const rk_keyviz_table *kt = rk_metrics_table(m, t);
	int buckets = kt && kt->niv;
	if (!(a = rk__analysis_new(t, "", "store", m->servers)))
		goto nomem;
	if (kt && kt->schema && rk_analysis_set_schema_text(a, kt->schema))
		goto nomem;
	rc = buckets ? rows_from_buckets(a, m, t) : rows_from_regions(a, m, t);
	if (!rc)
		rc = servers_map(a, m, t);
	if (!rc)
		rc = live_regions(a, m, t);
	if (rc == RK_ENOMEM)
		goto nomem;
	if (rc)
		goto fail;
	if (describe(a, buckets))
		goto nomem;
	a->mono = monotonic(a);
	a->rep.regions = a->rep.regions_initial = a->nregions;
	if ((rc = rk__analysis_finish(a, NULL, NULL, NULL)) != 0)
		goto fail;
	*out = a;
	return 0;
nomem:
	rc = rk__err(RK_ENOMEM, "%s: out of memory", name);
fail:
	rk_analysis_free(a);
	return rc;
}

int rk__analysis_from_metrics_text(rk_analysis **out, const char *text, size_t len,
                                   const char *table, const char *name)
{
	rk_metrics *m;
	*out = NULL;
	int rc = rk_metrics_parse(&m, text, len, name);
	if (rc)
		return rc;
	rc = rk__analysis_from_record(out, m, table, name ? name : "metrics.tsv");
	rk_metrics_free(m);
	return rc;
}

int rk_analysis_from_metrics(rk_analysis **out, const char *dir, const char *table)
{
	char path[4200];
	rk_metrics *m;
	*out = NULL;
	int rc = rk_metrics_read(&m, dir);
	if (rc)
		return rc;
	snprintf(path, sizeof path, "%s/metrics.tsv", dir);
	rc = rk__analysis_from_record(out, m, table, path);
	rk_metrics_free(m);
	if (rc == 0) { /* the pictures' title: the table and where its store lives */
		rk_analysis *a = *out;
		size_t n = strlen(a->design) + strlen(dir) + 16;
		char *d = malloc(n);
		if (!d) {
			rk_analysis_free(a);
			*out = NULL;
			return rk__err(RK_ENOMEM, "%s: out of memory", path);
		}
		snprintf(d, n, "%s (store %s)", a->design, dir);
		free(a->design);
		a->design = d;
		a->rep.design = d;
	}
	return rc;
}
