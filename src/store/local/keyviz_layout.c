/*
 * Key-bucket layouts (keyviz.h): a cut of the key space into buckets,
 * immutable once made and shared by reference count between the counters
 * of the open interval, the history, the accumulators of batches in flight
 * and snapshots, so none of them copies keys. One allocation each: the
 * struct, the two arrays and the key bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/error.h"
#include "store/local/keyviz.h"

rk__kvlayout *rk_kvlayout__new(size_t n, const uint8_t *const *keys, const size_t *lens)
{
	size_t bytes = 0;
	for (size_t i = 1; i < n; i++)
		bytes += lens[i];
	size_t head = sizeof(rk__kvlayout) + n * (sizeof(uint8_t *) + sizeof(size_t));
	rk__kvlayout *l = n ? malloc(head + bytes + 1) : NULL;
	if (!l) {
		rk__err(RK_ENOMEM, "out of memory for a key-bucket layout");
		return NULL;
	}
	l->pub.nbuckets = n;
	l->pub.start = (uint8_t **)(l + 1);
	l->pub.start_len = (size_t *)(l->pub.start + n);
	uint8_t *p = (uint8_t *)(l->pub.start_len + n);
	l->pub.start[0] = p;
	l->pub.start_len[0] = 0;
	for (size_t i = 1; i < n; i++) {
		l->pub.start[i] = p;
		l->pub.start_len[i] = lens[i];
		if (lens[i])
			memcpy(p, keys[i], lens[i]);
		p += lens[i];
	}
	atomic_init(&l->refs, 1);
	for (unsigned v = 0; v < 256; v++) {
		uint8_t b = (uint8_t)v;
		l->first[v] = (uint16_t)rk_kvlayout__find(&l->pub, &b, 1);
	}
	l->first[256] = (uint16_t)(n - 1);
	return l;
}

rk__kvlayout *rk_kvlayout__ref(rk__kvlayout *l)
{
	if (l)
		atomic_fetch_add_explicit(&l->refs, 1, memory_order_relaxed);
	return l;
}

void rk_kvlayout__unref(rk__kvlayout *l)
{
	if (l && atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) == 1)
		free(l);
}

size_t rk_kvlayout__find(const rk_keyviz_layout *l, const uint8_t *k, size_t len)
{
	return rk__bytes_floor((const uint8_t *const *)l->start, l->start_len, 0, l->nbuckets, k, len);
}

int rk_kvlayout__same(const rk_keyviz_layout *a, const rk_keyviz_layout *b)
{
	if (a == b)
		return 1;
	if (a->nbuckets != b->nbuckets)
		return 0;
	for (size_t i = 1; i < a->nbuckets; i++)
		if (rk__bytes_cmp(a->start[i], a->start_len[i], b->start[i], b->start_len[i]))
			return 0;
	return 1;
}
