/*
 * rowkey serve: the store served over the Cloud Bigtable gRPC API, so that
 * cbt and the Bigtable client libraries (BIGTABLE_EMULATOR_HOST=HOST:PORT)
 * read and write a persistent store cut into regions on region servers.
 * Writes DIR/SERVING (docs/formats.md B.4) while it runs and DIR/metrics.tsv
 * every 5 seconds, so `rowkey stats`, `regions` and `heatmap` show the load
 * of a live server; with --http, the live Key Visualizer page too
 * (src/serve/http). SIGTERM / SIGINT: stop accepting, finish the calls in
 * flight, close the store, exit 0.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/store_cli.h"
#include "key/error.h"
#include "rowkey/store.h"
#include "serve/http/http.h"

#define CMD "serve"

#ifdef RK_WITH_BIGTABLE
#include "cli/rekey.h"
#include "serve/hbase/hbase.h"
#include "serve/serve.h"

static const rk_cli_opt serve_opts[] = {
	RK_CLI_OPT_DB,
	{"listen", 0, 'l', "HOST:PORT", RK_ARG_TEXT, NULL,
	 "the address (default 127.0.0.1:8086; port 0 picks a free one)"},
	{"project", 0, 'p', "P", RK_ARG_TEXT, NULL, "answer only for projects/P/... (default: any)"},
	{"instance", 0, 'i', "I", RK_ARG_TEXT, NULL, "answer only for .../instances/I (default: any)"},
	{"servers", 0, 's', "N", RK_ARG_NUMBER, NULL, "region servers of a new store (default 4)"},
	{"balance-every", 0, 'b', "S", RK_ARG_NUMBER, NULL,
	 "run the balancer every S seconds, as HBase's balancer chore does (default 60; 0: never)"},
	{"collect-every", 0, 'g', "S", RK_ARG_NUMBER, NULL,
	 "give back the space of versions the families' GC rules collect every S seconds (default "
	 "3600; 0: never)"},
	{"block-cache", 0, 'c', "SIZE", RK_ARG_SIZE, NULL,
	 "table blocks kept in memory, one cache for all region servers (a bare number is MiB; "
	 "default 64MiB; 0: 8 MiB a server)"},
	{"http", 0, 'H', "[HOST:]PORT", RK_ARG_TEXT, NULL,
	 "also serve the live Key Visualizer page there (read-only; HOST defaults to 127.0.0.1; "
	 "port 0 picks one)"},
	{"hbase-rest", 0, 'R', "[HOST:]PORT", RK_ARG_TEXT, NULL,
	 "also serve HBase's REST API there, over the same tables (HOST defaults to 127.0.0.1; "
	 "port 0 picks one)"},
};

const rk_cli_spec rk_cli_spec_serve = {
	"serve",
	"[options] [DIR]",
	"Serves the store in DIR (created when missing) over the Cloud Bigtable API "
	"(google.bigtable.v2.Bigtable and google.bigtable.admin.v2.BigtableTableAdmin, plaintext "
	"HTTP/2), the way the Bigtable emulator does: point a client at it with "
	"BIGTABLE_EMULATOR_HOST=HOST:PORT. Tables are cut into regions on region servers that "
	"split and balance as the store does; the load each one takes goes to DIR/metrics.tsv "
	"every 5 s (rowkey stats, regions and heatmap read it). With --http, the live Key "
	"Visualizer page too (as rowkey keyviz, up to the second); with --hbase-rest, HBase's "
	"REST API (curl, HBase REST clients) over the same tables.\n\n"
	"SIGTERM or SIGINT drains the calls in flight, closes the store and exits 0.",
	serve_opts, RK_CLI_NOPTS(serve_opts), RK_ARG_DIR, NULL,
	"  $ rowkey serve --db /tmp/bt --listen 127.0.0.1:8086 &\n"
	"  $ export BIGTABLE_EMULATOR_HOST=127.0.0.1:8086\n"
	"  $ cbt -project p -instance i createtable events families=d splits=g,p\n",
	"rowkey-heatmap(1), rowkey-stats(1), cbt(1)",
};

static int write_serving(const char *db, const char *bound, const char *admin)
{
	char path[4200], tmp[4300];
	snprintf(path, sizeof path, "%s/SERVING", db);
	snprintf(tmp, sizeof tmp, "%s/SERVING.tmp", db);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	int bad = fprintf(f, "rowkey-serving 1\npid %ld\nlisten %s\nadmin %s\n", (long)getpid(),
	                  bound, admin) < 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The store's chores while it serves: the balancer and the collection of
 * what GC rules collect, each every so many seconds (0: never). A stop
 * waits for a chore that runs. */
typedef struct chores {
	unsigned long balance_every, collect_every;
	time_t last_balance, last_collect;
} chores;

static int due(unsigned long every, time_t *last)
{
	if (!every || difftime(time(NULL), *last) < (double)every)
		return 0;
	*last = time(NULL);
	return 1;
}

static void run_chores(chores *ch, rk_store *store)
{
	size_t n;
	if (due(ch->balance_every, &ch->last_balance)) {
		if (rk_store_balance(&n, store))
			fprintf(stderr, "rowkey serve: warning: balancing: %s\n", rk_error_last());
		else if (n)
			fprintf(stderr, "rowkey serve: balancer moved %zu region%s\n", n,
			        n == 1 ? "" : "s");
	}
	if (due(ch->collect_every, &ch->last_collect)) {
		if (rk_store_collect(&n, store))
			fprintf(stderr, "rowkey serve: warning: collecting: %s\n", rk_error_last());
		else if (n)
			fprintf(stderr, "rowkey serve: collected %zu old version%s\n", n,
			        n == 1 ? "" : "s");
	}
}

/* ---- the command ---- */

typedef struct serve_args {
	const char *db, *listen, *project, *instance, *http, *rest;
	unsigned servers;
	chores ch;
	rk_store_options o;
} serve_args;

/* One option (rk_cli_getopt's key c other than --help): 0, or nonzero after
 * saying why it is wrong. */
static int parse_option(serve_args *a, int c, const char *arg)
{
	uint64_t v;
	switch (c) {
	case 'd': a->db = arg; return 0;
	case 'l': a->listen = arg; return 0;
	case 'p': a->project = arg; return 0;
	case 'i': a->instance = arg; return 0;
	case 's':
		if (rk_cli__parse_u64(&v, arg) || v < 1 || v > RK_MAX_SERVERS)
			return rk_cli_usage_error(CMD, "--servers: '%s' is not 1..%u", arg, RK_MAX_SERVERS);
		a->servers = (unsigned)v;
		return 0;
	case 'b':
		if (rk_cli__parse_u64(&v, arg) || v > 86400)
			return rk_cli_usage_error(CMD, "--balance-every: '%s' is not 0..86400 seconds", arg);
		a->ch.balance_every = (unsigned long)v;
		return 0;
	case 'g':
		if (rk_cli__parse_u64(&v, arg) || v > 86400 * 7)
			return rk_cli_usage_error(CMD, "--collect-every: '%s' is not 0..604800 seconds", arg);
		a->ch.collect_every = (unsigned long)v;
		return 0;
	case 'c':
		if (rk_cli__parse_size(&v, CMD, "block-cache", arg, 1u << 20, 0, 65536ull << 20))
			return -1;
		a->o.block_cache_size = (size_t)v;
		return 0;
	case 'H': a->http = arg; return 0;
	case 'R': a->rest = arg; return 0;
	default: return -1; /* rk_cli_getopt said why */
	}
}

/* Returns -1 to go on, else the exit status (help given, or a usage error
 * said). */
static int parse_args(serve_args *a, int argc, char **argv)
{
	int c;
	while ((c = rk_cli_getopt(&rk_cli_spec_serve, argc, argv, NULL)) != -1) {
		if (c == 'h') {
			rk_cli_help(&rk_cli_spec_serve, stdout);
			return RK_EXIT_OK;
		}
		if (parse_option(a, c, optarg))
			return RK_EXIT_USAGE;
	}
	if (argc - optind > 1)
		return rk_cli_usage_error(CMD, "expected at most one DIR");
	if (optind < argc)
		a->db = argv[optind];
	if ((a->project == NULL) != (a->instance == NULL))
		return rk_cli_usage_error(CMD, "--project and --instance go together");
	const char *port = strrchr(a->listen, ':');
	uint64_t pv;
	if (!port || port == a->listen || rk_cli__parse_u64(&pv, port + 1) || pv > 65535)
		return rk_cli_usage_error(CMD, "--listen: '%s' is not HOST:PORT with a port of 0..65535",
		                          a->listen);
	if (a->http && !rk_http_listen_ok(a->http))
		return rk_cli_usage_error(CMD, "--http: '%s' is not [HOST:]PORT with HOST an IPv4 address",
		                          a->http);
	if (a->rest && !rk_http_listen_ok(a->rest))
		return rk_cli_usage_error(CMD, "--hbase-rest: '%s' is not [HOST:]PORT with HOST an IPv4 "
		                          "address", a->rest);
	return -1;
}

/* A running server: the store, the gRPC server and the live page. src is
 * the page's, and lives as long as it. */
typedef struct serving {
	rk_store *store;
	rk_sv_server *srv;
	rk_http *page;
	rk_hb *rest;
	rk_cli_door *door; /* rowkey rekey's way in (rekey_door.c) */
	rk_http_source src;
	char bound[256], page_at[256], rest_at[256], admin_at[64], metrics[4200];
} serving;

/* Opens the store and starts the server and (--http) the page. 0, or -1
 * after saying why, with everything started stopped again. */
static int serve_start(serving *sv, serve_args *a)
{
	a->o.n_servers = a->servers;
	sv->store = rk_cli__open_store(CMD, a->db, 1, &a->o);
	if (!sv->store)
		return -1;
	snprintf(sv->metrics, sizeof sv->metrics, "%s/metrics.tsv", a->db);
	if (rk_sv_server_start(&sv->srv, sv->store, a->listen, a->project ? a->project : "*",
	                       a->instance ? a->instance : "*", NULL, sv->bound, sizeof sv->bound)) {
		rk_cli_fail(CMD, "starting the server");
		rk_cli__close_store(CMD, sv->store, RK_EXIT_FAIL);
		return -1;
	}
	rk_rekey_live live;
	rk_sv_server_rekey_live(&live, sv->srv);
	if (rk_cli__door_start(&sv->door, sv->store, &live, sv->admin_at, sizeof sv->admin_at)) {
		rk_cli_fail(CMD, "starting the admin door");
		rk_sv_server_stop(sv->srv, 0);
		rk_cli__close_store(CMD, sv->store, RK_EXIT_FAIL);
		return -1;
	}
	sv->page = NULL;
	sv->src = (rk_http_source){sv->store, NULL, a->db};
	if (a->http && rk_http_start(&sv->page, &sv->src, a->http, sv->page_at, sizeof sv->page_at)) {
		rk_cli_fail(CMD, "starting the live page");
		rk_cli__door_stop(sv->door);
		rk_sv_server_stop(sv->srv, 0);
		rk_cli__close_store(CMD, sv->store, RK_EXIT_FAIL);
		return -1;
	}
	sv->rest = NULL;
	if (a->rest &&
	    rk_hb_start(&sv->rest, sv->srv, a->rest, NULL, sv->rest_at, sizeof sv->rest_at)) {
		rk_cli_fail(CMD, "starting the HBase REST API");
		rk_http_stop(sv->page);
		rk_cli__door_stop(sv->door);
		rk_sv_server_stop(sv->srv, 0);
		rk_cli__close_store(CMD, sv->store, RK_EXIT_FAIL);
		return -1;
	}
	return 0;
}

/* DIR/SERVING, and the addresses on standard output. Whoever started the
 * server reads the address there: when it cannot be written, -1 (stop). */
static int announce(const serving *sv, const char *db)
{
	if (write_serving(db, sv->bound, sv->admin_at))
		fprintf(stderr, "rowkey serve: warning: cannot write %s/SERVING: %s\n", db,
		        strerror(errno));
	printf("rowkey serve: listening on %s (store %s)\n", sv->bound, db);
	if (sv->page)
		printf("rowkey serve: Key Visualizer on http://%s/\n", sv->page_at);
	if (sv->rest)
		printf("rowkey serve: HBase REST on http://%s/\n", sv->rest_at);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "rowkey serve: writing the address to standard output failed: %s\n",
		        strerror(errno));
		clearerr(stdout); /* said here */
		return -1;
	}
	return 0;
}

/* Runs the chores and writes the metrics every 5 seconds until SIGTERM or
 * SIGINT (blocked in every thread, so only sigtimedwait takes them);
 * returns which. */
static int serve_until_signal(serving *sv, chores *ch, const sigset_t *sigs)
{
	ch->last_balance = ch->last_collect = time(NULL);
	for (;;) {
		struct timespec five = {5, 0};
		int s = sigtimedwait(sigs, NULL, &five);
		if (s == SIGTERM || s == SIGINT)
			return s;
		run_chores(ch, sv->store);
		if (rk_store_write_metrics(sv->store, sv->metrics))
			fprintf(stderr, "rowkey serve: warning: writing %s: %s\n", sv->metrics,
			        rk_error_last());
	}
}

/* Drains the calls in flight, removes DIR/SERVING and closes the store. sig:
 * the signal that stopped the server, or -1 when the address could not be
 * written. Returns the exit status. */
static int serve_stop(serving *sv, const char *db, int sig)
{
	if (sig > 0)
		fprintf(stderr, "rowkey serve: %s: draining calls in flight\n",
		        sig == SIGTERM ? "SIGTERM" : "SIGINT");
	rk_hb_stop(sv->rest); /* before the gRPC server: it uses its tables */
	rk_cli__door_stop(sv->door); /* a rekey step running ends first */
	rk_sv_server_stop(sv->srv, 30000);
	rk_http_stop(sv->page);
	char serving_path[4200];
	snprintf(serving_path, sizeof serving_path, "%s/SERVING", db);
	unlink(serving_path);
	int rc = rk_cli__close_store(CMD, sv->store, sig < 0 ? RK_EXIT_FAIL : RK_EXIT_OK);
	if (sig > 0 && rc == RK_EXIT_OK)
		fprintf(stderr, "rowkey serve: stopped, store %s closed\n", db);
	return rc;
}

int rk_cli_serve(int argc, char **argv)
{
	serve_args a = {.db = RK_CLI_DEFAULT_DB, .listen = "127.0.0.1:8086", .servers = 4,
	                .ch = {60, 3600, time(NULL), time(NULL)}, .o = RK_STORE_OPTIONS_INIT};
	int rc = parse_args(&a, argc, argv);
	if (rc >= 0)
		return rc;

	/* every thread started from here on leaves these signals to sigtimedwait */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	serving sv;
	if (serve_start(&sv, &a))
		return RK_EXIT_FAIL;
	int sig = announce(&sv, a.db);
	if (sig == 0)
		sig = serve_until_signal(&sv, &a.ch, &sigs);
	return serve_stop(&sv, a.db, sig);
}

#else

int rk_cli_serve(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rowkey serve: this build has no gRPC (built with RK_WITH_BIGTABLE=OFF)\n");
	return RK_EXIT_FAIL;
}

#endif
