/*
 * rowkey profile: what a records file holds, field by field, and which
 * fields identify a record (see rk_profile_file, docs/advisor.md).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/analyze.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/store_cli.h"
#include "cli/table_records.h"
#include "records/reader.h"

#define CMD "profile"

static const rk_cli_opt profile_opts[] = {
	{"json", 0, 'j', NULL, RK_ARG_NONE, NULL, "one JSON object (docs/advisor.md)"},
	{"format", 0, 'F', "FMT", RK_ARG_CHOICE, "csv tsv jsonl",
	 "csv, tsv or jsonl (default: JSON lines when the file starts with '{', tsv when it is named .tsv or .tab, else csv)"},
	{"no-header", 0, 'N', NULL, RK_ARG_NONE, NULL,
	 "CSV/TSV without a header: fields are col1, col2, ..."},
	{"limit", 0, 'l', "N", RK_ARG_NUMBER, NULL, "read at most N records"},
	{"memory", 0, 'm', "SIZE", RK_ARG_SIZE, NULL, "records held for exact figures (default 1G)"},
	{"quiet", 'q', 'q', NULL, RK_ARG_NONE, NULL, "no progress on stderr"},
	{"db", 0, 'd', "DB", RK_ARG_STORE, NULL,
	 "profile a table of this store (a directory or bigtable://PROJECT/INSTANCE; TABLE in place "
	 "of FILE): its rows read through the schema it remembers"},
	{"sample", 0, 'A', "N", RK_ARG_NUMBER, NULL, "with --db: read the table's first N rows only"},
};

const rk_cli_spec rk_cli_spec_profile = {
	"profile",
	"[options] FILE\n"
	"--db DB [--sample N] [options] TABLE",
	"Profiles a records file (CSV with a header, TSV or JSON lines): per field the type a "
	"schema should give it, values and empties, distinct values, the most frequent values and "
	"their shares (hot keys), how often a value rises from one record to the next, lengths; "
	"then the smallest field sets that identify every record, and the data's clock. One "
	"pass; exact while the records fit in --memory.",
	profile_opts, RK_CLI_NOPTS(profile_opts), RK_ARG_FILE, NULL,
	"  $ rowkey profile orders.csv\n",
	"rowkey-suggest(1), rowkey-analyze(1)",
};

int rk_cli_profile(int argc, char **argv)
{
	rk_profile_options po = RK_PROFILE_OPTIONS_INIT;
	rk_cli_progress pr;
	int json = 0, quiet = 0, c;
	uint64_t u, sample = 0;
	const char *db = NULL;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_profile, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'F': {
			rk_rec_format f;
			if (rk_rec__format_parse(&f, optarg) < 0)
				return rk_cli_usage_error(CMD, "%s", rk_error_last());
			po.format = (int)f;
			break;
		}
		case 'N': po.no_header = 1; break;
		case 'l':
			if (rk_cli__parse_u64(&u, optarg) || u == 0)
				return rk_cli_usage_error(CMD, "--limit: '%s' is not a positive count", optarg);
			po.limit = u;
			break;
		case 'm': {
			rk_workload_options wo = RK_WORKLOAD_OPTIONS_INIT;
			if (rk_analyze_option(&wo, NULL, "memory", optarg) < 0)
				return rk_cli_usage_error(CMD, "%s", rk_error_last());
			po.memory = wo.memory;
			break;
		}
		case 'q': quiet = 1; break;
		case 'd': db = optarg; break;
		case 'A':
			if (rk_cli__parse_range(&sample, CMD, "--sample", optarg, 1, UINT64_MAX))
				return RK_EXIT_USAGE;
			break;
		case 'h': rk_cli_help(&rk_cli_spec_profile, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind != argc - 1)
		return rk_cli_usage_error(CMD, db ? "--db DB takes one TABLE" : "expected one FILE");
	if (sample && !db)
		return rk_cli_usage_error(CMD, "--sample goes with --db TABLE");
	rk_cli_table_records tr = {0};
	const char *path = argv[optind];
	if (db) { /* the table's rows as records, named as the table */
		if (rk_cli__table_records(&tr, CMD, db, argv[optind], sample) < 0)
			return RK_EXIT_FAIL;
		path = tr.path;
		po.label = tr.label;
		po.format = RK_REC_CSV;
		if (tr.sampled)
			fprintf(stderr, "rowkey %s: a sample: the first %llu rows of %s\n", CMD,
			        (unsigned long long)tr.rows, tr.label);
	}
	rk_cli_progress_init(&pr, CMD, quiet);
	po.progress = rk_cli_progress_cb;
	po.payload = &pr;
	rk_profile *p;
	int rc = rk_profile_file(&p, path, &po);
	rk_cli_progress_done(&pr);
	int failed = rc < 0 ? rk_cli_fail(CMD, db ? tr.label : path) : 0;
	rk_cli__table_records_free(&tr);
	if (failed)
		return failed;
	char *out;
	rc = json ? rk_profile_json(&out, p) : rk_profile_text(&out, p);
	rk_profile_free(p);
	if (rc < 0)
		return rk_cli_fail(CMD, "report");
	rk_cli_out_text(out);
	if (json)
		fputc('\n', stdout);
	free(out);
	return RK_EXIT_OK; /* main() flushes standard output and says when that fails */
}
