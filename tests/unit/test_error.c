/* Unit tests for src/key/error.c: per-thread messages and code names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>

#include "key/error.h"

static void test_message_and_code(void **state)
{
	(void)state;
	assert_int_equal(rk__err(RK_EINVALID, "line %d: bad %s", 3, "token"), RK_EINVALID);
	assert_string_equal(rk_error_last(), "line 3: bad token");
	assert_int_equal(rk__err_wrap(RK_EINVALID, "schema.rk"), RK_EINVALID);
	assert_string_equal(rk_error_last(), "schema.rk: line 3: bad token");
	assert_string_equal(rk_strerror(RK_ECORRUPT), "corrupt");
	/* the previous message as an argument of the next one */
	rk__err(RK_EINVALID, "inner");
	rk__err(RK_EINVALID, "outer: %s", rk_error_last());
	assert_string_equal(rk_error_last(), "outer: inner");
	assert_string_equal(rk_strerror(42), "unknown error");
}

static void *other_thread(void *arg)
{
	(void)arg;
	rk__err(RK_EIO, "from the other thread");
	return NULL;
}

static void test_messages_are_per_thread(void **state)
{
	(void)state;
	rk__err(RK_EINVALID, "mine");
	pthread_t t;
	pthread_create(&t, NULL, other_thread, NULL);
	pthread_join(t, NULL);
	assert_string_equal(rk_error_last(), "mine");
}

static void test_err_bytes(void **state)
{
	(void)state;
	char buf[64];
	const uint8_t b[] = {'a', 0x00, 0xff, 'z'};
	assert_string_equal(rk__err_bytes(buf, sizeof buf, b, 4), "a\\x00\\xffz");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_message_and_code),
		cmocka_unit_test(test_messages_are_per_thread),
		cmocka_unit_test(test_err_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
