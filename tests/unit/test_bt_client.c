/*
 * Unit tests for the pure parts of src/store/bigtable/bt_client.c: URI
 * parsing, regex quoting, prefix ranges, status-code mapping. The parts that
 * talk to a server are tested against the emulator in
 * tests/integration/test_bt_emulator.c.
 */
#ifdef RK_WITH_BIGTABLE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "key/error.h"
#include "store/bigtable/bt_client.h"

static void test_parse_uri(void **state)
{
	(void)state;
	char p[32], i[32];
	assert_int_equal(rk_bt__parse_uri(p, i, sizeof p, "bigtable://my-proj/my-inst"), 0);
	assert_string_equal(p, "my-proj");
	assert_string_equal(i, "my-inst");
	assert_int_equal(rk_bt__parse_uri(p, i, sizeof p, "bigtable://example.com:proj/i"), 0);
	assert_string_equal(p, "example.com:proj");
	const char *bad[] = {NULL, "", "bigtable:", "bigtable://", "bigtable://p", "bigtable://p/",
	                     "bigtable:///i", "bigtable://p/i/", "bigtable://p/i/t", "BIGTABLE://p/i",
	                     "bigtable://P!/i", "bigtable://p/I.x", "bigtable://a-project-id-that-is-over-32-bytes-long/i"};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		if (rk_bt__parse_uri(p, i, sizeof p, bad[k]) != RK_EINVALID)
			fail_msg("accepted '%s'", bad[k] ? bad[k] : "(null)");
		assert_non_null(strstr(rk_error_last(), "bad URI"));
	}
}

static void test_regex_quote(void **state)
{
	(void)state;
	char out[64];
	assert_int_equal(rk_bt__regex_quote(out, (const uint8_t *)"abc_XYZ09", 9), 9);
	assert_string_equal(out, "abc_XYZ09");
	assert_int_equal(rk_bt__regex_quote(out, (const uint8_t *)"a.b*(c)", 7), 11);
	assert_string_equal(out, "a\\.b\\*\\(c\\)");
	const uint8_t bin[] = {0x00, ' ', '\n', 0xff, '\\'};
	assert_int_equal(rk_bt__regex_quote(out, bin, sizeof bin), 18);
	assert_string_equal(out, "\\x00\\x20\\x0a\\xff\\\\");
	assert_int_equal(rk_bt__regex_quote(out, bin, 0), 0);
	assert_string_equal(out, "");
}

static void test_prefix_end(void **state)
{
	(void)state;
	uint8_t out[8];
	assert_int_equal(rk_bt__prefix_end(out, (const uint8_t *)"ab", 2), 2);
	assert_memory_equal(out, "ac", 2);
	const uint8_t p1[] = {'a', 0xff, 0xff};
	assert_int_equal(rk_bt__prefix_end(out, p1, 3), 1);
	assert_int_equal(out[0], 'b');
	const uint8_t p2[] = {0x01, 0xfe};
	assert_int_equal(rk_bt__prefix_end(out, p2, 2), 2);
	assert_int_equal(out[1], 0xff);
	const uint8_t p3[] = {0xff, 0xff};
	assert_int_equal(rk_bt__prefix_end(out, p3, 2), 0);
	assert_int_equal(rk_bt__prefix_end(out, p3, 0), 0);
}

static void test_status_codes(void **state)
{
	(void)state;
	assert_int_equal(rk_bt__code_rk(0), 0);
	assert_int_equal(rk_bt__code_rk(5), RK_ENOTFOUND);   /* NOT_FOUND */
	assert_int_equal(rk_bt__code_rk(6), RK_EEXISTS);     /* ALREADY_EXISTS */
	assert_int_equal(rk_bt__code_rk(3), RK_EINVALID);    /* INVALID_ARGUMENT */
	assert_int_equal(rk_bt__code_rk(9), RK_EINVALID);    /* FAILED_PRECONDITION */
	assert_int_equal(rk_bt__code_rk(8), RK_EBUSY);       /* RESOURCE_EXHAUSTED */
	assert_int_equal(rk_bt__code_rk(14), RK_EIO);        /* UNAVAILABLE */
	assert_int_equal(rk_bt__code_rk(16), RK_EIO);        /* UNAUTHENTICATED */
	assert_int_equal(rk_bt__code_rk(99), RK_EIO);
}

static void test_now_is_whole_milliseconds(void **state)
{
	(void)state;
	for (int i = 0; i < 100; i++)
		assert_int_equal(rk_bt__now_micros() % 1000, 0);
	assert_true(rk_bt__now_micros() > 1600000000000000LL); /* after 2020 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_uri),
		cmocka_unit_test(test_regex_quote),
		cmocka_unit_test(test_prefix_end),
		cmocka_unit_test(test_status_codes),
		cmocka_unit_test(test_now_is_whole_milliseconds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
#include <stdio.h>
int main(void)
{
	puts("skipped: built without RK_WITH_BIGTABLE");
	return 77; /* ctest: SKIP_RETURN_CODE */
}
#endif
