/*
 * Split policy (src/store/local/split.c): the stepping limit, rounding of
 * split points to bucket boundaries (never a point outside the region or off
 * a boundary, for random inputs), and the middle key of a real region.
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
#include "store/cell.h"
#include "store/local/split.h"

static void test_limit(void **state)
{
	(void)state;
	assert_true(rk_split__limit(0, 1) == UINT64_MAX);
	assert_true(rk_split__limit(1000, 1) == 250);
	assert_true(rk_split__limit(1000, 2) == 1000);
	assert_true(rk_split__limit(1000, 50) == 1000);
	assert_true(rk_split__limit(2, 1) == 1);
}

static int cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	return rk_meta__row_cmp(a, al, b, bl);
}

static void test_round_examples(void **state)
{
	(void)state;
	uint8_t out[8];
	size_t n;
	/* mid inside bucket 0x05: floor is 0x05 itself */
	assert_int_equal(rk_split__round(out, &n, (const uint8_t *)"\x05zz", 3, (const uint8_t *)"",
	                                 0, NULL, 0, 1),
	                 1);
	assert_int_equal(n, 1);
	assert_int_equal(out[0], 0x05);
	/* region [05, 06): holds one bucket, no boundary strictly inside */
	assert_int_equal(rk_split__round(out, &n, (const uint8_t *)"\x05zz", 3,
	                                 (const uint8_t *)"\x05", 1, (const uint8_t *)"\x06", 1, 1),
	                 0);
	/* region [05, 07): floor 05 is the start, ceil 06 is inside */
	assert_int_equal(rk_split__round(out, &n, (const uint8_t *)"\x05zz", 3,
	                                 (const uint8_t *)"\x05", 1, (const uint8_t *)"\x07", 1, 1),
	                 1);
	assert_int_equal(out[0], 0x06);
	/* two-byte buckets, short mid */
	assert_int_equal(rk_split__round(out, &n, (const uint8_t *)"\x01", 1, (const uint8_t *)"", 0,
	                                 NULL, 0, 2),
	                 1);
	assert_int_equal(n, 2);
	assert_memory_equal(out, "\x00\xff", 2);
	/* no buckets: mid itself when inside */
	assert_int_equal(rk_split__round(out, &n, (const uint8_t *)"m", 1, (const uint8_t *)"a", 1,
	                                 (const uint8_t *)"z", 1, 0),
	                 1);
	assert_memory_equal(out, "m", 1);
	assert_int_equal(rk_split__round(out, &n, (const uint8_t *)"a", 1, (const uint8_t *)"a", 1,
	                                 (const uint8_t *)"z", 1, 0),
	                 0);
}

static void test_round_property(void **state)
{
	(void)state;
	uint64_t x = 0x1234567;
	for (int i = 0; i < 200000; i++) {
		uint8_t mid[4], s[4], e[4], out[8];
		size_t ml, sl, el, n;
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		unsigned L = (unsigned)(x >> 60) % 3;
		ml = 1 + (x >> 20) % 3;
		sl = (x >> 24) % 3;
		el = 1 + (x >> 28) % 3;
		for (int k = 0; k < 4; k++) {
			mid[k] = (uint8_t)(x >> (8 * k)) % 4;
			s[k] = (uint8_t)(x >> (8 * k + 2)) % 4;
			e[k] = (uint8_t)(x >> (8 * k + 4)) % 4;
		}
		int unbounded = (x >> 40) % 4 == 0;
		if (cmp(s, sl, mid, ml) >= 0 || (!unbounded && cmp(mid, ml, e, el) >= 0))
			continue; /* mid must be inside the region */
		if (rk_split__round(out, &n, mid, ml, s, sl, unbounded ? NULL : e, el, L)) {
			assert_true(cmp(out, n, s, sl) > 0);
			if (!unbounded)
				assert_true(cmp(out, n, e, el) < 0);
			if (L)
				assert_int_equal(n, L);
		} else {
			assert_true(L > 0); /* without buckets mid itself always works */
		}
	}
}

static void test_middle_key(void **state)
{
	(void)state;
	char *dir = st_tmpdir("mid");
	rk__engine_options eo = {0, 1, 0, NULL, NULL, NULL, 0};
	rk__engine *e;
	ST_OK(rk_engine__open(&e, dir, &eo));
	rk__ebatch *b = rk_ebatch__new();
	uint8_t key[64], val[100];
	memset(val, 'v', sizeof val);
	for (int i = 0; i < 1000; i++) {
		char row[16];
		snprintf(row, sizeof row, "row%04d", i);
		size_t kl = rk_cell__encode(key, 3, (const uint8_t *)row, 7, "f", 1, NULL, 0, 0, 1,
		                            RK_CELL_PUT);
		rk_ebatch__put(b, key, kl, val, sizeof val);
	}
	ST_OK(rk_engine__write(e, b, 0));
	rk_ebatch__free(b);

	rk__meta m;
	rk_meta__init(&m, 1);
	rk__tmeta t = {0};
	t.id = 3;
	strcpy(t.name, "t");
	rk__region *r = rk_meta__region_new(&m, &t, 1, NULL, 0, NULL, 0, 0);
	atomic_store(&r->size, 1000 * 130);
	rk__eiter *it = rk_eiter__new(e);
	uint8_t *mid;
	size_t ml;
	uint64_t left, total;
	ST_OK(rk_split__middle(&mid, &ml, &left, &total, it, r));
	assert_int_equal(ml, 7);
	int at = atoi((const char *)mid + 3);
	assert_true(at >= 490 && at <= 510);
	assert_true(left * 2 >= total * 49 / 50 && left * 2 <= total * 51 / 50);
	free(mid);
	/* a region with one row cannot split */
	rk__region *one = rk_meta__region_new(&m, &t, 2, (const uint8_t *)"row0005", 7,
	                                      (const uint8_t *)"row0006", 7, 0);
	assert_int_equal(rk_split__middle(&mid, &ml, &left, &total, it, one), RK_ENOTFOUND);
	rk_eiter__free(it);
	rk_meta__fini(&m);
	rk_engine__close(e);
	st_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_round_examples),
		cmocka_unit_test(test_round_property),
		cmocka_unit_test(test_middle_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
