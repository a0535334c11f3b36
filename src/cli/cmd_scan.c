/*
 * rowkey scan: print the rows of a key range (start/stop, prefix, reverse,
 * limit, columns, versions), or only count them.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/store_cli.h"

#define CMD "scan"

static const rk_cli_opt scan_opts[] = {
	RK_CLI_OPT_DB,
	{"start", 0, 's', "ROW", RK_ARG_TEXT, NULL,
	 "the first row (inclusive; \\xNN escapes; not after --stop)"},
	{"stop", 0, 'S', "ROW", RK_ARG_TEXT, NULL, "the end row (exclusive)"},
	{"prefix", 0, 'p', "P", RK_ARG_TEXT, NULL, "only rows starting with P"},
	{"reverse", 0, 'r', NULL, RK_ARG_NONE, NULL, "descending order"},
	{"limit", 0, 'l', "N", RK_ARG_NUMBER, NULL, "at most N rows"},
	{"column", 'c', 'c', "F[:Q]", RK_ARG_TEXT, NULL, "only this family or column; repeatable"},
	{"versions", 0, 'v', "N", RK_ARG_NUMBER, NULL,
	 "the newest N versions per column (1..1000000, default 1)"},
	{"keys-only", 0, 'k', NULL, RK_ARG_NONE, NULL, "print row keys only"},
	{"count", 0, 'n', NULL, RK_ARG_NONE, NULL,
	 "print only the number of rows ({\"count\":N} with --json)"},
	{"json", 0, 'j', NULL, RK_ARG_NONE, NULL, "one JSON object per row"},
};

const rk_cli_spec rk_cli_spec_scan = {
	"scan",
	"[options] TABLE",
	"Prints rows in key order, one line per cell, as rowkey get does.",
	scan_opts, RK_CLI_NOPTS(scan_opts), RK_ARG_TABLE, NULL,
	"  $ rowkey scan --db /tmp/rk events --prefix row --limit 10\n",
	"rowkey-get(1), rowkey-query(1)",
};

int rk_cli_scan(int argc, char **argv)
{
	const char *db = RK_CLI_DEFAULT_DB;
	rk_column cols[64];
	char *colbufs[64];
	uint8_t *qbufs[64];
	uint8_t *start = NULL, *stop = NULL, *prefix = NULL;
	size_t nc = 0;
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	int json = 0, keys = 0, count = 0, c, rc = RK_EXIT_USAGE;
	uint64_t v;
	rk_store *s = NULL;
	rk_table *t = NULL;
	rk_scan *sc = NULL;
	while ((c = rk_cli_getopt(&rk_cli_spec_scan, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 's':
		case 'S':
		case 'p': {
			uint8_t **dst = c == 's' ? &start : c == 'S' ? &stop : &prefix;
			size_t *len = c == 's' ? &so.start_len : c == 'S' ? &so.stop_len : &so.prefix_len;
			free(*dst);
			*dst = NULL;
			if (rk_cli__unescape(dst, len, optarg)) {
				rk_cli_usage_error(CMD, "bad escape in '%s'", optarg);
				goto out;
			}
			break;
		}
		case 'r':
			so.reverse = 1;
			break;
		case 'l':
			if (rk_cli__parse_range(&so.limit, CMD, "--limit", optarg, 0, UINT64_MAX))
				goto out;
			break;
		case 'v':
			if (rk_cli__parse_range(&v, CMD, "--versions", optarg, 1, 1000000))
				goto out;
			so.read.max_versions = (unsigned)v;
			break;
		case 'c':
			if (rk_cli__add_column(cols, colbufs, qbufs, &nc, 64, optarg)) {
				rk_cli_usage_error(CMD, "bad column '%s' (FAMILY or FAMILY:QUALIFIER, at most 64)", optarg);
				goto out;
			}
			break;
		case 'k':
			keys = 1;
			break;
		case 'n':
			count = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			rk_cli_help(&rk_cli_spec_scan, stdout);
			rc = RK_EXIT_OK;
			goto out;
		default: /* rk_cli_getopt said why */
			goto out;
		}
	}
	if (argc - optind != 1) {
		rk_cli_usage_error(CMD, "expected TABLE");
		goto out;
	}
	if (start && stop) {
		size_t n = so.start_len < so.stop_len ? so.start_len : so.stop_len;
		int cmp = memcmp(start, stop, n);
		if (cmp > 0 || (cmp == 0 && so.start_len > so.stop_len)) {
			rk_cli_usage_error(CMD, "--start is after --stop (the range is start inclusive, stop exclusive; "
			                        "use --reverse to read backwards)");
			goto out;
		}
	}
	so.start = start;
	so.stop = stop;
	so.prefix = prefix;
	so.read.columns = nc ? cols : NULL;
	so.read.ncolumns = nc;
	rc = RK_EXIT_FAIL;
	if (!(s = rk_cli__open_store(CMD, db, 0, NULL)))
		goto out;
	if (rk_table_open(&t, s, argv[optind])) {
		rk_cli_fail(CMD, "opening the table");
		goto out;
	}
	if (rk_scan_open(&sc, t, &so)) {
		rk_cli_fail(CMD, "starting the scan");
		goto out;
	}
	const rk_row *r;
	uint64_t rows = 0;
	int e;
	while (!rk_cli_out_failed() && (e = rk_scan_next(&r, sc)) == 0) {
		rows++;
		if (!count)
			rk_cli__print_row(stdout, r, json, keys);
	}
	if (rk_cli_out_failed())
		goto out; /* main() says why */
	if (e != RK_EITEROVER) {
		rk_cli_fail(CMD, "scanning");
		goto out;
	}
	if (count && json)
		printf("{\"count\":%llu}\n", (unsigned long long)rows);
	else if (count)
		printf("%llu\n", (unsigned long long)rows);
	rc = RK_EXIT_OK;
out:
	rk_scan_close(sc);
	rk_table_close(t);
	if (s)
		rc = rk_cli__close_store(CMD, s, rc);
	for (size_t i = 0; i < nc; i++) {
		free(colbufs[i]);
		free(qbufs[i]);
	}
	free(start);
	free(stop);
	free(prefix);
	return rc;
}
