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

static void help(FILE *f)
{
	fprintf(f,
	        "usage: rowkey decode -s SCHEMA [--in FILE] [--in-form text|hex] [--format tsv|jsonl]\n"
	        "                     [--on-error stop|skip]\n\n"
	        "Reads row keys, one per line, and writes their fields.\n\n"
	        "  -s, --schema SCHEMA   schema file or schema text\n"
	        "  -i, --in FILE         read keys from FILE (default: standard input)\n"
	        "      --in-form FORM    text: escaped text as `rowkey encode` writes it (default); hex\n"
	        "  -f, --format FMT      tsv (default, with a header line) or jsonl\n"
	        "      --on-error MODE   stop (default) at the first bad key, or skip and count\n"
	        "  -h, --help            this help\n\n"
	        "Fields a key does not carry (only hashed, or time-bucketed) are empty in TSV, null in JSON.\n");
}

int rk_cli_decode(int argc, char **argv)
{
	const char *schema_arg = NULL, *in_path = NULL, *fmt_arg = "tsv", *form_arg = "text", *onerr = "stop";
	static const struct option opts[] = {
		{"schema", required_argument, 0, 's'}, {"in", required_argument, 0, 'i'},
		{"format", required_argument, 0, 'f'}, {"in-form", required_argument, 0, 'F'},
		{"on-error", required_argument, 0, 'E'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:i:f:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': schema_arg = optarg; break;
		case 'i': in_path = optarg; break;
		case 'f': fmt_arg = optarg; break;
		case 'F': form_arg = optarg; break;
		case 'E': onerr = optarg; break;
		case 'h': help(stdout); return RK_EXIT_OK;
		default: help(stderr); return RK_EXIT_USAGE;
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
