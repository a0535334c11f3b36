/*
 * Query execution (query.h): the ordered scatter-gather read.
 *
 * Rows come back in logical order (the order of their keys' logical forms,
 * rk_key_logical: the key without its salt, bucket and hash parts; ties by
 * the whole key). The plan lists its gets and ranges in that order and
 * groups the ranges into streams whose ranges never overlap in logical
 * order (key.h, rk_plan). So:
 *
 * - gets are read one after the other in the plan's order;
 * - ranges: each stream runs in its own thread, reads its ranges in the
 *   plan's order (each in key order, which is logical order inside a
 *   range) and hands copied rows, with their logical forms, to the consumer
 *   through a small ring (RING rows), so memory is constant per stream
 *   whatever the result size; the consumer merges the stream heads with a
 *   binary heap;
 * - when rows inside a range are not in logical order (a hash over an
 *   unbound field before a field), or the plan needs more than MAX_STREAMS
 *   streams, the streams' rows go through a sorter (query_sort.c) that
 *   spills sorted runs to temporary files past SORT_BUDGET bytes;
 * - unordered, rows are taken from whichever stream has one.
 *
 * A predicate's ORDER BY (rk_plan.order_by) picks the direction: the plan
 * read forward (KEY) or backward (REVERSE, as `reverse`), or every row
 * sorted by the field's value (SORT: the sorter keyed by the field, then
 * the logical form; query_orderby.c). Its LIMIT joins the options' limit.
 *
 * Keys are decoded, the residual predicate is applied, then the limit.
 */
#include <rowkey/query.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/query_int.h"

#define RING 128 /* rows in flight per stream */
#define BATCH 32 /* rows handed over per lock */
#define MAX_STREAMS 256
#define SORT_BUDGET ((size_t)64 << 20) /* bytes of rows a sort holds in memory */

typedef enum { Q_GETS = 1, Q_MERGE, Q_UNORDERED, Q_SORT } q_mode;

/* ---- streams ---- */

typedef struct stream {
	rk_query *q;
	const rk_key_range **ranges; /* in logical order */
	size_t nranges, cap;
	rk_encoder *enc; /* for the logical forms of its rows (not when unordered) */
	uint8_t *lbuf;
	size_t lcap;
	rk_value *fields; /* merged: its rows' keys decoded here, not by the reader */
	size_t nfields;
	uint64_t strs;    /* bit i: field i is a string or bytes */
	pthread_t thread;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t not_empty, not_full;
	rk__qrow *ring[RING];
	size_t head, count;
	int producer_waiting, consumer_waiting;
	rk__qrow *local[RING]; /* the consumer's side: rows taken in one go */
	size_t lhead, lcount;
	int done;  /* producer finished */
	int rc;    /* producer's error */
	char err[512];
	rk__qrow *cur; /* the row at the head of the merge (owned) */
	uint64_t rows; /* rows it read */
	uint8_t *obuf; /* sorted by the ORDER BY field: its rows' sort keys */
	size_t ocap;
} stream;

struct rk_query {
	rk_table *table;
	const rk_schema *schema;
	const rk_plan *plan;
	const rk_predicate *pred;
	rk_query_options opts;
	q_mode mode;
	rk_encoder *enc;
	rk_value *fields;
	stream *streams;
	size_t nstreams;
	stream **heap;
	size_t nheap;
	int heap_ready;
	int cancel;
	uint64_t returned, read;
	rk__qrow *last;    /* the row handed out last (owned) */
	size_t next_get;   /* Q_GETS */
	uint64_t per_stream_limit;
	rk__qsort *sort;   /* Q_SORT */
	int sorted;        /* Q_SORT: every stream drained into the sorter */
	int by_field;      /* Q_SORT by the ORDER BY field (RK_ORDER_SORT) */
	uint8_t *obuf;     /* by_field over gets: a row's sort key */
};

/* Hands the producer's batch to the ring (one lock per batch). Returns 0,
 * or RK_EITEROVER when the query was closed. */
static int stream_push(stream *st, rk__qrow **batch, size_t *nb)
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

/* A copy of a scanned row with its key's logical form (none unordered)
 * and, merged, its decoded fields: the stream threads decode in parallel,
 * the reader only merges. */
static int stream_copy(rk__qrow **out, stream *st, const rk_row *row)
{
	size_t ll = 0;
	int rc = 0;
	__atomic_fetch_add(&st->q->read, 1, __ATOMIC_RELAXED);
	if (st->obuf) {
		const rk_plan *plan = st->q->plan;
		if ((rc = rk_qorder__key(st->obuf, st->ocap, &ll, st->fields, st->enc, st->q->schema, plan->order_field,
		                         plan->order_desc, row->key, row->key_len)) < 0)
			return rc;
		if (!(*out = rk_qrow__new(row, st->obuf, ll, NULL, 0, 0)))
			return rk__err(RK_ENOMEM, "out of memory copying a row");
		return 0;
	}
	if (st->fields)
		rc = rk_key_decode_logical(st->fields, st->lbuf, st->lcap, &ll, st->enc, row->key, row->key_len);
	else if (st->enc)
		rc = rk_key_logical(st->lbuf, st->lcap, &ll, st->enc, row->key, row->key_len);
	if (rc < 0) {
		char b[160];
		return rk__err(RK_ECORRUPT, "row '%s' does not decode under the schema: %s",
		               rk__err_bytes(b, sizeof b, row->key, row->key_len), rk_error_last());
	}
	if (!(*out = rk_qrow__new(row, st->lbuf, ll, st->fields, st->fields ? st->nfields : 0, st->strs)))
		return rk__err(RK_ENOMEM, "out of memory copying a row");
	return 0;
}

/* Reads one range into the ring, batch by batch. */
static int stream_range(stream *st, const rk_key_range *r, rk__qrow **batch, size_t *nb)
{
	rk_query *q = st->q;
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	so.start = r->start;
	so.start_len = r->start_len;
	so.stop = r->stop;
	so.stop_len = r->stop ? r->stop_len : 0;
	so.reverse = q->opts.reverse;
	so.limit = q->per_stream_limit ? q->per_stream_limit - st->rows : 0; /* its rows come in order */
	so.read = q->opts.read;
	rk_scan *sc = NULL;
	const rk_row *row;
	int rc;
	if ((rc = rk_scan_open(&sc, q->table, &so)) < 0)
		return rc;
	while ((rc = rk_scan_next(&row, sc)) == 0) {
		if ((rc = stream_copy(&batch[*nb], st, row)) < 0)
			break;
		st->rows++;
		/* a full batch, or a consumer waiting for this stream: hand over now */
		if (++*nb == BATCH || __atomic_load_n(&st->consumer_waiting, __ATOMIC_ACQUIRE)) {
			if ((rc = stream_push(st, batch, nb)) < 0)
				break;
		}
	}
	rk_scan_close(sc);
	if (rc == RK_EITEROVER)
		rc = __atomic_load_n(&q->cancel, __ATOMIC_ACQUIRE) ? RK_EITEROVER : 0;
	return rc;
}

static void *stream_main(void *arg)
{
	stream *st = arg;
	rk_query *q = st->q;
	rk__qrow *batch[BATCH];
	size_t nb = 0;
	int rc = 0;
	for (size_t i = 0; i < st->nranges && rc == 0 && !(q->per_stream_limit && st->rows >= q->per_stream_limit); i++)
		rc = stream_range(st, st->ranges[q->opts.reverse ? st->nranges - 1 - i : i], batch, &nb);
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
static int stream_take(rk__qrow **out, stream *st, int wait)
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

static int stream_before(const rk_query *q, const stream *a, const stream *b)
{
	return rk_qrow__cmp(a->cur, b->cur, q->opts.reverse) < 0;
}

static void heap_down(rk_query *q, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < q->nheap && stream_before(q, q->heap[l], q->heap[m]))
			m = l;
		if (r < q->nheap && stream_before(q, q->heap[r], q->heap[m]))
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
static int merged_next(rk__qrow **out, rk_query *q)
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
static int unordered_next(rk__qrow **out, rk_query *q)
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

static int get_next(rk__qrow **out, rk_query *q);

/* Sorted by the ORDER BY field, from gets: the row again, under its sort
 * key (q->fields is scratch until rk_query_next decodes the row). */
static int get_sort_next(rk__qrow **out, rk_query *q)
{
	rk__qrow *r = NULL;
	size_t ol;
	int rc = get_next(&r, q);
	if (rc < 0 || !q->by_field) {
		*out = r;
		return rc;
	}
	rc = rk_qorder__key(q->obuf, rk_qorder__cap(q->schema), &ol, q->fields, q->enc, q->schema, q->plan->order_field,
	                    q->plan->order_desc, r->row.key, r->row.key_len);
	if (rc == 0 && !(*out = rk_qrow__new(&r->row, q->obuf, ol, NULL, 0, 0)))
		rc = rk__err(RK_ENOMEM, "out of memory copying a row");
	free(r);
	return rc;
}

/* Sorted: every row of every stream (or every get) into the sorter first. */
static int sorted_next(rk__qrow **out, rk_query *q)
{
	int rc;
	if (!q->sorted) {
		rk__qrow *r;
		while ((rc = q->plan->kind == RK_PLAN_GETS ? get_sort_next(&r, q) : unordered_next(&r, q)) == 0)
			if ((rc = rk_qsort__add(q->sort, r)) < 0)
				return rc;
		if (rc != RK_EITEROVER || (rc = rk_qsort__finish(q->sort)) < 0)
			return rc;
		q->sorted = 1;
	}
	return rk_qsort__next(out, q->sort);
}

/* ---- gets ---- */

static int get_next(rk__qrow **out, rk_query *q)
{
	const rk_plan *plan = q->plan;
	while (q->next_get < plan->nranges) {
		size_t i = q->next_get++;
		const rk_key_range *k = &plan->ranges[q->opts.reverse ? plan->nranges - 1 - i : i];
		rk_row *row = NULL;
		int rc = rk_table_get(&row, q->table, k->start, k->start_len, &q->opts.read);
		if (rc == RK_ENOTFOUND)
			continue;
		if (rc < 0)
			return rc;
		q->read++;
		*out = rk_qrow__new(row, NULL, 0, NULL, 0, 0);
		rk_row_free(row);
		return *out ? 0 : rk__err(RK_ENOMEM, "out of memory copying a row");
	}
	return RK_EITEROVER;
}

/* ---- setting up ---- */

/* How the plan's ranges are read. One ordered stream is in logical order
 * as it comes: read as unordered, it needs no logical forms. */
static q_mode choose_mode(const rk_plan *plan, const rk_query_options *o)
{
	if (plan->order_by == RK_ORDER_SORT)
		return Q_SORT;
	if (plan->kind == RK_PLAN_GETS)
		return Q_GETS;
	if (o->unordered || (plan->ordered && plan->nstreams <= 1))
		return Q_UNORDERED;
	return plan->ordered && plan->nstreams <= MAX_STREAMS ? Q_MERGE : Q_SORT;
}

/* The plan's streams (merged ones: its own grouping; otherwise the same,
 * folded into MAX_STREAMS), each with its ranges in the plan's order. */
static int make_streams(rk_query *q)
{
	const rk_plan *plan = q->plan;
	size_t ns = plan->nstreams ? plan->nstreams : 1;
	if (ns > MAX_STREAMS)
		ns = MAX_STREAMS;
	q->streams = calloc(ns, sizeof *q->streams);
	q->heap = calloc(ns, sizeof *q->heap);
	if (!q->streams || !q->heap)
		return rk__err(RK_ENOMEM, "out of memory starting a query");
	q->nstreams = ns;
	for (size_t i = 0; i < plan->nranges; i++) {
		stream *st = &q->streams[(plan->stream ? plan->stream[i] : 0) % ns];
		if (st->nranges == st->cap) {
			size_t cap = st->cap ? st->cap * 2 : 4;
			const rk_key_range **nr = realloc(st->ranges, cap * sizeof *nr);
			if (!nr)
				return rk__err(RK_ENOMEM, "out of memory starting a query");
			st->ranges = nr;
			st->cap = cap;
		}
		st->ranges[st->nranges++] = &plan->ranges[i];
	}
	for (size_t i = 0; i < ns; i++) {
		stream *st = &q->streams[i];
		int rc;
		st->q = q;
		pthread_mutex_init(&st->mu, NULL);
		pthread_cond_init(&st->not_empty, NULL);
		pthread_cond_init(&st->not_full, NULL);
		if (q->mode == Q_UNORDERED)
			continue;
		if ((rc = rk_encoder_new(&st->enc, q->schema, 1)) < 0)
			return rc;
		st->lcap = rk_schema_max_key_len(q->schema);
		if (!(st->lbuf = malloc(st->lcap + 1)))
			return rk__err(RK_ENOMEM, "out of memory starting a query");
		st->nfields = rk_schema_nfields(q->schema);
		for (size_t f = 0; f < st->nfields; f++) {
			rk_type t = rk_schema_field_type(q->schema, f);
			st->strs |= (uint64_t)(t == RK_T_STR || t == RK_T_BYTES) << f;
		}
		if ((q->mode == Q_MERGE || q->by_field) && !(st->fields = calloc(st->nfields + 1, sizeof *st->fields)))
			return rk__err(RK_ENOMEM, "out of memory starting a query");
		st->ocap = rk_qorder__cap(q->schema);
		if (q->by_field && !(st->obuf = malloc(st->ocap)))
			return rk__err(RK_ENOMEM, "out of memory starting a query");
	}
	return 0;
}

static int start_streams(rk_query *q)
{
	for (size_t i = 0; i < q->nstreams; i++) {
		if (pthread_create(&q->streams[i].thread, NULL, stream_main, &q->streams[i]) != 0)
			return rk__err(RK_EIO, "cannot start a scan thread");
		q->streams[i].started = 1;
	}
	return 0;
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
	if (plan->limit && (!q->opts.limit || plan->limit < q->opts.limit))
		q->opts.limit = plan->limit;
	if (plan->order_by != RK_ORDER_NONE) { /* the predicate's order decides */
		q->opts.unordered = 0;
		q->opts.reverse = plan->order_by == RK_ORDER_REVERSE;
	}
	q->by_field = plan->order_by == RK_ORDER_SORT;
	q->mode = choose_mode(plan, &q->opts);
	rk_schema_info info;
	rk_schema_get_info(&info, schema);
	if (q->by_field && !(info.decodable_mask >> plan->order_field & 1)) {
		rc = rk__err(RK_EINVALID, "ORDER BY '%s': its value cannot be recovered from this design's keys, so rows "
		             "cannot be sorted by it", rk_schema_field_name(schema, (size_t)plan->order_field));
		goto fail;
	}
	q->fields = calloc(rk_schema_nfields(schema) + 1, sizeof *q->fields);
	if (!q->fields) {
		rc = rk__err(RK_ENOMEM, "out of memory starting a query");
		goto fail;
	}
	if ((rc = rk_encoder_new(&q->enc, schema, 1)) < 0)
		goto fail;
	if (q->mode == Q_GETS) {
		*out = q;
		return 0;
	}
	/* merged without a residual filter, no stream needs more rows than the
	   limit; a sort needs them all */
	q->per_stream_limit = plan->residual || q->mode == Q_SORT ? 0 : q->opts.limit;
	if (q->mode == Q_SORT && (rc = rk_qsort__new(&q->sort, SORT_BUDGET, q->opts.reverse)) < 0)
		goto fail;
	if (plan->kind == RK_PLAN_GETS) { /* sorted gets: read by the consumer */
		if (!(q->obuf = malloc(rk_qorder__cap(schema)))) {
			rc = rk__err(RK_ENOMEM, "out of memory starting a query");
			goto fail;
		}
		*out = q;
		return 0;
	}
	if ((rc = make_streams(q)) < 0 || (rc = start_streams(q)) < 0)
		goto fail;
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
		rk__qrow *row = NULL;
		int rc;
		switch (q->mode) {
		case Q_GETS: rc = get_next(&row, q); break;
		case Q_MERGE: rc = merged_next(&row, q); break;
		case Q_SORT: rc = sorted_next(&row, q); break;
		default: rc = unordered_next(&row, q); break;
		}
		if (rc < 0)
			return rc;
		if (row->fields) /* decoded by its stream */
			memcpy(q->fields, row->fields, rk_schema_nfields(q->schema) * sizeof *q->fields);
		else if ((rc = rk_key_decode(q->fields, q->enc, row->row.key, row->row.key_len)) < 0) {
			char b[160];
			rc = rk__err(RK_ECORRUPT, "row '%s' does not decode under the schema: %s",
			             rk__err_bytes(b, sizeof b, row->row.key, row->row.key_len), rk_error_last());
			free(row);
			return rc;
		}
		if (q->plan->residual && q->pred && !rk_predicate_match(q->pred, q->fields)) {
			free(row);
			continue;
		}
		q->last = row;
		q->returned++;
		out->row = &row->row;
		out->fields = q->fields;
		return 0;
	}
}

uint64_t rk_query_rows_read(const rk_query *q)
{
	return __atomic_load_n(&q->read, __ATOMIC_RELAXED);
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
		free(st->ranges);
		rk_encoder_free(st->enc);
		free(st->lbuf);
		free(st->fields);
		free(st->obuf);
	}
	rk_qsort__free(q->sort);
	free(q->obuf);
	free(q->streams);
	free(q->heap);
	free(q->last);
	free(q->fields);
	rk_encoder_free(q->enc);
	free(q);
}
