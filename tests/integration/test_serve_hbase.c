/*
 * rowkey serve --hbase-rest's limits, in process with small ones: a server
 * (gRPC, whose tables it shares) on a temporary store and the REST server
 * beside it, reached over a plain socket. Scanners past the count limit are
 * 503 and come back once idle ones expire (a GET of an expired scanner is
 * 404); a body over the limit is 413 whether Content-Length says so or a
 * chunked upload passes it, and the server answers the next request; a
 * foreign Host is 403 on loopback.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "rowkey/store.h"
#include "serve/hbase/hbase.h"
#include "serve/serve.h"

static char dir[] = "/tmp/rk_hbase_XXXXXX";
static rk_store *store;
static rk_sv_server *srv;
static rk_hb *rest;
static int port;
static char location[256];

/* One request on a new connection: the status, the Location header in
 * location[]. chunked: the body goes as chunks (no Content-Length). */
static int http(const char *method, const char *path, const char *host, const char *body,
                size_t len, int chunked)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	char head[512];
	int n = snprintf(head, sizeof head,
	                 "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n"
	                 "Content-Type: application/json\r\n",
	                 method, path, host ? host : "127.0.0.1");
	if (chunked)
		n += snprintf(head + n, sizeof head - (size_t)n, "Transfer-Encoding: chunked\r\n\r\n");
	else
		n += snprintf(head + n, sizeof head - (size_t)n, "Content-Length: %zu\r\n\r\n", len);
	assert_int_equal(write(fd, head, (size_t)n), n);
	for (size_t off = 0; off < len;) { /* the server may stop reading: ignore failures */
		size_t k = len - off < 1000 ? len - off : 1000;
		char ch[16];
		if (chunked && write(fd, ch, (size_t)snprintf(ch, sizeof ch, "%zx\r\n", k)) < 0)
			break;
		if (write(fd, body + off, k) < 0 || (chunked && write(fd, "\r\n", 2) < 0))
			break;
		off += k;
	}
	if (chunked && write(fd, "0\r\n\r\n", 5) < 0) {
		/* answered early */
	}
	char resp[8192];
	size_t got = 0;
	ssize_t r;
	while (got < sizeof resp - 1 && (r = read(fd, resp + got, sizeof resp - 1 - got)) > 0)
		got += (size_t)r;
	resp[got] = 0;
	close(fd);
	if (getenv("RK_TEST_VERBOSE"))
		fprintf(stderr, "%s %s -> %s\n", method, path, resp);
	int status = 0;
	sscanf(resp, "HTTP/1.1 %d", &status);
	const char *loc = strstr(resp, "Location: ");
	location[0] = 0;
	if (loc)
		sscanf(loc + 10, "http://%*[^/]%255[^\r]", location);
	return status;
}

static int json(const char *method, const char *path, const char *body)
{
	return http(method, path, NULL, body, strlen(body), 0);
}

static int setup(void **state)
{
	(void)state;
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	char bound[64];
	rk_hb_limits lim = {4096, 2, 1, 1u << 20, 16};
	assert_non_null(mkdtemp(dir));
	o.n_servers = 2;
	assert_int_equal(rk_store_open(&store, dir, &o), 0);
	assert_int_equal(rk_sv_server_start(&srv, store, "127.0.0.1:0", "*", "*", NULL, bound,
	                                    sizeof bound), 0);
	assert_int_equal(rk_hb_start(&rest, srv, "127.0.0.1:0", &lim, bound, sizeof bound), 0);
	port = atoi(strrchr(bound, ':') + 1);
	assert_int_equal(json("PUT", "/t/schema", "{\"ColumnSchema\":[{\"name\":\"cf\"}]}"), 201);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rk_hb_stop(rest);
	rk_sv_server_stop(srv, 1000);
	assert_int_equal(rk_store_close(store), 0);
	char cmd[64];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd);
}

static void test_scanner_limit_and_expiry(void **state)
{
	char first[256];
	(void)state;
	assert_int_equal(json("POST", "/t/scanner", "{}"), 201);
	snprintf(first, sizeof first, "%s", location);
	assert_int_equal(json("POST", "/t/scanner", "{}"), 201);
	assert_int_equal(json("POST", "/t/scanner", "{}"), 503); /* two at most */
	assert_int_equal(http("GET", first, NULL, "", 0, 0), 204); /* an empty table: done */
	sleep(3); /* past the idle limit of 1 s */
	assert_int_equal(http("GET", first, NULL, "", 0, 0), 404);
	assert_int_equal(json("POST", "/t/scanner", "{}"), 201);
	snprintf(first, sizeof first, "%s", location);
	assert_int_equal(http("DELETE", first, NULL, "", 0, 0), 200);
	assert_int_equal(http("DELETE", first, NULL, "", 0, 0), 404);
}

static void test_body_limit(void **state)
{
	(void)state;
	size_t n = 20000;
	char *big = malloc(n);
	memset(big, ' ', n);
	assert_int_equal(http("PUT", "/t/r/cf:a", NULL, big, n, 0), 413);
	assert_int_equal(http("PUT", "/t/r/cf:a", NULL, big, n, 1), 413);
	/* just under the limit: read whole, then refused as JSON, not as size */
	assert_int_equal(http("PUT", "/t/r/cf:a", NULL, big, 4000, 1), 400);
	free(big);
	assert_int_equal(json("PUT", "/t/r/cf:a",
	                      "{\"Row\":[{\"key\":\"cg==\",\"Cell\":[{\"column\":\"Y2Y6YQ==\","
	                      "\"$\":\"dg==\"}]}]}"),
	                 200);
	assert_int_equal(http("GET", "/t/r", NULL, "", 0, 0), 200);
}

static void test_foreign_host(void **state)
{
	(void)state;
	assert_int_equal(http("GET", "/", "evil.example", "", 0, 0), 403);
	assert_int_equal(http("GET", "/", "localhost", "", 0, 0), 200);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN); /* the server may close before a body is sent */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scanner_limit_and_expiry),
		cmocka_unit_test(test_body_limit),
		cmocka_unit_test(test_foreign_host),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
