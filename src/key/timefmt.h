/*
 * ISO-8601 date-times as Unix milliseconds: what a `ts` field accepts as
 * text besides an integer, and what the profiler recognises as a time.
 */
#ifndef RK_KEY_TIMEFMT_H
#define RK_KEY_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

/* Parses YYYY-MM-DD, optionally followed by 'T' or ' ' and HH:MM[:SS[.frac]],
 * and an optional zone: Z, +HH:MM, +HHMM, +HH (or -). No zone means UTC.
 * Fractions past milliseconds are truncated. Years 0001..9999. Returns 0 and
 * the milliseconds since 1970-01-01T00:00:00Z, or -1 when `s` is not such a
 * date-time (no message: callers say what they expected). */
int rk__iso8601_ms(int64_t *out, const char *s, size_t n);

#endif
