/*
 * The query's sorter (src/store/query_sort.c): rows given in any order come
 * back in logical order (logical form, then whole key; reversed on demand)
 * with every cell intact, from memory alone or through runs spilled to
 * temporary files, also past the number of runs it merges into one; a
 * temporary directory it cannot write is an error naming it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/query_int.h"

static uint64_t rs = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

/* Row i: key "k<i>", a logical form of 0..3 random bytes from a small
 * alphabet (many ties), two cells whose contents derive from i. */
static rk__qrow *make_row(unsigned i)
{
	char key[16], q[16], v[64];
	uint8_t l[3];
	size_t ll = rnd() % 4;
	for (size_t k = 0; k < ll; k++)
		l[k] = (uint8_t)("ab\x00\xff"[rnd() % 4]);
	snprintf(key, sizeof key, "k%u", i);
	snprintf(q, sizeof q, "q%u", i % 7);
	snprintf(v, sizeof v, "value of row %u", i);
	rk_cell c[2] = {{"d", (const uint8_t *)q, strlen(q), i, (const uint8_t *)v, strlen(v), NULL},
	                {"fam", NULL, 0, 1, (const uint8_t *)"", 0, NULL}};
	rk_row r = {(const uint8_t *)key, strlen(key), c, 2};
	return rk_qrow__new(&r, l, ll, NULL, 0, 0);
}

static void check_cells(const rk__qrow *r)
{
	unsigned i = (unsigned)strtoul((const char *)r->row.key + 1, NULL, 10);
	char q[16], v[64];
	snprintf(q, sizeof q, "q%u", i % 7);
	snprintf(v, sizeof v, "value of row %u", i);
	assert_int_equal(r->row.ncells, 2);
	assert_string_equal(r->row.cells[0].family, "d");
	assert_int_equal(r->row.cells[0].qualifier_len, strlen(q));
	assert_memory_equal(r->row.cells[0].qualifier, q, strlen(q));
	assert_int_equal(r->row.cells[0].ts, i);
	assert_int_equal(r->row.cells[0].value_len, strlen(v));
	assert_memory_equal(r->row.cells[0].value, v, strlen(v));
	assert_string_equal(r->row.cells[1].family, "fam");
	assert_int_equal(r->row.cells[1].qualifier_len, 0);
	assert_int_equal(r->row.cells[1].value_len, 0);
}

static int g_rev;
static int cmp_ptr(const void *a, const void *b)
{
	return rk_qrow__cmp(*(rk__qrow *const *)a, *(rk__qrow *const *)b, g_rev);
}

/* n rows through a sorter of `budget` bytes; checks order and contents;
 * returns the runs it wrote. */
static size_t sort_rows(unsigned n, size_t budget, int reverse)
{
	rk__qsort *s;
	rk__qrow **want = malloc(n * sizeof *want);
	assert_int_equal(rk_qsort__new(&s, budget, reverse), 0);
	for (unsigned i = 0; i < n; i++) {
		rk__qrow *r = make_row(i);
		want[i] = rk_qrow__new(&r->row, r->lkey, r->llen, NULL, 0, 0); /* the sorter owns r */
		assert_int_equal(rk_qsort__add(s, r), 0);
	}
	g_rev = reverse;
	qsort(want, n, sizeof *want, cmp_ptr);
	assert_int_equal(rk_qsort__finish(s), 0);
	rk__qrow *got;
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(rk_qsort__next(&got, s), 0);
		assert_int_equal(got->row.key_len, want[i]->row.key_len);
		assert_memory_equal(got->row.key, want[i]->row.key, got->row.key_len);
		assert_int_equal(got->llen, want[i]->llen);
		check_cells(got);
		free(got);
		free(want[i]);
	}
	assert_int_equal(rk_qsort__next(&got, s), RK_EITEROVER);
	size_t runs = rk_qsort__runs(s);
	rk_qsort__free(s);
	free(want);
	return runs;
}

static void test_in_memory(void **state)
{
	(void)state;
	assert_int_equal(sort_rows(1000, 64 << 20, 0), 0);
	assert_int_equal(sort_rows(1000, 64 << 20, 1), 0);
	assert_int_equal(sort_rows(0, 64 << 20, 0), 0);
}

static void test_spilled_runs(void **state)
{
	(void)state;
	assert_true(sort_rows(3000, 20000, 0) > 10);
	assert_true(sort_rows(3000, 20000, 1) > 10);
	/* more runs than it keeps open: they are merged into one on the way */
	assert_true(sort_rows(20000, 8000, 0) > 100);
}

static void test_unwritable_tmpdir(void **state)
{
	(void)state;
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	setenv("TMPDIR", "/nonexistent-rowkey-dir", 1);
	rk__qsort *s;
	assert_int_equal(rk_qsort__new(&s, 100, 0), 0);
	int rc = 0;
	for (unsigned i = 0; i < 100 && rc == 0; i++)
		rc = rk_qsort__add(s, make_row(i));
	assert_int_equal(rc, RK_EIO);
	assert_non_null(strstr(rk_error_last(), "/nonexistent-rowkey-dir"));
	rk_qsort__free(s);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_memory),
		cmocka_unit_test(test_spilled_runs),
		cmocka_unit_test(test_unwritable_tmpdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
