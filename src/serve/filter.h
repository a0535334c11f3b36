/*
 * RowFilter evaluation for `rowkey serve` (issue 10): the Bigtable v2
 * RowFilter (google/bigtable/v2/data.proto) compiled once per request and
 * applied to one row at a time, by ReadRows (the filter of the request) and
 * by CheckAndMutateRow (its predicate filter).
 *
 * This header is the contract between the server (src/serve/server*.c,
 * which reads rows from the store and streams them) and the filter module
 * (src/serve/filter.c). The server reads every visible version of every
 * column of a row (newest first within a column, columns ordered by family
 * name then qualifier bytes) and hands them over as rk_sv_cell; the filter
 * returns the cells that pass, in the order Bigtable returns them, with
 * their labels and with values stripped where a transformer says so.
 *
 * Regular expressions are RE2 syntax matched against the whole field, as
 * Bigtable does, through a packaged regex library (never a hand-written
 * matcher); a pattern that does not compile is INVALID_ARGUMENT naming the
 * filter and the pattern's error.
 *
 * A filter the module does not implement, or a RowFilter whose oneof case is
 * unknown to our proto subset (protobuf-c keeps it among unknown fields), is
 * refused at compile time with UNIMPLEMENTED naming it (its field name, or
 * its field number when the subset does not know it): never ignored.
 *
 * Errors are reported as a gRPC status code (grpc_status_code values: 3
 * INVALID_ARGUMENT, 12 UNIMPLEMENTED, 8 RESOURCE_EXHAUSTED ...) plus a
 * message naming the filter by its path, e.g. "filter.chain.filters[2].
 * value_regex_filter: missing ) at end of pattern".
 */
#ifndef RK_SERVE_FILTER_H
#define RK_SERVE_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "bt_data.pb-c.h"

/* Deepest nesting of chains / interleaves / conditions accepted; deeper is
 * INVALID_ARGUMENT (a request of depth 1000 must neither overflow the stack
 * here nor in the protobuf decoder: the server bounds the request size). */
#define RK_SV_FILTER_MAX_DEPTH 64

/* One cell of a row, as the server hands it in and as the filter hands it
 * out. Out cells point into the in cells' memory or into the compiled
 * filter (labels), both valid until the next call / the filter's free. */
typedef struct rk_sv_cell {
	const char *family;       /* NUL-terminated */
	const uint8_t *qualifier;
	size_t qualifier_len;
	int64_t ts;               /* microseconds */
	const uint8_t *value;     /* value_len 0 after strip_value_transformer */
	size_t value_len;
	const char *label;        /* apply_label_transformer's label, or NULL */
} rk_sv_cell;

/* The cells that pass, owned by the caller: reuse it from row to row (the
 * filter grows it; reset with n = 0), free(cells) at the end. */
typedef struct rk_sv_cells {
	rk_sv_cell *cells;
	size_t n, cap;
} rk_sv_cells;

typedef struct rk_sv_filter rk_sv_filter;

/* Compiles `f` (NULL: pass everything). On success *out is owned by the
 * caller (rk_sv__filter_free) and 0 is returned. On failure returns a
 * negative RK_E* code, sets *grpc_code to the status to answer with and
 * writes a NUL-terminated message (naming the filter) into err[errcap];
 * *out is NULL. */
int rk_sv__filter_compile(rk_sv_filter **out, const Rkbt__RowFilter *f, int *grpc_code,
                          char *err, size_t errcap);

/* Applies the filter to one row: key[key_len] and its cells in[0..n) in the
 * order described above. Appends the passing cells to *out (after setting
 * out->n = 0). Returns 0, or RK_ENOMEM. The filter keeps no state between
 * rows (a rows_limit is the server's business); a sink filter's cells are
 * included in *out as Bigtable does. Thread-safe on a shared compiled
 * filter (per-call state only). */
int rk_sv__filter_row(rk_sv_cells *out, const rk_sv_filter *f, const uint8_t *key,
                      size_t key_len, const rk_sv_cell *in, size_t n);

void rk_sv__filter_free(rk_sv_filter *f);

#endif
