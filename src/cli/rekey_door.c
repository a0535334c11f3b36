/*
 * `rowkey rekey` on a store `rowkey serve` holds. Only one process can open
 * the store, and only the server sees the table's writes, so the server
 * runs the rekey: it listens on a local admin door (127.0.0.1, a port the
 * kernel picks, named by the `admin` line of DIR/SERVING), and the command
 * sends its arguments there and prints what comes back. Both ends of the
 * exchange (docs/formats.md B.4) are in this file:
 *
 *   request   "rowkey-admin 1 rekey\n" "ARGC\n", then each argument as
 *             "LEN\n" followed by its LEN bytes
 *   answer    frames "o LEN\n" + bytes (standard output), "e LEN\n" +
 *             bytes (standard error), then "x STATUS\n" (the exit status)
 *
 * The server runs one rekey step at a time (a second client waits); a step
 * goes on when its client goes away, and the same command run again
 * resumes or reports it. The door is as open as the gRPC port beside it:
 * anyone on this machine may call it.
 */
#define _GNU_SOURCE /* fopencookie */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/rekey.h"
#include "key/error.h"

#define HELLO "rowkey-admin 1 rekey\n"
#define MAX_ARGS 64
#define MAX_ARG (1u << 20)

static int send_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* A line of at most cap-1 bytes, without its newline. */
static int recv_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	for (;;) {
		char ch;
		ssize_t k = recv(fd, &ch, 1, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0 || n + 1 >= cap)
			return -1;
		if (ch == '\n')
			break;
		buf[n++] = ch;
	}
	buf[n] = 0;
	return 0;
}

static int recv_all(int fd, void *p, size_t n)
{
	char *c = p;
	while (n) {
		ssize_t k = recv(fd, c, n, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* "127.0.0.1:PORT" into sa. */
static int parse_addr(struct sockaddr_in *sa, const char *addr)
{
	char host[64];
	const char *colon = strrchr(addr, ':');
	if (!colon || (size_t)(colon - addr) >= sizeof host)
		return -1;
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = 0;
	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)atoi(colon + 1));
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

/* ---- the server's end ---- */

struct rk_cli_door {
	rk_store *store;
	rk_rekey_live live;
	int fd;
	pthread_t acceptor;
	pthread_mutex_t job; /* one rekey step at a time, and the stop waits for it */
};

typedef struct frame_out {
	int fd;
	char tag;
} frame_out;

static ssize_t frame_write(void *cookie, const char *buf, size_t n)
{
	frame_out *f = cookie;
	char head[32];
	int hl = snprintf(head, sizeof head, "%c %zu\n", f->tag, n);
	/* a client gone: the step goes on, its words are dropped */
	if (send_all(f->fd, head, (size_t)hl) == 0)
		send_all(f->fd, buf, n);
	return (ssize_t)n;
}

/* The request's arguments (malloc'd, argv[argc] NULL), or -1. */
static int read_request(int fd, int *argc, char ***argv)
{
	char line[64];
	if (recv_line(fd, line, sizeof line) || strcmp(line, "rowkey-admin 1 rekey") ||
	    recv_line(fd, line, sizeof line))
		return -1;
	int n = atoi(line);
	if (n < 1 || n > MAX_ARGS || !(*argv = calloc((size_t)n + 1, sizeof **argv)))
		return -1;
	*argc = n;
	for (int i = 0; i < n; i++) {
		unsigned long len;
		if (recv_line(fd, line, sizeof line) || (len = strtoul(line, NULL, 10)) > MAX_ARG ||
		    !((*argv)[i] = malloc(len + 1)) || recv_all(fd, (*argv)[i], len))
			return -1;
		(*argv)[i][len] = 0;
	}
	return 0;
}

static void serve_one(rk_cli_door *d, int fd)
{
	int argc = 0;
	char **argv = NULL;
	if (read_request(fd, &argc, &argv) == 0) {
		frame_out o = {fd, 'o'}, e = {fd, 'e'};
		cookie_io_functions_t io = {NULL, frame_write, NULL, NULL};
		FILE *out = fopencookie(&o, "w", io), *err = fopencookie(&e, "w", io);
		int rc = RK_EXIT_FAIL;
		if (out && err) {
			setvbuf(err, NULL, _IOLBF, 0);
			pthread_mutex_lock(&d->job);
			rc = rk_cli__rekey_served(d->store, &d->live, argc, argv, out, err);
			pthread_mutex_unlock(&d->job);
		}
		if (out)
			fclose(out);
		if (err)
			fclose(err);
		char x[32];
		int xl = snprintf(x, sizeof x, "x %d\n", rc);
		send_all(fd, x, (size_t)xl);
	}
	for (int i = 0; argv && i < argc; i++)
		free(argv[i]);
	free(argv);
	close(fd);
}

typedef struct conn {
	rk_cli_door *d;
	int fd;
} conn;

static void *conn_main(void *p)
{
	conn c = *(conn *)p;
	free(p);
	serve_one(c.d, c.fd);
	return NULL;
}

static void *acceptor_main(void *p)
{
	rk_cli_door *d = p;
	for (;;) {
		int fd = accept(d->fd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL; /* the door is shut */
		}
		conn *c = malloc(sizeof *c);
		pthread_t t;
		if (c)
			*c = (conn){d, fd};
		if (!c || pthread_create(&t, NULL, conn_main, c) != 0) {
			free(c);
			close(fd);
			continue;
		}
		pthread_detach(t);
	}
}

int rk_cli__door_start(rk_cli_door **out, rk_store *s, const rk_rekey_live *live, char *bound,
                       size_t cap)
{
	rk_cli_door *d = calloc(1, sizeof *d);
	if (!d)
		return rk__err(RK_ENOMEM, "out of memory");
	d->store = s;
	d->live = *live;
	pthread_mutex_init(&d->job, NULL);
	struct sockaddr_in sa;
	socklen_t sl = sizeof sa;
	parse_addr(&sa, "127.0.0.1:0");
	d->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (d->fd < 0 || bind(d->fd, (struct sockaddr *)&sa, sizeof sa) || listen(d->fd, 8) ||
	    getsockname(d->fd, (struct sockaddr *)&sa, &sl) ||
	    pthread_create(&d->acceptor, NULL, acceptor_main, d)) {
		int e = errno;
		if (d->fd >= 0)
			close(d->fd);
		free(d);
		return rk__err(RK_EIO, "the admin door on 127.0.0.1: %s", strerror(e));
	}
	snprintf(bound, cap, "127.0.0.1:%u", ntohs(sa.sin_port));
	*out = d;
	return 0;
}

void rk_cli__door_stop(rk_cli_door *d)
{
	if (!d)
		return;
	shutdown(d->fd, SHUT_RDWR);
	close(d->fd);
	pthread_join(d->acceptor, NULL);
	pthread_mutex_lock(&d->job); /* a step running finishes before the store closes */
	pthread_mutex_unlock(&d->job);
	pthread_mutex_destroy(&d->job);
	free(d);
}

/* ---- the command's end ---- */

int rk_cli__rekey_ask(const char *addr, const char *db, int argc, char **argv)
{
	struct sockaddr_in sa;
	int fd = -1;
	if (parse_addr(&sa, addr) || (fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
		fprintf(stderr, "rowkey rekey: store %s is served, and its server's admin door (%s) "
		                "does not answer: %s\n", db, addr, strerror(errno));
		if (fd >= 0)
			close(fd);
		return RK_EXIT_FAIL;
	}
	char line[64];
	int bad = send_all(fd, HELLO, strlen(HELLO));
	snprintf(line, sizeof line, "%d\n", argc);
	bad |= send_all(fd, line, strlen(line));
	for (int i = 0; i < argc && !bad; i++) {
		snprintf(line, sizeof line, "%zu\n", strlen(argv[i]));
		bad |= send_all(fd, line, strlen(line)) || send_all(fd, argv[i], strlen(argv[i]));
	}
	fprintf(stderr, "rowkey rekey: store %s is served: the server runs this step\n", db);
	char buf[4096];
	while (!bad && recv_line(fd, line, sizeof line) == 0) {
		unsigned long n = strtoul(line + 2, NULL, 10);
		if (line[0] == 'x') {
			close(fd);
			return (int)n;
		}
		FILE *to = line[0] == 'o' ? stdout : stderr;
		while (n && !bad) {
			size_t k = n < sizeof buf ? n : sizeof buf;
			bad = recv_all(fd, buf, k) != 0;
			fwrite(buf, 1, k, to);
			n -= k;
		}
		fflush(to);
	}
	close(fd);
	fprintf(stderr, "rowkey rekey: the server of %s went away before the step ended (it "
	                "goes on if the server runs; run the command again to see)\n", db);
	return RK_EXIT_FAIL;
}
