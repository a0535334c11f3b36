/*
 * The LevelDB engine's private state, shared by its files: engine_leveldb.c
 * (open, close, writes, batches, iterators) and engine_verify.c (its table
 * files verified, and the damaged one named in read errors).
 */
#ifndef RK_LOCAL_ENGINE_INT_H
#define RK_LOCAL_ENGINE_INT_H

#include <leveldb/c.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "store/local/engine.h"
#include "store/local/wals.h"

#define ENGINE_IDLE_ITERS 4
#define ENGINE_ITER_USES 32

struct rk__engine {
	leveldb_t *db;
	leveldb_options_t *opts;
	leveldb_cache_t *cache;
	int own_cache; /* the cache is this engine's (no shared one was given) */
	leveldb_writeoptions_t *wsync, *wasync;
	char *path;
	pthread_mutex_t mu; /* guards failure, diag_files, diag */
	_Atomic int failed; /* set (release) once failure is set */
	int failure_code;
	char failure[1200]; /* the first failed write's message; constant once set */
	char *diag_files; /* the live-file list the cached diagnosis was made for */
	char *diag;       /* "table file ...: why" of the damaged files found */
	/* Point reads reuse idle iterators while nothing was written since they
	 * were made (an iterator reads the snapshot of its creation). Each
	 * slot holds one or NULL and is taken and filled by atomic exchange,
	 * not under a mutex: a get takes and returns one every time. */
	_Atomic uint64_t gen; /* bumped after every write returns */
	_Atomic(rk__eiter *) idle[ENGINE_IDLE_ITERS];
	/* the expected write-ahead logs (engine_wals.c), under wal_mu */
	pthread_mutex_t wal_mu;
	rk__wals wals;
	int wals_on;       /* the list is kept (the engine opened) */
	int wals_dirty;    /* a write since the open: the close seals the logs */
	int wal_fd;        /* the live log, read-only, to see it grow; -1: none */
	uint64_t wal_live; /* its number */
	uint64_t wal_seen; /* its length after the last write */
};

struct rk__eiter {
	leveldb_iterator_t *it;
	leveldb_readoptions_t *ro;
	rk__engine *e;
	uint64_t gen; /* the engine's gen read before this iterator was made */
	unsigned uses; /* point reads it served (pooled iterators retire after a few) */
};

/* The rowkey code of a LevelDB error string. */
int rk_engine__error_code(const char *err);

/* A copy of s (malloc), or NULL. */
char *rk_engine__str_dup(const char *s);

/* The engine's list of expected logs (engine_wals.c): made after LevelDB
 * opened, brought up to date after each write (when LevelDB started a new
 * log), sealed after LevelDB closed. 0 or RK_EIO / RK_ENOMEM naming the
 * engine; sealing is best effort. */
int rk_engine__wals_start(rk__engine *e);
int rk_engine__wals_after_write(rk__engine *e);
void rk_engine__wals_seal(rk__engine *e);

/* A read failed with LevelDB's message err (freed here): the error set and
 * returned, naming the engine and, when the table files show one, the
 * damaged file and block. */
int rk_engine__map_read_error(rk__engine *e, char *err);

#endif
