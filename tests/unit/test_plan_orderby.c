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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grammar),
		cmocka_unit_test(test_grammar_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
