/*
 * The workload and cluster options that analyze, compare and suggest share:
 * one table of long options (RK_CLI_WORKLOAD_OPTIONS, spliced into each
 * command's getopt table with the value RK_CLI_WOPT) and one handler, so the
 * three commands spell and check them alike. The values go through
 * rk_analyze_option; --query, --fixed-rate, --format and --no-header are
 * the workload's own.
 */
#ifndef RK_CLI_WOPTS_H
#define RK_CLI_WOPTS_H

#include <getopt.h>

#include <rowkey/analyze.h>

#define RK_CLI_WOPT 1
#define RK_CLI_MAX_QUERIES 16

#define RK_CLI_WORKLOAD_OPTIONS                                                                    \
	{"file", required_argument, 0, RK_CLI_WOPT}, {"seed", required_argument, 0, RK_CLI_WOPT},     \
	    {"rate", required_argument, 0, RK_CLI_WOPT},                                               \
	    {"duration", required_argument, 0, RK_CLI_WOPT},                                           \
	    {"read-fraction", required_argument, 0, RK_CLI_WOPT},                                      \
	    {"cardinality", required_argument, 0, RK_CLI_WOPT},                                        \
	    {"zipf", required_argument, 0, RK_CLI_WOPT}, {"servers", required_argument, 0, RK_CLI_WOPT}, \
	    {"capacity", required_argument, 0, RK_CLI_WOPT},                                           \
	    {"split-threshold", required_argument, 0, RK_CLI_WOPT},                                    \
	    {"balance-interval", required_argument, 0, RK_CLI_WOPT},                                   \
	    {"time-buckets", required_argument, 0, RK_CLI_WOPT},                                       \
	    {"key-buckets", required_argument, 0, RK_CLI_WOPT},                                        \
	    {"value-len", required_argument, 0, RK_CLI_WOPT},                                          \
	    {"presplit", required_argument, 0, RK_CLI_WOPT},                                           \
	    {"limit", required_argument, 0, RK_CLI_WOPT}, {"memory", required_argument, 0, RK_CLI_WOPT}, \
	    {"query", required_argument, 0, RK_CLI_WOPT}, {"fixed-rate", no_argument, 0, RK_CLI_WOPT},  \
	    {"format", required_argument, 0, RK_CLI_WOPT}, {"no-header", no_argument, 0, RK_CLI_WOPT}

/* The help lines for those options. */
#define RK_CLI_WORKLOAD_HELP                                                                       \
	"  workload:\n"                                                                                \
	"      --file PATH            records for the file workload (CSV with a header, TSV or\n"       \
	"                             JSON lines: docs/records.md); every record is replayed, at\n"    \
	"                             the data's own pace when it has a time field in order\n"        \
	"      --query 'W: PRED'      a query shape to keep cheap: a predicate of rowkey query with\n" \
	"                             ? for values the data fills in, optionally weighted\n"          \
	"                             ('5: store = ? AND ts >= ? AND ts < ?'); repeatable\n"           \
	"      --limit N              replay at most N records of the file\n"                         \
	"      --fixed-rate           replay the file at --rate, not at its own pace\n"               \
	"      --format FMT --no-header   how to read the file (csv, tsv, jsonl)\n"                   \
	"      --memory BYTES         records held in memory (default 1G; past it the file is\n"      \
	"                             read again for each run)\n"                                     \
	"      --seed N --rate OPS --duration SECONDS --read-fraction F\n"                            \
	"      --cardinality N --zipf S   generated workloads (rate x duration operations)\n"         \
	"  cluster:\n"                                                                                 \
	"      --servers S --capacity OPS --split-threshold BYTES --balance-interval SECONDS\n"        \
	"      --time-buckets N --key-buckets N --value-len BYTES --presplit 0|1\n"

typedef struct rk_cli_wopts {
	rk_workload_options wo;
	rk_analyze_options ao;
	const char *queries[RK_CLI_MAX_QUERIES];
} rk_cli_wopts;

void rk_cli_wopts_init(rk_cli_wopts *w);

/* Handles one of the shared options (by its long name). RK_EINVALID with a
 * message naming the option for a bad value. */
int rk_cli_wopts_set(rk_cli_wopts *w, const char *name, const char *value);

#endif
