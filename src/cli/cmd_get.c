/*
 * rowkey get: read one row (columns, versions, time range) and print its
 * cells, as text lines or one JSON object.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/store_cli.h"

#define CMD "get"

static const rk_cli_opt get_opts[] = {
	RK_CLI_OPT_DB,
	{"column", 'c', 'c', "F[:Q]", RK_ARG_TEXT, NULL, "only this family or column; repeatable"},
	{"versions", 0, 'v', "N", RK_ARG_NUMBER, NULL, "the newest N versions per column (default 1)"},
	{"min-ts", 0, 'm', "N", RK_ARG_NUMBER, NULL, "only versions with timestamp >= N (microseconds)"},
	{"max-ts", 0, 'M', "N", RK_ARG_NUMBER, NULL, "only versions with timestamp < N"},
	{"json", 0, 'j', NULL, RK_ARG_NONE, NULL, "one JSON object"},
};

const rk_cli_spec rk_cli_spec_get = {
	"get",
	"[options] TABLE ROW",
	"Prints the row's cells, one a line: row, family:qualifier, timestamp, value, "
	"tab-separated, bytes outside printable ASCII as \\xNN. Exits 1 when the row does not "
	"exist.",
	get_opts, RK_CLI_NOPTS(get_opts), RK_ARG_TABLE, NULL,
	"  $ rowkey get --db /tmp/rk events row1\n"
	"  row1\\td:msg\\t1795304818063889\\thello\n",
	"rowkey-put(1), rowkey-scan(1)",
};

int rk_cli_get(int argc, char **argv)
{
	const char *db = RK_CLI_DEFAULT_DB;
	rk_cli_columns cols = {0};
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	int json = 0, c, rc = RK_EXIT_USAGE;
	uint64_t v;
	uint8_t *row = NULL;
	size_t row_len;
	rk_store *s = NULL;
	rk_table *t = NULL;
	while ((c = rk_cli_getopt(&rk_cli_spec_get, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'c':
			if (rk_cli__columns_add(&cols, CMD, optarg))
				goto out;
			break;
		case 'v':
			if (rk_cli__parse_range(&v, CMD, "--versions", optarg, 1, 1000000))
				goto out;
			ro.max_versions = (unsigned)v;
			break;
		case 'm':
		case 'M':
			if (rk_cli__parse_range(c == 'm' ? &ro.min_ts : &ro.max_ts, CMD,
			                        c == 'm' ? "--min-ts" : "--max-ts", optarg, 0, INT64_MAX))
				goto out;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			rk_cli_help(&rk_cli_spec_get, stdout);
			rc = RK_EXIT_OK;
			goto out;
		default: /* rk_cli_getopt said why */
			goto out;
		}
	}
	if (argc - optind != 2) {
		rk_cli_usage_error(CMD, "expected TABLE ROW");
		goto out;
	}
	if (rk_cli__unescape(&row, &row_len, argv[optind + 1])) {
		rk_cli_usage_error(CMD, "bad escape in row '%s'", argv[optind + 1]);
		goto out;
	}
	ro.columns = cols.n ? cols.cols : NULL;
	ro.ncolumns = cols.n;
	rc = RK_EXIT_FAIL;
	if (!(s = rk_cli__open_store(CMD, db, 0, NULL)))
		goto out;
	if (rk_table_open(&t, s, argv[optind])) {
		rk_cli_fail(CMD, "opening the table");
		goto out;
	}
	rk_row *r;
	if (rk_table_get(&r, t, row, row_len, &ro)) {
		rk_cli_fail(CMD, "reading");
		goto out;
	}
	rk_cli__print_row(stdout, r, json, 0);
	rk_row_free(r);
	rc = RK_EXIT_OK;
out:
	rk_table_close(t);
	if (s)
		rc = rk_cli__close_store(CMD, s, rc);
	rk_cli__columns_free(&cols);
	free(row);
	return rc;
}
