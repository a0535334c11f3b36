/*
 * ORDER BY and LIMIT in a plan (rk_plan.order_by): whether the key gives
 * the order asked for, the way an HBase or Bigtable engineer reads a
 * design. A plan returns rows in logical order (plan_order.c): the key's
 * literals and value parts in template order. Among the rows a predicate
 * matches, the parts whose fields it binds to one value by = are the same
 * in every row; the first value part after them decides the order. When
 * that part is the ORDER BY field, in an encoding that keeps the field's
 * order, reading forward gives the field ascending or descending as the
 * part is written (a descending part or rts() descending), and reading
 * backward the other way; then LIMIT n reads about n rows per stream. Any
 * other case (another field varies first, IN values on an earlier field, a
 * hash varies inside a range, a transform such as tbucket()) means every
 * matching row is read and sorted by the field.
 */
#include <stdio.h>

#include "key/plan_int.h"
#include "key/predicate_int.h"
#include "key/schema_int.h"

static int bound_to_one(const planner *pl, int field)
{
	return pl->fc[field].eq && pl->fc[field].neq == 1;
}

/* The order the plan gives; for SORT, why not in *why (words). */
static rk_plan_order order_of(const planner *pl, int field, int desc, char *why, size_t cap)
{
	const rk_schema *s = pl->s;
	char pw[256];
	if (!pl->plan->ordered) {
		snprintf(why, cap, "a part that places rows varies inside a range before the fields");
		return RK_ORDER_SORT;
	}
	if (bound_to_one(pl, field))
		return RK_ORDER_KEY; /* one value: every order is that order */
	for (size_t k = 0; k < s->nparts; k++) {
		const rk_part *p = &s->parts[k];
		if (p->kind != P_VAL || bound_to_one(pl, p->field))
			continue; /* literals, placing parts and bound fields order nothing here */
		if (p->field != field) {
			snprintf(why, cap, "'%s' comes before it in the key and %s", s->fname[p->field],
			         pl->fc[p->field].eq ? "has several values (IN)" : "is not bound to one value");
			return RK_ORDER_SORT;
		}
		if ((p->vop != V_FIELD && p->vop != V_RTS) || !rk_plan__range_capable(p, 0)) {
			snprintf(why, cap, "%s does not keep the order of '%s'",
			         rk_plan__part_words(s, p, pw, sizeof pw), s->fname[field]);
			return RK_ORDER_SORT;
		}
		int key_desc = (p->vop == V_RTS) != (p->desc != 0);
		return key_desc == (desc != 0) ? RK_ORDER_KEY : RK_ORDER_REVERSE;
	}
	snprintf(why, cap, "the key orders nothing by '%s'", s->fname[field]);
	return RK_ORDER_SORT;
}

/* "newest first", "by name descending", ... */
static const char *order_words(const rk_schema *s, int field, int desc, char *buf, size_t cap)
{
	if (s->time_mask >> field & 1)
		snprintf(buf, cap, "%s first", desc ? "newest" : "oldest");
	else
		snprintf(buf, cap, "by %s %s", s->fname[field], desc ? "descending" : "ascending");
	return buf;
}

/* What LIMIT n costs when rows come in order from the key. */
static void say_limit(planner *pl)
{
	const rk_plan *plan = pl->plan;
	unsigned long long n = (unsigned long long)plan->limit;
	if (!n)
		rk_plan__say(pl, ".");
	else if (plan->residual)
		rk_plan__say(pl, ": LIMIT %llu stops after %llu matching rows (the residual filter may read more).", n, n);
	else if (plan->nstreams > 1)
		rk_plan__say(pl, ": LIMIT %llu reads at most %llu rows per stream (%u streams).", n, n, plan->nstreams);
	else
		rk_plan__say(pl, ": LIMIT %llu reads %llu rows.", n, n);
}

void rk_plan__order_by(planner *pl, const rk_predicate *pred)
{
	const rk_schema *s = pl->s;
	rk_plan *plan = pl->plan;
	char why[512], ow[300];
	plan->order_field = pred->order_field;
	plan->order_desc = pred->order_field >= 0 && pred->order_desc;
	plan->limit = pred->limit;
	plan->order_by = RK_ORDER_NONE;
	if (pred->order_field < 0) {
		if (plan->limit)
			rk_plan__say(pl, " LIMIT %llu: the first %llu rows in logical order.",
			             (unsigned long long)plan->limit, (unsigned long long)plan->limit);
		return;
	}
	int f = pred->order_field;
	plan->order_by = order_of(pl, f, plan->order_desc, why, sizeof why);
	order_words(s, f, plan->order_desc, ow, sizeof ow);
	if (plan->order_by == RK_ORDER_KEY) {
		rk_plan__say(pl, " ORDER BY %s %s: rows come %s from the key", s->fname[f], plan->order_desc ? "DESC" : "ASC", ow);
		say_limit(pl);
	} else if (plan->order_by == RK_ORDER_REVERSE) {
		rk_plan__say(pl, " ORDER BY %s %s: the key holds the other direction, so the ranges are read backwards "
		                 "and rows come %s",
		             s->fname[f], plan->order_desc ? "DESC" : "ASC", ow);
		say_limit(pl);
	} else {
		rk_plan__say(pl, " ORDER BY %s %s: the key does not give that order (%s): every matching row is read and "
		                 "sorted by %s",
		             s->fname[f], plan->order_desc ? "DESC" : "ASC", why, s->fname[f]);
		if (plan->limit)
			rk_plan__say(pl, ", then LIMIT %llu returns the first %llu", (unsigned long long)plan->limit,
			             (unsigned long long)plan->limit);
		rk_plan__say(pl, ".");
		if (!(s->info.decodable_mask >> f & 1))
			rk_plan__say(pl, " But '%s' cannot be recovered from a key, so a query cannot sort by it.", s->fname[f]);
	}
}
