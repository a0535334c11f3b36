/*
 * The key ranges a simulated read covers, from the key library's planner
 * (rk_plan_build): a workload query's bounds become a predicate, "field = v"
 * for a bound field, "field BETWEEN lo AND hi" for a range, no condition for
 * a field the query leaves open; the plan's point gets, row ranges (one per
 * bucket when the salt cannot be computed) or full scan is what the
 * simulator routes. Plans are remembered by their predicate's text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "analyze/analyze_int.h"
#include "key/error.h"

/* A plan remembered by its predicate's text (the planner is a function of
 * the schema and the text): its ranges packed as lo_len, hi_len, hi_kind and
 * the bytes of each. Direct-mapped by the text's hash; a collision replaces. */
#define MEMO_SLOTS 1024u

struct rk__ranger_memo {
	uint64_t h;
	char *text;
	uint8_t *blob;
	size_t n;
	int full, get;
};

typedef struct packed_range {
	size_t lo_len, hi_len;
	int hi_kind;
} packed_range;

int rk__ranger_init(rk__ranger *g, const rk_schema *s, rk__binder *b)
{
	memset(g, 0, sizeof *g);
	g->schema = s;
	g->bind = b;
	return 0;
}

void rk__ranger_fini(rk__ranger *g)
{
	for (size_t i = 0; i < g->cap_r; i++) {
		free(g->r[i].lo);
		free(g->r[i].hi);
	}
	free(g->r);
	for (size_t i = 0; g->memo && i < MEMO_SLOTS; i++) {
		free(g->memo[i].text);
		free(g->memo[i].blob);
	}
	free(g->memo);
	memset(g, 0, sizeof *g);
}

static int put_value(rk__sb *b, const rk__wval *v, rk__wkind kind)
{
	if (kind == RK__W_U64) {
		rk__sb_printf(b, "%llu", (unsigned long long)v->u);
	} else if (kind == RK__W_I64) {
		rk__sb_printf(b, "%lld", (long long)v->i);
	} else {
		char q = memchr(v->s, '\'', v->len) ? '"' : '\'';
		if (q == '"' && memchr(v->s, '"', v->len))
			return 0; /* not expressible: leave the condition out */
		rk__sb_put(b, &q, 1);
		rk__sb_put(b, v->s, v->len);
		rk__sb_put(b, &q, 1);
	}
	return 1;
}

static int same_value(const rk__wval *a, const rk__wval *b, rk__wkind kind)
{
	if (kind == RK__W_U64)
		return a->u == b->u;
	if (kind == RK__W_I64)
		return a->i == b->i;
	return a->len == b->len && (!a->len || !memcmp(a->s, b->s, a->len));
}

static int set_bytes(uint8_t **dst, size_t *len, const uint8_t *src, size_t n)
{
	uint8_t *p = realloc(*dst, n ? n : 1);
	if (!p)
		return rk__err(RK_ENOMEM, "out of memory for query ranges");
	if (n)
		memcpy(p, src, n);
	*dst = p;
	*len = n;
	return 0;
}

static int ensure_ranges(rk__ranger *g, size_t n)
{
	if (n <= g->cap_r)
		return 0;
	rk__range *r = realloc(g->r, n * sizeof *r);
	if (!r)
		return rk__err(RK_ENOMEM, "out of memory for query ranges");
	memset(r + g->cap_r, 0, (n - g->cap_r) * sizeof *r);
	g->r = r;
	g->cap_r = n;
	return 0;
}

/* The remembered plan of text into g: 1 when there is one, 0 when not, or
 * an error. */
static int memo_get(rk__ranger *g, const rk__ranger_memo *m, uint64_t h, const char *text)
{
	int rc;
	if (!m->text || m->h != h || strcmp(m->text, text))
		return 0;
	if ((rc = ensure_ranges(g, m->n)) != 0)
		return rc;
	const uint8_t *p = m->blob;
	for (size_t i = 0; i < m->n; i++) {
		packed_range pr;
		memcpy(&pr, p, sizeof pr);
		p += sizeof pr;
		rk__range *r = &g->r[i];
		if ((rc = set_bytes(&r->lo, &r->lo_len, p, pr.lo_len)) != 0)
			return rc;
		p += pr.lo_len;
		if (pr.hi_kind != RK__HI_NONE && (rc = set_bytes(&r->hi, &r->hi_len, p, pr.hi_len)) != 0)
			return rc;
		p += pr.hi_kind != RK__HI_NONE ? pr.hi_len : 0;
		r->hi_kind = pr.hi_kind;
	}
	g->n = m->n;
	g->full = m->full;
	g->get = m->get;
	return 1;
}

/* Remembers g's plan of text (out of memory: it is not remembered). */
static void memo_put(rk__ranger_memo *m, uint64_t h, const char *text, const rk__ranger *g)
{
	size_t len = 0;
	for (size_t i = 0; i < g->n; i++)
		len += sizeof(packed_range) + g->r[i].lo_len +
		       (g->r[i].hi_kind != RK__HI_NONE ? g->r[i].hi_len : 0);
	uint8_t *blob = malloc(len ? len : 1), *p = blob;
	char *copy = strdup(text);
	if (!blob || !copy) {
		free(blob);
		free(copy);
		return;
	}
	for (size_t i = 0; i < g->n; i++) {
		const rk__range *r = &g->r[i];
		packed_range pr = {r->lo_len, r->hi_kind != RK__HI_NONE ? r->hi_len : 0, r->hi_kind};
		memcpy(p, &pr, sizeof pr);
		p += sizeof pr;
		memcpy(p, r->lo, r->lo_len);
		p += r->lo_len;
		if (pr.hi_len)
			memcpy(p, r->hi, pr.hi_len);
		p += pr.hi_len;
	}
	free(m->text);
	free(m->blob);
	*m = (rk__ranger_memo){h, copy, blob, g->n, g->full, g->get};
}

int rk__ranger_plan(rk__ranger *g, const rk__wval *lo, const rk__wval *hi)
{
	const rk__binder *b = g->bind;
	rk__sb t = {0};
	rk_predicate *pred = NULL;
	rk_plan *plan = NULL;
	int rc, first = 1;
	g->n = 0;
	g->full = 0;
	g->get = 0;
	/* the query as a predicate over the schema's fields: equal bounds are
	 * "=", different ones BETWEEN, open fields no condition */
	for (size_t i = 0; i < b->nf; i++) {
		int j = b->src[i];
		if (j < 0 || lo[j].ext || hi[j].ext)
			continue;
		size_t mark = t.len;
		rk__sb_printf(&t, "%s%s ", first ? "" : " AND ",
		              rk_schema_field_name(g->schema, i));
		int ok;
		if (same_value(&lo[j], &hi[j], b->kind[i])) {
			rk__sb_put(&t, "= ", 2);
			ok = put_value(&t, &lo[j], b->kind[i]);
		} else {
			rk__sb_put(&t, "BETWEEN ", 8);
			ok = put_value(&t, &lo[j], b->kind[i]);
			rk__sb_put(&t, " AND ", 5);
			ok = ok && put_value(&t, &hi[j], b->kind[i]);
		}
		if (!ok) {
			t.len = mark;
			if (t.p)
				t.p[mark] = 0;
			continue;
		}
		first = 0;
	}
	if (t.oom) {
		free(t.p);
		return rk__err(RK_ENOMEM, "out of memory planning a query");
	}
	const char *text = t.p ? t.p : "";
	uint64_t h = XXH3_64bits(text, t.len);
	if (!g->memo && !(g->memo = calloc(MEMO_SLOTS, sizeof *g->memo))) {
		free(t.p);
		return rk__err(RK_ENOMEM, "out of memory planning a query");
	}
	rk__ranger_memo *m = &g->memo[h & (MEMO_SLOTS - 1)];
	if ((rc = memo_get(g, m, h, text)) != 0) {
		free(t.p);
		return rc < 0 ? rc : 0;
	}
	rc = rk_predicate_parse(&pred, g->schema, text, t.len);
	if (rc == 0)
		rc = rk_plan_build(&plan, g->schema, pred);
	if (rc) {
		rk__err_wrap(rc, "design %s: planning the query '%s'", b->design, t.p ? t.p : "");
		goto out;
	}
	if ((rc = ensure_ranges(g, plan->nranges)) != 0)
		goto out;
	g->full = plan->kind == RK_PLAN_FULL_SCAN;
	g->get = plan->kind == RK_PLAN_GETS;
	for (size_t i = 0; i < plan->nranges && !g->full; i++) {
		const rk_key_range *k = &plan->ranges[i];
		rk__range *r = &g->r[i];
		if ((rc = set_bytes(&r->lo, &r->lo_len, k->start, k->start_len)) != 0)
			goto out;
		if (g->get || k->stop_len) {
			if ((rc = set_bytes(&r->hi, &r->hi_len, g->get ? k->start : k->stop,
			                    g->get ? k->start_len : k->stop_len)) != 0)
				goto out;
		}
		r->hi_kind = g->get ? RK__HI_INCLUSIVE : k->stop_len ? RK__HI_EXCLUSIVE : RK__HI_NONE;
	}
	g->n = g->full ? 0 : plan->nranges;
	memo_put(m, h, text, g);
out:
	rk_plan_free(plan);
	rk_predicate_free(pred);
	free(t.p);
	return rc;
}
