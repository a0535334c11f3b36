/*
 * LevelDB MANIFEST reading: see ldb_manifest.h.
 */
#include "store/local/ldb_manifest.h"

#include <stdio.h>
#include <string.h>

#include "key/error.h"
#include "store/local/ldb_log.h"

enum {
	TAG_COMPARATOR = 1,
	TAG_LOG_NUMBER = 2,
	TAG_NEXT_FILE = 3,
	TAG_LAST_SEQUENCE = 4,
	TAG_COMPACT_POINTER = 5,
	TAG_DELETED_FILE = 6,
	TAG_NEW_FILE = 7,
	TAG_PREV_LOG_NUMBER = 9
};

typedef struct reader {
	const uint8_t *p, *end;
	int bad;
} reader;

static uint64_t varint(reader *r, int max_bytes)
{
	uint64_t v = 0;
	for (int shift = 0, i = 0; i < max_bytes; i++, shift += 7) {
		if (r->p >= r->end) {
			r->bad = 1;
			return 0;
		}
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->bad = 1; /* too long for its width */
	return 0;
}

static void skip_prefixed(reader *r)
{
	uint64_t n = varint(r, 5);
	if (r->bad || n > (uint64_t)(r->end - r->p)) {
		r->bad = 1;
		return;
	}
	r->p += n;
}

typedef struct ctx {
	rk__ldb_manifest *m;
	char *why;
	size_t cap;
	int bad;
} ctx;

/* One VersionEdit. */
static void edit(const uint8_t *d, size_t len, void *payload)
{
	ctx *c = payload;
	reader r = {d, d + len, 0};
	if (c->bad)
		return;
	while (r.p < r.end && !r.bad) {
		uint64_t tag = varint(&r, 5);
		switch (tag) {
		case TAG_COMPARATOR: skip_prefixed(&r); break;
		case TAG_LOG_NUMBER: c->m->log_number = varint(&r, 10); break;
		case TAG_PREV_LOG_NUMBER: c->m->prev_log = varint(&r, 10); break;
		case TAG_NEXT_FILE:
		case TAG_LAST_SEQUENCE: varint(&r, 10); break;
		case TAG_COMPACT_POINTER: varint(&r, 5); skip_prefixed(&r); break;
		case TAG_DELETED_FILE: varint(&r, 5); varint(&r, 10); break;
		case TAG_NEW_FILE:
			varint(&r, 5);
			varint(&r, 10);
			varint(&r, 10);
			skip_prefixed(&r);
			skip_prefixed(&r);
			break;
		default:
			if (!r.bad) {
				snprintf(c->why, c->cap, "unknown field %llu in record %llu",
				         (unsigned long long)tag, (unsigned long long)c->m->edits + 1);
				c->bad = 1;
				return;
			}
		}
	}
	if (r.bad) {
		snprintf(c->why, c->cap, "record %llu does not parse", (unsigned long long)c->m->edits + 1);
		c->bad = 1;
		return;
	}
	c->m->edits++;
}

int rk_ldb__read_manifest(rk__ldb_manifest *out, const uint8_t *p, size_t n, char *why, size_t cap)
{
	rk__ldb_log_scan s;
	ctx c = {out, why, cap, 0};
	memset(out, 0, sizeof *out);
	if (cap)
		why[0] = 0;
	if (rk_ldb__log_records(&s, p, n, edit, &c)) {
		snprintf(why, cap, "%s", rk_error_last());
		return RK_ENOMEM;
	}
	if (c.bad)
		return RK_ECORRUPT;
	if (s.middle_damage || (s.tail_damage && s.tail_hard)) {
		snprintf(why, cap, "damaged at offset %llu (%s)",
		         (unsigned long long)(s.middle_damage ? s.first_bad : s.tail_off),
		         s.middle_damage ? s.why : s.tail_why);
		return RK_ECORRUPT;
	}
	return 0;
}
