/*
 * A full disk, simulated without root: an LD_PRELOAD library whose write(),
 * pwrite() and writev() (the calls LevelDB's PosixWritableFile and rowkey's
 * META writer make; LevelDB syncs with fdatasync, which passes) fail with
 * ENOSPC for files under one directory once a byte budget is spent there.
 * A write that crosses the budget is cut short, as the kernel does when the
 * last blocks fill; the next one fails.
 *
 *   RK_ENOSPC_DIR    the directory (an absolute path, or resolvable with
 *                    realpath); files outside it are never affected
 *   RK_ENOSPC_BYTES  bytes that may still be written under it (default 0)
 *   RK_ENOSPC_FAILS  optional: after this many failed calls the disk has room
 *                    again (a transient full disk, as when another process
 *                    frees space); unset or 0: full for good
 *   RK_ENOSPC_STDIO  optional, 1: streams opened for writing with fopen under
 *                    the directory write through the budget too (glibc's
 *                    streams write through an internal alias, so they are
 *                    wrapped with fopencookie); unset: streams pass
 *   RK_ENOSPC_NAME   optional: only files whose path holds this text are
 *                    affected (metrics.tsv: the store's data files still
 *                    take writes while its metrics fail)
 *
 * Without RK_ENOSPC_DIR the library passes every call through. By default it
 * does not touch stdio, so LevelDB's info LOG and rowkey's metrics.tsv keep
 * working: they are not part of what a full disk may corrupt.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char dir[PATH_MAX];
static size_t dir_len;
static const char *name_part; /* RK_ENOSPC_NAME, or NULL */
static int wrap_stdio;        /* RK_ENOSPC_STDIO=1 */
static FILE *(*real_fopen)(const char *, const char *);
static _Atomic long long budget;
static _Atomic long fails_left; /* < 0: no limit */
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);

static void init(void)
{
	real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	real_pwrite = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	real_writev = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
	real_fopen = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
	const char *d = getenv("RK_ENOSPC_DIR"), *b = getenv("RK_ENOSPC_BYTES"),
	           *f = getenv("RK_ENOSPC_FAILS"), *nm = getenv("RK_ENOSPC_NAME"),
	           *st = getenv("RK_ENOSPC_STDIO");
	name_part = nm && *nm ? nm : NULL;
	wrap_stdio = st && !strcmp(st, "1");
	if (!d || !*d || !realpath(d, dir))
		return;
	dir_len = strlen(dir);
	atomic_store(&budget, b ? atoll(b) : 0);
	long n = f ? atol(f) : 0;
	atomic_store(&fails_left, n > 0 ? n : -1);
}

/* Whether fd is a file under the directory (never a pipe, tty or socket). */
static int watched(int fd)
{
	char link[64], path[PATH_MAX];
	if (!dir_len)
		return 0;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0 || (size_t)n <= dir_len)
		return 0;
	path[n] = 0;
	return !strncmp(path, dir, dir_len) && path[dir_len] == '/' &&
	       (!name_part || strstr(path + dir_len, name_part));
}

/* How many of `want` bytes may be written now: want, fewer, or -1 with
 * errno ENOSPC. */
static ssize_t allow(int fd, size_t want)
{
	pthread_once(&once, init);
	if (want == 0 || !watched(fd))
		return (ssize_t)want;
	long long left = atomic_load(&budget), take;
	do {
		if (left <= 0) {
			long f = atomic_load(&fails_left);
			if (f == 0)
				return (ssize_t)want; /* room again */
			if (f > 0)
				atomic_fetch_sub(&fails_left, 1);
			errno = ENOSPC;
			return -1;
		}
		take = left < (long long)want ? left : (long long)want;
	} while (!atomic_compare_exchange_weak(&budget, &left, left - take));
	return (ssize_t)take;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	ssize_t k = allow(fd, n);
	return k < 0 ? -1 : real_write(fd, buf, (size_t)k);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	ssize_t k = allow(fd, n);
	return k < 0 ? -1 : real_pwrite(fd, buf, (size_t)k, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	size_t total = 0;
	for (int i = 0; i < cnt; i++)
		total += iov[i].iov_len;
	ssize_t k = allow(fd, total);
	if (k < 0)
		return -1;
	if ((size_t)k == total)
		return real_writev(fd, iov, cnt);
	/* cut short: write the allowed prefix of the vector */
	size_t done = 0;
	for (int i = 0; i < cnt && done < (size_t)k; i++) {
		size_t part = iov[i].iov_len < (size_t)k - done ? iov[i].iov_len : (size_t)k - done;
		ssize_t w = real_write(fd, iov[i].iov_base, part);
		if (w < 0)
			return done ? (ssize_t)done : -1;
		done += (size_t)w;
		if ((size_t)w < part)
			break;
	}
	return (ssize_t)done;
}

/* ---- streams (RK_ENOSPC_STDIO=1) ---- */

static ssize_t cookie_write(void *c, const char *buf, size_t n)
{
	return write(fileno((FILE *)c), buf, n); /* the write above: through the budget */
}

static int cookie_close(void *c)
{
	return fclose((FILE *)c);
}

/* A stream opened for writing on a watched file becomes a cookie stream whose
 * bytes go through write() above; the real stream only holds the descriptor. */
FILE *fopen(const char *path, const char *mode)
{
	pthread_once(&once, init);
	FILE *f = real_fopen(path, mode);
	if (!f || !wrap_stdio || !strpbrk(mode, "wa+") || !watched(fileno(f)))
		return f;
	cookie_io_functions_t io = {NULL, cookie_write, NULL, cookie_close};
	FILE *c = fopencookie(f, mode, io);
	if (!c)
		fclose(f);
	return c;
}

FILE *fopen64(const char *path, const char *mode)
{
	return fopen(path, mode);
}
