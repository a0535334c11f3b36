/*
 * rowkey rekey's check that no new key is taken twice (docs/rekey.md, "What
 * stops it"), and on a served table the batch against the server's mirror
 * ("While rowkey serve serves the table"). The batches: rekey_copy.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/rekey_copy_int.h"

/* ---- collisions ---- */

static const batch *sort_batch; /* for by_new_key (one rekey runs at a time, in the command or the server) */

static int keycmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}

static int by_new_key(const void *x, const void *y)
{
	const brow *a = &sort_batch->rows[*(const size_t *)x], *b = &sort_batch->rows[*(const size_t *)y];
	return keycmp(sort_batch->a.p + a->nk, a->nl, sort_batch->a.p + b->nk, b->nl);
}

static void say_collision(copier *cp, const uint8_t *o1, size_t l1, const uint8_t *o2,
                          size_t l2, const uint8_t *nk, size_t nl)
{
	char a[RK_REKEY_KEYTEXT], b[RK_REKEY_KEYTEXT], n[RK_REKEY_KEYTEXT];
	char fa[RK_REKEY_KEYTEXT], fb[RK_REKEY_KEYTEXT];
	if (rk_table_flush(cp->nt)) /* the rows counted below are written */
		rk_rekey__fail("writing a batch to the new table");
	uint64_t copied = cp->c->rows;
	fprintf(RK_REKEY_ERR,
	        "rowkey rekey: old rows %s (%s) and %s (%s) both map to new key %s: the new design "
	        "does not tell them apart, and writing both would lose one. Nothing of this batch "
	        "is written (%llu row%s copied before it); choose a design whose key keeps the "
	        "fields that identify a row, and drop this copy with --abort\n",
	        rk_rekey__key_text(a, sizeof a, o1, l1),
	        rk_rekey__fields_text(&cp->map, fa, sizeof fa, o1, l1),
	        rk_rekey__key_text(b, sizeof b, o2, l2),
	        rk_rekey__fields_text(&cp->map, fb, sizeof fb, o2, l2),
	        rk_rekey__key_text(n, sizeof n, nk, nl), (unsigned long long)copied,
	        copied == 1 ? "" : "s");
}

/* Two rows of the batch with one new key: said, 1; else 0. The batch's
 * rows are left in b->ix in new-key order. */
int rk_rekey__batch_duplicates(copier *cp)
{
	batch *b = cp->b;
	size_t *ix = b->ix;
	for (size_t i = 0; i < b->nrows; i++)
		ix[i] = i;
	sort_batch = b;
	qsort(ix, b->nrows, sizeof *ix, by_new_key);
	for (size_t i = 1; i < b->nrows; i++)
		if (!by_new_key(&ix[i - 1], &ix[i])) {
			const brow *x = &b->rows[ix[i - 1]], *y = &b->rows[ix[i]];
			say_collision(cp, b->a.p + x->ok, x->ol, b->a.p + y->ok, y->ol, b->a.p + x->nk,
			              x->nl);
			return 1;
		}
	return 0;
}

/* The row with new key k of a batch the store may still be writing (its
 * keys may not read back yet), or NULL; *in its batch. */
static const brow *in_flight(const copier *cp, const uint8_t *k, size_t n, const batch **in)
{
	for (unsigned d = 1; d < RING; d++) {
		const batch *f = &cp->ring[(cp->cur + d) % RING];
		size_t lo = 0, hi = f->flight ? f->nrows : 0;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const brow *r = &f->rows[f->ix[mid]];
			int c = keycmp(f->a.p + r->nk, r->nl, k, n);
			if (!c) {
				*in = f;
				return r;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return NULL;
}

/* The old row other than `old` whose new key is `nk`, found by a scan of
 * the old table (only when a collision is met, so its cost is paid once);
 * said with both keys. */
static void name_other(copier *cp, const uint8_t *old, size_t ol, const uint8_t *nk, size_t nl)
{
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_scan *sc;
	const rk_row *r;
	size_t klen;
	rk_rekey__all_versions(&so.read);
	if (rk_scan_open(&sc, cp->old, &so) == 0) {
		while (rk_scan_next(&r, sc) == 0) {
			if ((r->key_len == ol && !memcmp(r->key, old, ol)) ||
			    rk_rekey__map_row(&cp->map, &klen, r) || klen != nl ||
			    memcmp(cp->map.key, nk, nl))
				continue;
			say_collision(cp, r->key, r->key_len, old, ol, nk, nl);
			rk_scan_close(sc);
			return;
		}
		rk_scan_close(sc);
	}
	char a[RK_REKEY_KEYTEXT], n[RK_REKEY_KEYTEXT];
	fprintf(RK_REKEY_ERR, "rowkey rekey: old row %s maps to new key %s, which the new table already "
	                "holds with other cells (from no old row found now): nothing of this batch "
	                "is written\n",
	        rk_rekey__key_text(a, sizeof a, old, ol), rk_rekey__key_text(n, sizeof n, nk, nl));
}

/* Checks the batch's new keys against the new table. 0 to write it, 1 on a
 * collision (said), -1 on a read error (said). */
int rk_rekey__held_keys(copier *cp)
{
	batch *b = cp->b;
	rk_read_options ro;
	rk_rekey__all_versions(&ro);
	for (size_t i = 0; i < b->nrows; i++) {
		const brow *br = &b->rows[i];
		rk_row *got;
		if (br->gone)
			continue;
		if (cp->filter) {
			const batch *f;
			const brow *fr;
			if (!rk_rekey__seen_maybe(&cp->seen, b->a.p + br->nk, br->nl))
				continue; /* certainly not in the new table */
			if ((fr = in_flight(cp, b->a.p + br->nk, br->nl, &f)) != NULL) {
				say_collision(cp, f->a.p + fr->ok, fr->ol, b->a.p + br->ok, br->ol,
				              b->a.p + br->nk, br->nl);
				return 1;
			}
		}
		int rc = rk_table_get(&got, cp->nt, b->a.p + br->nk, br->nl, &ro);
		if (rc == RK_ENOTFOUND)
			continue;
		if (rc) {
			rk_rekey__fail("reading the new table");
			return -1;
		}
		rk_row want = {b->a.p + br->nk, br->nl, b->cells + br->m0, br->nm};
		/* written by the killed run, or (served) by the mirror: as the
		   old row holds now, rewritten alike */
		int same = (i < cp->window || cp->o->live) && rk_rekey__same_cells(got, &want);
		rk_row_free(got);
		if (same)
			continue;
		uint8_t *o = malloc(br->ol + br->nl + 1);
		if (!o) {
			rk_rekey__no_memory();
			return -1;
		}
		memcpy(o, b->a.p + br->ok, br->ol);
		memcpy(o + br->ol, b->a.p + br->nk, br->nl);
		name_other(cp, o, br->ol, o + br->ol, br->nl);
		free(o);
		return 1;
	}
	return 0;
}

/* ---- a served table: the batch against the mirror ---- */

/* Holds (1) or lets go (0) the server's locks of the batch's old rows. */
int rk_rekey__hold_rows(copier *cp, int hold)
{
	batch *b = cp->b;
	const rk_rekey_live *lv = cp->o->live;
	const uint8_t **k = malloc(b->nrows * sizeof *k);
	size_t *l = malloc(b->nrows * sizeof *l);
	if (!k || !l) {
		free(k);
		free(l);
		return -1;
	}
	for (size_t i = 0; i < b->nrows; i++) {
		k[i] = b->a.p + b->rows[i].ok;
		l[i] = b->rows[i].ol;
	}
	lv->rows(lv->ctx, cp->c->source, k, l, b->nrows, hold);
	free(k);
	free(l);
	return 0;
}

/* With the rows held: each old row read again; one that is not as the scan
 * read it changed since, and the mirror wrote its new row as it is now (or
 * deleted it), so the copy leaves it. 0, or -1 (said). */
int rk_rekey__still_same(copier *cp)
{
	batch *b = cp->b;
	rk_read_options ro;
	rk_rekey__all_versions(&ro);
	for (size_t i = 0; i < b->nrows; i++) {
		brow *br = &b->rows[i];
		rk_row *now;
		int rc = rk_table_get(&now, cp->old, b->a.p + br->ok, br->ol, &ro);
		if (rc == RK_ENOTFOUND) {
			br->gone = 1;
			continue;
		}
		if (rc) {
			rk_rekey__fail("reading the old table");
			return -1;
		}
		rk_row was = {b->a.p + br->ok, br->ol, b->cells + br->m0, br->nm};
		br->gone = !rk_rekey__same_cells(now, &was);
		rk_row_free(now);
	}
	return 0;
}

/* The mutations of the rows not gone, moved to the front. */
size_t rk_rekey__kept_mutations(batch *b)
{
	size_t n = 0;
	for (size_t i = 0; i < b->nrows; i++)
		for (size_t k = 0; !b->rows[i].gone && k < b->rows[i].nm; k++)
			b->m[n++] = b->m[b->rows[i].m0 + k];
	return n;
}
