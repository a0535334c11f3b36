/*
 * The LevelDB engine's block cache (engine_leveldb.c): an engine given a
 * shared cache (rk_ecache__new) keeps the verified blocks it reads there,
 * up to the cache's size rather than LevelDB's private 8 MiB, and engines
 * sharing one cache see each other's blocks in it. Read checksums are
 * verified only on a read from disk, so this cache is what decides how much
 * of a read path pays for verification (bench/RESULTS.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "integration/store_test_util.h"
#include "store/local/engine.h"
#include "store/local/local_int.h"

/* 1 KiB values that snappy shrinks: LevelDB caches a block it had to
 * decompress; one stored raw is read in place from the mmap'd table file,
 * never cached, and verified at every read */
#define ROWS 12000
#define MIB (1024u * 1024u)

/* Writes the rows, then reopens the engine so that they are all in table
 * files (the reopen flushes the replayed log), and reads them all. */
static rk__engine *load_and_read(const char *dir, rk__ecache *cache)
{
	rk__engine_options eo = {256 << 10, 1, 1, NULL, NULL, cache, 0};
	rk__engine *e;
	ST_OK(rk_engine__open(&e, dir, &eo));
	uint8_t val[1024];
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < ROWS; i += 100) {
		rk__ebatch *b = rk_ebatch__new();
		for (int j = i; j < i + 100; j++) {
			char key[16];
			for (size_t k = 0; k < sizeof val; k += 8) { /* 2 random bytes in 8 */
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				memcpy(val + k, &x, 2);
				memset(val + k + 2, 'a', 6);
			}
			snprintf(key, sizeof key, "k%08d", j);
			rk_ebatch__put(b, (const uint8_t *)key, 9, val, sizeof val);
		}
		ST_OK(rk_engine__write(e, b, 0));
		rk_ebatch__free(b);
	}
	rk_engine__close(e);
	ST_OK(rk_engine__open(&e, dir, &eo));
	rk__eiter *it = rk_eiter__new(e);
	size_t n = 0;
	for (rk_eiter__seek_first(it); rk_eiter__valid(it); rk_eiter__next(it))
		n++;
	ST_OK(rk_eiter__status(it));
	rk_eiter__free(it);
	assert_int_equal(n, ROWS);
	return e;
}

static void test_private_cache_is_8_mib(void **state)
{
	(void)state;
	char *dir = st_tmpdir("ecache8");
	rk__engine *e = load_and_read(dir, NULL);
	uint64_t m = rk_engine__memory(e);
	printf("private cache: %.1f MiB in memory after reading 12 MiB\n", (double)m / MIB);
	/* 8 MiB of blocks, full, and a nearly empty memtable: no more, no less */
	assert_true(m >= 7 * MIB && m <= 9 * MIB);
	rk_engine__close(e);
	st_rmtree(dir);
	free(dir);
}

static void test_shared_cache(void **state)
{
	(void)state;
	char *a = st_tmpdir("ecachea"), *b = st_tmpdir("ecacheb");
	rk__ecache *c = rk_ecache__new(32 * MIB);
	assert_non_null(c);
	rk__engine *ea = load_and_read(a, c);
	uint64_t m = rk_engine__memory(ea);
	printf("shared 32 MiB cache: %.1f MiB in memory after reading 12 MiB\n", (double)m / MIB);
	assert_true(m >= 11 * MIB); /* every block read stayed */
	/* a second engine on the same cache sees the first one's blocks */
	rk__engine_options eo = {0, 1, 1, NULL, NULL, c, 0};
	rk__engine *eb;
	ST_OK(rk_engine__open(&eb, b, &eo));
	assert_true(rk_engine__memory(eb) >= 11 * MIB);
	rk_engine__close(eb);
	rk_engine__close(ea);
	rk_ecache__free(c); /* after the engines: they did not own it */
	st_rmtree(a);
	st_rmtree(b);
	free(a);
	free(b);
}

/* The store gives its servers' engines one cache of block_cache_size. */
static void test_store_shares_one_cache(void **state)
{
	(void)state;
	char *dir = st_tmpdir("scache");
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	o.n_servers = 2;
	o.block_cache_size = 32 * MIB;
	rk_store *st;
	ST_OK(rk_store_open(&st, dir, &o));
	rk_family_def fam = {"f", 1, NULL};
	rk_bytes split = {(const uint8_t *)"k00006000", 9};
	rk_table_def def = {"t", &fam, 1, &split, 1, 0}; /* one region a server */
	ST_OK(rk_table_create(st, &def));
	rk_table *t;
	ST_OK(rk_table_open(&t, st, "t"));
	uint8_t val[1024];
	memset(val, 'a', sizeof val);
	for (int i = 0; i < ROWS; i++) {
		char row[16];
		snprintf(row, sizeof row, "k%08d", i);
		memcpy(val, row, 9); /* a little variety; snappy still shrinks it */
		ST_OK(rk_table_put(t, (const uint8_t *)row, 9, "f", (const uint8_t *)"q", 1, 1, val,
		                   sizeof val));
	}
	rk_table_close(t);
	ST_OK(rk_store_close(st));
	ST_OK(rk_store_open(&st, dir, &o)); /* the reopen leaves every row in table files */
	ST_OK(rk_table_open(&t, st, "t"));
	rk_scan *sc;
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	ST_OK(rk_scan_open(&sc, t, &so));
	const rk_row *r;
	size_t n = 0;
	int rc;
	while ((rc = rk_scan_next(&r, sc)) == 0)
		n++;
	assert_int_equal(rc, RK_EITEROVER);
	assert_int_equal(n, ROWS);
	rk_scan_close(sc);
	rk__local *s = (rk__local *)st;
	uint64_t m0 = rk_engine__memory(s->servers[0].engine),
	         m1 = rk_engine__memory(s->servers[1].engine);
	printf("store, 2 servers, one 32 MiB cache: %.1f and %.1f MiB\n", (double)m0 / MIB,
	       (double)m1 / MIB);
	assert_true(m0 >= 10 * MIB && m1 >= 10 * MIB); /* each sees both servers' blocks */
	rk_table_close(t);
	ST_OK(rk_store_close(st));
	st_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_private_cache_is_8_mib),
		cmocka_unit_test(test_shared_cache),
		cmocka_unit_test(test_store_shares_one_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
