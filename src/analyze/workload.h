/*
 * Workload generators for the analyzer: seeded, reproducible streams of
 * operations in virtual time. A write carries one record (a value per
 * workload field); a read carries a query shape and two bound records, lo
 * and hi: the fields the query binds hold values, the others hold "the
 * smallest" / "the largest" markers (ext), so encoding lo and hi under a key
 * design gives the key range the query has to read.
 *
 * Field values are native (u64, i64 or text); binding them to a schema's
 * field types is bind.c's job. Nothing here allocates per operation.
 */
#ifndef RK_ANALYZE_WORKLOAD_H
#define RK_ANALYZE_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/analyze.h>

typedef enum { RK__W_U64 = 1, RK__W_I64 = 2, RK__W_STR = 3 } rk__wkind;

typedef struct rk__wval {
	int ext;        /* 0: a value; -1: the smallest of its type; +1: the largest;
	                   2: absent (a file record without the field) */
	uint64_t u;     /* U64 */
	int64_t i;      /* I64 */
	const char *s;  /* STR: borrowed from the workload until the next call */
	size_t len;
} rk__wval;

typedef struct rk__wfield {
	char name[64];
	rk__wkind kind;
} rk__wfield;

typedef struct rk__workload rk__workload;

/* Opens the workload named in o (validated: rate, duration, fraction).
 * RK_ENOTFOUND for an unknown name or a missing file. */
int rk__workload_open(rk__workload **out, const rk_workload_options *o);
void rk__workload_close(rk__workload *w);

/* Restarts the stream from its first operation (same seed, same ops). */
int rk__workload_rewind(rk__workload *w);

size_t rk__workload_nfields(const rk__workload *w);
const rk__wfield *rk__workload_field(const rk__workload *w, size_t i);
const char *rk__workload_name(const rk__workload *w);

/* Query shapes: count and names (static). */
size_t rk__workload_nshapes(const rk__workload *w);
const char *rk__workload_shape(const rk__workload *w, size_t i);

/* The workload's "fields ..." directive and an obvious key template (what a
 * first design would write), for suggestions. Borrowed. */
const char *rk__workload_fields_text(const rk__workload *w);
const char *rk__workload_natural_key(const rk__workload *w);

/* Total operations and virtual duration in ms (known when opened). */
uint64_t rk__workload_total(const rk__workload *w);
int64_t rk__workload_duration_ms(const rk__workload *w);
double rk__workload_rate(const rk__workload *w);

/* The next operation: *t_ms its virtual time, *shape -1 for a write (values
 * in rk__workload_rec) or a shape index for a read (bounds in lo / hi).
 * Returns 0, RK_EITEROVER after the last one, or an error (file input). */
int rk__workload_next(rk__workload *w, int64_t *t_ms, int *shape);

/* Fills lo / hi with a query of `shape` at virtual time t_ms (used to price
 * query shapes after a run). Draws from a separate random stream. */
void rk__workload_query(rk__workload *w, int shape, int64_t t_ms);

const rk__wval *rk__workload_rec(const rk__workload *w);
const rk__wval *rk__workload_lo(const rk__workload *w);
const rk__wval *rk__workload_hi(const rk__workload *w);

/* ---- random numbers (shared with the simulator) ---- */

typedef struct rk__rng {
	uint64_t s[2];
} rk__rng;

void rk__rng_seed(rk__rng *r, uint64_t seed);
uint64_t rk__rng_next(rk__rng *r);
double rk__rng_unit(rk__rng *r); /* [0, 1) */

#endif
