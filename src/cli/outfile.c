/*
 * Output files that appear whole or not at all (outfile.h).
 */
#include "cli/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rk_outfile_open(rk_outfile *o, const char *path)
{
	memset(o, 0, sizeof *o);
	size_t n = strlen(path);
	o->path = strdup(path);
	o->tmp = malloc(n + 16);
	if (!o->path || !o->tmp) {
		free(o->path);
		free(o->tmp);
		errno = ENOMEM;
		return -1;
	}
	memcpy(o->tmp, path, n);
	memcpy(o->tmp + n, ".tmp.XXXXXX", 12);
	int fd = mkstemp(o->tmp);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->path);
		free(o->tmp);
		errno = e;
		return -1;
	}
	mode_t mask = umask(0); /* mkstemp makes 0600; give what open(2) would */
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	return 0;
}

int rk_outfile_close(rk_outfile *o, int ok)
{
	int rc = 0, e = 0;
	if (fflush(o->f) != 0 || ferror(o->f)) {
		e = errno;
		ok = 0;
	}
	if (fclose(o->f) != 0 && ok) {
		e = errno;
		ok = 0;
	}
	if (ok && rename(o->tmp, o->path) != 0) {
		e = errno;
		ok = 0;
	}
	if (!ok) {
		unlink(o->tmp);
		rc = -1;
	}
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof *o);
	errno = e;
	return rc;
}
