/*
 * The engine's files as rowkey reads them itself, beside LevelDB: a whole
 * file read, and the write-ahead logs checked before LevelDB replays them
 * (a torn tail cut back, a damaged record in the middle refused or, with
 * rk__engine_options.repair, dropped and reported). engine_leveldb.c's
 * helpers; nothing else calls them.
 */
#include "store/local/engine_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "key/error.h"
#include "store/local/durable.h"
#include "store/local/ldb_log.h"

/* Reads a whole file (what is there, should it shrink meanwhile); 0, or -1
 * with errno. */
int rk_engine__slurp(uint8_t **out, size_t *len, const char *path)
{
	int fd = open(path, O_RDONLY), e = 0;
	struct stat st;
	uint8_t *b = NULL;
	size_t got = 0;
	*out = NULL;
	*len = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		e = errno;
		goto fail;
	}
	size_t n = (size_t)st.st_size;
	if (!(b = malloc(n ? n : 1))) {
		e = ENOMEM;
		goto fail;
	}
	while (got < n) {
		ssize_t r = pread(fd, b + got, n - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			goto fail;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	*out = b;
	*len = got;
	return 0;
fail:
	free(b);
	close(fd);
	errno = e;
	return -1;
}

/* ---- write-ahead logs ---- */

static int is_log_name(const char *n)
{
	size_t i = 0;
	while (n[i] >= '0' && n[i] <= '9')
		i++;
	return i > 0 && !strcmp(n + i, ".log");
}

/* Cuts log `file` back to `len` bytes, durably. */
static int cut_log(const char *dir, const char *file, uint64_t len)
{
	int fd = open(file, O_WRONLY);
	int rc = 0;
	if (fd < 0 || ftruncate(fd, (off_t)len) || fsync(fd))
		rc = rk__err(RK_EIO, "engine %s: cannot cut the torn tail of %s: %s", dir, file,
		             strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Replaces log `file` (in `dir`) by `img` (its intact records), durably. */
static int rewrite_log(const char *dir, const char *file, const uint8_t *img, size_t len)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	int rc = rk_local__replace_file(dir, base, img, len, 1);
	return rc ? rk__err_wrap(rc, "engine %s: cannot rewrite %s", dir, file) : 0;
}

/* Scans one log file; see rk__engine_options.repair. */
static int check_log(const char *dir, const char *file, const rk__engine_options *o)
{
	uint8_t *buf, *img = NULL;
	size_t len, img_len = 0;
	rk__ldb_log_scan sc;
	char msg[4800];
	int rc = 0;
	if (rk_engine__slurp(&buf, &len, file))
		return rk__err(RK_EIO, "engine %s: cannot read %s: %s", dir, file, strerror(errno));
	rk_ldb__scan_log(&sc, buf, len);
	if (sc.middle_damage) {
		snprintf(msg, sizeof msg,
		         "write-ahead log %s: damaged at offset %llu (%s); %llu damaged bytes in "
		         "all, %llu intact records after the first damage",
		         file, (unsigned long long)sc.first_bad, sc.why,
		         (unsigned long long)sc.dropped_bytes, (unsigned long long)sc.records_after);
	} else if (sc.tail_damage && sc.tail_hard) {
		snprintf(msg, sizeof msg,
		         "write-ahead log %s: last record damaged at offset %llu (%s: a crash cuts a "
		         "log short, it does not change written bytes); %llu bytes from offset %llu",
		         file, (unsigned long long)sc.tail_off, sc.tail_why,
		         (unsigned long long)(len - sc.good_end), (unsigned long long)sc.good_end);
	} else {
		/* clean, or a torn tail: what LevelDB would skip, cut off so that
		 * its paranoid replay accepts the rest */
		if (sc.tail_damage)
			rc = cut_log(dir, file, sc.good_end);
		free(buf);
		return rc;
	}
	if (!o->repair) {
		free(buf);
		return rk__err(RK_ECORRUPT,
		               "engine %s: %s: refusing to open, as replaying the log would drop the "
		               "damaged records without a word (`rowkey check --repair` drops them "
		               "and says so)",
		               dir, msg);
	}
	if ((rc = rk_ldb__salvage_log(&img, &img_len, &sc, buf, len)) == 0 &&
	    (rc = rewrite_log(dir, file, img, img_len)) == 0) {
		size_t n = strlen(msg);
		snprintf(msg + n, sizeof msg - n, ": dropped them, kept %llu records",
		         (unsigned long long)sc.records);
		o->repair(msg, o->repair_payload);
	}
	free(img);
	free(buf);
	return rc;
}

static int num_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

int rk_engine__list_logs(const char *dir, uint64_t **out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? 0 : rk__err(RK_EIO, "engine %s: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (!is_log_name(de->d_name))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			uint64_t *nn = realloc(*out, cap * sizeof *nn);
			if (!nn) {
				closedir(d);
				free(*out);
				*out = NULL;
				*n = 0;
				return rk__err(RK_ENOMEM, "engine %s: out of memory listing logs", dir);
			}
			*out = nn;
		}
		(*out)[(*n)++] = strtoull(de->d_name, NULL, 10);
	}
	closedir(d);
	if (*n > 1)
		qsort(*out, *n, sizeof **out, num_cmp);
	return 0;
}

/* Scans the engine's logs before LevelDB replays them (a directory not yet
 * made has none). */
int rk_engine__check_logs(const char *dir, const rk__engine_options *o)
{
	uint64_t *nums;
	size_t n;
	int rc = rk_engine__list_logs(dir, &nums, &n);
	for (size_t i = 0; i < n && !rc; i++) {
		char file[4400];
		snprintf(file, sizeof file, "%s/%06llu.log", dir, (unsigned long long)nums[i]);
		rc = check_log(dir, file, o);
	}
	free(nums);
	return rc;
}
