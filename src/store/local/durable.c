/*
 * Files replaced whole and durably: see durable.h.
 */
#include "store/local/durable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "key/error.h"

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY);
	if (fd < 0)
		return rk__err(RK_EIO, "%s: %s", dir, strerror(errno));
	int rc = fsync(fd);
	int e = errno;
	close(fd);
	return rc ? rk__err(RK_EIO, "fsync %s: %s", dir, strerror(e)) : 0;
}

int rk_local__replace_file(const char *dir, const char *name, const uint8_t *buf, size_t len,
                           int sync_dir)
{
	char tmp[4400], path[4400];
	snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, name);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return rk__err(RK_EIO, "%s: %s", tmp, strerror(errno));
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			unlink(tmp);
			return rk__err(RK_EIO, "writing %s: %s", tmp, strerror(e));
		}
		off += (size_t)w;
	}
	if (fsync(fd)) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return rk__err(RK_EIO, "fsync %s: %s", tmp, strerror(e));
	}
	close(fd);
	if (rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		return rk__err(RK_EIO, "rename %s to %s: %s", tmp, path, strerror(e));
	}
	return sync_dir ? fsync_dir(dir) : 0;
}
