/*
 * Cell keys: the byte encoding of (table, row, family, qualifier, timestamp,
 * type) that sorts in data-model order under plain bytewise comparison. The
 * grammar is in docs/formats.md B.1; this file is its only
 * implementation. Decoding treats its input as hostile.
 */
#ifndef RK_STORE_CELL_H
#define RK_STORE_CELL_H

#include <stddef.h>
#include <stdint.h>

/* Cell types: stored on disk, frozen (docs/formats.md (part B)). */
enum {
	RK_CELL_DELETE_FAMILY = 0x01,
	RK_CELL_DELETE_COLUMN = 0x02,
	RK_CELL_DELETE_CELL = 0x03,
	RK_CELL_PUT = 0x04
};

/* A decoded cell key. String fields point at their *escaped* bodies inside
 * the key (terminator excluded): compare them with memcmp (escaping is
 * order-preserving and injective) and unescape with rk_cell__unesc. */
typedef struct rk__cellkey {
	uint32_t table_id;
	const uint8_t *row;
	size_t row_len;
	const uint8_t *family;
	size_t family_len;
	const uint8_t *qual;
	size_t qual_len;
	int family_marker; /* qual_part was 00 00 */
	uint64_t ts;
	uint8_t type;
	size_t row_part_end; /* offset just past the row's terminator */
} rk__cellkey;

/* Bytes esc(s) takes, terminator included. */
size_t rk_cell__esc_len(const uint8_t *s, size_t n);

/* Writes esc(s) (with terminator) at dst; returns the end. */
uint8_t *rk_cell__esc(uint8_t *dst, const uint8_t *s, size_t n);

/* Unescapes an escaped body (as found by rk_cell__decode) into dst, which
 * must hold `len` bytes; returns the unescaped length. */
size_t rk_cell__unesc(uint8_t *dst, const uint8_t *body, size_t len);

/* Length of the cell key for these parts. qual NULL with marker=1 means the
 * family-wide marker. */
size_t rk_cell__key_len(size_t row_esc_len, size_t family_len, const uint8_t *qual, size_t qual_len,
                        int marker);

/* Encodes a cell key into dst (rk_cell__key_len bytes); returns its length. */
size_t rk_cell__encode(uint8_t *dst, uint32_t table_id, const uint8_t *row, size_t row_len,
                       const char *family, size_t family_len, const uint8_t *qual, size_t qual_len,
                       int marker, uint64_t ts, uint8_t type);

/* Decodes and validates a cell key. RK_ECORRUPT with a message naming the
 * byte offset when it does not follow the grammar. */
int rk_cell__decode(rk__cellkey *out, const uint8_t *key, size_t len);

/* Decodes the parts after the row of a key whose table id, row and
 * row_part_end `out` already holds (from rk_cell__decode_row on a key with
 * the same row part): family, qualifier, timestamp, type. */
int rk_cell__decode_rest(rk__cellkey *out, const uint8_t *key, size_t len);

/* rk_cell__decode_rest for a key whose family part (body and terminator,
 * family_len + 2 bytes at row_part_end) the caller has checked equals that
 * of a key decoded before: out->family and family_len stay as they are
 * (point them at a stable copy); only the qualifier, timestamp and type are
 * decoded. */
int rk_cell__decode_rest_same_family(rk__cellkey *out, const uint8_t *key, size_t len);

/* Decodes only the table id and the row (escaped body) of a key: enough to
 * route it. RK_ECORRUPT when those parts do not parse. */
int rk_cell__decode_row(rk__cellkey *out, const uint8_t *key, size_t len);

/* rk_cell__decode_row that also unescapes the row into dst and sets
 * *dst_len: one pass over the row part. dst must have room for len + 8
 * bytes (it is written eight bytes at a time). */
int rk_cell__decode_row_unesc(rk__cellkey *out, const uint8_t *key, size_t len, uint8_t *dst,
                              size_t *dst_len);

/* Engine-key bound for rows >= row of a table: u32(t) esc(row). row NULL
 * with len 0 gives u32(t). `unbounded` gives u32(t+1) (past the table).
 * Returns the length written into dst (4 + esc_len bytes at most). */
size_t rk_cell__row_bound(uint8_t *dst, uint32_t table_id, const uint8_t *row, size_t len,
                          int unbounded);

/* Big-endian integers, inline: every cell key encoded or decoded has a
 * table id and a timestamp. */
static inline void rk_cell__put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void rk_cell__put_u64(uint8_t *p, uint64_t v)
{
	rk_cell__put_u32(p, (uint32_t)(v >> 32));
	rk_cell__put_u32(p + 4, (uint32_t)v);
}

static inline uint32_t rk_cell__get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t rk_cell__get_u64(const uint8_t *p)
{
	return (uint64_t)rk_cell__get_u32(p) << 32 | rk_cell__get_u32(p + 4);
}

#endif
