/*
 * A table's key-bucket history (keyviz.h): the closed intervals, each
 * holding a reference to its layout (consecutive ones cut alike share it).
 *
 * The bound: the history holds at most RK_KV_HISTORY_CELLS cells, counting
 * the buckets of each distinct layout and each interval's cells. Past it,
 * the older half of the intervals is merged pairwise in time (two
 * neighbours become one interval as wide as both, on common buckets, at
 * most the bucket budget), as often as it takes: old history gets coarser,
 * never dropped, and recent intervals keep their one-second resolution.
 *
 * The open interval enters the history here too (rk_kvt__roll): once its
 * time is past it is cut anew (keyviz_cut.c), appended, and the table's
 * counters are cleared for the next interval, counted in the new cut.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/local/keyviz.h"

void rk_kvhist__clear(rk_keyviz_table *kt)
{
	for (size_t i = 0; i < kt->niv; i++) {
		rk_kvlayout__unref(rk_kvlayout__of(kt->iv[i].layout));
		free(kt->iv[i].cells);
	}
	kt->niv = 0;
}

/* cells held: the buckets of each distinct layout and the cells */
static size_t cells_of(const rk_keyviz_table *h)
{
	size_t n = 0;
	for (size_t i = 0; i < h->niv; i++) {
		if (!i || h->iv[i].layout != h->iv[i - 1].layout)
			n += h->iv[i].layout->nbuckets;
		n += h->iv[i].ncells;
	}
	return n;
}

/* merges the older half of the intervals pairwise; 0 or RK_ENOMEM */
static int roll_older_half(rk__kvt *t)
{
	rk_keyviz_table *h = &t->hist;
	size_t pairs = h->niv / 4 ? h->niv / 4 : 1;
	for (size_t k = 0; k < pairs; k++) {
		rk_keyviz_interval m;
		const rk_keyviz_interval *a = &h->iv[2 * k], *b = &h->iv[2 * k + 1];
		int rc = rk_kvmap__merge2(&m, a, b, t->budget);
		if (rc) { /* keep what is merged and what is not yet */
			memmove(&h->iv[k], &h->iv[2 * k], (h->niv - 2 * k) * sizeof *h->iv);
			h->niv -= k;
			return rc;
		}
		for (int j = 0; j < 2; j++) {
			rk_kvlayout__unref(rk_kvlayout__of(h->iv[2 * k + (size_t)j].layout));
			free(h->iv[2 * k + (size_t)j].cells);
		}
		h->iv[k] = m; /* k < 2k: the pairs still to merge lie further on */
	}
	memmove(&h->iv[pairs], &h->iv[2 * pairs], (h->niv - 2 * pairs) * sizeof *h->iv);
	h->niv -= pairs;
	/* merged neighbours with equal cuts share one layout again */
	for (size_t i = 1; i < pairs + 1 && i < h->niv; i++)
		if (h->iv[i].layout != h->iv[i - 1].layout &&
		    rk_kvlayout__same(h->iv[i].layout, h->iv[i - 1].layout)) {
			rk_kvlayout__unref(rk_kvlayout__of(h->iv[i].layout));
			h->iv[i].layout = &rk_kvlayout__ref(rk_kvlayout__of(h->iv[i - 1].layout))->pub;
		}
	return 0;
}

static int bound(rk__kvt *t)
{
	t->hist_cells = cells_of(&t->hist);
	while (t->hist_cells > RK_KV_HISTORY_CELLS && t->hist.niv >= 2) {
		size_t before = t->hist_cells;
		int rc = roll_older_half(t);
		t->hist_cells = cells_of(&t->hist);
		if (rc)
			return rc;
		if (t->hist_cells >= before && t->hist.niv < 4)
			break; /* two or three huge intervals: nothing left to merge */
	}
	return 0;
}

static int room(rk__kvt *t, size_t more)
{
	rk_keyviz_table *h = &t->hist;
	if (h->niv + more <= t->hist_cap)
		return 0;
	size_t c = t->hist_cap ? t->hist_cap : 64;
	while (c < h->niv + more)
		c *= 2;
	rk_keyviz_interval *q = realloc(h->iv, c * sizeof *q);
	if (!q)
		return rk__err(RK_ENOMEM, "out of memory for the key-bucket history");
	h->iv = q;
	t->hist_cap = c;
	return 0;
}

/* Interval iv (its layout reference and cells taken) placed after h's last
 * one: an interval that starts inside the last one is joined to it (two runs
 * of the store in the same second each recorded that second: the later one
 * adopted the earlier one's), one that starts before it (the clock went
 * back) starts where it ends. 1: joined into the last interval (iv
 * consumed), 0: iv to be appended, RK_ENOMEM: iv released. */
static int place(rk_keyviz_table *h, rk_keyviz_interval *iv, size_t budget)
{
	if (!h->niv)
		return 0;
	rk_keyviz_interval *p = &h->iv[h->niv - 1], m;
	int64_t end = p->start_ms + (int64_t)p->width_ms;
	int rc = 0;
	if (iv->start_ms < p->start_ms) {
		iv->start_ms = end;
	} else if (iv->start_ms < end) {
		if ((rc = rk_kvmap__merge2(&m, p, iv, budget)) == 0) {
			if (m.width_ms < p->width_ms)
				m.width_ms = p->width_ms; /* a wide rolled-up interval stays as wide */
			rk_kvlayout__unref(rk_kvlayout__of(p->layout));
			free(p->cells);
			*p = m;
			rc = 1;
		}
		rk_kvlayout__unref(rk_kvlayout__of(iv->layout));
		free(iv->cells);
	} else if (iv->layout != p->layout && rk_kvlayout__same(iv->layout, p->layout)) {
		rk_kvlayout__unref(rk_kvlayout__of(iv->layout));
		iv->layout = &rk_kvlayout__ref(rk_kvlayout__of(p->layout))->pub;
	}
	return rc;
}

int rk_kvhist__append(rk__kvt *t, int64_t start_ms, uint64_t width_ms, rk__kvlayout *l,
                      rk_keyviz_cell *cells, size_t ncells)
{
	rk_keyviz_table *h = &t->hist;
	rk_keyviz_interval iv = {start_ms, width_ms, &l->pub, cells, ncells};
	int rc = room(t, 1);
	if (rc) {
		rk_kvlayout__unref(l);
		free(cells);
		return rc;
	}
	if ((rc = place(h, &iv, t->budget)) < 0)
		return rc;
	if (rc == 1) {
		t->hist_cells = cells_of(h);
	} else {
		h->iv[h->niv++] = iv;
		t->hist_cells += ncells + (h->niv > 1 && h->iv[h->niv - 2].layout == iv.layout ? 0 : iv.layout->nbuckets);
	}
	return t->hist_cells > RK_KV_HISTORY_CELLS ? bound(t) : 0;
}

void rk_kvt__roll(rk__kvt *t, int64_t now_ms)
{
	int64_t start = now_ms - now_ms % t->width_ms;
	if (t->cur_start < 0 || now_ms < t->cur_start) {
		if (t->cur_start < 0)
			t->cur_start = start;
		return; /* the clock went back: keep counting in the open interval */
	}
	if (now_ms < t->cur_start + (int64_t)t->width_ms)
		return;
	if (t->any) {
		rk__kvlayout *l;
		rk_keyviz_cell *cells;
		size_t n;
		if (rk_kvt__cut(&l, &cells, &n, t) == 0) {
			if (l != t->layout) {
				rk_kvlayout__unref(t->layout);
				t->layout = rk_kvlayout__ref(l);
			}
			/* a failed append drops the interval: counting is best effort */
			rk_kvhist__append(t, t->cur_start, t->width_ms, l, cells, n);
		}
	}
	if (t->b && t->nb == t->layout->pub.nbuckets)
		memset(t->b, 0, t->nb * sizeof *t->b);
	else
		rk_kvt__buckets(t);
	/* the next interval samples about twice the keys a cut needs at this
	 * rate (a fall in rate leaves enough; a rise is halved by sample() in
	 * keyviz_count.c) */
	uint64_t stride = t->rows / RK_KV_SAMPLES;
	atomic_store(&t->stride, stride < 1 ? 1 : stride > UINT32_MAX ? UINT32_MAX : (uint32_t)stride);
	t->countdown = 1;
	t->any = 0;
	t->nsamples = 0;
	t->rows = 0;
	t->cur_start = start;
}

int rk_kvhist__adopt(rk__kvt *t, rk_keyviz_table *from)
{
	rk_keyviz_table *h = &t->hist;
	pthread_mutex_lock(&t->mu);
	int rc = room(t, from->niv);
	if (!rc) {
		/* either may be empty, and an empty array NULL, which memmove must not see */
		if (h->niv)
			memmove(&h->iv[from->niv], h->iv, h->niv * sizeof *h->iv);
		if (from->niv)
			memcpy(h->iv, from->iv, from->niv * sizeof *h->iv);
		h->niv += from->niv;
		from->niv = 0; /* moved, references and all */
		rc = bound(t);
	}
	pthread_mutex_unlock(&t->mu);
	return rc;
}

int rk_kvhist__snapshot(rk_keyviz_table *to, rk__kvt *t, int64_t now_ms)
{
	int rc = 0;
	pthread_mutex_lock(&t->mu);
	rk_kvt__roll(t, now_ms);
	const rk_keyviz_table *h = &t->hist;
	size_t n = h->niv + (t->any ? 1 : 0);
	to->niv = 0;
	if (!(to->iv = malloc((n ? n : 1) * sizeof *to->iv))) {
		rc = RK_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < h->niv; i++) {
		const rk_keyviz_interval *s = &h->iv[i];
		rk_keyviz_cell *c = malloc((s->ncells ? s->ncells : 1) * sizeof *c);
		if (!c) {
			rc = RK_ENOMEM;
			goto out;
		}
		memcpy(c, s->cells, s->ncells * sizeof *c);
		rk_kvlayout__ref(rk_kvlayout__of(s->layout));
		to->iv[to->niv++] = (rk_keyviz_interval){s->start_ms, s->width_ms, s->layout, c, s->ncells};
	}
	if (t->any) { /* the open interval, cut as it would be if it closed now */
		rk__kvlayout *l;
		rk_keyviz_cell *c;
		size_t nc;
		if ((rc = rk_kvt__cut(&l, &c, &nc, t)) != 0)
			goto out;
		rk_keyviz_interval iv = {t->cur_start, t->width_ms, &l->pub, c, nc};
		if ((rc = place(to, &iv, t->budget)) < 0)
			goto out;
		if (rc == 0)
			to->iv[to->niv++] = iv;
		rc = 0;
	}
out:
	pthread_mutex_unlock(&t->mu);
	if (rc) {
		rk_kvhist__clear(to);
		free(to->iv);
		to->iv = NULL;
		rc = rk__err(RK_ENOMEM, "out of memory copying the key buckets");
	}
	return rc;
}
