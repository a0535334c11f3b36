/*
 * The table handles `rowkey serve` shares between calls. A write through an
 * rk_table handle must not overlap another write through the same handle,
 * so each call takes a handle of its own from the table's pool and gives it
 * back; the pool opens more when every handle is busy. Admin calls that
 * drop or change a table block it: new acquires wait, busy handles are
 * waited for, then every handle is closed (the store refuses those changes
 * while handles are open).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "key/error.h"
#include "serve/serve_int.h"

typedef struct tentry {
	char id[RK_MAX_TABLE_NAME_LEN + 1];
	rk_table **free;
	size_t nfree, cap;
	size_t inuse;
	int blocked;
	struct tentry *next;
} tentry;

struct rk_sv_tables {
	rk_store *store;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	tentry *head;
};

int rk_sv__tables_new(rk_sv_tables **out, rk_store *store)
{
	rk_sv_tables *t = calloc(1, sizeof *t);
	if (!t)
		return rk__err(RK_ENOMEM, "serve: out of memory");
	t->store = store;
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	*out = t;
	return 0;
}

static void close_free(tentry *e)
{
	for (size_t i = 0; i < e->nfree; i++)
		rk_table_close(e->free[i]);
	e->nfree = 0;
}

void rk_sv__tables_free(rk_sv_tables *t)
{
	if (!t)
		return;
	for (tentry *e = t->head, *n; e; e = n) {
		n = e->next;
		close_free(e);
		free(e->free);
		free(e);
	}
	pthread_mutex_destroy(&t->mu);
	pthread_cond_destroy(&t->cv);
	free(t);
}

/* Under t->mu. NULL when out of memory. */
static tentry *entry(rk_sv_tables *t, const char *id)
{
	for (tentry *e = t->head; e; e = e->next)
		if (strcmp(e->id, id) == 0)
			return e;
	tentry *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	snprintf(e->id, sizeof e->id, "%s", id);
	e->next = t->head;
	t->head = e;
	return e;
}

int rk_sv__table_acquire(rk_table **out, rk_sv_tables *t, const char *id)
{
	pthread_mutex_lock(&t->mu);
	tentry *e = entry(t, id);
	if (!e) {
		pthread_mutex_unlock(&t->mu);
		return rk__err(RK_ENOMEM, "serve: out of memory");
	}
	while (e->blocked)
		pthread_cond_wait(&t->cv, &t->mu);
	if (e->nfree) {
		*out = e->free[--e->nfree];
		e->inuse++;
		pthread_mutex_unlock(&t->mu);
		return 0;
	}
	e->inuse++; /* counted while it opens, so a blocker waits for it */
	pthread_mutex_unlock(&t->mu);
	int rc = rk_table_open(out, t->store, id);
	if (rc) {
		pthread_mutex_lock(&t->mu);
		e->inuse--;
		pthread_cond_broadcast(&t->cv);
		pthread_mutex_unlock(&t->mu);
	}
	return rc;
}

void rk_sv__table_release(rk_sv_tables *t, const char *id, rk_table *table)
{
	if (!table)
		return;
	pthread_mutex_lock(&t->mu);
	tentry *e = entry(t, id);
	if (e && !e->blocked && (e->nfree < e->cap ||
	                         (e->free = realloc(e->free, (e->cap = e->cap * 2 + 4) *
	                                                             sizeof *e->free)) != NULL)) {
		e->free[e->nfree++] = table;
		table = NULL;
	}
	if (table) {
		/* closed before it stops counting as in use: a blocker that sees
		 * none in use must find the store with no handle open */
		pthread_mutex_unlock(&t->mu);
		rk_table_close(table);
		pthread_mutex_lock(&t->mu);
	}
	if (e)
		e->inuse--;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

void rk_sv__table_block(rk_sv_tables *t, const char *id)
{
	pthread_mutex_lock(&t->mu);
	tentry *e;
	while (!(e = entry(t, id))) { /* out of memory: wait for some to come back */
		pthread_mutex_unlock(&t->mu);
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&t->mu);
	}
	while (e->blocked)
		pthread_cond_wait(&t->cv, &t->mu);
	e->blocked = 1;
	while (e->inuse)
		pthread_cond_wait(&t->cv, &t->mu);
	close_free(e);
	pthread_mutex_unlock(&t->mu);
}

void rk_sv__table_unblock(rk_sv_tables *t, const char *id)
{
	pthread_mutex_lock(&t->mu);
	tentry *e = entry(t, id);
	if (e)
		e->blocked = 0;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}
