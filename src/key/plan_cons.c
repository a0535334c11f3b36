/*
 * The planner's first step: every condition of a predicate folded into
 * per-field constraints (the values of = and IN, intersected; the tightest
 * range bounds; the longest string prefix; = values kept only inside a
 * range on the same field), refusing conditions that cannot all hold.
 */
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "key/plan_int.h"
#include "key/predicate_int.h"

void rk_plan__cons_free(fcons *fc, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(fc[i].eqbuf);
}

/* qsort / bsearch over values of one type (the planner runs on one thread
 * per call: the type travels in a thread-local) */
static _Thread_local rk_type sort_type;
static int value_qcmp(const void *a, const void *b)
{
	return rk_pred__value_cmp(sort_type, a, b);
}

/* = or IN on f: the first list is kept as it is, each later one intersects
 * it (the new list sorted, each kept value looked up: n log n). */
static int gather_eq(fcons *f, const cond *c, rk_type t, const rk_schema *s)
{
	if (!f->eq) {
		f->eq = c->vals;
		f->neq = c->nvals;
		return 0;
	}
	rk_value *nb = malloc(f->neq * sizeof *nb), *sorted = malloc(c->nvals * sizeof *sorted);
	size_t n = 0;
	if (!nb || !sorted) {
		free(nb);
		free(sorted);
		return rk__err(RK_ENOMEM, "out of memory planning");
	}
	memcpy(sorted, c->vals, c->nvals * sizeof *sorted);
	sort_type = t;
	qsort(sorted, c->nvals, sizeof *sorted, value_qcmp);
	for (size_t a = 0; a < f->neq; a++)
		if (bsearch(&f->eq[a], sorted, c->nvals, sizeof *sorted, value_qcmp))
			nb[n++] = f->eq[a];
	free(sorted);
	free(f->eqbuf);
	f->eq = f->eqbuf = nb;
	f->neq = n;
	if (!n)
		return rk__err(RK_EINVALID, "where: column %d: impossible condition: '%s' cannot equal all of these values",
		               c->col, s->fname[c->field]);
	return 0;
}

/* The tighter of two lower bounds (at the same value, the exclusive one). */
static void tighten_lo(fcons *f, rk_type t, const rk_value *v, int incl)
{
	int cmp = f->lo ? rk_pred__value_cmp(t, v, f->lo) : 1;
	if (cmp > 0 || (cmp == 0 && !incl)) {
		f->lo = v;
		f->lo_incl = incl;
	}
}

/* The tighter of two upper bounds (at the same value, the exclusive one). */
static void tighten_hi(fcons *f, rk_type t, const rk_value *v, int incl)
{
	int cmp = f->hi ? rk_pred__value_cmp(t, v, f->hi) : -1;
	if (cmp < 0 || (cmp == 0 && !incl)) {
		f->hi = v;
		f->hi_incl = incl;
	}
}

/* = with a range (or a prefix) on the same field: keeps the values inside it. */
static int eq_in_range(fcons *f, rk_type t, const char *fname)
{
	rk_value *nb = malloc(f->neq * sizeof *nb);
	size_t n = 0;
	if (!nb)
		return rk__err(RK_ENOMEM, "out of memory planning");
	for (size_t a = 0; a < f->neq; a++) {
		const rk_value *v = &f->eq[a];
		if (f->lo && (rk_pred__value_cmp(t, v, f->lo) < 0 || (!f->lo_incl && rk_pred__value_cmp(t, v, f->lo) == 0)))
			continue;
		if (f->hi && (rk_pred__value_cmp(t, v, f->hi) > 0 || (!f->hi_incl && rk_pred__value_cmp(t, v, f->hi) == 0)))
			continue;
		if (f->prefix && !rk_pred__starts_with(v, f->prefix))
			continue;
		nb[n++] = *v;
	}
	free(f->eqbuf);
	f->eq = f->eqbuf = nb;
	f->neq = n;
	if (!n)
		return rk__err(RK_EINVALID, "where: impossible condition: no value of '%s' satisfies both its = and its range",
		               fname);
	return 0;
}

/* Folds every condition into per-field constraints. */
int rk_plan__gather(fcons *fc, const rk_predicate *p)
{
	const rk_schema *s = p->s;
	int rc;
	for (size_t i = 0; i < p->nconds; i++) {
		const cond *c = &p->conds[i];
		fcons *f = &fc[c->field];
		rk_type t = s->ftype[c->field];
		switch (c->op) {
		case C_EQ:
		case C_IN:
			if ((rc = gather_eq(f, c, t, s)) < 0)
				return rc;
			break;
		case C_GT:
		case C_GE:
			tighten_lo(f, t, &c->vals[0], c->op == C_GE);
			break;
		case C_LT:
		case C_LE:
			tighten_hi(f, t, &c->vals[0], c->op == C_LE);
			break;
		case C_BETWEEN:
			tighten_lo(f, t, &c->vals[0], 1);
			tighten_hi(f, t, &c->vals[1], 1);
			break;
		case C_PREFIX:
			if (!f->prefix || c->vals[0].v.s.len > f->prefix->v.s.len)
				f->prefix = &c->vals[0];
			break;
		}
	}
	for (size_t k = 0; k < s->nfields; k++) {
		fcons *f = &fc[k];
		if (f->eq && (f->lo || f->hi || f->prefix) &&
		    (rc = eq_in_range(f, s->ftype[k], s->fname[k])) < 0)
			return rc;
	}
	return 0;
}
