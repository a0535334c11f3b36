/*
 * rowkey decode: row keys in (escaped text or hex, one per line), fields out
 * as TSV with a header line, or as JSON lines. A key that does not match the
 * design is reported with its line and byte offset.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

#include "cli/cli.h"
#include "cli/store_cli.h"
#include "cli/textio.h"
#include "records/reader.h"

static const rk_cli_opt decode_opts[] = {
	{"schema", 's', 's', "SCHEMA", RK_ARG_SCHEMA, NULL, "the key design: a schema file, or schema text"},
	{"in", 'i', 'i', "FILE", RK_ARG_FILE, NULL, "read keys from FILE (default: standard input)"},
	{"in-form", 0, 'F', "FORM", RK_ARG_CHOICE, "text hex",
	 "text: escaped text as rowkey encode writes it (default); hex"},
	{"format", 'f', 'f', "FMT", RK_ARG_CHOICE, "tsv jsonl", "tsv (default, with a header line) or jsonl"},
	{"on-error", 0, 'E', "MODE", RK_ARG_CHOICE, "stop skip",
	 "stop (default) at the first bad key, or skip it and count"},
	{"max-record", 0, 'M', "SIZE", RK_ARG_SIZE, NULL,
	 "refuse lines longer than this (default 16MiB), as encode refuses records"},
};

const rk_cli_spec rk_cli_spec_decode = {
	"decode",
	"-s SCHEMA [--in FILE] [--in-form text|hex] [--format tsv|jsonl] [--on-error stop|skip]\n"
	"[--max-record SIZE]",
	"Reads row keys, one a line, and writes their fields. Fields a key does not carry (only "
	"hashed, or time-bucketed) are empty in TSV and null in JSON. A key that does not match "
	"its design (a prefix its fields do not produce, a truncated field, a bad escape) is "
	"refused naming the byte offset. Memory is bounded: a line longer than --max-record is "
	"refused (and skipped with --on-error skip), never held whole.",
	decode_opts, RK_CLI_NOPTS(decode_opts), RK_ARG_NONE, NULL,
	"  $ rowkey decode -s 'fields date:str, time:str, id:u64; key date \":\" time \":\" id' \\\n"
	"      --in keys.txt\n",
	"rowkey-encode(1), rowkey-schema(5)",
};

/* ---- the command ---- */

typedef struct decode_args {
	const char *schema_arg, *in_path;
	size_t max_record;   /* --max-record; 0: the reader's default */
	int json, hex, skip; /* --format jsonl, --in-form hex, --on-error skip */
} decode_args;

/* Returns -1 to go on, else the exit status (help given, or a usage error
 * said). */
static int parse_args(decode_args *a, int argc, char **argv)
{
	const char *fmt_arg = "tsv", *form_arg = "text", *onerr = "stop";
	int c;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_decode, argc, argv, NULL)) != -1) {
		switch (c) {
		case 's': a->schema_arg = optarg; break;
		case 'i': a->in_path = optarg; break;
		case 'f': fmt_arg = optarg; break;
		case 'F': form_arg = optarg; break;
		case 'E': onerr = optarg; break;
		case 'M': {
			uint64_t v;
			if (rk_cli__parse_size(&v, "decode", "max-record", optarg, 1, 1, 1ull << 31))
				return RK_EXIT_USAGE;
			a->max_record = (size_t)v;
			break;
		}
		case 'h': rk_cli_help(&rk_cli_spec_decode, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("decode", "unexpected argument '%s'", argv[optind]);
	if (!a->schema_arg)
		return rk_cli_usage_error("decode", "a schema is required (-s SCHEMA)");
	a->json = !strcmp(fmt_arg, "jsonl") || !strcmp(fmt_arg, "json");
	if (!a->json && strcmp(fmt_arg, "tsv"))
		return rk_cli_usage_error("decode", "unknown output format '%s' (tsv, jsonl)", fmt_arg);
	a->hex = !strcmp(form_arg, "hex");
	if (!a->hex && strcmp(form_arg, "text"))
		return rk_cli_usage_error("decode", "unknown input form '%s' (text, hex)", form_arg);
	if (rk_cli__parse_on_error(&a->skip, "decode", onerr))
		return RK_EXIT_USAGE;
	return -1;
}

/* What a run holds; decode_run_free frees it on every path. */
typedef struct decode_run {
	rk_schema *s;
	rk_encoder *e;
	rk_value *vals;
	uint8_t *key;
	FILE *in;
	rk_rec *r; /* the keys, one a line (RK_REC_LINES) */
	long nkeys, nbad;
} decode_run;

static void decode_run_free(decode_run *x)
{
	rk_rec__close(x->r);
	if (x->in && x->in != stdin)
		fclose(x->in);
	free(x->key);
	free(x->vals);
	rk_encoder_free(x->e);
	rk_schema_free(x->s);
}

/* The schema, the input and the decoder. 0, or -1 after saying why. */
static int decode_open(decode_run *x, const decode_args *a)
{
	if (rk_schema_load(&x->s, a->schema_arg) < 0) {
		rk_cli_fail("decode", "schema");
		return -1;
	}
	if (rk_cli__open_input(&x->in, "decode", a->in_path))
		return -1;
	x->vals = calloc(rk_schema_nfields(x->s), sizeof *x->vals);
	if (!x->vals || rk_encoder_new(&x->e, x->s, 0) < 0) {
		rk_cli_fail("decode", "setup");
		return -1;
	}
	rk_rec_options ro = RK_REC_OPTIONS_INIT;
	ro.format = RK_REC_LINES;
	ro.max_record = a->max_record;
	ro.name = a->in_path ? a->in_path : "<stdin>";
	if (rk_rec__open(&x->r, x->in, &ro) < 0) {
		fprintf(stderr, "rowkey decode: %s\n", rk_error_last());
		return -1;
	}
	return 0;
}

/* One key's fields: a TSV line, or a JSON object. */
static void print_fields(const rk_schema *s, const rk_value *vals, int json)
{
	size_t nf = rk_schema_nfields(s);
	if (json)
		putchar('{');
	for (size_t i = 0; i < nf; i++) {
		if (json) {
			printf("%s\"%s\":", i ? "," : "", rk_schema_field_name(s, i));
		} else if (i) {
			putchar('\t');
		}
		rk_write_field(stdout, s, i, &vals[i], json);
	}
	puts(json ? "}" : "");
}

/* Decodes the key on one line (its n bytes at p) into x->vals. 0, or -1
 * after saying why (out of memory: -2, which stops the run). */
static int decode_key(decode_run *x, const decode_args *a, const char *p, size_t n, long line)
{
	free(x->key);
	if (!(x->key = malloc(n + 1))) {
		fprintf(stderr, "rowkey decode: out of memory\n");
		return -2;
	}
	size_t klen;
	int rc = a->hex ? rk_parse_hex(x->key, &klen, p, n) : rk_parse_escaped(x->key, &klen, p, n);
	if (rc == 0)
		rc = rk_key_decode(x->vals, x->e, x->key, klen);
	if (rc < 0) {
		fprintf(stderr, "rowkey decode: %s%sline %ld: %s\n", a->in_path ? a->in_path : "",
		        a->in_path ? ": " : "", line, rk_error_last());
		return -1;
	}
	return 0;
}

/* Decodes every line (until a write to standard output fails: main() says
 * so). A bad key, or a line over the bound, stops the run, or with
 * --on-error skip is counted. 0, or -1 when the run stops. */
static int decode_lines(decode_run *x, const decode_args *a)
{
	while (!rk_cli_out_failed()) {
		rk_record rec;
		int rc = rk_rec__next(x->r, &rec);
		if (rc == RK_EITEROVER)
			break;
		if (rc == RK_EIO || rc == RK_ENOMEM) { /* a read error is never the end of the input */
			fprintf(stderr, "rowkey decode: %s\n", rk_error_last());
			return -1;
		}
		x->nkeys++;
		if (rc < 0) { /* the line is over the bound: the reader said where */
			fprintf(stderr, "rowkey decode: %s\n", rk_error_last());
			rc = -1;
		} else {
			rc = decode_key(x, a, rec.cell[0].p, rec.cell[0].len, rec.line);
		}
		if (rc == -2)
			return -1;
		if (rc < 0 && a->skip) {
			x->nbad++;
			continue;
		}
		if (rc < 0)
			return -1;
		print_fields(x->s, x->vals, a->json);
	}
	return 0;
}

int rk_cli_decode(int argc, char **argv)
{
	decode_args a = {0};
	int status = parse_args(&a, argc, argv);
	if (status >= 0)
		return status;
	decode_run x = {0};
	status = RK_EXIT_FAIL;
	if (decode_open(&x, &a) == 0) {
		if (!a.json) { /* the header line */
			for (size_t i = 0; i < rk_schema_nfields(x.s); i++)
				printf("%s%s", i ? "\t" : "", rk_schema_field_name(x.s, i));
			putchar('\n');
		}
		if (decode_lines(&x, &a) == 0) {
			if (a.skip)
				fprintf(stderr, "rowkey decode: skipped %ld of %ld keys\n", x.nbad, x.nkeys);
			status = RK_EXIT_OK; /* main() flushes standard output and says when that fails */
		}
	}
	decode_run_free(&x);
	return status;
}
