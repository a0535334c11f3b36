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
#include "key/units.h"
#include "key/hash.h"
#include "key/schema_int.h"


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
	e->arena_cap = s->max_key_len > RK_SUB_MAX ? s->max_key_len : RK_SUB_MAX;
	e->dec_cap = 2 * s->max_key_len + 16; /* a reversed field needs two copies */
	if (!(e->dec = malloc(e->dec_cap)) ||
	    !(e->verify = malloc(s->max_key_len)) || !(e->off = malloc(s->nparts * sizeof *e->off)) ||
	    !(e->lfields = calloc(s->nfields + 1, sizeof *e->lfields)))
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
	free(e->lfields);
	free(e);
}

/* ---- value expressions ---- */

/* Room for one transformed value: it is written into the key (or a hash's
 * input) before the next value is computed, so each value starts the arena
 * afresh. The arena is as large as the key limit and a hash's input, so a
 * value that does not fit would not fit where it is written either: the
 * limit is the same for every key, not a sum over the values of one key. */
static int arena_alloc(rk_encoder *e, size_t n, uint8_t **out)
{
	if (n > e->arena_cap)
		return rk__err(RK_ETOOLONG, "a value of %zu bytes is over the encoder's %zu-byte scratch", n,
		               e->arena_cap);
	/* at its first use, like the nested levels' scratch */
	if (!e->arena && !(e->arena = malloc(e->arena_cap)))
		return rk__err(RK_ENOMEM, "out of memory encoding a key");
	*out = e->arena;
	return 0;
}

void rk_key__reverse_bytes(uint8_t *dst, const uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = src[n - 1 - i];
}

/* "a.b.c" -> "c.b.a" (an involution) */
void rk_key__reverse_labels(uint8_t *dst, const uint8_t *src, size_t n)
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
			if (in.v.v.i < INT64_MIN + m) /* the bucket would start below the i64 range */
				return rk__err(RK_EINVALID, "tbucket(%s, %lld): %lld has no bucket start within i64", fname,
				               (long long)p->varg, (long long)in.v.v.i);
			out->v.v.i = in.v.v.i - m;
		} else {
			out->v.v.u = in.v.v.u - in.v.v.u % (uint64_t)p->varg;
		}
		return 0;
	case V_REVERSE:
	case V_REVLABELS: {
		uint8_t *d;
		int rc = arena_alloc(e, in.v.v.s.len, &d);
		if (rc < 0)
			return rc;
		if (p->vop == V_REVERSE)
			rk_key__reverse_bytes(d, in.v.v.s.ptr, in.v.v.s.len);
		else
			rk_key__reverse_labels(d, in.v.v.s.ptr, in.v.v.s.len);
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
		uint8_t *d;
		int rc = arena_alloc(e, (size_t)n, &d);
		if (rc < 0)
			return rc;
		rk_key__reverse_bytes(d, (const uint8_t *)digits, (size_t)n);
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

/* Value part k: the field's fast encoding when it has one, else its value
 * expression evaluated and encoded; then inverted for a descending order,
 * and refused when it holds the separator that follows it. */
static int enc_value(rk_encoder *e, rk_wbuf *w, const rk_part *parts, size_t k, const rk_value *fields)
{
	const rk_part *p = &parts[k];
	size_t start = w->len;
	int rc = p->fast ? put_field(w, p, &fields[p->field]) : 1;
	if (rc == 1) {
		tval v = {0};
		if ((rc = eval(&v, e, p, fields)) < 0 || (rc = encode_val(w, p, &v, e->s->fname[p->field])) < 0)
			return rc;
	} else if (rc < 0) {
		return rc == RK_EINVALID ? rk__err_wrap(rc, "field '%s'", e->s->fname[p->field]) : rc;
	}
	if (!p->post)
		return 0;
	if (p->post & POST_INVERT)
		rk_codec__invert(w, start);
	if ((p->post & POST_SEPCHECK) && lit_inside(w->p + start, w->len - start, parts[k + 1].lit, parts[k + 1].litlen)) {
		const char *fname = e->s->fname[p->field];
		char b1[160], b2[40];
		return rk__err(RK_EINVALID, "field '%s' value '%s' contains the separator \"%s\" that follows it",
		               fname, rk__err_bytes(b1, sizeof b1, w->p + start, w->len - start),
		               rk__err_bytes(b2, sizeof b2, parts[k + 1].lit, parts[k + 1].litlen));
	}
	return 0;
}

/* The scratch buffer of nesting level d, allocated at its first use: an
 * encoder made for a few keys (the planner makes one per plan) does not pay
 * for 64 KiB per level it never fills. */
static int sub_buf(rk_encoder *e, int d, rk_wbuf *sw)
{
	if (!e->sub[d] && !(e->sub[d] = malloc(RK_SUB_MAX)))
		return rk__err(RK_ENOMEM, "out of memory encoding a key");
	*sw = (rk_wbuf){e->sub[d], 0, RK_SUB_MAX};
	return 0;
}

/* A part made from its sub-template's bytes (encoded into the next level's
 * scratch buffer): their hash, their hex, or a slice of them. */
static int enc_derived(rk_encoder *e, rk_wbuf *w, const rk_part *p, const rk_value *fields, int depth)
{
	rk_wbuf sw;
	int rc;
	if ((rc = sub_buf(e, depth + 1, &sw)) < 0)
		return rc;
	if ((rc = rk_key__enc_template(e, &sw, p->sub, p->nsub, fields, depth + 1)) < 0)
		return rc;
	if (p->kind == P_HASH) {
		uint8_t d[RK_HASH_MAX_SIZE];
		if ((rc = rk_hash__digest(d, p->alg, sw.p, sw.len)) < 0)
			return rc;
		return rk_w_put(w, d, rk_hash__size(p->alg));
	}
	if (p->kind == P_HEX) {
		if (2 * sw.len > w->cap - w->len)
			return rk_wbuf__overflow(w, 2 * sw.len);
		/* a local cursor: stores through w->p would make the compiler reload w->len */
		uint8_t *o = w->p + w->len;
		const char *pairs = e->hex2[p->upper];
		for (size_t i = 0; i < sw.len; i++)
			memcpy(o + 2 * i, pairs + 2 * sw.p[i], 2);
		w->len += 2 * sw.len;
		return 0;
	}
	if ((size_t)p->sb > sw.len)
		return rk__err(RK_EINVALID, "slice [%ld:%ld] of %s %zu-byte value: the value is too short",
		               p->sa, p->sb, rk__article(sw.len), sw.len);
	return rk_w_put(w, sw.p + p->sa, (size_t)(p->sb - p->sa));
}

/* The salt bucket: the one the key being checked has (forced_salt), a
 * random one, or the next in turn. */
static unsigned pick_salt(rk_encoder *e, const rk_part *p)
{
	if (e->forced_salt >= 0)
		return (unsigned)e->forced_salt;
	if (p->salt == SALT_RANDOM) {
		e->rng ^= e->rng << 13;
		e->rng ^= e->rng >> 7;
		e->rng ^= e->rng << 17;
		return (unsigned)(e->rng % p->n);
	}
	return (unsigned)(e->rr++ % p->n);
}

int rk_key__enc_template(rk_encoder *e, rk_wbuf *w, const rk_part *parts, size_t n, const rk_value *fields,
                         int depth)
{
	int rc = 0;
	long psalt_at = -1;
	unsigned psalt_n = 0;
	for (size_t k = 0; k < n; k++) {
		const rk_part *p = &parts[k];
		switch (p->kind) {
		case P_LIT:
			rc = p->litlen == 1 ? rk_w_byte(w, p->lit[0]) : rk_w_put(w, p->lit, p->litlen);
			break;
		case P_VAL:
			rc = enc_value(e, w, parts, k, fields);
			break;
		case P_HASH:
		case P_HEX:
		case P_SLICE:
			rc = enc_derived(e, w, p, fields, depth);
			break;
		case P_BUCKET: {
			const rk_part *hp = &p->sub[0];
			rk_wbuf sw;
			if ((rc = sub_buf(e, depth + 1, &sw)) < 0 ||
			    (rc = rk_key__enc_template(e, &sw, hp->sub, hp->nsub, fields, depth + 1)) < 0)
				return rc;
			rc = put_bucket(w, p, rk_hash__bucket_of(hp->alg, sw.p, sw.len, p->n));
			break;
		}
		case P_SALT:
			rc = put_bucket(w, p, pick_salt(e, p));
			break;
		case P_PSALT:
			psalt_at = (long)w->len;
			psalt_n = p->n;
			rc = rk_w_byte(w, 0);
			break;
		}
		if (rc < 0)
			return rc;
	}
	if (psalt_at >= 0)
		w->p[psalt_at] = (uint8_t)rk_hash__phoenix_salt(w->p + psalt_at + 1, w->len - (size_t)psalt_at - 1, psalt_n);
	return 0;
}

int rk_key_encode(uint8_t *out, size_t cap, size_t *outlen, rk_encoder *e, const rk_value *fields)
{
	size_t limit = cap < e->s->max_key_len ? cap : e->s->max_key_len;
	rk_wbuf w = {out, 0, limit};
	int rc = rk_key__enc_template(e, &w, e->s->parts, e->s->nparts, fields, 0);
	if (rc < 0)
		return rc;
	*outlen = w.len;
	return 0;
}

int rk_key__encode_part(rk_encoder *e, rk_wbuf *w, const rk_part *p, const rk_value *fields)
{
	return rk_key__enc_template(e, w, p, 1, fields, 0);
}

int rk_key__encode_salted(uint8_t *out, size_t cap, size_t *outlen, rk_encoder *e, const rk_value *fields,
                          int salt)
{
	e->forced_salt = salt;
	int rc = rk_key_encode(out, cap, outlen, e, fields);
	e->forced_salt = -1;
	return rc;
}
