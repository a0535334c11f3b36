/*
 * Counting key buckets (keyviz.h): the open interval's counters of a table,
 * and the runs that carry a batch's rows to them.
 *
 * A writing thread groups its batch's rows into runs, one per bucket of the
 * layout it took when the batch began, and copies one row in `stride` as a
 * sample. The runs reach the table once per batch, under its mutex: the
 * region server's writer adds them after the engine applied the batch. When
 * the open interval changed its layout meanwhile, a run goes to the bucket
 * of the first key its batch put there, or of the layout's bucket start.
 * A table's counters are made and freed in keyviz_table.c.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "key/bytes.h"
#include "key/error.h"
#include "store/local/keyviz_count.h"
#include "store/local/metrics.h"

/* a key cut to RK_KV_KEY_MAX: bucket boundaries keep at most that much */
static inline size_t cut_len(size_t len)
{
	return len > RK_KV_KEY_MAX ? RK_KV_KEY_MAX : len;
}

/* plain sums: 2^64 rows or bytes are not reached */
static inline void add4(rk_metrics_counts *a, const rk_metrics_counts *b)
{
	a->writes += b->writes;
	a->reads += b->reads;
	a->bytes_written += b->bytes_written;
	a->bytes_read += b->bytes_read;
}

static void add_to_bucket(rk__kvt *t, size_t i, const rk_metrics_counts *c)
{
	add4(&t->b[i], c);
	t->rows += c->writes + c->reads;
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

void rk_kvt__count(rk__kvt *t, int64_t now_ms, const uint8_t *row, size_t len,
                   const rk_metrics_counts *c)
{
	pthread_mutex_lock(&t->mu);
	rk_kvt__roll(t, now_ms);
	if (rk_kvt__buckets(t) == 0) {
		add_to_bucket(t, rk_kvlayout__find_fast(t->layout, row, len), c);
		if (--t->countdown == 0) {
			sample(t, row, cut_len(len));
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

static int begin(rk__kvacc *a, rk__kvt *t)
{
	pthread_mutex_lock(&t->mu);
	rk_kvt__roll(t, rk_metrics__now_ms()); /* its buckets are the current interval's */
	a->layout = rk_kvlayout__ref(t->layout);
	a->until = t->cur_start + (int64_t)t->width_ms;
	uint32_t stride = atomic_load(&t->stride);
	pthread_mutex_unlock(&t->mu);
	a->t = t;
	a->countdown = 1 + rnd() % stride;
	memset(a->hint, 0, sizeof a->hint); /* bucket numbers of this layout only */
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

static void take_sample(rk__kvacc *a, const uint8_t *row, size_t len)
{
	a->countdown = atomic_load(&a->t->stride);
	if (a->nsamples == a->cap_samples) {
		size_t n = a->cap_samples ? 2 * a->cap_samples : 16;
		uint8_t *k = realloc(a->skeys, n * RK_KV_KEY_MAX);
		uint16_t *q = k ? realloc(a->slen, n * sizeof *q) : NULL;
		if (k)
			a->skeys = k;
		if (!q) {
			a->failed = 1;
			return;
		}
		a->slen = q;
		a->cap_samples = n;
	}
	memcpy(a->skeys + a->nsamples * RK_KV_KEY_MAX, row, cut_len(len));
	a->slen[a->nsamples++] = (uint16_t)cut_len(len);
}

void rk_kvacc__row(rk__kvacc *a, rk__kvt *t, const uint8_t *row, size_t len,
                   const rk_metrics_counts *c, int continues)
{
	if (a->failed || (!a->t && begin(a, t)))
		return;
	if (continues && a->nruns) { /* the previous row's cells: same run */
		add4(&a->runs[a->last].c, c);
		return;
	}
	/* the bucket the last row with this first byte fell in, or a search */
	const rk_keyviz_layout *l = &a->layout->pub;
	size_t b = len ? a->hint[row[0]] : 0;
	if (!b-- || rk__bytes_cmp(l->start[b], l->start_len[b], row, len) > 0 ||
	    (b + 1 < l->nbuckets && rk__bytes_cmp(row, len, l->start[b + 1], l->start_len[b + 1]) >= 0)) {
		b = rk_kvlayout__find_fast(a->layout, row, len);
		if (len)
			a->hint[row[0]] = (uint16_t)(b + 1);
	}
	/* the first row of the runs has no row before it to compare with */
	int first = a->nruns == 0;
	if (a->slot[b] < 0) {
		if (a->nruns == a->cap_runs) {
			size_t n = a->cap_runs ? a->cap_runs * 2 : 16;
			rk__kvrun *q = realloc(a->runs, n * sizeof *q);
			if (!q) {
				a->failed = 1;
				return;
			}
			a->runs = q;
			a->cap_runs = n;
		}
		a->runs[a->nruns] = (rk__kvrun){b, {0}};
		a->slot[b] = (int32_t)a->nruns++;
	}
	a->streak = first || a->runs[a->last].bucket == b;
	a->last = (size_t)a->slot[b];
	add4(&a->runs[a->last].c, c);
	if (--a->countdown == 0)
		take_sample(a, row, len);
}

void rk_kvacc__discard(rk__kvacc *a)
{
	for (size_t i = 0; i < a->nruns; i++)
		a->slot[a->runs[i].bucket] = -1;
	rk_kvlayout__unref(a->layout);
	a->layout = NULL;
	a->t = NULL;
	a->nruns = a->nsamples = 0;
	a->failed = a->streak = 0;
}

/* Bucket b of layout old in layout now (an interval closed while the batch
 * was in flight): the last bucket of now reaching into b's range, where
 * new rows go when keys grow (a sequential key's, each salt's), and
 * anywhere in b when the cut did not change there. */
static size_t remap(const rk__kvlayout *now, const rk_keyviz_layout *old, size_t b)
{
	const rk_keyviz_layout *l = &now->pub;
	if (b + 1 >= old->nbuckets)
		return l->nbuckets - 1;
	size_t j = rk_kvlayout__find_fast(now, old->start[b + 1], old->start_len[b + 1]);
	if (j && !rk__bytes_cmp(l->start[j], l->start_len[j], old->start[b + 1], old->start_len[b + 1]))
		j--;
	return j;
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
	if (rk_kvt__buckets(t) == 0) {
		for (size_t i = 0; i < a->nruns; i++) {
			size_t b = a->runs[i].bucket;
			if (a->layout != t->layout)
				b = remap(t->layout, &a->layout->pub, b);
			add_to_bucket(t, b, &a->runs[i].c);
		}
		for (size_t i = 0; i < a->nsamples; i++)
			sample(t, a->skeys + i * RK_KV_KEY_MAX, a->slen[i]);
	}
	pthread_mutex_unlock(&t->mu);
	rk_kvacc__discard(a);
}

void rk_kvacc__fini(rk__kvacc *a)
{
	rk_kvlayout__unref(a->layout);
	free(a->runs);
	free(a->slot);
	free(a->skeys);
	free(a->slen);
	memset(a, 0, sizeof *a);
}
