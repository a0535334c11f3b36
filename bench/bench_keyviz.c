/*
 * What key buckets (the store's Key Visualizer, docs/store.md) cost a load:
 * the same load with rk_store_options.key_buckets 1000 (the default) and 0
 * (not counted), alternated round by round so the machine's drift falls on
 * both, for three key designs:
 *   sequential  fields id:u64; key "12345678" u64(id)         (one hot bucket, cut every second)
 *   random      fields id:u64; key xxh3(u64(id)) u64(id)      (every bucket, a steady cut)
 *   salted      fields id:u64; key bucket(8, xxh3(u64(id))) "1234567" u64(id)
 *
 *   bench_keyviz [ROWS] [ROUNDS]     (defaults 500000, 5)
 *   bench_keyviz ROWS 1 DESIGN on|off  one load (for callgrind: instructions)
 *
 * Rows have 16-byte keys and one 100-byte cell, batches of 1000 through
 * rk_table_apply_async, async durability, 4 region servers, no splits (the
 * figure is the counting, not the splitter). For each design and setting:
 * the median over the rounds of the wall-clock rows/s, and of the process's
 * CPU time per row (user + system, every thread: the measure a shared,
 * busy machine disturbs least). Prints a table and a JSON line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rowkey/key.h>
#include <rowkey/store.h>

#include "bench_util.h"

#define BATCH 1000
#define VLEN 100
#define KLEN 16

static const struct {
	const char *name, *schema;
} designs[] = {
    {"sequential", "fields id:u64; key \"12345678\" u64(id)"},
    {"random", "fields id:u64; key xxh3(u64(id)) u64(id)"},
    {"salted", "fields id:u64; key bucket(8, xxh3(u64(id))) \"1234567\" u64(id)"},
};
enum { NDESIGNS = sizeof designs / sizeof *designs, MAXROUNDS = 31 };

static void die(const char *what)
{
	fprintf(stderr, "bench_keyviz: %s: %s\n", what, rk_error_last());
	exit(1);
}

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* the keys of a design, encoded once (the load times routing, counting and the engine) */
static uint8_t *keys_of(const char *schema, uint64_t n)
{
	rk_schema *s;
	rk_encoder *e;
	uint8_t *k = malloc(n * KLEN), buf[256];
	if (!k || rk_schema_parse(&s, schema, strlen(schema), "bench") || rk_encoder_new(&e, s, 0))
		die("schema");
	for (uint64_t i = 0; i < n; i++) {
		rk_value v = {.present = 1};
		size_t len;
		v.v.u = i;
		if (rk_key_encode(buf, sizeof buf, &len, e, &v) || len != KLEN)
			die("encode");
		memcpy(k + i * KLEN, buf, KLEN);
	}
	rk_encoder_free(e);
	rk_schema_free(s);
	return k;
}

/* one load into a fresh store: rows/s (wall) and CPU seconds per row */
static void load(double *rps, double *cpu_per_row, const uint8_t *keys, uint64_t n, unsigned kb)
{
	char dir[] = "/tmp/rk-bench-keyviz-XXXXXX", cmd[128];
	static uint8_t value[VLEN];
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	rk_store *s;
	rk_table *t;
	if (!mkdtemp(dir))
		die("mkdtemp");
	o.durability = RK_DURABILITY_ASYNC;
	o.split_threshold = 0;
	o.key_buckets = kb;
	if (getenv("RK_BENCH_BUCKET_MS")) /* under callgrind, as many rows an interval as at full speed */
		o.metrics_bucket_ms = (unsigned)strtoul(getenv("RK_BENCH_BUCKET_MS"), NULL, 10);
	rk_family_def f = {"f", 1, NULL};
	rk_table_def d = {"t", &f, 1, NULL, 0, 0};
	if (rk_store_open(&s, dir, &o) || rk_table_create(s, &d) || rk_table_open(&t, s, "t"))
		die("store");
	rk_mutation m[BATCH];
	double w0 = wall(), c0 = rk_bench_cpu_s();
	for (uint64_t i = 0; i < n; i += BATCH) {
		size_t k = 0;
		for (uint64_t j = i; j < i + BATCH && j < n; j++, k++)
			m[k] = (rk_mutation){RK_MUT_PUT, keys + j * KLEN, KLEN, "f", NULL, 0, 0, value, VLEN, 0};
		if (rk_table_apply_async(t, m, k))
			die("apply");
	}
	if (rk_table_flush(t))
		die("flush");
	double w = wall() - w0, c = rk_bench_cpu_s() - c0;
	rk_table_close(t);
	if (rk_store_close(s))
		die("close");
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "bench_keyviz: could not remove %s\n", dir);
	*rps = (double)n / w;
	*cpu_per_row = c / (double)n;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 500000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	if (n < BATCH || rounds < 1 || rounds > MAXROUNDS) {
		fprintf(stderr, "usage: bench_keyviz [ROWS >= 1000] [ROUNDS 1..31]\n");
		return 2;
	}
	if (argc > 4) { /* one load */
		for (int d = 0; d < NDESIGNS; d++)
			if (!strcmp(argv[3], designs[d].name)) {
				double r, c;
				uint8_t *keys = keys_of(designs[d].schema, n);
				load(&r, &c, keys, n, strcmp(argv[4], "on") ? 0 : 1000);
				printf("%s key buckets %s: %.0f rows/s, %.3f CPU us/row\n", argv[3], argv[4], r, c * 1e6);
				free(keys);
				return 0;
			}
		fprintf(stderr, "bench_keyviz: no design %s (sequential, random, salted)\n", argv[3]);
		return 2;
	}
	double rps[NDESIGNS][2], cpr[NDESIGNS][2];
	printf("load of %llu rows (16-byte keys, 100-byte values, batches of %d, async, 4 servers), "
	       "key buckets on (1000) and off, %d rounds each, medians\n\n",
	       (unsigned long long)n, BATCH, rounds);
	printf("%-11s %14s %14s %8s %16s %16s %8s\n", "design", "on rows/s", "off rows/s", "diff",
	       "on CPU us/row", "off CPU us/row", "diff");
	for (int d = 0; d < NDESIGNS; d++) {
		uint8_t *keys = keys_of(designs[d].schema, n);
		double r[2][MAXROUNDS], c[2][MAXROUNDS];
		for (int i = 0; i < rounds; i++)
			for (int on = 0; on < 2; on++) { /* off, on, off, on, ...: the same drift on both */
				int which = i % 2 ? !on : on;
				load(&r[which][i], &c[which][i], keys, n, which ? 1000 : 0);
			}
		for (int on = 0; on < 2; on++) {
			rps[d][on] = rk_bench_median(r[on], rounds);
			cpr[d][on] = rk_bench_median(c[on], rounds) * 1e6;
		}
		printf("%-11s %14.0f %14.0f %+7.1f%% %16.3f %16.3f %+7.1f%%\n", designs[d].name, rps[d][1],
		       rps[d][0], 100 * (rps[d][1] / rps[d][0] - 1), cpr[d][1], cpr[d][0],
		       100 * (cpr[d][1] / cpr[d][0] - 1));
		fflush(stdout);
		free(keys);
	}
	printf("\n{\"rows\":%llu,\"rounds\":%d", (unsigned long long)n, rounds);
	for (int d = 0; d < NDESIGNS; d++)
		printf(",\"%s\":{\"on_rows_per_s\":%.0f,\"off_rows_per_s\":%.0f,\"on_cpu_us_per_row\":%.3f,"
		       "\"off_cpu_us_per_row\":%.3f}",
		       designs[d].name, rps[d][1], rps[d][0], cpr[d][1], cpr[d][0]);
	printf("}\n");
	return 0;
}
