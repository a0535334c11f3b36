/*
 * Unit tests for src/store/bigtable/bt_chunks.c: ReadRows chunk reassembly.
 * Responses are written by hand (unit/bt_pbenc.h), so each test states the
 * exact chunks the server sends, including ones a correct server never would.
 */
#ifdef RK_WITH_BIGTABLE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "key/error.h"
#include "store/bigtable/bt_chunks.h"
#include "unit/bt_pbenc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static pbuf msg;

/* Feeds one response made of chunks c[0..n). */
static int feed(rk_bt_chunks *d, const chunk *c, size_t n)
{
	pb_response(&msg, c, n);
	return rk_bt__chunks_feed(d, msg.b, msg.n);
}

static void assert_bytes(const void *p, size_t n, const char *want)
{
	assert_int_equal(n, strlen(want));
	assert_memory_equal(p, want, n);
}

static void assert_cell(const rk_bt_cell *c, const char *fam, const char *qual, int64_t ts,
                        const char *val)
{
	assert_bytes(c->family, c->family_len, fam);
	assert_bytes(c->qualifier, c->qualifier_len, qual);
	assert_int_equal(c->ts_micros, ts);
	assert_bytes(c->value, c->value_len, val);
}

static void test_two_rows_carry_family_and_qualifier(void **state)
{
	(void)state;
	rk_bt_chunks *d;
	const rk_bt_row *r;
	assert_int_equal(rk_bt__chunks_new(&d), 0);
	chunk c[] = {
		{.key = "r1", .family = "f", .qualifier = "a", .ts = 2000, .value = "v2"},
		{.ts = 1000, .value = "v1"},                     /* same column, older */
		{.qualifier = "b", .ts = 1000, .value = "vb"},   /* same family */
		{.key = "r1", .family = "g", .qualifier = "", .ts = 5000, .value = "vg", .commit = 1},
		{.key = "r2", .family = "f", .qualifier = "a", .ts = 3000, .value = "x", .commit = 1},
	};
	assert_int_equal(feed(d, c, N(c)), 0);
	assert_int_equal(rk_bt__chunks_next(&r, d), 0);
	assert_bytes(r->key, r->key_len, "r1");
	assert_int_equal(r->ncells, 4);
	assert_cell(&r->cells[0], "f", "a", 2000, "v2");
	assert_cell(&r->cells[1], "f", "a", 1000, "v1");
	assert_cell(&r->cells[2], "f", "b", 1000, "vb");
	assert_cell(&r->cells[3], "g", "", 5000, "vg");
	assert_int_equal(rk_bt__chunks_next(&r, d), 0);
	assert_bytes(r->key, r->key_len, "r2");
	assert_int_equal(r->ncells, 1);
	assert_cell(&r->cells[0], "f", "a", 3000, "x");
	assert_int_equal(rk_bt__chunks_next(&r, d), RK_EITEROVER);
	size_t ll;
	const uint8_t *last = rk_bt__chunks_last_key(d, &ll);
	assert_bytes(last, ll, "r2");
	assert_int_equal(rk_bt__chunks_finish(d), 0);
	rk_bt__chunks_free(d);
}

static void test_split_cell_across_responses(void **state)
{
	(void)state;
	rk_bt_chunks *d;
	const rk_bt_row *r;
	assert_int_equal(rk_bt__chunks_new(&d), 0);
	chunk a[] = {{.key = "k", .family = "f", .qualifier = "q", .ts = 7000, .value = "hel",
	              .value_size = 10, .label = "lbl"}};
	chunk b[] = {{.value = "lo w", .value_size = 10}};
	chunk c[] = {{.value = "rld"}, {.qualifier = "q2", .value = "z", .commit = 1}};
	assert_int_equal(feed(d, a, 1), 0);
	assert_int_equal(rk_bt__chunks_next(&r, d), RK_EITEROVER);
	assert_int_equal(feed(d, b, 1), 0);
	assert_int_equal(rk_bt__chunks_next(&r, d), RK_EITEROVER);
	assert_int_equal(rk_bt__chunks_finish(d), RK_ECORRUPT); /* mid-row */
	rk_bt__chunks_free(d);

	/* again, to the end this time */
	assert_int_equal(rk_bt__chunks_new(&d), 0);
	assert_int_equal(feed(d, a, 1), 0);
	assert_int_equal(feed(d, b, 1), 0);
	assert_int_equal(feed(d, c, 2), 0);
	assert_int_equal(rk_bt__chunks_next(&r, d), 0);
	assert_int_equal(r->ncells, 2);
	assert_cell(&r->cells[0], "f", "q", 7000, "hello wrld");
	assert_cell(&r->cells[1], "f", "q2", 0, "z");
	assert_int_equal(rk_bt__chunks_finish(d), 0);
	rk_bt__chunks_free(d);
}

static void test_families_come_out_sorted(void **state)
{
	(void)state;
	rk_bt_chunks *d;
	const rk_bt_row *r;
	assert_int_equal(rk_bt__chunks_new(&d), 0);
	/* families g, f, g again, then "" (the empty name sorts first) */
	chunk c[] = {
		{.key = "r", .family = "g", .qualifier = "a", .ts = 2000, .value = "g1"},
		{.ts = 1000, .value = "g2"},
		{.family = "f", .qualifier = "b", .value = "f1"},
		{.qualifier = "c", .value = "f2"},
		{.family = "g", .qualifier = "z", .value = "g3"},
		{.family = "", .qualifier = "q", .value = "e1", .commit = 1},
	};
	assert_int_equal(feed(d, c, N(c)), 0);
	assert_int_equal(rk_bt__chunks_next(&r, d), 0);
	assert_int_equal(r->ncells, 6);
	assert_cell(&r->cells[0], "", "q", 0, "e1");
	assert_cell(&r->cells[1], "f", "b", 0, "f1");
	assert_cell(&r->cells[2], "f", "c", 0, "f2");
	assert_cell(&r->cells[3], "g", "a", 2000, "g1");
	assert_cell(&r->cells[4], "g", "a", 1000, "g2");
	assert_cell(&r->cells[5], "g", "z", 0, "g3");
	rk_bt__chunks_free(d);
}

static void test_binary_values_and_keys(void **state)
{
	(void)state;
	rk_bt_chunks *d;
	const rk_bt_row *r;
	assert_int_equal(rk_bt__chunks_new(&d), 0);
	/* a value with NUL bytes, and an empty value */
	chunk c[] = {
		{.key = "\x01k", .family = "f", .qualifier = "q", .value = "a\0b", .value_len = 3},
		{.qualifier = "e", .commit = 1},
	};
	assert_int_equal(feed(d, c, N(c)), 0);
	assert_int_equal(rk_bt__chunks_next(&r, d), 0);
	assert_int_equal(r->cells[0].value_len, 3);
	assert_memory_equal(r->cells[0].value, "a\0b", 3);
	assert_int_equal(r->cells[1].value_len, 0);
	rk_bt__chunks_free(d);
}

static void test_reset_drops_row_then_resent(void **state)
{
	(void)state;
	rk_bt_chunks *d;
	const rk_bt_row *r;
	assert_int_equal(rk_bt__chunks_new(&d), 0);
	chunk c[] = {
		{.key = "a", .family = "f", .qualifier = "q", .ts = 1000, .value = "old"},
		{.qualifier = "q2", .value = "big", .value_size = 6}, /* split cell */
		{.reset = 1},                                         /* reset inside it */
		{.key = "a", .family = "f", .qualifier = "q", .ts = 2000, .value = "new", .commit = 1},
		{.key = "b", .family = "f", .qualifier = "q", .value = "gone"},
		{.reset = 1},
	};
	assert_int_equal(feed(d, c, N(c)), 0);
	assert_int_equal(rk_bt__chunks_next(&r, d), 0);
	assert_bytes(r->key, r->key_len, "a");
	assert_int_equal(r->ncells, 1);
	assert_cell(&r->cells[0], "f", "q", 2000, "new");
	assert_int_equal(rk_bt__chunks_next(&r, d), RK_EITEROVER);
	/* after a reset the stream may end cleanly: the row was dropped */
	assert_int_equal(rk_bt__chunks_finish(d), 0);
	rk_bt__chunks_free(d);
}

static void test_many_rows_in_one_response(void **state)
{
	(void)state;
	rk_bt_chunks *d;
	const rk_bt_row *r;
	enum { ROWS = 100 };
	static chunk c[ROWS];
	static char keys[ROWS][16];
	for (int i = 0; i < ROWS; i++) {
		snprintf(keys[i], sizeof keys[i], "k%03d", i);
		c[i] = (chunk){.key = keys[i], .family = "f", .qualifier = "q", .value = keys[i],
		               .commit = 1};
	}
	assert_int_equal(rk_bt__chunks_new(&d), 0);
	assert_int_equal(feed(d, c, ROWS), 0);
	for (int i = 0; i < ROWS; i++) {
		assert_int_equal(rk_bt__chunks_next(&r, d), 0);
		assert_bytes(r->key, r->key_len, keys[i]);
		assert_bytes(r->cells[0].value, r->cells[0].value_len, keys[i]);
	}
	assert_int_equal(rk_bt__chunks_next(&r, d), RK_EITEROVER);
	/* an empty response (no chunks, only last_scanned_row_key) is fine */
	msg.n = 0;
	pb_bytes(&msg, 2, "zzz", 3);
	assert_int_equal(rk_bt__chunks_feed(d, msg.b, msg.n), 0);
	assert_int_equal(rk_bt__chunks_feed(d, msg.b, 0), 0);
	assert_int_equal(rk_bt__chunks_finish(d), 0);
	rk_bt__chunks_free(d);
}

/* Each case: chunks that break the protocol, fed in one response, and a
 * phrase the error must contain. */
typedef struct bad_case {
	const char *name;
	chunk c[4];
	size_t n;
	const char *why;
} bad_case;

static const bad_case bad[] = {
	{"bare reset", {{.reset = 1}}, 1, "no row in progress"},
	{"no key", {{.family = "f", .qualifier = "q", .commit = 1}}, 1, "without a row key"},
	{"no family", {{.key = "a", .qualifier = "q", .commit = 1}}, 1, "without a family"},
	{"no qualifier", {{.key = "a", .family = "f", .commit = 1}}, 1, "without a qualifier"},
	{"same key twice",
	 {{.key = "a", .family = "f", .qualifier = "q", .commit = 1},
	  {.key = "a", .family = "f", .qualifier = "q", .commit = 1}},
	 2, "not greater"},
	{"key goes back",
	 {{.key = "b", .family = "f", .qualifier = "q", .commit = 1},
	  {.key = "a", .family = "f", .qualifier = "q", .commit = 1}},
	 2, "not greater"},
	{"key changes mid-row",
	 {{.key = "a", .family = "f", .qualifier = "q"},
	  {.key = "b", .family = "f", .qualifier = "q", .commit = 1}},
	 2, "changed inside a row"},
	{"family without qualifier",
	 {{.key = "a", .family = "f", .qualifier = "q"}, {.family = "g", .commit = 1}},
	 2, "family without a qualifier"},
	{"continuation with timestamp",
	 {{.key = "a", .family = "f", .qualifier = "q", .value = "x", .value_size = 2},
	  {.ts = 1000, .value = "y", .commit = 1}},
	 2, "carries a cell header"},
	{"continuation with qualifier",
	 {{.key = "a", .family = "f", .qualifier = "q", .value = "x", .value_size = 2},
	  {.qualifier = "r", .value = "y", .commit = 1}},
	 2, "carries a cell header"},
	{"continuation with key",
	 {{.key = "a", .family = "f", .qualifier = "q", .value = "x", .value_size = 2},
	  {.key = "a", .value = "y", .commit = 1}},
	 2, "carries a cell header"},
	{"commit inside split cell",
	 {{.key = "a", .family = "f", .qualifier = "q", .value = "x", .value_size = 2, .commit = 1}},
	 1, "inside a split cell"},
	{"split cell too short",
	 {{.key = "a", .family = "f", .qualifier = "q", .value = "x", .value_size = 5},
	  {.value = "y", .commit = 1}},
	 2, "differs from its value_size"},
	{"split cell too long",
	 {{.key = "a", .family = "f", .qualifier = "q", .value = "xyz", .value_size = 2}},
	 1, "longer than its value_size"},
	{"negative value_size",
	 {{.key = "a", .family = "f", .qualifier = "q", .value = "x", .value_size = -1}},
	 1, "negative value_size"},
	{"reset with data",
	 {{.key = "a", .family = "f", .qualifier = "q"}, {.value = "x", .reset = 1}},
	 2, "reset_row chunk carries"},
	{"reset with key",
	 {{.key = "a", .family = "f", .qualifier = "q"}, {.key = "a", .reset = 1}},
	 2, "reset_row chunk carries"},
};

static void test_protocol_violations_are_corrupt(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		rk_bt_chunks *d;
		const rk_bt_row *r;
		assert_int_equal(rk_bt__chunks_new(&d), 0);
		int rc = feed(d, bad[i].c, bad[i].n);
		if (rc != RK_ECORRUPT || !strstr(rk_error_last(), bad[i].why))
			fail_msg("case '%s': rc %d, message '%s'", bad[i].name, rc, rk_error_last());
		/* the decoder stays failed */
		chunk ok = {.key = "zz", .family = "f", .qualifier = "q", .commit = 1};
		assert_int_equal(feed(d, &ok, 1), RK_ECORRUPT);
		assert_int_equal(rk_bt__chunks_finish(d), RK_ECORRUPT);
		/* rows committed before the violation are still handed out, no more */
		while (rk_bt__chunks_next(&r, d) == 0)
			assert_true(r->key_len > 0);
		rk_bt__chunks_free(d);
	}
}

static void test_violation_across_responses(void **state)
{
	(void)state;
	rk_bt_chunks *d;
	assert_int_equal(rk_bt__chunks_new(&d), 0);
	chunk a[] = {{.key = "m", .family = "f", .qualifier = "q", .commit = 1}};
	chunk b[] = {{.key = "c", .family = "f", .qualifier = "q", .commit = 1}};
	assert_int_equal(feed(d, a, 1), 0);
	assert_int_equal(feed(d, b, 1), RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), "chunk 2"));
	rk_bt__chunks_free(d);
}

static void test_start_after(void **state)
{
	(void)state;
	rk_bt_chunks *d;
	const rk_bt_row *r;
	chunk same[] = {{.key = "k5", .family = "f", .qualifier = "q", .commit = 1}};
	chunk next[] = {{.key = "k6", .family = "f", .qualifier = "q", .commit = 1}};
	assert_int_equal(rk_bt__chunks_new(&d), 0);
	assert_int_equal(rk_bt__chunks_start_after(d, (const uint8_t *)"k5", 2), 0);
	assert_int_equal(feed(d, same, 1), RK_ECORRUPT); /* a resumed read repeating a row */
	rk_bt__chunks_free(d);
	assert_int_equal(rk_bt__chunks_new(&d), 0);
	assert_int_equal(rk_bt__chunks_start_after(d, (const uint8_t *)"k5", 2), 0);
	assert_int_equal(feed(d, next, 1), 0);
	assert_int_equal(rk_bt__chunks_next(&r, d), 0);
	assert_memory_equal(r->key, "k6", 2);
	rk_bt__chunks_free(d);
}

static void test_garbage_bytes_are_corrupt(void **state)
{
	(void)state;
	rk_bt_chunks *d;
	assert_int_equal(rk_bt__chunks_new(&d), 0);
	/* field 1, length 50, but only 2 bytes follow */
	const uint8_t trunc[] = {0x0a, 0x32, 0x0a, 0x01};
	assert_int_equal(rk_bt__chunks_feed(d, trunc, sizeof trunc), RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), "does not parse"));
	rk_bt__chunks_free(d);

	/* chunks is field 1 of wire type 2: a varint there is a type mismatch */
	assert_int_equal(rk_bt__chunks_new(&d), 0);
	const uint8_t wrongtype[] = {0x08, 0x01};
	assert_int_equal(rk_bt__chunks_feed(d, wrongtype, sizeof wrongtype), RK_ECORRUPT);
	rk_bt__chunks_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_rows_carry_family_and_qualifier),
		cmocka_unit_test(test_split_cell_across_responses),
		cmocka_unit_test(test_families_come_out_sorted),
		cmocka_unit_test(test_binary_values_and_keys),
		cmocka_unit_test(test_reset_drops_row_then_resent),
		cmocka_unit_test(test_many_rows_in_one_response),
		cmocka_unit_test(test_protocol_violations_are_corrupt),
		cmocka_unit_test(test_violation_across_responses),
		cmocka_unit_test(test_start_after),
		cmocka_unit_test(test_garbage_bytes_are_corrupt),
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
