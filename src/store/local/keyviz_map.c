/*
 * Key buckets of several intervals on common rows (keyviz.h): each interval
 * has its own cut of the key space, so to draw them side by side (the
 * keymap, rk_metrics_keymap) or to merge two of them (the history's
 * roll-up) their boundaries are united into pieces, each bucket's counts
 * shared evenly among the pieces it covers (exactly: integer shares whose
 * sum is the count), and the pieces merged, least loaded neighbours first,
 * down to the rows wanted. Where intervals share a layout nothing is
 * shared out: their buckets are the pieces.
 */
#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/error.h"
#include "store/local/keyviz.h"

/* ---- merging neighbours ---- */

typedef struct pair {
	int mixed; /* idle next to busy: merged last when idle is kept apart */
	uint64_t sum, size;
	size_t i;
	uint32_t vi, vj;
} pair;

static int pair_lt(const pair *a, const pair *b)
{
	if (a->mixed != b->mixed)
		return a->mixed < b->mixed;
	if (a->sum != b->sum)
		return a->sum < b->sum;
	if (a->size != b->size)
		return a->size < b->size;
	return a->i < b->i;
}

static void heap_push(pair *h, size_t *n, pair p)
{
	size_t i = (*n)++;
	while (i && pair_lt(&p, &h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = p;
}

static pair heap_pop(pair *h, size_t *n)
{
	pair top = h[0], last = h[--*n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && pair_lt(&h[c + 1], &h[c]))
			c++;
		if (!pair_lt(&h[c], &last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
	return top;
}

static pair mkpair(const uint64_t *gw, const uint64_t *gs, size_t i, size_t j, const uint32_t *ver,
                   int apart)
{
	return (pair){apart && (!gw[i]) != (!gw[j]), rk_metrics__add_sat(gw[i], gw[j]), gs[i] + gs[j],
	              i, ver[i], ver[j]};
}

int rk_kvmap__reduce(uint8_t *keep, const uint64_t *w, size_t n, size_t max, int apart)
{
	if (max < 1)
		max = 1;
	memset(keep, 1, n);
	if (n <= max)
		return 0;
	size_t *next = malloc(n * sizeof *next), *prev = malloc(n * sizeof *prev);
	uint64_t *gw = malloc(n * sizeof *gw), *gs = malloc(n * sizeof *gs);
	uint32_t *ver = calloc(n, sizeof *ver);
	pair *h = malloc(3 * n * sizeof *h);
	size_t nh = 0, count = n;
	int rc = 0;
	if (!next || !prev || !gw || !gs || !ver || !h) {
		rc = rk__err(RK_ENOMEM, "out of memory merging key buckets");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		next[i] = i + 1;
		prev[i] = i - 1; /* wraps for i = 0: never read */
		gw[i] = w[i];
		gs[i] = 1;
	}
	for (size_t i = 0; i + 1 < n; i++)
		heap_push(h, &nh, mkpair(gw, gs, i, i + 1, ver, apart));
	while (count > max && nh) {
		pair p = heap_pop(h, &nh);
		size_t i = p.i, j = next[i];
		if (!keep[i] || j >= n || ver[i] != p.vi || ver[j] != p.vj)
			continue; /* stale: one side changed since */
		gw[i] = rk_metrics__add_sat(gw[i], gw[j]);
		gs[i] += gs[j];
		keep[j] = 0;
		next[i] = next[j];
		if (next[i] < n)
			prev[next[i]] = i;
		ver[i]++;
		ver[j]++;
		count--;
		if (nh + 2 > 3 * n)
			break; /* cannot happen: one pop for every two pushes */
		if (i > 0)
			heap_push(h, &nh, mkpair(gw, gs, prev[i], i, ver, apart));
		if (next[i] < n)
			heap_push(h, &nh, mkpair(gw, gs, i, next[i], ver, apart));
	}
out:
	free(next);
	free(prev);
	free(gw);
	free(gs);
	free(ver);
	free(h);
	return rc;
}

/* ---- sharing counts out exactly ---- */

/* x * q / d, rounded down, without overflow */
static uint64_t muldiv(uint64_t x, uint64_t q, uint64_t d)
{
	return (uint64_t)((unsigned __int128)x * q / d);
}

static uint64_t *ctr(rk_metrics_counts *c, int k)
{
	return k == 0 ? &c->writes : k == 1 ? &c->reads : k == 2 ? &c->bytes_written : &c->bytes_read;
}

void rk_kvmap__share(rk_metrics_counts *out, const rk_metrics_counts *c, const uint64_t *q, size_t n,
                     uint64_t d)
{
	rk_metrics_counts in = *c;
	for (int k = 0; k < 4; k++) {
		uint64_t v = *ctr(&in, k), given = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t s = muldiv(v, q[i], d);
			*ctr(&out[i], k) = rk_metrics__add_sat(*ctr(&out[i], k), s);
			given += s;
		}
		/* each part lost less than one: fewer left over than parts with weight */
		for (size_t i = 0; given < v && i < n; i++)
			if (q[i]) {
				*ctr(&out[i], k) = rk_metrics__add_sat(*ctr(&out[i], k), 1);
				given++;
			}
	}
}

/* ---- the pieces of several layouts ---- */

static int key_cmp(const void *x, const void *y)
{
	const rk__kvkey *a = x, *b = y;
	return rk__bytes_cmp(a->k, a->len, b->k, b->len);
}

int rk_kvmap__unite(rk__kvkey **out, size_t *np, const rk_keyviz_layout *const *l, size_t nl,
                 const rk__kvkey *extra, size_t ne)
{
	size_t n = 1 + ne;
	for (size_t i = 0; i < nl; i++)
		n += l[i]->nbuckets;
	rk__kvkey *k = malloc(n * sizeof *k);
	if (!k)
		return rk__err(RK_ENOMEM, "out of memory uniting key buckets");
	size_t m = 0;
	k[m++] = (rk__kvkey){(const uint8_t *)"", 0};
	for (size_t i = 0; i < nl; i++)
		for (size_t b = 1; b < l[i]->nbuckets; b++)
			k[m++] = (rk__kvkey){l[i]->start[b], l[i]->start_len[b]};
	for (size_t i = 0; i < ne; i++)
		k[m++] = extra[i];
	qsort(k, m, sizeof *k, key_cmp);
	size_t d = 0;
	for (size_t i = 0; i < m; i++)
		if (!d || key_cmp(&k[d - 1], &k[i]))
			k[d++] = k[i];
	*out = k;
	*np = d;
	return 0;
}

size_t rk_kvmap__piece_at(const rk__kvkey *p, size_t np, const uint8_t *k, size_t len)
{
	size_t lo = 0, hi = np;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (rk__bytes_cmp(p[mid].k, p[mid].len, k, len) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void rk_kvmap__bucket_pieces(size_t *p0, size_t *p1, const rk__kvkey *p, size_t np,
                          const rk_keyviz_layout *l, size_t b)
{
	*p0 = rk_kvmap__piece_at(p, np, l->start[b], l->start_len[b]);
	*p1 = b + 1 < l->nbuckets ? rk_kvmap__piece_at(p, np, l->start[b + 1], l->start_len[b + 1]) : np;
}

/* ---- two intervals as one (the roll-up) ---- */

int rk_kvmap__merge2(rk_keyviz_interval *out, const rk_keyviz_interval *a,
                     const rk_keyviz_interval *b, size_t budget)
{
	const rk_keyviz_interval *two[2] = {a, b};
	const rk_keyviz_layout *l[2] = {a->layout, b->layout};
	rk__kvkey *p = NULL;
	size_t np = 0;
	rk_metrics_counts *pc = NULL;
	uint64_t *w = NULL, *ones = NULL;
	uint8_t *keep = NULL;
	int rc;
	memset(out, 0, sizeof *out);
	out->start_ms = a->start_ms;
	out->width_ms = (uint64_t)(b->start_ms - a->start_ms) + b->width_ms;
	if ((rc = rk_kvmap__unite(&p, &np, l, rk_kvlayout__same(l[0], l[1]) ? 1 : 2, NULL, 0)) != 0)
		return rc;
	rc = RK_ENOMEM;
	if (!(pc = calloc(np, sizeof *pc)) || !(w = malloc(np * sizeof *w)) ||
	    !(ones = malloc(np * sizeof *ones)) || !(keep = malloc(np)))
		goto out;
	for (size_t i = 0; i < np; i++)
		ones[i] = 1;
	for (int t = 0; t < 2; t++)
		for (size_t c = 0; c < two[t]->ncells; c++) {
			size_t p0, p1;
			rk_kvmap__bucket_pieces(&p0, &p1, p, np, l[t], two[t]->cells[c].bucket);
			rk_kvmap__share(pc + p0, &two[t]->cells[c].c, ones, p1 - p0, p1 - p0);
		}
	for (size_t i = 0; i < np; i++)
		w[i] = rk_metrics__add_sat(pc[i].writes, pc[i].reads);
	if ((rc = rk_kvmap__reduce(keep, w, np, budget, 1)) != 0)
		goto out;
	size_t nb = 0;
	for (size_t i = 0; i < np; i++) {
		if (keep[i]) {
			p[nb] = p[i];
			pc[nb++] = pc[i];
		} else {
			rk_metrics__counts_add(&pc[nb - 1], &pc[i]);
		}
	}
	const uint8_t **keys = malloc(nb * sizeof *keys);
	size_t *lens = malloc(nb * sizeof *lens);
	rk__kvlayout *nl = NULL;
	if (nb == np && rk_kvlayout__same(l[0], l[1]) && nb == l[0]->nbuckets) {
		nl = rk_kvlayout__ref(rk_kvlayout__of(l[0])); /* the same cut: shared */
	} else if (keys && lens) {
		for (size_t i = 0; i < nb; i++) {
			keys[i] = p[i].k;
			lens[i] = p[i].len;
		}
		nl = rk_kvlayout__new(nb, keys, lens);
	}
	free(keys);
	free(lens);
	rk_keyviz_cell *cells = nl ? malloc(nb * sizeof *cells) : NULL;
	if (!cells) {
		rk_kvlayout__unref(nl);
		goto out;
	}
	for (size_t i = 0; i < nb; i++)
		if (pc[i].writes || pc[i].reads || pc[i].bytes_written || pc[i].bytes_read)
			cells[out->ncells++] = (rk_keyviz_cell){(uint32_t)i, pc[i]};
	out->layout = &nl->pub;
	out->cells = cells;
	rc = 0;
out:
	if (rc == RK_ENOMEM)
		rk__err(RK_ENOMEM, "out of memory merging key-bucket intervals");
	free(p);
	free(pc);
	free(w);
	free(ones);
	free(keep);
	return rc;
}
