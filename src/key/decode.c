/*
 * Decoding row keys back into fields under a parsed schema (the encoder's
 * state in encode_int.h): walk the template over the key bytes, recover
 * every field that can be read, then verify the whole key by encoding the
 * recovered fields again and comparing bytes (see encode.c's overview).
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
/* A text-form value: a string as it is, or a number in the one spelling
 * the encoder writes. */
static int decode_text(tval *v, size_t *used, rk_encoder *e, const rk_part *p, const uint8_t *b,
                       size_t n, size_t off)
{
	rk_type vt = p->vtype;
	int is_str = vt == RK_T_STR || vt == RK_T_BYTES;
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
	/* the encoder writes one spelling of a number: refuse the others
	   ("007", "-0", "1e0") even where the key is not re-encoded whole */
	uint8_t canon[48];
	rk_wbuf cw = {canon, 0, sizeof canon};
	if (pt == RK_T_I64)
		rk_codec__put_text_i(&cw, pv.v.i);
	else if (pt == RK_T_U64)
		rk_codec__put_text_u(&cw, pv.v.u);
	else
		rk_codec__put_text_f(&cw, pv.v.f);
	if (cw.len != len || memcmp(canon, b, len)) {
		char b1[160];
		return rk__err(RK_ECORRUPT, "key byte %zu: '%s' is not how the encoder writes that number", off,
		               rk__err_bytes(b1, sizeof b1, b, len));
	}
	v->t = pt;
	v->v = pv;
	return 0;
}

/* A string in a terminated encoding (esc, ordered, phoenix), unescaped
 * into the encoder's decode buffer. */
static int decode_terminated(tval *v, size_t *used, rk_encoder *e, const rk_part *p,
                             const uint8_t *b, size_t n, size_t off)
{
	uint8_t mask = p->desc ? 0xff : 0x00, *d = e->dec + e->dec_len;
	size_t outlen;
	int rc = p->enc == E_ESC  ? rk_codec__get_esc(d, &outlen, used, b, n, mask)
	         : p->enc == E_OC ? rk_codec__get_oc_str(d, &outlen, used, b, n, mask)
	                          : rk_codec__get_phx_str(d, &outlen, used, b, n, p->desc);
	if (rc < 0)
		return rk__err_wrap(rc, "key byte %zu", off);
	e->dec_len += outlen;
	v->t = RK_T_STR;
	v->v.v.s.ptr = d;
	v->v.v.s.len = outlen;
	return 0;
}

/* An integer in an order-preserving variable-length form (E_ESC, E_OC). */
static int decode_var_int(tval *v, size_t *used, const rk_part *p, const uint8_t *b, size_t n,
                          size_t off)
{
	uint8_t mask = p->desc ? 0xff : 0x00;
	int rc;
	if (rk_type__is_signed(p->vtype)) {
		v->t = RK_T_I64;
		rc = rk_codec__get_oc_int(&v->v.v.i, used, b, n, mask);
	} else {
		v->t = RK_T_U64;
		rc = rk_codec__get_oc_uint(&v->v.v.u, used, b, n, mask);
	}
	return rc < 0 ? rk__err_wrap(rc, "key byte %zu", off) : 0;
}

/* A number in OrderedBytes' fixed form: a header byte, then width bytes. */
static int decode_ob(tval *v, size_t *used, const rk_part *p, const uint8_t *b, size_t n,
                     size_t off)
{
	uint8_t mask = p->desc ? 0xff : 0x00;
	int rc;
	*used = (size_t)p->width + 1;
	if (p->vtype == RK_T_F64) {
		v->t = RK_T_F64;
		rc = rk_codec__get_ob_f64(&v->v.v.f, b, n, mask);
	} else {
		v->t = RK_T_I64;
		rc = rk_codec__get_ob_int(&v->v.v.i, b, n, p->width, mask);
	}
	return rc < 0 ? rk__err_wrap(rc, "key byte %zu", off) : 0;
}

/* A Phoenix number: width bytes, signed or not as its type. */
static int decode_phx_int(tval *v, size_t *used, const rk_part *p, const uint8_t *b)
{
	uint8_t mask = p->desc ? 0xff : 0x00;
	*used = (size_t)p->width;
	if (rk_type__is_signed(p->vtype)) {
		v->t = RK_T_I64;
		v->v.v.i = rk_codec__get_int(b, p->width, mask);
	} else {
		v->t = RK_T_U64;
		v->v.v.u = rk_codec__get_uint(b, p->width, mask);
	}
	return 0;
}

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
	case E_TEXT:
		return decode_text(v, used, e, p, b, n, off);
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
		*used = 8;
		if ((rc = rk_codec__get_f64(&v->v.v.f, b, mask)) < 0)
			return rk__err_wrap(rc, "key byte %zu", off);
		return 0;
	case E_DEC:
		v->t = RK_T_U64;
		if ((rc = rk_codec__get_dec(&v->v.v.u, b, p->width, mask)) < 0)
			return rk__err_wrap(rc, "key byte %zu", off);
		*used = (size_t)p->width;
		return 0;
	case E_ESC:
	case E_OC:
		if (is_str)
			return decode_terminated(v, used, e, p, b, n, off);
		return decode_var_int(v, used, p, b, n, off);
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
		return decode_ob(v, used, p, b, n, off);
	case E_PHX:
		if (is_str)
			return decode_terminated(v, used, e, p, b, n, off);
		return decode_phx_int(v, used, p, b);
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
	case V_TBUCKET: /* lossy: the field is not recovered here, but a bucket start is a multiple of W */
		if (v->t == RK_T_I64 ? v->v.v.i % p->varg != 0 : v->v.v.u % (uint64_t)p->varg != 0)
			return corrupt_at(off, "time bucket is not a multiple of its width", NULL);
		return 0;
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
			rk_key__reverse_bytes(d, v->v.v.s.ptr, v->v.v.s.len);
		else
			rk_key__reverse_labels(d, v->v.v.s.ptr, v->v.v.s.len);
		x.v.v.s.ptr = d;
		x.t = ft;
		break;
	}
	case V_REVNUM: {
		char digits[24];
		size_t n = v->v.v.s.len;
		if (n >= sizeof digits)
			return corrupt_at(off, "reversed number too long", NULL);
		rk_key__reverse_bytes((uint8_t *)digits, v->v.v.s.ptr, n);
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
		if (rk_key__enc_template(e, &w, p, 1, out, 0) < 0 || w.len != (size_t)p->fixed ||
		    memcmp(w.p, key + e->off[k], w.len))
			return rk__err(RK_ECORRUPT, "key byte %zu: the key does not match its design "
			                            "(its prefix is not what its fields produce)", e->off[k]);
	}
	return 0;
}

/* How far value part k, at key byte pos, may reach into the rem bytes at b:
 * a text of no fixed width stops at the literal after it or before the
 * fixed-width tail; any other value decodes its own length. */
static int value_reach(size_t *n, const rk_schema *s, size_t k, const uint8_t *b, size_t rem,
                       size_t pos)
{
	const rk_part *p = &s->parts[k];
	char b1[160];
	*n = rem;
	if (p->enc != E_TEXT || p->fixed >= 0)
		return 0;
	if (p->next_is_lit) {
		const rk_part *nl = &s->parts[k + 1];
		const uint8_t *at = find_lit(b, rem, nl->lit, nl->litlen);
		if (!at)
			return rk__err(RK_ECORRUPT, "key byte %zu: no separator \"%s\" after field '%s'", pos,
			               rk__err_bytes(b1, sizeof b1, nl->lit, nl->litlen), s->fname[p->field]);
		*n = (size_t)(at - b);
	} else if (p->tail_fixed > 0) {
		if ((size_t)p->tail_fixed > rem)
			return rk__err(RK_ECORRUPT, "key byte %zu: key too short for its fixed-width tail", pos);
		*n = rem - (size_t)p->tail_fixed;
	}
	return 0;
}

/* Value part k at key byte pos: decoded, and inverted into its field. */
static int decode_value_part(size_t *used, rk_value *out, rk_encoder *e, size_t k,
                             const uint8_t *b, size_t rem, size_t pos)
{
	const rk_part *p = &e->s->parts[k];
	tval v = {0};
	size_t n;
	int rc;
	*used = 0;
	if ((rc = value_reach(&n, e->s, k, b, rem, pos)) < 0 ||
	    (rc = decode_val(&v, used, e, p, b, n, pos)) < 0 ||
	    (rc = invert(&out[p->field], e, p, &v, pos)) < 0)
		return rc;
	return 0;
}

/* Encodes the recovered fields again and compares: the only check of a hash,
 * bucket or salt prefix. salt: the salt the key has (-1: none). */
static int verify_key(rk_encoder *e, const rk_value *out, const uint8_t *key, size_t len,
                      int salt)
{
	const rk_schema *s = e->s;
	uint64_t have = 0;
	size_t vlen;
	for (size_t i = 0; i < s->nfields; i++)
		if (out[i].present)
			have |= 1ULL << i;
	if ((s->info.point_get_mask & ~have) != 0)
		return verify_parts(e, out, have, key); /* some field is only hashed or bucketed */
	e->forced_salt = salt;
	int rc = rk_key_encode(e->verify, s->max_key_len, &vlen, e, out);
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
		case P_PSALT: /* a function of the key's own bytes: checked here, even when
		                 the key cannot be re-encoded as a whole */
			if (b[0] != rk_hash__phoenix_salt(b + 1, rem - 1, p->n))
				return rk__err(RK_ECORRUPT, "key byte %zu: the Phoenix salt byte is not the one the rest of the key gives",
				               pos);
			pos += 1;
			break;
		case P_HASH:
		case P_HEX:
		case P_SLICE:
			pos += (size_t)p->fixed; /* checked by re-encoding below */
			break;
		case P_VAL: {
			size_t used;
			if ((rc = decode_value_part(&used, out, e, k, b, rem, pos)) < 0)
				return rc;
			pos += used;
			break;
		}
		}
	}
	if (pos != len)
		return rk__err(RK_ECORRUPT, "key byte %zu: %zu unexpected bytes after the last part", pos, len - pos);
	return verify_key(e, out, key, len, salt);
}

int rk_key_bucket(const rk_encoder *e, const uint8_t *key, size_t len)
{
	size_t pos = 0;
	for (size_t k = 0; k < e->s->nparts; k++) {
		const rk_part *p = &e->s->parts[k];
		if (p->fixed < 0 || p->kind == P_VAL)
			return -1; /* a bucket after a field spreads its prefix: not the key's bucket */
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

int rk_key_logical(uint8_t *out, size_t cap, size_t *outlen, rk_encoder *e, const uint8_t *key,
                   size_t len)
{
	return rk_key_decode_logical(e->lfields, out, cap, outlen, e, key, len);
}

int rk_key_decode_logical(rk_value *fields, uint8_t *out, size_t cap, size_t *outlen,
                          rk_encoder *e, const uint8_t *key, size_t len)
{
	const rk_schema *s = e->s;
	int rc = rk_key_decode(fields, e, key, len);
	if (rc < 0)
		return rc;
	size_t n = 0;
	for (size_t k = 0; k < s->nparts; k++) {
		if (rk_part__places(&s->parts[k]))
			continue;
		size_t a = e->off[k], b = k + 1 < s->nparts ? e->off[k + 1] : len;
		if (b - a > cap - n)
			return rk__err(RK_ETOOLONG, "the logical form of a %zu-byte key is over %zu bytes", len, cap);
		memcpy(out + n, key + a, b - a);
		n += b - a;
	}
	*outlen = n;
	return 0;
}
