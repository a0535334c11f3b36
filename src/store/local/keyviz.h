/*
 * Key buckets, the store's own Key Visualizer (docs/store.md, "Key
 * buckets"; the file format is docs/formats.md B.3).
 *
 * Per table, the load of each time interval is counted in about 1,000
 * contiguous key ranges (a *layout*). The boundaries follow the keys seen:
 * at the end of an interval a bucket that took much more than its share is
 * cut at keys sampled from it, trimmed to the keys it really saw (so a
 * sequential key's bucket ends where the writes ended), and the least
 * loaded neighbours are merged to stay within the bucket budget. The
 * interval is kept with that cut, and the next interval is counted in it.
 * Memory and disk are bounded per table: past RK_KV_HISTORY_CELLS the
 * older half of the history is merged pairwise in time.
 *
 * Counting is cheap on the write path: a batch's rows are grouped into runs
 * per bucket in the writing thread (a short binary search per row, narrowed
 * by the key's first byte and the bucket that byte led to last, or a compare
 * when the row falls where the previous one did), and the runs' counts are
 * added to the table's under its mutex once per batch, by the region
 * server's writer once the batch is applied (so a failed write is not
 * counted, and time is when the write happened, as for regions). Keys are
 * copied only for the samples (one row in N): a bucket is trimmed to the
 * smallest and largest key sampled in it.
 *
 *   keyviz_layout.c  layouts (immutable, shared by reference count)
 *   keyviz_count.c   the counters of the open interval; runs; samples
 *                    (the runs' API, inline on the write path: keyviz_count.h)
 *   keyviz_cut.c     closing an interval: the new cut of the key space
 *   keyviz_hist.c    a table's history, its bound, snapshots; closing the
 *                    open interval into it
 *   keyviz_map.c     re-cutting intervals onto common rows: the keymap
 *                    (rk_metrics_keymap) and the history's roll-up
 */
#ifndef RK_LOCAL_KEYVIZ_H
#define RK_LOCAL_KEYVIZ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "key/bytes.h"
#include "rowkey/metrics.h"
#include "store/local/metrics.h"

#define RK_KV_BUCKETS 1000u        /* most buckets of a layout the store makes */
#define RK_KV_LAYOUT_MAX 1024u     /* most buckets of a layout a reader accepts */
#define RK_KV_KEY_MAX 128u         /* bytes of a bucket boundary kept */
#define RK_KV_SAMPLES 4096u        /* keys sampled per table and interval at most */
#define RK_KV_HISTORY_CELLS 65536u /* per table: layout keys + interval cells */

/* ---- layouts (keyviz_layout.c) ---- */

typedef struct rk__kvlayout {
	rk_keyviz_layout pub; /* first: &pub converts back to the layout */
	_Atomic unsigned refs;
	/* by a key's first byte v, its bucket is in [first[v], first[v + 1]]:
	 * the write path's search starts a few buckets wide, not 1,000 */
	uint16_t first[257];
} rk__kvlayout;

/* A layout of n buckets (1..RK_KV_LAYOUT_MAX) starting at keys[i]
 * (keys[0] ignored: the empty key), copied; refs 1. NULL when out of
 * memory (message set). The caller checks the order. */
rk__kvlayout *rk_kvlayout__new(size_t n, const uint8_t *const *keys, const size_t *lens);
static inline rk__kvlayout *rk_kvlayout__of(const rk_keyviz_layout *l)
{
	return (rk__kvlayout *)l;
}
rk__kvlayout *rk_kvlayout__ref(rk__kvlayout *l);
void rk_kvlayout__unref(rk__kvlayout *l);
/* The bucket holding key k. */
size_t rk_kvlayout__find(const rk_keyviz_layout *l, const uint8_t *k, size_t len);
/* The same, narrowed by the first byte (the write path's). */
static inline size_t rk_kvlayout__find_fast(const rk__kvlayout *l, const uint8_t *k, size_t len)
{
	if (!len)
		return 0;
	return rk__bytes_floor((const uint8_t *const *)l->pub.start, l->pub.start_len, l->first[k[0]],
	                       (size_t)l->first[k[0] + 1] + 1, k, len);
}
/* 1 when two layouts cut at the same keys. */
int rk_kvlayout__same(const rk_keyviz_layout *a, const rk_keyviz_layout *b);

/* ---- a table's key buckets (keyviz_count.c, keyviz_hist.c) ---- */

typedef struct rk__kvt {
	pthread_mutex_t mu;
	unsigned width_ms;      /* an interval's width */
	unsigned budget;        /* most buckets of a layout (<= RK_KV_BUCKETS) */
	rk__kvlayout *layout;   /* the open interval's */
	int64_t cur_start;      /* the open interval's start; -1: none */
	rk_metrics_counts *b;   /* nb = layout->pub.nbuckets, NULL until the first count */
	size_t nb;
	int any;                /* the open interval has counts */
	/* keys sampled in the open interval (one row in `stride`) */
	uint8_t *skeys;         /* RK_KV_SAMPLES slots of RK_KV_KEY_MAX bytes */
	uint16_t *slen;
	size_t nsamples;
	_Atomic uint32_t stride;
	uint32_t countdown;     /* rows counted straight (gets) until the next sample */
	uint64_t rows;          /* rows counted in the open interval */
	/* the closed intervals (keyviz_hist.c) */
	rk_keyviz_table hist;   /* name and schema unused here */
	size_t hist_cap;
	size_t hist_cells;      /* layout keys + cells held */
} rk__kvt;

/* A table's counters, intervals of width_ms, layouts of at most `budget`
 * buckets (2..RK_KV_BUCKETS). NULL when out of memory (message set). */
rk__kvt *rk_kvt__new(unsigned width_ms, unsigned budget);
void rk_kvt__free(rk__kvt *t);

/* One row's counts straight into the table (a get). */
void rk_kvt__count(rk__kvt *t, int64_t now_ms, const uint8_t *row, size_t len,
                   const rk_metrics_counts *c);

/* The open interval's counters, sized to its layout; 0 or -1 (no memory).
 * Called with t->mu held. */
static inline int rk_kvt__buckets(rk__kvt *t)
{
	if (t->b && t->nb == t->layout->pub.nbuckets)
		return 0;
	rk_metrics_counts *b = calloc(t->layout->pub.nbuckets, sizeof *b);
	if (!b)
		return -1;
	free(t->b);
	t->b = b;
	t->nb = t->layout->pub.nbuckets;
	return 0;
}

/* Closes the open interval when `now_ms` is past it (called with t->mu held):
 * cuts it anew into the history (keyviz_hist.c). */
void rk_kvt__roll(rk__kvt *t, int64_t now_ms);

/* ---- closing an interval (keyviz_cut.c) ---- */

/* The open interval of t cut anew: *out (refs 1) its new layout and
 * cells[0..*ncells) (malloc'd, the caller frees) its load in it. *out is
 * t's own layout (one more reference) when nothing had to be cut. 0 or
 * RK_ENOMEM. Called with t->mu held; t is not changed. */
int rk_kvt__cut(rk__kvlayout **out, rk_keyviz_cell **cells, size_t *ncells, const rk__kvt *t);

/* ---- history (keyviz_hist.c) ---- */

/* Appends an interval (taking the layout reference and the cells), then
 * rolls the oldest intervals up while the history holds more than
 * RK_KV_HISTORY_CELLS. 0 or RK_ENOMEM (nothing appended, the arguments are
 * released). */
int rk_kvhist__append(rk__kvt *t, int64_t start_ms, uint64_t width_ms, rk__kvlayout *l,
                      rk_keyviz_cell *cells, size_t ncells);

/* Moves the intervals of a parsed table (earlier runs) into t's history,
 * before anything this run records; rolled up to the bound. */
int rk_kvhist__adopt(rk__kvt *t, rk_keyviz_table *from);

/* A copy of t's history plus its open interval (as it would be cut now)
 * into `to` (its layouts shared by reference). Takes t->mu. */
int rk_kvhist__snapshot(rk_keyviz_table *to, rk__kvt *t, int64_t now_ms);

/* Frees the intervals and layout references of a table entry (not name,
 * schema). */
void rk_kvhist__clear(rk_keyviz_table *kt);

/* ---- re-cutting (keyviz_map.c) ---- */

/* Merges adjacent pieces of weights w[0..n) until at most `max` remain:
 * always the adjacent pair of least summed weight (ties: the pair of fewer
 * pieces, then the leftmost), so groups follow the load and idle ranges
 * shrink first. apart: an idle piece joins a busy one only when no other
 * pair is left (a bucket kept for history must not stretch its load over
 * keys that took none). keep[i] = 1 where a group starts (keep[0] = 1). 0
 * or RK_ENOMEM. */
int rk_kvmap__reduce(uint8_t *keep, const uint64_t *w, size_t n, size_t max, int apart);

/* Shares the counters of c among n parts of weights q[0..n) (sum d > 0;
 * a part left out takes the rest of d), adding to out[0..n): exact integer
 * shares, the remainders one each to the first parts with weight. */
void rk_kvmap__share(rk_metrics_counts *out, const rk_metrics_counts *c, const uint64_t *q, size_t n,
                     uint64_t d);

typedef struct rk__kvkey {
	const uint8_t *k;
	size_t len;
} rk__kvkey;

/* The pieces of layouts l[0..nl) and of the keys extra[0..ne): their
 * sorted distinct boundaries (the first the empty key) into *out
 * (malloc'd, borrowing the keys), piece i = [out[i], out[i + 1]). */
int rk_kvmap__unite(rk__kvkey **out, size_t *np, const rk_keyviz_layout *const *l, size_t nl,
                    const rk__kvkey *extra, size_t ne);
/* The piece starting at boundary k. */
size_t rk_kvmap__piece_at(const rk__kvkey *p, size_t np, const uint8_t *k, size_t len);
/* The pieces [*p0, *p1) that bucket b of layout l covers. */
void rk_kvmap__bucket_pieces(size_t *p0, size_t *p1, const rk__kvkey *p, size_t np,
                             const rk_keyviz_layout *l, size_t b);

/* Two adjacent intervals a (earlier) and b merged into *out (its layout
 * with refs 1, its cells malloc'd): their cells on common buckets, at most
 * `budget` of them. */
int rk_kvmap__merge2(rk_keyviz_interval *out, const rk_keyviz_interval *a,
                     const rk_keyviz_interval *b, size_t budget);

#endif
