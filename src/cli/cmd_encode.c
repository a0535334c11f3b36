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
	 "csv (default; JSON lines are recognised), tsv or jsonl"},
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

int rk_cli_encode(int argc, char **argv)
{
	const char *schema_arg = NULL, *in_path = NULL, *out_arg = "text", *onerr = "stop";
	rk_rec_options ro = RK_REC_OPTIONS_INIT;
	unsigned long long seed = 0;
	int c;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_encode, argc, argv, NULL)) != -1) {
		switch (c) {
		case 's': schema_arg = optarg; break;
		case 'i': in_path = optarg; break;
		case 'f':
			if (rk_rec__format_parse(&ro.format, optarg) < 0)
				return rk_cli_usage_error("encode", "%s", rk_error_last());
			break;
		case 'o': out_arg = optarg; break;
		case 'H': ro.header = 1; break;
		case 'N': ro.header = 0; break;
		case 'M': {
			uint64_t v;
			if (rk_cli__parse_size(&v, "encode", "max-record", optarg, 1, 1, 1ull << 31))
				return RK_EXIT_USAGE;
			ro.max_record = (size_t)v;
			break;
		}
		case 'E': onerr = optarg; break;
		case 'S': {
			char *end;
			errno = 0;
			seed = strtoull(optarg, &end, 10);
			if (!isdigit((unsigned char)optarg[0]) || *end || errno)
				return rk_cli_usage_error("encode", "--seed takes a whole number 0..18446744073709551615, not '%s'",
				                          optarg);
			break;
		}
		case 'h': rk_cli_help(&rk_cli_spec_encode, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("encode", "unexpected argument '%s'", argv[optind]);
	if (!schema_arg)
		return rk_cli_usage_error("encode", "a schema is required (-s SCHEMA)");
	int out_form = !strcmp(out_arg, "text") ? 0 : !strcmp(out_arg, "hex") ? 1 : !strcmp(out_arg, "binary") ? 2 : -1;
	if (out_form < 0)
		return rk_cli_usage_error("encode", "unknown output form '%s' (text, hex, binary)", out_arg);
	int skip = !strcmp(onerr, "skip");
	if (!skip && strcmp(onerr, "stop"))
		return rk_cli_usage_error("encode", "--on-error takes stop or skip, not '%s'", onerr);

	int status = RK_EXIT_FAIL, rc;
	rk_schema *s = NULL;
	rk_encoder *e = NULL;
	rk_rec *r = NULL;
	rk_rec_map map;
	rk_value *vals = NULL;
	uint8_t *key = NULL;
	FILE *in = stdin;
	long nrec = 0, nbad = 0;
	if (rk_schema_load(&s, schema_arg) < 0) {
		rk_cli_fail("encode", "schema");
		goto done;
	}
	if (in_path && !(in = fopen(in_path, "rb"))) {
		fprintf(stderr, "rowkey encode: cannot open '%s'\n", in_path);
		goto done;
	}
	size_t cap = rk_schema_max_key_len(s);
	vals = calloc(rk_schema_nfields(s), sizeof *vals);
	key = malloc(cap);
	ro.name = in_path ? in_path : "<stdin>";
	if (!vals || !key || rk_encoder_new(&e, s, seed) < 0) {
		rk_cli_fail("encode", "preparing the encoder");
		goto done;
	}
	if (rk_rec__open(&r, in, &ro) < 0 || rk_rec__map_init(&map, r, s) < 0) {
		fprintf(stderr, "rowkey encode: %s\n", rk_error_last());
		goto done;
	}
	rk_rec__map_notes(&map, r, stderr, "encode");
	while (!rk_cli_out_failed()) {
		rk_record rec;
		rc = rk_rec__next(r, &rec);
		if (rc == RK_EITEROVER)
			break;
		if (rc == RK_EIO || rc == RK_ENOMEM) {
			fprintf(stderr, "rowkey encode: %s\n", rk_error_last());
			goto done;
		}
		nrec++;
		size_t klen = 0;
		if (rc == 0)
			rc = rk_rec__map_values(vals, &map, r, &rec);
		if (rc == 0 && (rc = rk_key_encode(key, cap, &klen, e, vals)) < 0)
			fprintf(stderr, "rowkey encode: %s: line %ld: %s\n", ro.name, rec.line, rk_error_last());
		else if (rc < 0)
			fprintf(stderr, "rowkey encode: %s\n", rk_error_last());
		if (rc < 0) {
			if (!skip)
				goto done;
			nbad++;
			continue;
		}
		if (out_form == 0) {
			rk_write_escaped(stdout, key, klen);
			fputc('\n', stdout);
		} else if (out_form == 1) {
			for (size_t i = 0; i < klen; i++)
				printf("%02x", key[i]);
			fputc('\n', stdout);
		} else {
			fputc((int)(klen >> 8), stdout);
			fputc((int)(klen & 0xff), stdout);
			fwrite(key, 1, klen, stdout);
		}
	}
	if (skip)
		fprintf(stderr, "rowkey encode: skipped %ld of %ld records\n", nbad, nrec);
	status = RK_EXIT_OK; /* main() flushes standard output and says when that fails */
done:
	rk_rec__close(r);
	if (in && in != stdin)
		fclose(in);
	free(vals);
	free(key);
	rk_encoder_free(e);
	rk_schema_free(s);
	return status;
}
