/*
 * Bucketed load counters (see metrics.h), and the roll-up that bounds the
 * buckets carried from earlier runs (docs/formats.md B.3).
 */
#include "store/local/metrics.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "key/error.h"

int64_t rk_metrics__now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void rk_metrics__init(rk__metrics *m)
{
	memset(m, 0, sizeof *m);
	atomic_init(&m->cur_start, -1);
	atomic_init(&m->cur_server, 0);
	for (int i = 0; i < RK_M_N; i++) {
		atomic_init(&m->cur[i], 0);
		atomic_init(&m->total[i], 0);
	}
	pthread_mutex_init(&m->mu, NULL);
}

void rk_metrics__fini(rk__metrics *m)
{
	pthread_mutex_destroy(&m->mu);
	free(m->hist);
	m->hist = NULL;
}

/* Moves the current bucket into the history (called with mu held). */
static void retire(rk__metrics *m)
{
	rk__mbucket b;
	int any = 0;
	b.start_ms = atomic_load(&m->cur_start);
	b.server = atomic_load(&m->cur_server);
	for (int i = 0; i < RK_M_N; i++) {
		b.v[i] = atomic_exchange(&m->cur[i], 0);
		any |= b.v[i] != 0;
	}
	if (!any || b.start_ms < 0)
		return;
	if (m->nhist == m->cap) {
		size_t n = m->cap ? m->cap * 2 : 64;
		rk__mbucket *h = realloc(m->hist, n * sizeof *h);
		if (!h)
			return; /* metrics are best effort: drop the bucket, keep totals */
		m->hist = h;
		m->cap = n;
	}
	m->hist[m->nhist++] = b;
}

void rk_metrics__add(rk__metrics *m, int64_t now_ms, unsigned bucket_ms, unsigned server,
                     uint64_t writes, uint64_t reads, uint64_t bw, uint64_t br)
{
	int64_t start = now_ms - now_ms % (int64_t)bucket_ms;
	if (atomic_load_explicit(&m->cur_start, memory_order_acquire) != start ||
	    atomic_load_explicit(&m->cur_server, memory_order_relaxed) != server) {
		pthread_mutex_lock(&m->mu);
		if (atomic_load(&m->cur_start) != start || atomic_load(&m->cur_server) != server) {
			retire(m);
			atomic_store(&m->cur_server, server);
			atomic_store(&m->cur_start, start);
		}
		pthread_mutex_unlock(&m->mu);
	}
	uint64_t v[RK_M_N] = {writes, reads, bw, br};
	for (int i = 0; i < RK_M_N; i++) {
		if (!v[i])
			continue;
		atomic_fetch_add_explicit(&m->cur[i], v[i], memory_order_relaxed);
		atomic_fetch_add_explicit(&m->total[i], v[i], memory_order_relaxed);
	}
}

int rk_metrics__buckets(rk__metrics *m, unsigned bucket_ms, rk_metrics_bucket **b, size_t *n,
                        size_t *cap)
{
	int rc = 0;
	pthread_mutex_lock(&m->mu);
	size_t need = *n + m->nhist + 1;
	if (need > *cap) {
		size_t c = *cap ? *cap : 64;
		while (c < need)
			c *= 2;
		rk_metrics_bucket *q = realloc(*b, c * sizeof *q);
		if (!q) {
			rc = rk__err(RK_ENOMEM, "out of memory reading the metrics");
			goto out;
		}
		*b = q;
		*cap = c;
	}
	for (size_t i = 0; i < m->nhist; i++) {
		const rk__mbucket *h = &m->hist[i];
		(*b)[(*n)++] = (rk_metrics_bucket){h->start_ms, bucket_ms, h->server,
		                                   {h->v[0], h->v[1], h->v[2], h->v[3]}};
	}
	int64_t cur = atomic_load(&m->cur_start);
	rk_metrics_counts c = {atomic_load(&m->cur[0]), atomic_load(&m->cur[1]),
	                       atomic_load(&m->cur[2]), atomic_load(&m->cur[3])};
	if (cur >= 0 && (c.writes || c.reads || c.bytes_written || c.bytes_read))
		(*b)[(*n)++] = (rk_metrics_bucket){cur, bucket_ms, atomic_load(&m->cur_server), c};
out:
	pthread_mutex_unlock(&m->mu);
	return rc;
}

/* ---- rolling up old buckets ---- */

/* How many buckets a roll-up of s to width w would leave (s sorted). */
static size_t count_at(const rk_metrics_series *s, uint64_t w)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		int64_t a = s->b[i].start_ms - (int64_t)((uint64_t)s->b[i].start_ms % w);
		int64_t p = i ? s->b[i - 1].start_ms - (int64_t)((uint64_t)s->b[i - 1].start_ms % w) : 0;
		k += !i || p != a;
	}
	return k;
}

static int by_start_server(const void *x, const void *y)
{
	const rk_metrics_bucket *a = x, *b = y;
	if (a->start_ms != b->start_ms)
		return a->start_ms < b->start_ms ? -1 : 1;
	return (a->server > b->server) - (a->server < b->server);
}

/* Merges s's buckets into buckets of width w (in place), a bucket per
 * server that held the region in it. */
static void roll_up(rk_metrics_series *s, uint64_t w)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		s->b[i].start_ms -= (int64_t)((uint64_t)s->b[i].start_ms % w);
		s->b[i].width_ms = w;
	}
	qsort(s->b, s->n, sizeof *s->b, by_start_server);
	for (size_t i = 0; i < s->n; i++) {
		if (k && s->b[k - 1].start_ms == s->b[i].start_ms && s->b[k - 1].server == s->b[i].server)
			rk_metrics__counts_add(&s->b[k - 1].c, &s->b[i].c);
		else
			s->b[k++] = s->b[i];
	}
	s->n = k;
}

void rk_metrics__rollup(rk_metrics *m, size_t max_records)
{
	rk_metrics_series *all[2] = {m->region_load, m->server_load};
	size_t cnt[2] = {m->nregion_load, m->nserver_load}, n = 0;
	uint64_t w = m->bucket_ms ? m->bucket_ms : 1, wmax = w;
	for (int t = 0; t < 2; t++)
		for (size_t i = 0; i < cnt[t]; i++) {
			n += all[t][i].n;
			for (size_t j = 0; j < all[t][i].n; j++)
				wmax = all[t][i].b[j].width_ms > wmax ? all[t][i].b[j].width_ms : wmax;
		}
	if (max_records < 2)
		max_records = 2;
	if (n <= max_records)
		return;
	while (w < wmax)
		w = w > UINT64_MAX / 4 ? UINT64_MAX : w * 4;
	for (;;) {
		size_t k = 0;
		for (int t = 0; t < 2; t++)
			for (size_t i = 0; i < cnt[t]; i++)
				k += count_at(&all[t][i], w);
		if (k <= max_records / 2 || w > UINT64_MAX / 4)
			break;
		w *= 4;
	}
	for (int t = 0; t < 2; t++)
		for (size_t i = 0; i < cnt[t]; i++)
			roll_up(&all[t][i], w);
}
