/*
 * Split policy (see split.h): thresholds, bucket-boundary rounding for
 * salted tables, and the split itself in the meta map. Stateless and apart
 * from the store's engines, so the analyzer's simulator links its own copy
 * (cmake/parts.cmake); the middle key, read from an engine, is
 * split_middle.c's.
 */
#include "store/local/split.h"

#include <string.h>

#include "key/error.h"

uint64_t rk_split__limit(uint64_t threshold, size_t regions_on_server)
{
	if (threshold == 0)
		return UINT64_MAX;
	if (regions_on_server <= 1)
		return threshold / 4 ? threshold / 4 : 1;
	return threshold;
}

static int inside(const uint8_t *row, size_t len, const uint8_t *start, size_t start_len,
                  const uint8_t *end, size_t end_len)
{
	if (rk_meta__row_cmp(row, len, start, start_len) <= 0)
		return 0;
	return !end || rk_meta__row_cmp(row, len, end, end_len) < 0;
}

/* b as an L-byte big-endian number: b += 1 (returns 0 on overflow) */
static int incr(uint8_t *b, unsigned L)
{
	for (unsigned i = L; i-- > 0;)
		if (++b[i] != 0)
			return 1;
	return 0;
}

static int decr(uint8_t *b, unsigned L)
{
	for (unsigned i = L; i-- > 0;)
		if (b[i]-- != 0)
			return 1;
	return 0;
}

int rk_split__round(uint8_t *out, size_t *out_len, const uint8_t *mid, size_t mid_len,
                    const uint8_t *start, size_t start_len, const uint8_t *end, size_t end_len,
                    unsigned L)
{
	uint8_t lo[8], hi[8];
	int have_lo = 1, have_hi = 1;
	if (L == 0) {
		if (!inside(mid, mid_len, start, start_len, end, end_len))
			return 0;
		memcpy(out, mid, mid_len);
		*out_len = mid_len;
		return 1;
	}
	/* lo = the largest L-byte row <= mid, hi = the smallest L-byte row >= mid */
	memset(lo, 0, sizeof lo);
	memcpy(lo, mid, mid_len < L ? mid_len : L);
	memcpy(hi, lo, L);
	if (mid_len < L) {
		have_lo = decr(lo, L); /* zero-padded mid is above mid */
	} else if (mid_len > L) {
		have_hi = incr(hi, L);
	}
	if (have_lo && inside(lo, L, start, start_len, end, end_len)) {
		memcpy(out, lo, L);
		*out_len = L;
		return 1;
	}
	if (have_hi && inside(hi, L, start, start_len, end, end_len)) {
		memcpy(out, hi, L);
		*out_len = L;
		return 1;
	}
	return 0;
}

int rk_split__apply(rk__region **a, rk__region **b, rk__meta *m, rk__tmeta *t, size_t i,
                    const uint8_t *point, size_t point_len, uint64_t left, uint64_t total,
                    uint64_t threshold)
{
	rk__region *r = t->regions[i];
	unsigned srv = r->server;
	rk__region *pair[2];
	pair[0] = rk_meta__region_new(m, t, m->next_region_id, r->start, r->start_len, point,
	                              point_len, srv);
	pair[1] = pair[0] ? rk_meta__region_new(m, t, m->next_region_id + 1, point, point_len,
	                                        r->end, r->end_len, srv)
	                  : NULL;
	if (!pair[0] || !pair[1])
		return rk__err(RK_ENOMEM, "region %llu: out of memory splitting",
		               (unsigned long long)r->id);
	int rc = rk_meta__replace(t, i, pair, 2);
	if (rc)
		return rc;
	m->next_region_id += 2;
	uint64_t lim = rk_split__limit(threshold, rk_meta__regions_on_server(t, srv));
	atomic_store(&pair[0]->size, left);
	atomic_store(&pair[1]->size, total > left ? total - left : 0);
	atomic_store(&pair[0]->split_at_size, lim);
	atomic_store(&pair[1]->split_at_size, lim);
	atomic_store(&r->retired, 1);
	*a = pair[0];
	*b = pair[1];
	return 0;
}

int rk_split__valid_point(const rk__region *r, const uint8_t *row, size_t len, unsigned L)
{
	if (L && len != L)
		return 0;
	return inside(row, len, r->start, r->start_len, r->end, r->end_len);
}
