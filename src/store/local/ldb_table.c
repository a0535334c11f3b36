/*
 * A verifier of LevelDB table files (see ldb_table.h), after LevelDB's
 * doc/table_format.md:
 *
 *   file     := block* metaindex_block index_block footer
 *   block    := contents type:u8 crc:u32le      (the 5-byte trailer)
 *   crc      := mask(crc32c(contents || type)), mask(c) = rot_r(c, 15) + 0xa282ead8
 *   type     := 0 (none) | 1 (Snappy)           (the CRC covers stored bytes)
 *   footer   := handle(metaindex) handle(index) padding to 40 bytes
 *               magic:u64le = 0xdb4775248b80fb57  (48 bytes, at the end)
 *   handle   := offset:varint64 size:varint64   (size excludes the trailer)
 *   contents := entry* restart:u32le* num_restarts:u32le
 *   entry    := shared:varint32 unshared:varint32 vlen:varint32 key_delta value
 *
 * The index block's values are the handles of the data blocks, the
 * metaindex block's those of the meta (filter) blocks. Only the index and
 * metaindex blocks are decompressed (to read their handles); every other
 * block is checked by its CRC alone. Keys are not compared: ordering is
 * LevelDB's business, and check's iterator reads every key anyway.
 */
#include "store/local/ldb_table.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/local/crc.h"

#define FOOTER_LEN 48
#define TRAILER_LEN 5
#define TABLE_MAGIC 0xdb4775248b80fb57ull
#define MASK_DELTA 0xa282ead8u

/* ---- little-endian integers and varints, bounds-checked ---- */

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* Reads a varint of at most `maxbytes` bytes from *p (< end); 0 or -1. */
static int get_varint(uint64_t *out, const uint8_t **p, const uint8_t *end, int maxbytes)
{
	uint64_t v = 0;
	for (int i = 0; i < maxbytes && *p < end; i++) {
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

typedef struct handle {
	uint64_t off, size;
} handle;

static int get_handle(handle *h, const uint8_t **p, const uint8_t *end)
{
	return get_varint(&h->off, p, end, 10) || get_varint(&h->size, p, end, 10) ? -1 : 0;
}

/* ---- Snappy ---- */

int rk_ldb__snappy_uncompress(uint8_t **out, size_t *outlen, const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;
	uint64_t len;
	*out = NULL;
	*outlen = 0;
	if (get_varint(&len, &p, end, 5) || len > 0xFFFFFFFFu)
		return rk__err(RK_ECORRUPT, "snappy: bad length preamble");
	/* an element of at most 5 input bytes yields at most 64 output bytes */
	if (len > (uint64_t)(end - p) * 64 + 64)
		return rk__err(RK_ECORRUPT, "snappy: %llu bytes claimed from %zu",
		               (unsigned long long)len, (size_t)(end - p));
	uint8_t *o = malloc(len ? (size_t)len : 1);
	if (!o)
		return rk__err(RK_ENOMEM, "snappy: out of memory (%llu bytes)",
		               (unsigned long long)len);
	size_t w = 0;
	while (p < end) {
		uint8_t tag = *p++;
		size_t l, off = 0;
		switch (tag & 3) {
		case 0: /* literal */
			l = (size_t)(tag >> 2);
			if (l >= 60) {
				size_t nb = l - 59;
				if ((size_t)(end - p) < nb)
					goto bad;
				l = 0;
				for (size_t i = 0; i < nb; i++)
					l |= (size_t)p[i] << (8 * i);
				p += nb;
			}
			l += 1;
			if ((size_t)(end - p) < l || len - w < l)
				goto bad;
			memcpy(o + w, p, l);
			p += l;
			w += l;
			continue;
		case 1: /* copy, 11-bit offset */
			if (end - p < 1)
				goto bad;
			l = (size_t)((tag >> 2) & 7) + 4;
			off = (size_t)(tag >> 5) << 8 | *p++;
			break;
		case 2: /* copy, 16-bit offset */
			if (end - p < 2)
				goto bad;
			l = (size_t)(tag >> 2) + 1;
			off = (size_t)p[0] | (size_t)p[1] << 8;
			p += 2;
			break;
		default: /* copy, 32-bit offset */
			if (end - p < 4)
				goto bad;
			l = (size_t)(tag >> 2) + 1;
			off = get_u32(p);
			p += 4;
			break;
		}
		if (off == 0 || off > w || len - w < l)
			goto bad;
		for (size_t i = 0; i < l; i++, w++) /* may overlap its own output */
			o[w] = o[w - off];
	}
	if (w != len)
		goto bad;
	*out = o;
	*outlen = w;
	return 0;
bad:
	free(o);
	return rk__err(RK_ECORRUPT, "snappy: malformed at input byte %zu of %zu",
	               n - (size_t)(end - p), n);
}

/* ---- blocks ---- */

typedef struct vt {
	const uint8_t *p;
	size_t n;
	char *why;
	size_t cap;
	uint8_t *fix; /* the same bytes, writable: checksums are set, not checked */
} vt;

static int bad(vt *v, const char *fmt, ...) RK_PRINTF(2, 3);

static int bad(vt *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->why, v->cap, fmt, ap);
	va_end(ap);
	return RK_ECORRUPT;
}

/* Checks that the block `h` (called `what`) lies in the file before the
 * footer and that its trailer's CRC matches. */
static int check_block(vt *v, const handle *h, const char *what)
{
	size_t limit = v->n - FOOTER_LEN;
	if (h->off > limit || h->size > limit - h->off || limit - h->off - h->size < TRAILER_LEN)
		return bad(v, "%s at offset %llu (%llu bytes) reaches past the end of the file's "
		              "blocks (%zu bytes)",
		           what, (unsigned long long)h->off, (unsigned long long)h->size, limit);
	const uint8_t *b = v->p + h->off;
	size_t sz = (size_t)h->size;
	uint32_t stored = get_u32(b + sz + 1), rot = stored - MASK_DELTA;
	uint32_t want = rot >> 17 | rot << 15, got = rk_crc__32c(b, sz + 1);
	if (want != got && v->fix) {
		uint32_t m = (got >> 15 | got << 17) + MASK_DELTA;
		uint8_t *t = v->fix + h->off + sz + 1;
		t[0] = (uint8_t)m, t[1] = (uint8_t)(m >> 8), t[2] = (uint8_t)(m >> 16),
		t[3] = (uint8_t)(m >> 24);
		return 0;
	}
	if (want != got)
		return bad(v, "%s at offset %llu (%llu bytes): checksum mismatch (stored %08x, "
		              "computed %08x)",
		           what, (unsigned long long)h->off, (unsigned long long)h->size, want, got);
	return 0;
}

/* Checks a block and returns its uncompressed contents in *out (*owned
 * set when the caller must free them). */
static int read_block(vt *v, const handle *h, const char *what, const uint8_t **out,
                      size_t *outlen, uint8_t **owned)
{
	int rc = check_block(v, h, what);
	if (rc)
		return rc;
	const uint8_t *b = v->p + h->off;
	size_t sz = (size_t)h->size;
	*owned = NULL;
	switch (b[sz]) {
	case 0:
		*out = b;
		*outlen = sz;
		return 0;
	case 1:
		if ((rc = rk_ldb__snappy_uncompress(owned, outlen, b, sz)) != 0)
			return rc == RK_ENOMEM ? rc
			                       : bad(v, "%s at offset %llu: %s", what,
			                             (unsigned long long)h->off, rk_error_last());
		*out = *owned;
		return 0;
	default:
		return bad(v, "%s at offset %llu: unknown compression type %u", what,
		           (unsigned long long)h->off, b[sz]);
	}
}

/* Calls fn on the handle in each entry's value of a block whose values are
 * handles (index, metaindex). Stops at the first nonzero return. */
static int each_handle(vt *v, const uint8_t *c, size_t len, const char *what, uint64_t at,
                       int (*fn)(vt *, const handle *, void *), void *arg)
{
	if (len < 4)
		return bad(v, "%s at offset %llu: %zu bytes, too short for a block", what,
		           (unsigned long long)at, len);
	uint32_t nr = get_u32(c + len - 4);
	if (nr > (len - 4) / 4)
		return bad(v, "%s at offset %llu: %u restart points do not fit in %zu bytes", what,
		           (unsigned long long)at, nr, len);
	const uint8_t *p = c, *end = c + len - 4 - 4 * (size_t)nr;
	uint64_t prev_key = 0;
	for (size_t i = 0; p < end; i++) {
		uint64_t shared, unshared, vlen;
		if (get_varint(&shared, &p, end, 5) || get_varint(&unshared, &p, end, 5) ||
		    get_varint(&vlen, &p, end, 5) || shared > prev_key ||
		    unshared > (uint64_t)(end - p) || vlen > (uint64_t)(end - p) - unshared)
			return bad(v, "%s at offset %llu: entry %zu does not parse", what,
			           (unsigned long long)at, i);
		p += unshared;
		prev_key = shared + unshared;
		const uint8_t *val = p;
		handle h;
		p += vlen;
		if (get_handle(&h, &val, p))
			return bad(v, "%s at offset %llu: entry %zu holds no block handle", what,
			           (unsigned long long)at, i);
		int rc = fn(v, &h, arg);
		if (rc)
			return rc;
	}
	return 0;
}

static int check_meta(vt *v, const handle *h, void *arg)
{
	(void)arg;
	return check_block(v, h, "meta block");
}

typedef struct data_count {
	size_t blocks, bad;
	char first[400];
} data_count;

static int check_data(vt *v, const handle *h, void *arg)
{
	data_count *d = arg;
	d->blocks++;
	if (check_block(v, h, "data block")) {
		if (d->bad++ == 0)
			snprintf(d->first, sizeof d->first, "%s", v->why);
	}
	return 0;
}

static int walk_table(vt *vp);

int rk_ldb__verify_table(const uint8_t *p, size_t n, char *why, size_t cap)
{
	vt v = {p, n, why, cap, NULL};
	return walk_table(&v);
}

int rk_ldb__fix_table_crcs(uint8_t *p, size_t n)
{
	char why[300];
	vt v = {p, n, why, sizeof why, p};
	return walk_table(&v);
}

static int walk_table(vt *vp)
{
	vt v = *vp;
	const uint8_t *p = v.p;
	size_t n = v.n;
	handle meta_h, index_h;
	const uint8_t *c;
	size_t clen;
	uint8_t *owned = NULL;
	int rc;
	if (v.cap)
		v.why[0] = 0;
	if (n < FOOTER_LEN)
		return bad(&v, "%zu bytes, too short for a table (its footer alone is %d bytes)", n,
		           FOOTER_LEN);
	const uint8_t *f = p + n - FOOTER_LEN, *fend = p + n - 8;
	if (get_u64(fend) != TABLE_MAGIC)
		return bad(&v, "footer at offset %zu: bad magic number (the file's end is missing or "
		               "damaged)",
		           n - FOOTER_LEN);
	if (get_handle(&meta_h, &f, fend) || get_handle(&index_h, &f, fend))
		return bad(&v, "footer at offset %zu: block handles do not parse", n - FOOTER_LEN);

	if ((rc = read_block(&v, &meta_h, "metaindex block", &c, &clen, &owned)) != 0)
		return rc;
	rc = each_handle(&v, c, clen, "metaindex block", meta_h.off, check_meta, NULL);
	free(owned);
	if (rc)
		return rc;

	if ((rc = read_block(&v, &index_h, "index block", &c, &clen, &owned)) != 0)
		return rc;
	data_count d = {0, 0, {0}};
	rc = each_handle(&v, c, clen, "index block", index_h.off, check_data, &d);
	free(owned);
	if (rc)
		return rc;
	if (d.bad == 1)
		return bad(&v, "%s", d.first);
	if (d.bad)
		return bad(&v, "%s (and %zu more of its %zu data blocks)", d.first, d.bad - 1, d.blocks);
	return 0;
}
