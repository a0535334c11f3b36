/*
 * The public API a library on top of rowkey (or rowkey's own Bigtable part)
 * uses to plug in: rk_store_register hands a store-name scheme to an
 * opener, which reports failures with rk_error_set/rk_error_wrap. Public
 * headers only, as such a library would have.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rowkey/rowkey.h>

static char base[] = "/tmp/rk_reg_XXXXXX";
static int opened;

/* "test://NAME" is directory base/NAME; "test://bad" fails the rowkey way */
static int test_open(rk_store **out, const char *name, const rk_store_options *opts)
{
	opened++;
	const char *rest = name + strlen("test://");
	if (!strcmp(rest, "bad"))
		return rk_error_set(RK_ENOTFOUND, "no store '%s' here", rest);
	char dir[256];
	snprintf(dir, sizeof dir, "%s/%s", base, rest);
	int rc = rk_store_open(out, dir, opts);
	return rc < 0 ? rk_error_wrap(rc, "test store %s", rest) : rc;
}

static int other_open(rk_store **out, const char *name, const rk_store_options *opts)
{
	(void)out, (void)name, (void)opts;
	return rk_error_set(RK_EIO, "other opener");
}

static void test_a_registered_scheme_opens(void **state)
{
	(void)state;
	assert_int_equal(rk_store_register("test://", test_open), 0);
	rk_store *st;
	assert_int_equal(rk_store_open(&st, "test://one", NULL), 0);
	assert_int_equal(opened, 1);
	rk_family_def fam = {"d", 1, NULL};
	rk_table_def def = {"t", &fam, 1, NULL, 0, 0};
	assert_int_equal(rk_table_create(st, &def), 0);
	assert_int_equal(rk_store_close(st), 0);
	/* the table is in the directory the opener chose */
	char dir[256];
	snprintf(dir, sizeof dir, "%s/one", base);
	assert_int_equal(rk_store_open(&st, dir, NULL), 0);
	rk_table *t;
	assert_int_equal(rk_table_open(&t, st, "t"), 0);
	rk_table_close(t);
	assert_int_equal(rk_store_close(st), 0);

	/* the opener's own message reaches the caller */
	assert_int_equal(rk_store_open(&st, "test://bad", NULL), RK_ENOTFOUND);
	assert_null(st);
	assert_string_equal(rk_error_last(), "no store 'bad' here");
	/* options are checked before any opener runs */
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.n_servers = 0;
	opened = 0;
	assert_int_equal(rk_store_open(&st, "test://one", &o), RK_EINVALID);
	assert_int_equal(opened, 0);
	/* no logs to repair behind a registered scheme */
	size_t n;
	assert_int_equal(rk_store_repair(&n, "test://one", NULL, NULL), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "the test backend keeps no logs to repair"));

	/* a later call replaces the opener; NULL takes the scheme back */
	assert_int_equal(rk_store_register("test://", other_open), 0);
	assert_int_equal(rk_store_open(&st, "test://one", NULL), RK_EIO);
	assert_string_equal(rk_error_last(), "other opener");
	assert_int_equal(rk_store_register("test://", NULL), 0);
	assert_int_equal(rk_store_register("test://", NULL), 0); /* not registered: fine */
}

static void test_bad_schemes_are_refused(void **state)
{
	(void)state;
	const char *bad[] = {"test", "test:", "test:/", "://", "Test://", "te st://", "a://b",
	                     "abcdefghijklmnopq://", "test:// "};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(rk_store_register(bad[i], test_open), RK_EINVALID);
		assert_non_null(strstr(rk_error_last(), "store scheme"));
	}
	assert_int_equal(rk_store_register(NULL, test_open), RK_EINVALID);
	assert_int_equal(rk_store_register("abcdefghijklmnop://", test_open), 0); /* 16: the most */
	assert_int_equal(rk_store_register("abcdefghijklmnop://", NULL), 0);
}

static void test_at_most_so_many_schemes(void **state)
{
	(void)state;
	char s[RK_STORE_SCHEMES_MAX + 1][16];
	for (int i = 0; i <= RK_STORE_SCHEMES_MAX; i++)
		snprintf(s[i], sizeof s[i], "s%d://", i);
	for (int i = 0; i < RK_STORE_SCHEMES_MAX; i++)
		assert_int_equal(rk_store_register(s[i], test_open), 0);
	assert_int_equal(rk_store_register(s[RK_STORE_SCHEMES_MAX], test_open), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "schemes registered"));
	/* replacing one that is there still works, and freeing a slot makes room */
	assert_int_equal(rk_store_register(s[0], other_open), 0);
	assert_int_equal(rk_store_register(s[3], NULL), 0);
	assert_int_equal(rk_store_register(s[RK_STORE_SCHEMES_MAX], test_open), 0);
	rk_store *st;
	assert_int_equal(rk_store_open(&st, "s0://x", NULL), RK_EIO);
	for (int i = 0; i <= RK_STORE_SCHEMES_MAX; i++)
		assert_int_equal(rk_store_register(s[i], NULL), 0);
}

static void test_error_setters(void **state)
{
	(void)state;
	assert_int_equal(rk_error_set(RK_EINVALID, "row %d: bad %s", 3, "cell"), RK_EINVALID);
	assert_string_equal(rk_error_last(), "row 3: bad cell");
	assert_int_equal(rk_error_wrap(RK_EIO, "file %s", "a.csv"), RK_EIO);
	assert_string_equal(rk_error_last(), "file a.csv: row 3: bad cell");
	/* the last message as an argument of the next */
	rk_error_set(RK_EINVALID, "outer (%s)", rk_error_last());
	assert_string_equal(rk_error_last(), "outer (file a.csv: row 3: bad cell)");
}

int main(void)
{
	if (!mkdtemp(base))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_registered_scheme_opens),
		cmocka_unit_test(test_bad_schemes_are_refused),
		cmocka_unit_test(test_at_most_so_many_schemes),
		cmocka_unit_test(test_error_setters),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", base);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
