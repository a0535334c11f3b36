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

enum { RK_M_WRITES, RK_M_READS, RK_M_BWRITTEN, RK_M_BREAD, RK_M_N };

typedef struct rk__mbucket {
	int64_t start_ms;
	uint64_t v[RK_M_N];
} rk__mbucket;

typedef struct rk__metrics {
	_Atomic int64_t cur_start; /* -1: none yet */
	_Atomic uint64_t cur[RK_M_N];
	_Atomic uint64_t total[RK_M_N];
	pthread_mutex_t mu;
	rk__mbucket *hist;
	size_t nhist, cap;
} rk__metrics;

void rk_metrics__init(rk__metrics *m);
void rk_metrics__fini(rk__metrics *m);

/* Adds counts at time now_ms into the bucket of width bucket_ms. */
void rk_metrics__add(rk__metrics *m, int64_t now_ms, unsigned bucket_ms, uint64_t writes,
                     uint64_t reads, uint64_t bw, uint64_t br);

/* Writes one line per non-empty bucket: "<tag> <id> <start> w r bw br". */
int rk_metrics__dump(rk__metrics *m, FILE *f, const char *tag, uint64_t id);

int64_t rk_metrics__now_ms(void);

/* Records carried from earlier runs' metrics.tsv kept at full resolution;
 * past this many bucket records they are rolled up into coarser buckets. */
#define RK_METRICS_CARRY_MAX 250000u

/* What of an earlier metrics file (text[0..n), untrusted) the next file
 * carries: its region lines as they are, and its bucket records ("r", "s"),
 * malformed lines dropped. When there are more than max_records bucket
 * records, each (tag, id)'s buckets are merged into coarser ones (widths
 * bucket_ms * 4^k, the smallest giving at most max_records / 2 records),
 * written with their width as an eighth field (docs/formats.md B.3): counts
 * are summed, never dropped. The caller frees *out (NUL-terminated, *out_len
 * bytes). 0 or RK_ENOMEM. */
int rk_metrics__carry(char **out, size_t *out_len, const char *text, size_t n,
                      unsigned bucket_ms, size_t max_records);

#endif
