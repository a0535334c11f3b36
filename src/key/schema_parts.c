/*
 * The key template's grammar (docs/schema.md 2.2): literals, value
 * expressions, encodings, hashes, hex, buckets and salts, slices and :desc,
 * parsed by recursive descent into rk_part trees. Type checks of an
 * encoding against its value happen here; the rules about where parts may
 * stand (decodability) are in schema_rules.c.
 */
#include <limits.h>
#include <stdlib.h>

#include "key/schema_parse.h"
#include "key/suggest.h"

/* ---- parts ---- */

void rk_schema__parts_free(rk_part *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].lit);
		rk_schema__parts_free(p[i].sub, p[i].nsub);
	}
	free(p);
}

/* Frees what a part owns (after a failed parse, or a part never pushed). */
static void part_clear(rk_part *p)
{
	free(p->lit);
	rk_schema__parts_free(p->sub, p->nsub);
	p->lit = NULL;
	p->sub = NULL;
	p->nsub = 0;
}

/* Appends to an array that only ever grows by this function: its capacity
 * is n rounded up to a power of two (at least 4), so a key of many parts
 * costs amortised constant time a part, not a copy of the array each. */
static int parts_push(rk_part **arr, size_t *n, const rk_part *p)
{
	if (*n < 4 ? *n == 0 : (*n & (*n - 1)) == 0) {
		size_t cap = *n < 4 ? 4 : *n * 2;
		rk_part *na = realloc(*arr, cap * sizeof **arr);
		if (!na)
			return rk__err(RK_ENOMEM, "out of memory parsing a schema");
		*arr = na;
	}
	(*arr)[(*n)++] = *p;
	return 0;
}

int rk_schema__field_lookup(const rk_schema *s, const char *p, size_t n)
{
	for (size_t i = 0; i < s->nfields; i++)
		if (strlen(s->fname[i]) == n && !memcmp(s->fname[i], p, n))
			return (int)i;
	return -1;
}

const rk_enc_func rk_schema__enc_funcs[RK_ENC_FUNCS] = {
	{"text", E_TEXT, 0},  {"u8", E_UINT, 1},   {"u16", E_UINT, 2},     {"u32", E_UINT, 4},
	{"u64", E_UINT, 8},   {"i8", E_INT, 1},    {"i16", E_INT, 2},      {"i32", E_INT, 4},
	{"i64", E_INT, 8},    {"f64", E_F64, 8},   {"dec", E_DEC, 0},      {"esc", E_ESC, 0},
	{"bytes", E_BYTES, 0}, {"ordered", E_OC, 0}, {"ob", E_OB, 0},       {"phoenix", E_PHX, 0},
};

static const struct {
	const char *name;
	rk_val_op op;
} val_funcs[] = {
	{"rts", V_RTS},         {"tbucket", V_TBUCKET},         {"reverse", V_REVERSE},
	{"reverse_labels", V_REVLABELS}, {"reverse_num", V_REVNUM},
};

/* value := IDENT | valfunc '(' IDENT [',' NUM] ')' ; fills p->vop, field, varg, vmax, vtype */
static int parse_value(parser *ps, rk_part *p)
{
	token *t = &ps->tok;
	int rc;
	if (t->kind != T_IDENT)
		return rk_schema__perr(ps, t, "expected a field name or a value function");
	for (size_t i = 0; i < sizeof val_funcs / sizeof val_funcs[0]; i++) {
		if (!is_ident(t, val_funcs[i].name))
			continue;
		token fn = *t;
		p->vop = val_funcs[i].op;
		if ((rc = rk_schema__lex(ps)) < 0 || (rc = rk_schema__expect_punct(ps, '(')) < 0)
			return rc;
		if (t->kind != T_IDENT || (p->field = rk_schema__field_lookup(ps->s, t->p, t->n)) < 0)
			return rk_schema__perr(ps, t, "%s() takes a declared field", val_funcs[i].name);
		rk_type ft = ps->s->ftype[p->field];
		token ftok = *t;
		if ((rc = rk_schema__lex(ps)) < 0)
			return rc;
		switch (p->vop) {
		case V_RTS:
			if (!rk_type__is_int(ft))
				return rk_schema__perr(ps, &ftok, "rts() needs an integer timestamp field, '%.*s' is %s",
				            (int)ftok.n, ftok.p, rk_type__name(ft));
			p->vmax = (uint64_t)INT64_MAX; /* Java's Long.MAX_VALUE */
			if (is_punct(t, ',')) {
				if ((rc = rk_schema__lex(ps)) < 0 || (rc = rk_schema__parse_u64(ps, &p->vmax, "rts maximum")) < 0)
					return rc;
			}
			p->vtype = RK_T_U64;
			break;
		case V_TBUCKET: {
			long long w;
			if (!rk_type__is_int(ft))
				return rk_schema__perr(ps, &ftok, "tbucket() needs an integer field");
			if ((rc = rk_schema__expect_punct(ps, ',')) < 0 || (rc = rk_schema__parse_int(ps, &w, 1, INT64_MAX, "bucket width")) < 0)
				return rc;
			p->varg = w;
			p->vtype = ft;
			break;
		}
		case V_REVERSE:
		case V_REVLABELS:
			if (ft != RK_T_STR && ft != RK_T_BYTES)
				return rk_schema__perr(ps, &ftok, "%s() needs a str or bytes field", val_funcs[i].name);
			p->vtype = RK_T_STR;
			break;
		case V_REVNUM: {
			long long w;
			if (!rk_type__is_int(ft))
				return rk_schema__perr(ps, &ftok, "reverse_num() needs an integer field");
			if ((rc = rk_schema__expect_punct(ps, ',')) < 0 || (rc = rk_schema__parse_int(ps, &w, 1, 20, "digit count")) < 0)
				return rc;
			p->varg = w;
			p->vtype = RK_T_STR;
			break;
		}
		default:
			break;
		}
		(void)fn;
		return rk_schema__expect_punct(ps, ')');
	}
	if ((p->field = rk_schema__field_lookup(ps->s, t->p, t->n)) < 0) {
		const char *best = rk__suggest_among(t->p, t->n, ps->s->fname, ps->s->nfields);
		return rk_schema__perr(ps, t, "unknown field or function '%.*s'%s%s%s", (int)t->n,
		                       t->p, best ? " (did you mean '" : "", best ? best : "",
		                       best ? "'?)" : "");
	}
	p->vop = V_FIELD;
	p->vtype = ps->s->ftype[p->field];
	return rk_schema__lex(ps);
}

/* Checks that encoding p->enc fits the value's type; sets widths. */
static int check_encoding(parser *ps, const token *at, rk_part *p)
{
	rk_type t = p->vtype;
	const char *tn = rk_type__name(t);
	switch (p->enc) {
	case E_UINT:
	case E_INT:
	case E_DEC:
		if (!rk_type__is_int(t))
			return rk_schema__perr(ps, at, "this encoding needs an integer value, not %s", tn);
		break;
	case E_F64:
		if (t != RK_T_F64)
			return rk_schema__perr(ps, at, "f64() needs an f64 field, not %s", tn);
		break;
	case E_ESC:
	case E_BYTES:
		if (t != RK_T_STR && t != RK_T_BYTES)
			return rk_schema__perr(ps, at, "this encoding needs a str or bytes value, not %s", tn);
		break;
	case E_OC:
		if (t == RK_T_F64)
			return rk_schema__perr(ps, at, "ordered() has no float form; use f64()");
		break;
	case E_OB:
		if (t == RK_T_F64) {
			p->width = 8;
		} else if (rk_type__is_signed(t)) {
			p->width = rk_type__width(t);
		} else {
			return rk_schema__perr(ps, at, "ob() needs a signed integer or f64 value (OrderedBytes has no unsigned form), not %s", tn);
		}
		break;
	case E_PHX:
		if (t == RK_T_F64)
			return rk_schema__perr(ps, at, "phoenix() supports str, bytes and integer fields; for f64 use f64()");
		if (rk_type__is_int(t))
			p->width = rk_type__width(t);
		break;
	default:
		break;
	}
	return 0;
}

/* part := primary [slice] [':' asc|desc] */
static int parse_part(parser *ps, rk_part *p, int depth, int top);

/* "literal" */
static int parse_literal(parser *ps, rk_part *p)
{
	token *t = &ps->tok;
	if (t->slen == 0)
		return rk_schema__perr(ps, t, "empty literal");
	p->kind = P_LIT;
	p->lit = malloc(t->slen);
	if (!p->lit)
		return rk__err(RK_ENOMEM, "out of memory parsing a schema");
	memcpy(p->lit, t->sval, t->slen);
	p->litlen = t->slen;
	return rk_schema__lex(ps);
}

/* ENC(value) or dec(value, width), the encoding enc_funcs[i] */
static int parse_encoding(parser *ps, rk_part *p, size_t i, const token *at)
{
	int rc;
	p->kind = P_VAL;
	p->enc = rk_schema__enc_funcs[i].enc;
	p->width = rk_schema__enc_funcs[i].width;
	if ((rc = rk_schema__lex(ps)) < 0 || (rc = rk_schema__expect_punct(ps, '(')) < 0 ||
	    (rc = parse_value(ps, p)) < 0)
		return rc;
	if (p->enc == E_DEC) {
		long long w;
		if ((rc = rk_schema__expect_punct(ps, ',')) < 0 ||
		    (rc = rk_schema__parse_int(ps, &w, 1, 20, "decimal width")) < 0)
			return rc;
		p->width = (int)w;
	}
	if ((rc = rk_schema__expect_punct(ps, ')')) < 0)
		return rc;
	return check_encoding(ps, at, p);
}

/* A hash or hex() over a template of its own: NAME(part ...) */
static int parse_over(parser *ps, rk_part *p, int depth)
{
	token *t = &ps->tok;
	int rc;
	if (depth + 1 > RK_MAX_DEPTH)
		return rk_schema__perr(ps, t, "functions nested deeper than %d", RK_MAX_DEPTH);
	if ((rc = rk_schema__lex(ps)) < 0 || (rc = rk_schema__expect_punct(ps, '(')) < 0 ||
	    (rc = rk_schema__parse_template(ps, &p->sub, &p->nsub, depth + 1, 1)) < 0)
		return rc;
	return rk_schema__expect_punct(ps, ')');
}

/* bucket()'s second argument: a hash part */
static int parse_bucket_hash(parser *ps, rk_part *p, int depth)
{
	token *t = &ps->tok;
	rk_part h;
	int rc;
	if ((rc = rk_schema__expect_punct(ps, ',')) < 0)
		return rc;
	token ht = *t;
	if ((rc = parse_part(ps, &h, depth + 1, 0)) < 0) {
		part_clear(&h);
		return rc;
	}
	if (h.kind != P_HASH) {
		part_clear(&h);
		return rk_schema__perr(ps, &ht, "bucket() takes a hash as its second argument, e.g. bucket(16, xxh3(user))");
	}
	if ((rc = parts_push(&p->sub, &p->nsub, &h)) < 0)
		part_clear(&h);
	return rc;
}

/* The bucket byte's form after ',': bin, dec or an alphabet "..." */
static int parse_bucket_form(parser *ps, rk_part *p)
{
	token *t = &ps->tok;
	int rc;
	if ((rc = rk_schema__lex(ps)) < 0)
		return rc;
	if (is_ident(t, "bin")) {
		p->form = F_BIN;
	} else if (is_ident(t, "dec")) {
		p->form = F_DEC;
	} else if (t->kind == T_STR) {
		if (t->slen != p->n)
			return rk_schema__perr(ps, t, "the alphabet must have exactly %u characters, one per bucket", p->n);
		for (size_t i = 0; i < t->slen; i++)
			if (memchr(t->sval, t->sval[i], i))
				return rk_schema__perr(ps, t, "the alphabet repeats '%c'", t->sval[i]);
		p->form = F_ALPHA;
		memcpy(p->alpha, t->sval, t->slen);
	} else {
		return rk_schema__perr(ps, t, "expected a bucket form: bin, dec or an alphabet string");
	}
	return rk_schema__lex(ps);
}

/* bucket(N, hash[, form]), random(N[, form]), roundrobin(N[, form]),
 * phoenix_salt(N): only at the key's top level */
static int parse_salt(parser *ps, rk_part *p, int depth, int top, const token *at)
{
	token *t = &ps->tok;
	int is_bucket = is_ident(t, "bucket"), is_rand = is_ident(t, "random"),
	    is_psalt = is_ident(t, "phoenix_salt");
	long long n;
	int rc;
	if (!top)
		return rk_schema__perr(ps, t, "%.*s() may only stand at the top level of the key", (int)t->n, t->p);
	p->kind = is_bucket ? P_BUCKET : is_psalt ? P_PSALT : P_SALT;
	p->salt = is_rand ? SALT_RANDOM : SALT_ROUNDROBIN;
	p->form = F_BIN;
	if ((rc = rk_schema__lex(ps)) < 0 || (rc = rk_schema__expect_punct(ps, '(')) < 0 ||
	    (rc = rk_schema__parse_int(ps, &n, 1, is_psalt ? 256 : 1000000, "bucket count")) < 0)
		return rc;
	p->n = (unsigned)n;
	if (is_bucket && (rc = parse_bucket_hash(ps, p, depth)) < 0)
		return rc;
	if (!is_psalt && is_punct(t, ',') && (rc = parse_bucket_form(ps, p)) < 0)
		return rc;
	if (p->form == F_BIN && p->n > 256)
		return rk_schema__perr(ps, at, "a binary bucket byte holds at most 256 buckets; use dec");
	return rk_schema__expect_punct(ps, ')');
}

/* [a:b] after a part: the part becomes the slice's one sub-part */
static int parse_slice(parser *ps, rk_part *p)
{
	token *t = &ps->tok;
	rk_part inner = *p;
	int rc;
	memset(p, 0, sizeof *p);
	p->kind = P_SLICE;
	p->line = inner.line;
	p->col = inner.col;
	if ((rc = parts_push(&p->sub, &p->nsub, &inner)) < 0) {
		part_clear(&inner);
		return rc;
	}
	long long a = 0, b = LONG_MAX;
	if ((rc = rk_schema__lex(ps)) < 0)
		return rc;
	if (t->kind == T_NUM && (rc = rk_schema__parse_int(ps, &a, -100000, 100000, "slice start")) < 0)
		return rc;
	if ((rc = rk_schema__expect_punct(ps, ':')) < 0)
		return rc;
	if (t->kind == T_NUM && (rc = rk_schema__parse_int(ps, &b, -100000, 100000, "slice end")) < 0)
		return rc;
	if ((rc = rk_schema__expect_punct(ps, ']')) < 0)
		return rc;
	p->sa = (long)a;
	p->sb = (long)b;
	return 0;
}

/* What may follow any part: a slice [a:b], then :asc or :desc */
static int parse_suffix(parser *ps, rk_part *p)
{
	token *t = &ps->tok;
	int rc;
	if (is_punct(t, '[') && (rc = parse_slice(ps, p)) < 0)
		return rc;
	if (!is_punct(t, ':'))
		return 0;
	if ((rc = rk_schema__lex(ps)) < 0)
		return rc;
	if (is_ident(t, "desc"))
		p->desc = 1;
	else if (!is_ident(t, "asc"))
		return rk_schema__perr(ps, t, "expected asc or desc after ':'");
	if (p->desc && (p->kind != P_VAL || p->enc == E_TEXT || p->enc == E_BYTES))
		return rk_schema__perr(ps, t, "desc needs a fixed-width or terminated encoding "
		                   "(u8..u64, i8..i64, f64, dec, esc, ordered, ob, phoenix)");
	return rk_schema__lex(ps);
}

/* 1 when the identifier t is a bare field or value function (text form):
 * not followed by '(' or one of val_funcs */
static int is_text_value(const parser *ps, const token *t)
{
	const char *q = ps->cur;
	while (q < ps->end && (*q == ' ' || *q == '\t'))
		q++;
	if (!(q < ps->end && *q == '('))
		return 1;
	for (size_t i = 0; i < sizeof val_funcs / sizeof val_funcs[0]; i++)
		if (is_ident(t, val_funcs[i].name))
			return 1;
	return 0;
}

/* One key part, whichever kind its first token starts. */
static int parse_part_body(parser *ps, rk_part *p, int depth, int top, const token *at)
{
	token *t = &ps->tok;
	if (t->kind == T_STR)
		return parse_literal(ps, p);
	if (t->kind != T_IDENT)
		return rk_schema__perr(ps, t, "expected a key part: a \"literal\", a field or a function");
	if (is_text_value(ps, t)) {
		p->kind = P_VAL;
		p->enc = E_TEXT;
		return parse_value(ps, p);
	}
	for (size_t i = 0; i < sizeof rk_schema__enc_funcs / sizeof rk_schema__enc_funcs[0]; i++)
		if (is_ident(t, rk_schema__enc_funcs[i].name))
			return parse_encoding(ps, p, i, at);
	rk_hash_alg alg = rk_hash__by_name(t->p, t->n);
	if (alg) {
		p->kind = P_HASH;
		p->alg = alg;
		return parse_over(ps, p, depth);
	}
	if (is_ident(t, "hex") || is_ident(t, "HEX")) {
		p->kind = P_HEX;
		p->upper = t->p[0] == 'H';
		return parse_over(ps, p, depth);
	}
	if (is_ident(t, "bucket") || is_ident(t, "random") || is_ident(t, "roundrobin") ||
	    is_ident(t, "phoenix_salt"))
		return parse_salt(ps, p, depth, top, at);
	return rk_schema__perr(ps, t, "unknown function '%.*s'", (int)t->n, t->p);
}

static int parse_part(parser *ps, rk_part *p, int depth, int top)
{
	token at = ps->tok;
	memset(p, 0, sizeof *p);
	p->line = at.line;
	p->col = at.col;
	int rc = parse_part_body(ps, p, depth, top, &at);
	return rc < 0 ? rc : parse_suffix(ps, p);
}

int rk_schema__parse_template(parser *ps, rk_part **out, size_t *nout, int depth, int until_paren)
{
	int rc;
	for (;;) {
		token *t = &ps->tok;
		if (until_paren && is_punct(t, ')'))
			break;
		if (!until_paren && (t->kind == T_EOL || t->kind == T_EOF))
			break;
		if (until_paren && (t->kind == T_EOL || t->kind == T_EOF))
			return rk_schema__perr(ps, t, "missing ')'");
		if (until_paren && *nout > 0 && is_punct(t, ',')) { /* md5(a, b) == md5(a b) */
			if ((rc = rk_schema__lex(ps)) < 0)
				return rc;
			continue;
		}
		rk_part p;
		if ((rc = parse_part(ps, &p, depth, !until_paren)) < 0 || (rc = parts_push(out, nout, &p)) < 0) {
			part_clear(&p);
			return rc;
		}
	}
	if (*nout == 0)
		return rk_schema__perr(ps, &ps->tok, "expected at least one key part");
	return 0;
}
