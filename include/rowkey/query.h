/*
 * rowkey/query.h: running a planned query (rk_plan_build in key.h) against a
 * table (store.h): point gets, or scan streams read in parallel and merged
 * in logical order (the order of the keys' logical forms, rk_key_logical:
 * the key without its salt, bucket and hash parts; ties by the whole key),
 * or sorted when the plan's ranges cannot give that order; decoded through
 * the schema and filtered by the residual predicate, with the limit applied
 * last.
 */
#ifndef ROWKEY_QUERY_H
#define ROWKEY_QUERY_H

#include <rowkey/key.h>
#include <rowkey/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A plan's ORDER BY (rk_plan.order_by) overrides `unordered` and
 * `reverse`; its LIMIT (rk_plan.limit) and `limit` both apply (the
 * smaller wins). */
typedef struct rk_query_options {
	uint64_t limit;     /* most rows returned, after the merge and the filter (0: all) */
	int unordered;      /* 1: stream rows as they arrive, no merge */
	int reverse;        /* 1: descending logical order */
	rk_read_options read; /* columns, versions, time range of the cells returned */
} rk_query_options;

#define RK_QUERY_OPTIONS_INIT { 0, 0, 0, RK_READ_OPTIONS_INIT }

typedef struct rk_query rk_query;

/* One result: the stored row and its key decoded into the schema's fields.
 * Both are borrowed from the query: valid until the next rk_query_next or
 * rk_query_close. */
typedef struct rk_query_row {
	const rk_row *row;
	const rk_value *fields;
} rk_query_row;

/* Starts a query. Borrows table, schema, plan and predicate, which must
 * outlive the query. Scan streams start reading at once, each in its own
 * thread, holding at most a small fixed number of rows ahead. A plan whose
 * ranges do not return rows in logical order (rk_plan.ordered 0, or more
 * than 256 streams), or whose ORDER BY the key cannot give (RK_ORDER_SORT),
 * reads every row before the first is returned and sorts them (by the
 * ORDER BY field's value, ties in logical order; or in logical order), in
 * memory up to 64 MiB of rows and in temporary files ($TMPDIR, else /tmp;
 * unlinked at once) past that. RK_EINVALID when the plan must sort by a
 * field its keys do not carry. The caller owns *out and frees it with
 * rk_query_close. */
int rk_query_open(rk_query **out, rk_table *table, const rk_schema *schema, const rk_plan *plan,
                  const rk_predicate *pred, const rk_query_options *opts);

/* The next result in the ORDER BY's order, else in logical order
 * (descending with `reverse`; as they come with `unordered`), or
 * RK_EITEROVER. A stored row whose key does not
 * decode under the schema is RK_ECORRUPT naming the key; a failed read
 * returns its error (a damaged table block: RK_ECORRUPT naming the file). */
int rk_query_next(rk_query_row *out, rk_query *q);

/* Rows read from the store so far (before the residual filter), by the
 * streams as they read ahead: with a limit and no residual filter, a
 * stream whose rows come in order reads at most the limit; a sort reads
 * every row the plan's ranges hold. */
uint64_t rk_query_rows_read(const rk_query *q);

/* Stops the streams and frees the query. */
void rk_query_close(rk_query *q);

#ifdef __cplusplus
}
#endif
#endif
