/*
 * The LevelDB engine: one leveldb_t per region server, with its own write
 * ahead log, memtable and sorted tables. A thin mapping of engine.h onto
 * LevelDB's C API; LevelDB error strings are turned into rowkey codes naming
 * the engine directory.
 */
#include "store/local/engine.h"

#include <leveldb/c.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"

/* Under ThreadSanitizer: libleveldb is not instrumented, so TSan sees the
 * memcpy/memcmp its lock-free memtable makes but not the atomics that order
 * them, and reports races inside LevelDB (and the libstdc++ / snappy code it
 * calls). Suppress reports from inside those libraries only; races in
 * rowkey's own code are still reported. */
#if defined(__SANITIZE_THREAD__)
#define RK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RK_TSAN 1
#endif
#endif
#ifdef RK_TSAN
const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void)
{
	return "called_from_lib:libleveldb.so\n"
	       "called_from_lib:libsnappy.so\n"
	       "called_from_lib:libstdc++.so\n";
}
#endif

struct rk__engine {
	leveldb_t *db;
	leveldb_options_t *opts;
	leveldb_cache_t *cache;
	leveldb_filterpolicy_t *bloom;
	leveldb_writeoptions_t *wsync, *wasync;
	char *path;
};

struct rk__eiter {
	leveldb_iterator_t *it;
	leveldb_readoptions_t *ro;
	const rk__engine *e;
};

static int map_error(const char *path, char *err)
{
	int code = RK_EIO;
	if (strstr(err, "Corruption"))
		code = RK_ECORRUPT;
	else if (strstr(err, "lock") || strstr(err, "LOCK"))
		code = RK_EBUSY;
	rk__err(code, "engine %s: %s", path, err);
	leveldb_free(err);
	return code;
}

int rk_engine__open(rk__engine **out, const char *path, const rk__engine_options *o)
{
	char *err = NULL;
	rk__engine *e = calloc(1, sizeof *e);
	*out = NULL;
	if (!e || !(e->path = strdup(path)))
		goto nomem;
	e->opts = leveldb_options_create();
	e->cache = leveldb_cache_create_lru(8u << 20);
	e->bloom = leveldb_filterpolicy_create_bloom(10);
	e->wsync = leveldb_writeoptions_create();
	e->wasync = leveldb_writeoptions_create();
	leveldb_writeoptions_set_sync(e->wsync, 1);
	leveldb_options_set_create_if_missing(e->opts, (unsigned char)(o->create_if_missing != 0));
	leveldb_options_set_paranoid_checks(e->opts, (unsigned char)(o->paranoid != 0));
	leveldb_options_set_cache(e->opts, e->cache);
	leveldb_options_set_filter_policy(e->opts, e->bloom);
	leveldb_options_set_max_open_files(e->opts, 200);
	if (o->write_buffer_size)
		leveldb_options_set_write_buffer_size(e->opts, o->write_buffer_size);
	e->db = leveldb_open(e->opts, path, &err);
	if (err) {
		int rc = map_error(path, err);
		rk_engine__close(e);
		return rc;
	}
	*out = e;
	return 0;
nomem:
	if (e)
		free(e->path);
	free(e);
	return rk__err(RK_ENOMEM, "engine %s: out of memory", path);
}

void rk_engine__close(rk__engine *e)
{
	if (!e)
		return;
	if (e->db)
		leveldb_close(e->db);
	leveldb_writeoptions_destroy(e->wsync);
	leveldb_writeoptions_destroy(e->wasync);
	leveldb_options_destroy(e->opts);
	leveldb_cache_destroy(e->cache);
	leveldb_filterpolicy_destroy(e->bloom);
	free(e->path);
	free(e);
}

const char *rk_engine__path(const rk__engine *e)
{
	return e->path;
}

int rk_engine__write(rk__engine *e, rk__ebatch *b, int sync)
{
	char *err = NULL;
	leveldb_write(e->db, sync ? e->wsync : e->wasync, (leveldb_writebatch_t *)b, &err);
	return err ? map_error(e->path, err) : 0;
}

uint64_t rk_engine__approx_size(rk__engine *e, const uint8_t *lo, size_t lolen, const uint8_t *hi,
                                size_t hilen)
{
	const char *s[1] = {(const char *)lo}, *l[1] = {(const char *)hi};
	size_t sl[1] = {lolen}, ll[1] = {hilen};
	uint64_t size = 0;
	leveldb_approximate_sizes(e->db, 1, s, sl, l, ll, &size);
	return size;
}

static int key_lt(const uint8_t *k, size_t kl, const uint8_t *hi, size_t hl)
{
	size_t m = kl < hl ? kl : hl;
	int c = memcmp(k, hi, m);
	return c < 0 || (c == 0 && kl < hl);
}

int rk_engine__delete_range(rk__engine *e, const uint8_t *lo, size_t lolen, const uint8_t *hi,
                            size_t hilen, int sync)
{
	rk__eiter *it = rk_eiter__new(e, 0);
	rk__ebatch *b = rk_ebatch__new();
	int rc = 0;
	size_t n = 0;
	for (rk_eiter__seek(it, lo, lolen); rk_eiter__valid(it); rk_eiter__next(it)) {
		size_t kl;
		const uint8_t *k = rk_eiter__key(it, &kl);
		if (!key_lt(k, kl, hi, hilen))
			break;
		rk_ebatch__del(b, k, kl);
		if (++n % 4096 == 0) {
			if ((rc = rk_engine__write(e, b, 0)) != 0)
				goto out;
			rk_ebatch__clear(b);
		}
	}
	if ((rc = rk_eiter__status(it)) != 0)
		goto out;
	rc = rk_engine__write(e, b, sync);
out:
	rk_ebatch__free(b);
	rk_eiter__free(it);
	return rc;
}

rk__ebatch *rk_ebatch__new(void)
{
	return (rk__ebatch *)leveldb_writebatch_create();
}

void rk_ebatch__free(rk__ebatch *b)
{
	if (b)
		leveldb_writebatch_destroy((leveldb_writebatch_t *)b);
}

void rk_ebatch__put(rk__ebatch *b, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
	leveldb_writebatch_put((leveldb_writebatch_t *)b, (const char *)k, kl, (const char *)v, vl);
}

void rk_ebatch__del(rk__ebatch *b, const uint8_t *k, size_t kl)
{
	leveldb_writebatch_delete((leveldb_writebatch_t *)b, (const char *)k, kl);
}

void rk_ebatch__append(rk__ebatch *dst, const rk__ebatch *src)
{
	leveldb_writebatch_append((leveldb_writebatch_t *)dst, (const leveldb_writebatch_t *)src);
}

void rk_ebatch__clear(rk__ebatch *b)
{
	leveldb_writebatch_clear((leveldb_writebatch_t *)b);
}

static void count_put(void *state, const char *k, size_t kl, const char *v, size_t vl)
{
	(void)k, (void)kl, (void)v, (void)vl;
	++*(size_t *)state;
}

static void count_del(void *state, const char *k, size_t kl)
{
	(void)k, (void)kl;
	++*(size_t *)state;
}

size_t rk_ebatch__count(const rk__ebatch *b)
{
	size_t n = 0;
	leveldb_writebatch_iterate((const leveldb_writebatch_t *)b, &n, count_put, count_del);
	return n;
}

rk__eiter *rk_eiter__new(rk__engine *e, int verify_checksums)
{
	rk__eiter *it = calloc(1, sizeof *it);
	if (!it)
		abort(); /* LevelDB itself aborts on allocation failure */
	it->e = e;
	it->ro = leveldb_readoptions_create();
	leveldb_readoptions_set_verify_checksums(it->ro, (unsigned char)(verify_checksums != 0));
	it->it = leveldb_create_iterator(e->db, it->ro);
	return it;
}

void rk_eiter__free(rk__eiter *it)
{
	if (!it)
		return;
	leveldb_iter_destroy(it->it);
	leveldb_readoptions_destroy(it->ro);
	free(it);
}

void rk_eiter__seek(rk__eiter *it, const uint8_t *k, size_t kl)
{
	leveldb_iter_seek(it->it, (const char *)k, kl);
}

void rk_eiter__seek_first(rk__eiter *it)
{
	leveldb_iter_seek_to_first(it->it);
}

void rk_eiter__seek_last(rk__eiter *it)
{
	leveldb_iter_seek_to_last(it->it);
}

int rk_eiter__valid(const rk__eiter *it)
{
	return leveldb_iter_valid(it->it);
}

void rk_eiter__next(rk__eiter *it)
{
	leveldb_iter_next(it->it);
}

void rk_eiter__prev(rk__eiter *it)
{
	leveldb_iter_prev(it->it);
}

const uint8_t *rk_eiter__key(const rk__eiter *it, size_t *len)
{
	return (const uint8_t *)leveldb_iter_key(it->it, len);
}

const uint8_t *rk_eiter__value(const rk__eiter *it, size_t *len)
{
	return (const uint8_t *)leveldb_iter_value(it->it, len);
}

int rk_eiter__status(const rk__eiter *it)
{
	char *err = NULL;
	leveldb_iter_get_error(it->it, &err);
	return err ? map_error(it->e->path, err) : 0;
}
