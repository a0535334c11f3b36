/*
 * Field codecs: typed values <-> order-preserving bytes. See codec.h for the
 * contract and docs/formats.md for the byte layouts. This file knows nothing
 * of schemas; it is the bottom of src/key.
 */
#include "key/codec.h"

#include <math.h>
#include <stdio.h>

#include "key/error.h"

int rk_wbuf__overflow(const rk_wbuf *w, size_t need)
{
	return rk__err(RK_ETOOLONG, "key is longer than its limit of %zu bytes (%zu more needed)",
	               w->cap, w->len + need - w->cap);
}

void rk_codec__invert(rk_wbuf *w, size_t from)
{
	for (size_t i = from; i < w->len; i++)
		w->p[i] = (uint8_t)~w->p[i];
}

/* ---- fixed-width integers and floats ---- */

int rk_codec__put_uint(rk_wbuf *w, uint64_t v, int width)
{
	if ((size_t)width > w->cap - w->len)
		return rk_wbuf__overflow(w, (size_t)width);
	uint8_t *p = w->p + w->len;
	if (width == 8) {
		uint64_t be = __builtin_bswap64(v);
		memcpy(p, &be, 8);
	} else {
		for (int i = width - 1; i >= 0; i--, v >>= 8)
			p[i] = (uint8_t)v;
	}
	w->len += (size_t)width;
	return 0;
}

int rk_codec__put_int(rk_wbuf *w, int64_t v, int width)
{
	uint64_t u = (uint64_t)v ^ (1ULL << (width * 8 - 1));
	return rk_codec__put_uint(w, u, width);
}

uint64_t rk_codec__get_uint(const uint8_t *p, int width, uint8_t mask)
{
	uint64_t v = 0;
	for (int i = 0; i < width; i++)
		v = (v << 8) | (uint8_t)(p[i] ^ mask);
	return v;
}

int64_t rk_codec__get_int(const uint8_t *p, int width, uint8_t mask)
{
	uint64_t u = rk_codec__get_uint(p, width, mask) ^ (1ULL << (width * 8 - 1));
	if (width < 8 && (u >> (width * 8 - 1)) & 1)
		u |= ~0ULL << (width * 8); /* sign-extend */
	return (int64_t)u;
}

uint64_t rk_codec__f64_to_bits(double d)
{
	uint64_t b;
	if (isnan(d))
		b = 0x7ff8000000000000ULL; /* one NaN, sorting after +inf */
	else
		memcpy(&b, &d, 8);
	/* negative: invert all bits; positive: flip the sign bit */
	return (b >> 63) ? ~b : b ^ (1ULL << 63);
}

double rk_codec__f64_from_bits(uint64_t b)
{
	b = (b >> 63) ? b ^ (1ULL << 63) : ~b;
	double d;
	memcpy(&d, &b, 8);
	return d;
}

int rk_codec__get_f64(double *out, const uint8_t *p, uint8_t mask)
{
	uint64_t b = rk_codec__get_uint(p, 8, mask);
	double d = rk_codec__f64_from_bits(b);
	if (rk_codec__f64_to_bits(d) != b)
		return rk__err(RK_ECORRUPT, "a NaN other than the one f64 keys hold (0x%016llx)", (unsigned long long)b);
	*out = d;
	return 0;
}

/* ---- zero-padded decimal ---- */

int rk_codec__put_dec(rk_wbuf *w, uint64_t v, int width)
{
	char b[24];
	uint64_t x = v;
	for (int i = width - 1; i >= 0; i--) {
		b[i] = (char)('0' + x % 10);
		x /= 10;
	}
	if (x)
		return rk__err(RK_EINVALID, "value %llu does not fit in %d decimal digits",
		               (unsigned long long)v, width);
	return rk_w_put(w, b, (size_t)width);
}

int rk_codec__get_dec(uint64_t *out, const uint8_t *p, int width, uint8_t mask)
{
	uint64_t v = 0;
	for (int i = 0; i < width; i++) {
		uint8_t c = p[i] ^ mask;
		if (c < '0' || c > '9')
			return rk__err(RK_ECORRUPT, "expected a decimal digit at offset %d, found 0x%02x", i, c);
		uint64_t d = (uint64_t)(c - '0');
		if (v > (UINT64_MAX - d) / 10)
			return rk__err(RK_ECORRUPT, "decimal number overflows 64 bits");
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* ---- escaped strings ---- */

int rk_codec__put_esc(rk_wbuf *w, const uint8_t *s, size_t n)
{
	int rc;
	/* copy runs between 0x00 bytes whole */
	const uint8_t *end = s + n, *z;
	while ((z = memchr(s, 0, (size_t)(end - s))) != NULL) {
		if ((rc = rk_w_put(w, s, (size_t)(z - s) + 1)) < 0 || (rc = rk_w_byte(w, 0xff)) < 0)
			return rc;
		s = z + 1;
	}
	if ((rc = rk_w_put(w, s, (size_t)(end - s))) < 0)
		return rc;
	if (w->cap - w->len < 2)
		return rk_wbuf__overflow(w, 2);
	w->p[w->len++] = 0x00;
	w->p[w->len++] = 0x01;
	return 0;
}

/* Shared by the two escaped-string forms: `esc_ff` also unescapes FF 00. */
static int get_escaped(uint8_t *out, size_t *outlen, size_t *used, const uint8_t *p, size_t n,
                       uint8_t mask, int esc_ff)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i] ^ mask;
		if (c == 0x00 || (esc_ff && c == 0xff)) {
			if (i + 1 >= n)
				return rk__err(RK_ECORRUPT, "string truncated after escape byte at offset %zu", i);
			uint8_t d = p[i + 1] ^ mask;
			if (c == 0x00 && d == 0x01) {
				*outlen = o;
				*used = i + 2;
				return 0;
			}
			if ((c == 0x00 && d != 0xff) || (c == 0xff && d != 0x00))
				return rk__err(RK_ECORRUPT, "bad escape 0x%02x 0x%02x at offset %zu", c, d, i);
			out[o++] = c;
			i++;
			continue;
		}
		out[o++] = c;
	}
	return rk__err(RK_ECORRUPT, "string has no terminator (00 01) within %zu bytes", n);
}

int rk_codec__get_esc(uint8_t *out, size_t *outlen, size_t *used, const uint8_t *p, size_t n,
                      uint8_t mask)
{
	return get_escaped(out, outlen, used, p, n, mask, 0);
}

/* ---- ordered code ---- */

int rk_codec__put_oc_str(rk_wbuf *w, const uint8_t *s, size_t n)
{
	int rc;
	for (size_t i = 0; i < n; i++) {
		if ((rc = rk_w_byte(w, s[i])) < 0)
			return rc;
		if (s[i] == 0x00 && (rc = rk_w_byte(w, 0xff)) < 0)
			return rc;
		if (s[i] == 0xff && (rc = rk_w_byte(w, 0x00)) < 0)
			return rc;
	}
	if ((rc = rk_w_byte(w, 0x00)) < 0)
		return rc;
	return rk_w_byte(w, 0x01);
}

int rk_codec__get_oc_str(uint8_t *out, size_t *outlen, size_t *used, const uint8_t *p, size_t n,
                         uint8_t mask)
{
	return get_escaped(out, outlen, used, p, n, mask, 1);
}

int rk_codec__put_oc_uint(rk_wbuf *w, uint64_t v)
{
	uint8_t b[9];
	int len = 0;
	for (uint64_t x = v; x; x >>= 8)
		len++;
	b[0] = (uint8_t)len;
	for (int i = 0; i < len; i++)
		b[len - i] = (uint8_t)(v >> (8 * i));
	return rk_w_put(w, b, (size_t)len + 1);
}

int rk_codec__get_oc_uint(uint64_t *out, size_t *used, const uint8_t *p, size_t n, uint8_t mask)
{
	if (n < 1)
		return rk__err(RK_ECORRUPT, "ordered-code number truncated: no length byte");
	int len = (uint8_t)(p[0] ^ mask);
	if (len > 8)
		return rk__err(RK_ECORRUPT, "ordered-code number length %d is over 8", len);
	if ((size_t)len + 1 > n)
		return rk__err(RK_ECORRUPT, "ordered-code number truncated: %d bytes declared, %zu present",
		               len, n - 1);
	uint64_t v = 0;
	for (int i = 1; i <= len; i++)
		v = (v << 8) | (uint8_t)(p[i] ^ mask);
	if (len > 0 && (uint8_t)(p[1] ^ mask) == 0)
		return rk__err(RK_ECORRUPT, "ordered-code number has a leading zero byte");
	*out = v;
	*used = (size_t)len + 1;
	return 0;
}

/* Header bits of the signed form for each length 1..10: the length in unary
 * in the leading bits, so longer (larger magnitude) numbers sort further out. */
static const uint8_t oc_header[11][2] = {{0, 0},       {0x80, 0},    {0xc0, 0}, {0xe0, 0},
                                         {0xf0, 0},    {0xf8, 0},    {0xfc, 0}, {0xfe, 0},
                                         {0xff, 0},    {0xff, 0x80}, {0xff, 0xc0}};

static int oc_signed_len(uint64_t x) /* x = v < 0 ? ~v : v */
{
	int bits = 0;
	while (x) {
		bits++;
		x >>= 1;
	}
	return bits / 7 + 1;
}

int rk_codec__put_oc_int(rk_wbuf *w, int64_t v)
{
	uint64_t x = v < 0 ? ~(uint64_t)v : (uint64_t)v;
	int len = oc_signed_len(x);
	uint8_t buf[10];
	uint8_t sign = v < 0 ? 0xff : 0x00;
	buf[0] = buf[1] = sign;
	for (int i = 0; i < 8; i++)
		buf[2 + i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
	uint8_t *begin = buf + 10 - len;
	begin[0] ^= oc_header[len][0];
	if (len >= 2)
		begin[1] ^= oc_header[len][1];
	return rk_w_put(w, begin, (size_t)len);
}

int rk_codec__get_oc_int(int64_t *out, size_t *used, const uint8_t *p, size_t n, uint8_t mask)
{
	if (n < 1)
		return rk__err(RK_ECORRUPT, "ordered-code signed number truncated");
	uint8_t b0 = p[0] ^ mask;
	uint8_t sign = (b0 & 0x80) ? 0x00 : 0xff; /* non-negative numbers start with a 1 bit */
	/* length = number of leading 1 bits of the sign-normalised header (over two bytes) */
	uint16_t hdr = (uint16_t)(((b0 ^ sign) << 8) | (n > 1 ? (uint8_t)(p[1] ^ mask ^ sign) : 0));
	int len = 0;
	while (len < 11 && (hdr & (0x8000 >> len)))
		len++;
	if (len < 1 || len > 10)
		return rk__err(RK_ECORRUPT, "ordered-code signed number has a bad header 0x%02x", b0);
	if ((size_t)len > n)
		return rk__err(RK_ECORRUPT, "ordered-code signed number truncated: %d bytes needed, %zu present",
		               len, n);
	uint8_t buf[10];
	memset(buf, sign, sizeof buf);
	for (int i = 0; i < len; i++)
		buf[10 - len + i] = p[i] ^ mask;
	buf[10 - len] ^= oc_header[len][0];
	if (len >= 2)
		buf[10 - len + 1] ^= oc_header[len][1];
	if (buf[0] != sign || buf[1] != sign)
		return rk__err(RK_ECORRUPT, "ordered-code signed number out of 64-bit range");
	uint64_t u = 0;
	for (int i = 2; i < 10; i++)
		u = (u << 8) | buf[i];
	int64_t v = (int64_t)u;
	if ((v < 0) != (sign == 0xff) || oc_signed_len(v < 0 ? ~u : u) != len)
		return rk__err(RK_ECORRUPT, "ordered-code signed number is not in canonical form");
	*out = v;
	*used = (size_t)len;
	return 0;
}

/* ---- HBase OrderedBytes ---- */

static uint8_t ob_int_header(int width)
{
	switch (width) {
	case 1: return 0x29;
	case 2: return 0x2a;
	case 4: return 0x2b;
	default: return 0x2c;
	}
}

int rk_codec__put_ob_int(rk_wbuf *w, int64_t v, int width)
{
	int rc = rk_w_byte(w, ob_int_header(width));
	return rc < 0 ? rc : rk_codec__put_int(w, v, width);
}

int rk_codec__get_ob_int(int64_t *out, const uint8_t *p, size_t n, int width, uint8_t mask)
{
	if (n < (size_t)width + 1)
		return rk__err(RK_ECORRUPT, "OrderedBytes int%d truncated: %zu of %d bytes", width * 8, n,
		               width + 1);
	if ((uint8_t)(p[0] ^ mask) != ob_int_header(width))
		return rk__err(RK_ECORRUPT, "OrderedBytes int%d header 0x%02x, expected 0x%02x", width * 8,
		               (uint8_t)(p[0] ^ mask), ob_int_header(width));
	*out = rk_codec__get_int(p + 1, width, mask);
	return 0;
}

int rk_codec__put_ob_f64(rk_wbuf *w, double d)
{
	int rc = rk_w_byte(w, 0x31);
	return rc < 0 ? rc : rk_codec__put_uint(w, rk_codec__f64_to_bits(d), 8);
}

int rk_codec__get_ob_f64(double *out, const uint8_t *p, size_t n, uint8_t mask)
{
	if (n < 9)
		return rk__err(RK_ECORRUPT, "OrderedBytes float64 truncated: %zu of 9 bytes", n);
	if ((uint8_t)(p[0] ^ mask) != 0x31)
		return rk__err(RK_ECORRUPT, "OrderedBytes float64 header 0x%02x, expected 0x31",
		               (uint8_t)(p[0] ^ mask));
	return rk_codec__get_f64(out, p + 1, mask);
}

/* ---- Phoenix VARCHAR ---- */

int rk_codec__put_phx_str(rk_wbuf *w, const uint8_t *s, size_t n, int desc, int last)
{
	if (memchr(s, 0, n))
		return rk__err(RK_EINVALID, "a Phoenix VARCHAR key field cannot contain a 0x00 byte");
	size_t from = w->len;
	int rc = rk_w_put(w, s, n);
	if (rc < 0)
		return rc;
	if (desc) {
		rk_codec__invert(w, from);
		return rk_w_byte(w, 0xff);
	}
	return last ? 0 : rk_w_byte(w, 0x00);
}

int rk_codec__get_phx_str(uint8_t *out, size_t *outlen, size_t *used, const uint8_t *p, size_t n,
                          int desc)
{
	uint8_t sep = desc ? 0xff : 0x00, mask = desc ? 0xff : 0x00;
	size_t i = 0;
	while (i < n && p[i] != sep) {
		out[i] = p[i] ^ mask;
		i++;
	}
	if (i == n && desc)
		return rk__err(RK_ECORRUPT, "descending Phoenix VARCHAR has no 0xff separator");
	*outlen = i;
	*used = i < n ? i + 1 : i;
	return 0;
}

/* ---- plain text numbers ---- */

/* Decimal digits by hand, two at a time: snprintf costs ~800 instructions a
 * number, which was 4x the rest of a text composite key. */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

int rk_codec__put_text_u(rk_wbuf *w, uint64_t v)
{
	char b[24];
	char *p = b + sizeof b;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, digit_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return rk_w_put(w, p, (size_t)(b + sizeof b - p));
}

int rk_codec__put_text_i(rk_wbuf *w, int64_t v)
{
	if (v >= 0)
		return rk_codec__put_text_u(w, (uint64_t)v);
	int rc = rk_w_byte(w, '-');
	return rc < 0 ? rc : rk_codec__put_text_u(w, 0 - (uint64_t)v);
}

int rk_codec__put_text_f(rk_wbuf *w, double d)
{
	char b[40];
	/* every NaN is "nan", as f64() has one NaN: printf writes "-nan" for a
	   NaN with its sign bit set, a second key for the same value */
	if (isnan(d))
		return rk_w_put(w, "nan", 3);
	int n = snprintf(b, sizeof b, "%.17g", d);
	return rk_w_put(w, b, (size_t)n);
}
