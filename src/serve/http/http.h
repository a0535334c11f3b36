/*
 * The live Key Visualizer page (docs/serve.md, "The live page"): an HTTP
 * server (Debian's libmicrohttpd) that serves one page, its script and
 * style (built into the binary: no network at run time) and the JSON the
 * page reads (http_api.h): a store's key buckets as a keymap, its regions
 * and servers, the hottest key ranges. Read-only (GET and HEAD only),
 * loopback unless told otherwise. `rowkey serve --http` runs it beside the
 * Bigtable API over the open store; `rowkey keyviz` over a store directory
 * (its metrics file, which a running server rewrites every 5 s).
 */
#ifndef RK_SERVE_HTTP_H
#define RK_SERVE_HTTP_H

#include <stddef.h>

#include <rowkey/metrics.h>
#include <rowkey/store.h>

typedef struct rk_http rk_http;

/* Where the page's data comes from: an open store (its record as it is
 * now, rk_store_metrics), or else the metrics file of directory `dir`
 * (re-read when it changes). `title` names the store on the page. */
typedef struct rk_http_source {
	rk_store *store;
	const char *dir;
	const char *title;
} rk_http_source;

/* Starts serving on `listen`: "[HOST:]PORT", HOST an IPv4 address (default
 * 127.0.0.1), PORT 0 picks one. The address bound goes to bound[cap]. The
 * source (and the store in it) must outlive the server. *out is owned by
 * the caller: rk_http_stop ends it. RK_EINVALID for a bad address, RK_EIO
 * naming it when it cannot listen. */
int rk_http_start(rk_http **out, const rk_http_source *src, const char *listen, char *bound,
                  size_t cap);

/* 1 when `listen` is a [HOST:]PORT rk_http_start takes. */
int rk_http_listen_ok(const char *listen);

/* "[HOST:]PORT" (HOST an IPv4 address or localhost, default 127.0.0.1) into
 * *sa: the one reading of a front door's address, for the live page and the
 * HBase REST API alike. 0, or -1 when it is not one. */
struct sockaddr_in;
int rk_http_parse_listen(struct sockaddr_in *sa, const char *listen);

/* What a started daemon listens on (PORT 0 asked the kernel for one): the
 * port into sa and port[pcap], "IP:PORT" into bound[cap]. */
struct MHD_Daemon;
void rk_http_bound(struct MHD_Daemon *d, struct sockaddr_in *sa, char *port, size_t pcap,
                   char *bound, size_t cap);

/* Stops accepting, finishes the requests in flight, frees the server. */
void rk_http_stop(rk_http *h);

/* ---- inside (http.c, the generated keyviz_assets.c) ---- */

/* A file of the page, built into the binary; the table ends with path NULL. */
typedef struct rk_http_asset {
	const char *path, *type;
	const unsigned char *data;
	size_t len;
} rk_http_asset;
extern const rk_http_asset rk_http__assets[];

#endif
