/*
 * rk_metrics_keymap (rowkey/metrics.h): a table's key buckets over a time
 * window and a key window as rows x columns, Key Visualizer's heatmap.
 *
 * The pieces are every boundary of every interval in the window (and the
 * key window's ends); their weight is the rows they took, each bucket's
 * share spread evenly over its pieces; the pieces are merged, least loaded
 * neighbours first, into at most max_rows rows, so rows are narrow where
 * the load was. Counts then go to rows and columns in exact integer
 * shares: a bucket's by the pieces of it each row holds, an interval's by
 * the milliseconds of it each column holds.
 */
#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/error.h"
#include "store/local/keyviz.h"

typedef struct kmap {
	const rk_keyviz_table *t;
	int64_t from, to;
	size_t i0, i1;          /* the intervals in the window */
	rk__kvkey *p;           /* pieces */
	size_t np, w0, w1;      /* the window's pieces [w0, w1) */
	size_t *row_of;         /* piece -> row (window pieces) */
	size_t *row_first;      /* row -> its first piece; rows + 1 entries */
	size_t rows, cols;
	int64_t t0;
	uint64_t col;
} kmap;

static int layouts_of(kmap *K, const rk_keyviz_layout ***out, size_t *n)
{
	const rk_keyviz_layout **l = malloc((K->i1 - K->i0 + 1) * sizeof *l);
	size_t k = 0;
	if (!l)
		return RK_ENOMEM;
	for (size_t i = K->i0; i < K->i1; i++) {
		const rk_keyviz_layout *x = K->t->iv[i].layout;
		int seen = 0;
		for (size_t j = k; j-- > 0 && !seen && k - j <= 8;) /* shared layouts are neighbours */
			seen = l[j] == x;
		if (!seen)
			l[k++] = x;
	}
	*out = l;
	*n = k;
	return 0;
}

/* milliseconds of [a, a + w) inside [b, b + v) */
static uint64_t overlap(int64_t a, uint64_t w, int64_t b, uint64_t v)
{
	int64_t s = a > b ? a : b;
	int64_t e1 = a + (int64_t)w, e2 = b + (int64_t)v, e = e1 < e2 ? e1 : e2;
	return e > s ? (uint64_t)(e - s) : 0;
}

/* rows cut at the keys asked for (each one of the pieces' boundaries) */
static void rows_at(uint8_t *keep, const kmap *K, const rk_keymap_options *o)
{
	memset(keep, 0, K->w1 - K->w0);
	keep[0] = 1;
	for (size_t i = 0; i < o->nrows_at; i++) {
		size_t p = rk_kvmap__piece_at(K->p, K->np, o->rows_at[i].ptr, o->rows_at[i].len);
		if (p >= K->w0 && p < K->w1)
			keep[p - K->w0] = 1;
	}
}

/* the rows each piece of the window goes to, from the load of each */
static int cut_rows(kmap *K, const rk_keymap_options *o)
{
	size_t n = K->w1 - K->w0;
	double *diff = calloc(n + 1, sizeof *diff);
	uint64_t *w = malloc(n * sizeof *w);
	uint8_t *keep = malloc(n);
	int rc = RK_ENOMEM;
	if (!diff || !w || !keep)
		goto out;
	for (size_t i = K->i0; i < K->i1; i++) {
		const rk_keyviz_interval *iv = &K->t->iv[i];
		double tf = (double)overlap(iv->start_ms, iv->width_ms, K->from, (uint64_t)(K->to - K->from)) /
		            (double)iv->width_ms;
		for (size_t c = 0; c < iv->ncells; c++) {
			size_t p0, p1;
			rk_kvmap__bucket_pieces(&p0, &p1, K->p, K->np, iv->layout, iv->cells[c].bucket);
			const rk_metrics_counts *cc = &iv->cells[c].c;
			double d = tf * ((double)cc->writes + (double)cc->reads) / (double)(p1 - p0);
			size_t a = p0 > K->w0 ? p0 : K->w0, b = p1 < K->w1 ? p1 : K->w1;
			if (a < b) {
				diff[a - K->w0] += d;
				diff[b - K->w0] -= d;
			}
		}
	}
	double run = 0;
	for (size_t i = 0; i < n; i++) {
		run += diff[i];
		w[i] = rk_metrics__u64_sat(run * 1024 + 0.5); /* 1/1024 row: a bucket over many pieces */
	}
	if (o->rows_at)
		rows_at(keep, K, o);
	else if ((rc = rk_kvmap__reduce(keep, w, n, o->max_rows, 0)) != 0)
		goto out;
	rc = RK_ENOMEM;
	if (!(K->row_of = malloc(n * sizeof *K->row_of)) ||
	    !(K->row_first = malloc((n + 1) * sizeof *K->row_first)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (keep[i])
			K->row_first[K->rows++] = i;
		K->row_of[i] = K->rows - 1;
	}
	K->row_first[K->rows] = n;
	rc = 0;
out:
	free(diff);
	free(w);
	free(keep);
	return rc;
}

/* one cell of one interval into the map: by columns, then by rows */
static void place(rk_keymap *M, const kmap *K, const rk_keyviz_interval *iv, const rk_keyviz_cell *cell,
                  uint64_t *q, rk_metrics_counts *part)
{
	size_t p0, p1;
	rk_kvmap__bucket_pieces(&p0, &p1, K->p, K->np, iv->layout, cell->bucket);
	size_t a = p0 > K->w0 ? p0 : K->w0, b = p1 < K->w1 ? p1 : K->w1;
	if (a >= b)
		return;
	/* columns: the milliseconds of the interval in each (the rest outside) */
	int64_t e = iv->start_ms + (int64_t)iv->width_ms;
	size_t c0 = iv->start_ms > K->t0 ? (size_t)((uint64_t)(iv->start_ms - K->t0) / K->col) : 0;
	size_t c1 = (size_t)(((uint64_t)(e - K->t0) + K->col - 1) / K->col);
	if (c1 > M->cols)
		c1 = M->cols;
	if (c0 >= c1)
		return;
	size_t nc = c1 - c0;
	memset(part, 0, (nc + 1) * sizeof *part);
	uint64_t in = 0;
	for (size_t c = c0; c < c1; c++) {
		q[c - c0] = overlap(iv->start_ms, iv->width_ms, K->t0 + (int64_t)(c * K->col), K->col);
		in += q[c - c0];
	}
	q[nc] = iv->width_ms - in;
	rk_kvmap__share(part, &cell->c, q, nc + 1, iv->width_ms);
	/* rows: the pieces of the bucket in each (the rest outside the window) */
	size_t r0 = K->row_of[a - K->w0], r1 = K->row_of[b - 1 - K->w0] + 1, nr = r1 - r0;
	uint64_t *qr = q + nc + 1;
	rk_metrics_counts *rp = part + nc + 1;
	for (size_t r = r0; r < r1; r++) {
		size_t s = K->w0 + K->row_first[r], t = K->w0 + K->row_first[r + 1];
		s = s > a ? s : a;
		t = t < b ? t : b;
		qr[r - r0] = t - s;
	}
	qr[nr] = (p1 - p0) - (b - a);
	for (size_t c = 0; c < nc; c++) {
		memset(rp, 0, (nr + 1) * sizeof *rp);
		rk_kvmap__share(rp, &part[c], qr, nr + 1, p1 - p0);
		for (size_t r = 0; r < nr; r++) {
			size_t at = (r0 + r) * M->cols + c0 + c;
			M->writes[at] = rk_metrics__add_sat(M->writes[at], rp[r].writes);
			M->reads[at] = rk_metrics__add_sat(M->reads[at], rp[r].reads);
			M->bytes_written[at] = rk_metrics__add_sat(M->bytes_written[at], rp[r].bytes_written);
			M->bytes_read[at] = rk_metrics__add_sat(M->bytes_read[at], rp[r].bytes_read);
		}
	}
}

static uint8_t *dup_key(const uint8_t *k, size_t n)
{
	uint8_t *d = malloc(n + 1);
	if (d && n)
		memcpy(d, k, n);
	return d;
}

static int fill(rk_keymap *M, kmap *K, const rk_keymap_options *o)
{
	size_t n = M->rows * M->cols;
	if (!(M->writes = calloc(n, sizeof *M->writes)) || !(M->reads = calloc(n, sizeof *M->reads)) ||
	    !(M->bytes_written = calloc(n, sizeof *M->bytes_written)) ||
	    !(M->bytes_read = calloc(n, sizeof *M->bytes_read)) ||
	    !(M->row_start = calloc(M->rows, sizeof *M->row_start)) ||
	    !(M->row_start_len = calloc(M->rows, sizeof *M->row_start_len)))
		return RK_ENOMEM;
	for (size_t r = 0; r < M->rows; r++) {
		const rk__kvkey *k = &K->p[K->w0 + K->row_first[r]];
		if (!(M->row_start[r] = dup_key(k->k, k->len)))
			return RK_ENOMEM;
		M->row_start_len[r] = k->len;
	}
	if (o->hi && !(M->end = dup_key(o->hi, o->hi_len)))
		return RK_ENOMEM;
	M->end_len = o->hi ? o->hi_len : 0;
	/* scratch: column weights and parts, then row weights and parts */
	size_t scratch = M->cols + M->rows + 2;
	uint64_t *q = malloc(scratch * sizeof *q);
	rk_metrics_counts *part = malloc(scratch * sizeof *part);
	if (!q || !part) {
		free(q);
		free(part);
		return RK_ENOMEM;
	}
	for (size_t i = K->i0; i < K->i1; i++)
		for (size_t c = 0; c < K->t->iv[i].ncells; c++)
			place(M, K, &K->t->iv[i], &K->t->iv[i].cells[c], q, part);
	free(q);
	free(part);
	return 0;
}

/* the time window, its intervals and columns */
static int window(kmap *K, const rk_keymap_options *o, const char *table)
{
	const rk_keyviz_table *t = K->t;
	K->from = o->from_ms || o->to_ms ? o->from_ms : t->iv[0].start_ms;
	K->to = o->from_ms || o->to_ms ? o->to_ms
	                               : t->iv[t->niv - 1].start_ms + (int64_t)t->iv[t->niv - 1].width_ms;
	if (K->to <= K->from)
		return rk__err(RK_EINVALID, "table %s: the time window [%lld, %lld) ms is empty", table,
		               (long long)K->from, (long long)K->to);
	uint64_t base = UINT64_MAX;
	for (K->i0 = 0; K->i0 < t->niv && t->iv[K->i0].start_ms + (int64_t)t->iv[K->i0].width_ms <= K->from;)
		K->i0++;
	for (K->i1 = K->i0; K->i1 < t->niv && t->iv[K->i1].start_ms < K->to; K->i1++)
		base = t->iv[K->i1].width_ms < base ? t->iv[K->i1].width_ms : base;
	if (base == UINT64_MAX)
		base = 1000;
	uint64_t span = (uint64_t)(K->to - K->from), col = base;
	if ((span + col - 1) / col > o->max_cols) {
		col = (span + o->max_cols - 1) / o->max_cols;
		col = (col + base - 1) / base * base;
	}
	K->col = col;
	K->t0 = K->from;
	K->cols = (size_t)((span + col - 1) / col);
	return 0;
}

int rk_metrics_keymap(rk_keymap **out, const rk_metrics *m, const char *table,
                      const rk_keymap_options *opts)
{
	rk_keymap_options o = RK_KEYMAP_OPTIONS_INIT;
	kmap K = {0};
	rk_keymap *M = NULL;
	const rk_keyviz_layout **ls = NULL;
	size_t nls = 0;
	int rc;
	*out = NULL;
	if (opts)
		o = *opts;
	if (o.max_rows < 1 || o.max_rows > 10000 || o.max_cols < 1 || o.max_cols > 10000)
		return rk__err(RK_EINVALID, "keymap: rows and columns must be 1..10000");
	if (o.lo && o.hi && rk__bytes_cmp(o.lo, o.lo_len, o.hi, o.hi_len) >= 0)
		return rk__err(RK_EINVALID, "keymap: the key window is empty (its start is not before its end)");
	if (!(K.t = rk_metrics_table(m, table)) || !K.t->niv)
		return rk__err(RK_ENOTFOUND, "no key buckets of table '%s' recorded%s", table ? table : "",
		               m && m->version < 2 ? " (a version 1 metrics file has none)" : "");
	if ((rc = window(&K, &o, table)) != 0)
		return rc;
	rk__kvkey *extra = malloc((o.nrows_at + 2) * sizeof *extra);
	size_t ne = 0;
	rc = RK_ENOMEM;
	if (!extra)
		goto fail;
	if (o.lo && o.lo_len)
		extra[ne++] = (rk__kvkey){o.lo, o.lo_len};
	if (o.hi)
		extra[ne++] = (rk__kvkey){o.hi, o.hi_len};
	for (size_t i = 0; o.rows_at && i < o.nrows_at; i++)
		extra[ne++] = (rk__kvkey){o.rows_at[i].ptr, o.rows_at[i].len};
	rc = layouts_of(&K, &ls, &nls) || rk_kvmap__unite(&K.p, &K.np, ls, nls, extra, ne) ? RK_ENOMEM : 0;
	free(extra);
	if (rc)
		goto fail;
	K.w0 = o.lo ? rk_kvmap__piece_at(K.p, K.np, o.lo, o.lo_len) : 0;
	K.w1 = o.hi ? rk_kvmap__piece_at(K.p, K.np, o.hi, o.hi_len) : K.np;
	if (K.w1 <= K.w0) {
		rc = rk__err(RK_EINVALID, "keymap: the key window is empty");
		goto fail;
	}
	if ((rc = cut_rows(&K, &o)) != 0)
		goto fail;
	rc = RK_ENOMEM;
	if (!(M = calloc(1, sizeof *M)))
		goto fail;
	M->rows = K.rows;
	M->cols = K.cols;
	M->t0_ms = K.t0;
	M->col_ms = K.col;
	if ((rc = fill(M, &K, &o)) != 0)
		goto fail;
	*out = M;
	M = NULL;
	rc = 0;
fail:
	if (rc == RK_ENOMEM)
		rk__err(RK_ENOMEM, "keymap of table %s: out of memory", table);
	rk_keymap_free(M);
	free(ls);
	free(K.p);
	free(K.row_of);
	free(K.row_first);
	return rc;
}

void rk_keymap_free(rk_keymap *M)
{
	if (!M)
		return;
	for (size_t r = 0; M->row_start && r < M->rows; r++)
		free(M->row_start[r]);
	free(M->row_start);
	free(M->row_start_len);
	free(M->end);
	free(M->writes);
	free(M->reads);
	free(M->bytes_written);
	free(M->bytes_read);
	free(M);
}
