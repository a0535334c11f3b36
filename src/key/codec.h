/*
 * Order-preserving field codecs: the byte forms a typed value takes inside a
 * row key. Every encoder appends to a bounded writer; every decoder reads from
 * [p, p+n), takes an XOR mask (0x00 ascending, 0xFF descending: a descending
 * field is its ascending bytes inverted) and reports how many bytes it used.
 * Decoders never read past n and return RK_ECORRUPT on bad bytes.
 *
 * The byte layouts are specified in docs/formats.md; do not change them.
 */
#ifndef RK_KEY_CODEC_H
#define RK_KEY_CODEC_H

#include <rowkey/key.h>
#include <stdint.h>
#include <string.h>

/* A bounded output buffer: writes past cap fail with RK_ETOOLONG. */
typedef struct rk_wbuf {
	uint8_t *p;
	size_t len, cap;
} rk_wbuf;

int rk_wbuf__overflow(const rk_wbuf *w, size_t need);

static inline int rk_w_put(rk_wbuf *w, const void *src, size_t n)
{
	if (n > w->cap - w->len)
		return rk_wbuf__overflow(w, n);
	memcpy(w->p + w->len, src, n);
	w->len += n;
	return 0;
}

static inline int rk_w_byte(rk_wbuf *w, uint8_t b)
{
	if (w->len >= w->cap)
		return rk_wbuf__overflow(w, 1);
	w->p[w->len++] = b;
	return 0;
}

/* Inverts bytes [from, w->len): turns an ascending encoding into descending. */
void rk_codec__invert(rk_wbuf *w, size_t from);

/* ---- fixed-width integers and floats ---- */
int rk_codec__put_uint(rk_wbuf *w, uint64_t v, int width);  /* big-endian */
int rk_codec__put_int(rk_wbuf *w, int64_t v, int width);    /* big-endian, sign bit flipped */
uint64_t rk_codec__get_uint(const uint8_t *p, int width, uint8_t mask);
int64_t rk_codec__get_int(const uint8_t *p, int width, uint8_t mask);
uint64_t rk_codec__f64_to_bits(double d); /* order-preserving 64-bit image; NaN canonical, last */
double rk_codec__f64_from_bits(uint64_t b);
/* Reads the 8-byte form at p; a NaN other than the one the encoder writes is
 * RK_ECORRUPT (the key could not have been written). */
int rk_codec__get_f64(double *out, const uint8_t *p, uint8_t mask);

/* ---- zero-padded decimal text of a fixed width ---- */
int rk_codec__put_dec(rk_wbuf *w, uint64_t v, int width);
int rk_codec__get_dec(uint64_t *out, const uint8_t *p, int width, uint8_t mask);

/* ---- escaped, terminated strings: 0x00 -> 00 FF, end -> 00 01 ---- */
int rk_codec__put_esc(rk_wbuf *w, const uint8_t *s, size_t n);
/* Decodes into out (capacity >= n); *used = bytes consumed incl. terminator. */
int rk_codec__get_esc(uint8_t *out, size_t *outlen, size_t *used, const uint8_t *p, size_t n,
                      uint8_t mask);

/* ---- Bigtable / LevelDB ordered code ---- */
int rk_codec__put_oc_str(rk_wbuf *w, const uint8_t *s, size_t n); /* 00->00 FF, FF->FF 00, end 00 01 */
int rk_codec__get_oc_str(uint8_t *out, size_t *outlen, size_t *used, const uint8_t *p, size_t n,
                         uint8_t mask);
int rk_codec__put_oc_uint(rk_wbuf *w, uint64_t v); /* length byte + significant bytes */
int rk_codec__get_oc_uint(uint64_t *out, size_t *used, const uint8_t *p, size_t n, uint8_t mask);
int rk_codec__put_oc_int(rk_wbuf *w, int64_t v); /* WriteSignedNumIncreasing */
int rk_codec__get_oc_int(int64_t *out, size_t *used, const uint8_t *p, size_t n, uint8_t mask);

/* ---- HBase OrderedBytes fixed-width forms ---- */
int rk_codec__put_ob_int(rk_wbuf *w, int64_t v, int width); /* header 0x29..0x2c + flipped BE */
int rk_codec__get_ob_int(int64_t *out, const uint8_t *p, size_t n, int width, uint8_t mask);
int rk_codec__put_ob_f64(rk_wbuf *w, double d); /* header 0x31 + order-preserving bits */
int rk_codec__get_ob_f64(double *out, const uint8_t *p, size_t n, uint8_t mask);

/* ---- Phoenix VARCHAR in a row key ----
 * Ascending: the bytes, then a 0x00 separator unless the field ends the key.
 * Descending: the bytes inverted, then a 0xFF separator (always). The value
 * must not contain 0x00 (Phoenix's rule). get_* reads up to the separator or
 * the end of input. */
int rk_codec__put_phx_str(rk_wbuf *w, const uint8_t *s, size_t n, int desc, int last);
int rk_codec__get_phx_str(uint8_t *out, size_t *outlen, size_t *used, const uint8_t *p, size_t n,
                          int desc);

/* ---- plain text numbers ---- */
int rk_codec__put_text_u(rk_wbuf *w, uint64_t v);
int rk_codec__put_text_i(rk_wbuf *w, int64_t v);
int rk_codec__put_text_f(rk_wbuf *w, double d);

#endif
