/*
 * A store's recorded load as an analysis, so the heatmap pictures (heatmap.c)
 * draw a real store the way they draw the simulator: the metrics file
 * (DIR/metrics.tsv, docs/formats.md B.3) read into a key space x time map
 * of one table.
 *
 * Key rows: every distinct region boundary of the table (the starts and ends
 * of all its regions, retired parents included), so each row is a key range
 * no region boundary cuts. A region's counts in a time bucket are spread
 * evenly over the rows it covers (a parent that split later covers its
 * daughters' rows: its load is known only for the whole parent range).
 * Servers x time: each region's counts on the server that held it last (the
 * file names only that one). The final regions are the ones that contain no
 * other region of the table. Columns are the file's buckets, merged so that
 * there are at most 600 across the recorded span.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "key/bytes.h"
#include "key/error.h"
#include "store/local/meta.h"

enum { MAX_COLS = 600, MAX_SERVERS = 1024 }; /* the store has at most 256 servers */

typedef struct mreg {
	uint64_t id;
	unsigned server;
	uint8_t *start, *end; /* end NULL: unbounded */
	size_t start_len, end_len;
	int has_end;
} mreg;

typedef struct mrec {
	uint64_t id;
	int64_t t;
	uint64_t w, r, bw;
} mrec;

typedef struct mparse {
	const char *name;
	int64_t bucket_ms;
	unsigned servers;
	mreg *reg;
	size_t nreg, capreg;
	mrec *rec;
	size_t nrec, caprec;
	char **tables;
	uint64_t *table_writes;
	size_t ntables;
} mparse;

/* doubles an array's capacity (16 at first); NULL when out of memory (arr kept) */
static void *grow(void *arr, size_t *cap, size_t elem)
{
	size_t c = *cap ? *cap * 2 : 16;
	void *q = realloc(arr, c * elem);
	if (q)
		*cap = c;
	return q;
}

static void mparse_fini(mparse *p)
{
	for (size_t i = 0; i < p->nreg; i++) {
		free(p->reg[i].start);
		free(p->reg[i].end);
	}
	free(p->reg);
	free(p->rec);
	for (size_t i = 0; i < p->ntables; i++)
		free(p->tables[i]);
	free(p->tables);
	free(p->table_writes);
}

static int bad(const mparse *p, size_t line, const char *why)
{
	return rk__err(RK_ECORRUPT, "%s line %zu: %s", p->name, line, why);
}

/* the next tab- or newline-ended field of [*s, e): its bounds */
static int field(const char **s, const char *e, const char **f, size_t *n)
{
	if (*s > e)
		return -1;
	const char *q = *s;
	while (q < e && *q != '\t')
		q++;
	*f = *s;
	*n = (size_t)(q - *s);
	*s = q + 1;
	return 0;
}

static int num(const char *f, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (n == 0 || n > 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (f[i] < '0' || f[i] > '9')
			return -1;
		uint64_t d = (uint64_t)(f[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int table_index(mparse *p, const char *f, size_t n)
{
	for (size_t i = 0; i < p->ntables; i++)
		if (strlen(p->tables[i]) == n && !memcmp(p->tables[i], f, n))
			return (int)i;
	char **t = realloc(p->tables, (p->ntables + 1) * sizeof *t);
	if (!t)
		return RK_ENOMEM;
	p->tables = t;
	uint64_t *w = realloc(p->table_writes, (p->ntables + 1) * sizeof *w);
	if (!w)
		return RK_ENOMEM;
	p->table_writes = w;
	if (!(t[p->ntables] = strndup(f, n)))
		return RK_ENOMEM;
	w[p->ntables] = 0;
	return (int)p->ntables++;
}

/* one line (without its newline) */
static int parse_line(mparse *p, const char *s, const char *e, size_t line, int *tbl)
{
	const char *f = NULL;
	size_t n = 0;
	uint64_t v[6];
	if (line == 1) {
		unsigned long long bms;
		unsigned srv;
		char tail;
		char buf[128];
		size_t l = (size_t)(e - s) < sizeof buf - 1 ? (size_t)(e - s) : sizeof buf - 1;
		memcpy(buf, s, l);
		buf[l] = 0;
		if (sscanf(buf, "# rowkey metrics v1 bucket_ms=%llu servers=%u%c", &bms, &srv, &tail) != 2)
			return bad(p, line, "not a rowkey metrics v1 header (# rowkey metrics v1 bucket_ms=N "
			                    "servers=N)");
		if (bms == 0 || bms > 86400000ull || srv == 0 || srv > MAX_SERVERS)
			return bad(p, line, "bucket_ms must be 1..86400000 and servers 1..1024");
		p->bucket_ms = (int64_t)bms;
		p->servers = srv;
		return 0;
	}
	if (s == e)
		return 0;
	field(&s, e, &f, &n);
	if (n == 6 && !memcmp(f, "region", 6)) {
		const char *tf;
		size_t tn;
		mreg g = {0};
		int rc = -1;
		if (field(&s, e, &f, &n) || num(f, n, &g.id))
			return bad(p, line, "region: the id is not a number");
		if (field(&s, e, &tf, &tn) || tn == 0)
			return bad(p, line, "region: no table name");
		if (field(&s, e, &f, &n) || num(f, n, &v[0]) || v[0] >= p->servers)
			return bad(p, line, "region: the server is not a number below the header's servers");
		g.server = (unsigned)v[0];
		if (field(&s, e, &f, &n) || (rc = rk__unhex(&g.start, &g.start_len, f, n)) != 0)
			return rc == RK_ENOMEM ? RK_ENOMEM : bad(p, line, "region: the start key is not hex");
		if (field(&s, e, &f, &n) || s <= e) {
			free(g.start);
			return bad(p, line, "region: expected 6 fields");
		}
		if (!(n == 1 && f[0] == '-')) {
			if ((rc = rk__unhex(&g.end, &g.end_len, f, n)) != 0) {
				free(g.start);
				return rc == RK_ENOMEM ? RK_ENOMEM : bad(p, line, "region: the end key is not hex or -");
			}
			g.has_end = 1;
		}
		int ti = table_index(p, tf, tn);
		mreg *q = NULL;
		if (ti >= 0 && p->nreg == p->capreg && (q = grow(p->reg, &p->capreg, sizeof *p->reg)))
			p->reg = q;
		if (ti < 0 || p->nreg == p->capreg) {
			free(g.start);
			free(g.end);
			return RK_ENOMEM;
		}
		for (size_t j = 0; j < p->nreg; j++)
			if (p->reg[j].id == g.id) { /* listed by an earlier run too: the later line wins */
				free(p->reg[j].start);
				free(p->reg[j].end);
				p->reg[j] = g;
				tbl[j] = ti;
				return 0;
			}
		tbl[p->nreg] = ti;
		p->reg[p->nreg++] = g;
		return 0;
	}
	if (n == 1 && (f[0] == 'r' || f[0] == 's')) {
		int is_r = f[0] == 'r';
		for (int k = 0; k < 6; k++)
			if (field(&s, e, &f, &n) || num(f, n, &v[k]))
				return bad(p, line, is_r ? "r: expected 6 numbers" : "s: expected 6 numbers");
		if (s <= e)
			return bad(p, line, "more fields than the record has");
		if (v[1] % (uint64_t)p->bucket_ms || v[1] > (uint64_t)INT64_MAX / 2)
			return bad(p, line, "the bucket start is not a multiple of bucket_ms");
		if (!is_r) {
			if (v[0] >= p->servers)
				return bad(p, line, "s: the server is not below the header's servers");
			return 0; /* the picture takes servers from the table's regions */
		}
		if (p->nrec == p->caprec) {
			mrec *q = grow(p->rec, &p->caprec, sizeof *p->rec);
			if (!q)
				return RK_ENOMEM;
			p->rec = q;
		}
		p->rec[p->nrec++] = (mrec){v[0], (int64_t)v[1], v[2], v[3], v[4]};
		return 0;
	}
	return bad(p, line, "unknown record (region, r and s are the tags)");
}

typedef struct kref {
	const uint8_t *k;
	size_t n;
} kref;

static int kref_cmp(const void *x, const void *y)
{
	const kref *a = x, *b = y;
	return rk_meta__row_cmp(a->k, a->n, b->k, b->n);
}

static size_t row_at(const kref *b, size_t nb, const uint8_t *k, size_t kl)
{
	size_t lo = 0, hi = nb;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (rk_meta__row_cmp(b[mid].k, b[mid].n, k, kl) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* 1 when region a holds region b's range and is not b */
static int contains(const mreg *a, const mreg *b)
{
	if (a == b || rk_meta__row_cmp(a->start, a->start_len, b->start, b->start_len) > 0)
		return 0;
	if (!a->has_end)
		return 1;
	if (!b->has_end)
		return 0;
	return rk_meta__row_cmp(a->end, a->end_len, b->end, b->end_len) >= 0;
}

/* regions sorted by id, for the records' look-ups */
typedef struct idref {
	uint64_t id;
	size_t j;
} idref;

static int idref_cmp(const void *x, const void *y)
{
	uint64_t a = ((const idref *)x)->id, b = ((const idref *)y)->id;
	return a < b ? -1 : a > b;
}

/* the region index j of id, or SIZE_MAX */
static size_t find_id(const idref *idx, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (idx[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && idx[lo].id == id ? idx[lo].j : SIZE_MAX;
}

static uint8_t *dup_key(const uint8_t *k, size_t n)
{
	uint8_t *d = malloc(n ? n : 1);
	if (d && n)
		memcpy(d, k, n);
	return d;
}

int rk__analysis_from_metrics_text(rk_analysis **out, const char *text, size_t len,
                                   const char *table, const char *name)
{
	mparse p = {.name = name ? name : "metrics.tsv"};
	rk_analysis *a = NULL;
	kref *bound = NULL;
	idref *idx = NULL;
	int *tbl = NULL, rc = 0;
	size_t captbl = 0, line = 0;
	*out = NULL;
	for (const char *s = text, *end = text + len; s < end;) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		if (!e)
			e = end;
		line++;
		if (memchr(s, 0, (size_t)(e - s))) {
			rc = bad(&p, line, "a NUL byte");
			goto fail;
		}
		if (p.nreg + 1 > captbl) {
			int *t = realloc(tbl, (captbl = captbl ? captbl * 2 : 64) * sizeof *t);
			if (!t) {
				rc = RK_ENOMEM;
				goto fail;
			}
			tbl = t;
		}
		if ((rc = parse_line(&p, s, e, line, tbl)) != 0)
			goto fail;
		s = e + 1;
	}
	if (!p.bucket_ms) {
		rc = rk__err(RK_ECORRUPT, "%s: empty (no metrics header)", p.name);
		goto fail;
	}
	/* the regions by id (the file's ids are distinct once repeats are merged) */
	if (!(idx = malloc((p.nreg ? p.nreg : 1) * sizeof *idx))) {
		rc = RK_ENOMEM;
		goto fail;
	}
	for (size_t j = 0; j < p.nreg; j++)
		idx[j] = (idref){p.reg[j].id, j};
	qsort(idx, p.nreg, sizeof *idx, idref_cmp);
	/* the table: named, or the one with the most writes */
	for (size_t i = 0; i < p.nrec; i++) {
		size_t j = find_id(idx, p.nreg, p.rec[i].id);
		if (j != SIZE_MAX)
			p.table_writes[tbl[j]] += p.rec[i].w;
	}
	int ti = -1;
	for (size_t i = 0; i < p.ntables; i++)
		if (table ? !strcmp(p.tables[i], table) : ti < 0 || p.table_writes[i] > p.table_writes[ti])
			ti = (int)i;
	if (ti < 0) {
		rk__sb l = {0};
		for (size_t i = 0; i < p.ntables; i++)
			rk__sb_printf(&l, "%s%s", i ? ", " : "", p.tables[i]);
		rc = rk__err(RK_ENOTFOUND, "%s: no regions of table '%s' recorded (tables: %s)", p.name,
		             table ? table : "", l.p ? l.p : "none");
		free(l.p);
		goto fail;
	}
	/* key rows from the region boundaries */
	size_t nb = 0;
	if (!(bound = malloc((2 * p.nreg + 1) * sizeof *bound))) {
		rc = RK_ENOMEM;
		goto fail;
	}
	bound[nb++] = (kref){(const uint8_t *)"", 0};
	for (size_t j = 0; j < p.nreg; j++) {
		if (tbl[j] != ti)
			continue;
		bound[nb++] = (kref){p.reg[j].start, p.reg[j].start_len};
		if (p.reg[j].has_end)
			bound[nb++] = (kref){p.reg[j].end, p.reg[j].end_len};
	}
	qsort(bound, nb, sizeof *bound, kref_cmp);
	size_t rows = 0;
	for (size_t i = 0; i < nb; i++)
		if (!rows || kref_cmp(&bound[rows - 1], &bound[i]))
			bound[rows++] = bound[i];
	/* time columns */
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	for (size_t i = 0; i < p.nrec; i++) {
		size_t j = find_id(idx, p.nreg, p.rec[i].id);
		if (j != SIZE_MAX && tbl[j] == ti) {
			t0 = p.rec[i].t < t0 ? p.rec[i].t : t0;
			t1 = p.rec[i].t > t1 ? p.rec[i].t : t1;
		}
	}
	if (t0 > t1)
		t0 = t1 = 0;
	int64_t span = (t1 - t0) / p.bucket_ms + 1, merge = (span + MAX_COLS - 1) / MAX_COLS;
	size_t cols = (size_t)((span + merge - 1) / merge);
	int64_t col_ms = p.bucket_ms * merge;

	if (!(a = rk__analysis_new(p.tables[ti], "recorded load (metrics.tsv)", "store", p.servers)) ||
	    !(a->sw = calloc(cols * p.servers, sizeof *a->sw)) ||
	    !(a->sr = calloc(cols * p.servers, sizeof *a->sr)) ||
	    !(a->hw = calloc(rows * cols, sizeof *a->hw)) || !(a->hr = calloc(rows * cols, sizeof *a->hr)) ||
	    !(a->hb = calloc(rows * cols, sizeof *a->hb)) ||
	    !(a->row_key = calloc(rows, sizeof *a->row_key)) ||
	    !(a->row_key_len = calloc(rows, sizeof *a->row_key_len))) {
		rc = RK_ENOMEM;
		goto fail;
	}
	a->rows = rows;
	a->cols = cols;
	a->col_s = (double)col_ms / 1000.0;
	a->t0_ms = t0;
	for (size_t r = 0; r < rows; r++) {
		if (!(a->row_key[r] = dup_key(bound[r].k, bound[r].n))) {
			rc = RK_ENOMEM;
			goto fail;
		}
		a->row_key_len[r] = bound[r].n;
	}
	/* the counts onto rows and servers */
	uint64_t writes = 0, reads = 0;
	for (size_t i = 0; i < p.nrec; i++) {
		size_t j = find_id(idx, p.nreg, p.rec[i].id);
		if (j == SIZE_MAX || tbl[j] != ti)
			continue; /* another table's region, or one the file does not list */
		const mreg *g = &p.reg[j];
		size_t c = (size_t)((p.rec[i].t - t0) / col_ms);
		size_t r0 = row_at(bound, rows, g->start, g->start_len);
		size_t r1 = g->has_end ? row_at(bound, rows, g->end, g->end_len) : rows;
		if (r1 <= r0)
			r1 = r0 + 1;
		uint64_t k = r1 - r0, m[3] = {p.rec[i].w, p.rec[i].r, p.rec[i].bw};
		uint64_t *dst[3] = {a->hw, a->hr, a->hb};
		for (int q = 0; q < 3; q++)
			for (size_t r = r0; r < r1; r++)
				dst[q][r * cols + c] += m[q] / k + ((r - r0) < m[q] % k);
		a->sw[c * p.servers + g->server] += p.rec[i].w;
		a->sr[c * p.servers + g->server] += p.rec[i].r;
		a->srv_writes[g->server] += p.rec[i].w;
		writes += p.rec[i].w;
		reads += p.rec[i].r;
	}
	/* the final regions: those holding no other region of the table */
	size_t nfin = 0;
	if (!(a->regions = calloc(p.nreg ? p.nreg : 1, sizeof *a->regions))) {
		rc = RK_ENOMEM;
		goto fail;
	}
	for (size_t j = 0; j < p.nreg; j++) {
		if (tbl[j] != ti)
			continue;
		int parent = 0;
		for (size_t k = 0; k < p.nreg && !parent; k++)
			parent = tbl[k] == ti && contains(&p.reg[j], &p.reg[k]) &&
			         !(contains(&p.reg[k], &p.reg[j]) && p.reg[k].id < p.reg[j].id);
		if (parent) {
			a->rep.splits++;
			continue;
		}
		rk__region_row *x = &a->regions[nfin++];
		x->id = p.reg[j].id;
		x->server = p.reg[j].server;
		x->start_len = p.reg[j].start_len;
		if (!(x->start = dup_key(p.reg[j].start, p.reg[j].start_len))) {
			a->nregions = nfin;
			rc = RK_ENOMEM;
			goto fail;
		}
		if (p.reg[j].has_end) {
			x->end_len = p.reg[j].end_len;
			if (!(x->end = dup_key(p.reg[j].end, p.reg[j].end_len))) {
				a->nregions = nfin;
				rc = RK_ENOMEM;
				goto fail;
			}
		}
	}
	a->nregions = nfin;
	/* sorted by start key for the pictures */
	for (size_t i = 1; i < nfin; i++)
		for (size_t j = i; j > 0 && rk_meta__row_cmp(a->regions[j - 1].start, a->regions[j - 1].start_len,
		                                    a->regions[j].start, a->regions[j].start_len) > 0;
		     j--) {
			rk__region_row t = a->regions[j];
			a->regions[j] = a->regions[j - 1];
			a->regions[j - 1] = t;
		}
	/* a growing key: the hottest row of each active column never moves back */
	size_t last = SIZE_MAX, steps = 0, fwd = 0;
	for (size_t c = 0; c < cols; c++) {
		size_t best = SIZE_MAX;
		for (size_t r = 0; r < rows; r++)
			if (a->hw[r * cols + c] && (best == SIZE_MAX || a->hw[r * cols + c] > a->hw[best * cols + c]))
				best = r;
		if (best == SIZE_MAX)
			continue;
		if (last != SIZE_MAX) {
			steps++;
			fwd += best >= last;
		}
		last = best;
	}
	a->mono = steps >= 3 ? (double)fwd / (double)steps : 0;
	a->rep.writes = writes;
	a->rep.reads = reads;
	a->rep.regions = a->rep.regions_initial = nfin;
	if ((rc = rk__analysis_finish(a, NULL, NULL, NULL)) != 0)
		goto fail;
	free(bound);
	free(idx);
	free(tbl);
	mparse_fini(&p);
	*out = a;
	return 0;
fail:
	if (rc == RK_ENOMEM)
		rc = rk__err(RK_ENOMEM, "%s: out of memory", p.name);
	rk_analysis_free(a);
	free(bound);
	free(idx);
	free(tbl);
	mparse_fini(&p);
	return rc;
}

int rk_analysis_from_metrics(rk_analysis **out, const char *dir, const char *table)
{
	char path[4200];
	*out = NULL;
	snprintf(path, sizeof path, "%s/metrics.tsv", dir);
	FILE *f = fopen(path, "rb");
	if (!f)
		return rk__err(errno == ENOENT ? RK_ENOTFOUND : RK_EIO, "%s: %s%s", path, strerror(errno),
		               errno == ENOENT ? " (a store writes it when it closes)" : "");
	rk__sb b = {0};
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		rk__sb_put(&b, buf, n);
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(b.p);
		return rk__err(RK_EIO, "%s: read failed", path);
	}
	if (b.oom) {
		free(b.p);
		return rk__err(RK_ENOMEM, "%s: out of memory", path);
	}
	int rc = rk__analysis_from_metrics_text(out, b.p ? b.p : "", b.len, table, path);
	free(b.p);
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
