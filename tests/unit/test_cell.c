/*
 * Cell key encoding (src/store/cell.c): bytewise order equals data-model
 * order for random cells (row, family, qualifier, newest first, markers
 * first), decode inverts encode, and malformed keys are RK_ECORRUPT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/cell.h"
#include <rowkey/key.h>

typedef struct tcell {
	uint32_t tid;
	uint8_t row[24];
	size_t row_len;
	char fam[4];
	uint8_t qual[5];
	size_t qual_len;
	int marker;
	uint64_t ts;
	uint8_t type;
	uint8_t key[128];
	size_t key_len;
} tcell;

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int bytes_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t m = al < bl ? al : bl;
	int c = m ? memcmp(a, b, m) : 0;
	return c ? (c < 0 ? -1 : 1) : (al < bl ? -1 : al > bl);
}

/* The data-model order the encoding must reproduce. */
static int model_cmp(const tcell *a, const tcell *b)
{
	int c;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if ((c = bytes_cmp(a->row, a->row_len, b->row, b->row_len)) != 0)
		return c;
	if ((c = strcmp(a->fam, b->fam)) != 0)
		return c < 0 ? -1 : 1;
	if (a->marker != b->marker)
		return a->marker ? -1 : 1;
	if (!a->marker && (c = bytes_cmp(a->qual, a->qual_len, b->qual, b->qual_len)) != 0)
		return c;
	if (a->ts != b->ts)
		return a->ts > b->ts ? -1 : 1; /* newest first */
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	return 0;
}

static void random_cell(tcell *c)
{
	static const uint8_t alpha[] = {0x00, 0x01, 0x02, 'a', 'b', 0xFE, 0xFF};
	memset(c, 0, sizeof *c);
	c->tid = 1 + (uint32_t)(rnd() % 2);
	/* mostly short rows (they collide, testing order); some past 8 bytes,
	   where escaping works a word at a time */
	c->row_len = rnd() % 4 ? 1 + rnd() % 5 : 6 + rnd() % 18;
	for (size_t i = 0; i < c->row_len; i++)
		c->row[i] = alpha[rnd() % sizeof alpha];
	static const char *fams[] = {"a", "ab", "b"};
	strcpy(c->fam, fams[rnd() % 3]);
	c->marker = rnd() % 5 == 0;
	c->qual_len = rnd() % 4;
	for (size_t i = 0; i < c->qual_len; i++)
		c->qual[i] = alpha[rnd() % sizeof alpha];
	c->ts = 1 + rnd() % 4;
	if (rnd() % 3 == 0)
		c->ts = UINT64_MAX >> 1;
	c->type = c->marker ? RK_CELL_DELETE_FAMILY : (uint8_t)(2 + rnd() % 3);
	c->key_len = rk_cell__encode(c->key, c->tid, c->row, c->row_len, c->fam, strlen(c->fam),
	                             c->qual, c->qual_len, c->marker, c->ts, c->type);
	size_t esc = rk_cell__esc_len(c->row, c->row_len);
	assert_int_equal(c->key_len,
	                 rk_cell__key_len(esc, strlen(c->fam), c->qual, c->qual_len, c->marker));
}

static void test_order_matches_model(void **state)
{
	(void)state;
	for (int i = 0; i < 100000; i++) {
		tcell a, b;
		random_cell(&a);
		random_cell(&b);
		int m = model_cmp(&a, &b);
		int k = bytes_cmp(a.key, a.key_len, b.key, b.key_len);
		if (m != k) {
			fail_msg("order mismatch at round %d: model %d bytes %d", i, m, k);
		}
	}
}

static void test_roundtrip(void **state)
{
	(void)state;
	for (int i = 0; i < 20000; i++) {
		tcell a;
		rk__cellkey ck;
		uint8_t buf[64];
		random_cell(&a);
		assert_int_equal(rk_cell__decode(&ck, a.key, a.key_len), 0);
		assert_int_equal(ck.table_id, a.tid);
		assert_int_equal(rk_cell__unesc(buf, ck.row, ck.row_len), a.row_len);
		assert_memory_equal(buf, a.row, a.row_len);
		assert_int_equal(ck.family_len, strlen(a.fam));
		assert_memory_equal(ck.family, a.fam, ck.family_len);
		assert_int_equal(ck.family_marker, a.marker);
		if (!a.marker) {
			assert_int_equal(rk_cell__unesc(buf, ck.qual, ck.qual_len), a.qual_len);
			if (a.qual_len)
				assert_memory_equal(buf, a.qual, a.qual_len);
		}
		assert_true(ck.ts == a.ts);
		assert_int_equal(ck.type, a.type);
		/* the scan path: one-pass row decode, then the same-family shortcut */
		rk__cellkey fast;
		uint8_t row[64 + 8];
		size_t rl;
		assert_int_equal(rk_cell__decode_row_unesc(&fast, a.key, a.key_len, row, &rl), 0);
		assert_int_equal(rl, a.row_len);
		assert_memory_equal(row, a.row, a.row_len);
		assert_int_equal(fast.row_part_end, ck.row_part_end);
		fast.family = ck.family;
		fast.family_len = ck.family_len;
		assert_int_equal(rk_cell__decode_rest_same_family(&fast, a.key, a.key_len), 0);
		assert_true(fast.qual == ck.qual && fast.qual_len == ck.qual_len);
		assert_true(fast.ts == ck.ts && fast.type == ck.type);
		assert_int_equal(fast.family_marker, ck.family_marker);
	}
}

static void test_row_bounds(void **state)
{
	(void)state;
	/* every cell of rows in [lo, hi) lies between the bounds, others outside */
	for (int i = 0; i < 20000; i++) {
		tcell a, lo, hi;
		uint8_t blo[4 + 2 * sizeof lo.row + 2], bhi[sizeof blo];
		random_cell(&a);
		random_cell(&lo);
		random_cell(&hi);
		size_t nlo = rk_cell__row_bound(blo, a.tid, lo.row, lo.row_len, 0);
		size_t nhi = rk_cell__row_bound(bhi, a.tid, hi.row, hi.row_len, 0);
		int in_model = bytes_cmp(a.row, a.row_len, lo.row, lo.row_len) >= 0 &&
		               bytes_cmp(a.row, a.row_len, hi.row, hi.row_len) < 0;
		int in_bytes = bytes_cmp(a.key, a.key_len, blo, nlo) >= 0 &&
		               bytes_cmp(a.key, a.key_len, bhi, nhi) < 0;
		assert_int_equal(in_model, in_bytes);
	}
	uint8_t t1[4], end[4];
	assert_int_equal(rk_cell__row_bound(t1, 7, NULL, 0, 0), 4);
	assert_int_equal(rk_cell__row_bound(end, 7, NULL, 0, 1), 4);
	assert_int_equal(rk_cell__get_u32(t1), 7);
	assert_int_equal(rk_cell__get_u32(end), 8);
}

static void expect_corrupt(const uint8_t *k, size_t n)
{
	rk__cellkey ck;
	assert_int_equal(rk_cell__decode(&ck, k, n), RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), "cell key"));
}

static void test_corrupt(void **state)
{
	(void)state;
	uint8_t k[64];
	size_t n = rk_cell__encode(k, 1, (const uint8_t *)"r", 1, "f", 1, (const uint8_t *)"q", 1, 0,
	                           5, RK_CELL_PUT);
	rk__cellkey ck;
	assert_int_equal(rk_cell__decode(&ck, k, n), 0);
	for (size_t cut = 0; cut < n; cut++)
		expect_corrupt(k, cut); /* every truncation */
	uint8_t longer[65];
	memcpy(longer, k, n);
	longer[n] = 0;
	expect_corrupt(longer, n + 1); /* trailing byte */
	uint8_t bad[64];
	memcpy(bad, k, n);
	bad[n - 1] = 0x09; /* unknown type */
	expect_corrupt(bad, n);
	memcpy(bad, k, n);
	bad[n - 1] = RK_CELL_DELETE_FAMILY; /* family type without the marker */
	expect_corrupt(bad, n);
	memcpy(bad, k, n);
	bad[6] = 0x05; /* row terminator 00 01 -> 00 05: bad escape */
	expect_corrupt(bad, n);
	memcpy(bad, k, n);
	memset(bad + n - 9, 0xFF, 8); /* timestamp 0 */
	expect_corrupt(bad, n);
	/* empty family */
	uint8_t ef[] = {0, 0, 0, 1, 'r', 0, 1, 0, 1, 'q', 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 4};
	expect_corrupt(ef, sizeof ef);
}

static void test_escape_zero_bytes(void **state)
{
	(void)state;
	const uint8_t row[] = {0, 0, 'x', 0};
	uint8_t esc[16], back[16];
	assert_int_equal(rk_cell__esc_len(row, 4), 4 + 3 + 2);
	uint8_t *end = rk_cell__esc(esc, row, 4);
	assert_int_equal(end - esc, 9);
	const uint8_t want[] = {0, 0xFF, 0, 0xFF, 'x', 0, 0xFF, 0, 1};
	assert_memory_equal(esc, want, 9);
	assert_int_equal(rk_cell__unesc(back, esc, 7), 4);
	assert_memory_equal(back, row, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_matches_model),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_row_bounds),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_escape_zero_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
