/*
 * Row assembly: turns the cells of one row, in cell-key order, into the
 * visible row a read returns. It applies delete markers (family, column,
 * single version: older stores have them), each family's GC rule, the time
 * range, the column filter and the requested number of versions. Backend-neutral: any backend
 * that can produce a row's cells in cell-key order uses it.
 */
#ifndef RK_STORE_ROWASM_H
#define RK_STORE_ROWASM_H

#include "store/backend.h"
#include "store/cell.h"

/* A growable row: bytes plus cells pointing into them once finished. */
typedef struct rk__rowbuf {
	uint8_t *data;
	size_t len, cap;
	struct rk__rowent {
		const char *family;
		size_t qual_off, qual_len, val_off, val_len;
		uint64_t ts;
	} *ents;
	size_t nents, cap_ents;
	rk_cell *cells;
	size_t cap_cells;
	size_t key_off, key_len;
	rk_row row; /* valid after rk_rowasm__finish until the next begin */
} rk__rowbuf;

typedef struct rk__rowasm {
	const rk_table *table;
	const rk_read_options *ro;
	rk__rowbuf *out;
	const rk__family *fam;  /* current family, NULL before the first */
	int fam_known;          /* a family is current (fam may be NULL if unknown) */
	int fam_skip;
	uint64_t fam_del_ts;
	uint8_t *qual;          /* current column's escaped qualifier */
	size_t qual_len, qual_cap;
	int col_valid, col_skip;
	uint64_t col_del_ts, cell_del_ts;
	unsigned rank, returned;
	uint64_t now;           /* for age rules: wall clock when the read began (0: not
	                           read yet, after rk_rowasm__reinit) */
	uint8_t *tmp;           /* unescape scratch */
	size_t tmp_cap;
} rk__rowasm;

void rk_rowasm__init(rk__rowasm *a, const rk_table *t, const rk_read_options *ro, rk__rowbuf *out);
void rk_rowasm__fini(rk__rowasm *a);
/* As rk_rowasm__init, keeping the buffers an earlier use allocated; the
 * clock is read only when a cell meets an age rule. */
void rk_rowasm__reinit(rk__rowasm *a, const rk_table *t, const rk_read_options *ro,
                       rk__rowbuf *out);
void rk_rowbuf__fini(rk__rowbuf *b);

/* Starts a row; `row` is the unescaped row key. */
int rk_rowasm__begin(rk__rowasm *a, const uint8_t *row, size_t len);

/* Starts a row whose key the caller writes itself: returns room for `cap`
 * bytes at which to write the unescaped row key (NULL: out of memory, the
 * error set), then tells its length with rk_rowasm__set_key_len before the
 * first rk_rowasm__add. */
uint8_t *rk_rowasm__begin_raw(rk__rowasm *a, size_t cap);
void rk_rowasm__set_key_len(rk__rowasm *a, size_t len);

/* What a cell of the current row is to a reader (cells in cell-key order,
 * as for rk_rowasm__add, which calls this): a family or column the read
 * does not want or the table does not know; a delete marker (older stores);
 * a version a marker hides; one its family's GC rule collects; one kept
 * (before the read's time range and version count). A negative RK_E* code
 * when out of memory. */
enum { RK_VIS_SKIP = 1, RK_VIS_MARKER, RK_VIS_MASKED, RK_VIS_COLLECTED, RK_VIS_KEEP };
int rk_rowasm__verdict(rk__rowasm *a, const rk__cellkey *ck);

/* Feeds one cell of the current row (cells in cell-key order). */
int rk_rowasm__add(rk__rowasm *a, const rk__cellkey *ck, const uint8_t *val, size_t vlen);

/* Ends the row: out->row is the view; returns the number of visible cells. */
size_t rk_rowasm__finish(rk__rowasm *a);

/* Copies a finished row view into one allocation the caller frees with free(). */
int rk_rowbuf__copy(rk_row **out, const rk_row *row);

/* Bytes a finished row accounts for in metrics (key + values). */
uint64_t rk_rowbuf__bytes(const rk__rowbuf *b);

#endif
