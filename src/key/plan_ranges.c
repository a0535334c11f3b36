/*
 * The end of a plan (plan.c walks the template up to it): gets when every
 * key part was bound; otherwise one row range per key prefix, as tight as
 * the encoding of the part the walk stopped on and the constraints on its
 * field allow (a range, inverted for descending and reverse-timestamp
 * parts; a string prefix; loose bounds for text before a separator), said
 * in words; ranges that touch merged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/codec.h"
#include "key/encode_int.h"
#include "key/error.h"
#include "key/plan_int.h"
#include "key/schema_int.h"

size_t rk_plan__prefix_end(uint8_t *out, const uint8_t *p, size_t n)
{
	while (n > 0 && p[n - 1] == 0xff)
		n--;
	if (n == 0)
		return 0;
	memmove(out, p, n); /* out may be p */
	out[n - 1]++;
	return n;
}

int rk_plan__range_capable(const rk_part *p, int is_prefix)
{
	if (p->kind != P_VAL)
		return 0;
	if (p->vop != V_FIELD && p->vop != V_RTS && p->vop != V_TBUCKET)
		return 0;
	if (is_prefix)
		return p->vop == V_FIELD && (p->enc == E_TEXT || p->enc == E_ESC || p->enc == E_OC || p->enc == E_BYTES ||
		                             (p->enc == E_PHX && !p->desc));
	switch (p->enc) {
	case E_UINT: case E_INT: case E_F64: case E_DEC: case E_ESC: case E_OC: case E_OB:
		return 1;
	case E_PHX:
		return !(p->vtype == RK_T_STR || p->vtype == RK_T_BYTES) || !p->desc;
	case E_BYTES:
		return 1;
	case E_TEXT:
		/* raw text sorts like the string only when nothing follows it */
		return (p->vtype == RK_T_STR || p->vtype == RK_T_BYTES) && p->last;
	default:
		return 0;
	}
}

/* Bounds for a range on a text string followed by a literal separator L.
 * Lower: prefix + lo (any value >= lo gives a key >= that, whatever follows).
 * Upper: a value v <= hi is hi itself or smaller at its first difference,
 * unless v is a proper prefix of hi: then its key continues with L, which may
 * sort above hi's next byte. So the stop is the successor of prefix +
 * hi[0..k) + L[0] for the first k where L[0] >= hi[k], else of prefix + hi. */
static void text_bounds(uint8_t *a, size_t *al, uint8_t *b, size_t *bl, int *bounded, const state *st,
                        const rk_part *p, const fcons *f, const rk_part *lit)
{
	memcpy(a, st->bytes, st->len);
	*al = st->len;
	if (f->lo) {
		memcpy(a + *al, f->lo->v.s.ptr, f->lo->v.s.len);
		*al += f->lo->v.s.len;
	}
	uint8_t *tmp = b; /* build the candidate in b, then take its successor in place */
	size_t n = st->len;
	memcpy(tmp, st->bytes, st->len);
	if (!f->hi) {
		*bl = rk_plan__prefix_end(b, tmp, n);
		*bounded = *bl > 0;
		return;
	}
	const uint8_t *hi = f->hi->v.s.ptr;
	size_t hl = f->hi->v.s.len, k = 0;
	while (k < hl && lit->lit[0] < hi[k])
		k++;
	memcpy(tmp + n, hi, k);
	n += k;
	if (k < hl)
		tmp[n++] = lit->lit[0];
	*bl = rk_plan__prefix_end(b, tmp, n);
	*bounded = *bl > 0;
	(void)p;
}

/* Encodes the part for one bound value into out (appended after the prefix). */
static int encode_bound(planner *pl, state *st, const rk_part *p, const rk_value *v, uint8_t *out, size_t *len)
{
	rk_plan__state_values(pl, st);
	pl->vals[p->field] = *v;
	memcpy(out, st->bytes, st->len);
	rk_wbuf w = {out, st->len, pl->s->max_key_len};
	int rc = rk_key__encode_part(pl->enc, &w, p, pl->vals);
	*len = w.len;
	return rc;
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
	uint8_t *d = malloc(n ? n : 1);
	if (d && n)
		memcpy(d, p, n);
	return d;
}

void rk_plan__pairs_free(rk__rpair *pairs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(pairs[i].r.start);
		free(pairs[i].r.stop);
		free(pairs[i].l.start);
		free(pairs[i].l.stop);
	}
	free(pairs);
}

/* Adds range [a, b) (b NULL: unbounded) of a state's key prefix: its keys'
 * logical forms start with the state's, so they lie in [that, its
 * successor). For a get, a is the whole key and the bound its logical form. */
static int add_range(planner *pl, const state *st, const uint8_t *a, size_t al, const uint8_t *b,
                     size_t bl)
{
	if (pl->npairs == pl->pcap) {
		size_t nc = pl->pcap ? pl->pcap * 2 : 16;
		rk__rpair *np = realloc(pl->pairs, nc * sizeof *np);
		if (!np)
			return rk__err(RK_ENOMEM, "out of memory planning");
		pl->pairs = np;
		pl->pcap = nc;
	}
	rk__rpair *p = &pl->pairs[pl->npairs];
	memset(p, 0, sizeof *p);
	p->r.bucket = p->l.bucket = st->bucket;
	p->r.start = dup_bytes(a, al);
	p->r.start_len = al;
	p->l.start = dup_bytes(st->lbytes, st->llen);
	p->l.start_len = st->llen;
	if (b) {
		p->r.stop = dup_bytes(b, bl);
		p->r.stop_len = bl;
		if (p->r.stop && (p->l.stop = dup_bytes(st->lbytes, st->llen)) != NULL &&
		    (p->l.stop_len = rk_plan__prefix_end(p->l.stop, p->l.stop, st->llen)) == 0) {
			free(p->l.stop); /* a prefix of 0xff bytes: no successor */
			p->l.stop = NULL;
		}
	}
	pl->npairs++;
	if (!p->r.start || !p->l.start || (b && !p->r.stop))
		return rk__err(RK_ENOMEM, "out of memory planning");
	return 0;
}

static int pair_key_cmp(const void *x, const void *y)
{
	const rk__rpair *a = x, *b = y;
	return rk__bytes_cmp(a->r.start, a->r.start_len, b->r.start, b->r.start_len);
}

/* Sorts ranges and merges those of one bucket that touch or overlap; the
 * merged range's logical bounds cover both. */
static void merge_ranges(planner *pl)
{
	if (pl->npairs < 2)
		return;
	qsort(pl->pairs, pl->npairs, sizeof *pl->pairs, pair_key_cmp);
	size_t o = 0;
	for (size_t i = 1; i < pl->npairs; i++) {
		rk__rpair *cur = &pl->pairs[o], *nx = &pl->pairs[i];
		int unbounded = cur->r.stop == NULL;
		/* ranges of different buckets stay apart: each is one stream of the ordered merge */
		if (cur->r.bucket == nx->r.bucket &&
		    (unbounded || rk__bytes_cmp(nx->r.start, nx->r.start_len, cur->r.stop, cur->r.stop_len) <= 0)) {
			/* extend cur to cover nx */
			if (!unbounded && (!nx->r.stop || rk__bytes_cmp(nx->r.stop, nx->r.stop_len, cur->r.stop, cur->r.stop_len) > 0)) {
				free(cur->r.stop);
				cur->r.stop = nx->r.stop;
				cur->r.stop_len = nx->r.stop_len;
				nx->r.stop = NULL;
			}
			if (rk__bytes_cmp(nx->l.start, nx->l.start_len, cur->l.start, cur->l.start_len) < 0) {
				free(cur->l.start);
				cur->l.start = nx->l.start;
				cur->l.start_len = nx->l.start_len;
				nx->l.start = NULL;
			}
			if (cur->l.stop && (!nx->l.stop || rk__bytes_cmp(nx->l.stop, nx->l.stop_len, cur->l.stop, cur->l.stop_len) > 0)) {
				free(cur->l.stop);
				cur->l.stop = nx->l.stop;
				cur->l.stop_len = nx->l.stop_len;
				nx->l.stop = NULL;
			}
			free(nx->r.start);
			free(nx->r.stop);
			free(nx->l.start);
			free(nx->l.stop);
			continue;
		}
		pl->pairs[++o] = *nx;
	}
	pl->npairs = o + 1;
}

/* ---- what the walk ends in ---- */

/* Every key part bound: the key prefixes are whole keys, read by gets
 * (repeated IN values give one get). */
int rk_plan__make_gets(planner *pl)
{
	int rc;
	pl->plan->kind = RK_PLAN_GETS;
	for (size_t i = 0; i < pl->nst; i++)
		if ((rc = add_range(pl, &pl->st[i], pl->st[i].bytes, pl->st[i].len, NULL, 0)) < 0)
			return rc;
	rk_plan__say(pl, "Every key part is bound: %zu point get%s. ", pl->npairs, pl->npairs == 1 ? "" : "s");
	if (pl->npairs > 1) {
		qsort(pl->pairs, pl->npairs, sizeof *pl->pairs, pair_key_cmp);
		size_t o = 0;
		for (size_t i = 1; i < pl->npairs; i++) {
			rk__rpair *a = &pl->pairs[o], *b = &pl->pairs[i];
			if (!rk__bytes_cmp(a->r.start, a->r.start_len, b->r.start, b->r.start_len)) {
				free(b->r.start);
				free(b->l.start);
				continue;
			}
			pl->pairs[++o] = *b;
		}
		pl->npairs = o + 1;
	}
	return 0;
}

/* The part the walk stopped on and what bounds it. */
typedef struct stop_info {
	const rk_part *p; /* NULL: the walk ran off the end (a capped Phoenix salt) */
	const fcons *f;   /* its field's constraints, when it is a value part */
	int has_range;    /* a range on its field gives tight bounds */
	int has_prefix;   /* a string prefix on its field gives tight bounds */
	int loose;        /* a range on a text field before a separator: loose bounds */
} stop_info;

static int stop_info_get(planner *pl, stop_info *si)
{
	const rk_part *p = pl->stop_part;
	const fcons *f = p && p->kind == P_VAL ? &pl->fc[p->field] : NULL;
	si->p = p;
	si->f = f;
	si->has_range = f && (f->lo || f->hi) && rk_plan__range_capable(p, 0);
	si->has_prefix = f && f->prefix && rk_plan__range_capable(p, 1);
	/* a text string before a separator: the separator may sort above the
	   string's own bytes, so only loose bounds exist (see text_bounds) */
	si->loose = f && (f->lo || f->hi) && !si->has_range && !si->has_prefix && p->vop == V_FIELD &&
	            p->enc == E_TEXT && p->next_is_lit && (p->vtype == RK_T_STR || p->vtype == RK_T_BYTES);
	/* the fields this stop part reads, other than the ranged one, must be
	   expanded; past the bound, the part is not bound at all */
	uint64_t stop_eq = p ? rk_schema__fields_used(p, 1) & pl->eqmask : 0;
	if (p && !pl->capped && rk_plan__expansion(pl, stop_eq, pl->expanded) > pl->max)
		rk_plan__cap_at(pl, p, rk_plan__expansion(pl, stop_eq, pl->expanded));
	if (pl->capped)
		si->has_range = si->has_prefix = si->loose = 0;
	if (p && !pl->capped)
		return rk_plan__expand_fields(pl, stop_eq, &pl->expanded);
	return 0;
}

/* A range on a value part that keeps order: its bounds encoded after the
 * state's prefix, inverted for a reverse timestamp or a descending part. */
static int value_bounds(planner *pl, state *st, const stop_info *si, uint8_t *a, size_t *al, uint8_t *b,
                        size_t *bl, int *bounded_b)
{
	const rk_schema *s = pl->s;
	const rk_part *p = si->p;
	const fcons *f = si->f;
	int rc;
	int inv = (p->vop == V_RTS) ^ p->desc;
	const rk_value *lo = f->lo, *hi = f->hi;
	int lo_incl = f->lo_incl || p->vop == V_TBUCKET, hi_incl = f->hi_incl || p->vop == V_TBUCKET;
	rk_value clamp_hi;
	if (p->vop == V_RTS) { /* rts needs 0 <= ts <= max */
		rk_type ft = s->ftype[p->field];
		if (lo && rk_type__is_signed(ft) && lo->v.i < 0)
			lo = NULL;
		if (hi && (rk_type__is_signed(ft) ? hi->v.i < 0 : 0))
			return rk__err(RK_EINVALID, "where: impossible range: '%s' below 0 under rts()", s->fname[p->field]);
		if (hi && (uint64_t)hi->v.u > p->vmax) {
			clamp_hi = *hi;
			clamp_hi.v.u = p->vmax;
			hi = &clamp_hi;
			hi_incl = 1;
		}
		if (lo && (uint64_t)lo->v.u > p->vmax)
			return rk__err(RK_EINVALID, "where: impossible range: '%s' above the rts() maximum", s->fname[p->field]);
	}
	const rk_value *ea = inv ? hi : lo, *eb = inv ? lo : hi;
	int ea_incl = inv ? hi_incl : lo_incl, eb_incl = inv ? lo_incl : hi_incl;
	if (ea) {
		if ((rc = encode_bound(pl, st, p, ea, a, al)) < 0)
			return rc;
		if (!ea_incl) {
			size_t n = rk_plan__prefix_end(pl->buf, a, *al);
			memcpy(a, pl->buf, n);
			*al = n;
		}
	} else {
		memcpy(a, st->bytes, st->len);
		*al = st->len;
	}
	if (eb) {
		if ((rc = encode_bound(pl, st, p, eb, b, bl)) < 0)
			return rc;
		if (eb_incl) {
			size_t n = rk_plan__prefix_end(pl->buf, b, *bl);
			memcpy(b, pl->buf, n);
			*bl = n;
			*bounded_b = n > 0;
		}
	} else {
		*bl = rk_plan__prefix_end(b, st->bytes, st->len);
		*bounded_b = *bl > 0;
	}
	return 0;
}

/* The range of one key prefix: [a, b), b unbounded when *bounded_b is 0. */
static int state_range(planner *pl, state *st, const stop_info *si, uint8_t *a, size_t *al, uint8_t *b,
                       size_t *bl, int *bounded_b)
{
	const rk_part *p = si->p;
	*al = *bl = 0;
	*bounded_b = 1;
	if (si->has_prefix && !si->has_range) {
		const rk_value *pv = si->f->prefix;
		memcpy(a, st->bytes, st->len);
		*al = st->len;
		if (p->desc) {
			for (size_t j = 0; j < pv->v.s.len; j++)
				a[(*al)++] = (uint8_t)~pv->v.s.ptr[j];
		} else {
			memcpy(a + *al, pv->v.s.ptr, pv->v.s.len);
			*al += pv->v.s.len;
		}
		*bl = rk_plan__prefix_end(b, a, *al);
		*bounded_b = *bl > 0;
		return 0;
	}
	if (si->loose) {
		text_bounds(a, al, b, bl, bounded_b, st, p, si->f, &pl->s->parts[(size_t)(p - pl->s->parts) + 1]);
		return 0;
	}
	if (si->has_range)
		return value_bounds(pl, st, si, a, al, b, bl, bounded_b);
	memcpy(a, st->bytes, st->len);
	*al = st->len;
	*bl = rk_plan__prefix_end(b, st->bytes, st->len);
	*bounded_b = *bl > 0;
	return 0;
}

/* The plan's kind for ranges, said in words. */
static void ranges_kind(planner *pl, const stop_info *si)
{
	const rk_schema *s = pl->s;
	const rk_part *p = si->p;
	rk_plan *plan = pl->plan;
	char pw[256];
	/* bytes bound beyond the spread prefix? */
	int bound_prefix = 0;
	for (size_t i = 0; i < pl->nst; i++)
		bound_prefix |= pl->st[i].len > (pl->fanned ? s->info.prefix_len : 0);
	int ranged = si->has_range || si->has_prefix;
	if (!bound_prefix && !ranged && pl->fanned) {
		plan->kind = RK_PLAN_FULL_SCAN;
		rk_plan__say(pl, "Nothing binds %s: a full scan, read as one stream per bucket. ", rk_plan__part_words(s, p, pw, sizeof pw));
	} else if (!bound_prefix && !ranged && !si->loose) {
		plan->kind = RK_PLAN_FULL_SCAN;
		if (p && p->kind == P_VAL)
			rk_plan__say(pl, "The key leads with %s and nothing binds it: a full scan of the table, every row checked. ",
			    rk_plan__part_words(s, p, pw, sizeof pw));
		else if (p)
			rk_plan__say(pl, "The key leads with %s, which cannot be computed from the bound fields: "
			        "a full scan of the table, every row checked. ", rk_plan__part_words(s, p, pw, sizeof pw));
	} else {
		plan->kind = RK_PLAN_RANGES;
		if (p && ranged)
			rk_plan__say(pl, "%s %s bounds each range%s. ", si->has_prefix && !si->has_range ? "A string prefix on" : "A range on",
			    s->fname[p->field], p->vop == V_RTS || p->desc ? " (bounds inverted: the key stores it descending)" : "");
		else if (p)
			rk_plan__say(pl, "The bound fields fix a key prefix; nothing binds %s, so each range covers everything under "
			        "its prefix. ", rk_plan__part_words(s, p, pw, sizeof pw));
	}
}

/* A part was not bound: one range per key prefix, as tight as the part's
 * encoding and constraints allow. */
int rk_plan__make_ranges(planner *pl)
{
	const rk_schema *s = pl->s;
	stop_info si;
	int rc = stop_info_get(pl, &si);
	if (rc < 0)
		return rc;
	uint8_t *a = malloc(s->max_key_len + 1), *b = malloc(s->max_key_len + 1);
	if (!a || !b) {
		free(a);
		free(b);
		return rk__err(RK_ENOMEM, "out of memory planning");
	}
	for (size_t i = 0; i < pl->nst && rc == 0; i++) {
		size_t al, bl;
		int bounded_b;
		if ((rc = state_range(pl, &pl->st[i], &si, a, &al, b, &bl, &bounded_b)) < 0)
			break;
		if (bounded_b && rk__bytes_cmp(a, al, b, bl) >= 0)
			continue; /* empty */
		rc = add_range(pl, &pl->st[i], a, al, bounded_b ? b : NULL, bl);
	}
	free(a);
	free(b);
	if (rc < 0)
		return rc;
	if (si.loose)
		rk_plan__say(pl, "A range on %s, a text field before a separator: the range is loose (a shorter value "
		        "followed by the separator can sort above the bound), the filter checks it. ",
		    s->fname[si.p->field]);
	/* a text prefix may run into the separator after it: keep the filter */
	if ((si.has_range || si.has_prefix) && !(si.p->vop == V_TBUCKET || (si.has_range && si.has_prefix) ||
	                                         (si.has_prefix && si.p->enc == E_TEXT)))
		pl->covered |= 1ULL << si.p->field;
	ranges_kind(pl, &si);
	merge_ranges(pl);
	if (pl->plan->kind == RK_PLAN_RANGES)
		rk_plan__say(pl, "%zu range%s. ", pl->npairs, pl->npairs == 1 ? "" : "s");
	return 0;
}

