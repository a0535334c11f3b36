/*
 * Unit tests for ORDER BY and LIMIT: the grammar (src/key/predicate.c) and
 * its errors naming the column and the token, and how the planner
 * (src/key/plan_orderby.c) says a design gives the order asked for: read
 * forward, read backward, or every matching row sorted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

#include "key/predicate_int.h"

static rk_schema *schema_of(const char *t)
{
	rk_schema *s = NULL;
	if (rk_schema_parse(&s, t, strlen(t), "t"))
		fail_msg("schema: %s", rk_error_last());
	return s;
}

#define CHAT "fields uid:u64, ts:ts, other:u32, order:u32, limit:u32; key u64(uid) u64(rts(ts))"

static rk_predicate *parse_ok(const rk_schema *s, const char *where)
{
	rk_predicate *p = NULL;
	if (rk_predicate_parse(&p, s, where, strlen(where)))
		fail_msg("where '%s': %s", where, rk_error_last());
	return p;
}

static void expect_tail(const char *where, size_t nconds, int field, int desc, uint64_t limit)
{
	rk_schema *s = schema_of(CHAT);
	rk_predicate *p = parse_ok(s, where);
	if (p->nconds != nconds || p->order_field != field || p->order_desc != desc || p->limit != limit)
		fail_msg("'%s': %zu conditions, order_field %d desc %d limit %llu", where, p->nconds, p->order_field,
		         p->order_desc, (unsigned long long)p->limit);
	rk_predicate_free(p);
	rk_schema_free(s);
}

static void test_grammar(void **state)
{
	(void)state;
	expect_tail("uid = 7 ORDER BY ts DESC LIMIT 20", 1, 1, 1, 20);
	expect_tail("ORDER BY ts DESC LIMIT 5", 0, 1, 1, 5);
	expect_tail("uid = 7 LIMIT 3", 1, -1, 0, 3);
	expect_tail("uid = 7 order by ts asc", 1, 1, 0, 0);
	expect_tail("uid = 7 Order By ts", 1, 1, 0, 0);
	expect_tail("uid = 7 AND ts > 5 ORDER BY other limit 1", 2, 2, 0, 1);
	expect_tail("LIMIT 18446744073709551615", 0, -1, 0, UINT64_MAX);
	expect_tail("uid = 7", 1, -1, 0, 0);
	expect_tail("", 0, -1, 0, 0);
	/* fields named order and limit stay fields where a condition is meant */
	expect_tail("order = 3 AND limit < 4 ORDER BY order DESC LIMIT 2", 2, 3, 1, 2);
	expect_tail("limit = 3 LIMIT 9", 1, -1, 0, 9);
	expect_tail("ORDER BY limit", 0, 4, 0, 0);
}

static void expect_error(const char *where, const char *what)
{
	rk_schema *s = schema_of(CHAT);
	rk_predicate *p = NULL;
	int rc = rk_predicate_parse(&p, s, where, strlen(where));
	if (rc != RK_EINVALID)
		fail_msg("'%s' parsed (rc %d)", where, rc);
	if (!strstr(rk_error_last(), what))
		fail_msg("'%s': message '%s' lacks '%s'", where, rk_error_last(), what);
	assert_null(p);
	rk_schema_free(s);
}

static void test_grammar_errors(void **state)
{
	(void)state;
	expect_error("uid = 7 ORDER BY tss DESC", "column 18: ORDER BY: unknown field 'tss' (did you mean 'ts'?)");
	expect_error("uid = 7 LIMIT 0", "column 15: LIMIT 0 returns nothing");
	expect_error("uid = 7 LIMIT -3", "column 15: LIMIT takes a whole number of rows, at least 1 (at '-3')");
	expect_error("uid = 7 LIMIT many", "column 15: LIMIT takes a whole number of rows, at least 1 (at 'many')");
	expect_error("LIMIT 2.5", "LIMIT takes a whole number");
	expect_error("LIMIT", "LIMIT takes a whole number of rows, at least 1 (at the end)");
	expect_error("LIMIT 18446744073709551616", "LIMIT is too large");
	expect_error("ORDER BY ts ORDER BY uid", "column 13: ORDER BY given twice");
	expect_error("LIMIT 2 LIMIT 3", "column 9: LIMIT given twice");
	expect_error("LIMIT 2 ORDER BY ts", "column 9: ORDER BY comes before LIMIT");
	expect_error("uid = 7 LIMIT 20 junk", "column 18: expected the end of the predicate after LIMIT (at 'junk')");
	expect_error("ORDER BY ts DESC junk", "column 18: expected LIMIT or the end of the predicate after ORDER BY");
	expect_error("ORDER BY ts DESC AND uid = 1", "column 18: expected LIMIT or the end");
	expect_error("ORDER BY", "expected a field name after ORDER BY (at the end)");
	expect_error("ORDER BY 5", "expected a field name after ORDER BY (at '5')");
	expect_error("uid = 7 LIMIT (", "LIMIT takes a whole number");
	expect_error("uid = 7 ORDER ts", "column 9: expected AND");
}

/* The plan of `where` under `schema`: its order_by, and its explanation
 * holds `words`. */
static void expect_order(const char *schema, const char *where, rk_plan_order want, const char *words)
{
	rk_schema *s = schema_of(schema);
	rk_predicate *p = parse_ok(s, where);
	rk_plan *plan = NULL;
	if (rk_plan_build(&plan, s, p))
		fail_msg("plan '%s': %s", where, rk_error_last());
	if (plan->order_by != want)
		fail_msg("'%s' under '%s': order_by %d, want %d (%s)", where, schema, plan->order_by, want, plan->explain);
	if (words && !strstr(plan->explain, words))
		fail_msg("'%s': explanation '%s' lacks '%s'", where, plan->explain, words);
	rk_plan_free(plan);
	rk_predicate_free(p);
	rk_schema_free(s);
}

#define RTS "fields uid:u64, ts:ts, other:u32; key u64(uid) u64(rts(ts)) u32(other)"
#define ASC "fields uid:u64, ts:ts, other:u32; key u64(uid) i64(ts) u32(other)"
#define SALTED "fields uid:u64, ts:ts, other:u32; key bucket(8, xxh3(uid)) u64(uid) u64(rts(ts))"

static void test_plan_order(void **state)
{
	(void)state;
	/* the chat app's last 20 messages of a user */
	expect_order(RTS, "uid = 7 ORDER BY ts DESC LIMIT 20", RK_ORDER_KEY,
	             "ORDER BY ts DESC: rows come newest first from the key: LIMIT 20 reads 20 rows.");
	expect_order(RTS, "uid = 7 ORDER BY ts ASC", RK_ORDER_REVERSE, "read backwards and rows come oldest first.");
	expect_order(ASC, "uid = 7 ORDER BY ts DESC LIMIT 20", RK_ORDER_REVERSE,
	             "read backwards and rows come newest first: LIMIT 20 reads 20 rows.");
	expect_order(ASC, "uid = 7 ORDER BY ts", RK_ORDER_KEY, "oldest first from the key.");
	expect_order(ASC, "uid = 7 ORDER BY other DESC LIMIT 20", RK_ORDER_SORT,
	             "('ts' comes before it in the key and is not bound to one value): every matching row is read and "
	             "sorted by other, then LIMIT 20 returns the first 20.");
	expect_order(ASC, "uid = 7 AND ts = 3 ORDER BY other DESC", RK_ORDER_REVERSE, NULL);
	expect_order("fields uid:u64, ts:ts, other:u32; key u64(uid) i64(ts)", "uid = 7 AND ts = 3 ORDER BY other",
	             RK_ORDER_SORT, "(the key orders nothing by 'other')");
	expect_order(SALTED, "uid = 7 ORDER BY ts DESC LIMIT 20", RK_ORDER_KEY, "LIMIT 20 reads 20 rows.");
	/* uid varies first: across users the key is not newest first */
	expect_order(RTS, "ORDER BY ts DESC LIMIT 5", RK_ORDER_SORT, "'uid' comes before it in the key and is not bound");
	expect_order(RTS, "uid IN (1, 2) ORDER BY ts DESC", RK_ORDER_SORT, "'uid' comes before it in the key and has several values (IN)");
	expect_order(RTS, "uid > 3 ORDER BY ts DESC", RK_ORDER_SORT, NULL);
	expect_order(RTS, "ORDER BY uid LIMIT 5", RK_ORDER_KEY, "by uid ascending from the key: LIMIT 5 reads 5 rows.");
	expect_order(RTS, "uid IN (1, 2) ORDER BY uid DESC", RK_ORDER_REVERSE, NULL);
	/* a salt the predicate cannot compute: one stream per bucket, merged */
	expect_order(SALTED, "ORDER BY uid LIMIT 5", RK_ORDER_KEY, "LIMIT 5 reads at most 5 rows per stream (8 streams).");
	expect_order("fields uid:u32, ts:ts; key random(4) u32(uid) i64(ts):desc", "uid = 1 ORDER BY ts DESC LIMIT 3",
	             RK_ORDER_KEY, "per stream (4 streams)");
	/* a residual filter: the limit counts matches */
	expect_order(ASC, "uid = 7 AND other = 1 ORDER BY ts LIMIT 2", RK_ORDER_KEY, "the residual filter may read more");
	/* a hash in front of the field, varying inside the range */
	expect_order("fields id:u64; key hex(md5(id))[0:6] u64(id)", "id > 5 ORDER BY id", RK_ORDER_SORT,
	             "a part that places rows varies");
	/* a transform that does not keep the order */
	expect_order("fields uid:u64, ts:ts; key u64(uid) i64(tbucket(ts, 3600))", "uid = 1 ORDER BY ts", RK_ORDER_SORT,
	             "cannot be recovered from a key");
	expect_order("fields uid:u64, name:str; key u64(uid) reverse(name)", "uid = 1 ORDER BY name", RK_ORDER_SORT,
	             "does not keep the order of 'name'");
	/* the field bound to one value: any order is that order */
	expect_order(ASC, "uid = 7 AND ts = 5 ORDER BY ts DESC", RK_ORDER_KEY, NULL);
	/* gets in the plan's order */
	expect_order(RTS, "uid = 7 AND ts IN (1, 2, 3) ORDER BY ts DESC", RK_ORDER_KEY, NULL);
	expect_order(RTS, "uid = 7 AND ts IN (1, 2, 3) ORDER BY ts", RK_ORDER_REVERSE, NULL);
	/* no ORDER BY */
	expect_order(RTS, "uid = 7 LIMIT 3", RK_ORDER_NONE, "LIMIT 3: the first 3 rows in logical order.");
	expect_order(RTS, "uid = 7", RK_ORDER_NONE, NULL);
}

static void test_plan_fields_and_json(void **state)
{
	(void)state;
	rk_schema *s = schema_of(RTS);
	rk_predicate *p = parse_ok(s, "uid = 7 ORDER BY ts DESC LIMIT 20");
	rk_plan *plan = NULL;
	assert_int_equal(rk_plan_build(&plan, s, p), 0);
	assert_int_equal(plan->order_field, 1);
	assert_int_equal(plan->order_desc, 1);
	assert_int_equal(plan->limit, 20);
	char *js = NULL;
	assert_int_equal(rk_plan_json(&js, plan), 0);
	if (!strstr(js, "\"order_by\":\"key\",\"order_field\":1,\"order_desc\":true,\"limit\":20,"))
		fail_msg("json: %s", js);
	free(js);
	rk_plan_free(plan);
	rk_predicate_free(p);
	p = parse_ok(s, "uid = 7");
	assert_int_equal(rk_plan_build(&plan, s, p), 0);
	assert_int_equal(plan->order_field, -1);
	assert_int_equal(plan->order_by, RK_ORDER_NONE);
	assert_int_equal(plan->limit, 0);
	assert_int_equal(rk_plan_json(&js, plan), 0);
	assert_non_null(strstr(js, "\"order_by\":\"none\",\"order_field\":-1,\"order_desc\":false,\"limit\":0,"));
	free(js);
	rk_plan_free(plan);
	rk_predicate_free(p);
	rk_schema_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grammar),
		cmocka_unit_test(test_grammar_errors),
		cmocka_unit_test(test_plan_order),
		cmocka_unit_test(test_plan_fields_and_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
