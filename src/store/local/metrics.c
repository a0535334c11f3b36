/*
 * Bucketed load counters (see metrics.h). The analyzer and the heatmap read
 * the file these buckets are dumped to (docs/formats.md B.3).
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

/* ---- carrying an earlier file ---- */

typedef struct mrec {
	char tag; /* 'r' or 's' */
	uint64_t id;
	int64_t start;
	uint64_t width; /* 0: the file's bucket width */
	uint64_t v[RK_M_N];
} mrec;

typedef struct tbuf {
	char *p;
	size_t len, cap;
	int failed;
} tbuf;

static void tput(tbuf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 4096;
		while (c < b->len + n + 1)
			c *= 2;
		char *q = realloc(b->p, c);
		if (!q) {
			b->failed = 1;
			return;
		}
		b->p = q;
		b->cap = c;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

/* One decimal field ending at a tab or at end (the line's end); 0 or -1. */
static int field_u64(const char **p, const char *end, uint64_t *out, int last)
{
	const char *q = *p;
	uint64_t v = 0;
	if (q >= end || *q < '0' || *q > '9')
		return -1;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		if (v > (UINT64_MAX - (uint64_t)(*q - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*q - '0');
	}
	if (q < end && *q != '\t')
		return -1;
	if (last && q < end)
		return -1;
	*out = v;
	*p = q < end ? q + 1 : q;
	return 0;
}

/* Parses "r|s \t id \t start \t w \t r \t bw \t br [\t width]" (no newline). */
static int parse_rec(mrec *m, const char *p, const char *end)
{
	uint64_t start;
	memset(m, 0, sizeof *m);
	m->tag = p[0];
	p += 2;
	if (field_u64(&p, end, &m->id, 0) || field_u64(&p, end, &start, 0) ||
	    start > (uint64_t)INT64_MAX)
		return -1;
	m->start = (int64_t)start;
	for (int i = 0; i < RK_M_N; i++)
		if (field_u64(&p, end, &m->v[i], 0))
			return -1;
	if (p < end && (field_u64(&p, end, &m->width, 1) || m->width == 0))
		return -1;
	return p == end && (end[-1] != '\t') ? 0 : -1;
}

static int rec_cmp(const void *a, const void *b)
{
	const mrec *x = a, *y = b;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Merges the sorted records into buckets of width w; returns the count. */
static size_t roll_up(mrec *r, size_t n, uint64_t w)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		mrec m = r[i];
		m.start -= (int64_t)((uint64_t)m.start % w);
		m.width = w;
		if (k && r[k - 1].tag == m.tag && r[k - 1].id == m.id && r[k - 1].start == m.start) {
			for (int j = 0; j < RK_M_N; j++)
				r[k - 1].v[j] = add_sat(r[k - 1].v[j], m.v[j]);
		} else {
			r[k++] = m;
		}
	}
	return k;
}

/* How many records a roll-up to width w would leave (r sorted). */
static size_t count_at(const mrec *r, size_t n, uint64_t w)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t s = r[i].start - (int64_t)((uint64_t)r[i].start % w);
		int64_t p = i ? r[i - 1].start - (int64_t)((uint64_t)r[i - 1].start % w) : 0;
		if (!i || r[i - 1].tag != r[i].tag || r[i - 1].id != r[i].id || p != s)
			k++;
	}
	return k;
}

int rk_metrics__carry(char **out, size_t *out_len, const char *text, size_t n,
                      unsigned bucket_ms, size_t max_records)
{
	tbuf b = {NULL, 0, 0, 0};
	mrec *recs = NULL;
	size_t nrec = 0, cap = 0;
	uint64_t width = bucket_ms ? bucket_ms : 1, wmax = width;
	*out = NULL;
	*out_len = 0;
	tput(&b, "", 0);
	for (const char *p = text, *e = text + n; p < e;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		if (!nl)
			break; /* unterminated: not a record of ours */
		size_t len = (size_t)(nl - p);
		if (len >= 7 && !strncmp(p, "region\t", 7) && !memchr(p, 0, len)) {
			tput(&b, p, len + 1);
		} else if (len >= 2 && (p[0] == 'r' || p[0] == 's') && p[1] == '\t') {
			mrec m;
			if (parse_rec(&m, p, nl) == 0) {
				if (nrec == cap) {
					size_t c = cap ? 2 * cap : 1024;
					mrec *q = realloc(recs, c * sizeof *q);
					if (!q)
						goto nomem;
					recs = q;
					cap = c;
				}
				if (m.width > wmax)
					wmax = m.width;
				recs[nrec++] = m;
			}
		}
		p = nl + 1;
	}
	if (max_records < 2)
		max_records = 2;
	if (nrec > max_records) {
		qsort(recs, nrec, sizeof *recs, rec_cmp);
		uint64_t w = width;
		while (w < wmax)
			w = w > UINT64_MAX / 4 ? UINT64_MAX : w * 4;
		while (count_at(recs, nrec, w) > max_records / 2 && w <= UINT64_MAX / 4)
			w *= 4;
		nrec = roll_up(recs, nrec, w);
	}
	for (size_t i = 0; i < nrec; i++) {
		char line[200];
		const mrec *m = &recs[i];
		int k = snprintf(line, sizeof line,
		                 "%c\t%" PRIu64 "\t%" PRId64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
		                 "\t%" PRIu64,
		                 m->tag, m->id, m->start, m->v[0], m->v[1], m->v[2], m->v[3]);
		if (m->width)
			k += snprintf(line + k, sizeof line - (size_t)k, "\t%" PRIu64, m->width);
		line[k++] = '\n';
		tput(&b, line, (size_t)k);
	}
	free(recs);
	if (b.failed)
		goto nomem_b;
	*out = b.p;
	*out_len = b.len;
	return 0;
nomem:
	free(recs);
nomem_b:
	free(b.p);
	return rk__err(RK_ENOMEM, "out of memory reading the metrics file");
}
