/*
 * Output files that appear whole or not at all: written to a temporary file
 * beside the target, renamed over it when complete. A failed or interrupted
 * command leaves the old file (or none), never half of a new one.
 */
#ifndef RK_CLI_OUTFILE_H
#define RK_CLI_OUTFILE_H

#include <stdio.h>

typedef struct rk_outfile {
	FILE *f;
	char *path, *tmp;
} rk_outfile;

/* Opens a temporary file beside path for writing into o->f. Returns 0, or
 * -1 with errno set. */
int rk_outfile_open(rk_outfile *o, const char *path);

/* Closes o->f and renames the temporary file over the target when ok and
 * every write succeeded; otherwise removes it. Returns 0, or -1 with errno
 * set (nothing was replaced). */
int rk_outfile_close(rk_outfile *o, int ok);

#endif
