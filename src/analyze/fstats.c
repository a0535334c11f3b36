/*
 * Streaming field statistics (see fstats.h). HyperLogLog after Flajolet et
 * al. (2007) with the small-range correction (linear counting below 5/2 m);
 * Hashes are XXH3-64, the library the key layer already links.
 */
#include "analyze/fstats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "key/timefmt.h"

uint64_t rk__fstats_hash(const void *p, size_t n)
{
	return XXH3_64bits(p, n);
}

void rk__fstats_init(rk__fstats *s)
{
	memset(s, 0, sizeof *s);
	s->len_min = SIZE_MAX;
}

static void hll_add(rk__fstats *s, uint64_t h)
{
	unsigned idx = (unsigned)(h >> (64 - RK__HLL_BITS));
	uint64_t rest = h << RK__HLL_BITS | (1ull << (RK__HLL_BITS - 1));
	uint8_t rank = (uint8_t)(__builtin_clzll(rest) + 1);
	if (rank > s->hll[idx])
		s->hll[idx] = rank;
}

double rk__fstats_distinct(const rk__fstats *s)
{
	const double m = 1 << RK__HLL_BITS;
	double sum = 0;
	unsigned zeros = 0;
	for (unsigned i = 0; i < (1u << RK__HLL_BITS); i++) {
		sum += ldexp(1.0, -s->hll[i]);
		zeros += s->hll[i] == 0;
	}
	double e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
	if (e <= 2.5 * m && zeros)
		e = m * log(m / zeros);
	return e;
}

static void lengths(rk__fstats *s, size_t n)
{
	if (n < s->len_min)
		s->len_min = n;
	if (n > s->len_max)
		s->len_max = n;
	s->len_sum += n;
}

/* A pair with the previous value: numbers compare as numbers, text as bytes. */
static void monotonic(rk__fstats *s, int is_num, double num, const void *p, size_t n)
{
	if (s->prev_kind) {
		s->pairs++;
		if (is_num && s->prev_kind == 1) {
			s->num_pairs++;
			s->ge_num += num >= s->prev_num;
		}
		size_t m = n < s->prev_len ? n : s->prev_len;
		int c = m ? memcmp(p, s->prev_text, m) : 0;
		s->ge_bytes += c > 0 || (c == 0 && n >= s->prev_len);
	}
	s->prev_kind = is_num ? 1 : 2;
	s->prev_num = num;
	s->prev_len = n < sizeof s->prev_text ? n : sizeof s->prev_text;
	memcpy(s->prev_text, p, s->prev_len);
}

static void number_seen(rk__fstats *s, double d)
{
	if (!s->have_num || d < s->min)
		s->min = d;
	if (!s->have_num || d > s->max)
		s->max = d;
	s->have_num = 1;
}

/* Classifies text: 1 an integer (*d its value), 2 another number, 3 an
 * ISO-8601 time (*iso), 0 text. */
static int classify(rk__fstats *s, const char *p, size_t n, double *d, int64_t *iso)
{
	size_t i = p[0] == '-';
	size_t digits = 0;
	while (i + digits < n && p[i + digits] >= '0' && p[i + digits] <= '9')
		digits++;
	if (digits && i + digits == n && digits <= 20) {
		char buf[24];
		memcpy(buf, p, n);
		buf[n] = 0;
		errno = 0;
		if (p[0] == '-') {
			long long v = strtoll(buf, NULL, 10);
			*d = (double)v;
			s->shape.neg = 1;
		} else {
			unsigned long long v = strtoull(buf, NULL, 10);
			*d = (double)v;
			s->shape.big |= v > (unsigned long long)INT64_MAX;
		}
		if (errno) /* past 64 bits: a number, not an integer a key can hold */
			return 2;
		if (digits > 1 && p[i] == '0')
			s->shape.lead0++;
		return 1;
	}
	if (n < 64 && n > 0 && (p[0] == '-' || p[0] == '.' || (p[0] >= '0' && p[0] <= '9'))) {
		char buf[64], *end;
		memcpy(buf, p, n);
		buf[n] = 0;
		*d = strtod(buf, &end);
		if (*end == 0 && isfinite(*d))
			return 2;
	}
	if (n >= 10 && p[4] == '-' && rk__iso8601_ms(iso, p, n) == 0)
		return 3;
	return 0;
}

/* ---- dates in named formats ---- */

/* Each date layout alone, then with a time to the minute and to the second;
 * US month-first before day-first, so an all-ambiguous column (every first
 * number <= 12) is read as US dates, and the profile says so. */
static const char *const date_formats[RK__DATEFMTS] = {
	"%b %d %Y", "%b %d %Y %H:%M", "%b %d %Y %H:%M:%S",
	"%b %d, %Y", "%b %d, %Y %H:%M", "%b %d, %Y %H:%M:%S",
	"%d %b %Y", "%d %b %Y %H:%M", "%d %b %Y %H:%M:%S",
	"%B %d %Y", "%B %d %Y %H:%M", "%B %d %Y %H:%M:%S",
	"%B %d, %Y", "%B %d, %Y %H:%M", "%B %d, %Y %H:%M:%S",
	"%d %B %Y", "%d %B %Y %H:%M", "%d %B %Y %H:%M:%S",
	"%Y/%m/%d", "%Y/%m/%d %H:%M", "%Y/%m/%d %H:%M:%S",
	"%m/%d/%Y", "%m/%d/%Y %H:%M", "%m/%d/%Y %H:%M:%S",
	"%d/%m/%Y", "%d/%m/%Y %H:%M", "%d/%m/%Y %H:%M:%S",
	"%d.%m.%Y", "%d.%m.%Y %H:%M", "%d.%m.%Y %H:%M:%S",
	"%Y-%m",
};

const char *rk__fstats_datefmt(int k)
{
	return k >= 0 && k < RK__DATEFMTS ? date_formats[k] : NULL;
}

int rk__fstats_date_format(const rk__fstats *s, int *also)
{
	uint64_t vals = s->cells - s->empties;
	int first = -1;
	*also = -1;
	if (!vals || s->shape.dates != vals || !s->shape.dfmts)
		return -1;
	for (int k = 0; k < RK__DATEFMTS; k++)
		if (s->shape.dfmts >> k & 1) {
			if (first < 0)
				first = k;
			else if (*also < 0)
				*also = k;
		}
	return first;
}

/* A value that no other class took: a date in the formats every date so far
 * read in? Only tried while the field can still be all dates, so a text
 * field costs one failed parse per format, once. */
static int date_seen(rk__fstats *s, const char *p, size_t n)
{
	uint32_t fits = 0, try = s->shape.dates ? s->shape.dfmts : (1u << RK__DATEFMTS) - 1;
	int64_t ms[RK__DATEFMTS];
	const char *why;
	if (s->shape.texts || s->shape.ints || s->shape.decs || s->shape.isos || n < 6 || n > 40)
		return 0;
	for (int k = 0; k < RK__DATEFMTS; k++)
		if ((try >> k & 1) && rk__datefmt_parse(&ms[k], rk__fstats_datefmt(k), p, n, &why) == 0)
			fits |= 1u << k;
	if (!fits)
		return 0;
	for (int k = 0; k < RK__DATEFMTS; k++) {
		if (!(fits >> k & 1))
			continue;
		if (!s->shape.dates || ms[k] < s->dmin[k])
			s->dmin[k] = ms[k];
		if (!s->shape.dates || ms[k] > s->dmax[k])
			s->dmax[k] = ms[k];
		if (s->shape.dates)
			s->dge[k] += ms[k] >= s->dprev[k];
		s->dprev[k] = ms[k];
	}
	s->dpairs += s->shape.dates > 0;
	s->shape.dfmts = fits;
	s->shape.dates++;
	return 1;
}

void rk__fstats_text(rk__fstats *s, const char *p, size_t n, int absent)
{
	s->cells++;
	if (absent || n == 0) {
		s->empties++;
		return;
	}
	uint64_t h = rk__fstats_hash(p, n);
	hll_add(s, h);
	lengths(s, n);
	double d = 0;
	int64_t iso = 0;
	int k = classify(s, p, n, &d, &iso);
	if (k == 1) {
		s->shape.ints++;
		number_seen(s, d);
	} else if (k == 2) {
		s->shape.decs++;
		number_seen(s, d);
	} else if (k == 0 && date_seen(s, p, n)) {
		/* counted in shape.dates */
	} else if (k == 3) {
		if (!s->shape.isos || iso < s->iso_min)
			s->iso_min = iso;
		if (!s->shape.isos || iso > s->iso_max)
			s->iso_max = iso;
		s->shape.isos++;
	} else {
		s->shape.texts++;
	}
	monotonic(s, k == 1 || k == 2, d, p, n);
}

/* Typed values hash their decimal text, so a generated workload's values
 * and a file's text of the same numbers profile alike. */
static size_t dec(char *b, uint64_t v, int neg)
{
	char t[24];
	size_t n = 0, o = 0;
	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		b[o++] = '-';
	while (n)
		b[o++] = t[--n];
	return o;
}

static void typed(rk__fstats *s, const char *b, size_t n, double d)
{
	s->cells++;
	s->shape.ints++;
	uint64_t h = rk__fstats_hash(b, n);
	hll_add(s, h);
	lengths(s, n);
	number_seen(s, d);
	monotonic(s, 1, d, b, n);
}

void rk__fstats_u64(rk__fstats *s, uint64_t v)
{
	char b[24];
	typed(s, b, dec(b, v, 0), (double)v);
}

void rk__fstats_i64(rk__fstats *s, int64_t v)
{
	char b[24];
	s->shape.neg |= v < 0;
	typed(s, b, dec(b, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0), (double)v);
}

double rk__fstats_monotonic(const rk__fstats *s, int numeric)
{
	if (numeric && s->num_pairs)
		return (double)s->ge_num / (double)s->num_pairs;
	return s->pairs ? (double)s->ge_bytes / (double)s->pairs : 0;
}
