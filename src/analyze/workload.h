/*
 * Workloads for the analyzer: streams of operations in virtual time, from a
 * seeded generator (gen.c: messages, keys, urls, trades, cars, users) or
 * from the records of a file (a dataset, replayed in file order at the
 * data's own pace or a fixed rate). A write carries one record (a value per
 * workload field); a read of a generated workload carries a query shape and
 * two bound records, lo and hi: the fields the query binds hold values, the
 * others hold "the smallest" / "the largest" markers (ext), so encoding lo
 * and hi under a key design gives the key range the query has to read.
 *
 * Every workload also names its query shapes as predicates with ? (shape.c
 * fills and prices them on the data). Field values are native (u64, i64,
 * f64 or text); binding them to a schema's field types is bind.c's job.
 * Nothing here allocates per operation.
 */
#ifndef RK_ANALYZE_WORKLOAD_H
#define RK_ANALYZE_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/analyze.h>

#include "analyze/rng.h"
#include "analyze/wval.h"

typedef struct rk__workload rk__workload;

typedef struct rk__dataset rk__dataset;
typedef struct rk__dataset_options rk__dataset_options;

/* Opens the workload named in o (validated: rate, duration, fraction). A
 * file workload reads its file into a dataset of its own. RK_ENOTFOUND for
 * an unknown name or a missing file. */
int rk__workload_open(rk__workload **out, const rk_workload_options *o);

/* A file workload over a dataset read already (borrowed: it must outlive
 * the workload), so several runs share one read of the file. */
int rk__workload_open_on(rk__workload **out, const rk_workload_options *o, const rk__dataset *d);

/* The dataset a file workload replays (NULL for a generated one). */
const rk__dataset *rk__workload_dataset(const rk__workload *w);
void rk__workload_close(rk__workload *w);

/* Restarts the stream from its first operation (same seed, same ops). */
int rk__workload_rewind(rk__workload *w);

size_t rk__workload_nfields(const rk__workload *w);
const rk__wfield *rk__workload_field(const rk__workload *w, size_t i);
const char *rk__workload_name(const rk__workload *w);

/* Query shapes: count, names, predicates with ? and weights. Generated
 * workloads execute their shapes as reads (rk__workload_query); every
 * workload's shapes are priced by shape.c. Borrowed for the workload's life. */
size_t rk__workload_nshapes(const rk__workload *w);
const char *rk__workload_shape(const rk__workload *w, size_t i);
const char *rk__workload_shape_where(const rk__workload *w, size_t i);
double rk__workload_shape_weight(const rk__workload *w, size_t i);

/* The workload's "fields ..." directive and an obvious key template (what a
 * first design would write), for suggestions. Borrowed. */
const char *rk__workload_fields_text(const rk__workload *w);
const char *rk__workload_natural_key(const rk__workload *w);

/* Total operations and virtual duration in ms (known when opened). A file
 * workload's total is its records (up to the limit); its duration is the
 * data's own span when it replays at its own pace. */
uint64_t rk__workload_total(const rk__workload *w);
int64_t rk__workload_duration_ms(const rk__workload *w);
double rk__workload_rate(const rk__workload *w);
/* 1 when a file replays at its own pace (the time axis is the data's). */
int rk__workload_own_time(const rk__workload *w);
/* Unix ms of virtual time 0 (the first record's time; T0 for generators). */
int64_t rk__workload_t0_ms(const rk__workload *w);

/* The next operation: *t_ms its virtual time, *shape -1 for a write (values
 * in rk__workload_rec) or a shape index for a read (bounds in lo / hi).
 * Returns 0, RK_EITEROVER after the last one, or an error (file input). */
int rk__workload_next(rk__workload *w, int64_t *t_ms, int *shape);

/* Fills lo / hi with a query of `shape` at virtual time t_ms (used to price
 * query shapes after a run). Draws from a separate random stream. */
void rk__workload_query(rk__workload *w, int shape, int64_t t_ms);

/* Holds the writes of workload w as a dataset (its fields and types as
 * they are), from its first operation; w is rewound after. The caller
 * frees *out with rk__dataset_free. */
int rk__workload_hold(rk__dataset **out, rk__workload *w, const rk__dataset_options *o);

const rk__wval *rk__workload_rec(const rk__workload *w);
const rk__wval *rk__workload_lo(const rk__workload *w);
const rk__wval *rk__workload_hi(const rk__workload *w);

#endif
