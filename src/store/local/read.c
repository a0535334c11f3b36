/*
 * The local backend's point gets: the row's engine range [lo, hi) on the
 * stack, one engine iterator taken from the server's pool, the cells
 * assembled by rowasm.c into a row with per-thread scratch buffers, and the
 * read counted against its region and server (metrics and admission).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/cell.h"
#include "store/local/local_int.h"
#include "store/rowasm.h"

/* Engine key bound just past every cell of `row`: u32(t) escbody(row) 00 02. */
static int row_end_key(uint8_t **buf, size_t *cap, size_t *len, uint32_t tid, const uint8_t *row,
                       size_t rl)
{
	int rc = rk_local__grow(buf, cap, 4 + 2 * rl + 2);
	if (rc)
		return rc;
	*len = rk_cell__row_bound(*buf, tid, row, rl, 0);
	(*buf)[*len - 1] = 0x02;
	return 0;
}

/* A get's working buffers (its row assembly), kept per thread from one get
 * to the next: a get then allocates only the row it returns. Freed when the
 * thread exits. */
typedef struct get_scratch {
	rk__rowbuf rb;
	rk__rowasm a;
} get_scratch;

static pthread_key_t scratch_key;
static int scratch_ok;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p)
{
	get_scratch *g = p;
	rk_rowasm__fini(&g->a);
	rk_rowbuf__fini(&g->rb);
	free(g);
}

static void scratch_init(void)
{
	scratch_ok = pthread_key_create(&scratch_key, scratch_free) == 0;
}

/* This thread's scratch; NULL (the error set) when out of memory. */
static get_scratch *get_scratch_take(void)
{
	pthread_once(&scratch_once, scratch_init);
	get_scratch *g = scratch_ok ? pthread_getspecific(scratch_key) : NULL;
	if (g)
		return g;
	g = calloc(1, sizeof *g);
	if (!g) {
		rk__err(RK_ENOMEM, "out of memory reading a row");
		return NULL;
	}
	if (scratch_ok && pthread_setspecific(scratch_key, g) != 0) {
		free(g);
		rk__err(RK_ENOMEM, "out of memory reading a row");
		return NULL;
	}
	return g;
}

/* After a get: frees a scratch that could not be kept per thread, and the
 * row buffer of one that held a large row (kept, it would stay that large). */
static void get_scratch_done(get_scratch *g)
{
	if (!scratch_ok)
		scratch_free(g);
	else if (g->rb.cap > (1u << 20))
		rk_rowbuf__fini(&g->rb);
}

int rk_local__row_cells(rk__rowasm *a, rk__eiter *it, const uint8_t *lo, size_t lo_len,
                        const uint8_t *hi, size_t hi_len, const rk_table *tb, const rk__region *r,
                        unsigned srv)
{
	int rc;
	/* lo is the row's bound (u32(t) escbody(row) 00 01) and hi the same
	 * ending 00 02: every key between starts with lo, so the row part is
	 * known and only the rest of each key is decoded */
	rk__cellkey ck;
	ck.table_id = rk_cell__get_u32(lo);
	ck.row_len = lo_len - 6;
	ck.row_part_end = lo_len;
	for (rk_eiter__seek(it, lo, lo_len); rk_eiter__valid(it); rk_eiter__next(it)) {
		size_t kl, vl;
		const uint8_t *k = rk_eiter__key(it, &kl);
		if (!rk_local__key_lt(k, kl, hi, hi_len))
			break;
		const uint8_t *v = rk_eiter__value(it, &vl);
		ck.row = k + 4;
		if ((rc = rk_cell__decode_rest(&ck, k, kl)) != 0)
			return rk__err_wrap(rc, "table %s: region %llu (server %u)", tb->name,
			                    (unsigned long long)r->id, srv);
		if ((rc = rk_rowasm__add(a, &ck, v, vl)) != 0)
			return rc;
	}
	if ((rc = rk_eiter__status(it)) != 0)
		return rk__err_wrap(rc, "table %s: region %llu", tb->name, (unsigned long long)r->id);
	return 0;
}

/* A get of nc cells, bytes in all: into the region's and the server's
 * metrics, the key visualizer's, and the server's read admission. */
static void count_get(rk__local *s, rk__ltable *lt, rk__region *r, unsigned srv,
                      const uint8_t *row, size_t len, size_t nc, uint64_t bytes)
{
	int64_t now = rk_metrics__now_ms();
	rk_metrics__add(&r->metrics, now, s->opts.metrics_bucket_ms, srv, 0, nc, 0, bytes);
	rk_metrics__add(&s->servers[srv].metrics, now, s->opts.metrics_bucket_ms, srv, 0, nc, 0, bytes);
	if (nc && lt->tm->kv)
		rk_kvt__count(lt->tm->kv, now, row, len, &(rk_metrics_counts){0, 1, 0, bytes});
	rk_server__admit_read(&s->servers[srv], 1, bytes);
}

int rk_local__get(rk_row **out, rk_table *tb, const uint8_t *row, size_t len,
                     const rk_read_options *ro)
{
	rk__ltable *lt = (rk__ltable *)tb;
	rk__local *s = lt->st;
	/* the row's engine range [lo, hi) on the stack for rows up to 120 bytes */
	uint8_t lo_st[256], hi_st[256];
	uint8_t *lo = lo_st, *hi = hi_st, *lo_heap = NULL, *hi_heap = NULL;
	size_t lo_len, hi_len, cap = 0;
	int rc;
	char b1[200];
	if (4 + 2 * len + 2 > sizeof hi_st) {
		if ((rc = row_end_key(&hi_heap, &cap, &hi_len, lt->tm->id, row, len)) != 0)
			return rc;
		if (!(lo_heap = malloc(hi_len))) {
			free(hi_heap);
			return rk__err(RK_ENOMEM, "out of memory reading a row");
		}
		lo = lo_heap;
		hi = hi_heap;
	} else {
		hi_len = rk_cell__row_bound(hi, lt->tm->id, row, len, 0);
		hi[hi_len - 1] = 0x02;
	}
	memcpy(lo, hi, hi_len);
	lo_len = hi_len;
	lo[lo_len - 1] = 0x01;

	get_scratch *g = get_scratch_take();
	if (!g) {
		rc = RK_ENOMEM;
		goto out;
	}
	rk__rowasm *a = &g->a;
	rk_rowasm__reinit(a, tb, ro, &g->rb);

	pthread_rwlock_rdlock(&s->lock);
	rk__region *r = rk_meta__lookup(lt->tm, row, len);
	unsigned srv = r->server;
	rk__eiter *it = rk_eiter__take(s->servers[srv].engine);
	pthread_rwlock_unlock(&s->lock);

	if ((rc = rk_rowasm__begin(a, row, len)) != 0 ||
	    (rc = rk_local__row_cells(a, it, lo, lo_len, hi, hi_len, tb, r, srv)) != 0) {
		rk_eiter__give_back(it);
		get_scratch_done(g);
		goto out;
	}
	/* row_cells looked at the iterator's status last, and found it clean */
	rk_eiter__give_back_ok(it);
	size_t nc = rk_rowasm__finish(a);
	count_get(s, lt, r, srv, row, len, nc, rk_rowbuf__bytes(&g->rb));
	if (nc == 0)
		rc = rk__err(RK_ENOTFOUND, "table %s: row '%s' not found", tb->name,
		             rk__err_bytes(b1, sizeof b1, row, len));
	else
		rc = rk_rowbuf__copy(out, &g->rb.row);
	get_scratch_done(g);
out:
	free(lo_heap);
	free(hi_heap);
	return rc;
}
