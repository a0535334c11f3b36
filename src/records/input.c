/*
 * The records reader's input and cells, under both dialects (reader.c's
 * CSV and TSV, json.c's JSON lines): bytes from a 64 KiB buffer, counted
 * into lines and columns for error positions, and the cells of a record
 * unescaped into one growing buffer, each followed by a NUL. While a record
 * is read cells hold offsets (the buffer may move). Past max_record bytes
 * the reader stops keeping bytes and only finds the record's end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "records/reader_int.h"

/* Refills the input buffer; 0, or RK_EIO naming the input. */
static int refill(rk_rec *r)
{
	if (r->eof)
		return 0;
	errno = 0;
	r->ilen = fread(r->ibuf, 1, sizeof r->ibuf, r->in);
	r->ipos = 0;
	if (r->ilen == 0) {
		if (ferror(r->in))
			return rk__err(RK_EIO, "%s: line %ld: reading the input failed: %s", r->name, r->line,
			               errno ? strerror(errno) : "read error");
		r->eof = 1;
	}
	return 0;
}

int rk_rec__peek(rk_rec *r)
{
	if (r->ipos == r->ilen) {
		int rc = refill(r);
		if (rc)
			return rc == RK_EIO ? -2 : -1;
		if (r->eof)
			return -1;
	}
	return (unsigned char)r->ibuf[r->ipos];
}

void rk_rec__skip(rk_rec *r)
{
	char c = r->ibuf[r->ipos++];
	r->offset++;
	r->rec_bytes++;
	if (c == '\n') {
		r->line++;
		r->col = 1;
	} else {
		r->col++;
	}
}

/* ---- the cell buffer ---- */

int rk_rec__put(rk_rec *r, char c)
{
	if (r->rec_bytes > r->max_record) {
		r->over = 1;
		return 0;
	}
	if (r->len + 2 > r->cap) {
		size_t n = r->cap ? r->cap * 2 : 4096;
		char *b = realloc(r->buf, n);
		if (!b)
			return rk__err(RK_ENOMEM, "%s: line %ld: out of memory", r->name, r->rec_line);
		r->buf = b;
		r->cap = n;
	}
	r->buf[r->len++] = c;
	return 0;
}

int rk_rec__cell_begin(rk_rec *r, rk_cell_kind kind, uint32_t col)
{
	if (r->ncells == RK_REC_MAX_CELLS)
		return rk__err(RK_EINVALID, "%s: line %ld: more than %d cells", r->name, r->rec_line,
		               RK_REC_MAX_CELLS);
	if (r->ncells == r->capcells) {
		size_t n = r->capcells ? r->capcells * 2 : 16;
		rk_rec_cell *c = realloc(r->cells, n * sizeof *c);
		size_t *o = realloc(r->cell_off, n * 2 * sizeof *o);
		if (c)
			r->cells = c;
		if (o)
			r->cell_off = o;
		if (!c || !o)
			return rk__err(RK_ENOMEM, "%s: line %ld: out of memory", r->name, r->rec_line);
		r->capcells = n;
	}
	rk_rec_cell *x = &r->cells[r->ncells];
	memset(x, 0, sizeof *x);
	x->kind = kind;
	x->col = col;
	r->cell_off[2 * r->ncells] = r->len;
	r->cell_off[2 * r->ncells + 1] = (size_t)-1; /* no name */
	return 0;
}

int rk_rec__cell_end(rk_rec *r)
{
	rk_rec_cell *x = &r->cells[r->ncells];
	x->len = r->len - r->cell_off[2 * r->ncells];
	int rc = rk_rec__put(r, 0);
	r->ncells++;
	return rc;
}

void rk_rec__cell_name(rk_rec *r, size_t name_off, size_t name_len)
{
	r->cell_off[2 * r->ncells + 1] = name_off;
	r->cells[r->ncells].name_len = name_len;
}
