/*
 * `rowkey serve`: the store over the Cloud Bigtable gRPC API (issue 10).
 * server.c runs the gRPC C core server; the CLI (src/cli/cmd_serve.c) opens
 * the store, starts it, and stops it on SIGTERM / SIGINT.
 */
#ifndef RK_SERVE_H
#define RK_SERVE_H

#include <stddef.h>

#include "rowkey/store.h"

typedef struct rk_sv_server rk_sv_server;

/* Starts serving `store` on `listen` ("HOST:PORT"; port 0 picks one) under
 * the instance projects/<project>/instances/<instance>. *out is owned by the
 * caller: rk_sv_server_stop ends it. The address bound goes to
 * bound[cap]. RK_EIO naming the address when it cannot listen. The store
 * must stay open until rk_sv_server_stop returns. */
int rk_sv_server_start(rk_sv_server **out, rk_store *store, const char *listen,
                       const char *project, const char *instance, char *bound, size_t cap);

/* Stops accepting calls, lets the calls in flight finish (cancelling those
 * still running after drain_ms), and frees the server. */
void rk_sv_server_stop(rk_sv_server *s, unsigned drain_ms);

/* Calls answered so far and calls in flight. */
void rk_sv_server_counts(const rk_sv_server *s, unsigned long long *answered,
                         unsigned *in_flight);

#endif
