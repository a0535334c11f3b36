/* Unit tests for src/key/suggest.c: which name "did you mean" offers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "key/suggest.h"

static const char *best(const char *word, const char *const *names)
{
	static rk__suggest sg;
	rk__suggest_init(&sg, word, strlen(word));
	for (size_t i = 0; names[i]; i++)
		rk__suggest_add(&sg, names[i]);
	return rk__suggest_best(&sg);
}

static void test_slips(void **state)
{
	(void)state;
	const char *cmds[] = {"encode", "decode", "create", "regions", "scan", "serve", "stats", NULL};
	assert_string_equal(best("creat", cmds), "create");   /* a letter missing */
	assert_string_equal(best("craete", cmds), "create");  /* two swapped */
	assert_string_equal(best("regoins", cmds), "regions");
	assert_string_equal(best("sacn", cmds), "scan");
	assert_string_equal(best("ENCODE", cmds), "encode");  /* case aside */
	assert_string_equal(best("reg", cmds), "regions");    /* the start of a name */
	assert_null(best("frobnicate", cmds));
	assert_null(best("x", cmds));
	assert_null(best("create", cmds)); /* the word itself is no suggestion */
}

static void test_closest_wins(void **state)
{
	(void)state;
	const char *opts[] = {"split", "split-threshold", "schema", "servers", NULL};
	assert_string_equal(best("split-treshold", opts), "split-threshold");
	assert_string_equal(best("servres", opts), "servers");
	assert_string_equal(best("shema", opts), "schema");
	const char *fields[] = {"user", "ts", "kind", NULL};
	assert_string_equal(best("usr", fields), "user");
	assert_null(best("domain", fields));
}

static void test_long_words(void **state)
{
	(void)state;
	char longname[100];
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = 0;
	char other[100];
	memcpy(other, longname, sizeof other);
	other[0] = 'b';
	const char *names[] = {longname, "abc", NULL};
	assert_null(best(other, names)); /* past 64 bytes: not compared, no crash */
	assert_string_equal(best(longname + 10, names), longname); /* but its start is */
	assert_string_equal(best("abd", names), "abc");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slips),
		cmocka_unit_test(test_closest_wins),
		cmocka_unit_test(test_long_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
