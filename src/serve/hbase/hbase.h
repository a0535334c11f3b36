/*
 * `rowkey serve --hbase-rest`: HBase's REST gateway API (the "REST" chapter
 * of the HBase reference guide) over the store `rowkey serve` serves, on
 * Debian's libmicrohttpd. A third front door beside the Bigtable gRPC API
 * and the live page: it shares the gRPC server's table handles and table
 * catalog, so a table made, changed or dropped through one is so through
 * the other, and holds no storage logic (docs/serve.md, "HBase REST").
 */
#ifndef RK_SERVE_HBASE_H
#define RK_SERVE_HBASE_H

#include <stddef.h>

#include "serve/serve.h"

typedef struct rk_hb rk_hb;

/* What one client may take (docs/serve.md lists them). */
typedef struct rk_hb_limits {
	size_t max_body;       /* bytes of a request body; over: 413 */
	unsigned max_scanners; /* scanners open at once; more: 503 */
	unsigned scanner_idle_s; /* a scanner unused this long is freed */
	size_t max_response;   /* bytes of cells one answer carries (a scan or a
	                          scanner's batch stops there; a row read whole) */
	unsigned max_connections;
} rk_hb_limits;

#define RK_HB_LIMITS_INIT { 64u << 20, 256, 300, 16u << 20, 256 }

/* Starts serving on `listen` ("[HOST:]PORT", HOST an IPv4 address, default
 * 127.0.0.1; port 0 picks one) the tables of the running gRPC server srv,
 * which must outlive it. lim NULL: RK_HB_LIMITS_INIT. The address bound
 * goes to bound[cap]. *out is the caller's: rk_hb_stop ends it.
 * RK_EINVALID for a bad address, RK_EIO naming it when it cannot listen. */
int rk_hb_start(rk_hb **out, rk_sv_server *srv, const char *listen, const rk_hb_limits *lim,
                char *bound, size_t cap);

/* Stops accepting, finishes the requests in flight, frees the scanners and
 * the server. NULL: nothing. */
void rk_hb_stop(rk_hb *h);

#endif
