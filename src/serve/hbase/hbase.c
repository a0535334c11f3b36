/*
 * The HBase REST front door's HTTP server, on Debian's libmicrohttpd: a
 * small pool of threads answers requests (a write waits for the store's
 * fsync, so one thread alone would queue every client behind it). Each
 * request's body is gathered up to the limit (413 past it, said before
 * reading it when Content-Length tells), then route.c answers it.
 *
 * Loopback unless told otherwise, as the live page: when it listens on
 * loopback, a request whose Host is not a loopback name is refused, so a
 * web page elsewhere cannot reach the store through a browser (DNS
 * rebinding). Bodies must be application/json, text/xml or protobuf (or
 * a raw cell's application/octet-stream): a browser cannot send those
 * cross-origin without a CORS preflight, which this server never grants.
 */
#include "serve/hbase/hbase.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "key/error.h"
#include "serve/hbase/hbase_int.h"
#include "serve/http/http.h"

#define POOL_THREADS 4u
#define MAX_ARGS 10000u

/* one request being gathered */
typedef struct conn {
	uint8_t *body;
	size_t len, cap;
	int too_big;
	rk_hb_arg *args;
	size_t nargs, args_cap;
	int bad_arg;
	rk_hb_arena a;
} conn;

static void conn_free(conn *k)
{
	if (!k)
		return;
	free(k->body);
	free(k->args);
	rk_hb__arena_free(&k->a);
	free(k);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode why)
{
	(void)cls;
	(void)c;
	(void)why;
	conn_free(*con_cls);
	*con_cls = NULL;
}

/* The arguments arrive raw (unescape() below leaves them so): decoded here. */
static enum MHD_Result arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	conn *k = cls;
	rk_hb_arg a;
	size_t nl;
	(void)kind;
	if (k->nargs == MAX_ARGS || !key)
		return k->bad_arg = 1, MHD_NO;
	if (k->nargs == k->args_cap) {
		size_t cap = k->args_cap ? k->args_cap * 2 : 8;
		rk_hb_arg *v = realloc(k->args, cap * sizeof *v);
		if (!v)
			return k->bad_arg = 1, MHD_NO;
		k->args = v;
		k->args_cap = cap;
	}
	if (rk_hb__unescape(&a.name, &nl, &k->a, key, strlen(key), 1) ||
	    rk_hb__unescape(&a.value, &a.value_len, &k->a, value ? value : "",
	                    value ? strlen(value) : 0, 1))
		return k->bad_arg = 1, MHD_NO;
	k->args[k->nargs++] = a;
	return MHD_YES;
}

/* libmicrohttpd's unescaping left out: route.c decodes the path segment
 * by segment (a row key may hold %2F) and arg() the arguments. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls;
	(void)c;
	return strlen(s);
}

static const char *header(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

static enum MHD_Result reply(struct MHD_Connection *c, rk_hb_resp *r)
{
	struct MHD_Response *m = MHD_create_response_from_buffer(
	        r->status == 204 ? 0 : r->len, r->status == 204 ? NULL : r->body, MHD_RESPMEM_MUST_COPY);
	if (!m)
		return MHD_NO;
	if (r->status != 204 && r->type)
		MHD_add_response_header(m, "Content-Type", r->type);
	if (r->location[0])
		MHD_add_response_header(m, "Location", r->location);
	if (r->timestamp[0])
		MHD_add_response_header(m, "X-Timestamp", r->timestamp);
	MHD_add_response_header(m, "Cache-Control", "no-store");
	MHD_add_response_header(m, "X-Content-Type-Options", "nosniff");
	enum MHD_Result ok = MHD_queue_response(c, (unsigned)r->status, m);
	MHD_destroy_response(m);
	return ok;
}

/* a Host header naming this server by a loopback name */
static int host_ok(const rk_hb *h, const char *host)
{
	if (!h->loopback)
		return 1;
	if (!host)
		return 0;
	static const char *const names[] = {"127.0.0.1", "localhost", "[::1]"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		size_t n = strlen(names[i]);
		if (!strncmp(host, names[i], n) &&
		    (!host[n] || (host[n] == ':' && !strcmp(host + n + 1, h->port))))
			return 1;
	}
	return 0;
}

static enum MHD_Result finish(rk_hb *h, struct MHD_Connection *c, const char *url,
                              const char *method, conn *k)
{
	rk_hb_resp r = {0};
	rk_hb_req q = {method, url, NULL, 0, header(c, "Content-Type"), header(c, "Accept"),
	               header(c, "X-Timestamp"), header(c, "Host"), k->body, k->len};
	if (!host_ok(h, q.host)) {
		rk_hb__fail(&r, 403, "Forbidden: the Host header does not name this loopback server");
	} else if (k->too_big) {
		rk_hb__fail(&r, 413, "Payload too large: a body over %zu bytes", h->lim.max_body);
	} else if (MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, arg, k) < 0 || k->bad_arg) {
		rk_hb__fail(&r, 400, "Bad request: the query string (a bad %%-escape, or over %u "
		                     "arguments)", MAX_ARGS);
	} else {
		q.args = k->args;
		q.nargs = k->nargs;
		rk_hb__handle(h, &q, &r);
	}
	if (!r.status)
		rk_hb__fail(&r, 500, "Internal error: no answer");
	enum MHD_Result ok = reply(c, &r);
	free(r.body);
	return ok;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_len, void **con_cls)
{
	rk_hb *h = cls;
	conn *k = *con_cls;
	(void)version;
	if (!k) {
		if (!(k = calloc(1, sizeof *k)))
			return MHD_NO;
		*con_cls = k;
		const char *cl = header(c, "Content-Length");
		if (cl && strtoull(cl, NULL, 10) > h->lim.max_body) {
			/* answered before the body is read: libmicrohttpd then closes the
			 * connection instead of reading it */
			k->too_big = 1;
			return finish(h, c, url, method, k);
		}
		return MHD_YES;
	}
	if (*upload_len) {
		size_t n = *upload_len;
		*upload_len = 0;
		if (k->too_big || k->len + n > h->lim.max_body) {
			k->too_big = 1; /* the rest is read and dropped, then 413 */
			return MHD_YES;
		}
		if (k->len + n + 1 > k->cap) {
			size_t cap = k->cap ? k->cap : 4096;
			while (cap < k->len + n + 1)
				cap *= 2;
			uint8_t *b = realloc(k->body, cap);
			if (!b)
				return MHD_NO;
			k->body = b;
			k->cap = cap;
		}
		memcpy(k->body + k->len, upload, n);
		k->len += n;
		return MHD_YES;
	}
	return finish(h, c, url, method, k);
}

int rk_hb_start(rk_hb **out, rk_sv_server *srv, const char *listen, const rk_hb_limits *lim,
                char *bound, size_t cap)
{
	struct sockaddr_in sa;
	static const rk_hb_limits dflt = RK_HB_LIMITS_INIT;
	*out = NULL;
	if (rk_http_parse_listen(&sa, listen))
		return rk__err(RK_EINVALID, "--hbase-rest: '%s' is not [HOST:]PORT with HOST an IPv4 "
		                            "address", listen);
	rk_hb *h = calloc(1, sizeof *h);
	if (!h || rk_hb__scanners_new(&h->sc)) {
		free(h);
		return rk__err(RK_ENOMEM, "out of memory starting the HBase REST server");
	}
	h->env = rk_sv__server_env(srv);
	h->lim = lim ? *lim : dflt;
	h->loopback = (ntohl(sa.sin_addr.s_addr) >> 24) == 127;
	h->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO, 0, NULL, NULL, answer,
	                        h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
	                        MHD_OPTION_THREAD_POOL_SIZE, POOL_THREADS,
	                        MHD_OPTION_CONNECTION_LIMIT, h->lim.max_connections,
	                        MHD_OPTION_CONNECTION_TIMEOUT, 60u, MHD_OPTION_NOTIFY_COMPLETED,
	                        completed, NULL, MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
	                        MHD_OPTION_END);
	if (!h->d) {
		int e = errno;
		rk_hb__scanners_free(h->sc);
		free(h);
		return rk__err(RK_EIO, "--hbase-rest %s: cannot listen (%s)", listen,
		               e ? strerror(e) : "in use?");
	}
	rk_http_bound(h->d, &sa, h->port, sizeof h->port, bound, cap);
	*out = h;
	return 0;
}

void rk_hb_stop(rk_hb *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	rk_hb__scanners_free(h->sc);
	free(h);
}
