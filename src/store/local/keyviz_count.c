/*
 * Counting key buckets (keyviz.h): the open interval's counters of a table,
 * and the runs that carry a batch's rows to them.
 *
 * A writing thread groups its batch's rows into runs, one per bucket of the
 * layout it took when the batch began (a row that falls where the previous
 * one did costs two compares, another a binary search), each run with the
 * smallest and largest key it saw, and samples one row in `stride`. The
 * runs reach the table once per batch, under its mutex: the region
 * server's writer adds them after the engine applied the batch. When the
 * open interval changed its layout meanwhile, a run goes to the bucket its
 * smallest key falls in now.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "key/bytes.h"
#include "key/error.h"
#include "store/local/keyviz.h"

/* ---- the table's counters ---- */

rk__kvt *rk_kvt__new(unsigned width_ms, unsigned budget)
{
	rk__kvt *t = calloc(1, sizeof *t);
	size_t zero = 0;
	const uint8_t *none = NULL;
	if (!t || !(t->layout = rk_kvlayout__new(1, &none, &zero))) {
		free(t);
		rk__err(RK_ENOMEM, "out of memory for a table's key buckets");
		return NULL;
	}
	pthread_mutex_init(&t->mu, NULL);
	t->width_ms = width_ms ? width_ms : 1000;
	t->budget = budget < 2 ? 2 : budget > RK_KV_BUCKETS ? RK_KV_BUCKETS : budget;
	t->cur_start = -1;
	atomic_init(&t->stride, 1);
	t->countdown = 1;
	return t;
}

void rk_kvt__free(rk__kvt *t)
{
	if (!t)
		return;
	rk_kvhist__clear(&t->hist);
	free(t->hist.iv);
	rk_kvlayout__unref(t->layout);
	free(t->b);
	free(t->skeys);
	free(t->slen);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

/* the open interval's buckets, sized to the layout; 0 or -1 */
static int buckets(rk__kvt *t)
{
	if (t->b && t->nb == t->layout->pub.nbuckets)
		return 0;
	rk__kvbucket *b = calloc(t->layout->pub.nbuckets, sizeof *b);
	if (!b)
		return -1;
	free(t->b);
	t->b = b;
	t->nb = t->layout->pub.nbuckets;
	return 0;
}

/* a key cut to RK_KV_KEY_MAX: bucket boundaries keep at most that much */
static inline size_t cut_len(size_t len)
{
	return len > RK_KV_KEY_MAX ? RK_KV_KEY_MAX : len;
}

/* widens bucket b's key range to [k0, k1] */
static void widen(rk__kvbucket *b, int first, const uint8_t *k0, size_t l0, const uint8_t *k1,
                  size_t l1)
{
	if (first || rk__bytes_cmp(k0, l0, b->min, b->min_len) < 0) {
		memcpy(b->min, k0, l0);
		b->min_len = (uint16_t)l0;
	}
	if (first || rk__bytes_cmp(k1, l1, b->max, b->max_len) > 0) {
		memcpy(b->max, k1, l1);
		b->max_len = (uint16_t)l1;
	}
}

static void add_to_bucket(rk__kvt *t, size_t i, const rk_metrics_counts *c, const uint8_t *k0,
                          size_t l0, const uint8_t *k1, size_t l1)
{
	rk__kvbucket *b = &t->b[i];
	int first = b->max_len == 0; /* rows are never empty */
	rk_kv__counts_add(&b->c, c);
	widen(b, first, k0, l0, k1, l1);
	t->rows = rk_kv__add_sat(t->rows, c->writes + c->reads);
	t->any = 1;
}

/* keeps a sampled key; past RK_KV_SAMPLES, every other one is dropped and
 * the stride doubled, so the samples stay an even share of the rows */
static void sample(rk__kvt *t, const uint8_t *k, size_t len)
{
	if (!t->skeys) {
		t->skeys = malloc((size_t)RK_KV_SAMPLES * RK_KV_KEY_MAX);
		t->slen = malloc(RK_KV_SAMPLES * sizeof *t->slen);
		if (!t->skeys || !t->slen) {
			free(t->skeys);
			free(t->slen);
			t->skeys = NULL;
			t->slen = NULL;
			return; /* best effort: cut without samples */
		}
	}
	if (t->nsamples == RK_KV_SAMPLES) {
		size_t n = 0;
		for (size_t i = 0; i < t->nsamples; i += 2, n++) {
			memmove(t->skeys + n * RK_KV_KEY_MAX, t->skeys + i * RK_KV_KEY_MAX, t->slen[i]);
			t->slen[n] = t->slen[i];
		}
		t->nsamples = n;
		uint32_t s = atomic_load(&t->stride);
		atomic_store(&t->stride, s > UINT32_MAX / 2 ? s : s * 2);
	}
	memcpy(t->skeys + t->nsamples * RK_KV_KEY_MAX, k, len);
	t->slen[t->nsamples++] = (uint16_t)len;
}

void rk_kvt__roll(rk__kvt *t, int64_t now_ms)
{
	int64_t start = now_ms - now_ms % t->width_ms;
	if (t->cur_start < 0 || now_ms < t->cur_start) {
		if (t->cur_start < 0)
			t->cur_start = start;
		return; /* the clock went back: keep counting in the open interval */
	}
	if (now_ms < t->cur_start + (int64_t)t->width_ms)
		return;
	if (t->any) {
		rk__kvlayout *l;
		rk_keyviz_cell *cells;
		size_t n;
		if (rk_kvt__cut(&l, &cells, &n, t) == 0) {
			if (l != t->layout) {
				rk_kvlayout__unref(t->layout);
				t->layout = rk_kvlayout__ref(l);
			}
			/* a failed append drops the interval: counting is best effort */
			rk_kvhist__append(t, t->cur_start, t->width_ms, l, cells, n);
		}
	}
	if (t->b && t->nb == t->layout->pub.nbuckets)
		memset(t->b, 0, t->nb * sizeof *t->b);
	else
		buckets(t);
	uint64_t stride = t->rows / (RK_KV_SAMPLES / 2);
	atomic_store(&t->stride, stride < 1 ? 1 : stride > UINT32_MAX ? UINT32_MAX : (uint32_t)stride);
	t->countdown = 1;
	t->any = 0;
	t->nsamples = 0;
	t->rows = 0;
	t->cur_start = start;
}

void rk_kvt__count(rk__kvt *t, int64_t now_ms, const uint8_t *row, size_t len,
                   const rk_metrics_counts *c)
{
	size_t cl = cut_len(len);
	pthread_mutex_lock(&t->mu);
	rk_kvt__roll(t, now_ms);
	if (buckets(t) == 0) {
		add_to_bucket(t, rk_kvlayout__find(&t->layout->pub, row, len), c, row, cl, row, cl);
		if (--t->countdown == 0) {
			sample(t, row, cl);
			t->countdown = atomic_load(&t->stride);
		}
	}
	pthread_mutex_unlock(&t->mu);
}

/* ---- runs ---- */

/* a cheap per-thread random number: where in its stride a batch samples */
static uint32_t rnd(void)
{
	static _Thread_local uint64_t x;
	if (!x)
		x = (uint64_t)(uintptr_t)&x ^ (uint64_t)time(NULL) ^ 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return (uint32_t)(x >> 32);
}

static uint32_t put(rk__kvacc *a, const uint8_t *k, size_t len)
{
	if (a->alen + len > a->acap) {
		size_t c = a->acap ? a->acap * 2 : 4096;
		while (c < a->alen + len)
			c *= 2;
		uint8_t *q = realloc(a->arena, c);
		if (!q) {
			a->failed = 1;
			return 0;
		}
		a->arena = q;
		a->acap = c;
	}
	uint32_t off = (uint32_t)a->alen;
	if (len)
		memcpy(a->arena + off, k, len);
	a->alen += len;
	return off;
}

/* sets a run's min or max key (slot grown when the key is longer) */
static void set_key(rk__kvacc *a, uint32_t *off, uint16_t *len, uint16_t *cap, const uint8_t *k,
                    size_t kl)
{
	if (kl > *cap) {
		*off = put(a, k, kl);
		*cap = (uint16_t)kl;
	} else if (kl) {
		memcpy(a->arena + *off, k, kl);
	}
	*len = (uint16_t)kl;
}

static int begin(rk__kvacc *a, rk__kvt *t)
{
	pthread_mutex_lock(&t->mu);
	a->layout = rk_kvlayout__ref(t->layout);
	uint32_t stride = atomic_load(&t->stride);
	pthread_mutex_unlock(&t->mu);
	a->t = t;
	a->countdown = 1 + rnd() % stride;
	size_t n = a->layout->pub.nbuckets;
	if (n > a->cap_slot) {
		int32_t *s = realloc(a->slot, n * sizeof *s);
		if (!s)
			return a->failed = 1;
		for (size_t i = a->cap_slot; i < n; i++)
			s[i] = -1;
		a->slot = s;
		a->cap_slot = n;
	}
	return 0;
}

/* the run of bucket b, made when missing; NULL when out of memory */
static rk__kvrun *run_of(rk__kvacc *a, size_t b, const uint8_t *k, size_t kl)
{
	if (a->slot[b] >= 0)
		return &a->runs[a->slot[b]];
	if (a->nruns == a->cap_runs) {
		size_t c = a->cap_runs ? a->cap_runs * 2 : 16;
		rk__kvrun *q = realloc(a->runs, c * sizeof *q);
		if (!q) {
			a->failed = 1;
			return NULL;
		}
		a->runs = q;
		a->cap_runs = c;
	}
	rk__kvrun *r = &a->runs[a->nruns];
	memset(r, 0, sizeof *r);
	r->bucket = (uint32_t)b;
	r->min_off = put(a, k, kl);
	r->max_off = put(a, k, kl);
	r->min_len = r->max_len = r->min_cap = r->max_cap = (uint16_t)kl;
	if (a->failed)
		return NULL;
	a->slot[b] = (int32_t)a->nruns++;
	return r;
}

void rk_kvacc__row(rk__kvacc *a, rk__kvt *t, const uint8_t *row, size_t len,
                   const rk_metrics_counts *c, int continues)
{
	if (a->failed || (!a->t && begin(a, t)))
		return;
	if (continues && a->nruns) { /* the previous row's cells: same run */
		rk_kv__counts_add(&a->runs[a->last].c, c);
		return;
	}
	const rk_keyviz_layout *l = &a->layout->pub;
	size_t kl = cut_len(len), b;
	rk__kvrun *r = a->nruns ? &a->runs[a->last] : NULL;
	if (r && rk__bytes_cmp(l->start[r->bucket], l->start_len[r->bucket], row, len) <= 0 &&
	    (r->bucket + 1 == l->nbuckets ||
	     rk__bytes_cmp(row, len, l->start[r->bucket + 1], l->start_len[r->bucket + 1]) < 0)) {
		b = r->bucket;
	} else {
		b = rk_kvlayout__find(l, row, len);
		if (!(r = run_of(a, b, row, kl)))
			return;
	}
	a->last = (size_t)a->slot[b];
	rk_kv__counts_add(&r->c, c);
	if (rk__bytes_cmp(row, kl, a->arena + r->min_off, r->min_len) < 0)
		set_key(a, &r->min_off, &r->min_len, &r->min_cap, row, kl);
	else if (rk__bytes_cmp(row, kl, a->arena + r->max_off, r->max_len) > 0)
		set_key(a, &r->max_off, &r->max_len, &r->max_cap, row, kl);
	if (--a->countdown == 0) {
		a->countdown = atomic_load(&a->t->stride);
		if (a->nsamples == a->cap_samples) {
			size_t n = a->cap_samples ? 2 * a->cap_samples : 16;
			uint32_t *o = realloc(a->sample_off, n * sizeof *o);
			uint16_t *q = o ? realloc(a->sample_len, n * sizeof *q) : NULL;
			if (o)
				a->sample_off = o;
			if (!q) {
				a->failed = 1;
				return;
			}
			a->sample_len = q;
			a->cap_samples = n;
		}
		a->sample_off[a->nsamples] = put(a, row, kl);
		a->sample_len[a->nsamples++] = (uint16_t)kl;
	}
}

void rk_kvacc__discard(rk__kvacc *a)
{
	for (size_t i = 0; i < a->nruns; i++)
		a->slot[a->runs[i].bucket] = -1;
	rk_kvlayout__unref(a->layout);
	a->layout = NULL;
	a->t = NULL;
	a->nruns = a->alen = a->nsamples = 0;
	a->failed = 0;
}

void rk_kvacc__commit(rk__kvacc *a, int64_t now_ms)
{
	rk__kvt *t = a->t;
	if (!t || a->failed) {
		rk_kvacc__discard(a);
		return;
	}
	pthread_mutex_lock(&t->mu);
	rk_kvt__roll(t, now_ms);
	if (buckets(t) == 0) {
		int same = a->layout == t->layout;
		for (size_t i = 0; i < a->nruns; i++) {
			const rk__kvrun *r = &a->runs[i];
			const uint8_t *k0 = a->arena + r->min_off, *k1 = a->arena + r->max_off;
			size_t b = same ? r->bucket : rk_kvlayout__find(&t->layout->pub, k0, r->min_len);
			add_to_bucket(t, b, &r->c, k0, r->min_len, k1, r->max_len);
		}
		for (size_t i = 0; i < a->nsamples; i++)
			sample(t, a->arena + a->sample_off[i], a->sample_len[i]);
	}
	pthread_mutex_unlock(&t->mu);
	rk_kvacc__discard(a);
}

void rk_kvacc__fini(rk__kvacc *a)
{
	rk_kvlayout__unref(a->layout);
	free(a->runs);
	free(a->slot);
	free(a->arena);
	free(a->sample_off);
	free(a->sample_len);
	memset(a, 0, sizeof *a);
}
