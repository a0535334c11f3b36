/*
 * Region server capacity (issue 11): the seeds' throughput claim measured on
 * the store, and what the capacity costs when it is off.
 *
 *   bench_capacity designs [ROWS] [C]    (defaults 20000 rows, C = 1000 ops/s)
 *   bench_capacity write [ROWS] [on]     (default 200000 rows; for callgrind)
 *
 * designs: each design's workload (ROWS writes, no reads) runs in the
 * simulator and on the embedded store with 16 region servers capped at C
 * ops/s each (rk_analyze_store: replayed as fast as the servers admit); the
 * table gives the simulator's throughput (modelled) beside the store's rows
 * per wall-clock second (measured), each as a ratio to the sequential key's.
 * Designs: the messages workload's growing key date:time:id, the same behind
 * 2, 4, 8 and 16 hash-salt buckets and behind an MD5 prefix; the users
 * workload (a Zipf-skewed user id, the tenant) with the user first (one
 * region: nothing to pre-split on, no splits), behind 8 and 16 buckets of
 * the user's hash (a hot tenant stays in one bucket), and behind 16 buckets
 * of the hash of user and time (spread, but a tenant's reads fan out).
 * C is low enough that this machine is not the limit: the table shows the
 * hottest server's busy fraction (about 100% when the servers set the pace).
 *
 * write: loads ROWS rows of 16-byte keys and 100-byte values in batches of
 * 1000 through rk_table_apply_async into a 4-server store, capacity off
 * (or "on": 10^12 ops/s, the bucket taken but never waited on). Under
 * valgrind --tool=callgrind it gives instructions per write; the same file
 * builds against a rowkey without capacities (the option is then absent).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rowkey/analyze.h>
#include <rowkey/store.h>

static void die(const char *what)
{
	fprintf(stderr, "bench_capacity: %s: %s\n", what, rk_error_last());
	exit(1);
}

static int write_load(uint64_t rows, int on)
{
	char tmpl[] = "/tmp/rk-bench-cap-XXXXXX", dir[64];
	if (!mkdtemp(tmpl))
		die("mkdtemp");
	snprintf(dir, sizeof dir, "%s/db", tmpl);
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	o.split_threshold = 0;
#ifdef RK_SERVER_CAPACITY_OFF
	if (on)
		o.server_capacity_ops = 1000000000000ull;
#else
	if (on)
		die("this rowkey has no server capacity");
#endif
	rk_store *s;
	rk_table *t;
	rk_family_def f = {"f", 1, NULL};
	uint8_t sp[3] = {0x40, 0x80, 0xc0};
	rk_bytes spl[3] = {{&sp[0], 1}, {&sp[1], 1}, {&sp[2], 1}};
	rk_table_def def = {"t", &f, 1, spl, 3, 0};
	if (rk_store_open(&s, dir, &o) || rk_table_create(s, &def) || rk_table_open(&t, s, "t"))
		die("open");
	static uint8_t keys[1000][16], val[100];
	rk_mutation m[1000];
	for (uint64_t i = 0; i < rows;) {
		size_t n = 0;
		for (; n < 1000 && i < rows; n++, i++) {
			uint64_t h = i * 0x9E3779B97F4A7C15ull;
			for (int j = 0; j < 8; j++) {
				keys[n][j] = (uint8_t)(h >> (56 - 8 * j));
				keys[n][8 + j] = (uint8_t)(i >> (56 - 8 * j));
			}
			m[n] = (rk_mutation){RK_MUT_PUT, keys[n], 16, "f", (const uint8_t *)"q", 1, 0,
			                     val, sizeof val, 0};
		}
		if (rk_table_apply_async(t, m, n))
			die("write");
	}
	if (rk_table_flush(t))
		die("flush");
	rk_table_close(t);
	if (rk_store_close(s))
		die("close");
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
	if (system(cmd))
		return 1;
	printf("wrote %llu rows, capacity %s\n", (unsigned long long)rows, on ? "on" : "off");
	return 0;
}

#ifdef RK_SERVER_CAPACITY_OFF
typedef struct design {
	const char *label, *workload, *key;
	int seq; /* the baseline its ratio is taken to */
} design;

static const design designs[] = {
	{"sequential date:time:id", "messages", "date \":\" time \":\" id", 1},
	{"2 salt buckets", "messages", "bucket(2, xxh3(id), dec) \":\" date \":\" time \":\" id", 0},
	{"4 salt buckets", "messages", "bucket(4, xxh3(id), dec) \":\" date \":\" time \":\" id", 0},
	{"8 salt buckets", "messages", "bucket(8, xxh3(id), dec) \":\" date \":\" time \":\" id", 0},
	{"16 salt buckets", "messages", "bucket(16, xxh3(id), dec) \":\" date \":\" time \":\" id", 0},
	{"MD5 prefix", "messages", "HEX(md5(id)) \":\" date \":\" time \":\" id", 0},
	{"Zipf tenant: user ts (1 region)", "users", "u64(user) u64(ts)", 0},
	{"Zipf tenant, 8 buckets of user", "users", "bucket(8, xxh3(user)) u64(user) u64(ts)", 0},
	{"Zipf tenant, 16 buckets of user", "users", "bucket(16, xxh3(user)) u64(user) u64(ts)", 0},
	{"Zipf tenant, 16 of user+ts", "users", "bucket(16, xxh3(user, ts)) u64(user) u64(ts)", 0},
};

static int run_designs(uint64_t rows, double cap)
{
	char tmpl[] = "/tmp/rk-bench-designs-XXXXXX";
	if (!mkdtemp(tmpl))
		die("mkdtemp");
	double seq_sim = 0, seq_real = 0;
	printf("16 region servers of %.0f ops/s, %llu writes per design, no reads\n\n", cap,
	       (unsigned long long)rows);
	printf("%-32s %12s %7s %14s %7s %6s %8s\n", "design", "model ops/s", "ratio",
	       "measured rows/s", "ratio", "busy", "wall s");
	for (size_t i = 0; i < sizeof designs / sizeof designs[0]; i++) {
		const design *d = &designs[i];
		char text[512], dir[128];
		snprintf(text, sizeof text, "fields %s; key %s",
		         !strcmp(d->workload, "users") ? "user:u64, ts:i64"
		                                       : "date:str, time:str, id:u64",
		         d->key);
		rk_schema *s;
		if (rk_schema_parse(&s, text, strlen(text), d->label))
			die(d->label);
		rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
		rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
		w.name = d->workload;
		w.read_fraction = 0;
		w.duration = 60;
		w.rate = (double)rows / w.duration;
		o.servers = 16;
		o.capacity = cap;
		o.split_threshold = 0;
		o.balance_interval = 0;
		o.time_buckets = 4; /* big buckets: the model's at-time share carries less
		                     * sampling noise */
		rk_analysis *sim = NULL, *real = NULL;
		snprintf(dir, sizeof dir, "%s/%zu", tmpl, i);
		if (rk_analyze_run(&sim, s, d->label, &w, &o) ||
		    rk_analyze_store(&real, s, d->label, &w, &o, dir))
			die(d->label);
		const rk_report *a = rk_analysis_report(sim), *b = rk_analysis_report(real);
		if (d->seq) {
			seq_sim = a->throughput;
			seq_real = b->throughput;
		}
		printf("%-32s %12.0f %6.2fx %14.0f %6.2fx %5.0f%% %8.2f\n", d->label, a->throughput,
		       a->throughput / seq_sim, b->throughput, b->throughput / seq_real,
		       b->hottest_busy * 100, b->wall_seconds);
		fflush(stdout);
		rk_analysis_free(sim);
		rk_analysis_free(real);
		rk_schema_free(s);
	}
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
	return system(cmd) ? 1 : 0;
}
#else
static int run_designs(uint64_t rows, double cap)
{
	(void)rows;
	(void)cap;
	die("this rowkey has no server capacity");
	return 1;
}
#endif

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "write"))
		return write_load(argc > 2 ? strtoull(argv[2], NULL, 10) : 200000,
		                  argc > 3 && !strcmp(argv[3], "on"));
	if (argc >= 2 && !strcmp(argv[1], "designs"))
		return run_designs(argc > 2 ? strtoull(argv[2], NULL, 10) : 20000,
		                   argc > 3 ? atof(argv[3]) : 1000);
	fprintf(stderr, "usage: bench_capacity designs [ROWS] [C] | write [ROWS] [on]\n");
	return 2;
}
