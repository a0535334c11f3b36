/*
 * Date-times as text and Unix milliseconds: ISO-8601 (timefmt.c), what a
 * `ts` field accepts besides an integer, and the strict formats a `ts` field
 * may name (`ts("%m/%d/%Y")`, datefmt.c). The profiler recognises both.
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

/* Writes ms as YYYY-MM-DDTHH:MM:SS[.mmm]Z (the fraction only when not 0)
 * into buf (cap >= 32); returns its length, or 0 when the year is outside
 * 0001..9999 (nothing written). */
size_t rk__iso8601_format(char *buf, size_t cap, int64_t ms);

/* ---- the calendar (timefmt.c) ---- */

/* Days since 1970-01-01 of a proleptic Gregorian date, and back. */
int64_t rk__days_from_civil(int64_t y, unsigned m, unsigned d);
void rk__civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);
/* Days in month m (1..12) of year y. */
int rk__month_days(int64_t y, int m);

/* ---- named text formats of a ts field (datefmt.c) ---- */

#define RK__DATEFMT_MAX 48 /* bytes in a format */

/* Checks a format: strftime-like directives %Y (4 digits), %m, %d, %H (1 or
 * 2 digits), %M, %S (2 digits), %b (Jan..Dec), %B (January..December), %%,
 * and other printable ASCII bytes but digits matched as they are. It needs
 * one year, one month and one day; a time is %H:%M or %H:%M:%S in any
 * layout (%H needs %M, %S needs %M); no directive twice; no two numbers
 * side by side (`%m%d` could not be split). 0, or -1 with *why a static
 * reason. */
int rk__datefmt_check(const char *fmt, size_t n, const char **why);

/* Parses s[0..n) under a checked format: the whole text must match, month
 * names in any case, every field in range (the day in its month, leap years
 * by the Gregorian rule), no zone: the time is UTC. 0 and the Unix
 * milliseconds, or -1 with *why a static reason. */
int rk__datefmt_parse(int64_t *out, const char *fmt, const char *s, size_t n, const char **why);

/* Writes ms under a checked format (numbers zero-padded to 2 digits, month
 * names capitalised) into buf of cap bytes, NUL-terminated; returns the
 * length, or 0 when the format cannot say ms exactly (a year outside
 * 0001..9999, or a time finer than the format's last unit). */
size_t rk__datefmt_format(char *buf, size_t cap, const char *fmt, int64_t ms);

#endif
