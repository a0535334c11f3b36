/*
 * Cell key encoding and strict decoding (docs/formats.md B.1).
 * Row, family and qualifier are escaped so that a string's end sorts before
 * any continuation: 00 -> 00 FF, end -> 00 01. The family-wide delete marker
 * uses 00 00 in place of the qualifier so it sorts first in its family.
 */
#include "store/cell.h"

#include <string.h>

#include "key/error.h"

/* Bit 7 of each byte of the result is set iff that byte of w is 00 (exact,
 * unlike the borrow trick in find_zero: no false positives above a zero). */
static inline uint64_t zero_bytes(uint64_t w)
{
	const uint64_t lows = 0x7F7F7F7F7F7F7F7Full;
	return ~(((w & lows) + lows) | w | lows);
}

size_t rk_cell__esc_len(const uint8_t *s, size_t n)
{
	size_t z = 0, i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		/* one bit per zero byte, at bit 7: gather them into the top byte (no
		   popcount instruction assumed) */
		z += (size_t)(((zero_bytes(w) >> 7) * 0x0101010101010101ull) >> 56);
	}
	for (; i < n; i++)
		z += s[i] == 0;
	return n + z + 2;
}

uint8_t *rk_cell__esc(uint8_t *dst, const uint8_t *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		/* eight bytes at once without a 00; a word with one byte by byte
		   (a binary key's 00 bytes come together) */
		size_t stop = i + 8 <= n ? i + 8 : n;
		if (stop == i + 8) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (!zero_bytes(w)) {
				memcpy(dst, &w, 8);
				dst += 8;
				i += 8;
				continue;
			}
		}
		for (; i < stop; i++) {
			uint8_t c = s[i];
			*dst++ = c;
			if (!c)
				*dst++ = 0xFF;
		}
	}
	*dst++ = 0x00;
	*dst++ = 0x01;
	return dst;
}

size_t rk_cell__unesc(uint8_t *dst, const uint8_t *body, size_t len)
{
	if (len < 64) {
		/* short bodies (most rows and qualifiers) byte by byte: a binary key
		   holds many 00 bytes, and a memchr + memcpy pair per 00 cost 5x this */
		size_t o = 0;
		for (size_t i = 0; i < len; i++) {
			dst[o++] = body[i];
			i += body[i] == 0; /* skip the FF of an escaped 00 */
		}
		return o;
	}
	const uint8_t *p = body, *end = body + len;
	uint8_t *o = dst;
	while (p < end) {
		const uint8_t *z = memchr(p, 0, (size_t)(end - p));
		size_t run = z ? (size_t)(z - p) + 1 : (size_t)(end - p);
		memcpy(o, p, run);
		o += run;
		p += run + (z != NULL); /* skip the FF of an escaped 00 */
	}
	return (size_t)(o - dst);
}

size_t rk_cell__key_len(size_t row_esc_len, size_t family_len, const uint8_t *qual, size_t qual_len,
                        int marker)
{
	size_t q = marker ? 2 : rk_cell__esc_len(qual, qual_len);
	return 4 + row_esc_len + family_len + 2 + q + 8 + 1;
}

size_t rk_cell__encode(uint8_t *dst, uint32_t table_id, const uint8_t *row, size_t row_len,
                       const char *family, size_t family_len, const uint8_t *qual, size_t qual_len,
                       int marker, uint64_t ts, uint8_t type)
{
	uint8_t *p = dst;
	rk_cell__put_u32(p, table_id);
	p = rk_cell__esc(p + 4, row, row_len);
	p = rk_cell__esc(p, (const uint8_t *)family, family_len);
	if (marker) {
		*p++ = 0x00;
		*p++ = 0x00;
	} else {
		p = rk_cell__esc(p, qual, qual_len);
	}
	rk_cell__put_u64(p, UINT64_MAX - ts);
	p[8] = type;
	return (size_t)(p + 9 - dst);
}

/* Index of the first 00 byte in key[i, len), or len: eight bytes a step
 * (a word holds a zero byte iff (w - 0x01..01) & ~w & 0x80..80 is non-zero,
 * and its lowest set bit marks the first one exactly). */
static inline size_t find_zero(const uint8_t *key, size_t i, size_t len)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, key + i, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w = __builtin_bswap64(w);
#endif
		uint64_t m = (w - ones) & ~w & highs;
		if (m)
			return i + (size_t)(__builtin_ctzll(m) >> 3);
	}
	while (i < len && key[i] != 0)
		i++;
	return i;
}

/* Scans one escaped string starting at *pos. On success sets body/len and
 * moves *pos past the terminator. `allow_marker`: 00 00 right at the start
 * is accepted and reported through *marker. */
/* inline: each caller passes constants (marker or not, the part named), and
 * it runs once or twice for every cell read */
static inline __attribute__((always_inline)) int
scan_esc(const uint8_t *key, size_t len, size_t *pos, const uint8_t **body, size_t *blen,
         int allow_marker, int *marker, const char *what)
{
	size_t i = *pos;
	if (marker)
		*marker = 0;
	if (allow_marker && i + 1 < len && key[i] == 0 && key[i + 1] == 0) {
		*body = key + i;
		*blen = 0;
		*marker = 1;
		*pos = i + 2;
		return 0;
	}
	for (;;) {
		i = find_zero(key, i, len);
		if (i >= len)
			break;
		if (i + 1 >= len)
			return rk__err(RK_ECORRUPT, "cell key: %s truncated at byte %zu", what, i);
		if (key[i + 1] == 0x01) {
			*body = key + *pos;
			*blen = i - *pos;
			*pos = i + 2;
			return 0;
		}
		if (key[i + 1] != 0xFF)
			return rk__err(RK_ECORRUPT, "cell key: bad escape 00 %02x in %s at byte %zu",
			               key[i + 1], what, i);
		i += 2;
	}
	return rk__err(RK_ECORRUPT, "cell key: %s has no terminator (key of %zu bytes)", what, len);
}

int rk_cell__decode_row_unesc(rk__cellkey *out, const uint8_t *key, size_t len, uint8_t *dst,
                              size_t *dst_len)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	size_t i = 4, o = 0;
	if (len < 4)
		return rk__err(RK_ECORRUPT, "cell key: %zu bytes, shorter than a table id", len);
	out->table_id = rk_cell__get_u32(key);
	for (;;) {
		/* copy up to the next 00 byte, eight bytes a step (dst has 8 spare) */
		for (;;) {
			if (i + 8 > len) {
				while (i < len && key[i] != 0)
					dst[o++] = key[i++];
				break;
			}
			uint64_t w, x;
			memcpy(&w, key + i, 8);
			memcpy(dst + o, &w, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			x = __builtin_bswap64(w);
#else
			x = w;
#endif
			uint64_t m = (x - ones) & ~x & highs;
			if (m) {
				size_t n = (size_t)(__builtin_ctzll(m) >> 3);
				i += n;
				o += n;
				break;
			}
			i += 8;
			o += 8;
		}
		if (i >= len)
			return rk__err(RK_ECORRUPT, "cell key: row has no terminator (key of %zu bytes)",
			               len);
		/* a run of escaped 00 bytes (a binary key's come together) here,
		   not through the word loop once each */
		do {
			if (i + 1 >= len)
				return rk__err(RK_ECORRUPT, "cell key: row truncated at byte %zu", i);
			if (key[i + 1] == 0x01) {
				out->row = key + 4;
				out->row_len = i - 4;
				out->row_part_end = i + 2;
				*dst_len = o;
				return 0;
			}
			if (key[i + 1] != 0xFF)
				return rk__err(RK_ECORRUPT,
				               "cell key: bad escape 00 %02x in row at byte %zu", key[i + 1],
				               i);
			dst[o++] = 0;
			i += 2;
		} while (i < len && key[i] == 0);
	}
}

int rk_cell__decode_row(rk__cellkey *out, const uint8_t *key, size_t len)
{
	size_t pos = 4;
	if (len < 4)
		return rk__err(RK_ECORRUPT, "cell key: %zu bytes, shorter than a table id", len);
	out->table_id = rk_cell__get_u32(key);
	int rc = scan_esc(key, len, &pos, &out->row, &out->row_len, 0, NULL, "row");
	if (rc)
		return rc;
	out->row_part_end = pos;
	return 0;
}

int rk_cell__decode(rk__cellkey *out, const uint8_t *key, size_t len)
{
	int rc = rk_cell__decode_row(out, key, len);
	if (rc)
		return rc;
	return rk_cell__decode_rest(out, key, len);
}

/* The qualifier, timestamp and type, from byte pos on. */
static int decode_tail(rk__cellkey *out, const uint8_t *key, size_t len, size_t pos)
{
	int rc = scan_esc(key, len, &pos, &out->qual, &out->qual_len, 1, &out->family_marker,
	                  "qualifier");
	if (rc)
		return rc;
	if (len - pos != 9)
		return rk__err(RK_ECORRUPT,
		               "cell key: %zu bytes after the qualifier at byte %zu, expected 9", len - pos,
		               pos);
	out->ts = UINT64_MAX - rk_cell__get_u64(key + pos);
	out->type = key[pos + 8];
	if (out->ts == 0)
		return rk__err(RK_ECORRUPT, "cell key: timestamp 0 at byte %zu", pos);
	if (out->type < RK_CELL_DELETE_FAMILY || out->type > RK_CELL_PUT)
		return rk__err(RK_ECORRUPT, "cell key: unknown cell type 0x%02x at byte %zu", out->type,
		               pos + 8);
	if ((out->type == RK_CELL_DELETE_FAMILY) != (out->family_marker != 0))
		return rk__err(RK_ECORRUPT,
		               "cell key: cell type 0x%02x does not match its qualifier part at byte %zu",
		               out->type, pos + 8);
	return 0;
}

int rk_cell__decode_rest(rk__cellkey *out, const uint8_t *key, size_t len)
{
	int rc;
	size_t pos = out->row_part_end;
	size_t fstart = pos;
	rc = scan_esc(key, len, &pos, &out->family, &out->family_len, 0, NULL, "family");
	if (rc)
		return rc;
	if (out->family_len == 0)
		return rk__err(RK_ECORRUPT, "cell key: empty family at byte %zu", fstart);
	if (find_zero(out->family, 0, out->family_len) < out->family_len)
		return rk__err(RK_ECORRUPT, "cell key: NUL byte in family at byte %zu", fstart);
	return decode_tail(out, key, len, pos);
}

int rk_cell__decode_rest_same_family(rk__cellkey *out, const uint8_t *key, size_t len)
{
	return decode_tail(out, key, len, out->row_part_end + out->family_len + 2);
}

size_t rk_cell__row_bound(uint8_t *dst, uint32_t table_id, const uint8_t *row, size_t len,
                          int unbounded)
{
	if (unbounded) {
		rk_cell__put_u32(dst, table_id + 1);
		return 4;
	}
	rk_cell__put_u32(dst, table_id);
	if (!row)
		return 4;
	return (size_t)(rk_cell__esc(dst + 4, row, len) - dst);
}
