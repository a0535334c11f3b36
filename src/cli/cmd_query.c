/*
 * rowkey query: plan a predicate under a schema and read the matching rows of
 * a table, decoded into fields, in logical key order (merged across salt
 * buckets) unless --unordered. Prints TSV (fields, then family:qualifier
 * cells) or JSON lines.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/query.h>

#include "cli/cli.h"
#include "cli/textio.h"
#include "cli/store_cli.h"
#include "key/bytes.h"

static const rk_cli_opt query_opts[] = {
	{"schema", 's', 's', "SCHEMA", RK_ARG_SCHEMA, NULL,
	 "the table's key design: a schema file, or schema text (default: the schema the table "
	 "remembers from its first load)"},
	{"force", 0, 'X', NULL, RK_ARG_NONE, NULL, "query even when the table remembers another schema"},
	RK_CLI_OPT_DB,
	{"table", 't', 't', "TABLE", RK_ARG_TABLE, NULL, "the table"},
	{"where", 'w', 'w', "PREDICATE", RK_ARG_TEXT, NULL,
	 "conditions joined by AND (as in rowkey explain)"},
	{"limit", 'n', 'n', "N", RK_ARG_NUMBER, NULL,
	 "at most N rows, counted after the merge and the filter"},
	{"columns", 'c', 'c', "LIST", RK_ARG_TEXT, NULL,
	 "only these columns: FAMILY or FAMILY:QUALIFIER, comma-separated"},
	{"format", 'f', 'f', "FMT", RK_ARG_CHOICE, "tsv jsonl", "tsv (default, with a header) or jsonl"},
	{"unordered", 0, 'U', NULL, RK_ARG_NONE, NULL,
	 "stream rows as they arrive from the buckets (no merge)"},
	{"reverse", 0, 'R', NULL, RK_ARG_NONE, NULL, "descending logical order"},
	RK_CLI_OPT_MAX_RANGES,
};

const rk_cli_spec rk_cli_spec_query = {
	"query",
	"[-s SCHEMA] [--db DIR] --table TABLE [--where PREDICATE] [--limit N]\n"
	"[--columns FAMILY[:QUALIFIER],...] [--format tsv|jsonl] [--unordered] [--reverse]",
	"Reads the rows of a table that match a predicate, decoded through the schema: the plan "
	"rowkey explain shows, run with one scan per salt bucket in parallel and merged in logical "
	"order (the key without its salt).",
	query_opts, RK_CLI_NOPTS(query_opts), RK_ARG_NONE, NULL,
	"  $ rowkey query --db /tmp/rk -t ev -w 'uid = 3' --limit 1\n",
	"rowkey-explain(1), rowkey-load(1), rowkey-schema(5)",
};

int rk_cli_query(int argc, char **argv)
{
	const char *schema_arg = NULL, *db = "./rowkey-data", *table_name = NULL, *where = "", *cols = NULL,
	           *fmt = "tsv";
	rk_query_options qo = RK_QUERY_OPTIONS_INIT;
	rk_plan_options po = RK_PLAN_OPTIONS_INIT;
	int c, force = 0;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_query, argc, argv, NULL)) != -1) {
		switch (c) {
		case 's': schema_arg = optarg; break;
		case 'd': db = optarg; break;
		case 't': table_name = optarg; break;
		case 'w': where = optarg; break;
		case 'n':
			if (rk_cli__parse_range(&qo.limit, "query", "--limit", optarg, 0, UINT64_MAX))
				return RK_EXIT_USAGE;
			break;
		case 'c': cols = optarg; break;
		case 'f': fmt = optarg; break;
		case 'U': qo.unordered = 1; break;
		case 'R': qo.reverse = 1; break;
		case 'X': force = 1; break;
		case 'M':
			if (rk_cli__parse_max_ranges(&po, "query", optarg))
				return RK_EXIT_USAGE;
			break;
		case 'h': rk_cli_help(&rk_cli_spec_query, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("query", "unexpected argument '%s'", argv[optind]);
	if (!table_name)
		return rk_cli_usage_error("query", "a table (--table) is required");
	int json = !strcmp(fmt, "jsonl") || !strcmp(fmt, "json");
	if (!json && strcmp(fmt, "tsv"))
		return rk_cli_usage_error("query", "unknown format '%s' (tsv, jsonl)", fmt);

	int status = RK_EXIT_FAIL, rc;
	rk_schema *s = NULL;
	rk_predicate *pred = NULL;
	rk_plan *plan = NULL;
	rk_store *store = NULL;
	rk_table *table = NULL;
	rk_query *q = NULL;
	rk_column columns[64];
	char *colbufs[64];
	uint8_t *qbufs[64];
	size_t ncols = 0;
	char *list = cols ? strdup(cols) : NULL; /* the columns copy what they keep */
	for (char *tok = list ? strtok(list, ",") : NULL; tok; tok = strtok(NULL, ",")) {
		if (rk_cli__add_column(columns, colbufs, qbufs, &ncols, 64, tok)) {
			status = rk_cli_usage_error("query", "bad column '%s' (FAMILY or FAMILY:QUALIFIER, at most 64)", tok);
			free(list);
			goto done;
		}
	}
	free(list);
	if (ncols) {
		qo.read.columns = columns;
		qo.read.ncolumns = ncols;
	}
	rk_store_options so = RK_STORE_OPTIONS_INIT;
	so.create_if_missing = 0;
	if (rk_store_open(&store, db, &so) < 0) {
		rk_cli_fail("query", db);
		goto done;
	}
	if (rk_table_open(&table, store, table_name) < 0) {
		rk_cli_fail("query", table_name);
		goto done;
	}
	/* the table's own schema when none is given; a given one must match it */
	if (!schema_arg) {
		if (rk_cli__stored_schema(&s, store, "query", table_name))
			goto done;
	} else if (rk_schema_load(&s, schema_arg) < 0) {
		rk_cli_fail("query", "schema");
		goto done;
	} else if (rk_cli__table_schema(store, "query", table_name, s, 0, force)) {
		goto done;
	}
	if (rk_predicate_parse(&pred, s, where, strlen(where)) < 0) {
		fprintf(stderr, "rowkey query: %s\n", rk_error_last());
		status = RK_EXIT_USAGE;
		goto done;
	}
	if (rk_plan_build_opts(&plan, s, pred, &po) < 0) {
		rk_cli_fail("query", "plan");
		goto done;
	}
	if (plan->capped)
		fprintf(stderr, "rowkey query: note: the plan is bounded (--max-ranges %zu): %s\n", po.max_ranges,
		        plan->explain);
	if (rk_query_open(&q, table, s, plan, pred, &qo) < 0) {
		rk_cli_fail("query", table_name);
		goto done;
	}
	size_t nf = rk_schema_nfields(s);
	if (!json) {
		for (size_t i = 0; i < nf; i++)
			printf("%s\t", rk_schema_field_name(s, i));
		printf("cells\n");
	}
	rk_query_row r;
	while (!rk_cli_out_failed() && (rc = rk_query_next(&r, q)) == 0) {
		if (json)
			putchar('{');
		for (size_t i = 0; i < nf; i++) {
			if (json)
				printf("%s\"%s\":", i ? "," : "", rk_schema_field_name(s, i));
			rk_write_value(stdout, rk_schema_field_type(s, i), &r.fields[i], json);
			if (!json)
				putchar('\t');
		}
		if (json)
			printf(",\"cells\":{");
		for (size_t k = 0; k < r.row->ncells; k++) {
			const rk_cell *cell = &r.row->cells[k];
			if (json) {
				size_t fl = strlen(cell->family);
				uint8_t name[512];
				size_t nl = 0;
				memcpy(name, cell->family, fl < 200 ? fl : 200);
				nl = fl < 200 ? fl : 200;
				name[nl++] = ':';
				size_t ql = cell->qualifier_len < 300 ? cell->qualifier_len : 300;
				memcpy(name + nl, cell->qualifier, ql);
				nl += ql;
				printf("%s", k ? "," : "");
				rk__json_str(stdout, name, nl);
				putchar(':');
				rk__json_str(stdout, cell->value, cell->value_len);
			} else {
				printf("%s%s:", k ? " " : "", cell->family);
				rk_write_escaped(stdout, cell->qualifier, cell->qualifier_len);
				putchar('=');
				rk_write_escaped(stdout, cell->value, cell->value_len);
			}
		}
		puts(json ? "}}" : "");
	}
	if (rk_cli_out_failed())
		goto done; /* main() says why */
	if (rc != RK_EITEROVER) {
		rk_cli_fail("query", table_name);
		goto done;
	}
	status = RK_EXIT_OK; /* main() flushes standard output and says when that fails */
done:
	rk_query_close(q);
	rk_table_close(table);
	if (store)
		rk_store_close(store);
	rk_plan_free(plan);
	rk_predicate_free(pred);
	rk_schema_free(s);
	for (size_t i = 0; i < ncols; i++) {
		free(colbufs[i]);
		free(qbufs[i]);
	}
	return status;
}
