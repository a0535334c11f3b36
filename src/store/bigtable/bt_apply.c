/*
 * The Bigtable backend's writes (bt_store.h): store mutations mapped onto
 * Bigtable mutations, grouped by row (one MutateRows entry per row, in call
 * order), sent through one writer per call (bt_write.c); everything is
 * checked before anything is sent.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/bigtable/bt_store.h"

/* ---- writes ---- */

/* Turns one store mutation into a Bigtable one. *skip: nothing to send (a
 * single-version delete at a timestamp no millisecond cell can have). */
int rk_bt__map_mutation(rk_bt_mutation *out, int *skip, const bt_table *t, const rk_mutation *m,
                        size_t i, uint64_t now_us)
{
	char kb[200];
	*skip = 0;
	memset(out, 0, sizeof *out);
	out->family = m->family;
	out->qualifier = m->qualifier;
	out->qualifier_len = m->qualifier_len;
	if (m->row_len > BT_MAX_KEY)
		return rk__err(RK_ETOOLONG, "table %s: mutation %zu: row key '%s' is %zu bytes "
		               "(Bigtable row keys are at most %u)", t->base.name, i,
		               rk__err_bytes(kb, sizeof kb, m->row, m->row_len), m->row_len, BT_MAX_KEY);
	if ((m->type == RK_MUT_PUT || m->type == RK_MUT_DELETE_CELL ||
	     m->type == RK_MUT_DELETE_COLUMN) && m->qualifier_len > BT_MAX_QUALIFIER)
		return rk__err(RK_ETOOLONG, "table %s: mutation %zu: qualifier of %zu bytes (Bigtable "
		               "allows %u)", t->base.name, i, m->qualifier_len, BT_MAX_QUALIFIER);
	int64_t ts = (int64_t)m->ts; /* store.c checked ts <= INT64_MAX */
	switch (m->type) {
	case RK_MUT_PUT:
		if (m->value_len > BT_MAX_VALUE)
			return rk__err(RK_ETOOLONG, "table %s: mutation %zu: value of %zu bytes (Bigtable "
			               "allows %u)", t->base.name, i, m->value_len, BT_MAX_VALUE);
		if (ts % 1000)
			return rk__err(RK_EINVALID, "table %s: mutation %zu (row '%s'): timestamp %lld is "
			               "not a whole millisecond; Bigtable keeps milliseconds (give "
			               "microseconds that are a multiple of 1000, or 0 for now)",
			               t->base.name, i, rk__err_bytes(kb, sizeof kb, m->row, m->row_len),
			               (long long)ts);
		out->kind = RK_BT_SET_CELL;
		out->ts_micros = ts;
		out->value = m->value;
		out->value_len = m->value_len;
		return 0;
	case RK_MUT_DELETE_CELL:
		if (ts % 1000 || ts > INT64_MAX - 1000) {
			*skip = 1; /* no millisecond cell has this timestamp */
			return 0;
		}
		out->kind = RK_BT_DELETE_COLUMN;
		out->ts_micros = ts;
		out->ts_end_micros = ts + 1000;
		return 0;
	case RK_MUT_DELETE_COLUMN: {
		/* versions in [ts_from, ts]: the millisecond cells in [ts_from rounded
		 * up, the next millisecond after ts) */
		int64_t from = (int64_t)m->ts_from;
		out->kind = RK_BT_DELETE_COLUMN;
		out->ts_micros = from % 1000 ? from - from % 1000 + 1000 : from;
		if (ts <= INT64_MAX - 1000)
			out->ts_end_micros = ts - ts % 1000 + 1000;
		if (out->ts_end_micros && out->ts_micros >= out->ts_end_micros)
			*skip = 1; /* no millisecond cell in the range */
		return 0;
	}
	case RK_MUT_DELETE_FAMILY:
	case RK_MUT_DELETE_ROW: {
		int is_now = (rk_bt__last_clock.s == t->s && m->ts == rk_bt__last_clock.ts) || m->ts >= now_us;
		if (m->ts_from)
			return rk__err(RK_EINVALID,
			               "table %s: mutation %zu (row '%s'): deleting a %s from timestamp "
			               "%llu is not supported by Bigtable: it deletes every version of a "
			               "%s",
			               t->base.name, i, rk__err_bytes(kb, sizeof kb, m->row, m->row_len),
			               m->type == RK_MUT_DELETE_ROW ? "row" : "family",
			               (unsigned long long)m->ts_from,
			               m->type == RK_MUT_DELETE_ROW ? "row" : "family");
		if (!is_now)
			return rk__err(RK_EINVALID,
			               "table %s: mutation %zu (row '%s'): deleting a %s up to timestamp "
			               "%llu is not supported by Bigtable: it deletes every version of a "
			               "%s; only a delete at the current time (timestamp 0) maps onto it",
			               t->base.name, i, rk__err_bytes(kb, sizeof kb, m->row, m->row_len),
			               m->type == RK_MUT_DELETE_ROW ? "row" : "family",
			               (unsigned long long)m->ts,
			               m->type == RK_MUT_DELETE_ROW ? "row" : "family");
		out->kind = m->type == RK_MUT_DELETE_ROW ? RK_BT_DELETE_ROW : RK_BT_DELETE_FAMILY;
		return 0;
	}
	}
	return rk__err(RK_EINVALID, "table %s: mutation %zu: unknown type %d", t->base.name, i,
	               (int)m->type);
}

typedef struct sorted_mut {
	const uint8_t *row;
	size_t row_len;
	size_t idx;
} sorted_mut;

static int sorted_cmp(const void *a, const void *b)
{
	const sorted_mut *x = a, *y = b;
	int c = rk_bt__bytes_cmp(x->row, x->row_len, y->row, y->row_len);
	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

typedef struct apply_ctx {
	int *row_rc;    /* per sent row */
	uint64_t first; /* the writer's seq of the first row */
	uint64_t nrows;
} apply_ctx;

static void row_done(uint64_t seq, int rc, const char *why, void *payload)
{
	(void)why;
	apply_ctx *a = payload;
	if (seq >= a->first && seq - a->first < a->nrows)
		a->row_rc[seq - a->first] = rc;
}

int rk_bt__apply(rk_table *tb, const rk_mutation *muts, size_t n, int *results)
{
	bt_table *t = (bt_table *)tb;
	bt_store *s = t->s;
	char firstmsg[512] = "";
	int first = 0, rc = 0;
	uint64_t now_us = (uint64_t)rk_bt__now_micros();
	rk_bt_mutation *bm = calloc(n, sizeof *bm);
	int *skip = calloc(n, sizeof *skip);
	sorted_mut *ord = calloc(n, sizeof *ord);
	size_t *mut_row = calloc(n, sizeof *mut_row); /* mutation -> sent row number */
	int *row_rc = calloc(n, sizeof *row_rc);
	rk_bt_mutation *rowm = calloc(n, sizeof *rowm);
	rk_bt_writer *w = NULL;
	if (!bm || !skip || !ord || !mut_row || !row_rc || !rowm) {
		rc = rk__err(RK_ENOMEM, "table %s: out of memory for %zu mutations", tb->name, n);
		goto done;
	}
	/* everything is checked before anything is sent */
	for (size_t i = 0; i < n; i++) {
		int r = rk_bt__map_mutation(&bm[i], &skip[i], t, &muts[i], i, now_us);
		if (results)
			results[i] = r;
		if (r && !first) {
			first = r;
			snprintf(firstmsg, sizeof firstmsg, "%s", rk_error_last());
		}
	}
	if (first) {
		rc = rk__err(first, "%s", firstmsg);
		goto done;
	}
	/* group by row, keeping each row's mutations in call order */
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!skip[i])
			ord[k++] = (sorted_mut){muts[i].row, muts[i].row_len, i};
	qsort(ord, k, sizeof *ord, sorted_cmp);
	size_t nrows = 0;
	for (size_t i = 0; i < k;) {
		size_t j = i;
		while (j < k && !rk_bt__bytes_cmp(ord[j].row, ord[j].row_len, ord[i].row, ord[i].row_len))
			j++;
		if (j - i > BT_MAX_ROW_MUTATIONS) {
			char kb[200];
			for (size_t x = i; x < j && results; x++)
				results[ord[x].idx] = RK_EINVALID;
			rc = rk__err(RK_EINVALID, "table %s: %zu mutations of row '%s' in one call "
			             "(Bigtable takes at most %u per row and request)", tb->name, j - i,
			             rk__err_bytes(kb, sizeof kb, ord[i].row, ord[i].row_len),
			             BT_MAX_ROW_MUTATIONS);
			goto done;
		}
		for (size_t x = i; x < j; x++) {
			rowm[x] = bm[ord[x].idx];
			mut_row[ord[x].idx] = nrows;
		}
		nrows++;
		i = j;
	}
	if ((rc = rk_bt__writer_new(&w, s->c, tb->name)) < 0)
		goto done;
	apply_ctx ctx = {row_rc, 0, nrows};
	rk_bt__writer_on_done(w, row_done, &ctx);
	size_t row = 0;
	int add_err = 0;
	for (size_t i = 0; i < k; row++) {
		size_t j = i;
		while (j < k && !rk_bt__bytes_cmp(ord[j].row, ord[j].row_len, ord[i].row, ord[i].row_len))
			j++;
		rk_bt_write_stats before, after;
		rk_bt__writer_stats(&before, w);
		int r = rk_bt__writer_add(w, ord[i].row, ord[i].row_len, &rowm[i], j - i);
		if (r < 0) {
			rk_bt__writer_stats(&after, w);
			if (after.rows_added == before.rows_added)
				row_rc[row] = r; /* not queued: never sent */
			if (!add_err) {
				add_err = r;
				snprintf(firstmsg, sizeof firstmsg, "%s", rk_error_last());
			}
		}
		i = j;
	}
	rc = rk_bt__writer_flush(w);
	rk_bt_write_stats st;
	rk_bt__writer_stats(&st, w);
	/* a load is many applies: say how far it got, not only this call */
	uint64_t total = atomic_fetch_add(&s->acked, st.rows_acked) + st.rows_acked;
	if (rc < 0) {
		rc = rk__err_wrap(rc, "table %s in %s: %llu of %zu rows acknowledged (this call), "
		                  "%llu since the store was opened", tb->name, s->uri,
		                  (unsigned long long)st.rows_acked, nrows, (unsigned long long)total);
	} else if (add_err) {
		rc = rk__err(add_err, "table %s in %s: %llu of %zu rows acknowledged (this call), %llu "
		             "since the store was opened; %s", tb->name, s->uri,
		             (unsigned long long)st.rows_acked, nrows, (unsigned long long)total,
		             firstmsg);
	}
	if (results)
		for (size_t i = 0; i < n; i++)
			results[i] = skip[i] ? 0 : row_rc[mut_row[i]];
done:
	rk_bt__writer_free(w);
	free(bm);
	free(skip);
	free(ord);
	free(mut_row);
	free(row_rc);
	free(rowm);
	return rc;
}
