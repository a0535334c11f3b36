/*
 * The new keys a rekey copy knows the new table may hold, as a Bloom
 * filter: the copy's check that no new key is taken twice reads the new
 * table only for a key the filter may hold. A key it does not hold is
 * certainly not in the new table, because every key of the new table is
 * added: those it held when the copy began (a keys-only scan) and every key
 * the copy writes.
 *
 * It grows by levels, each for twice the keys of the one before, so no row
 * count is needed up front. At 8 bits a key and 5 probes a full level says
 * "maybe" for about 2% of the keys it does not hold (each then costs one
 * read). Past RK_REKEY_SEEN_MAX bytes it stops growing and says "maybe" for
 * every key: the copy then reads each new key, as it would without it.
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "cli/rekey.h"

#define FIRST_KEYS (1u << 16)
#define BITS_PER_KEY 8
#define PROBES 5

struct rk_rekey_seen_level {
	uint64_t *bits;
	uint64_t mask; /* bits in the level - 1 (a power of two) */
	uint64_t keys, cap;
};

static void probes(uint64_t pos[PROBES], const uint8_t *k, size_t n, uint64_t mask)
{
	XXH128_hash_t h = XXH3_128bits(k, n);
	uint64_t step = h.high64 | 1; /* odd: the probes differ modulo a power of two */
	for (unsigned i = 0; i < PROBES; i++)
		pos[i] = (h.low64 + i * step) & mask;
}

static int level_has(const struct rk_rekey_seen_level *l, const uint8_t *k, size_t n)
{
	uint64_t pos[PROBES];
	probes(pos, k, n, l->mask);
	for (unsigned i = 0; i < PROBES; i++)
		if (!(l->bits[pos[i] >> 6] >> (pos[i] & 63) & 1))
			return 0;
	return 1;
}

/* A level for twice the keys of the last (the first: FIRST_KEYS). 0, or -1
 * when it would pass the cap or memory runs out. */
static int add_level(rk_rekey_seen *s)
{
	uint64_t cap = s->nlv ? s->lv[s->nlv - 1].cap * 2 : FIRST_KEYS;
	size_t bytes = (size_t)(cap * BITS_PER_KEY / 8);
	if (s->bytes + bytes > RK_REKEY_SEEN_MAX)
		return -1;
	struct rk_rekey_seen_level *lv = realloc(s->lv, (s->nlv + 1) * sizeof *lv);
	if (!lv)
		return -1;
	s->lv = lv;
	uint64_t *bits = calloc(bytes / 8, 8);
	if (!bits)
		return -1;
	s->lv[s->nlv++] = (struct rk_rekey_seen_level){bits, cap * BITS_PER_KEY - 1, 0, cap};
	s->bytes += bytes;
	return 0;
}

void rk_rekey__seen_add(rk_rekey_seen *s, const uint8_t *k, size_t n)
{
	if (s->full)
		return;
	if ((!s->nlv || s->lv[s->nlv - 1].keys == s->lv[s->nlv - 1].cap) && add_level(s)) {
		s->full = 1; /* every key "maybe" from now on: never a false "no" */
		return;
	}
	struct rk_rekey_seen_level *l = &s->lv[s->nlv - 1];
	uint64_t pos[PROBES];
	probes(pos, k, n, l->mask);
	for (unsigned i = 0; i < PROBES; i++)
		l->bits[pos[i] >> 6] |= (uint64_t)1 << (pos[i] & 63);
	l->keys++;
}

int rk_rekey__seen_maybe(const rk_rekey_seen *s, const uint8_t *k, size_t n)
{
	if (s->full)
		return 1;
	for (size_t i = 0; i < s->nlv; i++)
		if (s->lv[i].keys && level_has(&s->lv[i], k, n))
			return 1;
	return 0;
}

void rk_rekey__seen_free(rk_rekey_seen *s)
{
	for (size_t i = 0; i < s->nlv; i++)
		free(s->lv[i].bits);
	free(s->lv);
	*s = (rk_rekey_seen){0};
}
