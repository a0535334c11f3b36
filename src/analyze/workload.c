/*
 * The analyzer's workloads (see workload.h). Each generator is a pure
 * function of its seed and the operation index, so two runs with the same
 * options see the same operations. Records are built in fixed buffers inside
 * the workload; digits are written by hand (snprintf would dominate a run of
 * 100 million keys).
 *
 * The "file" workload replays a CSV file (first line: field names; RFC 4180
 * quoting) or JSON lines (flat objects of strings and numbers) in file
 * order, at the given rate. Every field is text; the schema's types decide.
 */
#include "analyze/workload.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"

enum { WL_MESSAGES, WL_KEYS, WL_URLS, WL_TRADES, WL_CARS, WL_USERS, WL_FILE };

static const char *const names[] = {"messages", "keys", "urls", "trades", "cars", "users", "file",
                                    NULL};

const char *const *rk_workload_names(void)
{
	return names;
}

#define MAXF 64
#define T0_MS 1686465031000ll /* 2023-06-11 06:30:31 UTC */

/* ---- random numbers: xoroshiro128+ seeded by splitmix64 ---- */

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void rk__rng_seed(rk__rng *r, uint64_t seed)
{
	uint64_t x = seed;
	r->s[0] = splitmix(&x);
	r->s[1] = splitmix(&x);
	if (!r->s[0] && !r->s[1])
		r->s[1] = 1;
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rk__rng_next(rk__rng *r)
{
	uint64_t s0 = r->s[0], s1 = r->s[1], res = s0 + s1;
	s1 ^= s0;
	r->s[0] = rotl(s0, 24) ^ s1 ^ (s1 << 16);
	r->s[1] = rotl(s1, 37);
	return res;
}

double rk__rng_unit(rk__rng *r)
{
	return (double)(rk__rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* a draw in [0, n) by multiply-shift (Lemire): no division */
static uint64_t below(rk__rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rk__rng_next(r) * n) >> 64);
}

/* ---- Zipf: rejection-inversion (Hormann and Derflinger 1996), O(1) a draw ---- */

typedef struct zipf {
	uint64_t n;
	double s, hx1, hn, sc;
	uint64_t perm; /* rank -> id scramble: id = (rank - 1) * perm mod n */
} zipf;

static double helper1(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double helper2(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x / 2 * (1 + x / 3 * (1 + x / 4));
}

static double zh(const zipf *z, double x)
{
	return exp(-z->s * log(x));
}

static double zhi(const zipf *z, double x)
{
	double lx = log(x);
	return helper2((1 - z->s) * lx) * lx;
}

static double zhinv(const zipf *z, double x)
{
	double t = x * (1 - z->s);
	if (t < -1)
		t = -1;
	return exp(helper1(t) * x);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static void zipf_init(zipf *z, uint64_t n, double s)
{
	z->n = n;
	z->s = s;
	z->hx1 = zhi(z, 1.5) - 1;
	z->hn = zhi(z, (double)n + 0.5);
	z->sc = 2 - zhinv(z, zhi(z, 2.5) - zh(z, 2));
	z->perm = 1000003;
	while (gcd(z->perm, n) != 1)
		z->perm += 2;
}

/* An id in [0, n): rank 1 (the most frequent) maps to id 0, the others are
 * scattered so that hot ids are not key-space neighbours. */
static uint64_t zipf_draw(const zipf *z, rk__rng *r)
{
	for (;;) {
		double u = z->hn + rk__rng_unit(r) * (z->hx1 - z->hn);
		double x = zhinv(z, u);
		double kx = floor(x + 0.5);
		uint64_t k = kx < 1 ? 1 : kx > (double)z->n ? z->n : (uint64_t)kx;
		if ((double)k - x <= z->sc || u >= zhi(z, (double)k + 0.5) - zh(z, (double)k))
			return (uint64_t)(((unsigned __int128)(k - 1) * z->perm) % z->n);
	}
}

/* ---- the workload ---- */

typedef struct strbuf {
	char b[160];
} strbuf;

struct rk__workload {
	int kind;
	rk_workload_options o;
	char *file;
	rk__wfield fields[MAXF];
	size_t nfields;
	const char *const *shapes;
	size_t nshapes;
	const char *fields_text, *natural_key;
	char fields_text_buf[MAXF * 72];
	uint64_t total, i, writes;
	int64_t dur_ms;
	double rate, read_fraction, ms_per_op;
	rk__rng rng, qrng;
	zipf z1, z2;
	uint64_t card;
	unsigned key_width;
	rk__wval rec[MAXF], lo[MAXF], hi[MAXF];
	strbuf rs[MAXF], ls[MAXF], hs[MAXF];
	/* messages: the date text of the current day, the time of the second */
	int64_t day, sec;
	char date[8], tod[8];
	/* file input */
	FILE *in;
	int jsonl;
	char *line;
	size_t line_cap;
	char *cells;
	size_t cells_cap;
	long lineno;
};

static const char *const shapes_messages[] = {"messages of the last minute", "a message by id"};
static const char *const shapes_keys[] = {"one key", "100 keys in order"};
static const char *const shapes_urls[] = {"one url", "a host's pages"};
static const char *const shapes_trades[] = {"a seller's trades of the last hour",
                                            "a buyer's trades of the last hour", "an order"};
static const char *const shapes_cars[] = {"a car's last hour"};
static const char *const shapes_users[] = {"latest 10 for a user (last minute)",
                                           "a user's rows in a time range (one hour)"};

static void addf(rk__workload *w, const char *name, rk__wkind k)
{
	snprintf(w->fields[w->nfields].name, sizeof w->fields[0].name, "%s", name);
	w->fields[w->nfields].kind = k;
	w->nfields++;
}

/* digits of v into p (no terminator); returns the length */
static size_t put_u64(char *p, uint64_t v)
{
	char t[24];
	size_t n = 0;
	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t k = 0; k < n; k++)
		p[k] = t[n - 1 - k];
	return n;
}

static void put_fixed(char *p, uint64_t v, unsigned width)
{
	for (unsigned k = width; k-- > 0;) {
		p[k] = (char)('0' + v % 10);
		v /= 10;
	}
}

static void set_u(rk__wval *v, uint64_t u)
{
	v->ext = 0;
	v->u = u;
}

static void set_i(rk__wval *v, int64_t i)
{
	v->ext = 0;
	v->i = i;
}

static void set_s(rk__wval *v, strbuf *b, const char *s, size_t n)
{
	if (n > sizeof b->b)
		n = sizeof b->b;
	memcpy(b->b, s, n);
	v->ext = 0;
	v->s = b->b;
	v->len = n;
}

/* a string the workload keeps stable until the next call (no copy) */
static void set_ref(rk__wval *v, const char *s, size_t n)
{
	v->ext = 0;
	v->s = s;
	v->len = n;
}

static void set_ext(rk__wval *lo, rk__wval *hi, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		lo[k].ext = -1;
		hi[k].ext = 1;
	}
}

/* civil date from days since 1970-01-01 (Hinnant's algorithm) as YYMMDD */
static void yymmdd(char *out, int64_t days)
{
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = (int64_t)yoe + era * 400;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	unsigned d = doy - (153 * mp + 2) / 5 + 1;
	unsigned m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;
	put_fixed(out, (uint64_t)(y % 100), 2);
	put_fixed(out + 2, m, 2);
	put_fixed(out + 4, d, 2);
}

/* date and time-of-day text of epoch ms into the two values */
static void msg_datetime(rk__workload *w, rk__wval *vals, strbuf *bufs, int64_t ms)
{
	int64_t sec = ms / 1000;
	if (sec != w->sec) {
		int64_t day = sec / 86400, tod = sec % 86400;
		if (day != w->day) {
			w->day = day;
			yymmdd(w->date, day);
		}
		w->sec = sec;
		put_fixed(w->tod, (uint64_t)(tod / 3600), 2);
		put_fixed(w->tod + 2, (uint64_t)(tod / 60 % 60), 2);
		put_fixed(w->tod + 4, (uint64_t)(tod % 60), 2);
	}
	if (vals == w->rec) {
		set_ref(&vals[0], w->date, 6);
		set_ref(&vals[1], w->tod, 6);
	} else {
		set_s(&vals[0], &bufs[0], w->date, 6);
		set_s(&vals[1], &bufs[1], w->tod, 6);
	}
}

static const char *const domains[] = {"example.com", "shop.example.org", "news.example.net",
                                      "cdn.example.io", "mail.example.co.uk"};
static const size_t domain_len[] = {11, 16, 16, 14, 18};

static void url_fields(rk__wval *v, strbuf *b, uint64_t sub, unsigned dom,
                       uint64_t item)
{
	char host[96], path[32], url[160];
	size_t hl = 1;
	host[0] = 's';
	put_fixed(host + 1, sub, 5);
	hl += 5;
	host[hl++] = '.';
	size_t dl = strlen(domains[dom]);
	memcpy(host + hl, domains[dom], dl);
	hl += dl;
	memcpy(path, "/item/", 6);
	size_t pl = 6 + put_u64(path + 6, item);
	memcpy(url, "https://", 8);
	memcpy(url + 8, host, hl);
	memcpy(url + 8 + hl, path, pl);
	set_s(&v[0], &b[0], url, 8 + hl + pl);
	set_s(&v[1], &b[1], host, hl);
	set_s(&v[2], &b[2], domains[dom], dl);
	set_s(&v[3], &b[3], path, pl);
}

static const char *const kinds[] = {"view", "click", "like", "share"};
static const char *const symbols[] = {"ACME", "GLOBX", "INIT", "UMBR", "WAYN", "STRK"};

/* ---- file input ---- */

static int grow(char **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 256;
	while (n < need)
		n *= 2;
	char *q = realloc(*p, n);
	if (!q)
		return rk__err(RK_ENOMEM, "out of memory reading records");
	*p = q;
	*cap = n;
	return 0;
}

static int read_line(rk__workload *w)
{
	size_t len = 0;
	int c;
	for (;;) {
		c = getc(w->in);
		if (c == EOF)
			break;
		if (grow(&w->line, &w->line_cap, len + 2))
			return RK_ENOMEM;
		w->line[len++] = (char)c;
		if (c == '\n')
			break;
	}
	if (len == 0)
		return RK_EITEROVER;
	while (len && (w->line[len - 1] == '\n' || w->line[len - 1] == '\r'))
		len--;
	w->line[len] = 0;
	w->lineno++;
	return 0;
}

/* Splits a CSV line into cells (RFC 4180 quotes; a quoted field does not
 * span lines here). Cells go to w->cells, NUL-separated; returns the count
 * or a negative code. */
static int csv_cells(rk__workload *w, const char **cell, size_t *cell_len, size_t max)
{
	const char *p = w->line;
	size_t n = 0, o = 0, L = strlen(p);
	if (grow(&w->cells, &w->cells_cap, L + max + 2))
		return RK_ENOMEM;
	for (;;) {
		if (n == max)
			return rk__err(RK_EINVALID, "%s: line %ld: more than %zu cells", w->file, w->lineno,
			               max);
		size_t start = o;
		if (*p == '"') {
			p++;
			for (;;) {
				if (!*p)
					return rk__err(RK_EINVALID, "%s: line %ld: unterminated quote", w->file,
					               w->lineno);
				if (*p == '"' && p[1] == '"') {
					w->cells[o++] = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					w->cells[o++] = *p++;
				}
			}
		} else {
			while (*p && *p != ',')
				w->cells[o++] = *p++;
		}
		cell[n] = w->cells + start;
		cell_len[n] = o - start;
		w->cells[o++] = 0;
		n++;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p)
			return rk__err(RK_EINVALID, "%s: line %ld: text after a closing quote", w->file,
			               w->lineno);
		return (int)n;
	}
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Parses a flat JSON object line: names and values (strings, numbers,
 * true/false/null as text). */
static int json_cells(rk__workload *w, const char **name, size_t *name_len, const char **cell,
                      size_t *cell_len, size_t max)
{
	const char *p = skip_ws(w->line);
	size_t n = 0, o = 0, L = strlen(w->line);
	if (grow(&w->cells, &w->cells_cap, 2 * L + 4 * max + 2))
		return RK_ENOMEM;
	if (*p++ != '{')
		return rk__err(RK_EINVALID, "%s: line %ld: expected a JSON object", w->file, w->lineno);
	p = skip_ws(p);
	if (*p == '}')
		return 0;
	for (;;) {
		const char **dst[2] = {&name[n], &cell[n]};
		size_t *dl[2] = {&name_len[n], &cell_len[n]};
		if (n == max)
			return rk__err(RK_EINVALID, "%s: line %ld: more than %zu fields", w->file, w->lineno,
			               max);
		for (int part = 0; part < 2; part++) {
			p = skip_ws(p);
			size_t start = o;
			if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					if (*p == '\\') {
						p++;
						char c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'r' ? '\r' : *p;
						if (!*p)
							break;
						w->cells[o++] = c;
						p++;
						continue;
					}
					w->cells[o++] = *p++;
				}
				if (*p != '"')
					return rk__err(RK_EINVALID, "%s: line %ld: unterminated string", w->file,
					               w->lineno);
				p++;
			} else if (part == 1) {
				while (*p && *p != ',' && *p != '}' && *p != ' ')
					w->cells[o++] = *p++;
				if (o == start)
					return rk__err(RK_EINVALID, "%s: line %ld: missing value", w->file,
					               w->lineno);
			} else {
				return rk__err(RK_EINVALID, "%s: line %ld: expected a field name", w->file,
				               w->lineno);
			}
			*dst[part] = w->cells + start;
			*dl[part] = o - start;
			w->cells[o++] = 0;
			p = skip_ws(p);
			if (part == 0 && *p++ != ':')
				return rk__err(RK_EINVALID, "%s: line %ld: expected ':'", w->file, w->lineno);
		}
		n++;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '}')
			return (int)n;
		return rk__err(RK_EINVALID, "%s: line %ld: expected ',' or '}'", w->file, w->lineno);
	}
}

static int file_header(rk__workload *w)
{
	const char *cell[MAXF], *name[MAXF];
	size_t cl[MAXF], nl[MAXF];
	int n, rc;
	if ((rc = read_line(w)) != 0)
		return rc == RK_EITEROVER ? rk__err(RK_EINVALID, "%s: no records", w->file) : rc;
	w->jsonl = *skip_ws(w->line) == '{';
	if (w->jsonl) {
		if ((n = json_cells(w, name, nl, cell, cl, MAXF)) < 0)
			return n;
	} else {
		if ((n = csv_cells(w, name, nl, MAXF)) < 0)
			return n;
	}
	if (n == 0)
		return rk__err(RK_EINVALID, "%s: line 1 names no fields", w->file);
	for (int k = 0; k < n; k++) {
		if (nl[k] == 0 || nl[k] >= sizeof w->fields[0].name)
			return rk__err(RK_EINVALID, "%s: line 1: field %d has an empty or too long name",
			               w->file, k + 1);
		char tmp[64];
		memcpy(tmp, name[k], nl[k]);
		tmp[nl[k]] = 0;
		addf(w, tmp, RK__W_STR);
	}
	if (w->jsonl) {
		/* JSON lines name their fields in every record: the first line is
		 * data too */
		rewind(w->in);
		w->lineno = 0;
	}
	return 0;
}

/* Reads the next record into rec (text values). */
static int file_record(rk__workload *w)
{
	const char *cell[MAXF], *name[MAXF];
	size_t cl[MAXF], nl[MAXF];
	int n, rc;
	if ((rc = read_line(w)) != 0)
		return rc;
	for (size_t k = 0; k < w->nfields; k++) {
		w->rec[k].ext = 2; /* absent */
		w->rec[k].s = "";
		w->rec[k].len = 0;
	}
	if (w->jsonl) {
		if ((n = json_cells(w, name, nl, cell, cl, MAXF)) < 0)
			return n;
		for (int k = 0; k < n; k++)
			for (size_t f = 0; f < w->nfields; f++)
				if (strlen(w->fields[f].name) == nl[k] && !memcmp(w->fields[f].name, name[k], nl[k])) {
					w->rec[f].ext = 0;
					w->rec[f].s = cell[k];
					w->rec[f].len = cl[k];
				}
	} else {
		if ((n = csv_cells(w, cell, cl, MAXF)) < 0)
			return n;
		if ((size_t)n != w->nfields)
			return rk__err(RK_EINVALID, "%s: line %ld: %d cells, the header names %zu", w->file,
			               w->lineno, n, w->nfields);
		for (int k = 0; k < n; k++) {
			w->rec[k].ext = 0;
			w->rec[k].s = cell[k];
			w->rec[k].len = cl[k];
		}
	}
	return 0;
}

/* ---- open ---- */

static int setup(rk__workload *w)
{
	const rk_workload_options *o = &w->o;
	double s = o->zipf > 0 ? o->zipf : 1.1;
	w->nfields = 0;
	switch (w->kind) {
	case WL_MESSAGES:
		addf(w, "date", RK__W_STR);
		addf(w, "time", RK__W_STR);
		addf(w, "id", RK__W_U64);
		addf(w, "user", RK__W_U64);
		addf(w, "domain", RK__W_STR);
		addf(w, "ts", RK__W_I64);
		w->shapes = shapes_messages;
		w->nshapes = 2;
		w->natural_key = "date \":\" time \":\" id";
		w->card = o->cardinality ? o->cardinality : 100000;
		w->read_fraction = o->read_fraction >= 0 ? o->read_fraction : 0.0;
		break;
	case WL_KEYS:
		addf(w, "key", RK__W_STR);
		addf(w, "n", RK__W_U64);
		w->shapes = shapes_keys;
		w->nshapes = 2;
		w->natural_key = "key";
		w->read_fraction = o->read_fraction >= 0 ? o->read_fraction : 0.0;
		break;
	case WL_URLS:
		addf(w, "url", RK__W_STR);
		addf(w, "host", RK__W_STR);
		addf(w, "domain", RK__W_STR);
		addf(w, "path", RK__W_STR);
		addf(w, "ts", RK__W_I64);
		w->shapes = shapes_urls;
		w->nshapes = 2;
		w->natural_key = "url";
		w->card = o->cardinality ? o->cardinality : 10000;
		if (w->card > 99999)
			return rk__err(RK_EINVALID, "workload urls: at most 99999 subdomains per domain, not %llu",
			               (unsigned long long)w->card);
		zipf_init(&w->z1, w->card, s);
		w->read_fraction = o->read_fraction >= 0 ? o->read_fraction : 0.1;
		break;
	case WL_TRADES:
		addf(w, "seller", RK__W_U64);
		addf(w, "buyer", RK__W_U64);
		addf(w, "ts", RK__W_I64);
		addf(w, "order", RK__W_U64);
		addf(w, "symbol", RK__W_STR);
		w->shapes = shapes_trades;
		w->nshapes = 3;
		w->natural_key = "ts \":\" order";
		w->card = o->cardinality ? o->cardinality : 100000;
		zipf_init(&w->z1, w->card, s);
		zipf_init(&w->z2, w->card, s);
		w->read_fraction = o->read_fraction >= 0 ? o->read_fraction : 0.1;
		break;
	case WL_CARS:
		addf(w, "car", RK__W_U64);
		addf(w, "ts", RK__W_I64);
		addf(w, "speed", RK__W_U64);
		w->shapes = shapes_cars;
		w->nshapes = 1;
		w->natural_key = "ts \":\" car";
		w->card = o->cardinality ? o->cardinality : 10000;
		w->read_fraction = o->read_fraction >= 0 ? o->read_fraction : 0.05;
		break;
	case WL_USERS:
		addf(w, "user", RK__W_U64);
		addf(w, "ts", RK__W_I64);
		addf(w, "event", RK__W_U64);
		addf(w, "kind", RK__W_STR);
		w->shapes = shapes_users;
		w->nshapes = 2;
		w->natural_key = "ts \":\" user \":\" event";
		w->card = o->cardinality ? o->cardinality : 1000000;
		zipf_init(&w->z1, w->card, s);
		w->read_fraction = o->read_fraction >= 0 ? o->read_fraction : 0.2;
		break;
	default: {
		int rc;
		if (!(w->in = fopen(o->file, "r")))
			return rk__err(errno == ENOENT ? RK_ENOTFOUND : RK_EIO, "workload file: %s: %s",
			               o->file, strerror(errno));
		if ((rc = file_header(w)) != 0)
			return rc;
		w->shapes = NULL;
		w->nshapes = 0;
		w->natural_key = w->fields[0].name;
		w->read_fraction = 0;
		break;
	}
	}
	/* the fields directive */
	size_t off = (size_t)snprintf(w->fields_text_buf, sizeof w->fields_text_buf, "fields ");
	for (size_t k = 0; k < w->nfields; k++)
		off += (size_t)snprintf(w->fields_text_buf + off, sizeof w->fields_text_buf - off, "%s%s:%s",
		                        k ? ", " : "", w->fields[k].name,
		                        w->fields[k].kind == RK__W_U64   ? "u64"
		                        : w->fields[k].kind == RK__W_I64 ? "i64"
		                                                         : "str");
	w->fields_text = w->fields_text_buf;
	return 0;
}

int rk__workload_rewind(rk__workload *w)
{
	rk__rng_seed(&w->rng, w->o.seed);
	rk__rng_seed(&w->qrng, w->o.seed ^ 0x5851F42D4C957F2Dull);
	w->i = 0;
	w->writes = 0;
	w->day = -1;
	w->sec = INT64_MIN;
	if (w->in) {
		rewind(w->in);
		w->lineno = 0;
		w->nfields = 0;
		return file_header(w);
	}
	return 0;
}

int rk__workload_open(rk__workload **out, const rk_workload_options *o)
{
	int kind = -1, rc;
	*out = NULL;
	const char *name = o && o->name ? o->name : "";
	for (int k = 0; names[k]; k++)
		if (!strcmp(names[k], name))
			kind = k;
	if (kind < 0)
		return rk__err(RK_ENOTFOUND,
		               "unknown workload '%s' (known: messages, keys, urls, trades, cars, users, "
		               "file)",
		               name);
	if (!(o->rate > 0) || !isfinite(o->rate))
		return rk__err(RK_EINVALID, "workload %s: the rate must be > 0 operations/s", name);
	if (!(o->duration > 0) || !isfinite(o->duration))
		return rk__err(RK_EINVALID, "workload %s: the duration must be > 0 seconds", name);
	if (o->read_fraction > 1)
		return rk__err(RK_EINVALID, "workload %s: the read fraction must be in 0..1", name);
	if (kind == WL_FILE && !o->file)
		return rk__err(RK_EINVALID, "workload file: no file given");
	double total = floor(o->rate * o->duration);
	if (total < 1 || total > 1e13)
		return rk__err(RK_EINVALID, "workload %s: rate x duration gives %.0f operations", name,
		               total);
	rk__workload *w = calloc(1, sizeof *w);
	if (!w)
		return rk__err(RK_ENOMEM, "out of memory for a workload");
	w->kind = kind;
	w->o = *o;
	w->o.name = names[kind];
	if (o->file && !(w->file = strdup(o->file))) {
		free(w);
		return rk__err(RK_ENOMEM, "out of memory for a workload");
	}
	w->o.file = w->file;
	w->rate = o->rate;
	w->ms_per_op = 1000.0 / o->rate;
	w->total = (uint64_t)total;
	if ((rc = setup(w)) != 0)
		goto fail;
	if (kind == WL_FILE) {
		/* count the records: the run ends at the file's end or the duration */
		uint64_t n = 0;
		while (n < w->total && (rc = read_line(w)) == 0)
			n++;
		if (rc && rc != RK_EITEROVER)
			goto fail;
		if (n == 0) {
			rc = rk__err(RK_EINVALID, "%s: no records after the header", w->file);
			goto fail;
		}
		w->total = n;
	}
	w->dur_ms = (int64_t)ceil((double)w->total * 1000.0 / w->rate);
	if (w->dur_ms < 1)
		w->dur_ms = 1;
	{
		uint64_t t = w->total;
		unsigned d = 1;
		while (t >= 10) {
			t /= 10;
			d++;
		}
		w->key_width = d < 4 ? 4 : d;
	}
	if ((rc = rk__workload_rewind(w)) != 0)
		goto fail;
	*out = w;
	return 0;
fail:
	rk__workload_close(w);
	return rc;
}

void rk__workload_close(rk__workload *w)
{
	if (!w)
		return;
	if (w->in)
		fclose(w->in);
	free(w->line);
	free(w->cells);
	free(w->file);
	free(w);
}

size_t rk__workload_nfields(const rk__workload *w)
{
	return w->nfields;
}

const rk__wfield *rk__workload_field(const rk__workload *w, size_t i)
{
	return &w->fields[i];
}

const char *rk__workload_name(const rk__workload *w)
{
	return w->o.name;
}

size_t rk__workload_nshapes(const rk__workload *w)
{
	return w->nshapes;
}

const char *rk__workload_shape(const rk__workload *w, size_t i)
{
	return w->shapes[i];
}

const char *rk__workload_fields_text(const rk__workload *w)
{
	return w->fields_text;
}

const char *rk__workload_natural_key(const rk__workload *w)
{
	return w->natural_key;
}

uint64_t rk__workload_total(const rk__workload *w)
{
	return w->total;
}

int64_t rk__workload_duration_ms(const rk__workload *w)
{
	return w->dur_ms;
}

double rk__workload_rate(const rk__workload *w)
{
	return w->rate;
}

const rk__wval *rk__workload_rec(const rk__workload *w)
{
	return w->rec;
}

const rk__wval *rk__workload_lo(const rk__workload *w)
{
	return w->lo;
}

const rk__wval *rk__workload_hi(const rk__workload *w)
{
	return w->hi;
}

/* ---- generation ---- */

static void gen_write(rk__workload *w, int64_t t)
{
	rk__rng *r = &w->rng;
	rk__wval *v = w->rec;
	strbuf *b = w->rs;
	uint64_t n = w->writes;
	int64_t ts = T0_MS + t;
	switch (w->kind) {
	case WL_MESSAGES:
		msg_datetime(w, v, b, ts);
		set_u(&v[2], 1231231 + n);
		set_u(&v[3], below(r, w->card));
		{
			unsigned d = (unsigned)below(r, 4);
			set_ref(&v[4], domains[d], domain_len[d]);
		}
		set_i(&v[5], ts);
		break;
	case WL_KEYS: {
		char k[32] = "foo";
		put_fixed(k + 3, n + 1, w->key_width);
		set_s(&v[0], &b[0], k, 3 + w->key_width);
		set_u(&v[1], n + 1);
		break;
	}
	case WL_URLS:
		url_fields(v, b, zipf_draw(&w->z1, r), (unsigned)below(r, 5), 1 + below(r, 100000));
		set_i(&v[4], ts);
		break;
	case WL_TRADES:
		set_u(&v[0], zipf_draw(&w->z1, r));
		set_u(&v[1], zipf_draw(&w->z2, r));
		set_i(&v[2], ts);
		set_u(&v[3], 1000000000ull + n);
		{
			const char *s = symbols[below(r, 6)];
			set_s(&v[4], &b[4], s, strlen(s));
		}
		break;
	case WL_CARS:
		set_u(&v[0], n % w->card);
		set_i(&v[1], ts);
		set_u(&v[2], below(r, 200));
		break;
	case WL_USERS:
		set_u(&v[0], zipf_draw(&w->z1, r));
		set_i(&v[1], ts);
		set_u(&v[2], n + 1);
		{
			const char *s = kinds[below(r, 4)];
			set_s(&v[3], &b[3], s, strlen(s));
		}
		break;
	default:
		break;
	}
}

void rk__workload_query(rk__workload *w, int shape, int64_t t)
{
	rk__rng *r = &w->qrng;
	rk__wval *lo = w->lo, *hi = w->hi;
	strbuf *lb = w->ls, *hb = w->hs;
	int64_t ts = T0_MS + t, hour = 3600000;
	uint64_t written = w->writes ? w->writes : 1;
	set_ext(lo, hi, w->nfields);
	switch (w->kind) {
	case WL_MESSAGES:
		if (shape == 0) {
			msg_datetime(w, lo, lb, ts - 60000 < T0_MS ? T0_MS : ts - 60000);
			msg_datetime(w, hi, hb, ts);
		} else {
			uint64_t id = 1231231 + below(r, written);
			set_u(&lo[2], id);
			set_u(&hi[2], id);
		}
		break;
	case WL_KEYS: {
		uint64_t n = 1 + below(r, written);
		char k[32] = "foo";
		put_fixed(k + 3, n, w->key_width);
		set_s(&lo[0], &lb[0], k, 3 + w->key_width);
		set_u(&lo[1], n);
		if (shape == 0) {
			set_s(&hi[0], &hb[0], k, 3 + w->key_width);
			set_u(&hi[1], n);
		} else {
			put_fixed(k + 3, n + 99, w->key_width);
			set_s(&hi[0], &hb[0], k, 3 + w->key_width);
			set_u(&hi[1], n + 99);
		}
		break;
	}
	case WL_URLS: {
		uint64_t sub = zipf_draw(&w->z1, r), item = 1 + below(r, 100000);
		unsigned dom = (unsigned)below(r, 5);
		url_fields(lo, lb, sub, dom, item);
		url_fields(hi, hb, sub, dom, item);
		if (shape == 1) {
			lo[0].ext = lo[3].ext = -1;
			hi[0].ext = hi[3].ext = 1;
		}
		break;
	}
	case WL_TRADES:
		if (shape < 2) {
			uint64_t who = zipf_draw(shape ? &w->z2 : &w->z1, r);
			set_u(&lo[shape], who);
			set_u(&hi[shape], who);
			set_i(&lo[2], ts - hour);
			set_i(&hi[2], ts);
		} else {
			uint64_t order = 1000000000ull + below(r, written);
			set_u(&lo[3], order);
			set_u(&hi[3], order);
		}
		break;
	case WL_CARS: {
		uint64_t car = below(r, w->card);
		set_u(&lo[0], car);
		set_u(&hi[0], car);
		set_i(&lo[1], ts - hour);
		set_i(&hi[1], ts);
		break;
	}
	case WL_USERS: {
		uint64_t u = zipf_draw(&w->z1, r);
		set_u(&lo[0], u);
		set_u(&hi[0], u);
		if (shape == 0) {
			set_i(&lo[1], ts - 60000);
			set_i(&hi[1], ts);
		} else {
			int64_t back = t > 0 ? (int64_t)below(r, (uint64_t)t) : 0;
			set_i(&lo[1], ts - back);
			set_i(&hi[1], ts - back + hour);
		}
		break;
	}
	default:
		break;
	}
}

int rk__workload_next(rk__workload *w, int64_t *t_ms, int *shape)
{
	if (w->i >= w->total)
		return RK_EITEROVER;
	int64_t t = (int64_t)((double)w->i * w->ms_per_op);
	w->i++;
	*t_ms = t;
	if (w->nshapes && w->read_fraction > 0 && rk__rng_unit(&w->rng) < w->read_fraction) {
		*shape = (int)below(&w->rng, w->nshapes);
		rk__workload_query(w, *shape, t);
		return 0;
	}
	*shape = -1;
	if (w->kind == WL_FILE) {
		int rc = file_record(w);
		if (rc)
			return rc;
	} else {
		gen_write(w, t);
	}
	w->writes++;
	return 0;
}

/* ---- description ---- */

int rk_workload_describe(char **out, const rk_workload_options *opts)
{
	rk__workload *w;
	int rc;
	*out = NULL;
	if ((rc = rk__workload_open(&w, opts)) != 0)
		return rc;
	size_t cap = 4096;
	char *s = malloc(cap);
	if (!s) {
		rk__workload_close(w);
		return rk__err(RK_ENOMEM, "out of memory");
	}
	size_t off = (size_t)snprintf(s, cap,
	                              "workload    %s\n%s\nnatural key %s\noperations  %llu over %.0f s "
	                              "(%.0f/s), reads %.0f%%\n",
	                              w->o.name, w->fields_text, w->natural_key,
	                              (unsigned long long)w->total, (double)w->dur_ms / 1000.0, w->rate,
	                              w->read_fraction * 100);
	for (size_t k = 0; k < w->nshapes && off < cap; k++)
		off += (size_t)snprintf(s + off, cap - off, "query       %s\n", w->shapes[k]);
	rk__workload_close(w);
	*out = s;
	return 0;
}
