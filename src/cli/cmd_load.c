/*
 * rowkey load: read records (CSV, TSV or JSON lines), encode each record's
 * row key with a schema, and write the record's fields as cells of one
 * family (qualifier = field name, value = the field's text form), in
 * batches. Progress on a terminal; a summary at the end. A bad record is
 * reported with its line and skipped (or, with --strict, stops the load).
 *
 * Batches go through the buffered API (rk_table_apply_async, then
 * rk_table_flush), so the next batch is read and encoded while the region
 * servers apply the last one. --async is a separate matter (durability):
 * without it each batch is still fsynced before it is acknowledged. Rows
 * are counted as written only once their batch is known to be acknowledged
 * (see the ledger below); a failed load says which rows are written, which
 * may be, and where nothing was.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "records/map.h"
#include "records/reader.h"
#include "cli/load_batch.h"
#include "cli/store_cli.h"
#include "key/units.h"

#define CMD "load"

static const rk_cli_opt load_opts[] = {
	RK_CLI_OPT_DB,
	{"schema", 's', 's', "SCHEMA", RK_ARG_SCHEMA, NULL, "the key design: a schema file, or schema text"},
	{"format", 0, 'F', "FMT", RK_ARG_CHOICE, "csv tsv jsonl",
	 "csv (default; JSON lines and files named .tsv are recognised), tsv or jsonl"},
	RK_CLI_OPTS_RECORDS,
	{"family", 'f', 'f', "F", RK_ARG_TEXT, NULL, "the family to write (default: the table's first)"},
	{"batch", 0, 'b', "N", RK_ARG_NUMBER, NULL,
	 "records per write batch (default 1000; up to two in flight)"},
	{"async", 0, 'a', NULL, RK_ARG_NONE, NULL, "do not fsync each batch (see docs/store.md)"},
	{"strict", 0, 'S', NULL, RK_ARG_NONE, NULL, "stop at the first bad record (exit 1)"},
	{"force", 0, 'X', NULL, RK_ARG_NONE, NULL, "load even when the table remembers another schema"},
	{"seed", 0, 'e', "N", RK_ARG_NUMBER, NULL, "seed for random salts (default 0: reproducible)"},
	{"quiet", 'q', 'q', NULL, RK_ARG_NONE, NULL, "no progress line"},
};

const rk_cli_spec rk_cli_spec_load = {
	"load",
	"[options] TABLE -s SCHEMA [FILE]",
	"Loads records from FILE (default: standard input) into TABLE: the row key is the "
	"schema's key of the record, and each field becomes a cell FAMILY:field with its text "
	"value. The first load with a schema stores it with the table; later loads and queries "
	"with another schema are refused (--force to go on anyway).\n\n" RK_CLI_EXIT_STATUS_TEXT,
	load_opts, RK_CLI_NOPTS(load_opts), RK_ARG_TABLE, NULL,
	"  $ printf 'uid,ts\\n3,10\\n3,20\\n4,10\\n' |\n"
	"      rowkey load --db /tmp/rk ev -s 'fields uid:u64, ts:ts; key bucket(8, xxh3(uid)) u64(uid) u64(rts(ts))'\n",
	"rowkey-create(1), rowkey-query(1), rowkey-schema(5)",
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the command ---- */

typedef struct load_args {
	const char *db, *schema_arg, *family, *file;
	const char *table;
	rk_rec_options ro;
	const char *number; /* --number FIELD, or NULL */
	int strict, quiet, force;
	uint64_t batch, seed;
	rk_store_options so;
} load_args;

static int parse_args(load_args *a, int argc, char **argv)
{
	int c;
	uint64_t max_record;
	while ((c = rk_cli_getopt(&rk_cli_spec_load, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'd': a->db = optarg; break;
		case 's': a->schema_arg = optarg; break;
		case 'F':
			if (rk_rec__format_parse(&a->ro.format, optarg) < 0)
				return rk_cli_usage_error(CMD, "unknown format '%s' (csv, tsv or jsonl)", optarg);
			break;
		case 'H': a->ro.header = 1; break;
		case 'N': a->ro.header = 0; break;
		case 'U': a->number = optarg; break;
		case 'f': a->family = optarg; break;
		case 'a': a->so.durability = RK_DURABILITY_ASYNC; break;
		case 'S': a->strict = 1; break;
		case 'q': a->quiet = 1; break;
		case 'X': a->force = 1; break;
		case 'b':
			if (rk_cli__parse_u64(&a->batch, optarg) || a->batch < 1 || a->batch > 1000000)
				return rk_cli_usage_error(CMD, "bad batch size '%s' (1..1000000)", optarg);
			break;
		case 'e':
			if (rk_cli__parse_u64(&a->seed, optarg))
				return rk_cli_usage_error(CMD, "bad seed '%s'", optarg);
			break;
		case 'M':
			if (rk_cli__parse_size(&max_record, CMD, "max-record", optarg, 1, 1, 1ull << 31))
				return RK_EXIT_USAGE;
			a->ro.max_record = (size_t)max_record;
			break;
		case 'h':
			rk_cli_help(&rk_cli_spec_load, stdout);
			return RK_EXIT_OK;
		default: /* rk_cli_getopt said why */
			return RK_EXIT_USAGE;
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		return rk_cli_usage_error(CMD, "expected TABLE [FILE]");
	if (!a->schema_arg)
		return rk_cli_usage_error(CMD, "a schema is required (-s FILE or -s 'fields ...; key ...')");
	a->table = argv[optind];
	a->file = argc - optind == 2 ? argv[optind + 1] : NULL;
	a->ro.name = a->file ? a->file : "<stdin>";
	return -1; /* go on */
}

/* The family to write: the named one, or the table's first. */
static int pick_family(char *out, size_t cap, rk_store *s, const char *table, const char *family)
{
	rk_table_info *ti;
	size_t nt;
	int ok = 0;
	if (rk_table_list(&ti, &nt, s)) {
		rk_cli_fail(CMD, "listing tables");
		return -1;
	}
	for (size_t i = 0; i < nt && !ok; i++) {
		if (strcmp(ti[i].name, table))
			continue;
		for (size_t f = 0; f < ti[i].nfamilies && !ok; f++)
			if (family ? !strcmp(family, ti[i].families[f].name) : f == 0) {
				snprintf(out, cap, "%s", ti[i].families[f].name);
				ok = 1;
			}
	}
	rk_table_info_free(ti, nt);
	if (!ok)
		fprintf(stderr, "rowkey load: table %s has no family '%s'\n", table, family ? family : "(none)");
	return ok ? 0 : -1;
}

/* Everything one load holds. */
typedef struct loader {
	const load_args *a;
	rk_schema *schema;
	rk_encoder *enc;
	rk_table *t;
	rk_rec *rd;
	rk_rec_map map;
	rk_value *values;
	uint8_t *key;
	size_t nf, maxkey;
	char *text;
	size_t text_cap;
	char family[RK_MAX_FAMILY_LEN + 1];
	arena ar;
	pending p;
	ledger l;
	uint64_t rejected;
	long stopped_line; /* --strict: the line of the record that stopped the load */
} loader;

static int loader_alloc(loader *L)
{
	uint64_t batch = L->a->batch;
	size_t nf = L->nf ? L->nf : 1;
	L->values = calloc(nf, sizeof *L->values);
	L->key = malloc(L->maxkey ? L->maxkey : 1);
	L->p.cap = (size_t)batch * nf;
	L->p.m = calloc(L->p.cap, sizeof *L->p.m);
	L->p.row_off = calloc(L->p.cap, sizeof *L->p.row_off);
	L->p.val_off = calloc(L->p.cap, sizeof *L->p.val_off);
	L->p.rec = calloc(L->p.cap, sizeof *L->p.rec);
	L->p.res = calloc(L->p.cap, sizeof *L->p.res);
	L->p.line = calloc((size_t)batch, sizeof *L->p.line);
	if (L->values && L->key && L->p.m && L->p.row_off && L->p.val_off && L->p.rec && L->p.res &&
	    L->p.line)
		return 0;
	fprintf(stderr, "rowkey load: out of memory\n");
	return -1;
}

/* A record the schema cannot take: counted, and said for the first ten. */
static void reject(loader *L, long line, const char *why, int named)
{
	L->rejected++;
	L->stopped_line = line ? line : L->stopped_line;
	if (L->a->strict || L->rejected <= 10) {
		if (named) /* the reader's message names the input and line itself */
			fprintf(stderr, "rowkey load: %s\n", why);
		else
			fprintf(stderr, "rowkey load: %s: line %ld: %s\n", L->a->ro.name, line, why);
	}
	if (L->rejected == 10 && !L->a->strict)
		fprintf(stderr, "rowkey load: (further rejected records not shown)\n");
}

/* The record's cells into the pending batch: one per present field. */
static int add_cells(loader *L, size_t klen, long line)
{
	pending *p = &L->p;
	long roff = rk_load__arena_put(&L->ar, L->key, klen);
	if (roff < 0)
		return -1;
	for (size_t i = 0; i < L->nf; i++) {
		if (!L->values[i].present)
			continue;
		/* a cell holds the value's text form: a ts field with a format in it */
		size_t need = rk_schema_value_format(L->text, L->text_cap, L->schema, i, &L->values[i]) + 1;
		if (need > L->text_cap) {
			char *q = realloc(L->text, need);
			if (!q)
				return -1;
			L->text = q;
			L->text_cap = need;
			rk_schema_value_format(L->text, L->text_cap, L->schema, i, &L->values[i]);
		}
		long voff = rk_load__arena_put(&L->ar, L->text, need - 1);
		const char *qual = rk_schema_field_name(L->schema, i);
		if (voff < 0)
			return -1;
		p->row_off[p->n] = (size_t)roff;
		p->val_off[p->n] = (size_t)voff;
		p->rec[p->n] = (size_t)p->sp.nrows;
		p->m[p->n] = (rk_mutation){RK_MUT_PUT, NULL, klen, L->family, (const uint8_t *)qual,
		                           strlen(qual), 0, NULL, need - 1, 0};
		p->n++;
	}
	p->line[p->sp.nrows] = line;
	if (p->sp.nrows++ == 0)
		p->sp.first_line = line;
	p->sp.last_line = line;
	return 0;
}

/* Reads, encodes and writes every record. 0 at the input's end, -1 when the
 * load stops (said). */
static int load_records(loader *L)
{
	double t0 = now_s(), last_progress = 0;
	int progress = !L->a->quiet && isatty(STDERR_FILENO);
	for (;;) {
		rk_record rec;
		int e = rk_rec__next(L->rd, &rec);
		if (e == RK_EITEROVER)
			return 0;
		if (e == RK_EINVALID || e == RK_ETOOLONG ||
		    (!e && (e = rk_rec__map_values(L->values, &L->map, L->rd, &rec)) != 0)) {
			reject(L, rk_rec__line(L->rd), rk_error_last(), 1);
			if (L->a->strict)
				return -1;
			continue;
		}
		if (e) { /* the input cannot be read: never its end */
			fprintf(stderr, "rowkey load: %s\n", rk_error_last());
			return -1;
		}
		size_t klen = 0;
		e = rk_key_encode(L->key, L->maxkey, &klen, L->enc, L->values);
		if (!e && (klen == 0 || klen > RK_MAX_ROW_LEN)) {
			reject(L, rec.line, klen ? "row key over 32767 bytes" : RK_CLI_EMPTY_KEY_WHY, 0);
			e = 1;
		} else if (e) {
			reject(L, rec.line, rk_error_last(), 0);
		}
		if (e) {
			if (L->a->strict)
				return -1;
			continue;
		}
		if (add_cells(L, klen, rec.line)) {
			fprintf(stderr, "rowkey load: out of memory\n");
			return -1;
		}
		/* a batch of records without cells (none present) waits for one with */
		if (L->p.sp.nrows >= L->a->batch && L->p.n) {
			if (rk_load__send(L->t, &L->l, &L->p, &L->ar)) {
				rk_load__failed_write(L->t, &L->l, &L->p, &L->ar, "writing a batch");
				return -1;
			}
			if (progress && now_s() - last_progress > 0.25) {
				last_progress = now_s(); /* written: acknowledged, not merely sent */
				char n[3][RK_NUM_STR];
				fprintf(stderr, "\rloaded %s rows (%s), %s rejected",
				        rk__count_text(n[0], RK_NUM_STR, L->l.written),
				        rk__rate_str(n[1], (double)L->l.written / (last_progress - t0), "rows"),
				        rk__count_text(n[2], RK_NUM_STR, L->rejected));
			}
		}
	}
}

/* The last batches, then the summary. */
static int finish(loader *L, double t0)
{
	if (L->p.n && rk_load__send(L->t, &L->l, &L->p, &L->ar)) {
		rk_load__failed_write(L->t, &L->l, &L->p, &L->ar, "writing a batch");
		return -1;
	}
	if (rk_table_flush(L->t)) {
		rk_load__failed_write(L->t, &L->l, &L->p, &L->ar, "finishing the last batches");
		return -1;
	}
	rk_load__ledger_ack(&L->l, L->l.nfly);
	L->l.written += L->p.sp.nrows; /* trailing records without cells: nothing to write */
	double secs = now_s() - t0;
	if (!L->a->quiet && isatty(STDERR_FILENO))
		fprintf(stderr, "\r%60s\r", "");
	char n[3][RK_NUM_STR];
	printf("%s row%s in %.2f s (%s), %s rejected\n", rk__count_text(n[0], RK_NUM_STR, L->l.written),
	       L->l.written == 1 ? "" : "s", secs,
	       rk__rate_str(n[1], secs > 0 ? (double)L->l.written / secs : 0.0, "rows"),
	       rk__count_text(n[2], RK_NUM_STR, L->rejected));
	if (L->rejected && !L->l.written) { /* a script must not read this as a load */
		fprintf(stderr, "rowkey load: every record was rejected (%s): nothing was loaded\n", n[2]);
		return -1;
	}
	return 0;
}

/* Schema, encoder, input, store, table, family and the schema check. */
static int load_open(loader *L, rk_store **s, FILE **in)
{
	const load_args *a = L->a;
	if (rk_schema_load(&L->schema, a->schema_arg)) {
		rk_cli_fail(CMD, "reading the schema");
		return -1;
	}
	L->nf = rk_schema_nfields(L->schema);
	L->maxkey = rk_schema_max_key_len(L->schema);
	if (rk_encoder_new(&L->enc, L->schema, a->seed)) {
		rk_cli_fail(CMD, "preparing the encoder");
		return -1;
	}
	if (loader_alloc(L))
		return -1;
	if (a->file && !(*in = fopen(a->file, "r"))) {
		fprintf(stderr, "rowkey load: cannot open %s: %s\n", a->file, strerror(errno));
		return -1;
	}
	/* the header is checked against the schema before the store is touched */
	if (rk_rec__open(&L->rd, *in, &a->ro) || rk_rec__map_init(&L->map, L->rd, L->schema, a->number)) {
		fprintf(stderr, "rowkey load: %s\n", rk_error_last());
		return -1;
	}
	rk_rec__map_notes(&L->map, L->rd, stderr, CMD);
	rk_store_options so = a->so;
	if (!(*s = rk_cli__open_store(CMD, a->db, 0, &so)))
		return -1;
	if (rk_table_open(&L->t, *s, a->table)) {
		rk_cli_fail(CMD, "opening the table");
		return -1;
	}
	if (pick_family(L->family, sizeof L->family, *s, a->table, a->family))
		return -1;
	/* the first load with a schema stores it with the table; later loads and
	   queries with another one are refused (their keys would not decode) */
	return rk_cli__table_schema(*s, CMD, a->table, L->schema, 1, a->force) ? -1 : 0;
}

int rk_cli_load(int argc, char **argv)
{
	load_args a = {.db = RK_CLI_DEFAULT_DB, .ro = RK_REC_OPTIONS_INIT, .batch = 1000,
	               .so = RK_STORE_OPTIONS_INIT};
	int rc = parse_args(&a, argc, argv);
	if (rc >= 0)
		return rc;
	rc = RK_EXIT_FAIL;
	loader L = {.a = &a, .p = {.sp = {.first_row = 1}}};
	rk_store *s = NULL;
	FILE *in = stdin;
	double t0 = now_s();
	if (load_open(&L, &s, &in) == 0 && load_records(&L) == 0 && finish(&L, t0) == 0)
		rc = RK_EXIT_OK;
	/* stopped early (--strict, out of memory): a batch still in flight may
	 * yet fail, and rk_table_close could not say so */
	if (L.l.nfly && rk_table_flush(L.t))
		rk_load__failed_write(L.t, &L.l, &L.p, &L.ar, "finishing the batches in flight");
	else if (rc != RK_EXIT_OK && L.t && L.a->strict && L.stopped_line) {
		rk_load__ledger_ack(&L.l, L.l.nfly);
		char w[RK_NUM_STR], g[RK_NUM_STR];
		fprintf(stderr, "rowkey load: --strict: stopped at line %ld: %s rows are written; the "
		                "%s good records read since were not, nor anything after\n",
		        L.stopped_line, rk__count_text(w, sizeof w, L.l.written),
		        rk__count_text(g, sizeof g, L.p.sp.nrows));
	}
	rk_rec__close(L.rd);
	rk_table_close(L.t);
	if (s)
		rc = rk_cli__close_store_after(CMD, s, rc, "the rows were written");
	if (in && in != stdin)
		fclose(in);
	rk_encoder_free(L.enc);
	rk_schema_free(L.schema);
	free(L.values);
	free(L.key);
	free(L.text);
	free(L.ar.p);
	free(L.p.m);
	free(L.p.row_off);
	free(L.p.val_off);
	free(L.p.rec);
	free(L.p.res);
	free(L.p.line);
	return rc;
}
