/*
 * Quantities in and out (units.h). Sizes follow GNU coreutils' suffixes
 * (K = KiB = 1024, KB = 1000), which is what people type into Unix tools;
 * output always uses the binary units, so one store's sizes read alike in
 * every command. The shortest round-trip float tries 1..17 significant
 * digits with printf's %e and keeps the first that strtod reads back
 * exactly (17 always does for a binary64).
 */
#include "key/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"

/* ---- sizes ---- */

static const struct {
	const char *name;
	double mult;
} size_units[] = {
	{"b", 1},
	{"k", 1024.0}, {"kib", 1024.0}, {"kb", 1e3},
	{"m", 1048576.0}, {"mib", 1048576.0}, {"mb", 1e6},
	{"g", 1073741824.0}, {"gib", 1073741824.0}, {"gb", 1e9},
	{"t", 1099511627776.0}, {"tib", 1099511627776.0}, {"tb", 1e12},
};

static int size_error(const char *text, size_t len, const char *why)
{
	return rk__err(RK_EINVALID,
	               "'%.*s' is not a size%s%s: a number with an optional unit: B; K, M, G, T "
	               "(or KiB, MiB, GiB, TiB: powers of 1024); KB, MB, GB, TB (powers of 1000)",
	               (int)(len > 64 ? 64 : len), text, why ? " " : "", why ? why : "");
}

int rk__size_parse(uint64_t *out, const char *text, size_t len, uint64_t unit)
{
	char buf[72], *end;
	if (len == 0 || len >= sizeof buf)
		return size_error(text, len, len ? "(too long)" : NULL);
	memcpy(buf, text, len);
	buf[len] = 0;
	/* digits first: no sign, no space, no hex or exponent forms */
	if (!isdigit((unsigned char)buf[0]) && !(buf[0] == '.' && isdigit((unsigned char)buf[1])))
		return size_error(text, len, NULL);
	size_t n = strspn(buf, "0123456789.");
	char num[72]; /* the number alone: strtod stops at a second '.', which is refused */
	memcpy(num, buf, n);
	num[n] = 0;
	errno = 0;
	double v = strtod(num, &end);
	if (*end || errno)
		return size_error(text, len, NULL);
	double mult = (double)unit;
	if (buf[n]) {
		char u[8];
		size_t ul = strlen(buf + n);
		if (ul >= sizeof u)
			return size_error(text, len, NULL);
		for (size_t i = 0; i <= ul; i++)
			u[i] = (char)tolower((unsigned char)buf[n + i]);
		size_t k;
		for (k = 0; k < sizeof size_units / sizeof size_units[0]; k++)
			if (!strcmp(u, size_units[k].name))
				break;
		if (k == sizeof size_units / sizeof size_units[0])
			return size_error(text, len, NULL);
		mult = size_units[k].mult;
	}
	double bytes = floor(v * mult + 0.5);
	if (!(bytes < 18446744073709551616.0))
		return size_error(text, len, "(over 2^64 - 1 bytes)");
	*out = (uint64_t)bytes;
	return 0;
}

char *rk__size_str(char buf[RK_NUM_STR], uint64_t bytes)
{
	static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	int i = 0;
	double v = (double)bytes;
	while (v >= 1024.0 && i < 6) {
		v /= 1024.0;
		i++;
	}
	double tenths = floor(v * 10 + 0.5);
	if (i == 0 || fmod(tenths, 10) == 0)
		snprintf(buf, RK_NUM_STR, "%.0f %s", i ? tenths / 10 : v, names[i]);
	else
		snprintf(buf, RK_NUM_STR, "%.1f %s", tenths / 10, names[i]);
	return buf;
}

/* ---- counts and rates ---- */

const char *rk__count_text(char *buf, size_t cap, uint64_t n)
{
	char digits[24];
	int nd = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
	size_t o = 0;
	for (int i = 0; i < nd && o + 1 < cap; i++) {
		if (i && (nd - i) % 3 == 0 && o + 2 < cap)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	if (cap)
		buf[o] = 0;
	return buf;
}

char *rk__count_str(char buf[RK_NUM_STR], uint64_t n, const char *what)
{
	char c[RK_NUM_STR];
	snprintf(buf, RK_NUM_STR, "%s%s%.12s", rk__count_text(c, sizeof c, n), what ? " " : "",
	         what ? what : "");
	return buf;
}

char *rk__rate_str(char buf[RK_NUM_STR], double per_second, const char *what)
{
	char n[RK_NUM_STR], c[RK_NUM_STR];
	if (!(per_second >= 0) || per_second > 1e18) /* not a rate a store reaches */
		snprintf(n, sizeof n, "%g", per_second);
	else if (per_second >= 99.95)
		snprintf(n, sizeof n, "%s", rk__count_text(c, RK_NUM_STR, (uint64_t)floor(per_second + 0.5)));
	else
		snprintf(n, sizeof n, "%.1f", per_second);
	/* 1e18 with its commas is 25 bytes: the number, a space, the unit, "/s" fit */
	snprintf(buf, RK_NUM_STR, "%.26s%s%.12s/s", n, what ? " " : "", what ? what : "");
	return buf;
}

/* ---- floating point ---- */

size_t rk__double_str(char *buf, size_t cap, double v)
{
	char e[40];
	int n;
	if (isnan(v))
		return (size_t)snprintf(buf, cap, "nan");
	if (isinf(v))
		return (size_t)snprintf(buf, cap, "%sinf", v < 0 ? "-" : "");
	int p;
	for (p = 1; p < 17; p++) {
		snprintf(e, sizeof e, "%.*e", p - 1, v);
		if (strtod(e, NULL) == v)
			break;
	}
	snprintf(e, sizeof e, "%.*e", p - 1, v);
	/* e is [-]D[.DDD]e(+|-)XX: its digits and exponent */
	char digits[20];
	int nd = 0, neg = e[0] == '-';
	const char *q = e + neg;
	for (; *q && *q != 'e'; q++)
		if (*q != '.')
			digits[nd++] = *q;
	int exp = atoi(q + 1);
	if (exp < -4 || exp >= 17)
		return (size_t)snprintf(buf, cap, "%s", e);
	char out[48];
	size_t o = 0;
	if (neg)
		out[o++] = '-';
	if (exp < 0) {
		out[o++] = '0';
		out[o++] = '.';
		for (int i = 0; i < -exp - 1; i++)
			out[o++] = '0';
		for (int i = 0; i < nd; i++)
			out[o++] = digits[i];
	} else {
		for (int i = 0; i <= exp; i++)
			out[o++] = i < nd ? digits[i] : '0';
		if (nd > exp + 1) {
			out[o++] = '.';
			for (int i = exp + 1; i < nd; i++)
				out[o++] = digits[i];
		}
	}
	out[o] = 0;
	n = snprintf(buf, cap, "%s", out);
	return (size_t)n;
}

/* ---- words ---- */

const char *rk__article(uint64_t n)
{
	/* the number is read from its leading group of up to three digits
	 * (thousands, millions, ...): "eight...", "eleven...", "eighteen..." */
	uint64_t lead = n;
	while (lead >= 1000)
		lead /= 1000;
	uint64_t first = lead;
	while (first >= 10)
		first /= 10;
	return first == 8 || lead == 11 || lead == 18 ? "an" : "a";
}
