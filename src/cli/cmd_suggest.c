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

static const rk_cli_opt suggest_opts[] = {
	{"workload", 'w', 'w', "NAME", RK_ARG_WORKLOAD, NULL,
	 "the workload (file: records of --file; analyze --describe shows one)"},
	{"top", 'n', 'n', "N", RK_ARG_NUMBER, NULL, "show the best N (default 8)"},
	{"splits", 0, 'S', "FILE", RK_ARG_FILE, NULL,
	 "write the best design's split points, one per line, for rowkey create --splits FILE"},
	{"json", 0, 'j', NULL, RK_ARG_NONE, NULL,
	 "a JSON array of the ranked proposals (docs/advisor.md)"},
	{"html", 0, 'H', "FILE", RK_ARG_FILE, NULL, "one HTML page with the ranked runs"},
	{"quiet", 'q', 'q', NULL, RK_ARG_NONE, NULL, "no progress on stderr"},
	RK_CLI_WORKLOAD_OPTIONS,
};

const rk_cli_spec rk_cli_spec_suggest = {
	"suggest",
	"-w WORKLOAD [options]\n"
	"--file RECORDS [--query 'PRED' ...] [options]",
	"Profiles the data (types, identifying fields, rising, low-cardinality and hot fields), "
	"builds candidate keys from it and from the query shapes, simulates each on the cluster "
	"pre-split as it would be created, and ranks them by write spread and by what each query "
	"shape costs. No proposal loses rows: every key is checked to identify each record. When "
	"no one key serves every shape, a key per shape (index tables) is ranked too.",
	suggest_opts, RK_CLI_NOPTS(suggest_opts), RK_ARG_NONE, NULL,
	"  $ rowkey suggest -w users -n 5\n"
	"  $ rowkey suggest --file orders.csv --query '5: store = ? AND ts >= ? AND ts < ?' \\\n"
	"      --splits splits.txt\n",
	"rowkey-analyze(1), rowkey-compare(1), rowkey-profile(1), rowkey-create(1)",
};

int rk_cli_suggest(int argc, char **argv)
{
	rk_cli_wopts W;
	rk_cli_wopts_init(&W);
	const char *html = NULL, *splits = NULL;
	uint64_t top = 8;
	int json = 0, quiet = 0, c, idx;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_suggest, argc, argv, &idx)) != -1) {
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
		case 'h': rk_cli_help(&rk_cli_spec_suggest, stdout); return RK_EXIT_OK;
		case RK_CLI_WOPT:
			if (rk_cli_wopts_set(&W, rk_cli_spec_suggest.opts[idx].name, optarg) < 0)
				return rk_cli_usage_error(CMD, "%s", rk_error_last());
			break;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
	if (!W.wo.name)
		return rk_cli_usage_error(CMD, "a workload is required (-w NAME, or --file RECORDS)");
	int wrc = rk_cli_wopts_check(&W, CMD);
	if (wrc >= 0)
		return wrc;
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
	rk_cli_out_text(out);
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
