/*
 * What query.c (the ordered scatter-gather read) shares with query_sort.c:
 * a row copied out of a scan together with its key's logical form, the
 * logical order, and the sorter for plans whose ranges do not return rows
 * in logical order.
 */
#ifndef RK_STORE_QUERY_INT_H
#define RK_STORE_QUERY_INT_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/key.h>
#include <rowkey/store.h>

/* A row, its key's logical form (rk_key_logical) and, when the stream
 * decoded it, its key's fields, in one allocation: free() frees it. `row`
 * comes first, so a qrow is handed out as an rk_row. */
typedef struct rk__qrow {
	rk_row row;
	const uint8_t *lkey;
	size_t llen;
	const rk_value *fields; /* the schema's fields, or NULL: not decoded yet */
	size_t bytes;           /* the allocation's size */
} rk__qrow;

/* Copies r, its logical form (lkey may be NULL when llen is 0) and the
 * decoded fields[0..nf) (nf 0: none; bit i of strs set: field i is a string
 * or bytes, copied too) into one allocation; NULL when out of memory. */
rk__qrow *rk_qrow__new(const rk_row *r, const uint8_t *lkey, size_t llen, const rk_value *fields,
                       size_t nf, uint64_t strs);

/* Logical order: by logical form, then by whole key; negated when reverse. */
int rk_qrow__cmp(const rk__qrow *a, const rk__qrow *b, int reverse);

/* ---- the sorter ---- */

/* Rows taken in any order and given back in logical order. It holds up to
 * `budget` bytes of rows in memory; past that it writes the rows it holds,
 * sorted, to a temporary file (a run; docs/formats.md part D) and starts
 * again, and gives rows back through a merge of its runs. Memory stays near
 * the budget whatever the number of rows. */
typedef struct rk__qsort rk__qsort;

int rk_qsort__new(rk__qsort **out, size_t budget, int reverse);

/* Takes row r (owned by the sorter from here, also on failure). RK_EIO
 * naming the temporary file when a run cannot be written. */
int rk_qsort__add(rk__qsort *s, rk__qrow *r);

/* No more rows: sorts what is in memory and starts the merge. */
int rk_qsort__finish(rk__qsort *s);

/* The next row in logical order, owned by the caller (free()), or
 * RK_EITEROVER; RK_EIO when a run cannot be read back. */
int rk_qsort__next(rk__qrow **out, rk__qsort *s);

/* Runs written so far (for tests and the bench). */
size_t rk_qsort__runs(const rk__qsort *s);

void rk_qsort__free(rk__qsort *s);

/* ---- ORDER BY a field the key does not order by (query_orderby.c) ---- */

/* Bytes a sort key of schema s's rows may take. */
size_t rk_qorder__cap(const rk_schema *s);

/* A row's sort key: decodes key (fields[0..nfields) get its fields, as
 * rk_key_decode), then writes the field's value in an order-preserving
 * encoding (inverted for desc) followed by the key's logical form into
 * out[0..*len). cap is rk_qorder__cap. RK_ECORRUPT naming the key when it
 * does not decode. */
int rk_qorder__key(uint8_t *out, size_t cap, size_t *len, rk_value *fields, rk_encoder *enc,
                   const rk_schema *s, int field, int desc, const uint8_t *key, size_t klen);

#endif
