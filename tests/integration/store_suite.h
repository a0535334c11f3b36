/*
 * The store API's behaviour suite, written once and run on every backend:
 * test_store_api.c runs it on the embedded store, test_store_api_bigtable.c
 * on Bigtable through Google's emulator. A case asks the backend `B` for a
 * fresh store and says, where the backends legitimately differ, which way
 * it expects each (the differences are store.h's, and each is printed as
 * "skip: ..." when the case meets it):
 * - timestamps: Bigtable keeps whole milliseconds, so the cases write them
 *   through T() (x microseconds locally, x milliseconds on Bigtable);
 * - reverse scans: RK_EINVALID on Bigtable (not in the API subset);
 * - GC: Bigtable collects on its own (rk_store_collect removes nothing), and
 *   a read-modify-write is stamped by its clock, not the one given.
 * What only one backend has (regions, splits and moves, buffered writes,
 * family changes, metrics; Bigtable's 4 KiB keys, refusals, outages and
 * where it keeps table settings) is tested beside the suite in each file.
 *
 * Header-only: each test includes it once, after defining nothing; it
 * brings the helpers the cases share (put, get1, want_value, ...).
 */
#ifndef RK_TEST_STORE_SUITE_H
#define RK_TEST_STORE_SUITE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "integration/store_test_util.h"

typedef struct suite_backend {
	const char *name;
	/* A fresh, empty store for case `tag`; done closes it and cleans up;
	 * reopen closes and opens the same store again. */
	rk_store *(*open)(const char *tag);
	rk_store *(*reopen)(rk_store *s, const char *tag);
	void (*done)(rk_store *s, const char *tag);
	uint64_t ts_unit; /* microseconds per timestamp unit the cases use */
	int local;        /* the embedded store (reverse scans, its own clock, GC) */
} suite_backend;

static const suite_backend *B;

#define T(x) ((uint64_t)(x) * B->ts_unit)

static void skip_note(const char *what)
{
	printf("skip (%s): %s\n", B->name, what);
}

static const rk_family_def fams[] = {{"cf", 3, NULL}, {"meta", 1, NULL}};

static void create(rk_store *s, const char *name, const char **splits, size_t n, unsigned bpl)
{
	rk_bytes sp[16];
	for (size_t i = 0; i < n; i++)
		sp[i] = (rk_bytes){(const uint8_t *)splits[i], strlen(splits[i])};
	rk_table_def d = {name, fams, 2, sp, n, bpl};
	ST_OK(rk_table_create(s, &d));
}

static void put(rk_table *t, const char *row, const char *fam, const char *q, uint64_t ts,
                const char *v)
{
	ST_OK(rk_table_put(t, (const uint8_t *)row, strlen(row), fam, (const uint8_t *)q, strlen(q),
	                   ts, (const uint8_t *)v, strlen(v)));
}

static void apply1(rk_table *t, rk_mutation_type type, const char *row, const char *fam,
                   const char *q, uint64_t ts_from, uint64_t ts)
{
	rk_mutation m = {type, (const uint8_t *)row, strlen(row), fam, (const uint8_t *)q,
	                 q ? strlen(q) : 0, ts, NULL, 0, ts_from};
	ST_OK(rk_table_apply(t, &m, 1, NULL));
}

/* The value of the newest version of fam:q, or NULL. Caller frees. */
static char *get1(rk_table *t, const char *row, const char *fam, const char *q)
{
	rk_row *r;
	rk_column c = {fam, (const uint8_t *)q, strlen(q)};
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	ro.columns = &c;
	ro.ncolumns = 1;
	int rc = rk_table_get(&r, t, (const uint8_t *)row, strlen(row), &ro);
	if (rc == RK_ENOTFOUND)
		return NULL;
	assert_int_equal(rc, 0);
	assert_int_equal(r->ncells, 1);
	char *v = strndup((const char *)r->cells[0].value, r->cells[0].value_len);
	rk_row_free(r);
	return v;
}

static void want_value(rk_table *t, const char *row, const char *fam, const char *q,
                       const char *want)
{
	char *v = get1(t, row, fam, q);
	if (!want) {
		assert_null(v);
		return;
	}
	assert_non_null(v);
	assert_string_equal(v, want);
	free(v);
}

/* The timestamps of the versions of fam:q, newest first, in units of T()
 * ("40,10"). */
static void want_versions(rk_table *t, const char *row, const char *fam, const char *q,
                          const char *want)
{
	rk_row *r;
	rk_column c = {fam, (const uint8_t *)q, strlen(q)};
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	ro.columns = &c;
	ro.ncolumns = 1;
	ro.max_versions = 100;
	char got[256] = "";
	int rc = rk_table_get(&r, t, (const uint8_t *)row, strlen(row), &ro);
	if (rc != RK_ENOTFOUND) {
		assert_int_equal(rc, 0);
		for (size_t i = 0; i < r->ncells; i++)
			snprintf(got + strlen(got), sizeof got - strlen(got), "%s%llu", i ? "," : "",
			         (unsigned long long)(r->cells[i].ts / B->ts_unit));
		rk_row_free(r);
	}
	assert_string_equal(got, want);
}

static void scan_expect(rk_table *t, const rk_scan_options *so, const char *want)
{
	rk_scan *sc;
	const rk_row *r;
	char got[4096] = "";
	ST_OK(rk_scan_open(&sc, t, so));
	int rc;
	while ((rc = rk_scan_next(&r, sc)) == 0) {
		if (got[0])
			strcat(got, " ");
		strncat(got, (const char *)r->key, r->key_len);
	}
	assert_int_equal(rc, RK_EITEROVER);
	rk_scan_close(sc);
	assert_string_equal(got, want);
}

static uint64_t be64(const uint8_t *v)
{
	uint64_t x = 0;
	for (int i = 0; i < 8; i++)
		x = x << 8 | v[i];
	return x;
}

/* ---- the cases ---- */

/* Puts, versions (a family's limit applied on reads), time ranges, every
 * kind of delete, binary rows. */
static void suite_put_get_versions_deletes(void **state)
{
	(void)state;
	rk_store *s = B->open("versions");
	create(s, "t", NULL, 0, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	put(t, "r1", "cf", "a", T(10), "v10");
	put(t, "r1", "cf", "a", T(20), "v20");
	put(t, "r1", "cf", "a", T(30), "v30");
	put(t, "r1", "cf", "a", T(40), "v40"); /* 4 versions, family keeps 3 */
	put(t, "r1", "cf", "b", 0, "b-now");
	put(t, "r1", "meta", "x", T(5), "m5");
	put(t, "r1", "meta", "x", T(6), "m6");
	want_value(t, "r1", "cf", "a", "v40");
	rk_row *r;
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	ro.max_versions = 10;
	ST_OK(rk_table_get(&r, t, (const uint8_t *)"r1", 2, &ro));
	/* cf:a 40,30,20 (max 3), cf:b, meta:x 6 (max 1) */
	assert_int_equal(r->ncells, 5);
	assert_string_equal(r->cells[0].family, "cf");
	assert_true(r->cells[0].ts == T(40) && r->cells[1].ts == T(30) && r->cells[2].ts == T(20));
	assert_memory_equal(r->cells[3].qualifier, "b", 1);
	assert_true(r->cells[3].ts > 1000000000000000ull); /* assigned: microseconds now */
	assert_int_equal(r->cells[3].ts % B->ts_unit, 0);
	assert_string_equal(r->cells[4].family, "meta");
	assert_true(r->cells[4].ts == T(6));
	rk_row_free(r);
	/* time range [15, 35): 30, 20 */
	ro.min_ts = T(15);
	ro.max_ts = T(35);
	rk_column ca = {"cf", (const uint8_t *)"a", 1};
	ro.columns = &ca;
	ro.ncolumns = 1;
	ST_OK(rk_table_get(&r, t, (const uint8_t *)"r1", 2, &ro));
	assert_int_equal(r->ncells, 2);
	assert_true(r->cells[0].ts == T(30) && r->cells[1].ts == T(20));
	rk_row_free(r);
	/* v10 is past the family's 3 versions: hidden before the time range
	 * applies (store.h), even while Bigtable's lazy GC still keeps it */
	ro.min_ts = T(5);
	ro.max_ts = T(15);
	assert_int_equal(rk_table_get(&r, t, (const uint8_t *)"r1", 2, &ro), RK_ENOTFOUND);
	put(t, "r2", "cf", "a", T(10), "r2v10");
	rk_scan_options tso = RK_SCAN_OPTIONS_INIT;
	tso.read = ro;
	tso.limit = 1;
	scan_expect(t, &tso, "r2"); /* r1 has nothing visible: skipped, not counted */
	ST_OK(rk_table_delete(t, (const uint8_t *)"r2", 2, NULL, NULL, 0, 0));
	/* delete one version, a column up to 30, a family, a row */
	rk_mutation m = {RK_MUT_DELETE_CELL, (const uint8_t *)"r1", 2, "cf", (const uint8_t *)"a", 1,
	                 T(40), NULL, 0, 0};
	ST_OK(rk_table_apply(t, &m, 1, NULL));
	want_value(t, "r1", "cf", "a", "v30");
	ST_OK(rk_table_delete(t, (const uint8_t *)"r1", 2, "cf", (const uint8_t *)"a", 1, T(30)));
	want_value(t, "r1", "cf", "a", NULL);
	put(t, "r1", "cf", "a", T(31), "v31");
	want_value(t, "r1", "cf", "a", "v31");
	ST_OK(rk_table_delete(t, (const uint8_t *)"r1", 2, "cf", NULL, 0, 0));
	want_value(t, "r1", "cf", "b", NULL);
	want_value(t, "r1", "meta", "x", "m6");
	put(t, "r1", "cf", "b", 0, "after");
	want_value(t, "r1", "cf", "b", "after");
	ST_OK(rk_table_delete(t, (const uint8_t *)"r1", 2, NULL, NULL, 0, 0));
	assert_int_equal(rk_table_get(&r, t, (const uint8_t *)"r1", 2, NULL), RK_ENOTFOUND);
	assert_non_null(strstr(rk_error_last(), "r1"));
	/* binary rows with zero bytes */
	const uint8_t brow[] = {0, 1, 0, 0xFF};
	ST_OK(rk_table_put(t, brow, 4, "cf", NULL, 0, 0, (const uint8_t *)"z", 1));
	ST_OK(rk_table_get(&r, t, brow, 4, NULL));
	assert_int_equal(r->key_len, 4);
	assert_memory_equal(r->key, brow, 4);
	assert_int_equal(r->cells[0].qualifier_len, 0);
	rk_row_free(r);
	rk_table_close(t);
	B->done(s, "versions");
}

/* Deletes are ordered by when they apply, not by timestamp: a delete
 * removes what exists, a write after it shows whatever its timestamp, in
 * one batch as across calls; column time ranges. (Family and row deletes
 * with a time range are the local store's: Bigtable deletes their every
 * version.) */
static void suite_delete_order(void **state)
{
	(void)state;
	rk_store *s = B->open("delorder");
	rk_family_def f5[] = {{"cf", 5, NULL}};
	rk_table_def d = {"t", f5, 1, NULL, 0, 0};
	ST_OK(rk_table_create(s, &d));
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	put(t, "a", "cf", "x", T(100), "new");
	apply1(t, RK_MUT_DELETE_COLUMN, "a", "cf", "x", 0, 0);
	put(t, "a", "cf", "x", T(50), "older-ts-after");
	want_value(t, "a", "cf", "x", "older-ts-after");
	put(t, "b", "cf", "x", T(100), "v");
	apply1(t, RK_MUT_DELETE_ROW, "b", NULL, NULL, 0, 0);
	put(t, "b", "cf", "x", T(7), "after-row-delete");
	want_value(t, "b", "cf", "x", "after-row-delete");
	put(t, "c", "cf", "y", T(9), "y9");
	apply1(t, RK_MUT_DELETE_FAMILY, "c", "cf", NULL, 0, 0);
	put(t, "c", "cf", "y", T(8), "after-family-delete");
	want_value(t, "c", "cf", "y", "after-family-delete");
	/* in one batch: [put a, delete row, put b] leaves b, as Bigtable */
	rk_mutation batch[] = {
		{RK_MUT_PUT, (const uint8_t *)"d", 1, "cf", (const uint8_t *)"x", 1, T(10),
		 (const uint8_t *)"a", 1, 0},
		{RK_MUT_DELETE_ROW, (const uint8_t *)"d", 1, NULL, NULL, 0, 0, NULL, 0, 0},
		{RK_MUT_PUT, (const uint8_t *)"d", 1, "cf", (const uint8_t *)"x", 1, T(5),
		 (const uint8_t *)"b", 1, 0},
		{RK_MUT_PUT, (const uint8_t *)"d", 1, "cf", (const uint8_t *)"z", 1, T(3),
		 (const uint8_t *)"z", 1, 0},
		{RK_MUT_DELETE_COLUMN, (const uint8_t *)"d", 1, "cf", (const uint8_t *)"z", 1, T(3),
		 NULL, 0, T(3)},
	};
	ST_OK(rk_table_apply(t, batch, 5, NULL));
	want_versions(t, "d", "cf", "x", "5");
	want_versions(t, "d", "cf", "z", "");
	/* a column's time range [20, 30] */
	for (uint64_t ts = 10; ts <= 40; ts += 10)
		put(t, "e", "cf", "x", T(ts), "v");
	apply1(t, RK_MUT_DELETE_COLUMN, "e", "cf", "x", T(20), T(30));
	want_versions(t, "e", "cf", "x", "40,10");
	put(t, "e", "cf", "x", T(20), "back");
	want_versions(t, "e", "cf", "x", "40,20,10");
	rk_table_close(t);
	B->done(s, "delorder");
}

/* A batch with a bad entry writes nothing and says which entry; bad tables,
 * families, reads. */
static void suite_bad_input_writes_nothing(void **state)
{
	(void)state;
	rk_store *s = B->open("bad");
	create(s, "t", NULL, 0, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	static uint8_t big[RK_MAX_ROW_LEN + 1];
	rk_mutation m[3] = {
		{RK_MUT_PUT, (const uint8_t *)"ok", 2, "cf", NULL, 0, 0, (const uint8_t *)"v", 1, 0},
		{RK_MUT_PUT, (const uint8_t *)"x", 1, "nofam", NULL, 0, 0, (const uint8_t *)"v", 1, 0},
		{RK_MUT_PUT, big, sizeof big, "cf", NULL, 0, 0, (const uint8_t *)"v", 1, 0},
	};
	int res[3];
	assert_int_equal(rk_table_apply(t, m, 3, res), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "nofam"));
	assert_non_null(strstr(rk_error_last(), "table t"));
	assert_int_equal(res[0], 0);
	assert_int_equal(res[1], RK_EINVALID);
	assert_int_equal(res[2], RK_ETOOLONG);
	rk_row *r;
	assert_int_equal(rk_table_get(&r, t, (const uint8_t *)"ok", 2, NULL), RK_ENOTFOUND);
	rk_mutation dc = {RK_MUT_DELETE_CELL, (const uint8_t *)"ok", 2, "cf", NULL, 0, 0, NULL, 0, 0};
	assert_int_equal(rk_table_apply(t, &dc, 1, NULL), RK_EINVALID);
	rk_mutation empty = {RK_MUT_PUT, (const uint8_t *)"", 0, "cf", NULL, 0, 0, NULL, 0, 0};
	assert_int_equal(rk_table_apply(t, &empty, 1, NULL), RK_EINVALID);
	rk_mutation range = {RK_MUT_DELETE_COLUMN, (const uint8_t *)"ok", 2, "cf", NULL, 0, T(5),
	                     NULL, 0, T(9)};
	assert_int_equal(rk_table_apply(t, &range, 1, NULL), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "empty time range"));
	rk_family_def bf[] = {{"bad fam", 1, NULL}};
	rk_table_def d = {"t2", bf, 1, NULL, 0, 0};
	assert_int_equal(rk_table_create(s, &d), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "bad fam"));
	rk_family_def gf[] = {{"f", 1, NULL}};
	rk_bytes sp[] = {{(const uint8_t *)"b", 1}, {(const uint8_t *)"a", 1}};
	rk_table_def d2 = {"t2", gf, 1, sp, 2, 0};
	assert_int_equal(rk_table_create(s, &d2), RK_EINVALID);
	rk_table_def d3 = {"t", gf, 1, NULL, 0, 0};
	assert_int_equal(rk_table_create(s, &d3), RK_EEXISTS);
	rk_table *t2;
	assert_int_equal(rk_table_open(&t2, s, "nope"), RK_ENOTFOUND);
	assert_non_null(strstr(rk_error_last(), "nope"));
	assert_int_equal(rk_table_drop(s, "t"), RK_EBUSY);
	rk_column bc = {"zz", NULL, 0};
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	ro.columns = &bc;
	ro.ncolumns = 1;
	assert_int_equal(rk_table_get(&r, t, (const uint8_t *)"ok", 2, &ro), RK_EINVALID);
	assert_true(rk_table_has_family(t, "cf") && !rk_table_has_family(t, "zz"));
	rk_table_close(t);
	B->done(s, "bad");
}

/* Scans over a table of several regions: ranges, limits, prefixes, columns,
 * reverse (refused on Bigtable), a drop and a table made again. */
static void suite_scans(void **state)
{
	(void)state;
	rk_store *s = B->open("scans");
	const char *splits[] = {"b", "d", "f"};
	create(s, "t", splits, 3, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	const char *rows[] = {"a1", "a2", "b", "b1", "c", "d", "e1", "e2", "f", "g"};
	for (size_t i = 0; i < 10; i++)
		put(t, rows[i], "cf", "q", 0, rows[i]);
	ST_OK(rk_table_delete(t, (const uint8_t *)"c", 1, NULL, NULL, 0, 0)); /* gone row */
	put(t, "e2", "meta", "m", 0, "only-meta");
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_scan *sc;
	scan_expect(t, &so, "a1 a2 b b1 d e1 e2 f g");
	so.start = (const uint8_t *)"a2";
	so.start_len = 2;
	so.stop = (const uint8_t *)"e2";
	so.stop_len = 2;
	so.reverse = 1;
	if (B->local) {
		scan_expect(t, &so, "e1 d b1 b a2");
	} else {
		skip_note("reverse scans: RK_EINVALID (no ReadRowsRequest.reversed)");
		assert_int_equal(rk_scan_open(&sc, t, &so), RK_EINVALID);
		assert_non_null(strstr(rk_error_last(), "not supported by Bigtable"));
	}
	so.reverse = 0;
	scan_expect(t, &so, "a2 b b1 d e1");
	so.limit = 3;
	scan_expect(t, &so, "a2 b b1");
	so = (rk_scan_options)RK_SCAN_OPTIONS_INIT;
	so.prefix = (const uint8_t *)"e";
	so.prefix_len = 1;
	scan_expect(t, &so, "e1 e2");
	so = (rk_scan_options)RK_SCAN_OPTIONS_INIT;
	rk_column mc = {"meta", NULL, 0};
	so.read.columns = &mc;
	so.read.ncolumns = 1;
	scan_expect(t, &so, "e2");
	/* overlapping columns (a family and one of its columns): each cell once */
	rk_column both[] = {{"cf", (const uint8_t *)"q", 1}, {"cf", NULL, 0}};
	rk_row *r;
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	ro.columns = both;
	ro.ncolumns = 2;
	ST_OK(rk_table_get(&r, t, (const uint8_t *)"e2", 2, &ro));
	assert_int_equal(r->ncells, 1);
	rk_row_free(r);
	so = (rk_scan_options)RK_SCAN_OPTIONS_INIT;
	so.start = (const uint8_t *)"x";
	so.start_len = 1;
	scan_expect(t, &so, "");
	so.stop = (const uint8_t *)"a";
	so.stop_len = 1;
	scan_expect(t, &so, "");
	/* the store opened again sees the same */
	rk_table_close(t);
	s = B->reopen(s, "scans");
	ST_OK(rk_table_open(&t, s, "t"));
	so = (rk_scan_options)RK_SCAN_OPTIONS_INIT;
	scan_expect(t, &so, "a1 a2 b b1 d e1 e2 f g");
	ST_OK(rk_store_check(NULL, s, NULL, NULL));
	rk_table_close(t);
	/* drop removes the table and its cells */
	ST_OK(rk_table_drop(s, "t"));
	assert_int_equal(rk_table_open(&t, s, "t"), RK_ENOTFOUND);
	assert_int_equal(rk_table_drop(s, "t"), RK_ENOTFOUND);
	create(s, "t", NULL, 0, 0);
	ST_OK(rk_table_open(&t, s, "t"));
	scan_expect(t, &so, "");
	rk_table_info *ti;
	size_t n;
	ST_OK(rk_table_list(&ti, &n, s));
	assert_int_equal(n, 1);
	assert_string_equal(ti[0].name, "t");
	assert_int_equal(ti[0].nfamilies, 2);
	assert_string_equal(ti[0].families[0].name, "cf");
	assert_int_equal(ti[0].families[0].max_versions, 3);
	assert_int_equal(ti[0].families[1].max_versions, 1);
	rk_table_info_free(ti, n);
	rk_table_close(t);
	B->done(s, "scans");
}

/* Row filters on reads: the store runs them on any backend; a scan's limit
 * counts the rows a filter leaves; labels come back on the cells. */
static void suite_filters(void **state)
{
	(void)state;
	rk_store *s = B->open("filters");
	const char *splits[] = {"m"};
	create(s, "t", splits, 1, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	const char *rows[] = {"a", "b", "c", "x", "y", "z"};
	for (size_t i = 0; i < 6; i++) {
		put(t, rows[i], "cf", "q", T(10), i % 2 ? "odd" : "even");
		put(t, rows[i], "meta", "n", T(10), rows[i]);
	}
	rk_filter kids[] = {{.kind = RK_FILTER_VALUE_REGEX, .pattern = (const uint8_t *)"odd",
	                     .pattern_len = 3},
	                    {.kind = RK_FILTER_LABEL, .label = "odd"}};
	rk_filter chain = {.kind = RK_FILTER_CHAIN, .kids = kids, .nkids = 2};
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	so.read.filter = &chain;
	so.limit = 2;
	rk_scan *sc;
	ST_OK(rk_scan_open(&sc, t, &so));
	const rk_row *r;
	char got[64] = "";
	while (rk_scan_next(&r, sc) == 0) {
		assert_int_equal(r->ncells, 1);
		assert_string_equal(r->cells[0].label, "odd");
		snprintf(got + strlen(got), sizeof got - strlen(got), "%.*s", (int)r->key_len,
		         (const char *)r->key);
	}
	rk_scan_close(sc);
	assert_string_equal(got, "bx"); /* b, x, z are odd; the limit takes two */
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	ro.filter = &chain;
	rk_row *one;
	assert_int_equal(rk_table_get(&one, t, (const uint8_t *)"a", 1, &ro), RK_ENOTFOUND);
	ST_OK(rk_table_get(&one, t, (const uint8_t *)"z", 1, &ro));
	assert_int_equal(one->ncells, 1);
	assert_string_equal(one->cells[0].label, "odd");
	rk_row_free(one);
	/* a bad filter is refused naming it, on a get and a scan */
	rk_filter bad = {.kind = RK_FILTER_VALUE_REGEX, .pattern = (const uint8_t *)"(",
	                 .pattern_len = 1};
	ro.filter = &bad;
	assert_int_equal(rk_table_get(&one, t, (const uint8_t *)"z", 1, &ro), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "filter.value_regex_filter: bad RE2 pattern"));
	so.read.filter = &bad;
	assert_int_equal(rk_scan_open(&sc, t, &so), RK_EINVALID);
	rk_table_close(t);
	B->done(s, "filters");
}

/* Check-and-mutate: the predicate decides the branch, the branch applies
 * in order (deletes ordered as in rk_table_apply), a bad mutation in either
 * branch writes nothing. */
static void suite_check_and_mutate(void **state)
{
	(void)state;
	rk_store *s = B->open("cam");
	create(s, "t", NULL, 0, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	put(t, "r", "cf", "v", T(10), "old");
	rk_filter is_old = {.kind = RK_FILTER_VALUE_REGEX, .pattern = (const uint8_t *)"old",
	                    .pattern_len = 3};
	rk_mutation yes[] = {
		{RK_MUT_DELETE_COLUMN, NULL, 0, "cf", (const uint8_t *)"v", 1, RK_TS_MAX, NULL, 0, 0},
		{RK_MUT_PUT, NULL, 0, "cf", (const uint8_t *)"v", 1, T(5), (const uint8_t *)"new", 3, 0}};
	rk_mutation no[] = {{RK_MUT_PUT, NULL, 0, "meta", (const uint8_t *)"miss", 4, 0,
	                     (const uint8_t *)"1", 1, 0}};
	int matched = -1;
	ST_OK(rk_table_check_and_mutate(&matched, t, (const uint8_t *)"r", 1, &is_old, yes, 2, no,
	                                1));
	assert_int_equal(matched, 1);
	want_versions(t, "r", "cf", "v", "5"); /* old gone; new written after, though older */
	want_value(t, "r", "meta", "miss", NULL);
	ST_OK(rk_table_check_and_mutate(&matched, t, (const uint8_t *)"r", 1, &is_old, yes, 2, no,
	                                1));
	assert_int_equal(matched, 0);
	want_value(t, "r", "meta", "miss", "1");
	/* no predicate: whether the row has a cell */
	ST_OK(rk_table_check_and_mutate(&matched, t, (const uint8_t *)"nobody", 6, NULL, NULL, 0, no,
	                                1));
	assert_int_equal(matched, 0);
	want_value(t, "nobody", "meta", "miss", "1");
	ST_OK(rk_table_check_and_mutate(&matched, t, (const uint8_t *)"nobody", 6, NULL, NULL, 0, no,
	                                1));
	assert_int_equal(matched, 1);
	/* a bad mutation in the branch not taken still refuses the call */
	rk_mutation bad[] = {{RK_MUT_PUT, NULL, 0, "nofam", NULL, 0, 0, NULL, 0, 0}};
	assert_int_equal(rk_table_check_and_mutate(&matched, t, (const uint8_t *)"r", 1, &is_old,
	                                           bad, 1, no, 1),
	                 RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "nofam"));
	rk_table_close(t);
	B->done(s, "cam");
}

/* Read-modify-write: increments and appends on the newest value, a rule
 * seeing an earlier rule's result, the new version's timestamp, and the
 * refusals. */
static void suite_read_modify_write(void **state)
{
	(void)state;
	rk_store *s = B->open("rmw");
	create(s, "t", NULL, 0, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	rk_rmw_rule rules[] = {
		{RK_RMW_INCREMENT, "cf", (const uint8_t *)"n", 1, NULL, 0, 5},
		{RK_RMW_APPEND, "cf", (const uint8_t *)"s", 1, (const uint8_t *)"ab", 2, 0},
		{RK_RMW_INCREMENT, "cf", (const uint8_t *)"n", 1, NULL, 0, -2},
	};
	rk_row *r;
	ST_OK(rk_table_read_modify_write(&r, t, (const uint8_t *)"c", 1, rules, 3, T(100)));
	assert_int_equal(r->ncells, 2); /* n, s: in row order, one per column */
	assert_memory_equal(r->cells[0].qualifier, "n", 1);
	assert_int_equal(be64(r->cells[0].value), 3);
	assert_int_equal(r->cells[1].value_len, 2);
	if (B->local)
		assert_true(r->cells[0].ts == T(100));
	else
		skip_note("read-modify-write timestamps: the service's clock, not the one given");
	rk_row_free(r);
	put(t, "c", "cf", "s", 4000000000000000ull, "x"); /* a newer version: it is replaced */
	ST_OK(rk_table_read_modify_write(&r, t, (const uint8_t *)"c", 1, &rules[1], 1, T(200)));
	assert_true(r->cells[0].ts == 4000000000000000ull);
	assert_memory_equal(r->cells[0].value, "xab", 3);
	rk_row_free(r);
	ST_OK(rk_table_read_modify_write(&r, t, (const uint8_t *)"c", 1, rules, 1, 0));
	assert_int_equal(be64(r->cells[0].value), 8);
	assert_true(r->cells[0].ts > 1000000000000000ull); /* the clock */
	rk_row_free(r);
	/* an increment of a value that is not 8 bytes; an unknown family */
	rk_rmw_rule inc_s = {RK_RMW_INCREMENT, "cf", (const uint8_t *)"s", 1, NULL, 0, 1};
	int rc = rk_table_read_modify_write(&r, t, (const uint8_t *)"c", 1, &inc_s, 1, 0);
	if (B->local || rc == RK_EINVALID) {
		assert_int_equal(rc, RK_EINVALID);
	} else {
		/* the emulator answers UNKNOWN ("increment on non-64-bit value");
		 * Bigtable INVALID_ARGUMENT: refused either way */
		skip_note("an increment of a value not 8 bytes: the emulator's status is UNKNOWN");
		assert_int_equal(rc, RK_EIO);
		assert_non_null(strstr(rk_error_last(), "64-bit"));
	}
	rk_rmw_rule nofam = {RK_RMW_APPEND, "nope", NULL, 0, NULL, 0, 0};
	assert_int_equal(rk_table_read_modify_write(&r, t, (const uint8_t *)"c", 1, &nofam, 1, 0),
	                 RK_EINVALID);
	want_value(t, "c", "cf", "s", "xab");
	rk_table_close(t);
	B->done(s, "rmw");
}

/* GC rules as given: versions, age, unions and intersections, nested, kept
 * and listed as they were given, applied on reads at once; collecting does
 * not change what reads see. */
static void suite_gc_rules(void **state)
{
	(void)state;
	rk_store *s = B->open("gc");
	const uint64_t H = 3600ull * 1000000u;
	rk_gc_rule v1 = {RK_GC_VERSIONS, 1, 0, NULL, 0}, v2 = {RK_GC_VERSIONS, 2, 0, NULL, 0};
	rk_gc_rule age = {RK_GC_AGE, 0, H, NULL, 0};
	rk_gc_rule pair[] = {v1, age};
	rk_gc_rule uni = {RK_GC_UNION, 0, 0, pair, 2}, inter = {RK_GC_INTERSECTION, 0, 0, pair, 2};
	rk_gc_rule nested_in[] = {inter, v2};
	rk_gc_rule nested = {RK_GC_UNION, 0, 0, nested_in, 2};
	rk_gc_rule none = {RK_GC_NONE, 0, 0, NULL, 0};
	rk_family_def f[] = {{"age", 0, &age}, {"i", 0, &inter}, {"n", 0, &none},
	                     {"nest", 0, &nested}, {"u", 0, &uni}, {"v2", 2, NULL}};
	rk_table_def d = {"t", f, 6, NULL, 0, 0};
	ST_OK(rk_table_create(s, &d));
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	struct timespec now_ts;
	clock_gettime(CLOCK_REALTIME, &now_ts);
	uint64_t now = (uint64_t)now_ts.tv_sec * 1000000u;
	uint64_t ts[] = {now - 3 * H, now - 2 * H, now - H / 6, now};
	for (size_t k = 0; k < 6; k++)
		for (size_t i = 0; i < 4; i++)
			put(t, "r", f[k].name, "q", ts[i], "v");
	/* what each keeps of the 4 versions: the newest 2 (age), 2 (intersection:
	 * old and not the newest), 4 (none), 2 (nest), 1 (union), 2 (versions) */
	static const size_t kept[] = {2, 2, 4, 2, 1, 2};
	for (size_t k = 0; k < 6; k++) {
		char want[128] = "";
		for (size_t i = 0; i < kept[k]; i++)
			snprintf(want + strlen(want), sizeof want - strlen(want), "%s%llu", i ? "," : "",
			         (unsigned long long)(ts[3 - i] / B->ts_unit));
		want_versions(t, "r", f[k].name, "q", want);
	}
	rk_table_close(t);
	rk_table_info *ti;
	size_t n;
	ST_OK(rk_table_list(&ti, &n, s));
	assert_int_equal(ti[0].nfamilies, 6);
	const rk_gc_rule *g = ti[0].families[3].gc; /* nest: union(intersection(v1, age), v2) */
	assert_non_null(g);
	assert_int_equal(g->kind, RK_GC_UNION);
	assert_int_equal(g->nrules, 2);
	assert_int_equal(g->rules[0].kind, RK_GC_INTERSECTION);
	assert_int_equal(g->rules[0].rules[0].kind, RK_GC_VERSIONS);
	assert_int_equal(g->rules[0].rules[0].max_versions, 1);
	assert_int_equal(g->rules[0].rules[1].kind, RK_GC_AGE);
	assert_true(g->rules[0].rules[1].max_age_us == H);
	assert_int_equal(g->rules[1].kind, RK_GC_VERSIONS);
	assert_int_equal(g->rules[1].max_versions, 2);
	assert_int_equal(ti[0].families[3].max_versions, 2);
	assert_null(ti[0].families[5].gc); /* v2: a version count */
	assert_int_equal(ti[0].families[5].max_versions, 2);
	assert_null(ti[0].families[2].gc); /* none: every version */
	assert_true(ti[0].families[2].max_versions == UINT32_MAX);
	rk_table_info_free(ti, n);
	size_t removed = 99;
	ST_OK(rk_store_collect(&removed, s));
	if (B->local)
		assert_int_equal(removed, 11); /* 2 + 2 + 0 + 2 + 3 + 2 */
	else
		assert_int_equal(removed, 0); /* the service collects on its own */
	ST_OK(rk_table_open(&t, s, "t"));
	char newest[32];
	snprintf(newest, sizeof newest, "%llu", (unsigned long long)(ts[3] / B->ts_unit));
	want_versions(t, "r", "u", "q", newest);
	rk_table_close(t);
	B->done(s, "gc");
}

/* Table settings persist across a reopen, are per table, and bad keys,
 * unknown tables and oversize values are refused without changing anything. */
static void suite_table_settings(void **state)
{
	(void)state;
	rk_store *s = B->open("props");
	void *v;
	size_t n;
	create(s, "a", NULL, 0, 0);
	create(s, "b", NULL, 0, 0);
	assert_int_equal(rk_store_table_prop_get(&v, &n, s, "a", "schema"), RK_ENOTFOUND);
	assert_non_null(strstr(rk_error_last(), "schema is not set"));
	ST_OK(rk_store_table_prop_set(s, "a", "schema", "fields x:u64; key x", 19));
	ST_OK(rk_store_table_prop_set(s, "a", "note", "one", 3));
	ST_OK(rk_store_table_prop_set(s, "a", "note", "two", 3)); /* replaces */
	assert_int_equal(rk_store_table_prop_set(s, "nosuch", "schema", "x", 1), RK_ENOTFOUND);
	assert_int_equal(rk_store_table_prop_set(s, "a", "Bad Key", "x", 1), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "Bad Key"));
	char *big = calloc(1, 65537);
	assert_int_equal(rk_store_table_prop_set(s, "a", "note", big, 65537), RK_EINVALID);
	free(big);

	s = B->reopen(s, "props");
	ST_OK(rk_store_table_prop_get(&v, &n, s, "a", "schema"));
	assert_int_equal(n, 19);
	assert_string_equal((char *)v, "fields x:u64; key x");
	free(v);
	ST_OK(rk_store_table_prop_get(&v, &n, s, "a", "note"));
	assert_string_equal((char *)v, "two");
	free(v);
	assert_int_equal(rk_store_table_prop_get(&v, &n, s, "b", "schema"), RK_ENOTFOUND);
	ST_OK(rk_store_table_prop_set(s, "a", "note", NULL, 0)); /* removes it */
	ST_OK(rk_store_table_prop_set(s, "b", "schema", "fields y:u64; key y", 19));
	/* wherever the settings are kept, the tables listed are the caller's */
	rk_table_info *ti;
	size_t nt;
	ST_OK(rk_table_list(&ti, &nt, s));
	assert_int_equal(nt, 2);
	assert_string_equal(ti[0].name, "a");
	assert_string_equal(ti[1].name, "b");
	rk_table_info_free(ti, nt);
	ST_OK(rk_table_drop(s, "b"));

	s = B->reopen(s, "props");
	assert_int_equal(rk_store_table_prop_get(&v, &n, s, "a", "note"), RK_ENOTFOUND);
	assert_int_equal(rk_store_table_prop_get(&v, &n, s, "b", "schema"), RK_ENOTFOUND);
	create(s, "b", NULL, 0, 0); /* a new table of an old name starts bare */
	assert_int_equal(rk_store_table_prop_get(&v, &n, s, "b", "schema"), RK_ENOTFOUND);
	/* settings given at creation, in the same step; a bad one: no table */
	rk_table_def d = {"c", fams, 2, NULL, 0, 0};
	rk_table_prop bad[] = {{"owner", "me", 2}, {"Bad Key", "x", 1}};
	assert_int_equal(rk_table_create_with(s, &d, bad, 2), RK_EINVALID);
	rk_table *t;
	assert_int_equal(rk_table_open(&t, s, "c"), RK_ENOTFOUND);
	ST_OK(rk_table_create_with(s, &d, bad, 1));
	s = B->reopen(s, "props");
	ST_OK(rk_store_table_prop_get(&v, &n, s, "c", "owner"));
	assert_string_equal((char *)v, "me");
	free(v);
	B->done(s, "props");
}

#define SUITE_CASES                                                                          \
	cmocka_unit_test(suite_put_get_versions_deletes), cmocka_unit_test(suite_delete_order), \
	        cmocka_unit_test(suite_bad_input_writes_nothing), cmocka_unit_test(suite_scans), \
	        cmocka_unit_test(suite_filters), cmocka_unit_test(suite_check_and_mutate),       \
	        cmocka_unit_test(suite_read_modify_write), cmocka_unit_test(suite_gc_rules),     \
	        cmocka_unit_test(suite_table_settings)

#endif
