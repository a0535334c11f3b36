/*
 * The analyzer (src/analyze): metrics on workloads whose answer is known by
 * hand, determinism with a fixed seed, every workload generator, splits on
 * bucket boundaries, the heatmap's accounting, PNG output, bad inputs.
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

static rk_schema *schema(const char *text)
{
	rk_schema *s = NULL;
	if (rk_schema_parse(&s, text, strlen(text), "test") != 0)
		fail_msg("schema %s: %s", text, rk_error_last());
	return s;
}

static rk_analysis *run(const char *schema_text, const rk_workload_options *w,
                        const rk_analyze_options *o)
{
	rk_schema *s = schema(schema_text);
	rk_analysis *a = NULL;
	int rc = rk_analyze_run(&a, s, "t", w, o);
	if (rc != 0)
		fail_msg("run %s: %s", schema_text, rk_error_last());
	rk_schema_free(s);
	return a;
}

/* Every write to one region on one server: share 1, effective servers 1,
 * max/mean = S, throughput = C. */
static void one_region(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.name = "keys";
	w.rate = 100;
	w.duration = 40;
	o.servers = 4;
	o.capacity = 1000;
	o.split_threshold = 0;
	o.time_buckets = 10;
	rk_analysis *a = run("fields key:str, n:u64; key key", &w, &o);
	const rk_report *r = rk_analysis_report(a);
	assert_int_equal(r->writes, 4000);
	assert_int_equal(r->regions, 1);
	assert_true(r->hottest_share == 1.0);
	assert_true(r->effective_servers == 1.0);
	assert_true(r->max_mean == 4.0);
	assert_true(r->peak_share == 1.0);
	assert_true(r->throughput == 1000.0);
	assert_true(r->server_share[0] == 1.0 && r->server_share[1] == 0.0);
	assert_non_null(strstr(r->verdict, "100% of writes hit 1 of 4 servers"));
	/* the cause, named with its number: the leading field rises */
	assert_non_null(strstr(r->verdict, "key rises in 100% of consecutive records"));
	assert_true(r->ncauses >= 1);
	assert_string_equal(r->causes[0].kind, "rising_lead");
	assert_string_equal(r->causes[0].field, "key");
	assert_true(r->causes[0].number > 0.99);
	/* foo0001-style keys: every key sorts after the previous one */
	assert_true(r->key_mean == 7.0); /* "foo" + 4 digits */
	assert_int_equal(r->key_total, 4000 * 7);
	rk_analysis_free(a);
}

/* A round-robin salt over 4 buckets, one region per bucket on 4 servers:
 * share 0.25 each, effective servers 4, throughput 4 C. */
static void uniform_four(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.name = "keys";
	w.rate = 100;
	w.duration = 40;
	o.servers = 4;
	o.capacity = 1000;
	o.split_threshold = 0;
	o.time_buckets = 10;
	rk_analysis *a = run("fields key:str, n:u64; key roundrobin(4) key", &w, &o);
	const rk_report *r = rk_analysis_report(a);
	assert_int_equal(r->regions_initial, 4);
	for (unsigned s = 0; s < 4; s++)
		assert_true(r->server_share[s] == 0.25);
	assert_true(r->hottest_share == 0.25);
	assert_true(r->effective_servers == 4.0);
	assert_true(r->max_mean == 1.0);
	assert_true(r->peak_share == 0.25);
	assert_true(r->throughput == 4000.0);
	assert_non_null(strstr(r->verdict, "spread over 4 servers"));
	rk_analysis_free(a);
}

/* Two regions per server on 2 servers, 3 buckets round robin: 2/3 and 1/3. */
static void uneven_three_buckets(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.name = "keys";
	w.rate = 30;
	w.duration = 100;
	o.servers = 2;
	o.split_threshold = 0;
	o.time_buckets = 10;
	rk_analysis *a = run("fields key:str, n:u64; key roundrobin(3) key", &w, &o);
	const rk_report *r = rk_analysis_report(a);
	/* buckets 0 and 2 on server 0, bucket 1 on server 1 */
	assert_true(r->server_share[0] > 0.6666 && r->server_share[0] < 0.6667);
	/* 1 / ((2/3)^2 + (1/3)^2) = 9/5 */
	assert_true(r->effective_servers > 1.7999 && r->effective_servers < 1.8001);
	rk_analysis_free(a);
}

static char *json_of(const char *schema_text, const rk_workload_options *w,
                     const rk_analyze_options *o)
{
	rk_analysis *a = run(schema_text, w, o);
	char *j = NULL;
	assert_int_equal(rk_analysis_json(&j, a), 0);
	rk_analysis_free(a);
	return j;
}

static void deterministic(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	const char *sch = "fields user:u64, ts:i64, event:u64, kind:str; key user \":\" ts";
	w.name = "users";
	w.rate = 500;
	w.duration = 60;
	w.seed = 7;
	o.servers = 4;
	o.split_threshold = 256 << 10;
	o.balance_interval = 10;
	char *a = json_of(sch, &w, &o), *b = json_of(sch, &w, &o);
	assert_string_equal(a, b);
	w.seed = 8;
	char *c = json_of(sch, &w, &o);
	assert_string_not_equal(a, c);
	free(a);
	free(b);
	free(c);
}

/* Every workload runs; reads happen where the workload has query shapes. */
static void workloads(void **state)
{
	(void)state;
	static const struct {
		const char *name, *schema;
		int reads;
	} cases[] = {
	    {"messages", "fields date:str, time:str, id:u64, user:u64, domain:str, ts:i64; key date "
	                 "\":\" time \":\" id", 0},
	    {"keys", "fields key:str, n:u64; key key", 0},
	    {"urls", "fields url:str, host:str, domain:str, path:str, ts:i64; key reverse_labels(host) "
	             "\":\" path", 1},
	    {"trades", "fields seller:u64, buyer:u64, ts:i64, order:u64, symbol:str; key seller \":\" "
	               "ts \":\" order", 1},
	    {"cars", "fields car:u64, ts:i64, speed:u64; key car \":\" ts", 1},
	    {"users", "fields user:u64, ts:i64, event:u64, kind:str; key user \":\" ts \":\" event", 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
		rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
		w.name = cases[i].name;
		w.rate = 1000;
		w.duration = 20;
		o.servers = 4;
		o.split_threshold = 128 << 10;
		o.balance_interval = 5;
		rk_analysis *a = run(cases[i].schema, &w, &o);
		const rk_report *r = rk_analysis_report(a);
		assert_true(r->writes > 0);
		assert_int_equal(r->writes + r->reads, 20000);
		if (cases[i].reads)
			assert_true(r->reads > 0 && r->read_visits >= r->reads);
		assert_true(r->nqueries > 0);
		assert_true(r->regions > 1); /* 128 KiB splits */
		assert_true(r->verdict && r->verdict[0]);
		rk_heatmap h;
		assert_int_equal(rk_analysis_heatmap(&h, a), 0);
		uint64_t total = 0;
		for (size_t k = 0; k < h.rows * h.cols; k++)
			total += h.writes[k];
		assert_int_equal(total, r->writes);
		assert_true(h.rows > 1 && h.rows <= 1000);
		rk_analysis_free(a);
	}
}

/* Read costs: a composite key reads a user's range in one region; salted
 * on the event id it needs one scan per bucket; led by the time it is a
 * full scan. */
static void read_costs(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.name = "users";
	w.rate = 1000;
	w.duration = 30;
	o.servers = 4;
	o.split_threshold = 64 << 10;
	rk_analysis *a = run("fields user:u64, ts:i64, event:u64, kind:str; key u64(user) u64(ts) "
	                     "u64(event)", &w, &o);
	const rk_report *r = rk_analysis_report(a);
	assert_string_equal(r->queries[0].name, "latest 10 for a user (last minute)");
	assert_string_equal(r->queries[0].plan, "scan");
	assert_true(r->queries[0].ranges == 1.0);
	/* a user's rows sit together: far fewer regions than a full scan (hot
	 * users have many rows, so not always one) */
	assert_true(r->queries[0].regions < (double)r->regions / 4);
	rk_analysis_free(a);
	a = run("fields user:u64, ts:i64, event:u64, kind:str; key bucket(8, xxh3(event)) u64(user) "
	        "u64(ts) u64(event)", &w, &o);
	r = rk_analysis_report(a);
	assert_string_equal(r->queries[0].plan, "one scan per bucket");
	assert_true(r->queries[0].ranges == 8.0);
	rk_analysis_free(a);
	/* led by the time, a user's time range is everyone's: the range reads
	 * every user's rows of the period for the one user's it returns */
	a = run("fields user:u64, ts:i64, event:u64, kind:str; key u64(ts) u64(user)", &w, &o);
	r = rk_analysis_report(a);
	assert_string_equal(r->queries[0].plan, "scan");
	assert_true(r->queries[0].rows_read_estimated);
	assert_true(r->queries[0].rows_read_per_row > 5);
	rk_analysis_free(a);
	/* a message by id when the key leads with the date: a full scan */
	w.name = "messages";
	a = run("fields date:str, time:str, id:u64; key date \":\" time \":\" id", &w, &o);
	r = rk_analysis_report(a);
	assert_string_equal(r->queries[1].name, "a message by id");
	assert_string_equal(r->queries[1].plan, "full scan");
	assert_true(r->queries[1].regions == (double)r->regions);
	assert_true(r->queries[1].rows_read == (double)r->writes);
	/* the last minute is one range under the date prefix, but the range on
	 * a text field before a separator is loose (the planner reads on to the
	 * end of the date), so it reads several rows per row it returns */
	assert_true(r->queries[0].ranges == 1.0 && r->queries[0].merge_ways == 0);
	assert_true(r->queries[0].rows_read_estimated && r->queries[0].rows_read_per_row > 1.5);
	assert_non_null(strstr(r->verdict, "'a message by id' is a full scan"));
	rk_analysis_free(a);
	/* led by the id: one region */
	a = run("fields date:str, time:str, id:u64; key id \":\" date \":\" time", &w, &o);
	r = rk_analysis_report(a);
	assert_true(r->queries[1].regions == 1.0);
	assert_string_equal(r->queries[0].plan, "full scan");
	rk_analysis_free(a);
}

/* Salted tables split only on bucket boundaries (the store's rule). */
static void splits_on_bucket_boundaries(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.name = "messages";
	w.rate = 2000;
	w.duration = 30;
	o.servers = 4;
	o.split_threshold = 64 << 10;
	o.presplit = 0;
	rk_analysis *a = run("fields date:str, time:str, id:u64; key bucket(16, xxh3(id)) date \":\" "
	                     "time \":\" id", &w, &o);
	const rk_report *r = rk_analysis_report(a);
	assert_int_equal(r->regions_initial, 1);
	assert_true(r->splits > 0);
	char *j;
	assert_int_equal(rk_analysis_json(&j, a), 0);
	/* every region start is "" or one bucket byte: "\u00NN" in JSON */
	for (const char *p = strstr(j, "\"region_list\""); (p = strstr(p, "\"start\":")); p += 8) {
		const char *v = p + 8;
		assert_true(!strncmp(v, "\"\"", 2) || (!strncmp(v, "\"\\u00", 5) && v[9] == '"'));
	}
	free(j);
	rk_analysis_free(a);
}

static void bad_inputs(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	rk_schema *s = schema("fields date:str, time:str, id:u64; key date \":\" time \":\" id");
	rk_analysis *a = NULL;
	w.name = "nope";
	assert_int_equal(rk_analyze_run(&a, s, "d", &w, &o), RK_ENOTFOUND);
	assert_non_null(strstr(rk_error_last(), "unknown workload 'nope'"));
	assert_non_null(strstr(rk_error_last(), "messages"));
	assert_null(a);
	w.name = "messages";
	o.servers = 0;
	assert_int_equal(rk_analyze_run(&a, s, "d", &w, &o), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "servers: 0"));
	o.servers = 4;
	w.rate = 0;
	assert_int_equal(rk_analyze_run(&a, s, "d", &w, &o), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "rate"));
	w.rate = 100;
	o.capacity = -1;
	assert_int_equal(rk_analyze_run(&a, s, "d", &w, &o), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "capacity"));
	o.capacity = 100;
	w.name = "cars";
	assert_int_equal(rk_analyze_run(&a, s, "mine", &w, &o), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "design mine"));
	assert_non_null(strstr(rk_error_last(), "'date'"));
	assert_non_null(strstr(rk_error_last(), "workload 'cars'"));
	assert_non_null(strstr(rk_error_last(), "car, ts, speed"));
	rk_schema_free(s);
	/* a value that does not fit the schema's type */
	s = schema("fields car:u8, ts:i64; key car \":\" ts");
	w.duration = 10;
	assert_int_equal(rk_analyze_run(&a, s, "d", &w, &o), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "field 'car'"));
	rk_schema_free(s);
	/* the file workload */
	w.name = "file";
	w.file = "/nonexistent/records.csv";
	s = schema("fields a:str; key a");
	assert_int_equal(rk_analyze_run(&a, s, "d", &w, &o), RK_ENOTFOUND);
	assert_non_null(strstr(rk_error_last(), "/nonexistent/records.csv"));
	rk_schema_free(s);
	/* options by name */
	assert_int_equal(rk_analyze_option(&w, &o, "servers", "0"), RK_EINVALID);
	assert_int_equal(rk_analyze_option(&w, &o, "split-threshold", "4M"), 0);
	assert_int_equal(o.split_threshold, 4u << 20);
	assert_int_equal(rk_analyze_option(&w, &o, "bogus", "1"), RK_ENOTFOUND);
	assert_int_equal(rk_analyze_option(&w, &o, "read-fraction", "2"), RK_EINVALID);
}

static void file_workloads(void **state)
{
	(void)state;
	char dir[] = "/tmp/rk_analyze_XXXXXX", csv[64], jl[64];
	assert_non_null(mkdtemp(dir));
	snprintf(csv, sizeof csv, "%s/r.csv", dir);
	snprintf(jl, sizeof jl, "%s/r.jsonl", dir);
	FILE *f = fopen(csv, "w");
	fprintf(f, "user,ts\n");
	for (int i = 0; i < 1000; i++)
		fprintf(f, "%d,\"%d\"\n", i % 10, 1000 + i);
	fclose(f);
	f = fopen(jl, "w");
	for (int i = 0; i < 1000; i++)
		fprintf(f, "{\"user\": %d, \"ts\": \"%d\"}\n", i % 10, 1000 + i);
	fclose(f);
	const char *paths[2] = {csv, jl};
	char *js[2];
	for (int k = 0; k < 2; k++) {
		rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
		rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
		w.name = "file";
		w.file = paths[k];
		w.rate = 100;
		w.duration = 1000; /* the file ends first */
		o.servers = 2;
		o.split_threshold = 0;
		rk_analysis *a = run("fields user:u32, ts:i64; key u32(user) u64(ts)", &w, &o);
		const rk_report *r = rk_analysis_report(a);
		assert_int_equal(r->writes, 1000);
		assert_true(r->key_mean == 12.0);
		assert_int_equal(rk_analysis_json(&js[k], a), 0);
		rk_analysis_free(a);
	}
	/* CSV and JSON lines with the same records give the same run */
	assert_string_equal(js[0], js[1]);
	free(js[0]);
	free(js[1]);
	/* every record is replayed, whatever rate x duration says (it was cut to
	 * the first rate x duration records); a limit says so */
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.name = "file";
	w.file = csv;
	w.rate = 10;
	w.duration = 5;
	o.servers = 2;
	rk_analysis *a = run("fields user:u32, ts:i64; key u32(user) u64(ts)", &w, &o);
	assert_int_equal(rk_analysis_report(a)->writes, 1000);
	assert_int_equal(rk_analysis_report(a)->records, 1000);
	assert_false(rk_analysis_report(a)->limited);
	rk_analysis_free(a);
	w.limit = 300;
	a = run("fields user:u32, ts:i64; key u32(user) u64(ts)", &w, &o);
	assert_int_equal(rk_analysis_report(a)->writes, 300);
	assert_true(rk_analysis_report(a)->limited);
	rk_analysis_free(a);
	unlink(csv);
	unlink(jl);
	rmdir(dir);
}

/* A source read once gives the same run as reading the workload per run. */
static void source_once(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.name = "trades";
	w.duration = 20;
	o.servers = 4;
	rk_schema *s = schema("fields seller:u64, buyer:u64, ts:i64, order:u64, symbol:str; key "
	                      "u64(seller) u64(ts) u64(order)");
	rk_workload_source *src;
	rk_analysis *a, *b;
	char *ja, *jb;
	assert_int_equal(rk_workload_source_open(&src, &w), 0);
	assert_int_equal(rk_analyze_run_on(&a, s, "d", src, &o), 0);
	assert_int_equal(rk_analyze_run(&b, s, "d", &w, &o), 0);
	assert_int_equal(rk_analysis_json(&ja, a), 0);
	assert_int_equal(rk_analysis_json(&jb, b), 0);
	assert_string_equal(ja, jb);
	free(ja);
	free(jb);
	rk_analysis_free(a);
	rk_analysis_free(b);
	rk_workload_source_free(src);
	rk_schema_free(s);
}

static void png_and_html(void **state)
{
	(void)state;
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.duration = 30;
	o.servers = 4;
	o.split_threshold = 256 << 10;
	rk_analysis *a = run("fields date:str, time:str, id:u64; key date \":\" time \":\" id", &w, &o);
	char dir[] = "/tmp/rk_analyze_XXXXXX", png[64], html[64];
	assert_non_null(mkdtemp(dir));
	snprintf(png, sizeof png, "%s/h.png", dir);
	snprintf(html, sizeof html, "%s/h.html", dir);
	assert_int_equal(rk_analysis_write_png(a, png), 0);
	unsigned char sig[8];
	FILE *f = fopen(png, "rb");
	assert_non_null(f);
	assert_int_equal(fread(sig, 1, 8, f), 8);
	fclose(f);
	assert_memory_equal(sig, "\x89PNG\r\n\x1a\n", 8);
	const rk_analysis *runs[1] = {a};
	assert_int_equal(rk_analysis_write_html(html, "t", runs, 1), 0);
	f = fopen(html, "r");
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	assert_non_null(strstr(buf, "<!DOCTYPE html>"));
	assert_null(strstr(buf, "http://"));
	assert_null(strstr(buf, "https://"));
	assert_int_equal(rk_analysis_write_png(a, "/nonexistent/dir/x.png"), RK_EIO);
	assert_non_null(strstr(rk_error_last(), "/nonexistent/dir/x.png"));
	unlink(png);
	unlink(html);
	rmdir(dir);
	rk_analysis_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(one_region),      cmocka_unit_test(uniform_four),
	    cmocka_unit_test(uneven_three_buckets), cmocka_unit_test(deterministic),
	    cmocka_unit_test(workloads),       cmocka_unit_test(read_costs),
	    cmocka_unit_test(splits_on_bucket_boundaries), cmocka_unit_test(bad_inputs),
	    cmocka_unit_test(file_workloads),  cmocka_unit_test(source_once),
	    cmocka_unit_test(png_and_html),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
