/*
 * Row filters (src/store/filter.c) as rowkey serve gets them: a Bigtable
 * RowFilter mapped onto rk_filter (src/store/bigtable/bt_map.c), compiled
 * and run by the store on one fixed row. Every filter kind, nesting, sinks,
 * labels, whole-field RE2 matching on bytes, the work budget, and the
 * refusals (bad regex, unsupported filter, depth, bad arguments) with the
 * gRPC code serve answers and the filter's path in the message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#ifdef RK_WITH_BIGTABLE
#include "key/error.h"
#include "store/bigtable/bt_map.h"
#include "store/filter.h"

/* the row: cf:a @30 @20 @10, cf:b @30, meta:n @5 (a binary value) */
static const rk_cell row[] = {
	{"cf", (const uint8_t *)"a", 1, 30, (const uint8_t *)"v1", 2, NULL},
	{"cf", (const uint8_t *)"a", 1, 20, (const uint8_t *)"v2", 2, NULL},
	{"cf", (const uint8_t *)"a", 1, 10, (const uint8_t *)"v3", 2, NULL},
	{"cf", (const uint8_t *)"b", 1, 30, (const uint8_t *)"x", 1, NULL},
	{"meta", (const uint8_t *)"n", 1, 5, (const uint8_t *)"\x00\xff", 2, NULL},
};
#define NROW (sizeof row / sizeof row[0])

/* Runs f on the row; the result as "cf:a@30=v1[lab] ..." into buf. Returns
 * the gRPC code serve would answer (0 when it compiled): 3 refused, 12 not
 * implemented. */
static int run(const Rkbt__RowFilter *f, char *buf, size_t cap, char *err, size_t errcap)
{
	rk_filter *sf = NULL, pass = {.kind = RK_FILTER_PASS};
	rk__filter *x;
	int unsupported = 0;
	buf[0] = 0;
	if (f && rk_bt__filter_from_pb(&sf, &unsupported, f, "filter") != 0) {
		snprintf(err, errcap, "%s", rk_error_last());
		return unsupported ? 12 : 3;
	}
	if (rk__filter_compile(&x, sf ? sf : &pass) != 0) {
		snprintf(err, errcap, "%s", rk_error_last());
		free(sf);
		return 3;
	}
	rk__cells out = {0};
	assert_int_equal(rk__filter_row(&out, x, (const uint8_t *)"row1", 4, row, NROW), 0);
	for (size_t i = 0; i < out.n; i++) {
		const rk_cell *c = &out.v[i];
		size_t l = strlen(buf);
		char v[16] = "";
		for (size_t k = 0; k < c->value_len && k < 4; k++)
			v[k] = c->value[k] >= 32 && c->value[k] < 127 ? (char)c->value[k] : '?';
		snprintf(buf + l, cap - l, "%s%s:%.*s@%lld=%s%s%s%s", l ? " " : "", c->family,
		         (int)c->qualifier_len, (const char *)c->qualifier, (long long)c->ts, v,
		         c->label ? "[" : "", c->label ? c->label : "", c->label ? "]" : "");
	}
	free(out.v);
	rk__filter_free(x);
	free(sf);
	return 0;
}

static void want(const Rkbt__RowFilter *f, const char *expect)
{
	char buf[1024], err[256];
	assert_int_equal(run(f, buf, sizeof buf, err, sizeof err), 0);
	assert_string_equal(buf, expect);
}

static void refused(const Rkbt__RowFilter *f, int code, const char *in_msg)
{
	char buf[1024], err[256];
	assert_int_equal(run(f, buf, sizeof buf, err, sizeof err), code);
	if (!strstr(err, in_msg))
		fprintf(stderr, "message: %s\n", err);
	assert_non_null(strstr(err, in_msg));
}

#define ALL "cf:a@30=v1 cf:a@20=v2 cf:a@10=v3 cf:b@30=x meta:n@5=??"

static Rkbt__RowFilter F(void)
{
	Rkbt__RowFilter f = RKBT__ROW_FILTER__INIT;
	return f;
}

static ProtobufCBinaryData B(const char *s)
{
	return (ProtobufCBinaryData){strlen(s), (uint8_t *)s};
}

static void test_simple_filters(void **state)
{
	(void)state;
	want(NULL, ALL);
	Rkbt__RowFilter f = F();
	want(&f, ALL); /* an empty filter passes everything */
	f.filter_case = RKBT__ROW_FILTER__FILTER_PASS_ALL_FILTER;
	f.pass_all_filter = 1;
	want(&f, ALL);
	f.filter_case = RKBT__ROW_FILTER__FILTER_BLOCK_ALL_FILTER;
	f.block_all_filter = 1;
	want(&f, "");
	f.filter_case = RKBT__ROW_FILTER__FILTER_ROW_KEY_REGEX_FILTER;
	f.row_key_regex_filter = B("row.*");
	want(&f, ALL);
	f.row_key_regex_filter = B("row"); /* whole key, not a substring */
	want(&f, "");
	f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER;
	f.family_name_regex_filter = "c";
	want(&f, "");
	f.family_name_regex_filter = "m.*";
	want(&f, "meta:n@5=??");
	f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER;
	f.column_qualifier_regex_filter = B("[b-z]");
	want(&f, "cf:b@30=x meta:n@5=??");
	f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_VALUE_REGEX_FILTER;
	f.value_regex_filter = B("\\x00\\C"); /* bytes: \xff is one character */
	want(&f, "meta:n@5=??");
	f.value_regex_filter = B("v[23]");
	want(&f, "cf:a@20=v2 cf:a@10=v3");
	f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_TIMESTAMP_RANGE_FILTER;
	Rkbt__TimestampRange tr = RKBT__TIMESTAMP_RANGE__INIT;
	tr.start_timestamp_micros = 10;
	tr.end_timestamp_micros = 30;
	f.timestamp_range_filter = &tr;
	want(&f, "cf:a@20=v2 cf:a@10=v3");
	tr.end_timestamp_micros = 0; /* no end */
	want(&f, "cf:a@30=v1 cf:a@20=v2 cf:a@10=v3 cf:b@30=x");
	f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_COLUMN_RANGE_FILTER;
	Rkbt__ColumnRange cr = RKBT__COLUMN_RANGE__INIT;
	cr.family_name = "cf";
	cr.start_qualifier_case = RKBT__COLUMN_RANGE__START_QUALIFIER_START_QUALIFIER_CLOSED;
	cr.start_qualifier_closed = B("a");
	cr.end_qualifier_case = RKBT__COLUMN_RANGE__END_QUALIFIER_END_QUALIFIER_OPEN;
	cr.end_qualifier_open = B("b");
	f.column_range_filter = &cr;
	want(&f, "cf:a@30=v1 cf:a@20=v2 cf:a@10=v3");
	cr.start_qualifier_case = RKBT__COLUMN_RANGE__START_QUALIFIER_START_QUALIFIER_OPEN;
	cr.start_qualifier_open = B("a");
	cr.end_qualifier_case = RKBT__COLUMN_RANGE__END_QUALIFIER__NOT_SET;
	want(&f, "cf:b@30=x");
	f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_VALUE_RANGE_FILTER;
	Rkbt__ValueRange vr = RKBT__VALUE_RANGE__INIT;
	vr.start_value_case = RKBT__VALUE_RANGE__START_VALUE_START_VALUE_CLOSED;
	vr.start_value_closed = B("v2");
	vr.end_value_case = RKBT__VALUE_RANGE__END_VALUE_END_VALUE_CLOSED;
	vr.end_value_closed = B("v3");
	f.value_range_filter = &vr;
	want(&f, "cf:a@20=v2 cf:a@10=v3");
	f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_OFFSET_FILTER;
	f.cells_per_row_offset_filter = 3;
	want(&f, "cf:b@30=x meta:n@5=??");
	f.filter_case = RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_LIMIT_FILTER;
	f.cells_per_row_limit_filter = 2;
	want(&f, "cf:a@30=v1 cf:a@20=v2");
	f.filter_case = RKBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER;
	f.cells_per_column_limit_filter = 1;
	want(&f, "cf:a@30=v1 cf:b@30=x meta:n@5=??");
	f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER;
	f.strip_value_transformer = 1;
	want(&f, "cf:a@30= cf:a@20= cf:a@10= cf:b@30= meta:n@5=");
	f.filter_case = RKBT__ROW_FILTER__FILTER_APPLY_LABEL_TRANSFORMER;
	f.apply_label_transformer = "lab-1";
	want(&f, "cf:a@30=v1[lab-1] cf:a@20=v2[lab-1] cf:a@10=v3[lab-1] cf:b@30=x[lab-1] "
	         "meta:n@5=??[lab-1]");
	f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_ROW_SAMPLE_FILTER;
	f.row_sample_filter = 0.5;
	char a[1024], b[1024], err[256];
	assert_int_equal(run(&f, a, sizeof a, err, sizeof err), 0);
	assert_int_equal(run(&f, b, sizeof b, err, sizeof err), 0);
	assert_string_equal(a, b); /* the same rows every time */
	assert_true(!strcmp(a, ALL) || !strcmp(a, ""));
}

static void test_composed_filters(void **state)
{
	(void)state;
	Rkbt__RowFilter fam = F(), lim = F(), meta = F(), qa = F(), pass = F(), strip = F(),
	                lab = F(), sink = F(), qb = F(), pred = F();
	fam.filter_case = RKBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER;
	fam.family_name_regex_filter = "cf";
	lim.filter_case = RKBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER;
	lim.cells_per_column_limit_filter = 2;
	meta.filter_case = RKBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER;
	meta.family_name_regex_filter = "meta";
	qa.filter_case = RKBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER;
	qa.column_qualifier_regex_filter = B("a");
	qb.filter_case = RKBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER;
	qb.column_qualifier_regex_filter = B("b");
	pass.filter_case = RKBT__ROW_FILTER__FILTER_PASS_ALL_FILTER;
	pass.pass_all_filter = 1;
	strip.filter_case = RKBT__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER;
	strip.strip_value_transformer = 1;
	lab.filter_case = RKBT__ROW_FILTER__FILTER_APPLY_LABEL_TRANSFORMER;
	lab.apply_label_transformer = "s";
	sink.filter_case = RKBT__ROW_FILTER__FILTER_SINK;
	sink.sink = 1;
	pred.filter_case = RKBT__ROW_FILTER__FILTER_VALUE_REGEX_FILTER;
	pred.value_regex_filter = B("v2");

	Rkbt__RowFilter *two[2];
	Rkbt__RowFilter__Chain ch = RKBT__ROW_FILTER__CHAIN__INIT;
	ch.n_filters = 2;
	ch.filters = two;
	Rkbt__RowFilter chain = F();
	chain.filter_case = RKBT__ROW_FILTER__FILTER_CHAIN;
	chain.chain = &ch;
	two[0] = &fam;
	two[1] = &lim;
	want(&chain, "cf:a@30=v1 cf:a@20=v2 cf:b@30=x");
	ch.n_filters = 0; /* an empty chain passes everything */
	want(&chain, ALL);

	Rkbt__RowFilter *il[2];
	Rkbt__RowFilter__Interleave in = RKBT__ROW_FILTER__INTERLEAVE__INIT;
	in.n_filters = 2;
	in.filters = il;
	Rkbt__RowFilter inter = F();
	inter.filter_case = RKBT__ROW_FILTER__FILTER_INTERLEAVE;
	inter.interleave = &in;
	il[0] = &meta;
	il[1] = &qa;
	want(&inter, "cf:a@30=v1 cf:a@20=v2 cf:a@10=v3 meta:n@5=??"); /* back in row order */
	il[0] = &pass;
	il[1] = &pass;
	want(&inter, "cf:a@30=v1 cf:a@30=v1 cf:a@20=v2 cf:a@20=v2 cf:a@10=v3 cf:a@10=v3 "
	             "cf:b@30=x cf:b@30=x meta:n@5=?? meta:n@5=??"); /* duplicates kept */

	Rkbt__RowFilter__Condition cd = RKBT__ROW_FILTER__CONDITION__INIT;
	Rkbt__RowFilter cond = F();
	cond.filter_case = RKBT__ROW_FILTER__FILTER_CONDITION;
	cond.condition = &cd;
	cd.predicate_filter = &pred;
	cd.true_filter = &strip;
	cd.false_filter = &meta;
	want(&cond, "cf:a@30= cf:a@20= cf:a@10= cf:b@30= meta:n@5=");
	pred.value_regex_filter = B("nothing");
	want(&cond, "meta:n@5=??");
	cd.false_filter = NULL; /* no branch: nothing */
	want(&cond, "");

	/* a sink: its input goes to the result whatever follows */
	Rkbt__RowFilter *ls[2] = {&lab, &sink};
	Rkbt__RowFilter__Chain lsc = RKBT__ROW_FILTER__CHAIN__INIT;
	lsc.n_filters = 2;
	lsc.filters = ls;
	Rkbt__RowFilter labsink = F();
	labsink.filter_case = RKBT__ROW_FILTER__FILTER_CHAIN;
	labsink.chain = &lsc;
	il[0] = &labsink;
	il[1] = &qb;
	want(&inter, "cf:a@30=v1[s] cf:a@20=v2[s] cf:a@10=v3[s] cf:b@30=x cf:b@30=x[s] "
	             "meta:n@5=??[s]");
	/* a sink inside a condition is refused */
	cd.true_filter = &labsink;
	refused(&cond, 3, "sink cannot be used inside a condition");
}

static void test_refusals(void **state)
{
	(void)state;
	Rkbt__RowFilter f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_VALUE_REGEX_FILTER;
	f.value_regex_filter = B("a(b");
	refused(&f, 3, "filter.value_regex_filter: bad RE2 pattern");
	Rkbt__RowFilter *one[1] = {&f};
	Rkbt__RowFilter__Chain ch = RKBT__ROW_FILTER__CHAIN__INIT;
	ch.n_filters = 1;
	ch.filters = one;
	Rkbt__RowFilter chain = F();
	chain.filter_case = RKBT__ROW_FILTER__FILTER_CHAIN;
	chain.chain = &ch;
	refused(&chain, 3, "filter.chain.filters[0].value_regex_filter");
	f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_LIMIT_FILTER;
	f.cells_per_row_limit_filter = -1;
	refused(&f, 3, "cells_per_row_limit_filter: negative");
	f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_APPLY_LABEL_TRANSFORMER;
	f.apply_label_transformer = "Not OK";
	refused(&f, 3, "apply_label_transformer");
	f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_ROW_SAMPLE_FILTER;
	f.row_sample_filter = 1.5;
	refused(&f, 3, "row_sample_filter");
	f = F();
	f.filter_case = RKBT__ROW_FILTER__FILTER_PASS_ALL_FILTER;
	f.pass_all_filter = 0;
	refused(&f, 3, "must be true");
	/* a filter rowkey does not implement: refused by name */
	static const uint8_t bitmask[] = {0xa2, 0x01, 0x00}; /* value_bitmask_filter = 20 */
	Rkbt__RowFilter *u = rkbt__row_filter__unpack(NULL, sizeof bitmask, bitmask);
	assert_non_null(u);
	refused(u, 12, "filter.value_bitmask_filter: not supported");
	rkbt__row_filter__free_unpacked(u, NULL);
	/* nesting deeper than RK_FILTER_MAX_DEPTH */
	enum { DEEP = 200 };
	Rkbt__RowFilter deep[DEEP];
	Rkbt__RowFilter__Chain dc[DEEP];
	Rkbt__RowFilter *dl[DEEP];
	for (int i = 0; i < DEEP; i++) {
		deep[i] = F();
		rkbt__row_filter__chain__init(&dc[i]);
		if (i + 1 < DEEP) {
			dl[i] = &deep[i + 1];
			dc[i].n_filters = 1;
			dc[i].filters = &dl[i];
			deep[i].filter_case = RKBT__ROW_FILTER__FILTER_CHAIN;
			deep[i].chain = &dc[i];
		}
	}
	refused(&deep[0], 3, "nested deeper");
	want(&deep[DEEP - RK_FILTER_MAX_DEPTH], ALL); /* exactly the limit is fine */
}

/* A chain of interleaves, each doubling the cells: the row's budget stops
 * it (RK_ETOOLONG) long before 2^40 cells, though the filter is small. */
static void test_budget(void **state)
{
	(void)state;
	enum { LEVELS = 40 };
	rk_filter pass = {.kind = RK_FILTER_PASS}, pair[2] = {pass, pass}, il[LEVELS];
	for (int i = 0; i < LEVELS; i++)
		il[i] = (rk_filter){.kind = RK_FILTER_INTERLEAVE, .kids = pair, .nkids = 2};
	rk_filter chain = {.kind = RK_FILTER_CHAIN, .kids = il, .nkids = LEVELS};
	rk__filter *x;
	assert_int_equal(rk__filter_compile(&x, &chain), 0);
	rk__cells out = {0};
	assert_int_equal(rk__filter_row(&out, x, (const uint8_t *)"row1", 4, row, NROW),
	                 RK_ETOOLONG);
	assert_non_null(strstr(rk_error_last(), "interleaves"));
	free(out.v);
	rk__filter_free(x);
	/* two levels are fine: each cell four times */
	chain.nkids = 2;
	assert_int_equal(rk__filter_compile(&x, &chain), 0);
	assert_int_equal(rk__filter_row(&out, x, (const uint8_t *)"row1", 4, row, NROW), 0);
	assert_int_equal(out.n, 4 * NROW);
	free(out.v);
	rk__filter_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simple_filters),
		cmocka_unit_test(test_composed_filters),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
int main(void)
{
	return 77; /* without the Bigtable backend there is no RowFilter to map */
}
#endif
