/*
 * The simulated cluster's private state, shared by sim.c (regions, their
 * counters and reservoir samples, splits, the balancer, heatmap rows) and
 * simrun.c (a run of a workload through a design on it).
 */
#ifndef RK_ANALYZE_SIM_INT_H
#define RK_ANALYZE_SIM_INT_H

#include "analyze/analyze_int.h"
#include "store/local/meta.h"

#define RESERVOIR 32
#define SAMPLE_KEYS 8192

typedef struct rstat {
	uint32_t first, len, cap; /* time buckets [first, first + len) */
	uint64_t *wr;              /* 2 per bucket: writes, reads */
	uint64_t writes, reads;
	uint64_t seen;             /* rows offered to the reservoir */
	uint32_t ns;
	uint8_t *samp[RESERVOIR];
	uint16_t samp_len[RESERVOIR];
} rstat;

typedef struct sim {
	const rk_analyze_options *o;
	rk__meta meta;
	rk__tmeta *t;
	rstat *st;        /* by region id */
	size_t nst;
	size_t *on_server, *scratch;
	rk__rng rng;
	rk_analysis *a;
	uint64_t splits, moves;
	unsigned L;
} sim;

/* A region's counters (grown as region ids grow); NULL when out of memory. */
rstat *rk__sim_stat_of(sim *s, uint64_t id);
/* Counts w writes and rd reads on region r in time bucket b. */
int rk__sim_count(sim *s, rk__region *r, uint32_t b, uint64_t w, uint64_t rd);
/* Offers a row to the region's reservoir of rows (its middle key). */
void rk__sim_sample_row(sim *s, rstat *x, const uint8_t *key, size_t kl);
/* Splits region index i when it is past its limit (split.h's policy). */
int rk__sim_maybe_split(sim *s, size_t i);
/* Runs the balancer (the store's policy) until it has nothing to move. */
void rk__sim_balance(sim *s);
/* The heatmap row of a key, and the index that narrows its search. */
size_t rk__sim_heat_row(rk_analysis *a, const uint8_t *k, size_t kl);
int rk__sim_heat_index(rk_analysis *a);
/* The regions a planned range touches: [*i0, *i1] in the table's order. */
void rk__sim_range_regions(size_t *i0, size_t *i1, const rk__tmeta *t, const rk__range *r);
/* The simulated table with its initial split points and bucket length. */
int rk__sim_make_table(sim *s, const rk_bytes *sp, size_t nsp, unsigned L);

#endif
