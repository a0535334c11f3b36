/*
 * The analyzer's random numbers (xoroshiro128+, seeded through splitmix64):
 * fast, and the same stream for the same seed on every machine, so a run is
 * repeatable. Shared by the workload generators, the simulator and the
 * query-shape filler.
 */
#ifndef RK_ANALYZE_RNG_H
#define RK_ANALYZE_RNG_H

#include <stdint.h>

typedef struct rk__rng {
	uint64_t s[2];
} rk__rng;

void rk__rng_seed(rk__rng *r, uint64_t seed);
uint64_t rk__rng_next(rk__rng *r);
double rk__rng_unit(rk__rng *r); /* [0, 1) */

#endif
