/*
 * Query shape templates (see shape.h): the predicate language of `rowkey
 * query` (docs/queries.md) with ? for a value: conditions joined by AND,
 * each `field OP v` (OP: = < <= > >=), `field BETWEEN v AND v`, `field IN
 * (v, ...)` or `field PREFIX v`, then optionally `ORDER BY field [ASC|DESC]`
 * and `LIMIT n`. The key library's parser wants values of a
 * schema, so templates have this small parser of their own, which checks
 * each field and literal against the dataset's columns.
 */
#include "analyze/shape.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/analyze_int.h"
#include "key/error.h"
#include "key/timefmt.h"

typedef struct lex {
	const char *src, *p;
	int kind; /* 'i' word, 'n' number, 's' quoted, '?', 'o' operator, punctuation, 0 end */
	const char *t;
	size_t n;
} lex;

static int next(lex *l)
{
	while (*l->p == ' ' || *l->p == '\t')
		l->p++;
	l->t = l->p;
	char c = *l->p;
	if (!c) {
		l->kind = 0;
		l->n = 0;
		return 0;
	}
	if (isalpha((unsigned char)c) || c == '_') {
		while (isalnum((unsigned char)*l->p) || *l->p == '_')
			l->p++;
		l->kind = 'i';
	} else if (isdigit((unsigned char)c) || c == '-' || c == '.') {
		l->p++;
		while (isalnum((unsigned char)*l->p) || *l->p == '.' || *l->p == ':' || *l->p == '-' ||
		       *l->p == '+')
			l->p++;
		l->kind = 'n';
	} else if (c == '\'' || c == '"') {
		/* as the predicate language quotes: a backslash escapes the next byte */
		const char *e = l->p + 1;
		while (*e && *e != c)
			e += e[0] == '\\' && e[1] ? 2 : 1;
		if (!*e)
			return rk__err(RK_EINVALID, "query '%s': column %zu: a quote that never closes",
			               l->src, (size_t)(l->p - l->src) + 1);
		l->t = l->p + 1;
		l->n = (size_t)(e - l->p - 1);
		l->p = e + 1;
		l->kind = 's';
		return 0;
	} else if (c == '<' || c == '>' || c == '=') {
		l->p += (c != '=' && l->p[1] == '=') ? 2 : 1;
		l->kind = 'o';
	} else if (c == '?' || c == '(' || c == ')' || c == ',') {
		l->p++;
		l->kind = c;
	} else {
		return rk__err(RK_EINVALID, "query '%s': column %zu: unexpected '%c'", l->src,
		               (size_t)(l->p - l->src) + 1, c);
	}
	l->n = (size_t)(l->p - l->t);
	return 0;
}

static int is_word(const lex *l, const char *w)
{
	return l->kind == 'i' && strlen(w) == l->n && !strncasecmp(l->t, w, l->n);
}

static int expect_fail(const lex *l, const char *what)
{
	return rk__err(RK_EINVALID, "query '%s': column %zu: expected %s", l->src,
	               (size_t)(l->t - l->src) + 1, what);
}

/* 1 when a literal is a value of the column: a number of its kind, a time
 * (an integer or an ISO-8601 date-time; a date in its format), or any text
 * for text. */
static int literal_fits(const rk__column *col, const char *t, size_t n)
{
	char buf[64], *end;
	int64_t ms;
	if (col->kind == RK__W_STR)
		return 1;
	if (n == 0 || n >= sizeof buf)
		return 0;
	memcpy(buf, t, n);
	buf[n] = 0;
	if (col->tu && rk__iso8601_ms(&ms, buf, n) == 0)
		return 1;
	if (col->tu == RK__TU_FMT) /* a date in the field's own format */
		return rk__datefmt_parse(&ms, col->dfmt, buf, n, &(const char *){0}) == 0;
	if (col->kind == RK__W_F64) {
		double x = strtod(buf, &end);
		return *end == 0 && !isnan(x);
	}
	if (col->kind == RK__W_U64)
		return buf[0] != '-' && (strtoull(buf, &end, 10), *end == 0);
	return strtoll(buf, &end, 10), *end == 0;
}

/* One value: ? or a literal of the field's type, into condition c. */
static int value(lex *l, rk__qcond *c, rk__qshape *q, const rk__dataset *d)
{
	if (l->kind == '?') {
		c->lit = 0;
	} else if (l->kind == 'n' || l->kind == 's') {
		/* the literal's bytes, escapes undone, kept with the shape */
		char *lit = q->lits + q->lits_len;
		size_t n = 0;
		for (size_t i = 0; i < l->n; i++) {
			if (q->lits_len + n + 1 >= sizeof q->lits)
				return rk__err(RK_EINVALID, "query '%s': its literals pass %zu bytes", l->src,
				               sizeof q->lits - 1);
			if (l->kind == 's' && l->t[i] == '\\' && i + 1 < l->n)
				i++;
			lit[n++] = l->t[i];
		}
		lit[n] = 0;
		if (!literal_fits(&d->col[c->field], lit, n))
			return rk__err(RK_EINVALID, "query '%s': column %zu: '%.*s' is not a value of %s "
			                            "(%s)",
			               l->src, (size_t)(l->t - l->src) + 1, (int)(n > 40 ? 40 : n), lit,
			               d->col[c->field].name, rk__dataset_type(d, c->field));
		q->lits_len += n + 1;
		c->lit = 1; /* an offset: the shapes' array may move */
		c->lit_off = (size_t)(lit - q->lits);
		c->lit_len = n;
	} else {
		return expect_fail(l, "? or a value");
	}
	return next(l);
}

static int push(rk__qshape *q, const rk__qcond *c, const lex *l)
{
	if (q->n == RK__SHAPE_CONDS)
		return rk__err(RK_EINVALID, "query '%s': more than %d conditions", l->src, RK__SHAPE_CONDS);
	q->c[q->n++] = *c;
	uint64_t bit = 1ull << c->field;
	if (c->op == RK__Q_EQ || c->op == RK__Q_IN || c->op == RK__Q_PREFIX)
		q->eq_mask |= bit;
	else
		q->range_mask |= bit;
	return 0;
}

static int condition(lex *l, rk__qshape *q, const rk__dataset *d)
{
	rk__qcond c = {0};
	int rc, f;
	if (l->kind != 'i' || (f = rk__dataset_find(d, l->t, l->n)) < 0) {
		if (l->kind == 'i')
			return rk__err(RK_EINVALID, "query '%s': column %zu: no field '%.*s' in the data",
			               l->src, (size_t)(l->t - l->src) + 1, (int)l->n, l->t);
		return expect_fail(l, "a field name");
	}
	c.field = (size_t)f;
	c.nvals = 1;
	if ((rc = next(l)) != 0)
		return rc;
	if (is_word(l, "BETWEEN")) {
		rk__qcond hi = c;
		c.op = RK__Q_GE;
		hi.op = RK__Q_LE;
		if ((rc = next(l)) || (rc = value(l, &c, q, d)))
			return rc;
		if (!is_word(l, "AND"))
			return expect_fail(l, "AND in BETWEEN");
		if ((rc = next(l)) || (rc = value(l, &hi, q, d)) || (rc = push(q, &c, l)))
			return rc;
		return push(q, &hi, l);
	}
	if (is_word(l, "IN")) {
		c.op = RK__Q_IN;
		c.nvals = 0;
		if ((rc = next(l)) != 0)
			return rc;
		if (l->kind != '(')
			return expect_fail(l, "( after IN");
		do {
			if ((rc = next(l)) || (rc = value(l, &c, q, d)))
				return rc;
			if (c.lit)
				return rk__err(RK_EINVALID, "query '%s': IN takes ? only", l->src);
			c.nvals++;
		} while (l->kind == ',');
		if (l->kind != ')')
			return expect_fail(l, ") closing IN");
		if ((rc = next(l)) != 0)
			return rc;
		return push(q, &c, l);
	}
	if (is_word(l, "PREFIX") && d->col[c.field].kind != RK__W_STR)
		return rk__err(RK_EINVALID, "query '%s': column %zu: PREFIX takes a text field; %s is %s",
		               l->src, (size_t)(l->t - l->src) + 1, d->col[c.field].name,
		               rk__dataset_type(d, c.field));
	if (is_word(l, "PREFIX"))
		c.op = RK__Q_PREFIX;
	else if (l->kind == 'o')
		c.op = l->n == 1 ? (*l->t == '=' ? RK__Q_EQ : *l->t == '<' ? RK__Q_LT : RK__Q_GT)
		                 : (*l->t == '<' ? RK__Q_LE : RK__Q_GE);
	else
		return expect_fail(l, "=, <, <=, >, >=, BETWEEN, IN or PREFIX");
	if ((rc = next(l)) || (rc = value(l, &c, q, d)))
		return rc;
	return push(q, &c, l);
}

/* 1 when the token starts ORDER BY or LIMIT n, not a condition on a field
 * named order or limit (the trades' `order = ?`). */
static int clause_starts(const lex *l)
{
	lex ahead = *l;
	if (!is_word(l, "ORDER") && !is_word(l, "LIMIT"))
		return 0;
	if (next(&ahead) != 0)
		return 0;
	return is_word(l, "ORDER") ? is_word(&ahead, "BY") : ahead.kind == 'n';
}

/* ORDER BY field [ASC|DESC] and LIMIT n after the conditions, as the
 * predicate language has them (docs/queries.md). */
static int order_and_limit(lex *l, rk__qshape *q, const rk__dataset *d)
{
	int rc, f;
	if (is_word(l, "ORDER")) {
		if ((rc = next(l)) != 0)
			return rc;
		if (!is_word(l, "BY"))
			return expect_fail(l, "BY after ORDER");
		if ((rc = next(l)) != 0)
			return rc;
		if (l->kind != 'i' || (f = rk__dataset_find(d, l->t, l->n)) < 0)
			return l->kind == 'i' ? rk__err(RK_EINVALID, "query '%s': column %zu: no field '%.*s' "
			                                             "in the data",
			                                l->src, (size_t)(l->t - l->src) + 1, (int)l->n, l->t)
			                      : expect_fail(l, "a field name after ORDER BY");
		q->order_field = f;
		if ((rc = next(l)) != 0)
			return rc;
		if (is_word(l, "ASC") || is_word(l, "DESC")) {
			q->order_desc = is_word(l, "DESC");
			if ((rc = next(l)) != 0)
				return rc;
		}
	}
	if (is_word(l, "LIMIT")) {
		if ((rc = next(l)) != 0)
			return rc;
		char *end;
		unsigned long long n = l->kind == 'n' ? strtoull(l->t, &end, 10) : 0;
		if (l->kind != 'n' || end != l->t + l->n || n < 1 || l->t[0] == '-')
			return expect_fail(l, "a whole number of at least 1 after LIMIT");
		q->limit = n;
		if ((rc = next(l)) != 0)
			return rc;
	}
	return l->kind ? expect_fail(l, "the end of the query after ORDER BY or LIMIT") : 0;
}

int rk__shape_parse(rk__qshape *q, const char *text, const rk__dataset *d)
{
	int rc;
	memset(q, 0, sizeof *q);
	q->weight = 1;
	q->order_field = -1;
	const char *p = text, *colon = strchr(text, ':');
	if (colon) { /* "W: ..." */
		char *end;
		double w = strtod(p, &end);
		while (*end == ' ')
			end++;
		if (end == colon && w > 0 && isfinite(w)) {
			q->weight = w;
			p = colon + 1;
		}
	}
	lex l = {text, p, 0, NULL, 0};
	if ((rc = next(&l)) != 0)
		return rc;
	while (l.kind && !clause_starts(&l)) {
		if (q->n && !is_word(&l, "AND"))
			return expect_fail(&l, "AND (conditions combine with AND)");
		if (q->n && (rc = next(&l)) != 0)
			return rc;
		if ((rc = condition(&l, q, d)) != 0)
			return rc;
	}
	if ((rc = order_and_limit(&l, q, d)) != 0)
		return rc;
	if (!q->n && q->order_field < 0)
		return rk__err(RK_EINVALID, "query '%s': no condition", text);
	while (*p == ' ')
		p++;
	if (!(q->where = strdup(p)) || !(q->name = strdup(p)))
		return rk__err(RK_ENOMEM, "out of memory");
	return 0;
}
