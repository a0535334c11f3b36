/*
 * The simulator: a workload through a key design and an HBase-style cluster
 * in virtual time, on the embedded store's own routing code.
 *
 * Regions live in the store's meta map (src/store/local/meta.h): lookups
 * are rk_meta__lookup_index; the split policy and sequence are the store's
 * (split.h: rk_split__limit for when, rk_split__round for bucket-boundary
 * rounding, rk_split__apply for the switch), and so is the balancer's
 * choice (balance.h). What the simulator adds is an engine that only
 * counts: a region's size grows by the bytes of the cell the store would
 * write (cell.h's key length plus the value), and its middle key comes from
 * a reservoir sample of the region's rows (the store reads its engine).
 * A region that grows is checked against rk_split__limit for its server's
 * region count at that moment (a balancer move can lower it).
 *
 * This file is the cluster; simrun.c runs a workload through a design on
 * it. Memory is bounded by regions x time buckets and the heatmap, never by
 * keys.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/sim_int.h"
#include "key/error.h"
#include "store/cell.h"
#include "store/local/balance.h"
#include "store/local/meta.h"
#include "store/local/split.h"

rstat *rk__sim_stat_of(sim *s, uint64_t id)
{
	if (id >= s->nst) {
		size_t n = s->nst ? s->nst : 64;
		while (n <= id)
			n *= 2;
		rstat *q = realloc(s->st, n * sizeof *q);
		if (!q)
			return NULL;
		memset(q + s->nst, 0, (n - s->nst) * sizeof *q);
		s->st = q;
		s->nst = n;
	}
	return &s->st[id];
}

int rk__sim_count(sim *s, rk__region *r, uint32_t b, uint64_t w, uint64_t rd)
{
	rstat *x = rk__sim_stat_of(s, r->id);
	if (!x)
		return rk__err(RK_ENOMEM, "out of memory for region counters");
	if (x->len == 0) {
		x->first = b;
	}
	uint32_t need = b - x->first + 1;
	if (need > x->cap) {
		uint32_t n = x->cap ? x->cap * 2 : 8;
		while (n < need)
			n *= 2;
		uint64_t *q = realloc(x->wr, (size_t)n * 2 * sizeof *q);
		if (!q)
			return rk__err(RK_ENOMEM, "out of memory for region counters");
		memset(q + (size_t)x->cap * 2, 0, (size_t)(n - x->cap) * 2 * sizeof *q);
		x->wr = q;
		x->cap = n;
	}
	if (need > x->len)
		x->len = need;
	x->wr[(size_t)(b - x->first) * 2] += w;
	x->wr[(size_t)(b - x->first) * 2 + 1] += rd;
	x->writes += w;
	x->reads += rd;
	return 0;
}

void rk__sim_sample_row(sim *s, rstat *x, const uint8_t *key, size_t kl)
{
	x->seen++;
	size_t slot;
	if (x->ns < RESERVOIR)
		slot = x->ns;
	else if ((slot = (size_t)(rk__rng_next(&s->rng) % x->seen)) >= RESERVOIR)
		return;
	uint8_t *c = realloc(slot < x->ns ? x->samp[slot] : NULL, kl ? kl : 1);
	if (!c)
		return; /* a smaller sample, not an error */
	memcpy(c, key, kl);
	x->samp[slot] = c;
	x->samp_len[slot] = (uint16_t)(kl > UINT16_MAX ? UINT16_MAX : kl);
	if (slot == x->ns)
		x->ns++;
}

typedef struct sref {
	uint8_t *k;
	uint16_t n;
} sref;

static int sref_cmp(const void *a, const void *b)
{
	const sref *x = a, *y = b;
	return rk_meta__row_cmp(x->k, x->n, y->k, y->n);
}

/* Splits region index i when it is past its limit (split.h's policy). */
int rk__sim_maybe_split(sim *s, size_t i)
{
	rk__region *r = s->t->regions[i];
	uint64_t size = atomic_load_explicit(&r->size, memory_order_relaxed);
	uint64_t lim = rk_split__limit(s->o->split_threshold, s->on_server[r->server]);
	if (size <= lim)
		return 0;
	rstat *x = &s->st[r->id];
	sref sr[RESERVOIR];
	for (uint32_t k = 0; k < x->ns; k++) {
		sr[k].k = x->samp[k];
		sr[k].n = x->samp_len[k];
	}
	qsort(sr, x->ns, sizeof *sr, sref_cmp);
	uint8_t point[RK_MAX_ROW_LEN];
	size_t plen = 0;
	int found = 0;
	/* the middle sampled row, or the next one up that is strictly inside */
	for (uint32_t k = x->ns / 2; k < x->ns && !found && x->ns >= 2; k++)
		found = rk_split__round(point, &plen, sr[k].k, sr[k].n, r->start, r->start_len, r->end,
		                        r->end_len, s->L);
	for (uint32_t k = x->ns / 2; k-- > 0 && !found && x->ns >= 2;)
		found = rk_split__round(point, &plen, sr[k].k, sr[k].n, r->start, r->start_len, r->end,
		                        r->end_len, s->L);
	if (!found) {
		/* one row, or no bucket boundary inside: try again much later (store) */
		atomic_store_explicit(&r->split_at_size, size * 2, memory_order_relaxed);
		return 0;
	}
	unsigned srv = r->server;
	/* the halves' sizes in the proportion of the sampled rows on each side */
	uint32_t nl = 0;
	for (uint32_t k = 0; k < x->ns; k++)
		nl += rk_meta__row_cmp(x->samp[k], x->samp_len[k], point, plen) < 0;
	double fl = x->ns ? (double)nl / x->ns : 0.5;
	rk__region *a, *b;
	int rc = rk_split__apply(&a, &b, &s->meta, s->t, i, point, plen,
	                         (uint64_t)((double)size * fl), size, s->o->split_threshold);
	if (rc)
		return rc;
	/* the simulator takes each write's limit afresh (simrun.c), so a half
	 * keeps no stored limit: only a failed try sets one */
	atomic_store_explicit(&a->split_at_size, 0, memory_order_relaxed);
	atomic_store_explicit(&b->split_at_size, 0, memory_order_relaxed);
	s->on_server[srv]++;
	s->splits++;
	/* the halves' samples by the split point */
	rstat *xa = rk__sim_stat_of(s, a->id), *xb = rk__sim_stat_of(s, b->id);
	if (!xa || !xb)
		return rk__err(RK_ENOMEM, "out of memory splitting");
	x = &s->st[r->id]; /* stat_of may have moved the array */
	for (uint32_t k = 0; k < x->ns; k++) {
		int left = rk_meta__row_cmp(x->samp[k], x->samp_len[k], point, plen) < 0;
		rstat *d = left ? xa : xb;
		d->samp[d->ns] = x->samp[k];
		d->samp_len[d->ns] = x->samp_len[k];
		d->ns++;
		x->samp[k] = NULL;
	}
	xa->seen = (uint64_t)((double)x->seen * fl);
	xb->seen = x->seen - xa->seen;
	x->ns = 0;
	return 0;
}

void rk__sim_balance(sim *s)
{
	size_t idx;
	unsigned to;
	for (size_t guard = 0; guard < 100000; guard++) {
		if (!rk_balance__pick(&idx, &to, s->t, s->meta.n_servers, s->scratch))
			break;
		rk__region *r = s->t->regions[idx];
		s->on_server[r->server]--;
		s->on_server[to]++;
		r->server = to;
		s->moves++;
	}
}

static size_t heat_search(const rk_analysis *a, const uint8_t *k, size_t kl, size_t lo, size_t hi)
{
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (rk_meta__row_cmp(a->row_key[mid], a->row_key_len[mid], k, kl) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The heatmap row of a key: the last row starting at or before it. Growing
 * keys hit the row they hit last; others narrow the search by their first
 * two bytes. */
size_t rk__sim_heat_row(rk_analysis *a, const uint8_t *k, size_t kl)
{
	size_t r = a->last_row;
	if (rk_meta__row_cmp(a->row_key[r], a->row_key_len[r], k, kl) <= 0 &&
	    (r + 1 == a->rows || rk_meta__row_cmp(a->row_key[r + 1], a->row_key_len[r + 1], k, kl) > 0))
		return r;
	size_t lo = 0, hi = a->rows;
	if (kl >= 2) {
		unsigned v = (unsigned)k[0] << 8 | k[1];
		lo = a->first2[v];
		hi = a->first2[v + 1] + 1;
	}
	return a->last_row = heat_search(a, k, kl, lo, hi);
}

/* first2[v] = the row of the 2-byte key v (the row of every longer key with
 * that prefix is at or after it, and at or before first2[v + 1]). */
int rk__sim_heat_index(rk_analysis *a)
{
	if (!(a->first2 = malloc(65537 * sizeof *a->first2)))
		return rk__err(RK_ENOMEM, "out of memory for the heatmap");
	for (unsigned v = 0; v < 65536; v++) {
		uint8_t k[2] = {(uint8_t)(v >> 8), (uint8_t)v};
		a->first2[v] = (uint32_t)heat_search(a, k, 2, 0, a->rows);
	}
	a->first2[65536] = (uint32_t)(a->rows - 1);
	return 0;
}

/* The regions a planned range touches: [*i0, *i1] in the table's order. */
void rk__sim_range_regions(size_t *i0, size_t *i1, const rk__tmeta *t, const rk__range *r)
{
	*i0 = rk_meta__lookup_index(t, r->lo, r->lo_len);
	if (r->hi_kind == RK__HI_NONE) {
		*i1 = t->nregions - 1;
		return;
	}
	*i1 = rk_meta__lookup_index(t, r->hi, r->hi_len);
	/* an exclusive stop at a region's first row does not reach into it */
	if (r->hi_kind == RK__HI_EXCLUSIVE && *i1 > *i0 &&
	    !rk_meta__row_cmp(t->regions[*i1]->start, t->regions[*i1]->start_len, r->hi, r->hi_len))
		(*i1)--;
}

/* ---- setup of the meta map ---- */

int rk__sim_make_table(sim *s, const rk_bytes *sp, size_t nsp, unsigned L)
{
	rk__tmeta *t = calloc(1, sizeof *t);
	if (!t || !(t->regions = calloc(nsp + 1, sizeof *t->regions))) {
		free(t);
		return rk__err(RK_ENOMEM, "out of memory for the simulated table");
	}
	t->id = s->meta.next_table_id++;
	snprintf(t->name, sizeof t->name, "analyze");
	t->bucket_prefix_len = L;
	for (size_t i = 0; i <= nsp; i++) {
		const rk_bytes *lo = i ? &sp[i - 1] : NULL, *hi = i < nsp ? &sp[i] : NULL;
		unsigned server = (unsigned)((t->id - 1 + i) % s->meta.n_servers);
		rk__region *r = rk_meta__region_new(&s->meta, t, s->meta.next_region_id++,
		                                    lo ? lo->ptr : NULL, lo ? lo->len : 0,
		                                    hi ? hi->ptr : NULL, hi ? hi->len : 0, server);
		if (!r) {
			free(t->regions);
			free(t);
			return RK_ENOMEM;
		}
		t->regions[i] = r;
		t->nregions = i + 1;
		s->on_server[server]++;
	}
	int rc = rk_meta__table_add(&s->meta, t);
	if (rc) {
		free(t->regions);
		free(t);
		return rc;
	}
	s->t = t;
	return 0;
}

/* ---- the run ---- */

int rk__check_options(const rk_analyze_options *o, unsigned max_servers)
{
	if (!o)
		return rk__err(RK_EINVALID, "no analyzer options");
	if (o->servers == 0 || o->servers > max_servers)
		return rk__err(RK_EINVALID, "servers: %u is not in 1..%u", o->servers, max_servers);
	if (!(o->capacity > 0) || !isfinite(o->capacity))
		return rk__err(RK_EINVALID, "capacity: must be > 0 operations per second");
	if (o->time_buckets == 0 || o->time_buckets > RK__MAX_TIME_BUCKETS)
		return rk__err(RK_EINVALID, "time buckets: %u is not in 1..%u", o->time_buckets,
		               RK__MAX_TIME_BUCKETS);
	if (o->key_buckets == 0 || o->key_buckets > RK__MAX_KEY_BUCKETS)
		return rk__err(RK_EINVALID, "key buckets: %u is not in 1..%u", o->key_buckets,
		               RK__MAX_KEY_BUCKETS);
	if (o->balance_interval < 0 || !isfinite(o->balance_interval))
		return rk__err(RK_EINVALID, "balance interval: must be >= 0 seconds");
	if (o->value_len > RK_MAX_VALUE_LEN)
		return rk__err(RK_EINVALID, "value length: %zu is over %u bytes", o->value_len,
		               RK_MAX_VALUE_LEN);
	return 0;
}

