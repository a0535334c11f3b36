/*
 * The engine's idle iterators for point reads (engine_leveldb.c), shared by
 * threads without a lock: readers take and give back iterators from several
 * threads while a writer's writes make the idle ones stale. Every read must
 * see each write acknowledged before its take, and nothing may be freed
 * twice or leaked (the TSan and ASan builds run this).
 * RK_TEST_LABEL_CONCURRENCY
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "integration/store_test_util.h"
#include "store/local/engine.h"

#define READERS 4
#define READS 3000
#define WRITES 400

static rk__engine *eng;
static _Atomic int written; /* keys k0..k(written-1) acknowledged */
static _Atomic int bad;     /* reads that missed an acknowledged key */
static _Atomic int done;    /* the writer finished */

static void key_of(char *k, size_t n, int i)
{
	snprintf(k, n, "k%08d", i);
}

static void *writer(void *arg)
{
	(void)arg;
	for (int i = 1; i < WRITES; i++) {
		char k[16];
		key_of(k, sizeof k, i);
		rk__ebatch *b = rk_ebatch__new();
		rk_ebatch__put(b, (const uint8_t *)k, 9, (const uint8_t *)"v", 1);
		if (rk_engine__write(eng, b, 0))
			atomic_fetch_add(&bad, 1);
		rk_ebatch__free(b);
		atomic_store(&written, i + 1);
	}
	atomic_store(&done, 1);
	return NULL;
}

static void *reader(void *arg)
{
	/* at least READS reads, and on while the writer writes */
	for (int i = 0; i < READS || !atomic_load(&done); i++) {
		int w = atomic_load(&written);
		char k[16];
		key_of(k, sizeof k, w - 1);
		rk__eiter *it = rk_eiter__take(eng);
		rk_eiter__seek(it, (const uint8_t *)k, 9);
		size_t kl = 0;
		const uint8_t *got = rk_eiter__valid(it) ? rk_eiter__key(it, &kl) : NULL;
		if (!got || kl != 9 || memcmp(got, k, 9))
			atomic_fetch_add(&bad, 1);
		/* both ways back into the pool */
		if ((i + (int)(intptr_t)arg) & 1) {
			rk_eiter__give_back(it);
		} else if (rk_eiter__status(it) == 0) {
			rk_eiter__give_back_ok(it);
		} else {
			atomic_fetch_add(&bad, 1);
			rk_eiter__give_back(it);
		}
	}
	return NULL;
}

static void test_pool_shared_by_threads(void **state)
{
	(void)state;
	char *dir = st_tmpdir("epool");
	rk__engine_options eo = {1 << 20, 1, 1, NULL, NULL, NULL, 0};
	ST_OK(rk_engine__open(&eng, dir, &eo));
	rk__ebatch *b = rk_ebatch__new();
	rk_ebatch__put(b, (const uint8_t *)"k00000000", 9, (const uint8_t *)"v", 1);
	ST_OK(rk_engine__write(eng, b, 0));
	rk_ebatch__free(b);
	atomic_store(&written, 1);
	/* one thread: an iterator given back before a write is not handed out
	   after it */
	rk__eiter *it = rk_eiter__take(eng);
	rk_eiter__give_back(it);
	b = rk_ebatch__new();
	rk_ebatch__put(b, (const uint8_t *)"k00000000", 9, (const uint8_t *)"w", 1);
	ST_OK(rk_engine__write(eng, b, 0));
	rk_ebatch__free(b);
	it = rk_eiter__take(eng);
	rk_eiter__seek(it, (const uint8_t *)"k00000000", 9);
	size_t vl;
	assert_true(rk_eiter__valid(it));
	assert_memory_equal(rk_eiter__value(it, &vl), "w", 1);
	rk_eiter__give_back(it);
	pthread_t th[READERS + 1];
	for (int i = 0; i < READERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, reader, (void *)(intptr_t)i), 0);
	assert_int_equal(pthread_create(&th[READERS], NULL, writer, NULL), 0);
	for (int i = 0; i <= READERS; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(atomic_load(&bad), 0);
	/* after the writes, the pool serves reads again (and the close frees it) */
	for (int i = 0; i < 10; i++) {
		rk__eiter *it = rk_eiter__take(eng);
		rk_eiter__seek_first(it);
		assert_true(rk_eiter__valid(it));
		rk_eiter__give_back(it);
	}
	rk_engine__close(eng);
	st_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_shared_by_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
