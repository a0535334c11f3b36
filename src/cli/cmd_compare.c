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

/* ---- the command ---- */

typedef struct compare_args {
	rk_cli_wopts W;
	const char *store, *html, *png, *designs[MAX_DESIGNS];
	size_t nd;
	int json, engine_given;
	rk_cli_engine eng;
} compare_args;

/* Returns -1 to go on, else the exit status (help given, or a usage error
 * said). */
static int parse_args(compare_args *a, int argc, char **argv)
{
	int c, idx;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_compare, argc, argv, &idx)) != -1) {
		switch (c) {
		case 'd':
			if (a->nd == MAX_DESIGNS)
				return rk_cli_usage_error("compare", "at most %d designs", MAX_DESIGNS);
			a->designs[a->nd++] = optarg;
			break;
		case 'w': a->W.wo.name = optarg; break;
		case 'S': a->store = optarg; break;
		case 'j': a->json = 1; break;
		case 'E':
			if (rk_cli_engine_parse(&a->eng, optarg) < 0)
				return rk_cli_usage_error("compare", "%s", rk_error_last());
			a->engine_given = 1;
			break;
		case 'H': a->html = optarg; break;
		case 'P': a->png = optarg; break;
		case 'h': rk_cli_help(&rk_cli_spec_compare, stdout); return RK_EXIT_OK;
		case RK_CLI_WOPT:
			if (rk_cli_wopts_set(&a->W, rk_cli_spec_compare.opts[idx].name, optarg) < 0)
				return rk_cli_usage_error("compare", "%s", rk_error_last());
			break;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("compare", "unexpected argument '%s'", argv[optind]);
	if (a->nd == 0)
		return rk_cli_usage_error("compare", "give at least one design (-d [LABEL=]SCHEMA)");
	if (!a->W.wo.name)
		return rk_cli_usage_error("compare", "a workload is required (-w NAME)");
	int wrc = rk_cli_wopts_check(&a->W, "compare");
	if (wrc >= 0)
		return wrc;
	if (a->engine_given && !a->eng.sim && a->png)
		return rk_cli_usage_error("compare", "--png draws the simulator's heatmaps: use --engine "
		                                     "both (or rowkey heatmap --db DIR on a kept store)");
	return -1;
}

/* The runs made so far; compare_run_free frees them on every path. */
typedef struct compare_run {
	rk_analysis *runs[2 * MAX_DESIGNS];
	size_t n;
	rk_workload_source *src; /* the data read once for every design */
} compare_run;

static void compare_run_free(compare_run *x)
{
	rk_workload_source_free(x->src);
	for (size_t i = 0; i < x->n; i++)
		rk_analysis_free(x->runs[i]);
}

/* Design i's label (LABEL=SCHEMA, else "design N") and its schema text. */
static const char *design_label(char *label, size_t cap, const char *design, size_t i)
{
	const char *eq = strchr(design, '=');
	/* LABEL=SCHEMA, unless the '=' belongs to the schema (after a space) */
	if (eq && (size_t)(eq - design) < cap && !memchr(design, ' ', (size_t)(eq - design))) {
		memcpy(label, design, (size_t)(eq - design));
		label[eq - design] = 0;
		return eq + 1;
	}
	snprintf(label, cap, "design %zu", i + 1);
	return design;
}

/* Design i through the engines asked for; a store run goes to
 * DIR/N-LABEL. 0, or the exit status. */
static int run_design(compare_run *x, const compare_args *a, size_t i)
{
	char label[128];
	const char *text = design_label(label, sizeof label, a->designs[i], i);
	rk_schema *s;
	if (rk_schema_load(&s, text) < 0)
		return rk_cli_fail("compare", label);
	int r = 0;
	if (a->eng.sim && (r = rk_analyze_run_on(&x->runs[x->n], s, label, x->src, &a->W.ao)) == 0) {
		rk_analysis_set_schema_text(x->runs[x->n], text);
		x->n++;
	}
	if (r == 0 && a->eng.store) {
		char dir[4096], fl[128];
		file_label(fl, sizeof fl, label);
		snprintf(dir, sizeof dir, "%s/%zu-%s", a->eng.dir, i + 1, fl);
		r = rk_analyze_store(&x->runs[x->n], s, label, &a->W.wo, &a->W.ao, dir);
		if (r == 0) {
			rk_analysis_set_schema_text(x->runs[x->n], text);
			x->n++;
		}
	}
	rk_schema_free(s);
	return r < 0 ? rk_cli_fail("compare", label) : 0;
}

/* --png: each simulator run's heatmap, then all of them on one scale. */
static int write_pngs(const compare_run *x, const char *png)
{
	const rk_analysis *const *all = (const rk_analysis *const *)x->runs;
	char path[4096];
	for (size_t i = 0; i < x->n; i++) {
		char fl[128];
		rk_heatmap h;
		if (rk_analysis_heatmap(&h, x->runs[i]) < 0)
			continue; /* store runs have no heatmap */
		file_label(fl, sizeof fl, rk_analysis_report(x->runs[i])->design);
		snprintf(path, sizeof path, "%s%s.png", png, fl);
		if (rk_analysis_write_png(x->runs[i], path) < 0)
			return rk_cli_fail("compare", "png");
	}
	if (x->n > 1) {
		snprintf(path, sizeof path, "%scompare.png", png);
		if (rk_analysis_write_compare_png(path, all, x->n) < 0)
			return rk_cli_fail("compare", "png");
	}
	return 0;
}

/* The side-by-side report on standard output, then the files asked for.
 * Returns the exit status. */
static int write_reports(const compare_run *x, const compare_args *a)
{
	const rk_analysis *const *all = (const rk_analysis *const *)x->runs;
	char *out = NULL;
	if ((a->json ? rk_analysis_compare_json(&out, all, x->n)
	             : rk_analysis_compare_text(&out, all, x->n)) < 0)
		return rk_cli_fail("compare", "report");
	rk_cli_out_text(out);
	if (a->json)
		putchar('\n');
	free(out);
	if (a->png && write_pngs(x, a->png))
		return RK_EXIT_FAIL;
	if (a->html && rk_analysis_write_html(a->html, NULL, all, x->n) < 0)
		return rk_cli_fail("compare", "html");
	return RK_EXIT_OK;
}

int rk_cli_compare(int argc, char **argv)
{
	compare_args a = {.eng = {0, 0, NULL, {0}}};
	rk_cli_wopts_init(&a.W);
	int rc = parse_args(&a, argc, argv);
	if (rc >= 0)
		return rc;
	if ((rc = rk_cli__engine_start(&a.eng, "compare", a.engine_given, a.store)) != 0)
		return rc;
	if (a.store && mkdir(a.store, 0777) != 0 && errno != EEXIST)
		return rk_cli_usage_error("compare", "cannot create %s: %s", a.store, strerror(errno));
	compare_run x = {.n = 0};
	if (a.eng.sim && rk_workload_source_open(&x.src, &a.W.wo) < 0)
		rc = rk_cli_fail("compare", a.W.wo.file ? a.W.wo.file : a.W.wo.name);
	for (size_t i = 0; rc == 0 && i < a.nd; i++)
		rc = run_design(&x, &a, i);
	if (rc == 0)
		rc = write_reports(&x, &a);
	compare_run_free(&x);
	rk_cli_engine_done(&a.eng);
	return rc;
}
