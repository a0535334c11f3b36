/*
 * The local backend's write path. A batch is routed under the meta read
 * lock: each mutation goes to the region holding its row, its cells are
 * encoded into one engine batch per region server and queued to that
 * server's writer thread (server.c). rk_table_apply waits for the servers'
 * acknowledgements; buffered writes (rk_table_apply_async) keep two request
 * sets per handle, so the caller encodes the next batch while the servers
 * apply the last. A mutation for a region that is moving waits until the
 * move is over, then the whole batch is routed again.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/error.h"
#include "store/cell.h"
#include "store/local/local_int.h"

void rk_local__wait_not_moving(rk__local *s, rk__region *r)
{
	pthread_mutex_lock(&s->move_mu);
	while (atomic_load(&r->moving))
		pthread_cond_wait(&s->move_cv, &s->move_mu);
	pthread_mutex_unlock(&s->move_mu);
}

/* Clears the requests reqs[0..ns) for a new batch. */
static void reqs_clear(rk__wreq *reqs, unsigned ns)
{
	for (unsigned k = 0; k < ns; k++) {
		if (reqs[k].batch)
			rk_ebatch__clear(reqs[k].batch);
		rk_wops__clear(&reqs[k].ops);
		reqs[k].nacct = 0;
		reqs[k].status = 0;
		rk_kvacc__discard(&reqs[k].kv);
	}
}

/* Adds mutation m to request q (for region r): a put or single-version
 * delete into its batch, a range delete among its row operations; counted
 * in the table's key buckets when it has them (prev: the mutation before m
 * in the batch, or NULL). */
static int add_mutation(rk__ltable *lt, rk__wreq *q, rk__region *r, const rk_mutation *m,
                        const rk_mutation *prev)
{
	rk__tmeta *t = lt->tm;
	uint64_t bytes;
	int rc;
	if (!q->batch && !(q->batch = rk_ebatch__new()))
		return rk__err(RK_ENOMEM, "table %s: out of memory", t->name);
	if (m->type == RK_MUT_PUT || m->type == RK_MUT_DELETE_CELL) {
		if (!(bytes = rk_rowop__encode(q->batch, &lt->key, &lt->key_cap, t->id, m)))
			return RK_ENOMEM;
	} else {
		if ((rc = rk_wops__add_delete(&q->ops, t->id, m)) != 0)
			return rc;
		bytes = m->row_len;
	}
	if ((rc = rk_wreq__account(q, r, 1, bytes)) != 0)
		return rc;
	if (t->kv) { /* more cells of the row before: the same row, not another */
		int same = prev && prev->row_len == m->row_len &&
		           (prev->row == m->row || !rk__bytes_cmp(prev->row, prev->row_len, m->row, m->row_len));
		rk_metrics_counts c = {!same, 0, bytes, 0};
		rk_kvacc__add(&q->kv, t->kv, m->row, m->row_len, &c, same);
	}
	return 0;
}

/* Encodes muts (validated, timestamps set) into one request per region
 * server in reqs[] (nservers of them, reused) and queues those that got
 * cells, counted in *done (initialised by the caller). server_of[i], when
 * not NULL, gets each mutation's server. A put that a later delete of the
 * batch removes is left out (rowop.h). On an error nothing is queued. */
static int queue_batch(rk__ltable *lt, rk__wreq *reqs, rk__wdone *done, const rk_mutation *muts,
                       size_t n, unsigned *server_of)
{
	rk__local *s = lt->st;
	rk__tmeta *t = lt->tm;
	unsigned ns = s->nservers;
	uint8_t *drop;
	int rc = rk_rowop__covered(&drop, muts, n);
	if (rc)
		return rc;
	reqs_clear(reqs, ns);
retry:
	pthread_rwlock_rdlock(&s->lock);
	for (size_t i = 0; i < n; i++) {
		const rk_mutation *m = &muts[i];
		rk__region *r = rk_meta__lookup(t, m->row, m->row_len);
		if (atomic_load(&r->moving)) {
			pthread_rwlock_unlock(&s->lock);
			rk_local__wait_not_moving(s, r);
			reqs_clear(reqs, ns);
			goto retry;
		}
		if (server_of)
			server_of[i] = r->server;
		if (drop && drop[i])
			continue;
		if ((rc = add_mutation(lt, &reqs[r->server], r, m, i ? &muts[i - 1] : NULL)) != 0) {
			pthread_rwlock_unlock(&s->lock);
			goto fail;
		}
	}
	int sync = s->opts.durability == RK_DURABILITY_SYNC;
	for (unsigned k = 0; k < ns; k++)
		if (reqs[k].nacct)
			done->pending++;
	for (unsigned k = 0; k < ns; k++) {
		if (!reqs[k].nacct)
			continue;
		reqs[k].sync = sync;
		reqs[k].done = done;
		rk_server__submit(&s->servers[k], &reqs[k]);
	}
	pthread_rwlock_unlock(&s->lock);
	free(drop);
	return 0;
fail:
	for (unsigned k = 0; k < ns; k++) {
		reqs[k].nacct = 0;
		rk_kvacc__discard(&reqs[k].kv);
	}
	free(drop);
	return rc;
}

/* The first failure among the acknowledged requests reqs[] (0 if none). */
static int batch_status(rk__ltable *lt, const rk__wreq *reqs)
{
	rk__local *s = lt->st;
	for (unsigned k = 0; k < s->nservers; k++)
		if (reqs[k].nacct && reqs[k].status)
			return rk__err(reqs[k].status, "table %s: region server %u: write failed: %s",
			               lt->tm->name, k,
			               reqs[k].ops.err[0] ? reqs[k].ops.err
			                                  : rk_engine__failure(s->servers[k].engine));
	return 0;
}

int rk_local__apply(rk_table *tb, const rk_mutation *muts, size_t n, int *results)
{
	rk__ltable *lt = (rk__ltable *)tb;
	rk__tmeta *t = lt->tm;
	unsigned ns = lt->st->nservers;
	rk__wdone done;
	int rc;
	if (!lt->reqs && !(lt->reqs = calloc(ns, sizeof *lt->reqs)))
		return rk__err(RK_ENOMEM, "table %s: out of memory for a batch", t->name);
	if (n > lt->server_of_cap) {
		unsigned *so = realloc(lt->server_of, n * sizeof *so);
		if (!so)
			return rk__err(RK_ENOMEM, "table %s: out of memory for a batch of %zu", t->name,
			               n);
		lt->server_of = so;
		lt->server_of_cap = n;
	}
	rk_wdone__init(&done);
	rc = queue_batch(lt, lt->reqs, &done, muts, n, lt->server_of);
	if (rc) {
		if (results)
			for (size_t i = 0; i < n; i++)
				results[i] = rc;
		rk_wdone__fini(&done);
		return rc;
	}
	rk_wdone__wait(&done);
	rc = batch_status(lt, lt->reqs);
	if (results)
		for (size_t i = 0; i < n; i++)
			results[i] = lt->reqs[lt->server_of[i]].status;
	rk_wdone__fini(&done);
	return rc;
}

/* Waits for a set in flight; its first failure, if any. */
static int aset_settle(rk__ltable *lt, rk__aset *a)
{
	if (!a->in_flight)
		return 0;
	rk_wdone__wait(&a->done);
	a->in_flight = 0;
	return batch_status(lt, a->reqs);
}

int rk_local__flush(rk_table *tb)
{
	rk__ltable *lt = (rk__ltable *)tb;
	int rc = 0;
	for (int i = 0; lt->aset && i < 2; i++) {
		int r = aset_settle(lt, &lt->aset[lt->anext ^ i]); /* the older set first */
		if (r && !rc)
			rc = r;
	}
	return rc;
}

int rk_local__apply_async(rk_table *tb, const rk_mutation *muts, size_t n)
{
	rk__ltable *lt = (rk__ltable *)tb;
	unsigned ns = lt->st->nservers;
	if (!lt->aset) {
		rk__aset *a = calloc(2, sizeof *a);
		if (!a || !(a[0].reqs = calloc(ns, sizeof *a[0].reqs)) ||
		    !(a[1].reqs = calloc(ns, sizeof *a[1].reqs))) {
			if (a) {
				free(a[0].reqs);
				free(a);
			}
			return rk__err(RK_ENOMEM, "table %s: out of memory for buffered writes",
			               lt->tm->name);
		}
		rk_wdone__init(&a[0].done);
		rk_wdone__init(&a[1].done);
		lt->aset = a;
		lt->anext = 0;
	}
	rk__aset *a = &lt->aset[lt->anext];
	int rc = aset_settle(lt, a); /* the batch before the last one */
	if (rc)
		return rk__err_wrap(rc, "an earlier buffered batch failed; this one was not queued");
	if ((rc = queue_batch(lt, a->reqs, &a->done, muts, n, NULL)) != 0)
		return rc;
	a->in_flight = 1;
	lt->anext ^= 1;
	return 0;
}
