/*
 * The public API alone (rowkey/rowkey.h, nothing from src/): a schema, a
 * key encoded and decoded, a table in a temporary store, a planned query
 * reading it back in logical order. What a user's program does first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rowkey/rowkey.h>

static void test_encode_store_query(void **state)
{
	(void)state;
	const char *text = "fields user:u32, ts:ts; key random(4) u32(user) u64(rts(ts))";
	rk_schema *s;
	rk_encoder *e;
	assert_int_equal(rk_schema_parse(&s, text, strlen(text), "api"), 0);
	assert_int_equal(rk_encoder_new(&e, s, 7), 0);

	char dir[] = "/tmp/rk_api_XXXXXX";
	assert_non_null(mkdtemp(dir));
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	rk_store *st;
	assert_int_equal(rk_store_open(&st, dir, &o), 0);
	rk_family_def fam = {"d", 1, NULL};
	rk_table_def def = {"events", &fam, 1, NULL, 0, 1};
	assert_int_equal(rk_table_create(st, &def), 0);
	rk_table *t;
	assert_int_equal(rk_table_open(&t, st, "events"), 0);
	for (uint32_t user = 1; user <= 3; user++)
		for (int64_t ts = 1; ts <= 5; ts++) {
			rk_value v[2] = {{.present = 1, .v.u = user}, {.present = 1, .v.i = ts}};
			uint8_t key[64];
			size_t kl;
			assert_int_equal(rk_key_encode(key, sizeof key, &kl, e, v), 0);
			rk_value back[2];
			assert_int_equal(rk_key_decode(back, e, key, kl), 0);
			assert_true(back[0].v.u == user && back[1].v.i == ts);
			assert_int_equal(rk_table_put(t, key, kl, "d", (const uint8_t *)"q", 1, 0, (const uint8_t *)"x", 1), 0);
		}

	rk_predicate *p;
	rk_plan *plan;
	const char *where = "user = 2";
	assert_int_equal(rk_predicate_parse(&p, s, where, strlen(where)), 0);
	assert_int_equal(rk_plan_build(&plan, s, p), 0);
	assert_int_equal(plan->kind, RK_PLAN_RANGES);
	assert_int_equal(plan->nranges, 4); /* one per salt bucket */
	rk_query_options qo = RK_QUERY_OPTIONS_INIT;
	qo.limit = 3;
	rk_query *q;
	assert_int_equal(rk_query_open(&q, t, s, plan, p, &qo), 0);
	rk_query_row r;
	int64_t want = 5;
	while (rk_query_next(&r, q) == 0) { /* newest first, across the buckets */
		assert_true(r.fields[0].v.u == 2);
		assert_true(r.fields[1].v.i == want);
		want--;
	}
	assert_int_equal(want, 2);
	rk_query_close(q);
	rk_plan_free(plan);
	rk_predicate_free(p);
	rk_table_close(t);
	assert_int_equal(rk_store_close(st), 0);
	rk_encoder_free(e);
	rk_schema_free(s);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_store_query),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
