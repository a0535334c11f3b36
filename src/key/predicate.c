/*
 * Predicates over a schema's fields: the text form parsed (conditions
 * joined by AND, values checked against the fields' types, ranges that
 * cannot match refused, then an optional ORDER BY and LIMIT), and decoded
 * rows matched against them. The planner
 * (plan.c) reads the parsed conditions through predicate_int.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/codec.h"
#include "key/error.h"
#include "key/predicate_int.h"
#include "key/suggest.h"
#include "key/timefmt.h"

void rk_predicate_free(rk_predicate *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nconds; i++)
		free(p->conds[i].vals);
	free(p->conds);
	free(p->store);
	free(p);
}

typedef struct {
	const char *src, *cur, *end;
	const char *tok;
	size_t toklen;
	int kind; /* 'i' ident, 'n' number, 's' string, 'p' punct, 0 end */
	char sval[1024];
	size_t slen;
} plex;

static int plex_next(plex *l)
{
	const char *c = l->cur;
	while (c < l->end && (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r'))
		c++;
	l->tok = c;
	if (c >= l->end) {
		l->kind = 0;
		l->toklen = 0;
		l->cur = c;
		return 0;
	}
	if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_') {
		while (c < l->end && ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' ||
		                      (*c >= '0' && *c <= '9')))
			c++;
		l->kind = 'i';
	} else if ((*c >= '0' && *c <= '9') || *c == '-' || *c == '+' || *c == '.') {
		c++;
		while (c < l->end && ((*c >= '0' && *c <= '9') || *c == '.' || *c == 'e' || *c == 'E' ||
		                      ((*c == '-' || *c == '+') && (c[-1] == 'e' || c[-1] == 'E'))))
			c++;
		l->kind = 'n';
	} else if (*c == '\'' || *c == '"') {
		char q = *c++;
		l->slen = 0;
		while (c < l->end && *c != q) {
			if (*c == '\\' && c + 1 < l->end)
				c++;
			if (l->slen >= sizeof l->sval)
				return rk__err(RK_EINVALID, "where: column %d: string longer than %zu bytes",
				               (int)(l->tok - l->src) + 1, sizeof l->sval);
			l->sval[l->slen++] = *c++;
		}
		if (c >= l->end)
			return rk__err(RK_EINVALID, "where: column %d: unterminated string", (int)(l->tok - l->src) + 1);
		c++;
		l->kind = 's';
	} else if ((*c == '<' || *c == '>' || *c == '=' || *c == '!') && c + 1 < l->end && c[1] == '=') {
		c += 2;
		l->kind = 'p';
	} else if (strchr("=<>(),", *c)) {
		c++;
		l->kind = 'p';
	} else {
		return rk__err(RK_EINVALID, "where: column %d: unexpected character '%c'", (int)(c - l->src) + 1, *c);
	}
	l->toklen = (size_t)(c - l->tok);
	l->cur = c;
	return 0;
}

static int tok_is(const plex *l, const char *w)
{
	size_t n = strlen(w);
	if (l->toklen != n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char a = l->tok[i], b = w[i];
		if (a >= 'a' && a <= 'z')
			a = (char)(a - 32);
		if (b >= 'a' && b <= 'z')
			b = (char)(b - 32);
		if (a != b)
			return 0;
	}
	return 1;
}

static int perr(const plex *l, const char *fmt, ...) RK_PRINTF(2, 3);
static int perr(const plex *l, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (l->kind == 0)
		return rk__err(RK_EINVALID, "where: column %d: %s (at the end)", (int)(l->tok - l->src) + 1, msg);
	return rk__err(RK_EINVALID, "where: column %d: %s (at '%.*s')", (int)(l->tok - l->src) + 1, msg,
	               (int)(l->toklen > 40 ? 40 : l->toklen), l->tok);
}

/* Copies a string value into the predicate's store; returns its offset. */
static int store_add(rk_predicate *p, size_t *off, const char *s, size_t n)
{
	if (!p->store || p->store_len + n > p->store_cap) { /* allocated even for '' */
		size_t cap = (p->store_cap + n) * 2 + 64;
		char *ns = realloc(p->store, cap);
		if (!ns)
			return rk__err(RK_ENOMEM, "out of memory parsing a predicate");
		p->store = ns;
		p->store_cap = cap;
	}
	memcpy(p->store + p->store_len, s, n);
	*off = p->store_len;
	p->store_len += n;
	return 0;
}

/* A literal of a `ts` field: what the field's records take (an integer or
 * ISO-8601, or the field's own format), and for a field with a format
 * ISO-8601 and integer milliseconds too, so a range can be written the same
 * way over any time field (the analyzer writes its bounds as integers). */
static int time_literal(rk_predicate *p, plex *l, rk_value *out, int field, const char *txt, size_t n)
{
	const char *fname = p->s->fname[field], *fmt = p->s->tfmt[field];
	if (rk_schema_value_parse(out, p->s, (size_t)field, txt, n) == 0)
		return plex_next(l);
	int64_t ms;
	if (fmt && rk__iso8601_ms(&ms, txt, n) == 0) {
		memset(out, 0, sizeof *out);
		out->present = 1;
		out->v.i = ms;
		return plex_next(l);
	}
	if (fmt && rk_value_parse(out, RK_T_I64, txt, n) == 0)
		return plex_next(l);
	if (fmt)
		return perr(l, "type mismatch: '%s' is ts(\"%s\") and '%.*s' is not a date in that format, "
		            "an ISO-8601 date-time nor integer milliseconds", fname, fmt, (int)n, txt);
	return perr(l, "type mismatch: '%s' is ts and '%.*s' is neither an integer nor an ISO-8601 date-time",
	            fname, (int)n, txt);
}

/* Reads one literal of the field's type. String offsets are fixed up later
 * (the store may move): s.ptr holds the offset until then. */
static int parse_literal(rk_predicate *p, plex *l, rk_value *out, int field)
{
	rk_type t = p->s->ftype[field];
	const char *fname = p->s->fname[field];
	int is_str = t == RK_T_STR || t == RK_T_BYTES;
	if (l->kind != 'n' && l->kind != 's')
		return perr(l, "expected a value for '%s'", fname);
	if (is_str) {
		if (l->kind != 's')
			return perr(l, "'%s' is %s: quote the value", fname, rk_type__name(t));
		size_t off = 0;
		int rc = store_add(p, &off, l->sval, l->slen);
		if (rc < 0)
			return rc;
		out->present = 1;
		out->v.s.ptr = (const uint8_t *)(uintptr_t)off;
		out->v.s.len = l->slen;
		return plex_next(l);
	}
	const char *txt = l->kind == 's' ? l->sval : l->tok;
	size_t n = l->kind == 's' ? l->slen : l->toklen;
	if (p->s->time_mask >> field & 1)
		return time_literal(p, l, out, field, txt, n);
	if (rk_value_parse(out, t, txt, n) < 0)
		return perr(l, "type mismatch: '%s' is %s and '%.*s' is not", fname, rk_type__name(t), (int)n, txt);
	return plex_next(l);
}

static int cond_push(rk_predicate *p, const cond *c)
{
	if ((p->nconds & (p->nconds - 1)) == 0) { /* 0, 1, 2, 4, ...: grow by doubling */
		cond *nc = realloc(p->conds, (p->nconds ? p->nconds * 2 : 4) * sizeof *nc);
		if (!nc) {
			free(c->vals);
			return rk__err(RK_ENOMEM, "out of memory parsing a predicate");
		}
		p->conds = nc;
	}
	p->conds[p->nconds++] = *c;
	return 0;
}

int rk_pred__value_cmp(rk_type t, const rk_value *a, const rk_value *b)
{
	if (t == RK_T_STR || t == RK_T_BYTES) {
		size_t n = a->v.s.len < b->v.s.len ? a->v.s.len : b->v.s.len;
		int c = memcmp(a->v.s.ptr, b->v.s.ptr, n);
		if (c)
			return c < 0 ? -1 : 1;
		return a->v.s.len < b->v.s.len ? -1 : a->v.s.len > b->v.s.len;
	}
	if (t == RK_T_F64) {
		uint64_t x = rk_codec__f64_to_bits(a->v.f), y = rk_codec__f64_to_bits(b->v.f);
		return x < y ? -1 : x > y;
	}
	if (rk_type__is_signed(t))
		return a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
	return a->v.u < b->v.u ? -1 : a->v.u > b->v.u;
}

/* The operator of a condition; *want gets how many values it takes. */
static int parse_op(cond *c, size_t *want, const plex *l)
{
	*want = 1;
	if (tok_is(l, "=") || tok_is(l, "==")) c->op = C_EQ;
	else if (tok_is(l, "<")) c->op = C_LT;
	else if (tok_is(l, "<=")) c->op = C_LE;
	else if (tok_is(l, ">")) c->op = C_GT;
	else if (tok_is(l, ">=")) c->op = C_GE;
	else if (tok_is(l, "BETWEEN")) { c->op = C_BETWEEN; *want = 2; }
	else if (tok_is(l, "PREFIX")) c->op = C_PREFIX;
	else if (tok_is(l, "IN")) c->op = C_IN;
	else
		return perr(l, "expected an operator: = < <= > >= IN BETWEEN PREFIX");
	return 0;
}

/* `( v, v, ... )` after IN, into c->vals. */
static int parse_in_list(rk_predicate *p, plex *l, cond *c)
{
	int rc;
	if (!tok_is(l, "("))
		return perr(l, "expected '(' after IN");
	if ((rc = plex_next(l)) < 0)
		return rc;
	size_t vcap = 0;
	for (;;) {
		if (c->nvals == vcap) { /* doubling: parsing stays linear in the list */
			vcap = vcap ? vcap * 2 : 8;
			rk_value *nv = realloc(c->vals, vcap * sizeof *nv);
			if (!nv)
				return rk__err(RK_ENOMEM, "out of memory parsing a predicate");
			c->vals = nv;
		}
		if ((rc = parse_literal(p, l, &c->vals[c->nvals], c->field)) < 0)
			return rc;
		c->nvals++;
		if (tok_is(l, ")"))
			break;
		if (!tok_is(l, ","))
			return perr(l, "expected ',' or ')' in the IN list");
		if ((rc = plex_next(l)) < 0)
			return rc;
	}
	return plex_next(l);
}

/* One value, or `a AND b` after BETWEEN, into c->vals. */
static int parse_values(rk_predicate *p, plex *l, cond *c, size_t want)
{
	int rc;
	c->vals = calloc(want, sizeof *c->vals);
	if (!c->vals)
		return rk__err(RK_ENOMEM, "out of memory parsing a predicate");
	if ((rc = parse_literal(p, l, &c->vals[0], c->field)) < 0)
		return rc;
	if (want == 2) {
		if (!tok_is(l, "AND"))
			return perr(l, "expected AND in BETWEEN a AND b");
		if ((rc = plex_next(l)) < 0 || (rc = parse_literal(p, l, &c->vals[1], c->field)) < 0)
			return rc;
	}
	c->nvals = want;
	return 0;
}

/* One `field OP value(s)` condition at the lexer's position, into *c (its
 * values owned by c, also on failure). */
static int parse_cond(rk_predicate *p, plex *l, cond *c)
{
	const rk_schema *s = p->s;
	int rc;
	size_t want;
	if (l->kind != 'i')
		return perr(l, "expected a field name");
	c->col = (int)(l->tok - l->src) + 1;
	c->field = rk_schema_field_index(s, l->tok, l->toklen);
	if (c->field < 0) {
		const char *best = rk__suggest_among(l->tok, l->toklen, s->fname, s->nfields);
		return perr(l, "unknown field '%.*s'%s%s%s", (int)l->toklen, l->tok,
		            best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "");
	}
	if ((rc = plex_next(l)) < 0 || (rc = parse_op(c, &want, l)) < 0)
		return rc;
	rk_type ft = s->ftype[c->field];
	if (c->op == C_PREFIX && ft != RK_T_STR && ft != RK_T_BYTES)
		return perr(l, "PREFIX needs a str or bytes field; '%s' is %s", s->fname[c->field], rk_type__name(ft));
	if ((rc = plex_next(l)) < 0)
		return rc;
	return c->op == C_IN ? parse_in_list(p, l, c) : parse_values(p, l, c, want);
}

/* ---- ORDER BY and LIMIT ---- */

/* 'o' when the lexer is at `ORDER BY`, 'l' at `LIMIT` used as a keyword,
 * else 0. A field may be named order or limit: the word is a keyword only
 * when what follows cannot continue a condition. */
static int clause_at(const plex *l)
{
	int order = tok_is(l, "ORDER"), limit = tok_is(l, "LIMIT");
	if (l->kind != 'i' || (!order && !limit))
		return 0;
	plex peek = *l;
	if (plex_next(&peek) < 0)
		return limit ? 'l' : 0; /* LIMIT then junk: the clause says why */
	if (order)
		return tok_is(&peek, "BY") ? 'o' : 0;
	cond c;
	size_t want;
	if (peek.kind == 'p' || (peek.kind == 'i' && (tok_is(&peek, "IN") || tok_is(&peek, "BETWEEN") ||
	                                            tok_is(&peek, "PREFIX"))))
		return parse_op(&c, &want, &peek) == 0 ? 0 : 'l';
	return 'l';
}

/* `ORDER BY field [ASC|DESC]`, the lexer at ORDER. */
static int parse_order_by(rk_predicate *p, plex *l)
{
	const rk_schema *s = p->s;
	int rc;
	if (p->order_field >= 0)
		return perr(l, "ORDER BY given twice");
	if (p->limit)
		return perr(l, "ORDER BY comes before LIMIT");
	if ((rc = plex_next(l)) < 0 || (rc = plex_next(l)) < 0) /* ORDER, BY */
		return rc;
	if (l->kind != 'i')
		return perr(l, "expected a field name after ORDER BY");
	int f = rk_schema_field_index(s, l->tok, l->toklen);
	if (f < 0) {
		const char *best = rk__suggest_among(l->tok, l->toklen, s->fname, s->nfields);
		return perr(l, "ORDER BY: unknown field '%.*s'%s%s%s", (int)l->toklen, l->tok,
		            best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "");
	}
	p->order_field = f;
	if ((rc = plex_next(l)) < 0)
		return rc;
	if (l->kind == 'i' && (tok_is(l, "ASC") || tok_is(l, "DESC"))) {
		p->order_desc = tok_is(l, "DESC");
		return plex_next(l);
	}
	return 0;
}

/* `LIMIT n`, n a whole number of rows, at least 1; the lexer at LIMIT. */
static int parse_limit(rk_predicate *p, plex *l)
{
	int rc;
	if (p->limit)
		return perr(l, "LIMIT given twice");
	if ((rc = plex_next(l)) < 0)
		return rc;
	uint64_t n = 0;
	int digits = l->kind == 'n' && l->toklen > 0;
	for (size_t i = 0; digits && i < l->toklen; i++) {
		unsigned d = (unsigned)(l->tok[i] - '0');
		if (d > 9)
			digits = 0;
		else if (n > (UINT64_MAX - d) / 10)
			return perr(l, "LIMIT is too large (at most %llu)", (unsigned long long)UINT64_MAX);
		else
			n = n * 10 + d;
	}
	if (!digits)
		return perr(l, "LIMIT takes a whole number of rows, at least 1");
	if (n == 0)
		return perr(l, "LIMIT 0 returns nothing: LIMIT takes at least 1");
	p->limit = n;
	return plex_next(l);
}

/* What may follow the conditions: ORDER BY, then LIMIT, then the end. */
static int parse_tail(rk_predicate *p, plex *l)
{
	int rc;
	while (l->kind) {
		int k = clause_at(l);
		if (k == 'o')
			rc = parse_order_by(p, l);
		else if (k == 'l')
			rc = parse_limit(p, l);
		else if (p->limit)
			return perr(l, "expected the end of the predicate after LIMIT");
		else
			return perr(l, "expected LIMIT or the end of the predicate after ORDER BY");
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Ranges that cannot match: the tightest lower and upper bound per field
 * (one pass, so a long predicate stays linear). */
static int check_ranges(const rk_predicate *p)
{
	const rk_schema *s = p->s;
	const cond *tlo[RK_MAX_FIELDS] = {0}, *thi[RK_MAX_FIELDS] = {0};
	for (size_t i = 0; i < p->nconds; i++) {
		const cond *c = &p->conds[i];
		rk_type ft = s->ftype[c->field];
		if (c->op == C_BETWEEN && rk_pred__value_cmp(ft, &c->vals[0], &c->vals[1]) > 0)
			return rk__err(RK_EINVALID, "where: column %d: impossible range: %s BETWEEN a AND b with a > b", c->col,
			               s->fname[c->field]);
		const cond **lo = &tlo[c->field], **hi = &thi[c->field];
		if (c->op == C_GT || c->op == C_GE) {
			int cmp = *lo ? rk_pred__value_cmp(ft, &c->vals[0], &(*lo)->vals[0]) : 1;
			if (cmp > 0 || (cmp == 0 && c->op == C_GT))
				*lo = c;
		} else if (c->op == C_LT || c->op == C_LE) {
			int cmp = *hi ? rk_pred__value_cmp(ft, &c->vals[0], &(*hi)->vals[0]) : -1;
			if (cmp < 0 || (cmp == 0 && c->op == C_LT))
				*hi = c;
		} else {
			continue;
		}
		if (*lo && *hi) {
			int cmp = rk_pred__value_cmp(ft, &(*lo)->vals[0], &(*hi)->vals[0]);
			if (cmp > 0 || (cmp == 0 && ((*lo)->op == C_GT || (*hi)->op == C_LT)))
				return rk__err(RK_EINVALID, "where: column %d: impossible range on '%s': no value is above %d's bound and below %d's",
				               c->col, s->fname[c->field], (*lo)->col, (*hi)->col);
		}
	}
	return 0;
}

int rk_predicate_parse(rk_predicate **out, const rk_schema *s, const char *text, size_t len)
{
	rk_predicate *p = calloc(1, sizeof *p);
	int rc;
	if (!p)
		return rk__err(RK_ENOMEM, "out of memory parsing a predicate");
	p->s = s;
	p->order_field = -1;
	plex l = {.src = text, .cur = text, .end = text + len};
	if ((rc = plex_next(&l)) < 0)
		goto fail;
	while (l.kind && !clause_at(&l)) {
		if (p->nconds) {
			if (!tok_is(&l, "AND")) {
				rc = perr(&l, "expected AND (conditions combine with AND only)");
				goto fail;
			}
			if ((rc = plex_next(&l)) < 0)
				goto fail;
		}
		cond c = {0};
		if ((rc = parse_cond(p, &l, &c)) < 0) {
			free(c.vals);
			goto fail;
		}
		if ((rc = cond_push(p, &c)) < 0)
			goto fail;
	}
	if ((rc = parse_tail(p, &l)) < 0)
		goto fail;
	/* string values: offsets -> pointers, now that the store is final */
	for (size_t i = 0; i < p->nconds; i++) {
		rk_type ft = s->ftype[p->conds[i].field];
		if (ft == RK_T_STR || ft == RK_T_BYTES)
			for (size_t k = 0; k < p->conds[i].nvals; k++)
				p->conds[i].vals[k].v.s.ptr = (const uint8_t *)p->store + (uintptr_t)p->conds[i].vals[k].v.s.ptr;
	}
	if ((rc = check_ranges(p)) < 0)
		goto fail;
	*out = p;
	return 0;
fail:
	rk_predicate_free(p);
	return rc;
}

int rk_pred__starts_with(const rk_value *v, const rk_value *pre)
{
	return v->v.s.len >= pre->v.s.len && !memcmp(v->v.s.ptr, pre->v.s.ptr, pre->v.s.len);
}

int rk_predicate_match(const rk_predicate *p, const rk_value *fields)
{
	for (size_t i = 0; i < p->nconds; i++) {
		const cond *c = &p->conds[i];
		const rk_value *v = &fields[c->field];
		if (!v->present)
			continue;
		rk_type t = p->s->ftype[c->field];
		int ok;
		switch (c->op) {
		case C_EQ: ok = rk_pred__value_cmp(t, v, &c->vals[0]) == 0; break;
		case C_IN:
			ok = 0;
			for (size_t k = 0; k < c->nvals && !ok; k++)
				ok = rk_pred__value_cmp(t, v, &c->vals[k]) == 0;
			break;
		case C_LT: ok = rk_pred__value_cmp(t, v, &c->vals[0]) < 0; break;
		case C_LE: ok = rk_pred__value_cmp(t, v, &c->vals[0]) <= 0; break;
		case C_GT: ok = rk_pred__value_cmp(t, v, &c->vals[0]) > 0; break;
		case C_GE: ok = rk_pred__value_cmp(t, v, &c->vals[0]) >= 0; break;
		case C_BETWEEN: ok = rk_pred__value_cmp(t, v, &c->vals[0]) >= 0 && rk_pred__value_cmp(t, v, &c->vals[1]) <= 0; break;
		case C_PREFIX: ok = rk_pred__starts_with(v, &c->vals[0]); break;
		default: ok = 0;
		}
		if (!ok)
			return 0;
	}
	return 1;
}
