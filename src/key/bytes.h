/*
 * Two byte-string helpers the library, the server and the command share:
 * bytewise order (shorter first on a common prefix, as row keys sort) and
 * hex text back to bytes.
 */
#ifndef RK_KEY_BYTES_H
#define RK_KEY_BYTES_H

#include <stddef.h>
#include <stdint.h>
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

#endif
