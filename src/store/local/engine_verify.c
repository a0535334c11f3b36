/*
 * The engine's table files verified beside LevelDB: each file the engine's
 * live-file list names, present, of its size and sound (ldb_table.c), for
 * rowkey check; and a read error completed with the damaged file and block,
 * since LevelDB's "block checksum mismatch" does not say which (cached
 * while the set of live files stays the same).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/local/engine_files.h"
#include "store/local/engine_int.h"
#include "store/local/ldb_table.h"

int rk_engine__error_code(const char *err)
{
	if (strstr(err, "Corruption"))
		return RK_ECORRUPT;
	if (strstr(err, "lock") || strstr(err, "LOCK"))
		return RK_EBUSY;
	return RK_EIO;
}

char *rk_engine__str_dup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	return d ? memcpy(d, s, n) : NULL;
}

/* ---- table files ---- */

/* The engine's live table files, from LevelDB's "leveldb.sstables"
 * property: one line " NUMBER:SIZE[smallest .. largest]" per file (keys are
 * escaped, so a newline only ever ends a line). Calls fn for each; stops at
 * the first nonzero return. */
static int each_live_file(const char *list, int (*fn)(uint64_t num, uint64_t size, void *),
                          void *arg)
{
	for (const char *p = list; p && *p;) {
		const char *nl = strchr(p, '\n');
		if (p[0] == ' ') {
			char *e1, *e2;
			unsigned long long num = strtoull(p + 1, &e1, 10);
			if (e1 > p + 1 && *e1 == ':') {
				unsigned long long size = strtoull(e1 + 1, &e2, 10);
				if (e2 > e1 + 1 && *e2 == '[') {
					int rc = fn(num, size, arg);
					if (rc)
						return rc;
				}
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

static char *live_files(rk__engine *e)
{
	return leveldb_property_value(e->db, "leveldb.sstables");
}

static int is_listed(uint64_t num, uint64_t size, void *arg)
{
	(void)size;
	return num == *(uint64_t *)arg;
}

typedef struct verify_ctx {
	rk__engine *e;
	void (*report)(const char *file, const char *why, void *payload);
	void *payload;
	size_t damaged;
} verify_ctx;

/* Verifies one live file: present (as NUMBER.ldb, or LevelDB's older
 * NUMBER.sst), of the size the manifest records, and sound. */
static int verify_one(uint64_t num, uint64_t size, void *arg)
{
	verify_ctx *v = arg;
	char path[4200], why[600];
	uint8_t *buf;
	size_t len;
	snprintf(path, sizeof path, "%s/%06llu.ldb", v->e->path, (unsigned long long)num);
	int rc = rk_engine__slurp(&buf, &len, path);
	if (rc && errno == ENOENT) {
		char alt[4200];
		snprintf(alt, sizeof alt, "%s/%06llu.sst", v->e->path, (unsigned long long)num);
		if ((rc = rk_engine__slurp(&buf, &len, alt)) == 0 || errno != ENOENT)
			memcpy(path, alt, sizeof alt);
		else
			errno = ENOENT;
	}
	if (rc) {
		int err = errno;
		if (err == ENOENT) {
			/* a compaction may have retired it meanwhile */
			char *now = live_files(v->e);
			int listed = each_live_file(now, is_listed, &num);
			leveldb_free(now);
			if (!listed)
				return 0;
			snprintf(why, sizeof why, "missing (the engine's manifest lists it, %llu bytes)",
			         (unsigned long long)size);
		} else {
			snprintf(why, sizeof why, "cannot be read: %s", strerror(err));
		}
	} else if (len != size) {
		snprintf(why, sizeof why, "%zu bytes, the engine's manifest records %llu (%s)", len,
		         (unsigned long long)size, len < size ? "truncated" : "grown");
	} else if (rk_ldb__verify_table(buf, len, why, sizeof why) == 0) {
		why[0] = 0;
	}
	free(buf);
	if (why[0]) {
		v->damaged++;
		v->report(path, why, v->payload);
	}
	return 0;
}

static size_t verify_list(rk__engine *e, const char *list,
                          void (*report)(const char *file, const char *why, void *payload),
                          void *payload)
{
	verify_ctx v = {e, report, payload, 0};
	each_live_file(list, verify_one, &v);
	return v.damaged;
}

size_t rk_engine__verify_tables(rk__engine *e,
                                void (*report)(const char *file, const char *why, void *payload),
                                void *payload)
{
	char *list = live_files(e);
	size_t n = verify_list(e, list, report, payload);
	leveldb_free(list);
	return n;
}

typedef struct diag_buf {
	char text[1000];
	size_t len, more;
} diag_buf;

static void diag_add(const char *file, const char *why, void *payload)
{
	diag_buf *d = payload;
	if (d->len) {
		d->more++;
		return;
	}
	int n = snprintf(d->text, sizeof d->text, "table file %s: %s", file, why);
	d->len = n < 0 ? 0 : (size_t)n;
}

/* A read failed: the engine's message, plus the damaged table file when the
 * table files show one (cached while the set of live files stays the same:
 * a scan that keeps failing does not reread the engine each time). */
int rk_engine__map_read_error(rk__engine *e, char *err)
{
	int code = rk_engine__error_code(err);
	char *list = code == RK_EBUSY ? NULL : live_files(e);
	char *diag = NULL;
	if (list) {
		pthread_mutex_lock(&e->mu);
		if (e->diag_files && !strcmp(e->diag_files, list))
			diag = rk_engine__str_dup(e->diag);
		pthread_mutex_unlock(&e->mu);
		if (!diag) {
			diag_buf d = {{0}, 0, 0};
			verify_list(e, list, diag_add, &d);
			if (d.len && d.more)
				snprintf(d.text + d.len, sizeof d.text - d.len, " (and %zu more damaged files)",
				         d.more);
			if (d.len && (diag = rk_engine__str_dup(d.text)) != NULL) {
				char *files = rk_engine__str_dup(list), *copy = rk_engine__str_dup(diag);
				pthread_mutex_lock(&e->mu);
				if (files && copy) {
					free(e->diag_files);
					free(e->diag);
					e->diag_files = files;
					e->diag = copy;
					files = copy = NULL;
				}
				pthread_mutex_unlock(&e->mu);
				free(files);
				free(copy);
			}
		}
		leveldb_free(list);
	}
	if (diag)
		rk__err(code, "engine %s: %s; %s", e->path, err, diag);
	else
		rk__err(code, "engine %s: %s", e->path, err);
	free(diag);
	leveldb_free(err);
	return code;
}
