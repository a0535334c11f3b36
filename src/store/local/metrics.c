/*
 * Bucketed load counters (see metrics.h). The analyzer and the heatmap read
 * the file these buckets are dumped to (docs/formats.md B.3).
 */
#include "store/local/metrics.h"

#include <inttypes.h>
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

void rk_metrics__add(rk__metrics *m, int64_t now_ms, unsigned bucket_ms, uint64_t writes,
                     uint64_t reads, uint64_t bw, uint64_t br)
{
	int64_t start = now_ms - now_ms % (int64_t)bucket_ms;
	if (atomic_load_explicit(&m->cur_start, memory_order_acquire) != start) {
		pthread_mutex_lock(&m->mu);
		if (atomic_load(&m->cur_start) != start) {
			retire(m);
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

int rk_metrics__dump(rk__metrics *m, FILE *f, const char *tag, uint64_t id)
{
	pthread_mutex_lock(&m->mu);
	retire(m);
	atomic_store(&m->cur_start, -1);
	for (size_t i = 0; i < m->nhist; i++) {
		const rk__mbucket *b = &m->hist[i];
		fprintf(f, "%s\t%" PRIu64 "\t%" PRId64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
		        tag, id, b->start_ms, b->v[0], b->v[1], b->v[2], b->v[3]);
	}
	pthread_mutex_unlock(&m->mu);
	return ferror(f) ? rk__err(RK_EIO, "writing metrics failed") : 0;
}
