/*
 * The LevelDB engine: one leveldb_t per region server, with its own write
 * ahead log, memtable and sorted tables. A thin mapping of engine.h onto
 * LevelDB's C API; LevelDB error strings are turned into rowkey codes naming
 * the engine directory.
 *
 * Two things LevelDB does not do, done here:
 * - A failed write poisons the engine: every later write fails with the
 *   first failure's message until the engine is reopened. LevelDB itself
 *   only stops writing after a failed fsync; after a failed log append (a
 *   full disk) it carries on, but its log writer has already counted the
 *   lost record, so the records it appends next sit at offsets the reader
 *   does not expect and are dropped when the log is replayed: acknowledged
 *   writes lost. Reopening replays the log up to the failure.
 * - Read errors name the damaged table file: LevelDB's "block checksum
 *   mismatch" does not say which file; the engine then verifies its table
 *   files (engine_verify.c) and adds the damaged one with the block's offset.
 */
#include "store/local/engine.h"

#include <errno.h>
#include <leveldb/c.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "key/error.h"
#include "store/local/engine_files.h"
#include "store/local/engine_int.h"

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

static int map_error(const char *path, char *err)
{
	int code = rk_engine__error_code(err);
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
	pthread_mutex_init(&e->mu, NULL);
	for (int i = 0; i < ENGINE_IDLE_ITERS; i++)
		atomic_init(&e->idle[i], NULL);
	pthread_mutex_init(&e->wal_mu, NULL);
	e->wal_fd = -1;
	atomic_init(&e->failed, 0);
	atomic_init(&e->gen, 0);
	/* No filter policy: the store reads only through iterators (a cell key
	   holds a timestamp the reader does not know, so there is no LevelDB Get
	   to make), and LevelDB consults filters only in Get. A bloom filter
	   would be built at every flush and compaction and never read. */
	e->opts = leveldb_options_create();
	e->own_cache = o->cache == NULL;
	e->cache = e->own_cache ? leveldb_cache_create_lru(8u << 20) : (leveldb_cache_t *)o->cache;
	e->wsync = leveldb_writeoptions_create();
	e->wasync = leveldb_writeoptions_create();
	leveldb_writeoptions_set_sync(e->wsync, 1);
	leveldb_options_set_create_if_missing(e->opts, (unsigned char)(o->create_if_missing != 0));
	/* the logs checked (and repaired), the replay may be paranoid */
	leveldb_options_set_paranoid_checks(e->opts, (unsigned char)(o->paranoid != 0));
	leveldb_options_set_cache(e->opts, e->cache);
	leveldb_options_set_max_open_files(e->opts, 200);
	if (o->write_buffer_size)
		leveldb_options_set_write_buffer_size(e->opts, o->write_buffer_size);
	/* the logs it expects before their records: a torn tail cut by the
	   record check must not look like a log cut short */
	int rc = rk_engine__check_wals(path, o);
	if (!rc)
		rc = rk_engine__check_logs(path, o);
	if (rc) {
		rk_engine__close(e);
		return rc;
	}
	e->db = leveldb_open(e->opts, path, &err);
	if (err) {
		rc = map_error(path, err);
		rk_engine__close(e);
		return rc;
	}
	if ((rc = rk_engine__wals_start(e)) != 0) {
		rk_engine__close(e);
		return rc;
	}
	e->wals_on = 1;
	*out = e;
	return 0;
nomem:
	if (e)
		free(e->path);
	free(e);
	return rk__err(RK_ENOMEM, "engine %s: out of memory", path);
}

rk__ecache *rk_ecache__new(size_t bytes)
{
	return (rk__ecache *)leveldb_cache_create_lru(bytes);
}

void rk_ecache__free(rk__ecache *c)
{
	if (c)
		leveldb_cache_destroy((leveldb_cache_t *)c);
}

void rk_engine__close(rk__engine *e)
{
	if (!e)
		return;
	for (int i = 0; i < ENGINE_IDLE_ITERS; i++) /* iterators go before their database */
		rk_eiter__free(atomic_exchange(&e->idle[i], NULL));
	if (e->db)
		leveldb_close(e->db);
	if (e->wals_on)
		rk_engine__wals_seal(e);
	else
		rk_wals__free(&e->wals);
	if (e->wal_fd >= 0)
		close(e->wal_fd);
	leveldb_writeoptions_destroy(e->wsync);
	leveldb_writeoptions_destroy(e->wasync);
	leveldb_options_destroy(e->opts);
	if (e->own_cache)
		leveldb_cache_destroy(e->cache);
	pthread_mutex_destroy(&e->mu);
	pthread_mutex_destroy(&e->wal_mu);
	free(e->diag_files);
	free(e->diag);
	free(e->path);
	free(e);
}

const char *rk_engine__path(const rk__engine *e)
{
	return e->path;
}

/* The refusal of a write after the engine failed. */
static int refuse(rk__engine *e)
{
	return rk__err(e->failure_code, "%s", e->failure);
}

/* The engine stops taking writes: code and message kept for every later
 * write (the first failure's). */
static int fail_writes(rk__engine *e, int code, const char *why)
{
	pthread_mutex_lock(&e->mu);
	if (!atomic_load_explicit(&e->failed, memory_order_relaxed)) {
		snprintf(e->failure, sizeof e->failure,
		         "engine %s: %s (this engine refuses writes until the store is reopened)",
		         e->path, why);
		e->failure_code = code;
		atomic_store_explicit(&e->failed, 1, memory_order_release);
	}
	pthread_mutex_unlock(&e->mu);
	return refuse(e);
}

int rk_engine__write(rk__engine *e, rk__ebatch *b, int sync)
{
	char *err = NULL;
	if (atomic_load_explicit(&e->failed, memory_order_acquire))
		return refuse(e);
	leveldb_write(e->db, sync ? e->wsync : e->wasync, (leveldb_writebatch_t *)b, &err);
	/* after the write is visible and before anyone is told it is done: an
	 * iterator tagged with an older gen may miss it and is not reused */
	atomic_fetch_add_explicit(&e->gen, 1, memory_order_release);
	if (err) {
		int rc = fail_writes(e, rk_engine__error_code(err), err);
		leveldb_free(err);
		return rc;
	}
	/* a new log LevelDB started is recorded before the write is
	 * acknowledged; when that fails the write is applied but not known to
	 * survive a lost log: reported, and no more writes */
	if (rk_engine__wals_after_write(e) != 0) {
		char why[900];
		snprintf(why, sizeof why, "the write was applied, but %s", rk_error_last());
		return fail_writes(e, RK_EIO, why);
	}
	return 0;
}

const char *rk_engine__failure(rk__engine *e)
{
	return atomic_load_explicit(&e->failed, memory_order_acquire) ? e->failure : NULL;
}

uint64_t rk_engine__memory(rk__engine *e)
{
	char *v = leveldb_property_value(e->db, "leveldb.approximate-memory-usage");
	uint64_t n = v ? strtoull(v, NULL, 10) : 0;
	leveldb_free(v);
	return n;
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
	rk__eiter *it = rk_eiter__new(e);
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

rk__eiter *rk_eiter__new(rk__engine *e)
{
	rk__eiter *it = calloc(1, sizeof *it);
	if (!it)
		abort(); /* LevelDB itself aborts on allocation failure */
	it->e = e;
	it->gen = atomic_load_explicit(&e->gen, memory_order_acquire); /* before the snapshot */
	it->ro = leveldb_readoptions_create();
	leveldb_readoptions_set_verify_checksums(it->ro, 1);
	it->it = leveldb_create_iterator(e->db, it->ro);
	return it;
}

rk__eiter *rk_eiter__take(rk__engine *e)
{
	uint64_t now = atomic_load_explicit(&e->gen, memory_order_acquire);
	for (int i = 0; i < ENGINE_IDLE_ITERS; i++) {
		if (!atomic_load_explicit(&e->idle[i], memory_order_relaxed))
			continue;
		/* acquire: the iterator's state as its last user left it */
		rk__eiter *c = atomic_exchange_explicit(&e->idle[i], NULL, memory_order_acquire);
		if (!c)
			continue; /* another reader took it first */
		if (c->gen == now)
			return c;
		rk_eiter__free(c); /* a write followed its snapshot */
	}
	return rk_eiter__new(e);
}

static void give_back(rk__eiter *it, int ok)
{
	rk__engine *e = it->e;
	/* retired after ENGINE_ITER_USES reads even without writes: an iterator
	 * pins the table files of its creation, and a compaction since may have
	 * merged them into fewer (cheaper to seek) */
	if (ok && ++it->uses < ENGINE_ITER_USES &&
	    it->gen == atomic_load_explicit(&e->gen, memory_order_acquire)) {
		for (int i = 0; i < ENGINE_IDLE_ITERS; i++) {
			rk__eiter *none = NULL;
			/* release: the next taker sees the iterator's state */
			if (!atomic_load_explicit(&e->idle[i], memory_order_relaxed) &&
			    atomic_compare_exchange_strong_explicit(&e->idle[i], &none, it,
			                                            memory_order_release,
			                                            memory_order_relaxed))
				return;
		}
	}
	rk_eiter__free(it);
}

void rk_eiter__give_back(rk__eiter *it)
{
	char *err = NULL;
	leveldb_iter_get_error(it->it, &err);
	give_back(it, !err);
	leveldb_free(err);
}

void rk_eiter__give_back_ok(rk__eiter *it)
{
	give_back(it, 1);
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
	return err ? rk_engine__map_read_error(it->e, err) : 0;
}
