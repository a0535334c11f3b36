/*
 * Helpers of the data-integrity tests: a one-table store of
 * numbered rows with values derived from the row number (so any row read
 * back can be checked), file listing and byte flipping. Header-only.
 */
#ifndef RK_INTEGRITY_UTIL_H
#define RK_INTEGRITY_UTIL_H

#include <inttypes.h>
#include <stdint.h>
#include <sys/wait.h>

#include "integration/store_test_util.h"

static inline void it_row(char *buf, size_t cap, uint64_t i)
{
	snprintf(buf, cap, "row%08" PRIu64, i);
}

/* A value of `len` bytes that is a function of the row number, and does not
 * compress (so table blocks hold it as written). */
static inline void it_value(uint8_t *v, size_t len, uint64_t i)
{
	uint64_t x = i * 0x9e3779b97f4a7c15ULL + 1;
	for (size_t k = 0; k < len; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[k] = (uint8_t)x;
	}
}

/* Creates table "t" with family "d" (no error if it exists), split at row
 * `at` when not NULL (two regions, on servers 0 and 1). */
static inline void it_create_at(rk_store *s, const char *at)
{
	rk_family_def fam = {"d", 1, NULL};
	rk_bytes split = {(const uint8_t *)at, at ? strlen(at) : 0};
	rk_table_def def = {"t", &fam, 1, at ? &split : NULL, at ? 1 : 0, 0};
	int rc = rk_table_create(s, &def);
	if (rc && rc != RK_EEXISTS)
		st_fail("rk_table_create", rc);
}

static inline void it_create(rk_store *s)
{
	it_create_at(s, NULL);
}

/* Writes rows [from, to), `per` rows a batch (each batch one engine record
 * per server); values of vlen bytes. */
static inline void it_write(rk_table *t, uint64_t from, uint64_t to, size_t per, size_t vlen)
{
	for (uint64_t i = from; i < to;) {
		rk_mutation m[64];
		char rows[64][32];
		uint8_t vals[64][512];
		size_t n = 0;
		for (; n < per && n < 64 && i < to; n++, i++) {
			it_row(rows[n], sizeof rows[n], i);
			it_value(vals[n], vlen, i);
			memset(&m[n], 0, sizeof m[n]);
			m[n].type = RK_MUT_PUT;
			m[n].row = (const uint8_t *)rows[n];
			m[n].row_len = strlen(rows[n]);
			m[n].family = "d";
			m[n].qualifier = (const uint8_t *)"v";
			m[n].qualifier_len = 1;
			m[n].value = vals[n];
			m[n].value_len = vlen;
		}
		ST_OK(rk_table_apply(t, m, n, NULL));
	}
}

/* Scans the table: counts rows whose value is right (*good) and rows whose
 * value or name is wrong (*wrong); returns the scan's result (0 or the
 * error). */
static inline int it_scan(rk_table *t, size_t vlen, uint64_t *good, uint64_t *wrong)
{
	rk_scan *sc;
	const rk_row *r;
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	uint8_t want[512];
	int rc;
	*good = *wrong = 0;
	if ((rc = rk_scan_open(&sc, t, &so)) != 0)
		return rc;
	while ((rc = rk_scan_next(&r, sc)) == 0) {
		char name[32];
		uint64_t i = 0;
		int ok = r->key_len == 11 && !memcmp(r->key, "row", 3) && r->ncells == 1;
		if (ok) {
			memcpy(name, r->key, 11);
			name[11] = 0;
			i = strtoull(name + 3, NULL, 10);
			it_value(want, vlen, i);
			ok = r->cells[0].value_len == vlen && !memcmp(r->cells[0].value, want, vlen);
		}
		if (ok)
			++*good;
		else
			++*wrong;
	}
	rk_scan_close(sc);
	return rc == RK_EITEROVER ? 0 : rc;
}

/* A store of `servers` servers holding table t's rows [0, n), written
 * `per` a batch (values of vlen bytes), left as a crash leaves it: written
 * by a child process that exits without closing (nothing sealed, the live
 * log as LevelDB wrote it). Returns 0 when the child succeeded. */
static inline int it_crashed_store(const char *dir, unsigned servers, uint64_t n, size_t per,
                                   size_t vlen)
{
	pid_t pid = fork(); /* before this process starts any store thread */
	if (pid == 0) {
		rk_store *s;
		rk_table *t;
		rk_store_options o = RK_STORE_OPTIONS_INIT;
		o.n_servers = servers;
		o.background_splits = 0;
		o.split_threshold = 0;
		if (rk_store_open(&s, dir, &o))
			_exit(3);
		it_create(s);
		if (rk_table_open(&t, s, "t"))
			_exit(4);
		it_write(t, 0, n, per, vlen);
		_exit(0); /* no close: as a crash after the writes were acknowledged */
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The path of the newest file in `dir` whose name ends with `suffix` (the
 * highest-numbered LevelDB file of that kind), into out; 0 or -1. */
static inline int it_newest(char *out, size_t cap, const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char best[256] = "";
	size_t sl = strlen(suffix);
	while (d && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		if (n > sl && !strcmp(e->d_name + n - sl, suffix) && strcmp(e->d_name, best) > 0 &&
		    n < sizeof best)
			strcpy(best, e->d_name);
	}
	if (d)
		closedir(d);
	if (!best[0])
		return -1;
	snprintf(out, cap, "%s/%s", dir, best);
	return 0;
}

static inline long it_file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) ? -1 : (long)st.st_size;
}

/* XORs byte `off` of file `path` with `mask`. */
static inline void it_flip(const char *path, long off, uint8_t mask)
{
	FILE *f = fopen(path, "r+b");
	if (!f)
		abort();
	fseek(f, off, SEEK_SET);
	int c = fgetc(f);
	fseek(f, off, SEEK_SET);
	fputc((c ^ mask) & 0xff, f);
	fclose(f);
}

#endif
