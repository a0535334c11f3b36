/*
 * From workload records to keys: binding workload fields to a schema's
 * typed fields, sampling a design's keys (bucket prefixes, quantiles, and
 * the older history's keys for a larger table), and the initial split
 * points. The key ranges a query reads are ranger.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "analyze/dataset.h"
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

static int is_text(rk_type t)
{
	return t == RK_T_STR || t == RK_T_BYTES;
}

/* A query bound (ext < 0: the lowest, > 0: the highest): the smallest or
 * largest value of the type; signed fields start at 0 (the workloads' values
 * are not negative, and rts() and dec() need non-negative values). */
static void bind_bound(rk_value *v, rk_type t, int ext)
{
	int64_t lo;
	uint64_t hi;
	int_limits(t, &lo, &hi);
	if (is_text(t)) {
		v->v.s.ptr = ff;
		v->v.s.len = ext > 0 ? sizeof ff : 0;
	} else if (t == RK_T_F64) {
		v->v.f = ext > 0 ? 1e308 : 0;
	} else if (is_unsigned(t)) {
		v->v.u = ext > 0 ? hi : 0;
	} else {
		v->v.i = ext > 0 ? (int64_t)hi : 0;
	}
}

/* Workload text into field i: parsed unless the field is text too. */
static int bind_text(rk__binder *b, size_t i, rk_value *v, rk_type t, const rk__wval *x)
{
	if (is_text(t)) {
		v->v.s.ptr = (const uint8_t *)x->s;
		v->v.s.len = x->len;
	} else if (rk_value_parse(v, t, x->s, x->len) < 0) {
		return rk__err_wrap(RK_EINVALID, "design %s: field '%s'", b->design,
		                    rk__workload_field(b->w, (size_t)b->src[i])->name);
	}
	v->present = 1;
	return 0;
}

/* A workload decimal into field i: a double, or its shortest exact text. */
static int bind_f64(rk__binder *b, size_t i, rk_value *v, rk_type t, const rk__wval *x)
{
	if (t == RK_T_F64) {
		v->v.f = x->f;
	} else if (is_text(t)) {
		int n = snprintf(b->buf[i], sizeof b->buf[i], "%.17g", x->f);
		v->v.s.ptr = (const uint8_t *)b->buf[i];
		v->v.s.len = (size_t)n;
	} else {
		return rk__err(RK_EINVALID, "design %s: field '%s': the decimal %.17g is not an integer",
		               b->design, rk__workload_field(b->w, (size_t)b->src[i])->name, x->f);
	}
	return 0;
}

/* A workload integer into field i, refused when the field's type cannot
 * hold it. */
static int bind_int(rk__binder *b, size_t i, rk_value *v, rk_type t, const rk__wval *x)
{
	rk__wkind kind = b->kind[i];
	int64_t lo;
	uint64_t hi;
	int_limits(t, &lo, &hi);
	int neg = kind == RK__W_I64 && x->i < 0;
	uint64_t mag = kind == RK__W_U64 ? x->u : neg ? 0 : (uint64_t)x->i;
	if (is_text(t)) {
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
	return 0;
range:
	return rk__err(RK_EINVALID, "design %s: field '%s': workload value %s%llu does not fit the type",
	               b->design, rk__workload_field(b->w, (size_t)b->src[i])->name, neg ? "-" : "",
	               (unsigned long long)(neg ? (uint64_t)0 - (uint64_t)x->i : mag));
}

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
		int rc = 0;
		v->present = 1;
		if (kind == RK__W_STR && !x->ext && is_text(t)) {
			v->v.s.ptr = (const uint8_t *)x->s; /* the common case first */
			v->v.s.len = x->len;
		} else if (x->ext == 2) {
			v->present = 0;
		} else if (x->ext) {
			bind_bound(v, t, x->ext);
		} else if (kind == RK__W_STR) {
			rc = bind_text(b, i, v, t, x);
		} else if (x->has_text && is_text(t)) {
			v->v.s.ptr = (const uint8_t *)x->s; /* the digits as the file wrote them */
			v->v.s.len = x->len;
		} else if (kind == RK__W_F64) {
			rc = bind_f64(b, i, v, t, x);
		} else {
			rc = bind_int(b, i, v, t, x);
		}
		if (rc < 0)
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

/* Inserts the key's bucket prefix into the sorted distinct list. */
static int add_prefix(rk__prefixes *pfx, size_t *cap, const uint8_t *key)
{
	size_t lo = 0, hi = pfx->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (memcmp(pfx->p + mid * pfx->len, key, pfx->len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < pfx->n && !memcmp(pfx->p + lo * pfx->len, key, pfx->len))
		return 0;
	if (pfx->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		uint8_t *q = realloc(pfx->p, nc * pfx->len);
		if (!q)
			return rk__err(RK_ENOMEM, "out of memory sampling keys");
		pfx->p = q;
		*cap = nc;
	}
	memmove(pfx->p + (lo + 1) * pfx->len, pfx->p + lo * pfx->len, (pfx->n - lo) * pfx->len);
	memcpy(pfx->p + lo * pfx->len, key, pfx->len);
	pfx->n++;
	return 0;
}

/* The sampling pass's state. */
typedef struct sampler {
	rk__prefixes *pfx;
	size_t cap_pfx, max, ns;
	kv *smp;
	uint64_t seen;
	rk__rng rng;
	rk_encoder *enc;
	uint8_t *key;
	size_t cap;
	rk__binder *b;
	int want_pfx;
	/* the table's older rows (rk__sample_history): the clock's schema field
	   (-1: none), 1 while its values' span is measured, and the span they are
	   moved back by */
	int tf, measure;
	int64_t lo, hi, shift;
	uint64_t rec_no; /* the write being sampled, from 1 (for errors) */
} sampler;

/* The sampled record's clock moved back by sm->shift, within its type. */
static void move_back(sampler *sm, rk_value *t)
{
	int64_t lo;
	uint64_t hi;
	int_limits(sm->b->type[sm->tf], &lo, &hi);
	if (sm->b->type[sm->tf] >= RK_T_I8)
		t->v.i = t->v.i >= lo + sm->shift ? t->v.i - sm->shift : lo;
	else
		t->v.u = t->v.u >= (uint64_t)sm->shift ? t->v.u - (uint64_t)sm->shift : 0;
}

/* While measuring: the clock's smallest and largest value (as int64). */
static void measure_clock(sampler *sm, const rk_value *t)
{
	int64_t x = sm->b->type[sm->tf] >= RK_T_I8 ? t->v.i
	          : t->v.u > INT64_MAX ? INT64_MAX : (int64_t)t->v.u;
	if (!sm->seen++)
		sm->lo = sm->hi = x;
	sm->lo = x < sm->lo ? x : sm->lo;
	sm->hi = x > sm->hi ? x : sm->hi;
}

/* One sampled write: its key's prefix, and a place in the reservoir. */
static int sample(sampler *sm, const rk__wval *rec)
{
	const rk_value *v = rk__bind(sm->b, rec);
	size_t kl;
	int rc;
	if (!v) /* the binder's message names the design and the field */
		return rk__err_wrap(RK_EINVALID, "record %llu", (unsigned long long)sm->rec_no);
	if (sm->tf >= 0 && v[sm->tf].present) {
		if (sm->measure)
			return measure_clock(sm, &v[sm->tf]), 0;
		move_back(sm, &sm->b->vals[sm->tf]);
	}
	if ((rc = rk_key_encode(sm->key, sm->cap, &kl, sm->enc, v)) != 0)
		return rk__err_wrap(rc, "design %s: record %llu", sm->b->design,
		                    (unsigned long long)sm->rec_no);
	if (sm->want_pfx && kl >= sm->pfx->len && (rc = add_prefix(sm->pfx, &sm->cap_pfx, sm->key)))
		return rc;
	if (!sm->max)
		return 0;
	sm->seen++;
	size_t slot = sm->ns < sm->max ? sm->ns++ : (size_t)(rk__rng_next(&sm->rng) % sm->seen);
	if (slot >= sm->max)
		return 0;
	uint8_t *copy = malloc(kl ? kl : 1);
	if (!copy)
		return rk__err(RK_ENOMEM, "out of memory sampling keys");
	memcpy(copy, sm->key, kl);
	free(sm->smp[slot].k);
	sm->smp[slot].k = copy;
	sm->smp[slot].n = kl;
	return 0;
}

/* Every write once (from the records held when there are: no second
 * generation or parse of them), a share p of them sampled. */
static int sample_pass(sampler *sm, rk__workload *w, const rk__dataset *d, double p)
{
	uint64_t held = d && d->complete ? d->held : 0;
	rk__wval rec[64];
	int rc;
	if (held > rk__workload_total(w))
		held = rk__workload_total(w);
	for (uint64_t i = 0; held && i < held; i++) {
		if (rk__rng_unit(&sm->rng) >= p)
			continue;
		sm->rec_no = i + 1;
		rk__dataset_record(d, i, rec);
		if ((rc = sample(sm, rec)) != 0)
			return rc;
	}
	while (!held) {
		int64_t t;
		int shape;
		if ((rc = rk__workload_next(w, &t, &shape)) != 0)
			return rc == RK_EITEROVER ? 0 : rc;
		sm->rec_no += shape < 0;
		if (shape >= 0 || rk__rng_unit(&sm->rng) >= p)
			continue;
		if ((rc = sample(sm, rk__workload_rec(w))) != 0)
			return rc;
	}
	return 0;
}

/* One sampling pass of sm (its prefixes, clock and shift set by the caller)
 * into *keys, sorted: the writes drawn with seed, so two passes with one
 * seed draw the same records. */
static int sample_with(sampler *sm, uint8_t ***keys, size_t **key_len, size_t *nkeys,
                       const rk_schema *s, rk__workload *w, const rk__dataset *held_writes,
                       uint64_t seed)
{
	int rc;
	*keys = NULL;
	*key_len = NULL;
	*nkeys = 0;
	sm->cap = rk_schema_max_key_len(s);
	if (!(sm->key = malloc(sm->cap)) || !(sm->smp = calloc(sm->max ? sm->max : 1, sizeof *sm->smp))) {
		rc = rk__err(RK_ENOMEM, "out of memory sampling keys");
		goto fail;
	}
	if ((rc = rk_encoder_new(&sm->enc, s, seed)) != 0 || (rc = rk__workload_rewind(w)) != 0)
		goto fail;
	rk__rng_seed(&sm->rng, seed ^ 0xA5A5A5A5A5A5A5A5ull);
	sm->rec_no = 0;
	uint64_t total = rk__workload_total(w);
	double p = total > 2 * sm->max ? (double)(2 * sm->max) / (double)total : 1.0;
	const rk__dataset *d = rk__workload_dataset(w) ? rk__workload_dataset(w) : held_writes;
	if ((rc = sample_pass(sm, w, d, p)) != 0)
		goto fail;
	qsort(sm->smp, sm->ns, sizeof *sm->smp, kv_cmp);
	if (!(*keys = malloc((sm->ns ? sm->ns : 1) * sizeof **keys)) ||
	    !(*key_len = malloc((sm->ns ? sm->ns : 1) * sizeof **key_len))) {
		rc = rk__err(RK_ENOMEM, "out of memory sampling keys");
		goto fail;
	}
	for (size_t i = 0; i < sm->ns; i++) {
		(*keys)[i] = sm->smp[i].k;
		(*key_len)[i] = sm->smp[i].n;
	}
	*nkeys = sm->ns;
	free(sm->smp);
	free(sm->key);
	rk_encoder_free(sm->enc);
	return rk__workload_rewind(w);
fail:
	for (size_t i = 0; sm->smp && i < sm->ns; i++)
		free(sm->smp[i].k);
	free(sm->smp);
	free(*keys);
	free(*key_len);
	*keys = NULL;
	*key_len = NULL;
	free(sm->key);
	rk_encoder_free(sm->enc);
	return rc;
}

int rk__sample_keys(rk__prefixes *pfx, uint8_t ***keys, size_t **key_len, size_t *nkeys,
                    size_t max, const rk_schema *s, rk__workload *w, const rk__dataset *held_writes,
                    rk__binder *b, uint64_t seed)
{
	rk_schema_info info;
	sampler sm = {pfx, 0, max, 0, NULL, 0, {{0, 0}}, NULL, NULL, 0, b, 0, -1, 0, 0, 0, 0, 0};
	rk_schema_get_info(&info, s);
	memset(pfx, 0, sizeof *pfx);
	sm.want_pfx = info.buckets > 1 && info.prefix_len > 0;
	pfx->len = sm.want_pfx ? info.prefix_len : 0;
	int rc = sample_with(&sm, keys, key_len, nkeys, s, w, held_writes, seed);
	if (rc) {
		free(pfx->p);
		memset(pfx, 0, sizeof *pfx);
	}
	return rc;
}

/* 1: the key orders by field f or spreads by it (its older values can move
 * a row's key). */
static int in_key(const rk_schema *s, size_t f)
{
	rk_key_field kf[64];
	size_t n = rk_schema_key_fields(s, kf, 64);
	for (size_t i = 0; i < n && i < 64; i++)
		if (kf[i].field == f)
			return 1;
	return f < 64 && (rk_schema_spread_fields(s) >> f & 1);
}

int rk__sample_history(uint8_t ***keys, size_t **key_len, size_t *nkeys, size_t max,
                       const rk_schema *s, rk__workload *w, const rk__dataset *held_writes,
                       rk__binder *b, uint64_t seed, int clock, uint64_t spans,
                       int64_t min_shift)
{
	rk__prefixes none = {0};
	sampler sm = {&none, 0, max, 0, NULL, 0, {{0, 0}}, NULL, NULL, 0, b, 0, -1, 1, 0, 0, 0, 0};
	uint8_t **k0;
	size_t *l0, n0;
	int rc;
	*keys = NULL;
	*key_len = NULL;
	*nkeys = 0;
	for (size_t i = 0; clock >= 0 && i < b->nf; i++)
		if (b->src[i] == clock && b->type[i] >= RK_T_U8 && b->type[i] <= RK_T_I64)
			sm.tf = (int)i;
	if (sm.tf < 0 || !in_key(s, (size_t)sm.tf)) /* the older rows are like the file's */
		return 0;
	if ((rc = sample_with(&sm, &k0, &l0, &n0, s, w, held_writes, seed)) != 0)
		return rc;
	free(k0); /* the measuring pass keeps no keys */
	free(l0);
	sm.measure = 0;
	sm.ns = 0;
	sm.seen = 0;
	uint64_t span = (uint64_t)sm.hi - (uint64_t)sm.lo + 1; /* no signed overflow at the extremes */
	span = span > (uint64_t)INT64_MAX / (spans ? spans : 1) ? (uint64_t)INT64_MAX : span * spans;
	sm.shift = (int64_t)span > min_shift ? (int64_t)span : min_shift;
	return sm.hi > sm.lo ? sample_with(&sm, keys, key_len, nkeys, s, w, held_writes, seed) : 0;
}

/* The caller's split points, checked ascending. */
static int given_splits(rk_bytes **out, size_t *n, const rk_analyze_options *o)
{
	for (size_t i = 1; i < o->nsplits; i++)
		if (cmp_bytes(o->splits[i - 1].ptr, o->splits[i - 1].len, o->splits[i].ptr,
		              o->splits[i].len) >= 0)
			return rk__err(RK_EINVALID, "split point %zu is not after the one before it (split "
			                            "points go in ascending order, each once)",
			               i + 1);
	if (!(*out = malloc(o->nsplits * sizeof **out)))
		return rk__err(RK_ENOMEM, "out of memory for split points");
	memcpy(*out, o->splits, o->nsplits * sizeof **out);
	*n = o->nsplits;
	return 0;
}

int rk__initial_splits(rk_bytes **out, size_t *n, const rk_schema_info *info,
                       const rk__prefixes *pfx, uint8_t *const *keys, const size_t *key_len,
                       size_t nkeys, const rk_analyze_options *o)
{
	unsigned servers = o->servers;
	int presplit = o->presplit;
	*out = NULL;
	*n = 0;
	if (o->nsplits)
		return given_splits(out, n, o);
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
	int hash_prefix = info->buckets <= 1 && info->prefix_len > 0;
	if ((hash_prefix || presplit == 2) && servers > 1 && nkeys > servers) {
		/* one region per server, cut at quantiles of the sampled keys: a hash
		 * prefix's points no longer than the prefix (at most 4 bytes); the
		 * data's own keys (presplit 2) whole */
		rk_bytes *sp = malloc(servers * sizeof *sp);
		size_t k = 0;
		if (!sp)
			return rk__err(RK_ENOMEM, "out of memory for split points");
		size_t plen = info->prefix_len < 4 ? info->prefix_len : 4;
		for (unsigned i = 1; i < servers; i++) {
			size_t j = (size_t)((double)i * (double)nkeys / servers);
			size_t l = hash_prefix && key_len[j] > plen ? plen : key_len[j];
			/* the data's keys: the shortest prefix that still sorts after the
			 * key before it (LevelDB's shortest separator): short split
			 * points, the same regions */
			while (!hash_prefix && j > 0 && l > 1 &&
			       cmp_bytes(keys[j], l - 1, keys[j - 1], key_len[j - 1]) > 0)
				l--;
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
