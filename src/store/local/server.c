/*
 * Region server writer threads (see server.h). The queue is a FIFO under
 * one mutex; the writer swaps out the whole queue at once, so the time a
 * client holds the mutex is a pointer append. Requests are acknowledged in
 * queue order, which is what makes a barrier (an empty request) mean "every
 * earlier write is applied".
 */
#include "store/local/server.h"

#include <stdlib.h>
#include <string.h>

#include "key/error.h"

void rk_wdone__init(rk__wdone *d)
{
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cv, NULL);
	d->pending = 0;
}

void rk_wdone__fini(rk__wdone *d)
{
	pthread_mutex_destroy(&d->mu);
	pthread_cond_destroy(&d->cv);
}

void rk_wdone__wait(rk__wdone *d)
{
	pthread_mutex_lock(&d->mu);
	while (d->pending > 0)
		pthread_cond_wait(&d->cv, &d->mu);
	pthread_mutex_unlock(&d->mu);
}

static void wdone_signal(rk__wdone *d)
{
	pthread_mutex_lock(&d->mu);
	if (--d->pending == 0)
		pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
}

int rk_wreq__account(rk__wreq *req, rk__region *r, uint64_t cells, uint64_t bytes)
{
	if (req->nacct && req->acct[req->nacct - 1].region == r) {
		req->acct[req->nacct - 1].cells += cells;
		req->acct[req->nacct - 1].bytes += bytes;
		return 0;
	}
	for (size_t i = 0; i + 1 < req->nacct; i++)
		if (req->acct[i].region == r) {
			req->acct[i].cells += cells;
			req->acct[i].bytes += bytes;
			return 0;
		}
	if (req->nacct == req->cap_acct) {
		size_t n = req->cap_acct ? req->cap_acct * 2 : 8;
		rk__racct *a = realloc(req->acct, n * sizeof *a);
		if (!a)
			return rk__err(RK_ENOMEM, "out of memory queueing a write");
		req->acct = a;
		req->cap_acct = n;
	}
	req->acct[req->nacct++] = (rk__racct){r, cells, bytes};
	return 0;
}

/* Takes a group's cells and bytes from the server's capacity: the writer
 * sleeps here while the server is over it, and requests queue behind. */
static void admit_group(rk__server *s, const rk__wreq *list)
{
	uint64_t cells = 0, bytes = 0;
	for (const rk__wreq *q = list; q; q = q->next)
		for (size_t i = 0; i < q->nacct; i++) {
			cells += q->acct[i].cells;
			bytes += q->acct[i].bytes;
		}
	if (cells || bytes)
		rk_cap__take(&s->cap, cells, bytes);
}

/* Counts what the requests [from, to) wrote (when they did) and records
 * their status. Counting comes before acknowledging: a client that sees its
 * write done also sees it in every counter. */
static void settle(rk__server *s, rk__wreq *from, rk__wreq *to, int status)
{
	int64_t now = rk_metrics__now_ms();
	uint64_t cells = 0, bytes = 0;
	for (rk__wreq *q = from; q != to; q = q->next) {
		if (!q->status)
			q->status = status;
		for (size_t i = 0; i < q->nacct && !q->status; i++) {
			rk__racct *a = &q->acct[i];
			atomic_fetch_add(&a->region->size, a->bytes);
			rk_metrics__add(&a->region->metrics, now, s->bucket_ms, s->id, a->cells, 0, a->bytes, 0);
			cells += a->cells;
			bytes += a->bytes;
			if (s->grew)
				s->grew(s->payload, a->region);
		}
	}
	if (cells)
		rk_metrics__add(&s->metrics, now, s->bucket_ms, s->id, cells, 0, bytes, 0);
	for (rk__wreq *q = from; q != to; q = q->next) { /* key buckets: what was applied */
		if (!q->status)
			rk_kvacc__commit(&q->kv, now);
		else
			rk_kvacc__discard(&q->kv);
	}
}

/* Writes the group [from, to): its one batch, or the n > 1 gathered in
 * s->group, and settles its requests. */
static void write_group(rk__server *s, rk__wreq *from, rk__wreq *to, rk__ebatch *first, int n,
                        int sync)
{
	int status = 0;
	if (n)
		status = rk_engine__write(s->engine, n == 1 ? first : s->group, sync);
	if (n)
		atomic_fetch_add(&s->batches, 1);
	settle(s, from, to, status);
}

static void apply_group(rk__server *s, rk__wreq *list)
{
	if (s->cap.on)
		admit_group(s, list);
	rk__wreq *from = list;
	rk__ebatch *first = NULL;
	int sync = 0, n = 0;
	for (rk__wreq *q = list; q; q = q->next) {
		rk__ebatch *b = q->batch;
		q->status = 0;
		if (q->ops.n) {
			/* write what came before, so that the resolution reads it */
			write_group(s, from, q, first, n, sync);
			n = sync = 0;
			from = q;
			rk_ebatch__clear(s->resolved);
			if ((q->status = rk_rowop__resolve(s->engine, q, s->resolved)) != 0)
				continue; /* nothing of this request is written */
			if (b)
				rk_ebatch__append(s->resolved, b);
			b = s->resolved;
		}
		if (!b)
			continue;
		sync |= q->sync;
		if (n == 1) {
			rk_ebatch__clear(s->group);
			rk_ebatch__append(s->group, first);
		}
		if (n++)
			rk_ebatch__append(s->group, b);
		else
			first = b;
	}
	write_group(s, from, NULL, first, n, sync);
	while (list) {
		rk__wreq *q = list;
		list = q->next;
		wdone_signal(q->done); /* q may be freed by its owner from here on */
	}
}

static void *writer_main(void *arg)
{
	rk__server *s = arg;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->head && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		if (!s->head && s->stop)
			break;
		rk__wreq *list = s->head;
		s->head = s->tail = NULL;
		s->qlen = 0;
		pthread_mutex_unlock(&s->mu);
		apply_group(s, list);
		pthread_mutex_lock(&s->mu);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

int rk_server__start(rk__server *s)
{
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	rk_metrics__init(&s->metrics);
	atomic_init(&s->batches, 0);
	atomic_init(&s->queue_max, 0);
	s->group = rk_ebatch__new();
	s->resolved = rk_ebatch__new();
	s->head = s->tail = NULL;
	s->stop = 0;
	rk_cap__init(&s->cap, s->cap_ops, s->cap_bytes);
	if (pthread_create(&s->thread, NULL, writer_main, s)) {
		rk_cap__fini(&s->cap);
		return rk__err(RK_EIO, "region server %u: cannot start its writer thread", s->id);
	}
	s->started = 1;
	return 0;
}

void rk_server__submit(rk__server *s, rk__wreq *req)
{
	req->next = NULL;
	pthread_mutex_lock(&s->mu);
	if (s->tail)
		s->tail->next = req;
	else
		s->head = req;
	s->tail = req;
	s->qlen++;
	if (s->qlen > atomic_load_explicit(&s->queue_max, memory_order_relaxed))
		atomic_store_explicit(&s->queue_max, s->qlen, memory_order_relaxed);
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

void rk_server__barrier(rk__server *s)
{
	rk__wdone d;
	rk__wreq req;
	memset(&req, 0, sizeof req);
	rk_wdone__init(&d);
	d.pending = 1;
	req.done = &d;
	rk_server__submit(s, &req);
	rk_wdone__wait(&d);
	rk_wdone__fini(&d);
}

void rk_server__stop(rk__server *s)
{
	if (!s->started)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = 1;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	s->started = 0;
	rk_ebatch__free(s->group);
	rk_ebatch__free(s->resolved);
	s->group = s->resolved = NULL;
	rk_cap__fini(&s->cap);
	s->cap.on = 0;
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
}
