/*
 * A power cut, simulated: an LD_PRELOAD library that journals every write,
 * sync, create, rename and unlink made on files under one directory, so that
 * after the process is killed the test can undo what a machine losing power
 * would have lost (tests/faults/powercut.h applies the journal): the bytes
 * written since a file's last fsync/fdatasync are dropped, or, in the second
 * mode, a random subset of those writes survives with holes of zeros where
 * earlier ones did not reach the disk (writes reordered by the disk).
 *
 *   RK_POWERCUT_DIR      the directory (resolvable with realpath); nothing
 *                        outside it is journaled
 *   RK_POWERCUT_JOURNAL  the journal file (appended to, one line an event):
 *                          O <path>             created or truncated
 *                          W <off> <len> <path> written
 *                          S <size> <path>      synced, at that size
 *                          R <from>\t<to>       renamed
 *                          U <path>             unlinked
 *
 * Like the kernel's page cache, the library lets every call through: the
 * files hold everything written until the journal is applied. A line is
 * journaled after the call succeeds (a rename's before it), with one
 * write() (O_APPEND), so a kill leaves whole lines. Only calls through the PLT are seen: stdio's own
 * writes are not (no store file that must survive a cut is written with
 * stdio without an fsync, which is journaled). Directory entries are taken
 * as durable once made (renames included).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char dir[PATH_MAX];
static size_t dir_len;
static int journal = -1;
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_rename)(const char *, const char *);
static int (*real_unlink)(const char *);

static void init(void)
{
	real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	real_pwrite = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	real_writev = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
	real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	real_open64 = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
	real_rename = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	real_unlink = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
	const char *d = getenv("RK_POWERCUT_DIR"), *j = getenv("RK_POWERCUT_JOURNAL");
	if (!d || !*d || !j || !*j || !realpath(d, dir))
		return;
	journal = real_open(j, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (journal >= 0)
		dir_len = strlen(dir);
}

static int under(const char *path)
{
	return dir_len && !strncmp(path, dir, dir_len) && path[dir_len] == '/';
}

/* The path of fd when it is a file under the directory; 0 otherwise. */
static int fd_path(int fd, char *path)
{
	char link[64];
	pthread_once(&once, init);
	if (!dir_len)
		return 0;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, PATH_MAX - 1);
	if (n <= 0)
		return 0;
	path[n] = 0;
	return under(path);
}

/* The absolute path of `p` (its directory resolved; the file itself may
 * not exist); 0 when it is not under the directory. */
static int abs_path(const char *p, char *out)
{
	char d[PATH_MAX], r[PATH_MAX];
	pthread_once(&once, init);
	if (!dir_len || strlen(p) >= PATH_MAX)
		return 0;
	strcpy(d, p);
	char *slash = strrchr(d, '/');
	const char *base = slash ? slash + 1 : d;
	if (slash == d)
		strcpy(r, "/");
	else if (!realpath(slash ? (*slash = 0, d) : ".", r))
		return 0;
	if (snprintf(out, PATH_MAX, "%s/%s", strcmp(r, "/") ? r : "", base) >= PATH_MAX)
		return 0;
	return under(out);
}

static void note(const char *fmt, ...)
{
	char line[3 * PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof line)
		(void)!real_write(journal, line, (size_t)n);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	char path[PATH_MAX];
	pthread_once(&once, init);
	if (!fd_path(fd, path))
		return real_write(fd, buf, n);
	off_t off = lseek(fd, 0, SEEK_CUR);
	ssize_t w = real_write(fd, buf, n);
	if (w > 0) {
		if (fcntl(fd, F_GETFL) & O_APPEND)
			off = lseek(fd, 0, SEEK_CUR) - w;
		note("W %lld %zd %s\n", (long long)off, w, path);
	}
	return w;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	char path[PATH_MAX];
	pthread_once(&once, init);
	ssize_t w = real_pwrite(fd, buf, n, off);
	if (w > 0 && fd_path(fd, path))
		note("W %lld %zd %s\n", (long long)off, w, path);
	return w;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	char path[PATH_MAX];
	pthread_once(&once, init);
	if (!fd_path(fd, path))
		return real_writev(fd, iov, cnt);
	off_t off = lseek(fd, 0, SEEK_CUR);
	ssize_t w = real_writev(fd, iov, cnt);
	if (w > 0) {
		if (fcntl(fd, F_GETFL) & O_APPEND)
			off = lseek(fd, 0, SEEK_CUR) - w;
		note("W %lld %zd %s\n", (long long)off, w, path);
	}
	return w;
}

static int synced(int fd, int rc)
{
	char path[PATH_MAX];
	struct stat st;
	if (rc == 0 && fd_path(fd, path) && !fstat(fd, &st) && S_ISREG(st.st_mode))
		note("S %lld %s\n", (long long)st.st_size, path);
	return rc;
}

int fsync(int fd)
{
	pthread_once(&once, init);
	return synced(fd, real_fsync(fd));
}

int fdatasync(int fd)
{
	pthread_once(&once, init);
	return synced(fd, real_fdatasync(fd));
}

static int opened(int fd, int flags)
{
	char path[PATH_MAX];
	if (fd >= 0 && (flags & (O_CREAT | O_TRUNC)) && (flags & O_ACCMODE) != O_RDONLY &&
	    fd_path(fd, path)) {
		struct stat st;
		/* created (or truncated): nothing of it is durable yet */
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size == 0)
			note("O %s\n", path);
	}
	return fd;
}

int open(const char *p, int flags, ...)
{
	mode_t mode = 0;
	pthread_once(&once, init);
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return opened(real_open(p, flags, mode), flags);
}

int open64(const char *p, int flags, ...)
{
	mode_t mode = 0;
	pthread_once(&once, init);
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return opened((real_open64 ? real_open64 : real_open)(p, flags, mode), flags);
}

int rename(const char *from, const char *to)
{
	char a[PATH_MAX] = "", b[PATH_MAX] = "";
	pthread_once(&once, init);
	int wa = abs_path(from, a), wb = abs_path(to, b);
	/* journaled before the call: a kill between the rename and a line
	 * written after it would leave a renamed file the journal does not
	 * know (and cut it to the old file's synced size); journaled first, a
	 * kill before the rename only credits the old file with the new one's
	 * synced size, which drops nothing (a rename that fails is not undone
	 * in the journal: none fails in the tests) */
	if (wa || wb)
		note("R %s\t%s\n", a, b);
	return real_rename(from, to);
}

int unlink(const char *p)
{
	char a[PATH_MAX];
	pthread_once(&once, init);
	int w = abs_path(p, a);
	int rc = real_unlink(p);
	if (rc == 0 && w)
		note("U %s\n", a);
	return rc;
}
