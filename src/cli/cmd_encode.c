/*
 * rowkey encode: records in (CSV, TSV, JSON lines), row keys out, one per
 * line. A bad record stops the run (default) or is skipped and counted.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

#include "cli/cli.h"
#include "cli/store_cli.h"
#include "cli/textio.h"
#include "records/map.h"
#include "records/reader.h"

static const rk_cli_opt encode_opts[] = {
	{"schema", 's', 's', "SCHEMA", RK_ARG_SCHEMA, NULL,
	 "the key design: a schema file, or schema text ('fields a:str, b:u64; key a \":\" b'); "
	 "see rowkey-schema(5)"},
	{"in", 'i', 'i', "FILE", RK_ARG_FILE, NULL, "read records from FILE (default: standard input)"},
	{"format", 'f', 'f', "FMT", RK_ARG_CHOICE, "csv tsv jsonl",
	 "csv (default; JSON lines and files named .tsv are recognised), tsv or jsonl"},
	{"out", 'o', 'o', "FORM", RK_ARG_CHOICE, "text hex binary",
	 "text: printable bytes as they are, others as \\xNN (default); hex: lower-case hex; "
	 "binary: a 2-byte big-endian length, then the bytes"},
	RK_CLI_OPTS_RECORDS,
	{"on-error", 0, 'E', "MODE", RK_ARG_CHOICE, "stop skip",
	 "stop (default) at the first bad record, or skip it and count"},
	{"seed", 0, 'S', "N", RK_ARG_NUMBER, NULL,
	 "seed for random salts (default fixed: runs are reproducible)"},
};

const rk_cli_spec rk_cli_spec_encode = {
	"encode",
	"-s SCHEMA [--in FILE] [--format csv|tsv|jsonl] [--out text|hex|binary]\n"
	"[--header|--no-header] [--on-error stop|skip] [--seed N]",
	"Reads records and writes one row key per record, one a line.",
	encode_opts, RK_CLI_NOPTS(encode_opts), RK_ARG_NONE, NULL,
	"  $ printf 'date,time,id\\n230611,063031,1231231\\n' |\n"
	"      rowkey encode -s 'fields date:str, time:str, id:u64; key date \":\" time \":\" id'\n"
	"  230611:063031:1231231\n",
	"rowkey-decode(1), rowkey-describe(1), rowkey-schema(5)",
};

/* ---- the command ---- */

enum { OUT_TEXT, OUT_HEX, OUT_BINARY };

typedef struct encode_args {
	const char *schema_arg, *in_path;
	rk_rec_options ro;
	const char *number; /* --number FIELD, or NULL */
	unsigned long long seed;
	int out_form; /* OUT_* */
	int skip;     /* --on-error skip */
} encode_args;

/* --seed N: any 64-bit number, written in decimal digits only. */
static int parse_seed(unsigned long long *seed, const char *arg)
{
	char *end;
	errno = 0;
	*seed = strtoull(arg, &end, 10);
	if (!isdigit((unsigned char)arg[0]) || *end || errno)
		return rk_cli_usage_error("encode", "--seed takes a whole number 0..18446744073709551615, not '%s'",
		                          arg);
	return 0;
}

/* Returns -1 to go on, else the exit status (help given, or a usage error
 * said). */
static int parse_args(encode_args *a, int argc, char **argv)
{
	const char *out_arg = "text", *onerr = "stop";
	int c;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_encode, argc, argv, NULL)) != -1) {
		switch (c) {
		case 's': a->schema_arg = optarg; break;
		case 'i': a->in_path = optarg; break;
		case 'f':
			if (rk_rec__format_parse(&a->ro.format, optarg) < 0)
				return rk_cli_usage_error("encode", "%s", rk_error_last());
			break;
		case 'o': out_arg = optarg; break;
		case 'H': a->ro.header = 1; break;
		case 'N': a->ro.header = 0; break;
		case 'U': a->number = optarg; break;
		case 'M': {
			uint64_t v;
			if (rk_cli__parse_size(&v, "encode", "max-record", optarg, 1, 1, 1ull << 31))
				return RK_EXIT_USAGE;
			a->ro.max_record = (size_t)v;
			break;
		}
		case 'E': onerr = optarg; break;
		case 'S':
			if (parse_seed(&a->seed, optarg))
				return RK_EXIT_USAGE;
			break;
		case 'h': rk_cli_help(&rk_cli_spec_encode, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("encode", "unexpected argument '%s'", argv[optind]);
	if (!a->schema_arg)
		return rk_cli_usage_error("encode", "a schema is required (-s SCHEMA)");
	a->out_form = !strcmp(out_arg, "text")     ? OUT_TEXT
	              : !strcmp(out_arg, "hex")    ? OUT_HEX
	              : !strcmp(out_arg, "binary") ? OUT_BINARY
	                                           : -1;
	if (a->out_form < 0)
		return rk_cli_usage_error("encode", "unknown output form '%s' (text, hex, binary)", out_arg);
	if (rk_cli__parse_on_error(&a->skip, "encode", onerr))
		return RK_EXIT_USAGE;
	return -1;
}

/* What a run holds; encode_run_free frees it on every path. */
typedef struct encode_run {
	rk_schema *s;
	rk_encoder *e;
	rk_rec *r;
	rk_rec_map map;
	rk_value *vals;
	uint8_t *key;
	size_t cap; /* key's size: the longest key the schema makes */
	FILE *in;
	long nrec, nbad;
} encode_run;

static void encode_run_free(encode_run *x)
{
	rk_rec__close(x->r);
	if (x->in && x->in != stdin)
		fclose(x->in);
	free(x->vals);
	free(x->key);
	rk_encoder_free(x->e);
	rk_schema_free(x->s);
}

/* The schema, the input, the encoder and the record reader mapped onto the
 * schema's fields. 0, or -1 after saying why. */
static int encode_open(encode_run *x, encode_args *a)
{
	if (rk_schema_load(&x->s, a->schema_arg) < 0) {
		rk_cli_fail("encode", "schema");
		return -1;
	}
	if (rk_cli__open_input(&x->in, "encode", a->in_path))
		return -1;
	x->cap = rk_schema_max_key_len(x->s);
	x->vals = calloc(rk_schema_nfields(x->s), sizeof *x->vals);
	x->key = malloc(x->cap);
	a->ro.name = a->in_path ? a->in_path : "<stdin>";
	if (!x->vals || !x->key || rk_encoder_new(&x->e, x->s, a->seed) < 0) {
		rk_cli_fail("encode", "preparing the encoder");
		return -1;
	}
	if (rk_rec__open(&x->r, x->in, &a->ro) < 0 || rk_rec__map_init(&x->map, x->r, x->s, a->number) < 0) {
		fprintf(stderr, "rowkey encode: %s\n", rk_error_last());
		return -1;
	}
	rk_rec__map_notes(&x->map, x->r, stderr, "encode");
	return 0;
}

static void write_key(int form, const uint8_t *key, size_t klen)
{
	if (form == OUT_TEXT) {
		rk_write_escaped(stdout, key, klen);
		fputc('\n', stdout);
	} else if (form == OUT_HEX) {
		for (size_t i = 0; i < klen; i++)
			printf("%02x", key[i]);
		fputc('\n', stdout);
	} else {
		fputc((int)(klen >> 8), stdout);
		fputc((int)(klen & 0xff), stdout);
		fwrite(key, 1, klen, stdout);
	}
}

/* Encodes every record (until a write to standard output fails: main() says
 * so). A bad record is said and stops the run, or with --on-error skip is
 * counted. 0, or -1 when the run stops. */
static int encode_records(encode_run *x, const encode_args *a)
{
	while (!rk_cli_out_failed()) {
		rk_record rec;
		int rc = rk_rec__next(x->r, &rec);
		if (rc == RK_EITEROVER)
			break;
		if (rc == RK_EIO || rc == RK_ENOMEM) {
			fprintf(stderr, "rowkey encode: %s\n", rk_error_last());
			return -1;
		}
		x->nrec++;
		size_t klen = 0;
		if (rc == 0)
			rc = rk_rec__map_values(x->vals, &x->map, x->r, &rec);
		if (rc == 0 && (rc = rk_key_encode(x->key, x->cap, &klen, x->e, x->vals)) < 0) {
			fprintf(stderr, "rowkey encode: %s: line %ld: %s\n", a->ro.name, rec.line, rk_error_last());
		} else if (rc == 0 && klen == 0) {
			fprintf(stderr, "rowkey encode: %s: line %ld: %s\n", a->ro.name, rec.line, RK_CLI_EMPTY_KEY_WHY);
			rc = -1;
		} else if (rc < 0) {
			fprintf(stderr, "rowkey encode: %s\n", rk_error_last());
		}
		if (rc < 0) {
			if (!a->skip)
				return -1;
			x->nbad++;
			continue;
		}
		write_key(a->out_form, x->key, klen);
	}
	return 0;
}

int rk_cli_encode(int argc, char **argv)
{
	encode_args a = {.ro = RK_REC_OPTIONS_INIT};
	int status = parse_args(&a, argc, argv);
	if (status >= 0)
		return status;
	encode_run x = {0};
	status = RK_EXIT_FAIL;
	if (encode_open(&x, &a) == 0 && encode_records(&x, &a) == 0) {
		if (a.skip)
			fprintf(stderr, "rowkey encode: skipped %ld of %ld records\n", x.nbad, x.nrec);
		status = RK_EXIT_OK; /* main() flushes standard output and says when that fails */
	}
	encode_run_free(&x);
	return status;
}
