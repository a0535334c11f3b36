/*
 * Unit tests for src/key/codec.c: for thousands of random value pairs a < b,
 * the encoded bytes compare the same way (ascending) or the opposite way
 * (descending), and decoding gives the value back. Plus the edge cases that
 * order-preserving codecs get wrong: -0/+0, infinities, NaN, type limits,
 * embedded 0x00/0xFF bytes, prefixes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "key/codec.h"

#define ROUNDS 20000

static uint64_t rs = 88172645463325252ULL;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

/* random 64-bit value biased towards small magnitudes and edges */
static uint64_t rnd_u64(void)
{
	switch (rnd() % 4) {
	case 0: return rnd();
	case 1: return rnd() >> (rnd() % 64);
	case 2: return rnd() % 300;
	default: return (uint64_t)-(int64_t)(rnd() % 300);
	}
}

static int cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);
	if (c)
		return c < 0 ? -1 : 1;
	return an < bn ? -1 : an > bn ? 1 : 0;
}

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

static void test_uint_order_and_roundtrip(void **state)
{
	(void)state;
	for (int width = 1; width <= 8; width *= 2) {
		uint64_t mask = width == 8 ? UINT64_MAX : (1ULL << (width * 8)) - 1;
		for (int r = 0; r < ROUNDS; r++) {
			uint64_t a = rnd_u64() & mask, b = rnd_u64() & mask;
			uint8_t ea[8], eb[8];
			rk_wbuf wa = {ea, 0, 8}, wb = {eb, 0, 8};
			assert_int_equal(rk_codec__put_uint(&wa, a, width), 0);
			assert_int_equal(rk_codec__put_uint(&wb, b, width), 0);
			assert_int_equal(wa.len, (size_t)width);
			int logical = a < b ? -1 : a > b;
			assert_int_equal(cmp_bytes(ea, 8 > width ? (size_t)width : 8, eb, (size_t)width), logical);
			assert_true(rk_codec__get_uint(ea, width, 0) == a);
			rk_codec__invert(&wa, 0);
			rk_codec__invert(&wb, 0);
			assert_int_equal(cmp_bytes(ea, (size_t)width, eb, (size_t)width), -logical);
			assert_true(rk_codec__get_uint(ea, width, 0xff) == a);
		}
	}
}

static void test_int_order_and_roundtrip(void **state)
{
	(void)state;
	for (int width = 1; width <= 8; width *= 2) {
		for (int r = 0; r < ROUNDS; r++) {
			int64_t a = (int64_t)rnd_u64(), b = (int64_t)rnd_u64();
			if (width < 8) { /* sign-extend into range */
				int sh = 64 - width * 8;
				a = (int64_t)((uint64_t)a << sh) >> sh;
				b = (int64_t)((uint64_t)b << sh) >> sh;
			}
			uint8_t ea[8], eb[8];
			rk_wbuf wa = {ea, 0, 8}, wb = {eb, 0, 8};
			rk_codec__put_int(&wa, a, width);
			rk_codec__put_int(&wb, b, width);
			int logical = a < b ? -1 : a > b;
			assert_int_equal(cmp_bytes(ea, (size_t)width, eb, (size_t)width), logical);
			assert_true(rk_codec__get_int(ea, width, 0) == a);
		}
	}
	/* limits */
	uint8_t e[8];
	rk_wbuf w = {e, 0, 8};
	rk_codec__put_int(&w, INT64_MIN, 8);
	assert_memory_equal(e, "\x00\x00\x00\x00\x00\x00\x00\x00", 8);
	w.len = 0;
	rk_codec__put_int(&w, -1, 4);
	assert_memory_equal(e, "\x7f\xff\xff\xff", 4);
	assert_true(rk_codec__get_int(e, 4, 0) == -1);
}

static int dcmp(double a, double b)
{
	/* the order the codec promises: -inf < ... < -0 < +0 < ... < +inf < NaN */
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : isnan(a) ? 1 : -1;
	if (a == 0 && b == 0)
		return signbit(a) == signbit(b) ? 0 : signbit(a) ? -1 : 1;
	return a < b ? -1 : a > b;
}

static double rnd_double(void)
{
	static const double edges[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, 5e-324, -5e-324, 1.7976931348623157e308};
	if (rnd() % 5 == 0)
		return edges[rnd() % (sizeof edges / sizeof edges[0])];
	uint64_t bits = rnd();
	double d;
	memcpy(&d, &bits, 8);
	return d;
}

static void test_f64_order_and_roundtrip(void **state)
{
	(void)state;
	for (int r = 0; r < ROUNDS; r++) {
		double a = rnd_double(), b = rnd_double();
		uint64_t ea = rk_codec__f64_to_bits(a), eb = rk_codec__f64_to_bits(b);
		int enc = ea < eb ? -1 : ea > eb;
		assert_int_equal(enc, dcmp(a, b));
		double back = rk_codec__f64_from_bits(ea);
		if (isnan(a))
			assert_true(isnan(back));
		else
			assert_memory_equal(&back, &a, 8);
	}
	assert_true(rk_codec__f64_to_bits(-0.0) < rk_codec__f64_to_bits(0.0));
	assert_true(rk_codec__f64_to_bits(INFINITY) < rk_codec__f64_to_bits(NAN));
	assert_true(rk_codec__f64_to_bits(-NAN) == rk_codec__f64_to_bits(NAN));
}

static size_t rnd_str(uint8_t *s, size_t max)
{
	size_t n = rnd() % max;
	for (size_t i = 0; i < n; i++) {
		switch (rnd() % 4) {
		case 0: s[i] = 0x00; break;
		case 1: s[i] = 0xff; break;
		case 2: s[i] = (uint8_t)('a' + rnd() % 3); break;
		default: s[i] = (uint8_t)rnd(); break;
		}
	}
	return n;
}

typedef int (*put_str_fn)(rk_wbuf *, const uint8_t *, size_t);
typedef int (*get_str_fn)(uint8_t *, size_t *, size_t *, const uint8_t *, size_t, uint8_t);

/* Checks an escaped-string codec: order, round trip, and that the encoding is
 * self-delimiting (a suffix after it does not disturb order or decoding). */
static void check_string_codec(put_str_fn put, get_str_fn get)
{
	for (int r = 0; r < ROUNDS; r++) {
		uint8_t a[12], b[12], ea[64], eb[64], back[64];
		size_t an = rnd_str(a, sizeof a), bn = rnd_str(b, sizeof b);
		for (int desc = 0; desc <= 1; desc++) {
			rk_wbuf wa = {ea, 0, sizeof ea}, wb = {eb, 0, sizeof eb};
			assert_int_equal(put(&wa, a, an), 0);
			assert_int_equal(put(&wb, b, bn), 0);
			if (desc) {
				rk_codec__invert(&wa, 0);
				rk_codec__invert(&wb, 0);
			}
			/* a trailing field must not change the order: append random bytes */
			size_t ea_n = wa.len, eb_n = wb.len;
			ea[wa.len++] = (uint8_t)rnd();
			eb[wb.len++] = (uint8_t)rnd();
			int logical = cmp_bytes(a, an, b, bn);
			if (logical != 0)
				assert_int_equal(cmp_bytes(ea, wa.len, eb, wb.len), desc ? -logical : logical);
			size_t outlen, used;
			assert_int_equal(get(back, &outlen, &used, ea, wa.len, desc ? 0xff : 0), 0);
			assert_int_equal(used, ea_n);
			assert_int_equal(outlen, an);
			assert_memory_equal(back, a, an);
			(void)eb_n;
		}
	}
}

static void test_esc_strings(void **state)
{
	(void)state;
	check_string_codec(rk_codec__put_esc, rk_codec__get_esc);
	uint8_t e[16];
	rk_wbuf w = {e, 0, sizeof e};
	rk_codec__put_esc(&w, (const uint8_t *)"a\0b", 3);
	assert_int_equal(w.len, 6);
	assert_memory_equal(e, "a\x00\xff" "b\x00\x01", 6);
	/* truncated and bad escapes are corrupt, not crashes */
	size_t ol, used;
	uint8_t out[16];
	assert_int_equal(rk_codec__get_esc(out, &ol, &used, (const uint8_t *)"ab", 2, 0), RK_ECORRUPT);
	assert_int_equal(rk_codec__get_esc(out, &ol, &used, (const uint8_t *)"a\x00", 2, 0), RK_ECORRUPT);
	assert_int_equal(rk_codec__get_esc(out, &ol, &used, (const uint8_t *)"a\x00\x05", 3, 0), RK_ECORRUPT);
}

static void test_ordered_code_strings(void **state)
{
	(void)state;
	check_string_codec(rk_codec__put_oc_str, rk_codec__get_oc_str);
	uint8_t e[16];
	rk_wbuf w = {e, 0, sizeof e};
	rk_codec__put_oc_str(&w, (const uint8_t *)"\xff\x00", 2);
	assert_int_equal(w.len, 6);
	assert_memory_equal(e, "\xff\x00\x00\xff\x00\x01", 6);
}

static void test_ordered_code_numbers(void **state)
{
	(void)state;
	uint8_t e[16], f[16];
	/* known encodings from the OrderedCode definition */
	rk_wbuf w = {e, 0, sizeof e};
	rk_codec__put_oc_uint(&w, 0);
	assert_int_equal(w.len, 1);
	assert_int_equal(e[0], 0x00);
	w.len = 0;
	rk_codec__put_oc_uint(&w, 0x1234);
	assert_int_equal(w.len, 3);
	assert_memory_equal(e, "\x02\x12\x34", 3);
	w.len = 0;
	rk_codec__put_oc_int(&w, 0);
	assert_int_equal(w.len, 1);
	assert_int_equal(e[0], 0x80);
	w.len = 0;
	rk_codec__put_oc_int(&w, -1);
	assert_int_equal(w.len, 1);
	assert_int_equal(e[0], 0x7f);
	w.len = 0;
	rk_codec__put_oc_int(&w, 64);
	assert_int_equal(w.len, 2);
	assert_memory_equal(e, "\xc0\x40", 2);
	w.len = 0;
	rk_codec__put_oc_int(&w, -65);
	assert_memory_equal(e, "\x3f\xbf", 2);
	w.len = 0;
	rk_codec__put_oc_int(&w, INT64_MAX);
	assert_int_equal(w.len, 10);
	assert_memory_equal(e, "\xff\xc0\x7f\xff\xff\xff\xff\xff\xff\xff", 10);
	w.len = 0;
	rk_codec__put_oc_int(&w, INT64_MIN);
	assert_memory_equal(e, "\x00\x3f\x80\x00\x00\x00\x00\x00\x00\x00", 10);

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t a = rnd_u64(), b = rnd_u64();
		rk_wbuf wa = {e, 0, sizeof e}, wb = {f, 0, sizeof f};
		rk_codec__put_oc_uint(&wa, a);
		rk_codec__put_oc_uint(&wb, b);
		assert_int_equal(cmp_bytes(e, wa.len, f, wb.len), a < b ? -1 : a > b);
		uint64_t back;
		size_t used;
		assert_int_equal(rk_codec__get_oc_uint(&back, &used, e, wa.len, 0), 0);
		assert_true(back == a);
		assert_int_equal(used, wa.len);

		int64_t sa = (int64_t)rnd_u64(), sb = (int64_t)rnd_u64();
		wa.len = wb.len = 0;
		rk_codec__put_oc_int(&wa, sa);
		rk_codec__put_oc_int(&wb, sb);
		assert_int_equal(cmp_bytes(e, wa.len, f, wb.len), sa < sb ? -1 : sa > sb);
		int64_t sback;
		assert_int_equal(rk_codec__get_oc_int(&sback, &used, e, wa.len, 0), 0);
		assert_true(sback == sa);
		assert_int_equal(used, wa.len);
		/* descending */
		rk_codec__invert(&wa, 0);
		assert_int_equal(rk_codec__get_oc_int(&sback, &used, e, wa.len, 0xff), 0);
		assert_true(sback == sa);
	}
	/* truncation is corrupt */
	size_t used;
	int64_t v;
	assert_int_equal(rk_codec__get_oc_int(&v, &used, (const uint8_t *)"\xff\xc0\x7f", 3, 0), RK_ECORRUPT);
	uint64_t u;
	assert_int_equal(rk_codec__get_oc_uint(&u, &used, (const uint8_t *)"\x03\x01", 2, 0), RK_ECORRUPT);
	assert_int_equal(rk_codec__get_oc_uint(&u, &used, (const uint8_t *)"\x09", 1, 0), RK_ECORRUPT);
}

static void test_ordered_bytes(void **state)
{
	(void)state;
	uint8_t e[16];
	rk_wbuf w = {e, 0, sizeof e};
	rk_codec__put_ob_int(&w, -1, 4);
	assert_memory_equal(e, "\x2b\x7f\xff\xff\xff", 5);
	w.len = 0;
	rk_codec__put_ob_int(&w, 5, 1);
	assert_memory_equal(e, "\x29\x85", 2);
	w.len = 0;
	rk_codec__put_ob_f64(&w, 1.0);
	assert_memory_equal(e, "\x31\xbf\xf0\x00\x00\x00\x00\x00\x00", 9);
	int64_t v;
	assert_int_equal(rk_codec__get_ob_int(&v, (const uint8_t *)"\x2c\x80\0\0\0\0\0\0\x07", 9, 8, 0), 0);
	assert_int_equal(v, 7);
	assert_int_equal(rk_codec__get_ob_int(&v, (const uint8_t *)"\x2b\x80\0\0\0", 5, 8, 0), RK_ECORRUPT);
	double d;
	assert_int_equal(rk_codec__get_ob_f64(&d, e, 9, 0), 0);
	assert_true(d == 1.0);
	assert_int_equal(rk_codec__get_ob_f64(&d, e, 8, 0), RK_ECORRUPT);
}

static void test_dec(void **state)
{
	(void)state;
	uint8_t e[32];
	rk_wbuf w = {e, 0, sizeof e};
	assert_int_equal(rk_codec__put_dec(&w, 7, 2), 0);
	assert_memory_equal(e, "07", 2);
	assert_int_equal(rk_codec__put_dec(&w, 100, 2), RK_EINVALID);
	uint64_t v;
	assert_int_equal(rk_codec__get_dec(&v, (const uint8_t *)"0042", 4, 0), 0);
	assert_true(v == 42);
	assert_int_equal(rk_codec__get_dec(&v, (const uint8_t *)"00x2", 4, 0), RK_ECORRUPT);
	assert_int_equal(rk_codec__get_dec(&v, (const uint8_t *)"99999999999999999999", 20, 0), RK_ECORRUPT);
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t a = rnd() % 10000000000ULL, b = rnd() % 10000000000ULL;
		uint8_t ea[10], eb[10];
		rk_wbuf wa = {ea, 0, 10}, wb = {eb, 0, 10};
		rk_codec__put_dec(&wa, a, 10);
		rk_codec__put_dec(&wb, b, 10);
		assert_int_equal(sign(memcmp(ea, eb, 10)), a < b ? -1 : a > b);
	}
}

static void test_phoenix_varchar(void **state)
{
	(void)state;
	uint8_t e[16], out[16];
	rk_wbuf w = {e, 0, sizeof e};
	assert_int_equal(rk_codec__put_phx_str(&w, (const uint8_t *)"ab", 2, 0, 0), 0);
	assert_memory_equal(e, "ab\x00", 3);
	w.len = 0;
	rk_codec__put_phx_str(&w, (const uint8_t *)"ab", 2, 0, 1);
	assert_int_equal(w.len, 2);
	w.len = 0;
	rk_codec__put_phx_str(&w, (const uint8_t *)"ab", 2, 1, 1);
	assert_memory_equal(e, "\x9e\x9d\xff", 3);
	size_t ol, used;
	assert_int_equal(rk_codec__get_phx_str(out, &ol, &used, e, 3, 1), 0);
	assert_int_equal(ol, 2);
	assert_int_equal(used, 3);
	assert_memory_equal(out, "ab", 2);
	assert_int_equal(rk_codec__get_phx_str(out, &ol, &used, e, 2, 1), RK_ECORRUPT);
	w.len = 0;
	assert_int_equal(rk_codec__put_phx_str(&w, (const uint8_t *)"a\0", 2, 0, 0), RK_EINVALID);
}

static void test_overflow_is_toolong(void **state)
{
	(void)state;
	uint8_t e[4];
	rk_wbuf w = {e, 0, sizeof e};
	assert_int_equal(rk_codec__put_uint(&w, 1, 8), RK_ETOOLONG);
	assert_int_equal(rk_codec__put_esc(&w, (const uint8_t *)"abcd", 4), RK_ETOOLONG);
	assert_true(w.len <= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uint_order_and_roundtrip),
		cmocka_unit_test(test_int_order_and_roundtrip),
		cmocka_unit_test(test_f64_order_and_roundtrip),
		cmocka_unit_test(test_esc_strings),
		cmocka_unit_test(test_ordered_code_strings),
		cmocka_unit_test(test_ordered_code_numbers),
		cmocka_unit_test(test_ordered_bytes),
		cmocka_unit_test(test_dec),
		cmocka_unit_test(test_phoenix_varchar),
		cmocka_unit_test(test_overflow_is_toolong),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
