/* Unit tests for src/key/units.c: sizes in and out, counts, rates, the
 * shortest round-trip float, the article before a number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "key/units.h"

static uint64_t size_of(const char *text, uint64_t unit)
{
	uint64_t v = 12345;
	assert_int_equal(rk__size_parse(&v, text, strlen(text), unit), 0);
	return v;
}

static void test_size_parse(void **state)
{
	(void)state;
	assert_true(size_of("0", 1) == 0);
	assert_true(size_of("4096", 1) == 4096);
	assert_true(size_of("4M", 1) == 4u << 20);
	assert_true(size_of("4m", 1) == 4u << 20);
	assert_true(size_of("64MiB", 1) == 64u << 20);
	assert_true(size_of("64mib", 1) == 64u << 20);
	assert_true(size_of("1.5G", 1) == 3ull << 29);
	assert_true(size_of("2KB", 1) == 2000);
	assert_true(size_of("5MB", 1) == 5000000);
	assert_true(size_of("1T", 1) == 1ull << 40);
	assert_true(size_of("100B", 1) == 100);
	assert_true(size_of(".5K", 1) == 512);
	assert_true(size_of("1.3K", 1) == 1331); /* 1331.2, rounded to a whole byte */
	/* a flag whose bare numbers are MiB: suffixes still mean what they say */
	assert_true(size_of("64", 1u << 20) == 64u << 20);
	assert_true(size_of("1G", 1u << 20) == 1u << 30);
	assert_true(size_of("8388608T", 1) == 1ull << 63);
	const char *bad[] = {"", "M", "-1", "+4M", " 4M", "4M ", "4 M", "4X", "4MiBs", "1.2.3",
	                     "0x10", "1e3", "inf", "nan", "4Mi", "99999999999999999999999", "16777216T"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint64_t v;
		assert_int_equal(rk__size_parse(&v, bad[i], strlen(bad[i]), 1), RK_EINVALID);
		assert_non_null(strstr(rk_error_last(), "is not a size"));
	}
	/* the message names the text and the forms */
	uint64_t v;
	rk__size_parse(&v, "4X", 2, 1);
	assert_non_null(strstr(rk_error_last(), "'4X'"));
	assert_non_null(strstr(rk_error_last(), "KiB"));
}

static void test_size_str(void **state)
{
	(void)state;
	char b[RK_NUM_STR];
	assert_string_equal(rk__size_str(b, 0), "0 B");
	assert_string_equal(rk__size_str(b, 512), "512 B");
	assert_string_equal(rk__size_str(b, 1023), "1023 B");
	assert_string_equal(rk__size_str(b, 1024), "1 KiB");
	assert_string_equal(rk__size_str(b, 14541), "14.2 KiB");
	assert_string_equal(rk__size_str(b, 4u << 20), "4 MiB");
	assert_string_equal(rk__size_str(b, 3ull << 29), "1.5 GiB");
	assert_string_equal(rk__size_str(b, UINT64_MAX), "16 EiB");
	/* what it prints reads back as about the same size */
	for (uint64_t x = 1; x < (1ull << 50); x = x * 3 + 7) {
		uint64_t back;
		rk__size_str(b, x);
		char *sp = strchr(b, ' ');
		memmove(sp, sp + 1, strlen(sp));
		assert_int_equal(rk__size_parse(&back, b, strlen(b), 1), 0);
		assert_true(fabs((double)back - (double)x) <= (double)x * 0.05 + 1);
	}
}

static void test_counts_and_rates(void **state)
{
	(void)state;
	char b[RK_NUM_STR];
	assert_string_equal(rk__count_text(b, RK_NUM_STR, 0), "0");
	assert_string_equal(rk__count_text(b, RK_NUM_STR, 999), "999");
	assert_string_equal(rk__count_text(b, RK_NUM_STR, 1000), "1,000");
	assert_string_equal(rk__count_text(b, RK_NUM_STR, 120000), "120,000");
	assert_string_equal(rk__count_text(b, RK_NUM_STR, 1234567), "1,234,567");
	assert_string_equal(rk__count_text(b, RK_NUM_STR, UINT64_MAX), "18,446,744,073,709,551,615");
	assert_string_equal(rk__count_str(b, 4000, "cells"), "4,000 cells");
	assert_string_equal(rk__count_str(b, 0, "rows"), "0 rows");
	assert_string_equal(rk__count_str(b, UINT64_MAX, "cells"), "18,446,744,073,709,551,615 cells");
	assert_string_equal(rk__count_str(b, 7, NULL), "7");
	assert_string_equal(rk__rate_str(b, 13008.4, "rows"), "13,008 rows/s");
	assert_string_equal(rk__rate_str(b, 2.5, "ops"), "2.5 ops/s");
	assert_string_equal(rk__rate_str(b, 2000, NULL), "2,000/s");
	assert_string_equal(rk__rate_str(b, 99.96, NULL), "100/s");
}

static void round_trips(double v)
{
	char b[64];
	rk__double_str(b, sizeof b, v);
	double back = strtod(b, NULL);
	assert_memory_equal(&back, &v, sizeof v); /* exactly, -0 included */
	/* and no shorter text would: one digit less does not read back */
	char e[64];
	snprintf(e, sizeof e, "%.17g", v);
	assert_true(strlen(b) <= strlen(e) + 4);
}

static void test_shortest_double(void **state)
{
	(void)state;
	char b[64];
	struct {
		double v;
		const char *want;
	} cases[] = {
		{19.55, "19.55"}, {0.1, "0.1"}, {1.5, "1.5"}, {100, "100"}, {-42.25, "-42.25"},
		{1e16, "10000000000000000"}, {1e17, "1e+17"}, {1e22, "1e+22"}, {0.0001, "0.0001"},
		{0.00001, "1e-05"}, {123456789.125, "123456789.125"}, {-0.0, "-0"}, {0, "0"},
		{5e-324, "5e-324"}, {DBL_MAX, "1.7976931348623157e+308"}, {1.0 / 3, "0.3333333333333333"},
		{INFINITY, "inf"}, {-INFINITY, "-inf"}, {NAN, "nan"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rk__double_str(b, sizeof b, cases[i].v);
		assert_string_equal(b, cases[i].want);
	}
	/* random bit patterns read back exactly */
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		memcpy(&v, &x, sizeof v);
		if (isnan(v) || isinf(v))
			continue;
		round_trips(v);
	}
	for (double v = 0.01; v < 1e6; v = v * 1.37 + 0.01)
		round_trips(v);
}

static void test_article(void **state)
{
	(void)state;
	const uint64_t an[] = {8, 11, 18, 80, 88, 800, 8000, 11000, 18000, 8000000, 11000000, 18500};
	const uint64_t a[] = {0, 1, 2, 7, 10, 12, 16, 19, 100, 110, 180, 1100, 1800, 16000, 111000};
	for (size_t i = 0; i < sizeof an / sizeof an[0]; i++)
		assert_string_equal(rk__article(an[i]), "an");
	for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
		assert_string_equal(rk__article(a[i]), "a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_parse),      cmocka_unit_test(test_size_str),
		cmocka_unit_test(test_counts_and_rates), cmocka_unit_test(test_shortest_double),
		cmocka_unit_test(test_article),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
