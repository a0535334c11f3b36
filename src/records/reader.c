/*
 * The records reader (see reader.h): CSV and TSV by a byte-at-a-time state
 * machine over input.c's buffer (a quoted cell may span lines, and CR and LF
 * inside quotes are data), JSON lines by json.c over one bounded line; the
 * header, and a record's cells turned into pointers once it is complete;
 * LINES, one line a cell, for inputs of one item a line.
 */
#include "records/reader.h"
#include "records/reader_int.h"

#include <stdlib.h>
#include <string.h>

#include "key/error.h"

int rk_rec__format_parse(rk_rec_format *out, const char *s)
{
	if (!strcmp(s, "csv"))
		*out = RK_REC_CSV;
	else if (!strcmp(s, "tsv"))
		*out = RK_REC_TSV;
	else if (!strcmp(s, "jsonl") || !strcmp(s, "json"))
		*out = RK_REC_JSONL;
	else
		return rk__err(RK_EINVALID, "unknown record format '%s' (csv, tsv, jsonl)", s);
	return 0;
}

/* Offsets to pointers, once the buffer no longer moves. */
static void fix_cells(rk_rec *r)
{
	for (size_t i = 0; i < r->ncells; i++) {
		r->cells[i].p = r->buf + r->cell_off[2 * i];
		size_t no = r->cell_off[2 * i + 1];
		r->cells[i].name = no == (size_t)-1 ? NULL : r->buf + no;
	}
}

/* ---- CSV and TSV ---- */

/* Consumes the rest of a record after an error in it (to the next LF). */
static int skip_line(rk_rec *r)
{
	int c;
	while ((c = rk_rec__peek(r)) >= 0) {
		rk_rec__skip(r);
		if (c == '\n')
			return 0;
	}
	return c == -2 ? RK_EIO : 0;
}

/* RFC 4180 allows CR only inside quotes or before LF: a lone one is refused
 * (it is not taken for a line end, nor kept as data unquoted). */
static int lone_cr(rk_rec *r)
{
	int rc = rk__err(RK_EINVALID, "%s: line %ld, column %u: a CR outside quotes that does not end "
	                              "the line (quote the cell to keep it)",
	                 r->name, r->line, r->col - 1);
	int s = skip_line(r);
	return s ? s : rc;
}

/* Ends an unquoted cell at sep, LF, CRLF or the end. Returns 1 when the
 * record ends, 0 when another cell follows, or an error. */
static int csv_plain(rk_rec *r, char sep)
{
	int c, rc;
	for (;;) {
		c = rk_rec__peek(r);
		if (c == -2)
			return RK_EIO;
		if (c < 0)
			return 1;
		rk_rec__skip(r);
		if (c == sep)
			return 0;
		if (c == '\n')
			return 1;
		if (c == '\r') {
			if (rk_rec__peek(r) != '\n')
				return lone_cr(r);
			rk_rec__skip(r);
			return 1;
		}
		if ((rc = rk_rec__put(r, (char)c)) != 0)
			return rc;
	}
}

/* A quoted cell, the opening quote consumed: to its closing quote, then what
 * follows must end the cell. */
static int csv_quoted(rk_rec *r, char sep, long qline, uint32_t qcol)
{
	int c, rc;
	for (;;) {
		c = rk_rec__peek(r);
		if (c == -2)
			return RK_EIO;
		if (c < 0)
			return rk__err(RK_EINVALID, "%s: line %ld, column %u: the quoted cell never ends",
			               r->name, qline, qcol);
		rk_rec__skip(r);
		if (c == '"') {
			if (rk_rec__peek(r) != '"')
				break;
			rk_rec__skip(r);
		}
		if ((rc = rk_rec__put(r, (char)c)) != 0)
			return rc;
	}
	c = rk_rec__peek(r);
	if (c == -2)
		return RK_EIO;
	if (c < 0)
		return 1;
	if (c == sep || c == '\n') {
		rk_rec__skip(r);
		return c == '\n';
	}
	if (c == '\r') {
		rk_rec__skip(r);
		if (rk_rec__peek(r) == '\n') {
			rk_rec__skip(r);
			return 1;
		}
	}
	rc = rk__err(RK_EINVALID, "%s: line %ld, column %u: text after the closing quote of a cell",
	             r->name, r->line, r->col);
	int s = skip_line(r);
	return s ? s : rc;
}

static int delimited_record(rk_rec *r)
{
	char sep = r->fmt == RK_REC_TSV ? '\t' : ',';
	int c, rc, end = 0;
	/* blank lines between records */
	for (;;) {
		c = rk_rec__peek(r);
		if (c == -2)
			return RK_EIO;
		if (c < 0)
			return RK_EITEROVER;
		if (c == '\n') {
			rk_rec__skip(r);
			continue;
		}
		if (c == '\r') {
			rk_rec__skip(r);
			if (rk_rec__peek(r) == '\n') {
				rk_rec__skip(r);
				continue;
			}
			return lone_cr(r);
		}
		break;
	}
	r->rec_line = r->line;
	r->rec_offset = r->offset;
	r->rec_bytes = 0;
	while (!end) {
		uint32_t col = r->col;
		if ((rc = rk_rec__cell_begin(r, RK_CELL_TEXT, col)) != 0) {
			int s = skip_line(r);
			return s ? s : rc;
		}
		if (sep == ',' && rk_rec__peek(r) == '"') {
			rk_rec__skip(r);
			end = csv_quoted(r, sep, r->line, col);
		} else {
			end = csv_plain(r, sep);
		}
		if (end < 0)
			return end;
		if ((rc = rk_rec__cell_end(r)) != 0)
			return rc;
	}
	return 0;
}

/* ---- lines ---- */

/* One line as one cell. Unlike CSV's plain cell, a CR inside the line is
 * data: what the bytes mean is the caller's business. */
static int lines_record(rk_rec *r)
{
	int c = rk_rec__peek(r), rc;
	if (c == -2)
		return RK_EIO;
	if (c < 0)
		return RK_EITEROVER;
	r->rec_line = r->line;
	r->rec_offset = r->offset;
	r->rec_bytes = 0;
	if ((rc = rk_rec__cell_begin(r, RK_CELL_TEXT, r->col)) != 0)
		return rc;
	while ((c = rk_rec__peek(r)) >= 0) {
		rk_rec__skip(r);
		if (c == '\n')
			break;
		if ((rc = rk_rec__put(r, (char)c)) != 0)
			return rc;
	}
	if (c == -2)
		return RK_EIO;
	if (r->len > r->cell_off[0] && r->buf[r->len - 1] == '\r')
		r->len--;
	return rk_rec__cell_end(r);
}

/* ---- open, next, close ---- */

static int read_header(rk_rec *r)
{
	int rc = delimited_record(r);
	if (rc == RK_EITEROVER)
		return rk__err(RK_EINVALID, "%s: the input is empty (no header line)", r->name);
	if (rc)
		return rc;
	if (r->over)
		return rk__err(RK_ETOOLONG, "%s: line 1: the header is longer than %zu bytes", r->name,
		               r->max_record);
	fix_cells(r);
	r->ncols = r->ncells;
	if (!(r->cols = calloc(r->ncols, sizeof *r->cols)) ||
	    !(r->col_len = calloc(r->ncols, sizeof *r->col_len)))
		return rk__err(RK_ENOMEM, "%s: out of memory for the header", r->name);
	for (size_t i = 0; i < r->ncols; i++) {
		if (!(r->cols[i] = malloc(r->cells[i].len + 1)))
			return rk__err(RK_ENOMEM, "%s: out of memory for the header", r->name);
		memcpy(r->cols[i], r->cells[i].p, r->cells[i].len + 1);
		r->col_len[i] = r->cells[i].len;
	}
	for (size_t i = 0; i < r->ncols; i++) {
		if (r->col_len[i] == 0)
			return rk__err(RK_EINVALID, "%s: line 1, column %u: header column %zu has no name (the header: %s)",
			               r->name, r->cells[i].col, i + 1, rk_rec__header_text(r));
		for (size_t k = 0; k < i; k++)
			if (r->col_len[k] == r->col_len[i] && !memcmp(r->cols[k], r->cols[i], r->col_len[i]))
				return rk__err(RK_EINVALID,
				               "%s: line 1: the header names column '%s' twice (columns %zu and %zu; "
				               "the header: %s)",
				               r->name, r->cols[i], k + 1, i + 1, rk_rec__header_text(r));
	}
	return 0;
}

/* A file named *.tsv or *.tab holds tab-separated values (what a user who
 * names it so means, and what a CSV reader would take as one column). */
static int tsv_name(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	return n > 4 && (!strcmp(name + n - 4, ".tsv") || !strcmp(name + n - 4, ".tab") ||
	                 !strcmp(name + n - 4, ".TSV"));
}

int rk_rec__open(rk_rec **out, FILE *in, const rk_rec_options *o)
{
	rk_rec_options def = RK_REC_OPTIONS_INIT;
	int rc;
	*out = NULL;
	if (!o)
		o = &def;
	rk_rec *r = calloc(1, sizeof *r);
	if (!r)
		return rk__err(RK_ENOMEM, "out of memory for a records reader");
	r->in = in;
	r->line = 1;
	r->col = 1;
	r->max_record = o->max_record ? o->max_record : RK_REC_MAX_RECORD_DEFAULT;
	snprintf(r->name, sizeof r->name, "%s", o->name ? o->name : "<stdin>");
	r->fmt = o->format;
	/* a UTF-8 byte order mark is not data */
	if (rk_rec__peek(r) == 0xef && r->ilen - r->ipos >= 3 &&
	    !memcmp(r->ibuf + r->ipos, "\xef\xbb\xbf", 3)) {
		r->ipos += 3;
		r->offset += 3;
	}
	if (rk_rec__peek(r) == -2) { /* fills the buffer the sniffing below reads */
		rc = RK_EIO;
		goto fail;
	}
	if (!r->fmt) {
		size_t k = r->ipos;
		while (k < r->ilen && (r->ibuf[k] == ' ' || r->ibuf[k] == '\t' || r->ibuf[k] == '\n' ||
		                       r->ibuf[k] == '\r'))
			k++;
		r->fmt = k < r->ilen && r->ibuf[k] == '{' ? RK_REC_JSONL
		       : tsv_name(o->name)                 ? RK_REC_TSV
		                                           : RK_REC_CSV;
	}
	r->header = (r->fmt == RK_REC_CSV || r->fmt == RK_REC_TSV) && o->header;
	if (r->header && (rc = read_header(r)) != 0)
		goto fail;
	*out = r;
	return 0;
fail:
	rk_rec__close(r);
	return rc;
}

void rk_rec__close(rk_rec *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->cols && i < r->ncols; i++)
		free(r->cols[i]);
	free(r->cols);
	free(r->col_len);
	free(r->header_text);
	free(r->buf);
	free(r->line_buf);
	free(r->cells);
	free(r->cell_off);
	free(r);
}

int rk_rec__next(rk_rec *r, rk_record *rec)
{
	int rc;
	r->len = 0;
	r->ncells = 0;
	r->over = 0;
	rc = r->fmt == RK_REC_JSONL   ? rk_rec__json_record(r)
	     : r->fmt == RK_REC_LINES ? lines_record(r)
	                              : delimited_record(r);
	if (rc == 0 && r->over)
		rc = rk__err(RK_ETOOLONG, "%s: line %ld: the %s is longer than %zu bytes (the limit; "
		                          "see --max-record)",
		             r->name, r->rec_line, r->fmt == RK_REC_LINES ? "line" : "record", r->max_record);
	if (rc == 0 && r->header && r->ncells != r->ncols)
		rc = rk__err(RK_EINVALID, "%s: line %ld: %zu cells, but the header names %zu columns (%s)",
		             r->name, r->rec_line, r->ncells, r->ncols, rk_rec__header_text(r));
	if (rc)
		return rc;
	fix_cells(r);
	rec->n = r->ncells;
	rec->cell = r->cells;
	rec->line = r->rec_line;
	rec->offset = r->rec_offset;
	r->count++;
	return 0;
}

rk_rec_format rk_rec__format(const rk_rec *r)
{
	return r->fmt;
}

size_t rk_rec__ncolumns(const rk_rec *r)
{
	return r->header ? r->ncols : 0;
}

const char *rk_rec__column(const rk_rec *r, size_t i, size_t *len)
{
	if (len)
		*len = r->col_len[i];
	return r->cols[i];
}

const char *rk_rec__header_text(rk_rec *r)
{
	if (r->header_text)
		return r->header_text;
	size_t n = 1;
	for (size_t i = 0; i < r->ncols; i++)
		n += r->col_len[i] + 2;
	if (!(r->header_text = malloc(n)))
		return "(out of memory)";
	size_t o = 0;
	for (size_t i = 0; i < r->ncols; i++) {
		if (i) {
			memcpy(r->header_text + o, ", ", 2);
			o += 2;
		}
		memcpy(r->header_text + o, r->cols[i], r->col_len[i]);
		o += r->col_len[i];
	}
	r->header_text[o] = 0;
	return r->header_text;
}

const char *rk_rec__name(const rk_rec *r)
{
	return r->name;
}

long rk_rec__line(const rk_rec *r)
{
	return r->rec_line;
}

uint64_t rk_rec__count(const rk_rec *r)
{
	return r->count;
}

uint64_t rk_rec__bytes(const rk_rec *r)
{
	return r->offset;
}
