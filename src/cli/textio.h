/*
 * Text forms shared by the commands: the escaped byte form (printable ASCII
 * as is, everything else \xNN) that keys and values print in and that
 * --start/--stop and keys on the command line are parsed from, hex, and
 * field values as TSV or JSON. Records are read by src/records.
 */
#ifndef RK_CLI_TEXTIO_H
#define RK_CLI_TEXTIO_H

#include <stddef.h>
#include <stdio.h>

#include <rowkey/key.h>

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
/* Field i of a schema's value: a `ts` field with a format as a date in it
 * (docs/schema.md: the format, or ISO-8601 when it cannot say the value),
 * a JSON string when json; anything else as rk_write_value. */
void rk_write_field(FILE *out, const rk_schema *s, size_t i, const rk_value *v, int json);

#endif
