/*
 * --engine for rowkey analyze and compare: which engine runs the workload.
 *   sim    the simulator only (the default without --store)
 *   store  the embedded store only, its region servers capped at --capacity
 *          and its throughput measured in wall-clock time
 *   both   the simulator and the store side by side (the default with --store)
 * A store run keeps its store in --store DIR when given; otherwise in a new
 * temporary directory ($TMPDIR or /tmp) removed when the command ends.
 */
#ifndef RK_CLI_ENGINE_H
#define RK_CLI_ENGINE_H

#include "cli/opts.h"

/* --engine in the option tables of analyze and compare (key 'E'). */
#define RK_CLI_OPT_ENGINE                                                                          \
	{"engine", 0, 'E', "sim|store|both", RK_ARG_CHOICE, "sim store both",                      \
	 "sim: the simulator (default); store: load the writes into a new embedded store whose "   \
	 "servers are capped at --capacity and measure its throughput in wall-clock time (reads "  \
	 "are not executed); both: side by side"}

#include <stddef.h>

typedef struct rk_cli_engine {
	int sim, store;     /* which runs */
	const char *dir;    /* where store runs go (--store, or the temporary one) */
	char tmp[4096];     /* the temporary directory, removed by _done; "" if none */
} rk_cli_engine;

/* Parses --engine's argument into e->sim / e->store. RK_EINVALID naming the
 * accepted values. */
int rk_cli_engine_parse(rk_cli_engine *e, const char *arg);

/* After parsing: engine given (or not) and --store DIR (NULL if not given).
 * Picks the defaults, refuses --engine sim with --store, and makes the
 * temporary directory when a store run has no --store. Returns 0, or an
 * error code with rk_error_last() set. */
int rk_cli_engine_ready(rk_cli_engine *e, int engine_given, const char *store);

/* rk_cli_engine_ready for command `cmd`, saying why it cannot: 0, or the
 * exit status (a usage error, or RK_EXIT_FAIL when the temporary directory
 * cannot be made). */
int rk_cli__engine_start(rk_cli_engine *e, const char *cmd, int engine_given, const char *store);

/* Removes the temporary directory (if any) and everything in it. */
void rk_cli_engine_done(rk_cli_engine *e);

#endif
