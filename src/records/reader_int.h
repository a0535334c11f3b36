/*
 * The records reader's private state, shared by input.c (input, cells),
 * reader.c (CSV/TSV, the header) and json.c (JSON lines).
 */
#ifndef RK_RECORDS_READER_INT_H
#define RK_RECORDS_READER_INT_H

#include "records/reader.h"

struct rk_rec {
	FILE *in;
	char name[256];
	rk_rec_format fmt;
	int header;
	size_t max_record;
	/* input */
	char ibuf[1 << 16];
	size_t ipos, ilen;
	int eof;
	uint64_t offset; /* bytes consumed */
	long line;       /* line of the next byte */
	uint32_t col;    /* its column */
	/* the record being read */
	long rec_line;
	uint64_t rec_offset;
	size_t rec_bytes; /* raw bytes of the record so far */
	int over;         /* past max_record: bytes no longer kept */
	char *buf;        /* cell bytes, NUL after each */
	size_t len, cap;
	rk_rec_cell *cells;
	size_t *cell_off; /* 2 per cell: value offset, name offset (or -1) */
	size_t ncells, capcells;
	char *line_buf;   /* JSON lines: the raw line */
	size_t line_len, line_cap;
	/* header */
	char **cols;
	size_t *col_len, ncols;
	char *header_text;
	uint64_t count;
};

/* ---- input.c ---- */

/* The next input byte without consuming it; -1 at the end, -2 on a read
 * error (the message is set). */
int rk_rec__peek(rk_rec *r);
/* Consumes the byte peek returned (counts lines, columns, record bytes). */
void rk_rec__skip(rk_rec *r);

/* Appends a byte to the current cell (dropped past max_record). */
int rk_rec__put(rk_rec *r, char c);
/* Starts and ends a cell; a JSON member's name is set between the two. */
int rk_rec__cell_begin(rk_rec *r, rk_cell_kind kind, uint32_t col);
int rk_rec__cell_end(rk_rec *r);
void rk_rec__cell_name(rk_rec *r, size_t name_off, size_t name_len);

/* ---- json.c ---- */

/* Reads one JSON lines record. */
int rk_rec__json_record(rk_rec *r);

#endif
