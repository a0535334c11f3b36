/*
 * Bigtable's RowFilter and the store's rk_filter, both ways (bt_map.h;
 * GC rules are bt_map_gc.c's). A filter is bounded before it is walked, by
 * RK_FILTER_MAX_DEPTH and RK_FILTER_MAX_NODES.
 */
#include "store/bigtable/bt_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"

/* ---- row filters ---- */

typedef struct fmap {
	rk_filter *a; /* the tree: the root first, each node's kids side by side */
	size_t next;
	int *unsupported;
} fmap;

static Rkbt__RowFilter *const *pb_kids(const Rkbt__RowFilter *f, size_t *n)
{
	if (f && f->filter_case == RKBT__ROW_FILTER__FILTER_CHAIN) {
		*n = f->chain->n_filters;
		return f->chain->filters;
	}
	if (f && f->filter_case == RKBT__ROW_FILTER__FILTER_INTERLEAVE) {
		*n = f->interleave->n_filters;
		return f->interleave->filters;
	}
	*n = f && f->filter_case == RKBT__ROW_FILTER__FILTER_CONDITION ? 3 : 0;
	return NULL;
}

/* Entries the tree of f takes, bounded (one past the store's limits is
 * enough for it to refuse the filter with its own message). */
static size_t pb_count(const Rkbt__RowFilter *f, unsigned depth)
{
	size_t n, total = 1;
	Rkbt__RowFilter *const *k = pb_kids(f, &n);
	if (depth > RK_FILTER_MAX_DEPTH + 1)
		return total;
	for (size_t i = 0; i < n && total <= RK_FILTER_MAX_NODES + 1; i++) {
		const Rkbt__RowFilter *c = k ? k[i]
		                         : i == 0 ? f->condition->predicate_filter
		                         : i == 1 ? f->condition->true_filter
		                                  : f->condition->false_filter;
		total += pb_count(c, depth + 1);
	}
	return total;
}

static int set_bound(rk_filter_bound *b, const ProtobufCBinaryData *d, rk_bound_kind kind)
{
	*b = (rk_filter_bound){kind, d->data, d->len};
	return 0;
}

static int pb_flag(rk_filter *r, rk_filter_kind kind, int on, const char *p, const char *name)
{
	if (!on)
		return rk__err(RK_EINVALID, "%s.%s: must be true", p, name);
	r->kind = kind;
	return 0;
}

static int pb_count_arg(rk_filter *r, rk_filter_kind kind, int32_t v, const char *p,
                        const char *name)
{
	if (v < 0)
		return rk__err(RK_EINVALID, "%s.%s: negative (%d)", p, name, v);
	r->kind = kind;
	r->n = (uint64_t)v;
	return 0;
}

/* A regex over bytes: kept as sent, pointing into the request. */
static int pb_pattern(rk_filter *r, rk_filter_kind kind, const ProtobufCBinaryData *d)
{
	*r = (rk_filter){.kind = kind, .pattern = d->data, .pattern_len = d->len};
	return 0;
}

static int pb_column_range(rk_filter *r, const Rkbt__ColumnRange *c)
{
	*r = (rk_filter){.kind = RK_FILTER_COLUMN_RANGE, .family = c->family_name};
	if (c->start_qualifier_case == RKBT__COLUMN_RANGE__START_QUALIFIER_START_QUALIFIER_CLOSED)
		set_bound(&r->lo, &c->start_qualifier_closed, RK_BOUND_CLOSED);
	else if (c->start_qualifier_case == RKBT__COLUMN_RANGE__START_QUALIFIER_START_QUALIFIER_OPEN)
		set_bound(&r->lo, &c->start_qualifier_open, RK_BOUND_OPEN);
	if (c->end_qualifier_case == RKBT__COLUMN_RANGE__END_QUALIFIER_END_QUALIFIER_CLOSED)
		set_bound(&r->hi, &c->end_qualifier_closed, RK_BOUND_CLOSED);
	else if (c->end_qualifier_case == RKBT__COLUMN_RANGE__END_QUALIFIER_END_QUALIFIER_OPEN)
		set_bound(&r->hi, &c->end_qualifier_open, RK_BOUND_OPEN);
	return 0;
}

static int pb_value_range(rk_filter *r, const Rkbt__ValueRange *v)
{
	*r = (rk_filter){.kind = RK_FILTER_VALUE_RANGE};
	if (v->start_value_case == RKBT__VALUE_RANGE__START_VALUE_START_VALUE_CLOSED)
		set_bound(&r->lo, &v->start_value_closed, RK_BOUND_CLOSED);
	else if (v->start_value_case == RKBT__VALUE_RANGE__START_VALUE_START_VALUE_OPEN)
		set_bound(&r->lo, &v->start_value_open, RK_BOUND_OPEN);
	if (v->end_value_case == RKBT__VALUE_RANGE__END_VALUE_END_VALUE_CLOSED)
		set_bound(&r->hi, &v->end_value_closed, RK_BOUND_CLOSED);
	else if (v->end_value_case == RKBT__VALUE_RANGE__END_VALUE_END_VALUE_OPEN)
		set_bound(&r->hi, &v->end_value_open, RK_BOUND_OPEN);
	return 0;
}

static int pb_time_range(rk_filter *r, const Rkbt__TimestampRange *t, const char *p)
{
	if (t->start_timestamp_micros < 0 || t->end_timestamp_micros < 0)
		return rk__err(RK_EINVALID, "%s.timestamp_range_filter: negative timestamp", p);
	*r = (rk_filter){.kind = RK_FILTER_TIME_RANGE,
	                 .ts_from = (uint64_t)t->start_timestamp_micros,
	                 .ts_to = (uint64_t)t->end_timestamp_micros};
	return 0;
}

static int pb_fill(fmap *m, size_t slot, const Rkbt__RowFilter *f, const char *p,
                   unsigned depth);

/* A chain, interleave or condition: its kids side by side from m->next. */
static int pb_fill_kids(fmap *m, rk_filter *r, const Rkbt__RowFilter *f, const char *p,
                        unsigned depth)
{
	static const char *const branch[] = {"predicate_filter", "true_filter", "false_filter"};
	char kp[512];
	size_t n;
	Rkbt__RowFilter *const *k = pb_kids(f, &n);
	if (depth > RK_FILTER_MAX_DEPTH) {
		size_t pl = strlen(p); /* a deep path: its start and its end */
		return rk__err(RK_EINVALID, "%.60s...%s: filters nested deeper than %u", p,
		               p + (pl > 50 ? pl - 50 : 0), RK_FILTER_MAX_DEPTH);
	}
	size_t first = m->next;
	m->next += n;
	r->kids = &m->a[first];
	r->nkids = n;
	for (size_t i = 0; i < n; i++) {
		const Rkbt__RowFilter *c = k ? k[i]
		                         : i == 0 ? f->condition->predicate_filter
		                         : i == 1 ? f->condition->true_filter
		                                  : f->condition->false_filter;
		if (k)
			snprintf(kp, sizeof kp, "%.400s.%s.filters[%zu]", p,
			         f->filter_case == RKBT__ROW_FILTER__FILTER_CHAIN ? "chain" : "interleave",
			         i);
		else
			snprintf(kp, sizeof kp, "%.400s.condition.%s", p, branch[i]);
		if (!k && i == 0 && !c)
			return rk__err(RK_EINVALID, "%s: missing", kp);
		if (!k && i > 0 && !c) { /* an absent branch passes nothing */
			m->a[first + i] = (rk_filter){.kind = RK_FILTER_BLOCK};
			continue;
		}
		int rc = pb_fill(m, first + i, c, kp, depth + 1);
		if (rc)
			return rc;
	}
	return 0;
}

static int pb_fill(fmap *m, size_t slot, const Rkbt__RowFilter *f, const char *p,
                   unsigned depth)
{
	rk_filter *r = &m->a[slot];
	*r = (rk_filter){.kind = RK_FILTER_PASS};
	if (!f)
		return 0;
	switch (f->filter_case) {
	case RKBT__ROW_FILTER__FILTER__NOT_SET:
		return 0; /* an empty filter passes everything */
	case RKBT__ROW_FILTER__FILTER_CHAIN:
		r->kind = RK_FILTER_CHAIN;
		return pb_fill_kids(m, r, f, p, depth);
	case RKBT__ROW_FILTER__FILTER_INTERLEAVE:
		r->kind = RK_FILTER_INTERLEAVE;
		return pb_fill_kids(m, r, f, p, depth);
	case RKBT__ROW_FILTER__FILTER_CONDITION:
		r->kind = RK_FILTER_CONDITION;
		return pb_fill_kids(m, r, f, p, depth);
	case RKBT__ROW_FILTER__FILTER_SINK:
		return pb_flag(r, RK_FILTER_SINK, f->sink, p, "sink");
	case RKBT__ROW_FILTER__FILTER_PASS_ALL_FILTER:
		return pb_flag(r, RK_FILTER_PASS, f->pass_all_filter, p, "pass_all_filter");
	case RKBT__ROW_FILTER__FILTER_BLOCK_ALL_FILTER:
		return pb_flag(r, RK_FILTER_BLOCK, f->block_all_filter, p, "block_all_filter");
	case RKBT__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER:
		return pb_flag(r, RK_FILTER_STRIP_VALUE, f->strip_value_transformer, p,
		               "strip_value_transformer");
	case RKBT__ROW_FILTER__FILTER_ROW_KEY_REGEX_FILTER:
		return pb_pattern(r, RK_FILTER_ROW_KEY_REGEX, &f->row_key_regex_filter);
	case RKBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER:
		*r = (rk_filter){.kind = RK_FILTER_FAMILY_REGEX,
		                 .pattern = (const uint8_t *)f->family_name_regex_filter,
		                 .pattern_len = strlen(f->family_name_regex_filter)};
		return 0;
	case RKBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER:
		return pb_pattern(r, RK_FILTER_QUALIFIER_REGEX, &f->column_qualifier_regex_filter);
	case RKBT__ROW_FILTER__FILTER_VALUE_REGEX_FILTER:
		return pb_pattern(r, RK_FILTER_VALUE_REGEX, &f->value_regex_filter);
	case RKBT__ROW_FILTER__FILTER_ROW_SAMPLE_FILTER:
		*r = (rk_filter){.kind = RK_FILTER_ROW_SAMPLE, .probability = f->row_sample_filter};
		return 0;
	case RKBT__ROW_FILTER__FILTER_COLUMN_RANGE_FILTER:
		return pb_column_range(r, f->column_range_filter);
	case RKBT__ROW_FILTER__FILTER_VALUE_RANGE_FILTER:
		return pb_value_range(r, f->value_range_filter);
	case RKBT__ROW_FILTER__FILTER_TIMESTAMP_RANGE_FILTER:
		return pb_time_range(r, f->timestamp_range_filter, p);
	case RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_OFFSET_FILTER:
		return pb_count_arg(r, RK_FILTER_ROW_OFFSET, f->cells_per_row_offset_filter, p,
		                    "cells_per_row_offset_filter");
	case RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_LIMIT_FILTER:
		return pb_count_arg(r, RK_FILTER_ROW_LIMIT, f->cells_per_row_limit_filter, p,
		                    "cells_per_row_limit_filter");
	case RKBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER:
		return pb_count_arg(r, RK_FILTER_COLUMN_LIMIT, f->cells_per_column_limit_filter, p,
		                    "cells_per_column_limit_filter");
	case RKBT__ROW_FILTER__FILTER_APPLY_LABEL_TRANSFORMER:
		*r = (rk_filter){.kind = RK_FILTER_LABEL, .label = f->apply_label_transformer};
		return 0;
	case RKBT__ROW_FILTER__FILTER_VALUE_BITMASK_FILTER:
		*m->unsupported = 1;
		return rk__err(RK_EINVALID, "%s.value_bitmask_filter: not supported", p);
	default:
		*m->unsupported = 1;
		return rk__err(RK_EINVALID, "%s: RowFilter field %d is not supported", p,
		               (int)f->filter_case);
	}
}

int rk_bt__filter_from_pb(rk_filter **out, int *unsupported, const Rkbt__RowFilter *f,
                          const char *path)
{
	*out = NULL;
	*unsupported = 0;
	size_t n = pb_count(f, 1);
	if (n > RK_FILTER_MAX_NODES)
		return rk__err(RK_EINVALID, "%s: more than %u filters", path, RK_FILTER_MAX_NODES);
	fmap m = {calloc(n, sizeof(rk_filter)), 1, unsupported};
	if (!m.a)
		return rk__err(RK_ENOMEM, "%s: out of memory", path);
	int rc = pb_fill(&m, 0, f, path, 1);
	if (rc) {
		free(m.a);
		return rc;
	}
	*out = m.a;
	return 0;
}

void rk_bt__filter_pb_free(Rkbt__RowFilter *f)
{
	if (!f)
		return;
	switch (f->filter_case) {
	case RKBT__ROW_FILTER__FILTER_CHAIN:
	case RKBT__ROW_FILTER__FILTER_INTERLEAVE: {
		size_t n;
		Rkbt__RowFilter *const *k = pb_kids(f, &n);
		for (size_t i = 0; i < n; i++)
			rk_bt__filter_pb_free(k[i]);
		free((void *)k);
		free(f->chain); /* chain and interleave share the oneof */
		break;
	}
	case RKBT__ROW_FILTER__FILTER_CONDITION:
		if (f->condition) {
			rk_bt__filter_pb_free(f->condition->predicate_filter);
			rk_bt__filter_pb_free(f->condition->true_filter);
			rk_bt__filter_pb_free(f->condition->false_filter);
			free(f->condition);
		}
		break;
	case RKBT__ROW_FILTER__FILTER_COLUMN_RANGE_FILTER:
		free(f->column_range_filter);
		break;
	case RKBT__ROW_FILTER__FILTER_VALUE_RANGE_FILTER:
		free(f->value_range_filter);
		break;
	case RKBT__ROW_FILTER__FILTER_TIMESTAMP_RANGE_FILTER:
		free(f->timestamp_range_filter);
		break;
	case RKBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER:
		free(f->family_name_regex_filter);
		break;
	default:
		break;
	}
	free(f);
}

static ProtobufCBinaryData pb_bytes(const uint8_t *p, size_t n)
{
	return (ProtobufCBinaryData){n, (uint8_t *)p};
}

/* The composite filters; f's kids go into new messages. */
static int to_pb_kids(Rkbt__RowFilter *g, const rk_filter *f)
{
	Rkbt__RowFilter **k = calloc(f->nkids ? f->nkids : 1, sizeof *k);
	if (!k)
		return RK_ENOMEM;
	int rc = 0;
	if (f->kind == RK_FILTER_CONDITION) {
		free(k);
		if (!(g->condition = calloc(1, sizeof *g->condition)))
			return RK_ENOMEM;
		rkbt__row_filter__condition__init(g->condition);
		g->filter_case = RKBT__ROW_FILTER__FILTER_CONDITION;
		if ((rc = rk_bt__filter_to_pb(&g->condition->predicate_filter, &f->kids[0])) ||
		    (rc = rk_bt__filter_to_pb(&g->condition->true_filter, &f->kids[1])) ||
		    (rc = rk_bt__filter_to_pb(&g->condition->false_filter, &f->kids[2])))
			return rc;
		return 0;
	}
	Rkbt__RowFilter__Chain *c = calloc(1, sizeof *c); /* Interleave has the same shape */
	if (!c) {
		free(k);
		return RK_ENOMEM;
	}
	rkbt__row_filter__chain__init(c);
	c->filters = k;
	g->filter_case = f->kind == RK_FILTER_CHAIN ? RKBT__ROW_FILTER__FILTER_CHAIN
	                                            : RKBT__ROW_FILTER__FILTER_INTERLEAVE;
	g->chain = c;
	for (size_t i = 0; i < f->nkids && !rc; i++) {
		rc = rk_bt__filter_to_pb(&k[i], &f->kids[i]);
		c->n_filters = i + 1;
	}
	return rc;
}

static int to_pb_range(Rkbt__RowFilter *g, const rk_filter *f)
{
	if (f->kind == RK_FILTER_COLUMN_RANGE) {
		Rkbt__ColumnRange *c = calloc(1, sizeof *c);
		if (!c)
			return RK_ENOMEM;
		rkbt__column_range__init(c);
		c->family_name = (char *)f->family;
		if (f->lo.kind == RK_BOUND_CLOSED)
			c->start_qualifier_case = RKBT__COLUMN_RANGE__START_QUALIFIER_START_QUALIFIER_CLOSED,
			c->start_qualifier_closed = pb_bytes(f->lo.ptr, f->lo.len);
		else if (f->lo.kind == RK_BOUND_OPEN)
			c->start_qualifier_case = RKBT__COLUMN_RANGE__START_QUALIFIER_START_QUALIFIER_OPEN,
			c->start_qualifier_open = pb_bytes(f->lo.ptr, f->lo.len);
		if (f->hi.kind == RK_BOUND_CLOSED)
			c->end_qualifier_case = RKBT__COLUMN_RANGE__END_QUALIFIER_END_QUALIFIER_CLOSED,
			c->end_qualifier_closed = pb_bytes(f->hi.ptr, f->hi.len);
		else if (f->hi.kind == RK_BOUND_OPEN)
			c->end_qualifier_case = RKBT__COLUMN_RANGE__END_QUALIFIER_END_QUALIFIER_OPEN,
			c->end_qualifier_open = pb_bytes(f->hi.ptr, f->hi.len);
		g->filter_case = RKBT__ROW_FILTER__FILTER_COLUMN_RANGE_FILTER;
		g->column_range_filter = c;
		return 0;
	}
	Rkbt__ValueRange *v = calloc(1, sizeof *v);
	if (!v)
		return RK_ENOMEM;
	rkbt__value_range__init(v);
	if (f->lo.kind == RK_BOUND_CLOSED)
		v->start_value_case = RKBT__VALUE_RANGE__START_VALUE_START_VALUE_CLOSED,
		v->start_value_closed = pb_bytes(f->lo.ptr, f->lo.len);
	else if (f->lo.kind == RK_BOUND_OPEN)
		v->start_value_case = RKBT__VALUE_RANGE__START_VALUE_START_VALUE_OPEN,
		v->start_value_open = pb_bytes(f->lo.ptr, f->lo.len);
	if (f->hi.kind == RK_BOUND_CLOSED)
		v->end_value_case = RKBT__VALUE_RANGE__END_VALUE_END_VALUE_CLOSED,
		v->end_value_closed = pb_bytes(f->hi.ptr, f->hi.len);
	else if (f->hi.kind == RK_BOUND_OPEN)
		v->end_value_case = RKBT__VALUE_RANGE__END_VALUE_END_VALUE_OPEN,
		v->end_value_open = pb_bytes(f->hi.ptr, f->hi.len);
	g->filter_case = RKBT__ROW_FILTER__FILTER_VALUE_RANGE_FILTER;
	g->value_range_filter = v;
	return 0;
}

/* Everything but the composites and the ranges. */
static void to_pb_leaf(Rkbt__RowFilter *g, const rk_filter *f)
{
	switch (f->kind) {
	case RK_FILTER_PASS:
		g->filter_case = RKBT__ROW_FILTER__FILTER_PASS_ALL_FILTER;
		g->pass_all_filter = 1;
		break;
	case RK_FILTER_BLOCK:
		g->filter_case = RKBT__ROW_FILTER__FILTER_BLOCK_ALL_FILTER;
		g->block_all_filter = 1;
		break;
	case RK_FILTER_SINK:
		g->filter_case = RKBT__ROW_FILTER__FILTER_SINK;
		g->sink = 1;
		break;
	case RK_FILTER_STRIP_VALUE:
		g->filter_case = RKBT__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER;
		g->strip_value_transformer = 1;
		break;
	case RK_FILTER_ROW_KEY_REGEX:
		g->filter_case = RKBT__ROW_FILTER__FILTER_ROW_KEY_REGEX_FILTER;
		g->row_key_regex_filter = pb_bytes(f->pattern, f->pattern_len);
		break;
	case RK_FILTER_QUALIFIER_REGEX:
		g->filter_case = RKBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER;
		g->column_qualifier_regex_filter = pb_bytes(f->pattern, f->pattern_len);
		break;
	case RK_FILTER_VALUE_REGEX:
		g->filter_case = RKBT__ROW_FILTER__FILTER_VALUE_REGEX_FILTER;
		g->value_regex_filter = pb_bytes(f->pattern, f->pattern_len);
		break;
	case RK_FILTER_ROW_SAMPLE:
		g->filter_case = RKBT__ROW_FILTER__FILTER_ROW_SAMPLE_FILTER;
		g->row_sample_filter = f->probability;
		break;
	case RK_FILTER_ROW_OFFSET:
		g->filter_case = RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_OFFSET_FILTER;
		g->cells_per_row_offset_filter = f->n > INT32_MAX ? INT32_MAX : (int32_t)f->n;
		break;
	case RK_FILTER_ROW_LIMIT:
		g->filter_case = RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_LIMIT_FILTER;
		g->cells_per_row_limit_filter = f->n > INT32_MAX ? INT32_MAX : (int32_t)f->n;
		break;
	case RK_FILTER_COLUMN_LIMIT:
		g->filter_case = RKBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER;
		g->cells_per_column_limit_filter = f->n > INT32_MAX ? INT32_MAX : (int32_t)f->n;
		break;
	case RK_FILTER_LABEL:
		g->filter_case = RKBT__ROW_FILTER__FILTER_APPLY_LABEL_TRANSFORMER;
		g->apply_label_transformer = (char *)f->label;
		break;
	default:
		break;
	}
}

int rk_bt__filter_to_pb(Rkbt__RowFilter **out, const rk_filter *f)
{
	Rkbt__RowFilter *g = calloc(1, sizeof *g);
	int rc = 0;
	*out = NULL;
	if (!g)
		return rk__err(RK_ENOMEM, "out of memory for a filter");
	rkbt__row_filter__init(g);
	switch (f->kind) {
	case RK_FILTER_CHAIN:
	case RK_FILTER_INTERLEAVE:
	case RK_FILTER_CONDITION:
		rc = to_pb_kids(g, f);
		break;
	case RK_FILTER_COLUMN_RANGE:
	case RK_FILTER_VALUE_RANGE:
		rc = to_pb_range(g, f);
		break;
	case RK_FILTER_FAMILY_REGEX: {
		/* a string field: the pattern with a NUL after it */
		char *s = malloc(f->pattern_len + 1);
		if (!s) {
			rc = RK_ENOMEM;
			break;
		}
		memcpy(s, f->pattern, f->pattern_len);
		s[f->pattern_len] = 0;
		g->filter_case = RKBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER;
		g->family_name_regex_filter = s;
		break;
	}
	case RK_FILTER_TIME_RANGE: {
		Rkbt__TimestampRange *t = calloc(1, sizeof *t);
		if (!t) {
			rc = RK_ENOMEM;
			break;
		}
		rkbt__timestamp_range__init(t);
		t->start_timestamp_micros = (int64_t)f->ts_from;
		t->end_timestamp_micros = (int64_t)f->ts_to;
		g->filter_case = RKBT__ROW_FILTER__FILTER_TIMESTAMP_RANGE_FILTER;
		g->timestamp_range_filter = t;
		break;
	}
	default:
		to_pb_leaf(g, f);
	}
	if (rc) {
		rk_bt__filter_pb_free(g);
		return rk__err(RK_ENOMEM, "out of memory for a filter");
	}
	*out = g;
	return 0;
}
