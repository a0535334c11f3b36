/*
 * ISO-8601 date-times and the calendar (see timefmt.h). Days from the civil
 * date and back by Howard Hinnant's days_from_civil / civil_from_days, exact
 * for the proleptic Gregorian calendar.
 */
#include "key/timefmt.h"

#include <stdio.h>

static int digits(const char *s, size_t n, size_t at, int count, int *out)
{
	int v = 0;
	if (at + (size_t)count > n)
		return -1;
	for (int k = 0; k < count; k++) {
		char c = s[at + (size_t)k];
		if (c < '0' || c > '9')
			return -1;
		v = v * 10 + (c - '0');
	}
	*out = v;
	return 0;
}

int64_t rk__days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

void rk__civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	days += 719468;
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	unsigned doe = (unsigned)(days - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

int rk__month_days(int64_t y, int m)
{
	static const int md[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return md[m - 1] + (m == 2 && leap);
}

/* The zone at s[i..n): Z, +HH, +HHMM, +HH:MM; minutes east of UTC. */
static int zone(const char *s, size_t n, size_t i, int *minutes)
{
	int hh, mm = 0;
	if (i == n) {
		*minutes = 0;
		return 0;
	}
	if (s[i] == 'Z' && i + 1 == n) {
		*minutes = 0;
		return 0;
	}
	if (s[i] != '+' && s[i] != '-')
		return -1;
	int sign = s[i] == '-' ? -1 : 1;
	if (digits(s, n, i + 1, 2, &hh))
		return -1;
	i += 3;
	if (i < n && s[i] == ':')
		i++;
	if (i < n && digits(s, n, i, 2, &mm))
		return -1;
	if (i < n)
		i += 2;
	if (i != n || hh > 23 || mm > 59)
		return -1;
	*minutes = sign * (hh * 60 + mm);
	return 0;
}

int rk__iso8601_ms(int64_t *out, const char *s, size_t n)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, ms = 0, tz = 0;
	if (digits(s, n, 0, 4, &y) || n < 10 || s[4] != '-' || digits(s, n, 5, 2, &mo) ||
	    s[7] != '-' || digits(s, n, 8, 2, &d))
		return -1;
	if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > rk__month_days(y, mo))
		return -1;
	size_t i = 10;
	if (i < n && (s[i] == 'T' || s[i] == ' ')) {
		if (digits(s, n, i + 1, 2, &h) || i + 3 >= n || s[i + 3] != ':' ||
		    digits(s, n, i + 4, 2, &mi))
			return -1;
		i += 6;
		if (i < n && s[i] == ':') {
			if (digits(s, n, i + 1, 2, &sec))
				return -1;
			i += 3;
			if (i < n && (s[i] == '.' || s[i] == ',')) {
				size_t k = i + 1, nd = 0;
				while (k < n && s[k] >= '0' && s[k] <= '9') {
					if (nd < 3)
						ms = ms * 10 + (s[k] - '0');
					nd++;
					k++;
				}
				if (nd == 0)
					return -1;
				for (size_t p = nd; p < 3; p++)
					ms *= 10;
				i = k;
			}
		}
		if (h > 23 || mi > 59 || sec > 60)
			return -1;
	}
	if (zone(s, n, i, &tz))
		return -1;
	int64_t days = rk__days_from_civil(y, (unsigned)mo, (unsigned)d);
	*out = ((days * 86400 + h * 3600 + mi * 60 + sec) - (int64_t)tz * 60) * 1000 + ms;
	return 0;
}

size_t rk__iso8601_format(char *buf, size_t cap, int64_t ms)
{
	/* floor division: a time before 1970 still has a non-negative time of day */
	int64_t days = ms / 86400000 - (ms % 86400000 < 0), rem = ms - days * 86400000;
	int64_t y;
	unsigned m, d;
	if (ms < -62135596800000 || ms > 253402300799999) /* 0001-01-01 .. 9999-12-31 */
		return 0;
	rk__civil_from_days(days, &y, &m, &d);
	int h = (int)(rem / 3600000), mi = (int)(rem / 60000 % 60), s = (int)(rem / 1000 % 60);
	int f = (int)(rem % 1000);
	int n = f ? snprintf(buf, cap, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", (int)y, m, d, h, mi, s, f)
	          : snprintf(buf, cap, "%04d-%02u-%02uT%02d:%02d:%02dZ", (int)y, m, d, h, mi, s);
	return n < 0 || (size_t)n >= cap ? 0 : (size_t)n;
}
