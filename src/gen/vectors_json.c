/*
 * Field values of test vectors as JSON (docs/formats.md part E). Strings are
 * UTF-8 or written as hex, so every vector file is valid JSON lines that any
 * language's JSON reader takes; 64-bit integers are strings because a
 * JavaScript number holds only 53 bits.
 */
#include <math.h>
#include <string.h>

#include "gen/vectors_int.h"
#include "key/bytes.h"

int rk_vec__utf8(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t c = p[i];
		size_t k;
		uint32_t cp, min;
		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			k = 1;
			cp = c & 0x1f;
			min = 0x80;
		} else if ((c & 0xf0) == 0xe0) {
			k = 2;
			cp = c & 0x0f;
			min = 0x800;
		} else if ((c & 0xf8) == 0xf0) {
			k = 3;
			cp = c & 0x07;
			min = 0x10000;
		} else {
			return 0;
		}
		for (size_t j = 1; j <= k; j++) {
			if (i + j >= n || (p[i + j] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i + j] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += k + 1;
	}
	return 1;
}

void rk_vec__json_hex(FILE *out, const uint8_t *p, size_t n)
{
	fputc('"', out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%02x", p[i]);
	fputc('"', out);
}

void rk_vec__json_bytes(FILE *out, const uint8_t *p, size_t n)
{
	if (!rk_vec__utf8(p, n)) {
		fputs("{\"hex\":", out);
		rk_vec__json_hex(out, p, n);
		fputc('}', out);
		return;
	}
	rk__json_str(out, p, n);
}

void rk_vec__json_fields(const rk_vec *v, const rk_value *vals)
{
	const rk_schema *s = v->s;
	int first = 1;
	fputc('{', v->out);
	for (size_t i = 0; i < s->nfields; i++) {
		const rk_value *x = &vals[i];
		rk_type t = s->ftype[i];
		if (!x->present)
			continue;
		fprintf(v->out, "%s\"%s\":", first ? "" : ",", s->fname[i]);
		first = 0;
		if (t == RK_T_STR)
			rk_vec__json_bytes(v->out, x->v.s.ptr, x->v.s.len);
		else if (t == RK_T_BYTES)
			rk_vec__json_hex(v->out, x->v.s.ptr, x->v.s.len);
		else if (t == RK_T_F64 && isnan(x->v.f))
			fputs("\"nan\"", v->out);
		else if (t == RK_T_F64 && isinf(x->v.f))
			fputs(x->v.f > 0 ? "\"inf\"" : "\"-inf\"", v->out);
		else if (t == RK_T_F64)
			fprintf(v->out, "%.17g", x->v.f);
		else if (t == RK_T_U64)
			fprintf(v->out, "\"%llu\"", (unsigned long long)x->v.u);
		else if (t == RK_T_I64)
			fprintf(v->out, "\"%lld\"", (long long)x->v.i);
		else if (rk_type__is_signed(t))
			fprintf(v->out, "%lld", (long long)x->v.i);
		else
			fprintf(v->out, "%llu", (unsigned long long)x->v.u);
	}
	fputc('}', v->out);
}
