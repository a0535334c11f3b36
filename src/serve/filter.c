/*
 * RowFilter for rowkey serve (filter.h): a request's filter compiled into a
 * tree once, then applied row by row. Semantics follow the comments of
 * google/bigtable/v2/data.proto:
 *   chain        each filter takes the previous one's output
 *   interleave   every filter takes the input; the outputs are merged back
 *                into row order (family, qualifier, newest first), duplicates
 *                kept
 *   condition    the predicate's output decides: non-empty, true_filter on
 *                the input, else false_filter (absent: nothing)
 *   sink         its input goes straight to the row's result, nothing to its
 *                parent; not allowed inside a condition
 *   limits       cells_per_row_offset / _limit count cells in order;
 *                cells_per_column_limit keeps the newest N of each column
 *   row_sample   a row passes when a hash of its key falls under the
 *                probability: the same rows every time (Bigtable samples at
 *                random)
 * Regexes go to RE2 (filter_re2.h) and match whole fields.
 */
#include "serve/filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "key/bytes.h"
#include "serve/filter_re2.h"
#include "serve/serve_int.h"

typedef struct bound {
	uint8_t *b;
	size_t len;
	int set, open;
} bound;

typedef struct node {
	int kind; /* Rkbt__RowFilter__FilterCase */
	struct node **kids;
	size_t nkids;
	struct node *pred, *yes, *no;
	rk_re2 *re;
	char *family;      /* column_range_filter */
	bound lo, hi;      /* column and value ranges */
	int64_t ts_lo, ts_hi;
	int32_t n;
	double p;
	char *label;
} node;

struct rk_sv_filter {
	node *root; /* NULL: pass everything */
};

/* ---- compiling ---- */

typedef struct cctx {
	int *code;
	char *err;
	size_t errcap;
} cctx;

static int cfail(cctx *c, int code, int rc, const char *path, const char *fmt, const char *a)
{
	char m[300];
	snprintf(m, sizeof m, fmt, a);
	size_t pl = strlen(path);
	if (pl > 120) /* deep nesting: its start and its end */
		snprintf(c->err, c->errcap, "%.60s...%s: %s", path, path + pl - 50, m);
	else
		snprintf(c->err, c->errcap, "%s: %s", path, m);
	*c->code = code;
	return rc;
}

static void node_free(node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	node_free(n->pred);
	node_free(n->yes);
	node_free(n->no);
	if (n->re)
		rk_re2__free(n->re);
	free(n->family);
	free(n->lo.b);
	free(n->hi.b);
	free(n->label);
	free(n);
}

static int copy_bound(bound *b, const ProtobufCBinaryData *d, int open)
{
	b->set = 1;
	b->open = open;
	b->len = d->len;
	b->b = malloc(d->len ? d->len : 1);
	if (!b->b)
		return RK_ENOMEM;
	if (d->len)
		memcpy(b->b, d->data, d->len);
	return 0;
}

static int compile(node **out, const Rkbt__RowFilter *f, const char *path, int depth,
                   int in_condition, cctx *c);

static int compile_list(node *n, Rkbt__RowFilter *const *fs, size_t k, const char *path,
                        const char *what, int depth, int in_condition, cctx *c)
{
	n->kids = calloc(k ? k : 1, sizeof *n->kids);
	if (!n->kids)
		return cfail(c, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, path, "%s", "out of memory");
	for (size_t i = 0; i < k; i++) {
		char p[512];
		snprintf(p, sizeof p, "%s.%s.filters[%zu]", path, what, i);
		int rc = compile(&n->kids[i], fs[i], p, depth + 1, in_condition, c);
		n->nkids = i + 1; /* a failed kid is freed with its parent */
		if (rc)
			return rc;
	}
	return 0;
}

static int compile_regex(node *n, const uint8_t *pat, size_t len, const char *path,
                         const char *name, cctx *c)
{
	char e[256], p[512];
	snprintf(p, sizeof p, "%s.%s", path, name);
	if (!(n->re = rk_re2__compile(pat, len, e, sizeof e)))
		return cfail(c, RK_SV_INVALID_ARGUMENT, RK_EINVALID, p, "bad RE2 pattern: %s", e);
	return 0;
}

static int label_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 15)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

static int compile(node **out, const Rkbt__RowFilter *f, const char *path, int depth,
                   int in_condition, cctx *c)
{
	*out = NULL;
	if (depth > RK_SV_FILTER_MAX_DEPTH)
		return cfail(c, RK_SV_INVALID_ARGUMENT, RK_EINVALID, path,
		             "filters nested deeper than %s", "64");
	node *n = calloc(1, sizeof *n);
	if (!n)
		return cfail(c, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, path, "%s", "out of memory");
	*out = n;
	n->kind = f ? (int)f->filter_case : RKBT__ROW_FILTER__FILTER__NOT_SET;
	char p[512];
	int rc = 0;
	switch (n->kind) {
	case RKBT__ROW_FILTER__FILTER__NOT_SET:
		if (f && f->base.n_unknown_fields) {
			char num[16];
			snprintf(num, sizeof num, "%u", (unsigned)f->base.unknown_fields[0].tag);
			return cfail(c, RK_SV_UNIMPLEMENTED, RK_EINVALID, path,
			             "RowFilter field %s is not supported by rowkey serve", num);
		}
		return 0; /* an empty filter passes everything */
	case RKBT__ROW_FILTER__FILTER_CHAIN:
		return compile_list(n, f->chain->filters, f->chain->n_filters, path, "chain", depth,
		                    in_condition, c);
	case RKBT__ROW_FILTER__FILTER_INTERLEAVE:
		return compile_list(n, f->interleave->filters, f->interleave->n_filters, path,
		                    "interleave", depth, in_condition, c);
	case RKBT__ROW_FILTER__FILTER_CONDITION: {
		const Rkbt__RowFilter__Condition *cd = f->condition;
		snprintf(p, sizeof p, "%s.condition.predicate_filter", path);
		if (!cd->predicate_filter)
			return cfail(c, RK_SV_INVALID_ARGUMENT, RK_EINVALID, p, "%s", "missing");
		if ((rc = compile(&n->pred, cd->predicate_filter, p, depth + 1, 1, c)) != 0)
			return rc;
		snprintf(p, sizeof p, "%s.condition.true_filter", path);
		if (cd->true_filter && (rc = compile(&n->yes, cd->true_filter, p, depth + 1, 1, c)))
			return rc;
		snprintf(p, sizeof p, "%s.condition.false_filter", path);
		if (cd->false_filter && (rc = compile(&n->no, cd->false_filter, p, depth + 1, 1, c)))
			return rc;
		return 0;
	}
	case RKBT__ROW_FILTER__FILTER_SINK:
		if (in_condition)
			return cfail(c, RK_SV_INVALID_ARGUMENT, RK_EINVALID, path, "%s",
			             "sink cannot be used inside a condition");
		/* fall through */
	case RKBT__ROW_FILTER__FILTER_PASS_ALL_FILTER:
	case RKBT__ROW_FILTER__FILTER_BLOCK_ALL_FILTER:
	case RKBT__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER: {
		int v = n->kind == RKBT__ROW_FILTER__FILTER_SINK            ? f->sink
		        : n->kind == RKBT__ROW_FILTER__FILTER_PASS_ALL_FILTER ? f->pass_all_filter
		        : n->kind == RKBT__ROW_FILTER__FILTER_BLOCK_ALL_FILTER ? f->block_all_filter
		                                                             : f->strip_value_transformer;
		if (!v)
			return cfail(c, RK_SV_INVALID_ARGUMENT, RK_EINVALID, path, "%s",
			             "this filter must be set to true");
		return 0;
	}
	case RKBT__ROW_FILTER__FILTER_ROW_KEY_REGEX_FILTER:
		return compile_regex(n, f->row_key_regex_filter.data, f->row_key_regex_filter.len, path,
		                     "row_key_regex_filter", c);
	case RKBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER:
		return compile_regex(n, (const uint8_t *)f->family_name_regex_filter,
		                     strlen(f->family_name_regex_filter), path,
		                     "family_name_regex_filter", c);
	case RKBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER:
		return compile_regex(n, f->column_qualifier_regex_filter.data,
		                     f->column_qualifier_regex_filter.len, path,
		                     "column_qualifier_regex_filter", c);
	case RKBT__ROW_FILTER__FILTER_VALUE_REGEX_FILTER:
		return compile_regex(n, f->value_regex_filter.data, f->value_regex_filter.len, path,
		                     "value_regex_filter", c);
	case RKBT__ROW_FILTER__FILTER_ROW_SAMPLE_FILTER:
		snprintf(p, sizeof p, "%s.row_sample_filter", path);
		if (!(f->row_sample_filter > 0 && f->row_sample_filter < 1))
			return cfail(c, RK_SV_INVALID_ARGUMENT, RK_EINVALID, p, "%s",
			             "must be between 0 and 1, exclusive");
		n->p = f->row_sample_filter;
		return 0;
	case RKBT__ROW_FILTER__FILTER_COLUMN_RANGE_FILTER: {
		const Rkbt__ColumnRange *r = f->column_range_filter;
		snprintf(p, sizeof p, "%s.column_range_filter.family_name", path);
		if (!*r->family_name)
			return cfail(c, RK_SV_INVALID_ARGUMENT, RK_EINVALID, p, "%s", "empty");
		if (!(n->family = strdup(r->family_name)))
			return cfail(c, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, path, "%s", "out of memory");
		if (r->start_qualifier_case == RKBT__COLUMN_RANGE__START_QUALIFIER_START_QUALIFIER_CLOSED)
			rc = copy_bound(&n->lo, &r->start_qualifier_closed, 0);
		else if (r->start_qualifier_case == RKBT__COLUMN_RANGE__START_QUALIFIER_START_QUALIFIER_OPEN)
			rc = copy_bound(&n->lo, &r->start_qualifier_open, 1);
		if (!rc && r->end_qualifier_case == RKBT__COLUMN_RANGE__END_QUALIFIER_END_QUALIFIER_CLOSED)
			rc = copy_bound(&n->hi, &r->end_qualifier_closed, 0);
		else if (!rc && r->end_qualifier_case == RKBT__COLUMN_RANGE__END_QUALIFIER_END_QUALIFIER_OPEN)
			rc = copy_bound(&n->hi, &r->end_qualifier_open, 1);
		return rc ? cfail(c, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, path, "%s", "out of memory")
		          : 0;
	}
	case RKBT__ROW_FILTER__FILTER_VALUE_RANGE_FILTER: {
		const Rkbt__ValueRange *r = f->value_range_filter;
		if (r->start_value_case == RKBT__VALUE_RANGE__START_VALUE_START_VALUE_CLOSED)
			rc = copy_bound(&n->lo, &r->start_value_closed, 0);
		else if (r->start_value_case == RKBT__VALUE_RANGE__START_VALUE_START_VALUE_OPEN)
			rc = copy_bound(&n->lo, &r->start_value_open, 1);
		if (!rc && r->end_value_case == RKBT__VALUE_RANGE__END_VALUE_END_VALUE_CLOSED)
			rc = copy_bound(&n->hi, &r->end_value_closed, 0);
		else if (!rc && r->end_value_case == RKBT__VALUE_RANGE__END_VALUE_END_VALUE_OPEN)
			rc = copy_bound(&n->hi, &r->end_value_open, 1);
		return rc ? cfail(c, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, path, "%s", "out of memory")
		          : 0;
	}
	case RKBT__ROW_FILTER__FILTER_TIMESTAMP_RANGE_FILTER: {
		const Rkbt__TimestampRange *r = f->timestamp_range_filter;
		snprintf(p, sizeof p, "%s.timestamp_range_filter", path);
		if (r->start_timestamp_micros < 0 || r->end_timestamp_micros < 0 ||
		    (r->end_timestamp_micros && r->end_timestamp_micros < r->start_timestamp_micros))
			return cfail(c, RK_SV_INVALID_ARGUMENT, RK_EINVALID, p, "%s",
			             "not a valid range [start, end)");
		n->ts_lo = r->start_timestamp_micros;
		n->ts_hi = r->end_timestamp_micros;
		return 0;
	}
	case RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_OFFSET_FILTER:
	case RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_LIMIT_FILTER:
	case RKBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER: {
		const char *name = n->kind == RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_OFFSET_FILTER
		                           ? "cells_per_row_offset_filter"
		                   : n->kind == RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_LIMIT_FILTER
		                           ? "cells_per_row_limit_filter"
		                           : "cells_per_column_limit_filter";
		n->n = n->kind == RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_OFFSET_FILTER
		               ? f->cells_per_row_offset_filter
		       : n->kind == RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_LIMIT_FILTER
		               ? f->cells_per_row_limit_filter
		               : f->cells_per_column_limit_filter;
		snprintf(p, sizeof p, "%s.%s", path, name);
		if (n->n < 0)
			return cfail(c, RK_SV_INVALID_ARGUMENT, RK_EINVALID, p, "%s", "negative");
		return 0;
	}
	case RKBT__ROW_FILTER__FILTER_APPLY_LABEL_TRANSFORMER:
		snprintf(p, sizeof p, "%s.apply_label_transformer", path);
		if (!label_ok(f->apply_label_transformer))
			return cfail(c, RK_SV_INVALID_ARGUMENT, RK_EINVALID, p,
			             "label '%.40s' is not 1..15 of [a-z0-9-]", f->apply_label_transformer);
		if (!(n->label = strdup(f->apply_label_transformer)))
			return cfail(c, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, path, "%s", "out of memory");
		return 0;
	default: {
		char num[16];
		snprintf(num, sizeof num, "%d", n->kind);
		return cfail(c, RK_SV_UNIMPLEMENTED, RK_EINVALID, path,
		             "RowFilter field %s is not supported by rowkey serve", num);
	}
	}
}

int rk_sv__filter_compile(rk_sv_filter **out, const Rkbt__RowFilter *f, int *grpc_code,
                          char *err, size_t errcap)
{
	*out = NULL;
	*grpc_code = 0;
	if (errcap)
		err[0] = 0;
	rk_sv_filter *x = calloc(1, sizeof *x);
	if (!x) {
		*grpc_code = RK_SV_RESOURCE_EXHAUSTED;
		snprintf(err, errcap, "filter: out of memory");
		return RK_ENOMEM;
	}
	if (f) {
		cctx c = {grpc_code, err, errcap};
		int rc = compile(&x->root, f, "filter", 1, 0, &c);
		if (rc) {
			node_free(x->root);
			free(x);
			return rc;
		}
	}
	*out = x;
	return 0;
}

void rk_sv__filter_free(rk_sv_filter *f)
{
	if (!f)
		return;
	node_free(f->root);
	free(f);
}

/* ---- applying ---- */

static int push(rk_sv_cells *v, const rk_sv_cell *c)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		rk_sv_cell *nc = realloc(v->cells, cap * sizeof *nc);
		if (!nc)
			return RK_ENOMEM;
		v->cells = nc;
		v->cap = cap;
	}
	v->cells[v->n++] = *c;
	return 0;
}

static int same_column(const rk_sv_cell *a, const rk_sv_cell *b)
{
	return strcmp(a->family, b->family) == 0 &&
	       rk__bytes_cmp(a->qualifier, a->qualifier_len, b->qualifier, b->qualifier_len) == 0;
}

static int order(const rk_sv_cell *a, const rk_sv_cell *b)
{
	int c = strcmp(a->family, b->family);
	if (c)
		return c;
	if ((c = rk__bytes_cmp(a->qualifier, a->qualifier_len, b->qualifier, b->qualifier_len)) != 0)
		return c;
	return (a->ts < b->ts) - (a->ts > b->ts);
}

/* Stable merge sort of v[0..n) into row order (duplicates keep their order). */
static int sort_cells(rk_sv_cell *v, size_t n)
{
	if (n < 2)
		return 0;
	rk_sv_cell *tmp = malloc(n * sizeof *tmp);
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
	if (lo->set) {
		int c = rk__bytes_cmp(s, n, lo->b, lo->len);
		if (c < 0 || (c == 0 && lo->open))
			return 0;
	}
	if (hi->set) {
		int c = rk__bytes_cmp(s, n, hi->b, hi->len);
		if (c > 0 || (c == 0 && hi->open))
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

typedef struct row {
	const uint8_t *key;
	size_t key_len;
	rk_sv_cells *sink;
} row;

/* Appends what node f passes of in[0..n) to out. */
static int eval(const node *f, const row *r, const rk_sv_cell *in, size_t n, rk_sv_cells *out)
{
	int rc = 0;
	switch (f->kind) {
	case RKBT__ROW_FILTER__FILTER__NOT_SET:
	case RKBT__ROW_FILTER__FILTER_PASS_ALL_FILTER:
		for (size_t i = 0; i < n && !rc; i++)
			rc = push(out, &in[i]);
		return rc;
	case RKBT__ROW_FILTER__FILTER_BLOCK_ALL_FILTER:
		return 0;
	case RKBT__ROW_FILTER__FILTER_SINK:
		for (size_t i = 0; i < n && !rc; i++)
			rc = push(r->sink, &in[i]);
		return rc;
	case RKBT__ROW_FILTER__FILTER_CHAIN: {
		rk_sv_cells a = {0}, b = {0};
		const rk_sv_cell *cur = in;
		size_t cn = n;
		for (size_t k = 0; k < f->nkids && !rc; k++) {
			b.n = 0;
			rc = eval(f->kids[k], r, cur, cn, &b);
			rk_sv_cells t = a;
			a = b;
			b = t;
			cur = a.cells;
			cn = a.n;
		}
		for (size_t i = 0; i < cn && !rc; i++)
			rc = push(out, &cur[i]);
		free(a.cells);
		free(b.cells);
		return rc;
	}
	case RKBT__ROW_FILTER__FILTER_INTERLEAVE: {
		size_t start = out->n;
		for (size_t k = 0; k < f->nkids && !rc; k++)
			rc = eval(f->kids[k], r, in, n, out);
		if (rc || out->n - start < 2)
			return rc;
		return sort_cells(out->cells + start, out->n - start);
	}
	case RKBT__ROW_FILTER__FILTER_CONDITION: {
		rk_sv_cells p = {0};
		rc = eval(f->pred, r, in, n, &p);
		int hit = p.n > 0;
		free(p.cells);
		const node *br = hit ? f->yes : f->no;
		return rc ? rc : br ? eval(br, r, in, n, out) : 0;
	}
	case RKBT__ROW_FILTER__FILTER_ROW_KEY_REGEX_FILTER:
		if (!rk_re2__full_match(f->re, r->key, r->key_len))
			return 0;
		for (size_t i = 0; i < n && !rc; i++)
			rc = push(out, &in[i]);
		return rc;
	case RKBT__ROW_FILTER__FILTER_ROW_SAMPLE_FILTER:
		if ((double)(key_hash(r->key, r->key_len) >> 11) / 9007199254740992.0 >= f->p)
			return 0;
		for (size_t i = 0; i < n && !rc; i++)
			rc = push(out, &in[i]);
		return rc;
	case RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_OFFSET_FILTER:
		for (size_t i = (size_t)f->n; i < n && !rc; i++)
			rc = push(out, &in[i]);
		return rc;
	case RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_LIMIT_FILTER:
		for (size_t i = 0; i < n && i < (size_t)f->n && !rc; i++)
			rc = push(out, &in[i]);
		return rc;
	case RKBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER: {
		size_t run = 0;
		for (size_t i = 0; i < n && !rc; i++) {
			run = i && same_column(&in[i - 1], &in[i]) ? run + 1 : 0;
			if (run < (size_t)f->n)
				rc = push(out, &in[i]);
		}
		return rc;
	}
	default:
		break;
	}
	/* the per-cell filters and transformers */
	for (size_t i = 0; i < n && !rc; i++) {
		const rk_sv_cell *c = &in[i];
		rk_sv_cell x = *c;
		int pass = 1;
		switch (f->kind) {
		case RKBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER:
			pass = rk_re2__full_match(f->re, (const uint8_t *)c->family, strlen(c->family));
			break;
		case RKBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER:
			pass = rk_re2__full_match(f->re, c->qualifier, c->qualifier_len);
			break;
		case RKBT__ROW_FILTER__FILTER_VALUE_REGEX_FILTER:
			pass = rk_re2__full_match(f->re, c->value, c->value_len);
			break;
		case RKBT__ROW_FILTER__FILTER_COLUMN_RANGE_FILTER:
			pass = strcmp(c->family, f->family) == 0 &&
			       in_bounds(&f->lo, &f->hi, c->qualifier, c->qualifier_len);
			break;
		case RKBT__ROW_FILTER__FILTER_VALUE_RANGE_FILTER:
			pass = in_bounds(&f->lo, &f->hi, c->value, c->value_len);
			break;
		case RKBT__ROW_FILTER__FILTER_TIMESTAMP_RANGE_FILTER:
			pass = c->ts >= f->ts_lo && (!f->ts_hi || c->ts < f->ts_hi);
			break;
		case RKBT__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER:
			x.value_len = 0;
			break;
		case RKBT__ROW_FILTER__FILTER_APPLY_LABEL_TRANSFORMER:
			x.label = f->label;
			break;
		default:
			pass = 0;
		}
		if (pass)
			rc = push(out, &x);
	}
	return rc;
}

int rk_sv__filter_row(rk_sv_cells *out, const rk_sv_filter *f, const uint8_t *key,
                      size_t key_len, const rk_sv_cell *in, size_t n)
{
	out->n = 0;
	if (!f || !f->root) {
		for (size_t i = 0; i < n; i++)
			if (push(out, &in[i]))
				return RK_ENOMEM;
		return 0;
	}
	rk_sv_cells sink = {0};
	row r = {key, key_len, &sink};
	int rc = eval(f->root, &r, in, n, out);
	if (!rc && sink.n) {
		for (size_t i = 0; i < sink.n && !rc; i++)
			rc = push(out, &sink.cells[i]);
		if (!rc)
			rc = sort_cells(out->cells, out->n);
	}
	free(sink.cells);
	return rc ? RK_ENOMEM : 0;
}
