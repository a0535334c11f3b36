/*
 * Bigtable's GcRule and the store's rk_gc_rule, both ways (bt_map.h). A
 * rule is bounded by RK_GC_MAX_DEPTH before it is walked.
 */
#include "store/bigtable/bt_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"

static int gc_subrules(const Rkbt__GcRule *g, Rkbt__GcRule ***rules, size_t *n)
{
	if (g->rule_case == RKBT__GC_RULE__RULE_UNION) {
		*rules = g->union_->rules;
		*n = g->union_->n_rules;
		return 1;
	}
	if (g->rule_case == RKBT__GC_RULE__RULE_INTERSECTION) {
		*rules = g->intersection->rules;
		*n = g->intersection->n_rules;
		return 1;
	}
	return 0;
}

/* Checks g under `path` and counts the entries its tree takes. */
static int gc_count(size_t *count, const Rkbt__GcRule *g, const char *path, unsigned depth)
{
	Rkbt__GcRule **rules;
	size_t n;
	char p[200];
	if (depth > RK_GC_MAX_DEPTH)
		return rk__err(RK_EINVALID, "%s: rules nested deeper than %u", path, RK_GC_MAX_DEPTH);
	if (++*count > RK_GC_MAX_RULES)
		return rk__err(RK_EINVALID, "%s: more than %u rules", path, RK_GC_MAX_RULES);
	if (!g)
		return 0;
	switch (g->rule_case) {
	case RKBT__GC_RULE__RULE_MAX_NUM_VERSIONS:
		if (g->max_num_versions < 1)
			return rk__err(RK_EINVALID, "%s.max_num_versions: must be >= 1 (got %d)", path,
			               g->max_num_versions);
		return 0;
	case RKBT__GC_RULE__RULE_MAX_AGE: {
		const Rkbt__Duration *d = g->max_age;
		if (!d || d->seconds < 0 || d->nanos < 0 || d->nanos > 999999999 ||
		    (d->seconds == 0 && d->nanos < 1000) || d->seconds > (int64_t)(1ull << 62) / 1000000)
			return rk__err(RK_EINVALID, "%s.max_age: %llds %dns is not an age of at least "
			               "1 microsecond",
			               path, d ? (long long)d->seconds : 0LL, d ? d->nanos : 0);
		return 0;
	}
	default:
		break;
	}
	if (!gc_subrules(g, &rules, &n))
		return 0; /* no rule set: keep everything */
	const char *what = g->rule_case == RKBT__GC_RULE__RULE_UNION ? "union" : "intersection";
	if (n == 0)
		return rk__err(RK_EINVALID, "%s.%s: no rules", path, what);
	for (size_t i = 0; i < n; i++) {
		snprintf(p, sizeof p, "%.150s.%s.rules[%zu]", path, what, i);
		int rc = gc_count(count, rules[i], p, depth + 1);
		if (rc)
			return rc;
	}
	return 0;
}

/* Writes g into a[slot]; its sub-rules go side by side from *next. */
static void gc_fill(rk_gc_rule *a, size_t slot, size_t *next, const Rkbt__GcRule *g)
{
	Rkbt__GcRule **rules;
	size_t n;
	rk_gc_rule *r = &a[slot];
	*r = (rk_gc_rule){RK_GC_NONE, 0, 0, NULL, 0};
	if (!g)
		return;
	if (g->rule_case == RKBT__GC_RULE__RULE_MAX_NUM_VERSIONS) {
		r->kind = RK_GC_VERSIONS;
		r->max_versions = (unsigned)g->max_num_versions;
		return;
	}
	if (g->rule_case == RKBT__GC_RULE__RULE_MAX_AGE) {
		r->kind = RK_GC_AGE;
		r->max_age_us = (uint64_t)g->max_age->seconds * 1000000u +
		                (uint64_t)g->max_age->nanos / 1000u;
		return;
	}
	if (!gc_subrules(g, &rules, &n))
		return;
	r->kind = g->rule_case == RKBT__GC_RULE__RULE_UNION ? RK_GC_UNION : RK_GC_INTERSECTION;
	size_t first = *next;
	*next += n;
	r->rules = &a[first];
	r->nrules = n;
	for (size_t i = 0; i < n; i++)
		gc_fill(a, first + i, next, rules[i]);
}

int rk_bt__gc_from_pb(rk_gc_rule **out, const Rkbt__GcRule *g, const char *path)
{
	size_t count = 0, next = 1;
	*out = NULL;
	int rc = gc_count(&count, g, path, 1);
	if (rc)
		return rc;
	rk_gc_rule *a = calloc(count, sizeof *a);
	if (!a)
		return rk__err(RK_ENOMEM, "%s: out of memory", path);
	gc_fill(a, 0, &next, g);
	*out = a;
	return 0;
}

void rk_bt__gc_pb_free(Rkbt__GcRule *g)
{
	if (!g)
		return;
	Rkbt__GcRule **rules;
	size_t n;
	if (gc_subrules(g, &rules, &n)) {
		for (size_t i = 0; i < n; i++)
			rk_bt__gc_pb_free(rules[i]);
		free(rules);
		free(g->union_ ? (void *)g->union_ : (void *)g->intersection);
	}
	free(g->rule_case == RKBT__GC_RULE__RULE_MAX_AGE ? g->max_age : NULL);
	free(g);
}

int rk_bt__gc_to_pb(Rkbt__GcRule **out, const rk_gc_rule *r)
{
	Rkbt__GcRule *g = calloc(1, sizeof *g);
	*out = NULL;
	if (!g)
		return rk__err(RK_ENOMEM, "out of memory for a GC rule");
	rkbt__gc_rule__init(g);
	switch (r->kind) {
	case RK_GC_VERSIONS:
		g->rule_case = RKBT__GC_RULE__RULE_MAX_NUM_VERSIONS;
		g->max_num_versions = r->max_versions > INT32_MAX ? INT32_MAX : (int32_t)r->max_versions;
		break;
	case RK_GC_AGE:
		if (!(g->max_age = calloc(1, sizeof *g->max_age)))
			goto oom;
		rkbt__duration__init(g->max_age);
		g->rule_case = RKBT__GC_RULE__RULE_MAX_AGE;
		g->max_age->seconds = (int64_t)(r->max_age_us / 1000000u);
		g->max_age->nanos = (int32_t)(r->max_age_us % 1000000u) * 1000;
		break;
	case RK_GC_UNION:
	case RK_GC_INTERSECTION: {
		Rkbt__GcRule **rules = calloc(r->nrules, sizeof *rules);
		void *holder = r->kind == RK_GC_UNION ? calloc(1, sizeof(Rkbt__GcRule__Union))
		                                      : calloc(1, sizeof(Rkbt__GcRule__Intersection));
		if (!rules || !holder) {
			free(rules);
			free(holder);
			goto oom;
		}
		if (r->kind == RK_GC_UNION) {
			g->rule_case = RKBT__GC_RULE__RULE_UNION;
			g->union_ = holder;
			rkbt__gc_rule__union__init(g->union_);
			g->union_->rules = rules;
		} else {
			g->rule_case = RKBT__GC_RULE__RULE_INTERSECTION;
			g->intersection = holder;
			rkbt__gc_rule__intersection__init(g->intersection);
			g->intersection->rules = rules;
		}
		for (size_t i = 0; i < r->nrules; i++) {
			int rc = rk_bt__gc_to_pb(&rules[i], &r->rules[i]);
			if (r->kind == RK_GC_UNION)
				g->union_->n_rules = i + 1;
			else
				g->intersection->n_rules = i + 1;
			if (rc) {
				rk_bt__gc_pb_free(g);
				return rc;
			}
		}
		break;
	}
	default: /* RK_GC_NONE: no rule set */
		break;
	}
	*out = g;
	return 0;
oom:
	free(g);
	return rk__err(RK_ENOMEM, "out of memory for a GC rule");
}
