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

/* The length of a valid UTF-8 sequence at s (n bytes left), or 0. */
static inline size_t rk__utf8_len(const uint8_t *s, size_t n)
{
	size_t l = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (!l || l > n)
		return 0;
	for (size_t i = 1; i < l; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((l == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (l == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
	    (l == 4 && s[0] == 0xf0 && s[1] < 0x90) || (l == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0; /* overlong, surrogate, past U+10FFFF */
	return l;
}

/* Writes p[n] as a JSON string literal: '"', '\\' escaped, valid UTF-8 as it
 * is (text stays readable), control bytes and bytes that are no UTF-8 (a
 * binary key) as \u00XX, so the output is always valid JSON in UTF-8. */
static inline void rk__json_str(FILE *out, const uint8_t *p, size_t n)
{
	fputc('"', out);
	for (size_t i = 0; i < n;) {
		uint8_t c = p[i];
		size_t l;
		if (c == '"' || c == '\\') {
			fprintf(out, "\\%c", c);
			i++;
		} else if (c >= 0x20 && c < 0x7f) {
			fputc(c, out);
			i++;
		} else if (c >= 0x80 && (l = rk__utf8_len(p + i, n - i)) != 0) {
			fwrite(p + i, 1, l, out);
			i += l;
		} else {
			fprintf(out, "\\u%04x", c);
			i++;
		}
	}
	fputc('"', out);
}

#endif
