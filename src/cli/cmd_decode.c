/*
 * rowkey decode: row keys in (escaped text or hex, one per line), fields out
 * as TSV with a header line, or as JSON lines. A key that does not match the
 * design is reported with its line and byte offset.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

#include "cli/cli.h"
#include "cli/textio.h"

static const rk_cli_opt decode_opts[] = {
	{"schema", 's', 's', "SCHEMA", RK_ARG_SCHEMA, NULL, "the key design: a schema file, or schema text"},
	{"in", 'i', 'i', "FILE", RK_ARG_FILE, NULL, "read keys from FILE (default: standard input)"},
	{"in-form", 0, 'F', "FORM", RK_ARG_CHOICE, "text hex",
	 "text: escaped text as rowkey encode writes it (default); hex"},
	{"format", 'f', 'f', "FMT", RK_ARG_CHOICE, "tsv jsonl", "tsv (default, with a header line) or jsonl"},
	{"on-error", 0, 'E', "MODE", RK_ARG_CHOICE, "stop skip",
	 "stop (default) at the first bad key, or skip it and count"},
};

const rk_cli_spec rk_cli_spec_decode = {
	"decode",
	"-s SCHEMA [--in FILE] [--in-form text|hex] [--format tsv|jsonl] [--on-error stop|skip]",
	"Reads row keys, one a line, and writes their fields. Fields a key does not carry (only "
	"hashed, or time-bucketed) are empty in TSV and null in JSON. A key that does not match "
	"its design (a prefix its fields do not produce, a truncated field, a bad escape) is "
	"refused naming the byte offset.",
	decode_opts, RK_CLI_NOPTS(decode_opts), RK_ARG_NONE, NULL,
	"  $ rowkey decode -s 'fields date:str, time:str, id:u64; key date \":\" time \":\" id' \\\n"
	"      --in keys.txt\n",
	"rowkey-encode(1), rowkey-schema(5)",
};

int rk_cli_decode(int argc, char **argv)
{
	const char *schema_arg = NULL, *in_path = NULL, *fmt_arg = "tsv", *form_arg = "text", *onerr = "stop";
	int c;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_decode, argc, argv, NULL)) != -1) {
		switch (c) {
		case 's': schema_arg = optarg; break;
		case 'i': in_path = optarg; break;
		case 'f': fmt_arg = optarg; break;
		case 'F': form_arg = optarg; break;
		case 'E': onerr = optarg; break;
		case 'h': rk_cli_help(&rk_cli_spec_decode, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("decode", "unexpected argument '%s'", argv[optind]);
	if (!schema_arg)
		return rk_cli_usage_error("decode", "a schema is required (-s SCHEMA)");
	int json = !strcmp(fmt_arg, "jsonl") || !strcmp(fmt_arg, "json");
	if (!json && strcmp(fmt_arg, "tsv"))
		return rk_cli_usage_error("decode", "unknown output format '%s' (tsv, jsonl)", fmt_arg);
	int hex = !strcmp(form_arg, "hex");
	if (!hex && strcmp(form_arg, "text"))
		return rk_cli_usage_error("decode", "unknown input form '%s' (text, hex)", form_arg);
	int skip = !strcmp(onerr, "skip");
	if (!skip && strcmp(onerr, "stop"))
		return rk_cli_usage_error("decode", "--on-error takes stop or skip, not '%s'", onerr);

	int status = RK_EXIT_FAIL;
	rk_schema *s = NULL;
	rk_encoder *e = NULL;
	rk_value *vals = NULL;
	uint8_t *key = NULL;
	char *line = NULL;
	size_t linecap = 0;
	FILE *in = stdin;
	long lineno = 0, nbad = 0;
	if (rk_schema_load(&s, schema_arg) < 0) {
		rk_cli_fail("decode", "schema");
		goto done;
	}
	if (in_path && !(in = fopen(in_path, "rb"))) {
		fprintf(stderr, "rowkey decode: cannot open '%s'\n", in_path);
		goto done;
	}
	size_t nf = rk_schema_nfields(s);
	vals = calloc(nf, sizeof *vals);
	if (!vals || rk_encoder_new(&e, s, 0) < 0) {
		rk_cli_fail("decode", "setup");
		goto done;
	}
	if (!json) {
		for (size_t i = 0; i < nf; i++)
			printf("%s%s", i ? "\t" : "", rk_schema_field_name(s, i));
		putchar('\n');
	}
	ssize_t n;
	errno = 0;
	while (!rk_cli_out_failed() && (n = getline(&line, &linecap, in)) >= 0) {
		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		free(key);
		if (!(key = malloc((size_t)n + 1))) {
			fprintf(stderr, "rowkey decode: out of memory\n");
			goto done;
		}
		size_t klen;
		int rc = hex ? rk_parse_hex(key, &klen, line, (size_t)n) : rk_parse_escaped(key, &klen, line, (size_t)n);
		if (rc == 0)
			rc = rk_key_decode(vals, e, key, klen);
		if (rc < 0) {
			fprintf(stderr, "rowkey decode: %s%sline %ld: %s\n", in_path ? in_path : "", in_path ? ": " : "",
			        lineno, rk_error_last());
			if (!skip)
				goto done;
			nbad++;
			continue;
		}
		if (json)
			putchar('{');
		for (size_t i = 0; i < nf; i++) {
			if (json) {
				printf("%s\"%s\":", i ? "," : "", rk_schema_field_name(s, i));
			} else if (i) {
				putchar('\t');
			}
			rk_write_value(stdout, rk_schema_field_type(s, i), &vals[i], json);
		}
		puts(json ? "}" : "");
	}
	if (ferror(in)) { /* a read error is never the end of the input */
		fprintf(stderr, "rowkey decode: %s: line %ld: reading the input failed: %s\n",
		        in_path ? in_path : "<stdin>", lineno + 1, strerror(errno));
		goto done;
	}
	if (skip)
		fprintf(stderr, "rowkey decode: skipped %ld of %ld keys\n", nbad, lineno);
	status = RK_EXIT_OK; /* main() flushes standard output and says when that fails */
done:
	if (in && in != stdin)
		fclose(in);
	free(line);
	free(key);
	free(vals);
	rk_encoder_free(e);
	rk_schema_free(s);
	return status;
}
