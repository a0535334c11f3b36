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

static void help(FILE *f)
{
	fprintf(f, "usage: rowkey query [-s SCHEMA] [--db DIR] --table T [--where PRED] [--limit N]\n"
	           "                    [--columns FAM[:QUAL],...] [--format tsv|jsonl] [--unordered] [--reverse]\n\n"
	           "Reads the rows of a table that match a predicate, decoded through the schema.\n\n"
	           "  -s, --schema SCHEMA   schema file or schema text (the table's key design; default:\n"
	           "                        the schema the table remembers from its first load)\n"
	           "      --force           query even when the table remembers another schema\n"
	           "      --db DIR          the store (default ./rowkey-data)\n"
	           "  -t, --table T         the table\n"
	           "  -w, --where PRED      conditions joined by AND (see rowkey explain --help)\n"
	           "  -n, --limit N         at most N rows, counted after the merge and the filter\n"
	           "  -c, --columns LIST    only these columns: FAMILY or FAMILY:QUALIFIER, comma-separated\n"
	           "  -f, --format FMT      tsv (default, with a header) or jsonl\n"
	           "      --unordered       stream rows as they arrive from the buckets (no merge)\n"
	           "      --reverse         descending logical order\n"
	           "      --max-ranges N    bound on point gets / ranges IN lists expand to (default 10000);\n"
	           "                        past it the plan reads whole key prefixes and says so\n"
	           "  -h, --help            this help\n");
}

int rk_cli_query(int argc, char **argv)
{
	const char *schema_arg = NULL, *db = "./rowkey-data", *table_name = NULL, *where = "", *cols = NULL,
	           *fmt = "tsv";
	rk_query_options qo = RK_QUERY_OPTIONS_INIT;
	rk_plan_options po = RK_PLAN_OPTIONS_INIT;
	int c, force = 0;
	static const struct option opts[] = {
		{"schema", required_argument, 0, 's'}, {"db", required_argument, 0, 'd'},
		{"table", required_argument, 0, 't'},  {"where", required_argument, 0, 'w'},
		{"limit", required_argument, 0, 'n'},  {"columns", required_argument, 0, 'c'},
		{"format", required_argument, 0, 'f'}, {"unordered", no_argument, 0, 'U'},
		{"reverse", no_argument, 0, 'R'},      {"max-ranges", required_argument, 0, 'M'},
		{"force", no_argument, 0, 'X'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:t:w:n:c:f:h", opts, NULL)) != -1) {
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
		case 'h': help(stdout); return RK_EXIT_OK;
		default: help(stderr); return RK_EXIT_USAGE;
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
