/*
 * A request's path taken apart, as HBase's RowSpec and resources read it,
 * and sent to its handler; plus what every part uses: an arena, strict
 * base64, percent-decoding, plain-text and JSON answers.
 *
 * Paths are decoded here, segment by segment, not by libmicrohttpd: a row
 * key may hold an escaped '/' (%2F), which must not cut the path.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "key/error.h"
#include "serve/hbase/hbase_int.h"

/* ---- arena ---- */

void *rk_hb__alloc(rk_hb_arena *a, size_t n)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		void **v = realloc(a->v, cap * sizeof *v);
		if (!v)
			return NULL;
		a->v = v;
		a->cap = cap;
	}
	void *p = calloc(1, n ? n : 1);
	if (p)
		a->v[a->n++] = p;
	return p;
}

void rk_hb__arena_free(rk_hb_arena *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}

/* ---- base64 ---- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_val(unsigned char c)
{
	const char *p = c ? strchr(b64, c) : NULL;
	return p ? (int)(p - b64) : -1;
}

int rk_hb__b64_decode(uint8_t **out, size_t *len, rk_hb_arena *a, const char *s, size_t n)
{
	if (n % 4)
		return -1;
	size_t pad = n && s[n - 1] == '=' ? (n > 1 && s[n - 2] == '=' ? 2 : 1) : 0;
	uint8_t *o = rk_hb__alloc(a, n / 4 * 3 + 1);
	if (!o)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < n; i += 4) {
		int v[4];
		for (int j = 0; j < 4; j++) {
			int last = i + 4 == n;
			if (last && j >= 4 - (int)pad) {
				v[j] = 0;
				continue;
			}
			if ((v[j] = b64_val((unsigned char)s[i + j])) < 0)
				return -1;
		}
		uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
		o[k++] = (uint8_t)(w >> 16);
		o[k++] = (uint8_t)(w >> 8);
		o[k++] = (uint8_t)w;
	}
	k -= pad;
	/* the bits padding leaves over must be zero (RFC 4648 canonical) */
	if (pad && ((pad == 1 && (b64_val((unsigned char)s[n - 2]) & 3)) ||
	            (pad == 2 && (b64_val((unsigned char)s[n - 3]) & 15))))
		return -1;
	o[k] = 0;
	*out = o;
	*len = k;
	return 0;
}

char *rk_hb__b64_encode(const uint8_t *p, size_t n)
{
	char *o = malloc((n + 2) / 3 * 4 + 1);
	size_t k = 0;
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t w = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
		             (i + 2 < n ? p[i + 2] : 0);
		o[k++] = b64[w >> 18 & 63];
		o[k++] = b64[w >> 12 & 63];
		o[k++] = i + 1 < n ? b64[w >> 6 & 63] : '=';
		o[k++] = i + 2 < n ? b64[w & 63] : '=';
	}
	o[k] = 0;
	return o;
}

/* ---- answers ---- */

int rk_hb__fail(rk_hb_resp *r, int status, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	free(r->body);
	r->body = NULL;
	r->len = 0;
	size_t n = strlen(msg) + 3;
	if ((r->body = malloc(n)) != NULL)
		r->len = (size_t)snprintf(r->body, n, "%s\r\n", msg);
	r->status = status;
	r->type = "text/plain";
	return status;
}

int rk_hb__ok(rk_hb_resp *r, int status)
{
	free(r->body);
	r->body = NULL;
	r->len = 0;
	r->type = NULL;
	r->status = status;
	return status;
}

int rk_hb__json(rk_hb_resp *r, int status, json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!s)
		return rk_hb__fail(r, 503, "Service unavailable: out of memory");
	free(r->body);
	r->body = s;
	r->len = strlen(s);
	r->status = status;
	r->type = "application/json";
	return status;
}

int rk_hb__from_store(rk_hb_resp *r, int rc, const char *what)
{
	switch (rc) {
	case RK_ENOTFOUND: return rk_hb__fail(r, 404, "Not found: %s: %s", what, rk_error_last());
	case RK_EEXISTS: return rk_hb__fail(r, 409, "Conflict: %s: %s", what, rk_error_last());
	case RK_EINVALID:
	case RK_ETOOLONG: return rk_hb__fail(r, 400, "Bad request: %s: %s", what, rk_error_last());
	case RK_EBUSY: return rk_hb__fail(r, 503, "Service unavailable: %s: %s", what, rk_error_last());
	default: return rk_hb__fail(r, 500, "Internal error: %s: %s", what, rk_error_last());
	}
}

const rk_hb_arg *rk_hb__arg(const rk_hb_req *q, const char *name)
{
	for (size_t i = 0; i < q->nargs; i++)
		if (!strcmp(q->args[i].name, name))
			return &q->args[i];
	return NULL;
}

int rk_hb__arg_u64(uint64_t *v, const rk_hb_req *q, const char *name, uint64_t max,
                   rk_hb_resp *r)
{
	const rk_hb_arg *a = rk_hb__arg(q, name);
	if (!a)
		return 0;
	uint64_t x = 0;
	const char *s = a->value;
	if (!*s || strlen(s) > 19)
		goto bad;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			goto bad;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (x > max)
		goto bad;
	*v = x;
	return 0;
bad:
	return rk_hb__fail(r, 400, "Bad request: ?%s=%s is not a number in 0..%llu", name,
	                   a->value, (unsigned long long)max);
}

int rk_hb__ctype_is(const char *ct, const char *want)
{
	size_t n = strlen(want);
	if (!ct || strncasecmp(ct, want, n))
		return 0;
	return ct[n] == 0 || ct[n] == ';' || ct[n] == ' ';
}

/* ---- paths ---- */

static int hexv(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	     : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int rk_hb__unescape(char **out, size_t *len, rk_hb_arena *a, const char *s, size_t n, int plus)
{
	char *o = rk_hb__alloc(a, n + 1);
	size_t k = 0;
	if (!o)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%') {
			int x = i + 2 < n ? hexv(s[i + 1]) : -1, y = i + 2 < n ? hexv(s[i + 2]) : -1;
			int h = x < 0 || y < 0 ? -1 : x * 16 + y;
			if (h < 0)
				return -1;
			o[k++] = (char)h;
			i += 2;
		} else {
			o[k++] = plus && s[i] == '+' ? ' ' : s[i];
		}
	}
	o[k] = 0;
	*out = o;
	*len = k;
	return 0;
}

int rk_hb__column(rk_hb_col *c, rk_hb_arena *a, const uint8_t *s, size_t n)
{
	const uint8_t *colon = memchr(s, ':', n);
	size_t fl = colon ? (size_t)(colon - s) : n;
	if (!fl || fl > RK_MAX_FAMILY_LEN)
		return -1;
	for (size_t i = 0; i < fl; i++)
		if (!(s[i] == '_' || s[i] == '-' || s[i] == '.' || (s[i] >= '0' && s[i] <= '9') ||
		      ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z')))
			return -1;
	memcpy(c->family, s, fl);
	c->family[fl] = 0;
	c->qual = NULL;
	c->qual_len = 0;
	if (colon) {
		c->qual_len = n - fl - 1;
		if (c->qual_len > RK_MAX_QUALIFIER_LEN || !(c->qual = rk_hb__alloc(a, c->qual_len + 1)))
			return -1;
		memcpy(c->qual, colon + 1, c->qual_len);
	}
	return 0;
}

/* "COL[,COL...]" (decoded) into p->cols */
static int columns(rk_hb_path *p, const char *s, size_t n, char *err, size_t cap)
{
	size_t k = 1;
	for (size_t i = 0; i < n; i++)
		k += s[i] == ',';
	if (k > 1024)
		return snprintf(err, cap, "Bad request: more than 1024 columns"), 400;
	if (!(p->cols = rk_hb__alloc(&p->a, k * sizeof *p->cols)))
		return snprintf(err, cap, "Service unavailable: out of memory"), 503;
	for (size_t i = 0, start = 0; i <= n; i++) {
		if (i < n && s[i] != ',')
			continue;
		if (rk_hb__column(&p->cols[p->ncols], &p->a, (const uint8_t *)s + start, i - start))
			return snprintf(err, cap, "Bad request: column %zu: '%.*s' is not family[:qualifier]",
			                p->ncols + 1, (int)(i - start > 80 ? 80 : i - start), s + start), 400;
		p->ncols++;
		start = i + 1;
	}
	return 0;
}

static int number(uint64_t *v, const char *s, size_t n)
{
	uint64_t x = 0;
	if (!n || n > 18)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}

/* "TS" (that version) or "FROM,TO" ([FROM, TO)), milliseconds */
static int timestamps(rk_hb_path *p, const char *s, size_t n)
{
	const char *comma = memchr(s, ',', n);
	p->has_ts = 1;
	if (!comma) {
		if (number(&p->ts_from, s, n))
			return -1;
		p->ts_to = p->ts_from + 1;
		return 0;
	}
	if (number(&p->ts_from, s, (size_t)(comma - s)) ||
	    number(&p->ts_to, comma + 1, n - (size_t)(comma - s) - 1) || p->ts_to <= p->ts_from)
		return -1;
	return 0;
}

static int table_ok(const char *s, size_t n)
{
	if (!n || n > RK_MAX_TABLE_NAME_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || s[i] == '-' || s[i] == '.' || (s[i] >= '0' && s[i] <= '9') ||
		      ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z')))
			return 0;
	return 1;
}

int rk_hb__path_parse(rk_hb_path *p, const char *url, char *err, size_t cap)
{
	char *seg[5];
	size_t len[5], n = 0;
	memset(p, 0, sizeof *p);
	if (*url != '/')
		return snprintf(err, cap, "Bad request: the path must begin with /"), 400;
	for (const char *s = url + 1; *s || (n == 0 && s == url + 1);) {
		const char *e = strchr(s, '/');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		if (n == 5)
			return snprintf(err, cap, "Not found: no resource %.80s", url), 404;
		if (rk_hb__unescape(&seg[n], &len[n], &p->a, s, l, 0))
			return snprintf(err, cap, "Bad request: a bad %%-escape in the path"), 400;
		n++;
		if (!e)
			break;
		s = e + 1;
	}
	if (n == 1 && !len[0])
		return p->route = RK_HB_ROOT, 0;
	if (!strcmp(seg[0], "version") && n <= 2) {
		if (n == 1)
			return p->route = RK_HB_VERSION, 0;
		if (!strcmp(seg[1], "cluster"))
			return p->route = RK_HB_CVERSION, 0;
		if (!strcmp(seg[1], "rest"))
			return p->route = RK_HB_VERSION, 0;
	}
	if (n == 2 && !strcmp(seg[0], "status") && !strcmp(seg[1], "cluster"))
		return p->route = RK_HB_CSTATUS, 0;
	if (!strcmp(seg[0], "namespaces")) {
		if (n == 1 || (n == 2 && !len[1]))
			return p->route = RK_HB_NAMESPACES, 0;
		if (!table_ok(seg[1], len[1]) || n > 3 || (n == 3 && strcmp(seg[2], "tables")))
			return snprintf(err, cap, "Not found: no resource %.80s", url), 404;
		memcpy(p->table, seg[1], len[1] + 1);
		return p->route = n == 3 ? RK_HB_NS_TABLES : RK_HB_NAMESPACE, 0;
	}
	/* "default:T" is T: the store's tables all live in HBase's default
	 * namespace (docs/serve.md) */
	const char *colon = memchr(seg[0], ':', len[0]);
	if (colon && colon - seg[0] == 7 && !memcmp(seg[0], "default", 7)) {
		seg[0] += 8;
		len[0] -= 8;
	} else if (colon) {
		return snprintf(err, cap, "Not found: namespace %.*s (this server has only default)",
		                (int)(colon - seg[0] > 64 ? 64 : colon - seg[0]), seg[0]), 404;
	}
	if (!table_ok(seg[0], len[0]) || n == 1 || !len[1])
		return snprintf(err, cap, "Not found: no resource %.80s", url), 404;
	memcpy(p->table, seg[0], len[0] + 1);
	if (n == 2 && !strcmp(seg[1], "schema"))
		return p->route = RK_HB_SCHEMA, 0;
	if (n == 2 && !strcmp(seg[1], "regions"))
		return p->route = RK_HB_REGIONS, 0;
	if (n == 2 && !strcmp(seg[1], "exists"))
		return p->route = RK_HB_EXISTS, 0;
	if (n == 2 && !strcmp(seg[1], "multiget"))
		return p->route = RK_HB_MULTIGET, 0;
	if (!strcmp(seg[1], "scanner") && n <= 3) {
		if (n == 2)
			return p->route = RK_HB_SCANNERS, 0;
		if (!len[2] || len[2] >= sizeof p->scanner)
			return snprintf(err, cap, "Not found: no scanner %.40s", seg[2]), 404;
		memcpy(p->scanner, seg[2], len[2] + 1);
		return p->route = RK_HB_SCANNER, 0;
	}
	if (n > 4)
		return snprintf(err, cap, "Not found: no resource %.80s", url), 404;
	p->route = len[1] && seg[1][len[1] - 1] == '*' ? RK_HB_SCAN : RK_HB_ROW;
	p->row = (uint8_t *)seg[1];
	p->row_len = len[1] - (p->route == RK_HB_SCAN);
	if (p->row_len > RK_MAX_ROW_LEN)
		return snprintf(err, cap, "Bad request: a row key of %zu bytes (at most %u)", p->row_len,
		                RK_MAX_ROW_LEN), 400;
	int rc = n >= 3 && len[2] ? columns(p, seg[2], len[2], err, cap) : 0;
	if (rc)
		return rc;
	if (n == 4 && timestamps(p, seg[3], len[3]))
		return snprintf(err, cap, "Bad request: '%.40s' is not TIMESTAMP or FROM,TO (ms)", seg[3]),
		       400;
	return 0;
}

void rk_hb__path_free(rk_hb_path *p)
{
	rk_hb__arena_free(&p->a);
}

/* ---- dispatch ---- */

static int method_is(const rk_hb_req *q, const char *m)
{
	return !strcmp(q->method, m);
}

static int not_allowed(rk_hb_resp *r, const char *method, const char *what)
{
	return rk_hb__fail(r, 405, "Method not allowed: %s on %s", method, what);
}

void rk_hb__handle(rk_hb *h, const rk_hb_req *q, rk_hb_resp *r)
{
	rk_hb_path p;
	char err[256];
	int get = method_is(q, "GET") || method_is(q, "HEAD");
	int st = rk_hb__path_parse(&p, q->url, err, sizeof err);
	if (st) {
		rk_hb__fail(r, st, "%s", err);
		goto out;
	}
	/* a row's raw value (octet-stream) is row_get's own case */
	int repr = rk_hb__negotiate(q->accept);
	r->repr = repr < 0 ? RK_HB_JSON : repr;
	if (get && p.route != RK_HB_ROW && repr < 0) {
		rk_hb__fail(r, 406, "Not acceptable: %.100s (this server answers application/json, "
		            "text/xml and application/x-protobuf)", q->accept);
		goto out;
	}
	switch (p.route) {
	case RK_HB_ROOT: get ? rk_hb__root(h, r) : not_allowed(r, q->method, "/"); break;
	case RK_HB_VERSION:
	case RK_HB_CVERSION:
		get ? rk_hb__version(h, p.route == RK_HB_CVERSION, r) : not_allowed(r, q->method, q->url);
		break;
	case RK_HB_CSTATUS: get ? rk_hb__status(h, r) : not_allowed(r, q->method, q->url); break;
	case RK_HB_SCHEMA: rk_hb__schema(h, q, &p, r); break;
	case RK_HB_REGIONS: get ? rk_hb__regions(h, &p, r) : not_allowed(r, q->method, "regions"); break;
	case RK_HB_EXISTS:
		if (!get)
			not_allowed(r, q->method, "exists");
		else if (rk_sv__catalog_find(&(rk_sv_ref){0}, h->env->catalog, NULL, p.table))
			rk_hb__fail(r, 404, "Not found: table %s", p.table);
		else
			rk_hb__ok(r, 200);
		break;
	case RK_HB_MULTIGET: get ? rk_hb__multiget(h, q, &p, r) : not_allowed(r, q->method, "multiget"); break;
	case RK_HB_SCANNERS:
		method_is(q, "PUT") || method_is(q, "POST") ? rk_hb__scanner_create(h, q, &p, r)
		                                              : not_allowed(r, q->method, "scanner");
		break;
	case RK_HB_SCANNER:
		get ? rk_hb__scanner_next(h, q, &p, r)
		    : method_is(q, "DELETE") ? rk_hb__scanner_delete(h, &p, r)
		                             : not_allowed(r, q->method, "a scanner");
		break;
	case RK_HB_NAMESPACES:
	case RK_HB_NAMESPACE:
	case RK_HB_NS_TABLES: rk_hb__namespaces(h, q, &p, r); break;
	case RK_HB_SCAN: get ? rk_hb__scan(h, q, &p, r) : not_allowed(r, q->method, "a row prefix"); break;
	default:
		get ? rk_hb__row_get(h, q, &p, r)
		    : method_is(q, "PUT") || method_is(q, "POST") ? rk_hb__row_put(h, q, &p, r)
		    : method_is(q, "DELETE") ? rk_hb__row_delete(h, q, &p, r)
		                             : not_allowed(r, q->method, "a row");
	}
out:
	rk_hb__path_free(&p);
}
