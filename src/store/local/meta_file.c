/*
 * The META file (docs/formats.md B.2): the meta map encoded, decoded and
 * kept on disk. Decoding is strict and bounds-checked: every length is
 * checked against the end of the buffer before it is used, and a decoded
 * table must pass rk_meta__validate_table. Saving writes a temporary file,
 * fsyncs it, renames it over META and fsyncs the directory.
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
#include "store/gc.h"
#include "store/local/crc.h"
#include "store/local/durable.h"

#define META_MAGIC "RKMETA01"
#define META_VERSION 2u     /* written unless a family has a GC rule; 1 (no
                               props) is still read */
#define META_VERSION_GC 3u  /* written when a family has a GC rule other than
                               a version count (formats.md B.2) */
#define META_VERSION_V1 1u
#define END_UNBOUNDED 0x00
#define END_BOUNDED 0x01

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
	uint32_t version = META_VERSION;
	*out = NULL;
	/* the version older builds read, unless a family needs the GC field:
	 * then a version they refuse, rather than one they misread */
	for (size_t i = 0; i < m->ntables; i++)
		for (size_t f = 0; f < m->tables[i]->nfamilies; f++)
			if (m->tables[i]->families[f].gc)
				version = META_VERSION_GC;
	wput(&b, META_MAGIC, 8);
	wu32(&b, 0); /* body length, patched below */
	wu32(&b, version);
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
			const rk__family *fa = &t->families[f];
			wbytes16(&b, fa->name, fa->name_len);
			wu32(&b, fa->max_versions);
			if (version >= META_VERSION_GC) {
				uint8_t gc[RK_GC_MAX_RULES * 9]; /* a node: kind and at most 8 bytes */
				size_t gl = fa->gc ? rk_gc__encoded_len(fa->gc) : 0;
				if (gl)
					rk_gc__encode(gc, fa->gc);
				wbytes16(&b, gc, gl);
			}
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

/* The nfam families of table t (version: the file's, which says whether
 * they carry GC rules). Nonzero with the error set. */
static int decode_families(rbuf *r, rk__tmeta *t, uint16_t nfam, uint32_t version)
{
	char ebuf[200];
	for (size_t f = 0; f < nfam; f++) {
		const uint8_t *fn;
		size_t fl;
		uint32_t mv;
		const uint8_t *gb = NULL;
		size_t gl = 0;
		if (rbytes16(r, &fn, &fl, "family name") || ru32(r, &mv, "max versions") ||
		    (version >= META_VERSION_GC && rbytes16(r, &gb, &gl, "family GC rule")))
			return RK_ECORRUPT;
		if (!valid_name_bytes(fn, fl, RK_MAX_FAMILY_LEN) || mv < 1) {
			rk__err(RK_ECORRUPT, "%s: table %s: bad family %zu ('%s', %u versions)", r->file,
			        t->name, f, rk__err_bytes(ebuf, sizeof ebuf, fn, fl), mv);
			return RK_ECORRUPT;
		}
		memcpy(t->families[f].name, fn, fl);
		t->families[f].name_len = fl;
		t->families[f].max_versions = mv;
		t->nfamilies = f + 1; /* its rule is freed with the table from here on */
		if (gl && rk_gc__decode(&t->families[f].gc, gb, gl)) {
			rk__err_wrap(RK_ECORRUPT, "%s: table %s: family %s", r->file, t->name,
			             t->families[f].name);
			return RK_ECORRUPT;
		}
		if (f && strcmp(t->families[f - 1].name, t->families[f].name) >= 0) {
			rk__err(RK_ECORRUPT, "%s: table %s: family %s repeated or out of name order",
			        r->file, t->name, t->families[f].name);
			return RK_ECORRUPT;
		}
	}
	return 0;
}

/* The nreg regions of table t (room for them allocated), each new to
 * the meta map m. Nonzero with the error set. */
static int decode_regions(rk__meta *m, rbuf *r, rk__tmeta *t, uint32_t nreg)
{
	for (uint32_t k = 0; k < nreg; k++) {
		uint64_t rid;
		uint32_t srv;
		uint8_t kind;
		const uint8_t *s, *e = NULL;
		size_t sl, el = 0;
		if (ru64(r, &rid, "region id") || ru32(r, &srv, "region server") ||
		    rbytes16(r, &s, &sl, "region start") || ru8(r, &kind, "region end kind"))
			return RK_ECORRUPT;
		if (kind == END_BOUNDED) {
			if (rbytes16(r, &e, &el, "region end"))
				return RK_ECORRUPT;
		} else if (kind != END_UNBOUNDED) {
			rk__err(RK_ECORRUPT, "%s: table %s: region %llu: unknown end kind %u", r->file,
			        t->name, (unsigned long long)rid, kind);
			return RK_ECORRUPT;
		}
		if (rid == 0 || rid >= m->next_region_id || rk_meta__region(m, rid)) {
			rk__err(RK_ECORRUPT, "%s: table %s: region id %llu duplicated or out of range",
			        r->file, t->name, (unsigned long long)rid);
			return RK_ECORRUPT;
		}
		for (uint32_t j = 0; j < k; j++)
			if (t->regions[j]->id == rid) {
				rk__err(RK_ECORRUPT, "%s: table %s: region id %llu twice", r->file, t->name,
				        (unsigned long long)rid);
				return RK_ECORRUPT;
			}
		rk__region *reg = rk_meta__region_new(m, t, rid, s, sl, e, el, srv);
		if (!reg)
			return RK_ECORRUPT;
		t->regions[k] = reg;
		t->nregions = k + 1;
	}
	return 0;
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
	if (decode_families(r, t, nfam, version))
		goto fail;
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
	if (decode_regions(m, r, t, nreg))
		goto fail;
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
	rk_meta__table_free(t); /* its regions stay on m->all_regions and are freed with m */
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
	if (version != META_VERSION && version != META_VERSION_V1 && version != META_VERSION_GC)
		return rk__err(RK_ECORRUPT, "%s: meta version %u (this build reads %u to %u)", file,
		               version, META_VERSION_V1, META_VERSION_GC);
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

/* ---- files ---- */

int rk_meta__save(const char *dir, const uint8_t *buf, size_t len)
{
	return rk_local__replace_file(dir, "META", buf, len, 1);
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
