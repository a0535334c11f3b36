/*
 * rowkey keyviz: the live Key Visualizer page of a store directory, over
 * HTTP (src/serve/http), read-only: the page reads the store's metrics
 * file, which `rowkey serve` rewrites every 5 s (and any store writes when
 * it closes), so it runs beside a server without taking the store's lock.
 * SIGTERM / SIGINT stop it.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/store_cli.h"
#include "serve/http/http.h"

#define CMD "keyviz"

static void usage(FILE *f)
{
	fprintf(f, "usage: rowkey keyviz [options] [DIR]\n\n"
	           "Serves the live Key Visualizer page of the store in DIR over HTTP: the load of\n"
	           "its tables' key buckets x time (rows and bytes written and read), zoom into a\n"
	           "key range and a time window, the keys through each table's schema, the regions\n"
	           "and their servers, the hottest key ranges; refreshed every 3 s from\n"
	           "DIR/metrics.tsv (rowkey serve rewrites it every 5 s). Read-only; the JSON the\n"
	           "page reads is in docs/serve.md. `rowkey serve --http` serves the same page from\n"
	           "the open store, up to the second. SIGTERM or SIGINT stops it.\n\n"
	           "  --db DIR            store directory (default " RK_CLI_DEFAULT_DB "; or give DIR)\n"
	           "  --http [HOST:]PORT  address (default 127.0.0.1:8087; HOST defaults to\n"
	           "                      127.0.0.1; port 0 picks one)\n"
	           "  -h, --help          this help\n");
}

int rk_cli_keyviz(int argc, char **argv)
{
	static const struct option lo[] = {
		{"db", required_argument, NULL, 'd'},
		{"http", required_argument, NULL, 'H'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *db = RK_CLI_DEFAULT_DB, *http = "127.0.0.1:8087";
	int c;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'H': http = optarg; break;
		case 'h': usage(stdout); return RK_EXIT_OK;
		default: return rk_cli_usage_error(CMD, "unknown option");
		}
	}
	if (argc - optind > 1)
		return rk_cli_usage_error(CMD, "expected at most one DIR");
	if (optind < argc)
		db = argv[optind];
	if (!rk_http_listen_ok(http))
		return rk_cli_usage_error(CMD, "--http: '%s' is not [HOST:]PORT with HOST an IPv4 address",
		                          http);
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* the server's thread leaves them to us */
	rk_http *h;
	char at[256];
	rk_http_source src = {NULL, db, db};
	if (rk_http_start(&h, &src, http, at, sizeof at))
		return rk_cli_fail(CMD, "starting the page's server");
	printf("rowkey keyviz: Key Visualizer of %s on http://%s/\n", db, at);
	/* whoever started the page reads its address here: unwritten, stop */
	if (fflush(stdout) != 0) {
		fprintf(stderr, "rowkey keyviz: writing the address to standard output failed: %s\n",
		        strerror(errno));
		clearerr(stdout); /* said here */
		rk_http_stop(h);
		return RK_EXIT_FAIL;
	}
	int sig;
	sigwait(&sigs, &sig);
	rk_http_stop(h);
	fprintf(stderr, "rowkey keyviz: %s: stopped\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	return RK_EXIT_OK;
}
