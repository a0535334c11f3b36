/*
 * The live page's HTTP server (http.h) on Debian's libmicrohttpd: one
 * polling thread answers every request, so requests never run at once and
 * the file source's cache needs no lock. Routes: the page and its assets
 * (keyviz_assets.c, generated at build time from page/), /api/tables and
 * /api/heatmap (http_api.c). Only GET and HEAD; when it listens on
 * loopback, a request whose Host is not a loopback name is refused, so a
 * web page elsewhere cannot read the store through a browser (DNS
 * rebinding).
 */
#include "serve/http/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "key/error.h"
#include "serve/http/http_api.h"

struct rk_http {
	struct MHD_Daemon *d;
	rk_http_source src;
	char *dir;
	int loopback;
	char port[8];
	/* the file source: the record last read and what the file was then */
	rk_metrics *cached;
	struct timespec mtime;
	off_t size;
};

/* The record the page shows now: *m, borrowed until *own is freed
 * (rk_metrics_free; NULL when it is the file source's cached record).
 * *live: 1 when it is an open store's (its times reach now). */
static int record(rk_http *h, const rk_metrics **m, rk_metrics **own, int *live)
{
	*live = h->src.store != NULL;
	*own = NULL;
	if (h->src.store) {
		int rc = rk_store_metrics(own, h->src.store);
		*m = *own;
		return rc;
	}
	char path[4200];
	struct stat st;
	snprintf(path, sizeof path, "%s/metrics.tsv", h->dir);
	int same = stat(path, &st) == 0 && h->cached && st.st_size == h->size &&
	           st.st_mtim.tv_sec == h->mtime.tv_sec && st.st_mtim.tv_nsec == h->mtime.tv_nsec;
	if (!same) {
		rk_metrics *fresh;
		int rc = rk_metrics_read(&fresh, h->dir);
		if (rc)
			return rc;
		rk_metrics_free(h->cached);
		h->cached = fresh;
		h->mtime = st.st_mtim;
		h->size = st.st_size;
	}
	*m = h->cached;
	return 0;
}

static const char *arg_of(void *req, const char *name)
{
	return MHD_lookup_connection_value(req, MHD_GET_ARGUMENT_KIND, name);
}

/* /api/tables or /api/heatmap over the record the page shows now */
static int api(char **body, size_t *len, rk_http *h, int heatmap, struct MHD_Connection *c)
{
	const rk_metrics *m;
	rk_metrics *own;
	int live;
	if (record(h, &m, &own, &live))
		return rk_http__error(body, len, 503, rk_error_last());
	int status = heatmap ? rk_http__heatmap(body, len, m, live, arg_of, c)
	                     : rk_http__tables(body, len, m, live);
	rk_metrics_free(own);
	return status;
}

static enum MHD_Result reply(struct MHD_Connection *c, int status, const char *type, void *data,
                             size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, data, mode);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Content-Security-Policy",
	                        "default-src 'self'; img-src 'self' data:; style-src 'self'");
	enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	return ok;
}

/* a Host header naming this server by a loopback name */
static int host_ok(const rk_http *h, struct MHD_Connection *c)
{
	const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	if (!h->loopback)
		return 1;
	if (!host)
		return 0;
	static const char *const names[] = {"127.0.0.1", "localhost", "[::1]"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		size_t n = strlen(names[i]);
		if (!strncmp(host, names[i], n) && (!host[n] || (host[n] == ':' && !strcmp(host + n + 1, h->port))))
			return 1;
	}
	return 0;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_len, void **con_cls)
{
	rk_http *h = cls;
	char *body = NULL;
	size_t len = 0;
	int status;
	(void)version;
	(void)upload;
	(void)con_cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		status = rk_http__error(&body, &len, 405, "read-only: GET and HEAD only");
	} else if (*upload_len) {
		status = rk_http__error(&body, &len, 400, "a GET with a body");
	} else if (!host_ok(h, c)) {
		status = rk_http__error(&body, &len, 403, "the Host header does not name this loopback server");
	} else if (!strcmp(url, "/api/tables")) {
		status = api(&body, &len, h, 0, c);
	} else if (!strcmp(url, "/api/heatmap")) {
		status = api(&body, &len, h, 1, c);
	} else {
		const char *path = strcmp(url, "/") ? url : "/index.html";
		for (const rk_http_asset *a = rk_http__assets; a->path; a++)
			if (!strcmp(a->path, path))
				return reply(c, 200, a->type, (void *)a->data, a->len, MHD_RESPMEM_PERSISTENT);
		status = rk_http__error(&body, &len, 404, "no such page");
	}
	enum MHD_Result ok = reply(c, status, "application/json; charset=utf-8", body, len,
	                           MHD_RESPMEM_MUST_FREE);
	if (ok == MHD_NO)
		free(body);
	return ok;
}

void rk_http_bound(struct MHD_Daemon *d, struct sockaddr_in *sa, char *port, size_t pcap,
                   char *bound, size_t cap)
{
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);
	struct sockaddr_in got;
	socklen_t gl = sizeof got;
	if (info && getsockname(info->listen_fd, (struct sockaddr *)&got, &gl) == 0)
		sa->sin_port = got.sin_port;
	char ip[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof ip);
	snprintf(port, pcap, "%u", ntohs(sa->sin_port));
	snprintf(bound, cap, "%s:%s", ip, port);
}

int rk_http_parse_listen(struct sockaddr_in *sa, const char *listen)
{
	char host[64] = "127.0.0.1";
	const char *colon = strrchr(listen, ':'), *port = colon ? colon + 1 : listen;
	char *end;
	if (colon && (size_t)(colon - listen) >= sizeof host)
		return -1;
	if (colon && colon > listen) {
		memcpy(host, listen, (size_t)(colon - listen));
		host[colon - listen] = 0;
	}
	errno = 0;
	unsigned long p = strtoul(port, &end, 10);
	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)p);
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof host, "127.0.0.1");
	if (!*port || *end || errno || p > 65535 || inet_pton(AF_INET, host, &sa->sin_addr) != 1)
		return -1;
	return 0;
}

int rk_http_listen_ok(const char *listen)
{
	struct sockaddr_in sa;
	return rk_http_parse_listen(&sa, listen) == 0;
}

int rk_http_start(rk_http **out, const rk_http_source *src, const char *listen, char *bound,
                  size_t cap)
{
	struct sockaddr_in sa;
	*out = NULL;
	if (rk_http_parse_listen(&sa, listen))
		return rk__err(RK_EINVALID, "--http: '%s' is not [HOST:]PORT with HOST an IPv4 address",
		               listen);
	rk_http *h = calloc(1, sizeof *h);
	if (!h || (src->dir && !(h->dir = strdup(src->dir)))) {
		free(h);
		return rk__err(RK_ENOMEM, "out of memory starting the page's server");
	}
	h->src = *src;
	h->loopback = (ntohl(sa.sin_addr.s_addr) >> 24) == 127;
	h->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO, 0, NULL, NULL, answer,
	                        h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
	                        MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_END);
	if (!h->d) {
		int e = errno;
		free(h->dir);
		free(h);
		return rk__err(RK_EIO, "--http %s: cannot listen (%s)", listen, e ? strerror(e) : "in use?");
	}
	rk_http_bound(h->d, &sa, h->port, sizeof h->port, bound, cap);
	*out = h;
	return 0;
}

void rk_http_stop(rk_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	rk_metrics_free(h->cached);
	free(h->dir);
	free(h);
}
