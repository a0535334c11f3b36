/*
 * Test vectors for any implementation of a key design (docs/formats.md part
 * D): random records with the keys the C library gives them or the error it
 * refuses them with, damaged keys with what the decoder makes of them, and
 * the planner's ranges for some fields bound by equality.
 *
 * The records are drawn to reach every path of the encoder, not to look
 * like data: boundary integers, floats whose 17-digit text is a rounding
 * tie, strings holding the design's own separators, NUL bytes, multi-byte
 * UTF-8 and, now and then, a string long enough for XXH3's long-input path
 * or the key limit; a field is sometimes missing. Every draw comes from one
 * seeded generator, so a seed gives the same file on every machine.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "gen/vectors_int.h"
#include "key/encode_int.h"
#include "key/error.h"

/* ---- drawing values ---- */

static uint64_t draw(rk_vec *v)
{
	/* splitmix64: every seed, 0 included, gives a full-period stream */
	uint64_t z = (v->rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(rk_vec *v, uint64_t n)
{
	return n ? draw(v) % n : 0;
}

static uint64_t draw_int(rk_vec *v, rk_type t)
{
	int bits = 8 * rk_type__width(t);
	uint64_t x;
	switch (below(v, 8)) {
	case 0: x = below(v, 10); break;
	case 1: {
		static const uint64_t edges[] = {0, 1, 2, 9, 10, 99, 255, 256, 65535, 65536, 0x7fffffffULL,
		                                 0x80000000ULL, 0xffffffffULL, 0x7fffffffffffffffULL,
		                                 0x8000000000000000ULL, ~0ULL, ~0ULL - 1};
		x = edges[below(v, sizeof edges / sizeof edges[0])];
		break;
	}
	case 2:
	case 3: x = draw(v) >> (8 * below(v, 8)); break;
	case 4: x = 1686465031000ULL + below(v, 100000000); break; /* a millisecond timestamp */
	default: x = below(v, 100000); break;
	}
	if (rk_type__is_signed(t) && below(v, 3) == 0)
		x = 0 - x;
	if (bits < 64) { /* wrap into the type: its sign bit decides negatives */
		x &= (1ULL << bits) - 1;
		if (rk_type__is_signed(t) && (x >> (bits - 1)))
			x |= ~0ULL << bits;
	}
	return x;
}

static double draw_f64(rk_vec *v)
{
	static const double specials[] = {0.0, -0.0, 1.5, -1.5, 0.1, 0.3, 1e21, 1e-5, 1e300, -1e-300, 5e-324,
	                                  1.7976931348623157e308, -2.2250738585072014e-308, 123456789012345678.0};
	uint64_t b;
	double d;
	switch (below(v, 8)) {
	case 0:
		if (below(v, 4) == 0)
			return below(v, 3) == 0 ? NAN : below(v, 2) ? INFINITY : -INFINITY;
		return specials[below(v, sizeof specials / sizeof specials[0])];
	case 1: /* any bits but NaN's */
		b = draw(v);
		memcpy(&d, &b, 8);
		return isnan(d) ? 0.25 : d;
	case 2: /* a 17-digit rounding tie: 2^49..2^50 plus an odd eighth */
		return (double)((1ULL << 49) + below(v, 1ULL << 49)) + (double)(2 * below(v, 4) + 1) / 8.0;
	case 3: return (double)(int64_t)(draw(v) >> (8 * below(v, 8)));
	default: return (double)(int64_t)(below(v, 2000000) - 1000000) / (double)(1ULL << below(v, 12));
	}
}

/* Appends a string of `len` characters to v->store: bytes of the design's
 * literals, digits, letters, '.', and for str valid UTF-8 only. */
static void draw_chars(rk_vec *v, rk_value *out, size_t len, int is_str)
{
	static const char *const wide[] = {"\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80"}; /* é 中 😀 */
	size_t start = v->used;
	for (size_t i = 0; i < len && v->used + 4 <= v->cap; i++) {
		uint64_t k = below(v, 16);
		uint8_t c;
		if (k < 3 && v->nseps) {
			c = v->seps[below(v, v->nseps)];
			if (is_str && c >= 0x80)
				c = '.';
		} else if (k == 3) {
			c = is_str ? 0 : (uint8_t)(below(v, 2) ? 0 : 0xff);
		} else if (k == 4 && is_str) {
			const char *w = wide[below(v, 3)];
			size_t n = strlen(w);
			memcpy(v->store + v->used, w, n);
			v->used += n;
			continue;
		} else if (k == 4) {
			c = (uint8_t)draw(v);
		} else if (k == 5) {
			c = '.';
		} else if (k < 9) {
			c = (uint8_t)('0' + below(v, 10));
		} else {
			c = (uint8_t)((below(v, 2) ? 'a' : 'A') + below(v, 26));
		}
		v->store[v->used++] = c;
	}
	out->present = 1;
	out->v.s.ptr = v->store + start;
	out->v.s.len = v->used - start;
}

static void draw_record(rk_vec *v)
{
	const rk_schema *s = v->s;
	v->used = 0;
	for (size_t i = 0; i < s->nfields; i++) {
		rk_value *x = &v->vals[i];
		rk_type t = s->ftype[i];
		memset(x, 0, sizeof *x);
		x->present = 1;
		if (t == RK_T_F64) {
			x->v.f = draw_f64(v);
		} else if (t == RK_T_STR || t == RK_T_BYTES) {
			uint64_t k = below(v, 40);
			size_t len = k < 4 ? 0 : k < 24 ? 1 + below(v, 8) : k < 38 ? 9 + below(v, 32) : 200 + below(v, 2800);
			draw_chars(v, x, len, t == RK_T_STR);
		} else {
			x->v.u = draw_int(v, t);
		}
	}
	if (below(v, 50) == 0)
		v->vals[below(v, s->nfields)].present = 0;
}

/* ---- the vectors ---- */

static const char *code_name(int rc)
{
	return rc == RK_ETOOLONG ? "toolong" : rc == RK_ECORRUPT ? "corrupt" : "invalid";
}

static void put_error(rk_vec *v, int rc)
{
	fprintf(v->out, ",\"error\":\"%s\",\"message\":", code_name(rc));
	const char *m = rk_error_last();
	rk_vec__json_bytes(v->out, (const uint8_t *)m, strlen(m));
	fputs("}\n", v->out);
}

/* Damages a key: truncated, a byte changed, inserted or dropped, bytes
 * appended, a bit flipped; or, where one of its parts starts (off[], from
 * decoding it), what that part's decoder must see through even when the key
 * is not re-encoded whole: a '0' or '-' in front of a number in text form
 * (its other spellings), a NaN other than the encoder's over an f64, a byte
 * changed elsewhere (a salt, a bucket, a Phoenix salt). */
static void damage(rk_vec *v, uint8_t *out, size_t *outlen, const uint8_t *key, size_t len, const size_t *off)
{
	static const uint8_t nan_asc[8] = {0xff, 0xf8, 0, 0, 0, 0, 0, 1}, nan_desc[8] = {0, 7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe};
	uint64_t kind = len ? below(v, 9) : 4;
	size_t at = len ? below(v, len) : 0;
	memcpy(out, key, len);
	*outlen = len;
	if (kind >= 6) { /* at a part: the damage its encoding could be fooled by */
		size_t k = below(v, v->s->nparts);
		const rk_part *p = &v->s->parts[k];
		at = off[k];
		int num_text = p->kind == P_VAL && p->enc == E_TEXT && p->vtype != RK_T_STR && p->vtype != RK_T_BYTES;
		int f64 = p->kind == P_VAL && p->vtype == RK_T_F64 && (p->enc == E_F64 || p->enc == E_OB);
		kind = at >= len ? 4 : num_text ? 7 : f64 ? 8 : 6;
		if (f64 && p->enc == E_OB)
			at++;
		if (f64)
			memcpy(out + at, p->desc ? nan_desc : nan_asc, len - at >= 8 ? 8 : 0);
	}
	switch (kind) {
	case 0: *outlen = below(v, len); break;
	case 1: out[at] = (uint8_t)(out[at] + 1 + below(v, 255)); break;
	case 2:
		memmove(out + at + 1, out + at, len - at);
		out[at] = (uint8_t)draw(v);
		*outlen = len + 1;
		break;
	case 3:
		memmove(out + at, out + at + 1, len - at - 1);
		*outlen = len - 1;
		break;
	case 4:
		for (uint64_t n = 1 + below(v, 3); n > 0; n--)
			out[(*outlen)++] = (uint8_t)draw(v);
		break;
	case 5: out[at] ^= (uint8_t)(1u << below(v, 8)); break;
	case 6: out[at] = (uint8_t)(out[at] + 1 + below(v, 255)); break;
	case 7:
		memmove(out + at + 1, out + at, len - at);
		out[at] = below(v, 2) ? '0' : '-';
		*outlen = len + 1;
		break;
	default: break; /* the NaN, written above */
	}
}

static void decode_vector(rk_vec *v)
{
	size_t dlen = 0;
	rk_key_decode(v->dec, v->e, v->key, v->klen); /* where its parts start: v->e->off */
	damage(v, v->key2, &dlen, v->key, v->klen, v->e->off);
	fputs("{\"decode\":", v->out);
	rk_vec__json_hex(v->out, v->key2, dlen);
	int rc = rk_key_decode(v->dec, v->e, v->key2, dlen);
	if (rc < 0) {
		put_error(v, rc);
		return;
	}
	fputs(",\"fields\":", v->out);
	rk_vec__json_fields(v, v->dec);
	fputs("}\n", v->out);
}

/* A predicate binding some of the record's fields by equality, each value
 * quoted (a backslash escapes the next byte). */
static size_t predicate(rk_vec *v, char *out, size_t cap, rk_value *bound)
{
	const rk_schema *s = v->s;
	size_t o = 0;
	for (size_t i = 0; i < s->nfields; i++) {
		memset(&bound[i], 0, sizeof bound[i]);
		const rk_value *x = &v->vals[i];
		if (!x->present || below(v, 2))
			continue;
		char text[64];
		const uint8_t *p = (const uint8_t *)text;
		size_t n;
		if (s->ftype[i] == RK_T_STR || s->ftype[i] == RK_T_BYTES) {
			p = x->v.s.ptr;
			n = x->v.s.len;
		} else {
			n = rk_value_format(text, sizeof text, s->ftype[i], x);
		}
		if (n > 1000 || o + strlen(s->fname[i]) + 2 * n + 16 > cap)
			continue;
		o += (size_t)snprintf(out + o, cap - o, "%s%s = '", o ? " AND " : "", s->fname[i]);
		for (size_t k = 0; k < n; k++) {
			if (p[k] == '\'' || p[k] == '\\')
				out[o++] = '\\';
			out[o++] = (char)p[k];
		}
		out[o++] = '\'';
		bound[i] = *x;
	}
	return o;
}

static void prefix_vector(rk_vec *v)
{
	rk_value bound[RK_MAX_FIELDS];
	size_t n = predicate(v, v->pred, v->pred_cap, bound);
	rk_predicate *pr = NULL;
	rk_plan *plan = NULL;
	fputs("{\"prefix\":", v->out);
	rk_vec__json_fields(v, bound);
	int rc = rk_predicate_parse(&pr, v->s, v->pred, n);
	if (rc == 0)
		rc = rk_plan_build(&plan, v->s, pr);
	if (rc < 0) {
		rk_predicate_free(pr);
		put_error(v, rc);
		return;
	}
	fputs(",\"ranges\":[", v->out);
	for (size_t i = 0; i < plan->nranges; i++) {
		const rk_key_range *r = &plan->ranges[i];
		fputs(i ? ",{\"start\":" : "{\"start\":", v->out);
		rk_vec__json_hex(v->out, r->start, r->start_len);
		fputs(",\"stop\":", v->out);
		if (plan->kind == RK_PLAN_GETS) { /* a point get reads [key, key 00) */
			fputc('"', v->out);
			for (size_t k = 0; k < r->start_len; k++)
				fprintf(v->out, "%02x", r->start[k]);
			fputs("00\"", v->out);
		} else if (r->stop) {
			rk_vec__json_hex(v->out, r->stop, r->stop_len);
		} else {
			fputs("null", v->out);
		}
		fprintf(v->out, ",\"bucket\":%d}", r->bucket);
	}
	fputs("]}\n", v->out);
	rk_plan_free(plan);
	rk_predicate_free(pr);
}

static void header(rk_vec *v, uint64_t seed)
{
	const rk_schema *s = v->s;
	char *text = NULL;
	fprintf(v->out, "{\"rowkey_vectors\":1,\"format\":%d,\"schema\":", RK_GEN_FORMAT_VERSION);
	if (rk_schema_text(&text, s) == 0)
		rk_vec__json_bytes(v->out, (const uint8_t *)text, strlen(text));
	free(text);
	fprintf(v->out, ",\"seed\":%llu,\"buckets\":%u,\"fields\":[", (unsigned long long)seed, s->info.buckets);
	for (size_t i = 0; i < s->nfields; i++)
		fprintf(v->out, "%s{\"name\":\"%s\",\"type\":\"%s\",\"decodes\":%s}", i ? "," : "", s->fname[i],
		        rk_type__name(s->ftype[i]), (s->info.decodable_mask >> i & 1) ? "true" : "false");
	fputc(']', v->out);
	/* an order-preserving key of plain fields sorts as the tuple of its
	   fields in key order: say which, so the order can be checked */
	int plain = s->info.order_preserving;
	for (size_t k = 0; k < s->nparts; k++)
		plain &= s->parts[k].kind != P_VAL || s->parts[k].vop == V_FIELD;
	if (plain) {
		fputs(",\"order\":[", v->out);
		int first = 1;
		for (size_t k = 0; k < s->nparts; k++)
			if (s->parts[k].kind == P_VAL) {
				fprintf(v->out, "%s\"%s\"", first ? "" : ",", s->fname[s->parts[k].field]);
				first = 0;
			}
		fputc(']', v->out);
	}
	fputs("}\n", v->out);
}

/* The bytes of the key's literals: separators the values should contain now and then. */
static void collect_seps(rk_vec *v, const rk_part *parts, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; parts[k].kind == P_LIT && i < parts[k].litlen && v->nseps < sizeof v->seps; i++)
			if (!memchr(v->seps, parts[k].lit[i], v->nseps))
				v->seps[v->nseps++] = parts[k].lit[i];
		collect_seps(v, parts[k].sub, parts[k].nsub);
	}
}

int rk_gen_vectors(FILE *out, const rk_schema *s, size_t n, uint64_t seed)
{
	rk_vec v = {.s = s, .out = out, .rng = seed};
	int rc = rk_encoder_new(&v.e, s, seed);
	size_t kcap = s->max_key_len + 8;
	v.cap = (size_t)s->nfields * 3100 + 64;
	v.pred_cap = (size_t)s->nfields * 2400 + 64;
	v.store = malloc(v.cap);
	v.key = malloc(kcap);
	v.key2 = malloc(kcap);
	v.pred = malloc(v.pred_cap);
	if (rc == 0 && (!v.store || !v.key || !v.key2 || !v.pred))
		rc = rk__err(RK_ENOMEM, "out of memory writing vectors");
	if (rc < 0)
		goto done;
	collect_seps(&v, s->parts, s->nparts);
	header(&v, seed);
	for (size_t i = 0; i < n; i++) {
		draw_record(&v);
		fputs("{\"encode\":", out);
		rk_vec__json_fields(&v, v.vals);
		int erc = rk_key_encode(v.key, s->max_key_len, &v.klen, v.e, v.vals);
		if (erc < 0) {
			put_error(&v, erc);
		} else {
			fputs(",\"key\":", out);
			rk_vec__json_hex(out, v.key, v.klen);
			if (s->info.buckets > 1)
				fprintf(out, ",\"bucket\":%d", rk_key_bucket(v.e, v.key, v.klen));
			fputs("}\n", out);
			if (i % 2 == 0)
				decode_vector(&v);
		}
		if (i % 4 == 0)
			prefix_vector(&v);
	}
	if (fflush(out) != 0 || ferror(out))
		rc = rk__err(RK_EIO, "writing the vectors failed");
done:
	rk_encoder_free(v.e);
	free(v.store);
	free(v.key);
	free(v.key2);
	free(v.pred);
	return rc;
}
