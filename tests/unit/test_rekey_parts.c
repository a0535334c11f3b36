/* Unit tests for two parts of rowkey rekey's copy: the Bloom filter of the
 * new table's keys (src/cli/rekey_seen.c: never "no" for a key added, over
 * several levels; few false "maybe"s) and the estimate of the rows a run
 * copies in all (src/cli/rekey_eta.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/rekey.h"

static void be64(uint8_t k[8], uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		k[i] = (uint8_t)v;
}

static void test_seen(void **state)
{
	(void)state;
	rk_rekey_seen s = {0};
	uint8_t k[9] = {'k'};
	be64(k + 1, 1);
	assert_int_equal(rk_rekey__seen_maybe(&s, k, sizeof k), 0); /* empty */
	/* 300,000 keys: the first level holds 65,536, so three more are made */
	for (uint64_t i = 0; i < 300000; i++) {
		be64(k + 1, i * 2);
		rk_rekey__seen_add(&s, k, sizeof k);
	}
	assert_true(s.nlv >= 3);
	for (uint64_t i = 0; i < 300000; i++) {
		be64(k + 1, i * 2);
		assert_int_equal(rk_rekey__seen_maybe(&s, k, sizeof k), 1);
	}
	unsigned fp = 0;
	for (uint64_t i = 0; i < 100000; i++) {
		be64(k + 1, i * 2 + 1);
		fp += (unsigned)rk_rekey__seen_maybe(&s, k, sizeof k);
	}
	assert_true(fp < 5000); /* about 2% a full level, less for the others */
	assert_int_equal(s.full, 0);
	s.full = 1; /* past the cap: every key "maybe" */
	be64(k + 1, 1);
	assert_int_equal(rk_rekey__seen_maybe(&s, k, sizeof k), 1);
	rk_rekey__seen_free(&s);
}

static void test_eta(void **state)
{
	(void)state;
	/* keys "t" u64(i) for i in 1000..100999: 100,000 rows */
	uint8_t first[9] = {'t'}, last[9] = {'t'}, k[9] = {'t'};
	be64(first + 1, 1000);
	be64(last + 1, 100999);
	rk_rekey_eta e = {0};
	e.ok = 1;
	e.last = malloc(sizeof last);
	memcpy(e.last, last, sizeof last);
	e.last_len = sizeof last;
	assert_int_equal(rk_rekey__eta_total(&e, first, sizeof first, 1), 0); /* no start yet */
	rk_rekey__eta_start(&e, first, sizeof first);
	be64(k + 1, 1000 + 25000);
	uint64_t t = rk_rekey__eta_total(&e, k, sizeof k, 25001);
	assert_true(t > 99000 && t < 101000);
	be64(k + 1, 100999);
	assert_int_equal(rk_rekey__eta_total(&e, k, sizeof k, 100000), 100000);
	assert_int_equal(rk_rekey__eta_total(&e, first, sizeof first, 1), 0); /* nowhere yet */
	rk_rekey__eta_free(&e);
	/* one key: no range, no estimate */
	rk_rekey_eta one = {0};
	one.ok = 1;
	one.last = malloc(sizeof last);
	memcpy(one.last, last, sizeof last);
	one.last_len = sizeof last;
	rk_rekey__eta_start(&one, last, sizeof last);
	assert_int_equal(rk_rekey__eta_total(&one, last, sizeof last, 1), 0);
	rk_rekey__eta_free(&one);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_seen),
	    cmocka_unit_test(test_eta),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
