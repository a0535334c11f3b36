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
#include "cli/wopts.h"
#include "cli/engine.h"

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

int rk_cli_analyze(int argc, char **argv)
{
	rk_cli_wopts W;
	rk_cli_wopts_init(&W);
	const char *schema_arg = NULL, *design = NULL, *store = NULL, *html = NULL, *png = NULL;
	int json = 0, describe = 0, engine_given = 0, c, idx;
	rk_cli_engine eng = {0, 0, NULL, {0}};
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_analyze, argc, argv, &idx)) != -1) {
		switch (c) {
		case 's': schema_arg = optarg; break;
		case 'w': W.wo.name = optarg; break;
		case 'D': design = optarg; break;
		case 'S': store = optarg; break;
		case 'j': json = 1; break;
		case 'H': html = optarg; break;
		case 'P': png = optarg; break;
		case 'W': describe = 1; break;
		case 'E':
			if (rk_cli_engine_parse(&eng, optarg) < 0)
				return rk_cli_usage_error("analyze", "%s", rk_error_last());
			engine_given = 1;
			break;
		case 'h': rk_cli_help(&rk_cli_spec_analyze, stdout); return RK_EXIT_OK;
		case RK_CLI_WOPT:
			if (rk_cli_wopts_set(&W, rk_cli_spec_analyze.opts[idx].name, optarg) < 0)
				return rk_cli_usage_error("analyze", "%s", rk_error_last());
			break;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("analyze", "unexpected argument '%s'", argv[optind]);
	if (!W.wo.name)
		return rk_cli_usage_error("analyze", "a workload is required (-w NAME)");
	if (describe) {
		char *d;
		if (rk_workload_describe(&d, &W.wo) < 0)
			return rk_cli_fail("analyze", "workload");
		fputs(d, stdout);
		free(d);
		return RK_EXIT_OK;
	}
	if (!schema_arg)
		return rk_cli_usage_error("analyze", "a schema is required (-s SCHEMA)");
	if (engine_given && !eng.sim && png)
		return rk_cli_usage_error("analyze", "--png draws the simulator's heatmap: use --engine "
		                                     "both (or rowkey heatmap --db DIR on a kept store)");
	rk_schema *s;
	if (rk_schema_load(&s, schema_arg) < 0)
		return rk_cli_fail("analyze", "schema");
	int er = rk_cli_engine_ready(&eng, engine_given, store);
	if (er < 0) {
		rk_schema_free(s);
		return er == RK_EINVALID ? rk_cli_usage_error("analyze", "%s", rk_error_last())
		                         : rk_cli_fail("analyze", "store run");
	}
	rk_analysis *runs[2] = {NULL, NULL};
	size_t n = 0;
	int rc = RK_EXIT_OK;
	design = design ? design : "design";
	if (eng.sim) {
		if (rk_analyze_run(&runs[n], s, design, &W.wo, &W.ao) < 0) {
			rc = rk_cli_fail("analyze", "simulator");
			goto out;
		}
		n++;
	}
	if (eng.store) {
		if (rk_analyze_store(&runs[n], s, design, &W.wo, &W.ao, eng.dir) < 0) {
			rc = rk_cli_fail("analyze", "store");
			goto out;
		}
		n++;
	}
	for (size_t i = 0; i < n; i++)
		if (rk_analysis_set_schema_text(runs[i], schema_arg) < 0) {
			rc = rk_cli_fail("analyze", "report");
			goto out;
		}
	char *text = NULL;
	int r;
	if (json)
		r = n == 1 ? rk_analysis_json(&text, runs[0])
		           : rk_analysis_compare_json(&text, (const rk_analysis *const *)runs, n);
	else
		r = n == 1 ? rk_analysis_text(&text, runs[0])
		           : rk_analysis_compare_text(&text, (const rk_analysis *const *)runs, n);
	if (r < 0) {
		rc = rk_cli_fail("analyze", "report");
		goto out;
	}
	fputs(text, stdout);
	if (json)
		putchar('\n');
	free(text);
	if (png && rk_analysis_write_png(runs[0], png) < 0) {
		rc = rk_cli_fail("analyze", "png");
		goto out;
	}
	if (html && rk_analysis_write_html(html, NULL, (const rk_analysis *const *)runs, n) < 0) {
		rc = rk_cli_fail("analyze", "html");
		goto out;
	}
out:
	for (size_t i = 0; i < 2; i++)
		rk_analysis_free(runs[i]);
	rk_schema_free(s);
	rk_cli_engine_done(&eng);
	return rc;
}
