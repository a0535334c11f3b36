/*
 * Unit tests for src/key/encode.c through the public API (key.h): encode then
 * decode is the identity for every technique; composite keys sort field by
 * field, ascending and descending; decode rejects keys that do not match
 * their design; the key length limit; salts and buckets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

static uint64_t rs = 0x853c49e6748fea9bULL;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

typedef struct {
	rk_schema *s;
	rk_encoder *e;
	uint8_t key[32768];
	size_t klen;
	rk_value out[64];
} fx;

static void fx_open(fx *f, const char *text)
{
	int rc = rk_schema_parse(&f->s, text, strlen(text), "test");
	if (rc)
		fail_msg("schema '%s': %s", text, rk_error_last());
	assert_int_equal(rk_encoder_new(&f->e, f->s, 0), 0);
}

static void fx_close(fx *f)
{
	rk_encoder_free(f->e);
	rk_schema_free(f->s);
}

static rk_value u(uint64_t x)
{
	rk_value v = {.present = 1};
	v.v.u = x;
	return v;
}

static rk_value i(int64_t x)
{
	rk_value v = {.present = 1};
	v.v.i = x;
	return v;
}

static rk_value d(double x)
{
	rk_value v = {.present = 1};
	v.v.f = x;
	return v;
}

static rk_value str(const char *s)
{
	rk_value v = {.present = 1};
	v.v.s.ptr = (const uint8_t *)s;
	v.v.s.len = strlen(s);
	return v;
}

static void enc_ok(fx *f, const rk_value *vals)
{
	int rc = rk_key_encode(f->key, sizeof f->key, &f->klen, f->e, vals);
	if (rc)
		fail_msg("encode: %s", rk_error_last());
}

static const char *current_schema = "";

static void roundtrip(fx *f, const rk_value *vals)
{
	enc_ok(f, vals);
	int rc = rk_key_decode(f->out, f->e, f->key, f->klen);
	if (rc)
		fail_msg("decode under '%s': %s", current_schema, rk_error_last());
	rk_schema_info in;
	rk_schema_get_info(&in, f->s);
	for (size_t k = 0; k < rk_schema_nfields(f->s); k++) {
		if (!(in.decodable_mask >> k & 1))
			continue;
		rk_type t = rk_schema_field_type(f->s, k);
		assert_true(f->out[k].present);
		if (t == RK_T_STR || t == RK_T_BYTES) {
			assert_int_equal(f->out[k].v.s.len, vals[k].v.s.len);
			assert_memory_equal(f->out[k].v.s.ptr, vals[k].v.s.ptr, vals[k].v.s.len);
		} else if (t == RK_T_F64) {
			assert_true(isnan(vals[k].v.f) ? isnan(f->out[k].v.f) : f->out[k].v.f == vals[k].v.f);
		} else {
			assert_true(f->out[k].v.u == vals[k].v.u);
		}
	}
}

static void test_plain_composite_text(void **state)
{
	(void)state;
	fx f;
	fx_open(&f, "fields date:str, time:str, id:u64\nkey date \":\" time \":\" id");
	rk_value v[] = {str("230611"), str("063031"), u(1231231)};
	roundtrip(&f, v);
	assert_int_equal(f.klen, strlen("230611:063031:1231231"));
	assert_memory_equal(f.key, "230611:063031:1231231", f.klen);
	/* a value containing its separator is rejected: it could not be decoded */
	rk_value bad[] = {str("23:06"), str("063031"), u(1)};
	assert_int_equal(rk_key_encode(f.key, sizeof f.key, &f.klen, f.e, bad), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "separator"));
	assert_non_null(strstr(rk_error_last(), "'date'"));
	fx_close(&f);
}

static void test_every_technique_roundtrips(void **state)
{
	(void)state;
	static const char *schemas[] = {
		"fields a:str, b:u64, c:i32; key HEX(md5(b)) \":\" a \":\" b \":\" c",
		"fields a:str, b:u64, c:i32; key hex(md5(a b c))[0:6] a \"|\" i32(c) u64(b)",
		"fields a:str, b:u64, c:i32; key bucket(16, xxh3(a)) esc(a) u64(b) i32(c)",
		"fields a:str, b:u64, c:i32; key bucket(10, murmur3(a), dec) \"-\" a \"-\" b \"-\" c",
		"fields a:str, b:u64, c:i32; key bucket(4, sha1(b), \"abcd\") \"-\" esc(a):desc u64(b):desc i32(c):desc",
		"fields a:str, b:u64, c:i32; key random(8) esc(a) dec(b, 20) i32(c)",
		"fields a:str, b:u64, c:i32; key roundrobin(12, dec) ordered(a) ordered(b) ordered(c)",
		"fields a:str, b:u64, c:i32; key phoenix_salt(8) phoenix(a) phoenix(c) phoenix(b)",
		"fields a:str, b:u64, c:i32; key phoenix_salt(256) phoenix(a):desc phoenix(c):desc",
		"fields a:str, b:u64, c:i32; key reverse(a) \"/\" b \"/\" c",
		"fields a:str, b:u64, c:i32; key reverse_labels(a) \"/\" reverse_num(b, 20) c",
		"fields a:str, b:u64, c:i32; key sha256(a) esc(a) ob(c) u64(b)",
		"fields a:str, b:u64, c:i32; key bucket(7, phoenix31(a)) esc(a) i64(c) u64(b)",
		"fields a:str, b:u64, c:i32; key ordered(a):desc ordered(c):desc ordered(b):desc",
		"fields a:str, b:u64, c:i32; key a \"#\" tbucket(c, 3600) \"#\" c \"#\" b",
		"fields a:str, b:u64, c:i32; key esc(a) bytes(a)",
	};
	for (size_t k = 0; k < sizeof schemas / sizeof schemas[0]; k++) {
		fx f;
		fx_open(&f, schemas[k]);
		current_schema = schemas[k];
		for (int r = 0; r < 300; r++) {
			char sbuf[24];
			size_t n = (size_t)(rnd() % 12);
			for (size_t j = 0; j < n; j++)
				sbuf[j] = (char)('a' + rnd() % 26);
			if (n > 2 && rnd() % 2)
				sbuf[rnd() % n] = '.';
			sbuf[n] = 0;
			int32_t c = (int32_t)(rnd() % 2000000) - 1000000;
			if (strstr(schemas[k], "tbucket") && c < 0)
				c = -c;
			rk_value v[] = {str(sbuf), u(rnd() >> (rnd() % 64)), i(c)};
			roundtrip(&f, v);
		}
		fx_close(&f);
	}
}

static void test_typed_fields_roundtrip(void **state)
{
	(void)state;
	fx f;
	fx_open(&f, "fields a:u8, b:u16, c:u32, d:i8, e:i16, g:i64, h:f64, s:bytes\n"
	            "key u8(a) u16(b) u32(c) i8(d):desc i16(e) i64(g):desc f64(h) f64(h):desc ob(g) ob(h) bytes(s)");
	rk_value v[] = {u(255), u(65535), u(4000000000u), i(-128), i(-300), i(INT64_MIN), d(-0.0), str("\x00\xff")};
	v[7].v.s.len = 2;
	roundtrip(&f, v);
	rk_value w[] = {u(0), u(0), u(0), i(127), i(32767), i(INT64_MAX), d(NAN), str("")};
	roundtrip(&f, w);
	rk_value x[] = {u(1), u(2), u(3), i(4), i(5), i(6), d(-INFINITY), str("z")};
	roundtrip(&f, x);
	fx_close(&f);
}

/* Composite keys sort field by field: compare logical tuples with key bytes. */
typedef struct {
	char s[8];
	size_t sn;
	int32_t n;
	double x;
} tuple;

static int tcmp(const tuple *a, const tuple *b, int desc_s, int desc_n)
{
	size_t m = a->sn < b->sn ? a->sn : b->sn;
	int c = memcmp(a->s, b->s, m);
	if (!c)
		c = a->sn < b->sn ? -1 : a->sn > b->sn;
	c = c > 0 ? 1 : c < 0 ? -1 : 0;
	if (c)
		return desc_s ? -c : c;
	c = a->n < b->n ? -1 : a->n > b->n;
	if (c)
		return desc_n ? -c : c;
	return a->x < b->x ? -1 : a->x > b->x;
}

static void rnd_tuple(tuple *t)
{
	t->sn = rnd() % 4;
	for (size_t j = 0; j < t->sn; j++) {
		int r = (int)(rnd() % 4);
		t->s[j] = r == 0 ? 0 : r == 1 ? (char)0xff : (char)('a' + rnd() % 2);
	}
	t->n = (int32_t)(rnd() % 7) - 3;
	t->x = (double)((int)(rnd() % 7) - 3) / 2;
}

static void check_composite_order(const char *schema, int desc_s, int desc_n)
{
	fx f;
	fx_open(&f, schema);
	for (int r = 0; r < 5000; r++) {
		tuple a, b;
		rnd_tuple(&a);
		rnd_tuple(&b);
		rk_value va[] = {{.present = 1}, i(a.n), d(a.x)}, vb[] = {{.present = 1}, i(b.n), d(b.x)};
		va[0].v.s.ptr = (const uint8_t *)a.s;
		va[0].v.s.len = a.sn;
		vb[0].v.s.ptr = (const uint8_t *)b.s;
		vb[0].v.s.len = b.sn;
		uint8_t ka[128], kb[128];
		size_t la, lb;
		assert_int_equal(rk_key_encode(ka, sizeof ka, &la, f.e, va), 0);
		assert_int_equal(rk_key_encode(kb, sizeof kb, &lb, f.e, vb), 0);
		int c = memcmp(ka, kb, la < lb ? la : lb);
		if (!c)
			c = la < lb ? -1 : la > lb;
		c = c > 0 ? 1 : c < 0 ? -1 : 0;
		int want = tcmp(&a, &b, desc_s, desc_n);
		if (c != want)
			fail_msg("schema '%s': order %d, want %d", schema, c, want);
	}
	fx_close(&f);
}

static void test_composite_order(void **state)
{
	(void)state;
	check_composite_order("fields s:bytes, n:i32, x:f64; key esc(s) i32(n) f64(x)", 0, 0);
	check_composite_order("fields s:bytes, n:i32, x:f64; key esc(s):desc i32(n) f64(x)", 1, 0);
	check_composite_order("fields s:bytes, n:i32, x:f64; key esc(s) i32(n):desc f64(x)", 0, 1);
	check_composite_order("fields s:bytes, n:i32, x:f64; key ordered(s) ordered(n) f64(x)", 0, 0);
	check_composite_order("fields s:bytes, n:i32, x:f64; key ordered(s):desc ordered(n):desc f64(x)", 1, 1);
	check_composite_order("fields s:bytes, n:i32, x:f64; key esc(s) ob(n) ob(x)", 0, 0);
}

static void test_reverse_timestamp_newest_first(void **state)
{
	(void)state;
	fx f;
	fx_open(&f, "fields user:u32, ts:ts; key u32(user) u64(rts(ts))");
	rk_value older[] = {u(7), i(1000)}, newer[] = {u(7), i(2000)};
	uint8_t k1[64], k2[64];
	size_t l1, l2;
	assert_int_equal(rk_key_encode(k1, sizeof k1, &l1, f.e, older), 0);
	assert_int_equal(rk_key_encode(k2, sizeof k2, &l2, f.e, newer), 0);
	assert_true(memcmp(k2, k1, l1) < 0);
	/* 0x7fffffffffffffff - 1000 */
	assert_memory_equal(k1 + 4, "\x7f\xff\xff\xff\xff\xff\xfc\x17", 8);
	roundtrip(&f, older);
	fx_close(&f);

	fx_open(&f, "fields ts:ts; key dec(rts(ts), 19)");
	rk_value t[] = {i(1686465031000)};
	enc_ok(&f, t);
	assert_int_equal(f.klen, 19);
	assert_memory_equal(f.key, "9223370350389744807", 19);
	roundtrip(&f, t);
	rk_value neg[] = {i(-1)};
	assert_int_equal(rk_key_encode(f.key, sizeof f.key, &f.klen, f.e, neg), RK_EINVALID);
	fx_close(&f);

	/* a signed encoding of the reversed value decodes too (found by fuzz_schema) */
	fx_open(&f, "fields ts:ts; key i64(rts(ts))");
	roundtrip(&f, t);
	fx_close(&f);
	fx_open(&f, "fields ts:u64; key i32(rts(ts, 1000))");
	rk_value small[] = {u(5)};
	roundtrip(&f, small);
	fx_close(&f);
}

static void test_reversing(void **state)
{
	(void)state;
	fx f;
	fx_open(&f, "fields d:str; key reverse(d)");
	rk_value v[] = {str("flink.example.com")};
	enc_ok(&f, v);
	assert_memory_equal(f.key, "moc.elpmaxe.knilf", f.klen);
	roundtrip(&f, v);
	fx_close(&f);
	fx_open(&f, "fields d:str; key reverse_labels(d)");
	enc_ok(&f, v);
	assert_memory_equal(f.key, "com.example.flink", f.klen);
	roundtrip(&f, v);
	fx_close(&f);
	fx_open(&f, "fields n:u32; key reverse_num(n, 6)");
	rk_value n[] = {u(1234)};
	enc_ok(&f, n);
	assert_memory_equal(f.key, "432100", 6);
	roundtrip(&f, n);
	rk_value big[] = {u(1234567)};
	assert_int_equal(rk_key_encode(f.key, sizeof f.key, &f.klen, f.e, big), RK_EINVALID);
	fx_close(&f);
}

static void test_time_bucket(void **state)
{
	(void)state;
	fx f;
	fx_open(&f, "fields ts:ts, id:u32; key u64(tbucket(ts, 3600)) u32(id)");
	rk_value v[] = {i(7205), u(1)};
	enc_ok(&f, v);
	assert_memory_equal(f.key, "\x00\x00\x00\x00\x00\x00\x1c\x20", 8); /* 7200 */
	assert_int_equal(rk_key_decode(f.out, f.e, f.key, f.klen), 0);
	assert_false(f.out[0].present); /* lossy: not recovered */
	assert_true(f.out[1].present);
	fx_close(&f);
}

static void test_decode_rejects_wrong_prefix(void **state)
{
	(void)state;
	fx f;
	fx_open(&f, "fields id:u64; key hex(md5(id))[0:6] id");
	rk_value v[] = {u(42)};
	enc_ok(&f, v);
	assert_int_equal(rk_key_decode(f.out, f.e, f.key, f.klen), 0);
	f.key[0] = f.key[0] == 'a' ? 'b' : 'a';
	assert_int_equal(rk_key_decode(f.out, f.e, f.key, f.klen), RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), "key byte 0"));
	fx_close(&f);

	fx_open(&f, "fields a:str, b:u32; key bucket(8, xxh3(a)) esc(a) u32(b)");
	rk_value w[] = {str("hello"), u(9)};
	enc_ok(&f, w);
	f.key[0] = (uint8_t)((f.key[0] + 1) % 8);
	assert_int_equal(rk_key_decode(f.out, f.e, f.key, f.klen), RK_ECORRUPT);
	f.key[0] = 9; /* not below 8 */
	assert_int_equal(rk_key_decode(f.out, f.e, f.key, f.klen), RK_ECORRUPT);
	assert_int_equal(rk_key_decode(f.out, f.e, f.key, 3), RK_ECORRUPT); /* truncated */
	fx_close(&f);

	/* a field that is only time-bucketed: the bucket prefix is still checked */
	fx_open(&f, "fields a:str, b:u32; key bucket(8, md5(a)) a \":\" tbucket(b, 2)");
	rk_value t[] = {str("x"), u(5)};
	enc_ok(&f, t);
	assert_int_equal(rk_key_decode(f.out, f.e, f.key, f.klen), 0);
	f.key[0] = (uint8_t)((f.key[0] + 3) % 8);
	assert_int_equal(rk_key_decode(f.out, f.e, f.key, f.klen), RK_ECORRUPT);
	fx_close(&f);

	fx_open(&f, "fields a:str; key phoenix_salt(4) phoenix(a)");
	rk_value p[] = {str("row1")};
	enc_ok(&f, p);
	assert_int_equal(rk_key_decode(f.out, f.e, f.key, f.klen), 0);
	f.key[0] ^= 1;
	assert_int_equal(rk_key_decode(f.out, f.e, f.key, f.klen), RK_ECORRUPT);
	fx_close(&f);
}

static void test_phoenix_salt_matches_java(void **state)
{
	(void)state;
	/* Phoenix: h = 1; h = 31*h + (byte) b; salt = abs(h % N).
	 * "row1" = 72 6f 77 31: h = ((((1*31+114)*31+111)*31+119)*31+49) = 4430104 (no overflow);
	 * 4430104 % 8 = 0. */
	fx f;
	fx_open(&f, "fields a:str; key phoenix_salt(8) phoenix(a)");
	rk_value v[] = {str("row1")};
	enc_ok(&f, v);
	assert_int_equal(f.key[0], 4430104 % 8);
	assert_int_equal(rk_key_bucket(f.e, f.key, f.klen), 4430104 % 8);
	/* a negative hash: bytes >= 0x80 are negative in Java */
	rk_value w[] = {str("\xff\xfe")};
	enc_ok(&f, w);
	int32_t h = 1;
	h = 31 * h + -1;
	h = 31 * h + -2;
	int32_t m = h % 8;
	assert_int_equal(f.key[0], m < 0 ? -m : m);
	fx_close(&f);
}

static void test_salts(void **state)
{
	(void)state;
	fx f;
	fx_open(&f, "fields id:u32; key roundrobin(4, \"wxyz\") \"-\" id");
	rk_value v[] = {u(5)};
	const char want[] = "wxyzw";
	for (int k = 0; k < 5; k++) {
		enc_ok(&f, v);
		assert_int_equal(f.key[0], want[k]);
		assert_int_equal(rk_key_bucket(f.e, f.key, f.klen), k % 4);
		assert_int_equal(rk_key_decode(f.out, f.e, f.key, f.klen), 0);
		assert_true(f.out[0].v.u == 5);
	}
	rk_schema_info in;
	rk_schema_get_info(&in, f.s);
	assert_int_equal(in.buckets, 4);
	assert_int_equal(in.deterministic, 0);
	fx_close(&f);

	/* random salts are reproducible for a seed and cover every bucket */
	fx_open(&f, "fields id:u32; key random(16) u32(id)");
	int seen[16] = {0};
	for (int k = 0; k < 1000; k++) {
		enc_ok(&f, v);
		assert_true(f.key[0] < 16);
		seen[f.key[0]]++;
	}
	for (int k = 0; k < 16; k++)
		assert_true(seen[k] > 20);
	fx_close(&f);
}

static void test_key_length_limit(void **state)
{
	(void)state;
	fx f;
	fx_open(&f, "fields s:str; option max_key_len=8; key esc(s)");
	rk_value ok[] = {str("abcdef")}, bad[] = {str("abcdefg")};
	enc_ok(&f, ok);
	assert_int_equal(f.klen, 8);
	assert_int_equal(rk_key_encode(f.key, sizeof f.key, &f.klen, f.e, bad), RK_ETOOLONG);
	assert_non_null(strstr(rk_error_last(), "8 bytes"));
	assert_int_equal(rk_schema_max_key_len(f.s), 8);
	fx_close(&f);
	fx_open(&f, "fields s:str; option target=bigtable; key s");
	assert_int_equal(rk_schema_max_key_len(f.s), 4096);
	fx_close(&f);
	fx_open(&f, "fields s:str; key s");
	assert_int_equal(rk_schema_max_key_len(f.s), 32767);
	fx_close(&f);
}

static void test_missing_field(void **state)
{
	(void)state;
	fx f;
	fx_open(&f, "fields a:str, b:u32; key a \":\" b");
	rk_value v[] = {str("x"), {0}};
	assert_int_equal(rk_key_encode(f.key, sizeof f.key, &f.klen, f.e, v), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "'b'"));
	fx_close(&f);
}

/* Every NaN is one text key, "nan": printf writes "-nan" for a NaN with its
 * sign bit set, which made a second key for the one value f64() writes. */
static void test_text_nan_one_spelling(void **state)
{
	(void)state;
	fx f;
	fx_open(&f, "fields x:f64; key x");
	rk_value v[] = {d(copysign(NAN, -1.0))};
	enc_ok(&f, v);
	assert_int_equal(f.klen, 3);
	assert_memory_equal(f.key, "nan", 3);
	v[0] = d(NAN);
	enc_ok(&f, v);
	assert_memory_equal(f.key, "nan", 3);
	fx_close(&f);
}

/* A time bucket that would start below the i64 range is refused; the
 * subtraction overflowed (undefined) and wrapped to a large positive start. */
static void test_time_bucket_below_i64(void **state)
{
	(void)state;
	fx f;
	fx_open(&f, "fields ts:ts; key tbucket(ts, 3600) \":\" ts");
	rk_value v[] = {i(INT64_MIN)};
	assert_int_equal(rk_key_encode(f.key, sizeof f.key, &f.klen, f.e, v), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "no bucket start within i64"));
	v[0] = i(INT64_MIN + 1807); /* 2^63 = 3600 q + 1808: the lowest start is -3600 q */
	assert_int_equal(rk_key_encode(f.key, sizeof f.key, &f.klen, f.e, v), RK_EINVALID);
	v[0] = i(INT64_MIN + 1808);
	enc_ok(&f, v);
	assert_int_equal(-3600 * (INT64_MAX / 3600), INT64_MIN + 1808);
	fx_close(&f);
	fx_open(&f, "fields ts:ts; key tbucket(ts, 1024) \":\" ts"); /* 1024 divides 2^63 */
	v[0] = i(INT64_MIN);
	enc_ok(&f, v);
	assert_memory_equal(f.key, "-9223372036854775808:", 21);
	fx_close(&f);
}

/* Reversed values are limited one at a time by the key limit (or a hash's
 * 64 KiB input), as every other value: they were limited together to 128 KiB
 * a key, so three hashes of one 50,000-byte reversed string, or one
 * 200,000-byte reversed string under max_key_len=1048576, were refused. */
static void test_reversed_values_limit(void **state)
{
	(void)state;
	size_t n = 200000;
	char *big = malloc(n + 1);
	uint8_t *key = malloc(1 << 20);
	assert_non_null(big);
	assert_non_null(key);
	for (size_t k = 0; k < n; k++)
		big[k] = (char)('a' + k % 26);
	big[n] = 0;
	fx f;
	fx_open(&f, "fields a:str, b:u8; key md5(reverse(a)) sha1(reverse(a)) xxh3(reverse(a)) u8(b)");
	big[50000] = 0;
	rk_value v[] = {str(big), u(1)};
	enc_ok(&f, v);
	assert_int_equal(f.klen, 16 + 20 + 8 + 1);
	fx_close(&f);
	big[50000] = 'a';
	fx_open(&f, "option max_key_len=1048576; fields a:str; key reverse(a)");
	v[0] = str(big);
	size_t klen = 0;
	assert_int_equal(rk_key_encode(key, 1 << 20, &klen, f.e, v), 0);
	assert_int_equal(klen, n);
	assert_int_equal(key[0], big[n - 1]);
	assert_int_equal(rk_key_decode(f.out, f.e, key, klen), 0);
	assert_memory_equal(f.out[0].v.s.ptr, big, n);
	fx_close(&f);
	free(big);
	free(key);
}

static int decode_hex(fx *f, const char *hex)
{
	f->klen = strlen(hex) / 2;
	for (size_t k = 0; k < f->klen; k++) {
		unsigned b;
		sscanf(hex + 2 * k, "%2x", &b);
		f->key[k] = (uint8_t)b;
	}
	return rk_key_decode(f->out, f->e, f->key, f->klen);
}

/* Where a field is only hashed the key is not re-encoded as a whole, and the
 * decoder accepted what the encoder never writes: a number spelled "007",
 * "-0" or "0x1", a NaN with another payload, a time bucket that is not a
 * multiple of its width, a Phoenix salt byte the rest of the key does not
 * give. Each is now refused where it is read. */
static void test_decode_refuses_unwritten_keys(void **state)
{
	(void)state;
	fx f;
	const char *md5x = "3a" "00112233445566778899aabbccddeeff"; /* ":" + a hash of h, never checked */
	char hex[256];
	fx_open(&f, "fields a:u64, h:str; key a \":\" md5(h)");
	snprintf(hex, sizeof hex, "37%s", md5x);
	assert_int_equal(decode_hex(&f, hex), 0);
	assert_true(f.out[0].present && f.out[0].v.u == 7 && !f.out[1].present);
	snprintf(hex, sizeof hex, "303037%s", md5x); /* 007 */
	assert_int_equal(decode_hex(&f, hex), RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), "'007' is not how the encoder writes"));
	fx_close(&f);
	fx_open(&f, "fields a:i64, h:str; key a \":\" md5(h)");
	snprintf(hex, sizeof hex, "2d30%s", md5x); /* -0 */
	assert_int_equal(decode_hex(&f, hex), RK_ECORRUPT);
	fx_close(&f);
	fx_open(&f, "fields a:f64, h:str; key a \":\" md5(h)");
	snprintf(hex, sizeof hex, "307831%s", md5x); /* 0x1 */
	assert_int_equal(decode_hex(&f, hex), RK_ECORRUPT);
	snprintf(hex, sizeof hex, "312e35%s", md5x); /* 1.5 */
	assert_int_equal(decode_hex(&f, hex), 0);
	fx_close(&f);
	fx_open(&f, "fields a:f64, h:str; key f64(a) md5(h)");
	assert_int_equal(decode_hex(&f, "fff8000000000000" "00112233445566778899aabbccddeeff"), 0);
	assert_true(isnan(f.out[0].v.f));
	assert_int_equal(decode_hex(&f, "fff8000000000001" "00112233445566778899aabbccddeeff"), RK_ECORRUPT);
	fx_close(&f);
	fx_open(&f, "fields ts:ts, id:u32; key u64(tbucket(ts, 3600)) u32(id)");
	assert_int_equal(decode_hex(&f, "0000000000001c20" "00000001"), 0); /* 7200 */
	assert_int_equal(decode_hex(&f, "0000000000001c21" "00000001"), RK_ECORRUPT);
	fx_close(&f);
	fx_open(&f, "fields a:str, h:str; key phoenix_salt(8) phoenix(a) md5(h)");
	rk_value v[] = {str("x"), str("y")};
	enc_ok(&f, v);
	assert_int_equal(rk_key_decode(f.out, f.e, f.key, f.klen), 0);
	f.key[0] = (uint8_t)((f.key[0] + 1) % 8);
	assert_int_equal(rk_key_decode(f.out, f.e, f.key, f.klen), RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), "Phoenix salt byte"));
	fx_close(&f);
}

static void test_value_parse(void **state)
{
	(void)state;
	rk_value v;
	assert_int_equal(rk_value_parse(&v, RK_T_U8, "255", 3), 0);
	assert_true(v.v.u == 255);
	assert_int_equal(rk_value_parse(&v, RK_T_U8, "256", 3), RK_EINVALID);
	assert_int_equal(rk_value_parse(&v, RK_T_U32, "-1", 2), RK_EINVALID);
	assert_int_equal(rk_value_parse(&v, RK_T_U64, " -1", 3), RK_EINVALID); /* strtoull would wrap it */
	assert_int_equal(rk_value_parse(&v, RK_T_I32, "+5", 2), RK_EINVALID);
	assert_int_equal(rk_value_parse(&v, RK_T_I16, "-32768", 6), 0);
	assert_true(v.v.i == -32768);
	assert_int_equal(rk_value_parse(&v, RK_T_I16, "32768", 5), RK_EINVALID);
	assert_int_equal(rk_value_parse(&v, RK_T_I64, "12x", 3), RK_EINVALID);
	assert_int_equal(rk_value_parse(&v, RK_T_F64, "-inf", 4), 0);
	assert_true(isinf(v.v.f) && v.v.f < 0);
	assert_int_equal(rk_value_parse(&v, RK_T_F64, "", 0), RK_EINVALID);
	assert_int_equal(rk_value_parse(&v, RK_T_U64, "18446744073709551615", 20), 0);
	assert_int_equal(rk_value_parse(&v, RK_T_U64, "18446744073709551616", 20), RK_EINVALID);
	char buf[32];
	rk_value_format(buf, sizeof buf, RK_T_I64, &(rk_value){.present = 1, .v.i = -5});
	assert_string_equal(buf, "-5");
}

/* A key's logical form: its literals and value parts, without the parts
 * that place it (bucket, salt, hashes, hex, slices). */
static void test_logical_form(void **state)
{
	(void)state;
	fx f;
	uint8_t l[64];
	size_t ll;
	fx_open(&f, "fields uid:u64, ts:i64; key bucket(8, xxh3(uid)) u64(uid) \":\" md5(uid)[0:2] u64(rts(ts))");
	rk_value v[2] = {u(7), i(1000)};
	enc_ok(&f, v);
	assert_int_equal(f.klen, 1 + 8 + 1 + 2 + 8);
	assert_int_equal(rk_key_logical(l, sizeof l, &ll, f.e, f.key, f.klen), 0);
	assert_int_equal(ll, 8 + 1 + 8);
	assert_memory_equal(l, f.key + 1, 9);            /* u64(uid) ":" */
	assert_memory_equal(l + 9, f.key + 12, 8);       /* u64(rts(ts)) */
	assert_int_equal(rk_key_logical(l, 16, &ll, f.e, f.key, f.klen), RK_ETOOLONG);
	f.key[0] ^= 1; /* a bucket its fields do not produce */
	assert_int_equal(rk_key_logical(l, sizeof l, &ll, f.e, f.key, f.klen), RK_ECORRUPT);
	fx_close(&f);

	fx_open(&f, "fields id:u64; key hex(md5(id))[0:6] \":\" id");
	rk_value w[1] = {u(1231231)};
	enc_ok(&f, w);
	assert_int_equal(rk_key_logical(l, sizeof l, &ll, f.e, f.key, f.klen), 0);
	assert_int_equal(ll, 8);
	assert_memory_equal(l, ":1231231", 8);
	fx_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_composite_text),
		cmocka_unit_test(test_every_technique_roundtrips),
		cmocka_unit_test(test_typed_fields_roundtrip),
		cmocka_unit_test(test_composite_order),
		cmocka_unit_test(test_reverse_timestamp_newest_first),
		cmocka_unit_test(test_reversing),
		cmocka_unit_test(test_time_bucket),
		cmocka_unit_test(test_decode_rejects_wrong_prefix),
		cmocka_unit_test(test_phoenix_salt_matches_java),
		cmocka_unit_test(test_salts),
		cmocka_unit_test(test_key_length_limit),
		cmocka_unit_test(test_missing_field),
		cmocka_unit_test(test_text_nan_one_spelling),
		cmocka_unit_test(test_time_bucket_below_i64),
		cmocka_unit_test(test_reversed_values_limit),
		cmocka_unit_test(test_decode_refuses_unwritten_keys),
		cmocka_unit_test(test_value_parse),
		cmocka_unit_test(test_logical_form),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
