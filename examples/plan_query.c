/*
 * Plan a query over a salted key design and read it back in order: the
 * planner turns a predicate into one row range per salt bucket, and the
 * query reads the buckets in parallel and merges them on the key without
 * its salt, so rows come back in logical order.
 *
 *   cc plan_query.c $(pkg-config --cflags --libs rowkey-store) -o plan_query
 *   ./plan_query DIR          (DIR: a new store directory)
 */
#include <rowkey/query.h>

#include <stdio.h>
#include <string.h>

/* 4 buckets from a hash of the order id, then the id and the day */
static const char schema_text[] =
	"fields id:u64, day:u32;"
	"key bucket(4, xxh3(id)) u64(id) u32(day)";

static int fail(const char *what)
{
	fprintf(stderr, "plan_query: %s: %s\n", what, rk_error_last());
	return 1;
}

/* Writes orders 1..40 through the schema: each key lands in its bucket's region. */
static int load(rk_table *t, const rk_schema *schema)
{
	rk_encoder *enc;
	if (rk_encoder_new(&enc, schema, 0))
		return -1;
	for (uint64_t id = 1; id <= 40; id++) {
		rk_value v[2] = {{1, {.u = id}}, {1, {.u = 20240100 + id % 28 + 1}}};
		uint8_t key[32];
		size_t len;
		if (rk_key_encode(key, sizeof key, &len, enc, v) ||
		    rk_table_put(t, key, len, "o", (const uint8_t *)"n", 1, 0,
		                 (const uint8_t *)"1", 1)) {
			rk_encoder_free(enc);
			return -1;
		}
	}
	rk_encoder_free(enc);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: plan_query DIR\n");
		return 2;
	}
	rk_schema *schema;
	if (rk_schema_parse(&schema, schema_text, strlen(schema_text), NULL))
		return fail("schema");

	/* one region per bucket: the first key byte is the bucket */
	rk_store *store;
	rk_store_options so = RK_STORE_OPTIONS_INIT;
	if (rk_store_open(&store, argv[1], &so))
		return fail("open");
	uint8_t b[3] = {1, 2, 3};
	rk_bytes splits[3] = {{&b[0], 1}, {&b[1], 1}, {&b[2], 1}};
	rk_family_def fam = {.name = "o", .max_versions = 1};
	rk_table_def def = {"orders", &fam, 1, splits, 3, 1};
	rk_table *t;
	if (rk_table_create(store, &def) || rk_table_open(&t, store, "orders"))
		return fail("table");
	if (load(t, schema))
		return fail("load");

	const char *where = "id BETWEEN 10 AND 20";
	rk_predicate *pred;
	rk_plan *plan;
	if (rk_predicate_parse(&pred, schema, where, strlen(where)))
		return fail("predicate");
	if (rk_plan_build(&plan, schema, pred))
		return fail("plan");
	printf("where %s: %zu ranges, merge %s\n%s\n", where, plan->nranges,
	       plan->merge ? "yes" : "no", plan->explain);

	rk_query *q;
	rk_query_options qo = RK_QUERY_OPTIONS_INIT;
	rk_query_row row;
	int rc;
	if (rk_query_open(&q, t, schema, plan, pred, &qo))
		return fail("query");
	printf("ids in order:");
	while ((rc = rk_query_next(&row, q)) == 0)
		printf(" %llu", (unsigned long long)row.fields[0].v.u);
	printf("\n");
	rk_query_close(q);
	if (rc != RK_EITEROVER)
		return fail("query");

	rk_plan_free(plan);
	rk_predicate_free(pred);
	rk_table_close(t);
	rk_schema_free(schema);
	return rk_store_close(store) ? fail("close") : 0;
}
