/*
 * The one regex engine of the store's row filters: RE2 (Debian libre2),
 * behind a tiny C interface (filter_re2.cc). Patterns and subjects are
 * bytes (Latin-1: every byte is one character), matched against the whole
 * subject, with RE2's defaults otherwise ('.' does not match '\n'; '\C' is
 * any byte), as Bigtable's regex filters are. RE2 matches in time linear in
 * the subject, and a pattern whose program would pass 16 MiB is refused.
 */
#ifndef RK_STORE_FILTER_RE2_H
#define RK_STORE_FILTER_RE2_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rk_re2 rk_re2;

/* Compiles pat[len]. NULL on failure with RE2's message in err[errcap]
 * (out of memory included). The result is owned by the caller
 * (rk_re2__free); matching through it is thread-safe. */
rk_re2 *rk_re2__compile(const uint8_t *pat, size_t len, char *err, size_t errcap);

/* 1 when the whole s[n] matches. */
int rk_re2__full_match(const rk_re2 *re, const uint8_t *s, size_t n);

void rk_re2__free(rk_re2 *re);

#ifdef __cplusplus
}
#endif

#endif
