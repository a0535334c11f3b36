/*
 * The table store through its public API on the Bigtable backend:
 * `rk_store_open("bigtable://p/<case>")` on Google's emulator, which this
 * test starts on a free 127.0.0.1 port and stops by pid (SIGKILL also
 * reaches it if the test dies: PR_SET_PDEATHSIG). First the behaviour suite
 * every backend runs (integration/store_suite.h: each case on an instance
 * of its own, timestamps in whole milliseconds), then what only Bigtable
 * has: its limits (4 KiB keys, the millisecond grid, 100,000 mutations of
 * a row), tablets as regions and the maintenance the service does itself,
 * table settings in the instance's _rowkey_meta table,
 * deletes with an old timestamp, mutations of one row spread over a
 * batch, threads sharing one store, 4 KiB keys, and the emulator stopped
 * while writing (per-mutation results and the count of acknowledged rows).
 */
#ifdef RK_WITH_BIGTABLE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <rowkey/bigtable.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "integration/store_suite.h"

#define MS 1000u /* one millisecond in microseconds */

/* ---- the emulator ---- */

#include "integration/emulator.h"

static emulator emu;

static int setup(void **state)
{
	(void)state;
	if (emulator_start(&emu) < 0) {
		fprintf(stderr, "could not start %s\n", EMULATOR);
		return -1;
	}
	setenv("BIGTABLE_EMULATOR_HOST", emu.host, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	emulator_stop(&emu);
	return 0;
}

/* Each case gets its own instance of the one emulator. */
static rk_store *open_store(const char *instance)
{
	char uri[128];
	snprintf(uri, sizeof uri, "bigtable://p/%s", instance);
	setenv("BIGTABLE_EMULATOR_HOST", emu.host, 1);
	rk_store *s;
	ST_OK(rk_store_open(&s, uri, NULL));
	return s;
}

/* Bigtable's own limits, checked before anything is sent: keys over
 * 4 KiB, timestamps and read bounds off the millisecond grid, more than
 * 100,000 mutations of one row; region moves refused. */
static void test_bigtable_limits(void **state)
{
	(void)state;
	rk_store *s = open_store("limits");
	create(s, "t", NULL, 0, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	for (uint64_t ts = 10; ts <= 30; ts += 10)
		put(t, "r1", "cf", "a", ts * MS, "v");
	rk_row *r;
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	rk_column ca = {"cf", (const uint8_t *)"a", 1};
	ro.columns = &ca;
	ro.ncolumns = 1;
	ro.max_versions = 10;
	/* bounds off the millisecond grid select the same cells: [20.001, 30.001) */
	ro.min_ts = 20 * MS + 1;
	ro.max_ts = 30 * MS + 1;
	ST_OK(rk_table_get(&r, t, (const uint8_t *)"r1", 2, &ro));
	assert_int_equal(r->ncells, 1);
	assert_true(r->cells[0].ts == 30 * MS);
	rk_row_free(r);
	ro.min_ts = 20 * MS + 1; /* no millisecond inside: nothing */
	ro.max_ts = 20 * MS + 999;
	assert_int_equal(rk_table_get(&r, t, (const uint8_t *)"r1", 2, &ro), RK_ENOTFOUND);
	static uint8_t big[RK_MAX_ROW_LEN + 1];
	int res[3];
	rk_mutation m[3] = {
		{RK_MUT_PUT, (const uint8_t *)"ok", 2, "cf", NULL, 0, 0, (const uint8_t *)"v", 1, 0},
		{RK_MUT_PUT, big, 4097, "cf", NULL, 0, 0, (const uint8_t *)"v", 1, 0},
		{RK_MUT_PUT, (const uint8_t *)"y", 1, "cf", NULL, 0, 1500, (const uint8_t *)"v", 1, 0},
	};
	assert_int_equal(rk_table_apply(t, m, 3, res), RK_ETOOLONG);
	assert_non_null(strstr(rk_error_last(), "4096"));
	assert_int_equal(res[0], 0);
	assert_int_equal(res[1], RK_ETOOLONG);
	assert_int_equal(res[2], RK_EINVALID);
	assert_int_equal(rk_table_get(&r, t, (const uint8_t *)"ok", 2, NULL), RK_ENOTFOUND);
	assert_int_equal(rk_table_apply(t, &m[2], 1, NULL), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "millisecond"));

	/* one row may carry at most 100000 mutations per request */
	rk_mutation *many = calloc(100002, sizeof *many);
	int *mres = calloc(100002, sizeof *mres);
	assert_true(many && mres);
	many[0] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)"ok", 2, "cf", NULL, 0, 0,
	                        (const uint8_t *)"v", 1, 0};
	for (size_t i = 1; i < 100002; i++)
		many[i] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)"hot", 3, "cf", NULL, 0, 0,
		                        (const uint8_t *)"v", 1, 0};
	assert_int_equal(rk_table_apply(t, many, 100002, mres), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "100001 mutations of row 'hot'"));
	assert_int_equal(mres[0], 0);
	assert_int_equal(mres[1], RK_EINVALID);
	assert_int_equal(rk_table_get(&r, t, (const uint8_t *)"ok", 2, NULL), RK_ENOTFOUND);
	free(many);
	free(mres);

	assert_int_equal(rk_region_move(s, 1, 99), RK_EINVALID);
	skip_note("rk_region_move(999) is RK_ENOTFOUND on the local store; on Bigtable every move "
	          "is RK_EINVALID (the service places tablets)");
	assert_int_equal(rk_region_move(s, 999, 0), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "not supported by Bigtable"));
	rk_table_close(t);
	ST_OK(rk_store_close(s));
}

/* Regions are Bigtable's tablets (SampleRowKeys), contiguous from the
 * start to the end; split, move and balance are the service's (refused),
 * and there are no servers or metrics file to show. */
static void test_bigtable_regions(void **state)
{
	(void)state;
	rk_store *s = open_store("regions");
	const char *splits[] = {"b", "d", "f"};
	create(s, "t", splits, 3, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	put(t, "a", "cf", "q", 0, "a");
	/* regions: Bigtable's tablets, contiguous from the start to the end */
	skip_note("region counts and servers: the emulator ignores initial splits and samples "
	          "row keys at random; only coverage of the key space is checked");
	rk_region_info *ri;
	size_t n;
	ST_OK(rk_store_regions(&ri, &n, s, "t"));
	assert_true(n >= 1);
	assert_int_equal(ri[0].start_len, 0);
	assert_null(ri[n - 1].end);
	for (size_t i = 1; i < n; i++) {
		assert_int_equal(ri[i].start_len, ri[i - 1].end_len);
		assert_memory_equal(ri[i].start, ri[i - 1].end, ri[i].start_len);
		assert_string_equal(ri[i].table, "t");
	}
	uint64_t id = ri[0].id;
	rk_region_info_free(ri, n);
	skip_note("split, move, balance: RK_EINVALID on Bigtable (the service manages tablets)");
	assert_int_equal(rk_region_split(s, id, (const uint8_t *)"e", 1), RK_EINVALID);
	assert_int_equal(rk_region_move(s, id, 1), RK_EINVALID);
	size_t moved = 9;
	assert_int_equal(rk_store_balance(&moved, s), RK_EINVALID);
	assert_int_equal(moved, 0);
	size_t made = 9;
	ST_OK(rk_store_split_due(&made, s)); /* nothing for us to split there */
	assert_int_equal(made, 0);
	rk_server_info *si;
	size_t ns = 9;
	ST_OK(rk_store_servers(&si, &ns, s));
	assert_int_equal(ns, 0);
	free(si);
	size_t problems = 99;
	ST_OK(rk_store_check(&problems, s, NULL, NULL));
	assert_int_equal(problems, 0);

	rk_table_close(t);
	skip_note("metrics file: a Bigtable store keeps none");
	ST_OK(rk_store_write_metrics(s, NULL));
	ST_OK(rk_store_close(s));
}

static void test_auto_split_salted(void **state)
{
	(void)state;
	skip_note("automatic splits on bucket boundaries: Bigtable splits tablets itself; the "
	          "salted rows are still written and read back");
	rk_store *s = open_store("salted");
	create(s, "salted", NULL, 0, 1);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "salted"));
	char val[200];
	memset(val, 'v', sizeof val);
	for (int b = 0; b < 8; b++) {
		rk_mutation m[100];
		char rows[100][8];
		for (int i = 0; i < 100; i++) {
			rows[i][0] = (char)('0' + b);
			snprintf(rows[i] + 1, 7, "%05d", i);
			m[i] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)rows[i], 6, "cf", NULL, 0, 0,
			                     (const uint8_t *)val, sizeof val, 0};
		}
		ST_OK(rk_table_apply(t, m, 100, NULL));
	}
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_scan *sc;
	const rk_row *r;
	size_t rows = 0;
	char prev[8] = "";
	ST_OK(rk_scan_open(&sc, t, &so));
	while (rk_scan_next(&r, sc) == 0) {
		assert_int_equal(r->key_len, 6);
		assert_true(memcmp(prev, r->key, 6) < 0);
		memcpy(prev, r->key, 6);
		assert_int_equal(r->cells[0].value_len, sizeof val);
		rows++;
	}
	rk_scan_close(sc);
	assert_int_equal(rows, 800);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
}

/* A family or row delete bounded by an old timestamp has no Bigtable
 * equivalent (it would delete every version): refused, nothing written. */
static void test_delete_with_old_timestamp(void **state)
{
	(void)state;
	rk_store *s = open_store("olddelete");
	create(s, "t", NULL, 0, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	put(t, "r", "cf", "a", 10 * MS, "old");
	rk_mutation m[2] = {
		{RK_MUT_PUT, (const uint8_t *)"p", 1, "cf", NULL, 0, 0, (const uint8_t *)"v", 1, 0},
		{RK_MUT_DELETE_FAMILY, (const uint8_t *)"r", 1, "cf", NULL, 0, 5 * MS, NULL, 0, 0},
	};
	int res[2];
	assert_int_equal(rk_table_apply(t, m, 2, res), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "not supported by Bigtable"));
	assert_int_equal(res[0], 0);
	assert_int_equal(res[1], RK_EINVALID);
	want_value(t, "p", "cf", "", NULL);
	want_value(t, "r", "cf", "a", "old");
	m[1].type = RK_MUT_DELETE_ROW;
	assert_int_equal(rk_table_apply(t, &m[1], 1, NULL), RK_EINVALID);
	/* at the current time it maps onto DeleteFromFamily / DeleteFromRow */
	m[1].ts = 0;
	ST_OK(rk_table_apply(t, &m[1], 1, NULL));
	want_value(t, "r", "cf", "a", NULL);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
}

/* Mutations of one row spread over a batch keep their order (they travel in
 * one MutateRows entry); results are per mutation. */
static void test_rows_spread_over_a_batch(void **state)
{
	(void)state;
	rk_store *s = open_store("spread");
	create(s, "t", NULL, 0, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	enum { N = 3000 };
	static rk_mutation m[N + 3];
	static char keys[N][8];
	for (int i = 0; i < N; i++) {
		snprintf(keys[i], sizeof keys[i], "k%05d", (i * 7919) % N);
		m[i] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)keys[i], 6, "cf",
		                     (const uint8_t *)"q", 1, 0, (const uint8_t *)"first", 5, 0};
	}
	/* the same row again, later in the batch: a column delete, then a put */
	m[N] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)"k00000", 6, "cf", (const uint8_t *)"q", 1,
	                     0, (const uint8_t *)"second", 6, 0};
	m[N + 1] = (rk_mutation){RK_MUT_DELETE_COLUMN, (const uint8_t *)"k00001", 6, "cf",
	                         (const uint8_t *)"q", 1, 0, NULL, 0, 0};
	m[N + 2] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)"k00001", 6, "cf",
	                         (const uint8_t *)"q", 1, 0, (const uint8_t *)"third", 5, 0};
	static int res[N + 3];
	memset(res, 0x55, sizeof res);
	ST_OK(rk_table_apply(t, m, N + 3, res));
	for (int i = 0; i < N + 3; i++)
		assert_int_equal(res[i], 0);
	want_value(t, "k00000", "cf", "q", "second");
	want_value(t, "k00001", "cf", "q", "third");
	want_value(t, "k00002", "cf", "q", "first");
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	so.start = (const uint8_t *)"k01000";
	so.start_len = 6;
	so.limit = 5;
	scan_expect(t, &so, "k01000 k01001 k01002 k01003 k01004");
	rk_table_close(t);
	ST_OK(rk_store_close(s));
}

/* Threads share one store (one client), each with its own table handle:
 * every row lands, and the store's clock gives each apply its own, strictly
 * increasing timestamp across threads. */
enum { THREADS = 4, APPLIES = 10, PER_APPLY = 100 };

typedef struct writer_arg {
	rk_store *s;
	int id;
	int rc;
} writer_arg;

static void *writer_main(void *p)
{
	writer_arg *a = p;
	rk_table *t;
	if ((a->rc = rk_table_open(&t, a->s, "t")) != 0)
		return NULL;
	for (int k = 0; k < APPLIES && !a->rc; k++) {
		rk_mutation m[PER_APPLY];
		char keys[PER_APPLY][16];
		for (int i = 0; i < PER_APPLY; i++) {
			snprintf(keys[i], sizeof keys[i], "w%d-%02d-%03d", a->id, k, i);
			m[i] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)keys[i], strlen(keys[i]), "cf",
			                     NULL, 0, 0, (const uint8_t *)"v", 1, 0};
		}
		a->rc = rk_table_apply(t, m, PER_APPLY, NULL);
	}
	rk_table_close(t);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void test_threads_share_a_store(void **state)
{
	(void)state;
	rk_store *s = open_store("threads");
	create(s, "t", NULL, 0, 0);
	pthread_t th[THREADS];
	writer_arg args[THREADS];
	for (int i = 0; i < THREADS; i++) {
		args[i] = (writer_arg){s, i, 0};
		assert_int_equal(pthread_create(&th[i], NULL, writer_main, &args[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(args[i].rc, 0);
	}
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_scan *sc;
	const rk_row *r;
	static uint64_t ts[THREADS * APPLIES * PER_APPLY];
	size_t n = 0;
	ST_OK(rk_scan_open(&sc, t, &so));
	while (rk_scan_next(&r, sc) == 0) {
		assert_true(n < sizeof ts / sizeof ts[0]);
		ts[n++] = r->cells[0].ts;
	}
	rk_scan_close(sc);
	assert_int_equal(n, THREADS * APPLIES * PER_APPLY);
	qsort(ts, n, sizeof ts[0], cmp_u64);
	size_t distinct = 1;
	for (size_t i = 1; i < n; i++)
		distinct += ts[i] != ts[i - 1];
	assert_int_equal(distinct, THREADS * APPLIES); /* one timestamp per apply */
	rk_table_close(t);
	ST_OK(rk_store_close(s));
}

/* The emulator dies between two batches: the second fails as a whole with
 * a clear error naming how many rows were acknowledged, and every result
 * says so; the first batch stays counted. */
static void test_emulator_stopped_mid_write(void **state)
{
	(void)state;
	emulator e2;
	assert_int_equal(emulator_start(&e2), 0);
	setenv("BIGTABLE_EMULATOR_HOST", e2.host, 1);
	rk_store *s;
	ST_OK(rk_store_open(&s, "bigtable://p/kill", NULL));
	setenv("BIGTABLE_EMULATOR_HOST", emu.host, 1);
	create(s, "t", NULL, 0, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	enum { N = 500 };
	static rk_mutation m[N];
	static char keys[N][8];
	static int res[N];
	for (int i = 0; i < N; i++) {
		snprintf(keys[i], sizeof keys[i], "a%05d", i);
		m[i] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)keys[i], 6, "cf", NULL, 0, 0,
		                     (const uint8_t *)"v", 1, 0};
	}
	ST_OK(rk_table_apply(t, m, N, res));
	emulator_stop(&e2);
	for (int i = 0; i < N; i++)
		keys[i][0] = 'b';
	int rc = rk_table_apply(t, m, N, res);
	assert_int_equal(rc, RK_EIO);
	const char *msg = rk_error_last();
	printf("error after the emulator stopped: %s\n", msg);
	assert_non_null(strstr(msg, "0 of 500 rows acknowledged (this call), 500 since the store "
	                            "was opened"));
	assert_non_null(strstr(msg, "UNAVAILABLE"));
	assert_non_null(strstr(msg, "table t"));
	for (int i = 0; i < N; i++)
		assert_int_equal(res[i], RK_EIO);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
}

/* The emulator dies while one big apply is in flight: the rows it
 * acknowledged are exactly the mutations whose result is 0, and the message
 * gives their number. */
typedef struct big_apply {
	rk_table *t;
	rk_mutation *m;
	int *res;
	size_t n;
	int rc;
	char msg[1024];
} big_apply;

static void *apply_thread(void *arg)
{
	big_apply *a = arg;
	a->rc = rk_table_apply(a->t, a->m, a->n, a->res);
	snprintf(a->msg, sizeof a->msg, "%s", rk_error_last());
	return NULL;
}

static void test_emulator_stopped_inside_an_apply(void **state)
{
	(void)state;
	emulator e3;
	assert_int_equal(emulator_start(&e3), 0);
	setenv("BIGTABLE_EMULATOR_HOST", e3.host, 1);
	rk_store *s;
	ST_OK(rk_store_open(&s, "bigtable://p/kill2", NULL));
	setenv("BIGTABLE_EMULATOR_HOST", emu.host, 1);
	create(s, "t", NULL, 0, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	enum { N = 40000 };
	static rk_mutation m[N];
	static char keys[N][8];
	static int res[N];
	char val[100];
	memset(val, 'x', sizeof val);
	for (int i = 0; i < N; i++) {
		snprintf(keys[i], sizeof keys[i], "r%05d", i);
		m[i] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)keys[i], 6, "cf", NULL, 0, 0,
		                     (const uint8_t *)val, sizeof val, 0};
	}
	big_apply a = {t, m, res, N, 0, ""};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, apply_thread, &a), 0);
	st_sleep_ms(150); /* the whole apply takes 0.5 s or more on the emulator */
	emulator_stop(&e3);
	pthread_join(th, NULL);
	size_t zeros = 0;
	for (int i = 0; i < N; i++) {
		assert_true(res[i] == 0 || res[i] == RK_EIO);
		zeros += res[i] == 0;
	}
	printf("killed inside an apply of %d rows: rc %d, %zu acknowledged: %s\n", N, a.rc, zeros,
	       a.msg);
	if (zeros < N) {
		char want[64];
		assert_int_equal(a.rc, RK_EIO);
		snprintf(want, sizeof want, "%zu of %d rows acknowledged", zeros, N);
		assert_non_null(strstr(a.msg, want));
	} else {
		assert_int_equal(a.rc, 0); /* the apply beat the kill */
	}
	rk_table_close(t);
	ST_OK(rk_store_close(s));
}

/* The settings row of `table` in _rowkey_meta, read as any table (NULL
 * when there is none). Caller frees. */
static rk_row *meta_row(rk_store *s, const char *table)
{
	rk_table *m;
	rk_row *r = NULL;
	ST_OK(rk_table_open(&m, s, "_rowkey_meta"));
	int rc = rk_table_get(&r, m, (const uint8_t *)table, strlen(table), NULL);
	assert_true(rc == 0 || rc == RK_ENOTFOUND);
	rk_table_close(m);
	return rc ? NULL : r;
}

/* Table settings live in the instance's _rowkey_meta table as
 * docs/formats.md lays it out (row = the table's id, family s, qualifier =
 * the key, value as it is): a real table, left out of rowkey's listings,
 * that rowkey never creates or drops by name; a drop removes the table's
 * row; a create clears a row an earlier table of that name left; a value
 * over 64 KiB found there is RK_ECORRUPT. */
static void test_settings_table(void **state)
{
	(void)state;
	rk_store *s = open_store("settings");
	const char *schema = "fields x:u64; key x";
	rk_table_def d = {"t", fams, 2, NULL, 0, 0};
	rk_table_prop p = {"schema", schema, strlen(schema)};
	ST_OK(rk_table_create_with(s, &d, &p, 1));

	rk_row *r = meta_row(s, "t");
	assert_non_null(r);
	assert_int_equal(r->ncells, 1);
	assert_string_equal(r->cells[0].family, "s");
	assert_int_equal(r->cells[0].qualifier_len, 6);
	assert_memory_equal(r->cells[0].qualifier, "schema", 6);
	assert_int_equal(r->cells[0].value_len, strlen(schema));
	assert_memory_equal(r->cells[0].value, schema, strlen(schema));
	rk_row_free(r);

	/* the name is rowkey's */
	rk_table_def md = {"_rowkey_meta", fams, 2, NULL, 0, 0};
	assert_int_equal(rk_table_create(s, &md), RK_EINVALID);
	assert_int_equal(rk_table_drop(s, "_rowkey_meta"), RK_EINVALID);
	assert_int_equal(rk_store_table_prop_set(s, "_rowkey_meta", "schema", "x", 1),
	                 RK_EINVALID);
	rk_region_info *ri;
	size_t nr;
	ST_OK(rk_store_regions(&ri, &nr, s, NULL));
	for (size_t i = 0; i < nr; i++)
		assert_string_equal(ri[i].table, "t");
	rk_region_info_free(ri, nr);

	/* a drop takes the table's row with it */
	ST_OK(rk_table_drop(s, "t"));
	assert_null(meta_row(s, "t"));

	/* a row left by a table another tool dropped: a new table starts bare */
	rk_table *m;
	void *v;
	size_t n;
	ST_OK(rk_table_open(&m, s, "_rowkey_meta"));
	ST_OK(rk_table_put(m, (const uint8_t *)"u", 1, "s", (const uint8_t *)"schema", 6, 0,
	                   (const uint8_t *)"old", 3));
	rk_table_def ud = {"u", fams, 2, NULL, 0, 0};
	ST_OK(rk_table_create(s, &ud));
	assert_int_equal(rk_store_table_prop_get(&v, &n, s, "u", "schema"), RK_ENOTFOUND);
	assert_null(meta_row(s, "u"));

	/* bytes read back are checked: a value no setting can have */
	uint8_t *big = calloc(1, 65537);
	assert_non_null(big);
	ST_OK(rk_table_put(m, (const uint8_t *)"u", 1, "s", (const uint8_t *)"schema", 6, 0, big,
	                   65537));
	free(big);
	assert_int_equal(rk_store_table_prop_get(&v, &n, s, "u", "schema"), RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), "65537 bytes"));
	rk_table_close(m);
	ST_OK(rk_store_close(s));
}

/* Until the Bigtable part is registered a bigtable:// name is refused, saying
 * what to do, and never taken for a directory; after, it opens. */
static void test_registration(void **state)
{
	(void)state;
	rk_store *s;
	assert_int_equal(rk_store_open(&s, "bigtable://p/registration", NULL), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "rk_bigtable_register()"));
	assert_int_equal(rk_bigtable_register(), 0);
	ST_OK(rk_store_open(&s, "bigtable://p/registration", NULL));
	ST_OK(rk_store_close(s));
}

/* ---- the suite on Bigtable ---- */

static rk_store *bt_open(const char *tag)
{
	return open_store(tag);
}

static rk_store *bt_reopen(rk_store *s, const char *tag)
{
	ST_OK(rk_store_close(s));
	return open_store(tag);
}

static void bt_done(rk_store *s, const char *tag)
{
	(void)tag;
	ST_OK(rk_store_close(s));
}

static const suite_backend bigtable = {"bigtable", bt_open, bt_reopen, bt_done, MS, 0};

int main(void)
{
	if (access(EMULATOR, X_OK) != 0) {
		printf("skipped: %s not installed\n", EMULATOR);
		return 77;
	}
	B = &bigtable;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registration), /* first: the others need it */
		SUITE_CASES,
		cmocka_unit_test(test_bigtable_limits),
		cmocka_unit_test(test_bigtable_regions),
		cmocka_unit_test(test_settings_table),
		cmocka_unit_test(test_auto_split_salted),
		cmocka_unit_test(test_delete_with_old_timestamp),
		cmocka_unit_test(test_rows_spread_over_a_batch),
		cmocka_unit_test(test_threads_share_a_store),
		cmocka_unit_test(test_emulator_stopped_mid_write),
		cmocka_unit_test(test_emulator_stopped_inside_an_apply),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

#else
#include <stdio.h>
int main(void)
{
	puts("skipped: built without RK_WITH_BIGTABLE");
	return 77;
}
#endif
