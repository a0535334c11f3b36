/*
 * rowkey suggest: proposes key designs for a workload or a records file and
 * ranks them by write spread and by what each query shape costs (see
 * rk_suggest_opts in rowkey/analyze.h, docs/advisor.md).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/analyze.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/wopts.h"

#define CMD "suggest"

static void help(FILE *f)
{
	fprintf(f,
	        "usage: rowkey suggest -w WORKLOAD [options]\n"
	        "       rowkey suggest --file RECORDS [--query 'PRED' ...] [options]\n\n"
	        "Profiles the data (types, identifying fields, rising, low-cardinality and hot\n"
	        "fields), builds candidate keys from it and from the query shapes, simulates each\n"
	        "on the cluster pre-split as it would be created, and ranks them by write spread\n"
	        "and by what each query shape costs. No proposal loses rows: every key is checked\n"
	        "to identify each record. When no one key serves every shape, a key per shape\n"
	        "(index tables) is ranked too.\n\n"
	        "  -w, --workload NAME     messages, keys, urls, trades, cars, users, file\n"
	        "  -n, --top N             show the best N (default 8)\n"
	        "      --splits FILE       write the best design's split points, one per line, for\n"
	        "                          rowkey create --splits FILE\n"
	        "      --json              a JSON array of the ranked proposals (docs/advisor.md)\n"
	        "      --html FILE         one HTML page with the ranked runs\n"
	        "  -q, --quiet             no progress on stderr\n"
	        "  -h, --help              this help\n" RK_CLI_WORKLOAD_HELP);
}

int rk_cli_suggest(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"workload", required_argument, 0, 'w'}, {"top", required_argument, 0, 'n'},
	    {"json", no_argument, 0, 'j'},           {"html", required_argument, 0, 'H'},
	    {"splits", required_argument, 0, 'S'},   {"quiet", no_argument, 0, 'q'},
	    {"help", no_argument, 0, 'h'},           RK_CLI_WORKLOAD_OPTIONS,
	    {0, 0, 0, 0}};
	rk_cli_wopts W;
	rk_cli_wopts_init(&W);
	const char *html = NULL, *splits = NULL;
	uint64_t top = 8;
	int json = 0, quiet = 0, c, idx;
	optind = 1;
	while ((c = getopt_long(argc, argv, "w:n:qh", opts, &idx)) != -1) {
		switch (c) {
		case 'w': W.wo.name = optarg; break;
		case 'n':
			if (rk_cli__parse_range(&top, CMD, "--top", optarg, 1, 100))
				return RK_EXIT_USAGE;
			break;
		case 'j': json = 1; break;
		case 'H': html = optarg; break;
		case 'S': splits = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': help(stdout); return RK_EXIT_OK;
		case RK_CLI_WOPT:
			if (rk_cli_wopts_set(&W, opts[idx].name, optarg) < 0)
				return rk_cli_usage_error(CMD, "%s", rk_error_last());
			break;
		default: help(stderr); return RK_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return rk_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
	if (!W.wo.name)
		return rk_cli_usage_error(CMD, "a workload is required (-w NAME, or --file RECORDS)");
	rk_cli_progress pr;
	rk_cli_progress_init(&pr, CMD, quiet);
	rk_suggest_options so = RK_SUGGEST_OPTIONS_INIT;
	so.progress = rk_cli_progress_cb;
	so.payload = &pr;
	rk_suggestion *s;
	size_t n;
	int r = rk_suggest_opts(&s, &n, &W.wo, &W.ao, &so);
	rk_cli_progress_done(&pr);
	if (r < 0)
		return rk_cli_fail(CMD, W.wo.file ? W.wo.file : W.wo.name);
	size_t shown = n < (size_t)top ? n : (size_t)top;
	int rc = RK_EXIT_OK;
	char *out = NULL;
	if ((json ? rk_suggestions_json(&out, s, shown) : rk_suggestions_text(&out, s, shown)) < 0) {
		rc = rk_cli_fail(CMD, "report");
		goto done;
	}
	fputs(out, stdout);
	if (json)
		fputc('\n', stdout);
	free(out);
	if (splits && rk_suggestion_write_splits(&s[0], splits) < 0)
		rc = rk_cli_fail(CMD, "splits");
	if (html) {
		const rk_analysis *runs[100];
		for (size_t i = 0; i < shown; i++)
			runs[i] = s[i].analysis;
		if (rk_analysis_write_html(html, "rowkey suggest: ranked designs", runs, shown) < 0)
			rc = rk_cli_fail(CMD, "html");
	}
	/* main() flushes standard output and says when that fails */
done:
	rk_suggestions_free(s, n);
	return rc;
}
