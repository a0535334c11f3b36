/*
 * Byte-string helpers the library, the server and the command share:
 * bytewise order (shorter first on a common prefix, as row keys sort), hex
 * text back to bytes, and a JSON string literal of bytes.
 */
#ifndef RK_KEY_BYTES_H
#define RK_KEY_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* <0, 0, >0 as a[an] sorts before, with, after b[bn]. */
static inline int rk__bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t n = an < bn ? an : bn;
	int c = n ? memcmp(a, b, n) : 0;
	return c ? c : (an > bn) - (an < bn);
}

/* s[n] (hex digits, either case, n even) as bytes: *out malloc'd (owned by
 * the caller, free()), *len = n / 2. -1 on a bad digit, odd length or no
 * memory (then *out is untouched). */
static inline int rk__unhex(uint8_t **out, size_t *len, const char *s, size_t n)
{
	if (n % 2)
		return -1;
	uint8_t *b = malloc(n / 2 + 1);
	if (!b)
		return -1;
	for (size_t i = 0; i < n; i += 2) {
		int v = 0;
		for (int k = 0; k < 2; k++) {
			char c = s[i + (size_t)k];
			int d = c >= '0' && c <= '9'   ? c - '0'
			        : c >= 'a' && c <= 'f' ? c - 'a' + 10
			        : c >= 'A' && c <= 'F' ? c - 'A' + 10
			                               : -1;
			if (d < 0) {
				free(b);
				return -1;
			}
			v = v * 16 + d;
		}
		b[i / 2] = (uint8_t)v;
	}
	*out = b;
	*len = n / 2;
	return 0;
}

/* Writes p[n] as a JSON string literal: '"', '\\' and control bytes escaped,
 * every other byte as it is (UTF-8 text stays readable). */
static inline void rk__json_str(FILE *out, const uint8_t *p, size_t n)
{
	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

#endif
