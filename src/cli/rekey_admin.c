/*
 * rowkey rekey's steps after the copy: --cutover (the names swapped in one
 * catalogue change, refused without a clean verify on record), --abort
 * (the new table and its checkpoint dropped) and --drop-old (the old table
 * dropped once the new one has its name). On Bigtable the store renames
 * in rowkey's own table of names (Bigtable has no rename), so the cutover
 * also says which Bigtable table ids now hold the names: clients that open
 * Bigtable tables themselves must open those (docs/rekey.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/rekey.h"
#include "cli/store_cli.h"

#define CMD RK_REKEY_CMD

/* On Bigtable: which table ids now hold the table and the old one, for
 * the clients that open tables by id (cbt, Google's client libraries). */
static void say_bigtable_ids(rk_store *s, const rk_rekey_names *n)
{
	char *id = rk_cli__bigtable_id(s, n->table), *old = rk_cli__bigtable_id(s, n->oldname);
	if (id && old)
		fprintf(RK_REKEY_OUT, "on Bigtable, %s is now table %s and %s is table %s: rowkey "
		        "finds them by name; cbt and the client libraries open table ids, so point "
		        "them at %s\n", n->table, id, n->oldname, old, id);
	free(id);
	free(old);
}

/* Prints text single-quoted for a shell. */
static void shell_quoted(const char *t)
{
	fputc('\'', RK_REKEY_OUT);
	for (; *t; t++)
		if (*t == '\'')
			fputs("'\\''", RK_REKEY_OUT);
		else
			fputc(*t, RK_REKEY_OUT);
	fputc('\'', RK_REKEY_OUT);
}

/* What clients must change: the design, and the encoders to write again. */
static void say_new_design(const rk_rekey_ckpt *c, const char *table)
{
	static const char *const langs[] = {"java", "python", "go", "ts"};
	fprintf(RK_REKEY_OUT, "new design of %s: %s\n", table, c->new_schema);
	fprintf(RK_REKEY_OUT, "clients must encode keys with it; write their encoders again:\n");
	for (size_t i = 0; i < sizeof langs / sizeof *langs; i++) {
		fprintf(RK_REKEY_OUT, "  rowkey gen --lang %s -s ", langs[i]);
		shell_quoted(c->new_schema);
		fprintf(RK_REKEY_OUT, " -o DIR\n");
	}
}

/* ---- a served store: the server's calls on the tables held ---- */

/* The tables a step renames or drops: the old table, the new, the old
 * table's name after the cutover (the first k). */
static void step_names(const char *names[3], const rk_rekey_names *n)
{
	names[0] = n->table;
	names[1] = n->target;
	names[2] = n->oldname;
}

/* Served: the calls on the first k of step_names drained and held, and
 * (k > 1) the mirror checked. 0, or the exit status (said). */
static int live_hold(const rk_rekey_names *n, size_t k)
{
	const rk_rekey_live *lv = n->live;
	const char *names[3];
	if (!lv)
		return 0;
	step_names(names, n);
	lv->tables(lv->ctx, n->table, names, k, 0);
	const char *e = k > 1 ? lv->mirror_error(lv->ctx, n->table) : NULL;
	if (!e)
		return 0;
	fprintf(RK_REKEY_ERR, "rowkey rekey: the server's mirror of %s into %s failed: %s; the "
	        "new table misses writes: --abort, then start again\n", n->table, n->target, e);
	lv->tables(lv->ctx, n->table, names, k, 2);
	return RK_EXIT_FAIL;
}

/* Served: the calls let go; done: the mirror off and the names read again. */
static void live_let_go(const rk_rekey_names *n, size_t k, int done)
{
	const rk_rekey_live *lv = n->live;
	const char *names[3];
	if (!lv)
		return;
	step_names(names, n);
	lv->tables(lv->ctx, n->table, names, k, done ? 1 : 2);
}

/* The checkpoint of n->target for table n->table, or the exit status after
 * saying why there is none. */
static int target_ckpt(rk_rekey_ckpt *c, rk_store *s, const rk_rekey_names *n)
{
	int rc = rk_rekey__ckpt_load(c, s, n->target);
	if (rc == RK_ENOTFOUND) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: no rekey of %s into %s: that table %s\n", n->table,
		        n->target,
		        rk_rekey__table_exists(s, n->target) == 1 ? "holds no rekey checkpoint"
		                                                  : "does not exist");
		return RK_EXIT_FAIL;
	}
	if (rc)
		return rk_rekey__fail("reading the checkpoint");
	if (strcmp(c->source, n->table)) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: %s holds a rekey of %s, not of %s\n", n->target,
		        c->source, n->table);
		rk_rekey__ckpt_free(c);
		return RK_EXIT_FAIL;
	}
	return 0;
}

/* The checkpoint the table itself carries once cut over, or ENOTFOUND. */
static int cut_over(rk_rekey_ckpt *c, rk_store *s, const rk_rekey_names *n)
{
	if (rk_rekey__ckpt_load(c, s, n->table))
		return RK_ENOTFOUND;
	if (!strcmp(c->state, "cutover") && !strcmp(c->source, n->table))
		return 0;
	rk_rekey__ckpt_free(c);
	return RK_ENOTFOUND;
}

int rk_rekey__cutover(rk_store *s, const rk_rekey_names *n)
{
	rk_rekey_ckpt c;
	if (cut_over(&c, s, n) == 0) {
		fprintf(RK_REKEY_OUT, "%s is already cut over; the old table is %s until rowkey rekey --drop-old\n",
		       n->table, n->oldname);
		rk_rekey__ckpt_free(&c);
		return RK_EXIT_OK;
	}
	int rc = target_ckpt(&c, s, n);
	if (rc)
		return rc;
	if (strcmp(c.state, "verified")) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: no clean verify of %s into %s on record (state %s, "
		                "verify %s): run rowkey rekey --verify --db %s %s first\n",
		        n->table, n->target, c.state, c.verify, n->db, n->table);
		rc = RK_EXIT_FAIL;
	} else if (rk_rekey__table_exists(s, n->oldname) != 0) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: table %s already exists: the old table is kept under "
		                "that name; drop or rename it first\n", n->oldname);
		rc = RK_EXIT_FAIL;
	} else if ((rc = live_hold(n, 3)) != 0) {
		/* said */
	} else {
		rk_table_rename v[2] = {{n->table, n->oldname}, {n->target, n->table}};
		int renamed = rk_store_tables_rename(s, v, 2) == 0;
		live_let_go(n, 3, renamed);
		if (!renamed) {
			rc = rk_rekey__fail("renaming the tables");
		} else {
			snprintf(c.state, sizeof c.state, "cutover");
			if (rk_rekey__ckpt_save(s, n->table, &c))
				rc = rk_rekey__fail("recording the cutover (the names are swapped)");
			fprintf(RK_REKEY_OUT, "cut over: %s now holds the new design (%llu rows); the old table is %s "
			       "until rowkey rekey --drop-old --db %s %s\n",
			       n->table, (unsigned long long)c.rows, n->oldname, n->db, n->table);
			say_bigtable_ids(s, n);
			say_new_design(&c, n->table);
		}
	}
	rk_rekey__ckpt_free(&c);
	return rc;
}

int rk_rekey__abort(rk_store *s, const rk_rekey_names *n)
{
	rk_rekey_ckpt c;
	if (cut_over(&c, s, n) == 0) {
		rk_rekey__ckpt_free(&c);
		fprintf(RK_REKEY_ERR, "rowkey rekey: %s is already cut over (the old table is %s): nothing "
		                "to abort\n", n->table, n->oldname);
		return RK_EXIT_FAIL;
	}
	int rc = rk_rekey__ckpt_load(&c, s, n->target);
	if (rc == 0)
		rk_rekey__ckpt_free(&c); /* target_ckpt reads it again, checking whose it is */
	if (rc == RK_ENOTFOUND && rk_rekey__table_exists(s, n->target) == 1) {
		/* a Bigtable create killed before its checkpoint: dropped only empty */
		rk_table *t;
		rk_scan *sc;
		const rk_row *r;
		rk_scan_options so = RK_SCAN_OPTIONS_INIT;
		so.limit = 1;
		int empty = 0;
		if (!rk_table_open(&t, s, n->target)) {
			if (!rk_scan_open(&sc, t, &so)) {
				empty = rk_scan_next(&r, sc) == RK_EITEROVER;
				rk_scan_close(sc);
			}
			rk_table_close(t);
		}
		if (!empty) {
			fprintf(RK_REKEY_ERR, "rowkey rekey: %s holds rows and no rekey checkpoint: not "
			                "dropped\n", n->target);
			return RK_EXIT_FAIL;
		}
	} else if ((rc = target_ckpt(&c, s, n)) != 0) {
		return rc;
	} else {
		rk_rekey__ckpt_free(&c);
	}
	if ((rc = live_hold(n, 2)) != 0)
		return rc;
	rc = rk_table_drop(s, n->target);
	live_let_go(n, 2, rc == 0);
	if (rc)
		return rk_rekey__fail("dropping the new table");
	fprintf(RK_REKEY_OUT, "aborted: dropped %s and its checkpoint; %s is as it was\n", n->target, n->table);
	return RK_EXIT_OK;
}

int rk_rekey__drop_old(rk_store *s, const rk_rekey_names *n)
{
	rk_rekey_ckpt c;
	if (cut_over(&c, s, n)) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: %s is not cut over by rowkey rekey: %s is not dropped\n",
		        n->table, n->oldname);
		return RK_EXIT_FAIL;
	}
	rk_rekey__ckpt_free(&c);
	int rc = 0;
	char *id = rk_cli__bigtable_id(s, n->oldname);
	if (rk_rekey__table_exists(s, n->oldname) == 1) {
		const rk_rekey_names only_old = {n->db, n->oldname, n->oldname, n->oldname, n->live};
		live_hold(&only_old, 1);
		rc = rk_table_drop(s, n->oldname);
		live_let_go(&only_old, 1, rc == 0);
	}
	if (rc) {
		free(id);
		return rk_rekey__fail("dropping the old table");
	}
	if (rk_store_table_prop_set(s, n->table, RK_REKEY_SETTING, NULL, 0)) {
		free(id);
		return rk_rekey__fail("removing the checkpoint");
	}
	fprintf(RK_REKEY_OUT, "dropped %s", n->oldname);
	if (id)
		fprintf(RK_REKEY_OUT, " (Bigtable table %s)", id);
	fprintf(RK_REKEY_OUT, "; the rekey of %s is finished\n", n->table);
	free(id);
	return RK_EXIT_OK;
}
