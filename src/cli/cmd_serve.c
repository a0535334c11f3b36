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
	"Visualizer page too (as rowkey keyviz, up to the second).\n\n"
	"SIGTERM or SIGINT drains the calls in flight, closes the store and exits 0.",
	serve_opts, RK_CLI_NOPTS(serve_opts), RK_ARG_DIR, NULL,
	"  $ rowkey serve --db /tmp/bt --listen 127.0.0.1:8086 &\n"
	"  $ export BIGTABLE_EMULATOR_HOST=127.0.0.1:8086\n"
	"  $ cbt -project p -instance i createtable events families=d splits=g,p\n",
	"rowkey-heatmap(1), rowkey-stats(1), cbt(1)",
};

static int write_serving(const char *db, const char *bound)
{
	char path[4200], tmp[4300];
	snprintf(path, sizeof path, "%s/SERVING", db);
	snprintf(tmp, sizeof tmp, "%s/SERVING.tmp", db);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	int bad = fprintf(f, "rowkey-serving 1\npid %ld\nlisten %s\n", (long)getpid(), bound) < 0;
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

int rk_cli_serve(int argc, char **argv)
{
	const char *db = RK_CLI_DEFAULT_DB, *listen = "127.0.0.1:8086";
	const char *project = NULL, *instance = NULL, *http = NULL;
	unsigned servers = 4;
	chores ch = {60, 3600, time(NULL), time(NULL)};
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	uint64_t v;
	int c;
	while ((c = rk_cli_getopt(&rk_cli_spec_serve, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'l': listen = optarg; break;
		case 'p': project = optarg; break;
		case 'i': instance = optarg; break;
		case 's':
			if (rk_cli__parse_u64(&v, optarg) || v < 1 || v > RK_MAX_SERVERS)
				return rk_cli_usage_error(CMD, "--servers: '%s' is not 1..%u", optarg,
				                          RK_MAX_SERVERS);
			servers = (unsigned)v;
			break;
		case 'b':
			if (rk_cli__parse_u64(&v, optarg) || v > 86400)
				return rk_cli_usage_error(CMD, "--balance-every: '%s' is not 0..86400 seconds",
				                          optarg);
			ch.balance_every = (unsigned long)v;
			break;
		case 'g':
			if (rk_cli__parse_u64(&v, optarg) || v > 86400 * 7)
				return rk_cli_usage_error(CMD, "--collect-every: '%s' is not 0..604800 "
				                          "seconds", optarg);
			ch.collect_every = (unsigned long)v;
			break;
		case 'c':
			if (rk_cli__parse_size(&v, CMD, "block-cache", optarg, 1u << 20, 0, 65536ull << 20))
				return RK_EXIT_USAGE;
			o.block_cache_size = (size_t)v;
			break;
		case 'H': http = optarg; break;
		case 'h': rk_cli_help(&rk_cli_spec_serve, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (argc - optind > 1)
		return rk_cli_usage_error(CMD, "expected at most one DIR");
	if (optind < argc)
		db = argv[optind];
	if ((project == NULL) != (instance == NULL))
		return rk_cli_usage_error(CMD, "--project and --instance go together");
	const char *port = strrchr(listen, ':');
	uint64_t pv;
	if (!port || port == listen || rk_cli__parse_u64(&pv, port + 1) || pv > 65535)
		return rk_cli_usage_error(CMD, "--listen: '%s' is not HOST:PORT with a port of 0..65535",
		                          listen);
	if (http && !rk_http_listen_ok(http))
		return rk_cli_usage_error(CMD, "--http: '%s' is not [HOST:]PORT with HOST an IPv4 address",
		                          http);

	/* every thread started from here on leaves these signals to sigtimedwait */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	o.n_servers = servers;
	rk_store *store = rk_cli__open_store(CMD, db, 1, &o);
	if (!store)
		return RK_EXIT_FAIL;
	char bound[256], metrics[4200];
	snprintf(metrics, sizeof metrics, "%s/metrics.tsv", db);
	rk_sv_server *srv;
	if (rk_sv_server_start(&srv, store, listen, project ? project : "*",
	                       instance ? instance : "*", NULL, bound, sizeof bound)) {
		rk_cli_fail(CMD, "starting the server");
		return rk_cli__close_store(CMD, store, RK_EXIT_FAIL);
	}
	rk_http *page = NULL;
	char page_at[256];
	rk_http_source src = {store, NULL, db};
	if (http && rk_http_start(&page, &src, http, page_at, sizeof page_at)) {
		rk_cli_fail(CMD, "starting the live page");
		rk_sv_server_stop(srv, 0);
		return rk_cli__close_store(CMD, store, RK_EXIT_FAIL);
	}
	if (write_serving(db, bound))
		fprintf(stderr, "rowkey serve: warning: cannot write %s/SERVING: %s\n", db,
		        strerror(errno));
	printf("rowkey serve: listening on %s (store %s)\n", bound, db);
	if (page)
		printf("rowkey serve: Key Visualizer on http://%s/\n", page_at);
	/* whoever started the server reads the address here: unwritten, stop */
	int sig = 0;
	if (fflush(stdout) != 0) {
		fprintf(stderr, "rowkey serve: writing the address to standard output failed: %s\n",
		        strerror(errno));
		clearerr(stdout); /* said here */
		sig = -1;
	}
	ch.last_balance = ch.last_collect = time(NULL);
	while (!sig) {
		struct timespec five = {5, 0};
		int s = sigtimedwait(&sigs, NULL, &five);
		if (s == SIGTERM || s == SIGINT) {
			sig = s;
			break;
		}
		run_chores(&ch, store);
		if (rk_store_write_metrics(store, metrics))
			fprintf(stderr, "rowkey serve: warning: writing %s: %s\n", metrics,
			        rk_error_last());
	}
	if (sig > 0)
		fprintf(stderr, "rowkey serve: %s: draining calls in flight\n",
		        sig == SIGTERM ? "SIGTERM" : "SIGINT");
	rk_sv_server_stop(srv, 30000);
	rk_http_stop(page);
	char serving[4200];
	snprintf(serving, sizeof serving, "%s/SERVING", db);
	unlink(serving);
	int rc = rk_cli__close_store(CMD, store, sig < 0 ? RK_EXIT_FAIL : RK_EXIT_OK);
	if (sig > 0 && rc == RK_EXIT_OK)
		fprintf(stderr, "rowkey serve: stopped, store %s closed\n", db);
	return rc;
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
