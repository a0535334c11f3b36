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
#include "cli/table_records.h"
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
	{"db", 0, 'd', "DB", RK_ARG_STORE, NULL,
	 "advise a table of this store (a directory or bigtable://PROJECT/INSTANCE; TABLE after the "
	 "options): its rows read through the schema it remembers, its own design ranked among the "
	 "proposals"},
	{"sample", 0, 'A', "N", RK_ARG_NUMBER, NULL, "with --db: read the table's first N rows only"},
	RK_CLI_WORKLOAD_OPTIONS,
};

const rk_cli_spec rk_cli_spec_suggest = {
	"suggest",
	"-w WORKLOAD [options]\n"
	"--file RECORDS [--query 'PRED' ...] [options]\n"
	"--db DB [--sample N] [--query 'PRED' ...] [options] TABLE",
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

typedef struct suggest_args {
	rk_cli_wopts W;
	const char *html, *splits, *db;
	uint64_t top, sample;
	int json, quiet;
} suggest_args;

/* Returns -1 to go on, else the exit status (help given, or a usage error
 * said). */
static int parse_args(suggest_args *a, int argc, char **argv)
{
	int c, idx;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_suggest, argc, argv, &idx)) != -1) {
		switch (c) {
		case 'w': a->W.wo.name = optarg; break;
		case 'n':
			if (rk_cli__parse_range(&a->top, CMD, "--top", optarg, 1, 100))
				return RK_EXIT_USAGE;
			break;
		case 'j': a->json = 1; break;
		case 'H': a->html = optarg; break;
		case 'S': a->splits = optarg; break;
		case 'q': a->quiet = 1; break;
		case 'd': a->db = optarg; break;
		case 'A':
			if (rk_cli__parse_range(&a->sample, CMD, "--sample", optarg, 1, UINT64_MAX))
				return RK_EXIT_USAGE;
			break;
		case 'h': rk_cli_help(&rk_cli_spec_suggest, stdout); return RK_EXIT_OK;
		case RK_CLI_WOPT:
			if (rk_cli_wopts_set(&a->W, rk_cli_spec_suggest.opts[idx].name, optarg) < 0)
				return rk_cli_usage_error(CMD, "%s", rk_error_last());
			break;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (a->db && optind != argc - 1)
		return rk_cli_usage_error(CMD, "--db DB takes one TABLE");
	if (!a->db && optind < argc)
		return rk_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
	if (a->db && (a->W.wo.file || (a->W.wo.name && strcmp(a->W.wo.name, "file"))))
		return rk_cli_usage_error(CMD, "--db TABLE reads the table's rows: no -w or --file");
	if (a->sample && !a->db)
		return rk_cli_usage_error(CMD, "--sample goes with --db TABLE");
	if (!a->db && !a->W.wo.name)
		return rk_cli_usage_error(CMD, "a workload is required (-w NAME, --file RECORDS or "
		                               "--db DB TABLE)");
	return -1;
}

/* The ranking on standard output, then the split points and HTML asked for. */
static int report(const suggest_args *a, rk_suggestion *s, size_t n)
{
	size_t shown = n < (size_t)a->top ? n : (size_t)a->top;
	char *out = NULL;
	if ((a->json ? rk_suggestions_json(&out, s, shown) : rk_suggestions_text(&out, s, shown)) < 0)
		return rk_cli_fail(CMD, "report");
	rk_cli_out_text(out);
	if (a->json)
		fputc('\n', stdout);
	free(out);
	int rc = RK_EXIT_OK;
	if (a->splits && rk_suggestion_write_splits(&s[0], a->splits) < 0)
		rc = rk_cli_fail(CMD, "splits");
	if (a->html) {
		const rk_analysis *runs[100];
		for (size_t i = 0; i < shown; i++)
			runs[i] = s[i].analysis;
		if (rk_analysis_write_html(a->html, "rowkey suggest: ranked designs", runs, shown) < 0)
			rc = rk_cli_fail(CMD, "html");
	}
	return rc; /* main() flushes standard output and says when that fails */
}

int rk_cli_suggest(int argc, char **argv)
{
	suggest_args a = {.top = 8};
	rk_cli_wopts_init(&a.W);
	int rc = parse_args(&a, argc, argv);
	if (rc >= 0)
		return rc;
	rk_cli_table_records tr = {0};
	rk_suggest_options so = RK_SUGGEST_OPTIONS_INIT;
	if (a.db) { /* the table's rows as records, its own design ranked beside */
		if (rk_cli__table_records(&tr, CMD, a.db, argv[optind], a.sample) < 0)
			return RK_EXIT_FAIL;
		a.W.wo.name = "file";
		a.W.wo.file = tr.path;
		a.W.wo.file_label = tr.label;
		so.current = tr.key[0] ? tr.key : NULL;
		if (tr.sampled)
			fprintf(stderr, "rowkey %s: a sample: the first %llu rows of %s\n", CMD,
			        (unsigned long long)tr.rows, tr.label);
	}
	int wrc = rk_cli_wopts_check(&a.W, CMD);
	if (wrc >= 0) {
		rk_cli__table_records_free(&tr);
		return wrc;
	}
	rk_cli_progress pr;
	rk_cli_progress_init(&pr, CMD, a.quiet);
	so.progress = rk_cli_progress_cb;
	so.payload = &pr;
	rk_suggestion *s;
	size_t n;
	int r = rk_suggest_opts(&s, &n, &a.W.wo, &a.W.ao, &so);
	rk_cli_progress_done(&pr);
	if (r < 0)
		rc = rk_cli_fail(CMD, a.db ? tr.label : a.W.wo.file ? a.W.wo.file : a.W.wo.name);
	else
		rc = report(&a, s, n);
	if (r >= 0)
		rk_suggestions_free(s, n);
	rk_cli__table_records_free(&tr);
	return rc;
}
