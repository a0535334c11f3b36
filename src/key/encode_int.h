/*
 * The encoder's state and internals, shared by encoding (encode.c) and
 * decoding (decode.c), and its entry points for the query planner: encode
 * one top-level part with given field values, or a whole key with a chosen
 * salt.
 */
#ifndef RK_KEY_ENCODE_INT_H
#define RK_KEY_ENCODE_INT_H

#include "key/codec.h"
#include "key/schema_int.h"

struct rk_encoder {
	const rk_schema *s;
	uint64_t rng;
	uint64_t rr;
	int forced_salt; /* >= 0: use this salt instead of drawing one (decode verification) */
	uint8_t *sub[RK_MAX_DEPTH + 2];
	uint8_t *arena; /* one transformed value (a reversed string or number) */
	size_t arena_cap;
	uint8_t *dec; /* decoded strings */
	size_t dec_len, dec_cap;
	uint8_t *verify;
	size_t *off; /* decode: where each top-level part starts in the key */
	rk_value *lfields; /* rk_key_logical's decoded fields */
	char hex2[2][512]; /* byte -> two hex digits, lower and upper case */
};

/* A typed intermediate value: t is U64 (v.u), I64 (v.i), F64 or STR/BYTES. */
typedef struct {
	rk_type t;
	rk_value v;
} tval;

/* Encodes parts[0..n) for `fields` onto w; depth is the sub-template
 * nesting (0: the key itself). */
int rk_key__enc_template(rk_encoder *e, rk_wbuf *w, const rk_part *parts, size_t n, const rk_value *fields,
                         int depth);

/* src[0..n) reversed into dst; "a.b.c" -> "c.b.a" (both involutions). */
void rk_key__reverse_bytes(uint8_t *dst, const uint8_t *src, size_t n);
void rk_key__reverse_labels(uint8_t *dst, const uint8_t *src, size_t n);

/* Appends the bytes of top-level part p for `fields` to w. */
int rk_key__encode_part(rk_encoder *e, rk_wbuf *w, const rk_part *p, const rk_value *fields);

/* rk_key_encode with the salt part (random / round-robin) forced to `salt`. */
int rk_key__encode_salted(uint8_t *out, size_t cap, size_t *outlen, rk_encoder *e, const rk_value *fields,
                          int salt);

#endif
