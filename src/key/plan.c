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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/codec.h"
#include "key/encode_int.h"
#include "key/error.h"
#include "key/plan_int.h"
#include "key/predicate_int.h"
#include "key/schema_int.h"
#include "key/units.h"

/* ---- the walk ---- */

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

void rk_plan_free(rk_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->nranges; i++) {
		free(plan->ranges[i].start);
		free(plan->ranges[i].stop);
		if (plan->logical) {
			free(plan->logical[i].start);
			free(plan->logical[i].stop);
		}
	}
	free(plan->ranges);
	free(plan->logical);
	free(plan->stream);
	free(plan->explain);
	free(plan);
}

static int fork_buckets(planner *pl, const rk_part *p)
{
	char pw[256];
	size_t old = pl->nst;
	int rc = rk_plan__states_fork(pl, p->n);
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
	rk_plan__say(pl, "%s cannot be computed from the bound fields: one range per bucket (%u). ",
	    rk_plan__part_words(pl->s, p, pw, sizeof pw), p->n);
	return 0;
}

#define TIME_BUCKETS_MAX 64 /* windows a bounded time range is read one range each */

/* A time bucket whose field a bounded range binds (tbucket(ts, 3600000)
 * under ts >= a AND ts < b): the windows it spans are few and known, so each
 * key prefix forks once per window and the parts after it (a host bound by
 * =) still narrow each one: OpenTSDB's row per metric, hour and tags read as
 * one range an hour. 0: not done (unbounded, too many windows, or over the
 * plan's bound), and the walk stops on the part as before. */
static int fork_time_buckets(planner *pl, const rk_part *p, int *done)
{
	const fcons *f = &pl->fc[p->field];
	int sgn = rk_type__is_signed(pl->s->ftype[p->field]);
	*done = 0;
	if (p->kind != P_VAL || p->vop != V_TBUCKET || f->eq || !f->lo || !f->hi || p->varg <= 0)
		return 0;
	/* worth it only when a part after it is bound too: else one range over
	   the windows reads the same rows with fewer seeks */
	int narrows = 0;
	for (const rk_part *q = p + 1; q < pl->s->parts + pl->s->nparts && !narrows; q++) {
		uint64_t used = rk_schema__fields_used(q, 1);
		narrows = q->kind == P_VAL && used && (used & ~pl->eqmask) == 0;
	}
	if (!narrows)
		return 0;
	int64_t W = p->varg, lo = sgn ? f->lo->v.i : (int64_t)f->lo->v.u,
	        hi = sgn ? f->hi->v.i : (int64_t)f->hi->v.u;
	if (!sgn && (f->lo->v.u > INT64_MAX || f->hi->v.u > INT64_MAX))
		return 0;
	if (!f->hi_incl) {
		if (hi == INT64_MIN)
			return 0;
		hi--;
	}
	if (hi < lo)
		return 0;
	int64_t blo = lo - ((lo % W) + W) % W, bhi = hi - ((hi % W) + W) % W;
	uint64_t n = ((uint64_t)bhi - (uint64_t)blo) / (uint64_t)W + 1;
	if (n > TIME_BUCKETS_MAX || pl->nst * n > pl->max)
		return 0;
	size_t old = pl->nst;
	int rc = rk_plan__states_fork(pl, (size_t)n);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < old; i++)
		for (uint64_t b = 0; b < n; b++) {
			state *st = &pl->st[i * n + b];
			rk_plan__state_values(pl, st);
			pl->vals[p->field].present = 1;
			if (sgn)
				pl->vals[p->field].v.i = blo + (int64_t)b * W;
			else
				pl->vals[p->field].v.u = (uint64_t)blo + b * (uint64_t)W;
			rk_wbuf w = {st->bytes, st->len, pl->s->max_key_len};
			size_t at = st->len;
			if ((rc = rk_key__encode_part(pl->enc, &w, p, pl->vals)) < 0 ||
			    (rc = rk_plan__append_logical(st, st->bytes + at, w.len - at)) < 0)
				return rc;
			st->len = w.len;
		}
	char pw[256];
	rk_plan__say(pl, "%s spans %llu window%s of the range: one range each. ",
	    rk_plan__part_words(pl->s, p, pw, sizeof pw), (unsigned long long)n, n == 1 ? "" : "s");
	*done = 1;
	return 0;
}

/* A part whose inputs are all bound by = / IN: each key prefix extended
 * once per value combination. Past the bound, the walk stops before it. */
static int bind_part(planner *pl, const rk_part *p, uint64_t used, int *stop)
{
	size_t would = rk_plan__expansion(pl, used, pl->expanded);
	int rc;
	if (would > pl->max) {
		rk_plan__cap_at(pl, p, would);
		*stop = 1;
		return 0;
	}
	if ((rc = rk_plan__expand_fields(pl, used, &pl->expanded)) < 0)
		return rc;
	for (size_t i = 0; i < pl->nst; i++)
		if ((rc = rk_plan__append_part(pl, &pl->st[i], p)) < 0)
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
				if ((rc = rk_plan__append_part(pl, &pl->st[i], p)) < 0)
					return rc;
			continue;
		}
		if (p->kind == P_PSALT) {
			/* computable only when the whole key is: then a later pass makes gets
			   (unless their number is over the bound: then one range per bucket) */
			if ((s->info.point_get_mask & ~pl->eqmask) == 0) {
				size_t would = rk_plan__expansion(pl, s->info.point_get_mask, pl->expanded);
				if (would <= pl->max)
					break;
				rk_plan__say(pl, "Computing the salt would take %zu point gets, over the bound of %zu (max_ranges): ",
				    would, pl->max);
				pl->salt_capped = 1;
			}
		}
		if (p->kind == P_SALT || p->kind == P_PSALT || (p->kind == P_BUCKET && (used & ~pl->eqmask))) {
			if ((rc = fork_buckets(pl, p)) < 0)
				return rc;
			continue;
		}
		int forked = 0;
		if ((rc = fork_time_buckets(pl, p, &forked)) < 0)
			return rc;
		if (forked)
			continue;
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
	if ((rc = rk_plan__expand_fields(pl, s->info.point_get_mask, &pl->expanded)) < 0)
		return rc;
	for (size_t i = 0; i < pl->nst; i++) {
		rk_plan__state_values(pl, &pl->st[i]);
		size_t kl;
		if ((rc = rk_key_encode(pl->st[i].bytes, s->max_key_len, &kl, pl->enc, pl->vals)) < 0)
			return rc;
		pl->st[i].len = kl;
		pl->st[i].bucket = rk_key_bucket(pl->enc, pl->st[i].bytes, kl);
		/* the salt is the key's first byte; a key that does not decode
		   (an empty Phoenix string) keeps the rest as its logical form */
		size_t ll;
		pl->st[i].llen = 0;
		rc = rk_key_logical(pl->buf, s->max_key_len, &ll, pl->enc, pl->st[i].bytes, kl);
		rc = rc < 0 ? rk_plan__append_logical(&pl->st[i], pl->st[i].bytes + 1, kl - 1)
		            : rk_plan__append_logical(&pl->st[i], pl->buf, ll);
		if (rc < 0)
			return rc;
	}
	pl->covered = s->info.point_get_mask & s->info.decodable_mask;
	return 0;
}

/* Order, residual filter and the rest of the explanation. */
static void finish_plan(planner *pl, const rk_predicate *pred, const rk_part *unordered_by)
{
	const rk_schema *s = pl->s;
	rk_plan *plan = pl->plan;
	const fcons *fc = pl->fc;
	char pw[256];
	plan->capped = pl->capped || pl->salt_capped;
	plan->merge = plan->nstreams > 1;
	if (unordered_by)
		rk_plan__say(pl, "%s varies inside a range before a field: rows come back in logical order (the key "
		                 "without its salt, bucket and hash parts) once all are read and sorted. ",
		             rk_plan__part_words(s, unordered_by, pw, sizeof pw));
	else if (plan->merge)
		rk_plan__say(pl, "Rows come back in logical order (the key without its salt, bucket and hash parts) "
		                 "through %s %u-way merge. ",
		             rk__article(plan->nstreams), plan->nstreams);
	/* residual: conditions on fields the ranges did not enforce exactly */
	for (size_t i = 0; i < pred->nconds; i++) {
		int fld = pred->conds[i].field;
		if (!(pl->covered >> fld & 1) ||
		    (fc[fld].eq && (fc[fld].lo || fc[fld].hi || fc[fld].prefix) && !(pl->covered >> fld & 1)))
			plan->residual = 1;
	}
	for (size_t i = 0; i < pred->nconds; i++)
		if (!(s->info.decodable_mask >> pred->conds[i].field & 1)) {
			rk_plan__say(pl, "'%s' cannot be recovered from a key: its conditions are enforced only as far as the key ranges go. ",
			    s->fname[pred->conds[i].field]);
			break;
		}
	rk_plan__say(pl, plan->residual ? "A residual filter checks the remaining conditions on decoded rows." : "No residual filter.");
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
	rk_plan__pairs_free(pl->pairs, pl->npairs);
	rk_plan__states_free(pl->st, pl->nst);
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
	const rk_part *unordered_by = NULL;
	if ((rc = all ? rk_plan__make_gets(&pl) : rk_plan__make_ranges(&pl)) < 0 ||
	    (rc = rk_plan__order(&pl, &unordered_by)) < 0)
		goto fail;
	finish_plan(&pl, pred, unordered_by);
	rk_plan__order_by(&pl, pred);
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
