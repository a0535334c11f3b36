/*
 * Runs (keyviz.h, "Counting is cheap on the write path"): a batch's or a
 * scan's rows grouped by key bucket in the thread that reads or writes
 * them, then added to their table once (keyviz_count.c). Kept out of
 * keyviz.h so that the files below counting (cutting, history,
 * re-cutting) do not reach back into keyviz_count.c through the inline
 * common case, which falls back on it.
 */
#ifndef RK_LOCAL_KEYVIZ_COUNT_H
#define RK_LOCAL_KEYVIZ_COUNT_H

#include <stddef.h>
#include <stdint.h>

#include "key/bytes.h"
#include "store/local/keyviz.h"

/* ---- runs: a batch's (or a scan's) rows grouped by bucket ---- */

typedef struct rk__kvrun {
	size_t bucket;
	rk_metrics_counts c;
} rk__kvrun;

typedef struct rk__kvacc {
	rk__kvt *t;             /* NULL: nothing counted since the last commit */
	rk__kvlayout *layout;   /* held while runs refer to its buckets */
	int64_t until;          /* when the interval it began in ends (Unix ms) */
	rk__kvrun *runs;
	size_t nruns, cap_runs, last; /* last: the run of the previous row */
	int32_t *slot;          /* run of each bucket, -1: none (layout's nbuckets) */
	size_t cap_slot;
	uint8_t *skeys;         /* sampled keys: slots of RK_KV_KEY_MAX bytes */
	uint16_t *slen;
	size_t nsamples, cap_samples;
	uint32_t countdown;     /* rows until the next sample */
	int streak;             /* the last two rows fell in one bucket (a sequential key, a
	                           scan), or one row was counted: try its bucket first */
	uint16_t hint[256];     /* by first byte, the bucket such a row fell in last, + 1 (a
	                           salted key's rows go back to their salt's bucket) */
	int failed;             /* out of memory: the runs are dropped, not half counted */
} rk__kvacc;

/* Adds one row (c: its counts) to the runs of table t's open layout. Rows
 * of one accumulator must be of one table until it is committed.
 * continues: the same row as the previous call (more cells of it: c adds
 * to that row's run, without a second row). */
void rk_kvacc__row(rk__kvacc *a, rk__kvt *t, const uint8_t *row, size_t len,
                   const rk_metrics_counts *c, int continues);
/* rk_kvacc__row's common case inline: more cells of the previous row, or a
 * row in the previous row's bucket (a sequential key), not to be sampled. */
static inline void rk_kvacc__add(rk__kvacc *a, rk__kvt *t, const uint8_t *row, size_t len,
                                 const rk_metrics_counts *c, int continues)
{
	if (a->nruns && !a->failed && (continues || (a->streak && a->countdown > 1))) {
		rk__kvrun *r = &a->runs[a->last];
		const rk_keyviz_layout *l = &a->layout->pub;
		if (continues || (rk__bytes_cmp(l->start[r->bucket], l->start_len[r->bucket], row, len) <= 0 &&
		                  (r->bucket + 1 == l->nbuckets ||
		                   rk__bytes_cmp(row, len, l->start[r->bucket + 1], l->start_len[r->bucket + 1]) < 0))) {
			a->countdown -= !continues;
			r->c.writes += c->writes;
			r->c.reads += c->reads;
			r->c.bytes_written += c->bytes_written;
			r->c.bytes_read += c->bytes_read;
			return;
		}
	}
	rk_kvacc__row(a, t, row, len, c, continues);
}

/* Adds the runs to their table as of now_ms, and empties the accumulator. */
void rk_kvacc__commit(rk__kvacc *a, int64_t now_ms);
/* Empties the accumulator without counting (a write that failed). */
void rk_kvacc__discard(rk__kvacc *a);
void rk_kvacc__fini(rk__kvacc *a);

#endif
