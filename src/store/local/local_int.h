/*
 * The local backend's private header: the store object and the table handle
 * that its files share, and the few functions one file calls in another
 * (SQLite's btreeInt.h). Nothing outside src/store/local includes it.
 *
 * Where things are (docs/store.md, "Where things are"):
 *   open.c          open and recovery (orphan sweep, settings in META), close,
 *                   sync, the clock, the ops table
 *   meta_persist.c  a change of the meta map written to META, newest wins
 *   tables.c        create, drop, list, open and close tables; settings;
 *                   column families
 *   write.c         routing mutations to region servers; synchronous and
 *                   buffered batches
 *   read.c          point gets
 *   scan.c          scans across regions, splits and moves
 *   admin.c         splits (the background splitter and rk_store_split_due),
 *                   moves, the balancer, region and server listings
 *   check.c         rk_store_check
 *   collect.c       rk_store_collect: what GC rules collect, old markers
 *   rowop.c         what the writer resolves when it applies a request
 *   atomic.c        check-and-mutate, read-modify-write in the writer
 *   metrics_file.c  DIR/metrics.tsv: read at open, rewritten at close
 *   server.c        a region server's writer thread and admission
 *   meta.c          the meta map; meta_file.c its file (META);
 *                   split.c the split policy and sequence, balance.c the
 *                   balancer's policy (both shared with the analyzer)
 *   engine_leveldb.c the engine (engine_int.h its state); engine_verify.c
 *                   its table files verified; engine_files.c its logs
 *                   checked before LevelDB replays them; engine_wals.c
 *                   the logs it expects (wals.c their file, ldb_manifest.c
 *                   LevelDB's MANIFEST); durable.c files replaced whole;
 *                   repair.c log repair; dirlock.c DIR/LOCK
 *
 * Lock order: meta lock, then a server's queue mutex, then a completion's
 * mutex. No thread waits for a server while holding the meta lock.
 */
#ifndef RK_LOCAL_INT_H
#define RK_LOCAL_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "key/error.h"
#include "store/backend.h"
#include "store/local/dirlock.h"
#include "store/local/engine.h"
#include "store/local/meta.h"
#include "store/local/server.h"

typedef struct rk__local {
	struct rk_store base;
	char *dir;
	rk_store_options opts;
	pthread_rwlock_t lock; /* the meta lock */
	rk__meta meta;
	uint64_t meta_seq; /* bumped on every change (under the write lock) */
	rk__server *servers;
	unsigned nservers;
	rk__ecache *cache; /* the block cache the servers' engines share, or NULL */
	pthread_mutex_t persist_mu;
	uint64_t persisted_seq;
	pthread_mutex_t move_mu;
	pthread_cond_t move_cv;
	/* splits: regions that grew past their limit wait in split_q for the
	 * background splitter (split_started) or for rk_store_split_due */
	pthread_t split_thread;
	int split_started;
	int splits_on; /* set before the writer threads start, then constant */
	pthread_mutex_t split_mu;
	pthread_cond_t split_cv;
	rk__region **split_q;
	size_t nsplit_q, cap_split_q;
	int split_stop, split_busy;
	_Atomic uint64_t clock;
	rk__dirlock dirlock; /* DIR/LOCK, held while open */
	/* what metrics.tsv held of earlier runs (regions, their and the
	 * servers' buckets), carried into the file this run writes; their key
	 * buckets live in each table's kv */
	rk_metrics *mbase;
} rk__local;

/* Buffered writes: two request sets, so the caller encodes the next batch
 * while the region servers apply the last. A set is reused only after its
 * requests were acknowledged. */
typedef struct rk__aset {
	rk__wreq *reqs; /* one per server */
	rk__wdone done;
	int in_flight;
} rk__aset;

typedef struct rk__ltable {
	struct rk_table base;
	rk__local *st;
	rk__tmeta *tm;
	/* write scratch, reused across rk_table_apply calls (a handle belongs to
	 * one thread at a time): per-server requests with their batches, the
	 * server of each mutation, the cell key buffer */
	rk__wreq *reqs;
	unsigned *server_of;
	size_t server_of_cap;
	uint8_t *key;
	size_t key_cap;
	rk__aset *aset;        /* buffered writes: two request sets, NULL until used */
	int anext;             /* the set the next buffered batch fills */
} rk__ltable;

/* ---- shared helpers ---- */

/* 1 when engine key k sorts before hi. */
static inline int rk_local__key_lt(const uint8_t *k, size_t kl, const uint8_t *hi, size_t hl)
{
	return rk_meta__row_cmp(k, kl, hi, hl) < 0;
}

/* Grows *p to hold `need` bytes (doubling); the error set on failure. */
static inline int rk_local__grow(uint8_t **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 256;
	while (n < need)
		n *= 2;
	uint8_t *q = realloc(*p, n);
	if (!q)
		return rk__err(RK_ENOMEM, "out of memory (%zu bytes)", n);
	*p = q;
	*cap = n;
	return 0;
}

/* Encodes the meta map (write lock held) into *buf (malloc'd); the caller
 * persists it with rk_local__meta_persist after dropping the lock. */
int rk_local__meta_snapshot(rk__local *s, uint8_t **buf, size_t *len, uint64_t *seq);
/* Writes a snapshot unless a newer one is already on disk. Frees buf. */
int rk_local__meta_persist(rk__local *s, uint8_t *buf, size_t len, uint64_t seq);

/* ---- write.c ---- */

/* Waits until region r is not moving (its writes wait out a move). */
void rk_local__wait_not_moving(rk__local *s, rk__region *r);

/* ---- admin.c: splits ---- */

/* Writer-thread hook (rk__server.grew): region r grew; queued for a split
 * check when it is past its limit. */
void rk_local__region_grew(void *payload, rk__region *r);
/* The background splitter's thread (started by open.c). */
void *rk_local__splitter_main(void *arg);
/* Stops the splitter thread, if started, and waits for it. */
void rk_local__splitter_stop(rk__local *s);

/* ---- metrics_file.c ---- */

/* Loads the records of earlier runs from DIR/metrics.tsv into s->mbase and
 * each table's key buckets (made here, rk_local__kv_attach); a file that
 * cannot be read is renamed aside. */
void rk_local__metrics_load(rk__local *s);
/* Gives table t its key-bucket counters (when the store counts them). */
void rk_local__kv_attach(rk__local *s, rk__tmeta *t);
/* rk_store_metrics of the local store. */
int rk_local__metrics(rk_metrics **out, rk_store *st);
/* Writes the metrics file (path NULL: DIR/metrics.tsv) through a temporary
 * file and a rename. */
int rk_local__metrics_write(rk__local *s, const char *path);

/* ---- the ops (one file each; the table is in open.c) ---- */

int rk_local__close(rk_store *st);
int rk_local__sync(rk_store *st);
int rk_local__table_create(rk_store *st, const rk_table_def *def, const rk_table_prop *props,
                           size_t nprops);
int rk_local__table_drop(rk_store *st, const char *name);
int rk_local__table_list(rk_table_info **out, size_t *count, rk_store *st);
int rk_local__tables_rename(rk_store *st, const rk_table_rename *v, size_t n);
int rk_local__table_open(rk_table **out, rk_store *st, const char *name);
void rk_local__table_close(rk_table *tb);
int rk_local__table_prop_set(rk_store *st, const char *table, const char *key,
                             const void *val, size_t len);
int rk_local__table_prop_get(void **out, size_t *out_len, rk_store *st, const char *table,
                             const char *key);
int rk_local__family_set(rk_store *st, const char *table, const rk_family_def *fam);
int rk_local__family_drop(rk_store *st, const char *table, const char *family);
int rk_local__apply(rk_table *tb, const rk_mutation *muts, size_t n, int *results);
int rk_local__apply_async(rk_table *tb, const rk_mutation *muts, size_t n);
int rk_local__flush(rk_table *tb);
int rk_local__get(rk_row **out, rk_table *tb, const uint8_t *row, size_t len,
                  const rk_read_options *ro);
/* One row's cells, engine keys [lo, hi), read through it into a (begun
 * by the caller), from region r on server srv: for a get and for the
 * atomic operations' read of their row. lo must be the row's bound
 * (u32(t) escbody(row) 00 01) and hi the same ending 00 02. 0 (the
 * iterator's status looked at last, and clean), or the error naming the
 * table and region. */
struct rk__rowasm;
int rk_local__row_cells(struct rk__rowasm *a, rk__eiter *it, const uint8_t *lo, size_t lo_len,
                        const uint8_t *hi, size_t hi_len, const rk_table *tb,
                        const rk__region *r, unsigned srv);
int rk_local__scan_open(rk_scan **out, rk_table *tb, const rk_scan_options *so);
int rk_local__scan_next(const rk_row **out, rk_scan *base);
void rk_local__scan_close(rk_scan *base);
int rk_local__regions(rk_region_info **out, size_t *count, rk_store *st, const char *table);
int rk_local__servers(rk_server_info **out, size_t *count, rk_store *st);
int rk_local__region_split(rk_store *st, uint64_t id, const uint8_t *at, size_t at_len);
int rk_local__region_move(rk_store *st, uint64_t id, unsigned dst);
int rk_local__balance(size_t *out, rk_store *st);
int rk_local__split_due(size_t *out, rk_store *st);
int rk_local__collect(size_t *out, rk_store *st);
int rk_local__check_and_mutate(int *matched, rk_table *tb, const uint8_t *row, size_t len,
                               const struct rk__filter *pred, const rk_filter *pred_src,
                               const rk_mutation *if_true, size_t ntrue,
                               const rk_mutation *if_false, size_t nfalse);
int rk_local__read_modify_write(rk_row **out, rk_table *tb, const uint8_t *row, size_t len,
                                const rk_rmw_rule *rules, size_t n, uint64_t ts);
int rk_local__check(size_t *out, rk_store *st, void (*report)(const char *, void *),
                    void *payload);
int rk_local__write_metrics(rk_store *st, const char *path);

#endif
