/*
 * Helpers shared by the store tests: temporary store directories, opening
 * with test options, and a few assertion shortcuts. Header-only (static) so
 * each test stays one executable.
 */
#ifndef RK_STORE_TEST_UTIL_H
#define RK_STORE_TEST_UTIL_H

#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rowkey/store.h>

/* Removes a directory tree (test scratch only). */
static inline void st_rmtree(const char *dir)
{
	struct stat st;
	if (lstat(dir, &st))
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d && (e = readdir(d)) != NULL) {
			char p[4096];
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p)
				continue;
			st_rmtree(p);
		}
		if (d)
			closedir(d);
		rmdir(dir);
	} else {
		unlink(dir);
	}
}

/* Makes a fresh temporary directory path (the directory does not exist). */
static inline char *st_tmpdir(const char *tag)
{
	char tmpl[256];
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(tmpl, sizeof tmpl, "%s/rk-%s-XXXXXX", base, tag);
	char *d = mkdtemp(tmpl);
	if (!d)
		abort();
	char *out = strdup(d);
	st_rmtree(out);
	return out;
}

static inline void st_fail(const char *what, int rc)
{
	fprintf(stderr, "%s failed: %d %s\n", what, rc, rk_error_last());
	abort();
}

static inline void st_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

#define ST_OK(call)                                                                                \
	do {                                                                                       \
		int st_rc_ = (call);                                                               \
		if (st_rc_ != 0)                                                                   \
			st_fail(#call, st_rc_);                                                    \
	} while (0)

#endif
