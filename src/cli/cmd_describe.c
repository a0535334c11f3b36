/*
 * rowkey describe: what a key design means: fields, key width, which fields a
 * point get needs, whether and how far reads fan out.
 */
#include <getopt.h>
#include <stdlib.h>

#include <rowkey/key.h>

#include "cli/cli.h"

static void help(FILE *f)
{
	fprintf(f, "usage: rowkey describe -s SCHEMA [--json]\n\n"
	           "Summarizes a key design.\n\n"
	           "  -s, --schema SCHEMA   schema file or schema text\n"
	           "      --json            one JSON object instead of text\n"
	           "  -h, --help            this help\n");
}

int rk_cli_describe(int argc, char **argv)
{
	const char *schema_arg = NULL;
	int json = 0, c;
	static const struct option opts[] = {{"schema", required_argument, 0, 's'},
	                                     {"json", no_argument, 0, 'j'},
	                                     {"help", no_argument, 0, 'h'},
	                                     {0, 0, 0, 0}};
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': schema_arg = optarg; break;
		case 'j': json = 1; break;
		case 'h': help(stdout); return RK_EXIT_OK;
		default: help(stderr); return RK_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("describe", "unexpected argument '%s'", argv[optind]);
	if (!schema_arg)
		return rk_cli_usage_error("describe", "a schema is required (-s SCHEMA)");
	rk_schema *s;
	if (rk_schema_load(&s, schema_arg) < 0)
		return rk_cli_fail("describe", "schema");
	char *text;
	int rc = json ? rk_schema_describe_json(&text, s) : rk_schema_describe(&text, s);
	rk_schema_free(s);
	if (rc < 0)
		return rk_cli_fail("describe", "describe");
	fputs(text, stdout);
	if (json)
		putchar('\n');
	free(text);
	return RK_EXIT_OK;
}
