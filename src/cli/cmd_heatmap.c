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

static void usage(FILE *f)
{
	fprintf(f, "usage: rowkey heatmap [--db DIR] [TABLE] [--png FILE] [--html FILE] [--json]\n\n"
	           "Draws where a store's writes and reads landed, from the load it recorded in\n"
	           "DIR/metrics.tsv: x = wall-clock time, y = the table's key space cut at every\n"
	           "region boundary it had, colour = writes per cell (log scale), the region\n"
	           "servers beside it and a servers x time map below. TABLE defaults to the table\n"
	           "with the most recorded writes. Prints the summary and its verdict.\n\n"
	           "  --db DIR      store directory (default " RK_CLI_DEFAULT_DB ")\n"
	           "  --png FILE    the picture (default heatmap-TABLE.png when no --html is given)\n"
	           "  --html FILE   a self-contained HTML page: zoom, metric switch (writes, reads,\n"
	           "                bytes), the key under the pointer\n"
	           "  --json        the summary as JSON\n"
	           "  -h, --help    this help\n");
}

int rk_cli_heatmap(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"db", required_argument, NULL, 'd'},  {"png", required_argument, NULL, 'P'},
	    {"html", required_argument, NULL, 'H'}, {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0},
	};
	const char *db = RK_CLI_DEFAULT_DB, *png = NULL, *html = NULL, *table = NULL;
	int json = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'P': png = optarg; break;
		case 'H': html = optarg; break;
		case 'j': json = 1; break;
		case 'h': usage(stdout); return RK_EXIT_OK;
		default: usage(stderr); return RK_EXIT_USAGE;
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
	fputs(text, stdout);
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
