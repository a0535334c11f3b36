/*
 * Row filters (rk_filter in store.h) as the store runs them: checked and
 * compiled once per call (regexes compiled), then applied row by row by
 * store.c's reads (any backend) and by the local store's check-and-mutate.
 * Backend-neutral.
 */
#ifndef RK_STORE_FILTER_H
#define RK_STORE_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/store.h>

typedef struct rk__filter rk__filter;

/* Compiles f. RK_EINVALID naming the filter by its path ("filter.chain.
 * filters[2].value_regex_filter: bad RE2 pattern: ...") when it is refused;
 * RK_ENOMEM. The caller owns *out (rk__filter_free). */
int rk__filter_compile(rk__filter **out, const rk_filter *f);
void rk__filter_free(rk__filter *f);

/* A growable array of cells the caller reuses from row to row. */
typedef struct rk__cells {
	rk_cell *v;
	size_t n, cap;
} rk__cells;

/* The cells of row key[key_len] (in[0..n), in row order) that f passes,
 * into out (reset first), in row order. Out cells point into in's memory
 * or the filter's (labels). RK_ENOMEM; RK_ETOOLONG when the filter's work
 * on the row passes its budget (a few times the filter's size times the
 * row's cells: interleaves that feed interleaves multiply cells). Thread
 * safe on a shared compiled filter. */
int rk__filter_row(rk__cells *out, const rk__filter *f, const uint8_t *key, size_t key_len,
                   const rk_cell *in, size_t n);

#endif
