/*
 * Query execution (query.h): the ordered scatter-gather read.
 *
 * A plan's ranges are grouped into streams, one per salt bucket (or one in
 * all when the design has no buckets); a stream reads its ranges in key
 * order. Each stream runs in its own thread and hands copied rows to the
 * consumer through a small ring (RING rows), so memory is constant per
 * stream whatever the result size. The consumer merges the stream heads with
 * a binary heap on the logical key (the row key without the design's
 * bucket prefix; ties broken by the whole key), or, unordered, takes rows
 * from whichever stream has one. Keys are decoded, the residual predicate is
 * applied, then the limit.
 *
 * Point-get plans read their keys in logical order, one rk_table_get each.
 */
#include <rowkey/query.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"

#define RING 128 /* rows in flight per stream */
#define BATCH 32 /* rows handed over per lock */
#define MAX_STREAMS 256

/* ---- row copies ---- */

/* One allocation holding the row, its cells and every byte they point to. */
static rk_row *row_dup(const rk_row *r)
{
	size_t n = sizeof(rk_row) + r->ncells * sizeof(rk_cell) + r->key_len;
	for (size_t i = 0; i < r->ncells; i++)
		n += strlen(r->cells[i].family) + 1 + r->cells[i].qualifier_len + r->cells[i].value_len;
	rk_row *d = malloc(n);
	if (!d)
		return NULL;
	rk_cell *cells = (rk_cell *)(d + 1);
	uint8_t *p = (uint8_t *)(cells + r->ncells);
	memcpy(p, r->key, r->key_len);
	d->key = p;
	d->key_len = r->key_len;
	p += r->key_len;
	for (size_t i = 0; i < r->ncells; i++) {
		const rk_cell *c = &r->cells[i];
		size_t fl = strlen(c->family) + 1;
		cells[i] = *c;
		memcpy(p, c->family, fl);
		cells[i].family = (const char *)p;
		p += fl;
		memcpy(p, c->qualifier, c->qualifier_len);
		cells[i].qualifier = p;
		p += c->qualifier_len;
		memcpy(p, c->value, c->value_len);
		cells[i].value = p;
		p += c->value_len;
	}
	d->cells = cells;
	d->ncells = r->ncells;
	return d;
}

/* ---- streams ---- */

typedef struct stream {
	rk_query *q;
	const rk_key_range **ranges; /* in key order */
	size_t nranges;
	pthread_t thread;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t not_empty, not_full;
	rk_row *ring[RING];
	size_t head, count;
	int producer_waiting, consumer_waiting;
	rk_row *local[RING]; /* the consumer's side: rows taken in one go */
	size_t lhead, lcount;
	int done;  /* producer finished */
	int rc;    /* producer's error */
	char err[512];
	rk_row *cur; /* the row at the head of the merge (owned) */
} stream;

struct rk_query {
	rk_table *table;
	const rk_schema *schema;
	const rk_plan *plan;
	const rk_predicate *pred;
	rk_query_options opts;
	rk_encoder *enc;
	rk_value *fields;
	stream *streams;
	size_t nstreams;
	stream **heap;
	size_t nheap;
	int heap_ready;
	int cancel;
	uint64_t returned, read;
	rk_row *last;      /* the row handed out last (owned) */
	size_t next_get;   /* GETS plans */
	const rk_key_range **gets;
	uint64_t per_stream_limit;
	const rk_key_range **range_list; /* the streams' ranges, in plan order */
};

/* Hands the producer's batch to the ring (one lock per batch). Returns 0,
 * or RK_EITEROVER when the query was closed. */
static int stream_push(stream *st, rk_row **batch, size_t *nb)
{
	rk_query *q = st->q;
	pthread_mutex_lock(&st->mu);
	while (RING - st->count < *nb && !__atomic_load_n(&q->cancel, __ATOMIC_ACQUIRE)) {
		st->producer_waiting = 1;
		pthread_cond_wait(&st->not_full, &st->mu);
	}
	st->producer_waiting = 0;
	if (__atomic_load_n(&q->cancel, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&st->mu);
		return RK_EITEROVER;
	}
	for (size_t i = 0; i < *nb; i++)
		st->ring[(st->head + st->count + i) % RING] = batch[i];
	st->count += *nb;
	*nb = 0;
	if (__atomic_load_n(&st->consumer_waiting, __ATOMIC_ACQUIRE))
		pthread_cond_signal(&st->not_empty);
	pthread_mutex_unlock(&st->mu);
	return 0;
}

static void *stream_main(void *arg)
{
	stream *st = arg;
	rk_query *q = st->q;
	rk_row *batch[BATCH];
	size_t nb = 0;
	int rc = 0;
	for (size_t i = 0; i < st->nranges && rc == 0; i++) {
		size_t ri = q->opts.reverse ? st->nranges - 1 - i : i;
		const rk_key_range *r = st->ranges[ri];
		rk_scan_options so = RK_SCAN_OPTIONS_INIT;
		so.start = r->start;
		so.start_len = r->start_len;
		so.stop = r->stop;
		so.stop_len = r->stop ? r->stop_len : 0;
		so.reverse = q->opts.reverse;
		so.limit = q->per_stream_limit;
		so.read = q->opts.read;
		rk_scan *sc = NULL;
		if ((rc = rk_scan_open(&sc, q->table, &so)) < 0)
			break;
		const rk_row *row;
		while ((rc = rk_scan_next(&row, sc)) == 0) {
			if (!(batch[nb] = row_dup(row))) {
				rc = rk__err(RK_ENOMEM, "out of memory copying a row");
				break;
			}
			/* a full batch, or a consumer waiting for this stream: hand over now */
			if (++nb == BATCH || __atomic_load_n(&st->consumer_waiting, __ATOMIC_ACQUIRE)) {
				if ((rc = stream_push(st, batch, &nb)) < 0)
					break;
			}
		}
		rk_scan_close(sc);
		if (rc == RK_EITEROVER)
			rc = __atomic_load_n(&q->cancel, __ATOMIC_ACQUIRE) ? RK_EITEROVER : 0;
	}
	if (rc == 0 && nb)
		rc = stream_push(st, batch, &nb);
	for (size_t i = 0; i < nb; i++)
		free(batch[i]);
	pthread_mutex_lock(&st->mu);
	st->done = 1;
	st->rc = rc == RK_EITEROVER ? 0 : rc;
	if (rc < 0 && rc != RK_EITEROVER)
		snprintf(st->err, sizeof st->err, "%s", rk_error_last());
	pthread_cond_broadcast(&st->not_empty);
	pthread_mutex_unlock(&st->mu);
	return NULL;
}

/* Takes the next row of a stream: 0 and *out, RK_EITEROVER, or its error.
 * `wait` 0 returns RK_EBUSY instead of blocking. Rows move from the ring to
 * the consumer's side all at once, so most calls take no lock. */
static int stream_take(rk_row **out, stream *st, int wait)
{
	if (st->lcount) {
		*out = st->local[st->lhead];
		st->lhead = (st->lhead + 1) % RING;
		st->lcount--;
		return 0;
	}
	pthread_mutex_lock(&st->mu);
	while (st->count == 0 && !st->done) {
		if (!wait) {
			pthread_mutex_unlock(&st->mu);
			return RK_EBUSY;
		}
		__atomic_store_n(&st->consumer_waiting, 1, __ATOMIC_RELEASE);
		pthread_cond_wait(&st->not_empty, &st->mu);
		__atomic_store_n(&st->consumer_waiting, 0, __ATOMIC_RELEASE);
	}
	int rc = 0;
	if (st->count) {
		st->lhead = 0;
		st->lcount = st->count;
		for (size_t i = 0; i < st->count; i++)
			st->local[i] = st->ring[(st->head + i) % RING];
		st->head = (st->head + st->count) % RING;
		st->count = 0;
		if (st->producer_waiting)
			pthread_cond_signal(&st->not_full);
		*out = st->local[0];
		st->lhead = 1;
		st->lcount--;
	} else if (st->rc < 0) {
		rc = rk__err(st->rc, "%s", st->err);
	} else {
		rc = RK_EITEROVER;
	}
	pthread_mutex_unlock(&st->mu);
	return rc;
}

/* ---- the merge heap ---- */

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}

/* Logical order: the key without its bucket prefix, then the whole key. */
static int logical_cmp(const rk_query *q, const rk_row *a, const rk_row *b)
{
	size_t p = q->plan->prefix_len;
	size_t ap = a->key_len < p ? a->key_len : p, bp = b->key_len < p ? b->key_len : p;
	int c = key_cmp(a->key + ap, a->key_len - ap, b->key + bp, b->key_len - bp);
	if (!c)
		c = key_cmp(a->key, a->key_len, b->key, b->key_len);
	return q->opts.reverse ? -c : c;
}

static void heap_down(rk_query *q, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < q->nheap && logical_cmp(q, q->heap[l]->cur, q->heap[m]->cur) < 0)
			m = l;
		if (r < q->nheap && logical_cmp(q, q->heap[r]->cur, q->heap[m]->cur) < 0)
			m = r;
		if (m == i)
			return;
		stream *t = q->heap[i];
		q->heap[i] = q->heap[m];
		q->heap[m] = t;
		i = m;
	}
}

static int heap_init(rk_query *q)
{
	q->nheap = 0;
	for (size_t i = 0; i < q->nstreams; i++) {
		stream *st = &q->streams[i];
		int rc = stream_take(&st->cur, st, 1);
		if (rc == RK_EITEROVER)
			continue;
		if (rc < 0)
			return rc;
		q->heap[q->nheap++] = st;
	}
	for (size_t i = q->nheap / 2; i-- > 0;)
		heap_down(q, i);
	q->heap_ready = 1;
	return 0;
}

/* The next merged row (owned by the caller). */
static int merged_next(rk_row **out, rk_query *q)
{
	int rc;
	if (!q->heap_ready && (rc = heap_init(q)) < 0)
		return rc;
	if (q->nheap == 0)
		return RK_EITEROVER;
	stream *top = q->heap[0];
	*out = top->cur;
	top->cur = NULL;
	rc = stream_take(&top->cur, top, 1);
	if (rc == RK_EITEROVER) {
		q->heap[0] = q->heap[--q->nheap];
	} else if (rc < 0) {
		free(*out);
		*out = NULL;
		return rc;
	}
	heap_down(q, 0);
	return 0;
}

/* Unordered: whichever stream has a row; block only when none has. */
static int unordered_next(rk_row **out, rk_query *q)
{
	for (;;) {
		int live = 0;
		for (size_t i = 0; i < q->nstreams; i++) {
			int rc = stream_take(out, &q->streams[i], 0);
			if (rc == 0)
				return 0;
			if (rc == RK_EBUSY) {
				live++;
				continue;
			}
			if (rc != RK_EITEROVER)
				return rc;
		}
		if (!live)
			return RK_EITEROVER;
		/* wait on the first live stream */
		for (size_t i = 0; i < q->nstreams; i++) {
			int rc = stream_take(out, &q->streams[i], 1);
			if (rc == 0)
				return 0;
			if (rc != RK_EITEROVER)
				return rc;
		}
	}
}

/* ---- gets ---- */

static int gets_cmp_q(const rk_query *q, const rk_key_range *a, const rk_key_range *b)
{
	size_t p = q->plan->prefix_len;
	size_t ap = a->start_len < p ? a->start_len : p, bp = b->start_len < p ? b->start_len : p;
	int c = key_cmp(a->start + ap, a->start_len - ap, b->start + bp, b->start_len - bp);
	if (!c)
		c = key_cmp(a->start, a->start_len, b->start, b->start_len);
	return q->opts.reverse ? -c : c;
}

static void sort_gets(rk_query *q)
{
	/* insertion sort into logical order: plans hold at most 65536 keys and
	   are usually tiny; a simple stable sort keeps this obvious */
	for (size_t i = 1; i < q->plan->nranges; i++) {
		const rk_key_range *k = q->gets[i];
		size_t j = i;
		while (j > 0 && gets_cmp_q(q, q->gets[j - 1], k) > 0) {
			q->gets[j] = q->gets[j - 1];
			j--;
		}
		q->gets[j] = k;
	}
}

static int get_next(rk_row **out, rk_query *q)
{
	while (q->next_get < q->plan->nranges) {
		const rk_key_range *k = q->gets[q->next_get++];
		rk_row *row = NULL;
		int rc = rk_table_get(&row, q->table, k->start, k->start_len, &q->opts.read);
		if (rc == RK_ENOTFOUND)
			continue;
		if (rc < 0)
			return rc;
		*out = row_dup(row);
		rk_row_free(row);
		return *out ? 0 : rk__err(RK_ENOMEM, "out of memory copying a row");
	}
	return RK_EITEROVER;
}

/* ---- public ---- */

int rk_query_open(rk_query **out, rk_table *table, const rk_schema *schema, const rk_plan *plan,
                  const rk_predicate *pred, const rk_query_options *opts)
{
	rk_query_options defaults = RK_QUERY_OPTIONS_INIT;
	rk_query *q = calloc(1, sizeof *q);
	int rc;
	if (!q)
		return rk__err(RK_ENOMEM, "out of memory starting a query");
	q->table = table;
	q->schema = schema;
	q->plan = plan;
	q->pred = pred;
	q->opts = opts ? *opts : defaults;
	q->fields = calloc(rk_schema_nfields(schema) + 1, sizeof *q->fields);
	if (!q->fields) {
		rc = rk__err(RK_ENOMEM, "out of memory starting a query");
		goto fail;
	}
	if ((rc = rk_encoder_new(&q->enc, schema, 1)) < 0)
		goto fail;
	if (plan->kind == RK_PLAN_GETS) {
		q->gets = malloc((plan->nranges + 1) * sizeof *q->gets);
		if (!q->gets) {
			rc = rk__err(RK_ENOMEM, "out of memory starting a query");
			goto fail;
		}
		for (size_t i = 0; i < plan->nranges; i++)
			q->gets[i] = &plan->ranges[i];
		sort_gets(q);
		*out = q;
		return 0;
	}
	/* streams: one per bucket when merging, else one for all ranges */
	size_t ns = 1;
	int by_bucket = plan->merge && !q->opts.unordered;
	if (plan->merge) {
		ns = 0;
		for (size_t i = 0; i < plan->nranges; i++)
			if (i == 0 || plan->ranges[i].bucket != plan->ranges[i - 1].bucket)
				ns++;
	}
	if (ns > MAX_STREAMS) {
		if (by_bucket) {
			rc = rk__err(RK_EINVALID, "an ordered read over %zu buckets needs %zu streams (at most %d); read unordered",
			             ns, ns, MAX_STREAMS);
			goto fail;
		}
		ns = 1;
	}
	q->streams = calloc(ns, sizeof *q->streams);
	q->heap = calloc(ns, sizeof *q->heap);
	const rk_key_range **rl = q->range_list = malloc((plan->nranges + 1) * sizeof *rl);
	if (!q->streams || !q->heap || !rl) {
		rc = rk__err(RK_ENOMEM, "out of memory starting a query");
		goto fail;
	}
	q->nstreams = ns;
	for (size_t i = 0; i < plan->nranges; i++)
		rl[i] = &plan->ranges[i];
	size_t s = 0;
	for (size_t i = 0; i < plan->nranges; i++) {
		if (ns > 1 && i > 0 && plan->ranges[i].bucket != plan->ranges[i - 1].bucket)
			s++;
		if (q->streams[s].nranges == 0)
			q->streams[s].ranges = rl + i;
		q->streams[s].nranges++;
	}
	/* without a residual filter, no stream needs more rows than the limit */
	q->per_stream_limit = plan->residual ? 0 : q->opts.limit;
	for (size_t i = 0; i < ns; i++) {
		stream *st = &q->streams[i];
		st->q = q;
		pthread_mutex_init(&st->mu, NULL);
		pthread_cond_init(&st->not_empty, NULL);
		pthread_cond_init(&st->not_full, NULL);
	}
	for (size_t i = 0; i < ns; i++) {
		if (pthread_create(&q->streams[i].thread, NULL, stream_main, &q->streams[i]) != 0) {
			rc = rk__err(RK_EIO, "cannot start a scan thread");
			goto fail;
		}
		q->streams[i].started = 1;
	}
	*out = q;
	return 0;
fail:
	rk_query_close(q);
	return rc;
}

int rk_query_next(rk_query_row *out, rk_query *q)
{
	free(q->last);
	q->last = NULL;
	if (q->opts.limit && q->returned >= q->opts.limit)
		return RK_EITEROVER;
	for (;;) {
		rk_row *row = NULL;
		int rc;
		if (q->plan->kind == RK_PLAN_GETS)
			rc = get_next(&row, q);
		else if (q->plan->merge && !q->opts.unordered)
			rc = merged_next(&row, q);
		else
			rc = unordered_next(&row, q);
		if (rc < 0)
			return rc;
		q->read++;
		if ((rc = rk_key_decode(q->fields, q->enc, row->key, row->key_len)) < 0) {
			char b[160];
			rc = rk__err(RK_ECORRUPT, "row '%s' does not decode under the schema: %s",
			             rk__err_bytes(b, sizeof b, row->key, row->key_len), rk_error_last());
			free(row);
			return rc;
		}
		if (q->plan->residual && q->pred && !rk_predicate_match(q->pred, q->fields)) {
			free(row);
			continue;
		}
		q->last = row;
		q->returned++;
		out->row = row;
		out->fields = q->fields;
		return 0;
	}
}

uint64_t rk_query_rows_read(const rk_query *q)
{
	return q->read;
}

void rk_query_close(rk_query *q)
{
	if (!q)
		return;
	__atomic_store_n(&q->cancel, 1, __ATOMIC_RELEASE);
	for (size_t i = 0; i < q->nstreams; i++) {
		stream *st = &q->streams[i];
		if (!st->q)
			continue;
		pthread_mutex_lock(&st->mu);
		pthread_cond_broadcast(&st->not_full);
		pthread_mutex_unlock(&st->mu);
	}
	for (size_t i = 0; i < q->nstreams; i++) {
		stream *st = &q->streams[i];
		if (st->started)
			pthread_join(st->thread, NULL);
		if (st->q) {
			for (size_t k = 0; k < st->count; k++)
				free(st->ring[(st->head + k) % RING]);
			for (size_t k = 0; k < st->lcount; k++)
				free(st->local[(st->lhead + k) % RING]);
			free(st->cur);
			pthread_mutex_destroy(&st->mu);
			pthread_cond_destroy(&st->not_empty);
			pthread_cond_destroy(&st->not_full);
		}
	}
	free(q->range_list);
	free(q->streams);
	free(q->heap);
	free(q->gets);
	free(q->last);
	free(q->fields);
	rk_encoder_free(q->enc);
	free(q);
}
