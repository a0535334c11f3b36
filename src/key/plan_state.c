/*
 * The planner's key prefixes ("states", see plan.c): the explanation's
 * words, forking the prefixes and expanding them over the values fields are
 * bound to by = or IN, appending a bound part's bytes. Shared by the walk
 * (plan.c) and the gets and ranges made from where it stopped
 * (plan_ranges.c).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/encode_int.h"
#include "key/error.h"
#include "key/plan_int.h"
#include "key/schema_int.h"

void rk_plan__say(planner *pl, const char *fmt, ...)
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

void rk_plan__states_free(state *st, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(st[i].bytes);
		free(st[i].lbytes);
		free(st[i].choice);
	}
	free(st);
}

/* Replaces the state set by `mult` copies of each (the caller fills them). */
int rk_plan__states_fork(planner *pl, size_t mult)
{
	if (mult == 1) /* one copy of each is the set itself (a field bound by one =) */
		return 0;
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
			d->lcap = pl->st[i].llen + 1;
			d->lbytes = malloc(d->lcap);
			d->choice = malloc((nf ? nf : 1) * sizeof *d->choice);
			if (!d->bytes || !d->lbytes || !d->choice) {
				rk_plan__states_free(ns, n);
				return rk__err(RK_ENOMEM, "out of memory planning");
			}
			memcpy(d->bytes, pl->st[i].bytes, pl->st[i].len);
			d->len = pl->st[i].len;
			if (pl->st[i].llen)
				memcpy(d->lbytes, pl->st[i].lbytes, pl->st[i].llen);
			d->llen = pl->st[i].llen;
			memcpy(d->choice, pl->st[i].choice, nf * sizeof *d->choice);
			d->bucket = pl->st[i].bucket;
		}
	rk_plan__states_free(pl->st, pl->nst);
	pl->st = ns;
	pl->nst = n;
	return 0;
}

/* How many states expanding the fields in `mask` not yet expanded (`done`)
 * would make, saturating at SIZE_MAX. */
size_t rk_plan__expansion(const planner *pl, uint64_t mask, uint64_t done)
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
void rk_plan__cap_at(planner *pl, const rk_part *p, size_t would)
{
	char pw[256];
	pl->capped = 1;
	if (would == SIZE_MAX)
		rk_plan__say(pl, "Binding %s by its IN values would make more keys or ranges than the bound of %zu (max_ranges): ",
		    rk_plan__part_words(pl->s, p, pw, sizeof pw), pl->max);
	else
		rk_plan__say(pl, "Binding %s by its IN values would make %zu keys or ranges, over the bound of %zu (max_ranges): ",
		    rk_plan__part_words(pl->s, p, pw, sizeof pw), would, pl->max);
	rk_plan__say(pl, "the plan stops before it and reads everything under each of the %zu key prefix%s bound so far. ",
	    pl->nst, pl->nst == 1 ? "" : "es");
}

/* Field values of a state (eq choices) into pl->vals. */
void rk_plan__state_values(planner *pl, const state *st)
{
	for (size_t k = 0; k < pl->s->nfields; k++) {
		memset(&pl->vals[k], 0, sizeof pl->vals[k]);
		if (pl->fc[k].eq)
			pl->vals[k] = pl->fc[k].eq[st->choice[k]];
	}
}

/* Expands the states over the eq values of every field in `mask` not yet
 * expanded (bit set in *done). */
int rk_plan__expand_fields(planner *pl, uint64_t mask, uint64_t *done)
{
	for (size_t k = 0; k < pl->s->nfields; k++) {
		if (!(mask >> k & 1) || (*done >> k & 1))
			continue;
		size_t m = pl->fc[k].neq;
		size_t old = pl->nst;
		int rc = rk_plan__states_fork(pl, m);
		if (rc < 0)
			return rc;
		for (size_t i = 0; i < old; i++)
			for (size_t j = 0; j < m; j++)
				pl->st[i * m + j].choice[k] = (uint32_t)j;
		*done |= 1ULL << k;
	}
	return 0;
}

int rk_plan__append_logical(state *st, const uint8_t *b, size_t n)
{
	if (n > st->lcap - st->llen) {
		size_t cap = (st->llen + n) * 2 + 16;
		uint8_t *nb = realloc(st->lbytes, cap);
		if (!nb)
			return rk__err(RK_ENOMEM, "out of memory planning");
		st->lbytes = nb;
		st->lcap = cap;
	}
	if (n) /* an empty logical form leaves lbytes NULL: memcpy must not see it */
		memcpy(st->lbytes + st->llen, b, n);
	st->llen += n;
	return 0;
}

int rk_plan__append_part(planner *pl, state *st, const rk_part *p)
{
	rk_plan__state_values(pl, st);
	rk_wbuf w = {st->bytes, st->len, pl->s->max_key_len};
	int rc = rk_key__encode_part(pl->enc, &w, p, pl->vals);
	if (rc < 0)
		return rc;
	size_t at = st->len;
	st->len = w.len;
	return rk_part__places(p) ? 0 : rk_plan__append_logical(st, st->bytes + at, w.len - at);
}

const char *rk_plan__part_words(const rk_schema *s, const rk_part *p, char *buf, size_t cap)
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
