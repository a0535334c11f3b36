/*
 * rk_store_tables_rename on the Bigtable backend (docs/formats.md, Part C,
 * Table names), on Google's emulator: two tables swap names in one write
 * of the `#names` row and keep their cells and settings, while their
 * Bigtable ids (what rk_bigtable_table_id gives, and what cbt opens) stay;
 * the listing shows the names; refusals rename nothing; a table created
 * under a name whose own id is taken gets a fresh id, and a drop deletes
 * the id behind the name. Two processes (two stores) changing the names at
 * once: the one that read the row before the other wrote is refused
 * (RK_EBUSY) and writes nothing, with the row new or already written.
 */
#ifdef RK_WITH_BIGTABLE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <rowkey/bigtable.h>

#include "integration/emulator.h"
#include "integration/store_test_util.h"
#include "store/bigtable/bt_store.h"

static emulator emu;

static int setup(void **state)
{
	(void)state;
	if (emulator_start(&emu) < 0) {
		fprintf(stderr, "could not start %s\n", EMULATOR);
		return -1;
	}
	setenv("BIGTABLE_EMULATOR_HOST", emu.host, 1);
	rk_bigtable_register();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	emulator_stop(&emu);
	return 0;
}

static rk_store *open_store(const char *instance)
{
	char uri[128];
	snprintf(uri, sizeof uri, "bigtable://p/%s", instance);
	rk_store *s;
	ST_OK(rk_store_open(&s, uri, NULL));
	return s;
}

/* Table `name` with row r = val and setting schema = val. */
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

/* Table `name` holds row r = val, its schema setting is val, and its
 * Bigtable id is `id`. */
static void holds(rk_store *s, const char *name, const char *val, const char *id)
{
	rk_table *t;
	rk_row *r;
	void *p;
	size_t len;
	char *got;
	ST_OK(rk_table_open(&t, s, name));
	ST_OK(rk_table_get(&r, t, (const uint8_t *)"r", 1, NULL));
	assert_int_equal(r->ncells, 1);
	assert_memory_equal(r->cells[0].value, val, strlen(val));
	rk_row_free(r);
	rk_table_close(t);
	ST_OK(rk_store_table_prop_get(&p, &len, s, name, "schema"));
	assert_string_equal((char *)p, val);
	free(p);
	ST_OK(rk_bigtable_table_id(&got, s, name));
	assert_string_equal(got, id);
	free(got);
}

static void missing(rk_store *s, const char *name)
{
	rk_table *t;
	assert_int_equal(rk_table_open(&t, s, name), RK_ENOTFOUND);
}

/* The names rk_table_list gives, joined by spaces. */
static void listed(rk_store *s, const char *want)
{
	rk_table_info *ti;
	size_t n;
	char got[256] = "";
	ST_OK(rk_table_list(&ti, &n, s));
	for (size_t i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "",
		         ti[i].name);
	rk_table_info_free(ti, n);
	assert_string_equal(got, want);
}

static void test_swap_keeps_ids(void **state)
{
	(void)state;
	rk_store *s = open_store("swap");
	make(s, "ev", "old");
	make(s, "ev__rekey", "new");
	rk_table_rename v[2] = {{"ev", "ev__old"}, {"ev__rekey", "ev"}};
	ST_OK(rk_store_tables_rename(s, v, 2));
	holds(s, "ev", "new", "ev__rekey");
	holds(s, "ev__old", "old", "ev");
	missing(s, "ev__rekey");
	listed(s, "ev ev__old");
	/* refusals change nothing */
	rk_table_rename gone = {"ev__rekey", "x"}, taken = {"ev", "ev__old"};
	assert_int_equal(rk_store_tables_rename(s, &gone, 1), RK_ENOTFOUND);
	assert_int_equal(rk_store_tables_rename(s, &taken, 1), RK_EEXISTS);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "ev"));
	rk_table_rename busy = {"ev", "ev2"};
	assert_int_equal(rk_store_tables_rename(s, &busy, 1), RK_EBUSY);
	rk_table_close(t);
	holds(s, "ev", "new", "ev__rekey");
	/* a table of a name whose own id is taken gets a fresh one */
	make(s, "ev__rekey", "again");
	holds(s, "ev__rekey", "again", "ev__rekey-2");
	listed(s, "ev ev__old ev__rekey");
	/* a drop deletes the id behind the name, and only it */
	ST_OK(rk_table_drop(s, "ev__old"));
	missing(s, "ev__old");
	rk_table_rename back = {"ev__rekey", "ev__old"};
	ST_OK(rk_store_tables_rename(s, &back, 1));
	holds(s, "ev__old", "again", "ev__rekey-2");
	holds(s, "ev", "new", "ev__rekey");
	ST_OK(rk_table_drop(s, "ev__old"));
	ST_OK(rk_table_drop(s, "ev"));
	listed(s, "");
	/* with every table gone, the names are free again: ids as named */
	make(s, "ev", "fresh");
	holds(s, "ev", "fresh", "ev");
	ST_OK(rk_store_close(s));
}

/* Store a reads the names; store b (another process) renames; a's write
 * from what it read is refused and writes nothing. */
static void stale_write_refused(rk_store *a, rk_store *b, const char *from, const char *to)
{
	bt_names old, nm;
	ST_OK(rk_bt__names_load(&old, (bt_store *)a));
	ST_OK(rk_bt__names_copy(&nm, &old));
	ST_OK(rk_bt__names_set(&nm, "other", "nothing-of-the-kind"));
	rk_table_rename r = {from, to};
	ST_OK(rk_store_tables_rename(b, &r, 1));
	assert_int_equal(rk_bt__names_write((bt_store *)a, &old, &nm), RK_EBUSY);
	rk_bt__names_free(&old);
	rk_bt__names_free(&nm);
	missing(a, "other");
	missing(a, from);
	rk_table *t;
	ST_OK(rk_table_open(&t, a, to));
	rk_table_close(t);
}

static void test_concurrent_change_refused(void **state)
{
	(void)state;
	rk_store *a = open_store("race"), *b = open_store("race");
	make(a, "t1", "x");
	/* no names row yet (a fresh instance), then a row at a generation */
	stale_write_refused(a, b, "t1", "t2");
	stale_write_refused(a, b, "t2", "t3");
	/* a cutover after the other's lands: refused by the checks, as usual */
	rk_table_rename r = {"t2", "t4"};
	assert_int_equal(rk_store_tables_rename(a, &r, 1), RK_ENOTFOUND);
	ST_OK(rk_store_close(a));
	ST_OK(rk_store_close(b));
}

int main(void)
{
	if (access(EMULATOR, X_OK) != 0) {
		printf("skipped: %s not installed\n", EMULATOR);
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swap_keeps_ids),
		cmocka_unit_test(test_concurrent_change_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

#else
#include <stdio.h>
int main(void)
{
	puts("skipped: built without RK_WITH_BIGTABLE");
	return 77;
}
#endif
