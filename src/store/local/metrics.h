/*
 * Load counters in time buckets: writes, reads, bytes written and read, for
 * one region or one server. Updates are lock-free on the current bucket; a
 * bucket change takes a short mutex to move the finished bucket into the
 * history. A count racing with that switch may land in the neighbouring
 * bucket; totals are exact.
 */
#ifndef RK_LOCAL_METRICS_H
#define RK_LOCAL_METRICS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "rowkey/metrics.h"

enum { RK_M_WRITES, RK_M_READS, RK_M_BWRITTEN, RK_M_BREAD, RK_M_N };

typedef struct rk__mbucket {
	int64_t start_ms;
	unsigned server; /* the region server that applied or served it */
	uint64_t v[RK_M_N];
} rk__mbucket;

typedef struct rk__metrics {
	_Atomic int64_t cur_start; /* -1: none yet */
	_Atomic unsigned cur_server;
	_Atomic uint64_t cur[RK_M_N];
	_Atomic uint64_t total[RK_M_N];
	pthread_mutex_t mu;
	rk__mbucket *hist;
	size_t nhist, cap;
} rk__metrics;

void rk_metrics__init(rk__metrics *m);
void rk_metrics__fini(rk__metrics *m);

/* Adds counts at time now_ms into the bucket of width bucket_ms, as done by
 * region server `server` (a region that moved in the middle of a bucket
 * gets a bucket per server). */
void rk_metrics__add(rk__metrics *m, int64_t now_ms, unsigned bucket_ms, unsigned server,
                     uint64_t writes, uint64_t reads, uint64_t bw, uint64_t br);

/* Appends m's buckets (the finished ones, then the current one, of width
 * bucket_ms) to (*b)[*n..], growing *b (capacity *cap). 0 or RK_ENOMEM. */
int rk_metrics__buckets(rk__metrics *m, unsigned bucket_ms, rk_metrics_bucket **b,
                        size_t *n, size_t *cap);

int64_t rk_metrics__now_ms(void);

/* Sums of counts that stop at UINT64_MAX rather than wrap (key buckets
 * and series add up counts of any age and origin). */
static inline uint64_t rk_metrics__add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A weight or count computed in double, as an integer that stops at
 * UINT64_MAX (a cast of a larger double is undefined). */
static inline uint64_t rk_metrics__u64_sat(double x)
{
	return x >= 18446744073709551615.0 ? UINT64_MAX : x > 0 ? (uint64_t)x : 0;
}

static inline void rk_metrics__counts_add(rk_metrics_counts *a, const rk_metrics_counts *b)
{
	a->writes = rk_metrics__add_sat(a->writes, b->writes);
	a->reads = rk_metrics__add_sat(a->reads, b->reads);
	a->bytes_written = rk_metrics__add_sat(a->bytes_written, b->bytes_written);
	a->bytes_read = rk_metrics__add_sat(a->bytes_read, b->bytes_read);
}

/* Bucket records (r and s) carried from earlier runs at full resolution;
 * past this many they are rolled up into coarser buckets. */
#define RK_METRICS_CARRY_MAX 250000u


/* ---- the metrics file (metrics_read.c, metrics_write.c) ---- */

/* Parses a metrics file's text (docs/formats.md B.3, versions 1 and 2).
 * Strict (lenient 0): the first bad line is RK_ECORRUPT naming it. Lenient:
 * bad lines are dropped (a store carrying its own, possibly damaged, file);
 * only a bad header fails. The caller owns *out (rk_metrics_free). */
int rk_metrics__parse(rk_metrics **out, const char *text, size_t len, const char *name,
                      int lenient);

/* An r or s record before it is filed into its series. */
typedef struct rk__mrec {
	char tag; /* 'r' or 's' */
	uint64_t id;
	rk_metrics_bucket b;
} rk__mrec;

/* Files recs (sorted here) into m's region_load and server_load, sorts
 * m's regions, decides liveness where no line gave it (live < 0: on its
 * table's newest chain of regions) and links each region to its load;
 * sorts the tables by name. 0 or RK_ENOMEM. */
int rk_metrics__index(rk_metrics *m, rk__mrec *recs, size_t n);

/* Reads a whole file into *out (malloc'd, NUL-terminated past *len).
 * RK_ENOTFOUND, RK_EIO naming the path, RK_ENOMEM. */
int rk_metrics__slurp(char **out, size_t *len, const char *path);

/* When m's r and s buckets number more than max_records, merges each
 * series' buckets into buckets of width bucket_ms * 4^k (the smallest k
 * leaving at most max_records / 2), their counts summed: history is
 * coarsened, never dropped. */
void rk_metrics__rollup(rk_metrics *m, size_t max_records);

/* Writes m as a version 2 file to f. 0 or RK_EIO. */
int rk_metrics__format(FILE *f, const rk_metrics *m);

/* Writes m to path through path.tmp and a rename. */
int rk_metrics__write_file(const rk_metrics *m, const char *path);

#endif
