/*
 * The one reader of DIR/metrics.tsv (docs/formats.md B.3, versions 1 and
 * 2): text -> rk_metrics (rowkey/metrics.h). The store reads its own file
 * with it at open (lenient: a damaged line is dropped, the rest carried),
 * and rowkey heatmap, regions, stats and the live page read it through
 * rk_metrics_read (strict: the first bad line is an error naming it). The
 * text is hostile: every field is checked against the line's end. What the
 * lines give is put in order by metrics_index.c, which also reads the file
 * whole and frees the record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/error.h"
#include "store/local/keyviz.h"
#include "store/local/metrics.h"

/* layout ids of one table: the file's number -> the layout */
typedef struct lmap {
	uint64_t *id;
	rk_keyviz_layout **l;
	size_t n, cap;
	size_t cap_iv;
	int64_t last_end; /* end of the table's last interval */
} lmap;

typedef struct parser {
	const char *name;
	int lenient;
	size_t line;
	rk_metrics *m;
	rk__mrec *recs;
	size_t nrecs, cap_recs, cap_regions;
	lmap *lm; /* one per m->tables entry */
	size_t cap_tables;
} parser;

/* doubles *cap until `need` elements fit; 0 or -1 (no memory, *p kept) */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}
#define GROW(p, cap, need) grow((void **)&(p), &(cap), (need), sizeof *(p))

/* A bad line: strict, an error naming it; lenient, 1 (skip the line). */
static int bad(parser *P, const char *why)
{
	if (P->lenient)
		return 1;
	return rk__err(RK_ECORRUPT, "%s line %zu: %s", P->name, P->line, why);
}

static int nomem(parser *P)
{
	return rk__err(RK_ENOMEM, "%s: out of memory", P->name);
}

/* the next tab-ended field of [*s, e): 0, or -1 at the end of the line */
static int field(const char **s, const char *e, const char **f, size_t *n)
{
	if (*s > e)
		return -1;
	const char *q = memchr(*s, '\t', (size_t)(e - *s));
	if (!q)
		q = e;
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

static int next_num(const char **s, const char *e, uint64_t *out)
{
	const char *f;
	size_t n;
	return field(s, e, &f, &n) || num(f, n, out) ? -1 : 0;
}

/* a table name: 1..64 bytes of [A-Za-z0-9_.-] */
static int table_name_ok(const char *f, size_t n)
{
	if (n == 0 || n > RK_MAX_TABLE_NAME_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((f[i] >= 'a' && f[i] <= 'z') || (f[i] >= 'A' && f[i] <= 'Z') ||
		      (f[i] >= '0' && f[i] <= '9') || f[i] == '_' || f[i] == '.' || f[i] == '-'))
			return 0;
	return 1;
}

/* ---- header ---- */

static int parse_header(parser *P, const char *s, const char *e)
{
	static const char pre[] = "# rowkey metrics v";
	size_t pl = sizeof pre - 1;
	uint64_t v, bms, srv;
	const char *q = s + pl, *f;
	size_t n;
	if ((size_t)(e - s) <= pl || memcmp(s, pre, pl))
		goto bad_header;
	f = q;
	while (q < e && *q != ' ')
		q++;
	if (num(f, (size_t)(q - f), &v) || (v != 1 && v != 2) || q == e)
		goto bad_header;
	q++;
	if ((size_t)(e - q) < 10 || memcmp(q, "bucket_ms=", 10))
		goto bad_header;
	q += 10;
	f = q;
	while (q < e && *q != ' ')
		q++;
	if (num(f, (size_t)(q - f), &bms) || q == e)
		goto bad_header;
	q++;
	if ((size_t)(e - q) < 8 || memcmp(q, "servers=", 8))
		goto bad_header;
	q += 8;
	n = (size_t)(e - q);
	if (num(q, n, &srv))
		goto bad_header;
	if (bms == 0 || bms > 86400000u || srv == 0 || srv > RK_MAX_SERVERS)
		return rk__err(RK_ECORRUPT, "%s line 1: bucket_ms must be 1..86400000 and servers 1..%u",
		               P->name, RK_MAX_SERVERS);
	P->m->version = (unsigned)v;
	P->m->bucket_ms = (unsigned)bms;
	P->m->servers = (unsigned)srv;
	return 0;
bad_header:
	return rk__err(RK_ECORRUPT,
	               "%s line 1: not a rowkey metrics header (# rowkey metrics v2 bucket_ms=N "
	               "servers=N)",
	               P->name);
}

/* ---- region lines ---- */

static int parse_region(parser *P, const char *s, const char *e)
{
	const char *tf, *f;
	size_t tn, n;
	uint64_t id, srv, born = 0;
	rk_metrics_region g = {0};
	int state = -1; /* not given: decided by the chain (mark_chains) */
	if (next_num(&s, e, &id))
		return bad(P, "region: the id is not a number");
	if (field(&s, e, &tf, &tn) || !table_name_ok(tf, tn))
		return bad(P, "region: the table is not a table name");
	if (next_num(&s, e, &srv) || srv >= P->m->servers)
		return bad(P, "region: the server is not a number below the header's servers");
	if (field(&s, e, &f, &n) || rk__unhex(&g.start, &g.start_len, f, n))
		return bad(P, "region: the start key is not hex");
	if (field(&s, e, &f, &n)) {
		free(g.start);
		return bad(P, "region: expected 6 or 8 fields");
	}
	if (!(n == 1 && f[0] == '-') && rk__unhex(&g.end, &g.end_len, f, n)) {
		free(g.start);
		return bad(P, "region: the end key is not hex or -");
	}
	if (!g.end_len && g.end) {
		free(g.start);
		free(g.end);
		return bad(P, "region: an empty end key (the unbounded end is -)");
	}
	if (s <= e) { /* version 2: state and birth */
		if (field(&s, e, &f, &n) || !((n == 4 && !memcmp(f, "live", 4)) ||
		                              (n == 7 && !memcmp(f, "retired", 7))) ||
		    next_num(&s, e, &born) || s <= e || born > (uint64_t)INT64_MAX) {
			free(g.start);
			free(g.end);
			return bad(P, "region: expected 6 or 8 fields (... live|retired BORN_MS)");
		}
		state = n == 4;
	}
	if (g.end && rk__bytes_cmp(g.start, g.start_len, g.end, g.end_len) >= 0) {
		free(g.start);
		free(g.end);
		return bad(P, "region: the end key is not after the start key");
	}
	g.id = id;
	g.server = (unsigned)srv;
	g.born_ms = (int64_t)born;
	g.live = state;
	if (!(g.table = strndup(tf, tn))) {
		free(g.start);
		free(g.end);
		return nomem(P);
	}
	rk_metrics *m = P->m;
	for (size_t j = 0; j < m->nregions; j++)
		if (m->regions[j].id == id) { /* listed by an earlier run too: the later line wins */
			free(m->regions[j].table);
			free(m->regions[j].start);
			free(m->regions[j].end);
			m->regions[j] = g;
			return 0;
		}
	if (GROW(m->regions, P->cap_regions, m->nregions + 1)) {
		free(g.table);
		free(g.start);
		free(g.end);
		return nomem(P);
	}
	m->regions[m->nregions++] = g;
	return 0;
}

/* ---- r and s records ---- */

static int parse_record(parser *P, char tag, const char *s, const char *e)
{
	uint64_t v[6], width, server = UINT64_MAX; /* r without it: the region line's */
	for (int k = 0; k < 6; k++)
		if (next_num(&s, e, &v[k]))
			return bad(P, tag == 'r' ? "r: expected 6 numbers" : "s: expected 6 numbers");
	width = P->m->bucket_ms;
	if (s <= e && (next_num(&s, e, &width) || width == 0 || width > (1ull << 62)))
		return bad(P, "the bucket width (eighth field) is not a number above 0");
	if (tag == 'r' && s <= e && (next_num(&s, e, &server) || server >= P->m->servers))
		return bad(P, "r: the server (ninth field) is not a number below the header's servers");
	if (s <= e)
		return bad(P, "more fields than the record has");
	if (v[1] > (uint64_t)INT64_MAX / 2)
		return bad(P, "the bucket start is out of range");
	if (tag == 's' && v[0] >= P->m->servers)
		return bad(P, "s: the server is not below the header's servers");
	if (GROW(P->recs, P->cap_recs, P->nrecs + 1))
		return nomem(P);
	if (tag == 's')
		server = v[0];
	P->recs[P->nrecs++] =
	    (rk__mrec){tag, v[0], {(int64_t)v[1], width, (unsigned)server, {v[2], v[3], v[4], v[5]}}};
	return 0;
}

/* ---- tables: schema, kl, k ---- */

/* the table entry named f[0..n), made when missing; NULL when out of memory */
static rk_keyviz_table *table_of(parser *P, const char *f, size_t n, lmap **lm)
{
	rk_metrics *m = P->m;
	for (size_t i = m->ntables; i-- > 0;)
		if (strlen(m->tables[i].name) == n && !memcmp(m->tables[i].name, f, n)) {
			*lm = &P->lm[i];
			return &m->tables[i];
		}
	size_t cap = P->cap_tables;
	if (GROW(m->tables, P->cap_tables, m->ntables + 1) ||
	    grow((void **)&P->lm, &cap, P->cap_tables, sizeof *P->lm))
		return NULL;
	rk_keyviz_table *t = &m->tables[m->ntables];
	memset(t, 0, sizeof *t);
	memset(&P->lm[m->ntables], 0, sizeof *P->lm);
	P->lm[m->ntables].last_end = INT64_MIN;
	if (!(t->name = strndup(f, n)))
		return NULL;
	*lm = &P->lm[m->ntables++];
	return t;
}

static int parse_schema(parser *P, const char *s, const char *e)
{
	const char *tf;
	size_t tn;
	lmap *lm;
	if (field(&s, e, &tf, &tn) || !table_name_ok(tf, tn) || s > e)
		return bad(P, "schema: expected a table name and the schema text");
	size_t n = (size_t)(e - s);
	char *text = malloc(n + 1), *o = text;
	if (!text)
		return nomem(P);
	for (const char *q = s; q < e; q++) {
		if (*q != '\\') {
			*o++ = *q;
			continue;
		}
		if (++q == e || !*q || !strchr("\\tnr", *q)) {
			free(text);
			return bad(P, "schema: a backslash not followed by \\, t, n or r");
		}
		*o++ = *q == 't' ? '\t' : *q == 'n' ? '\n' : *q == 'r' ? '\r' : '\\';
	}
	*o = 0;
	if (memchr(text, 0, (size_t)(o - text))) {
		free(text);
		return bad(P, "schema: a NUL byte in the text");
	}
	rk_keyviz_table *t = table_of(P, tf, tn, &lm);
	if (!t) {
		free(text);
		return nomem(P);
	}
	free(t->schema);
	t->schema = text;
	return 0;
}

static int parse_layout(parser *P, const char *s, const char *e)
{
	const char *tf, *f;
	size_t tn, n;
	uint64_t id, nb;
	lmap *lm;
	if (field(&s, e, &tf, &tn) || !table_name_ok(tf, tn))
		return bad(P, "kl: the table is not a table name");
	if (next_num(&s, e, &id) || next_num(&s, e, &nb) || nb < 1 || nb > RK_KV_LAYOUT_MAX)
		return bad(P, "kl: expected a layout number and 1..1024 buckets");
	uint8_t **keys = calloc(nb, sizeof *keys);
	size_t *lens = calloc(nb, sizeof *lens);
	int rc = 0;
	if (!keys || !lens) {
		rc = nomem(P);
		goto out;
	}
	for (size_t i = 1; i < nb && !rc; i++) {
		if (field(&s, e, &f, &n) || n == 0 || rk__unhex(&keys[i], &lens[i], f, n))
			rc = bad(P, "kl: a bucket start is not non-empty hex");
		else if (i > 1 && rk__bytes_cmp(keys[i - 1], lens[i - 1], keys[i], lens[i]) >= 0)
			rc = bad(P, "kl: the bucket starts are not strictly increasing");
	}
	if (!rc && s <= e)
		rc = bad(P, "kl: more bucket starts than its count");
	lm = NULL;
	if (!rc && !table_of(P, tf, tn, &lm))
		rc = nomem(P);
	for (size_t i = 0; !rc && i < lm->n; i++)
		if (lm->id[i] == id)
			rc = bad(P, "kl: the layout number is defined twice for the table");
	rk__kvlayout *l = NULL;
	size_t cap_l = lm && !rc ? lm->cap : 0;
	if (!rc && (!(l = rk_kvlayout__new(nb, (const uint8_t *const *)keys, lens)) ||
	            GROW(lm->id, lm->cap, lm->n + 1) ||
	            grow((void **)&lm->l, &cap_l, lm->cap, sizeof *lm->l))) {
		rk_kvlayout__unref(l);
		rc = nomem(P);
	}
	if (!rc) {
		lm->id[lm->n] = id;
		lm->l[lm->n++] = &l->pub; /* released after the lines: each interval takes its own */
	}
out:
	for (size_t i = 0; keys && i < nb; i++)
		free(keys[i]);
	free(keys);
	free(lens);
	return rc;
}

/* "bucket:w,r,bw,br" */
static int parse_cell(rk_keyviz_cell *c, const char *f, size_t n)
{
	const char *e = f + n, *q = memchr(f, ':', n);
	uint64_t b, v[4];
	if (!q || num(f, (size_t)(q - f), &b) || b >= RK_KV_LAYOUT_MAX)
		return -1;
	f = q + 1;
	for (int k = 0; k < 4; k++) {
		q = k < 3 ? memchr(f, ',', (size_t)(e - f)) : e;
		if (!q || num(f, (size_t)(q - f), &v[k]))
			return -1;
		f = q + 1;
	}
	*c = (rk_keyviz_cell){(uint32_t)b, {v[0], v[1], v[2], v[3]}};
	return 0;
}

static int parse_interval(parser *P, const char *s, const char *e)
{
	const char *tf, *f;
	size_t tn, n;
	uint64_t id, start, width;
	lmap *lm;
	rk_keyviz_table *t;
	if (field(&s, e, &tf, &tn) || !table_name_ok(tf, tn))
		return bad(P, "k: the table is not a table name");
	if (next_num(&s, e, &id) || next_num(&s, e, &start) || next_num(&s, e, &width) ||
	    start > (uint64_t)INT64_MAX / 2 || width == 0 || width > (1ull << 62))
		return bad(P, "k: expected a layout number, a start and a width above 0 (ms)");
	if (!(t = table_of(P, tf, tn, &lm)))
		return nomem(P);
	const rk_keyviz_layout *l = NULL;
	for (size_t i = lm->n; !l && i-- > 0;)
		if (lm->id[i] == id)
			l = lm->l[i];
	if (!l)
		return bad(P, "k: the layout is not defined on an earlier kl line of the table");
	if ((int64_t)start < lm->last_end)
		return bad(P, "k: the interval starts before the table's previous one ends");
	rk_keyviz_interval iv = {(int64_t)start, width, l, NULL, 0};
	size_t cap = 0;
	while (s <= e) {
		rk_keyviz_cell c;
		if (field(&s, e, &f, &n) || parse_cell(&c, f, n) || c.bucket >= l->nbuckets ||
		    (iv.ncells && c.bucket <= iv.cells[iv.ncells - 1].bucket)) {
			free(iv.cells);
			return bad(P, "k: a bucket is not BUCKET:W,R,BW,BR with increasing buckets of "
			              "the layout");
		}
		if (GROW(iv.cells, cap, iv.ncells + 1)) {
			free(iv.cells);
			return nomem(P);
		}
		iv.cells[iv.ncells++] = c;
	}
	if (GROW(t->iv, lm->cap_iv, t->niv + 1)) {
		free(iv.cells);
		return nomem(P);
	}
	rk_kvlayout__ref(rk_kvlayout__of(l));
	t->iv[t->niv++] = iv;
	lm->last_end = (int64_t)(start + width);
	return 0;
}

/* one line (without its newline); 0, 1 (lenient: skipped) or an error */
static int parse_line(parser *P, const char *s, const char *e)
{
	const char *f = s;
	size_t n = 0;
	if (memchr(s, 0, (size_t)(e - s)))
		return bad(P, "a NUL byte");
	if (P->line == 1)
		return parse_header(P, s, e);
	if (s == e)
		return 0;
	field(&s, e, &f, &n);
#define TAG(t) (n == sizeof t - 1 && !memcmp(f, t, n))
	if (TAG("region"))
		return parse_region(P, s, e);
	if (TAG("r") || TAG("s"))
		return parse_record(P, f[0], s, e);
	if (TAG("schema"))
		return parse_schema(P, s, e);
	if (TAG("kl"))
		return parse_layout(P, s, e);
	if (TAG("k"))
		return parse_interval(P, s, e);
#undef TAG
	return bad(P, "unknown record (the tags are region, r, s, schema, kl and k)");
}

int rk_metrics__parse(rk_metrics **out, const char *text, size_t len, const char *name, int lenient)
{
	parser P = {.name = name ? name : "metrics.tsv", .lenient = lenient};
	int rc = 0;
	*out = NULL;
	if (!(P.m = calloc(1, sizeof *P.m)))
		return nomem(&P);
	for (const char *s = text, *end = text + len; s < end;) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		if (!e)
			e = end;
		P.line++;
		rc = parse_line(&P, s, e);
		if (rc > 0)
			rc = 0; /* lenient: the line is dropped */
		if (rc < 0)
			break;
		s = e + 1;
	}
	if (!rc && !P.m->bucket_ms)
		rc = rk__err(RK_ECORRUPT, "%s: empty (no metrics header)", P.name);
	if (!rc)
		rc = rk_metrics__index(P.m, P.recs, P.nrecs);
	for (size_t i = 0; i < P.m->ntables; i++) {
		for (size_t j = 0; j < P.lm[i].n; j++)
			rk_kvlayout__unref(rk_kvlayout__of(P.lm[i].l[j]));
		free(P.lm[i].id);
		free(P.lm[i].l);
	}
	free(P.lm);
	free(P.recs);
	if (rc) {
		rk_metrics_free(P.m);
		return rc;
	}
	*out = P.m;
	return 0;
}

int rk_metrics_parse(rk_metrics **out, const char *text, size_t len, const char *name)
{
	return rk_metrics__parse(out, text, len, name, 0);
}

int rk_metrics_read(rk_metrics **out, const char *dir)
{
	char path[4200], *text;
	size_t len;
	*out = NULL;
	snprintf(path, sizeof path, "%s/metrics.tsv", dir);
	int rc = rk_metrics__slurp(&text, &len, path);
	if (rc == RK_ENOTFOUND)
		return rk__err(RK_ENOTFOUND, "%s: no such file (a store writes it when it closes, "
		                             "rowkey serve every 5 s)",
		               path);
	if (rc)
		return rc;
	rc = rk_metrics__parse(out, text, len, path, 0);
	free(text);
	return rc;
}
