/*
 * The generated workloads (see workload.h): messages, keys, urls, trades,
 * cars and users. Each is a pure function of its seed and the operation
 * index, so two runs with the same options see the same operations.
 * Records are built in fixed buffers inside the workload; digits are written
 * by hand (snprintf would dominate a run of 100 million keys).
 *
 * Each workload names its query shapes twice over, on purpose: as a
 * predicate with ? (what shape.c prices on the data, and what a user would
 * write with --query) and as the bound records its reads carry (what the
 * simulator routes while it runs).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/wstate.h"
#include "key/error.h"

/* a draw in [0, n) by multiply-shift (Lemire): no division */
static uint64_t below(rk__rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rk__rng_next(r) * n) >> 64);
}

/* ---- Zipf: rejection-inversion (Hormann and Derflinger 1996), O(1) a draw ---- */

static double helper1(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double helper2(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x / 2 * (1 + x / 3 * (1 + x / 4));
}

static double zh(const rk__zipf *z, double x)
{
	return exp(-z->s * log(x));
}

static double zhi(const rk__zipf *z, double x)
{
	double lx = log(x);
	return helper2((1 - z->s) * lx) * lx;
}

static double zhinv(const rk__zipf *z, double x)
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

void rk__zipf_init(rk__zipf *z, uint64_t n, double s)
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
uint64_t rk__zipf_draw(const rk__zipf *z, rk__rng *r)
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

static void set_s(rk__wval *v, rk__strbuf *b, const char *s, size_t n)
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
static void msg_datetime(rk__workload *w, rk__wval *vals, rk__strbuf *bufs, int64_t ms)
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

static void url_fields(rk__wval *v, rk__strbuf *b, uint64_t sub, unsigned dom,
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

/* ---- query shapes ---- */

static const rk__wshape shapes_messages[] = {
	{"messages of the last minute", "date = ? AND time >= ? AND time <= ?", 1},
	{"a message by id", "id = ?", 1}};
static const rk__wshape shapes_keys[] = {{"one key", "key = ?", 1},
                                         {"100 keys in order", "key >= ? AND key <= ?", 1}};
static const rk__wshape shapes_urls[] = {{"one url", "url = ?", 1},
                                         {"a host's pages", "host = ? AND domain = ?", 1}};
static const rk__wshape shapes_trades[] = {
	{"a seller's trades of the last hour", "seller = ? AND ts >= ? AND ts <= ?", 1},
	{"a buyer's trades of the last hour", "buyer = ? AND ts >= ? AND ts <= ?", 1},
	{"an order", "order = ?", 1}};
static const rk__wshape shapes_cars[] = {{"a car's last hour", "car = ? AND ts >= ? AND ts <= ?", 1}};
static const rk__wshape shapes_users[] = {
	{"latest 10 for a user (last minute)", "user = ? AND ts >= ? AND ts <= ?", 1},
	{"a user's rows in a time range (one hour)", "user = ? AND ts >= ? AND ts <= ?", 1}};

static void use_shapes(rk__workload *w, const rk__wshape *s, size_t n)
{
	for (size_t k = 0; k < n; k++)
		w->shapes[k] = s[k];
	w->nshapes = n;
	w->own_shapes = 1;
}

/* ---- setup ---- */

int rk__gen_setup(rk__workload *w)
{
	const rk_workload_options *o = &w->o;
	double s = o->zipf > 0 ? o->zipf : 1.1;
	w->nfields = 0;
	switch (w->kind) {
	case RK__WL_MESSAGES:
		addf(w, "date", RK__W_STR);
		addf(w, "time", RK__W_STR);
		addf(w, "id", RK__W_U64);
		addf(w, "user", RK__W_U64);
		addf(w, "domain", RK__W_STR);
		addf(w, "ts", RK__W_I64);
		use_shapes(w, shapes_messages, 2);
		w->natural_key = "date \":\" time \":\" id";
		w->card = o->cardinality ? o->cardinality : 100000;
		w->read_fraction = o->read_fraction >= 0 ? o->read_fraction : 0.0;
		break;
	case RK__WL_KEYS:
		addf(w, "key", RK__W_STR);
		addf(w, "n", RK__W_U64);
		use_shapes(w, shapes_keys, 2);
		w->natural_key = "key";
		w->read_fraction = o->read_fraction >= 0 ? o->read_fraction : 0.0;
		break;
	case RK__WL_URLS:
		addf(w, "url", RK__W_STR);
		addf(w, "host", RK__W_STR);
		addf(w, "domain", RK__W_STR);
		addf(w, "path", RK__W_STR);
		addf(w, "ts", RK__W_I64);
		use_shapes(w, shapes_urls, 2);
		w->natural_key = "url";
		w->card = o->cardinality ? o->cardinality : 10000;
		if (w->card > 99999)
			return rk__err(RK_EINVALID, "workload urls: at most 99999 subdomains per domain, not %llu",
			               (unsigned long long)w->card);
		rk__zipf_init(&w->z1, w->card, s);
		w->read_fraction = o->read_fraction >= 0 ? o->read_fraction : 0.1;
		break;
	case RK__WL_TRADES:
		addf(w, "seller", RK__W_U64);
		addf(w, "buyer", RK__W_U64);
		addf(w, "ts", RK__W_I64);
		addf(w, "order", RK__W_U64);
		addf(w, "symbol", RK__W_STR);
		use_shapes(w, shapes_trades, 3);
		w->natural_key = "ts \":\" order";
		w->card = o->cardinality ? o->cardinality : 100000;
		rk__zipf_init(&w->z1, w->card, s);
		rk__zipf_init(&w->z2, w->card, s);
		w->read_fraction = o->read_fraction >= 0 ? o->read_fraction : 0.1;
		break;
	case RK__WL_CARS:
		addf(w, "car", RK__W_U64);
		addf(w, "ts", RK__W_I64);
		addf(w, "speed", RK__W_U64);
		use_shapes(w, shapes_cars, 1);
		w->natural_key = "ts \":\" car";
		w->card = o->cardinality ? o->cardinality : 10000;
		w->read_fraction = o->read_fraction >= 0 ? o->read_fraction : 0.05;
		break;
	case RK__WL_USERS:
		addf(w, "user", RK__W_U64);
		addf(w, "ts", RK__W_I64);
		addf(w, "event", RK__W_U64);
		addf(w, "kind", RK__W_STR);
		use_shapes(w, shapes_users, 2);
		w->natural_key = "ts \":\" user \":\" event";
		w->card = o->cardinality ? o->cardinality : 1000000;
		rk__zipf_init(&w->z1, w->card, s);
		w->read_fraction = o->read_fraction >= 0 ? o->read_fraction : 0.2;
		break;
	default:
		return rk__err(RK_EINVALID, "not a generated workload");
	}
	return 0;
}

/* ---- generation ---- */

void rk__gen_write(rk__workload *w, int64_t t)
{
	rk__rng *r = &w->rng;
	rk__wval *v = w->rec;
	rk__strbuf *b = w->rs;
	uint64_t n = w->writes;
	int64_t ts = RK__T0_MS + t;
	switch (w->kind) {
	case RK__WL_MESSAGES:
		msg_datetime(w, v, b, ts);
		set_u(&v[2], 1231231 + n);
		set_u(&v[3], below(r, w->card));
		{
			unsigned d = (unsigned)below(r, 4);
			set_ref(&v[4], domains[d], domain_len[d]);
		}
		set_i(&v[5], ts);
		break;
	case RK__WL_KEYS: {
		char k[32] = "foo";
		put_fixed(k + 3, n + 1, w->key_width);
		set_s(&v[0], &b[0], k, 3 + w->key_width);
		set_u(&v[1], n + 1);
		break;
	}
	case RK__WL_URLS:
		url_fields(v, b, rk__zipf_draw(&w->z1, r), (unsigned)below(r, 5), 1 + below(r, 100000));
		set_i(&v[4], ts);
		break;
	case RK__WL_TRADES:
		set_u(&v[0], rk__zipf_draw(&w->z1, r));
		set_u(&v[1], rk__zipf_draw(&w->z2, r));
		set_i(&v[2], ts);
		set_u(&v[3], 1000000000ull + n);
		{
			const char *s = symbols[below(r, 6)];
			set_s(&v[4], &b[4], s, strlen(s));
		}
		break;
	case RK__WL_CARS:
		set_u(&v[0], n % w->card);
		set_i(&v[1], ts);
		set_u(&v[2], below(r, 200));
		break;
	case RK__WL_USERS:
		set_u(&v[0], rk__zipf_draw(&w->z1, r));
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

/* ---- queries ----
 * One generator per workload: shape is an index into its shapes_ table
 * above, t the time since the run started. Each sets the bounds it
 * constrains in w->lo and w->hi; the others stay open. */

#define HOUR_MS 3600000

/* the messages of the last minute, or one message by id */
static void query_messages(rk__workload *w, int shape, int64_t t)
{
	int64_t ts = RK__T0_MS + t;
	if (shape == 0) {
		msg_datetime(w, w->lo, w->ls, ts - 60000 < RK__T0_MS ? RK__T0_MS : ts - 60000);
		msg_datetime(w, w->hi, w->hs, ts);
	} else {
		uint64_t id = 1231231 + below(&w->qrng, w->writes ? w->writes : 1);
		set_u(&w->lo[2], id);
		set_u(&w->hi[2], id);
	}
}

/* one key written so far, or 100 keys in order from it */
static void query_keys(rk__workload *w, int shape, int64_t t)
{
	rk__wval *lo = w->lo, *hi = w->hi;
	uint64_t n = 1 + below(&w->qrng, w->writes ? w->writes : 1);
	char k[32] = "foo";
	(void)t;
	put_fixed(k + 3, n, w->key_width);
	set_s(&lo[0], &w->ls[0], k, 3 + w->key_width);
	set_u(&lo[1], n);
	if (shape == 0) {
		set_s(&hi[0], &w->hs[0], k, 3 + w->key_width);
		set_u(&hi[1], n);
	} else {
		put_fixed(k + 3, n + 99, w->key_width);
		set_s(&hi[0], &w->hs[0], k, 3 + w->key_width);
		set_u(&hi[1], n + 99);
	}
}

/* one url, or a host's pages (fields 0 and 3 left open) */
static void query_urls(rk__workload *w, int shape, int64_t t)
{
	rk__rng *r = &w->qrng;
	uint64_t sub = rk__zipf_draw(&w->z1, r), item = 1 + below(r, 100000);
	unsigned dom = (unsigned)below(r, 5);
	(void)t;
	url_fields(w->lo, w->ls, sub, dom, item);
	url_fields(w->hi, w->hs, sub, dom, item);
	if (shape == 1) {
		w->lo[0].ext = w->lo[3].ext = -1;
		w->hi[0].ext = w->hi[3].ext = 1;
	}
}

/* a seller's (0) or a buyer's (1) trades of the last hour, or an order (2) */
static void query_trades(rk__workload *w, int shape, int64_t t)
{
	rk__rng *r = &w->qrng;
	int64_t ts = RK__T0_MS + t;
	if (shape < 2) {
		uint64_t who = rk__zipf_draw(shape ? &w->z2 : &w->z1, r);
		set_u(&w->lo[shape], who);
		set_u(&w->hi[shape], who);
		set_i(&w->lo[2], ts - HOUR_MS);
		set_i(&w->hi[2], ts);
	} else {
		uint64_t order = 1000000000ull + below(r, w->writes ? w->writes : 1);
		set_u(&w->lo[3], order);
		set_u(&w->hi[3], order);
	}
}

/* a car's last hour */
static void query_cars(rk__workload *w, int shape, int64_t t)
{
	int64_t ts = RK__T0_MS + t;
	uint64_t car = below(&w->qrng, w->card);
	(void)shape;
	set_u(&w->lo[0], car);
	set_u(&w->hi[0], car);
	set_i(&w->lo[1], ts - HOUR_MS);
	set_i(&w->hi[1], ts);
}

/* a user's last minute, or an hour of theirs at any time so far */
static void query_users(rk__workload *w, int shape, int64_t t)
{
	rk__rng *r = &w->qrng;
	int64_t ts = RK__T0_MS + t;
	uint64_t u = rk__zipf_draw(&w->z1, r);
	set_u(&w->lo[0], u);
	set_u(&w->hi[0], u);
	if (shape == 0) {
		set_i(&w->lo[1], ts - 60000);
		set_i(&w->hi[1], ts);
	} else {
		int64_t back = t > 0 ? (int64_t)below(r, (uint64_t)t) : 0;
		set_i(&w->lo[1], ts - back);
		set_i(&w->hi[1], ts - back + HOUR_MS);
	}
}

/* by workload kind; a workload read from a file has no generator */
static void (*const gen_query[])(rk__workload *w, int shape, int64_t t) = {
	[RK__WL_MESSAGES] = query_messages,
	[RK__WL_KEYS] = query_keys,
	[RK__WL_URLS] = query_urls,
	[RK__WL_TRADES] = query_trades,
	[RK__WL_CARS] = query_cars,
	[RK__WL_USERS] = query_users,
};

void rk__gen_query(rk__workload *w, int shape, int64_t t)
{
	set_ext(w->lo, w->hi, w->nfields);
	if ((size_t)w->kind < sizeof gen_query / sizeof *gen_query && gen_query[w->kind])
		gen_query[w->kind](w, shape, t);
}

