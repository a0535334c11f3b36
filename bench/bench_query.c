/*
 * bench_query: what salting costs on reads (issue 4).
 *
 * Loads the same N rows (default 1,000,000; async, batches of 1000) into two
 * tables of one store: an unsalted design (u64(ts) u64(id), 16-byte keys) and
 * a 16-bucket salted one (bucket(16, xxh3(id)) in front, pre-split on bucket
 * boundaries). Then, for each design, through the planner and rk_query:
 *   - an ordered full read (the salted one merges 16 streams): rows/s;
 *   - time to first row and to the 10th for LIMIT 10;
 *   - a range query over 1% of the rows (ts BETWEEN a AND a + N/100 - 1).
 * Prints a table and, with --json FILE, one JSON object.
 *
 * usage: bench_query [N] [--json FILE] [--dir DIR]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rowkey/query.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_query: %s: %s\n", what, rk_error_last());
	exit(1);
}

typedef struct {
	const char *name;
	const char *schema;
	unsigned buckets;
	rk_schema *s;
	double load_s, full_s, first_s, tenth_s, range_s;
	uint64_t full_rows, range_rows;
} design;

static void load(rk_store *st, design *d, long n)
{
	rk_family_def fam = {"d", 1, NULL};
	uint8_t sp[16];
	rk_bytes splits[16];
	for (unsigned b = 1; b < d->buckets; b++) {
		sp[b] = (uint8_t)b;
		splits[b - 1] = (rk_bytes){&sp[b], 1};
	}
	rk_table_def def = {d->name, &fam, 1, splits, d->buckets ? d->buckets - 1 : 0, d->buckets ? 1 : 0};
	if (rk_table_create(st, &def))
		die("create");
	rk_table *t;
	rk_encoder *e;
	if (rk_table_open(&t, st, d->name) || rk_encoder_new(&e, d->s, 1))
		die("open");
	enum { B = 1000 };
	static uint8_t keys[B][32];
	static uint8_t val[100];
	rk_mutation m[B];
	double t0 = now();
	for (long i = 0; i < n; i += B) {
		long k = n - i < B ? n - i : B;
		for (long j = 0; j < k; j++) {
			rk_value v[2] = {{.present = 1, .v.u = (uint64_t)(i + j)}, {.present = 1, .v.u = (uint64_t)(i + j) * 7919}};
			size_t kl;
			if (rk_key_encode(keys[j], sizeof keys[j], &kl, e, v))
				die("encode");
			m[j] = (rk_mutation){RK_MUT_PUT, keys[j], kl, "d", (const uint8_t *)"v", 1, 1, val, sizeof val, 0};
		}
		if (rk_table_apply(t, m, (size_t)k, NULL))
			die("apply");
	}
	d->load_s = now() - t0;
	rk_encoder_free(e);
	rk_table_close(t);
}

/* Runs a query; returns rows; *first / *tenth get the time to those rows. */
static uint64_t run(rk_store *st, design *d, const char *where, uint64_t limit, double *total, double *first,
                    double *tenth)
{
	rk_table *t;
	rk_predicate *p;
	rk_plan *plan;
	rk_query *q;
	if (rk_table_open(&t, st, d->name) || rk_predicate_parse(&p, d->s, where, strlen(where)) ||
	    rk_plan_build(&plan, d->s, p))
		die(where);
	rk_query_options qo = RK_QUERY_OPTIONS_INIT;
	qo.limit = limit;
	double t0 = now();
	if (rk_query_open(&q, t, d->s, plan, p, &qo))
		die("query");
	rk_query_row r;
	uint64_t rows = 0;
	int rc;
	while ((rc = rk_query_next(&r, q)) == 0) {
		rows++;
		if (rows == 1 && first)
			*first = now() - t0;
		if (rows == 10 && tenth)
			*tenth = now() - t0;
	}
	if (rc != RK_EITEROVER)
		die("next");
	*total = now() - t0;
	rk_query_close(q);
	rk_plan_free(plan);
	rk_predicate_free(p);
	rk_table_close(t);
	return rows;
}

int main(int argc, char **argv)
{
	long n = 1000000;
	const char *json = NULL;
	char dir[256] = "";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			snprintf(dir, sizeof dir, "%s", argv[++i]);
		else
			n = atol(argv[i]);
	}
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/rk_bench_query_XXXXXX");
		if (!mkdtemp(dir))
			die("mkdtemp");
	}
	design ds[2] = {
		{"unsalted", "fields ts:u64, id:u64; key u64(ts) u64(id)", 0, NULL, 0, 0, 0, 0, 0, 0, 0},
		{"salted16", "fields ts:u64, id:u64; key bucket(16, xxh3(u64(id))) u64(ts) u64(id)", 16, NULL, 0, 0, 0, 0, 0, 0, 0},
	};
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	o.background_splits = 0;
	o.split_threshold = 0;
	rk_store *st;
	if (rk_store_open(&st, dir, &o))
		die("store");
	char where[128];
	snprintf(where, sizeof where, "ts BETWEEN %ld AND %ld", n / 2, n / 2 + n / 100 - 1);
	for (int i = 0; i < 2; i++) {
		if (rk_schema_parse(&ds[i].s, ds[i].schema, strlen(ds[i].schema), ds[i].name))
			die("schema");
		load(st, &ds[i], n);
	}
	for (int i = 0; i < 2; i++) {
		design *d = &ds[i];
		double dummy;
		d->full_rows = run(st, d, "", 0, &d->full_s, NULL, NULL);
		run(st, d, "", 10, &dummy, &d->first_s, &d->tenth_s);
		d->range_rows = run(st, d, where, 0, &d->range_s, NULL, NULL);
	}
	printf("rows: %ld per design; store %s (4 region servers, async)\n", n, dir);
	printf("%-10s %10s %14s %12s %12s %14s\n", "design", "load r/s", "full scan r/s", "first row", "10th row",
	       "1% range");
	for (int i = 0; i < 2; i++) {
		design *d = &ds[i];
		printf("%-10s %10.0f %14.0f %10.3fms %10.3fms %9.1fms (%llu rows)\n", d->name, (double)n / d->load_s,
		       (double)d->full_rows / d->full_s, d->first_s * 1e3, d->tenth_s * 1e3, d->range_s * 1e3,
		       (unsigned long long)d->range_rows);
	}
	double ratio = ((double)ds[1].full_rows / ds[1].full_s) / ((double)ds[0].full_rows / ds[0].full_s);
	printf("ordered full scan, salted merged / unsalted: %.2f (goal >= 0.7)\n", ratio);
	if (json) {
		FILE *f = fopen(json, "w");
		if (f) {
			fprintf(f, "{\"rows\":%ld,\"ratio_full_scan\":%.3f,\"designs\":[", n, ratio);
			for (int i = 0; i < 2; i++)
				fprintf(f, "%s{\"name\":\"%s\",\"load_rows_s\":%.0f,\"full_rows_s\":%.0f,\"first_ms\":%.3f,"
				           "\"tenth_ms\":%.3f,\"range_ms\":%.2f,\"range_rows\":%llu}",
				        i ? "," : "", ds[i].name, (double)n / ds[i].load_s, (double)ds[i].full_rows / ds[i].full_s,
				        ds[i].first_s * 1e3, ds[i].tenth_s * 1e3, ds[i].range_s * 1e3,
				        (unsigned long long)ds[i].range_rows);
			fprintf(f, "]}\n");
			fclose(f);
		}
	}
	for (int i = 0; i < 2; i++)
		rk_schema_free(ds[i].s);
	rk_store_close(st);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
