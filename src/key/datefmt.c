/*
 * The text formats a `ts` field may name (see timefmt.h): a small, strict
 * strftime-like language, `ts("%b %d %Y")`, `ts("%m/%d/%Y %H:%M")`.
 *
 * Why not strptime: it is not in C11 (POSIX, and _XOPEN_SOURCE to declare
 * it), %b follows the locale (a French locale reads "janv." and rejects
 * "Jan"), it skips any amount of white space where the format has one
 * blank, accepts a day 31 in April on some C libraries, and leaves fields it
 * did not see uninitialised instead of saying what was wrong. A key's bytes
 * must not depend on the machine that wrote them, and a bad date must be
 * rejected with a reason, so this file parses by hand: the whole text must
 * match, month names are English in any case, every number is range-checked
 * (the day against its month, leap years by the Gregorian rule). No zone:
 * the time is UTC, as for ISO-8601 without one.
 *
 * What it does not do: week days, day-of-year, 2-digit years, AM/PM, zones,
 * fractions of a second. Those formats stay `str`, or are converted before
 * loading.
 */
#include <stdio.h>
#include <string.h>

#include "key/timefmt.h"

static const char *const month_names[12] = {"January", "February", "March",     "April",   "May",      "June",
                                            "July",    "August",   "September", "October", "November", "December"};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* 1 for a directive that reads digits */
static int numeric(char d)
{
	return d == 'Y' || d == 'm' || d == 'd' || d == 'H' || d == 'M' || d == 'S';
}

int rk__datefmt_check(const char *fmt, size_t n, const char **why)
{
	unsigned seen = 0; /* bit per directive: Y m d H M S, b/B count as m */
	static const char dirs[] = "YmdHMS";
	int prev_num = 0;
	if (n == 0 || n > RK__DATEFMT_MAX) {
		*why = "a format is 1 to 48 bytes";
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		char c = fmt[i];
		if ((unsigned char)c < 0x20 || (unsigned char)c > 0x7e) {
			*why = "a format is printable ASCII";
			return -1;
		}
		if (c != '%') {
			if (is_digit(c)) {
				*why = "a digit in a format would be read as part of a number: only directives and separators";
				return -1;
			}
			prev_num = 0;
			continue;
		}
		if (++i == n) {
			*why = "a format ends with a lone '%'";
			return -1;
		}
		char d = fmt[i];
		if (d == '%') {
			prev_num = 0;
			continue;
		}
		const char *at = strchr(dirs, d == 'b' || d == 'B' ? 'm' : d);
		if (!at || !d) {
			*why = "unknown directive: use %Y %m %d %b %B %H %M %S or %%";
			return -1;
		}
		unsigned bit = 1u << (at - dirs);
		if (seen & bit) {
			*why = "a directive is given twice (%b and %B are both the month)";
			return -1;
		}
		seen |= bit;
		if (numeric(d) && prev_num) {
			*why = "two numbers side by side could not be told apart: put a separator between them";
			return -1;
		}
		prev_num = numeric(d);
	}
	if ((seen & 3) != 3 || (!(seen & 4) && (seen & 56))) {
		*why = "a format needs a year (%Y) and a month (%m, %b or %B), and a day (%d) before a time "
		       "(a month alone stands for its first day)";
		return -1;
	}
	if (((seen >> 3 & 1) != (seen >> 4 & 1)) || ((seen & 32) && !(seen & 16))) {
		*why = "a time is %H with %M, and %S only with both";
		return -1;
	}
	return 0;
}

/* Reads 1..max digits (exactly max when fixed) at s[*i]; -1 when none. */
static int number(const char *s, size_t n, size_t *i, int max, int fixed, int *out)
{
	int v = 0, k = 0;
	while (k < max && *i < n && is_digit(s[*i])) {
		v = v * 10 + (s[(*i)++] - '0');
		k++;
	}
	if (k == 0 || (fixed && k != max))
		return -1;
	*out = v;
	return 0;
}

/* A month name at s[*i]: the 3-letter abbreviation (full 0) or the full name. */
static int month_name(const char *s, size_t n, size_t *i, int full, int *out)
{
	size_t k = 0;
	while (*i + k < n && lower(s[*i + k]) >= 'a' && lower(s[*i + k]) <= 'z')
		k++;
	for (int m = 0; m < 12; m++) {
		size_t want = full ? strlen(month_names[m]) : 3;
		if (k != want)
			continue;
		size_t j = 0;
		while (j < k && lower(s[*i + j]) == lower(month_names[m][j]))
			j++;
		if (j == k) {
			*i += k;
			*out = m + 1;
			return 0;
		}
	}
	return -1;
}

int rk__datefmt_parse(int64_t *out, const char *fmt, const char *s, size_t n, const char **why)
{
	int y = 0, mo = 0, d = strstr(fmt, "%d") ? 0 : 1, h = 0, mi = 0, sec = 0; /* a month: its 1st */
	size_t i = 0;
	for (const char *f = fmt; *f; f++) {
		if (*f != '%' || f[1] == '%') {
			f += *f == '%';
			if (i == n || s[i] != *f) {
				*why = i == n ? "the text ends before the format does" : "a separator differs from the format's";
				return -1;
			}
			i++;
			continue;
		}
		int bad = 0;
		switch (*++f) {
		case 'Y': bad = number(s, n, &i, 4, 1, &y); *why = "the year is not 4 digits"; break;
		case 'm': bad = number(s, n, &i, 2, 0, &mo); *why = "the month is not 1 or 2 digits"; break;
		case 'd': bad = number(s, n, &i, 2, 0, &d); *why = "the day is not 1 or 2 digits"; break;
		case 'H': bad = number(s, n, &i, 2, 0, &h); *why = "the hour is not 1 or 2 digits"; break;
		case 'M': bad = number(s, n, &i, 2, 1, &mi); *why = "the minutes are not 2 digits"; break;
		case 'S': bad = number(s, n, &i, 2, 1, &sec); *why = "the seconds are not 2 digits"; break;
		case 'b': bad = month_name(s, n, &i, 0, &mo); *why = "not a month's abbreviation (Jan..Dec)"; break;
		case 'B': bad = month_name(s, n, &i, 1, &mo); *why = "not a month's name (January..December)"; break;
		default: *why = "the format is not a checked one"; return -1;
		}
		if (bad)
			return -1;
	}
	if (i != n) {
		*why = "text follows the end of the format";
		return -1;
	}
	*why = y < 1 ? "the year is 0000 (years are 0001..9999)"
	       : mo < 1 || mo > 12 ? "the month is not 1..12"
	       : d < 1 || d > rk__month_days(y, mo) ? (mo == 2 && d == 29 ? "not a leap year: February has 28 days"
	                                                                  : "the day is not in its month")
	       : h > 23 ? "the hour is not 0..23"
	       : mi > 59 ? "the minutes are not 00..59"
	       : sec > 59 ? "the seconds are not 00..59" : NULL;
	if (*why)
		return -1;
	*out = ((rk__days_from_civil(y, (unsigned)mo, (unsigned)d) * 24 + h) * 60 + mi) * 60000 + sec * 1000;
	return 0;
}

size_t rk__datefmt_format(char *buf, size_t cap, const char *fmt, int64_t ms)
{
	int64_t unit = strstr(fmt, "%S") ? 1000 : strstr(fmt, "%M") ? 60000 : 86400000;
	if (ms < -62135596800000 || ms > 253402300799999 || ms % unit)
		return 0; /* outside 0001..9999, or finer than the format says */
	int64_t days = ms / 86400000 - (ms % 86400000 < 0), rem = ms - days * 86400000, y;
	unsigned m, d;
	rk__civil_from_days(days, &y, &m, &d);
	if (d != 1 && !strstr(fmt, "%d"))
		return 0; /* a month's format holds only its first day */
	size_t o = 0;
	for (const char *f = fmt; *f && o < cap; f++) {
		int w;
		if (*f != '%' || f[1] == '%') {
			f += *f == '%';
			buf[o++] = *f;
			continue;
		}
		switch (*++f) {
		case 'Y': w = snprintf(buf + o, cap - o, "%04d", (int)y); break;
		case 'm': w = snprintf(buf + o, cap - o, "%02u", m); break;
		case 'd': w = snprintf(buf + o, cap - o, "%02u", d); break;
		case 'H': w = snprintf(buf + o, cap - o, "%02d", (int)(rem / 3600000)); break;
		case 'M': w = snprintf(buf + o, cap - o, "%02d", (int)(rem / 60000 % 60)); break;
		case 'S': w = snprintf(buf + o, cap - o, "%02d", (int)(rem / 1000 % 60)); break;
		case 'b': w = snprintf(buf + o, cap - o, "%.3s", month_names[m - 1]); break;
		case 'B': w = snprintf(buf + o, cap - o, "%s", month_names[m - 1]); break;
		default: return 0;
		}
		if (w < 0)
			return 0;
		o += (size_t)w;
	}
	if (o >= cap)
		return 0;
	buf[o] = 0;
	return o;
}
