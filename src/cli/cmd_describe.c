/*
 * rowkey describe: what a key design means: fields, key width, which fields a
 * point get needs, whether and how far reads fan out. With --db and --table,
 * the schema the table remembers (stored by its first load), or whether a
 * given schema is that one.
 */
#include <getopt.h>
#include <stdlib.h>

#include <rowkey/key.h>

#include "cli/cli.h"
#include "cli/store_cli.h"

static const rk_cli_opt describe_opts[] = {
	{"schema", 's', 's', "SCHEMA", RK_ARG_SCHEMA, NULL, "the key design: a schema file, or schema text"},
	RK_CLI_OPT_DB,
	{"table", 0, 't', "TABLE", RK_ARG_TABLE, NULL,
	 "with --db: describe the schema the table remembers; with -s too, check that it is the "
	 "given one"},
	{"json", 0, 'j', NULL, RK_ARG_NONE, NULL, "one JSON object instead of text"},
};

const rk_cli_spec rk_cli_spec_describe = {
	"describe",
	"-s SCHEMA [--json]\n"
	"--db DIR --table TABLE [-s SCHEMA] [--json]",
	"Summarizes a key design: its fields and whether each decodes, the key's width, the "
	"fields a point get needs, how reads fan out over salt buckets, and what the design does "
	"to writes.",
	describe_opts, RK_CLI_NOPTS(describe_opts), RK_ARG_NONE, NULL,
	"  $ rowkey describe -s 'fields user:u64, ts:ts; key bucket(8, xxh3(user)) u64(user) u64(ts)'\n",
	"rowkey-explain(1), rowkey-schema(5)",
};

int rk_cli_describe(int argc, char **argv)
{
	const char *schema_arg = NULL, *db = NULL, *table = NULL;
	int json = 0, c;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_describe, argc, argv, NULL)) != -1) {
		switch (c) {
		case 's': schema_arg = optarg; break;
		case 'd': db = optarg; break;
		case 't': table = optarg; break;
		case 'j': json = 1; break;
		case 'h': rk_cli_help(&rk_cli_spec_describe, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("describe", "unexpected argument '%s'", argv[optind]);
	if (!db != !table)
		return rk_cli_usage_error("describe", "--db and --table go together");
	if (!schema_arg && !table)
		return rk_cli_usage_error("describe", "a schema is required (-s SCHEMA, or --db DIR --table T)");
	rk_schema *s = NULL;
	if (schema_arg && rk_schema_load(&s, schema_arg) < 0)
		return rk_cli_fail("describe", "schema");
	if (table) {
		rk_store_options o = RK_STORE_OPTIONS_INIT;
		o.background_splits = 0;
		rk_store *st = rk_cli__open_store("describe", db, 0, &o);
		int bad = !st;
		char *bt_id = st ? rk_cli__bigtable_id(st, table) : NULL;
		if (st && s)
			bad = rk_cli__table_schema(st, "describe", table, s, 0, 0) != 0;
		else if (st)
			bad = rk_cli__stored_schema(&s, st, "describe", table) != 0;
		if (st)
			bad = rk_cli__close_store("describe", st, bad) != 0;
		if (bad) {
			free(bt_id);
			rk_schema_free(s);
			return RK_EXIT_FAIL;
		}
		if (!json)
			printf("table       %s (%s)\n", table,
			       schema_arg ? "the given schema is the one it remembers, or it remembers none"
			                  : "the schema it remembers");
		if (!json && bt_id)
			printf("bigtable    table %s (what cbt and the client libraries open)\n", bt_id);
		free(bt_id);
	}
	char *text;
	int rc = json ? rk_schema_describe_json(&text, s) : rk_schema_describe(&text, s);
	rk_schema_free(s);
	if (rc < 0)
		return rk_cli_fail("describe", "describe");
	rk_cli_out_text(text);
	if (json)
		putchar('\n');
	free(text);
	return RK_EXIT_OK;
}
