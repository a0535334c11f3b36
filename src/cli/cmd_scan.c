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

static void usage(FILE *f)
{
	fprintf(f, "usage: rowkey scan [options] TABLE\n\n"
	           "Prints rows in key order, one line per cell (see rowkey get).\n\n"
	           "  --db DIR           store directory (default " RK_CLI_DEFAULT_DB ")\n"
	           "  --start ROW        first row (inclusive; \\xNN escapes; not after --stop)\n"
	           "  --stop ROW         end row (exclusive)\n"
	           "  --prefix P         only rows starting with P\n"
	           "  --reverse          descending order\n"
	           "  --limit N          at most N rows\n"
	           "  -c, --column F[:Q] only this family or column; repeatable\n"
	           "  --versions N       newest N versions per column (1..1000000, default 1)\n"
	           "  --keys-only        print row keys only\n"
	           "  --count            print only the number of rows ({\"count\":N} with --json)\n"
	           "  --json             one JSON object per row\n"
	           "  -h, --help         this help\n");
}

int rk_cli_scan(int argc, char **argv)
{
	static const struct option lo[] = {
		{"db", required_argument, NULL, 'd'},     {"start", required_argument, NULL, 's'},
		{"stop", required_argument, NULL, 'S'},   {"prefix", required_argument, NULL, 'p'},
		{"reverse", no_argument, NULL, 'r'},      {"limit", required_argument, NULL, 'l'},
		{"column", required_argument, NULL, 'c'}, {"versions", required_argument, NULL, 'v'},
		{"keys-only", no_argument, NULL, 'k'},    {"count", no_argument, NULL, 'n'},
		{"json", no_argument, NULL, 'j'},         {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
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
	while ((c = getopt_long(argc, argv, "c:h", lo, NULL)) != -1) {
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
			usage(stdout);
			rc = RK_EXIT_OK;
			goto out;
		default:
			rk_cli_usage_error(CMD, "unknown option");
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
