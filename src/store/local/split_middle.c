/*
 * The middle key of a region (split.h), read through its server's engine.
 */
#include "store/local/split.h"

#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/cell.h"

static int key_lt(const uint8_t *k, size_t kl, const uint8_t *hi, size_t hl)
{
	return rk_meta__row_cmp(k, kl, hi, hl) < 0;
}

typedef struct sample {
	uint8_t *row; /* escaped body */
	size_t len;
	uint64_t before;
} sample;

/* A middle-key search's walk: the row of the cell before, and a sample
 * (its escaped row, the bytes before it) every `step` bytes of cells. */
typedef struct sampler {
	sample *s;
	size_t ns, cap;
	uint8_t *prev;
	size_t prev_len, prev_cap, rows;
	uint64_t bytes, next_at, step;
} sampler;

static void sampler_free(sampler *sp)
{
	for (size_t i = 0; i < sp->ns; i++)
		free(sp->s[i].row);
	free(sp->s);
	free(sp->prev);
}

/* A cell of this row: when the row is new, remembered, and sampled if step
 * bytes have gone by since the last sample (never the first row: a split
 * there would leave a side empty). -1 when out of memory. */
static int sampler_cell(sampler *sp, const uint8_t *row, size_t len)
{
	if (sp->prev && len == sp->prev_len && !memcmp(sp->prev, row, len))
		return 0;
	if (len > sp->prev_cap) {
		uint8_t *p = realloc(sp->prev, len);
		if (!p)
			return -1;
		sp->prev = p;
		sp->prev_cap = len;
	}
	memcpy(sp->prev, row, len);
	sp->prev_len = len;
	if (sp->rows++ == 0 || sp->bytes < sp->next_at)
		return 0;
	if (sp->ns == sp->cap) {
		size_t n = sp->cap ? sp->cap * 2 : 64;
		sample *q = realloc(sp->s, n * sizeof *q);
		if (!q)
			return -1;
		sp->s = q;
		sp->cap = n;
	}
	if (!(sp->s[sp->ns].row = malloc(len + 1)))
		return -1;
	memcpy(sp->s[sp->ns].row, row, len);
	sp->s[sp->ns].len = len;
	sp->s[sp->ns].before = sp->bytes;
	sp->ns++;
	sp->next_at = sp->bytes + sp->step;
	return 0;
}

/* The sample with the bytes before it closest to half of them all (the
 * first of equals). */
static size_t closest_to_half(const sampler *sp)
{
	size_t best = 0;
	uint64_t half = sp->bytes / 2;
	for (size_t i = 1; i < sp->ns; i++) {
		uint64_t bi = sp->s[i].before, bb = sp->s[best].before;
		uint64_t di = bi > half ? bi - half : half - bi;
		uint64_t db = bb > half ? bb - half : half - bb;
		if (di < db)
			best = i;
	}
	return best;
}

int rk_split__middle(uint8_t **out, size_t *out_len, uint64_t *left, uint64_t *total,
                     rk__eiter *it, const rk__region *r)
{
	sampler sp = {0};
	int rc = 0;
	sp.step = atomic_load(&r->size) / 256 + 1;
	*out = NULL;
	for (rk_eiter__seek(it, r->lo, r->lo_len); rk_eiter__valid(it); rk_eiter__next(it)) {
		size_t kl, vl;
		const uint8_t *k = rk_eiter__key(it, &kl);
		if (!key_lt(k, kl, r->hi, r->hi_len))
			break;
		rk_eiter__value(it, &vl);
		rk__cellkey ck;
		if ((rc = rk_cell__decode_row(&ck, k, kl)) != 0)
			goto out;
		if (sampler_cell(&sp, ck.row, ck.row_len) < 0)
			goto nomem;
		sp.bytes += kl + vl;
	}
	if ((rc = rk_eiter__status(it)) != 0)
		goto out;
	if (sp.ns == 0) {
		rc = rk__err(RK_ENOTFOUND, "table %s: region %llu has fewer than two rows",
		             r->table->name, (unsigned long long)r->id);
		goto out;
	}
	const sample *best = &sp.s[closest_to_half(&sp)];
	uint8_t *row = malloc(best->len + 1);
	if (!row)
		goto nomem;
	*out_len = rk_cell__unesc(row, best->row, best->len);
	*out = row;
	*left = best->before;
	*total = sp.bytes;
	goto out;
nomem:
	rc = rk__err(RK_ENOMEM, "out of memory finding the middle key of region %llu",
	             (unsigned long long)r->id);
out:
	sampler_free(&sp);
	return rc;
}
