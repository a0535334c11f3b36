/*
 * The workload and cluster options that analyze, compare and suggest share:
 * one table of options (RK_CLI_WORKLOAD_OPTIONS, spliced into each command's
 * option table, opts.h, with the key RK_CLI_WOPT: their --help, man pages
 * and completions come from it) and one handler, so the three commands
 * spell and check them alike. The values go through
 * rk_analyze_option; --query, --fixed-rate, --format and --no-header are
 * the workload's own.
 */
#ifndef RK_CLI_WOPTS_H
#define RK_CLI_WOPTS_H

#include <rowkey/analyze.h>

#include "cli/opts.h"

#define RK_CLI_WOPT 1
#define RK_CLI_MAX_QUERIES 16

#define RK_CLI_WORKLOAD_OPTIONS                                                                    \
	{NULL, 0, 0, NULL, RK_ARG_NONE, NULL, "the workload"},                                     \
	{"file", 0, RK_CLI_WOPT, "PATH", RK_ARG_FILE, NULL,                                       \
	 "records for the file workload (CSV with a header, TSV or JSON lines: docs/records.md); " \
	 "every record is replayed, at the data's own pace when it has a time field in order"},    \
	{"query", 0, RK_CLI_WOPT, "'W: PRED'", RK_ARG_TEXT, NULL,                                  \
	 "a query shape to keep cheap: a predicate of rowkey query with ? for values the data "    \
	 "fills in, optionally weighted ('5: store = ? AND ts >= ? AND ts < ?'); repeatable"},     \
	{"limit", 0, RK_CLI_WOPT, "N", RK_ARG_NUMBER, NULL, "replay at most N records of the file"}, \
	{"fixed-rate", 0, RK_CLI_WOPT, NULL, RK_ARG_NONE, NULL,                                   \
	 "replay the file at --rate, not at its own pace"},                                        \
	{"format", 0, RK_CLI_WOPT, "FMT", RK_ARG_CHOICE, "csv tsv jsonl",                         \
	 "how to read the file: csv, tsv or jsonl (default: by its first byte and its name)"},      \
	{"no-header", 0, RK_CLI_WOPT, NULL, RK_ARG_NONE, NULL,                                    \
	 "the file has no header line: fields are col1, col2, ..."},                               \
	{"memory", 0, RK_CLI_WOPT, "SIZE", RK_ARG_SIZE, NULL,                                     \
	 "records held in memory (default 1G; past it the file is read again for each run)"},     \
	{"seed", 0, RK_CLI_WOPT, "N", RK_ARG_NUMBER, NULL,                                        \
	 "generated workloads: the same seed gives the same operations (default 1)"},              \
	{"rate", 0, RK_CLI_WOPT, "OPS", RK_ARG_NUMBER, NULL,                                      \
	 "operations per second (default 1000)"},                                                  \
	{"duration", 0, RK_CLI_WOPT, "SECONDS", RK_ARG_NUMBER, NULL,                              \
	 "virtual seconds of a generated workload (default 600); --rate x --duration is at most "  \
	 "100,000,000 operations a run"},                                                          \
	{"read-fraction", 0, RK_CLI_WOPT, "F", RK_ARG_NUMBER, NULL,                               \
	 "the share of operations that are reads, 0..1 (default: the workload's own)"},            \
	{"cardinality", 0, RK_CLI_WOPT, "N", RK_ARG_NUMBER, NULL,                                 \
	 "users, sellers, cars or subdomains per domain (default: the workload's own)"},           \
	{"zipf", 0, RK_CLI_WOPT, "S", RK_ARG_NUMBER, NULL,                                        \
	 "skew of the workload's Zipf draws (default 1.1)"},                                       \
	{NULL, 0, 0, NULL, RK_ARG_NONE, NULL, "the cluster"},                                      \
	{"servers", 0, RK_CLI_WOPT, "N", RK_ARG_NUMBER, NULL, "region servers (default 16)"},     \
	{"capacity", 0, RK_CLI_WOPT, "OPS", RK_ARG_NUMBER, NULL,                                  \
	 "operations per second one server sustains (default 10000)"},                             \
	{"split-threshold", 0, RK_CLI_WOPT, "SIZE", RK_ARG_SIZE, NULL,                            \
	 "a region's size before it splits (default 256MiB; 0: never)"},                           \
	{"balance-interval", 0, RK_CLI_WOPT, "SECONDS", RK_ARG_NUMBER, NULL,                      \
	 "virtual seconds between balancer runs (default 300; 0: never)"},                         \
	{"time-buckets", 0, RK_CLI_WOPT, "N", RK_ARG_NUMBER, NULL, "heatmap columns (default 120)"}, \
	{"key-buckets", 0, RK_CLI_WOPT, "N", RK_ARG_NUMBER, NULL,                                 \
	 "heatmap rows at the finest (default 1000)"},                                             \
	{"value-len", 0, RK_CLI_WOPT, "SIZE", RK_ARG_SIZE, NULL,                                  \
	 "the value written with each row (default 100B)"},                                        \
	{"presplit", 0, RK_CLI_WOPT, "0|1|2", RK_ARG_CHOICE, "0 1 2",                             \
	 "1: regions from the design (buckets, hash prefix; default); 2: also one region a "       \
	 "server at the data's own key quantiles, as suggest proposes; 0: one region"},            \
	{"rows", 0, RK_CLI_WOPT, "N", RK_ARG_NUMBER, NULL,                                        \
	 "the rows the table will hold when it is queried (default: the records replayed): a "     \
	 "full scan reads them all, so a scan's price grows with the table"}

typedef struct rk_cli_wopts {
	rk_workload_options wo;
	rk_analyze_options ao;
	const char *queries[RK_CLI_MAX_QUERIES];
} rk_cli_wopts;

/* The most operations (--rate x --duration) a generated workload may ask
 * for. A run costs about a microsecond an operation in the simulator and
 * far more with the store: past this one would run for many minutes, or
 * days (--duration 1e9), saying nothing; refused instead. */
#define RK_CLI_MAX_OPERATIONS 100000000.0

void rk_cli_wopts_init(rk_cli_wopts *w);

/* Handles one of the shared options (by its long name). RK_EINVALID with a
 * message naming the option for a bad value. */
int rk_cli_wopts_set(rk_cli_wopts *w, const char *name, const char *value);

/* Checks the options together, once all are set: -w file needs --file, and
 * a generated workload asks for at most RK_CLI_MAX_OPERATIONS. -1 when they
 * hold, else the exit status after a usage error for `cmd`. */
int rk_cli_wopts_check(const rk_cli_wopts *w, const char *cmd);

#endif
