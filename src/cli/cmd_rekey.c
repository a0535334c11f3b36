/*
 * rowkey rekey: move a table that holds data to a new key design, proven
 * lossless (docs/rekey.md). The copy (rekey_copy.c) goes into a new table,
 * TABLE__rekey unless --into names another, created with the old table's
 * families and GC rules and split for the new design; --verify
 * (rekey_verify.c) compares the two by logical record; --cutover swaps the
 * names in one catalogue change (the old table stays as TABLE__old until
 * --drop-old); --abort drops the new table and its checkpoint. The
 * checkpoint (rekey_ckpt.c) is the new table's `rekey` setting.
 *
 * A store `rowkey serve` holds is rekeyed by the server itself: the command
 * sends its arguments through the server's admin door (rekey_door.c) and
 * prints what the server's rekey says; there the rekey keeps step with the
 * server's mirror of the table's writes (src/serve/mirror.c), so clients
 * may write throughout (docs/rekey.md).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/rekey.h"
#include "cli/served.h"
#include "cli/splits.h"
#include "cli/store_cli.h"

#define CMD RK_REKEY_CMD

_Thread_local FILE *rk_rekey__out, *rk_rekey__err;

int rk_rekey__fail(const char *what)
{
	fprintf(RK_REKEY_ERR, "rowkey rekey: %s: %s\n", what, rk_error_last());
	return RK_EXIT_FAIL;
}

static const rk_cli_opt rekey_opts[] = {
	RK_CLI_OPT_DB,
	{"schema", 's', 's', "SCHEMA", RK_ARG_SCHEMA, NULL,
	 "the new key design: a schema file, or schema text (the copy)"},
	{"into", 0, 'i', "NAME", RK_ARG_TEXT, NULL, "the new table (default TABLE__rekey)"},
	{"splits", 0, 'F', "FILE", RK_ARG_FILE, NULL,
	 "the new table's split points, one a line as rowkey create --splits takes (default: one "
	 "region per bucket of the new design, when it has buckets)"},
	{"batch", 0, 'b', "N", RK_ARG_NUMBER, NULL,
	 "old rows per write batch; a checkpoint every 8 batches (default 4000; 1000 when rowkey "
	 "serve runs the copy, which locks a batch's rows while it writes them)"},
	{"quiet", 'q', 'q', NULL, RK_ARG_NONE, NULL, "no progress lines"},
	{NULL, 0, 0, NULL, RK_ARG_NONE, NULL, "after the copy (choose one)"},
	{"verify", 0, 'V', NULL, RK_ARG_NONE, NULL,
	 "compare the old and the new table by logical record; exit 1 when they differ"},
	{"cutover", 0, 'C', NULL, RK_ARG_NONE, NULL,
	 "after a clean verify, give the new table the old one's name (the old kept as "
	 "TABLE__old)"},
	{"drop-old", 0, 'D', NULL, RK_ARG_NONE, NULL, "after the cutover, drop TABLE__old"},
	{"abort", 0, 'A', NULL, RK_ARG_NONE, NULL, "drop the new table and its checkpoint"},
};

const rk_cli_spec rk_cli_spec_rekey = {
	"rekey",
	"[--db DB] TABLE -s NEW [--into NAME] [--splits FILE] [--batch N]\n"
	"--verify|--cutover|--drop-old|--abort [--db DB] TABLE [--into NAME]",
	"Copies every row of TABLE into a new table under a new key design: each old key decoded "
	"with the schema the table remembers, encoded with the new one, every cell kept (each "
	"version, its timestamp). Resumable: after a kill, the same command goes on from its "
	"checkpoint. Two old rows that would share a new key, or a row the new design cannot "
	"encode, stop it before anything is overwritten. The steps after the copy (verify, "
	"cutover, drop the old table, or abort) are the options below. On a store rowkey serve "
	"holds, the server runs each step and mirrors the table's writes into the new table "
	"until the cutover, so clients may write throughout; see docs/rekey.md.",
	rekey_opts, RK_CLI_NOPTS(rekey_opts), RK_ARG_TABLE, NULL,
	"  $ rowkey rekey --db /tmp/rk ev -s 'fields id:u64, ts:ts; key bucket(8, xxh3(id)) "
	"u64(id) u64(ts)'\n"
	"  $ rowkey rekey --verify --db /tmp/rk ev\n"
	"  $ rowkey rekey --cutover --db /tmp/rk ev\n",
	"rowkey-load(1), rowkey-create(1), rowkey-gen(1)",
};

typedef struct rekey_args {
	rk_rekey_opts o;
	int mode; /* 0 copy, or the option key of --verify, --cutover, ... */
	char target[RK_MAX_TABLE_NAME_LEN + 1], oldname[RK_MAX_TABLE_NAME_LEN + 1];
} rekey_args;

static int set_mode(rekey_args *a, int c)
{
	if (a->mode && a->mode != c)
		return rk_cli_usage_error(CMD, "choose one of --verify, --cutover, --drop-old, --abort");
	a->mode = c;
	return 0;
}

static int parse_args(rekey_args *a, int argc, char **argv)
{
	int c;
	while ((c = rk_cli_getopt(&rk_cli_spec_rekey, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'd': a->o.db = optarg; break;
		case 's': a->o.schema_arg = optarg; break;
		case 'i': a->o.into = optarg; break;
		case 'F': a->o.splits = optarg; break;
		case 'q': a->o.quiet = 1; break;
		case 'b':
			if (rk_cli__parse_range(&a->o.batch, CMD, "--batch", optarg, 1, 100000))
				return RK_EXIT_USAGE;
			break;
		case 'V':
		case 'C':
		case 'D':
		case 'A':
			if (set_mode(a, c))
				return RK_EXIT_USAGE;
			break;
		case 'h': rk_cli_help(&rk_cli_spec_rekey, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind + 1 != argc)
		return rk_cli_usage_error(CMD, "expected one TABLE argument");
	a->o.table = argv[optind];
	if (!a->mode && !a->o.schema_arg)
		return rk_cli_usage_error(CMD, "the new design is required (-s SCHEMA)");
	if (a->mode && (a->o.schema_arg || a->o.splits))
		return rk_cli_usage_error(CMD, "-s and --splits go with the copy, not --%s",
		                          a->mode == 'V' ? "verify" : a->mode == 'C' ? "cutover"
		                                                     : a->mode == 'D' ? "drop-old"
		                                                                      : "abort");
	size_t tl = strlen(a->o.table);
	if (!a->o.into && tl + 7 > RK_MAX_TABLE_NAME_LEN)
		return rk_cli_usage_error(CMD, "table name too long for TABLE__rekey: name the new "
		                               "table with --into");
	snprintf(a->target, sizeof a->target, "%s", a->o.into ? a->o.into : a->o.table);
	if (!a->o.into)
		snprintf(a->target + tl, sizeof a->target - tl, "__rekey");
	if (tl + 5 > RK_MAX_TABLE_NAME_LEN)
		return rk_cli_usage_error(CMD, "table name too long for TABLE__old (at most %u bytes)",
		                          RK_MAX_TABLE_NAME_LEN - 5);
	snprintf(a->oldname, sizeof a->oldname, "%s__old", a->o.table);
	if (!strcmp(a->target, a->o.table))
		return rk_cli_usage_error(CMD, "--into must name another table than TABLE");
	return -1;
}

/* ---- the copy's start: the new table ---- */

/* The new table's families: the old table's, rules and all. */
static int old_families(rk_table_info **ti, size_t *nt, size_t *which, rk_store *s,
                        const char *table)
{
	if (rk_table_list(ti, nt, s))
		return rk_rekey__fail("listing tables");
	for (*which = 0; *which < *nt; ++*which)
		if (!strcmp((*ti)[*which].name, table))
			return 0;
	fprintf(RK_REKEY_ERR, "rowkey rekey: table %s does not exist\n", table);
	return RK_EXIT_FAIL;
}

/* Creates the new table with its schema and first checkpoint in one step. */
static int create_target(rk_store *s, const rekey_args *a, const rk_rekey_ckpt *c,
                         const rk_schema *ns)
{
	rk_table_info *ti = NULL;
	size_t nt = 0, w = 0;
	rk_bytes *sp = NULL;
	size_t nsp = 0;
	unsigned bpl = 0;
	char *text = NULL;
	size_t len;
	int rc = old_families(&ti, &nt, &w, s, a->o.table);
	if (rc)
		goto out;
	rk_schema_info info;
	rk_schema_get_info(&info, ns);
	if (a->o.splits) {
		rc = rk_cli__splits_read(&sp, &nsp, a->o.splits, CMD) ? RK_EXIT_FAIL : 0;
		bpl = info.buckets > 1 ? info.prefix_len : 0;
	} else if (info.buckets > 1) {
		rc = rk_cli__schema_splits(&sp, &nsp, &bpl, ns, 0, CMD);
	}
	if (rc)
		goto out;
	if (rk_rekey__ckpt_text(&text, &len, c)) {
		rc = rk_rekey__fail("writing the checkpoint");
		goto out;
	}
	rk_table_def def = {a->target, ti[w].families, ti[w].nfamilies, sp, nsp, bpl};
	rk_table_prop props[2] = {{"rekey", text, len},
	                          {"schema", c->new_schema, strlen(c->new_schema)}};
	if (rk_table_create_with(s, &def, props, 2)) {
		rc = rk_rekey__fail("creating the new table");
		goto out;
	}
	if (!a->o.quiet)
		fprintf(RK_REKEY_ERR, "rowkey rekey: created table %s: %zu famil%s, %zu region%s\n", a->target,
		        ti[w].nfamilies, ti[w].nfamilies == 1 ? "y" : "ies", nsp + 1, nsp ? "s" : "");
out:
	free(text);
	rk_cli__splits_free(sp, nsp);
	rk_table_info_free(ti, nt);
	return rc;
}

/* The first checkpoint: the old table's schema and the new design. */
static int start_ckpt(rk_rekey_ckpt *c, rk_schema **ns, rk_store *s, const rekey_args *a)
{
	void *old;
	size_t len;
	int rc = rk_store_table_prop_get(&old, &len, s, a->o.table, "schema");
	if (rc == RK_ENOTFOUND && rk_rekey__table_exists(s, a->o.table) == 0)
		return rk_rekey__fail("reading the table");
	if (rc == RK_ENOTFOUND) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: table %s remembers no key schema: rekey decodes its rows "
		                "with the schema its first `rowkey load -s` stores (docs/rekey.md)\n",
		        a->o.table);
		return RK_EXIT_FAIL;
	}
	if (rc)
		return rk_rekey__fail("reading the table's schema");
	memset(c, 0, sizeof *c);
	c->old_schema = old;
	if (rk_schema_load(ns, a->o.schema_arg) || rk_schema_text(&c->new_schema, *ns))
		return rk_rekey__fail("reading the new schema");
	rk_schema_info info;
	rk_schema_get_info(&info, *ns);
	if (!info.deterministic) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: the new design is not deterministic (a random or "
		                "round-robin salt): a row's new key could not be found again to resume "
		                "or verify the copy; use bucket(N, hash(fields)) instead\n");
		return RK_EXIT_FAIL;
	}
	if (!strcmp(c->old_schema, c->new_schema)) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: table %s already has this design\n", a->o.table);
		return RK_EXIT_FAIL;
	}
	c->source = strdup(a->o.table);
	c->target = strdup(a->target);
	snprintf(c->state, sizeof c->state, "copying");
	snprintf(c->verify, sizeof c->verify, "-");
	if (c->source && c->target)
		return 0;
	fprintf(RK_REKEY_ERR, "rowkey rekey: out of memory\n");
	return RK_EXIT_FAIL;
}

/* A checkpoint found on the target: the same rekey (resumed), or refused. */
static int same_rekey(const rk_rekey_ckpt *have, const rk_rekey_ckpt *want)
{
	if (!strcmp(have->source, want->source) && !strcmp(have->new_schema, want->new_schema) &&
	    !strcmp(have->old_schema, want->old_schema))
		return 0;
	fprintf(RK_REKEY_ERR, "rowkey rekey: table %s holds another rekey (of %s into design '%s'): "
	                "finish it, or drop it with rowkey rekey --abort --db DB %s%s%s\n",
	        want->target, have->source, have->new_schema, have->source,
	        strcmp(want->target, have->target) ? "" : " --into ",
	        strcmp(want->target, have->target) ? "" : want->target);
	return RK_EXIT_FAIL;
}

static int do_copy(rk_store *s, rekey_args *a)
{
	rk_rekey_ckpt want = {0}, have = {0};
	rk_schema *ns = NULL;
	int rc = start_ckpt(&want, &ns, s, a);
	if (rc)
		goto out;
	rc = rk_rekey__ckpt_load(&have, s, a->target);
	if (rc == RK_ENOTFOUND && rk_rekey__table_exists(s, a->target) != 0) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: table %s exists but holds no rekey checkpoint: not made "
		                "by rowkey rekey, or (on Bigtable) made by one killed before it saved "
		                "its checkpoint; drop it (rowkey rekey --abort drops it when empty) or "
		                "name another with --into\n", a->target);
		rc = RK_EXIT_FAIL;
	} else if (rc == RK_ENOTFOUND) {
		if ((rc = create_target(s, a, &want, ns)) == 0)
			rc = rk_rekey__copy(s, &want, &a->o);
	} else if (rc) {
		rc = rk_rekey__fail("reading the checkpoint");
	} else if ((rc = same_rekey(&have, &want)) == 0) {
		if (strcmp(have.state, "copying")) {
			fprintf(RK_REKEY_OUT, "%s is already copied into %s (%s); next: rowkey rekey --verify\n",
			       a->o.table, a->target, have.state);
			rc = RK_EXIT_OK;
		} else {
			rc = rk_rekey__copy(s, &have, &a->o);
		}
	}
out:
	rk_schema_free(ns);
	rk_rekey__ckpt_free(&want);
	rk_rekey__ckpt_free(&have);
	return rc;
}

/* ---- after the copy ---- */

static int do_verify(rk_store *s, const rekey_args *a)
{
	rk_rekey_ckpt c;
	int rc = rk_rekey__ckpt_load(&c, s, a->target);
	if (rc == RK_ENOTFOUND) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: no rekey of %s into %s: that table %s\n", a->o.table,
		        a->target,
		        rk_rekey__table_exists(s, a->target) == 1 ? "holds no rekey checkpoint"
		                                                  : "does not exist");
		return RK_EXIT_FAIL;
	}
	if (rc)
		return rk_rekey__fail("reading the checkpoint");
	if (strcmp(c.source, a->o.table)) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: %s holds a rekey of %s, not of %s\n", a->target, c.source,
		        a->o.table);
		rc = RK_EXIT_FAIL;
	} else if (!strcmp(c.state, "copying")) {
		fprintf(RK_REKEY_ERR, "rowkey rekey: the copy into %s is not finished (%llu rows so far): "
		                "run the rekey command again to finish it, then verify\n",
		        a->target, (unsigned long long)c.rows);
		rc = RK_EXIT_FAIL;
	} else {
		rc = rk_rekey__verify(s, &c, &a->o);
	}
	rk_rekey__ckpt_free(&c);
	return rc;
}

/* The step asked for, on an open store (live: the server's hooks when the
 * server runs it, else NULL). */
static int run(rk_store *s, rekey_args *a, const rk_rekey_live *live)
{
	a->o.live = live;
	rk_rekey_names n = {a->o.db, a->o.table, a->target, a->oldname, live};
	switch (a->mode) {
	case 'V': return do_verify(s, a);
	case 'C': return rk_rekey__cutover(s, &n);
	case 'D': return rk_rekey__drop_old(s, &n);
	case 'A': return rk_rekey__abort(s, &n);
	default: return do_copy(s, a);
	}
}

int rk_cli__rekey_served(rk_store *s, const rk_rekey_live *live, int argc, char **argv,
                         FILE *out, FILE *err)
{
	rekey_args a = {.o = {.db = RK_CLI_DEFAULT_DB, .batch = 1000}};
	rk_rekey__out = out;
	rk_rekey__err = err;
	optind = 0; /* the server's rekeys run one at a time: getopt's state is theirs */
	int rc = parse_args(&a, argc, argv);
	if (rc < 0) {
		a.o.quiet = 1; /* the progress line is the terminal's, not the client's */
		rc = run(s, &a, live);
	}
	fflush(out);
	fflush(err);
	rk_rekey__out = rk_rekey__err = NULL;
	return rc;
}

int rk_cli_rekey(int argc, char **argv)
{
	rekey_args a = {.o = {.db = RK_CLI_DEFAULT_DB, .batch = 4000}};
	int rc = parse_args(&a, argc, argv);
	if (rc >= 0)
		return rc;
	char admin[256];
	if (strncmp(a.o.db, "bigtable://", 11) && rk_cli__served_admin(a.o.db, admin, sizeof admin))
		return rk_cli__rekey_ask(admin, a.o.db, argc, argv);
	/* synchronous durability: the checkpoint must never claim a row that a
	   crash could still take back */
	rk_store_options so = RK_STORE_OPTIONS_INIT;
	so.durability = RK_DURABILITY_SYNC;
	rk_store *s = rk_cli__open_store(CMD, a.o.db, 0, &so);
	if (!s)
		return RK_EXIT_FAIL;
	rc = run(s, &a, NULL);
	return rk_cli__close_store(CMD, s, rc);
}
