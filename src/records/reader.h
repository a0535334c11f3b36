/*
 * The records reader: one streaming reader of record files for every part of
 * rowkey that takes records (load, encode, analyze, profile, suggest).
 *
 * Formats, as their definitions say:
 *   CSV   RFC 4180: cells separated by ',', records by LF or CRLF; a cell in
 *         double quotes may hold ',', '"' (doubled), CR and LF, all kept as
 *         written; a UTF-8 byte order mark at the start is skipped.
 *   TSV   cells separated by TAB, no quoting (a cell holds no TAB or LF).
 *   JSONL one JSON object per line (RFC 8259 text, UTF-8); members are flat:
 *         strings, numbers, true, false, null; nested values are refused,
 *         and so is a member named twice.
 *   LINES one cell a line, the line's bytes as they are (without its LF and
 *         a CR before it); a blank line is a record with an empty cell. No
 *         header. For inputs that are not records but one item a line
 *         (decode's keys), so they get the same bound; never sniffed and
 *         not a --format choice.
 *
 * A header (CSV and TSV, on by default) names the columns: it is never data,
 * a name given twice is an error that lists the header, and records must
 * have as many cells as it has names. Without a header, cells are
 * positional. Blank lines between records are skipped (LINES keeps them).
 *
 * Memory is bounded: a record longer than max_record bytes is refused
 * (RK_ETOOLONG) and skipped to its end without being kept, so a 300 MB line
 * costs the limit plus a constant. A bad record (RK_EINVALID, RK_ETOOLONG)
 * is skipped whole and the next call reads on; RK_EIO and RK_ENOMEM end the
 * input. Messages name the input, the line and the column.
 *
 * What the reader does not do: types. Cells are bytes with the kind the
 * format gave them (JSON strings, numbers, booleans, null; CSV text); what a
 * cell means for a schema is map.c's job, and what a column holds is the
 * profiler's.
 */
#ifndef RK_RECORDS_READER_H
#define RK_RECORDS_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { RK_REC_CSV = 1, RK_REC_TSV = 2, RK_REC_JSONL = 3, RK_REC_LINES = 4 } rk_rec_format;

/* What the format said a cell is. CSV and TSV cells are all TEXT. */
typedef enum {
	RK_CELL_TEXT = 1,   /* a CSV/TSV cell or a JSON string */
	RK_CELL_NUMBER = 2, /* a JSON number, as written */
	RK_CELL_BOOL = 3,   /* JSON true / false, text "true" / "false" */
	RK_CELL_NULL = 4    /* JSON null (len 0) */
} rk_cell_kind;

typedef struct rk_rec_cell {
	const char *p;     /* the cell's bytes (unescaped; NUL-terminated for convenience,
	                      but may hold NULs: use len) */
	size_t len;
	rk_cell_kind kind;
	uint32_t col;      /* 1-based column of the cell's first byte in its line */
	const char *name;  /* JSON lines: the member's name (NUL-terminated); NULL otherwise */
	size_t name_len;
} rk_rec_cell;

/* One record: borrowed from the reader until the next call. */
typedef struct rk_record {
	size_t n;
	const rk_rec_cell *cell;
	long line;          /* line on which the record starts (1-based) */
	uint64_t offset;    /* byte offset of its first byte in the input */
} rk_record;

#define RK_REC_MAX_RECORD_DEFAULT (16u << 20) /* 16 MiB */
#define RK_REC_MAX_CELLS 4096

typedef struct rk_rec_options {
	rk_rec_format format; /* 0: by the first byte: '{' is JSON lines, else CSV */
	int header;           /* CSV/TSV: 1 (default) the first record names the columns; 0 none */
	size_t max_record;    /* bytes one record may take; 0: RK_REC_MAX_RECORD_DEFAULT */
	const char *name;     /* names the input in messages; NULL: "<stdin>" */
} rk_rec_options;

#define RK_REC_OPTIONS_INIT {0, 1, 0, NULL}

typedef struct rk_rec rk_rec;

/* Parses "csv", "tsv", "jsonl" (or "json"). RK_EINVALID names the choices. */
int rk_rec__format_parse(rk_rec_format *out, const char *s);

/* Opens a reader on `in` (borrowed: the caller closes it) and reads the
 * header when there is one. The caller owns *out and frees it with
 * rk_rec__close. Errors: a header that is empty, names a column twice or
 * has an empty name (RK_EINVALID), an input that cannot be read (RK_EIO). */
int rk_rec__open(rk_rec **out, FILE *in, const rk_rec_options *o);
void rk_rec__close(rk_rec *r);

/* The format in use (after detection). */
rk_rec_format rk_rec__format(const rk_rec *r);

/* The header's column names (CSV/TSV with a header): count, and name i
 * (NUL-terminated, borrowed for the reader's life). 0 without a header. */
size_t rk_rec__ncolumns(const rk_rec *r);
const char *rk_rec__column(const rk_rec *r, size_t i, size_t *len);

/* The header as "a, b, c" for messages (borrowed, valid until close). */
const char *rk_rec__header_text(rk_rec *r);

/* The input's name, as messages give it. */
const char *rk_rec__name(const rk_rec *r);

/* Reads the next record into *rec. Returns 0, RK_EITEROVER after the last
 * record, RK_EINVALID or RK_ETOOLONG for a bad record (skipped; the next
 * call reads on), or RK_EIO / RK_ENOMEM (the input ends here). */
int rk_rec__next(rk_rec *r, rk_record *rec);

/* The line on which the record last read (or refused) starts. */
long rk_rec__line(const rk_rec *r);

/* Records returned so far (good ones), and the line the reader is on. */
uint64_t rk_rec__count(const rk_rec *r);
uint64_t rk_rec__bytes(const rk_rec *r);

#endif
