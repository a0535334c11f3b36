/*
 * A table's key-bucket counters (keyviz.h): made and freed. Apart from the
 * counting (keyviz_count.c, which keeps a per-thread random number), so the
 * meta map's code, which frees them, links no state into the parts that
 * carry a copy of it (cmake/parts.cmake).
 */
#include <stdlib.h>

#include "key/error.h"
#include "store/local/keyviz_count.h"

rk__kvt *rk_kvt__new(unsigned width_ms, unsigned budget)
{
	rk__kvt *t = calloc(1, sizeof *t);
	size_t zero = 0;
	const uint8_t *none = NULL;
	if (!t || !(t->layout = rk_kvlayout__new(1, &none, &zero))) {
		free(t);
		rk__err(RK_ENOMEM, "out of memory for a table's key buckets");
		return NULL;
	}
	pthread_mutex_init(&t->mu, NULL);
	t->width_ms = width_ms ? width_ms : 1000;
	t->budget = budget < 2 ? 2 : budget > RK_KV_BUCKETS ? RK_KV_BUCKETS : budget;
	t->cur_start = -1;
	atomic_init(&t->stride, 1);
	t->countdown = 1;
	return t;
}

void rk_kvt__free(rk__kvt *t)
{
	if (!t)
		return;
	rk_kvhist__clear(&t->hist);
	free(t->hist.iv);
	rk_kvlayout__unref(t->layout);
	free(t->b);
	free(t->skeys);
	free(t->slen);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

