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

static const rk_cli_opt keyviz_opts[] = {
	{"db", 0, 'd', "DIR", RK_ARG_DIR, NULL, "the store directory (default " RK_CLI_DEFAULT_DB "; or give DIR)"},
	{"http", 0, 'H', "[HOST:]PORT", RK_ARG_TEXT, NULL,
	 "the address (default 127.0.0.1:8087; HOST defaults to 127.0.0.1; port 0 picks one)"},
};

const rk_cli_spec rk_cli_spec_keyviz = {
	"keyviz",
	"[options] [DIR]",
	"Serves the live Key Visualizer page of the store in DIR over HTTP: the load of its "
	"tables' key buckets x time (rows and bytes written and read), zoom into a key range and a "
	"time window, the keys through each table's schema, the regions and their servers, the "
	"hottest key ranges; refreshed every 3 s from DIR/metrics.tsv (rowkey serve rewrites it "
	"every 5 s). Read-only: it takes no lock, so it runs beside a server. The JSON the page "
	"reads is in docs/serve.md. rowkey serve --http serves the same page from the open store, "
	"up to the second.\n\n"
	"SIGTERM or SIGINT stops it.",
	keyviz_opts, RK_CLI_NOPTS(keyviz_opts), RK_ARG_DIR, NULL,
	"  $ rowkey keyviz --db /tmp/bt --http 8087\n",
	"rowkey-serve(1), rowkey-heatmap(1), rowkey-stats(1)",
};

int rk_cli_keyviz(int argc, char **argv)
{
	const char *db = RK_CLI_DEFAULT_DB, *http = "127.0.0.1:8087";
	int c;
	while ((c = rk_cli_getopt(&rk_cli_spec_keyviz, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'H': http = optarg; break;
		case 'h': rk_cli_help(&rk_cli_spec_keyviz, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
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
