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

/* The first 8 bytes at p as a big-endian number (compilers make it one load
 * and a byte swap). */
static inline uint64_t rk__be64(const uint8_t *p)
{
	return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 |
	       (uint64_t)p[3] << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
	       (uint64_t)p[6] << 8 | (uint64_t)p[7];
}

/* <0, 0, >0 as a[an] sorts before, with, after b[bn]. Eight bytes at a
 * time as big-endian numbers: row keys are short, and most differ early (a
 * hash, a salt) or only late (a sequence after a fixed prefix), where a
 * call to memcmp costs more than the compare. */
static inline int rk__bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t n = an < bn ? an : bn, i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x = rk__be64(a + i), y = rk__be64(b + i);
		if (x != y)
			return x < y ? -1 : 1;
	}
	for (; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return (an > bn) - (an < bn);
}

/* In keys k[lo..hi) (kl their lengths), sorted, k[lo] <= key: the last one
 * that is <= key, the start of the range holding key when keys cut a key
 * space into ranges. */
static inline size_t rk__bytes_floor(const uint8_t *const *k, const size_t *kl, size_t lo, size_t hi,
                                     const uint8_t *key, size_t len)
{
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (rk__bytes_cmp(k[mid], kl[mid], key, len) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
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
