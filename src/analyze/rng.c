/*
 * The analyzer's random numbers (see rng.h).
 */
#include "analyze/rng.h"

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void rk__rng_seed(rk__rng *r, uint64_t seed)
{
	uint64_t x = seed;
	r->s[0] = splitmix(&x);
	r->s[1] = splitmix(&x);
	if (!r->s[0] && !r->s[1])
		r->s[1] = 1;
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rk__rng_next(rk__rng *r)
{
	uint64_t s0 = r->s[0], s1 = r->s[1], res = s0 + s1;
	s1 ^= s0;
	r->s[0] = rotl(s0, 24) ^ s1 ^ (s1 << 16);
	r->s[1] = rotl(s1, 37);
	return res;
}

double rk__rng_unit(rk__rng *r)
{
	return (double)(rk__rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}
