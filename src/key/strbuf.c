/*
 * A growing string (key/strbuf.h).
 */
#include "key/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
