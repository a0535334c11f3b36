/*
 * Record readers for the command line: CSV (RFC 4180 quoting), TSV and JSON
 * lines, one record per call, as a list of cells (name when the input names
 * them, and text). Used by encode, load and anything that reads records.
 * Errors name the line and column.
 */
#ifndef RK_CLI_RECORDS_H
#define RK_CLI_RECORDS_H

#include <stddef.h>
#include <stdio.h>

#include <rowkey/key.h>

typedef enum { RK_FMT_CSV = 1, RK_FMT_TSV, RK_FMT_JSONL } rk_rec_format;

#define RK_REC_MAX_CELLS 256

typedef struct rk_reader {
	FILE *in;
	rk_rec_format fmt;
	long line;      /* line number of the record just read (1-based) */
	char *buf;      /* the record's raw line(s) */
	size_t cap;
	char *cellbuf;  /* unescaped cell text */
	size_t cellcap;
	size_t ncells;
	const char *cell[RK_REC_MAX_CELLS];
	size_t cell_len[RK_REC_MAX_CELLS];
	const char *name[RK_REC_MAX_CELLS]; /* JSON keys; NULL for CSV/TSV */
	size_t name_len[RK_REC_MAX_CELLS];
	/* CSV/TSV header mapping: column -> field index, or -1 */
	int header;     /* 1 when the first line named the fields */
	int colfield[RK_REC_MAX_CELLS];
	size_t header_cells;
} rk_reader;

int rk_rec_format_parse(rk_rec_format *out, const char *s);

/* Opens a reader on `in` (borrowed). header_mode: 1 the first line names the
 * fields, 0 positional, -1 detect (a first line whose every cell is a field
 * name of the schema). Caller frees with rk_reader_close. */
int rk_reader_open(rk_reader *r, FILE *in, rk_rec_format fmt, const rk_schema *s, int header_mode);
void rk_reader_close(rk_reader *r);

/* Writes one note per header column that names no schema field, and one when
 * the header's order differs from the schema's (columns map by name). */
void rk_reader_note_ignored(const rk_reader *r, FILE *out, const char *cmd);

/* Reads the next record into `values` (rk_schema_nfields() of them, missing
 * ones present = 0). Returns 0, RK_EITEROVER at the end, RK_EINVALID with
 * "line N: ..." naming the field (a bad record: the next call reads on), or
 * RK_EIO / RK_ENOMEM when the input cannot be read (fatal: stop). Values borrow the reader's buffers until
 * the next call. */
int rk_reader_next(rk_reader *r, rk_value *values, const rk_schema *s);

/* Writes bytes in the escaped text form: printable ASCII as is except '\',
 * everything else as \xNN. */
void rk_write_escaped(FILE *out, const uint8_t *p, size_t n);

/* Parses the escaped text form back into bytes (out has room for n bytes). */
int rk_parse_escaped(uint8_t *out, size_t *outlen, const char *p, size_t n);

/* Parses hex (even length) into bytes. */
int rk_parse_hex(uint8_t *out, size_t *outlen, const char *p, size_t n);

/* Writes a field value: escaped text (TSV) or a JSON value; a missing value
 * is empty in TSV and null in JSON; inf and NaN are JSON strings. */
void rk_write_value(FILE *out, rk_type t, const rk_value *v, int json);

/* Writes a JSON string literal. */
void rk_write_json_string(FILE *out, const uint8_t *p, size_t n);

#endif
