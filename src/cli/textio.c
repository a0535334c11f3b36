/*
 * Text forms shared by the commands (see textio.h): the escaped byte form
 * keys and values print in, hex, and field values as TSV or JSON.
 */
#include "cli/textio.h"

#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/error.h"

void rk_write_escaped(FILE *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			fputc(p[i], out);
		else
			fprintf(out, "\\x%02x", p[i]);
	}
}

static int hexv(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

int rk_parse_escaped(uint8_t *out, size_t *outlen, const char *p, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '\\') {
			out[o++] = (uint8_t)p[i];
			continue;
		}
		if (i + 1 < n && p[i + 1] == '\\') {
			out[o++] = '\\';
			i++;
			continue;
		}
		if (i + 3 < n + 0 && p[i + 1] == 'x' && hexv(p[i + 2]) >= 0 && hexv(p[i + 3]) >= 0) {
			out[o++] = (uint8_t)(hexv(p[i + 2]) * 16 + hexv(p[i + 3]));
			i += 3;
			continue;
		}
		return rk__err(RK_EINVALID, "column %zu: bad escape (use \\xNN or \\\\)", i + 1);
	}
	*outlen = o;
	return 0;
}

int rk_parse_hex(uint8_t *out, size_t *outlen, const char *p, size_t n)
{
	if (n % 2)
		return rk__err(RK_EINVALID, "hex key has an odd number of digits (%zu)", n);
	for (size_t i = 0; i < n; i += 2) {
		int a = hexv(p[i]), b = hexv(p[i + 1]);
		if (a < 0 || b < 0)
			return rk__err(RK_EINVALID, "column %zu: not a hex digit", i + 1 + (a >= 0));
		out[i / 2] = (uint8_t)(a * 16 + b);
	}
	*outlen = n / 2;
	return 0;
}

void rk_write_value(FILE *out, rk_type t, const rk_value *v, int json)
{
	if (!v->present) {
		if (json)
			fputs("null", out);
		return;
	}
	if (t == RK_T_STR || t == RK_T_BYTES) {
		if (json)
			rk__json_str(out, v->v.s.ptr, v->v.s.len);
		else
			rk_write_escaped(out, v->v.s.ptr, v->v.s.len);
		return;
	}
	char buf[64];
	rk_value_format(buf, sizeof buf, t, v);
	if (json && t == RK_T_F64 && (strstr(buf, "inf") || strstr(buf, "nan")))
		fprintf(out, "\"%s\"", buf); /* JSON has no inf or NaN */
	else
		fputs(buf, out);
}

void rk_write_field(FILE *out, const rk_schema *s, size_t i, const rk_value *v, int json)
{
	char buf[256];
	if (!v->present || !rk_schema_field_time_format(s, i)) {
		rk_write_value(out, rk_schema_field_type(s, i), v, json);
		return;
	}
	size_t n = rk_schema_value_format(buf, sizeof buf, s, i, v);
	/* a date is a JSON string; the integer a value past years 0001..9999
	   falls back to stays a number */
	int integer = strspn(buf + (buf[0] == '-'), "0123456789") == strlen(buf + (buf[0] == '-'));
	if (json && !integer)
		rk__json_str(out, (const uint8_t *)buf, n < sizeof buf ? n : sizeof buf - 1);
	else
		fputs(buf, out);
}
