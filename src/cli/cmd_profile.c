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
#include "records/reader.h"

#define CMD "profile"

static void help(FILE *f)
{
	fprintf(f,
	        "usage: rowkey profile [options] FILE\n\n"
	        "Profiles a records file (CSV with a header, TSV or JSON lines): per field the type\n"
	        "a schema should give it, values and empties, distinct values, the most frequent\n"
	        "values and their shares (hot keys), how often a value rises from one record to\n"
	        "the next, lengths; then the smallest field sets that identify every record, and\n"
	        "the data's clock. One pass; exact while the records fit in --memory.\n\n"
	        "  --json              one JSON object (docs/advisor.md)\n"
	        "  --format FMT        csv, tsv or jsonl (default: JSON lines when the file starts\n"
	        "                      with '{', else csv)\n"
	        "  --no-header         CSV/TSV without a header: fields are col1, col2, ...\n"
	        "  --limit N           read at most N records\n"
	        "  --memory BYTES      records held for exact figures (default 1G; K, M, G)\n"
	        "  -q, --quiet         no progress on stderr\n"
	        "  -h, --help          this help\n");
}

int rk_cli_profile(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, 0, 'j'},         {"format", required_argument, 0, 'F'},
	    {"no-header", no_argument, 0, 'N'},    {"limit", required_argument, 0, 'l'},
	    {"memory", required_argument, 0, 'm'}, {"quiet", no_argument, 0, 'q'},
	    {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
	rk_profile_options po = RK_PROFILE_OPTIONS_INIT;
	rk_cli_progress pr;
	int json = 0, quiet = 0, c;
	uint64_t u;
	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
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
		case 'h': help(stdout); return RK_EXIT_OK;
		default: help(stderr); return RK_EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return rk_cli_usage_error(CMD, "expected one FILE");
	rk_cli_progress_init(&pr, CMD, quiet);
	po.progress = rk_cli_progress_cb;
	po.payload = &pr;
	rk_profile *p;
	int rc = rk_profile_file(&p, argv[optind], &po);
	rk_cli_progress_done(&pr);
	if (rc < 0)
		return rk_cli_fail(CMD, argv[optind]);
	char *out;
	rc = json ? rk_profile_json(&out, p) : rk_profile_text(&out, p);
	rk_profile_free(p);
	if (rc < 0)
		return rk_cli_fail(CMD, "report");
	fputs(out, stdout);
	if (json)
		fputc('\n', stdout);
	free(out);
	return RK_EXIT_OK; /* main() flushes standard output and says when that fails */
}
