/*
 * What the planner's files share (plan.c, plan_cons.c): the per-field
 * constraints a predicate folds into.
 */
#ifndef RK_KEY_PLAN_INT_H
#define RK_KEY_PLAN_INT_H

#include <rowkey/key.h>

/* ---- per-field constraints ---- */

typedef struct {
	const rk_value *eq; /* the values of = / IN (intersected), or NULL */
	size_t neq;
	rk_value *eqbuf;    /* owned when intersected */
	const rk_value *lo, *hi; /* range bounds, or NULL */
	int lo_incl, hi_incl;
	const rk_value *prefix;
} fcons;

/* Folds every condition of p into fc (one per field of its schema, zeroed
 * by the caller). RK_EINVALID when conditions on a field cannot all hold. */
int rk_plan__gather(fcons *fc, const rk_predicate *p);

/* Frees what rk_plan__gather allocated in fc[0..n). */
void rk_plan__cons_free(fcons *fc, size_t n);

#endif
