/*
 * A growing string, for every layer that builds text before handing it on
 * (reports, generated code): appends never fail one by one; an allocation
 * failure sets oom, drops what follows, and the owner reports it once when
 * it takes the text.
 */
#ifndef RK_KEY_STRBUF_H
#define RK_KEY_STRBUF_H

#include <stddef.h>
#include <stdint.h>

#include "key/error.h"

typedef struct rk__sb {
	char *p; /* NUL-terminated once anything is appended; the owner frees it */
	size_t len, cap;
	int oom;
} rk__sb;

void rk__sb_printf(rk__sb *b, const char *fmt, ...) RK_PRINTF(2, 3);
void rk__sb_put(rk__sb *b, const char *s, size_t n);
/* Appends a string literal (its length counted by the compiler). */
#define RK__SB_LIT(b, lit) rk__sb_put((b), "" lit, sizeof(lit) - 1)
/* s as a JSON string (quotes included); bytes >= 0x7f, controls and <>&
 * (safe inside HTML) as \u00XX */
void rk__sb_json_str(rk__sb *b, const uint8_t *s, size_t n);

#endif
