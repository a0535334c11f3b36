/*
 * rowkey rekey's copy: every row of the old table, in old-key order, its
 * new key from rekey_map.c, every cell (family, qualifier, each version,
 * timestamp) written to the new table in batches, resumable from the
 * checkpoint (docs/formats.md B.6).
 *
 * Nothing is ever overwritten: before a batch is applied its new keys are
 * checked against each other (sorted) and against the new table. A key
 * already held is a collision of two old rows, and the copy stops naming
 * both, except where a killed run may already have written that very row
 * (the checkpoint's `pending` rows after `done`) and the row holds exactly
 * its cells: rewriting those is idempotent.
 *
 * The check (rekey_check.c) reads a key from the new table only when it
 * may be there: every key the new table held when the copy began, and
 * every key written since, is in a Bloom filter (rekey_seen.c); a key it
 * may hold is looked for in the batches the store may still be writing
 * (their keys are kept, sorted), then read. Batches are queued two ahead as `rowkey load` does
 * (rk_table_apply_async), and the checkpoint is saved once for several
 * batches: its `pending` covers every row queued before the next save.
 * On a served table (the mirror writes the new table too) every key is
 * read and each batch is applied before its rows' locks are let go.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/rekey_copy_int.h"
#include "key/units.h"

void rk_rekey__all_versions(rk_read_options *ro)
{
	*ro = (rk_read_options)RK_READ_OPTIONS_INIT;
	ro->max_versions = UINT_MAX;
}

int rk_rekey__same_cells(const rk_row *a, const rk_row *b)
{
	if (a->ncells != b->ncells)
		return 0;
	for (size_t i = 0; i < a->ncells; i++) {
		const rk_cell *x = &a->cells[i], *y = &b->cells[i];
		if (strcmp(x->family, y->family) || x->ts != y->ts ||
		    x->qualifier_len != y->qualifier_len || x->value_len != y->value_len ||
		    memcmp(x->qualifier, y->qualifier, x->qualifier_len) ||
		    memcmp(x->value, y->value, x->value_len))
			return 0;
	}
	return 1;
}

/* Says the copy ran out of memory; RK_EXIT_FAIL. */
int rk_rekey__no_memory(void)
{
	fprintf(RK_REKEY_ERR, "rowkey rekey: out of memory\n");
	return RK_EXIT_FAIL;
}

/* ---- a batch ---- */

/* One old row of a batch: offsets into the arena (its old key, its new
 * key) and its mutations. */
static void batch_free(batch *b)
{
	free(b->rows);
	free(b->m);
	free(b->foff);
	free(b->qoff);
	free(b->voff);
	free(b->cells);
	free(b->ix);
	free(b->a.p);
}

static int grow(batch *b, size_t more)
{
	if (b->nm + more > b->mcap) {
		size_t c = b->mcap ? b->mcap : 1024;
		while (c < b->nm + more)
			c *= 2;
		rk_mutation *m = realloc(b->m, c * sizeof *m);
		size_t *f = m ? realloc(b->foff, c * sizeof *f) : NULL;
		if (m)
			b->m = m;
		if (f)
			b->foff = f;
		size_t *q = f ? realloc(b->qoff, c * sizeof *q) : NULL;
		if (q)
			b->qoff = q;
		size_t *v = q ? realloc(b->voff, c * sizeof *v) : NULL;
		if (v)
			b->voff = v;
		rk_cell *cl = v ? realloc(b->cells, c * sizeof *cl) : NULL;
		if (!cl)
			return -1;
		b->cells = cl;
		b->mcap = c;
	}
	if (b->nrows == b->rcap) {
		size_t c = b->rcap ? b->rcap * 2 : 256;
		brow *r = realloc(b->rows, c * sizeof *r);
		if (r)
			b->rows = r;
		size_t *ix = r ? realloc(b->ix, c * sizeof *ix) : NULL;
		if (!ix)
			return -1;
		b->ix = ix;
		b->rcap = c;
	}
	return 0;
}

static long put(batch *b, const void *p, size_t n)
{
	return rk_load__arena_put(&b->a, p, n);
}

/* Old row r with new key m->key[0..klen) into the batch. */
static int add_row(copier *cp, const rk_row *r, size_t klen)
{
	batch *b = cp->b;
	char kt[RK_REKEY_KEYTEXT];
	if (r->key_len > cp->max_old_key) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: old row %s: its key of %zu bytes would not fit the "
		                "checkpoint (at most %zu bytes here; docs/formats.md B.6)\n",
		        rk_rekey__key_text(kt, sizeof kt, r->key, r->key_len), r->key_len,
		        cp->max_old_key);
		return -2;
	}
	if (grow(b, r->ncells))
		return -1;
	long ok = put(b, r->key, r->key_len), nk = put(b, cp->map.key, klen);
	if (ok < 0 || nk < 0)
		return -1;
	brow *br = &b->rows[b->nrows++];
	*br = (brow){(size_t)ok, r->key_len, (size_t)nk, klen, b->nm, r->ncells, 0};
	for (size_t i = 0; i < r->ncells; i++) {
		const rk_cell *c = &r->cells[i];
		if (c->ts == 0) { /* the store would assign a new one: not a copy */
			fprintf(RK_REKEY_ERR, "rowkey rekey: old row %s: a cell with timestamp 0 cannot be "
			                "written with its timestamp kept\n",
			        rk_rekey__key_text(kt, sizeof kt, r->key, r->key_len));
			return -2;
		}
		long f = put(b, c->family, strlen(c->family) + 1);
		long q = put(b, c->qualifier ? c->qualifier : (const uint8_t *)"", c->qualifier_len);
		long v = put(b, c->value ? c->value : (const uint8_t *)"", c->value_len);
		if (f < 0 || q < 0 || v < 0)
			return -1;
		b->foff[b->nm] = (size_t)f;
		b->qoff[b->nm] = (size_t)q;
		b->voff[b->nm] = (size_t)v;
		b->m[b->nm++] = (rk_mutation){RK_MUT_PUT, NULL, klen, NULL, NULL, c->qualifier_len,
		                              c->ts, NULL, c->value_len, 0};
	}
	return 0;
}

/* Points the mutations into the arena (it may have moved while filling). */
static void fix_up(batch *b)
{
	for (size_t i = 0; i < b->nrows; i++)
		for (size_t k = b->rows[i].m0; k < b->rows[i].m0 + b->rows[i].nm; k++) {
			rk_mutation *m = &b->m[k];
			m->row = b->a.p + b->rows[i].nk;
			m->family = (const char *)b->a.p + b->foff[k];
			m->qualifier = b->a.p + b->qoff[k];
			m->value = b->a.p + b->voff[k];
			b->cells[k] = (rk_cell){m->family, m->qualifier, m->qualifier_len, m->ts,
			                        m->value, m->value_len, NULL};
		}
}

/* ---- the batch's write ---- */

/* Saves the checkpoint, once every batch queued is acknowledged (its
 * `done` is the last row queued). */
static int save(copier *cp)
{
	if (rk_table_flush(cp->nt))
		return rk_rekey__fail("writing a batch to the new table");
	for (unsigned i = 0; i < RING; i++)
		cp->ring[i].flight = 0;
	if (rk_rekey__ckpt_save(cp->s, cp->c->target, cp->c))
		return rk_rekey__fail("saving the checkpoint");
	return 0;
}

/* A checkpoint whose `pending` covers the next n rows and the batches
 * after them up to the next save, and the rows a killed run may have
 * written past them. */
static int save_ahead(copier *cp, uint64_t n)
{
	uint64_t p = cp->per_save > n ? cp->per_save : n;
	cp->c->pending = p > cp->window ? p : cp->window;
	int rc = save(cp);
	if (rc)
		return rc;
	cp->budget = cp->c->pending;
	cp->since = 0;
	return 0;
}

/* Applies the checked batch: queued (not served; its keys then count as
 * held), or applied with its rows held (served). 0, or the exit status. */
static int apply(copier *cp)
{
	batch *b = cp->b;
	if (cp->o->live) {
		size_t nm = rk_rekey__kept_mutations(b);
		if (nm && rk_table_apply(cp->nt, b->m, nm, NULL))
			return rk_rekey__fail("writing a batch to the new table");
		return 0;
	}
	if (rk_table_apply_async(cp->nt, b->m, b->nm))
		return rk_rekey__fail("writing a batch to the new table");
	b->flight = 1;
	for (size_t i = 0; i < b->nrows; i++)
		rk_rekey__seen_add(&cp->seen, b->a.p + b->rows[i].nk, b->rows[i].nl);
	return 0;
}

/* Writes the batch: a checkpoint first when the last one does not cover
 * its rows, then the checks, then the cells; the checkpoint's `done` moves
 * on with the next save. 0, or the exit status (said). */
static int flush_batch(copier *cp)
{
	batch *b = cp->b;
	rk_rekey_ckpt *c = cp->c;
	if (!b->nrows)
		return 0;
	fix_up(b);
	int rc = rk_rekey__batch_duplicates(cp);
	if (rc)
		return RK_EXIT_FAIL;
	if (cp->since + b->nrows > cp->budget && (rc = save_ahead(cp, b->nrows)) != 0)
		return rc;
	if (cp->o->live && rk_rekey__hold_rows(cp, 1))
		return rk_rekey__no_memory();
	if (cp->o->live && rk_rekey__still_same(cp))
		rc = RK_EXIT_FAIL;
	else if (rk_rekey__held_keys(cp))
		rc = RK_EXIT_FAIL;
	else
		rc = apply(cp);
	if (cp->o->live)
		rk_rekey__hold_rows(cp, 0);
	if (rc)
		return rc;
	const brow *last = &b->rows[b->nrows - 1];
	uint8_t *d = malloc(last->ol ? last->ol : 1);
	if (!d)
		return rk_rekey__no_memory();
	memcpy(d, b->a.p + last->ok, last->ol);
	free(c->done);
	c->done = d;
	c->done_len = last->ol;
	c->rows += b->nrows;
	c->cells += b->nm;
	cp->copied += b->nrows;
	cp->since += b->nrows;
	cp->window = cp->window > b->nrows ? cp->window - b->nrows : 0;
	cp->cur = (cp->cur + 1) % RING; /* its batch was acknowledged: queuing this one waited */
	cp->b = &cp->ring[cp->cur];
	cp->b->nrows = cp->b->nm = cp->b->a.len = 0;
	cp->b->flight = 0;
	rk_cli_progress_rows(&cp->pr, "copy", cp->copied,
	                     rk_rekey__eta_total(&cp->eta, c->done, c->done_len, cp->copied));
	return 0;
}

/* ---- the copy ---- */

/* Where the copy resumes: just after `done`. */
static int scan_from_done(rk_scan **sc, copier *cp, uint8_t **startbuf)
{
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_rekey__all_versions(&so.read);
	*startbuf = NULL;
	if (cp->c->done) { /* the smallest key after done: done followed by 0x00 */
		if (!(*startbuf = malloc(cp->c->done_len + 1)))
			return RK_ENOMEM;
		memcpy(*startbuf, cp->c->done, cp->c->done_len);
		(*startbuf)[cp->c->done_len] = 0;
		so.start = *startbuf;
		so.start_len = cp->c->done_len + 1;
	}
	return rk_scan_open(sc, cp->old, &so);
}

/* Every key the new table holds into the filter (a keys-only scan; a
 * table the copy has not yet written is empty). 0, or the exit status. */
static int seed(copier *cp)
{
	rk_filter kids[2] = {{.kind = RK_FILTER_ROW_LIMIT, .n = 1}, {.kind = RK_FILTER_STRIP_VALUE}};
	rk_filter f = {.kind = RK_FILTER_CHAIN, .kids = kids, .nkids = 2};
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_scan *sc;
	const rk_row *r;
	int e;
	so.read.filter = &f;
	if (rk_scan_open(&sc, cp->nt, &so))
		return rk_rekey__fail("reading the new table");
	while ((e = rk_scan_next(&r, sc)) == 0)
		rk_rekey__seen_add(&cp->seen, r->key, r->key_len);
	rk_scan_close(sc);
	if (e != RK_EITEROVER)
		return rk_rekey__fail("reading the new table");
	cp->filter = 1;
	return 0;
}

static int copy_rows(copier *cp)
{
	rk_scan *sc;
	uint8_t *start;
	const rk_row *r;
	size_t klen;
	int rc = scan_from_done(&sc, cp, &start), e;
	if (rc) {
		free(start);
		return rk_rekey__fail("reading the old table");
	}
	while ((e = rk_scan_next(&r, sc)) == 0) {
		if (rk_rekey__map_row(&cp->map, &klen, r)) {
			fprintf(RK_REKEY_ERR, "rowkey rekey: %s; nothing of it is written (%llu row%s copied "
			                "before it)\n", rk_error_last(), (unsigned long long)cp->c->rows,
			        cp->c->rows == 1 ? "" : "s");
			rc = RK_EXIT_FAIL;
			break;
		}
		if (!cp->copied && !cp->b->nrows)
			rk_rekey__eta_start(&cp->eta, r->key, r->key_len);
		if ((e = add_row(cp, r, klen)) != 0) {
			rc = e == -1 ? rk_rekey__no_memory() : RK_EXIT_FAIL;
			break;
		}
		if ((cp->b->nrows >= cp->o->batch || cp->b->a.len > (16u << 20)) &&
		    (rc = flush_batch(cp)) != 0)
			break;
	}
	if (!rc && e != RK_EITEROVER)
		rc = rk_rekey__fail("reading the old table");
	rk_scan_close(sc);
	free(start);
	return rc ? rc : flush_batch(cp);
}

int rk_rekey__copy(rk_store *s, rk_rekey_ckpt *c, const rk_rekey_opts *o)
{
	/* the saved checkpoint already covers its pending rows after done */
	copier cp = {.s = s, .c = c, .o = o, .window = c->pending, .budget = c->pending};
	struct timespec t0, t1;
	int rc = RK_EXIT_FAIL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rk_cli_progress_init(&cp.pr, RK_REKEY_CMD, o->quiet);
	cp.pr.about = 1;
	if (rk_rekey__map_init(&cp.map, c->old_schema, c->new_schema)) {
		rk_rekey__fail("preparing the new design");
		goto out;
	}
	/* the checkpoint's text without `done`, and 64 bytes for its counts */
	size_t fixed = 300 + strlen(c->source) + strlen(c->target) + strlen(c->old_schema) +
	               strlen(c->new_schema);
	cp.max_old_key = fixed < 65536 ? (65536 - fixed) / 2 : 0;
	cp.per_save = BATCHES_PER_SAVE * o->batch;
	cp.b = &cp.ring[0];
	if (rk_table_open(&cp.old, s, c->source) || rk_table_open(&cp.nt, s, c->target)) {
		rk_rekey__fail("opening the tables");
		goto out;
	}
	if (o->live && o->live->mirror_on(o->live->ctx, c)) {
		rk_rekey__fail("turning the server's mirror of the table's writes on");
		goto out;
	}
	if (!o->live && (rc = seed(&cp)) != 0)
		goto out;
	rc = RK_EXIT_FAIL;
	if (c->done && !o->quiet) {
		char kt[RK_REKEY_KEYTEXT];
		fprintf(RK_REKEY_ERR, "rowkey rekey: resuming after old row %s (%llu rows copied)\n",
		        rk_rekey__key_text(kt, sizeof kt, c->done, c->done_len),
		        (unsigned long long)c->rows);
	}
	if (!o->quiet)
		rk_rekey__eta_init(&cp.eta, cp.old);
	if ((rc = copy_rows(&cp)) != 0)
		goto out;
	snprintf(c->state, sizeof c->state, "copied");
	c->pending = 0;
	snprintf(c->verify, sizeof c->verify, "-");
	if ((rc = save(&cp)) != 0)
		goto out;
	rk_cli_progress_done(&cp.pr);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	char n[4][RK_NUM_STR];
	fprintf(RK_REKEY_OUT, "copied %s rows of %s into %s in %.2f s (%s); %s rows, %s cells in all\n",
	       rk__count_text(n[0], RK_NUM_STR, cp.copied), c->source, c->target, secs,
	       rk__rate_str(n[1], secs > 0 ? (double)cp.copied / secs : 0.0, "rows"),
	       rk__count_text(n[2], RK_NUM_STR, c->rows), rk__count_text(n[3], RK_NUM_STR, c->cells));
out:
	rk_cli_progress_done(&cp.pr);
	if (rc && cp.nt && rk_table_flush(cp.nt)) /* the batches queued before the failure */
		rk_rekey__fail("writing a batch to the new table");
	rk_table_close(cp.old);
	rk_table_close(cp.nt);
	rk_rekey__map_free(&cp.map);
	for (unsigned i = 0; i < RING; i++)
		batch_free(&cp.ring[i]);
	rk_rekey__seen_free(&cp.seen);
	rk_rekey__eta_free(&cp.eta);
	return rc;
}
