/*
 * Test harness for the Cloud Bigtable emulator: start one on a free
 * 127.0.0.1 port, wait until it accepts connections, stop it by pid. The
 * child dies with the test (PR_SET_PDEATHSIG), so a crashed test leaves no
 * emulator behind. Header-only: each Bigtable test includes it once.
 */
#ifndef RK_TEST_EMULATOR_H
#define RK_TEST_EMULATOR_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EMULATOR "/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator"

typedef struct emulator {
	pid_t pid;
	int port;
	char host[64]; /* "127.0.0.1:PORT", for BIGTABLE_EMULATOR_HOST */
} emulator;

static int emulator_free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &al) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return ntohs(a.sin_port);
}

static int emulator_can_connect(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
	                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Starts an emulator on a free port; 0 once it accepts connections (10 s at most). */
static int emulator_start(emulator *e)
{
	e->port = emulator_free_port();
	if (e->port < 0)
		return -1;
	snprintf(e->host, sizeof e->host, "127.0.0.1:%d", e->port);
	pid_t parent = getpid();
	e->pid = fork();
	if (e->pid < 0)
		return -1;
	if (e->pid == 0) {
		char port[32];
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		snprintf(port, sizeof port, "--port=%d", e->port);
		if (!freopen("/dev/null", "w", stdout))
			_exit(1);
		execl(EMULATOR, EMULATOR, "--host=127.0.0.1", port, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {
		if (emulator_can_connect(e->port))
			return 0;
		int st;
		if (waitpid(e->pid, &st, WNOHANG) == e->pid) {
			e->pid = 0;
			return -1;
		}
		struct timespec ts = {0, 50 * 1000000};
		nanosleep(&ts, NULL);
	}
	return -1;
}

static void emulator_stop(emulator *e)
{
	if (e->pid > 0) {
		kill(e->pid, SIGKILL);
		waitpid(e->pid, NULL, 0);
		e->pid = 0;
	}
}

#endif
