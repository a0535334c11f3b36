/*
 * The schema language: a lexer and recursive-descent parser from schema text
 * (docs/schema.md) to rk_schema, the checks that make every accepted key
 * template decodable, and the describe summary.
 *
 * Every error names the line, column and token. What this file does not do:
 * encode or decode keys (encode.c), plan queries (plan.c).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "key/error.h"
#include "key/schema_int.h"

/* ---- types ---- */

static const struct {
	const char *name;
	rk_type type;
} type_names[] = {
	{"u8", RK_T_U8},   {"u16", RK_T_U16}, {"u32", RK_T_U32}, {"u64", RK_T_U64},
	{"i8", RK_T_I8},   {"i16", RK_T_I16}, {"i32", RK_T_I32}, {"i64", RK_T_I64},
	{"ts", RK_T_I64},  {"f64", RK_T_F64}, {"str", RK_T_STR}, {"bytes", RK_T_BYTES},
};

int rk_type__width(rk_type t)
{
	switch (t) {
	case RK_T_U8: case RK_T_I8: return 1;
	case RK_T_U16: case RK_T_I16: return 2;
	case RK_T_U32: case RK_T_I32: return 4;
	case RK_T_U64: case RK_T_I64: case RK_T_F64: return 8;
	default: return 0;
	}
}

const char *rk_type__name(rk_type t)
{
	for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
		if (type_names[i].type == t)
			return type_names[i].name;
	return "?";
}

/* ---- lexer ---- */

typedef enum { T_EOF, T_EOL, T_IDENT, T_NUM, T_STR, T_PUNCT } tok_kind;

typedef struct {
	tok_kind kind;
	const char *p; /* token text in the source */
	size_t n;
	int line, col;
	uint8_t sval[1024]; /* T_STR: unescaped bytes */
	size_t slen;
} token;

typedef struct {
	const char *src, *end, *cur;
	int line;
	const char *line_start;
	const char *name;
	token tok;   /* current token */
	rk_schema *s;
} parser;

static int perr(parser *ps, const token *t, const char *fmt, ...) RK_PRINTF(3, 4);
static int perr(parser *ps, const token *t, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const char *what = t->kind == T_EOF ? "end of schema" : t->kind == T_EOL ? "end of line" : NULL;
	if (what)
		return rk__err(RK_EINVALID, "%s:%d:%d: %s (at %s)", ps->name, t->line, t->col, msg, what);
	return rk__err(RK_EINVALID, "%s:%d:%d: %s (at '%.*s')", ps->name, t->line, t->col, msg,
	               (int)(t->n > 40 ? 40 : t->n), t->p);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* Reads the next token into ps->tok. */
static int lex(parser *ps)
{
	token *t = &ps->tok;
	const char *c = ps->cur;
	for (;;) {
		while (c < ps->end && (*c == ' ' || *c == '\t' || *c == '\r'))
			c++;
		if (c < ps->end && *c == '#') {
			while (c < ps->end && *c != '\n')
				c++;
			continue;
		}
		if (c < ps->end && *c == '\\' && c + 1 < ps->end && c[1] == '\n') { /* continuation */
			c += 2;
			ps->line++;
			ps->line_start = c;
			continue;
		}
		break;
	}
	t->p = c;
	t->line = ps->line;
	t->col = (int)(c - ps->line_start) + 1;
	if (c >= ps->end) {
		t->kind = T_EOF;
		t->n = 0;
		ps->cur = c;
		return 0;
	}
	if (*c == '\n' || *c == ';') {
		t->kind = T_EOL;
		t->n = 1;
		if (*c == '\n') {
			ps->line++;
			ps->line_start = c + 1;
		}
		ps->cur = c + 1;
		return 0;
	}
	if (isalpha((unsigned char)*c) || *c == '_') {
		const char *b = c;
		while (c < ps->end && (isalnum((unsigned char)*c) || *c == '_'))
			c++;
		t->kind = T_IDENT;
		t->n = (size_t)(c - b);
		ps->cur = c;
		if (t->n > RK_MAX_IDENT)
			return perr(ps, t, "a name is at most %d bytes, this one has %zu", RK_MAX_IDENT, t->n);
		return 0;
	}
	if (isdigit((unsigned char)*c) || (*c == '-' && c + 1 < ps->end && isdigit((unsigned char)c[1]))) {
		const char *b = c++;
		while (c < ps->end && isdigit((unsigned char)*c))
			c++;
		t->kind = T_NUM;
		t->n = (size_t)(c - b);
		ps->cur = c;
		return 0;
	}
	if (*c == '"' || *c == '\'') {
		char q = *c++;
		t->slen = 0;
		while (c < ps->end && *c != q) {
			if (*c == '\n')
				break;
			uint8_t b;
			if (*c == '\\') {
				if (c + 1 >= ps->end)
					break;
				c++;
				switch (*c) {
				case 'n': b = '\n'; c++; break;
				case 't': b = '\t'; c++; break;
				case '0': b = 0; c++; break;
				case '\\': b = '\\'; c++; break;
				case '"': b = '"'; c++; break;
				case '\'': b = '\''; c++; break;
				case 'x':
					if (c + 2 < ps->end && hexval(c[1]) >= 0 && hexval(c[2]) >= 0) {
						b = (uint8_t)(hexval(c[1]) * 16 + hexval(c[2]));
						c += 3;
						break;
					}
					/* fall through */
				default:
					t->kind = T_STR;
					t->n = (size_t)(c - t->p) + 1;
					return perr(ps, t, "unknown escape in string literal (use \\n \\t \\0 \\\\ \\\" \\' \\xNN)");
				}
			} else {
				b = (uint8_t)*c++;
			}
			if (t->slen >= sizeof t->sval) {
				t->kind = T_STR;
				t->n = (size_t)(c - t->p);
				return perr(ps, t, "string literal longer than %zu bytes", sizeof t->sval);
			}
			t->sval[t->slen++] = b;
		}
		if (c >= ps->end || *c != q) {
			t->kind = T_STR;
			t->n = (size_t)(c - t->p);
			return perr(ps, t, "unterminated string literal");
		}
		c++;
		t->kind = T_STR;
		t->n = (size_t)(c - t->p);
		ps->cur = c;
		return 0;
	}
	if (strchr("(),[]:=", *c)) {
		t->kind = T_PUNCT;
		t->n = 1;
		ps->cur = c + 1;
		return 0;
	}
	t->kind = T_PUNCT;
	t->n = 1;
	return perr(ps, t, "unexpected character");
}

static int is_punct(const token *t, char c)
{
	return t->kind == T_PUNCT && t->p[0] == c;
}

static int is_ident(const token *t, const char *s)
{
	return t->kind == T_IDENT && strlen(s) == t->n && !memcmp(t->p, s, t->n);
}

static int expect_punct(parser *ps, char c)
{
	if (!is_punct(&ps->tok, c))
		return perr(ps, &ps->tok, "expected '%c'", c);
	return lex(ps);
}

static int parse_int(parser *ps, long long *out, long long lo, long long hi, const char *what)
{
	token *t = &ps->tok;
	if (t->kind != T_NUM)
		return perr(ps, t, "expected %s (a number)", what);
	char buf[32];
	if (t->n >= sizeof buf)
		return perr(ps, t, "%s is too large", what);
	memcpy(buf, t->p, t->n);
	buf[t->n] = 0;
	errno = 0;
	long long v = strtoll(buf, NULL, 10);
	if (errno || v < lo || v > hi)
		return perr(ps, t, "%s must be between %lld and %lld", what, lo, hi);
	*out = v;
	return lex(ps);
}

static int parse_u64(parser *ps, uint64_t *out, const char *what)
{
	token *t = &ps->tok;
	if (t->kind != T_NUM || t->p[0] == '-')
		return perr(ps, t, "expected %s (a non-negative number)", what);
	char buf[32];
	if (t->n >= sizeof buf)
		return perr(ps, t, "%s is too large", what);
	memcpy(buf, t->p, t->n);
	buf[t->n] = 0;
	errno = 0;
	unsigned long long v = strtoull(buf, NULL, 10);
	if (errno)
		return perr(ps, t, "%s does not fit in 64 bits", what);
	*out = v;
	return lex(ps);
}

/* ---- parts ---- */

static void parts_free(rk_part *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].lit);
		parts_free(p[i].sub, p[i].nsub);
	}
	free(p);
}

/* Frees what a part owns (after a failed parse, or a part never pushed). */
static void part_clear(rk_part *p)
{
	free(p->lit);
	parts_free(p->sub, p->nsub);
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

static int field_lookup(const rk_schema *s, const char *p, size_t n)
{
	for (size_t i = 0; i < s->nfields; i++)
		if (strlen(s->fname[i]) == n && !memcmp(s->fname[i], p, n))
			return (int)i;
	return -1;
}

static const struct {
	const char *name;
	rk_enc_kind enc;
	int width;
} enc_funcs[] = {
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

static int parse_template(parser *ps, rk_part **out, size_t *nout, int depth, int until_paren);

/* value := IDENT | valfunc '(' IDENT [',' NUM] ')' ; fills p->vop, field, varg, vmax, vtype */
static int parse_value(parser *ps, rk_part *p)
{
	token *t = &ps->tok;
	int rc;
	if (t->kind != T_IDENT)
		return perr(ps, t, "expected a field name or a value function");
	for (size_t i = 0; i < sizeof val_funcs / sizeof val_funcs[0]; i++) {
		if (!is_ident(t, val_funcs[i].name))
			continue;
		token fn = *t;
		p->vop = val_funcs[i].op;
		if ((rc = lex(ps)) < 0 || (rc = expect_punct(ps, '(')) < 0)
			return rc;
		if (t->kind != T_IDENT || (p->field = field_lookup(ps->s, t->p, t->n)) < 0)
			return perr(ps, t, "%s() takes a declared field", val_funcs[i].name);
		rk_type ft = ps->s->ftype[p->field];
		token ftok = *t;
		if ((rc = lex(ps)) < 0)
			return rc;
		switch (p->vop) {
		case V_RTS:
			if (!rk_type__is_int(ft))
				return perr(ps, &ftok, "rts() needs an integer timestamp field, '%.*s' is %s",
				            (int)ftok.n, ftok.p, rk_type__name(ft));
			p->vmax = (uint64_t)INT64_MAX; /* Java's Long.MAX_VALUE */
			if (is_punct(t, ',')) {
				if ((rc = lex(ps)) < 0 || (rc = parse_u64(ps, &p->vmax, "rts maximum")) < 0)
					return rc;
			}
			p->vtype = RK_T_U64;
			break;
		case V_TBUCKET: {
			long long w;
			if (!rk_type__is_int(ft))
				return perr(ps, &ftok, "tbucket() needs an integer field");
			if ((rc = expect_punct(ps, ',')) < 0 || (rc = parse_int(ps, &w, 1, INT64_MAX, "bucket width")) < 0)
				return rc;
			p->varg = w;
			p->vtype = ft;
			break;
		}
		case V_REVERSE:
		case V_REVLABELS:
			if (ft != RK_T_STR && ft != RK_T_BYTES)
				return perr(ps, &ftok, "%s() needs a str or bytes field", val_funcs[i].name);
			p->vtype = RK_T_STR;
			break;
		case V_REVNUM: {
			long long w;
			if (!rk_type__is_int(ft))
				return perr(ps, &ftok, "reverse_num() needs an integer field");
			if ((rc = expect_punct(ps, ',')) < 0 || (rc = parse_int(ps, &w, 1, 20, "digit count")) < 0)
				return rc;
			p->varg = w;
			p->vtype = RK_T_STR;
			break;
		}
		default:
			break;
		}
		(void)fn;
		return expect_punct(ps, ')');
	}
	if ((p->field = field_lookup(ps->s, t->p, t->n)) < 0)
		return perr(ps, t, "unknown field or function '%.*s'", (int)t->n, t->p);
	p->vop = V_FIELD;
	p->vtype = ps->s->ftype[p->field];
	return lex(ps);
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
			return perr(ps, at, "this encoding needs an integer value, not %s", tn);
		break;
	case E_F64:
		if (t != RK_T_F64)
			return perr(ps, at, "f64() needs an f64 field, not %s", tn);
		break;
	case E_ESC:
	case E_BYTES:
		if (t != RK_T_STR && t != RK_T_BYTES)
			return perr(ps, at, "this encoding needs a str or bytes value, not %s", tn);
		break;
	case E_OC:
		if (t == RK_T_F64)
			return perr(ps, at, "ordered() has no float form; use f64()");
		break;
	case E_OB:
		if (t == RK_T_F64) {
			p->width = 8;
		} else if (rk_type__is_signed(t)) {
			p->width = rk_type__width(t);
		} else {
			return perr(ps, at, "ob() needs a signed integer or f64 value (OrderedBytes has no unsigned form), not %s", tn);
		}
		break;
	case E_PHX:
		if (t == RK_T_F64)
			return perr(ps, at, "phoenix() supports str, bytes and integer fields; for f64 use f64()");
		if (rk_type__is_int(t))
			p->width = rk_type__width(t);
		break;
	default:
		break;
	}
	return 0;
}

/* part := primary [slice] [':' asc|desc] */
static int parse_part(parser *ps, rk_part *p, int depth, int top)
{
	token *t = &ps->tok;
	token at = *t;
	int rc;
	memset(p, 0, sizeof *p);
	p->line = t->line;
	p->col = t->col;
	if (t->kind == T_STR) {
		if (t->slen == 0)
			return perr(ps, t, "empty literal");
		p->kind = P_LIT;
		p->lit = malloc(t->slen);
		if (!p->lit)
			return rk__err(RK_ENOMEM, "out of memory parsing a schema");
		memcpy(p->lit, t->sval, t->slen);
		p->litlen = t->slen;
		if ((rc = lex(ps)) < 0)
			return rc;
		goto suffix;
	}
	if (t->kind != T_IDENT)
		return perr(ps, t, "expected a key part: a \"literal\", a field or a function");

	/* a bare field or value function: text form */
	const char *q = ps->cur;
	while (q < ps->end && (*q == ' ' || *q == '\t'))
		q++;
	int is_call = q < ps->end && *q == '(';
	int is_valfn = 0;
	for (size_t i = 0; i < sizeof val_funcs / sizeof val_funcs[0]; i++)
		is_valfn |= is_ident(t, val_funcs[i].name);
	if (!is_call || is_valfn) {
		p->kind = P_VAL;
		p->enc = E_TEXT;
		if ((rc = parse_value(ps, p)) < 0)
			return rc;
		goto suffix;
	}

	/* encodings */
	for (size_t i = 0; i < sizeof enc_funcs / sizeof enc_funcs[0]; i++) {
		if (!is_ident(t, enc_funcs[i].name))
			continue;
		p->kind = P_VAL;
		p->enc = enc_funcs[i].enc;
		p->width = enc_funcs[i].width;
		if ((rc = lex(ps)) < 0 || (rc = expect_punct(ps, '(')) < 0 || (rc = parse_value(ps, p)) < 0)
			return rc;
		if (p->enc == E_DEC) {
			long long w;
			if ((rc = expect_punct(ps, ',')) < 0 || (rc = parse_int(ps, &w, 1, 20, "decimal width")) < 0)
				return rc;
			p->width = (int)w;
		}
		if ((rc = expect_punct(ps, ')')) < 0 || (rc = check_encoding(ps, &at, p)) < 0)
			return rc;
		goto suffix;
	}

	/* hashes */
	rk_hash_alg alg = rk_hash__by_name(t->p, t->n);
	if (alg) {
		p->kind = P_HASH;
		p->alg = alg;
		if (depth + 1 > RK_MAX_DEPTH)
			return perr(ps, t, "functions nested deeper than %d", RK_MAX_DEPTH);
		if ((rc = lex(ps)) < 0 || (rc = expect_punct(ps, '(')) < 0 ||
		    (rc = parse_template(ps, &p->sub, &p->nsub, depth + 1, 1)) < 0 || (rc = expect_punct(ps, ')')) < 0)
			return rc;
		goto suffix;
	}
	if (is_ident(t, "hex") || is_ident(t, "HEX")) {
		p->kind = P_HEX;
		p->upper = t->p[0] == 'H';
		if (depth + 1 > RK_MAX_DEPTH)
			return perr(ps, t, "functions nested deeper than %d", RK_MAX_DEPTH);
		if ((rc = lex(ps)) < 0 || (rc = expect_punct(ps, '(')) < 0 ||
		    (rc = parse_template(ps, &p->sub, &p->nsub, depth + 1, 1)) < 0 || (rc = expect_punct(ps, ')')) < 0)
			return rc;
		goto suffix;
	}
	int is_bucket = is_ident(t, "bucket"), is_rand = is_ident(t, "random"),
	    is_rr = is_ident(t, "roundrobin"), is_psalt = is_ident(t, "phoenix_salt");
	if (is_bucket || is_rand || is_rr || is_psalt) {
		if (!top)
			return perr(ps, t, "%.*s() may only stand at the top level of the key", (int)t->n, t->p);
		long long n;
		p->kind = is_bucket ? P_BUCKET : is_psalt ? P_PSALT : P_SALT;
		p->salt = is_rand ? SALT_RANDOM : SALT_ROUNDROBIN;
		p->form = F_BIN;
		if ((rc = lex(ps)) < 0 || (rc = expect_punct(ps, '(')) < 0)
			return rc;
		if ((rc = parse_int(ps, &n, 1, is_psalt ? 256 : 1000000, "bucket count")) < 0)
			return rc;
		p->n = (unsigned)n;
		if (is_bucket) {
			rk_part h;
			if ((rc = expect_punct(ps, ',')) < 0)
				return rc;
			token ht = *t;
			if ((rc = parse_part(ps, &h, depth + 1, 0)) < 0) {
				part_clear(&h);
				return rc;
			}
			if (h.kind != P_HASH) {
				part_clear(&h);
				return perr(ps, &ht, "bucket() takes a hash as its second argument, e.g. bucket(16, xxh3(user))");
			}
			if ((rc = parts_push(&p->sub, &p->nsub, &h)) < 0) {
				part_clear(&h);
				return rc;
			}
		}
		if (!is_psalt && is_punct(t, ',')) {
			if ((rc = lex(ps)) < 0)
				return rc;
			if (is_ident(t, "bin")) {
				p->form = F_BIN;
			} else if (is_ident(t, "dec")) {
				p->form = F_DEC;
			} else if (t->kind == T_STR) {
				if (t->slen != p->n)
					return perr(ps, t, "the alphabet must have exactly %u characters, one per bucket", p->n);
				for (size_t i = 0; i < t->slen; i++)
					if (memchr(t->sval, t->sval[i], i))
						return perr(ps, t, "the alphabet repeats '%c'", t->sval[i]);
				p->form = F_ALPHA;
				memcpy(p->alpha, t->sval, t->slen);
			} else {
				return perr(ps, t, "expected a bucket form: bin, dec or an alphabet string");
			}
			if ((rc = lex(ps)) < 0)
				return rc;
		}
		if (p->form == F_BIN && p->n > 256)
			return perr(ps, &at, "a binary bucket byte holds at most 256 buckets; use dec");
		if ((rc = expect_punct(ps, ')')) < 0)
			return rc;
		goto suffix;
	}
	return perr(ps, t, "unknown function '%.*s'", (int)t->n, t->p);

suffix:
	if (is_punct(t, '[')) {
		rk_part inner = *p;
		memset(p, 0, sizeof *p);
		p->kind = P_SLICE;
		p->line = inner.line;
		p->col = inner.col;
		if ((rc = parts_push(&p->sub, &p->nsub, &inner)) < 0) {
			part_clear(&inner);
			return rc;
		}
		long long a = 0, b = LONG_MAX;
		if ((rc = lex(ps)) < 0)
			return rc;
		if (t->kind == T_NUM && (rc = parse_int(ps, &a, -100000, 100000, "slice start")) < 0)
			return rc;
		if ((rc = expect_punct(ps, ':')) < 0)
			return rc;
		if (t->kind == T_NUM && (rc = parse_int(ps, &b, -100000, 100000, "slice end")) < 0)
			return rc;
		if ((rc = expect_punct(ps, ']')) < 0)
			return rc;
		p->sa = (long)a;
		p->sb = (long)b;
	}
	if (is_punct(t, ':')) {
		if ((rc = lex(ps)) < 0)
			return rc;
		if (is_ident(t, "desc")) {
			p->desc = 1;
		} else if (!is_ident(t, "asc")) {
			return perr(ps, t, "expected asc or desc after ':'");
		}
		if (p->desc && (p->kind != P_VAL || p->enc == E_TEXT || p->enc == E_BYTES))
			return perr(ps, t, "desc needs a fixed-width or terminated encoding "
			                   "(u8..u64, i8..i64, f64, dec, esc, ordered, ob, phoenix)");
		return lex(ps);
	}
	return 0;
}

static int parse_template(parser *ps, rk_part **out, size_t *nout, int depth, int until_paren)
{
	int rc;
	for (;;) {
		token *t = &ps->tok;
		if (until_paren && is_punct(t, ')'))
			break;
		if (!until_paren && (t->kind == T_EOL || t->kind == T_EOF))
			break;
		if (until_paren && (t->kind == T_EOL || t->kind == T_EOF))
			return perr(ps, t, "missing ')'");
		if (until_paren && *nout > 0 && is_punct(t, ',')) { /* md5(a, b) == md5(a b) */
			if ((rc = lex(ps)) < 0)
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
		return perr(ps, &ps->tok, "expected at least one key part");
	return 0;
}

/* ---- derived properties and decodability checks ---- */

uint64_t rk_schema__fields_used(const rk_part *parts, size_t n)
{
	uint64_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (parts[i].kind == P_VAL)
			m |= 1ULL << parts[i].field;
		m |= rk_schema__fields_used(parts[i].sub, parts[i].nsub);
	}
	return m;
}

static long digits_of(unsigned n)
{
	long d = 1;
	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

static int derive(parser *ps, rk_schema *s, rk_part *parts, size_t n, int depth)
{
	int rc;
	if (depth > RK_MAX_DEPTH)
		return rk__err(RK_EINVALID, "%s:%d:%d: functions and slices nested deeper than %d", ps->name,
		               parts[0].line, parts[0].col, RK_MAX_DEPTH);
	if (depth > s->depth)
		s->depth = depth;
	for (size_t i = 0; i < n; i++) {
		rk_part *p = &parts[i];
		if (p->nsub && (rc = derive(ps, s, p->sub, p->nsub, depth + 1)) < 0)
			return rc;
		long subfixed = 0;
		for (size_t j = 0; j < p->nsub; j++)
			subfixed = (subfixed < 0 || p->sub[j].fixed < 0) ? -1 : subfixed + p->sub[j].fixed;
		switch (p->kind) {
		case P_LIT: p->fixed = (long)p->litlen; break;
		case P_VAL:
			switch (p->enc) {
			case E_UINT: case E_INT: p->fixed = p->width; break;
			case E_F64: p->fixed = 8; break;
			case E_DEC: p->fixed = p->width; break;
			case E_OB: p->fixed = p->width + 1; break;
			case E_PHX: p->fixed = p->width ? p->width : -1; break;
			default: p->fixed = -1;
			}
			if (p->enc == E_TEXT && p->vop == V_REVNUM)
				p->fixed = (long)p->varg;
			break;
		case P_HASH: p->fixed = (long)rk_hash__size(p->alg); break;
		case P_HEX:
			if (subfixed < 0)
				return rk__err(RK_EINVALID, "%s:%d:%d: hex() needs a fixed-width input (a hash, or fixed-width fields)",
				               ps->name, p->line, p->col);
			p->fixed = 2 * subfixed;
			break;
		case P_SLICE: {
			long w = p->sub[0].fixed;
			long a = p->sa, b = p->sb;
			if (w < 0 && (a < 0 || b < 0 || b == LONG_MAX))
				return rk__err(RK_EINVALID, "%s:%d:%d: a slice of a variable-width part needs explicit non-negative bounds, e.g. [0:6]",
				               ps->name, p->line, p->col);
			if (w >= 0) {
				if (a < 0) a += w;
				if (b == LONG_MAX) b = w;
				else if (b < 0) b += w;
				if (a < 0 || b > w || a >= b)
					return rk__err(RK_EINVALID, "%s:%d:%d: slice [%ld:%ld] is empty or outside the %ld bytes of its input",
					                ps->name, p->line, p->col, p->sa, p->sb == LONG_MAX ? w : p->sb, w);
				p->sa = a;
				p->sb = b;
			} else if (a >= b) {
				return rk__err(RK_EINVALID, "%s:%d:%d: slice [%ld:%ld] is empty", ps->name, p->line, p->col, a, b);
			}
			p->fixed = b - a;
			break;
		}
		case P_BUCKET:
		case P_SALT:
			p->fixed = p->form == F_DEC ? digits_of(p->n - 1) : 1;
			break;
		case P_PSALT:
			p->fixed = 1;
			if (depth != 0 || i != 0)
				return rk__err(RK_EINVALID, "%s:%d:%d: phoenix_salt() must be the first part of the key",
				               ps->name, p->line, p->col);
			break;
		}
	}
	/* tails, from the end */
	long tail = 0;
	for (size_t k = n; k-- > 0;) {
		rk_part *p = &parts[k];
		p->tail_fixed = tail;
		p->last = k == n - 1;
		p->next_is_lit = k + 1 < n && parts[k + 1].kind == P_LIT;
		tail = (tail < 0 || p->fixed < 0) ? -1 : tail + p->fixed;
	}
	/* the encoder's hot path */
	for (size_t k = 0; k < n; k++) {
		rk_part *p = &parts[k];
		if (p->kind != P_VAL)
			continue;
		rk_type t = p->vtype;
		int str = t == RK_T_STR || t == RK_T_BYTES;
		if (p->vop == V_FIELD) {
			if (p->enc == E_TEXT)
				p->fast = str ? FAST_TEXT_STR : rk_type__is_signed(t) ? FAST_TEXT_I : rk_type__is_int(t) ? FAST_TEXT_U : 0;
			else if (p->enc == E_UINT && rk_type__is_int(t) && !rk_type__is_signed(t))
				p->fast = FAST_UINT;
			else if (p->enc == E_INT && rk_type__is_signed(t))
				p->fast = FAST_INT;
			else if (p->enc == E_ESC)
				p->fast = FAST_ESC;
		}
		if (p->desc && !(p->enc == E_PHX && str))
			p->post |= POST_INVERT; /* Phoenix strings place their own separator after inverting */
		if (depth == 0 && p->enc == E_TEXT && p->fixed < 0 && p->next_is_lit)
			p->post |= POST_SEPCHECK;
	}
	if (depth > 0)
		return 0; /* sub-templates are hashed, never decoded */
	int spread = 0, seen_field = 0;
	for (size_t k = 0; k < n; k++) {
		rk_part *p = &parts[k];
		if (p->kind == P_BUCKET || p->kind == P_SALT || p->kind == P_PSALT) {
			if (spread++)
				return rk__err(RK_EINVALID, "%s:%d:%d: a key has at most one salt or bucket part",
				               ps->name, p->line, p->col);
			if (seen_field)
				return rk__err(RK_EINVALID, "%s:%d:%d: a salt or bucket part must come before the key's fields "
				               "(it decides where a row lands)", ps->name, p->line, p->col);
		}
		if (p->kind != P_VAL)
			continue;
		seen_field = 1;
		int delimited = p->enc == E_TEXT && p->fixed < 0;
		if (delimited && !p->next_is_lit && p->tail_fixed < 0)
			return rk__err(RK_EINVALID,
			               "%s:%d:%d: field '%s' in text form must be followed by a literal separator, "
			               "only fixed-width parts, or end the key (else it cannot be decoded); "
			               "use esc() or a separator",
			               ps->name, p->line, p->col, s->fname[p->field]);
		if (p->enc == E_BYTES && !p->last)
			return rk__err(RK_EINVALID, "%s:%d:%d: bytes(%s) takes the rest of the key and must be its last part",
			               ps->name, p->line, p->col, s->fname[p->field]);
		if (p->enc == E_PHX && p->fixed < 0 && !p->desc && !p->last && p->next_is_lit)
			return rk__err(RK_EINVALID, "%s:%d:%d: phoenix(%s) writes its own 0x00 separator; drop the literal after it",
			               ps->name, p->line, p->col, s->fname[p->field]);
	}
	return 0;
}

static int has_desc_or_unordered(const rk_part *parts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const rk_part *p = &parts[i];
		if (p->kind == P_HASH || p->kind == P_HEX || p->kind == P_SLICE || p->kind == P_BUCKET ||
		    p->kind == P_SALT || p->kind == P_PSALT)
			return 1;
		if (p->kind == P_VAL) {
			if (p->vop != V_FIELD && p->vop != V_TBUCKET)
				return 1;
			if (p->enc == E_TEXT && (rk_type__is_int(p->vtype) || p->vtype == RK_T_F64))
				return 1;
			if (p->enc == E_TEXT && !p->last && p->fixed < 0)
				return 1; /* a separator can sort above the string's own bytes */
		}
	}
	return 0;
}

static void compute_info(rk_schema *s)
{
	rk_schema_info *in = &s->info;
	memset(in, 0, sizeof *in);
	in->nfields = s->nfields;
	in->point_get_mask = rk_schema__fields_used(s->parts, s->nparts);
	in->buckets = 1;
	in->deterministic = 1;
	int unbounded = 0;
	for (size_t i = 0; i < s->nparts; i++) {
		const rk_part *p = &s->parts[i];
		if (p->fixed >= 0) {
			in->key_min_len += (size_t)p->fixed;
			in->key_max_len += (size_t)p->fixed;
		} else {
			unbounded = 1;
			in->key_min_len += p->enc == E_ESC || p->enc == E_OC ? 2 : p->enc == E_PHX && p->desc ? 1 : 0;
		}
		if (p->kind == P_VAL && (p->vop == V_FIELD || p->vop == V_RTS || p->vop == V_REVERSE ||
		                         p->vop == V_REVLABELS || p->vop == V_REVNUM))
			in->decodable_mask |= 1ULL << p->field;
		if ((p->kind == P_BUCKET || p->kind == P_SALT || p->kind == P_PSALT) && in->buckets == 1)
			in->buckets = p->n;
		if (p->kind == P_SALT)
			in->deterministic = 0;
	}
	if (unbounded)
		in->key_max_len = 0;
	for (size_t i = 0; i < s->nparts; i++) {
		const rk_part *p = &s->parts[i];
		if (p->kind == P_LIT || p->kind == P_VAL)
			break;
		in->prefix_len += (unsigned)p->fixed;
	}
	in->order_preserving = !has_desc_or_unordered(s->parts, s->nparts);
}

/* ---- rendering ---- */

static void cat(char **buf, size_t *len, size_t *cap, const char *fmt, ...) RK_PRINTF(4, 5);
static void cat(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (*buf && (size_t)n < *cap - *len) {
			*len += (size_t)n;
			return;
		}
		size_t ncap = (*cap ? *cap * 2 : 256) + (size_t)n;
		char *nb = realloc(*buf, ncap);
		if (!nb)
			return;
		*buf = nb;
		*cap = ncap;
	}
}

static const char *enc_name(const rk_part *p)
{
	for (size_t i = 0; i < sizeof enc_funcs / sizeof enc_funcs[0]; i++)
		if (enc_funcs[i].enc == p->enc && (enc_funcs[i].width == p->width || p->enc == E_DEC ||
		                                   p->enc == E_OB || p->enc == E_PHX || p->enc == E_F64))
			return enc_funcs[i].name;
	return "?";
}

static void render_value(char **b, size_t *l, size_t *c, const rk_schema *s, const rk_part *p)
{
	const char *f = s->fname[p->field];
	switch (p->vop) {
	case V_FIELD: cat(b, l, c, "%s", f); break;
	case V_RTS:
		if (p->vmax == (uint64_t)INT64_MAX)
			cat(b, l, c, "rts(%s)", f);
		else
			cat(b, l, c, "rts(%s, %llu)", f, (unsigned long long)p->vmax);
		break;
	case V_TBUCKET: cat(b, l, c, "tbucket(%s, %lld)", f, (long long)p->varg); break;
	case V_REVERSE: cat(b, l, c, "reverse(%s)", f); break;
	case V_REVLABELS: cat(b, l, c, "reverse_labels(%s)", f); break;
	case V_REVNUM: cat(b, l, c, "reverse_num(%s, %lld)", f, (long long)p->varg); break;
	}
}

void rk_schema__render(char **b, size_t *l, size_t *c, const rk_schema *s, const rk_part *parts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const rk_part *p = &parts[i];
		if (i)
			cat(b, l, c, " ");
		switch (p->kind) {
		case P_LIT:
			cat(b, l, c, "\"");
			for (size_t k = 0; k < p->litlen; k++) {
				uint8_t ch = p->lit[k];
				if (ch == '"' || ch == '\\')
					cat(b, l, c, "\\%c", ch);
				else if (ch >= 0x20 && ch < 0x7f)
					cat(b, l, c, "%c", ch);
				else
					cat(b, l, c, "\\x%02x", ch);
			}
			cat(b, l, c, "\"");
			break;
		case P_VAL:
			if (p->enc == E_TEXT) {
				render_value(b, l, c, s, p);
			} else {
				cat(b, l, c, "%s(", enc_name(p));
				render_value(b, l, c, s, p);
				if (p->enc == E_DEC)
					cat(b, l, c, ", %d", p->width);
				cat(b, l, c, ")");
			}
			break;
		case P_HASH:
		case P_HEX:
			cat(b, l, c, "%s(", p->kind == P_HASH ? rk_hash__name(p->alg) : p->upper ? "HEX" : "hex");
			rk_schema__render(b, l, c, s, p->sub, p->nsub);
			cat(b, l, c, ")");
			break;
		case P_SLICE:
			rk_schema__render(b, l, c, s, p->sub, 1);
			cat(b, l, c, "[%ld:%ld]", p->sa, p->sb);
			break;
		case P_BUCKET:
		case P_SALT:
			if (p->kind == P_BUCKET) {
				cat(b, l, c, "bucket(%u, ", p->n);
				rk_schema__render(b, l, c, s, p->sub, 1);
			} else {
				cat(b, l, c, "%s(%u", p->salt == SALT_RANDOM ? "random" : "roundrobin", p->n);
			}
			if (p->form == F_DEC)
				cat(b, l, c, ", dec");
			else if (p->form == F_ALPHA)
				cat(b, l, c, ", \"%s\"", p->alpha);
			cat(b, l, c, ")");
			break;
		case P_PSALT: cat(b, l, c, "phoenix_salt(%u)", p->n); break;
		}
		if (p->desc)
			cat(b, l, c, ":desc");
	}
}

/* ---- top level ---- */

static int parse_fields(parser *ps)
{
	rk_schema *s = ps->s;
	token *t = &ps->tok;
	int rc;
	while (t->kind != T_EOL && t->kind != T_EOF) {
		if (is_punct(t, ',')) {
			if ((rc = lex(ps)) < 0)
				return rc;
			continue;
		}
		if (t->kind != T_IDENT)
			return perr(ps, t, "expected a field name");
		if (field_lookup(s, t->p, t->n) >= 0)
			return perr(ps, t, "field '%.*s' is declared twice", (int)t->n, t->p);
		if (s->nfields >= RK_MAX_FIELDS)
			return perr(ps, t, "more than %d fields", RK_MAX_FIELDS);
		token name = *t;
		if ((rc = lex(ps)) < 0 || (rc = expect_punct(ps, ':')) < 0)
			return rc;
		if (t->kind != T_IDENT)
			return perr(ps, t, "expected a type (u8..u64, i8..i64, ts, f64, str, bytes)");
		rk_type ty = 0;
		for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
			if (is_ident(t, type_names[i].name))
				ty = type_names[i].type;
		if (!ty)
			return perr(ps, t, "unknown type (use u8..u64, i8..i64, ts, f64, str, bytes)");
		s->fname[s->nfields] = strndup(name.p, name.n);
		if (!s->fname[s->nfields])
			return rk__err(RK_ENOMEM, "out of memory parsing a schema");
		if (is_ident(t, "ts"))
			s->time_mask |= 1ull << s->nfields;
		s->ftype[s->nfields++] = ty;
		if ((rc = lex(ps)) < 0)
			return rc;
	}
	return 0;
}

static int parse_option(parser *ps)
{
	token *t = &ps->tok;
	int rc;
	if (is_ident(t, "max_key_len")) {
		long long v;
		if ((rc = lex(ps)) < 0 || (rc = expect_punct(ps, '=')) < 0 ||
		    (rc = parse_int(ps, &v, 1, 1 << 20, "max_key_len")) < 0)
			return rc;
		ps->s->max_key_len = (size_t)v;
		return 0;
	}
	if (is_ident(t, "target")) {
		if ((rc = lex(ps)) < 0 || (rc = expect_punct(ps, '=')) < 0)
			return rc;
		if (is_ident(t, "hbase"))
			ps->s->max_key_len = 32767;
		else if (is_ident(t, "bigtable"))
			ps->s->max_key_len = 4096;
		else
			return perr(ps, t, "target must be hbase or bigtable");
		return lex(ps);
	}
	return perr(ps, t, "unknown option (known: max_key_len=N, target=hbase|bigtable)");
}

int rk_schema_parse(rk_schema **out, const char *text, size_t len, const char *name)
{
	parser ps = {0};
	int rc;
	rk_schema *s = calloc(1, sizeof *s);
	if (!s)
		return rk__err(RK_ENOMEM, "out of memory parsing a schema");
	ps.src = ps.cur = ps.line_start = text;
	ps.end = text + len;
	ps.line = 1;
	ps.name = name ? name : "<schema>";
	ps.s = s;
	s->max_key_len = 32767;
	int have_key = 0;
	if ((rc = lex(&ps)) < 0)
		goto fail;
	while (ps.tok.kind != T_EOF) {
		token *t = &ps.tok;
		if (t->kind == T_EOL) {
			if ((rc = lex(&ps)) < 0)
				goto fail;
			continue;
		}
		if (is_ident(t, "fields")) {
			if ((rc = lex(&ps)) < 0 || (rc = parse_fields(&ps)) < 0)
				goto fail;
		} else if (is_ident(t, "key")) {
			if (have_key) {
				rc = perr(&ps, t, "a schema has one key line (continue a long one with '\\' at the end)");
				goto fail;
			}
			if (s->nfields == 0) {
				rc = perr(&ps, t, "declare the fields before the key");
				goto fail;
			}
			if ((rc = lex(&ps)) < 0 || (rc = parse_template(&ps, &s->parts, &s->nparts, 0, 0)) < 0)
				goto fail;
			have_key = 1;
		} else if (is_ident(t, "option")) {
			if ((rc = lex(&ps)) < 0 || (rc = parse_option(&ps)) < 0)
				goto fail;
		} else if (is_ident(t, "name")) {
			if ((rc = lex(&ps)) < 0)
				goto fail;
			if (t->kind != T_IDENT && t->kind != T_STR) {
				rc = perr(&ps, t, "expected a name");
				goto fail;
			}
			free(s->name);
			s->name = t->kind == T_STR ? strndup((const char *)t->sval, t->slen) : strndup(t->p, t->n);
			if ((rc = lex(&ps)) < 0)
				goto fail;
		} else {
			rc = perr(&ps, t, "expected a directive: fields, key, option or name");
			goto fail;
		}
		if (ps.tok.kind != T_EOL && ps.tok.kind != T_EOF) {
			rc = perr(&ps, &ps.tok, "unexpected text after the directive");
			goto fail;
		}
	}
	if (!have_key) {
		rc = rk__err(RK_EINVALID, "%s:%d: the schema has no 'key' line (at the end of the schema)", ps.name, ps.line);
		goto fail;
	}
	if ((rc = derive(&ps, s, s->parts, s->nparts, 0)) < 0)
		goto fail;
	compute_info(s);
	if (s->info.key_min_len > s->max_key_len) {
		rc = rk__err(RK_EINVALID, "%s:%d:%d: the shortest key (%zu bytes) is over max_key_len %zu (the key template starts here)",
		             ps.name, s->nparts ? s->parts[0].line : 0, s->nparts ? s->parts[0].col : 0,
		             s->info.key_min_len, s->max_key_len);
		goto fail;
	}
	{
		size_t l = 0, c = 0;
		rk_schema__render(&s->text, &l, &c, s, s->parts, s->nparts);
		if (!s->text) {
			rc = rk__err(RK_ENOMEM, "out of memory parsing a schema");
			goto fail;
		}
	}
	*out = s;
	return 0;
fail:
	rk_schema_free(s);
	return rc;
}

int rk_schema_load(rk_schema **out, const char *arg)
{
	/* O_NONBLOCK: opening a FIFO without a writer must not wait; only a
	   regular file is read (a FIFO, a device or a directory is refused at once) */
	int fd = open(arg, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		/* not a file: schema text given inline, if it looks like one */
		if (strstr(arg, "key") && (strchr(arg, '\n') || strchr(arg, ';') || strstr(arg, "fields")))
			return rk_schema_parse(out, arg, strlen(arg), "<inline schema>");
		if (e != ENOENT && e != ENAMETOOLONG)
			return rk__err(RK_EIO, "schema '%s': cannot open: %s", arg, strerror(e));
		return rk__err(RK_ENOTFOUND, "schema '%s': no such file (and not schema text)", arg);
	}
	struct stat st = {0};
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int isdir = S_ISDIR(st.st_mode), isfifo = S_ISFIFO(st.st_mode);
		close(fd);
		return rk__err(RK_EINVALID, "schema '%s': not a regular file (%s): give a schema file or schema text", arg,
		               isdir ? "a directory" : isfifo ? "a FIFO or pipe" : "a device or socket");
	}
	if (st.st_size > (1 << 24)) {
		close(fd);
		return rk__err(RK_ETOOLONG, "schema file '%s' is over 16 MiB", arg);
	}
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return rk__err(RK_ENOMEM, "out of memory reading '%s'", arg);
	}
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			if (cap > (1 << 24)) {
				free(buf);
				fclose(f);
				return rk__err(RK_ETOOLONG, "schema file '%s' is over 16 MiB", arg);
			}
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return rk__err(RK_ENOMEM, "out of memory reading '%s'", arg);
			}
			buf = nb;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		return rk__err(RK_EIO, "reading schema file '%s' failed", arg);
	}
	int rc = rk_schema_parse(out, buf, len, arg);
	free(buf);
	return rc;
}

void rk_schema_free(rk_schema *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfields; i++)
		free(s->fname[i]);
	parts_free(s->parts, s->nparts);
	free(s->name);
	free(s->text);
	free(s);
}

size_t rk_schema_nfields(const rk_schema *s)
{
	return s->nfields;
}

const char *rk_schema_field_name(const rk_schema *s, size_t i)
{
	return i < s->nfields ? s->fname[i] : NULL;
}

rk_type rk_schema_field_type(const rk_schema *s, size_t i)
{
	return i < s->nfields ? s->ftype[i] : 0;
}

int rk_schema_field_index(const rk_schema *s, const char *name, size_t len)
{
	int i = field_lookup(s, name, len);
	return i < 0 ? RK_ENOTFOUND : i;
}

size_t rk_schema_max_key_len(const rk_schema *s)
{
	return s->max_key_len;
}

void rk_schema_get_info(rk_schema_info *out, const rk_schema *s)
{
	*out = s->info;
}

/* ---- describe ---- */

static const char *spread_words(const rk_schema *s)
{
	for (size_t i = 0; i < s->nparts; i++) {
		switch (s->parts[i].kind) {
		case P_PSALT: return "Phoenix salt byte";
		case P_SALT: return s->parts[i].salt == SALT_RANDOM ? "random salt" : "round-robin salt";
		case P_BUCKET: return "hash bucket";
		case P_HASH: case P_HEX: case P_SLICE: return "hash prefix";
		default: break;
		}
	}
	return NULL;
}

static void field_list(char **b, size_t *l, size_t *c, const rk_schema *s, uint64_t mask, int json)
{
	int first = 1;
	for (size_t i = 0; i < s->nfields; i++) {
		if (!(mask >> i & 1))
			continue;
		cat(b, l, c, json ? "%s\"%s\"" : "%s%s", first ? "" : json ? "," : ", ", s->fname[i]);
		first = 0;
	}
	if (first && !json)
		cat(b, l, c, "(none)");
}

int rk_schema_text(char **out, const rk_schema *s)
{
	char *b = NULL;
	size_t l = 0, c = 0;
	cat(&b, &l, &c, "fields ");
	for (size_t i = 0; i < s->nfields; i++)
		cat(&b, &l, &c, "%s%s:%s", i ? ", " : "", s->fname[i], rk_type__name(s->ftype[i]));
	cat(&b, &l, &c, "; key %s; option max_key_len=%zu", s->text, s->max_key_len);
	if (!b)
		return rk__err(RK_ENOMEM, "out of memory writing a schema");
	*out = b;
	return 0;
}

int rk_schema_describe(char **out, const rk_schema *s)
{
	char *b = NULL;
	size_t l = 0, c = 0;
	const rk_schema_info *in = &s->info;
	if (s->name)
		cat(&b, &l, &c, "schema      %s\n", s->name);
	cat(&b, &l, &c, "fields      %zu\n", s->nfields);
	for (size_t i = 0; i < s->nfields; i++)
		cat(&b, &l, &c, "  %-12s %-6s %s\n", s->fname[i], rk_type__name(s->ftype[i]),
		    (in->decodable_mask >> i & 1) ? "in key, decodes" :
		    (in->point_get_mask >> i & 1) ? "in key, hashed or bucketed only (not recoverable)" : "not in key");
	cat(&b, &l, &c, "key         %s\n", s->text);
	if (in->key_max_len)
		cat(&b, &l, &c, "key bytes   %zu..%zu (limit %zu)\n", in->key_min_len, in->key_max_len, s->max_key_len);
	else
		cat(&b, &l, &c, "key bytes   %zu..variable (limit %zu)\n", in->key_min_len, s->max_key_len);
	cat(&b, &l, &c, "point get   needs ");
	field_list(&b, &l, &c, s, in->point_get_mask, 0);
	cat(&b, &l, &c, in->deterministic ? "; one get per key\n" : "; %u gets (one per bucket)\n", in->buckets);
	const char *spread = spread_words(s);
	if (in->buckets > 1)
		cat(&b, &l, &c, "reads       fan out over %u buckets (%s, %u prefix byte%s): ordered reads need a %u-way merge\n",
		    in->buckets, spread ? spread : "salt", in->prefix_len, in->prefix_len == 1 ? "" : "s", in->buckets);
	else if (spread)
		cat(&b, &l, &c, "reads       range reads over the hashed fields are full scans (%s, %u bytes)\n",
		    spread, in->prefix_len);
	else
		cat(&b, &l, &c, "reads       no fan-out: ranges over leading fields are single scans\n");
	if (spread) {
		cat(&b, &l, &c, "writes      spread by the prefix\n");
	} else {
		const char *lead = NULL;
		for (size_t i = 0; i < s->nparts && !lead; i++)
			if (s->parts[i].kind == P_VAL)
				lead = s->fname[s->parts[i].field];
		cat(&b, &l, &c, "writes      in order of the leading field '%s': if it grows over time "
		                "(a timestamp, a sequence id) every new write hits the last region\n", lead ? lead : "?");
	}
	cat(&b, &l, &c, "ordered     %s\n",
	    in->order_preserving ? "yes: key order is field order" : "no: key order differs from field order");
	if (!b)
		return rk__err(RK_ENOMEM, "out of memory describing a schema");
	*out = b;
	return 0;
}

int rk_schema_describe_json(char **out, const rk_schema *s)
{
	char *b = NULL;
	size_t l = 0, c = 0;
	const rk_schema_info *in = &s->info;
	cat(&b, &l, &c, "{\"fields\":[");
	for (size_t i = 0; i < s->nfields; i++)
		cat(&b, &l, &c, "%s{\"name\":\"%s\",\"type\":\"%s\",\"decodes\":%s}", i ? "," : "", s->fname[i],
		    rk_type__name(s->ftype[i]), (in->decodable_mask >> i & 1) ? "true" : "false");
	cat(&b, &l, &c, "],\"key\":\"");
	for (const char *p = s->text; *p; p++)
		cat(&b, &l, &c, (*p == '"' || *p == '\\') ? "\\%c" : "%c", *p);
	cat(&b, &l, &c, "\",\"key_min_len\":%zu,\"key_max_len\":", in->key_min_len);
	if (in->key_max_len)
		cat(&b, &l, &c, "%zu", in->key_max_len);
	else
		cat(&b, &l, &c, "null");
	cat(&b, &l, &c, ",\"max_key_len\":%zu,\"point_get_fields\":[", s->max_key_len);
	field_list(&b, &l, &c, s, in->point_get_mask, 1);
	cat(&b, &l, &c, "],\"buckets\":%u,\"deterministic\":%s,\"order_preserving\":%s,\"prefix_len\":%u}",
	    in->buckets, in->deterministic ? "true" : "false", in->order_preserving ? "true" : "false",
	    in->prefix_len);
	if (!b)
		return rk__err(RK_ENOMEM, "out of memory describing a schema");
	*out = b;
	return 0;
}
