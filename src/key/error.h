/*
 * Internal error helpers shared by every layer: set the calling thread's
 * message and return the code, so failures read `return rk__err(RK_EINVALID, ...)`.
 */
#ifndef RK_KEY_ERROR_H
#define RK_KEY_ERROR_H

#include <rowkey/key.h>

#if defined(__GNUC__)
#define RK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define RK_PRINTF(a, b)
#endif

/* Formats the calling thread's error message and returns `code`. */
int rk__err(int code, const char *fmt, ...) RK_PRINTF(2, 3);

/* Prepends "context: " to the current message and returns `code`. */
int rk__err_wrap(int code, const char *fmt, ...) RK_PRINTF(2, 3);

/* Renders bytes for a message: printable ASCII as is, others as \xNN,
 * truncated with "..." past max input bytes. Returns buf. */
const char *rk__err_bytes(char *buf, size_t cap, const uint8_t *p, size_t n);

#endif
