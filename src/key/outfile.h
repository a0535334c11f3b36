/*
 * Output files that appear whole or not at all: written to a temporary file
 * beside the target, flushed to disk and renamed over it when complete. A
 * failed or interrupted command leaves the old file (or none), never half
 * of a new one. For every layer that writes a file a user named (reports,
 * pictures, generated code, split points). A target that is not a regular
 * file (a device such as /dev/stdout or /dev/full, a pipe) is written
 * straight through: there is nothing to replace, and renaming over it
 * would remove it. A symbolic link to a file keeps the link and replaces
 * the file.
 */
#ifndef RK_KEY_OUTFILE_H
#define RK_KEY_OUTFILE_H

#include <stdio.h>

typedef struct rk__outfile {
	FILE *f;
	char *path, *tmp;
} rk__outfile;

/* Opens a temporary file beside target for writing into o->f. Returns 0,
 * or -1 with errno set. */
int rk__outfile_open(rk__outfile *o, const char *target);

/* Closes o->f and renames the temporary file over the target when ok and
 * every write succeeded; otherwise removes it. Returns 0, or -1 with errno
 * set (nothing was replaced): the first failure's, or when ok is 0, errno as
 * the caller left it. */
int rk__outfile_close(rk__outfile *o, int ok);

#endif
