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
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/records.h"
#include "cli/store_cli.h"

#define CMD "load"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: rowkey load [options] TABLE -s SCHEMA [FILE]\n\n"
	        "Loads records from FILE (default stdin) into TABLE: the row key is the schema's\n"
	        "key of the record; each field becomes a cell FAMILY:field with its text value.\n\n"
	        "  --db DIR            store directory (default " RK_CLI_DEFAULT_DB ")\n"
	        "  -s, --schema S      schema file or inline schema text\n"
	        "  --format FMT        csv (default), tsv or jsonl\n"
	        "  --header            the first line names the fields (default: detected)\n"
	        "  --no-header         fields are positional, in schema order\n"
	        "  -f, --family F      the family to write (default: the table's first)\n"
	        "  --batch N           records per write batch (default 1000; up to two in flight)\n"
	        "  --async             do not fsync each batch (see docs/store.md)\n"
	        "  --strict            stop at the first bad record (exit 1)\n"
	        "  --force             load even when the table remembers another schema\n"
	        "  --seed N            seed for random salts (default 0: reproducible)\n"
	        "  -q, --quiet         no progress line\n"
	        "  -h, --help          this help\n");
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A batch's byte arena: row keys and values live here until the batch is
 * applied, so mutations can point into it. Offsets, not pointers, while
 * filling (the arena may move), fixed up before applying. */
typedef struct arena {
	uint8_t *p;
	size_t len, cap;
} arena;

static long arena_put(arena *a, const void *src, size_t n)
{
	if (a->len + n > a->cap) {
		size_t c = a->cap ? a->cap * 2 : 1 << 16;
		while (c < a->len + n)
			c *= 2;
		uint8_t *q = realloc(a->p, c);
		if (!q)
			return -1;
		a->p = q;
		a->cap = c;
	}
	memcpy(a->p + a->len, src, n);
	a->len += n;
	return (long)(a->len - n);
}

/* The records of one batch: loaded rows (1-based, rejected records not
 * counted) and the input lines they came from. */
typedef struct span {
	uint64_t first_row, nrows;
	long first_line, last_line;
} span;

typedef struct pending {
	rk_mutation *m;
	size_t n, cap;
	size_t *row_off, *val_off;
	size_t *rec;   /* per mutation: its record's index in the batch */
	int *res;      /* per mutation: the backend's result (synchronous backends) */
	long *line;    /* per record: the input line it ended on */
	span sp; /* sp.nrows: records in the batch (some may have no cells) */
} pending;

/* ---- the ledger: which rows are known written ----
 * rk_table_apply_async returns before its batch is applied, and at most two
 * batches of a handle are in flight: when the call for batch k returns 0,
 * batch k-2 (and every earlier one) is acknowledged; when rk_table_flush
 * returns 0, every batch is. Batches are acknowledged in order here, so the
 * written rows are always rows 1..written. After a failure the batches still
 * in flight stay uncertain: the API does not say which of them failed. */
typedef struct ledger {
	uint64_t written; /* rows of acknowledged batches */
	span fly[2];      /* sent, not yet known acknowledged; oldest first */
	unsigned nfly;
} ledger;

static void ledger_ack(ledger *l, unsigned n)
{
	for (unsigned i = 0; i < n && i < l->nfly; i++)
		l->written += l->fly[i].nrows;
	n = n < l->nfly ? n : l->nfly;
	for (unsigned i = n; i < l->nfly; i++)
		l->fly[i - n] = l->fly[i];
	l->nfly -= n;
}

static void pending_reset(pending *p, arena *a)
{
	p->n = 0;
	p->sp.first_row += p->sp.nrows;
	p->sp.nrows = 0;
	a->len = 0;
}

/* Queues the pending batch (which must have cells). On success the ledger
 * records it and the batch and arena are empty again; on failure nothing was
 * queued and they are left as they were, for the report. */
static int send(rk_table *t, ledger *l, pending *p, arena *a)
{
	for (size_t i = 0; i < p->n; i++) {
		p->m[i].row = a->p + p->row_off[i];
		p->m[i].value = a->p + p->val_off[i];
	}
	if (!rk_table_apply_is_async(t)) { /* applied row by row before it returns */
		for (size_t i = 0; i < p->n; i++)
			p->res[i] = -1000; /* not reported */
		int rc = rk_table_apply(t, p->m, p->n, p->res);
		if (rc)
			return rc;
		l->written += p->sp.nrows;
		pending_reset(p, a);
		return 0;
	}
	int rc = rk_table_apply_async(t, p->m, p->n);
	if (rc)
		return rc;
	if (l->nfly == 2)
		ledger_ack(l, 1); /* this call's 0 acknowledges the batch before the last */
	l->fly[l->nfly++] = p->sp;
	pending_reset(p, a);
	return 0;
}

/* 1 when every cell of record r of the batch reads back with its value, 0
 * when one does not, -1 when a read fails (the backend is gone). */
static int record_present(rk_table *t, const pending *p, const arena *a, size_t r)
{
	for (size_t i = 0; i < p->n; i++) {
		if (p->rec[i] != r)
			continue;
		const rk_mutation *m = &p->m[i];
		rk_column col = {m->family, m->qualifier, m->qualifier_len};
		rk_read_options ro = RK_READ_OPTIONS_INIT;
		ro.columns = &col;
		ro.ncolumns = 1;
		rk_row *row;
		int rc = rk_table_get(&row, t, a->p + p->row_off[i], m->row_len, &ro);
		if (rc) /* a key the backend cannot hold is not there either */
			return rc == RK_ENOTFOUND || rc == RK_EINVALID || rc == RK_ETOOLONG ? 0 : -1;
		int same = row->ncells == 1 && row->cells[0].value_len == m->value_len &&
		           !memcmp(row->cells[0].value, a->p + p->val_off[i], m->value_len);
		rk_row_free(row);
		if (!same)
			return 0;
	}
	return 1;
}

/* A backend that writes row by row (Bigtable) failed a batch: which of its
 * records are there (read back: every cell with its value) and which are
 * not, by input line. */
static void report_rows(rk_table *t, const pending *p, const arena *a, ledger *l)
{
	uint64_t ok = 0, bad = 0, acked = 0, unknown = 0;
	char lines[200] = "", why[300] = "";
	size_t ll = 0;
	int reads_fail = 0;
	for (size_t r = 0; r < p->sp.nrows; r++) {
		int present = reads_fail ? -1 : record_present(t, p, a, r); /* a failed read: stop */
		if (present > 0) {
			ok++;
			continue;
		}
		if (present < 0) {
			if (!reads_fail)
				snprintf(why, sizeof why, "%s", rk_error_last());
			reads_fail = 1;
			/* cannot read back: the backend's own word for the row */
			int res = 0, said = 0;
			for (size_t i = 0; i < p->n; i++)
				if (p->rec[i] == r) {
					said |= p->res[i] != -1000;
					res |= p->res[i];
				}
			if (!said) {
				unknown++;
				continue;
			}
			if (!res) {
				acked++;
				continue;
			}
		}
		if (bad++ < 10 && ll < sizeof lines - 24)
			ll += (size_t)snprintf(lines + ll, sizeof lines - ll, "%s%ld", bad > 1 ? ", " : "",
			                       p->line[r]);
	}
	fprintf(stderr,
	        "; of the batch at lines %ld..%ld (rows %llu..%llu; this backend writes each row "
	        "on its own), %llu row%s read back as written",
	        p->sp.first_line, p->sp.last_line, (unsigned long long)p->sp.first_row,
	        (unsigned long long)(p->sp.first_row + p->sp.nrows - 1), (unsigned long long)ok,
	        ok == 1 ? "" : "s");
	if (reads_fail)
		fprintf(stderr, ", %llu acknowledged by the backend (reading back failed: %s)",
		        (unsigned long long)acked, why);
	fprintf(stderr, ", %llu failed", (unsigned long long)bad);
	if (bad)
		fprintf(stderr, " (line%s %s%s)", bad == 1 ? "" : "s", lines, bad > 10 ? ", ..." : "");
	if (unknown)
		fprintf(stderr, ", %llu uncertain", (unsigned long long)unknown);
	l->written += ok + acked;
}

/* A write failed (a full disk, ...), at `what`. Keeps the first error's
 * text, lets the batches in flight finish (rk_table_flush: the store closes
 * cleanly and a second failure is shown), then says what is known written,
 * what failed or is uncertain, and from where nothing was written (the
 * unsent batch `p`, when it has records, and the rest of the input). */
static void failed_write(rk_table *t, ledger *l, const pending *p, const arena *a,
                         const char *what)
{
	char first[1024];
	snprintf(first, sizeof first, "%s", rk_error_last());
	fprintf(stderr, "rowkey " CMD ": %s: %s\n", what, first);
	if (rk_table_flush(t) && !strstr(first, rk_error_last()))
		fprintf(stderr, "rowkey " CMD ": then also: %s\n", rk_error_last());

	fprintf(stderr, "rowkey " CMD ": the %llu rows", (unsigned long long)l->written);
	if (l->nfly || p->sp.nrows)
		fprintf(stderr, " before line %ld",
		        l->nfly ? l->fly[0].first_line : p->sp.first_line);
	fprintf(stderr, " are written");
	if (l->nfly) {
		const span *lo = &l->fly[0], *hi = &l->fly[l->nfly - 1];
		fprintf(stderr,
		        "; rows %llu..%llu (lines %ld..%ld, %u batch%s in flight) failed or are "
		        "uncertain: each region server's share of a batch is written whole or not "
		        "at all",
		        (unsigned long long)lo->first_row,
		        (unsigned long long)(hi->first_row + hi->nrows - 1), lo->first_line,
		        hi->last_line, l->nfly, l->nfly == 1 ? "" : "es");
	}
	if (p->sp.nrows && !rk_table_apply_is_async(t) && p->n) {
		report_rows(t, p, a, l);
		fprintf(stderr, "; nothing after line %ld was written", p->sp.last_line);
	} else if (p->sp.nrows) {
		fprintf(stderr, "; nothing from line %ld on was written", p->sp.first_line);
	}
	fputc('\n', stderr);
	l->nfly = 0; /* reported; nothing is in flight any more */
}

int rk_cli_load(int argc, char **argv)
{
	static const struct option lo[] = {
		{"db", required_argument, NULL, 'd'},   {"schema", required_argument, NULL, 's'},
		{"format", required_argument, NULL, 'F'}, {"header", no_argument, NULL, 'H'},
		{"no-header", no_argument, NULL, 'N'},  {"family", required_argument, NULL, 'f'},
		{"batch", required_argument, NULL, 'b'}, {"async", no_argument, NULL, 'a'},
		{"strict", no_argument, NULL, 'S'},     {"seed", required_argument, NULL, 'e'},
		{"quiet", no_argument, NULL, 'q'},      {"help", no_argument, NULL, 'h'},
		{"force", no_argument, NULL, 'X'},
		{NULL, 0, NULL, 0},
	};
	const char *db = RK_CLI_DEFAULT_DB, *schema_arg = NULL, *fmt_arg = "csv", *family = NULL;
	int header = -1, strict = 0, quiet = 0, force = 0, c, rc = RK_EXIT_FAIL;
	uint64_t batch = 1000, seed = 0;
	rk_store_options so = RK_STORE_OPTIONS_INIT;
	while ((c = getopt_long(argc, argv, "d:s:f:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 's': schema_arg = optarg; break;
		case 'F': fmt_arg = optarg; break;
		case 'H': header = 1; break;
		case 'N': header = 0; break;
		case 'f': family = optarg; break;
		case 'a': so.durability = RK_DURABILITY_ASYNC; break;
		case 'S': strict = 1; break;
		case 'q': quiet = 1; break;
		case 'X': force = 1; break;
		case 'b':
			if (rk_cli__parse_u64(&batch, optarg) || batch < 1 || batch > 1000000)
				return rk_cli_usage_error(CMD, "bad batch size '%s' (1..1000000)", optarg);
			break;
		case 'e':
			if (rk_cli__parse_u64(&seed, optarg))
				return rk_cli_usage_error(CMD, "bad seed '%s'", optarg);
			break;
		case 'h':
			usage(stdout);
			return RK_EXIT_OK;
		default:
			return rk_cli_usage_error(CMD, "unknown option");
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		return rk_cli_usage_error(CMD, "expected TABLE [FILE]");
	if (!schema_arg)
		return rk_cli_usage_error(CMD, "a schema is required (-s FILE or -s 'fields ...; key ...')");
	rk_rec_format fmt;
	if (rk_rec_format_parse(&fmt, fmt_arg) < 0)
		return rk_cli_usage_error(CMD, "unknown format '%s' (csv, tsv or jsonl)", fmt_arg);
	const char *table_name = argv[optind];
	const char *file = argc - optind == 2 ? argv[optind + 1] : NULL;

	rk_schema *schema = NULL;
	rk_encoder *enc = NULL;
	rk_store *s = NULL;
	rk_table *t = NULL;
	rk_reader rd;
	int reader_open = 0;
	FILE *in = stdin;
	rk_value *values = NULL;
	uint8_t *key = NULL;
	char *text = NULL;
	size_t text_cap = 0;
	arena a = {0};
	pending p = {.sp = {.first_row = 1}};
	ledger l = {0};
	uint64_t rejected = 0;
	long prev_line = 0; /* the line the previous record ended on */
	double t0 = now_s(), last_progress = 0;
	int progress = !quiet && isatty(STDERR_FILENO);

	if (rk_schema_load(&schema, schema_arg)) {
		rk_cli_fail(CMD, "reading the schema");
		goto out;
	}
	size_t nf = rk_schema_nfields(schema), maxkey = rk_schema_max_key_len(schema);
	if (rk_encoder_new(&enc, schema, seed)) {
		rk_cli_fail(CMD, "preparing the encoder");
		goto out;
	}
	values = calloc(nf ? nf : 1, sizeof *values);
	key = malloc(maxkey ? maxkey : 1);
	p.cap = (size_t)batch * (nf ? nf : 1);
	p.m = calloc(p.cap, sizeof *p.m);
	p.row_off = calloc(p.cap, sizeof *p.row_off);
	p.val_off = calloc(p.cap, sizeof *p.val_off);
	p.rec = calloc(p.cap, sizeof *p.rec);
	p.res = calloc(p.cap, sizeof *p.res);
	p.line = calloc((size_t)batch, sizeof *p.line);
	if (!values || !key || !p.m || !p.row_off || !p.val_off || !p.rec || !p.res || !p.line) {
		fprintf(stderr, "rowkey load: out of memory\n");
		goto out;
	}
	if (file && !(in = fopen(file, "r"))) {
		fprintf(stderr, "rowkey load: cannot open %s\n", file);
		goto out;
	}
	if (!(s = rk_cli__open_store(CMD, db, 0, &so)))
		goto out;
	if (rk_table_open(&t, s, table_name)) {
		rk_cli_fail(CMD, "opening the table");
		goto out;
	}
	rk_table_info *ti;
	size_t nt;
	if (rk_table_list(&ti, &nt, s)) {
		rk_cli_fail(CMD, "listing tables");
		goto out;
	}
	static char fambuf[RK_MAX_FAMILY_LEN + 1];
	int fam_ok = 0;
	for (size_t i = 0; i < nt; i++) {
		if (strcmp(ti[i].name, table_name))
			continue;
		for (size_t f = 0; f < ti[i].nfamilies; f++)
			if (family ? !strcmp(family, ti[i].families[f].name) : f == 0) {
				snprintf(fambuf, sizeof fambuf, "%s", ti[i].families[f].name);
				fam_ok = 1;
				break;
			}
	}
	rk_table_info_free(ti, nt);
	if (!fam_ok) {
		fprintf(stderr, "rowkey load: table %s has no family '%s'\n", table_name,
		        family ? family : "(none)");
		goto out;
	}
	/* the first load with a schema stores it with the table; later loads and
	   queries with another one are refused (their keys would not decode) */
	if (rk_cli__table_schema(s, CMD, table_name, schema, 1, force))
		goto out;
	if (rk_reader_open(&rd, in, fmt, schema, header)) {
		rk_cli_fail(CMD, file ? file : "<stdin>");
		goto out;
	}
	rk_reader_note_ignored(&rd, stderr, "load");
	reader_open = 1;
	for (;;) {
		prev_line = rd.line;
		int e = rk_reader_next(&rd, values, schema);
		if (e == RK_EITEROVER)
			break;
		if (e && e != RK_EINVALID) { /* the input cannot be read: never its end */
			fprintf(stderr, "rowkey load: %s: %s\n", file ? file : "<stdin>", rk_error_last());
			goto out; /* the batches in flight are settled there */
		}
		size_t klen = 0;
		const char *why = NULL;
		int read_error = e != 0; /* the reader's message names the line itself */
		if (!e)
			e = rk_key_encode(key, maxkey, &klen, enc, values);
		if (!e && (klen == 0 || klen > RK_MAX_ROW_LEN)) {
			e = klen ? RK_ETOOLONG : RK_EINVALID;
			why = klen ? "row key over 32767 bytes" : "empty row key";
		}
		if (e) {
			rejected++;
			if ((strict || rejected <= 10) && read_error)
				fprintf(stderr, "rowkey load: %s: %s\n", file ? file : "<stdin>",
				        rk_error_last());
			else if (strict || rejected <= 10)
				fprintf(stderr, "rowkey load: %s: line %ld: %s\n", file ? file : "<stdin>",
				        rd.line, why ? why : rk_error_last());
			if (rejected == 10 && !strict)
				fprintf(stderr, "rowkey load: (further rejected records not shown)\n");
			if (strict)
				goto out; /* the batches in flight are settled there */
			continue;
		}
		long roff = arena_put(&a, key, klen);
		if (roff < 0)
			goto nomem;
		for (size_t i = 0; i < nf; i++) {
			if (!values[i].present)
				continue;
			rk_type ty = rk_schema_field_type(schema, i);
			size_t need = rk_value_format(text, text_cap, ty, &values[i]) + 1;
			if (need > text_cap) {
				char *q = realloc(text, need);
				if (!q)
					goto nomem;
				text = q;
				text_cap = need;
				rk_value_format(text, text_cap, ty, &values[i]);
			}
			long voff = arena_put(&a, text, need - 1);
			const char *qual = rk_schema_field_name(schema, i);
			if (voff < 0)
				goto nomem;
			p.row_off[p.n] = (size_t)roff;
			p.val_off[p.n] = (size_t)voff;
			p.rec[p.n] = (size_t)p.sp.nrows;
			p.m[p.n] = (rk_mutation){RK_MUT_PUT, NULL, klen, fambuf, (const uint8_t *)qual,
			                         strlen(qual), 0, NULL, need - 1};
			p.n++;
		}
		p.line[p.sp.nrows] = rd.line;
		if (p.sp.nrows++ == 0)
			p.sp.first_line = prev_line + 1;
		p.sp.last_line = rd.line;
		/* a batch of records without cells (none present) waits for one with */
		if (p.sp.nrows >= batch && p.n) {
			if (send(t, &l, &p, &a)) {
				failed_write(t, &l, &p, &a, "writing a batch");
				goto out;
			}
			if (progress && now_s() - last_progress > 0.25) {
				last_progress = now_s(); /* written: acknowledged, not merely sent */
				fprintf(stderr, "\rloaded %llu rows (%.0f rows/s), %llu rejected",
				        (unsigned long long)l.written,
				        (double)l.written / (last_progress - t0),
				        (unsigned long long)rejected);
			}
		}
	}
	if (p.n && send(t, &l, &p, &a)) {
		failed_write(t, &l, &p, &a, "writing a batch");
		goto out;
	}
	if (rk_table_flush(t)) {
		failed_write(t, &l, &p, &a, "finishing the last batches");
		goto out;
	}
	ledger_ack(&l, l.nfly);
	l.written += p.sp.nrows; /* trailing records without cells: nothing to write */
	double secs = now_s() - t0;
	if (progress)
		fprintf(stderr, "\r%60s\r", "");
	printf("rows %llu, seconds %.2f, rows/s %.0f, rejected %llu\n",
	       (unsigned long long)l.written, secs, secs > 0 ? (double)l.written / secs : 0.0,
	       (unsigned long long)rejected);
	rc = RK_EXIT_OK;
	goto out;
nomem:
	fprintf(stderr, "rowkey load: out of memory\n");
out:
	/* stopped early (--strict, out of memory): a batch still in flight may
	 * yet fail, and rk_table_close could not say so */
	if (l.nfly && rk_table_flush(t))
		failed_write(t, &l, &p, &a, "finishing the batches in flight");
	if (reader_open)
		rk_reader_close(&rd);
	rk_table_close(t);
	if (s)
		rc = rk_cli__close_store(CMD, s, rc);
	if (in && in != stdin)
		fclose(in);
	rk_encoder_free(enc);
	rk_schema_free(schema);
	free(values);
	free(key);
	free(text);
	free(a.p);
	free(p.m);
	free(p.row_off);
	free(p.val_off);
	free(p.rec);
	free(p.res);
	free(p.line);
	return rc;
}
