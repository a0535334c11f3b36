/*
 * bench_analyze: the simulator at scale. 100 million messages (by default)
 * through a key design on 64 simulated region servers, one thread: wall
 * seconds, operations per second and peak RSS. Goal (issue 5): under 60 s
 * and under 200 MB.
 *
 *   bench_analyze [OPERATIONS [SERVERS ["SCHEMA"]]]
 *
 * The default design is 64 salt buckets in front of date:time:id; the run
 * splits regions at 256 MiB and balances every 10 virtual seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <rowkey/analyze.h>

int main(int argc, char **argv)
{
	double ops = argc > 1 ? strtod(argv[1], NULL) : 1e8;
	unsigned servers = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 64;
	const char *text = argc > 3 ? argv[3]
	                            : "fields date:str, time:str, id:u64, user:u64, domain:str, ts:i64; "
	                              "key bucket(64, xxh3(id), dec) \":\" date \":\" time \":\" id";
	rk_schema *s;
	if (rk_schema_parse(&s, text, strlen(text), "bench") != 0) {
		fprintf(stderr, "bench_analyze: %s\n", rk_error_last());
		return 1;
	}
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	w.rate = 1e6;
	w.duration = ops / w.rate;
	o.servers = servers;
	o.balance_interval = 10;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rk_analysis *a;
	if (rk_analyze_run(&a, s, "bench", &w, &o) != 0) {
		fprintf(stderr, "bench_analyze: %s\n", rk_error_last());
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	const rk_report *r = rk_analysis_report(a);
	printf("{\"bench\":\"analyze\",\"operations\":%llu,\"servers\":%u,\"seconds\":%.2f,"
	       "\"ops_per_sec\":%.0f,\"peak_rss_mb\":%.1f,\"regions\":%zu,\"splits\":%llu,"
	       "\"effective_servers\":%.2f}\n",
	       (unsigned long long)(r->writes + r->reads), servers, sec,
	       (double)(r->writes + r->reads) / sec, (double)ru.ru_maxrss / 1024.0, r->regions,
	       (unsigned long long)r->splits, r->effective_servers);
	printf("verdict: %s\n", r->verdict);
	rk_analysis_free(a);
	rk_schema_free(s);
	return 0;
}
