/*
 * `rowkey serve`: the store over the Cloud Bigtable gRPC API.
 * server.c runs the gRPC C core server; the CLI (src/cli/cmd_serve.c) opens
 * the store, starts it, and stops it on SIGTERM / SIGINT.
 */
#ifndef RK_SERVE_H
#define RK_SERVE_H

#include <stddef.h>

#include "rowkey/store.h"

typedef struct rk_sv_server rk_sv_server;

/* What one client may take of the server (docs/serve.md lists them beside
 * Bigtable's): the limits gRPC enforces on every connection, and those of
 * the server's own calls. */
typedef struct rk_sv_limits {
	size_t max_request;   /* bytes of a request message; over: RESOURCE_EXHAUSTED */
	unsigned max_calls;   /* calls served at once, a thread each; more wait */
	unsigned max_streams; /* calls at once on one connection */
	unsigned stall_ms;    /* a client silent this long over its part of a call
	                         (its request, taking a response) is cancelled */
	unsigned idle_ms;     /* a connection without calls this long is closed */
	size_t memory;        /* bytes gRPC may buffer for all connections */
} rk_sv_limits;

#define RK_SV_LIMITS_INIT { 256u << 20, 256, 100, 60000, 600000, (size_t)1 << 30 }

/* Starts serving `store` on `listen` ("HOST:PORT"; port 0 picks one) under
 * the instance projects/<project>/instances/<instance> ("*": any), with
 * limits `lim` (NULL: RK_SV_LIMITS_INIT). *out is owned by the caller:
 * rk_sv_server_stop ends it. The address bound goes to bound[cap]. RK_EIO
 * naming the address when it cannot listen. The store must stay open until
 * rk_sv_server_stop returns. */
int rk_sv_server_start(rk_sv_server **out, rk_store *store, const char *listen,
                       const char *project, const char *instance, const rk_sv_limits *lim,
                       char *bound, size_t cap);

/* Stops accepting calls, lets the calls in flight finish (cancelling those
 * still running after drain_ms), and frees the server. */
void rk_sv_server_stop(rk_sv_server *s, unsigned drain_ms);

/* Calls answered so far, calls in flight, calls cancelled because their
 * client stalled (may be NULL). */
void rk_sv_server_counts(const rk_sv_server *s, unsigned long long *answered,
                         unsigned *in_flight, unsigned long long *stalled);

/* The hooks through which a rekey run inside the server (rowkey rekey on a
 * served store) keeps step with the server's mirror of the table's writes
 * (store/rekey.h, docs/rekey.md). */
struct rk_rekey_live;
void rk_sv_server_rekey_live(struct rk_rekey_live *out, rk_sv_server *s);

#endif
