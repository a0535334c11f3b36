/*
 * Records onto a schema's fields: which cell feeds which field, and the
 * cell's text as the field's typed value. Used by load and encode.
 *
 * With a header, columns map by name in any order; a field the key needs
 * that the header lacks is an error before anything is read, naming the
 * field and listing the header. Without one (--no-header), cells are the
 * schema's fields in order and a record must have one cell per field. JSON
 * lines map members by name in every record.
 *
 * Types are strict: a JSON boolean is not a number, a JSON number goes into
 * a number field or (as written) a text field, a number that does not fit
 * its field's type is an error, null is a missing value. Text into a number
 * field must be the number's text (JSON strings holding integers are taken,
 * as protobuf's JSON writes 64-bit integers).
 */
#ifndef RK_RECORDS_MAP_H
#define RK_RECORDS_MAP_H

#include <stdio.h>

#include <rowkey/key.h>

#include "records/reader.h"

#define RK_REC_MAP_MAX 64

typedef struct rk_rec_map {
	const rk_schema *schema;
	size_t nf;
	int by_name;               /* JSON lines: members by name */
	int positional;            /* no header: cell i is field i */
	int col[RK_REC_MAP_MAX];   /* header: the column of each field, or -1 */
	int number;                /* the field given each record's number, or -1 */
	uint64_t numbered;         /* records numbered so far */
} rk_rec_map;

/* Maps reader r's columns onto schema s (borrowed; both must outlive m).
 * number (NULL: none) names an unsigned integer field that no column feeds,
 * given each record's number in the input (1, 2, ...): the uniquifier a
 * writer supplies when no field set identifies a record. RK_EINVALID when a
 * field the key needs is missing from the header (the message names the
 * field and lists the header), number is no such field, or the schema has
 * more fields than RK_REC_MAP_MAX. */
int rk_rec__map_init(rk_rec_map *m, rk_rec *r, const rk_schema *s, const char *number);

/* One "note:" line per header column that names no schema field (ignored),
 * written to out with the command's name. */
void rk_rec__map_notes(const rk_rec_map *m, rk_rec *r, FILE *out, const char *cmd);

/* Converts one record into vals (nf entries; a field without a cell has
 * present = 0), numbering it when m numbers records (each call is the next
 * record). Strings borrow the record's cells. RK_EINVALID names the
 * input, line, column and field. */
int rk_rec__map_values(rk_value *vals, rk_rec_map *m, rk_rec *r, const rk_record *rec);

#endif
