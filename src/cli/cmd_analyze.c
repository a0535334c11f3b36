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

static void help(FILE *f)
{
	fprintf(f,
	        "usage: rowkey analyze -s SCHEMA -w WORKLOAD [options]\n\n"
	        "Runs a workload through a key design on a simulated cluster and reports where\n"
	        "the writes land: the hottest server's share, effective servers, throughput\n"
	        "before saturation, regions, whether the key identifies every record, key bytes,\n"
	        "what each query shape costs, the causes with their numbers, a verdict.\n\n"
	        "  -s, --schema SCHEMA        schema file or schema text\n"
	        "  -w, --workload NAME        messages, keys, urls, trades, cars, users, file\n"
	        "      --describe             print the workload's fields, query shapes and obvious key\n"
	        "                             (no schema needed) and exit\n"
	        "      --design LABEL         name of the design in reports\n"
	        "      --engine sim|store|both  sim: the simulator (default); store: load the writes\n"
	        "                             into a new embedded store whose servers are capped at\n"
	        "                             --capacity and measure its throughput in wall-clock\n"
	        "                             time (reads not executed); both: side by side\n"
	        "      --store DIR            where the store run keeps its store (a new directory;\n"
	        "                             implies --engine both; without it a store run uses a\n"
	        "                             temporary directory, removed at the end)\n"
	        "      --json                 one JSON object (two engines: an array of two)\n"
	        "      --html FILE            write the HTML report with the heatmap\n"
	        "      --png FILE             write the heatmap as a PNG\n"
	        "  -h, --help                 this help\n" RK_CLI_WORKLOAD_HELP);
}

int rk_cli_analyze(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"schema", required_argument, 0, 's'},  {"workload", required_argument, 0, 'w'},
	    {"design", required_argument, 0, 'D'},  {"store", required_argument, 0, 'S'},
	    {"json", no_argument, 0, 'j'},          {"html", required_argument, 0, 'H'},
	    {"png", required_argument, 0, 'P'},     {"help", no_argument, 0, 'h'},
	    {"describe", no_argument, 0, 'W'},       {"engine", required_argument, 0, 'E'},
	    RK_CLI_WORKLOAD_OPTIONS,  {0, 0, 0, 0}};
	rk_cli_wopts W;
	rk_cli_wopts_init(&W);
	const char *schema_arg = NULL, *design = NULL, *store = NULL, *html = NULL, *png = NULL;
	int json = 0, describe = 0, engine_given = 0, c, idx;
	rk_cli_engine eng = {0, 0, NULL, {0}};
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:w:h", opts, &idx)) != -1) {
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
		case 'h': help(stdout); return RK_EXIT_OK;
		case RK_CLI_WOPT:
			if (rk_cli_wopts_set(&W, opts[idx].name, optarg) < 0)
				return rk_cli_usage_error("analyze", "%s", rk_error_last());
			break;
		default: help(stderr); return RK_EXIT_USAGE;
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
