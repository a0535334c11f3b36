/*
 * The store's key buckets through the public API (rowkey/metrics.h): a
 * sequential key written over several intervals draws a diagonal in the
 * keymap; reads are counted where they read; the buckets survive a
 * restart and keep being added to; a store opened without key buckets
 * records none; a version 1 metrics file left by an older store is read
 * and carried into the version 2 file; split halves are born with the
 * split, their parent retired; runs of the store inside one interval
 * join it; writers on several threads while others take snapshots count
 * every row once (RK_TEST_LABEL_CONCURRENCY: TSan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pthread.h>
#include <stdatomic.h>

#include <cmocka.h>

#include <rowkey/metrics.h>

#include "integration/store_test_util.h"

enum { WIDTH_MS = 200 };

static rk_store *open_kv(const char *dir, unsigned key_buckets)
{
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	rk_store *s;
	o.n_servers = 2;
	o.metrics_bucket_ms = WIDTH_MS;
	o.durability = RK_DURABILITY_ASYNC;
	o.key_buckets = key_buckets;
	ST_OK(rk_store_open(&s, dir, &o));
	return s;
}

static void make_table(rk_store *s)
{
	rk_family_def f = {"d", 1, NULL};
	rk_table_def def = {"t", &f, 1, NULL, 0, 0};
	ST_OK(rk_table_create(s, &def));
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

/* rows "k00000".. of a sequential key, `per` rows an interval (one batch:
 * one interval takes them all, however loaded the machine), n intervals */
static void write_seq(rk_store *s, int from, int per, int n)
{
	rk_table *t;
	rk_mutation *m = calloc((size_t)per, sizeof *m);
	char(*keys)[8] = calloc((size_t)per, sizeof *keys);
	assert_true(m && keys);
	ST_OK(rk_table_open(&t, s, "t"));
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < per; j++) {
			snprintf(keys[j], sizeof keys[j], "k%05d", from + i * per + j);
			m[j] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)keys[j], 6, "d", (const uint8_t *)"q", 1,
			                     0, (const uint8_t *)"v", 1, 0};
		}
		ST_OK(rk_table_apply(t, m, (size_t)per, NULL));
		sleep_ms(WIDTH_MS + 20);
	}
	rk_table_close(t);
	free(m);
	free(keys);
}

/* the keymap of t's writes; the hottest row of each column with load */
static rk_keymap *writes_map(rk_store *s, uint64_t *total)
{
	rk_metrics *m;
	rk_keymap *k;
	rk_keymap_options o = RK_KEYMAP_OPTIONS_INIT;
	o.max_rows = 300;
	ST_OK(rk_store_metrics(&m, s));
	ST_OK(rk_metrics_keymap(&k, m, "t", &o));
	rk_metrics_free(m);
	*total = 0;
	for (size_t i = 0; i < k->rows * k->cols; i++)
		*total += k->writes[i];
	return k;
}

static void test_diagonal_and_restart(void **state)
{
	(void)state;
	char *dir = st_tmpdir("kvdiag");
	rk_store *s = open_kv(dir, 1000);
	make_table(s);
	write_seq(s, 0, 300, 6);
	uint64_t total;
	rk_keymap *k = writes_map(s, &total);
	assert_int_equal(total, 1800);
	/* each active column's rows lie above the previous one's: a diagonal */
	size_t prev = 0, active = 0;
	for (size_t c = 0; c < k->cols; c++) {
		size_t lo = SIZE_MAX, hi = 0;
		for (size_t r = 0; r < k->rows; r++)
			if (k->writes[r * k->cols + c]) {
				lo = r < lo ? r : lo;
				hi = r;
			}
		if (lo == SIZE_MAX)
			continue;
		assert_true(!active || lo >= prev);
		prev = hi;
		active++;
	}
	assert_true(active >= 5);
	rk_keymap_free(k);
	ST_OK(rk_store_close(s));

	/* a restart keeps them, and the new run's are added after */
	s = open_kv(dir, 1000);
	write_seq(s, 1800, 200, 2);
	k = writes_map(s, &total);
	assert_int_equal(total, 2200);
	rk_keymap_free(k);
	ST_OK(rk_store_close(s));
	rk_metrics *m;
	ST_OK(rk_metrics_read(&m, dir));
	assert_int_equal(m->version, 2);
	const rk_keyviz_table *kt = rk_metrics_table(m, "t");
	assert_non_null(kt);
	assert_true(kt->niv >= 7);
	rk_metrics_free(m);
	st_rmtree(dir);
	free(dir);
}

static void test_reads_counted_where_read(void **state)
{
	(void)state;
	char *dir = st_tmpdir("kvread");
	rk_store *s = open_kv(dir, 1000);
	make_table(s);
	write_seq(s, 0, 500, 1);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	so.start = (const uint8_t *)"k00100";
	so.start_len = 6;
	so.stop = (const uint8_t *)"k00200";
	so.stop_len = 6;
	rk_scan *sc;
	const rk_row *row;
	ST_OK(rk_scan_open(&sc, t, &so));
	size_t n = 0;
	while (rk_scan_next(&row, sc) == 0)
		n++;
	rk_scan_close(sc);
	assert_int_equal(n, 100);
	rk_row *one;
	ST_OK(rk_table_get(&one, t, (const uint8_t *)"k00400", 6, NULL));
	rk_row_free(one);
	rk_table_close(t);
	/* the reads, by key range: 100 rows in [k00100, k00200), 1 at k00400 */
	rk_metrics *m;
	rk_keymap *k;
	rk_keymap_options o = RK_KEYMAP_OPTIONS_INIT;
	rk_bytes at[4] = {{(const uint8_t *)"", 0}, {(const uint8_t *)"k00100", 6},
	                  {(const uint8_t *)"k00200", 6}, {(const uint8_t *)"k00400", 6}};
	o.rows_at = at;
	o.nrows_at = 4;
	o.max_cols = 1;
	ST_OK(rk_store_metrics(&m, s));
	ST_OK(rk_metrics_keymap(&k, m, "t", &o));
	assert_int_equal(k->rows, 4);
	assert_int_equal(k->reads[0], 0);
	assert_int_equal(k->reads[1], 100);
	assert_int_equal(k->reads[2], 0);
	assert_int_equal(k->reads[3], 1);
	assert_true(k->bytes_read[1] > 0);
	rk_keymap_free(k);
	rk_metrics_free(m);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

static void test_off(void **state)
{
	(void)state;
	char *dir = st_tmpdir("kvoff");
	rk_store *s = open_kv(dir, 0);
	make_table(s);
	write_seq(s, 0, 50, 1);
	rk_metrics *m;
	rk_keymap *k;
	ST_OK(rk_store_metrics(&m, s));
	assert_int_equal(rk_metrics_keymap(&k, m, "t", NULL), RK_ENOTFOUND);
	uint64_t w = 0;
	for (size_t i = 0; i < m->nregion_load; i++)
		w += m->region_load[i].total.writes;
	assert_int_equal(w, 50); /* regions still count */
	rk_metrics_free(m);
	ST_OK(rk_store_close(s));
	rk_store_options bad = RK_STORE_OPTIONS_INIT;
	bad.key_buckets = 1001;
	assert_int_equal(rk_store_open(&s, dir, &bad), RK_EINVALID);
	st_rmtree(dir);
	free(dir);
}

/* a file left by a store before key buckets (version 1) */
static void test_version1_carried(void **state)
{
	(void)state;
	char *dir = st_tmpdir("kvv1");
	rk_store *s = open_kv(dir, 1000);
	make_table(s);
	rk_region_info *ri;
	size_t nr;
	ST_OK(rk_store_regions(&ri, &nr, s, "t"));
	uint64_t id = ri[0].id;
	rk_region_info_free(ri, nr);
	ST_OK(rk_store_close(s));
	char path[4200];
	snprintf(path, sizeof path, "%s/metrics.tsv", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "# rowkey metrics v1 bucket_ms=1000 servers=2\n"
	           "region\t%llu\tt\t0\t\t-\n"
	           "r\t%llu\t1600000000000\t7\t2\t700\t200\n"
	           "s\t0\t1600000000000\t7\t2\t700\t200\n",
	        (unsigned long long)id, (unsigned long long)id);
	fclose(f);
	rk_metrics *m;
	ST_OK(rk_metrics_read(&m, dir));
	assert_int_equal(m->version, 1);
	assert_int_equal(m->nregions, 1);
	assert_true(m->regions[0].live); /* the newest chain of its table */
	assert_int_equal(m->regions[0].load->total.writes, 7);
	assert_int_equal(m->regions[0].load->b[0].server, 0);
	rk_metrics_free(m);
	s = open_kv(dir, 1000);
	write_seq(s, 0, 10, 1);
	ST_OK(rk_store_close(s));
	ST_OK(rk_metrics_read(&m, dir));
	assert_int_equal(m->version, 2);
	uint64_t w = 0;
	for (size_t i = 0; i < m->nregion_load; i++)
		w += m->region_load[i].total.writes;
	assert_int_equal(w, 17); /* the old run's 7 and this run's 10 */
	assert_non_null(rk_metrics_table(m, "t"));
	rk_metrics_free(m);
	st_rmtree(dir);
	free(dir);
}

static void test_split_halves_born(void **state)
{
	(void)state;
	char *dir = st_tmpdir("kvsplit");
	rk_store *s = open_kv(dir, 1000);
	make_table(s);
	write_seq(s, 0, 100, 1);
	rk_region_info *ri;
	size_t nr;
	ST_OK(rk_store_regions(&ri, &nr, s, "t"));
	uint64_t parent = ri[0].id;
	rk_region_info_free(ri, nr);
	ST_OK(rk_region_split(s, parent, (const uint8_t *)"k00050", 6));
	rk_metrics *m;
	ST_OK(rk_store_metrics(&m, s));
	size_t live = 0, retired = 0;
	for (size_t i = 0; i < m->nregions; i++) {
		const rk_metrics_region *g = &m->regions[i];
		if (g->id == parent) {
			assert_false(g->live);
			assert_int_equal(g->load->total.writes, 100); /* its history stays its own */
			retired++;
		} else {
			assert_true(g->live);
			assert_true(g->born_ms > 0);
			assert_null(g->load); /* born after the writes */
			live++;
		}
	}
	assert_int_equal(live, 2);
	assert_int_equal(retired, 1);
	rk_metrics_free(m);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* several runs of the store inside one interval (commands a second apart):
 * each adopts the file the previous one wrote and records the same
 * interval; the file stays readable and counts every row once */
static void test_runs_in_one_interval(void **state)
{
	(void)state;
	char *dir = st_tmpdir("kvsame");
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	rk_store *s;
	o.n_servers = 2;
	o.metrics_bucket_ms = 3600000; /* every run below falls in one interval (or two) */
	o.durability = RK_DURABILITY_ASYNC;
	ST_OK(rk_store_open(&s, dir, &o));
	make_table(s);
	for (int run = 0; run < 3; run++) {
		if (run)
			ST_OK(rk_store_open(&s, dir, &o));
		rk_table *t;
		ST_OK(rk_table_open(&t, s, "t"));
		for (int j = 0; j < 100; j++) {
			char k[16];
			snprintf(k, sizeof k, "k%05d", run * 100 + j);
			ST_OK(rk_table_put(t, (const uint8_t *)k, 6, "d", (const uint8_t *)"q", 1, 0,
			                   (const uint8_t *)"v", 1));
		}
		rk_table_close(t);
		if (run == 2) { /* the open interval joined to the adopted one in a snapshot too */
			uint64_t total;
			rk_keymap_free(writes_map(s, &total));
			assert_int_equal(total, 300);
		}
		ST_OK(rk_store_close(s));
	}
	rk_metrics *m;
	ST_OK(rk_metrics_read(&m, dir));
	const rk_keyviz_table *kt = rk_metrics_table(m, "t");
	assert_non_null(kt);
	assert_true(kt->niv <= 2);
	uint64_t total = 0;
	for (size_t i = 0; i < kt->niv; i++)
		for (size_t c = 0; c < kt->iv[i].ncells; c++)
			total += kt->iv[i].cells[c].c.writes;
	assert_int_equal(total, 300);
	rk_metrics_free(m);
	st_rmtree(dir);
	free(dir);
}

typedef struct job {
	rk_store *s;
	int id, rows;
	_Atomic int *stop;
} job;

static void *writer(void *arg)
{
	job *j = arg;
	rk_table *t;
	ST_OK(rk_table_open(&t, j->s, "t"));
	for (int i = 0; i < j->rows; i += 50) {
		rk_mutation m[50];
		char keys[50][16];
		for (int k = 0; k < 50; k++) {
			snprintf(keys[k], sizeof keys[k], "%c%07d", 'a' + j->id, i + k);
			m[k] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)keys[k], 8, "d", (const uint8_t *)"q", 1,
			                     0, (const uint8_t *)"v", 1, 0};
		}
		ST_OK(rk_table_apply_async(t, m, 50));
	}
	ST_OK(rk_table_flush(t));
	rk_table_close(t);
	return NULL;
}

static void *watcher(void *arg)
{
	job *j = arg;
	while (!atomic_load(j->stop)) {
		rk_metrics *m;
		rk_keymap *k;
		ST_OK(rk_store_metrics(&m, j->s));
		int rc = rk_metrics_keymap(&k, m, "t", NULL);
		assert_true(rc == 0 || rc == RK_ENOTFOUND);
		if (!rc)
			rk_keymap_free(k);
		rk_metrics_free(m);
	}
	return NULL;
}

static void test_concurrent_writers_and_snapshots(void **state)
{
	(void)state;
	char *dir = st_tmpdir("kvconc");
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	rk_store *s;
	o.n_servers = 4;
	o.metrics_bucket_ms = 20; /* many intervals close while batches are in flight */
	o.durability = RK_DURABILITY_ASYNC;
	ST_OK(rk_store_open(&s, dir, &o));
	rk_family_def f = {"d", 1, NULL};
	rk_bytes splits[3] = {{(const uint8_t *)"b", 1}, {(const uint8_t *)"c", 1}, {(const uint8_t *)"d", 1}};
	rk_table_def def = {"t", &f, 1, splits, 3, 0};
	ST_OK(rk_table_create(s, &def));
	_Atomic int stop = 0;
	pthread_t w[4], r[2];
	job jw[4], jr[2];
	for (int i = 0; i < 4; i++) {
		jw[i] = (job){s, i, 3000, &stop};
		assert_int_equal(pthread_create(&w[i], NULL, writer, &jw[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		jr[i] = (job){s, i, 0, &stop};
		assert_int_equal(pthread_create(&r[i], NULL, watcher, &jr[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(w[i], NULL);
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(r[i], NULL);
	uint64_t total;
	rk_keymap *k = writes_map(s, &total);
	assert_int_equal(total, 4 * 3000);
	rk_keymap_free(k);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_diagonal_and_restart), cmocka_unit_test(test_reads_counted_where_read),
	    cmocka_unit_test(test_off),                  cmocka_unit_test(test_version1_carried),
	    cmocka_unit_test(test_split_halves_born),    cmocka_unit_test(test_runs_in_one_interval),
	    cmocka_unit_test(test_concurrent_writers_and_snapshots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
