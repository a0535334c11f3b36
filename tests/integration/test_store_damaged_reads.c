/*
 * Every read path over a table block with one flipped bit: a read that
 * reaches the damaged block fails naming the table file, and no path
 * returns the rows around it without the block's own rows. LevelDB's
 * iterator steps over a block it cannot read and only records the error,
 * so a read that stops early (a limit) or moves backwards saw the rows on
 * both sides and nothing in between; these tests catch that. Point gets,
 * limited, reverse and prefix scans, queries (one range, and merged
 * buckets), and the splits the analyzer's store run makes at batch
 * boundaries (rk_store_split_due) and the moves of its balancer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <rowkey/query.h>

#include "integration/integrity_util.h"

#define VLEN 100
#define NROWS 2000

static rk_store_options opts1(void)
{
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.n_servers = 2; /* the table's one region, and every row, on server 0 */
	o.background_splits = 0;
	o.split_threshold = 0;
	return o;
}

/* Flips a bit of a data block of the newest table file of server 0, at
 * `frac` of its size (the data blocks come first; values do not compress,
 * so they are stored as written). Returns the file's path. */
static void flip_table(char *ldb, size_t cap, const char *dir, double frac)
{
	char rs[4200];
	snprintf(rs, sizeof rs, "%s/rs-000", dir);
	assert_int_equal(it_newest(ldb, cap, rs, ".ldb"), 0);
	long size = it_file_size(ldb);
	assert_true(size > 100000);
	it_flip(ldb, (long)(size * frac), 0x10);
}

/* Reopens the store (the open replays the log into a table file), then
 * flips a bit of that file at frac of it. */
static void replay_and_flip(const char *dir, char *ldb, size_t cap, double frac)
{
	rk_store *s;
	rk_store_options o = opts1();
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_store_close(s));
	flip_table(ldb, cap, dir, frac);
}

/* A one-server store holding rows [0, NROWS) of table "t" in one table file
 * (reopened once: the open replays the log into it), one bit flipped at
 * frac of it. The caller frees the path. */
static char *damaged_store(const char *tag, double frac, char *ldb, size_t cap)
{
	char *dir = st_tmpdir(tag);
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts1();
	ST_OK(rk_store_open(&s, dir, &o));
	it_create(s);
	ST_OK(rk_table_open(&t, s, "t"));
	it_write(t, 0, NROWS, 50, VLEN);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	replay_and_flip(dir, ldb, cap, frac);
	return dir;
}

/* Runs a scan to its end: every row it returns must be the next one in
 * order (forward from `first`, or backwards), with its right value; the
 * scan must end in RK_ECORRUPT naming the file. */
static void scan_fails_without_gap(rk_table *t, const rk_scan_options *so, long first,
                                   const char *ldb)
{
	rk_scan *sc;
	const rk_row *r;
	int rc;
	long want = first, step = so->reverse ? -1 : 1;
	uint64_t n = 0;
	ST_OK(rk_scan_open(&sc, t, so));
	while ((rc = rk_scan_next(&r, sc)) == 0) {
		char row[32];
		uint8_t v[VLEN];
		it_row(row, sizeof row, (uint64_t)want);
		it_value(v, VLEN, (uint64_t)want);
		if (r->key_len != strlen(row) || memcmp(r->key, row, r->key_len))
			fail_msg("row %llu of the scan is '%.*s', expected %s: rows skipped",
			         (unsigned long long)n, (int)r->key_len, (const char *)r->key, row);
		assert_int_equal(r->cells[0].value_len, VLEN);
		assert_memory_equal(r->cells[0].value, v, VLEN);
		want += step;
		n++;
	}
	rk_scan_close(sc);
	assert_int_equal(rc, RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), strrchr(ldb, '/') + 1));
	assert_non_null(strstr(rk_error_last(), "table t"));
	assert_true(n < NROWS);
}

/* A store damaged at frac; scan so must fail without a gap from `first`. */
static void damaged_scan(const char *tag, double frac, const rk_scan_options *so, long first)
{
	char ldb[4400];
	char *dir = damaged_store(tag, frac, ldb, sizeof ldb);
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts1();
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_table_open(&t, s, "t"));
	scan_fails_without_gap(t, so, first, ldb);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

static void test_limited_scan(void **state)
{
	(void)state;
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	so.start = (const uint8_t *)"row00000100";
	so.start_len = 11;
	so.limit = NROWS - 200; /* past the damage, short of the end */
	damaged_scan("lim", 0.3, &so, 100);
}

static void test_reverse_scan(void **state)
{
	(void)state;
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	so.reverse = 1;
	so.limit = NROWS - 100;
	damaged_scan("rev", 0.6, &so, NROWS - 1);
	so.limit = 0; /* and a reverse scan to the table's start */
	damaged_scan("rev", 0.6, &so, NROWS - 1);
}

static void test_prefix_scan(void **state)
{
	(void)state;
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	so.prefix = (const uint8_t *)"row00";
	so.prefix_len = 5;
	so.limit = NROWS - 10;
	damaged_scan("pfx", 0.3, &so, 0);
}

/* Each row is right or an error naming the file: never "not found". */
static void test_point_gets(void **state)
{
	(void)state;
	char ldb[4400];
	char *dir = damaged_store("get", 0.5, ldb, sizeof ldb);
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts1();
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_table_open(&t, s, "t"));
	size_t errors = 0;
	for (uint64_t i = 0; i < NROWS; i++) {
		char row[32];
		uint8_t want[VLEN];
		rk_row *r;
		it_row(row, sizeof row, i);
		it_value(want, VLEN, i);
		int rc = rk_table_get(&r, t, (const uint8_t *)row, strlen(row), NULL);
		if (rc) {
			assert_int_equal(rc, RK_ECORRUPT);
			assert_non_null(strstr(rk_error_last(), strrchr(ldb, '/') + 1));
			errors++;
			continue;
		}
		assert_memory_equal(r->cells[0].value, want, VLEN);
		rk_row_free(r);
	}
	assert_true(errors > 0 && errors < 100);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* ---- queries ---- */

/* Table "q" under `schema` (fields uid:u32, seq:u32): uid 1 with NROWS
 * rows, uid `other` with 10, in one table file with a bit flipped at 0.3. */
static char *damaged_query_store(const char *tag, const char *schema, unsigned buckets,
                                 uint32_t other, char *ldb, size_t cap)
{
	char *dir = st_tmpdir(tag);
	rk_store *s;
	rk_table *t;
	rk_schema *sc;
	rk_encoder *e;
	rk_store_options o = opts1();
	ST_OK(rk_store_open(&s, dir, &o));
	rk_family_def fam = {"d", 1, NULL};
	rk_table_def def = {"q", &fam, 1, NULL, 0, buckets > 1 ? 1 : 0};
	ST_OK(rk_table_create(s, &def));
	ST_OK(rk_table_open(&t, s, "q"));
	ST_OK(rk_schema_parse(&sc, schema, strlen(schema), NULL));
	ST_OK(rk_encoder_new(&e, sc, 1));
	for (uint32_t i = 0; i < NROWS + 10; i++) {
		rk_value v[2] = {{.present = 1}, {.present = 1}};
		v[0].v.u = i < NROWS ? 1 : other;
		v[1].v.u = i;
		uint8_t key[64], val[VLEN];
		size_t kl;
		ST_OK(rk_key_encode(key, sizeof key, &kl, e, v));
		it_value(val, VLEN, i);
		rk_mutation m = {RK_MUT_PUT, key, kl, "d", (const uint8_t *)"v", 1, 1, val, VLEN, 0};
		ST_OK(rk_table_apply(t, &m, 1, NULL));
	}
	rk_encoder_free(e);
	rk_schema_free(sc);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	replay_and_flip(dir, ldb, cap, 0.3);
	return dir;
}

/* The query's rows are uid 1's in seq order, without a gap, and it ends in
 * RK_ECORRUPT naming the file (the limit stops it short of uid 1's end). */
static void query_fails_without_gap(const char *tag, const char *schema, unsigned buckets,
                                    uint32_t other, const char *where)
{
	char ldb[4400];
	char *dir = damaged_query_store(tag, schema, buckets, other, ldb, sizeof ldb);
	rk_store *s;
	rk_table *t;
	rk_schema *sc;
	rk_predicate *p;
	rk_plan *plan;
	rk_query *q;
	rk_query_row qr;
	rk_store_options o = opts1();
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_table_open(&t, s, "q"));
	ST_OK(rk_schema_parse(&sc, schema, strlen(schema), NULL));
	ST_OK(rk_predicate_parse(&p, sc, where, strlen(where)));
	ST_OK(rk_plan_build(&plan, sc, p));
	rk_query_options qo = RK_QUERY_OPTIONS_INIT;
	qo.limit = NROWS - 100;
	ST_OK(rk_query_open(&q, t, sc, plan, p, &qo));
	uint64_t n = 0;
	int rc;
	while ((rc = rk_query_next(&qr, q)) == 0) {
		assert_int_equal(qr.fields[0].v.u, 1);
		if (qr.fields[1].v.u != n)
			fail_msg("%s: row %llu of the query has seq %llu: rows skipped", tag,
			         (unsigned long long)n, (unsigned long long)qr.fields[1].v.u);
		n++;
	}
	fprintf(stderr, "%s: %llu rows, then: %s\n", tag, (unsigned long long)n, rk_error_last());
	assert_int_equal(rc, RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), strrchr(ldb, '/') + 1));
	rk_query_close(q);
	rk_plan_free(plan);
	rk_predicate_free(p);
	rk_schema_free(sc);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

static void test_query_one_range(void **state)
{
	(void)state;
	query_fails_without_gap("qr", "fields uid:u32, seq:u32; key u32(uid) u32(seq)", 1, 2,
	                        "uid = 1");
}

/* A full scan of a salted design: one stream per bucket, merged. */
static void test_query_merged_buckets(void **state)
{
	(void)state;
	query_fails_without_gap("qm", "fields uid:u32, seq:u32; key random(2) u32(uid) u32(seq)",
	                        2, 2, "");
}

/* ---- what the analyzer's store run reads: splits and moves ---- */

static void test_split_due_and_move(void **state)
{
	(void)state;
	char ldb[4400];
	char *dir = damaged_store("split", 0.5, ldb, sizeof ldb);
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts1();
	o.split_threshold = 1; /* every region is past its limit */
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_table_open(&t, s, "t"));
	it_write(t, NROWS, NROWS + 1, 1, VLEN); /* queues the region for a split */
	size_t made = 99;
	int rc = rk_store_split_due(&made, s);
	fprintf(stderr, "split_due: %s\n", rk_error_last());
	assert_int_equal(rc, RK_ECORRUPT);
	assert_int_equal(made, 0);
	assert_non_null(strstr(rk_error_last(), strrchr(ldb, '/') + 1));
	assert_non_null(strstr(rk_error_last(), "middle key"));
	/* a move copies the region's cells: it fails, and the region stays */
	rk_region_info *ri;
	size_t n;
	ST_OK(rk_store_regions(&ri, &n, s, "t"));
	assert_int_equal(n, 1);
	uint64_t id = ri[0].id;
	assert_int_equal(ri[0].server, 0);
	rk_region_info_free(ri, n);
	rc = rk_region_move(s, id, 1);
	fprintf(stderr, "move: %s\n", rk_error_last());
	assert_int_equal(rc, RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), strrchr(ldb, '/') + 1));
	ST_OK(rk_store_regions(&ri, &n, s, "t"));
	assert_int_equal(ri[0].server, 0);
	rk_region_info_free(ri, n);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limited_scan),
		cmocka_unit_test(test_reverse_scan),
		cmocka_unit_test(test_prefix_scan),
		cmocka_unit_test(test_point_gets),
		cmocka_unit_test(test_query_one_range),
		cmocka_unit_test(test_query_merged_buckets),
		cmocka_unit_test(test_split_due_and_move),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
