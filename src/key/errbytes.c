/*
 * Bytes in an error message (key/error.h). Kept apart from error.c, which
 * holds the message buffer: this is a stateless helper every part links its
 * own copy of (cmake/parts.cmake).
 */
#include "key/error.h"

#include <stdio.h>
#include <string.h>

const char *rk__err_bytes(char *buf, size_t cap, const uint8_t *p, size_t n)
{
	size_t o = 0, max = 48;
	if (cap == 0)
		return buf;
	for (size_t i = 0; i < n && i < max && o + 5 < cap; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			buf[o++] = (char)p[i];
		else
			o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", p[i]);
	}
	if (n > max && o + 4 < cap) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o < cap ? o : cap - 1] = 0;
	return buf;
}
