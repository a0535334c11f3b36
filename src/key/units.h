/*
 * One way to read and write quantities, for every layer and every command:
 * sizes ("4M", "64MiB", "1.5G" in; "4 MiB" out), counts ("120,000"), rates
 * ("2,000 rows/s"), floating point as the shortest text that reads back
 * exactly ("19.55"), and the article before a number ("an 8-way merge").
 * Internal: shared by the library parts through rk_ names.
 */
#ifndef RK_KEY_UNITS_H
#define RK_KEY_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Room for any string below. */
#define RK_NUM_STR 48

/* Parses a size: a number (fractions allowed) and an optional unit: B;
 * K, M, G, T or KiB, MiB, GiB, TiB (powers of 1024); KB, MB, GB, TB (powers
 * of 1000); the unit's letters in either case. A bare number counts `unit`
 * bytes (1 for most flags; 1 << 20 for one whose unit is MiB). The result is
 * rounded to a whole byte. RK_EINVALID naming the text and the accepted
 * forms; a size past 2^64 - 1 is RK_EINVALID too. `len` bytes of text (no
 * NUL needed). */
int rk__size_parse(uint64_t *out, const char *text, size_t len, uint64_t unit);

/* "0 B", "512 B", "14.2 KiB", "4 MiB", "1.5 GiB": the largest binary unit
 * the size reaches, with one decimal unless it is whole. Returns buf. */
char *rk__size_str(char buf[RK_NUM_STR], uint64_t bytes);

/* "7", "12,345", "120,000" into buf of cap bytes (27 hold any count).
 * Returns buf. */
const char *rk__count_text(char *buf, size_t cap, uint64_t n);

/* A count and its unit: "4,000 cells", "0 rows"; `what` as given, up to
 * 12 bytes (NULL: the number alone). Returns buf. */
char *rk__count_str(char buf[RK_NUM_STR], uint64_t n, const char *what);

/* A rate per second: "13,008 rows/s", "2.5 ops/s" (a whole count from 100
 * up, one decimal below), with `what` (up to 12 bytes) before "/s" ("rows";
 * NULL: "/s" alone). Returns buf. */
char *rk__rate_str(char buf[RK_NUM_STR], double per_second, const char *what);

/* The shortest text that strtod reads back as exactly v: "19.55", "0.1",
 * "1e+22", "-0", "inf", "nan". Plain digits from 1e-4 up to 1e17, an
 * exponent outside. Returns the length (like snprintf). */
size_t rk__double_str(char *buf, size_t cap, double v);

/* "an" when the number n is read with a vowel sound first (8, 11, 18, 80,
 * 800, 8000, 11000, 18 million...), else "a". */
const char *rk__article(uint64_t n);

#endif
