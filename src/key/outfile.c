/*
 * Output files that appear whole or not at all (outfile.h).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "key/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Not a regular file (a terminal, /dev/full, a pipe): nothing to replace,
 * and renaming over a device would remove it; written straight through. */
static int open_direct(rk__outfile *o, const char *path)
{
	if (!(o->path = strdup(path)) || !(o->f = fopen(path, "w"))) {
		int e = o->path ? errno : ENOMEM;
		free(o->path);
		o->path = NULL;
		errno = e;
		return -1;
	}
	return 0;
}

int rk__outfile_open(rk__outfile *o, const char *target)
{
	memset(o, 0, sizeof *o);
	struct stat st;
	if (stat(target, &st) == 0 && !S_ISREG(st.st_mode))
		return open_direct(o, target);
	/* a link to a file: the file is replaced, the link kept */
	char *real = realpath(target, NULL);
	const char *path = real ? real : target;
	size_t n = strlen(path);
	o->path = strdup(path);
	o->tmp = malloc(n + 16);
	free(real);
	if (!o->path || !o->tmp) {
		free(o->path);
		free(o->tmp);
		errno = ENOMEM;
		return -1;
	}
	memcpy(o->tmp, o->path, n);
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

int rk__outfile_close(rk__outfile *o, int ok)
{
	int rc = 0, e = ok ? 0 : errno; /* the caller's failure, when it says so */
	if (ok && (fflush(o->f) != 0 || ferror(o->f) || (o->tmp && fsync(fileno(o->f)) != 0))) {
		e = errno ? errno : EIO;
		ok = 0;
	}
	if (fclose(o->f) != 0 && ok) {
		e = errno;
		ok = 0;
	}
	if (ok && o->tmp && rename(o->tmp, o->path) != 0) {
		e = errno;
		ok = 0;
	}
	if (!ok) {
		if (o->tmp)
			unlink(o->tmp);
		rc = -1;
	}
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof *o);
	errno = e;
	return rc;
}
