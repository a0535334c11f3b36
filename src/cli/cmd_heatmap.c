/*
 * rowkey heatmap: the heatmap pictures of a real store, from the load it
 * recorded (DIR/metrics.tsv): the same PNG and HTML report as rowkey analyze
 * draws for the simulator, with wall-clock time.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/analyze.h>

#include "cli/cli.h"
#include "cli/store_cli.h"

#define CMD "heatmap"

static const rk_cli_opt heatmap_opts[] = {
	RK_CLI_OPT_DB,
	{"png", 0, 'P', "FILE", RK_ARG_FILE, NULL,
	 "the picture (default heatmap-TABLE.png when no --html is given)"},
	{"html", 0, 'H', "FILE", RK_ARG_FILE, NULL,
	 "a self-contained HTML page: zoom, a metric switch (writes, reads, bytes), the key under "
	 "the pointer"},
	{"json", 0, 'j', NULL, RK_ARG_NONE, NULL, "the summary as JSON"},
};

const rk_cli_spec rk_cli_spec_heatmap = {
	"heatmap",
	"[--db DIR] [TABLE] [--png FILE] [--html FILE] [--json]",
	"Draws where a store's writes and reads landed, from the load it recorded in "
	"DIR/metrics.tsv: x = wall-clock time, y = the table's key space cut at every region "
	"boundary it had, colour = writes per cell (log scale), the region servers beside it and "
	"a servers x time map below. TABLE defaults to the table with the most recorded writes. "
	"Prints the summary and its verdict.",
	heatmap_opts, RK_CLI_NOPTS(heatmap_opts), RK_ARG_TABLE, NULL,
	"  $ rowkey heatmap --db /tmp/rk events --png events.png\n",
	"rowkey-regions(1), rowkey-analyze(1)",
};

int rk_cli_heatmap(int argc, char **argv)
{
	const char *db = RK_CLI_DEFAULT_DB, *png = NULL, *html = NULL, *table = NULL;
	int json = 0, c;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_heatmap, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'P': png = optarg; break;
		case 'H': html = optarg; break;
		case 'j': json = 1; break;
		case 'h': rk_cli_help(&rk_cli_spec_heatmap, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		table = argv[optind++];
	if (optind < argc)
		return rk_cli_usage_error(CMD, "unexpected argument '%s' (one TABLE at most)", argv[optind]);
	rk_analysis *a;
	if (rk_analysis_from_metrics(&a, db, table) < 0)
		return rk_cli_fail(CMD, "metrics");
	int rc = RK_EXIT_OK;
	char *text = NULL, defpng[512];
	if ((json ? rk_analysis_json(&text, a) : rk_analysis_text(&text, a)) < 0) {
		rc = rk_cli_fail(CMD, "report");
		goto out;
	}
	rk_cli_out_text(text);
	if (json)
		putchar('\n');
	free(text);
	if (!png && !html) {
		snprintf(defpng, sizeof defpng, "heatmap-%s.png", table ? table : rk_analysis_report(a)->design);
		char *sp = strstr(defpng, " (store "); /* the design is "TABLE (store DIR)" */
		if (!table && sp)
			memcpy(sp, ".png", 5);
		for (char *p = defpng + 8; *p; p++)
			if (*p == '/')
				*p = '_';
		png = defpng;
	}
	if (png && rk_analysis_write_png(a, png) < 0) {
		rc = rk_cli_fail(CMD, "png");
		goto out;
	}
	if (html && rk_analysis_write_html(html, "rowkey: a store's recorded load",
	                                   (const rk_analysis *const *)&a, 1) < 0) {
		rc = rk_cli_fail(CMD, "html");
		goto out;
	}
	if (!json)
		printf("%s%s%s%s\n", png ? "picture " : "", png ? png : "", png && html ? ", page " : html ? "page " : "",
		       html ? html : "");
out:
	rk_analysis_free(a);
	return rc;
}
