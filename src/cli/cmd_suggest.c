/*
 * rowkey suggest: proposes key designs for a workload and ranks them by
 * write spread and read cost (see rk_suggest in rowkey/analyze.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/analyze.h>

#include "cli/cli.h"

static void help(FILE *f)
{
	fprintf(f,
	        "usage: rowkey suggest -w WORKLOAD [options]\n\n"
	        "Proposes key designs for a workload (its obvious key, field promotion, salt\n"
	        "buckets, hash prefixes), runs each in the simulator, and ranks them by write\n"
	        "spread and by the regions its query shapes touch.\n\n"
	        "  -w, --workload NAME     messages, keys, urls, trades, cars, users, file\n"
	        "  -n, --top N             show the best N (default 8)\n"
	        "      --json              a JSON array of the ranked runs\n"
	        "      --html FILE         one HTML page with the ranked runs\n"
	        "  workload and cluster options as in rowkey analyze --help\n"
	        "  -h, --help              this help\n");
}

int rk_cli_suggest(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"workload", required_argument, 0, 'w'}, {"top", required_argument, 0, 'n'},
	    {"json", no_argument, 0, 'j'},           {"html", required_argument, 0, 'H'},
	    {"help", no_argument, 0, 'h'},
	    {"file", required_argument, 0, 1},      {"seed", required_argument, 0, 1},
	    {"rate", required_argument, 0, 1},      {"duration", required_argument, 0, 1},
	    {"read-fraction", required_argument, 0, 1}, {"cardinality", required_argument, 0, 1},
	    {"zipf", required_argument, 0, 1},      {"servers", required_argument, 0, 1},
	    {"capacity", required_argument, 0, 1},  {"split-threshold", required_argument, 0, 1},
	    {"balance-interval", required_argument, 0, 1}, {"time-buckets", required_argument, 0, 1},
	    {"key-buckets", required_argument, 0, 1}, {"value-len", required_argument, 0, 1},
	    {"presplit", required_argument, 0, 1},  {0, 0, 0, 0}};
	rk_workload_options wo = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options ao = RK_ANALYZE_OPTIONS_INIT;
	const char *html = NULL;
	long top = 8;
	int json = 0, c, idx;
	char *end;
	wo.name = NULL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "w:n:h", opts, &idx)) != -1) {
		switch (c) {
		case 'w': wo.name = optarg; break;
		case 'n':
			top = strtol(optarg, &end, 10);
			if (*end || top < 1)
				return rk_cli_usage_error("suggest", "--top: '%s' is not a positive number", optarg);
			break;
		case 'j': json = 1; break;
		case 'H': html = optarg; break;
		case 'h': help(stdout); return RK_EXIT_OK;
		case 1:
			if (rk_analyze_option(&wo, &ao, opts[idx].name, optarg) < 0)
				return rk_cli_usage_error("suggest", "%s", rk_error_last());
			break;
		default: help(stderr); return RK_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("suggest", "unexpected argument '%s'", argv[optind]);
	if (!wo.name)
		return rk_cli_usage_error("suggest", "a workload is required (-w NAME)");
	rk_suggestion *s;
	size_t n;
	if (rk_suggest(&s, &n, &wo, &ao) < 0)
		return rk_cli_fail("suggest", "suggest");
	size_t shown = n < (size_t)top ? n : (size_t)top;
	const rk_analysis *runs[256];
	for (size_t i = 0; i < shown && i < 256; i++)
		runs[i] = s[i].analysis;
	int rc = RK_EXIT_OK;
	if (json) {
		char *out;
		if (rk_analysis_compare_json(&out, runs, shown) < 0) {
			rc = rk_cli_fail("suggest", "report");
			goto done;
		}
		puts(out);
		free(out);
	} else {
		printf("%-4s %-6s %-44s %s\n", "rank", "score", "design", "verdict");
		for (size_t i = 0; i < shown; i++) {
			const rk_report *r = rk_analysis_report(s[i].analysis);
			printf("%-4zu %-6.3f %-44.44s %s\n", i + 1, s[i].score, s[i].design, r->verdict);
			printf("     schema: %s\n", s[i].schema_text);
		}
	}
	if (html && rk_analysis_write_html(html, "rowkey suggest: ranked designs", runs, shown) < 0)
		rc = rk_cli_fail("suggest", "html");
done:
	rk_suggestions_free(s, n);
	return rc;
}
