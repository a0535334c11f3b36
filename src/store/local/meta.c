/*
 * The meta map in memory and on disk (see meta.h and docs/formats.md (part B)
 * section 2). Decoding is strict and bounds-checked: every length is checked
 * against the end of the buffer before it is used.
 */
#include "store/local/meta.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "key/error.h"
#include "store/cell.h"
#include "store/local/crc.h"

#define META_MAGIC "RKMETA01"
#define META_VERSION 2u     /* written; 1 (no props) is still read */
#define META_VERSION_V1 1u
#define END_UNBOUNDED 0x00
#define END_BOUNDED 0x01

int rk_meta__row_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t m = al < bl ? al : bl;
	int c = m ? memcmp(a, b, m) : 0;
	if (c)
		return c;
	return al < bl ? -1 : al > bl;
}

void rk_meta__init(rk__meta *m, unsigned n_servers)
{
	memset(m, 0, sizeof *m);
	m->n_servers = n_servers;
	m->next_table_id = 1;
	m->next_region_id = 1;
}

/* ---- properties ---- */

int rk_meta__prop_key_ok(const char *key)
{
	size_t n = key ? strlen(key) : 0;
	if (n == 0 || n > RK__PROP_KEY_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = key[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
			return 0;
	}
	return 1;
}

/* Index of key in p, or of where it would go (*found 0). */
static size_t prop_find(const rk__props *p, const char *key, int *found)
{
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(p->v[mid].key, key);
		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = 0;
	return lo;
}

int rk_meta__prop_set(rk__props *p, const char *key, const void *val, size_t len)
{
	int found;
	if (!rk_meta__prop_key_ok(key))
		return rk__err(RK_EINVALID,
		               "setting '%s': a key is 1..%d bytes of lower-case letters, digits, _ .",
		               key ? key : "(null)", RK__PROP_KEY_MAX);
	if (len > RK__PROP_VAL_MAX)
		return rk__err(RK_EINVALID, "setting %s: value of %zu bytes (at most %d)", key, len,
		               RK__PROP_VAL_MAX);
	uint8_t *copy = malloc(len + 1);
	if (!copy)
		return rk__err(RK_ENOMEM, "setting %s: out of memory", key);
	if (len)
		memcpy(copy, val, len);
	copy[len] = 0;
	size_t i = prop_find(p, key, &found);
	if (found) {
		free(p->v[i].val);
		p->v[i].val = copy;
		p->v[i].len = len;
		return 0;
	}
	if (p->n >= RK__PROPS_MAX) {
		free(copy);
		return rk__err(RK_EINVALID, "setting %s: already %d settings", key, RK__PROPS_MAX);
	}
	rk__prop *nv = realloc(p->v, (p->n + 1) * sizeof *nv);
	if (!nv) {
		free(copy);
		return rk__err(RK_ENOMEM, "setting %s: out of memory", key);
	}
	p->v = nv;
	memmove(p->v + i + 1, p->v + i, (p->n - i) * sizeof *p->v);
	snprintf(p->v[i].key, sizeof p->v[i].key, "%s", key);
	p->v[i].val = copy;
	p->v[i].len = len;
	p->n++;
	return 0;
}

int rk_meta__prop_get(const rk__props *p, const char *key, const uint8_t **val, size_t *len)
{
	int found;
	size_t i = prop_find(p, key, &found);
	if (!found)
		return RK_ENOTFOUND;
	*val = p->v[i].val;
	*len = p->v[i].len;
	return 0;
}

int rk_meta__prop_del(rk__props *p, const char *key)
{
	int found;
	size_t i = prop_find(p, key, &found);
	if (found) {
		free(p->v[i].val);
		memmove(p->v + i, p->v + i + 1, (p->n - i - 1) * sizeof *p->v);
		p->n--;
	}
	return 0;
}

int rk_meta__prop_u64(const rk__props *p, const char *key, uint64_t *out)
{
	const uint8_t *v;
	size_t n;
	uint64_t x = 0;
	if (rk_meta__prop_get(p, key, &v, &n))
		return 0;
	if (n == 0 || n > 20)
		goto bad;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9' || x > (UINT64_MAX - (uint64_t)(v[i] - '0')) / 10)
			goto bad;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*out = x;
	return 0;
bad:
	return rk__err(RK_ECORRUPT, "setting %s: '%.*s' is not a decimal number", key,
	               (int)(n > 40 ? 40 : n), (const char *)v);
}

void rk_meta__props_free(rk__props *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].val);
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

static void table_free(rk__tmeta *t)
{
	if (!t)
		return;
	rk_meta__props_free(&t->props);
	free(t->families);
	free(t->regions);
	free(t);
}

void rk_meta__fini(rk__meta *m)
{
	for (size_t i = 0; i < m->ntables; i++)
		table_free(m->tables[i]);
	free(m->tables);
	while (m->dropped) {
		rk__tmeta *t = m->dropped;
		m->dropped = t->next_dropped;
		table_free(t);
	}
	rk_meta__props_free(&m->props);
	while (m->all_regions) {
		rk__region *r = m->all_regions;
		m->all_regions = r->next_all;
		rk_metrics__fini(&r->metrics);
		free(r->start);
		free(r->end);
		free(r->lo);
		free(r->hi);
		free(r);
	}
	memset(m, 0, sizeof *m);
}

rk__region *rk_meta__region_new(rk__meta *m, rk__tmeta *t, uint64_t id, const uint8_t *start,
                                size_t start_len, const uint8_t *end, size_t end_len,
                                unsigned server)
{
	rk__region *r = calloc(1, sizeof *r);
	if (!r)
		goto nomem;
	r->start = malloc(start_len + 1);
	r->lo = malloc(4 + 2 * start_len + 2);
	r->hi = malloc(4 + 2 * end_len + 2);
	if (!r->start || !r->lo || !r->hi)
		goto nomem;
	if (end) {
		if (!(r->end = malloc(end_len + 1)))
			goto nomem;
		if (end_len)
			memcpy(r->end, end, end_len);
		r->end_len = end_len;
	}
	if (start_len)
		memcpy(r->start, start, start_len);
	r->start_len = start_len;
	r->id = id;
	r->table = t;
	r->server = server;
	r->lo_len = rk_cell__row_bound(r->lo, t->id, start_len ? start : NULL, start_len, 0);
	r->hi_len = rk_cell__row_bound(r->hi, t->id, end, end_len, end == NULL);
	atomic_init(&r->retired, 0);
	atomic_init(&r->size, 0);
	atomic_init(&r->split_at_size, 0);
	atomic_init(&r->split_pending, 0);
	atomic_init(&r->moving, 0);
	rk_metrics__init(&r->metrics);
	r->next_all = m->all_regions;
	m->all_regions = r;
	return r;
nomem:
	if (r) {
		free(r->start);
		free(r->lo);
		free(r->hi);
		free(r->end);
		free(r);
	}
	rk__err(RK_ENOMEM, "table %s: out of memory for a region", t->name);
	return NULL;
}

rk__tmeta *rk_meta__table(const rk__meta *m, const char *name)
{
	for (size_t i = 0; i < m->ntables; i++)
		if (!strcmp(m->tables[i]->name, name))
			return m->tables[i];
	return NULL;
}

rk__tmeta *rk_meta__table_by_id(const rk__meta *m, uint32_t id)
{
	for (size_t i = 0; i < m->ntables; i++)
		if (m->tables[i]->id == id)
			return m->tables[i];
	return NULL;
}

int rk_meta__table_add(rk__meta *m, rk__tmeta *t)
{
	rk__tmeta **n = realloc(m->tables, (m->ntables + 1) * sizeof *n);
	if (!n)
		return rk__err(RK_ENOMEM, "table %s: out of memory", t->name);
	m->tables = n;
	size_t i = m->ntables;
	while (i > 0 && strcmp(m->tables[i - 1]->name, t->name) > 0) {
		m->tables[i] = m->tables[i - 1];
		i--;
	}
	m->tables[i] = t;
	m->ntables++;
	return 0;
}

void rk_meta__table_remove(rk__meta *m, rk__tmeta *t)
{
	size_t i = 0;
	while (i < m->ntables && m->tables[i] != t)
		i++;
	if (i == m->ntables)
		return;
	memmove(m->tables + i, m->tables + i + 1, (m->ntables - i - 1) * sizeof *m->tables);
	m->ntables--;
	for (size_t k = 0; k < t->nregions; k++)
		atomic_store(&t->regions[k]->retired, 1);
	t->next_dropped = m->dropped;
	m->dropped = t;
}

size_t rk_meta__lookup_index(const rk__tmeta *t, const uint8_t *row, size_t len)
{
	/* the last region whose start <= row; region 0 starts at the empty row */
	size_t lo = 0, hi = t->nregions;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		const rk__region *r = t->regions[mid];
		if (rk_meta__row_cmp(r->start, r->start_len, row, len) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

rk__region *rk_meta__lookup(const rk__tmeta *t, const uint8_t *row, size_t len)
{
	return t->regions[rk_meta__lookup_index(t, row, len)];
}

rk__region *rk_meta__region(const rk__meta *m, uint64_t id)
{
	for (size_t i = 0; i < m->ntables; i++)
		for (size_t k = 0; k < m->tables[i]->nregions; k++)
			if (m->tables[i]->regions[k]->id == id)
				return m->tables[i]->regions[k];
	return NULL;
}

int rk_meta__replace(rk__tmeta *t, size_t i, rk__region **repl, size_t n)
{
	size_t total = t->nregions - 1 + n;
	rk__region **a = malloc(total * sizeof *a);
	if (!a)
		return rk__err(RK_ENOMEM, "table %s: out of memory replacing a region", t->name);
	memcpy(a, t->regions, i * sizeof *a);
	memcpy(a + i, repl, n * sizeof *a);
	memcpy(a + i + n, t->regions + i + 1, (t->nregions - i - 1) * sizeof *a);
	free(t->regions);
	t->regions = a;
	t->nregions = total;
	return 0;
}

/* ---- encoding ---- */

typedef struct wbuf {
	uint8_t *p;
	size_t len, cap;
	int oom;
} wbuf;

static void wput(wbuf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t c = b->cap ? b->cap * 2 : 256;
		while (c < b->len + n)
			c *= 2;
		uint8_t *q = realloc(b->p, c);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = c;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void wu8(wbuf *b, uint8_t v)
{
	wput(b, &v, 1);
}

static void wu16(wbuf *b, uint16_t v)
{
	uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};
	wput(b, x, 2);
}

static void wu32(wbuf *b, uint32_t v)
{
	uint8_t x[4];
	rk_cell__put_u32(x, v);
	wput(b, x, 4);
}

static void wu64(wbuf *b, uint64_t v)
{
	uint8_t x[8];
	rk_cell__put_u64(x, v);
	wput(b, x, 8);
}

static void wbytes16(wbuf *b, const void *p, size_t n)
{
	wu16(b, (uint16_t)n);
	wput(b, p, n);
}

static void wprops(wbuf *b, const rk__props *p)
{
	wu16(b, (uint16_t)p->n);
	for (size_t i = 0; i < p->n; i++) {
		wbytes16(b, p->v[i].key, strlen(p->v[i].key));
		wu32(b, (uint32_t)p->v[i].len);
		wput(b, p->v[i].val, p->v[i].len);
	}
}

int rk_meta__encode(uint8_t **out, size_t *len, const rk__meta *m)
{
	wbuf b = {0};
	*out = NULL;
	wput(&b, META_MAGIC, 8);
	wu32(&b, 0); /* body length, patched below */
	wu32(&b, META_VERSION);
	wu32(&b, m->n_servers);
	wu32(&b, m->next_table_id);
	wu64(&b, m->next_region_id);
	wprops(&b, &m->props);
	wu32(&b, (uint32_t)m->ntables);
	for (size_t i = 0; i < m->ntables; i++) {
		const rk__tmeta *t = m->tables[i];
		wu32(&b, t->id);
		wbytes16(&b, t->name, strlen(t->name));
		wu16(&b, (uint16_t)t->bucket_prefix_len);
		wu16(&b, (uint16_t)t->nfamilies);
		for (size_t f = 0; f < t->nfamilies; f++) {
			wbytes16(&b, t->families[f].name, t->families[f].name_len);
			wu32(&b, t->families[f].max_versions);
		}
		wu32(&b, (uint32_t)t->nregions);
		for (size_t k = 0; k < t->nregions; k++) {
			const rk__region *r = t->regions[k];
			wu64(&b, r->id);
			wu32(&b, r->server);
			wbytes16(&b, r->start, r->start_len);
			if (r->end) {
				wu8(&b, END_BOUNDED);
				wbytes16(&b, r->end, r->end_len);
			} else {
				wu8(&b, END_UNBOUNDED);
			}
		}
		wprops(&b, &t->props);
	}
	wu32(&b, 0); /* crc, patched below */
	if (b.oom) {
		free(b.p);
		return rk__err(RK_ENOMEM, "out of memory encoding the meta map");
	}
	size_t body = b.len - 16;
	rk_cell__put_u32(b.p + 8, (uint32_t)body);
	rk_cell__put_u32(b.p + b.len - 4, rk_crc__32(b.p + 12, body));
	*out = b.p;
	*len = b.len;
	return 0;
}

/* ---- decoding (hostile input) ---- */

typedef struct rbuf {
	const uint8_t *p, *start, *end;
	const char *file;
} rbuf;

static int need(rbuf *r, size_t n, const char *what)
{
	if ((size_t)(r->end - r->p) < n)
		return rk__err(RK_ECORRUPT, "%s: truncated %s at offset %zu", r->file, what,
		               (size_t)(r->p - r->start));
	return 0;
}

static int ru8(rbuf *r, uint8_t *v, const char *what)
{
	if (need(r, 1, what))
		return RK_ECORRUPT;
	*v = *r->p++;
	return 0;
}

static int ru16(rbuf *r, uint16_t *v, const char *what)
{
	if (need(r, 2, what))
		return RK_ECORRUPT;
	*v = (uint16_t)(r->p[0] << 8 | r->p[1]);
	r->p += 2;
	return 0;
}

static int ru32(rbuf *r, uint32_t *v, const char *what)
{
	if (need(r, 4, what))
		return RK_ECORRUPT;
	*v = rk_cell__get_u32(r->p);
	r->p += 4;
	return 0;
}

static int ru64(rbuf *r, uint64_t *v, const char *what)
{
	if (need(r, 8, what))
		return RK_ECORRUPT;
	*v = rk_cell__get_u64(r->p);
	r->p += 8;
	return 0;
}

static int rbytes16(rbuf *r, const uint8_t **p, size_t *n, const char *what)
{
	uint16_t l;
	if (ru16(r, &l, what) || need(r, l, what))
		return RK_ECORRUPT;
	*p = r->p;
	*n = l;
	r->p += l;
	return 0;
}

/* Reads a props list (META v2) into an empty p; `owner` names the store or
 * the table in messages. */
static int rprops(rbuf *r, rk__props *p, const char *owner)
{
	uint16_t n;
	char key[RK__PROP_KEY_MAX + 1];
	if (ru16(r, &n, "settings count"))
		return RK_ECORRUPT;
	if (n > RK__PROPS_MAX)
		return rk__err(RK_ECORRUPT, "%s: %s: %u settings (at most %d)", r->file, owner, n,
		               RK__PROPS_MAX);
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *k, *v;
		size_t kl;
		uint32_t vl;
		size_t off = (size_t)(r->p - r->start);
		if (rbytes16(r, &k, &kl, "setting key") || ru32(r, &vl, "setting value length"))
			return RK_ECORRUPT;
		if (kl == 0 || kl > RK__PROP_KEY_MAX || memchr(k, 0, kl))
			goto badkey;
		memcpy(key, k, kl);
		key[kl] = 0;
		if (!rk_meta__prop_key_ok(key))
			goto badkey;
		if (p->n && strcmp(p->v[p->n - 1].key, key) >= 0)
			return rk__err(RK_ECORRUPT, "%s: %s: setting %s repeated or out of order at offset %zu",
			               r->file, owner, key, off);
		if (vl > RK__PROP_VAL_MAX)
			return rk__err(RK_ECORRUPT, "%s: %s: setting %s has %u bytes (at most %d)", r->file,
			               owner, key, vl, RK__PROP_VAL_MAX);
		if (need(r, vl, "setting value"))
			return RK_ECORRUPT;
		v = r->p;
		r->p += vl;
		if (rk_meta__prop_set(p, key, v, vl))
			return RK_ENOMEM;
		continue;
	badkey:
		return rk__err(RK_ECORRUPT, "%s: %s: bad setting key at offset %zu", r->file, owner, off);
	}
	return 0;
}

static int valid_name_bytes(const uint8_t *p, size_t n, size_t max)
{
	char buf[RK_MAX_TABLE_NAME_LEN + 1];
	/* a NUL inside would make the C string shorter than the bytes on disk */
	if (n == 0 || n > max || n > RK_MAX_TABLE_NAME_LEN || memchr(p, 0, n))
		return 0;
	memcpy(buf, p, n);
	buf[n] = 0;
	return rk_store__valid_name(buf, max);
}

static int decode_table(rk__meta *m, rbuf *r, uint32_t version)
{
	uint32_t id, nreg;
	uint16_t bpl, nfam;
	const uint8_t *name;
	size_t name_len;
	char ebuf[200];
	rk__tmeta *t = NULL;
	if (ru32(r, &id, "table id") || rbytes16(r, &name, &name_len, "table name"))
		return RK_ECORRUPT;
	if (!valid_name_bytes(name, name_len, RK_MAX_TABLE_NAME_LEN))
		return rk__err(RK_ECORRUPT, "%s: bad table name '%s' at offset %zu", r->file,
		               rk__err_bytes(ebuf, sizeof ebuf, name, name_len),
		               (size_t)(r->p - r->start));
	if (!(t = calloc(1, sizeof *t)))
		return rk__err(RK_ENOMEM, "out of memory reading %s", r->file);
	memcpy(t->name, name, name_len);
	t->id = id;
	atomic_init(&t->handles, 0);
	if (m->ntables && strcmp(m->tables[m->ntables - 1]->name, t->name) >= 0) {
		rk__err(RK_ECORRUPT, "%s: table %s: tables out of name order", r->file, t->name);
		goto fail;
	}
	if (id == 0 || id >= m->next_table_id || rk_meta__table_by_id(m, id) ||
	    rk_meta__table(m, t->name)) {
		rk__err(RK_ECORRUPT, "%s: table %s: id %u duplicated or out of range", r->file, t->name,
		        id);
		goto fail;
	}
	if (ru16(r, &bpl, "bucket prefix") || ru16(r, &nfam, "family count"))
		goto fail;
	if (bpl > 8 || nfam > 255) {
		rk__err(RK_ECORRUPT, "%s: table %s: bucket prefix %u or family count %u out of range",
		        r->file, t->name, bpl, nfam);
		goto fail;
	}
	t->bucket_prefix_len = bpl;
	if (!(t->families = calloc(nfam ? nfam : 1, sizeof *t->families))) {
		rk__err(RK_ENOMEM, "out of memory reading %s", r->file);
		goto fail;
	}
	for (size_t f = 0; f < nfam; f++) {
		const uint8_t *fn;
		size_t fl;
		uint32_t mv;
		if (rbytes16(r, &fn, &fl, "family name") || ru32(r, &mv, "max versions"))
			goto fail;
		if (!valid_name_bytes(fn, fl, RK_MAX_FAMILY_LEN) || mv < 1) {
			rk__err(RK_ECORRUPT, "%s: table %s: bad family %zu ('%s', %u versions)", r->file,
			        t->name, f, rk__err_bytes(ebuf, sizeof ebuf, fn, fl), mv);
			goto fail;
		}
		memcpy(t->families[f].name, fn, fl);
		t->families[f].name_len = fl;
		t->families[f].max_versions = mv;
		if (f && strcmp(t->families[f - 1].name, t->families[f].name) >= 0) {
			rk__err(RK_ECORRUPT, "%s: table %s: family %s repeated or out of name order",
			        r->file, t->name, t->families[f].name);
			goto fail;
		}
	}
	t->nfamilies = nfam;
	if (ru32(r, &nreg, "region count"))
		goto fail;
	/* every region takes at least 15 bytes: reject counts the file cannot hold */
	if (nreg < 1 || nreg > (size_t)(r->end - r->p) / 15) {
		rk__err(RK_ECORRUPT, "%s: table %s: region count %u does not fit the file", r->file,
		        t->name, nreg);
		goto fail;
	}
	if (!(t->regions = calloc(nreg, sizeof *t->regions))) {
		rk__err(RK_ENOMEM, "out of memory reading %s", r->file);
		goto fail;
	}
	for (uint32_t k = 0; k < nreg; k++) {
		uint64_t rid;
		uint32_t srv;
		uint8_t kind;
		const uint8_t *s, *e = NULL;
		size_t sl, el = 0;
		if (ru64(r, &rid, "region id") || ru32(r, &srv, "region server") ||
		    rbytes16(r, &s, &sl, "region start") || ru8(r, &kind, "region end kind"))
			goto fail;
		if (kind == END_BOUNDED) {
			if (rbytes16(r, &e, &el, "region end"))
				goto fail;
		} else if (kind != END_UNBOUNDED) {
			rk__err(RK_ECORRUPT, "%s: table %s: region %llu: unknown end kind %u", r->file,
			        t->name, (unsigned long long)rid, kind);
			goto fail;
		}
		if (rid == 0 || rid >= m->next_region_id || rk_meta__region(m, rid)) {
			rk__err(RK_ECORRUPT, "%s: table %s: region id %llu duplicated or out of range",
			        r->file, t->name, (unsigned long long)rid);
			goto fail;
		}
		for (uint32_t j = 0; j < k; j++)
			if (t->regions[j]->id == rid) {
				rk__err(RK_ECORRUPT, "%s: table %s: region id %llu twice", r->file, t->name,
				        (unsigned long long)rid);
				goto fail;
			}
		rk__region *reg = rk_meta__region_new(m, t, rid, s, sl, e, el, srv);
		if (!reg)
			goto fail;
		t->regions[k] = reg;
		t->nregions = k + 1;
	}
	if (version >= 2) {
		char owner[RK_MAX_TABLE_NAME_LEN + 8];
		snprintf(owner, sizeof owner, "table %s", t->name);
		if (rprops(r, &t->props, owner))
			goto fail;
	}
	if (rk_meta__validate_table(m, t))
		goto fail;
	if (rk_meta__table_add(m, t))
		goto fail;
	return 0;
fail:
	rk__err_wrap(RK_ECORRUPT, "meta");
	table_free(t); /* its regions stay on m->all_regions and are freed with m */
	return RK_ECORRUPT;
}

int rk_meta__decode(rk__meta *m, const uint8_t *buf, size_t len, const char *file)
{
	rbuf r = {buf, buf, buf + len, file};
	uint32_t body_len, version, nsrv, ntid, ntables;
	uint64_t nrid;
	if (len < 16 || memcmp(buf, META_MAGIC, 8))
		return rk__err(RK_ECORRUPT, "%s: not a rowkey meta file (bad magic or %zu bytes)", file,
		               len);
	r.p += 8;
	if (ru32(&r, &body_len, "body length"))
		return RK_ECORRUPT;
	if (body_len != len - 16)
		return rk__err(RK_ECORRUPT, "%s: body length %u but file holds %zu", file, body_len,
		               len - 16);
	uint32_t crc = rk_cell__get_u32(buf + len - 4);
	if (crc != rk_crc__32(buf + 12, body_len))
		return rk__err(RK_ECORRUPT, "%s: checksum mismatch (file damaged)", file);
	r.end = buf + len - 4;
	if (ru32(&r, &version, "version") || ru32(&r, &nsrv, "server count") ||
	    ru32(&r, &ntid, "next table id") || ru64(&r, &nrid, "next region id"))
		return RK_ECORRUPT;
	if (version != META_VERSION && version != META_VERSION_V1)
		return rk__err(RK_ECORRUPT, "%s: meta version %u (this build reads %u and %u)", file,
		               version, META_VERSION_V1, META_VERSION);
	if (version >= 2 && rprops(&r, &m->props, "store settings"))
		return RK_ECORRUPT;
	if (ru32(&r, &ntables, "table count"))
		return RK_ECORRUPT;
	if (nsrv < 1 || nsrv > RK_MAX_SERVERS)
		return rk__err(RK_ECORRUPT, "%s: %u region servers (allowed 1..%u)", file, nsrv,
		               RK_MAX_SERVERS);
	m->n_servers = nsrv;
	m->next_table_id = ntid;
	m->next_region_id = nrid;
	for (uint32_t i = 0; i < ntables; i++) {
		int rc = decode_table(m, &r, version);
		if (rc)
			return rc;
	}
	if (r.p != r.end)
		return rk__err(RK_ECORRUPT, "%s: %zu stray bytes after the last table", file,
		               (size_t)(r.end - r.p));
	return 0;
}

int rk_meta__validate_table(const rk__meta *m, const rk__tmeta *t)
{
	char b1[200], b2[200];
	if (t->nregions == 0)
		return rk__err(RK_ECORRUPT, "table %s: no regions", t->name);
	if (t->regions[0]->start_len != 0)
		return rk__err(RK_ECORRUPT, "table %s: region %llu: first region starts at '%s', not at "
		                            "the empty row (gap before it)",
		               t->name, (unsigned long long)t->regions[0]->id,
		               rk__err_bytes(b1, sizeof b1, t->regions[0]->start, t->regions[0]->start_len));
	for (size_t k = 0; k < t->nregions; k++) {
		const rk__region *r = t->regions[k];
		if (r->server >= m->n_servers)
			return rk__err(RK_ECORRUPT, "table %s: region %llu: server %u of %u", t->name,
			               (unsigned long long)r->id, r->server, m->n_servers);
		if (k + 1 == t->nregions) {
			if (r->end)
				return rk__err(RK_ECORRUPT,
				               "table %s: region %llu: last region ends at '%s' (gap after it)",
				               t->name, (unsigned long long)r->id,
				               rk__err_bytes(b1, sizeof b1, r->end, r->end_len));
			continue;
		}
		const rk__region *n = t->regions[k + 1];
		if (!r->end)
			return rk__err(RK_ECORRUPT,
			               "table %s: region %llu: unbounded but not last (overlaps region %llu)",
			               t->name, (unsigned long long)r->id, (unsigned long long)n->id);
		if (rk_meta__row_cmp(r->start, r->start_len, r->end, r->end_len) >= 0)
			return rk__err(RK_ECORRUPT, "table %s: region %llu: empty range ['%s', '%s')",
			               t->name, (unsigned long long)r->id,
			               rk__err_bytes(b1, sizeof b1, r->start, r->start_len),
			               rk__err_bytes(b2, sizeof b2, r->end, r->end_len));
		int c = rk_meta__row_cmp(r->end, r->end_len, n->start, n->start_len);
		if (c)
			return rk__err(RK_ECORRUPT,
			               "table %s: region %llu ends at '%s' but region %llu starts at '%s' (%s)",
			               t->name, (unsigned long long)r->id,
			               rk__err_bytes(b1, sizeof b1, r->end, r->end_len),
			               (unsigned long long)n->id,
			               rk__err_bytes(b2, sizeof b2, n->start, n->start_len),
			               c < 0 ? "gap" : "overlap");
	}
	return 0;
}

/* ---- files ---- */

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY);
	if (fd < 0)
		return rk__err(RK_EIO, "%s: %s", dir, strerror(errno));
	int rc = fsync(fd);
	int e = errno;
	close(fd);
	return rc ? rk__err(RK_EIO, "fsync %s: %s", dir, strerror(e)) : 0;
}

int rk_meta__save(const char *dir, const uint8_t *buf, size_t len)
{
	char tmp[4096], path[4096];
	snprintf(tmp, sizeof tmp, "%s/META.tmp", dir);
	snprintf(path, sizeof path, "%s/META", dir);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return rk__err(RK_EIO, "%s: %s", tmp, strerror(errno));
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			unlink(tmp);
			return rk__err(RK_EIO, "writing %s: %s", tmp, strerror(e));
		}
		off += (size_t)w;
	}
	if (fsync(fd)) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return rk__err(RK_EIO, "fsync %s: %s", tmp, strerror(e));
	}
	close(fd);
	if (rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		return rk__err(RK_EIO, "rename %s to %s: %s", tmp, path, strerror(e));
	}
	return fsync_dir(dir);
}

int rk_meta__read(uint8_t **out, size_t *len, const char *dir)
{
	char path[4096];
	struct stat st;
	*out = NULL;
	snprintf(path, sizeof path, "%s/META", dir);
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		if (errno == ENOENT)
			return rk__err(RK_ENOTFOUND, "%s: no meta file", path);
		return rk__err(RK_EIO, "%s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) || st.st_size > (64 << 20)) {
		close(fd);
		return rk__err(RK_ECORRUPT, "%s: unreadable or over 64 MiB", path);
	}
	size_t n = (size_t)st.st_size;
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf) {
		close(fd);
		return rk__err(RK_ENOMEM, "%s: out of memory", path);
	}
	size_t off = 0;
	while (off < n) {
		ssize_t r = read(fd, buf + off, n - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			close(fd);
			return rk__err(RK_EIO, "reading %s: short read", path);
		}
		off += (size_t)r;
	}
	close(fd);
	*out = buf;
	*len = n;
	return 0;
}
