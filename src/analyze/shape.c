/*
 * Query shapes (see shape.h): filling a parsed template (shape_parse.c)
 * from the data, and counting the records a filled query matches. The
 * filled text is what the key library then parses under each design.
 */
#include "analyze/shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "key/error.h"
#include "key/timefmt.h"

/* ---- values of the data ---- */

typedef struct qval {
	int absent;
	uint64_t key;    /* numbers in an order-preserving u64 */
	const char *s;   /* text */
	size_t len;
} qval;

static uint64_t order_bits(rk__wkind k, uint64_t v)
{
	if (k == RK__W_I64)
		return v ^ (1ull << 63);
	if (k == RK__W_F64)
		return (v >> 63) ? ~v : v ^ (1ull << 63);
	return v;
}

static qval cell(const rk__dataset *d, size_t f, uint64_t i)
{
	const rk__column *c = &d->col[f];
	qval v = {0};
	if (c->len[i] == RK__ABSENT) {
		v.absent = 1;
		return v;
	}
	size_t n;
	const char *t = rk__dataset_text(d, f, i, &n);
	v.s = t ? t : "";
	v.len = t ? n : 0;
	if (c->kind != RK__W_STR)
		v.key = order_bits(c->kind, c->v[i]);
	return v;
}

static int cmp(const rk__column *c, const qval *a, const qval *b)
{
	if (c->kind != RK__W_STR)
		return a->key < b->key ? -1 : a->key > b->key;
	size_t m = a->len < b->len ? a->len : b->len;
	int r = m ? memcmp(a->s, b->s, m) : 0;
	return r ? (r < 0 ? -1 : 1) : (a->len < b->len ? -1 : a->len > b->len);
}

/* A literal of the template as a value of the column. */
static qval literal(const rk__column *c, const char *t, size_t n)
{
	qval v = {0};
	char buf[64];
	v.s = t;
	v.len = n;
	if (c->kind == RK__W_STR || n >= sizeof buf)
		return v;
	memcpy(buf, t, n);
	buf[n] = 0;
	int64_t ms;
	if (c->tu && rk__iso8601_ms(&ms, buf, n) == 0)
		v.key = order_bits(RK__W_I64, (uint64_t)ms);
	else
		v.key = order_bits(c->kind, rk__column_parse(c, buf, n));
	return v;
}

typedef struct bound {
	qval v[RK__SHAPE_CONDS];  /* one per condition (IN: vals[]) */
	qval *in[RK__SHAPE_CONDS];
} bound;

static int matches(const rk__dataset *d, const rk__qshape *q, const bound *b, uint64_t i, int eq_only)
{
	for (size_t k = 0; k < q->n; k++) {
		const rk__qcond *c = &q->c[k];
		const rk__column *col = &d->col[c->field];
		int is_eq = c->op == RK__Q_EQ || c->op == RK__Q_IN || c->op == RK__Q_PREFIX;
		if (eq_only && !is_eq)
			continue;
		qval x = cell(d, c->field, i);
		if (x.absent)
			return 0;
		int r;
		switch (c->op) {
		case RK__Q_EQ: if (cmp(col, &x, &b->v[k])) return 0; break;
		case RK__Q_LT: if (cmp(col, &x, &b->v[k]) >= 0) return 0; break;
		case RK__Q_LE: if (cmp(col, &x, &b->v[k]) > 0) return 0; break;
		case RK__Q_GT: if (cmp(col, &x, &b->v[k]) <= 0) return 0; break;
		case RK__Q_GE: if (cmp(col, &x, &b->v[k]) < 0) return 0; break;
		case RK__Q_PREFIX:
			if (x.len < b->v[k].len || memcmp(x.s, b->v[k].s, b->v[k].len))
				return 0;
			break;
		case RK__Q_IN:
			r = 0;
			for (size_t j = 0; j < c->nvals && !r; j++)
				r = !cmp(col, &x, &b->in[k][j]);
			if (!r)
				return 0;
			break;
		}
	}
	return 1;
}

/* ---- filling a shape ---- */

/* A value as the predicate language writes it: a number bare, text in
 * quotes with quotes and backslashes escaped. 0 when it cannot be written
 * (text over the language's 1024 bytes, a number that is not finite). */
static int put_value(rk__sb *b, const rk__column *c, const qval *v)
{
	if (c->kind == RK__W_STR) {
		if (v->len > 1000)
			return 0; /* past what the predicate language takes: draw another */
		RK__SB_LIT(b, "'");
		for (size_t i = 0; i < v->len; i++) {
			if (v->s[i] == '\'' || v->s[i] == '\\')
				RK__SB_LIT(b, "\\");
			rk__sb_put(b, v->s + i, 1);
		}
		RK__SB_LIT(b, "'");
		return 1;
	}
	uint64_t raw = v->key;
	if (c->kind == RK__W_I64) {
		rk__sb_printf(b, "%lld", (long long)(int64_t)(raw ^ (1ull << 63)));
	} else if (c->kind == RK__W_F64) {
		uint64_t bits = (raw >> 63) ? raw ^ (1ull << 63) : ~raw;
		double x;
		memcpy(&x, &bits, sizeof x);
		if (!isfinite(x))
			return 0; /* the predicate language writes no nan or inf */
		rk__sb_printf(b, "%.17g", x);
	} else {
		rk__sb_printf(b, "%llu", (unsigned long long)raw);
	}
	return 1;
}

static const char *op_text(rk__qop op)
{
	static const char *const t[] = {"", "=", "<", "<=", ">", ">=", "IN", "PREFIX"};
	return t[op];
}

static int render(rk__sb *b, const rk__dataset *d, const rk__qshape *q, const bound *bd)
{
	for (size_t k = 0; k < q->n; k++) {
		const rk__qcond *c = &q->c[k];
		const rk__column *col = &d->col[c->field];
		rk__sb_printf(b, "%s%s %s ", k ? " AND " : "", col->name, op_text(c->op));
		if (c->op == RK__Q_IN) {
			RK__SB_LIT(b, "(");
			for (size_t j = 0; j < c->nvals; j++) {
				if (j)
					RK__SB_LIT(b, ", ");
				if (!put_value(b, col, &bd->in[k][j]))
					return 0;
			}
			RK__SB_LIT(b, ")");
		} else if (c->op == RK__Q_PREFIX) {
			const rk__column txt = {.kind = RK__W_STR};
			if (!put_value(b, &txt, &bd->v[k]))
				return 0;
		} else if (!put_value(b, col, &bd->v[k])) {
			return 0;
		}
	}
	if (q->order_field >= 0)
		rk__sb_printf(b, "%sORDER BY %s %s", q->n ? " " : "", d->col[q->order_field].name,
		              q->order_desc ? "DESC" : "ASC");
	if (q->limit)
		rk__sb_printf(b, "%sLIMIT %llu", q->n || q->order_field >= 0 ? " " : "",
		              (unsigned long long)q->limit);
	return 1;
}

static uint64_t draw(rk__rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rk__rng_next(r) * n) >> 64);
}

/* The equality values: literals, or those of a drawn record (IN: more draws). */
static int fill_equalities(const rk__dataset *d, const rk__qshape *q, bound *bd, qval *inbuf,
                           rk__rng *rng)
{
	uint64_t r = 0;
	int found = 0;
	for (int tries = 0; tries < 32 && !found; tries++) {
		r = draw(rng, d->held);
		found = 1;
		for (size_t k = 0; k < q->n; k++)
			found &= !(q->c[k].op == RK__Q_EQ || q->c[k].op == RK__Q_IN ||
			           q->c[k].op == RK__Q_PREFIX) ||
			         q->c[k].lit || !cell(d, q->c[k].field, r).absent;
	}
	if (!found)
		return 0;
	for (size_t k = 0; k < q->n; k++) {
		const rk__qcond *c = &q->c[k];
		if (c->lit) {
			bd->v[k] = literal(&d->col[c->field], q->lits + c->lit_off, c->lit_len);
		} else if (c->op == RK__Q_EQ) {
			bd->v[k] = cell(d, c->field, r);
		} else if (c->op == RK__Q_PREFIX) {
			size_t n;
			const char *t = rk__dataset_text(d, c->field, r, &n);
			bd->v[k].s = t ? t : "";
			bd->v[k].len = n > 1 ? n / 2 : n;
		} else if (c->op == RK__Q_IN) {
			bd->in[k] = inbuf;
			inbuf[0] = cell(d, c->field, r);
			for (size_t j = 1; j < c->nvals; j++) {
				qval x = cell(d, c->field, draw(rng, d->held));
				inbuf[j] = x.absent ? inbuf[0] : x;
			}
			inbuf += c->nvals;
		}
	}
	return 1;
}

typedef struct sval {
	qval v;
	const rk__column *c;
} sval;

static int cmp_sval(const void *a, const void *b)
{
	const sval *x = a, *y = b;
	return cmp(x->c, &x->v, &y->v);
}

/* Up to 4096 values of field f, a uniform reservoir over the records grp
 * names (all records when grp is NULL); returns how many. */
static size_t sample_field(const rk__dataset *d, size_t f, const uint64_t *grp, uint64_t ng,
                           sval *smp, rk__rng *rng)
{
	uint64_t m = 0;
	for (uint64_t g = 0; g < ng; g++) {
		qval x = cell(d, f, grp ? grp[g] : g);
		if (x.absent)
			continue;
		uint64_t slot = m < 4096 ? m : draw(rng, m + 1);
		m++;
		if (slot < 4096)
			smp[slot] = (sval){x, &d->col[f]};
	}
	return m < 4096 ? (size_t)m : 4096;
}

/* Two distinct values of field f, lo < hi: among the sampled values of
 * the group (sorted, ns of them), a tenth of its distinct values apart;
 * when the group holds one value, hi is the next value above it in all the
 * data, so that the range holds the group's rows and never collapses to an
 * empty one (ts >= X AND ts < X reads nothing and says nothing of a key).
 * 0 when the field has one value in all the data. */
static int range_bounds(const rk__dataset *d, size_t f, sval *smp, size_t ns, qval *lo, qval *hi,
                        rk__rng *rng)
{
	const rk__column *col = &d->col[f];
	qsort(smp, ns, sizeof *smp, cmp_sval);
	size_t nd = 0;
	for (size_t i = 0; i < ns; i++)
		if (!nd || cmp(col, &smp[nd - 1].v, &smp[i].v))
			smp[nd++] = smp[i];
	if (nd >= 2) {
		size_t w = nd / 10 ? nd / 10 : 1, a = (size_t)draw(rng, nd - w);
		*lo = smp[a].v;
		*hi = smp[a + w].v;
		return 1;
	}
	*lo = smp[0].v;
	int found = 0;
	for (uint64_t i = 0; i < d->held; i++) {
		qval x = cell(d, f, i);
		if (!x.absent && cmp(col, &x, lo) > 0 && (!found || cmp(col, &x, hi) < 0)) {
			*hi = x;
			found = 1;
		}
	}
	return found;
}

/* The ranges' values: two distinct values of the field among the records
 * of the group, a tenth of its distinct values apart (from up to 4096
 * sampled). 1: no range can be drawn (draw another record). */
static int fill_ranges(const rk__dataset *d, const rk__qshape *q, bound *bd, const uint64_t *grp,
                       uint64_t ng, rk__rng *rng)
{
	sval *smp = malloc(4096 * sizeof *smp);
	if (!smp)
		return rk__err(RK_ENOMEM, "out of memory filling queries");
	for (size_t f = 0; f < d->nf; f++) {
		if (!(q->range_mask >> f & 1))
			continue;
		/* A group with no value of the field (a literal no record holds)
		 * still needs bounds the language can write: take them from all
		 * the records; the query then honestly matches none. */
		size_t ns = sample_field(d, f, grp, ng, smp, rng);
		if (!ns)
			ns = sample_field(d, f, NULL, d->held, smp, rng);
		if (!ns)
			continue;
		qval lo, hi;
		if (!range_bounds(d, f, smp, ns, &lo, &hi, rng)) {
			free(smp);
			return 1; /* one value in all the data: no range to draw */
		}
		for (size_t k = 0; k < q->n; k++) {
			const rk__qcond *c = &q->c[k];
			if (c->field != f || c->lit)
				continue;
			if (c->op == RK__Q_GT || c->op == RK__Q_GE)
				bd->v[k] = lo;
			else if (c->op == RK__Q_LT || c->op == RK__Q_LE)
				bd->v[k] = hi;
		}
	}
	for (size_t k = 0; k < q->n; k++)
		if (q->c[k].lit && !(q->c[k].op == RK__Q_EQ || q->c[k].op == RK__Q_IN ||
		                     q->c[k].op == RK__Q_PREFIX))
			bd->v[k] = literal(&d->col[q->c[k].field], q->lits + q->c[k].lit_off,
			                   q->c[k].lit_len);
	free(smp);
	return 0;
}

/* One filled query: its text and the records that match it. */
static int fill_one(const rk__dataset *d, rk__qshape *q, uint64_t *grp, rk__rng *rng)
{
	bound bd;
	qval inbuf[RK__SHAPE_CONDS * 8];
	uint64_t ng = 0, rows = 0;
	int rc;
	memset(&bd, 0, sizeof bd);
	for (size_t k = 0; k < q->n; k++)
		if (q->c[k].op == RK__Q_IN && q->c[k].nvals > 8)
			return rk__err(RK_EINVALID, "query '%s': at most 8 values in an IN", q->where);
	if (!fill_equalities(d, q, &bd, inbuf, rng))
		return 0;
	for (uint64_t i = 0; i < d->held; i++)
		if (matches(d, q, &bd, i, 1))
			grp[ng++] = i;
	if (q->range_mask && (rc = fill_ranges(d, q, &bd, grp, ng, rng)) != 0)
		return rc > 0 ? 0 : rc;
	for (uint64_t g = 0; g < ng; g++)
		rows += !q->range_mask || matches(d, q, &bd, grp[g], 0);
	rk__sb b = {0};
	if (!render(&b, d, q, &bd)) {
		free(b.p);
		return 0; /* a value the language cannot quote: draw another */
	}
	if (b.oom) {
		free(b.p);
		return rk__err(RK_ENOMEM, "out of memory filling queries");
	}
	q->s[q->ns].where = b.p;
	q->s[q->ns].matched = rows;
	q->s[q->ns].rows = q->limit && rows > q->limit ? q->limit : rows;
	q->ns++;
	return 0;
}

/* Parses a template and fills it RK__SHAPE_SAMPLES times. */
static int shape_fill(rk__qshape *q, const char *where, const char *name, double weight,
                      const rk__dataset *d, uint64_t *grp, rk__rng *rng)
{
	int rc;
	if ((rc = rk__shape_parse(q, where, d)) != 0)
		return rc;
	free(q->name);
	if (!(q->name = strdup(name)))
		return rk__err(RK_ENOMEM, "out of memory");
	if (weight != 1)
		q->weight = weight;
	for (int tries = 0; q->ns < RK__SHAPE_SAMPLES && tries < 4 * RK__SHAPE_SAMPLES && d->held && !rc;
	     tries++)
		rc = fill_one(d, q, grp, rng);
	return rc;
}

int rk__qset_add(rk__qset *out, const char *where, const char *name, const rk__dataset *d,
                 uint64_t seed)
{
	rk__rng rng;
	rk__qshape *q = realloc(out->q, (out->n + 1) * sizeof *q);
	uint64_t *grp = malloc((d->held ? d->held : 1) * sizeof *grp);
	if (q)
		out->q = q;
	if (!q || !grp) {
		free(grp);
		return rk__err(RK_ENOMEM, "out of memory for query shapes");
	}
	rk__rng_seed(&rng, seed ^ 0xADD5EEDull);
	memset(&out->q[out->n], 0, sizeof *q);
	int rc = shape_fill(&out->q[out->n++], where, name, 1, d, grp, &rng);
	free(grp);
	return rc;
}

int rk__qset_build(rk__qset *out, const rk__workload *w, const rk__dataset *d, uint64_t seed)
{
	size_t n = rk__workload_nshapes(w);
	int rc = 0;
	rk__rng rng;
	memset(out, 0, sizeof *out);
	out->records = d->records;
	if (!n)
		return 0;
	uint64_t *grp = malloc((d->held ? d->held : 1) * sizeof *grp);
	if (!grp || !(out->q = calloc(n, sizeof *out->q))) {
		free(grp);
		return rk__err(RK_ENOMEM, "out of memory for query shapes");
	}
	rk__rng_seed(&rng, seed ^ 0xC0FFEE5EEDull);
	for (size_t s = 0; s < n && !rc; s++) {
		out->n++;
		rc = shape_fill(&out->q[s], rk__workload_shape_where(w, s), rk__workload_shape(w, s),
		                rk__workload_shape_weight(w, s), d, grp, &rng);
	}
	free(grp);
	if (rc)
		rk__qset_free(out);
	return rc;
}

void rk__qset_free(rk__qset *q)
{
	for (size_t s = 0; q->q && s < q->n; s++) {
		free(q->q[s].name);
		free(q->q[s].where);
		for (size_t k = 0; k < q->q[s].ns; k++)
			free(q->q[s].s[k].where);
	}
	free(q->q);
	memset(q, 0, sizeof *q);
}
