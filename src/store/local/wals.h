/*
 * The expected write-ahead logs of an engine (DIR/WALS, formats.md B.5):
 * which logs the engine will replay at its next open and what is known of
 * each (live: must exist; closed: its synced size; sealed: its size and the
 * CRC-32C of its bytes). This file holds the list, its encoding and its
 * file; engine_wals.c keeps it up to date and checks it.
 */
#ifndef RK_LOCAL_WALS_H
#define RK_LOCAL_WALS_H

#include <stddef.h>
#include <stdint.h>

/* Log states (formats.md B.5, frozen: stored on disk). */
enum { RK_WAL_LIVE = 0, RK_WAL_CLOSED = 1, RK_WAL_SEALED = 2 };

#define RK_WALS_MAX 65536u /* logs one list may hold */

typedef struct rk__wal {
	uint64_t number;
	uint8_t state;
	uint64_t size; /* closed, sealed: bytes synced */
	uint32_t sum;  /* sealed: CRC-32C of those bytes */
} rk__wal;

/* Logs in increasing number order, each once. */
typedef struct rk__wals {
	rk__wal *logs;
	size_t n, cap;
} rk__wals;

void rk_wals__free(rk__wals *w);

/* The entry of log `number`, or NULL. */
rk__wal *rk_wals__find(rk__wals *w, uint64_t number);

/* Sets log `number`'s entry (added in order when absent). 0 or RK_ENOMEM. */
int rk_wals__set(rk__wals *w, uint64_t number, uint8_t state, uint64_t size, uint32_t sum);

/* Removes log `number`'s entry, if any. */
void rk_wals__remove(rk__wals *w, uint64_t number);

/* Decodes a WALS file image into *out (emptied first). RK_ECORRUPT with a
 * message naming `path` and what is wrong (magic, lengths, CRC, order,
 * state) for anything but a well-formed file; never reads outside p[0..n). */
int rk_wals__decode(rk__wals *out, const uint8_t *p, size_t n, const char *path);

/* Encodes w; the caller frees *out. 0 or RK_ENOMEM. */
int rk_wals__encode(uint8_t **out, size_t *len, const rk__wals *w);

/* Reads DIR/WALS into *out: 0 with *found 1, or 0 with *found 0 when there
 * is none; RK_EIO / RK_ECORRUPT naming the file. */
int rk_wals__load(rk__wals *out, int *found, const char *dir);

/* Writes DIR/WALS: WALS.tmp, fsync, rename (the directory is not synced:
 * after a crash the older list is as good). RK_EIO naming the file. */
int rk_wals__save(const char *dir, const rk__wals *w);

#endif
