/*
 * rowkey explain: the plan for a predicate under a schema, in words and as
 * JSON: point gets, row ranges (one per salt bucket when the salt cannot be
 * computed) or a full scan, the residual filter, and with --db/--table the
 * regions the ranges touch in that table's current region map.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>
#include <rowkey/store.h>

#include "key/bytes.h"
#include "cli/cli.h"
#include "cli/textio.h"
#include "cli/store_cli.h"

static const rk_cli_opt explain_opts[] = {
	{"schema", 's', 's', "SCHEMA", RK_ARG_SCHEMA, NULL,
	 "the key design: a schema file, or schema text (with --db/--table, default: the schema "
	 "the table remembers)"},
	{"where", 'w', 'w', "PREDICATE", RK_ARG_TEXT, NULL,
	 "conditions joined by AND: field = v, field IN (v, ...), field < v (<=, >, >=), "
	 "field BETWEEN a AND b, field PREFIX 's'; then ORDER BY field [ASC|DESC] and LIMIT n"},
	RK_CLI_OPT_DB,
	{"table", 0, 't', "TABLE", RK_ARG_TABLE, NULL,
	 "with --db: count the regions of this table the plan touches"},
	{"json", 0, 'j', NULL, RK_ARG_NONE, NULL, "the plan as one JSON object"},
	RK_CLI_OPT_MAX_RANGES,
};

const rk_cli_spec rk_cli_spec_explain = {
	"explain",
	"-s SCHEMA --where PREDICATE [--db DIR --table TABLE] [--json]\n"
	"[-s SCHEMA] --where PREDICATE --db DIR --table TABLE [--json]",
	"Shows how a query over a key design is read: point gets when every key is known, the "
	"fewest row ranges the bound leading fields allow (one per salt bucket when the salt "
	"cannot be computed, merged in logical order), or a full scan, and which conditions are "
	"checked on the decoded rows instead.",
	explain_opts, RK_CLI_NOPTS(explain_opts), RK_ARG_NONE, NULL,
	"  $ rowkey explain -s 'fields uid:u64, ts:ts; key bucket(8, xxh3(uid)) u64(uid) u64(ts)' \\\n"
	"      -w 'uid = 3 AND ts >= 1000'\n",
	"rowkey-query(1), rowkey-schema(5)",
};

/* Regions overlapping at least one range (gets: holding at least one key). */
static size_t regions_touched(const rk_plan *plan, const rk_region_info *reg, size_t nreg)
{
	size_t n = 0;
	for (size_t r = 0; r < nreg; r++) {
		for (size_t i = 0; i < plan->nranges; i++) {
			const rk_key_range *k = &plan->ranges[i];
			const uint8_t *stop = k->stop;
			size_t stop_len = k->stop_len;
			int is_get = plan->kind == RK_PLAN_GETS;
			/* range [start, stop) overlaps region [rs, re) */
			int before_end = !reg[r].end || rk__bytes_cmp(k->start, k->start_len, reg[r].end, reg[r].end_len) < 0;
			int after_start = is_get ? rk__bytes_cmp(k->start, k->start_len, reg[r].start, reg[r].start_len) >= 0
			                         : (!stop || rk__bytes_cmp(stop, stop_len, reg[r].start, reg[r].start_len) > 0);
			if (before_end && after_start) {
				n++;
				break;
			}
		}
	}
	return n;
}

/* ---- the command ---- */

typedef struct explain_args {
	const char *schema_arg, *where, *db, *table;
	int json;
	rk_plan_options po;
} explain_args;

/* Returns -1 to go on, else the exit status (help given, or a usage error
 * said). */
static int parse_args(explain_args *a, int argc, char **argv)
{
	int c;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_explain, argc, argv, NULL)) != -1) {
		switch (c) {
		case 's': a->schema_arg = optarg; break;
		case 'w': a->where = optarg; break;
		case 'd': a->db = optarg; break;
		case 't': a->table = optarg; break;
		case 'j': a->json = 1; break;
		case 'M':
			if (rk_cli__parse_max_ranges(&a->po, "explain", optarg))
				return RK_EXIT_USAGE;
			break;
		case 'h': rk_cli_help(&rk_cli_spec_explain, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("explain", "unexpected argument '%s'", argv[optind]);
	if (!a->db != !a->table)
		return rk_cli_usage_error("explain", "--db and --table go together");
	if (!a->schema_arg && !a->table)
		return rk_cli_usage_error("explain", "a schema is required (-s SCHEMA, or --db DIR "
		                          "--table T for the one the table remembers)");
	return -1;
}

/* What a run holds; explain_run_free frees it on every path. */
typedef struct explain_run {
	rk_schema *s;
	rk_predicate *pred;
	rk_plan *plan;
	rk_store *store;
	rk_region_info *reg; /* with --db: the table's regions */
	size_t nreg;
} explain_run;

static void explain_run_free(explain_run *x)
{
	rk_region_info_free(x->reg, x->nreg);
	if (x->store)
		rk_store_close(x->store);
	rk_plan_free(x->plan);
	rk_predicate_free(x->pred);
	rk_schema_free(x->s);
}

/* The schema, the predicate, the plan and with --db the table's regions. 0,
 * or -1 after saying why. */
static int explain_open(explain_run *x, const explain_args *a)
{
	if (a->db) {
		rk_store_options o = RK_STORE_OPTIONS_INIT;
		o.create_if_missing = 0;
		o.background_splits = 0;
		if (rk_store_open(&x->store, a->db, &o) < 0 ||
		    rk_store_regions(&x->reg, &x->nreg, x->store, a->table) < 0) {
			rk_cli_fail("explain", a->db);
			return -1;
		}
	}
	if (!a->schema_arg) {
		if (rk_cli__stored_schema(&x->s, x->store, "explain", a->table))
			return -1;
	} else if (rk_schema_load(&x->s, a->schema_arg) < 0) {
		rk_cli_fail("explain", "schema");
		return -1;
	}
	if (rk_predicate_parse(&x->pred, x->s, a->where, strlen(a->where)) < 0) {
		fprintf(stderr, "rowkey explain: %s\n", rk_error_last());
		return -1;
	}
	if (rk_plan_build_opts(&x->plan, x->s, x->pred, &a->po) < 0) {
		rk_cli_fail("explain", "plan");
		return -1;
	}
	return 0;
}

/* rk_plan_json's object, with --db the region figures added to it. */
static int print_json(const explain_run *x, const explain_args *a, size_t touched)
{
	char *js = NULL;
	if (rk_plan_json(&js, x->plan) < 0) {
		free(js);
		rk_cli_fail("explain", "json");
		return -1;
	}
	if (a->db)
		js[strlen(js) - 1] = 0; /* drop the closing brace to add the region figures */
	fputs(js, stdout);
	if (a->db)
		printf(",\"regions\":%zu,\"regions_touched\":%zu}", x->nreg, touched);
	putchar('\n');
	free(js);
	return 0;
}

/* The first 20 gets or ranges, one a line. */
static void print_ranges(const rk_plan *plan)
{
	if (plan->kind == RK_PLAN_GETS) {
		printf("gets        %zu\n", plan->nranges);
		for (size_t i = 0; i < plan->nranges && i < 20; i++) {
			printf("  ");
			rk_write_escaped(stdout, plan->ranges[i].start, plan->ranges[i].start_len);
			putchar('\n');
		}
	} else {
		printf("ranges      %zu%s\n", plan->nranges, plan->merge ? " (merged in logical order)" : "");
		for (size_t i = 0; i < plan->nranges && i < 20; i++) {
			const rk_key_range *r = &plan->ranges[i];
			printf("  [");
			rk_write_escaped(stdout, r->start, r->start_len);
			printf(", ");
			if (r->stop)
				rk_write_escaped(stdout, r->stop, r->stop_len);
			else
				printf("(end)");
			printf(")");
			if (r->bucket >= 0)
				printf("  bucket %d", r->bucket);
			putchar('\n');
		}
	}
	if (plan->nranges > 20)
		printf("  ... %zu more\n", plan->nranges - 20);
}

static void print_text(const explain_run *x, const explain_args *a, size_t touched)
{
	static const char *kinds[] = {"", "point gets", "row ranges", "full scan"};
	const rk_plan *plan = x->plan;
	printf("plan        %s\n", kinds[plan->kind]);
	printf("why         %s\n", plan->explain);
	print_ranges(plan);
	printf("residual    %s\n", plan->residual ? "yes: rows are decoded and filtered" : "no");
	if (a->db)
		printf("regions     %zu of %zu in table %s\n", touched, x->nreg, a->table);
}

int rk_cli_explain(int argc, char **argv)
{
	explain_args a = {.where = "", .po = RK_PLAN_OPTIONS_INIT};
	int status = parse_args(&a, argc, argv);
	if (status >= 0)
		return status;
	explain_run x = {0};
	status = RK_EXIT_FAIL;
	if (explain_open(&x, &a) == 0) {
		size_t touched = a.db ? regions_touched(x.plan, x.reg, x.nreg) : 0;
		if (!a.json) {
			print_text(&x, &a, touched);
			status = RK_EXIT_OK;
		} else if (print_json(&x, &a, touched) == 0) {
			status = RK_EXIT_OK;
		}
	}
	explain_run_free(&x);
	return status;
}
