/*
 * Internal error helpers shared by every layer: set the calling thread's
 * message and return the code, so failures read `return rk__err(RK_EINVALID, ...)`.
 *
 * The message buffer is state, so it has one home: error.c in rowkey-key.
 * rk__err and rk__err_wrap are rowkey's own spelling of the public
 * rk_error_set and rk_error_wrap (key.h), so code in every part, and in the
 * private copies of helpers other parts link (cmake/parts.cmake), reaches
 * that one buffer through the public API.
 */
#ifndef RK_KEY_ERROR_H
#define RK_KEY_ERROR_H

#include <rowkey/key.h>

#define RK_PRINTF(a, b) RK_FORMAT_PRINTF(a, b)

/* Formats the calling thread's error message and returns `code`. */
#define rk__err rk_error_set

/* Prepends "context: " to the current message and returns `code`. */
#define rk__err_wrap rk_error_wrap

/* Renders bytes for a message: printable ASCII as is, others as \xNN,
 * truncated with "..." past max input bytes. Returns buf. (errbytes.c) */
const char *rk__err_bytes(char *buf, size_t cap, const uint8_t *p, size_t n);

#endif
