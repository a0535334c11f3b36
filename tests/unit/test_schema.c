/*
 * Unit tests for src/key/schema*.c: every parse error names its line, column
 * and token; templates that could not be decoded are refused; describe and
 * the info struct say what a design costs on reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rowkey/key.h>

static void expect_error(const char *text, const char *where, const char *what)
{
	rk_schema *s = NULL;
	int rc = rk_schema_parse(&s, text, strlen(text), "t.rk");
	if (rc != RK_EINVALID)
		fail_msg("schema '%s' parsed (rc %d) but should fail with '%s'", text, rc, what);
	const char *msg = rk_error_last();
	if (where && !strstr(msg, where))
		fail_msg("schema '%s': message '%s' lacks position '%s'", text, msg, where);
	if (!strstr(msg, what))
		fail_msg("schema '%s': message '%s' lacks '%s'", text, msg, what);
	assert_null(s);
}

static void test_parse_errors(void **state)
{
	(void)state;
	expect_error("fields a:str\nkey b", "t.rk:2:5", "unknown field or function 'b'");
	expect_error("fields a:strr\nkey a", "t.rk:1:10", "unknown type");
	expect_error("fields a:str, a:u8\nkey a", "t.rk:1:15", "declared twice");
	expect_error("key a", "t.rk:1:1", "declare the fields before the key");
	expect_error("fields a:str", NULL, "no 'key' line");
	expect_error("fields a:str\nkey a\nkey a", "t.rk:3:1", "one key line");
	expect_error("fields a:str\nkey \"unterminated", "t.rk:2:5", "unterminated string literal");
	expect_error("fields a:str\nkey \"a\\q\"", "t.rk:2:5", "unknown escape");
	expect_error("fields a:str\nkey md5(a", "t.rk:2:10", "missing ')'");
	expect_error("fields a:str\nkey nosuch(a)", "t.rk:2:5", "unknown function 'nosuch'");
	expect_error("fields a:str\nkey u32(a)", "t.rk:2:5", "needs an integer value");
	expect_error("fields a:u32\nkey esc(a)", "t.rk:2:5", "needs a str or bytes value");
	expect_error("fields a:u32\nkey f64(a)", "t.rk:2:5", "f64() needs an f64 field");
	expect_error("fields a:u32\nkey ob(a)", "t.rk:2:5", "no unsigned form");
	expect_error("fields a:u32\nkey dec(a, 0)", "t.rk:2:12", "decimal width must be between 1 and 20");
	expect_error("fields a:str, b:str\nkey a b", "t.rk:2:5", "must be followed by a literal separator");
	expect_error("fields a:str, b:str\nkey bytes(a) \":\" b", "t.rk:2:5", "must be its last part");
	expect_error("fields a:str\nkey esc(a) phoenix_salt(4)", "t.rk:2:12", "must be the first part");
	expect_error("fields a:str\nkey a:desc", "t.rk:2:7", "desc needs a fixed-width or terminated encoding");
	expect_error("fields a:str\nkey bucket(4, a) esc(a)", "t.rk:2:15", "takes a hash");
	expect_error("fields a:str\nkey bucket(300, md5(a)) esc(a)", "t.rk:2:5", "at most 256 buckets");
	expect_error("fields a:str\nkey bucket(4, md5(a), \"abc\") esc(a)", "t.rk:2:23", "exactly 4 characters");
	expect_error("fields a:str\nkey bucket(2, md5(a), \"aa\") esc(a)", "t.rk:2:23", "repeats 'a'");
	expect_error("fields a:str\nkey phoenix_salt(257) esc(a)", "t.rk:2:18", "bucket count must be between 1 and 256");
	expect_error("fields a:str\nkey md5(a)[3:2] esc(a)", "t.rk:2:5", "is empty or outside");
	expect_error("fields a:str\nkey md5(a)[0:17] esc(a)", "t.rk:2:5", "outside the 16 bytes");
	expect_error("fields a:str\nkey hex(a) \":\" a", "t.rk:2:5", "hex() needs a fixed-width input");
	expect_error("fields a:str\nkey a[0:]", "t.rk:2:5", "explicit non-negative bounds");
	expect_error("fields a:str\nkey md5(bucket(2, md5(a)))", "t.rk:2:9", "only stand at the top level");
	expect_error("fields a:str\nkey rts(a)", "t.rk:2:9", "needs an integer timestamp field");
	expect_error("fields a:u64\nkey reverse(a)", "t.rk:2:13", "needs a str or bytes field");
	expect_error("fields a:str\noption max_key_len=0\nkey a", "t.rk:2:20", "max_key_len must be between");
	expect_error("fields a:str\noption colour=red\nkey a", "t.rk:2:8", "unknown option");
	expect_error("fields a:str\nkey a $", "t.rk:2:7", "unexpected character");
	{ /* a NUL byte is no punctuation (strchr finds the terminator) */
		static const char nul[] = "fields a:str\nkey a \0";
		rk_schema *s = NULL;
		assert_int_equal(rk_schema_parse(&s, nul, sizeof nul - 1, "t.rk"), RK_EINVALID);
		assert_non_null(strstr(rk_error_last(), "t.rk:2:7"));
		assert_non_null(strstr(rk_error_last(), "unexpected character"));
	}
	expect_error("fields a:str\nkey a extra", "t.rk:2:7", "unknown field or function 'extra'");
	expect_error("fields a:str\nflavour x\nkey a", "t.rk:2:1", "expected a directive");
	expect_error("fields a:u32; option max_key_len=3; key u32(a)", NULL, "shortest key (4 bytes) is over max_key_len 3");
	expect_error("fields a:str\nkey a:sideways", "t.rk:2:7", "expected asc or desc");
	rk_schema *asc;
	assert_int_equal(rk_schema_parse(&asc, "fields a:str; key a:asc", 23, NULL), 0);
	rk_schema_free(asc);
	expect_error("fields a:f64\nkey phoenix(a)", "t.rk:2:5", "phoenix() supports");
	expect_error("fields a:str, b:str\nkey phoenix(a) \"x\" b", "t.rk:2:5", "writes its own 0x00 separator");
	expect_error("fields a:str\nkey md5(md5(md5(md5(md5(a)))))", "t.rk:2:21", "nested deeper");
	expect_error("", NULL, "no 'key' line");
	expect_error("fields a:str\nkey md5(md5(md5(md5(a)[0:1])[0:1])[0:1])[0:1] a", NULL, "nested deeper than 4");
	expect_error("fields a:str\nkey roundrobin(4) roundrobin(3) a", "t.rk:2:19", "at most one salt or bucket");
	expect_error("fields a:str, b:u64\nkey a \":\" random(4) u64(b)", "t.rk:2:11", "a salt part must come before the key's fields");
	/* parts that fail half-parsed are freed (ASan checks) */
	expect_error("fields a:str\nkey md5(a):desc", NULL, "desc needs");
	expect_error("fields a:str\nkey bucket(4, md5(a), hex) a", NULL, "expected a bucket form");
	expect_error("fields a:str\nkey md5(a a", NULL, "missing ')'");
	expect_error("fields id:u64, d:str\nkey HEX(md5(id)) \":\" d \")) \":\" d \":\" id", NULL, "expected asc or desc");
}

static void test_comments_continuations_and_forms(void **state)
{
	(void)state;
	const char *text = "# messages by date\n"
	                   "name messages\n"
	                   "fields date:str,   # yymmdd\n"
	                   "       time:str, id:u64\n"
	                   "key date \":\" \\\n"
	                   "    time \":\" id\n";
	rk_schema *s;
	/* a field list cannot continue over a comment line without '\': expect an error */
	assert_int_equal(rk_schema_parse(&s, text, strlen(text), "m.rk"), RK_EINVALID);
	const char *ok = "# messages by date\n"
	                 "name messages\n"
	                 "fields date:str, time:str  # yymmdd, hhmmss\n"
	                 "fields id:u64\n"
	                 "key date \":\" \\\n"
	                 "    time \":\" id   # the plain composite\n";
	if (rk_schema_parse(&s, ok, strlen(ok), "m.rk"))
		fail_msg("%s", rk_error_last());
	assert_int_equal(rk_schema_nfields(s), 3);
	assert_string_equal(rk_schema_field_name(s, 2), "id");
	assert_int_equal(rk_schema_field_type(s, 2), RK_T_U64);
	assert_int_equal(rk_schema_field_index(s, "time", 4), 1);
	assert_int_equal(rk_schema_field_index(s, "nope", 4), RK_ENOTFOUND);
	char *d;
	assert_int_equal(rk_schema_describe(&d, s), 0);
	assert_non_null(strstr(d, "schema      messages"));
	assert_non_null(strstr(d, "key         date \":\" time \":\" id"));
	assert_non_null(strstr(d, "no fan-out"));
	assert_non_null(strstr(d, "in order of the leading field 'date'"));
	free(d);
	rk_schema_free(s);
}

static void test_info_and_describe(void **state)
{
	(void)state;
	rk_schema *s;
	const char *t = "fields user:u64, ts:ts, kind:str; key bucket(16, xxh3(user)) u64(user) u64(rts(ts)) esc(kind)";
	assert_int_equal(rk_schema_parse(&s, t, strlen(t), NULL), 0);
	rk_schema_info in;
	rk_schema_get_info(&in, s);
	assert_int_equal(in.buckets, 16);
	assert_int_equal(in.deterministic, 1);
	assert_int_equal(in.prefix_len, 1);
	assert_int_equal(in.key_min_len, 1 + 8 + 8 + 2);
	assert_int_equal(in.key_max_len, 0);
	assert_true(in.point_get_mask == 7);
	assert_true(in.decodable_mask == 7);
	assert_int_equal(in.order_preserving, 0);
	char *d;
	assert_int_equal(rk_schema_describe(&d, s), 0);
	assert_non_null(strstr(d, "fan out over 16 buckets (hash bucket, 1 prefix byte)"));
	assert_non_null(strstr(d, "16-way merge"));
	free(d);
	assert_int_equal(rk_schema_describe_json(&d, s), 0);
	assert_non_null(strstr(d, "\"buckets\":16"));
	assert_non_null(strstr(d, "\"point_get_fields\":[\"user\",\"ts\",\"kind\"]"));
	free(d);
	rk_schema_free(s);

	t = "fields id:u64, body:str; key HEX(md5(id)) u64(id)";
	assert_int_equal(rk_schema_parse(&s, t, strlen(t), NULL), 0);
	rk_schema_get_info(&in, s);
	assert_int_equal(in.key_min_len, 40);
	assert_int_equal(in.key_max_len, 40);
	assert_true(in.point_get_mask == 1);
	assert_int_equal(rk_schema_describe(&d, s), 0);
	assert_non_null(strstr(d, "range reads over the hashed fields are full scans"));
	assert_non_null(strstr(d, "body         str    not in key"));
	free(d);
	rk_schema_free(s);

	t = "fields a:str, b:i32; key esc(a) i32(b)";
	assert_int_equal(rk_schema_parse(&s, t, strlen(t), NULL), 0);
	rk_schema_get_info(&in, s);
	assert_int_equal(in.order_preserving, 1);
	rk_schema_free(s);
	/* descending: keys sort against the field's order (docs/schema.md 2.8);
	   this was reported as order-preserving */
	t = "fields a:str, b:i32; key esc(a) i32(b):desc";
	assert_int_equal(rk_schema_parse(&s, t, strlen(t), NULL), 0);
	rk_schema_get_info(&in, s);
	assert_int_equal(in.order_preserving, 0);
	rk_schema_free(s);
}

/* The canonical text reads back as the same schema: a bucket alphabet with a
 * quote, a backslash, a 0x00 and a byte above 0x7f is written with escapes
 * (it was written raw, so the text ended at the 0x00 or at the quote). */
static void test_text_round_trip_alphabet(void **state)
{
	(void)state;
	const char *src = "fields a:str; key bucket(5, md5(a), \"x\\\"\\\\\\x00\\xe9\") esc(a)";
	rk_schema *s = NULL, *s2 = NULL;
	char *text = NULL, *text2 = NULL, *json = NULL;
	assert_int_equal(rk_schema_parse(&s, src, strlen(src), NULL), 0);
	assert_int_equal(rk_schema_text(&text, s), 0);
	assert_non_null(strstr(text, "\"x\\\"\\\\\\x00\\xe9\""));
	assert_int_equal(rk_schema_parse(&s2, text, strlen(text), NULL), 0);
	assert_int_equal(rk_schema_text(&text2, s2), 0);
	assert_string_equal(text, text2);
	/* the same alphabet: every bucket letter agrees */
	rk_encoder *e1 = NULL, *e2 = NULL;
	assert_int_equal(rk_encoder_new(&e1, s, 0), 0);
	assert_int_equal(rk_encoder_new(&e2, s2, 0), 0);
	for (int i = 0; i < 50; i++) {
		char v[8];
		uint8_t k1[64], k2[64];
		size_t n1 = 0, n2 = 0;
		rk_value f = {.present = 1};
		f.v.s.ptr = (const uint8_t *)v;
		f.v.s.len = (size_t)snprintf(v, sizeof v, "%d", i);
		assert_int_equal(rk_key_encode(k1, sizeof k1, &n1, e1, &f), 0);
		assert_int_equal(rk_key_encode(k2, sizeof k2, &n2, e2, &f), 0);
		assert_memory_equal(k1, k2, 1);
		assert_int_equal(rk_key_bucket(e2, k1, n1), rk_key_bucket(e1, k1, n1));
	}
	/* describe's JSON holds no raw control byte */
	assert_int_equal(rk_schema_describe_json(&json, s), 0);
	for (const char *c = json; *c; c++)
		assert_true((unsigned char)*c >= 0x20);
	rk_encoder_free(e1);
	rk_encoder_free(e2);
	free(json);
	free(text);
	free(text2);
	rk_schema_free(s);
	rk_schema_free(s2);
}

static void test_load_inline_and_file(void **state)
{
	(void)state;
	rk_schema *s;
	assert_int_equal(rk_schema_load(&s, "fields a:str; key a"), 0);
	rk_schema_free(s);
	assert_int_equal(rk_schema_load(&s, "/nonexistent/schema.rk"), RK_ENOTFOUND);
	assert_non_null(strstr(rk_error_last(), "/nonexistent/schema.rk"));
	char path[] = "/tmp/rk_schema_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *t = "fields a:str\nkey zz(a)\n";
	assert_int_equal(write(fd, t, strlen(t)), (ssize_t)strlen(t));
	close(fd);
	assert_int_equal(rk_schema_load(&s, path), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), ":2:5: unknown function 'zz'"));
	assert_non_null(strstr(rk_error_last(), path));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_comments_continuations_and_forms),
		cmocka_unit_test(test_info_and_describe),
		cmocka_unit_test(test_text_round_trip_alphabet),
		cmocka_unit_test(test_load_inline_and_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
