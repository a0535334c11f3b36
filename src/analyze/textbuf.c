/*
 * Text for reports: a growing string (rk__sb) with printf and JSON string
 * and number forms, and one way to write shares and key bytes (counts:
 * rk__count_text, key/units.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "key/error.h"

/* ---- strings ---- */

void rk__sb_put(rk__sb *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 1024;
		while (c < b->len + n + 1)
			c *= 2;
		char *q = realloc(b->p, c);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = c;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void rk__sb_printf(rk__sb *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof tmp) {
		rk__sb_put(b, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		b->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	rk__sb_put(b, big, (size_t)n);
	free(big);
}

void rk__sb_json_str(rk__sb *b, const uint8_t *s, size_t n)
{
	RK__SB_LIT(b, "\"");
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			rk__sb_put(b, e, 2);
		} else if (c < 0x20 || c >= 0x7f || c == '<' || c == '>' || c == '&') {
			rk__sb_printf(b, "\\u%04x", c);
		} else {
			rk__sb_put(b, (const char *)&c, 1);
		}
	}
	RK__SB_LIT(b, "\"");
}

int rk__sb_done(char **out, rk__sb *b)
{
	if (b->oom || !b->p) {
		free(b->p);
		*out = NULL;
		return rk__err(RK_ENOMEM, "out of memory writing a report");
	}
	*out = b->p;
	return 0;
}

const char *rk__share_text(double share)
{
	static _Thread_local char ring[8][16];
	static _Thread_local unsigned next;
	char *b = ring[next++ % 8];
	double pc = share * 100;
	if (pc > 0 && pc < 0.1)
		snprintf(b, 16, "<0.1%%");
	else if (pc < 10 && fabs(pc - round(pc)) > 0.05)
		snprintf(b, 16, "%.1f%%", pc);
	else
		snprintf(b, 16, "%.0f%%", pc > 100 ? 100 : pc);
	return b;
}

/* A JSON number (null for inf and NaN, which JSON cannot say). */
void rk__sb_jnum(rk__sb *b, double v)
{
	if (isfinite(v))
		rk__sb_printf(b, "%.6g", v);
	else
		RK__SB_LIT(b, "null");
}

/* A JSON string, or null for NULL. */
void rk__sb_jstr(rk__sb *b, const char *s)
{
	if (s)
		rk__sb_json_str(b, (const uint8_t *)s, strlen(s));
	else
		RK__SB_LIT(b, "null");
}

