/*
 * Field values as text: parsing what a CSV cell or a command-line argument
 * says into a typed rk_value, and formatting one back.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "key/units.h"
#include "key/schema_int.h"
#include "key/timefmt.h"

static const uint64_t umax[] = {0, 0xff, 0xffff, 0xffffffff, UINT64_MAX};

int rk_value_parse(rk_value *out, rk_type type, const char *text, size_t len)
{
	char buf[64];
	memset(out, 0, sizeof *out);
	if (type == RK_T_STR || type == RK_T_BYTES) {
		out->present = 1;
		out->v.s.ptr = (const uint8_t *)text;
		out->v.s.len = len;
		return 0;
	}
	if (len == 0 || len >= sizeof buf)
		return rk__err(RK_EINVALID, "'%.*s' is not a valid %s", (int)(len > 40 ? 40 : len), text,
		               rk_type__name(type));
	const char *nul = memchr(text, 0, len);
	if (nul) /* the C conversions would stop there and take the rest for nothing */
		return rk__err(RK_EINVALID, "a NUL byte at offset %zu in a %s value is not a number", (size_t)(nul - text),
		               rk_type__name(type));
	memcpy(buf, text, len);
	buf[len] = 0;
	/* strto* skip leading space and take '+'; a cell " -1" must not become a u64 */
	if (!(buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9') ||
	      (type == RK_T_F64 && (buf[0] == '.' || buf[0] == 'i' || buf[0] == 'I' || buf[0] == 'n' || buf[0] == 'N'))))
		return rk__err(RK_EINVALID, "'%s' is not a valid %s", buf, rk_type__name(type));
	char *end;
	errno = 0;
	if (type == RK_T_F64) {
		out->v.f = strtod(buf, &end);
		if (*end || end == buf)
			return rk__err(RK_EINVALID, "'%s' is not a valid f64", buf);
	} else if (rk_type__is_signed(type)) {
		long long v = strtoll(buf, &end, 10);
		int w = rk_type__width(type);
		int64_t lo = w == 8 ? INT64_MIN : -(1LL << (w * 8 - 1)), hi = w == 8 ? INT64_MAX : (1LL << (w * 8 - 1)) - 1;
		if (*end || end == buf || errno || v < lo || v > hi)
			return rk__err(RK_EINVALID, "'%s' is not a valid %s (%lld..%lld)", buf, rk_type__name(type),
			               (long long)lo, (long long)hi);
		out->v.i = v;
	} else {
		unsigned long long v = strtoull(buf, &end, 10);
		if (*end || end == buf || errno || buf[0] == '-' || v > umax[type])
			return rk__err(RK_EINVALID, "'%s' is not a valid %s (0..%llu)", buf, rk_type__name(type),
			               (unsigned long long)umax[type]);
		out->v.u = v;
	}
	out->present = 1;
	return 0;
}

int rk_schema_field_is_time(const rk_schema *s, size_t i)
{
	return i < s->nfields && (s->time_mask >> i & 1);
}

int rk_schema_value_parse(rk_value *out, const rk_schema *s, size_t i, const char *text, size_t len)
{
	if (i >= s->nfields)
		return rk__err(RK_EINVALID, "no field %zu in the schema", i);
	int64_t ms;
	if (s->tfmt[i]) { /* a named format is the only text the field takes */
		const char *why;
		if (rk__datefmt_parse(&ms, s->tfmt[i], text, len, &why) != 0)
			return rk__err(RK_EINVALID, "'%.*s' does not match the time format \"%s\": %s",
			               (int)(len > 40 ? 40 : len), text, s->tfmt[i], why);
		memset(out, 0, sizeof *out);
		out->present = 1;
		out->v.i = ms;
		return 0;
	}
	int rc = rk_value_parse(out, s->ftype[i], text, len);
	if (rc == RK_EINVALID && (s->time_mask >> i & 1) && len >= 10 && text[4] == '-') {
		if (rk__iso8601_ms(&ms, text, len) != 0)
			return rk__err(RK_EINVALID, "'%.*s' is neither an integer time nor an ISO-8601 date-time",
			               (int)(len > 40 ? 40 : len), text);
		memset(out, 0, sizeof *out);
		out->present = 1;
		out->v.i = ms;
		return 0;
	}
	return rc;
}

const char *rk_schema_field_time_format(const rk_schema *s, size_t i)
{
	return i < s->nfields ? s->tfmt[i] : NULL;
}

size_t rk_schema_value_format(char *buf, size_t cap, const rk_schema *s, size_t i, const rk_value *v)
{
	char t[RK__DATEFMT_MAX * 5 + 1];
	size_t n = 0;
	if (i < s->nfields && s->tfmt[i] && v->present) {
		/* the field's format when it says the value exactly, else ISO-8601 */
		if (!(n = rk__datefmt_format(t, sizeof t, s->tfmt[i], v->v.i)))
			n = rk__iso8601_format(t, sizeof t, v->v.i);
	}
	if (!n)
		return rk_value_format(buf, cap, i < s->nfields ? s->ftype[i] : RK_T_I64, v);
	if (cap) {
		size_t c = n < cap - 1 ? n : cap - 1;
		memcpy(buf, t, c);
		buf[c] = 0;
	}
	return n;
}

size_t rk_value_format(char *buf, size_t cap, rk_type type, const rk_value *v)
{
	int n;
	if (!v->present)
		n = snprintf(buf, cap, "%s", "");
	else if (type == RK_T_F64)
		n = (int)rk__double_str(buf, cap, v->v.f); /* shortest text that reads back exactly */
	else if (rk_type__is_signed(type))
		n = snprintf(buf, cap, "%lld", (long long)v->v.i);
	else if (rk_type__is_int(type))
		n = snprintf(buf, cap, "%llu", (unsigned long long)v->v.u);
	else {
		size_t l = v->v.s.len;
		if (cap) {
			size_t c = l < cap - 1 ? l : cap - 1;
			memcpy(buf, v->v.s.ptr, c);
			buf[c] = 0;
		}
		return l;
	}
	return n < 0 ? 0 : (size_t)n;
}
