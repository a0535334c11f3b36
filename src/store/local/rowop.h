/*
 * Row operations a region server's writer resolves when it applies a
 * request, against the engine as every earlier request left it: deletes
 * of a column, family or row (they remove the versions that exist then, not
 * what is written later: store.h), check-and-mutate, read-modify-write and
 * the collection of versions a family's GC rule no longer keeps. The writer
 * serialises a server's writes, so a read it makes cannot be overtaken by
 * another write to the same rows: that is what makes these atomic.
 *
 * A request carries its puts (and single-version deletes, which need no
 * read) in its engine batch, and its row operations in an rk__wops beside
 * it; the writer writes the operations' results first, then the batch. The
 * order inside one request is kept because the client drops, before it
 * queues, every put of a batch that a later delete of the same batch covers
 * (rk_rowop__covered): what remains of the batch and what the deletes remove
 * are then disjoint.
 */
#ifndef RK_LOCAL_ROWOP_H
#define RK_LOCAL_ROWOP_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/store.h>

#include "store/local/engine.h"

typedef enum rk__opkind {
	RK__OP_DELETE = 1, /* a range delete: every cell under a key prefix */
	RK__OP_CALL = 2    /* a call the writer runs (check-and-mutate, ...) */
} rk__opkind;

struct rk__wreq;

/* A call run by the writer: fn resolves it into `out` (engine reads through
 * e), with `req` the request carrying it (for counters). Its arguments and
 * results live in the caller's struct embedding this one; the caller waits
 * for the request, so they outlive the call. */
typedef struct rk__opcall {
	int (*fn)(struct rk__opcall *c, rk__engine *e, struct rk__wreq *req, rk__ebatch *out);
} rk__opcall;

typedef struct rk__wop {
	rk__opkind kind;
	size_t pre_off, pre_len; /* DELETE: the key prefix, in the arena */
	int scope;               /* DELETE: 0 row, 1 family, 2 column */
	uint64_t lo, hi;         /* DELETE: versions with lo <= ts <= hi */
	rk__opcall *call;        /* CALL */
} rk__wop;

/* The row operations of one request, reused from request to request (the
 * prefixes are copies: a buffered batch's caller reuses its buffers). */
typedef struct rk__wops {
	uint8_t *arena;
	size_t len, cap;
	rk__wop *v;
	size_t n, cap_v;
	char err[256]; /* why the resolution failed (the writer's message; the
	                  client's thread reads it) */
} rk__wops;

void rk_wops__clear(rk__wops *o);
void rk_wops__fini(rk__wops *o);

/* Adds the range delete m (DELETE_COLUMN, _FAMILY or _ROW, validated, its
 * timestamp assigned) of table `tid`. */
int rk_wops__add_delete(rk__wops *o, uint32_t tid, const rk_mutation *m);
int rk_wops__add_call(rk__wops *o, rk__opcall *c);

/* Marks in (*drop)[i] each PUT or DELETE_CELL of muts[0..n) that a later
 * range delete of the same batch removes. *drop is NULL when the batch has
 * no range delete (nothing to drop), else a malloc'd array of n flags the
 * caller frees. */
int rk_rowop__covered(uint8_t **drop, const rk_mutation *muts, size_t n);

/* Encodes the engine entries of one PUT or DELETE_CELL of table `tid` into
 * b, with *key (grown as needed) as scratch. A DELETE_CELL removes the
 * version at its timestamp, and the single-version marker an older build
 * may have left there (docs/formats.md B.1). Returns the engine bytes it
 * adds (for counters), or 0 with the error set when out of memory. */
size_t rk_rowop__encode(rk__ebatch *b, uint8_t **key, size_t *cap, uint32_t tid,
                        const rk_mutation *m);

/* Appends to `out` the deletes the request's operations resolve to against
 * engine e (range deletes: the versions and markers they remove; calls:
 * what they write). On failure req->ops.err says why. */
int rk_rowop__resolve(rk__engine *e, struct rk__wreq *req, rk__ebatch *out);

/* For a call's resolver: appends to `out` what mutations m[0..n) (checked,
 * timestamps set) of table tid write, resolved against e now, in the order
 * a queued request's are: range deletes first, then the puts and
 * single-version deletes no later delete of the list removes. *bytes gets
 * the engine bytes written. */
int rk_rowop__apply(rk__engine *e, uint32_t tid, const rk_mutation *m, size_t n,
                    rk__ebatch *out, uint64_t *bytes);

#endif
