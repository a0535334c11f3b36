/*
 * rowkey rekey --verify: the old and the new table compared by logical
 * record, never by raw bytes. Each old row's key is decoded and encoded
 * again under the new design (rekey_map.c), and the new table's row of that
 * key must hold the same cells, every version; then the new table's rows
 * are counted. Equal counts, and equal sums of a hash of the keys the old
 * rows map to and of the keys the new table holds (docs/formats.md B.6),
 * show that no two old rows share a new key and nothing else is there. A
 * straight pass over both tables, not range by range.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/rekey.h"
#include "key/units.h"

#define SHOW_MAX 10

typedef struct verifier {
	rk_rekey_map map;
	rk_table *old, *nt;
	uint64_t old_rows, new_rows, old_sum, new_sum, diffs;
	rk_cli_progress pr;
} verifier;

/* Says one difference (the first SHOW_MAX of them). */
static void differ(verifier *v, const rk_row *old, size_t nl, const char *what)
{
	char a[RK_REKEY_KEYTEXT], b[RK_REKEY_KEYTEXT];
	if (++v->diffs > SHOW_MAX)
		return;
	fprintf(RK_REKEY_OUT, "differs: old row %s -> new row %s: %s\n",
	       rk_rekey__key_text(a, sizeof a, old->key, old->key_len),
	       nl ? rk_rekey__key_text(b, sizeof b, v->map.key, nl) : "(none)", what);
}

/* Where two rows' cells first differ, in words, into buf. */
static const char *first_cell_diff(char *buf, size_t cap, const rk_row *o, const rk_row *n)
{
	size_t i = 0;
	while (i < o->ncells && i < n->ncells && rk_rekey__same_cells(
	           &(rk_row){NULL, 0, o->cells + i, 1}, &(rk_row){NULL, 0, n->cells + i, 1}))
		i++;
	const rk_cell *c = i < o->ncells ? &o->cells[i] : &n->cells[i];
	char q[RK_REKEY_KEYTEXT];
	snprintf(buf, cap, "%zu cells old, %zu new; first difference at %s:%s@%llu (%s)", o->ncells,
	         n->ncells, c->family, rk_rekey__key_text(q, sizeof q, c->qualifier, c->qualifier_len),
	         (unsigned long long)c->ts, i < o->ncells ? "the old row's" : "only in the new row");
	return buf;
}

static int old_pass(verifier *v)
{
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_read_options ro;
	rk_scan *sc;
	const rk_row *r;
	size_t nl;
	int e;
	char why[512];
	rk_rekey__all_versions(&so.read);
	rk_rekey__all_versions(&ro);
	if (rk_scan_open(&sc, v->old, &so))
		return rk_rekey__fail("reading the old table");
	while ((e = rk_scan_next(&r, sc)) == 0) {
		v->old_rows++;
		if (rk_rekey__map_row(&v->map, &nl, r)) {
			snprintf(why, sizeof why, "%s", rk_error_last());
			differ(v, r, 0, why);
			continue;
		}
		v->old_sum += XXH3_64bits(v->map.key, nl);
		rk_row *got;
		int rc = rk_table_get(&got, v->nt, v->map.key, nl, &ro);
		if (rc == RK_ENOTFOUND) {
			differ(v, r, nl, "missing from the new table");
		} else if (rc) {
			rk_scan_close(sc);
			return rk_rekey__fail("reading the new table");
		} else {
			if (!rk_rekey__same_cells(r, got))
				differ(v, r, nl, first_cell_diff(why, sizeof why, r, got));
			rk_row_free(got);
		}
		rk_cli_progress_rows(&v->pr, "verify", v->old_rows, 0);
	}
	rk_scan_close(sc);
	return e == RK_EITEROVER ? 0 : rk_rekey__fail("reading the old table");
}

static int new_pass(verifier *v)
{
	rk_filter kids[2] = {{.kind = RK_FILTER_ROW_LIMIT, .n = 1}, {.kind = RK_FILTER_STRIP_VALUE}};
	rk_filter f = {.kind = RK_FILTER_CHAIN, .kids = kids, .nkids = 2};
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_scan *sc;
	const rk_row *r;
	int e;
	so.read.filter = &f;
	if (rk_scan_open(&sc, v->nt, &so))
		return rk_rekey__fail("reading the new table");
	while ((e = rk_scan_next(&r, sc)) == 0) {
		v->new_rows++;
		v->new_sum += XXH3_64bits(r->key, r->key_len);
	}
	rk_scan_close(sc);
	return e == RK_EITEROVER ? 0 : rk_rekey__fail("reading the new table");
}

/* The result into the checkpoint, and said. 0 when clean. */
static int record(rk_store *s, rk_rekey_ckpt *c, verifier *v)
{
	char n[2][RK_NUM_STR];
	int clean = !v->diffs && v->old_rows == v->new_rows && v->old_sum == v->new_sum;
	if (v->diffs > SHOW_MAX)
		fprintf(RK_REKEY_OUT, "(%llu more differences not shown)\n", (unsigned long long)(v->diffs - SHOW_MAX));
	fprintf(RK_REKEY_OUT, "verify %s into %s: %s old rows, %s new rows, %llu rows differ, key digests %s: %s\n",
	       c->source, c->target, rk__count_text(n[0], RK_NUM_STR, v->old_rows),
	       rk__count_text(n[1], RK_NUM_STR, v->new_rows), (unsigned long long)v->diffs,
	       v->old_sum == v->new_sum ? "equal" : "differ", clean ? "clean" : "NOT CLEAN");
	if (!clean && !v->diffs)
		fprintf(RK_REKEY_OUT, "(every old row is in the new table, but %s: two old rows share a new key, or "
		       "the new table holds rows no old row maps to)\n",
		       v->old_rows != v->new_rows ? "the counts differ" : "the key digests differ");
	if (clean) {
		snprintf(c->state, sizeof c->state, "verified");
		snprintf(c->verify, sizeof c->verify, "clean %llu %llu %016llx",
		         (unsigned long long)v->old_rows, (unsigned long long)v->new_rows,
		         (unsigned long long)v->new_sum);
	} else {
		snprintf(c->state, sizeof c->state, "copied");
		snprintf(c->verify, sizeof c->verify, "failed %llu",
		         (unsigned long long)(v->diffs ? v->diffs : 1));
	}
	if (rk_rekey__ckpt_save(s, c->target, c))
		return rk_rekey__fail("recording the verify in the checkpoint");
	return clean ? RK_EXIT_OK : RK_EXIT_FAIL;
}

int rk_rekey__verify(rk_store *s, rk_rekey_ckpt *c, const rk_rekey_opts *o)
{
	verifier v = {0};
	int rc = RK_EXIT_FAIL;
	rk_cli_progress_init(&v.pr, RK_REKEY_CMD, o->quiet);
	if (rk_rekey__map_init(&v.map, c->old_schema, c->new_schema)) {
		rk_rekey__fail("preparing the new design");
		goto out;
	}
	if (rk_table_open(&v.old, s, c->source) || rk_table_open(&v.nt, s, c->target)) {
		rk_rekey__fail("opening the tables");
		goto out;
	}
	const rk_rekey_live *lv = o->live;
	if (lv && lv->mirror_error(lv->ctx, c->source)) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: the server's mirror of %s into %s failed: %s; the "
		        "new table misses writes: --abort, then start again\n", c->source, c->target,
		        lv->mirror_error(lv->ctx, c->source));
		rc = RK_EXIT_FAIL;
		goto out;
	}
	/* served: the tables must not change while they are compared; the
	   server's writes wait (none is refused) */
	if (lv)
		lv->writes(lv->ctx, 1);
	if ((rc = old_pass(&v)) == 0 && (rc = new_pass(&v)) == 0) {
		rk_cli_progress_done(&v.pr);
		rk_table_close(v.old);
		rk_table_close(v.nt);
		v.old = v.nt = NULL;
		rc = record(s, c, &v);
	}
	if (lv)
		lv->writes(lv->ctx, 0);
out:
	rk_cli_progress_done(&v.pr);
	rk_table_close(v.old);
	rk_table_close(v.nt);
	rk_rekey__map_free(&v.map);
	return rc;
}
