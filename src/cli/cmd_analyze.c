/*
 * rowkey analyze: where a workload lands under one key design. Runs the
 * simulator, the embedded store for real, or both (--engine, engine.h) and
 * prints the report as text or JSON; --png and --html write the heatmap.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/analyze.h>

#include "cli/cli.h"
#include "cli/engine.h"
#include "cli/splits.h"
#include "cli/wopts.h"

static const rk_cli_opt analyze_opts[] = {
	{"schema", 's', 's', "SCHEMA", RK_ARG_SCHEMA, NULL, "the key design: a schema file, or schema text"},
	{"workload", 'w', 'w', "NAME", RK_ARG_WORKLOAD, NULL,
	 "the workload (file: records of --file; --describe shows one)"},
	{"describe", 0, 'W', NULL, RK_ARG_NONE, NULL,
	 "print the workload's fields, query shapes and obvious key (no schema needed) and exit"},
	{"design", 0, 'D', "LABEL", RK_ARG_TEXT, NULL, "the name of the design in reports"},
	RK_CLI_OPT_ENGINE,
	{"store", 0, 'S', "DIR", RK_ARG_DIR, NULL,
	 "where the store run keeps its store (a new directory; implies --engine both; without it "
	 "a store run uses a temporary directory, removed at the end)"},
	{"json", 0, 'j', NULL, RK_ARG_NONE, NULL, "one JSON object (two engines: an array of two)"},
	{"html", 0, 'H', "FILE", RK_ARG_FILE, NULL, "write the HTML report with the heatmap"},
	{"png", 0, 'P', "FILE", RK_ARG_FILE, NULL, "write the heatmap as a PNG"},
	{"splits", 0, 'F', "FILE", RK_ARG_FILE, NULL,
	 "the table starts with these split points, one a line (what rowkey suggest --splits "
	 "writes and rowkey create --splits takes), so analyze sees the regions suggest and "
	 "create do"},
	RK_CLI_WORKLOAD_OPTIONS,
};

const rk_cli_spec rk_cli_spec_analyze = {
	"analyze",
	"-s SCHEMA -w WORKLOAD [options]",
	"Runs a workload through a key design on a simulated cluster, which uses the store's own "
	"region and split code, and reports where the writes land: the hottest server's share, "
	"the servers effectively used, the throughput before the hottest server saturates, "
	"regions, whether the key identifies every record, key bytes, what each query shape "
	"costs, the causes with their numbers, and a verdict.",
	analyze_opts, RK_CLI_NOPTS(analyze_opts), RK_ARG_NONE, NULL,
	"  $ rowkey analyze -w messages --servers 8 \\\n"
	"      -s 'fields date:str, time:str, id:u64; key date \":\" time \":\" id'\n",
	"rowkey-compare(1), rowkey-suggest(1), rowkey-profile(1), rowkey-heatmap(1)",
};

/* ---- the command ---- */

typedef struct analyze_args {
	rk_cli_wopts W;
	rk_bytes *sp;
	size_t nsp;
	const char *schema_arg, *design, *store, *html, *png;
	int json, describe, engine_given;
	rk_cli_engine eng;
} analyze_args;

/* Returns -1 to go on, else the exit status (help given, or a usage error
 * said). With --describe only the workload is needed. */
static int parse_args(analyze_args *a, int argc, char **argv)
{
	int c, idx;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_analyze, argc, argv, &idx)) != -1) {
		switch (c) {
		case 's': a->schema_arg = optarg; break;
		case 'w': a->W.wo.name = optarg; break;
		case 'D': a->design = optarg; break;
		case 'S': a->store = optarg; break;
		case 'j': a->json = 1; break;
		case 'H': a->html = optarg; break;
		case 'P': a->png = optarg; break;
		case 'W': a->describe = 1; break;
		case 'F':
			if (rk_cli__splits_read(&a->sp, &a->nsp, optarg, "analyze") < 0)
				return RK_EXIT_USAGE;
			a->W.ao.splits = a->sp;
			a->W.ao.nsplits = a->nsp;
			break;
		case 'E':
			if (rk_cli_engine_parse(&a->eng, optarg) < 0)
				return rk_cli_usage_error("analyze", "%s", rk_error_last());
			a->engine_given = 1;
			break;
		case 'h': rk_cli_help(&rk_cli_spec_analyze, stdout); return RK_EXIT_OK;
		case RK_CLI_WOPT:
			if (rk_cli_wopts_set(&a->W, rk_cli_spec_analyze.opts[idx].name, optarg) < 0)
				return rk_cli_usage_error("analyze", "%s", rk_error_last());
			break;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("analyze", "unexpected argument '%s'", argv[optind]);
	if (!a->W.wo.name)
		return rk_cli_usage_error("analyze", "a workload is required (-w NAME)");
	int rc = rk_cli_wopts_check(&a->W, "analyze");
	if (rc >= 0 || a->describe)
		return rc;
	if (!a->schema_arg)
		return rk_cli_usage_error("analyze", "a schema is required (-s SCHEMA)");
	if (a->engine_given && !a->eng.sim && a->png)
		return rk_cli_usage_error("analyze", "--png draws the simulator's heatmap: use --engine "
		                                     "both (or rowkey heatmap --db DIR on a kept store)");
	return -1;
}

/* --describe: the workload's fields, query shapes and obvious key. */
static int describe(const analyze_args *a)
{
	char *d;
	if (rk_workload_describe(&d, &a->W.wo) < 0)
		return rk_cli_fail("analyze", "workload");
	rk_cli_out_text(d);
	free(d);
	return RK_EXIT_OK;
}

/* Runs the engines asked for, the simulator first, into runs[*n...]. 0, or
 * the exit status. */
static int run_engines(rk_analysis **runs, size_t *n, const rk_schema *s, const analyze_args *a)
{
	const char *design = a->design ? a->design : "design";
	if (a->eng.sim) {
		if (rk_analyze_run(&runs[*n], s, design, &a->W.wo, &a->W.ao) < 0)
			return rk_cli_fail("analyze", "simulator");
		++*n;
	}
	if (a->eng.store) {
		if (rk_analyze_store(&runs[*n], s, design, &a->W.wo, &a->W.ao, a->eng.dir) < 0)
			return rk_cli_fail("analyze", "store");
		++*n;
	}
	for (size_t i = 0; i < *n; i++)
		if (rk_analysis_set_schema_text(runs[i], a->schema_arg) < 0)
			return rk_cli_fail("analyze", "report");
	return 0;
}

/* The report (one run, or two side by side) on standard output, then the
 * PNG and HTML files asked for. Returns the exit status. */
static int write_reports(rk_analysis *const *runs, size_t n, const analyze_args *a)
{
	const rk_analysis *const *all = (const rk_analysis *const *)runs;
	char *text = NULL;
	int r;
	if (a->json)
		r = n == 1 ? rk_analysis_json(&text, runs[0]) : rk_analysis_compare_json(&text, all, n);
	else
		r = n == 1 ? rk_analysis_text(&text, runs[0]) : rk_analysis_compare_text(&text, all, n);
	if (r < 0)
		return rk_cli_fail("analyze", "report");
	rk_cli_out_text(text);
	if (a->json)
		putchar('\n');
	free(text);
	if (a->png && rk_analysis_write_png(runs[0], a->png) < 0)
		return rk_cli_fail("analyze", "png");
	if (a->html && rk_analysis_write_html(a->html, NULL, all, n) < 0)
		return rk_cli_fail("analyze", "html");
	return RK_EXIT_OK;
}

int rk_cli_analyze(int argc, char **argv)
{
	analyze_args a = {.eng = {0, 0, NULL, {0}}};
	rk_cli_wopts_init(&a.W);
	int rc = parse_args(&a, argc, argv);
	if (rc >= 0) {
		rk_cli__splits_free(a.sp, a.nsp);
		return rc;
	}
	if (a.describe) {
		rk_cli__splits_free(a.sp, a.nsp);
		return describe(&a);
	}
	rk_schema *s;
	if (rk_schema_load(&s, a.schema_arg) < 0) {
		rk_cli__splits_free(a.sp, a.nsp);
		return rk_cli_fail("analyze", "schema");
	}
	if ((rc = rk_cli__engine_start(&a.eng, "analyze", a.engine_given, a.store)) != 0) {
		rk_schema_free(s);
		rk_cli__splits_free(a.sp, a.nsp);
		return rc;
	}
	rk_analysis *runs[2] = {NULL, NULL};
	size_t n = 0;
	rc = run_engines(runs, &n, s, &a);
	if (rc == RK_EXIT_OK)
		rc = write_reports(runs, n, &a);
	for (size_t i = 0; i < 2; i++)
		rk_analysis_free(runs[i]);
	rk_schema_free(s);
	rk_cli_engine_done(&a.eng);
	rk_cli__splits_free(a.sp, a.nsp);
	return rc;
}
