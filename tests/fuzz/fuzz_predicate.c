/*
 * Fuzz target: the predicate parser and the planner. Any text must parse or
 * fail with RK_EINVALID; a predicate that parses must plan (or fail with a
 * code: an impossible range, a plan over the expansion limit), and its plan
 * must be well formed: ranges with start < stop, gets with whole keys, an
 * ORDER BY it says how it serves, and no more of them than the bound (max_ranges, taken from the first byte, or
 * the design's buckets). A blow-up shows as a timeout: run libFuzzer with
 * -timeout (scripts/fuzz.sh does); the replay driver has its own limit.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

static const char *schemas[] = {
	"fields uid:u64, ts:ts, name:str; key bucket(8, xxh3(uid)) u64(uid) u64(rts(ts)) esc(name)",
	"fields uid:u32, ts:ts, name:str; key random(4) u32(uid) i64(ts):desc esc(name)",
	"fields uid:str, phone:str, name:str; key uid \":\" phone \":\" name",
	"fields k:str, n:i32; key phoenix_salt(4) phoenix(k) phoenix(n)",
	"fields id:u64, d:str; key HEX(md5(id)) \":\" d",
	"fields d:ts(\"%b %d %Y\"), e:ts(\"%m/%d/%Y %H:%M\"), id:u64; key i64(d) i64(e):desc u64(id)",
};
#define NS (sizeof schemas / sizeof schemas[0])
static rk_schema *parsed[NS];

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t k = data[0] % NS;
	if (!parsed[k] && rk_schema_parse(&parsed[k], schemas[k], strlen(schemas[k]), "fuzz") != 0)
		abort();
	rk_predicate *p = NULL;
	int rc = rk_predicate_parse(&p, parsed[k], (const char *)data + 1, size - 1);
	if (rc != 0) {
		if (rc != RK_EINVALID && rc != RK_ENOMEM)
			abort();
		return 0;
	}
	rk_plan *plan = NULL;
	rk_plan_options o = RK_PLAN_OPTIONS_INIT;
	if (data[0] / NS % 2) /* half the inputs under a small bound */
		o.max_ranges = 1 + data[0] / NS / 2 * 7;
	rc = rk_plan_build_opts(&plan, parsed[k], p, &o);
	if (rc == 0) {
		rk_schema_info info;
		rk_schema_get_info(&info, parsed[k]);
		if (plan->nranges > o.max_ranges && plan->nranges > info.buckets)
			abort(); /* past the bound */
		for (size_t i = 0; i < plan->nranges; i++) {
			const rk_key_range *r = &plan->ranges[i];
			if (plan->kind != RK_PLAN_GETS && r->stop && key_cmp(r->start, r->start_len, r->stop, r->stop_len) >= 0)
				abort(); /* an empty or inverted range */
		}
		if (plan->order_by > RK_ORDER_SORT || (plan->order_field < 0) != (plan->order_by == RK_ORDER_NONE) ||
		    plan->order_field >= (int)info.nfields)
			abort(); /* an ORDER BY the plan does not account for */
		char *js = NULL;
		if (rk_plan_json(&js, plan) == 0)
			free(js);
		rk_plan_free(plan);
	} else if (rc != RK_EINVALID && rc != RK_ETOOLONG && rc != RK_ENOMEM) {
		abort();
	}
	rk_predicate_free(p);
	return 0;
}
