/*
 * The simulator and the embedded store agree: the same workload and design
 * loaded for real into the local store (rk_analyze_store: rk_store_open on
 * a temp dir, rk_table_create with the design's split points, rk_table_apply
 * batches, per-server counts from rk_store_servers) and run in the
 * simulator give per-server write shares within 2 percentage points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rowkey/analyze.h>

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/rk_agree_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void agree(const char *name, const char *schema_text, rk_workload_options *w,
                  rk_analyze_options *o)
{
	rk_schema *s = NULL;
	rk_analysis *sim = NULL, *real = NULL;
	char dir[128];
	assert_int_equal(rk_schema_parse(&s, schema_text, strlen(schema_text), name), 0);
	snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
	if (rk_analyze_run(&sim, s, name, w, o) != 0)
		fail_msg("%s: simulator: %s", name, rk_error_last());
	if (rk_analyze_store(&real, s, name, w, o, dir) != 0)
		fail_msg("%s: store: %s", name, rk_error_last());
	const rk_report *a = rk_analysis_report(sim), *b = rk_analysis_report(real);
	assert_int_equal(a->writes, b->writes);
	assert_int_equal(a->regions_initial, b->regions_initial);
	assert_int_equal(a->key_total, b->key_total);
	double worst = 0;
	printf("%-10s server shares, simulator vs store:", name);
	for (unsigned k = 0; k < o->servers; k++) {
		double d = a->server_share[k] - b->server_share[k];
		d = d < 0 ? -d : d;
		worst = d > worst ? d : worst;
		printf(" %.3f/%.3f", a->server_share[k], b->server_share[k]);
	}
	printf("  (regions %zu/%zu, worst difference %.2f points; at a time %.3f/%.3f)\n",
	       a->regions, b->regions, worst * 100, a->peak_share, b->peak_share);
	assert_true(worst <= 0.02);
	/* the hottest server's share within a time bucket */
	double dp = a->peak_share - b->peak_share;
	assert_true(dp <= 0.02 && dp >= -0.02);
	/* a store directory that already holds a store is refused */
	rk_analysis *again = NULL;
	assert_int_equal(rk_analyze_store(&again, s, name, w, o, dir), RK_EEXISTS);
	assert_null(again);
	rk_analysis_free(sim);
	rk_analysis_free(real);
	rk_schema_free(s);
}

/* 8 salt buckets on 3 servers: buckets go round robin, 3/8, 3/8, 2/8. */
static void salted(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.rate = 5000;
	w.duration = 12;
	o.servers = 3;
	o.split_threshold = 0;
	o.balance_interval = 0;
	agree("salted", "fields date:str, time:str, id:u64; key bucket(8, xxh3(id), dec) \":\" date "
	                "\":\" time \":\" id", &w, &o);
}

/* A growing key splits as it grows; the daughters stay on their server. */
static void monotonic(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.rate = 5000;
	w.duration = 12;
	o.servers = 4;
	o.split_threshold = 1 << 20;
	o.balance_interval = 0;
	agree("monotonic", "fields date:str, time:str, id:u64; key date \":\" time \":\" id", &w, &o);
}

/* A growing key with the balancer on: the hot region moves from server to
 * server, so the whole-run shares depend on when each split and each move
 * happened; both runs split at the same points of the workload (see
 * storerun.c) and at any moment put every write on one server. */
static void monotonic_balanced(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.rate = 5000;
	w.duration = 12;
	o.servers = 4;
	o.split_threshold = 1 << 20;
	o.balance_interval = 2;
	agree("mono-bal", "fields date:str, time:str, id:u64; key date \":\" time \":\" id", &w, &o);
}

/* A hash prefix pre-split into one region per server, splitting by size,
 * and the balancer evening region counts every 2 virtual seconds. */
static void hashed(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.rate = 5000;
	w.duration = 12;
	o.servers = 4;
	o.split_threshold = 2 << 20;
	o.balance_interval = 2;
	agree("hashed", "fields date:str, time:str, id:u64; key hex(md5(id))[0:6] date \":\" time "
	                "\":\" id", &w, &o);
}

/* Zipf-skewed users in a composite key, pre-split by user buckets. */
static void users(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.name = "users";
	w.rate = 5000;
	w.duration = 12;
	w.read_fraction = 0;
	o.servers = 5;
	o.split_threshold = 0;
	o.balance_interval = 0;
	agree("users", "fields user:u64, ts:i64; key bucket(16, xxh3(user)) u64(user) u64(ts)", &w, &o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(salted),
	    cmocka_unit_test(monotonic),
	    cmocka_unit_test(monotonic_balanced),
	    cmocka_unit_test(hashed),
	    cmocka_unit_test(users),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
