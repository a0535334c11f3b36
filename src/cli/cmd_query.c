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
	 "conditions joined by AND, then ORDER BY field [ASC|DESC] and LIMIT n (as in rowkey explain)"},
	{"limit", 'n', 'n', "N", RK_ARG_NUMBER, NULL,
	 "at most N rows (N >= 1; default every row), counted after the merge and the filter (with "
	 "LIMIT in the predicate: the smaller)"},
	{"columns", 'c', 'c', "LIST", RK_ARG_TEXT, NULL,
	 "only these columns: FAMILY or FAMILY:QUALIFIER, comma-separated"},
	{"format", 'f', 'f', "FMT", RK_ARG_CHOICE, "tsv jsonl", "tsv (default, with a header) or jsonl"},
	{"unordered", 0, 'U', NULL, RK_ARG_NONE, NULL,
	 "stream rows as they arrive from the buckets (no merge)"},
	{"reverse", 0, 'R', NULL, RK_ARG_NONE, NULL, "descending logical order"},
	{"stats", 0, 'S', NULL, RK_ARG_NONE, NULL,
	 "at the end, on standard error: rows returned and rows read from the store (what rowkey "
	 "suggest and analyze price a query at)"},
	RK_CLI_OPT_MAX_RANGES,
};

const rk_cli_spec rk_cli_spec_query = {
	"query",
	"[-s SCHEMA] [--db DIR] --table TABLE [--where PREDICATE] [--limit N]\n"
	"[--columns FAMILY[:QUALIFIER],...] [--format tsv|jsonl] [--unordered] [--reverse] [--stats]",
	"Reads the rows of a table that match a predicate, decoded through the schema: the plan "
	"rowkey explain shows, run with one scan per salt bucket in parallel and merged in logical "
	"order (the key without its salt).",
	query_opts, RK_CLI_NOPTS(query_opts), RK_ARG_NONE, NULL,
	"  $ rowkey query --db /tmp/rk -t ev -w 'uid = 3' --limit 1\n"
	"  $ rowkey query --db /tmp/rk -t ev -w 'uid = 3 ORDER BY ts DESC LIMIT 20'\n",
	"rowkey-explain(1), rowkey-load(1), rowkey-schema(5)",
};

/* ---- the command ---- */

typedef struct query_args {
	const char *schema_arg, *db, *table, *where, *cols;
	rk_query_options qo;
	rk_plan_options po;
	int force, json, stats;
} query_args;

/* Returns -1 to go on, else the exit status (help given, or a usage error
 * said). */
static int parse_args(query_args *a, int argc, char **argv)
{
	const char *fmt = "tsv";
	int c;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_query, argc, argv, NULL)) != -1) {
		switch (c) {
		case 's': a->schema_arg = optarg; break;
		case 'd': a->db = optarg; break;
		case 't': a->table = optarg; break;
		case 'w': a->where = optarg; break;
		case 'n':
			if (rk_cli__parse_limit(&a->qo.limit, "query", optarg))
				return RK_EXIT_USAGE;
			break;
		case 'c': a->cols = optarg; break;
		case 'f': fmt = optarg; break;
		case 'U': a->qo.unordered = 1; break;
		case 'R': a->qo.reverse = 1; break;
		case 'X': a->force = 1; break;
		case 'S': a->stats = 1; break;
		case 'M':
			if (rk_cli__parse_max_ranges(&a->po, "query", optarg))
				return RK_EXIT_USAGE;
			break;
		case 'h': rk_cli_help(&rk_cli_spec_query, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("query", "unexpected argument '%s'", argv[optind]);
	if (!a->table)
		return rk_cli_usage_error("query", "a table (--table) is required");
	a->json = !strcmp(fmt, "jsonl") || !strcmp(fmt, "json");
	if (!a->json && strcmp(fmt, "tsv"))
		return rk_cli_usage_error("query", "unknown format '%s' (tsv, jsonl)", fmt);
	return -1;
}

/* What a run holds; query_run_free frees it on every path. */
typedef struct query_run {
	rk_schema *s;
	rk_predicate *pred;
	rk_plan *plan;
	rk_store *store;
	rk_table *table;
	rk_query *q;
	rk_cli_columns cols;
} query_run;

static void query_run_free(query_run *r)
{
	rk_query_close(r->q);
	rk_table_close(r->table);
	if (r->store)
		rk_store_close(r->store);
	rk_plan_free(r->plan);
	rk_predicate_free(r->pred);
	rk_schema_free(r->s);
	rk_cli__columns_free(&r->cols);
}

/* --columns LIST into r->cols and the read options. An empty list, or an
 * empty item in it, is refused: read as "no columns" it would silently
 * mean every column. 0, or the exit status. */
static int parse_columns(query_run *r, query_args *a)
{
	if (!a->cols)
		return 0;
	if (!a->cols[0])
		return rk_cli_usage_error("query", "--columns is empty (name FAMILY or FAMILY:QUALIFIER, "
		                                   "comma-separated; leave it out for every column)");
	char *list = strdup(a->cols); /* the columns copy what they keep */
	if (!list) {
		fprintf(stderr, "rowkey query: out of memory\n");
		return RK_EXIT_FAIL;
	}
	size_t item = 1;
	for (char *tok = list, *next; tok; tok = next, item++) {
		if ((next = strchr(tok, ',')) != NULL)
			*next++ = 0;
		if (!*tok) {
			free(list);
			return rk_cli_usage_error("query", "--columns '%s': item %zu is empty", a->cols, item);
		}
		if (rk_cli__columns_add(&r->cols, "query", tok)) {
			free(list);
			return RK_EXIT_USAGE;
		}
	}
	free(list);
	if (r->cols.n) {
		a->qo.read.columns = r->cols.cols;
		a->qo.read.ncolumns = r->cols.n;
	}
	return 0;
}

/* The store, the table, its schema, the predicate, the plan and the query
 * over them. 0, or the exit status after saying why. */
static int query_open(query_run *r, const query_args *a)
{
	rk_store_options so = RK_STORE_OPTIONS_INIT;
	so.create_if_missing = 0;
	if (rk_store_open(&r->store, a->db, &so) < 0)
		return rk_cli_fail("query", a->db);
	if (rk_table_open(&r->table, r->store, a->table) < 0)
		return rk_cli_fail("query", a->table);
	/* the table's own schema when none is given; a given one must match it */
	if (!a->schema_arg) {
		if (rk_cli__stored_schema(&r->s, r->store, "query", a->table))
			return RK_EXIT_FAIL;
	} else if (rk_schema_load(&r->s, a->schema_arg) < 0) {
		return rk_cli_fail("query", "schema");
	} else if (rk_cli__table_schema(r->store, "query", a->table, r->s, 0, a->force)) {
		return RK_EXIT_FAIL;
	}
	if (rk_predicate_parse(&r->pred, r->s, a->where, strlen(a->where)) < 0) {
		fprintf(stderr, "rowkey query: %s\n", rk_error_last());
		return RK_EXIT_USAGE;
	}
	if (rk_plan_build_opts(&r->plan, r->s, r->pred, &a->po) < 0)
		return rk_cli_fail("query", "plan");
	if (r->plan->order_by != RK_ORDER_NONE && (a->qo.reverse || a->qo.unordered))
		return rk_cli_usage_error("query", "%s does not combine with ORDER BY: the predicate's order decides",
		                          a->qo.reverse ? "--reverse" : "--unordered");
	if (r->plan->capped)
		fprintf(stderr, "rowkey query: note: the plan is bounded (--max-ranges %zu): %s\n",
		        a->po.max_ranges, r->plan->explain);
	if (rk_query_open(&r->q, r->table, r->s, r->plan, r->pred, &a->qo) < 0)
		return rk_cli_fail("query", a->table);
	return 0;
}

/* A cell as a JSON member: "family:qualifier" (the name cut at 200 + 300
 * bytes) and the value. */
static void print_cell_json(const rk_cell *cell)
{
	size_t fl = strlen(cell->family);
	uint8_t name[512];
	size_t nl = 0;
	memcpy(name, cell->family, fl < 200 ? fl : 200);
	nl = fl < 200 ? fl : 200;
	name[nl++] = ':';
	size_t ql = cell->qualifier_len < 300 ? cell->qualifier_len : 300;
	memcpy(name + nl, cell->qualifier, ql);
	nl += ql;
	rk__json_str(stdout, name, nl);
	putchar(':');
	rk__json_str(stdout, cell->value, cell->value_len);
}

/* One row: its fields, then its cells (TSV: family:qualifier=value, space
 * separated). */
static void print_row(const rk_schema *s, const rk_query_row *r, int json)
{
	size_t nf = rk_schema_nfields(s);
	if (json)
		putchar('{');
	for (size_t i = 0; i < nf; i++) {
		if (json)
			printf("%s\"%s\":", i ? "," : "", rk_schema_field_name(s, i));
		rk_write_field(stdout, s, i, &r->fields[i], json);
		if (!json)
			putchar('\t');
	}
	if (json)
		printf(",\"cells\":{");
	for (size_t k = 0; k < r->row->ncells; k++) {
		const rk_cell *cell = &r->row->cells[k];
		if (json) {
			printf("%s", k ? "," : "");
			print_cell_json(cell);
		} else {
			printf("%s%s:", k ? " " : "", cell->family);
			rk_write_escaped(stdout, cell->qualifier, cell->qualifier_len);
			putchar('=');
			rk_write_escaped(stdout, cell->value, cell->value_len);
		}
	}
	puts(json ? "}}" : "");
}

/* Prints the rows (TSV: after a header line). 0, or the exit status. */
static int print_rows(query_run *r, const query_args *a)
{
	size_t nf = rk_schema_nfields(r->s);
	int rc = 0;
	if (!a->json) {
		for (size_t i = 0; i < nf; i++)
			printf("%s\t", rk_schema_field_name(r->s, i));
		printf("cells\n");
	}
	rk_query_row row;
	uint64_t returned = 0;
	while (!rk_cli_out_failed() && (rc = rk_query_next(&row, r->q)) == 0) {
		print_row(r->s, &row, a->json);
		returned++;
	}
	if (rk_cli_out_failed())
		return RK_EXIT_FAIL; /* main() says why */
	if (rc != RK_EITEROVER)
		return rk_cli_fail("query", a->table);
	if (a->stats)
		fprintf(stderr, "rows: %llu returned, %llu read from the store\n",
		        (unsigned long long)returned, (unsigned long long)rk_query_rows_read(r->q));
	return 0;
}

int rk_cli_query(int argc, char **argv)
{
	query_args a = {.db = "./rowkey-data", .where = "", .qo = RK_QUERY_OPTIONS_INIT,
	                .po = RK_PLAN_OPTIONS_INIT};
	int status = parse_args(&a, argc, argv);
	if (status >= 0)
		return status;
	query_run r = {0};
	status = parse_columns(&r, &a);
	if (status == 0)
		status = query_open(&r, &a);
	if (status == 0) /* main() flushes standard output and says when that fails */
		status = print_rows(&r, &a);
	query_run_free(&r);
	return status;
}
