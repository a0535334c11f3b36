/*
 * Garbage-collection rules (gc.h). A rule tree is small (at most
 * RK_GC_MAX_RULES nodes, RK_GC_MAX_DEPTH deep), so evaluation recurses over
 * the flat node array, and the META bytes are the nodes in the same order.
 */
#include "store/gc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "key/error.h"
#include "store/cell.h"

#define MAX_AGE (1ull << 62)

uint64_t rk_gc__now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* ---- checking ---- */

static int check(const rk_gc_rule *r, const char *path, unsigned depth, size_t *count,
                 const char *table, const char *family)
{
	char p[160];
	if (depth > RK_GC_MAX_DEPTH)
		return rk__err(RK_EINVALID, "table %s: family %s: %s: rules nested deeper than %u",
		               table, family, path, RK_GC_MAX_DEPTH);
	if (++*count > RK_GC_MAX_RULES)
		return rk__err(RK_EINVALID, "table %s: family %s: more than %u GC rules", table,
		               family, RK_GC_MAX_RULES);
	switch (r->kind) {
	case RK_GC_NONE:
		return 0;
	case RK_GC_VERSIONS:
		if (r->max_versions < 1)
			return rk__err(RK_EINVALID, "table %s: family %s: %s: max_versions must be >= 1",
			               table, family, path);
		return 0;
	case RK_GC_AGE:
		if (r->max_age_us < 1 || r->max_age_us > MAX_AGE)
			return rk__err(RK_EINVALID,
			               "table %s: family %s: %s: max_age of %llu us (allowed 1..2^62)",
			               table, family, path, (unsigned long long)r->max_age_us);
		return 0;
	case RK_GC_UNION:
	case RK_GC_INTERSECTION:
		if (r->nrules < 1 || !r->rules)
			return rk__err(RK_EINVALID, "table %s: family %s: %s: a %s needs at least one rule",
			               table, family, path,
			               r->kind == RK_GC_UNION ? "union" : "intersection");
		for (size_t i = 0; i < r->nrules; i++) {
			snprintf(p, sizeof p, "%.120s.rules[%zu]", path, i);
			int rc = check(&r->rules[i], p, depth + 1, count, table, family);
			if (rc)
				return rc;
		}
		return 0;
	}
	return rk__err(RK_EINVALID, "table %s: family %s: %s: unknown kind %d", table, family, path,
	               (int)r->kind);
}

int rk_gc__check(const rk_gc_rule *r, const char *table, const char *family)
{
	size_t count = 0;
	return check(r, "gc", 1, &count, table, family);
}

/* ---- compiling ---- */

static void flatten(rk__gcnode *v, size_t *n, const rk_gc_rule *r)
{
	size_t at = (*n)++;
	v[at] = (rk__gcnode){(uint8_t)r->kind, 0, 1, r->max_versions, r->max_age_us};
	if (r->kind == RK_GC_VERSIONS)
		v[at].age_us = 0;
	else if (r->kind == RK_GC_AGE)
		v[at].versions = 0;
	else
		v[at].versions = 0, v[at].age_us = 0;
	if (r->kind != RK_GC_UNION && r->kind != RK_GC_INTERSECTION)
		return;
	v[at].nkids = (uint8_t)r->nrules;
	for (size_t i = 0; i < r->nrules; i++)
		flatten(v, n, &r->rules[i]);
	v[at].size = (uint16_t)(*n - at);
}

static size_t count_nodes(const rk_gc_rule *r)
{
	size_t n = 1;
	if (r->kind == RK_GC_UNION || r->kind == RK_GC_INTERSECTION)
		for (size_t i = 0; i < r->nrules; i++)
			n += count_nodes(&r->rules[i]);
	return n;
}

/* The most versions node i keeps (UINT32_MAX: no bound by count). */
static uint32_t node_versions(const rk__gcnode *v, size_t i)
{
	const rk__gcnode *x = &v[i];
	if (x->kind == RK_GC_VERSIONS)
		return x->versions;
	if (x->kind != RK_GC_UNION && x->kind != RK_GC_INTERSECTION)
		return UINT32_MAX;
	/* a union keeps what every sub-rule keeps: the fewest; an intersection
	 * what any keeps: the most */
	uint32_t acc = x->kind == RK_GC_UNION ? UINT32_MAX : 0;
	for (size_t k = 0, c = i + 1; k < x->nkids; k++, c += v[c].size) {
		uint32_t m = node_versions(v, c);
		if (x->kind == RK_GC_UNION ? m < acc : m > acc)
			acc = m;
	}
	return acc;
}

static int finish(rk__gc **out, unsigned *versions, rk__gc *g)
{
	*versions = node_versions(g->node, 0);
	if (g->node[0].kind == RK_GC_NONE || g->node[0].kind == RK_GC_VERSIONS) {
		free(g);
		*out = NULL;
		return 0;
	}
	*out = g;
	return 0;
}

int rk_gc__compile(rk__gc **out, unsigned *versions, const rk_gc_rule *r)
{
	size_t n = count_nodes(r), k = 0;
	rk__gc *g = malloc(sizeof *g + n * sizeof g->node[0]);
	*out = NULL;
	if (!g)
		return rk__err(RK_ENOMEM, "out of memory for a GC rule");
	g->n = n;
	flatten(g->node, &k, r);
	return finish(out, versions, g);
}

/* ---- evaluating ---- */

static int eval(const rk__gcnode *v, size_t i, unsigned rank, uint64_t ts, uint64_t now)
{
	const rk__gcnode *x = &v[i];
	switch (x->kind) {
	case RK_GC_VERSIONS:
		return rank > x->versions;
	case RK_GC_AGE:
		return now > x->age_us && ts < now - x->age_us;
	case RK_GC_UNION:
	case RK_GC_INTERSECTION: {
		int uni = x->kind == RK_GC_UNION;
		for (size_t k = 0, c = i + 1; k < x->nkids; k++, c += v[c].size)
			if (eval(v, c, rank, ts, now) == uni)
				return uni;
		return !uni;
	}
	default:
		return 0;
	}
}

int rk_gc__collects(const rk__gc *g, unsigned rank, uint64_t ts, uint64_t now)
{
	return eval(g->node, 0, rank, ts, now);
}

int rk_gc__has_age(const rk__gc *g)
{
	for (size_t i = 0; g && i < g->n; i++)
		if (g->node[i].kind == RK_GC_AGE)
			return 1;
	return 0;
}

rk__gc *rk_gc__dup(const rk__gc *g)
{
	if (!g)
		return NULL;
	size_t bytes = sizeof *g + g->n * sizeof g->node[0];
	rk__gc *c = malloc(bytes);
	if (!c) {
		rk__err(RK_ENOMEM, "out of memory copying a GC rule");
		return NULL;
	}
	memcpy(c, g, bytes);
	return c;
}

/* ---- the public tree ---- */

int rk_gc__to_rule(rk_gc_rule **out, const rk__gc *g)
{
	/* one allocation: the root first, then each node's sub-rules side by
	 * side (rules[] must be an array), in prefix order */
	size_t total = 1;
	for (size_t i = 0; i < g->n; i++)
		total += g->node[i].nkids;
	rk_gc_rule *a = calloc(total, sizeof *a);
	size_t *slot = malloc(g->n * sizeof *slot); /* node -> its entry in a */
	if (!a || !slot) {
		free(a);
		free(slot);
		return rk__err(RK_ENOMEM, "out of memory for a GC rule");
	}
	size_t next = 1;
	slot[0] = 0;
	for (size_t i = 0; i < g->n; i++) {
		const rk__gcnode *x = &g->node[i];
		rk_gc_rule *r = &a[slot[i]];
		*r = (rk_gc_rule){(rk_gc_kind)x->kind, x->versions, x->age_us, NULL, x->nkids};
		if (!x->nkids)
			continue;
		r->rules = &a[next];
		for (size_t k = 0, c = i + 1; k < x->nkids; k++, c += g->node[c].size)
			slot[c] = next + k;
		next += x->nkids;
	}
	free(slot);
	*out = a;
	return 0;
}

/* ---- bytes (formats.md B.2) ---- */

size_t rk_gc__encoded_len(const rk__gc *g)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++)
		n += 1 + (g->node[i].kind == RK_GC_VERSIONS ? 4
		          : g->node[i].kind == RK_GC_AGE    ? 8
		          : g->node[i].nkids                ? 1
		                                            : 0);
	return n;
}

void rk_gc__encode(uint8_t *dst, const rk__gc *g)
{
	for (size_t i = 0; i < g->n; i++) {
		const rk__gcnode *x = &g->node[i];
		*dst++ = x->kind;
		if (x->kind == RK_GC_VERSIONS) {
			rk_cell__put_u32(dst, x->versions);
			dst += 4;
		} else if (x->kind == RK_GC_AGE) {
			rk_cell__put_u64(dst, x->age_us);
			dst += 8;
		} else if (x->kind == RK_GC_UNION || x->kind == RK_GC_INTERSECTION) {
			*dst++ = x->nkids;
		}
	}
}

typedef struct dec {
	const uint8_t *b;
	size_t len, pos;
	rk__gcnode *v;
	size_t n, cap;
} dec;

static int dec_node(dec *d, unsigned depth)
{
	if (depth > RK_GC_MAX_DEPTH || d->n >= d->cap || d->pos >= d->len)
		return rk__err(RK_ECORRUPT, "GC rule at byte %zu: %s", d->pos,
		               d->pos >= d->len ? "ends early" : "too deep or too many rules");
	size_t at = d->n++;
	rk__gcnode *x = &d->v[at];
	*x = (rk__gcnode){d->b[d->pos++], 0, 1, 0, 0};
	switch (x->kind) {
	case RK_GC_NONE:
		return 0;
	case RK_GC_VERSIONS:
		if (d->len - d->pos < 4)
			break;
		x->versions = rk_cell__get_u32(d->b + d->pos);
		d->pos += 4;
		return x->versions ? 0 : rk__err(RK_ECORRUPT, "GC rule: a version count of 0");
	case RK_GC_AGE:
		if (d->len - d->pos < 8)
			break;
		x->age_us = rk_cell__get_u64(d->b + d->pos);
		d->pos += 8;
		return x->age_us && x->age_us <= MAX_AGE
		               ? 0
		               : rk__err(RK_ECORRUPT, "GC rule: max_age of %llu us",
		                         (unsigned long long)x->age_us);
	case RK_GC_UNION:
	case RK_GC_INTERSECTION:
		if (d->len - d->pos < 1)
			break;
		x->nkids = d->b[d->pos++];
		if (!x->nkids)
			return rk__err(RK_ECORRUPT, "GC rule: a union or intersection of nothing");
		for (unsigned k = 0; k < x->nkids; k++) {
			int rc = dec_node(d, depth + 1);
			if (rc)
				return rc;
		}
		d->v[at].size = (uint16_t)(d->n - at);
		return 0;
	default:
		return rk__err(RK_ECORRUPT, "GC rule at byte %zu: unknown kind %u", d->pos - 1,
		               x->kind);
	}
	return rk__err(RK_ECORRUPT, "GC rule: ends inside a rule");
}

int rk_gc__decode(rk__gc **out, const uint8_t *b, size_t len)
{
	rk__gc *g = malloc(sizeof *g + RK_GC_MAX_RULES * sizeof g->node[0]);
	*out = NULL;
	if (!g)
		return rk__err(RK_ENOMEM, "out of memory for a GC rule");
	dec d = {b, len, 0, g->node, 0, RK_GC_MAX_RULES};
	int rc = dec_node(&d, 1);
	if (!rc && d.pos != len)
		rc = rk__err(RK_ECORRUPT, "GC rule: %zu bytes after its end", len - d.pos);
	if (rc) {
		free(g);
		return rc;
	}
	g->n = d.n;
	unsigned versions;
	return finish(out, &versions, g);
}
