/*
 * From workload records to keys: binding workload fields to a schema's
 * typed fields, sampling a design's keys (bucket prefixes, quantiles), the
 * initial split points, and the key ranges a query reads.
 *
 * Query ranges are found with the real encoder: the query's lower and upper
 * bound records are encoded; when their spread prefix (salt, bucket, hash)
 * agrees, the query reads one range; when it differs and the design has
 * buckets, one range per bucket; a differing hash prefix means a full scan.
 * This is the read cost rk_schema_get_info describes, made concrete with the
 * workload's own queries. (The lead's planner, src/key/plan.c, will replace
 * this when it lands.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "key/error.h"

/* ---- binder ---- */

int rk__bind_init(rk__binder *b, const rk_schema *s, const rk__workload *w, const char *design)
{
	rk_schema_info info;
	memset(b, 0, sizeof *b);
	b->nf = rk_schema_nfields(s);
	b->design = design;
	b->w = w;
	if (b->nf > 64)
		return rk__err(RK_EINVALID, "design %s: more than 64 fields", design);
	rk_schema_get_info(&info, s);
	for (size_t i = 0; i < b->nf; i++) {
		const char *name = rk_schema_field_name(s, i);
		b->type[i] = rk_schema_field_type(s, i);
		b->src[i] = -1;
		for (size_t k = 0; k < rk__workload_nfields(w); k++)
			if (!strcmp(rk__workload_field(w, k)->name, name)) {
				b->src[i] = (int)k;
				b->kind[i] = rk__workload_field(w, k)->kind;
			}
		uint64_t bit = i < 64 ? 1ull << i : 0;
		if (b->src[i] < 0 && ((info.point_get_mask | info.decodable_mask) & bit)) {
			char have[512];
			size_t off = 0;
			for (size_t k = 0; k < rk__workload_nfields(w) && off < sizeof have; k++)
				off += (size_t)snprintf(have + off, sizeof have - off, "%s%s", k ? ", " : "",
				                        rk__workload_field(w, k)->name);
			return rk__err(RK_EINVALID,
			               "design %s: the key uses field '%s', which workload '%s' does not "
			               "have (its fields: %s)",
			               design, name, rk__workload_name(w), have);
		}
	}
	return 0;
}

static void int_limits(rk_type t, int64_t *lo, uint64_t *hi)
{
	switch (t) {
	case RK_T_U8: *lo = 0; *hi = UINT8_MAX; break;
	case RK_T_U16: *lo = 0; *hi = UINT16_MAX; break;
	case RK_T_U32: *lo = 0; *hi = UINT32_MAX; break;
	case RK_T_U64: *lo = 0; *hi = UINT64_MAX; break;
	case RK_T_I8: *lo = INT8_MIN; *hi = INT8_MAX; break;
	case RK_T_I16: *lo = INT16_MIN; *hi = INT16_MAX; break;
	case RK_T_I32: *lo = INT32_MIN; *hi = INT32_MAX; break;
	default: *lo = INT64_MIN; *hi = INT64_MAX; break;
	}
}

static int is_unsigned(rk_type t)
{
	return t >= RK_T_U8 && t <= RK_T_U64;
}

static int is_signed(rk_type t)
{
	return t >= RK_T_I8 && t <= RK_T_I64;
}

static const uint8_t ff[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

const rk_value *rk__bind(rk__binder *b, const rk__wval *rec)
{
	for (size_t i = 0; i < b->nf; i++) {
		rk_value *v = &b->vals[i];
		rk_type t = b->type[i];
		if (b->src[i] < 0) {
			v->present = 0;
			continue;
		}
		const rk__wval *x = &rec[b->src[i]];
		rk__wkind kind = b->kind[i];
		v->present = 1;
		if (kind == RK__W_STR && !x->ext && (t == RK_T_STR || t == RK_T_BYTES)) {
			v->v.s.ptr = (const uint8_t *)x->s; /* the common case first */
			v->v.s.len = x->len;
			continue;
		}
		int64_t lo;
		uint64_t hi;
		int_limits(t, &lo, &hi);
		if (x->ext == 2) {
			v->present = 0;
			continue;
		}
		if (x->ext) {
			/* query bounds: the smallest / largest value of the type; signed
			 * fields start at 0 (the workloads' values are not negative, and
			 * rts() and dec() need non-negative values) */
			if (t == RK_T_STR || t == RK_T_BYTES) {
				v->v.s.ptr = ff;
				v->v.s.len = x->ext > 0 ? sizeof ff : 0;
			} else if (t == RK_T_F64) {
				v->v.f = x->ext > 0 ? 1e308 : 0;
			} else if (is_unsigned(t)) {
				v->v.u = x->ext > 0 ? hi : 0;
			} else {
				v->v.i = x->ext > 0 ? (int64_t)hi : 0;
			}
			continue;
		}
		if (kind == RK__W_STR) {
			if (t == RK_T_STR || t == RK_T_BYTES) {
				v->v.s.ptr = (const uint8_t *)x->s;
				v->v.s.len = x->len;
			} else if (rk_value_parse(v, t, x->s, x->len) < 0) {
				rk__err_wrap(RK_EINVALID, "design %s: field '%s'", b->design,
				             rk__workload_field(b->w, (size_t)b->src[i])->name);
				return NULL;
			}
			v->present = 1;
			continue;
		}
		int neg = kind == RK__W_I64 && x->i < 0;
		uint64_t mag = kind == RK__W_U64 ? x->u : neg ? 0 : (uint64_t)x->i;
		if (t == RK_T_STR || t == RK_T_BYTES) {
			int n = kind == RK__W_U64 ? snprintf(b->buf[i], sizeof b->buf[i], "%llu",
			                                     (unsigned long long)x->u)
			                          : snprintf(b->buf[i], sizeof b->buf[i], "%lld",
			                                     (long long)x->i);
			v->v.s.ptr = (const uint8_t *)b->buf[i];
			v->v.s.len = (size_t)n;
		} else if (t == RK_T_F64) {
			v->v.f = kind == RK__W_U64 ? (double)x->u : (double)x->i;
		} else if (is_unsigned(t)) {
			if (neg || mag > hi)
				goto range;
			v->v.u = mag;
		} else if (is_signed(t)) {
			if (kind == RK__W_U64 ? mag > hi : (x->i < lo || (!neg && mag > hi)))
				goto range;
			v->v.i = kind == RK__W_U64 ? (int64_t)mag : x->i;
		}
		continue;
	range:
		rk__err(RK_EINVALID, "design %s: field '%s': workload value %s%llu does not fit the type",
		        b->design, rk__workload_field(b->w, (size_t)b->src[i])->name, neg ? "-" : "",
		        (unsigned long long)(neg ? (uint64_t)0 - (uint64_t)x->i : mag));
		return NULL;
	}
	return b->vals;
}

/* ---- sampling ---- */

static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t m = al < bl ? al : bl;
	int c = m ? memcmp(a, b, m) : 0;
	return c ? c : al < bl ? -1 : al > bl;
}

typedef struct kv {
	uint8_t *k;
	size_t n;
} kv;

static int kv_cmp(const void *a, const void *b)
{
	const kv *x = a, *y = b;
	return cmp_bytes(x->k, x->n, y->k, y->n);
}

int rk__sample_keys(rk__prefixes *pfx, uint8_t ***keys, size_t **key_len, size_t *nkeys,
                    size_t max, const rk_schema *s, rk__workload *w, rk__binder *b,
                    uint64_t seed)
{
	rk_schema_info info;
	rk_encoder *enc = NULL;
	kv *smp = NULL;
	size_t ns = 0, cap_pfx = 0;
	uint8_t *key = NULL;
	rk__rng rng;
	int rc;
	rk_schema_get_info(&info, s);
	memset(pfx, 0, sizeof *pfx);
	*keys = NULL;
	*key_len = NULL;
	*nkeys = 0;
	size_t cap = rk_schema_max_key_len(s);
	if (!(key = malloc(cap)) || !(smp = calloc(max ? max : 1, sizeof *smp)))
		goto nomem;
	if ((rc = rk_encoder_new(&enc, s, seed)) != 0)
		goto fail;
	if ((rc = rk__workload_rewind(w)) != 0)
		goto fail;
	rk__rng_seed(&rng, seed ^ 0xA5A5A5A5A5A5A5A5ull);
	uint64_t total = rk__workload_total(w);
	double p = total > 2 * max ? (double)(2 * max) / (double)total : 1.0;
	uint64_t seen = 0;
	int want_pfx = info.buckets > 1 && info.prefix_len > 0;
	pfx->len = want_pfx ? info.prefix_len : 0;
	for (;;) {
		int64_t t;
		int shape;
		rc = rk__workload_next(w, &t, &shape);
		if (rc == RK_EITEROVER)
			break;
		if (rc)
			goto fail;
		if (shape >= 0 || rk__rng_unit(&rng) >= p)
			continue;
		const rk_value *v = rk__bind(b, rk__workload_rec(w));
		size_t kl;
		if (!v) {
			rc = RK_EINVALID;
			goto fail;
		}
		if ((rc = rk_key_encode(key, cap, &kl, enc, v)) != 0) {
			rk__err_wrap(rc, "design %s", b->design);
			goto fail;
		}
		if (want_pfx && kl >= pfx->len) {
			/* insert the prefix into the sorted distinct list */
			size_t lo = 0, hi = pfx->n;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (memcmp(pfx->p + mid * pfx->len, key, pfx->len) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo == pfx->n || memcmp(pfx->p + lo * pfx->len, key, pfx->len)) {
				if (pfx->n == cap_pfx) {
					size_t nc = cap_pfx ? cap_pfx * 2 : 64;
					uint8_t *q = realloc(pfx->p, nc * pfx->len);
					if (!q)
						goto nomem;
					pfx->p = q;
					cap_pfx = nc;
				}
				memmove(pfx->p + (lo + 1) * pfx->len, pfx->p + lo * pfx->len,
				        (pfx->n - lo) * pfx->len);
				memcpy(pfx->p + lo * pfx->len, key, pfx->len);
				pfx->n++;
			}
		}
		if (!max)
			continue;
		/* reservoir of `max` keys */
		seen++;
		size_t slot = ns < max ? ns++ : (size_t)(rk__rng_next(&rng) % seen);
		if (slot >= max)
			continue;
		uint8_t *copy = malloc(kl ? kl : 1);
		if (!copy)
			goto nomem;
		memcpy(copy, key, kl);
		free(smp[slot].k);
		smp[slot].k = copy;
		smp[slot].n = kl;
	}
	qsort(smp, ns, sizeof *smp, kv_cmp);
	if (!(*keys = malloc((ns ? ns : 1) * sizeof **keys)) ||
	    !(*key_len = malloc((ns ? ns : 1) * sizeof **key_len)))
		goto nomem;
	for (size_t i = 0; i < ns; i++) {
		(*keys)[i] = smp[i].k;
		(*key_len)[i] = smp[i].n;
	}
	*nkeys = ns;
	free(smp);
	free(key);
	rk_encoder_free(enc);
	return rk__workload_rewind(w);
nomem:
	rc = rk__err(RK_ENOMEM, "out of memory sampling keys");
fail:
	for (size_t i = 0; smp && i < ns; i++)
		free(smp[i].k);
	free(smp);
	free(*keys);
	free(*key_len);
	*keys = NULL;
	*key_len = NULL;
	free(pfx->p);
	memset(pfx, 0, sizeof *pfx);
	free(key);
	rk_encoder_free(enc);
	return rc;
}

int rk__initial_splits(rk_bytes **out, size_t *n, const rk_schema_info *info,
                       const rk__prefixes *pfx, uint8_t *const *keys, const size_t *key_len,
                       size_t nkeys, unsigned servers, int presplit)
{
	*out = NULL;
	*n = 0;
	if (!presplit)
		return 0;
	if (info->buckets > 1 && pfx->n > 1) {
		rk_bytes *sp = malloc((pfx->n - 1) * sizeof *sp);
		if (!sp)
			return rk__err(RK_ENOMEM, "out of memory for split points");
		for (size_t i = 1; i < pfx->n; i++) {
			sp[i - 1].ptr = pfx->p + i * pfx->len;
			sp[i - 1].len = pfx->len;
		}
		*out = sp;
		*n = pfx->n - 1;
		return 0;
	}
	if (info->buckets <= 1 && info->prefix_len > 0 && servers > 1 && nkeys > servers) {
		/* a hash prefix: one region per server, cut at quantiles of the
		 * sampled keys, each point no longer than the prefix */
		rk_bytes *sp = malloc(servers * sizeof *sp);
		size_t k = 0;
		if (!sp)
			return rk__err(RK_ENOMEM, "out of memory for split points");
		size_t plen = info->prefix_len < 4 ? info->prefix_len : 4;
		for (unsigned i = 1; i < servers; i++) {
			size_t j = (size_t)((double)i * (double)nkeys / servers);
			size_t l = key_len[j] < plen ? key_len[j] : plen;
			if (l == 0)
				continue;
			if (k && cmp_bytes(sp[k - 1].ptr, sp[k - 1].len, keys[j], l) >= 0)
				continue;
			sp[k].ptr = keys[j];
			sp[k].len = l;
			k++;
		}
		*out = sp;
		*n = k;
		return 0;
	}
	return 0;
}

/* ---- query ranges ---- */

int rk__ranger_init(rk__ranger *g, const rk_schema *s, rk_encoder *enc, rk__binder *b,
                    const rk__prefixes *pfx)
{
	memset(g, 0, sizeof *g);
	rk_schema_get_info(&g->info, s);
	g->pfx = pfx;
	g->enc = enc;
	g->bind = b;
	g->cap = rk_schema_max_key_len(s);
	size_t nr = pfx->n > 1 ? pfx->n : 1;
	g->klo = malloc(g->cap);
	g->khi = malloc(g->cap);
	g->kt = malloc(g->cap + 16);
	g->r = calloc(nr, sizeof *g->r);
	if (!g->klo || !g->khi || !g->kt || !g->r)
		goto nomem;
	for (size_t i = 0; i < nr; i++) {
		g->r[i].lo = malloc(g->cap);
		g->r[i].hi = malloc(g->cap);
		if (!g->r[i].lo || !g->r[i].hi)
			goto nomem;
	}
	return 0;
nomem:
	rk__ranger_fini(g);
	return rk__err(RK_ENOMEM, "out of memory for query ranges");
}

void rk__ranger_fini(rk__ranger *g)
{
	size_t nr = g->pfx && g->pfx->n > 1 ? g->pfx->n : 1;
	for (size_t i = 0; g->r && i < nr; i++) {
		free(g->r[i].lo);
		free(g->r[i].hi);
	}
	free(g->r);
	free(g->klo);
	free(g->khi);
	free(g->kt);
	memset(g, 0, sizeof *g);
}

static void set_range(rk__range *r, const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	if (cmp_bytes(a, al, b, bl) > 0) {
		const uint8_t *t = a;
		size_t tl = al;
		a = b;
		al = bl;
		b = t;
		bl = tl;
	}
	memcpy(r->lo, a, al);
	r->lo_len = al;
	memcpy(r->hi, b, bl);
	r->hi_len = bl;
}

static size_t diff_at(const uint8_t *a, size_t al, const uint8_t *b, size_t bl, size_t from)
{
	size_t m = al < bl ? al : bl, i = from;
	while (i < m && a[i] == b[i])
		i++;
	return i;
}

/* A prefix scan: [p, p ff ff ...]. */
static void prefix_range(rk__range *r, const uint8_t *p, size_t n)
{
	memcpy(r->lo, p, n);
	r->lo_len = n;
	memcpy(r->hi, p, n);
	memset(r->hi + n, 0xff, 8);
	r->hi_len = n + 8;
}

void rk__ranger_plan(rk__ranger *g, const rk__wval *lo, const rk__wval *hi)
{
	size_t ll, hl, tl;
	const rk_value *v;
	size_t nwf = rk__workload_nfields(g->bind->w);
	g->n = 0;
	g->full = 0;
	g->get = 0;
	if (!(v = rk__bind(g->bind, lo)) || rk_key_encode(g->klo, g->cap, &ll, g->enc, v) != 0 ||
	    !(v = rk__bind(g->bind, hi)) || rk_key_encode(g->khi, g->cap, &hl, g->enc, v) != 0) {
		g->full = 1; /* bounds the design cannot encode: read everything */
		return;
	}
	size_t P = g->info.prefix_len;
	if (ll < P || hl < P) {
		g->full = 1;
		return;
	}
	/* Where does the first field the query leaves open sit in the key? Flip
	 * each open field from its smallest to its largest value and see which
	 * byte changes first (after the spread prefix). Bytes before it are the
	 * query's usable key prefix; an open field inside a hash or bucket
	 * prefix changes the prefix itself. */
	size_t pmin = SIZE_MAX;
	int prefix_open = 0;
	memcpy(g->tmp, lo, nwf * sizeof *lo);
	for (size_t i = 0; i < nwf; i++) {
		if (lo[i].ext != -1)
			continue;
		g->tmp[i].ext = 1;
		v = rk__bind(g->bind, g->tmp);
		int ok = v && rk_key_encode(g->kt, g->cap, &tl, g->enc, v) == 0;
		g->tmp[i].ext = -1;
		if (!ok || tl < P) {
			g->full = 1;
			return;
		}
		if (P && memcmp(g->kt, g->klo, P))
			prefix_open = 1;
		if (tl == ll && !memcmp(g->kt + P, g->klo + P, ll - P))
			continue; /* the field is not in the key */
		size_t d = diff_at(g->kt, tl, g->klo, ll, P);
		if (d < pmin)
			pmin = d;
	}
	size_t cp = diff_at(g->klo, ll, g->khi, hl, P);
	int same_prefix = !memcmp(g->klo, g->khi, P) && !prefix_open;
	size_t nr = 1;
	if (!(same_prefix && g->info.deterministic)) {
		if (g->pfx->n > 1 && g->pfx->len == P && P) {
			nr = g->pfx->n;
		} else {
			g->full = 1;
			return;
		}
	}
	for (size_t i = 0; i < nr; i++) {
		rk__range *r = &g->r[i];
		if (nr > 1) {
			memcpy(g->klo, g->pfx->p + i * P, P);
			memcpy(g->khi, g->pfx->p + i * P, P);
		}
		if (pmin <= cp) {
			if (pmin == 0) {
				g->full = 1;
				return;
			}
			prefix_range(r, g->klo, pmin);
		} else {
			set_range(r, g->klo, ll, g->khi, hl);
		}
	}
	g->n = nr;
	g->get = nr == 1 && ll == hl && !memcmp(g->klo, g->khi, ll);
}
