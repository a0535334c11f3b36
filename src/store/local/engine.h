/*
 * The storage engine interface of a region server: an ordered byte map with
 * atomic batches, snapshot iterators and size estimates. One engine instance
 * per region server. LevelDB implements it (engine_leveldb.c); the analyzer
 * can plug in an engine that only counts. Nothing above this file includes
 * leveldb/c.h.
 */
#ifndef RK_LOCAL_ENGINE_H
#define RK_LOCAL_ENGINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct rk__engine rk__engine;
typedef struct rk__ebatch rk__ebatch;
typedef struct rk__eiter rk__eiter;

typedef struct rk__engine_options {
	size_t write_buffer_size;
	int create_if_missing;
	int paranoid; /* LevelDB's paranoid checks: a damaged log record, table
	                 index or compaction input fails the open or the engine */
	/* Repair (NULL: refuse). Before LevelDB replays them, the open scans the
	 * write-ahead logs (ldb_log.h): damage with complete records after it,
	 * or a damaged last record, fails the open with RK_ECORRUPT naming the
	 * log file and offset. With repair set the open instead rewrites that log
	 * with every intact record it holds (ldb_log.h) and calls repair with a
	 * line saying what was dropped (file, offset, bytes, records kept). */
	void (*repair)(const char *msg, void *payload);
	void *repair_payload;
	/* The block cache (rk_ecache__new), shared with other engines and
	 * outliving this one; NULL: a private cache of 8 MiB. */
	struct rk__ecache *cache;
	/* 1: the engine must have its list of expected logs (WALS), as every
	 * engine of a store whose META says so: a missing one refuses the open
	 * (repair: replays the logs as found, and says so). */
	int require_wals;
} rk__engine_options;

/* A cache of table blocks that engines share: LevelDB's LRU cache, bounded
 * in bytes. A block enters it after its checksum was verified on its read
 * from disk, and a hit is not verified again, so the cache decides how much
 * of a read path pays for verification. NULL when out of memory; free it
 * after every engine that uses it is closed. */
typedef struct rk__ecache rk__ecache;
rk__ecache *rk_ecache__new(size_t bytes);
void rk_ecache__free(rk__ecache *c);

/* Opens the engine in directory `path`. RK_EIO / RK_ECORRUPT / RK_EBUSY
 * naming the path. A log cut short by a crash (a torn tail, no complete
 * record after it) is cut back to its last complete record and the open goes
 * on, as LevelDB would. A write-ahead log the engine expects (formats.md
 * B.5) missing, cut short below what was synced, or replaced refuses the
 * open (RK_ECORRUPT naming it) unless repair is set. The engine keeps that
 * list up to date while it runs and seals it at close. The caller owns *out
 * (rk_engine__close). */
int rk_engine__open(rk__engine **out, const char *path, const rk__engine_options *opts);
void rk_engine__close(rk__engine *e);

/* Applies a batch atomically; sync=1 fsyncs the log first. After a failed
 * write (a full disk, an I/O error) the engine refuses every later write with
 * the same code and message until it is reopened: nothing is acknowledged
 * that the log might not replay. */
int rk_engine__write(rk__engine *e, rk__ebatch *b, int sync);

/* The message of the write failure that stopped the engine's writes
 * ("engine DIR: <LevelDB's error, naming the file>..."), or NULL while it
 * takes writes. Constant once set; valid until rk_engine__close. For a
 * caller whose write ran on another thread (the message rk__err set there
 * is that thread's). */
const char *rk_engine__failure(rk__engine *e);

/* Verifies each table file the engine's manifest lists: present, of the
 * recorded size, and sound (ldb_table.h: footer, block handles, every
 * block's checksum). Calls report(file path, what is wrong with it at which
 * offset, payload) for each damaged one; returns how many. */
size_t rk_engine__verify_tables(rk__engine *e,
                                void (*report)(const char *file, const char *why, void *payload),
                                void *payload);

/* LevelDB's "approximate-memory-usage": its memtables plus the blocks in
 * the engine's block cache (all of a shared cache's blocks, whichever
 * engine read them). */
uint64_t rk_engine__memory(rk__engine *e);

/* Bytes of the engine's files holding keys in [lo, hi). */
uint64_t rk_engine__approx_size(rk__engine *e, const uint8_t *lo, size_t lolen, const uint8_t *hi,
                                size_t hilen);

/* Deletes every key in [lo, hi) (in batches of bounded size). */
int rk_engine__delete_range(rk__engine *e, const uint8_t *lo, size_t lolen, const uint8_t *hi,
                            size_t hilen, int sync);

/* Batches (owned by the caller). */
rk__ebatch *rk_ebatch__new(void);
void rk_ebatch__free(rk__ebatch *b);
void rk_ebatch__put(rk__ebatch *b, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl);
void rk_ebatch__del(rk__ebatch *b, const uint8_t *k, size_t kl);
void rk_ebatch__append(rk__ebatch *dst, const rk__ebatch *src);
void rk_ebatch__clear(rk__ebatch *b);
size_t rk_ebatch__count(const rk__ebatch *b);

/* Iterators read one consistent snapshot taken at creation, verifying the
 * checksum of every table block they read from disk (a damaged block is a
 * read error naming the file, never data). The caller owns the iterator
 * (rk_eiter__free). key/value are borrowed until the next move. */
rk__eiter *rk_eiter__new(rk__engine *e);
void rk_eiter__free(rk__eiter *it);

/* For point reads: an idle iterator of e whose snapshot no write has
 * followed (or a new one), and its return when the read is done. A reused
 * iterator sees every write acknowledged before rk_eiter__take; seek it
 * before use. rk_eiter__give_back keeps at most a few, drops stale or failed
 * ones, and rk_engine__close frees the rest. */
rk__eiter *rk_eiter__take(rk__engine *e);
void rk_eiter__give_back(rk__eiter *it);
/* rk_eiter__give_back when the caller's last rk_eiter__status of it was 0
 * and it has not moved since: that look is not made twice. */
void rk_eiter__give_back_ok(rk__eiter *it);
void rk_eiter__seek(rk__eiter *it, const uint8_t *k, size_t kl);
void rk_eiter__seek_first(rk__eiter *it);
void rk_eiter__seek_last(rk__eiter *it);
int rk_eiter__valid(const rk__eiter *it);
void rk_eiter__next(rk__eiter *it);
void rk_eiter__prev(rk__eiter *it);
const uint8_t *rk_eiter__key(const rk__eiter *it, size_t *len);
const uint8_t *rk_eiter__value(const rk__eiter *it, size_t *len);
/* 0, or RK_ECORRUPT / RK_EIO with the engine's message, followed by the
 * damaged table file and what is wrong with it when one is found. */
int rk_eiter__status(const rk__eiter *it);

/* The engine's directory (for messages). */
const char *rk_engine__path(const rk__engine *e);

#endif
