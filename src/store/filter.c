/*
 * Row filters (filter.h): an rk_filter checked and compiled once into a
 * tree (regexes compiled by RE2, bounds and labels copied), then applied to
 * one row at a time. Semantics are Bigtable's RowFilter
 * (google/bigtable/v2/data.proto):
 *   chain        each filter takes the previous one's output
 *   interleave   every filter takes the input; the outputs are merged back
 *                into row order (family, qualifier, newest first),
 *                duplicates kept
 *   condition    the predicate's output decides: non-empty, the true branch
 *                on the input, else the false one
 *   sink         its input goes straight to the row's result, nothing to its
 *                parent; not allowed inside a condition
 *   limits       row offset / limit count cells in order; the column limit
 *                keeps the newest N of each column
 *   row sample   a row passes when a hash of its key falls under the
 *                probability: the same rows every time (Bigtable samples at
 *                random)
 * Each row's evaluation has a budget of cells pushed (filter.h): the one
 * way a filter could take more than time linear in its size and the row's
 * (interleaves feeding interleaves) is stopped there.
 */
#include "store/filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/error.h"
#include "store/filter_re2.h"

typedef struct bound {
	uint8_t *b;
	size_t len;
	rk_bound_kind kind;
} bound;

typedef struct node {
	rk_filter_kind kind;
	struct node **kids;
	size_t nkids;
	rk_re2 *re;
	char *family; /* COLUMN_RANGE */
	bound lo, hi;
	uint64_t ts_from, ts_to, n;
	double p;
	char *label;
} node;

struct rk__filter {
	node *root;
	size_t nodes;
};

/* ---- compiling ---- */

typedef struct cctx {
	size_t nodes;
} cctx;

/* The RowFilter field name of each kind, for paths in messages. */
static const char *kind_name(rk_filter_kind k)
{
	switch (k) {
	case RK_FILTER_PASS: return "pass_all_filter";
	case RK_FILTER_BLOCK: return "block_all_filter";
	case RK_FILTER_CHAIN: return "chain";
	case RK_FILTER_INTERLEAVE: return "interleave";
	case RK_FILTER_CONDITION: return "condition";
	case RK_FILTER_SINK: return "sink";
	case RK_FILTER_ROW_KEY_REGEX: return "row_key_regex_filter";
	case RK_FILTER_ROW_SAMPLE: return "row_sample_filter";
	case RK_FILTER_FAMILY_REGEX: return "family_name_regex_filter";
	case RK_FILTER_QUALIFIER_REGEX: return "column_qualifier_regex_filter";
	case RK_FILTER_COLUMN_RANGE: return "column_range_filter";
	case RK_FILTER_TIME_RANGE: return "timestamp_range_filter";
	case RK_FILTER_VALUE_REGEX: return "value_regex_filter";
	case RK_FILTER_VALUE_RANGE: return "value_range_filter";
	case RK_FILTER_ROW_OFFSET: return "cells_per_row_offset_filter";
	case RK_FILTER_ROW_LIMIT: return "cells_per_row_limit_filter";
	case RK_FILTER_COLUMN_LIMIT: return "cells_per_column_limit_filter";
	case RK_FILTER_STRIP_VALUE: return "strip_value_transformer";
	case RK_FILTER_LABEL: return "apply_label_transformer";
	}
	return NULL;
}

/* The error for node `path` (a deep path keeps its start and its end). */
static int cfail(int rc, const char *path, const char *fmt, const char *a)
{
	char m[300];
	snprintf(m, sizeof m, fmt, a);
	size_t pl = strlen(path);
	if (pl > 120)
		return rk__err(rc, "%.60s...%s: %s", path, path + pl - 50, m);
	return rk__err(rc, "%s: %s", path, m);
}

static void node_free(node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	if (n->re)
		rk_re2__free(n->re);
	free(n->family);
	free(n->lo.b);
	free(n->hi.b);
	free(n->label);
	free(n);
}

static int copy_bound(bound *b, const rk_filter_bound *s)
{
	b->kind = s->kind;
	if (s->kind == RK_BOUND_NONE)
		return 0;
	b->len = s->len;
	if (!(b->b = malloc(s->len ? s->len : 1)))
		return RK_ENOMEM;
	if (s->len)
		memcpy(b->b, s->ptr, s->len);
	return 0;
}

static int label_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > 15)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

static int compile(node **out, const rk_filter *f, const char *path, unsigned depth,
                   int in_condition, cctx *c);

static int compile_kids(node *n, const rk_filter *f, const char *path, unsigned depth,
                        int in_condition, cctx *c)
{
	static const char *const branch[] = {"predicate_filter", "true_filter", "false_filter"};
	char p[512];
	if (f->nkids && !f->kids)
		return cfail(RK_EINVALID, path, "%s", "kids is NULL");
	if (!(n->kids = calloc(f->nkids ? f->nkids : 1, sizeof *n->kids)))
		return cfail(RK_ENOMEM, path, "%s", "out of memory");
	for (size_t i = 0; i < f->nkids; i++) {
		if (f->kind == RK_FILTER_CONDITION)
			snprintf(p, sizeof p, "%.400s.condition.%s", path, branch[i]);
		else
			snprintf(p, sizeof p, "%.400s.%s.filters[%zu]", path, kind_name(f->kind), i);
		int rc = compile(&n->kids[i], &f->kids[i], p, depth + 1,
		                 in_condition || f->kind == RK_FILTER_CONDITION, c);
		n->nkids = i + 1; /* a failed kid is freed with its parent */
		if (rc)
			return rc;
	}
	return 0;
}

/* Checks and copies the arguments of a filter that is not a composition. */
static int compile_leaf(node *n, const rk_filter *f, const char *p)
{
	char e[256];
	switch (f->kind) {
	case RK_FILTER_ROW_KEY_REGEX:
	case RK_FILTER_FAMILY_REGEX:
	case RK_FILTER_QUALIFIER_REGEX:
	case RK_FILTER_VALUE_REGEX:
		if (f->pattern_len && !f->pattern)
			return cfail(RK_EINVALID, p, "%s", "pattern is NULL");
		if (!(n->re = rk_re2__compile(f->pattern, f->pattern_len, e, sizeof e)))
			return cfail(RK_EINVALID, p, "bad RE2 pattern: %s", e);
		return 0;
	case RK_FILTER_ROW_SAMPLE:
		if (!(f->probability > 0 && f->probability < 1))
			return cfail(RK_EINVALID, p, "%s", "must be between 0 and 1, exclusive");
		n->p = f->probability;
		return 0;
	case RK_FILTER_COLUMN_RANGE:
		if (!f->family || !*f->family)
			return cfail(RK_EINVALID, p, "%s", "family_name is empty");
		if (!(n->family = strdup(f->family)))
			return cfail(RK_ENOMEM, p, "%s", "out of memory");
		/* fall through */
	case RK_FILTER_VALUE_RANGE:
		if ((f->lo.kind && f->lo.len && !f->lo.ptr) || (f->hi.kind && f->hi.len && !f->hi.ptr))
			return cfail(RK_EINVALID, p, "%s", "a bound is NULL");
		if (f->lo.kind > RK_BOUND_OPEN || f->hi.kind > RK_BOUND_OPEN)
			return cfail(RK_EINVALID, p, "%s", "unknown bound kind");
		if (copy_bound(&n->lo, &f->lo) || copy_bound(&n->hi, &f->hi))
			return cfail(RK_ENOMEM, p, "%s", "out of memory");
		return 0;
	case RK_FILTER_TIME_RANGE:
		if (f->ts_to && f->ts_to < f->ts_from)
			return cfail(RK_EINVALID, p, "%s", "not a valid range [start, end)");
		n->ts_from = f->ts_from;
		n->ts_to = f->ts_to;
		return 0;
	case RK_FILTER_ROW_OFFSET:
	case RK_FILTER_ROW_LIMIT:
	case RK_FILTER_COLUMN_LIMIT:
		n->n = f->n;
		return 0;
	case RK_FILTER_LABEL:
		if (!label_ok(f->label))
			return cfail(RK_EINVALID, p, "label '%.40s' is not 1..15 of [a-z0-9-]",
			             f->label ? f->label : "(null)");
		if (!(n->label = strdup(f->label)))
			return cfail(RK_ENOMEM, p, "%s", "out of memory");
		return 0;
	default: /* PASS, BLOCK, STRIP_VALUE: no arguments */
		return 0;
	}
}

static int compile(node **out, const rk_filter *f, const char *path, unsigned depth,
                   int in_condition, cctx *c)
{
	char p[512];
	*out = NULL;
	if (depth > RK_FILTER_MAX_DEPTH)
		return cfail(RK_EINVALID, path, "filters nested deeper than %s", "64");
	if (++c->nodes > RK_FILTER_MAX_NODES)
		return cfail(RK_EINVALID, path, "more than %s filters", "10000");
	const char *name = kind_name(f->kind);
	if (!name)
		return cfail(RK_EINVALID, path, "%s", "unknown filter kind");
	node *n = calloc(1, sizeof *n);
	if (!n)
		return cfail(RK_ENOMEM, path, "%s", "out of memory");
	*out = n;
	n->kind = f->kind;
	snprintf(p, sizeof p, "%.400s.%s", path, name);
	switch (f->kind) {
	case RK_FILTER_CONDITION:
		if (f->nkids != 3)
			return cfail(RK_EINVALID, p, "%s", "needs a predicate and two branches");
		/* fall through */
	case RK_FILTER_CHAIN:
	case RK_FILTER_INTERLEAVE:
		return compile_kids(n, f, path, depth, in_condition, c);
	case RK_FILTER_SINK:
		if (in_condition)
			return cfail(RK_EINVALID, path, "%s", "sink cannot be used inside a condition");
		return 0;
	default:
		return compile_leaf(n, f, p);
	}
}

int rk__filter_compile(rk__filter **out, const rk_filter *f)
{
	*out = NULL;
	rk__filter *x = calloc(1, sizeof *x);
	if (!x)
		return rk__err(RK_ENOMEM, "filter: out of memory");
	cctx c = {0};
	int rc = compile(&x->root, f, "filter", 1, 0, &c);
	if (rc) {
		node_free(x->root);
		free(x);
		return rc;
	}
	x->nodes = c.nodes;
	*out = x;
	return 0;
}

void rk__filter_free(rk__filter *f)
{
	if (!f)
		return;
	node_free(f->root);
	free(f);
}

/* ---- applying ---- */

typedef struct row {
	const uint8_t *key;
	size_t key_len;
	rk__cells *sink;
	size_t budget; /* cells still to be pushed before the row is refused */
} row;

static int push(row *r, rk__cells *v, const rk_cell *c)
{
	if (!r->budget--)
		return RK_ETOOLONG;
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		rk_cell *nc = realloc(v->v, cap * sizeof *nc);
		if (!nc)
			return RK_ENOMEM;
		v->v = nc;
		v->cap = cap;
	}
	v->v[v->n++] = *c;
	return 0;
}

static int push_all(row *r, rk__cells *v, const rk_cell *in, size_t n)
{
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		rc = push(r, v, &in[i]);
	return rc;
}

static int same_column(const rk_cell *a, const rk_cell *b)
{
	return strcmp(a->family, b->family) == 0 &&
	       rk__bytes_cmp(a->qualifier, a->qualifier_len, b->qualifier, b->qualifier_len) == 0;
}

static int order(const rk_cell *a, const rk_cell *b)
{
	int c = strcmp(a->family, b->family);
	if (c)
		return c;
	if ((c = rk__bytes_cmp(a->qualifier, a->qualifier_len, b->qualifier, b->qualifier_len)) != 0)
		return c;
	return (a->ts < b->ts) - (a->ts > b->ts);
}

/* Stable merge sort of v[0..n) into row order (duplicates keep their order). */
static int sort_cells(rk_cell *v, size_t n)
{
	if (n < 2)
		return 0;
	rk_cell *tmp = malloc(n * sizeof *tmp);
	if (!tmp)
		return RK_ENOMEM;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = order(&v[j], &v[i]) < 0 ? v[j++] : v[i++];
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
		}
		memcpy(v, tmp, n * sizeof *v);
	}
	free(tmp);
	return 0;
}

static int in_bounds(const bound *lo, const bound *hi, const uint8_t *s, size_t n)
{
	if (lo->kind != RK_BOUND_NONE) {
		int c = rk__bytes_cmp(s, n, lo->b, lo->len);
		if (c < 0 || (c == 0 && lo->kind == RK_BOUND_OPEN))
			return 0;
	}
	if (hi->kind != RK_BOUND_NONE) {
		int c = rk__bytes_cmp(s, n, hi->b, hi->len);
		if (c > 0 || (c == 0 && hi->kind == RK_BOUND_OPEN))
			return 0;
	}
	return 1;
}

static uint64_t key_hash(const uint8_t *k, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ k[i]) * 1099511628211ull;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static int eval(const node *f, row *r, const rk_cell *in, size_t n, rk__cells *out);

static int eval_chain(const node *f, row *r, const rk_cell *in, size_t n, rk__cells *out)
{
	rk__cells a = {0}, b = {0};
	const rk_cell *cur = in;
	size_t cn = n;
	int rc = 0;
	for (size_t k = 0; k < f->nkids && !rc; k++) {
		b.n = 0;
		rc = eval(f->kids[k], r, cur, cn, &b);
		rk__cells t = a;
		a = b;
		b = t;
		cur = a.v;
		cn = a.n;
	}
	if (!rc)
		rc = push_all(r, out, cur, cn);
	free(a.v);
	free(b.v);
	return rc;
}

/* The filters that pass or drop the whole row, or cells by position. */
static int eval_row(const node *f, row *r, const rk_cell *in, size_t n, rk__cells *out)
{
	int rc = 0;
	switch (f->kind) {
	case RK_FILTER_ROW_KEY_REGEX:
		return rk_re2__full_match(f->re, r->key, r->key_len) ? push_all(r, out, in, n) : 0;
	case RK_FILTER_ROW_SAMPLE:
		if ((double)(key_hash(r->key, r->key_len) >> 11) / 9007199254740992.0 >= f->p)
			return 0;
		return push_all(r, out, in, n);
	case RK_FILTER_ROW_OFFSET:
		return f->n < n ? push_all(r, out, in + f->n, n - (size_t)f->n) : 0;
	case RK_FILTER_ROW_LIMIT:
		return push_all(r, out, in, f->n < n ? (size_t)f->n : n);
	default: { /* RK_FILTER_COLUMN_LIMIT */
		uint64_t run = 0;
		for (size_t i = 0; i < n && !rc; i++) {
			run = i && same_column(&in[i - 1], &in[i]) ? run + 1 : 0;
			if (run < f->n)
				rc = push(r, out, &in[i]);
		}
		return rc;
	}
	}
}

/* The per-cell filters and transformers. */
static int eval_cells(const node *f, row *r, const rk_cell *in, size_t n, rk__cells *out)
{
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const rk_cell *c = &in[i];
		rk_cell x = *c;
		int pass = 1;
		switch (f->kind) {
		case RK_FILTER_FAMILY_REGEX:
			pass = rk_re2__full_match(f->re, (const uint8_t *)c->family, strlen(c->family));
			break;
		case RK_FILTER_QUALIFIER_REGEX:
			pass = rk_re2__full_match(f->re, c->qualifier, c->qualifier_len);
			break;
		case RK_FILTER_VALUE_REGEX:
			pass = rk_re2__full_match(f->re, c->value, c->value_len);
			break;
		case RK_FILTER_COLUMN_RANGE:
			pass = strcmp(c->family, f->family) == 0 &&
			       in_bounds(&f->lo, &f->hi, c->qualifier, c->qualifier_len);
			break;
		case RK_FILTER_VALUE_RANGE:
			pass = in_bounds(&f->lo, &f->hi, c->value, c->value_len);
			break;
		case RK_FILTER_TIME_RANGE:
			pass = c->ts >= f->ts_from && (!f->ts_to || c->ts < f->ts_to);
			break;
		case RK_FILTER_STRIP_VALUE:
			x.value_len = 0;
			break;
		case RK_FILTER_LABEL:
			x.label = f->label;
			break;
		default:
			pass = 0;
		}
		if (pass)
			rc = push(r, out, &x);
	}
	return rc;
}

/* Appends what node f passes of in[0..n) to out. */
static int eval(const node *f, row *r, const rk_cell *in, size_t n, rk__cells *out)
{
	int rc = 0;
	switch (f->kind) {
	case RK_FILTER_PASS:
		return push_all(r, out, in, n);
	case RK_FILTER_BLOCK:
		return 0;
	case RK_FILTER_SINK:
		return push_all(r, r->sink, in, n);
	case RK_FILTER_CHAIN:
		return eval_chain(f, r, in, n, out);
	case RK_FILTER_INTERLEAVE: {
		size_t start = out->n;
		for (size_t k = 0; k < f->nkids && !rc; k++)
			rc = eval(f->kids[k], r, in, n, out);
		if (rc || out->n - start < 2)
			return rc;
		return sort_cells(out->v + start, out->n - start);
	}
	case RK_FILTER_CONDITION: {
		rk__cells p = {0};
		rc = eval(f->kids[0], r, in, n, &p);
		int hit = p.n > 0;
		free(p.v);
		return rc ? rc : eval(f->kids[hit ? 1 : 2], r, in, n, out);
	}
	case RK_FILTER_ROW_KEY_REGEX:
	case RK_FILTER_ROW_SAMPLE:
	case RK_FILTER_ROW_OFFSET:
	case RK_FILTER_ROW_LIMIT:
	case RK_FILTER_COLUMN_LIMIT:
		return eval_row(f, r, in, n, out);
	default:
		return eval_cells(f, r, in, n, out);
	}
}

int rk__filter_row(rk__cells *out, const rk__filter *f, const uint8_t *key, size_t key_len,
                   const rk_cell *in, size_t n)
{
	rk__cells sink = {0};
	row r = {key, key_len, &sink, 4 * (f->nodes + 1) * (n + 4)};
	out->n = 0;
	int rc = eval(f->root, &r, in, n, out);
	if (!rc && sink.n) {
		for (size_t i = 0; i < sink.n && !rc; i++)
			rc = push(&r, out, &sink.v[i]);
		if (!rc)
			rc = sort_cells(out->v, out->n);
	}
	free(sink.v);
	if (rc == RK_ETOOLONG) {
		char kb[120];
		return rk__err(RK_ETOOLONG, "filter: row '%s': the filter passed on more than %zu "
		               "cells (four per filter and input cell): interleaves that feed "
		               "interleaves multiply cells",
		               rk__err_bytes(kb, sizeof kb, key, key_len), 4 * (f->nodes + 1) * (n + 4));
	}
	return rc ? rk__err(RK_ENOMEM, "filter: out of memory") : 0;
}
