/*
 * Split policy: when a region is big enough to split, and where.
 *
 * When: HBase's stepping policy. The first region of a table on a server
 * splits early (at a quarter of the threshold, HBase's 2 x flush size), so a
 * new table spreads quickly; after that a region splits at the threshold.
 *
 * Where: at the region's middle key, by bytes (the row where half of the
 * region's bytes lie before it). Salted tables carry a bucket prefix length
 * L: their split points are rounded to an L-byte bucket boundary strictly
 * inside the region, so no region ever straddles part of a bucket; a region
 * holding a single bucket does not split.
 */
#ifndef RK_LOCAL_SPLIT_H
#define RK_LOCAL_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "store/local/engine.h"
#include "store/local/meta.h"

/* The size past which a region splits, given how many regions of its table
 * its server holds. threshold 0: never. */
uint64_t rk_split__limit(uint64_t threshold, size_t regions_on_server);

/* Rounds `mid` to a bucket boundary (an L-byte row) strictly inside
 * (start, end); end NULL = unbounded. Prefers the boundary at or below mid.
 * Writes it to out (L bytes) and returns 1, or returns 0 when the region
 * holds no boundary. L == 0 copies mid when it is strictly inside. */
int rk_split__round(uint8_t *out, size_t *out_len, const uint8_t *mid, size_t mid_len,
                    const uint8_t *start, size_t start_len, const uint8_t *end, size_t end_len,
                    unsigned L);

/* Splits region index i of t at `point` in the meta map: two halves on the
 * region's server replace it (ids m->next_region_id and the one after), the
 * region is retired, the halves get `left` and `total - left` bytes and the
 * limit they must pass next under `threshold`. The one sequence of a split,
 * for the store (admin.c) and the analyzer's simulator alike. RK_ENOMEM with
 * nothing changed. */
int rk_split__apply(rk__region **a, rk__region **b, rk__meta *m, rk__tmeta *t, size_t i,
                    const uint8_t *point, size_t point_len, uint64_t left, uint64_t total,
                    uint64_t threshold);

/* 1 when `row` is a valid split point of region r under bucket length L. */
int rk_split__valid_point(const rk__region *r, const uint8_t *row, size_t len, unsigned L);

/* Finds the middle row of region r by reading its cells through `it` (an
 * iterator of r's server engine). *out (malloc'd, caller frees) gets the
 * row; *left and *total the bytes before it and in the whole region.
 * RK_ENOTFOUND when the region has fewer than two rows. */
int rk_split__middle(uint8_t **out, size_t *out_len, uint64_t *left, uint64_t *total,
                     rk__eiter *it, const rk__region *r);

#endif
