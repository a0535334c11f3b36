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
	{"limit", 0, 'l', "N", RK_ARG_NUMBER, NULL, "at most N rows (N >= 1; default every row)"},
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

/* ---- the command ---- */

/* The command line; scan_args_free frees what it holds on every path. */
typedef struct scan_args {
	const char *db, *table;
	rk_cli_columns cols;
	uint8_t *start, *stop, *prefix; /* so's bytes, owned here */
	rk_scan_options so;
	int json, keys, count;
} scan_args;

static void scan_args_free(scan_args *a)
{
	rk_cli__columns_free(&a->cols);
	free(a->start);
	free(a->stop);
	free(a->prefix);
}

/* --start, --stop, --prefix (option key c): the last one given counts. */
static int set_bytes(scan_args *a, int c, const char *arg)
{
	uint8_t **dst = c == 's' ? &a->start : c == 'S' ? &a->stop : &a->prefix;
	size_t *len = c == 's' ? &a->so.start_len : c == 'S' ? &a->so.stop_len : &a->so.prefix_len;
	free(*dst);
	*dst = NULL;
	if (rk_cli__unescape(dst, len, arg)) {
		rk_cli_usage_error(CMD, "bad escape in '%s'", arg);
		return -1;
	}
	return 0;
}

/* One option (rk_cli_getopt's key c other than --help): 0, or nonzero after
 * saying why it is wrong. */
static int parse_option(scan_args *a, int c, const char *arg)
{
	uint64_t v;
	switch (c) {
	case 'd': a->db = arg; return 0;
	case 's':
	case 'S':
	case 'p': return set_bytes(a, c, arg);
	case 'r': a->so.reverse = 1; return 0;
	case 'l': return rk_cli__parse_limit(&a->so.limit, CMD, arg);
	case 'v':
		if (rk_cli__parse_range(&v, CMD, "--versions", arg, 1, 1000000))
			return -1;
		a->so.read.max_versions = (unsigned)v;
		return 0;
	case 'c': return rk_cli__columns_add(&a->cols, CMD, arg);
	case 'k': a->keys = 1; return 0;
	case 'n': a->count = 1; return 0;
	case 'j': a->json = 1; return 0;
	default: return -1; /* rk_cli_getopt said why */
	}
}

/* Returns -1 to go on, else the exit status (help given, or a usage error
 * said). */
static int parse_args(scan_args *a, int argc, char **argv)
{
	int c;
	while ((c = rk_cli_getopt(&rk_cli_spec_scan, argc, argv, NULL)) != -1) {
		if (c == 'h') {
			rk_cli_help(&rk_cli_spec_scan, stdout);
			return RK_EXIT_OK;
		}
		if (parse_option(a, c, optarg))
			return RK_EXIT_USAGE;
	}
	if (argc - optind != 1)
		return rk_cli_usage_error(CMD, "expected TABLE");
	if (a->start && a->stop) {
		size_t n = a->so.start_len < a->so.stop_len ? a->so.start_len : a->so.stop_len;
		int cmp = memcmp(a->start, a->stop, n);
		if (cmp > 0 || (cmp == 0 && a->so.start_len > a->so.stop_len))
			return rk_cli_usage_error(CMD, "--start is after --stop (the range is start inclusive, "
			                               "stop exclusive; use --reverse to read backwards)");
	}
	a->table = argv[optind];
	a->so.start = a->start;
	a->so.stop = a->stop;
	a->so.prefix = a->prefix;
	a->so.read.columns = a->cols.n ? a->cols.cols : NULL;
	a->so.read.ncolumns = a->cols.n;
	return -1;
}

/* Prints the rows, or with --count their number. Returns the exit status. */
static int print_rows(rk_scan *sc, const scan_args *a)
{
	const rk_row *r;
	uint64_t rows = 0;
	int e = 0;
	while (!rk_cli_out_failed() && (e = rk_scan_next(&r, sc)) == 0) {
		rows++;
		if (!a->count)
			rk_cli__print_row(stdout, r, a->json, a->keys);
	}
	if (rk_cli_out_failed())
		return RK_EXIT_FAIL; /* main() says why */
	if (e != RK_EITEROVER)
		return rk_cli_fail(CMD, "scanning");
	if (a->count && a->json)
		printf("{\"count\":%llu}\n", (unsigned long long)rows);
	else if (a->count)
		printf("%llu\n", (unsigned long long)rows);
	return RK_EXIT_OK;
}

static int run_scan(const scan_args *a)
{
	rk_table *t = NULL;
	rk_scan *sc = NULL;
	int rc = RK_EXIT_FAIL;
	rk_store *s = rk_cli__open_store(CMD, a->db, 0, NULL);
	if (!s)
		return RK_EXIT_FAIL;
	if (rk_table_open(&t, s, a->table))
		rk_cli_fail(CMD, "opening the table");
	else if (rk_scan_open(&sc, t, &a->so))
		rk_cli_fail(CMD, "starting the scan");
	else
		rc = print_rows(sc, a);
	rk_scan_close(sc);
	rk_table_close(t);
	return rk_cli__close_store(CMD, s, rc);
}

int rk_cli_scan(int argc, char **argv)
{
	scan_args a = {.db = RK_CLI_DEFAULT_DB, .so = RK_SCAN_OPTIONS_INIT};
	int rc = parse_args(&a, argc, argv);
	if (rc < 0)
		rc = run_scan(&a);
	scan_args_free(&a);
	return rc;
}
