/*
 * The order in which a plan's rows come back: logical order, the order of
 * the keys' logical forms (rk_key_logical: a key without its salt, bucket
 * and hash parts), ties by the whole key.
 *
 * The ranges are listed by the logical forms they start at, and grouped
 * into streams: the ranges of one stream hold disjoint spans of logical
 * forms, so a stream reading its ranges one after the other returns its
 * rows in logical order, and a reader merges the streams. The grouping is
 * greedy interval partitioning (each range joins the stream whose last
 * range ended first, when that one ended by its start), which makes as few
 * streams as the deepest overlap: one per bucket for a salt the predicate
 * cannot compute, one in all for IN lists over fields the key orders by,
 * one per value when a bucket is computed from a field the key does not
 * carry.
 *
 * A range's own rows come in logical order when no part that places rows
 * varies inside it before a value part; otherwise (a hash over an unbound
 * field in front of a field) the plan says so and the reader sorts.
 */
#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/error.h"
#include "key/plan_int.h"
#include "key/schema_int.h"

/* By logical start, then by key. */
static int pair_logical_cmp(const void *x, const void *y)
{
	const rk__rpair *a = x, *b = y;
	int c = rk__bytes_cmp(a->l.start, a->l.start_len, b->l.start, b->l.start_len);
	return c ? c : rk__bytes_cmp(a->r.start, a->r.start_len, b->r.start, b->r.start_len);
}

/* The first part that places rows and varies inside a range with a value
 * part after it, or NULL: the parts from where the walk stopped on vary
 * inside each range, those before it are fixed by the range's prefix. */
static const rk_part *unordered_part(const planner *pl)
{
	const rk_part *placed = NULL;
	for (size_t k = pl->stop_at; k < pl->s->nparts; k++) {
		const rk_part *p = &pl->s->parts[k];
		if (rk_part__places(p)) {
			if (!placed)
				placed = p;
		} else if (placed && p->kind == P_VAL) {
			return placed;
		}
	}
	return NULL;
}

/* ---- streams: a min-heap of streams by the logical end of their last range ---- */

typedef struct {
	const rk_key_range **end; /* per stream: its last range's logical bounds */
	unsigned *heap;
	size_t n;
} stream_heap;

/* a before b: a ended first (an unbounded end is last) */
static int ends_before(const stream_heap *h, unsigned a, unsigned b)
{
	const rk_key_range *x = h->end[a], *y = h->end[b];
	if (!x->stop || !y->stop)
		return x->stop != NULL && y->stop == NULL;
	return rk__bytes_cmp(x->stop, x->stop_len, y->stop, y->stop_len) < 0;
}

static void heap_push(stream_heap *h, unsigned s)
{
	size_t i = h->n++;
	h->heap[i] = s;
	while (i > 0 && ends_before(h, h->heap[i], h->heap[(i - 1) / 2])) {
		unsigned t = h->heap[i];
		h->heap[i] = h->heap[(i - 1) / 2];
		h->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void heap_pop(stream_heap *h)
{
	h->heap[0] = h->heap[--h->n];
	for (size_t i = 0;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && ends_before(h, h->heap[l], h->heap[m]))
			m = l;
		if (r < h->n && ends_before(h, h->heap[r], h->heap[m]))
			m = r;
		if (m == i)
			return;
		unsigned t = h->heap[i];
		h->heap[i] = h->heap[m];
		h->heap[m] = t;
		i = m;
	}
}

/* Greedy interval partitioning of plan->logical (sorted by start). */
static int partition(rk_plan *plan)
{
	size_t n = plan->nranges;
	stream_heap h = {malloc((n + 1) * sizeof *h.end), malloc((n + 1) * sizeof *h.heap), 0};
	if (!h.end || !h.heap) {
		free(h.end);
		free(h.heap);
		return rk__err(RK_ENOMEM, "out of memory planning");
	}
	unsigned ns = 0;
	for (size_t i = 0; i < n; i++) {
		const rk_key_range *l = &plan->logical[i];
		unsigned s;
		if (h.n && h.end[h.heap[0]]->stop &&
		    rk__bytes_cmp(h.end[h.heap[0]]->stop, h.end[h.heap[0]]->stop_len, l->start, l->start_len) <= 0) {
			s = h.heap[0];
			heap_pop(&h);
		} else {
			s = ns++;
		}
		plan->stream[i] = s;
		h.end[s] = l;
		heap_push(&h, s);
	}
	plan->nstreams = ns ? ns : 1;
	free(h.end);
	free(h.heap);
	return 0;
}

int rk_plan__order(planner *pl, const rk_part **unordered_by)
{
	rk_plan *plan = pl->plan;
	size_t n = pl->npairs;
	*unordered_by = NULL;
	if (n > 1)
		qsort(pl->pairs, n, sizeof *pl->pairs, pair_logical_cmp);
	plan->ranges = malloc((n + 1) * sizeof *plan->ranges);
	plan->logical = malloc((n + 1) * sizeof *plan->logical);
	plan->stream = calloc(n + 1, sizeof *plan->stream);
	if (!plan->ranges || !plan->logical || !plan->stream)
		return rk__err(RK_ENOMEM, "out of memory planning");
	for (size_t i = 0; i < n; i++) {
		plan->ranges[i] = pl->pairs[i].r;
		plan->logical[i] = pl->pairs[i].l;
	}
	plan->nranges = n;
	free(pl->pairs); /* their bytes are the plan's now */
	pl->pairs = NULL;
	pl->npairs = pl->pcap = 0;
	plan->ordered = 1;
	plan->nstreams = 1;
	if (plan->kind == RK_PLAN_GETS)
		return 0;
	if ((*unordered_by = unordered_part(pl)) != NULL)
		plan->ordered = 0;
	return partition(plan);
}
