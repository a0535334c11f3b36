/*
 * Encoding records into row keys and decoding row keys back into fields,
 * under a parsed schema (schema_int.h).
 *
 * The idea: encoding walks the key template once, writing each part into a
 * caller-owned buffer; hashes and hex encode their sub-template into a
 * per-depth scratch buffer first. Decoding walks the same template over the
 * key bytes, recovering every field it can, and then verifies the whole key by
 * encoding the recovered fields again and comparing bytes: that one check
 * covers hash prefixes, buckets, Phoenix salts and lossy parts alike.
 *
 * No allocation per key: all scratch lives in the rk_encoder.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/codec.h"
#include "key/encode_int.h"
#include "key/error.h"
#include "key/hash.h"
#include "key/schema_int.h"

struct rk_encoder {
	const rk_schema *s;
	uint64_t rng;
	uint64_t rr;
	int forced_salt; /* >= 0: use this salt instead of drawing one (decode verification) */
	uint8_t *sub[RK_MAX_DEPTH + 2];
	uint8_t *arena; /* transformed values (reversed strings, reversed numbers) */
	size_t arena_len, arena_cap;
	uint8_t *dec; /* decoded strings */
	size_t dec_len, dec_cap;
	uint8_t *verify;
	size_t *off; /* decode: where each top-level part starts in the key */
	char hex2[2][512]; /* byte -> two hex digits, lower and upper case */
};

static const char hexdig[2][17] = {"0123456789abcdef", "0123456789ABCDEF"};

int rk_encoder_new(rk_encoder **out, const rk_schema *s, uint64_t seed)
{
	rk_encoder *e = calloc(1, sizeof *e);
	if (!e)
		return rk__err(RK_ENOMEM, "out of memory allocating an encoder");
	e->s = s;
	e->rng = seed ? seed : 0x2545f4914f6cdd1dULL;
	e->forced_salt = -1;
	for (int u = 0; u < 2; u++)
		for (int b = 0; b < 256; b++) {
			e->hex2[u][2 * b] = hexdig[u][b >> 4];
			e->hex2[u][2 * b + 1] = hexdig[u][b & 15];
		}
	for (int d = 1; d <= s->depth && d <= RK_MAX_DEPTH + 1; d++)
		if (!(e->sub[d] = malloc(RK_SUB_MAX)))
			goto nomem;
	e->arena_cap = 2 * RK_SUB_MAX;
	e->dec_cap = 2 * s->max_key_len + 16; /* a reversed field needs two copies */
	if (!(e->arena = malloc(e->arena_cap)) || !(e->dec = malloc(e->dec_cap)) ||
	    !(e->verify = malloc(s->max_key_len)) || !(e->off = malloc(s->nparts * sizeof *e->off)))
		goto nomem;
	*out = e;
	return 0;
nomem:
	rk_encoder_free(e);
	return rk__err(RK_ENOMEM, "out of memory allocating an encoder");
}

void rk_encoder_free(rk_encoder *e)
{
	if (!e)
		return;
	for (int d = 0; d < RK_MAX_DEPTH + 2; d++)
		free(e->sub[d]);
	free(e->arena);
	free(e->dec);
	free(e->verify);
	free(e->off);
	free(e);
}

/* ---- value expressions ---- */

/* A typed intermediate value: t is U64 (v.u), I64 (v.i), F64 or STR/BYTES. */
typedef struct {
	rk_type t;
	rk_value v;
} tval;

static uint8_t *arena_alloc(rk_encoder *e, size_t n)
{
	if (n > e->arena_cap - e->arena_len) {
		rk__err(RK_ETOOLONG, "a value of %zu bytes is over the encoder's %zu-byte scratch", n, e->arena_cap);
		return NULL;
	}
	uint8_t *p = e->arena + e->arena_len;
	e->arena_len += n;
	return p;
}

static void reverse_bytes(uint8_t *dst, const uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = src[n - 1 - i];
}

/* "a.b.c" -> "c.b.a" (an involution) */
static void reverse_labels(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t o = 0, end = n;
	for (size_t i = n; i-- > 0;) {
		if (src[i] == '.') {
			memcpy(dst + o, src + i + 1, end - i - 1);
			o += end - i - 1;
			dst[o++] = '.';
			end = i;
		}
	}
	memcpy(dst + o, src, end);
}

static int as_signed(int64_t *out, const tval *v, const char *what)
{
	if (v->t == RK_T_U64) {
		if (v->v.v.u > (uint64_t)INT64_MAX)
			return rk__err(RK_EINVALID, "%s: %llu is over the signed 64-bit range", what,
			               (unsigned long long)v->v.v.u);
		*out = (int64_t)v->v.v.u;
	} else {
		*out = v->v.v.i;
	}
	return 0;
}

static int as_unsigned(uint64_t *out, const tval *v, const char *what)
{
	if (v->t == RK_T_I64) {
		if (v->v.v.i < 0)
			return rk__err(RK_EINVALID, "%s: %lld is negative; this encoding holds only values >= 0", what,
			               (long long)v->v.v.i);
		*out = (uint64_t)v->v.v.i;
	} else {
		*out = v->v.v.u;
	}
	return 0;
}

static int eval(tval *out, rk_encoder *e, const rk_part *p, const rk_value *fields)
{
	const rk_schema *s = e->s;
	const rk_value *f = &fields[p->field];
	rk_type ft = s->ftype[p->field];
	const char *fname = s->fname[p->field];
	if (!f->present)
		return rk__err(RK_EINVALID, "field '%s' has no value and the key needs it", fname);
	tval in;
	in.v = *f;
	in.t = rk_type__is_signed(ft) ? RK_T_I64 : rk_type__is_int(ft) ? RK_T_U64 : ft;
	switch (p->vop) {
	case V_FIELD:
		*out = in;
		return 0;
	case V_RTS: {
		uint64_t ts = 0;
		if (as_unsigned(&ts, &in, fname) < 0)
			return rk__err_wrap(RK_EINVALID, "rts(%s)", fname);
		if (ts > p->vmax)
			return rk__err(RK_EINVALID, "rts(%s): timestamp %llu is over the maximum %llu", fname,
			               (unsigned long long)ts, (unsigned long long)p->vmax);
		out->t = RK_T_U64;
		out->v.present = 1;
		out->v.v.u = p->vmax - ts;
		return 0;
	}
	case V_TBUCKET:
		*out = in;
		if (in.t == RK_T_I64) {
			int64_t m = in.v.v.i % p->varg;
			if (m < 0)
				m += p->varg;
			out->v.v.i = in.v.v.i - m;
		} else {
			out->v.v.u = in.v.v.u - in.v.v.u % (uint64_t)p->varg;
		}
		return 0;
	case V_REVERSE:
	case V_REVLABELS: {
		uint8_t *d = arena_alloc(e, in.v.v.s.len);
		if (!d)
			return RK_ETOOLONG;
		if (p->vop == V_REVERSE)
			reverse_bytes(d, in.v.v.s.ptr, in.v.v.s.len);
		else
			reverse_labels(d, in.v.v.s.ptr, in.v.v.s.len);
		*out = in;
		out->t = RK_T_STR;
		out->v.v.s.ptr = d;
		return 0;
	}
	case V_REVNUM: {
		uint64_t u = 0;
		char digits[24];
		if (as_unsigned(&u, &in, fname) < 0)
			return rk__err_wrap(RK_EINVALID, "reverse_num(%s)", fname);
		int n = snprintf(digits, sizeof digits, "%0*llu", (int)p->varg, (unsigned long long)u);
		if (n > p->varg)
			return rk__err(RK_EINVALID, "reverse_num(%s, %lld): %llu has more than %lld digits", fname,
			               (long long)p->varg, (unsigned long long)u, (long long)p->varg);
		uint8_t *d = arena_alloc(e, (size_t)n);
		if (!d)
			return RK_ETOOLONG;
		reverse_bytes(d, (const uint8_t *)digits, (size_t)n);
		out->t = RK_T_STR;
		out->v.present = 1;
		out->v.v.s.ptr = d;
		out->v.v.s.len = (size_t)n;
		return 0;
	}
	}
	return rk__err(RK_EINVALID, "bad value expression");
}

/* ---- encoding ---- */

static int put_int_checked(rk_wbuf *w, const tval *v, int width, int is_signed, const char *fname)
{
	if (is_signed) {
		int64_t x = 0;
		if (as_signed(&x, v, fname) < 0)
			return RK_EINVALID;
		if (width < 8 && (x < -(1LL << (width * 8 - 1)) || x >= (1LL << (width * 8 - 1))))
			return rk__err(RK_EINVALID, "field '%s': %lld does not fit in i%d", fname, (long long)x, width * 8);
		return rk_codec__put_int(w, x, width);
	}
	uint64_t x = 0;
	if (as_unsigned(&x, v, fname) < 0)
		return RK_EINVALID;
	if (width < 8 && x >> (width * 8))
		return rk__err(RK_EINVALID, "field '%s': %llu does not fit in u%d", fname, (unsigned long long)x, width * 8);
	return rk_codec__put_uint(w, x, width);
}

static int encode_val(rk_wbuf *w, const rk_part *p, const tval *v, const char *fname)
{
	const uint8_t *sp = v->v.v.s.ptr;
	size_t sn = v->v.v.s.len;
	int is_str = v->t == RK_T_STR || v->t == RK_T_BYTES;
	switch (p->enc) {
	case E_TEXT:
		if (is_str)
			return rk_w_put(w, sp, sn);
		if (v->t == RK_T_F64)
			return rk_codec__put_text_f(w, v->v.v.f);
		return v->t == RK_T_I64 ? rk_codec__put_text_i(w, v->v.v.i) : rk_codec__put_text_u(w, v->v.v.u);
	case E_UINT: return put_int_checked(w, v, p->width, 0, fname);
	case E_INT: return put_int_checked(w, v, p->width, 1, fname);
	case E_F64: return rk_codec__put_uint(w, rk_codec__f64_to_bits(v->v.v.f), 8);
	case E_DEC: {
		uint64_t x = 0;
		if (as_unsigned(&x, v, fname) < 0)
			return RK_EINVALID;
		int rc = rk_codec__put_dec(w, x, p->width);
		return rc == RK_EINVALID ? rk__err_wrap(rc, "field '%s'", fname) : rc;
	}
	case E_ESC: return rk_codec__put_esc(w, sp, sn);
	case E_BYTES: return rk_w_put(w, sp, sn);
	case E_OC:
		if (is_str)
			return rk_codec__put_oc_str(w, sp, sn);
		if (v->t == RK_T_I64)
			return rk_codec__put_oc_int(w, v->v.v.i);
		return rk_codec__put_oc_uint(w, v->v.v.u);
	case E_OB:
		if (v->t == RK_T_F64)
			return rk_codec__put_ob_f64(w, v->v.v.f);
		{
			int64_t x = 0;
			if (as_signed(&x, v, fname) < 0)
				return RK_EINVALID;
			if (p->width < 8 && (x < -(1LL << (p->width * 8 - 1)) || x >= (1LL << (p->width * 8 - 1))))
				return rk__err(RK_EINVALID, "field '%s': %lld does not fit in OrderedBytes int%d", fname,
				               (long long)x, p->width * 8);
			return rk_codec__put_ob_int(w, x, p->width);
		}
	case E_PHX:
		if (is_str) {
			int rc = rk_codec__put_phx_str(w, sp, sn, p->desc, p->last);
			return rc == RK_EINVALID ? rk__err_wrap(rc, "field '%s'", fname) : rc;
		}
		return put_int_checked(w, v, p->width, v->t == RK_T_I64, fname);
	}
	return rk__err(RK_EINVALID, "bad encoding");
}

/* The hot path (rk_part.fast, chosen at parse time): a plain field in a
 * common encoding, straight from the caller's value. Returns 1 when the part
 * needs the general path (a missing value, a value out of the width's range:
 * the general path reports those). */
static inline int put_field(rk_wbuf *w, const rk_part *p, const rk_value *f)
{
	if (!f->present)
		return 1;
	switch (p->fast) {
	case FAST_TEXT_STR:
	{
		size_t n = f->v.s.len;
		if (n > w->cap - w->len)
			return 1;
		/* short strings: no memcpy call; locals, or every store reloads w */
		uint8_t *dst = w->p + w->len;
		const uint8_t *src = f->v.s.ptr;
		if (n > 32)
			memcpy(dst, src, n);
		else
			for (size_t i = 0; i < n; i++)
				dst[i] = src[i];
		w->len += n;
		return 0;
	}
	case FAST_TEXT_U:
		return rk_codec__put_text_u(w, f->v.u);
	case FAST_TEXT_I:
		return rk_codec__put_text_i(w, f->v.i);
	case FAST_UINT:
		if (p->width < 8 && f->v.u >> (p->width * 8))
			return 1;
		return rk_codec__put_uint(w, f->v.u, p->width);
	case FAST_INT:
		if (p->width < 8 && (f->v.i < -(1LL << (p->width * 8 - 1)) || f->v.i >= (1LL << (p->width * 8 - 1))))
			return 1;
		return rk_codec__put_int(w, f->v.i, p->width);
	case FAST_ESC:
		return rk_codec__put_esc(w, f->v.s.ptr, f->v.s.len);
	default:
		return 1;
	}
}

/* Does `lit` occur in (part bytes ++ lit) before the part's end? Then the
 * decoder would cut the field short: the value contains its own separator. */
static int lit_inside(const uint8_t *part, size_t n, const uint8_t *lit, size_t ln)
{
	if (ln == 1 && n < 32) { /* the common case: a one-byte separator after a short value */
		for (size_t i = 0; i < n; i++)
			if (part[i] == lit[0])
				return 1;
		return 0;
	}
	const uint8_t *at = part, *end = part + n;
	while (at < end && (at = memchr(at, lit[0], (size_t)(end - at))) != NULL) {
		size_t j = (size_t)(at - part), k = 1;
		while (k < ln) {
			uint8_t c = j + k < n ? part[j + k] : lit[j + k - n];
			if (c != lit[k])
				break;
			k++;
		}
		if (k == ln)
			return 1;
		at++;
	}
	return 0;
}

static int put_bucket(rk_wbuf *w, const rk_part *p, unsigned b)
{
	switch (p->form) {
	case F_DEC: return rk_codec__put_dec(w, b, (int)p->fixed);
	case F_ALPHA: return rk_w_byte(w, (uint8_t)p->alpha[b]);
	default: return rk_w_byte(w, (uint8_t)b);
	}
}

static int enc_template(rk_encoder *e, rk_wbuf *w, const rk_part *parts, size_t n, const rk_value *fields,
                        int depth)
{
	int rc = 0;
	long psalt_at = -1;
	unsigned psalt_n = 0;
	for (size_t k = 0; k < n; k++) {
		const rk_part *p = &parts[k];
		size_t start = w->len;
		switch (p->kind) {
		case P_LIT:
			rc = p->litlen == 1 ? rk_w_byte(w, p->lit[0]) : rk_w_put(w, p->lit, p->litlen);
			break;
		case P_VAL: {
			rc = p->fast ? put_field(w, p, &fields[p->field]) : 1;
			if (rc == 1) {
				tval v = {0};
				if ((rc = eval(&v, e, p, fields)) < 0 || (rc = encode_val(w, p, &v, e->s->fname[p->field])) < 0)
					return rc;
			} else if (rc < 0) {
				return rc == RK_EINVALID ? rk__err_wrap(rc, "field '%s'", e->s->fname[p->field]) : rc;
			}
			if (!p->post)
				break;
			if (p->post & POST_INVERT)
				rk_codec__invert(w, start);
			if ((p->post & POST_SEPCHECK) && lit_inside(w->p + start, w->len - start, parts[k + 1].lit, parts[k + 1].litlen)) {
				const char *fname = e->s->fname[p->field];
				char b1[160], b2[40];
				return rk__err(RK_EINVALID, "field '%s' value '%s' contains the separator \"%s\" that follows it",
				               fname, rk__err_bytes(b1, sizeof b1, w->p + start, w->len - start),
				               rk__err_bytes(b2, sizeof b2, parts[k + 1].lit, parts[k + 1].litlen));
			}
			break;
		}
		case P_HASH:
		case P_HEX:
		case P_SLICE: {
			rk_wbuf sw = {e->sub[depth + 1], 0, RK_SUB_MAX};
			if ((rc = enc_template(e, &sw, p->sub, p->nsub, fields, depth + 1)) < 0)
				return rc;
			if (p->kind == P_HASH) {
				uint8_t d[RK_HASH_MAX_SIZE];
				if ((rc = rk_hash__digest(d, p->alg, sw.p, sw.len)) < 0)
					return rc;
				rc = rk_w_put(w, d, rk_hash__size(p->alg));
			} else if (p->kind == P_HEX) {
				if (2 * sw.len > w->cap - w->len)
					return rk_wbuf__overflow(w, 2 * sw.len);
				/* a local cursor: stores through w->p would make the compiler reload w->len */
				uint8_t *o = w->p + w->len;
				const char *pairs = e->hex2[p->upper];
				for (size_t i = 0; i < sw.len; i++)
					memcpy(o + 2 * i, pairs + 2 * sw.p[i], 2);
				w->len += 2 * sw.len;
			} else {
				if ((size_t)p->sb > sw.len)
					return rk__err(RK_EINVALID, "slice [%ld:%ld] of a %zu-byte value: the value is too short",
					               p->sa, p->sb, sw.len);
				rc = rk_w_put(w, sw.p + p->sa, (size_t)(p->sb - p->sa));
			}
			break;
		}
		case P_BUCKET: {
			const rk_part *hp = &p->sub[0];
			rk_wbuf sw = {e->sub[depth + 1], 0, RK_SUB_MAX};
			if ((rc = enc_template(e, &sw, hp->sub, hp->nsub, fields, depth + 1)) < 0)
				return rc;
			rc = put_bucket(w, p, rk_hash__bucket_of(hp->alg, sw.p, sw.len, p->n));
			break;
		}
		case P_SALT: {
			unsigned b;
			if (e->forced_salt >= 0) {
				b = (unsigned)e->forced_salt;
			} else if (p->salt == SALT_RANDOM) {
				e->rng ^= e->rng << 13;
				e->rng ^= e->rng >> 7;
				e->rng ^= e->rng << 17;
				b = (unsigned)(e->rng % p->n);
			} else {
				b = (unsigned)(e->rr++ % p->n);
			}
			rc = put_bucket(w, p, b);
			break;
		}
		case P_PSALT:
			psalt_at = (long)w->len;
			psalt_n = p->n;
			rc = rk_w_byte(w, 0);
			break;
		}
		if (rc < 0)
			return rc;
	}
	if (psalt_at >= 0) {
		const uint8_t *rest = w->p + psalt_at + 1;
		int32_t h = rk_hash__phoenix(rest, w->len - (size_t)psalt_at - 1);
		int32_t m = h % (int32_t)psalt_n;
		w->p[psalt_at] = (uint8_t)(m < 0 ? -m : m);
	}
	return 0;
}

int rk_key_encode(uint8_t *out, size_t cap, size_t *outlen, rk_encoder *e, const rk_value *fields)
{
	size_t limit = cap < e->s->max_key_len ? cap : e->s->max_key_len;
	rk_wbuf w = {out, 0, limit};
	e->arena_len = 0;
	int rc = enc_template(e, &w, e->s->parts, e->s->nparts, fields, 0);
	if (rc < 0)
		return rc;
	*outlen = w.len;
	return 0;
}

int rk_key__encode_part(rk_encoder *e, rk_wbuf *w, const rk_part *p, const rk_value *fields)
{
	e->arena_len = 0;
	return enc_template(e, w, p, 1, fields, 0);
}

int rk_key__encode_salted(uint8_t *out, size_t cap, size_t *outlen, rk_encoder *e, const rk_value *fields,
                          int salt)
{
	e->forced_salt = salt;
	int rc = rk_key_encode(out, cap, outlen, e, fields);
	e->forced_salt = -1;
	return rc;
}

/* ---- decoding ---- */

static int corrupt_at(size_t off, const char *fmt, const char *what)
{
	return rk__err(RK_ECORRUPT, "key byte %zu: %s%s", off, fmt, what ? what : "");
}

static uint8_t *dec_alloc(rk_encoder *e, size_t n)
{
	if (n > e->dec_cap - e->dec_len)
		return NULL;
	uint8_t *p = e->dec + e->dec_len;
	e->dec_len += n;
	return p;
}

static int read_bucket(unsigned *out, const rk_part *p, const uint8_t *b, size_t off)
{
	switch (p->form) {
	case F_DEC: {
		uint64_t v;
		if (rk_codec__get_dec(&v, b, (int)p->fixed, 0) < 0 || v >= p->n)
			return corrupt_at(off, "bucket number is not a decimal below the bucket count", NULL);
		*out = (unsigned)v;
		return 0;
	}
	case F_ALPHA: {
		const char *c = memchr(p->alpha, b[0], p->n);
		if (!c)
			return corrupt_at(off, "bucket letter is not in the alphabet", NULL);
		*out = (unsigned)(c - p->alpha);
		return 0;
	}
	default:
		if (b[0] >= p->n)
			return corrupt_at(off, "bucket byte is not below the bucket count", NULL);
		*out = b[0];
		return 0;
	}
}

/* Converts an intermediate value into field type ft. */
static int to_field(rk_value *out, rk_type ft, const tval *v, size_t off, const char *fname)
{
	*out = v->v;
	out->present = 1;
	if (ft == RK_T_STR || ft == RK_T_BYTES || ft == RK_T_F64)
		return 0;
	int w = rk_type__width(ft);
	if (rk_type__is_signed(ft)) {
		int64_t x = 0;
		if (v->t == RK_T_U64 && v->v.v.u > (uint64_t)INT64_MAX)
			goto range;
		x = v->t == RK_T_U64 ? (int64_t)v->v.v.u : v->v.v.i;
		if (w < 8 && (x < -(1LL << (w * 8 - 1)) || x >= (1LL << (w * 8 - 1))))
			goto range;
		out->v.i = x;
		return 0;
	}
	uint64_t x = 0;
	if (v->t == RK_T_I64 && v->v.v.i < 0)
		goto range;
	x = v->t == RK_T_I64 ? (uint64_t)v->v.v.i : v->v.v.u;
	if (w < 8 && x >> (w * 8))
		goto range;
	out->v.u = x;
	return 0;
range:
	return rk__err(RK_ECORRUPT, "key byte %zu: field '%s' decodes to a value outside %s", off, fname,
	               rk_type__name(ft));
}

/* Decodes one P_VAL part at key[pos..end) (end: where this part must stop at
 * the latest); *used = bytes consumed. Produces the encoded value in *v. */
static int decode_val(tval *v, size_t *used, rk_encoder *e, const rk_part *p, const uint8_t *b, size_t n,
                      size_t off)
{
	uint8_t mask = p->desc ? 0xff : 0x00;
	int rc;
	memset(v, 0, sizeof *v);
	v->v.present = 1;
	rk_type vt = p->vtype;
	int is_str = vt == RK_T_STR || vt == RK_T_BYTES;
	if (p->fixed >= 0 && (size_t)p->fixed > n)
		return corrupt_at(off, "key ends inside a fixed-width field", NULL);
	switch (p->enc) {
	case E_TEXT: {
		size_t len = n;
		if (p->fixed >= 0)
			len = (size_t)p->fixed;
		*used = len;
		if (is_str) {
			uint8_t *d = dec_alloc(e, len);
			if (!d && len)
				return corrupt_at(off, "decoded text larger than the key", NULL);
			if (len)
				memcpy(d, b, len);
			v->t = RK_T_STR;
			v->v.v.s.ptr = d;
			v->v.v.s.len = len;
			return 0;
		}
		rk_value pv;
		rk_type pt = rk_type__is_signed(vt) ? RK_T_I64 : rk_type__is_int(vt) ? RK_T_U64 : RK_T_F64;
		if (rk_value_parse(&pv, pt, (const char *)b, len) < 0)
			return rk__err(RK_ECORRUPT, "key byte %zu: %s", off, rk_error_last());
		v->t = pt;
		v->v = pv;
		return 0;
	}
	case E_UINT:
		v->t = RK_T_U64;
		v->v.v.u = rk_codec__get_uint(b, p->width, mask);
		*used = (size_t)p->width;
		return 0;
	case E_INT:
		v->t = RK_T_I64;
		v->v.v.i = rk_codec__get_int(b, p->width, mask);
		*used = (size_t)p->width;
		return 0;
	case E_F64:
		v->t = RK_T_F64;
		v->v.v.f = rk_codec__f64_from_bits(rk_codec__get_uint(b, 8, mask));
		*used = 8;
		return 0;
	case E_DEC:
		v->t = RK_T_U64;
		if ((rc = rk_codec__get_dec(&v->v.v.u, b, p->width, mask)) < 0)
			return rk__err_wrap(rc, "key byte %zu", off);
		*used = (size_t)p->width;
		return 0;
	case E_ESC:
	case E_OC:
		if (is_str) {
			uint8_t *d = e->dec + e->dec_len;
			size_t outlen;
			rc = p->enc == E_ESC ? rk_codec__get_esc(d, &outlen, used, b, n, mask)
			                     : rk_codec__get_oc_str(d, &outlen, used, b, n, mask);
			if (rc < 0)
				return rk__err_wrap(rc, "key byte %zu", off);
			e->dec_len += outlen;
			v->t = RK_T_STR;
			v->v.v.s.ptr = d;
			v->v.v.s.len = outlen;
			return 0;
		}
		if (rk_type__is_signed(vt)) {
			v->t = RK_T_I64;
			rc = rk_codec__get_oc_int(&v->v.v.i, used, b, n, mask);
		} else {
			v->t = RK_T_U64;
			rc = rk_codec__get_oc_uint(&v->v.v.u, used, b, n, mask);
		}
		return rc < 0 ? rk__err_wrap(rc, "key byte %zu", off) : 0;
	case E_BYTES: {
		uint8_t *d = dec_alloc(e, n);
		if (n)
			memcpy(d, b, n);
		v->t = RK_T_BYTES;
		v->v.v.s.ptr = d;
		v->v.v.s.len = n;
		*used = n;
		return 0;
	}
	case E_OB:
		*used = (size_t)p->width + 1;
		if (vt == RK_T_F64) {
			v->t = RK_T_F64;
			rc = rk_codec__get_ob_f64(&v->v.v.f, b, n, mask);
		} else {
			v->t = RK_T_I64;
			rc = rk_codec__get_ob_int(&v->v.v.i, b, n, p->width, mask);
		}
		return rc < 0 ? rk__err_wrap(rc, "key byte %zu", off) : 0;
	case E_PHX:
		if (is_str) {
			uint8_t *d = e->dec + e->dec_len;
			size_t outlen;
			if ((rc = rk_codec__get_phx_str(d, &outlen, used, b, n, p->desc)) < 0)
				return rk__err_wrap(rc, "key byte %zu", off);
			e->dec_len += outlen;
			v->t = RK_T_STR;
			v->v.v.s.ptr = d;
			v->v.v.s.len = outlen;
			return 0;
		}
		*used = (size_t)p->width;
		if (rk_type__is_signed(vt)) {
			v->t = RK_T_I64;
			v->v.v.i = rk_codec__get_int(b, p->width, mask);
		} else {
			v->t = RK_T_U64;
			v->v.v.u = rk_codec__get_uint(b, p->width, mask);
		}
		return 0;
	}
	return corrupt_at(off, "bad encoding", NULL);
}

static int values_equal(rk_type t, const rk_value *a, const rk_value *b)
{
	if (t == RK_T_STR || t == RK_T_BYTES)
		return a->v.s.len == b->v.s.len && !memcmp(a->v.s.ptr, b->v.s.ptr, a->v.s.len);
	if (t == RK_T_F64)
		return rk_codec__f64_to_bits(a->v.f) == rk_codec__f64_to_bits(b->v.f);
	return a->v.u == b->v.u;
}

/* Inverts the value expression: from the decoded value back to the field. */
static int invert(rk_value *out, rk_encoder *e, const rk_part *p, const tval *v, size_t off)
{
	const char *fname = e->s->fname[p->field];
	rk_type ft = e->s->ftype[p->field];
	tval x = *v;
	switch (p->vop) {
	case V_FIELD:
		break;
	case V_TBUCKET:
		return 0; /* lossy: the field is not recovered here */
	case V_RTS: {
		/* a signed encoding (i64(rts(ts))) decodes the same value as I64 */
		uint64_t r = v->v.v.u;
		if (v->t == RK_T_I64) {
			if (v->v.v.i < 0)
				return corrupt_at(off, "reverse timestamp is negative", NULL);
			r = (uint64_t)v->v.v.i;
		} else if (v->t != RK_T_U64) {
			return corrupt_at(off, "reverse timestamp is not an integer", NULL);
		}
		if (r > p->vmax)
			return corrupt_at(off, "reverse timestamp is over its maximum", NULL);
		x.t = RK_T_U64;
		x.v.v.u = p->vmax - r;
		break;
	}
	case V_REVERSE:
	case V_REVLABELS: {
		uint8_t *d = dec_alloc(e, v->v.v.s.len);
		if (!d && v->v.v.s.len)
			return corrupt_at(off, "decoded text larger than the key", NULL);
		if (p->vop == V_REVERSE)
			reverse_bytes(d, v->v.v.s.ptr, v->v.v.s.len);
		else
			reverse_labels(d, v->v.v.s.ptr, v->v.v.s.len);
		x.v.v.s.ptr = d;
		x.t = ft;
		break;
	}
	case V_REVNUM: {
		char digits[24];
		size_t n = v->v.v.s.len;
		if (n >= sizeof digits)
			return corrupt_at(off, "reversed number too long", NULL);
		reverse_bytes((uint8_t *)digits, v->v.v.s.ptr, n);
		uint64_t u = 0;
		if (rk_codec__get_dec(&u, (const uint8_t *)digits, (int)n, 0) < 0)
			return corrupt_at(off, "reversed number has a non-digit", NULL);
		x.t = RK_T_U64;
		x.v.v.u = u;
		break;
	}
	}
	rk_value fv;
	int rc = to_field(&fv, ft, &x, off, fname);
	if (rc < 0)
		return rc;
	if (out->present && !values_equal(ft, out, &fv))
		return rk__err(RK_ECORRUPT, "key byte %zu: field '%s' decodes to two different values", off, fname);
	*out = fv;
	return 0;
}

static const uint8_t *find_lit(const uint8_t *b, size_t n, const uint8_t *lit, size_t ln)
{
	if (ln > n)
		return NULL;
	for (size_t i = 0; i + ln <= n; i++)
		if (b[i] == lit[0] && !memcmp(b + i, lit, ln))
			return b + i;
	return NULL;
}

/* When the whole key cannot be re-derived (a field it only hashes), still
 * check every prefix part whose inputs were recovered. */
static int verify_parts(rk_encoder *e, const rk_value *out, uint64_t have, const uint8_t *key)
{
	const rk_schema *s = e->s;
	for (size_t k = 0; k < s->nparts; k++) {
		const rk_part *p = &s->parts[k];
		if (p->kind != P_HASH && p->kind != P_HEX && p->kind != P_SLICE && p->kind != P_BUCKET)
			continue;
		if ((rk_schema__fields_used(p, 1) & ~have) != 0)
			continue;
		rk_wbuf w = {e->verify, 0, s->max_key_len};
		e->arena_len = 0;
		if (enc_template(e, &w, p, 1, out, 0) < 0 || w.len != (size_t)p->fixed ||
		    memcmp(w.p, key + e->off[k], w.len))
			return rk__err(RK_ECORRUPT, "key byte %zu: the key does not match its design "
			                            "(its prefix is not what its fields produce)", e->off[k]);
	}
	return 0;
}

int rk_key_decode(rk_value *out, rk_encoder *e, const uint8_t *key, size_t len)
{
	const rk_schema *s = e->s;
	int rc;
	int salt = -1;
	char b1[160];
	memset(out, 0, s->nfields * sizeof *out);
	e->dec_len = 0;
	size_t pos = 0;
	if (len > s->max_key_len)
		return rk__err(RK_ECORRUPT, "key of %zu bytes is over the schema's max_key_len %zu", len, s->max_key_len);
	for (size_t k = 0; k < s->nparts; k++) {
		const rk_part *p = &s->parts[k];
		size_t rem = len - pos;
		const uint8_t *b = key + pos;
		e->off[k] = pos;
		if (p->fixed >= 0 && (size_t)p->fixed > rem)
			return rk__err(RK_ECORRUPT, "key byte %zu: key ends early (part %zu needs %ld bytes, %zu left)", pos,
			               k + 1, p->fixed, rem);
		switch (p->kind) {
		case P_LIT:
			if (memcmp(b, p->lit, p->litlen))
				return rk__err(RK_ECORRUPT, "key byte %zu: expected the literal \"%s\"", pos,
				               rk__err_bytes(b1, sizeof b1, p->lit, p->litlen));
			pos += p->litlen;
			break;
		case P_SALT:
		case P_BUCKET: {
			unsigned v;
			if ((rc = read_bucket(&v, p, b, pos)) < 0)
				return rc;
			if (p->kind == P_SALT)
				salt = (int)v;
			pos += (size_t)p->fixed;
			break;
		}
		case P_HASH:
		case P_HEX:
		case P_SLICE:
		case P_PSALT:
			pos += (size_t)p->fixed; /* checked by re-encoding below */
			break;
		case P_VAL: {
			/* how far may this part reach? */
			size_t n = rem;
			if (p->enc == E_TEXT && p->fixed < 0) {
				if (p->next_is_lit) {
					const rk_part *nl = &s->parts[k + 1];
					const uint8_t *at = find_lit(b, rem, nl->lit, nl->litlen);
					if (!at)
						return rk__err(RK_ECORRUPT, "key byte %zu: no separator \"%s\" after field '%s'", pos,
						               rk__err_bytes(b1, sizeof b1, nl->lit, nl->litlen), s->fname[p->field]);
					n = (size_t)(at - b);
				} else if (p->tail_fixed > 0) {
					if ((size_t)p->tail_fixed > rem)
						return rk__err(RK_ECORRUPT, "key byte %zu: key too short for its fixed-width tail", pos);
					n = rem - (size_t)p->tail_fixed;
				}
			}
			tval v = {0};
			size_t used = 0;
			if ((rc = decode_val(&v, &used, e, p, b, n, pos)) < 0 ||
			    (rc = invert(&out[p->field], e, p, &v, pos)) < 0)
				return rc;
			pos += used;
			break;
		}
		}
	}
	if (pos != len)
		return rk__err(RK_ECORRUPT, "key byte %zu: %zu unexpected bytes after the last part", pos, len - pos);

	/* Verify: encode the recovered fields again and compare. */
	uint64_t have = 0;
	for (size_t i = 0; i < s->nfields; i++)
		if (out[i].present)
			have |= 1ULL << i;
	if ((s->info.point_get_mask & ~have) != 0)
		return verify_parts(e, out, have, key); /* some field is only hashed or bucketed */
	size_t vlen;
	e->forced_salt = salt;
	rc = rk_key_encode(e->verify, s->max_key_len, &vlen, e, out);
	e->forced_salt = -1;
	if (rc < 0)
		return rk__err(RK_ECORRUPT, "key does not re-encode: %s", rk_error_last());
	if (vlen != len || memcmp(e->verify, key, len)) {
		size_t d = 0;
		while (d < len && d < vlen && e->verify[d] == key[d])
			d++;
		return rk__err(RK_ECORRUPT, "key byte %zu: the key does not match its design "
		                            "(a hash, bucket or salt prefix that its fields do not produce)", d);
	}
	return 0;
}

int rk_key_bucket(const rk_encoder *e, const uint8_t *key, size_t len)
{
	size_t pos = 0;
	for (size_t k = 0; k < e->s->nparts; k++) {
		const rk_part *p = &e->s->parts[k];
		if (p->fixed < 0)
			return -1;
		if ((size_t)p->fixed > len - pos)
			return rk__err(RK_ECORRUPT, "key of %zu bytes is shorter than its prefix", len);
		if (p->kind == P_PSALT) {
			if (key[pos] >= p->n)
				return rk__err(RK_ECORRUPT, "key byte %zu: salt byte %u is not below %u", pos, key[pos], p->n);
			return key[pos];
		}
		if (p->kind == P_SALT || p->kind == P_BUCKET) {
			unsigned v;
			int rc = read_bucket(&v, p, key + pos, pos);
			return rc < 0 ? rc : (int)v;
		}
		pos += (size_t)p->fixed;
	}
	return -1;
}
