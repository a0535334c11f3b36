/*
 * LevelDB write-ahead log scan and salvage: see ldb_log.h.
 *
 * The scan walks the physical records in file order. Where a record does
 * not check out it does not skip the rest of the 32 KiB block as LevelDB's
 * reader does: it resynchronises byte by byte, taking the next offset where
 * a whole physical record with a valid checksum starts. So it sees every
 * intact record after damage, the ones LevelDB would replay and the ones it
 * would drop with the rest of the block alike.
 */
#include "store/local/ldb_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/local/crc.h"

#define BLOCK 32768u
#define HEADER 7u
#define BATCH_HEADER 12u /* a write batch: sequence u64, count u32 */

enum { T_ZERO = 0, T_FULL = 1, T_FIRST = 2, T_MIDDLE = 3, T_LAST = 4 };

static uint32_t mask_crc(uint32_t c)
{
	return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

static uint32_t unmask_crc(uint32_t c)
{
	uint32_t rot = c - 0xa282ead8u;
	return (rot >> 17) | (rot << 15);
}

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* A growing byte buffer; `failed` once an allocation failed. */
typedef struct bytes {
	uint8_t *p;
	size_t len, cap;
	int failed;
} bytes;

static void put(bytes *b, const void *d, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n > b->cap) {
		size_t c = b->cap ? b->cap : 4096;
		while (c < b->len + n)
			c *= 2;
		uint8_t *q = realloc(b->p, c);
		if (!q) {
			b->failed = 1;
			return;
		}
		b->p = q;
		b->cap = c;
	}
	if (n)
		memcpy(b->p + b->len, d, n);
	b->len += n;
}

typedef struct walker {
	const uint8_t *p;
	size_t n;
	rk__ldb_log_scan *s;
	/* damage since the last complete record, not yet known to be middle */
	int pending, pend_hard;
	uint64_t pend_off, pend_bytes;
	char pend_why[160];
	/* the fragmented record being assembled */
	int in_frag;
	uint64_t frag_off, frag_bytes, frag_data;
	bytes frag;    /* its data (kept when records are salvaged or handed on) */
	bytes *out;    /* the salvaged log (NULL: scan only) */
	size_t out_block_off;
	size_t min_len; /* a complete record shorter than this is damage */
	void (*each)(const uint8_t *d, size_t len, void *payload); /* each complete record */
	void *payload;
} walker;

static void damage_as(walker *w, uint64_t off, uint64_t bytes_, const char *why, int hard)
{
	w->pend_hard |= hard;
	if (!w->pending) {
		w->pending = 1;
		w->pend_off = off;
		snprintf(w->pend_why, sizeof w->pend_why, "%s", why);
	}
	w->pend_bytes += bytes_;
}

/* Appends one logical record to the salvaged log, fragmented as LevelDB's
 * log::Writer does. */
static void emit(walker *w, const uint8_t *d, size_t len)
{
	bytes *o = w->out;
	int begin = 1;
	do {
		size_t left_in_block = BLOCK - w->out_block_off;
		if (left_in_block < HEADER) {
			static const uint8_t zeros[HEADER];
			put(o, zeros, left_in_block);
			w->out_block_off = 0;
			left_in_block = BLOCK;
		}
		size_t avail = left_in_block - HEADER;
		size_t frag = len < avail ? len : avail;
		int end = frag == len;
		uint8_t h[HEADER + 1];
		h[6] = (uint8_t)(begin && end ? T_FULL : begin ? T_FIRST : end ? T_LAST : T_MIDDLE);
		h[4] = (uint8_t)frag;
		h[5] = (uint8_t)(frag >> 8);
		/* the checksum covers the type byte, then the data */
		uint8_t *tmp = malloc(frag + 1);
		if (!tmp) {
			o->failed = 1;
			return;
		}
		tmp[0] = h[6];
		memcpy(tmp + 1, d, frag);
		uint32_t c = mask_crc(rk_crc__32c(tmp, frag + 1));
		free(tmp);
		h[0] = (uint8_t)c, h[1] = (uint8_t)(c >> 8), h[2] = (uint8_t)(c >> 16),
		h[3] = (uint8_t)(c >> 24);
		put(o, h, HEADER);
		put(o, d, frag);
		w->out_block_off += HEADER + frag;
		d += frag;
		len -= frag;
		begin = 0;
	} while (len > 0);
}

/* A complete logical record [off, end) with data d[0..len). */
static void complete(walker *w, uint64_t end, const uint8_t *d, size_t len)
{
	rk__ldb_log_scan *s = w->s;
	if (len < w->min_len) {
		damage_as(w, end - len - HEADER, len + HEADER, "log record too small", 1);
		return;
	}
	if (w->frag.failed)
		return; /* a record lost to memory: the caller reports it */
	if (w->pending) {
		if (!s->middle_damage) {
			s->middle_damage = 1;
			s->first_bad = w->pend_off;
			memcpy(s->why, w->pend_why, sizeof s->why);
		}
		s->dropped_bytes += w->pend_bytes;
		w->pending = w->pend_hard = 0;
		w->pend_bytes = 0;
	}
	if (s->middle_damage)
		s->records_after++;
	s->records++;
	s->good_end = end;
	if (w->out)
		emit(w, d, len);
	if (w->each)
		w->each(d, len, w->payload);
}

/* The unfinished fragmented record is abandoned. */
static void drop_frag(walker *w, const char *why)
{
	if (w->in_frag)
		damage_as(w, w->frag_off, w->frag_bytes, why, 0);
	w->in_frag = 0;
	w->frag.len = 0;
}

/* A physical record's data length, from its header. */
static size_t rec_len(const uint8_t *h)
{
	return (size_t)h[4] | (size_t)h[5] << 8;
}

/* What the bytes at a position turned out to be. */
enum verdict {
	V_RECORD, /* a physical record that checks out */
	V_SKIP,   /* damage (recorded): resynchronise from the next byte */
	V_CUT     /* the file ends inside a record (recorded): stop */
};

/* Checks the physical record whose header is at pos, in a block ending at
 * end (at least a header away); `aligned`: pos is where a record starts (not
 * a resync step); `last`: the block is the file's last, partial one. Damage
 * is recorded here. */
static enum verdict check_record(walker *w, size_t pos, size_t end, int aligned, int last)
{
	const uint8_t *h = w->p + pos;
	size_t len = rec_len(h);
	int type = h[6];
	if (type == T_ZERO && len == 0 && le32(h) == 0) {
		/* a hole of zeros (no LevelDB writer leaves one) */
		damage_as(w, pos, 1, "zeroed bytes", 0);
		return V_SKIP;
	}
	if (HEADER + len > end - pos) {
		if (aligned && last && type >= T_FULL && type <= T_LAST) {
			/* the record runs past the end of the file: cut short */
			damage_as(w, pos, end - pos, "record cut short by the end of the file", 0);
			return V_CUT;
		}
		damage_as(w, pos, 1, "bad record length", 1);
		return V_SKIP;
	}
	if (!aligned && (type < T_FULL || type > T_LAST ||
	                 ((type == T_FIRST || type == T_MIDDLE) && pos + HEADER + len != end))) {
		/* resynchronising: only a header a writer could have made (a
		 * first or middle fragment fills its block) is worth a checksum */
		damage_as(w, pos, 1, "checksum mismatch", 1);
		return V_SKIP;
	}
	if (rk_crc__32c(h + 6, 1 + len) != unmask_crc(le32(h))) {
		damage_as(w, pos, 1, "checksum mismatch", 1);
		return V_SKIP;
	}
	return V_RECORD;
}

/* Takes a physical record that checked out: [off, off + HEADER + len), its
 * data d, of this type. */
static void take_record(walker *w, int type, uint64_t off, const uint8_t *d, size_t len)
{
	uint64_t end = off + HEADER + len;
	switch (type) {
	case T_FULL:
		drop_frag(w, "partial record without end");
		complete(w, end, d, len);
		break;
	case T_FIRST:
		drop_frag(w, "partial record without end");
		w->in_frag = 1;
		w->frag_off = off;
		w->frag_bytes = HEADER + len;
		w->frag_data = len;
		if (w->out || w->each)
			put(&w->frag, d, len);
		break;
	case T_MIDDLE:
	case T_LAST:
		if (!w->in_frag) {
			damage_as(w, off, HEADER + len, "missing start of fragmented record", 0);
			break;
		}
		w->frag_bytes += HEADER + len;
		w->frag_data += len;
		if (w->out || w->each)
			put(&w->frag, d, len);
		if (type == T_LAST) {
			w->in_frag = 0;
			complete(w, end, w->frag.p, (size_t)w->frag_data);
			w->frag.len = 0;
		}
		break;
	default: {
		char why[64];
		snprintf(why, sizeof why, "unknown record type %d", type);
		damage_as(w, off, HEADER + len, why, 1);
		break;
	}
	}
}

static void walk(walker *w)
{
	size_t n = w->n, pos = 0;
	int aligned = 1; /* pos is where a record starts (not a resync step) */
	while (pos < n) {
		size_t block = pos - pos % BLOCK;
		size_t end = n - block < BLOCK ? n : block + BLOCK;
		int last = end == n && n - block < BLOCK; /* the file's last, partial block */
		if (pos == block)
			aligned = 1;
		if (end - pos < HEADER) {
			/* a block's trailer, or a header cut short by the file's end */
			pos = end;
			continue;
		}
		enum verdict v = check_record(w, pos, end, aligned, last);
		if (v == V_CUT)
			break;
		if (v == V_SKIP) {
			pos++;
			aligned = 0;
			continue;
		}
		const uint8_t *h = w->p + pos;
		size_t len = rec_len(h);
		take_record(w, h[6], pos, h + HEADER, len);
		pos += HEADER + len;
		aligned = 1;
	}
	/* an unfinished fragmented record at the end: torn */
	drop_frag(w, "record without end at the end of the file");
	rk__ldb_log_scan *s = w->s;
	if (w->pending) {
		s->tail_damage = 1;
		s->tail_hard = w->pend_hard;
		s->tail_off = w->pend_off;
		memcpy(s->tail_why, w->pend_why, sizeof s->tail_why);
	}
}

static void walker_init(walker *w, rk__ldb_log_scan *s, const uint8_t *p, size_t n,
                        size_t min_len)
{
	memset(s, 0, sizeof *s);
	memset(w, 0, sizeof *w);
	w->p = p;
	w->n = n;
	w->s = s;
	w->min_len = min_len;
}

void rk_ldb__scan_log(rk__ldb_log_scan *s, const uint8_t *p, size_t n)
{
	walker w;
	walker_init(&w, s, p, n, BATCH_HEADER);
	walk(&w);
}

int rk_ldb__log_records(rk__ldb_log_scan *s, const uint8_t *p, size_t n,
                        void (*each)(const uint8_t *d, size_t len, void *payload), void *payload)
{
	walker w;
	walker_init(&w, s, p, n, 0);
	w.each = each;
	w.payload = payload;
	walk(&w);
	free(w.frag.p);
	if (w.frag.failed)
		return rk__err(RK_ENOMEM, "out of memory reading a record of a log of %zu bytes", n);
	return 0;
}

int rk_ldb__salvage_log(uint8_t **out, size_t *outlen, rk__ldb_log_scan *s, const uint8_t *p,
                        size_t n)
{
	walker w;
	bytes o = {NULL, 0, 0, 0};
	walker_init(&w, s, p, n, BATCH_HEADER);
	w.out = &o;
	walk(&w);
	free(w.frag.p);
	if (o.failed || w.frag.failed) {
		free(o.p);
		*out = NULL;
		*outlen = 0;
		return rk__err(RK_ENOMEM, "out of memory salvaging a log of %zu bytes", n);
	}
	*out = o.p;
	*outlen = o.len;
	return 0;
}
