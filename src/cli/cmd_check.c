/*
 * rowkey check: verify a store and report every problem found (meta
 * coverage, cells outside their region or server, engine read errors).
 * Exit 0 when clean, 1 when problems were found or the store did not open.
 */
#include <getopt.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/store_cli.h"

#define CMD "check"

static const rk_cli_opt check_opts[] = {
	RK_CLI_OPT_DB,
	{"repair", 0, 'r', NULL, RK_ARG_NONE, NULL,
	 "drop damaged write-ahead log records (saying which), then check"},
};

const rk_cli_spec rk_cli_spec_check = {
	"check",
	"[options] [DIR]",
	"Opens the store (replaying the servers' logs), then verifies that each table's regions "
	"cover its key space without gap or overlap, that every cell decodes and lies in a region "
	"held by the server that stores it, and that every engine file reads back with valid "
	"checksums. DIR, when given, names the store instead of --db.\n\n"
	"A store whose write-ahead log is damaged before its end does not open (the error names "
	"the log file and offset). --repair first replays each server's log dropping the damaged "
	"records, prints what was dropped (also appended to DIR/repair.log), then checks.",
	check_opts, RK_CLI_NOPTS(check_opts), RK_ARG_DIR, NULL,
	"  $ rowkey check /tmp/rk\n",
	"rowkey-stats(1)",
};

static void print_dropped(const char *line, void *payload)
{
	(void)payload;
	printf("dropped: %s\n", line);
}

static void print_problem(const char *problem, void *payload)
{
	(void)payload;
	printf("problem: %s\n", problem);
}

int rk_cli_check(int argc, char **argv)
{
	const char *db = RK_CLI_DEFAULT_DB;
	int c, repair = 0;
	while ((c = rk_cli_getopt(&rk_cli_spec_check, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'r':
			repair = 1;
			break;
		case 'h':
			rk_cli_help(&rk_cli_spec_check, stdout);
			return RK_EXIT_OK;
		default: /* rk_cli_getopt said why */
			return RK_EXIT_USAGE;
		}
	}
	if (argc - optind > 1)
		return rk_cli_usage_error(CMD, "expected at most one DIR");
	if (optind < argc)
		db = argv[optind];
	if (repair) {
		size_t damaged = 0;
		if (rk_store_repair(&damaged, db, print_dropped, NULL))
			return rk_cli_fail(CMD, "repairing");
		printf("store %s: %zu damaged log%s repaired\n", db, damaged, damaged == 1 ? "" : "s");
	}
	rk_store *s = rk_cli__open_store(CMD, db, 0, NULL);
	if (!s)
		return RK_EXIT_FAIL;
	size_t problems = 0;
	int rc = rk_store_check(&problems, s, print_problem, NULL);
	if (rc == RK_ECORRUPT) {
		fprintf(stderr, "rowkey check: %s: %zu problem%s\n", db, problems,
		        problems == 1 ? "" : "s");
		rc = RK_EXIT_FAIL;
	} else if (rc) {
		rc = rk_cli_fail(CMD, "checking");
	} else {
		printf("store %s: ok\n", db);
		rc = RK_EXIT_OK;
	}
	return rk_cli__close_store(CMD, s, rc);
}
