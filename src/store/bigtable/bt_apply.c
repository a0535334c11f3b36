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

/* A cell, at a whole millisecond: Bigtable keeps milliseconds. */
static int map_put(rk_bt_mutation *out, const bt_table *t, const rk_mutation *m, size_t i)
{
	char kb[200];
	int64_t ts = (int64_t)m->ts; /* store.c checked ts <= INT64_MAX */
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
}

/* One version: the millisecond cell at ts, if a millisecond cell can be there. */
static int map_delete_cell(rk_bt_mutation *out, int *skip, const rk_mutation *m)
{
	int64_t ts = (int64_t)m->ts; /* store.c checked ts <= INT64_MAX */
	if (ts % 1000 || ts > INT64_MAX - 1000) {
		*skip = 1; /* no millisecond cell has this timestamp */
		return 0;
	}
	out->kind = RK_BT_DELETE_COLUMN;
	out->ts_micros = ts;
	out->ts_end_micros = ts + 1000;
	return 0;
}

/* The versions in [ts_from, ts]: the millisecond cells in [ts_from rounded
 * up, the next millisecond after ts). */
static int map_delete_column(rk_bt_mutation *out, int *skip, const rk_mutation *m)
{
	int64_t ts = (int64_t)m->ts, from = (int64_t)m->ts_from;
	out->kind = RK_BT_DELETE_COLUMN;
	out->ts_micros = from % 1000 ? from - from % 1000 + 1000 : from;
	if (ts <= INT64_MAX - 1000)
		out->ts_end_micros = ts - ts % 1000 + 1000;
	if (out->ts_end_micros && out->ts_micros >= out->ts_end_micros)
		*skip = 1; /* no millisecond cell in the range */
	return 0;
}

/* A family or a row: Bigtable deletes every version of it, so only a delete
 * of everything up to now maps onto that. */
static int map_delete_all(rk_bt_mutation *out, const bt_table *t, const rk_mutation *m, size_t i,
                          uint64_t now_us)
{
	char kb[200];
	const char *what = m->type == RK_MUT_DELETE_ROW ? "row" : "family";
	int is_now = (rk_bt__last_clock.s == t->s && m->ts == rk_bt__last_clock.ts) || m->ts >= now_us;
	if (m->ts_from)
		return rk__err(RK_EINVALID,
		               "table %s: mutation %zu (row '%s'): deleting a %s from timestamp "
		               "%llu is not supported by Bigtable: it deletes every version of a "
		               "%s",
		               t->base.name, i, rk__err_bytes(kb, sizeof kb, m->row, m->row_len), what,
		               (unsigned long long)m->ts_from, what);
	if (!is_now)
		return rk__err(RK_EINVALID,
		               "table %s: mutation %zu (row '%s'): deleting a %s up to timestamp "
		               "%llu is not supported by Bigtable: it deletes every version of a "
		               "%s; only a delete at the current time (timestamp 0) maps onto it",
		               t->base.name, i, rk__err_bytes(kb, sizeof kb, m->row, m->row_len), what,
		               (unsigned long long)m->ts, what);
	out->kind = m->type == RK_MUT_DELETE_ROW ? RK_BT_DELETE_ROW : RK_BT_DELETE_FAMILY;
	return 0;
}

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
	switch (m->type) {
	case RK_MUT_PUT:
		return map_put(out, t, m, i);
	case RK_MUT_DELETE_CELL:
		return map_delete_cell(out, skip, m);
	case RK_MUT_DELETE_COLUMN:
		return map_delete_column(out, skip, m);
	case RK_MUT_DELETE_FAMILY:
	case RK_MUT_DELETE_ROW:
		return map_delete_all(out, t, m, i, now_us);
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

/* One apply's working arrays, each as long as the call's mutations, so no
 * row needs an allocation of its own. */
typedef struct apply_run {
	rk_bt_mutation *bm;   /* mutation i, mapped */
	int *skip;            /* mutation i has nothing to send */
	sorted_mut *ord;      /* the mutations to send, by row, then in call order */
	size_t k;             /* how many there are */
	rk_bt_mutation *rowm; /* bm in ord's order: each row's mutations side by side */
	size_t *mut_row;      /* mutation i -> sent row number */
	int *row_rc;          /* per sent row */
	size_t nrows;
} apply_run;

static int run_alloc(apply_run *r, size_t n, const char *table)
{
	memset(r, 0, sizeof *r);
	r->bm = calloc(n, sizeof *r->bm);
	r->skip = calloc(n, sizeof *r->skip);
	r->ord = calloc(n, sizeof *r->ord);
	r->mut_row = calloc(n, sizeof *r->mut_row);
	r->row_rc = calloc(n, sizeof *r->row_rc);
	r->rowm = calloc(n, sizeof *r->rowm);
	if (!r->bm || !r->skip || !r->ord || !r->mut_row || !r->row_rc || !r->rowm)
		return rk__err(RK_ENOMEM, "table %s: out of memory for %zu mutations", table, n);
	return 0;
}

static void run_free(apply_run *r)
{
	free(r->bm);
	free(r->skip);
	free(r->ord);
	free(r->mut_row);
	free(r->row_rc);
	free(r->rowm);
}

/* Maps every mutation, so that everything is checked before anything is
 * sent; each gets its result, and the first failure is the call's. */
static int map_all(apply_run *r, const bt_table *t, const rk_mutation *muts, size_t n,
                   int *results, uint64_t now_us)
{
	char firstmsg[512] = "";
	int first = 0;
	for (size_t i = 0; i < n; i++) {
		int rc = rk_bt__map_mutation(&r->bm[i], &r->skip[i], t, &muts[i], i, now_us);
		if (results)
			results[i] = rc;
		if (rc && !first) {
			first = rc;
			snprintf(firstmsg, sizeof firstmsg, "%s", rk_error_last());
		}
	}
	return first ? rk__err(first, "%s", firstmsg) : 0;
}

/* The end of the row whose first mutation is ord[i]. */
static size_t row_end(const sorted_mut *ord, size_t i, size_t k)
{
	size_t j = i;
	while (j < k && !rk_bt__bytes_cmp(ord[j].row, ord[j].row_len, ord[i].row, ord[i].row_len))
		j++;
	return j;
}

/* Groups the mutations to send by row, each row's in call order (the index
 * breaks ties in the sort), and numbers the rows. */
static int group_rows(apply_run *r, const char *table, const rk_mutation *muts, size_t n,
                      int *results)
{
	r->k = 0;
	for (size_t i = 0; i < n; i++)
		if (!r->skip[i])
			r->ord[r->k++] = (sorted_mut){muts[i].row, muts[i].row_len, i};
	qsort(r->ord, r->k, sizeof *r->ord, sorted_cmp);
	r->nrows = 0;
	for (size_t i = 0, j; i < r->k; i = j) {
		j = row_end(r->ord, i, r->k);
		if (j - i > BT_MAX_ROW_MUTATIONS) {
			char kb[200];
			for (size_t x = i; x < j && results; x++)
				results[r->ord[x].idx] = RK_EINVALID;
			return rk__err(RK_EINVALID, "table %s: %zu mutations of row '%s' in one call "
			               "(Bigtable takes at most %u per row and request)", table, j - i,
			               rk__err_bytes(kb, sizeof kb, r->ord[i].row, r->ord[i].row_len),
			               BT_MAX_ROW_MUTATIONS);
		}
		for (size_t x = i; x < j; x++) {
			r->rowm[x] = r->bm[r->ord[x].idx];
			r->mut_row[r->ord[x].idx] = r->nrows;
		}
		r->nrows++;
	}
	return 0;
}

/* Gives each row to the writer. Returns the first error it gave back, its
 * message in msg; a row it did not queue was never sent, and that error is
 * its result. */
static int send_rows(apply_run *r, rk_bt_writer *w, char *msg, size_t msg_size)
{
	int add_err = 0;
	size_t row = 0;
	for (size_t i = 0, j; i < r->k; i = j, row++) {
		j = row_end(r->ord, i, r->k);
		rk_bt_write_stats before, after;
		rk_bt__writer_stats(&before, w);
		int rc = rk_bt__writer_add(w, r->ord[i].row, r->ord[i].row_len, &r->rowm[i], j - i);
		if (rc < 0) {
			rk_bt__writer_stats(&after, w);
			if (after.rows_added == before.rows_added)
				r->row_rc[row] = rc; /* not queued: never sent */
			if (!add_err) {
				add_err = rc;
				snprintf(msg, msg_size, "%s", rk_error_last());
			}
		}
	}
	return add_err;
}

/* The call's result once the writer is flushed (rc: the flush's). A load is
 * many applies: an error says how far the store got, not only this call. */
static int apply_result(int rc, int add_err, const char *add_msg, bt_store *s, const char *table,
                        rk_bt_writer *w, size_t nrows)
{
	rk_bt_write_stats st;
	rk_bt__writer_stats(&st, w);
	uint64_t total = atomic_fetch_add(&s->acked, st.rows_acked) + st.rows_acked;
	if (rc < 0)
		return rk__err_wrap(rc, "table %s in %s: %llu of %zu rows acknowledged (this call), "
		                    "%llu since the store was opened", table, s->uri,
		                    (unsigned long long)st.rows_acked, nrows, (unsigned long long)total);
	if (add_err)
		return rk__err(add_err, "table %s in %s: %llu of %zu rows acknowledged (this call), "
		               "%llu since the store was opened; %s", table, s->uri,
		               (unsigned long long)st.rows_acked, nrows, (unsigned long long)total,
		               add_msg);
	return rc;
}

int rk_bt__apply(rk_table *tb, const rk_mutation *muts, size_t n, int *results)
{
	bt_table *t = (bt_table *)tb;
	bt_store *s = t->s;
	char add_msg[512] = "";
	uint64_t now_us = (uint64_t)rk_bt__now_micros();
	apply_run r;
	rk_bt_writer *w = NULL;
	int rc;
	if ((rc = run_alloc(&r, n, tb->name)) < 0 ||
	    (rc = map_all(&r, t, muts, n, results, now_us)) != 0 ||
	    (rc = group_rows(&r, tb->name, muts, n, results)) < 0 ||
	    (rc = rk_bt__writer_new(&w, s->c, t->id)) < 0)
		goto done;
	apply_ctx ctx = {r.row_rc, 0, r.nrows};
	rk_bt__writer_on_done(w, row_done, &ctx);
	int add_err = send_rows(&r, w, add_msg, sizeof add_msg);
	rc = apply_result(rk_bt__writer_flush(w), add_err, add_msg, s, tb->name, w, r.nrows);
	if (results)
		for (size_t i = 0; i < n; i++)
			results[i] = r.skip[i] ? 0 : r.row_rc[r.mut_row[i]];
done:
	rk_bt__writer_free(w);
	run_free(&r);
	return rc;
}
