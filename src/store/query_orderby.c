/*
 * The sort key of a row for a plan whose ORDER BY the key cannot give
 * (RK_ORDER_SORT): the ORDER BY field's value in an order-preserving,
 * prefix-free encoding, every byte inverted for DESC, followed by the key's
 * logical form. The sorter (query_sort.c) orders rows by these bytes where
 * it otherwise uses the logical form alone, so rows come by the field in
 * the direction asked, ties in logical order, spill files and all.
 */
#include <string.h>

#include "key/codec.h"
#include "key/error.h"
#include "store/query_int.h"

static void put_u64(uint8_t *out, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		out[i] = (uint8_t)v;
}

/* The value's encoding into out (room for 11 + 2 * string length bytes):
 * a presence byte (an absent value first), then 8 big-endian bytes for
 * numbers (sign bit flipped, f64 by its order-preserving image), or the
 * string's bytes with 00 written 00 ff and ended by 00 00. */
static size_t value_key(uint8_t *out, rk_type t, const rk_value *v)
{
	size_t n = 0;
	out[n++] = v->present ? 1 : 0;
	if (!v->present)
		return n;
	if (t == RK_T_STR || t == RK_T_BYTES) {
		for (size_t i = 0; i < v->v.s.len; i++) {
			out[n++] = v->v.s.ptr[i];
			if (!v->v.s.ptr[i])
				out[n++] = 0xff;
		}
		out[n++] = 0;
		out[n++] = 0;
		return n;
	}
	if (t == RK_T_F64)
		put_u64(out + n, rk_codec__f64_to_bits(v->v.f));
	else if (t >= RK_T_I8 && t <= RK_T_I64)
		put_u64(out + n, (uint64_t)v->v.i ^ (1ULL << 63));
	else
		put_u64(out + n, v->v.u);
	return n + 8;
}

size_t rk_qorder__cap(const rk_schema *s)
{
	return 3 * rk_schema_max_key_len(s) + 16;
}

int rk_qorder__key(uint8_t *out, size_t cap, size_t *len, rk_value *fields, rk_encoder *enc,
                   const rk_schema *s, int field, int desc, const uint8_t *key, size_t klen)
{
	size_t ll = 0, vl;
	uint8_t *logical = out + cap - rk_schema_max_key_len(s) - 1; /* the tail, then moved */
	int rc = rk_key_decode_logical(fields, logical, rk_schema_max_key_len(s) + 1, &ll, enc, key, klen);
	if (rc < 0) {
		char b[160];
		return rk__err(RK_ECORRUPT, "row '%s' does not decode under the schema: %s",
		               rk__err_bytes(b, sizeof b, key, klen), rk_error_last());
	}
	rk_type t = rk_schema_field_type(s, (size_t)field);
	const rk_value *v = &fields[field];
	if (v->present && (t == RK_T_STR || t == RK_T_BYTES) && 2 * v->v.s.len + 3 > (size_t)(logical - out)) {
		char b[160];
		return rk__err(RK_ECORRUPT, "row '%s' is longer than the schema's keys", rk__err_bytes(b, sizeof b, key, klen));
	}
	vl = value_key(out, t, v);
	if (desc)
		for (size_t i = 0; i < vl; i++)
			out[i] = (uint8_t)~out[i];
	memmove(out + vl, logical, ll);
	*len = vl + ll;
	return 0;
}
