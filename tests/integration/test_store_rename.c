/*
 * rk_store_tables_rename on the embedded store (docs/formats.md B.7): two
 * tables swap names in one call and keep their cells and settings, through
 * a reopen; what is refused (a missing table, a taken name, a name twice,
 * an open handle) renames nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rowkey/store.h>

#include "integration/store_test_util.h"

static void make(rk_store *s, const char *name, const char *val)
{
	rk_family_def f = {"d", 1, NULL};
	rk_table_def def = {name, &f, 1, NULL, 0, 0};
	rk_table_prop p = {"schema", val, strlen(val)};
	ST_OK(rk_table_create_with(s, &def, &p, 1));
	rk_table *t;
	ST_OK(rk_table_open(&t, s, name));
	ST_OK(rk_table_put(t, (const uint8_t *)"r", 1, "d", (const uint8_t *)"q", 1, 0,
	                   (const uint8_t *)val, strlen(val)));
	rk_table_close(t);
}

/* Table `name` holds row r with value `val`, and its schema setting is `val`. */
static void holds(rk_store *s, const char *name, const char *val)
{
	rk_table *t;
	rk_row *r;
	void *p;
	size_t len;
	ST_OK(rk_table_open(&t, s, name));
	ST_OK(rk_table_get(&r, t, (const uint8_t *)"r", 1, NULL));
	assert_int_equal(r->ncells, 1);
	assert_memory_equal(r->cells[0].value, val, strlen(val));
	rk_row_free(r);
	rk_table_close(t);
	ST_OK(rk_store_table_prop_get(&p, &len, s, name, "schema"));
	assert_string_equal(p, val);
	free(p);
}

static void test_swap_and_refusals(void **state)
{
	(void)state;
	char *dir = st_tmpdir("rename");
	rk_store *s;
	ST_OK(rk_store_open(&s, dir, NULL));
	make(s, "ev", "old");
	make(s, "ev__rekey", "new");
	make(s, "other", "x");

	/* refused: nothing renamed */
	rk_table_rename taken[] = {{"ev__rekey", "other"}};
	assert_int_equal(rk_store_tables_rename(s, taken, 1), RK_EEXISTS);
	rk_table_rename missing[] = {{"ev", "ev__old"}, {"nope", "ev"}};
	assert_int_equal(rk_store_tables_rename(s, missing, 2), RK_ENOTFOUND);
	rk_table_rename twice[] = {{"ev", "a"}, {"ev", "b"}};
	assert_int_equal(rk_store_tables_rename(s, twice, 2), RK_EINVALID);
	rk_table *h;
	ST_OK(rk_table_open(&h, s, "ev__rekey"));
	rk_table_rename swap[] = {{"ev", "ev__old"}, {"ev__rekey", "ev"}};
	assert_int_equal(rk_store_tables_rename(s, swap, 2), RK_EBUSY);
	rk_table_close(h);
	holds(s, "ev", "old");
	holds(s, "ev__rekey", "new");

	/* the swap: one call, the second takes the name the first frees */
	ST_OK(rk_store_tables_rename(s, swap, 2));
	holds(s, "ev", "new");
	holds(s, "ev__old", "old");
	assert_int_equal(rk_table_open(&h, s, "ev__rekey"), RK_ENOTFOUND);
	ST_OK(rk_store_close(s));

	/* through a reopen: META holds the new names, in name order */
	ST_OK(rk_store_open(&s, dir, NULL));
	holds(s, "ev", "new");
	holds(s, "ev__old", "old");
	rk_table_info *ti;
	size_t n;
	ST_OK(rk_table_list(&ti, &n, s));
	assert_int_equal(n, 3);
	assert_string_equal(ti[0].name, "ev");
	assert_string_equal(ti[1].name, "ev__old");
	assert_string_equal(ti[2].name, "other");
	rk_table_info_free(ti, n);
	size_t problems = 1;
	ST_OK(rk_store_check(&problems, s, NULL, NULL));
	assert_int_equal(problems, 0);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swap_and_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
