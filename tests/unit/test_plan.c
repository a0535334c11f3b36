/*
 * Unit tests for src/key/plan.c: the plan kind and the exact range bounds
 * for known cases (the plan never reads a range that cannot match when a
 * tighter one exists), predicate parsing errors naming the token, and the
 * residual filter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

typedef struct {
	rk_schema *s;
	rk_predicate *p;
	rk_plan *plan;
} fx;

static void plan_of(fx *f, const char *schema, const char *where)
{
	memset(f, 0, sizeof *f);
	if (rk_schema_parse(&f->s, schema, strlen(schema), "t"))
		fail_msg("schema: %s", rk_error_last());
	if (rk_predicate_parse(&f->p, f->s, where, strlen(where)))
		fail_msg("where '%s': %s", where, rk_error_last());
	if (rk_plan_build(&f->plan, f->s, f->p))
		fail_msg("plan '%s': %s", where, rk_error_last());
}

static void fx_free(fx *f)
{
	rk_plan_free(f->plan);
	rk_predicate_free(f->p);
	rk_schema_free(f->s);
}

/* hex of a range bound, for readable assertions */
static const char *hx(const uint8_t *p, size_t n)
{
	static char buf[4][256];
	static int k;
	char *b = buf[k++ % 4];
	for (size_t i = 0; i < n && i < 120; i++)
		sprintf(b + 2 * i, "%02x", p[i]);
	b[2 * (n < 120 ? n : 120)] = 0;
	return b;
}

static void expect_range(const rk_plan *plan, size_t i, const char *start, const char *stop)
{
	assert_true(i < plan->nranges);
	const rk_key_range *r = &plan->ranges[i];
	assert_string_equal(hx(r->start, r->start_len), start);
	if (stop)
		assert_string_equal(hx(r->stop, r->stop_len), stop);
	else
		assert_null(r->stop);
}

static void test_point_gets(void **state)
{
	(void)state;
	fx f;
	plan_of(&f, "fields a:u32, b:u16; key u32(a) u16(b)", "a = 1 AND b IN (2, 3, 2)");
	assert_int_equal(f.plan->kind, RK_PLAN_GETS);
	assert_int_equal(f.plan->nranges, 2); /* the repeated 2 is one get */
	expect_range(f.plan, 0, "000000010002", NULL);
	expect_range(f.plan, 1, "000000010003", NULL);
	assert_int_equal(f.plan->residual, 0);
	fx_free(&f);

	/* a hash prefix recomputed from the bound fields: still one get */
	plan_of(&f, "fields id:u64; key hex(md5(id))[0:4] \":\" id", "id = 1231231");
	assert_int_equal(f.plan->kind, RK_PLAN_GETS);
	expect_range(f.plan, 0, "38643436" "3a" "31323331323331", NULL); /* "8d46:1231231" */
	fx_free(&f);

	/* a round-robin salt: one get per bucket */
	plan_of(&f, "fields id:u32; key roundrobin(4) u32(id)", "id = 7");
	assert_int_equal(f.plan->kind, RK_PLAN_GETS);
	assert_int_equal(f.plan->nranges, 4);
	expect_range(f.plan, 3, "0300000007", NULL);
	fx_free(&f);

	/* Phoenix salt over a fully bound key */
	plan_of(&f, "fields k:str; key phoenix_salt(8) phoenix(k)", "k = 'row1'");
	assert_int_equal(f.plan->kind, RK_PLAN_GETS);
	expect_range(f.plan, 0, "00726f7731", NULL); /* salt 0 (see test_encode) + "row1" */
	fx_free(&f);
}

static void test_ranges_are_tight(void **state)
{
	(void)state;
	fx f;
	/* leading field bound, second ranged */
	plan_of(&f, "fields a:u32, b:u16; key u32(a) u16(b)", "a = 1 AND b >= 5 AND b < 9");
	assert_int_equal(f.plan->kind, RK_PLAN_RANGES);
	assert_int_equal(f.plan->nranges, 1);
	expect_range(f.plan, 0, "000000010005", "000000010009");
	assert_int_equal(f.plan->residual, 0);
	fx_free(&f);

	/* exclusive lower bound, inclusive upper */
	plan_of(&f, "fields a:u32, b:u16; key u32(a) u16(b)", "a = 1 AND b > 5 AND b <= 9");
	expect_range(f.plan, 0, "000000010006", "00000001000a");
	fx_free(&f);

	/* descending field: bounds swap */
	plan_of(&f, "fields a:u8, b:u8; key u8(a) u8(b):desc", "a = 1 AND b BETWEEN 2 AND 4");
	expect_range(f.plan, 0, "01fb", "01fe");
	fx_free(&f);

	/* reverse timestamp: ts in [1000, 2000] -> rts in [max-2000, max-1000] */
	plan_of(&f, "fields u:u8, ts:ts; key u8(u) u64(rts(ts))", "u = 7 AND ts BETWEEN 1000 AND 2000");
	expect_range(f.plan, 0, "077ffffffffffff82f", "077ffffffffffffc18");
	fx_free(&f);

	/* only the leading field: everything under its prefix */
	plan_of(&f, "fields a:u8, b:u8; key u8(a) u8(b)", "a = 255");
	expect_range(f.plan, 0, "ff", NULL); /* 0xff has no successor prefix: unbounded */
	fx_free(&f);

	/* IN expands to several ranges; adjacent ones merge */
	plan_of(&f, "fields a:u8, b:u8; key u8(a) u8(b)", "a IN (1, 2, 5)");
	assert_int_equal(f.plan->nranges, 2);
	expect_range(f.plan, 0, "01", "03");
	expect_range(f.plan, 1, "05", "06");
	fx_free(&f);

	/* string prefix on an escaped string */
	plan_of(&f, "fields s:str, n:u8; key esc(s) u8(n)", "s PREFIX 'ab'");
	expect_range(f.plan, 0, "6162", "6163");
	assert_int_equal(f.plan->residual, 0);
	fx_free(&f);

	/* a range on a text field before a separator: loose bounds, filtered.
	   a shorter time followed by ":" sorts above "063059": the stop is after "230611::" */
	plan_of(&f, "fields date:str, time:str, id:u64; key date \":\" time \":\" id",
	        "date = '230611' AND time BETWEEN '063000' AND '063059'");
	assert_int_equal(f.plan->kind, RK_PLAN_RANGES);
	expect_range(f.plan, 0, "3233303631313a303633303030", "3233303631313a3b");
	assert_int_equal(f.plan->residual, 1);
	fx_free(&f);
	/* with a separator that sorts below the digits the upper bound is tight */
	plan_of(&f, "fields date:str, time:str, id:u64; key date \"#\" time \"#\" id",
	        "date = '230611' AND time <= '063059'");
	expect_range(f.plan, 0, "32333036313123", "32333036313123" "3036333035" "3a"); /* after "230611#063059" */
	fx_free(&f);

	/* text prefix before a separator keeps a residual filter */
	plan_of(&f, "fields s:str, n:u8; key s \":\" n", "s PREFIX 'ab'");
	expect_range(f.plan, 0, "6162", "6163");
	assert_int_equal(f.plan->residual, 1);
	fx_free(&f);
}

static void test_buckets_fan_out(void **state)
{
	(void)state;
	fx f;
	plan_of(&f, "fields uid:u32, ts:ts; key random(4) u32(uid) i64(ts)", "uid = 5 AND ts >= 100");
	assert_int_equal(f.plan->kind, RK_PLAN_RANGES);
	assert_int_equal(f.plan->nranges, 4);
	assert_int_equal(f.plan->merge, 1);
	assert_int_equal(f.plan->prefix_len, 1);
	for (int b = 0; b < 4; b++)
		assert_int_equal(f.plan->ranges[b].bucket, b);
	expect_range(f.plan, 2, "0200000005" "8000000000000064", "0200000006");
	fx_free(&f);

	/* a bucket computed from the bound field: one range, no merge */
	plan_of(&f, "fields uid:u32, ts:ts; key bucket(16, xxh3(uid)) u32(uid) i64(ts)", "uid = 5");
	assert_int_equal(f.plan->nranges, 1);
	assert_int_equal(f.plan->merge, 0);
	fx_free(&f);

	/* nothing bound after the bucket: a full scan in one stream per bucket */
	plan_of(&f, "fields uid:u32, ts:ts; key bucket(16, xxh3(uid)) u32(uid) i64(ts)", "ts > 3");
	assert_int_equal(f.plan->kind, RK_PLAN_FULL_SCAN);
	assert_int_equal(f.plan->nranges, 16);
	assert_int_equal(f.plan->merge, 1);
	assert_int_equal(f.plan->residual, 1);
	fx_free(&f);
}

/* A bucket after a field spreads each of its values: a query binding the
 * field reads one range per bucket under its prefix, merged; one binding the
 * hashed field too computes the bucket. The table is not salted by it. */
static void test_inner_bucket(void **state)
{
	(void)state;
	fx f;
	rk_schema_info info;
	const char *S = "fields t:u32, ts:ts, id:u64; key u32(t) bucket(4, xxh3(id)) i64(ts) u64(id)";
	plan_of(&f, S, "t = 5 AND ts >= 100 AND ts < 200");
	assert_int_equal(f.plan->nranges, 4);
	assert_int_equal(f.plan->merge, 1);
	assert_int_equal(f.plan->residual, 0);
	expect_range(f.plan, 2, "00000005" "02" "8000000000000064", "00000005" "02" "80000000000000c8");
	rk_schema_get_info(&info, f.s);
	assert_int_equal(info.buckets, 1);
	assert_int_equal(info.prefix_len, 0);
	fx_free(&f);

	plan_of(&f, S, "t = 5 AND id = 9 AND ts >= 100 AND ts < 200");
	assert_int_equal(f.plan->nranges, 1);
	assert_int_equal(f.plan->merge, 0);
	fx_free(&f);
}

/* A time bucket under a bounded time range, with a field bound after it:
 * one range a window, each narrowed by that field (OpenTSDB's metric, hour,
 * tags); without such a field, or over too many windows, one range. */
static void test_time_bucket_windows(void **state)
{
	(void)state;
	fx f;
	const char *S = "fields m:u32, ts:i64, h:u32; key u32(m) i64(tbucket(ts, 100)) u32(h) i64(ts)";
	plan_of(&f, S, "m = 1 AND h = 2 AND ts >= 150 AND ts < 350");
	assert_int_equal(f.plan->nranges, 3);
	assert_int_equal(f.plan->residual, 0);
	assert_int_equal(f.plan->merge, 0);
	expect_range(f.plan, 0, "00000001" "8000000000000064" "00000002" "8000000000000096",
	             "00000001" "8000000000000064" "00000002" "800000000000015e");
	expect_range(f.plan, 2, "00000001" "800000000000012c" "00000002" "8000000000000096",
	             "00000001" "800000000000012c" "00000002" "800000000000015e");
	fx_free(&f);

	plan_of(&f, S, "m = 1 AND ts >= 150 AND ts < 350");
	assert_int_equal(f.plan->nranges, 1);
	fx_free(&f);

	plan_of(&f, S, "m = 1 AND h = 2 AND ts >= 0 AND ts < 100000");
	assert_int_equal(f.plan->nranges, 1);
	assert_int_equal(f.plan->residual, 1);
	fx_free(&f);
}

static void test_full_scan_said_plainly(void **state)
{
	(void)state;
	fx f;
	plan_of(&f, "fields uid:str, phone:str, name:str; key uid \":\" phone \":\" name", "phone = '555'");
	assert_int_equal(f.plan->kind, RK_PLAN_FULL_SCAN);
	assert_int_equal(f.plan->nranges, 1);
	assert_int_equal(f.plan->ranges[0].start_len, 0);
	assert_null(f.plan->ranges[0].stop);
	assert_int_equal(f.plan->residual, 1);
	assert_non_null(strstr(f.plan->explain, "full scan"));
	char *js;
	assert_int_equal(rk_plan_json(&js, f.plan), 0);
	assert_non_null(strstr(js, "\"kind\":\"full_scan\""));
	free(js);
	fx_free(&f);

	/* a hash prefix over an unbound field */
	plan_of(&f, "fields id:u64, d:str; key HEX(md5(id)) \":\" d", "d = 'x'");
	assert_int_equal(f.plan->kind, RK_PLAN_FULL_SCAN);
	fx_free(&f);
}

static void expect_pred_error(const char *where, const char *what)
{
	rk_schema *s;
	const char *t = "fields uid:u64, name:str, x:f64; key u64(uid) esc(name)";
	assert_int_equal(rk_schema_parse(&s, t, strlen(t), NULL), 0);
	rk_predicate *p = NULL;
	int rc = rk_predicate_parse(&p, s, where, strlen(where));
	if (rc != RK_EINVALID)
		fail_msg("'%s' parsed (rc %d)", where, rc);
	if (!strstr(rk_error_last(), what))
		fail_msg("'%s': message '%s' lacks '%s'", where, rk_error_last(), what);
	assert_null(p);
	rk_schema_free(s);
}

static void test_predicate_errors(void **state)
{
	(void)state;
	expect_pred_error("nope = 1", "column 1: unknown field 'nope'");
	expect_pred_error("uid = 'abc'", "type mismatch: 'uid' is u64 and 'abc' is not");
	expect_pred_error("uid = -1", "type mismatch");
	expect_pred_error("name = 5", "'name' is str: quote the value");
	expect_pred_error("uid > 5 AND uid < 3", "impossible range on 'uid'");
	expect_pred_error("uid > 5 AND uid < 5", "impossible range");
	expect_pred_error("uid BETWEEN 9 AND 1", "impossible range");
	expect_pred_error("uid = 1 OR uid = 2", "column 9: expected AND");
	expect_pred_error("uid ~ 1", "column 5: unexpected character");
	expect_pred_error("uid LIKE 1", "expected an operator");
	expect_pred_error("uid IN (1, 2", "expected ',' or ')'");
	expect_pred_error("name = 'abc", "unterminated string");
	expect_pred_error("uid PREFIX '1'", "PREFIX needs a str or bytes field");
	expect_pred_error("uid = 1 AND", "expected a field name");
	/* an empty string literal is a value like any other */
	{
		rk_schema *s0;
		rk_predicate *p0;
		const char *t0 = "fields name:str; key esc(name)";
		assert_int_equal(rk_schema_parse(&s0, t0, strlen(t0), NULL), 0);
		assert_int_equal(rk_predicate_parse(&p0, s0, "name = ''", 9), 0);
		rk_predicate_free(p0);
		rk_schema_free(s0);
	}
	/* = values outside a range on the same field cannot match */
	rk_schema *s;
	const char *t = "fields uid:u64; key u64(uid)";
	assert_int_equal(rk_schema_parse(&s, t, strlen(t), NULL), 0);
	rk_predicate *p;
	rk_plan *plan;
	assert_int_equal(rk_predicate_parse(&p, s, "uid = 1 AND uid > 3", 19), 0);
	assert_int_equal(rk_plan_build(&plan, s, p), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "impossible"));
	rk_predicate_free(p);
	rk_schema_free(s);
}

static void test_match(void **state)
{
	(void)state;
	rk_schema *s;
	const char *t = "fields uid:u64, name:str, x:f64; key u64(uid) esc(name)";
	assert_int_equal(rk_schema_parse(&s, t, strlen(t), NULL), 0);
	rk_predicate *p;
	const char *w = "uid IN (1, 2) AND name PREFIX 'ab' AND x BETWEEN -1.5 AND 2";
	assert_int_equal(rk_predicate_parse(&p, s, w, strlen(w)), 0);
	rk_value v[3] = {{.present = 1, .v.u = 2}, {.present = 1}, {.present = 1, .v.f = 0.5}};
	v[1].v.s.ptr = (const uint8_t *)"abc";
	v[1].v.s.len = 3;
	assert_int_equal(rk_predicate_match(p, v), 1);
	v[0].v.u = 3;
	assert_int_equal(rk_predicate_match(p, v), 0);
	v[0].v.u = 1;
	v[2].v.f = 2.5;
	assert_int_equal(rk_predicate_match(p, v), 0);
	v[2].present = 0; /* not recoverable: counts as met */
	assert_int_equal(rk_predicate_match(p, v), 1);
	rk_predicate_free(p);
	/* the empty predicate */
	assert_int_equal(rk_predicate_parse(&p, s, "", 0), 0);
	assert_int_equal(rk_predicate_match(p, v), 1);
	rk_plan *plan;
	assert_int_equal(rk_plan_build(&plan, s, p), 0);
	assert_int_equal(plan->kind, RK_PLAN_FULL_SCAN);
	rk_plan_free(plan);
	rk_predicate_free(p);
	rk_schema_free(s);
}

static char *in_list(char *w, const char *field, int n)
{
	w += sprintf(w, "%s IN (", field);
	for (int i = 0; i < n; i++)
		w += sprintf(w, "%s%d", i ? "," : "", i);
	return w + sprintf(w, ")");
}

/* Regression: two IN lists of 300 values and a range used to be
 * refused (or, with fewer values, planned as their full product). Past the
 * bound the plan stops, reads whole key prefixes and says so. */
static void test_in_lists_bounded(void **state)
{
	(void)state;
	char *w = malloc(1 << 20), *e;
	e = in_list(w, "a", 300);
	e += sprintf(e, " AND ");
	e = in_list(e, "b", 300);
	sprintf(e, " AND c > 5");
	rk_schema *s;
	const char *t = "fields a:u32, b:u32, c:u32; key u32(a) u32(b) u32(c)";
	assert_int_equal(rk_schema_parse(&s, t, strlen(t), NULL), 0);
	rk_predicate *p;
	assert_int_equal(rk_predicate_parse(&p, s, w, strlen(w)), 0);
	rk_plan *plan;
	assert_int_equal(rk_plan_build(&plan, s, p), 0);
	assert_int_equal(plan->capped, 1);
	assert_int_equal(plan->residual, 1);
	assert_int_equal(plan->kind, RK_PLAN_RANGES);
	assert_true(plan->nranges <= RK_PLAN_MAX_RANGES_DEFAULT);
	assert_non_null(strstr(plan->explain, "over the bound of 10000"));
	/* the ranges cover every key the predicate admits */
	for (uint32_t a = 0; a < 300; a += 37) {
		uint8_t k[12] = {0, 0, (uint8_t)(a >> 8), (uint8_t)a, 0, 0, 1, 2, 0, 0, 0, 9};
		int in = 0;
		for (size_t i = 0; i < plan->nranges; i++) {
			const rk_key_range *r = &plan->ranges[i];
			size_t n = r->start_len < 12 ? r->start_len : 12;
			int ge = memcmp(k, r->start, n) > 0 || (memcmp(k, r->start, n) == 0 && 12 >= r->start_len);
			int lt = !r->stop || memcmp(k, r->stop, r->stop_len < 12 ? r->stop_len : 12) < 0;
			in |= ge && lt;
		}
		assert_true(in);
	}
	rk_plan_free(plan);
	/* a bound set by the caller; a larger one gives every point */
	rk_plan_options o = RK_PLAN_OPTIONS_INIT;
	o.max_ranges = 10;
	assert_int_equal(rk_plan_build_opts(&plan, s, p, &o), 0);
	assert_int_equal(plan->capped, 1);
	assert_non_null(strstr(plan->explain, "over the bound of 10 "));
	rk_plan_free(plan);
	rk_predicate_free(p);
	e = in_list(w, "a", 200);
	e += sprintf(e, " AND ");
	e = in_list(e, "b", 200);
	sprintf(e, " AND c = 1");
	assert_int_equal(rk_predicate_parse(&p, s, w, strlen(w)), 0);
	o.max_ranges = 65536;
	assert_int_equal(rk_plan_build_opts(&plan, s, p, &o), 0);
	assert_int_equal(plan->capped, 0);
	assert_int_equal(plan->kind, RK_PLAN_GETS);
	assert_int_equal(plan->nranges, 40000);
	rk_plan_free(plan);
	rk_predicate_free(p);
	/* two IN lists of 50,000 values on one field: intersected in n log n */
	e = in_list(w, "a", 50000);
	e += sprintf(e, " AND ");
	in_list(e, "a", 50000);
	assert_int_equal(rk_predicate_parse(&p, s, w, strlen(w)), 0);
	assert_int_equal(rk_plan_build(&plan, s, p), 0);
	assert_int_equal(plan->capped, 1); /* 50,000 prefixes of a: over the bound, a covering scan */
	assert_int_equal(plan->kind, RK_PLAN_FULL_SCAN);
	rk_plan_free(plan);
	rk_predicate_free(p);
	rk_schema_free(s);
	free(w);
}

/* Ranges in logical order, grouped into streams that never overlap in it;
 * a hash that varies inside a range before a field makes the plan say the
 * rows must be sorted. */
static void test_logical_order(void **state)
{
	(void)state;
	fx f;
	/* a bucket computed from each IN value: uid 2 first, whatever its bucket */
	plan_of(&f, "fields uid:u64, ts:ts; key bucket(8, xxh3(uid)) u64(uid) u64(rts(ts))", "uid IN (3, 2)");
	assert_int_equal(f.plan->nranges, 2);
	assert_int_equal(f.plan->ranges[0].start[8], 2);
	assert_int_equal(f.plan->ranges[1].start[8], 3);
	assert_string_equal(hx(f.plan->logical[0].start, f.plan->logical[0].start_len), "0000000000000002");
	assert_string_equal(hx(f.plan->logical[0].stop, f.plan->logical[0].stop_len), "0000000000000003");
	assert_int_equal(f.plan->nstreams, 1);
	assert_int_equal(f.plan->merge, 0);
	assert_int_equal(f.plan->ordered, 1);
	fx_free(&f);

	/* gets in logical order too */
	plan_of(&f, "fields uid:u64; key bucket(8, xxh3(uid)) u64(uid)", "uid IN (9, 1, 5)");
	assert_int_equal(f.plan->kind, RK_PLAN_GETS);
	for (int i = 0; i < 3; i++)
		assert_int_equal(f.plan->ranges[i].start[8], "\x01\x05\x09"[i]);
	fx_free(&f);

	/* a salt: every bucket's range spans the same logical keys, one stream each */
	plan_of(&f, "fields a:u32, b:u32; key random(4) u32(a) u32(b)", "a IN (1, 2) AND b > 7");
	assert_int_equal(f.plan->nranges, 8);
	assert_int_equal(f.plan->nstreams, 4);
	assert_int_equal(f.plan->merge, 1);
	for (size_t i = 0; i + 1 < f.plan->nranges; i++) /* listed by logical start */
		assert_true(memcmp(f.plan->logical[i].start, f.plan->logical[i + 1].start, 4) <= 0);
	fx_free(&f);

	/* a hash over an unbound field before it: sorted, said so */
	plan_of(&f, "fields id:u64, n:u32; key hex(md5(id))[0:6] u64(id) u32(n)", "id > 5");
	assert_int_equal(f.plan->ordered, 0);
	assert_non_null(strstr(f.plan->explain, "sorted"));
	fx_free(&f);
	/* ... but not once the hash is computed from bound values */
	plan_of(&f, "fields id:u64, n:u32; key hex(md5(id))[0:6] u64(id) u32(n)", "id IN (5, 9) AND n > 3");
	assert_int_equal(f.plan->ordered, 1);
	assert_int_equal(f.plan->ranges[0].start[13], 5);
	fx_free(&f);
	/* a hash after the part the walk stopped on, with nothing after it: ordered */
	plan_of(&f, "fields a:u32, b:u32; key u32(a) u32(b) md5(b)[0:2]", "a > 3");
	assert_int_equal(f.plan->ordered, 1);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_point_gets),
		cmocka_unit_test(test_ranges_are_tight),
		cmocka_unit_test(test_buckets_fan_out),
		cmocka_unit_test(test_full_scan_said_plainly),
		cmocka_unit_test(test_predicate_errors),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_in_lists_bounded),
		cmocka_unit_test(test_logical_order),
		cmocka_unit_test(test_inner_bucket),
		cmocka_unit_test(test_time_bucket_windows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
