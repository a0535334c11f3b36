/*
 * The query planner: from a predicate over a schema's fields to point gets,
 * the minimal set of row ranges, or a full scan.
 *
 * The idea: walk the key template left to right, carrying a set of known key
 * prefixes ("states"). A literal extends every prefix; a part whose inputs
 * are bound by = or IN extends each prefix once per value combination; a
 * salt or bucket that cannot be computed forks every prefix once per bucket.
 * The first part that is not fully bound ends the walk: if it is bound by a
 * range or a string prefix and its encoding preserves order, each prefix
 * becomes a tight range; otherwise each prefix becomes "everything under this
 * prefix". When every part was bound, the prefixes are whole keys: gets.
 *
 * What it deliberately does not do: read data, or know regions (the caller
 * maps ranges onto a table's region map to estimate regions touched).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/codec.h"
#include "key/encode_int.h"
#include "key/error.h"
#include "key/plan_int.h"
#include "key/predicate_int.h"
#include "key/schema_int.h"

#define RK_PLAN_MAX 65536 /* keys or ranges a plan may expand to */

/* ---- plan building ---- */

typedef struct {
	uint8_t *bytes;
	size_t len;
	uint32_t *choice; /* per field: index into its eq values */
	int bucket;
} state;

typedef struct {
	const rk_schema *s;
	rk_encoder *enc;
	fcons *fc;
	state *st;
	size_t nst;
	uint8_t *buf; /* scratch of max_key_len */
	rk_value vals[RK_MAX_FIELDS];
	char *words;
	size_t wlen, wcap;
	size_t max;   /* rk_plan_options.max_ranges */
	int capped;   /* the bound stopped the walk */
	rk_plan *plan;
	size_t rcap;  /* ranges allocated in plan */
	uint64_t eqmask;   /* fields bound by = / IN */
	uint64_t expanded; /* fields whose values the key prefixes were expanded over */
	uint64_t covered;  /* fields whose conditions the key bytes enforce exactly */
	const rk_part *stop_part; /* the part the walk stopped on, or NULL */
	size_t stop_at;    /* its index (nparts: every part was bound) */
	int fanned;        /* a salt or bucket forked the prefixes */
	int salt_capped;   /* a Phoenix salt over a bound key was over the bound */
} planner;

static void say(planner *pl, const char *fmt, ...) RK_PRINTF(2, 3);
static void say(planner *pl, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(pl->words ? pl->words + pl->wlen : NULL, pl->words ? pl->wcap - pl->wlen : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (pl->words && (size_t)n < pl->wcap - pl->wlen) {
			pl->wlen += (size_t)n;
			return;
		}
		size_t cap = pl->wcap * 2 + (size_t)n + 256;
		char *nw = realloc(pl->words, cap);
		if (!nw)
			return;
		pl->words = nw;
		pl->wcap = cap;
	}
}

static const char *part_words(const rk_schema *s, const rk_part *p, char *buf, size_t cap);

static void states_free(state *st, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(st[i].bytes);
		free(st[i].choice);
	}
	free(st);
}

/* Replaces the state set by `mult` copies of each (the caller fills them). */
static int states_fork(planner *pl, size_t mult)
{
	size_t n = pl->nst * mult;
	if (n > RK_PLAN_MAX)
		return rk__err(RK_ETOOLONG, "the plan would expand to %zu keys or ranges (limit %d): bind fewer IN values",
		               n, RK_PLAN_MAX);
	state *ns = calloc(n, sizeof *ns);
	if (!ns)
		return rk__err(RK_ENOMEM, "out of memory planning");
	size_t nf = pl->s->nfields, cap = pl->s->max_key_len;
	for (size_t i = 0; i < pl->nst; i++)
		for (size_t m = 0; m < mult; m++) {
			state *d = &ns[i * mult + m];
			d->bytes = malloc(cap ? cap : 1);
			d->choice = malloc((nf ? nf : 1) * sizeof *d->choice);
			if (!d->bytes || !d->choice) {
				states_free(ns, n);
				return rk__err(RK_ENOMEM, "out of memory planning");
			}
			memcpy(d->bytes, pl->st[i].bytes, pl->st[i].len);
			d->len = pl->st[i].len;
			memcpy(d->choice, pl->st[i].choice, nf * sizeof *d->choice);
			d->bucket = pl->st[i].bucket;
		}
	states_free(pl->st, pl->nst);
	pl->st = ns;
	pl->nst = n;
	return 0;
}

/* How many states expanding the fields in `mask` not yet expanded (`done`)
 * would make, saturating at SIZE_MAX. */
static size_t expansion(const planner *pl, uint64_t mask, uint64_t done)
{
	size_t n = pl->nst;
	for (size_t k = 0; k < pl->s->nfields; k++) {
		if (!(mask >> k & 1) || (done >> k & 1))
			continue;
		size_t m = pl->fc[k].neq;
		if (m && n > SIZE_MAX / m)
			return SIZE_MAX;
		n *= m;
	}
	return n;
}

/* The bound is reached before part p: say so; the walk stops there and each
 * key prefix so far is read whole (the residual filter checks the rest). */
static void cap_at(planner *pl, const rk_part *p, size_t would)
{
	char pw[256];
	pl->capped = 1;
	if (would == SIZE_MAX)
		say(pl, "Binding %s by its IN values would make more keys or ranges than the bound of %zu (max_ranges): ",
		    part_words(pl->s, p, pw, sizeof pw), pl->max);
	else
		say(pl, "Binding %s by its IN values would make %zu keys or ranges, over the bound of %zu (max_ranges): ",
		    part_words(pl->s, p, pw, sizeof pw), would, pl->max);
	say(pl, "the plan stops before it and reads everything under each of the %zu key prefix%s bound so far. ",
	    pl->nst, pl->nst == 1 ? "" : "es");
}

/* Field values of a state (eq choices) into pl->vals. */
static void state_values(planner *pl, const state *st)
{
	for (size_t k = 0; k < pl->s->nfields; k++) {
		memset(&pl->vals[k], 0, sizeof pl->vals[k]);
		if (pl->fc[k].eq)
			pl->vals[k] = pl->fc[k].eq[st->choice[k]];
	}
}

/* Expands the states over the eq values of every field in `mask` not yet
 * expanded (bit set in *done). */
static int expand_fields(planner *pl, uint64_t mask, uint64_t *done)
{
	for (size_t k = 0; k < pl->s->nfields; k++) {
		if (!(mask >> k & 1) || (*done >> k & 1))
			continue;
		size_t m = pl->fc[k].neq;
		size_t old = pl->nst;
		int rc = states_fork(pl, m);
		if (rc < 0)
			return rc;
		for (size_t i = 0; i < old; i++)
			for (size_t j = 0; j < m; j++)
				pl->st[i * m + j].choice[k] = (uint32_t)j;
		*done |= 1ULL << k;
	}
	return 0;
}

static int append_part(planner *pl, state *st, const rk_part *p)
{
	state_values(pl, st);
	rk_wbuf w = {st->bytes, st->len, pl->s->max_key_len};
	int rc = rk_key__encode_part(pl->enc, &w, p, pl->vals);
	if (rc < 0)
		return rc;
	st->len = w.len;
	return 0;
}

/* Smallest key above every key that starts with p[0..n): drop trailing 0xff,
 * increment the last byte. Returns 0 when there is none (unbounded). */
static size_t prefix_end(uint8_t *out, const uint8_t *p, size_t n)
{
	while (n > 0 && p[n - 1] == 0xff)
		n--;
	if (n == 0)
		return 0;
	memmove(out, p, n); /* out may be p */
	out[n - 1]++;
	return n;
}

static int bucket_bytes(uint8_t *out, size_t *len, const rk_part *p, unsigned b)
{
	rk_wbuf w = {out, 0, 16};
	int rc;
	if (p->kind == P_PSALT || p->form == F_BIN)
		rc = rk_w_byte(&w, (uint8_t)b);
	else if (p->form == F_DEC)
		rc = rk_codec__put_dec(&w, b, (int)p->fixed);
	else
		rc = rk_w_byte(&w, (uint8_t)p->alpha[b]);
	*len = w.len;
	return rc;
}

/* Can this part answer a range (or prefix) on its field with a tight range? */
static int range_capable(const rk_part *p, int is_prefix)
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
		*bl = prefix_end(b, tmp, n);
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
	*bl = prefix_end(b, tmp, n);
	*bounded = *bl > 0;
	(void)p;
}

/* Encodes the part for one bound value into out (appended after the prefix). */
static int encode_bound(planner *pl, state *st, const rk_part *p, const rk_value *v, uint8_t *out, size_t *len)
{
	state_values(pl, st);
	pl->vals[p->field] = *v;
	memcpy(out, st->bytes, st->len);
	rk_wbuf w = {out, st->len, pl->s->max_key_len};
	int rc = rk_key__encode_part(pl->enc, &w, p, pl->vals);
	*len = w.len;
	return rc;
}

static int add_range(rk_plan *plan, size_t *cap, const uint8_t *a, size_t al, const uint8_t *b, size_t bl, int bucket)
{
	if (plan->nranges == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		rk_key_range *nr = realloc(plan->ranges, nc * sizeof *nr);
		if (!nr)
			return rk__err(RK_ENOMEM, "out of memory planning");
		plan->ranges = nr;
		*cap = nc;
	}
	rk_key_range *r = &plan->ranges[plan->nranges];
	memset(r, 0, sizeof *r);
	r->bucket = bucket;
	r->start = malloc(al ? al : 1);
	r->stop = b ? malloc(bl ? bl : 1) : NULL;
	if (!r->start || (b && !r->stop)) {
		free(r->start);
		free(r->stop);
		return rk__err(RK_ENOMEM, "out of memory planning");
	}
	memcpy(r->start, a, al);
	r->start_len = al;
	if (b) {
		memcpy(r->stop, b, bl);
		r->stop_len = bl;
	}
	plan->nranges++;
	return 0;
}

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}

static int range_cmp(const void *x, const void *y)
{
	const rk_key_range *a = x, *b = y;
	return key_cmp(a->start, a->start_len, b->start, b->start_len);
}

/* Sorts ranges and merges those that touch or overlap. */
static void merge_ranges(rk_plan *plan)
{
	if (plan->nranges < 2)
		return;
	qsort(plan->ranges, plan->nranges, sizeof *plan->ranges, range_cmp);
	size_t o = 0;
	for (size_t i = 1; i < plan->nranges; i++) {
		rk_key_range *cur = &plan->ranges[o], *nx = &plan->ranges[i];
		int unbounded = cur->stop == NULL;
		/* ranges of different buckets stay apart: each is one stream of the ordered merge */
		if (cur->bucket == nx->bucket &&
		    (unbounded || key_cmp(nx->start, nx->start_len, cur->stop, cur->stop_len) <= 0)) {
			/* extend cur to cover nx */
			if (!unbounded && (!nx->stop || key_cmp(nx->stop, nx->stop_len, cur->stop, cur->stop_len) > 0)) {
				free(cur->stop);
				cur->stop = nx->stop;
				cur->stop_len = nx->stop_len;
				nx->stop = NULL;
			}
			free(nx->start);
			free(nx->stop);
			continue;
		}
		plan->ranges[++o] = *nx;
	}
	plan->nranges = o + 1;
}

void rk_plan_free(rk_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->nranges; i++) {
		free(plan->ranges[i].start);
		free(plan->ranges[i].stop);
	}
	free(plan->ranges);
	free(plan->explain);
	free(plan);
}

static const char *part_words(const rk_schema *s, const rk_part *p, char *buf, size_t cap)
{
	char *b = NULL;
	size_t l = 0, c = 0;
	rk_schema__render(&b, &l, &c, s, p, 1);
	snprintf(buf, cap, "%s", b ? b : "?");
	free(b);
	return buf;
}

/* ---- the walk over the key template ---- */

/* A salt or bucket the bound fields cannot compute: every key prefix forks
 * once per bucket, each extended by its bucket's bytes. */
static int fork_buckets(planner *pl, const rk_part *p)
{
	char pw[256];
	size_t old = pl->nst;
	int rc = states_fork(pl, p->n);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < old; i++)
		for (unsigned b = 0; b < p->n; b++) {
			state *st = &pl->st[i * p->n + b];
			uint8_t bb[16];
			size_t bl;
			if ((rc = bucket_bytes(bb, &bl, p, b)) < 0)
				return rc;
			memcpy(st->bytes + st->len, bb, bl);
			st->len += bl;
			st->bucket = (int)b;
		}
	pl->fanned = 1;
	say(pl, "%s cannot be computed from the bound fields: one range per bucket (%u). ",
	    part_words(pl->s, p, pw, sizeof pw), p->n);
	return 0;
}

/* A part whose inputs are all bound by = / IN: each key prefix extended
 * once per value combination. Past the bound, the walk stops before it. */
static int bind_part(planner *pl, const rk_part *p, uint64_t used, int *stop)
{
	size_t would = expansion(pl, used, pl->expanded);
	int rc;
	if (would > pl->max) {
		cap_at(pl, p, would);
		*stop = 1;
		return 0;
	}
	if ((rc = expand_fields(pl, used, &pl->expanded)) < 0)
		return rc;
	for (size_t i = 0; i < pl->nst; i++)
		if ((rc = append_part(pl, &pl->st[i], p)) < 0)
			return rc;
	if (p->kind == P_VAL && p->vop != V_TBUCKET)
		pl->covered |= 1ULL << p->field;
	return 0;
}

/* Walks the template left to right until a part that is not bound (its
 * index in pl->stop_at, the part in pl->stop_part when the walk stopped
 * on it), or the end. */
static int walk(planner *pl)
{
	const rk_schema *s = pl->s;
	int rc;
	size_t k;
	for (k = 0; k < s->nparts; k++) {
		const rk_part *p = &s->parts[k];
		uint64_t used = rk_schema__fields_used(p, 1);
		if (p->kind == P_LIT) {
			for (size_t i = 0; i < pl->nst; i++)
				if ((rc = append_part(pl, &pl->st[i], p)) < 0)
					return rc;
			continue;
		}
		if (p->kind == P_PSALT) {
			/* computable only when the whole key is: then a later pass makes gets
			   (unless their number is over the bound: then one range per bucket) */
			if ((s->info.point_get_mask & ~pl->eqmask) == 0) {
				size_t would = expansion(pl, s->info.point_get_mask, pl->expanded);
				if (would <= pl->max)
					break;
				say(pl, "Computing the salt would take %zu point gets, over the bound of %zu (max_ranges): ",
				    would, pl->max);
				pl->salt_capped = 1;
			}
		}
		if (p->kind == P_SALT || p->kind == P_PSALT || (p->kind == P_BUCKET && (used & ~pl->eqmask))) {
			if ((rc = fork_buckets(pl, p)) < 0)
				return rc;
			continue;
		}
		if ((used & ~pl->eqmask) == 0) { /* every input bound by = / IN */
			int stop = 0;
			if ((rc = bind_part(pl, p, used, &stop)) < 0)
				return rc;
			if (!stop)
				continue;
		}
		pl->stop_part = p;
		break;
	}
	pl->stop_at = k;
	return 0;
}

/* A Phoenix salt over a fully bound key: whole keys encoded, salt and all. */
static int phoenix_keys(planner *pl)
{
	const rk_schema *s = pl->s;
	int rc;
	if ((rc = expand_fields(pl, s->info.point_get_mask, &pl->expanded)) < 0)
		return rc;
	for (size_t i = 0; i < pl->nst; i++) {
		state_values(pl, &pl->st[i]);
		size_t kl;
		if ((rc = rk_key_encode(pl->st[i].bytes, s->max_key_len, &kl, pl->enc, pl->vals)) < 0)
			return rc;
		pl->st[i].len = kl;
		pl->st[i].bucket = rk_key_bucket(pl->enc, pl->st[i].bytes, kl);
	}
	pl->covered = s->info.point_get_mask & s->info.decodable_mask;
	return 0;
}

/* ---- what the walk ends in ---- */

/* Every key part bound: the key prefixes are whole keys, read by gets
 * (repeated IN values give one get). */
static int make_gets(planner *pl)
{
	rk_plan *plan = pl->plan;
	int rc;
	plan->kind = RK_PLAN_GETS;
	for (size_t i = 0; i < pl->nst; i++)
		if ((rc = add_range(plan, &pl->rcap, pl->st[i].bytes, pl->st[i].len, NULL, 0, pl->st[i].bucket)) < 0)
			return rc;
	say(pl, "Every key part is bound: %zu point get%s. ", plan->nranges, plan->nranges == 1 ? "" : "s");
	if (plan->nranges > 1) {
		qsort(plan->ranges, plan->nranges, sizeof *plan->ranges, range_cmp);
		size_t o = 0;
		for (size_t i = 1; i < plan->nranges; i++) {
			rk_key_range *a = &plan->ranges[o], *b = &plan->ranges[i];
			if (!key_cmp(a->start, a->start_len, b->start, b->start_len)) {
				free(b->start);
				continue;
			}
			plan->ranges[++o] = *b;
		}
		plan->nranges = o + 1;
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
	si->has_range = f && (f->lo || f->hi) && range_capable(p, 0);
	si->has_prefix = f && f->prefix && range_capable(p, 1);
	/* a text string before a separator: the separator may sort above the
	   string's own bytes, so only loose bounds exist (see text_bounds) */
	si->loose = f && (f->lo || f->hi) && !si->has_range && !si->has_prefix && p->vop == V_FIELD &&
	            p->enc == E_TEXT && p->next_is_lit && (p->vtype == RK_T_STR || p->vtype == RK_T_BYTES);
	/* the fields this stop part reads, other than the ranged one, must be
	   expanded; past the bound, the part is not bound at all */
	uint64_t stop_eq = p ? rk_schema__fields_used(p, 1) & pl->eqmask : 0;
	if (p && !pl->capped && expansion(pl, stop_eq, pl->expanded) > pl->max)
		cap_at(pl, p, expansion(pl, stop_eq, pl->expanded));
	if (pl->capped)
		si->has_range = si->has_prefix = si->loose = 0;
	if (p && !pl->capped)
		return expand_fields(pl, stop_eq, &pl->expanded);
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
			size_t n = prefix_end(pl->buf, a, *al);
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
			size_t n = prefix_end(pl->buf, b, *bl);
			memcpy(b, pl->buf, n);
			*bl = n;
			*bounded_b = n > 0;
		}
	} else {
		*bl = prefix_end(b, st->bytes, st->len);
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
		*bl = prefix_end(b, a, *al);
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
	*bl = prefix_end(b, st->bytes, st->len);
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
		say(pl, "Nothing binds %s: a full scan, read as one stream per bucket. ", part_words(s, p, pw, sizeof pw));
	} else if (!bound_prefix && !ranged && !si->loose) {
		plan->kind = RK_PLAN_FULL_SCAN;
		if (p && p->kind == P_VAL)
			say(pl, "The key leads with %s and nothing binds it: a full scan of the table, every row checked. ",
			    part_words(s, p, pw, sizeof pw));
		else if (p)
			say(pl, "The key leads with %s, which cannot be computed from the bound fields: "
			        "a full scan of the table, every row checked. ", part_words(s, p, pw, sizeof pw));
	} else {
		plan->kind = RK_PLAN_RANGES;
		if (p && ranged)
			say(pl, "%s bounds %s%s. ", si->has_prefix && !si->has_range ? "A string prefix" : "A range on",
			    s->fname[p->field], p->vop == V_RTS || p->desc ? " (bounds inverted: the key stores it descending)" : "");
		else if (p)
			say(pl, "The bound fields fix a key prefix; nothing binds %s, so each range covers everything under "
			        "its prefix. ", part_words(s, p, pw, sizeof pw));
	}
}

/* A part was not bound: one range per key prefix, as tight as the part's
 * encoding and constraints allow. */
static int make_ranges(planner *pl)
{
	const rk_schema *s = pl->s;
	rk_plan *plan = pl->plan;
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
		if (bounded_b && key_cmp(a, al, b, bl) >= 0)
			continue; /* empty */
		rc = add_range(plan, &pl->rcap, a, al, bounded_b ? b : NULL, bl, pl->st[i].bucket);
	}
	free(a);
	free(b);
	if (rc < 0)
		return rc;
	if (si.loose)
		say(pl, "A range on %s, a text field before a separator: the range is loose (a shorter value "
		        "followed by the separator can sort above the bound), the filter checks it. ",
		    s->fname[si.p->field]);
	/* a text prefix may run into the separator after it: keep the filter */
	if ((si.has_range || si.has_prefix) && !(si.p->vop == V_TBUCKET || (si.has_range && si.has_prefix) ||
	                                         (si.has_prefix && si.p->enc == E_TEXT)))
		pl->covered |= 1ULL << si.p->field;
	ranges_kind(pl, &si);
	merge_ranges(plan);
	if (plan->kind == RK_PLAN_RANGES)
		say(pl, "%zu range%s. ", plan->nranges, plan->nranges == 1 ? "" : "s");
	return 0;
}

/* Merge, residual filter and the rest of the explanation. */
static void finish_plan(planner *pl, const rk_predicate *pred)
{
	const rk_schema *s = pl->s;
	rk_plan *plan = pl->plan;
	const fcons *fc = pl->fc;
	plan->capped = pl->capped || pl->salt_capped;
	plan->merge = pl->fanned && plan->nranges > 1;
	if (plan->merge)
		say(pl, "Rows come back in logical order through a %zu-way merge on the key without its %u-byte prefix. ",
		    plan->nranges, s->info.prefix_len);
	/* residual: conditions on fields the ranges did not enforce exactly */
	for (size_t i = 0; i < pred->nconds; i++) {
		int fld = pred->conds[i].field;
		if (!(pl->covered >> fld & 1) ||
		    (fc[fld].eq && (fc[fld].lo || fc[fld].hi || fc[fld].prefix) && !(pl->covered >> fld & 1)))
			plan->residual = 1;
	}
	for (size_t i = 0; i < pred->nconds; i++)
		if (!(s->info.decodable_mask >> pred->conds[i].field & 1)) {
			say(pl, "'%s' cannot be recovered from a key: its conditions are enforced only as far as the key ranges go. ",
			    s->fname[pred->conds[i].field]);
			break;
		}
	say(pl, plan->residual ? "A residual filter checks the remaining conditions on decoded rows." : "No residual filter.");
}

/* ---- entry points ---- */

static int planner_init(planner *pl, rk_plan *plan, const rk_schema *s, const rk_predicate *pred,
                        const rk_plan_options *opts)
{
	int rc;
	pl->s = s;
	pl->plan = plan;
	pl->max = opts && opts->max_ranges ? opts->max_ranges : RK_PLAN_MAX_RANGES_DEFAULT;
	if (pl->max > RK_PLAN_MAX)
		pl->max = RK_PLAN_MAX;
	plan->buckets = s->info.buckets;
	plan->prefix_len = s->info.prefix_len;
	if ((rc = rk_plan__gather(pl->fc, pred)) < 0 || (rc = rk_encoder_new(&pl->enc, s, 1)) < 0)
		return rc;
	pl->buf = malloc(s->max_key_len + 1);
	pl->st = calloc(1, sizeof *pl->st);
	if (!pl->buf || !pl->st)
		return rk__err(RK_ENOMEM, "out of memory planning");
	pl->nst = 1;
	pl->st[0].bytes = malloc(s->max_key_len + 1);
	pl->st[0].choice = calloc(s->nfields + 1, sizeof *pl->st[0].choice);
	pl->st[0].bucket = -1;
	if (!pl->st[0].bytes || !pl->st[0].choice)
		return rk__err(RK_ENOMEM, "out of memory planning");
	for (size_t k = 0; k < s->nfields; k++)
		if (pl->fc[k].eq)
			pl->eqmask |= 1ULL << k;
	return 0;
}

static void planner_fini(planner *pl)
{
	states_free(pl->st, pl->nst);
	free(pl->buf);
	free(pl->words);
	rk_encoder_free(pl->enc);
	rk_plan__cons_free(pl->fc, pl->s->nfields);
}

int rk_plan_build(rk_plan **out, const rk_schema *s, const rk_predicate *pred)
{
	rk_plan_options o = RK_PLAN_OPTIONS_INIT;
	return rk_plan_build_opts(out, s, pred, &o);
}

int rk_plan_build_opts(rk_plan **out, const rk_schema *s, const rk_predicate *pred, const rk_plan_options *opts)
{
	fcons fc[RK_MAX_FIELDS];
	planner pl = {0};
	rk_plan *plan = calloc(1, sizeof *plan);
	int rc;
	memset(fc, 0, sizeof fc);
	pl.s = s;
	pl.fc = fc;
	if (!plan)
		return rk__err(RK_ENOMEM, "out of memory planning");
	if ((rc = planner_init(&pl, plan, s, pred, opts)) < 0 || (rc = walk(&pl)) < 0)
		goto fail;
	int all = pl.stop_at == s->nparts;
	if (!all && !pl.stop_part && s->parts[pl.stop_at].kind == P_PSALT) {
		if ((rc = phoenix_keys(&pl)) < 0)
			goto fail;
		all = 1;
	}
	if ((rc = all ? make_gets(&pl) : make_ranges(&pl)) < 0)
		goto fail;
	finish_plan(&pl, pred);
	plan->explain = pl.words;
	pl.words = NULL;
	planner_fini(&pl);
	*out = plan;
	return 0;
fail:
	planner_fini(&pl);
	rk_plan_free(plan);
	return rc;
}
