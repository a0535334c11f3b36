/*
 * Region server capacity (src/store/local/capacity.c): the token bucket's
 * arithmetic on a virtual clock. Off does nothing; a new bucket is empty;
 * debt makes takers wait in turn; a short gap after the debt is paid is
 * credited (a taker's oversleep), up to the burst; an idle server banks
 * nothing; over a long run the admitted rate is the capacity, for
 * operations and for bytes, whichever side is the tighter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "store/local/capacity.h"

#define MS 1000000LL
#define SEC 1000000000LL

static void test_off(void **state)
{
	(void)state;
	rk__cap c;
	rk_cap__init(&c, 0, 0);
	assert_int_equal(c.on, 0);
	rk_cap__fini(&c);
	rk_cap__init(&c, 0, 1000);
	assert_int_equal(c.on, 1);
	assert_true(rk_cap__debit(&c, 0, 1000000, 0) == 0); /* ops unlimited */
	rk_cap__fini(&c);
}

static void test_burst_then_debt(void **state)
{
	(void)state;
	rk__cap c;
	rk_cap__init(&c, 1000, 0); /* burst: 50 ms of capacity, 50 ops */
	assert_int_equal(c.on, 1);
	int64_t w = rk_cap__debit(&c, 0, 10, 0); /* starts empty */
	assert_true(w > 9 * MS && w < 11 * MS);
	w = rk_cap__debit(&c, 0, 10, 0); /* queues behind the first */
	assert_true(w > 19 * MS && w < 21 * MS);
	/* 50 ms later the 20 ms of debt is paid and 30 ms credited (an
	 * oversleep): 30 at once, the next ones wait */
	assert_true(rk_cap__debit(&c, 50 * MS, 30, 0) == 0);
	w = rk_cap__debit(&c, 50 * MS, 10, 0);
	assert_true(w > 9 * MS && w < 11 * MS);
	/* another 40 ms gap once that debt is paid: 40 credited */
	assert_true(rk_cap__debit(&c, 100 * MS, 40, 0) == 0);
	w = rk_cap__debit(&c, 100 * MS, 10, 0);
	assert_true(w > 0 && w < 11 * MS);
	/* a second later the server has been idle: it banked nothing */
	w = rk_cap__debit(&c, SEC, 10, 0);
	assert_true(w > 9 * MS && w < 11 * MS);
	rk_cap__fini(&c);
}

/* A taker that waits as told admits `rate` per second over a long run. */
static double steady_rate(uint64_t ops_s, uint64_t bytes_s, uint64_t ops, uint64_t bytes)
{
	rk__cap c;
	rk_cap__init(&c, ops_s, bytes_s);
	int64_t now = 0;
	uint64_t n = 0;
	while (now < 10 * SEC) {
		now += rk_cap__debit(&c, now, ops, bytes);
		now += 100000; /* 0.1 ms of work between takes */
		n++;
	}
	rk_cap__fini(&c);
	return (double)n / ((double)now / 1e9);
}

static void test_steady(void **state)
{
	(void)state;
	double r = steady_rate(500, 0, 8, 0); /* takes of 8 ops at 500 ops/s */
	assert_true(r * 8 > 490 && r * 8 < 510);
	r = steady_rate(0, 100000, 1, 1000); /* 1000-byte takes at 100 kB/s */
	assert_true(r > 98 && r < 102);
	r = steady_rate(1000, 100000, 1, 1000); /* bytes are the tighter */
	assert_true(r > 98 && r < 102);
	r = steady_rate(50, 100000, 1, 1000); /* ops are */
	assert_true(r > 49 && r < 51);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_burst_then_debt),
		cmocka_unit_test(test_steady),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
