/*
 * A region server: one storage engine plus one writer thread that drains a
 * request queue. Clients encode their cells into an engine batch, queue it
 * and wait; the writer takes everything queued, applies it as one engine
 * write (group commit: one log append, one fsync in sync mode), then
 * acknowledges each request and updates the per-region counters. A request
 * with row operations (rowop.h: range deletes, check-and-mutate, ...) is
 * resolved against the engine when its turn comes: what was grouped before
 * it is written first, so it reads every earlier request. Reads do not go
 * through the queue: they open engine iterators directly.
 *
 * A server may have a capacity (capacity.h): the writer takes each group's
 * cells and bytes from the server's token bucket before applying it, and a
 * read served by the server takes its share through rk_server__admit_read,
 * so a hot server limits throughput as a cluster's machine would.
 */
#ifndef RK_LOCAL_SERVER_H
#define RK_LOCAL_SERVER_H

#include <pthread.h>
#include <stdatomic.h>

#include "store/local/capacity.h"
#include "store/local/engine.h"
#include "store/local/meta.h"
#include "store/local/keyviz_count.h"
#include "store/local/metrics.h"
#include "store/local/rowop.h"

/* A completion shared by the requests of one client call. */
typedef struct rk__wdone {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int pending;
} rk__wdone;

/* Cells and bytes one request writes into one region (for counters). */
typedef struct rk__racct {
	rk__region *region;
	uint64_t cells, bytes;
} rk__racct;

typedef struct rk__wreq {
	rk__ebatch *batch; /* owned by the client; NULL for a barrier */
	rk__wops ops;      /* row operations resolved before the batch (rowop.h);
	                      owned by the client, n 0: none */
	int sync;
	rk__racct *acct;
	size_t nacct, cap_acct;
	rk__kvacc kv;      /* the batch's rows by key bucket, counted once applied */
	int status;        /* set by the writer before it signals done */
	rk__wdone *done;
	struct rk__wreq *next;
} rk__wreq;

typedef struct rk__server {
	unsigned id;
	rk__engine *engine;
	pthread_t thread;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	rk__wreq *head, *tail;
	size_t qlen;
	int stop;
	rk__ebatch *group, *resolved; /* the writer's: a group's batch, one
	                                 request's resolved operations */
	rk__metrics metrics;
	_Atomic uint64_t batches, queue_max;
	unsigned bucket_ms;
	/* capacity per second, set before rk_server__start (0: unlimited) */
	uint64_t cap_ops, cap_bytes;
	rk__cap cap;
	/* called by the writer thread after a region grew */
	void (*grew)(void *payload, rk__region *r);
	void *payload;
} rk__server;

void rk_wdone__init(rk__wdone *d);
void rk_wdone__fini(rk__wdone *d);
void rk_wdone__wait(rk__wdone *d);

/* Records that `req` writes cells/bytes into region r. */
int rk_wreq__account(rk__wreq *req, rk__region *r, uint64_t cells, uint64_t bytes);

/* Starts the writer thread of a server whose engine is open. */
int rk_server__start(rk__server *s);

/* Queues a request; done->pending must already count it. */
void rk_server__submit(rk__server *s, rk__wreq *req);

/* Waits until every request queued before this call is applied. */
void rk_server__barrier(rk__server *s);

/* Charges a read served by this server (ops: regions visited, bytes
 * returned) to its capacity, sleeping when the server is over it. Nothing
 * when the server has no capacity. */
static inline void rk_server__admit_read(rk__server *s, uint64_t ops, uint64_t bytes)
{
	if (s->cap.on)
		rk_cap__take(&s->cap, ops, bytes);
}

/* Drains the queue, stops the thread. The engine stays open. */
void rk_server__stop(rk__server *s);

#endif
