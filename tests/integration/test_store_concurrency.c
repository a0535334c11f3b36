/*
 * Concurrent writers (one waiting for each batch, one buffered), scanners
 * and point readers while regions split (in the background and explicitly)
 * and move between servers, checked against
 * an in-memory model: an acknowledged row is never lost, a row never shows
 * up twice or out of order in a scan, a deleted row never comes back, and
 * the store checks clean and reads the same after reopening. Then atomic
 * row operations racing each other and plain writes on a few hot rows
 * while their region moves: no increment is lost, no check-and-mutate
 * claims a slot twice.
 *
 * RK_TEST_LABEL_CONCURRENCY (runs in the TSan job)
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "integration/store_test_util.h"

#define WRITERS 2
#define ROWS_PER_WRITER 3000
#define BATCH 25
#define NROWS (WRITERS * ROWS_PER_WRITER)

enum { ST_NONE, ST_PUT_ISSUED, ST_PUT_ACKED, ST_DEL_ISSUED, ST_DEL_ACKED };

static _Atomic int state[NROWS];
static _Atomic int writers_done;
static _Atomic int failures;
static rk_store *store;
static char rownames[NROWS][16];

/* Row names spread over the key space (not in writing order). */
static void make_names(void)
{
	for (int i = 0; i < NROWS; i++) {
		uint32_t h = (uint32_t)i * 2654435761u;
		snprintf(rownames[i], sizeof rownames[i], "%08x-%05d", h, i);
	}
}

static int row_index(const uint8_t *key, size_t len)
{
	char num[6];
	if (len != 14 || key[8] != '-')
		return -1;
	memcpy(num, key + 9, 5);
	num[5] = 0;
	int i = atoi(num);
	if (i < 0 || i >= NROWS || memcmp(rownames[i], key, 14))
		return -1;
	return i;
}

static void report(const char *what, const char *row)
{
	fprintf(stderr, "model violation: %s (row %s)\n", what, row ? row : "-");
	atomic_fetch_add(&failures, 1);
}

static void *writer(void *arg)
{
	int w = (int)(intptr_t)arg;
	rk_table *t;
	ST_OK(rk_table_open(&t, store, "t"));
	static _Thread_local char val[BATCH][120];
	memset(val, 'x', sizeof val);
	for (int base = 0; base < ROWS_PER_WRITER; base += BATCH) {
		rk_mutation m[BATCH];
		for (int k = 0; k < BATCH; k++) {
			int i = w * ROWS_PER_WRITER + base + k;
			atomic_store(&state[i], ST_PUT_ISSUED);
			m[k] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)rownames[i], 14, "f", NULL, 0, 0,
			                     (const uint8_t *)val[k], sizeof val[k], 0};
			memcpy(val[k], rownames[i], 14);
		}
		int res[BATCH];
		if (w % 2) {
			/* buffered: acknowledged when a flush after every second batch returns */
			ST_OK(rk_table_apply_async(t, m, BATCH));
			if ((base / BATCH) % 2 == 0)
				continue;
			ST_OK(rk_table_flush(t));
			for (int k = 0; k < 2 * BATCH; k++)
				atomic_store(&state[w * ROWS_PER_WRITER + base - BATCH + k], ST_PUT_ACKED);
		} else {
			ST_OK(rk_table_apply(t, m, BATCH, res));
			for (int k = 0; k < BATCH; k++) {
				assert_int_equal(res[k], 0);
				atomic_store(&state[w * ROWS_PER_WRITER + base + k], ST_PUT_ACKED);
			}
		}
		/* delete one earlier row per batch (per second batch when buffered) */
		if (base >= BATCH) {
			int i = w * ROWS_PER_WRITER + base - BATCH + (base / BATCH) % BATCH;
			atomic_store(&state[i], ST_DEL_ISSUED);
			ST_OK(rk_table_delete(t, (const uint8_t *)rownames[i], 14, NULL, NULL, 0, 0));
			atomic_store(&state[i], ST_DEL_ACKED);
		}
	}
	rk_table_close(t);
	atomic_fetch_add(&writers_done, 1);
	return NULL;
}

/* One full scan (forward or reverse) checked against the model. */
static void checked_scan(rk_table *t, int reverse)
{
	static _Thread_local int before[NROWS], after[NROWS];
	static _Thread_local unsigned char seen[NROWS];
	for (int i = 0; i < NROWS; i++)
		before[i] = atomic_load(&state[i]);
	memset(seen, 0, sizeof seen);
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	so.reverse = reverse;
	rk_scan *sc;
	const rk_row *r;
	char prev[16] = "";
	int rc;
	ST_OK(rk_scan_open(&sc, t, &so));
	while ((rc = rk_scan_next(&r, sc)) == 0) {
		int i = row_index(r->key, r->key_len);
		if (i < 0) {
			report("unknown row", NULL);
			continue;
		}
		if (seen[i]++)
			report("row returned twice", rownames[i]);
		if (prev[0] && (reverse ? strcmp(rownames[i], prev) >= 0
		                        : strcmp(rownames[i], prev) <= 0))
			report("rows out of order", rownames[i]);
		memcpy(prev, rownames[i], 15);
		if (r->ncells != 1 || r->cells[0].value_len != 120 ||
		    memcmp(r->cells[0].value, rownames[i], 14))
			report("wrong cell", rownames[i]);
		if (before[i] == ST_DEL_ACKED)
			report("deleted row came back", rownames[i]);
	}
	if (rc != RK_EITEROVER)
		st_fail("scan", rc);
	rk_scan_close(sc);
	for (int i = 0; i < NROWS; i++) {
		after[i] = atomic_load(&state[i]);
		if (seen[i] && after[i] == ST_NONE)
			report("row seen before it was written", rownames[i]);
		if (!seen[i] && before[i] == ST_PUT_ACKED && after[i] == ST_PUT_ACKED)
			report(reverse ? "acknowledged row missing from reverse scan" : "acknowledged row missing from forward scan", rownames[i]);
	}
}

static void *scanner(void *arg)
{
	int reverse = (int)(intptr_t)arg;
	rk_table *t;
	ST_OK(rk_table_open(&t, store, "t"));
	while (atomic_load(&writers_done) < WRITERS)
		checked_scan(t, reverse);
	checked_scan(t, reverse);
	rk_table_close(t);
	return NULL;
}

static void *getter(void *arg)
{
	(void)arg;
	rk_table *t;
	ST_OK(rk_table_open(&t, store, "t"));
	uint32_t x = 12345;
	while (atomic_load(&writers_done) < WRITERS) {
		x = x * 1103515245u + 12345u;
		int i = (int)((x >> 8) % NROWS);
		int b = atomic_load(&state[i]);
		rk_row *r;
		int rc = rk_table_get(&r, t, (const uint8_t *)rownames[i], 14, NULL);
		int a = atomic_load(&state[i]);
		if (rc == 0) {
			if (a == ST_NONE || b == ST_DEL_ACKED)
				report("get found a row that should not exist", rownames[i]);
			rk_row_free(r);
		} else if (rc == RK_ENOTFOUND) {
			if (b == ST_PUT_ACKED && a == ST_PUT_ACKED)
				report("get lost an acknowledged row", rownames[i]);
		} else {
			st_fail("get", rc);
		}
	}
	rk_table_close(t);
	return NULL;
}

/* Moves and splits regions while the others work. */
static void *chaos(void *arg)
{
	(void)arg;
	uint32_t x = 777;
	while (atomic_load(&writers_done) < WRITERS) {
		rk_region_info *ri;
		size_t n;
		ST_OK(rk_store_regions(&ri, &n, store, "t"));
		x = x * 1103515245u + 12345u;
		size_t k = (x >> 8) % n;
		int rc;
		if (x & 0x10000)
			rc = rk_region_move(store, ri[k].id, (ri[k].server + 1) % 2);
		else
			rc = rk_region_split(store, ri[k].id, NULL, 0);
		/* a region may split or move under us: those codes are fine */
		if (rc && rc != RK_ENOTFOUND && rc != RK_EBUSY)
			st_fail("chaos", rc);
		rk_region_info_free(ri, n);
		st_sleep_ms(1);
	}
	return NULL;
}

static void final_check(void)
{
	rk_table *t;
	ST_OK(rk_table_open(&t, store, "t"));
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_scan *sc;
	const rk_row *r;
	static unsigned char seen[NROWS];
	memset(seen, 0, sizeof seen);
	ST_OK(rk_scan_open(&sc, t, &so));
	while (rk_scan_next(&r, sc) == 0) {
		int i = row_index(r->key, r->key_len);
		assert_true(i >= 0);
		assert_int_equal(seen[i], 0);
		seen[i] = 1;
	}
	rk_scan_close(sc);
	for (int i = 0; i < NROWS; i++) {
		int st = atomic_load(&state[i]);
		assert_true(st == ST_PUT_ACKED || st == ST_DEL_ACKED);
		if ((st == ST_PUT_ACKED) != seen[i])
			fail_msg("row %s: state %d, seen %d", rownames[i], st, seen[i]);
	}
	rk_table_close(t);
	size_t problems;
	ST_OK(rk_store_check(&problems, store, NULL, NULL));
}

static void test_concurrent_while_splitting(void **unused)
{
	(void)unused;
	char *dir = st_tmpdir("conc");
	make_names();
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	o.n_servers = 2;
	o.split_threshold = 48 << 10;
	ST_OK(rk_store_open(&store, dir, &o));
	rk_family_def f = {"f", 1, NULL};
	rk_table_def d = {"t", &f, 1, NULL, 0, 0};
	ST_OK(rk_table_create(store, &d));

	pthread_t th[WRITERS + 4];
	int n = 0;
	for (int w = 0; w < WRITERS; w++)
		pthread_create(&th[n++], NULL, writer, (void *)(intptr_t)w);
	pthread_create(&th[n++], NULL, scanner, (void *)(intptr_t)0);
	pthread_create(&th[n++], NULL, scanner, (void *)(intptr_t)1);
	pthread_create(&th[n++], NULL, getter, NULL);
	pthread_create(&th[n++], NULL, chaos, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(atomic_load(&failures), 0);

	rk_region_info *ri;
	size_t nr;
	ST_OK(rk_store_regions(&ri, &nr, store, "t"));
	fprintf(stderr, "regions after the run: %zu\n", nr);
	assert_true(nr >= 4);
	rk_region_info_free(ri, nr);
	final_check();
	ST_OK(rk_store_close(store));
	ST_OK(rk_store_open(&store, dir, &o));
	final_check();
	ST_OK(rk_store_close(store));
	st_rmtree(dir);
	free(dir);
}

/* ---- atomic row operations ---- */

#define ATOMIC_THREADS 4
#define ATOMIC_ROUNDS 300

static _Atomic int claims[ATOMIC_ROUNDS];

/* Increments counters on two hot rows, claims slots with check-and-mutate
 * (the slot's cell must be absent: one thread wins each), and overwrites
 * a third column with plain puts, all on the same rows. */
static void *atomic_worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	rk_table *t;
	if (rk_table_open(&t, store, "a")) {
		atomic_fetch_add(&failures, 1);
		return NULL;
	}
	rk_rmw_rule inc = {RK_RMW_INCREMENT, "f", (const uint8_t *)"n", 1, NULL, 0, 1};
	for (int i = 0; i < ATOMIC_ROUNDS; i++) {
		const char *row = i % 2 ? "hot1" : "hot2";
		rk_row *r;
		char q[16];
		snprintf(q, sizeof q, "slot%d", i);
		rk_filter has = {.kind = RK_FILTER_QUALIFIER_REGEX, .pattern = (const uint8_t *)q,
		                 .pattern_len = strlen(q)};
		rk_mutation claim = {RK_MUT_PUT, NULL, 0, "f", (const uint8_t *)q, strlen(q), 0,
		                     (const uint8_t *)"x", 1, 0};
		int matched;
		rk_mutation plain = {RK_MUT_PUT, (const uint8_t *)row, 4, "f", (const uint8_t *)"p", 1,
		                     0, (const uint8_t *)"y", 1, 0};
		if (rk_table_read_modify_write(&r, t, (const uint8_t *)row, 4, &inc, 1, 0) ||
		    rk_table_check_and_mutate(&matched, t, (const uint8_t *)"slots", 5, &has, NULL, 0,
		                              &claim, 1) ||
		    rk_table_apply(t, &plain, 1, NULL)) {
			fprintf(stderr, "worker %d: %s\n", id, rk_error_last());
			atomic_fetch_add(&failures, 1);
			break;
		}
		rk_row_free(r);
		if (!matched)
			atomic_fetch_add(&claims[i], 1);
	}
	rk_table_close(t);
	return NULL;
}

/* Moves the hot rows' region back and forth while the workers run. */
static void *atomic_mover(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20; i++) {
		rk_region_info *ri;
		size_t n;
		if (rk_store_regions(&ri, &n, store, "a"))
			break;
		unsigned to = ri[0].server ? 0 : 1;
		int rc = rk_region_move(store, ri[0].id, to);
		rk_region_info_free(ri, n);
		if (rc && rc != RK_EBUSY)
			atomic_fetch_add(&failures, 1);
		st_sleep_ms(5);
	}
	return NULL;
}

static void test_atomic_ops_race(void **unused)
{
	(void)unused;
	char *dir = st_tmpdir("atomic");
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	o.n_servers = 2;
	o.split_threshold = 0;
	ST_OK(rk_store_open(&store, dir, &o));
	rk_family_def f = {"f", 1, NULL};
	rk_table_def d = {"a", &f, 1, NULL, 0, 0};
	ST_OK(rk_table_create(store, &d));
	atomic_store(&failures, 0);
	pthread_t th[ATOMIC_THREADS + 1];
	for (int i = 0; i < ATOMIC_THREADS; i++)
		pthread_create(&th[i], NULL, atomic_worker, (void *)(intptr_t)i);
	pthread_create(&th[ATOMIC_THREADS], NULL, atomic_mover, NULL);
	for (int i = 0; i <= ATOMIC_THREADS; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(atomic_load(&failures), 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, store, "a"));
	uint64_t sum = 0;
	for (int k = 0; k < 2; k++) {
		rk_row *r;
		rk_column c = {"f", (const uint8_t *)"n", 1};
		rk_read_options ro = RK_READ_OPTIONS_INIT;
		ro.columns = &c;
		ro.ncolumns = 1;
		ST_OK(rk_table_get(&r, t, (const uint8_t *)(k ? "hot1" : "hot2"), 4, &ro));
		uint64_t v = 0;
		for (int b = 0; b < 8; b++)
			v = v << 8 | r->cells[0].value[b];
		sum += v;
		rk_row_free(r);
	}
	assert_int_equal(sum, ATOMIC_THREADS * ATOMIC_ROUNDS); /* no increment lost */
	for (int i = 0; i < ATOMIC_ROUNDS; i++)
		assert_int_equal(atomic_load(&claims[i]), 1); /* each slot claimed once */
	rk_table_close(t);
	ST_OK(rk_store_close(store));
	st_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concurrent_while_splitting),
		cmocka_unit_test(test_atomic_ops_race),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
