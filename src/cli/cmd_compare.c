/*
 * rowkey compare: several key designs over the same workload, side by side
 * (the simulator, the embedded store for real, or both: --engine, engine.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rowkey/analyze.h>

#include "cli/cli.h"
#include "cli/wopts.h"
#include "cli/engine.h"

#define MAX_DESIGNS 32

static const rk_cli_opt compare_opts[] = {
	{"design", 'd', 'd', "[LABEL=]SCHEMA", RK_ARG_SCHEMA, NULL,
	 "a design (schema file or text); repeat, up to 32"},
	{"workload", 'w', 'w', "NAME", RK_ARG_WORKLOAD, NULL,
	 "the workload (file: records of --file; analyze --describe shows one)"},
	RK_CLI_OPT_ENGINE,
	{"store", 0, 'S', "DIR", RK_ARG_DIR, NULL,
	 "keep the store runs' stores in DIR/N-LABEL (implies --engine both; without it a "
	 "temporary directory)"},
	{"json", 0, 'j', NULL, RK_ARG_NONE, NULL, "a JSON array of the runs"},
	{"html", 0, 'H', "FILE", RK_ARG_FILE, NULL, "one HTML page with every run and its heatmap"},
	{"png", 0, 'P', "PREFIX", RK_ARG_FILE, NULL,
	 "heatmaps as PREFIX<label>.png, and all of them side by side on one colour scale as "
	 "PREFIXcompare.png"},
	RK_CLI_WORKLOAD_OPTIONS,
};

const rk_cli_spec rk_cli_spec_compare = {
	"compare",
	"-w WORKLOAD -d [LABEL=]SCHEMA -d [LABEL=]SCHEMA... [options]",
	"Runs the same workload through several key designs and prints them side by side: the "
	"hottest server's share (over the whole run and at a time), the servers effectively used, "
	"max/mean, the throughput before the hottest server saturates, regions, key bytes and "
	"read cost.",
	compare_opts, RK_CLI_NOPTS(compare_opts), RK_ARG_NONE, NULL,
	"  $ rowkey compare -w messages --servers 8 \\\n"
	"      -d 'plain=fields date:str, time:str, id:u64; key date \":\" time \":\" id' \\\n"
	"      -d 'salted=fields date:str, time:str, id:u64; key bucket(8, xxh3(id), dec) \":\" date \":\" time \":\" id' \\\n"
	"      --html report.html --png heat-\n",
	"rowkey-analyze(1), rowkey-suggest(1)",
};

static void file_label(char *out, size_t cap, const char *label)
{
	size_t o = 0;
	for (const char *p = label; *p && o + 1 < cap; p++)
		out[o++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		                   *p == '-' || *p == '_'
		               ? *p
		               : '_';
	out[o] = 0;
}

int rk_cli_compare(int argc, char **argv)
{
	rk_cli_wopts W;
	rk_cli_wopts_init(&W);
	const char *store = NULL, *html = NULL, *png = NULL, *designs[MAX_DESIGNS];
	size_t nd = 0;
	int json = 0, engine_given = 0, c, idx;
	rk_cli_engine eng = {0, 0, NULL, {0}};
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_compare, argc, argv, &idx)) != -1) {
		switch (c) {
		case 'd':
			if (nd == MAX_DESIGNS)
				return rk_cli_usage_error("compare", "at most %d designs", MAX_DESIGNS);
			designs[nd++] = optarg;
			break;
		case 'w': W.wo.name = optarg; break;
		case 'S': store = optarg; break;
		case 'j': json = 1; break;
		case 'E':
			if (rk_cli_engine_parse(&eng, optarg) < 0)
				return rk_cli_usage_error("compare", "%s", rk_error_last());
			engine_given = 1;
			break;
		case 'H': html = optarg; break;
		case 'P': png = optarg; break;
		case 'h': rk_cli_help(&rk_cli_spec_compare, stdout); return RK_EXIT_OK;
		case RK_CLI_WOPT:
			if (rk_cli_wopts_set(&W, rk_cli_spec_compare.opts[idx].name, optarg) < 0)
				return rk_cli_usage_error("compare", "%s", rk_error_last());
			break;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("compare", "unexpected argument '%s'", argv[optind]);
	if (nd == 0)
		return rk_cli_usage_error("compare", "give at least one design (-d [LABEL=]SCHEMA)");
	if (!W.wo.name)
		return rk_cli_usage_error("compare", "a workload is required (-w NAME)");
	if (engine_given && !eng.sim && png)
		return rk_cli_usage_error("compare", "--png draws the simulator's heatmaps: use --engine "
		                                     "both (or rowkey heatmap --db DIR on a kept store)");
	int er = rk_cli_engine_ready(&eng, engine_given, store);
	if (er == RK_EINVALID)
		return rk_cli_usage_error("compare", "%s", rk_error_last());
	if (er < 0)
		return rk_cli_fail("compare", "store run");
	if (store && mkdir(store, 0777) != 0 && errno != EEXIST)
		return rk_cli_usage_error("compare", "cannot create %s: %s", store, strerror(errno));
	rk_analysis *runs[2 * MAX_DESIGNS];
	size_t n = 0;
	int rc = RK_EXIT_OK;
	rk_workload_source *src = NULL; /* the data read once for every design */
	if (eng.sim && rk_workload_source_open(&src, &W.wo) < 0) {
		rc = rk_cli_fail("compare", W.wo.file ? W.wo.file : W.wo.name);
		goto out;
	}
	for (size_t i = 0; i < nd; i++) {
		char label[128];
		const char *text = designs[i], *eq = strchr(designs[i], '=');
		/* LABEL=SCHEMA, unless the '=' belongs to the schema (after a space) */
		if (eq && (size_t)(eq - designs[i]) < sizeof label && !memchr(designs[i], ' ', (size_t)(eq - designs[i]))) {
			memcpy(label, designs[i], (size_t)(eq - designs[i]));
			label[eq - designs[i]] = 0;
			text = eq + 1;
		} else {
			snprintf(label, sizeof label, "design %zu", i + 1);
		}
		rk_schema *s;
		if (rk_schema_load(&s, text) < 0) {
			rc = rk_cli_fail("compare", label);
			goto out;
		}
		int r = 0;
		if (eng.sim && (r = rk_analyze_run_on(&runs[n], s, label, src, &W.ao)) == 0) {
			rk_analysis_set_schema_text(runs[n], text);
			n++;
		}
		if (r == 0 && eng.store) {
			char dir[4096], fl[128];
			file_label(fl, sizeof fl, label);
			snprintf(dir, sizeof dir, "%s/%zu-%s", eng.dir, i + 1, fl);
			r = rk_analyze_store(&runs[n], s, label, &W.wo, &W.ao, dir);
			if (r == 0) {
				rk_analysis_set_schema_text(runs[n], text);
				n++;
			}
		}
		rk_schema_free(s);
		if (r < 0) {
			rc = rk_cli_fail("compare", label);
			goto out;
		}
	}
	char *out = NULL;
	if ((json ? rk_analysis_compare_json(&out, (const rk_analysis *const *)runs, n)
	          : rk_analysis_compare_text(&out, (const rk_analysis *const *)runs, n)) < 0) {
		rc = rk_cli_fail("compare", "report");
		goto out;
	}
	fputs(out, stdout);
	if (json)
		putchar('\n');
	free(out);
	for (size_t i = 0; png && i < n; i++) {
		char path[4096], fl[128];
		rk_heatmap h;
		if (rk_analysis_heatmap(&h, runs[i]) < 0)
			continue; /* store runs have no heatmap */
		file_label(fl, sizeof fl, rk_analysis_report(runs[i])->design);
		snprintf(path, sizeof path, "%s%s.png", png, fl);
		if (rk_analysis_write_png(runs[i], path) < 0) {
			rc = rk_cli_fail("compare", "png");
			goto out;
		}
	}
	if (png && n > 1) {
		char path[4096];
		snprintf(path, sizeof path, "%scompare.png", png);
		if (rk_analysis_write_compare_png(path, (const rk_analysis *const *)runs, n) < 0) {
			rc = rk_cli_fail("compare", "png");
			goto out;
		}
	}
	if (html && rk_analysis_write_html(html, NULL, (const rk_analysis *const *)runs, n) < 0)
		rc = rk_cli_fail("compare", "html");
out:
	rk_workload_source_free(src);
	for (size_t i = 0; i < n; i++)
		rk_analysis_free(runs[i]);
	rk_cli_engine_done(&eng);
	return rc;
}
