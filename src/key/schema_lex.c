/*
 * The schema language's lexer: identifiers, numbers, string literals with
 * their escapes, punctuation, comments and line continuations, with the
 * line and column of every token for messages; and the small readers of
 * punctuation and numbers the parser is built from.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "key/schema_parse.h"

int rk_schema__perr(parser *ps, const token *t, const char *fmt, ...)
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

/* Skips blanks, # comments and backslash-newline continuations. */
static const char *skip_blank(parser *ps, const char *c)
{
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
		return c;
	}
}

/* The escape after a backslash at *c (c past the backslash) into *out;
 * -1 for an unknown one. */
static int unescape(const parser *ps, const char **c, uint8_t *out)
{
	const char *p = *c;
	switch (*p) {
	case 'n': *out = '\n'; break;
	case 't': *out = '\t'; break;
	case '0': *out = 0; break;
	case '\\': *out = '\\'; break;
	case '"': *out = '"'; break;
	case '\'': *out = '\''; break;
	case 'x':
		if (p + 2 < ps->end && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
			*out = (uint8_t)(hexval(p[1]) * 16 + hexval(p[2]));
			*c = p + 3;
			return 0;
		}
		return -1;
	default:
		return -1;
	}
	*c = p + 1;
	return 0;
}

/* A "quoted" or 'quoted' literal starting at c, unescaped into t->sval. */
static int lex_string(parser *ps, token *t, const char *c)
{
	char q = *c++;
	t->slen = 0;
	while (c < ps->end && *c != q && *c != '\n') {
		uint8_t b;
		if (*c == '\\') {
			if (c + 1 >= ps->end)
				break;
			c++;
			if (unescape(ps, &c, &b) < 0) {
				t->kind = T_STR;
				t->n = (size_t)(c - t->p) + 1;
				return rk_schema__perr(ps, t, "unknown escape in string literal (use \\n \\t \\0 \\\\ \\\" \\' \\xNN)");
			}
		} else {
			b = (uint8_t)*c++;
		}
		if (t->slen >= sizeof t->sval) {
			t->kind = T_STR;
			t->n = (size_t)(c - t->p);
			return rk_schema__perr(ps, t, "string literal longer than %zu bytes", sizeof t->sval);
		}
		t->sval[t->slen++] = b;
	}
	t->kind = T_STR;
	if (c >= ps->end || *c != q) {
		t->n = (size_t)(c - t->p);
		return rk_schema__perr(ps, t, "unterminated string literal");
	}
	c++;
	t->n = (size_t)(c - t->p);
	ps->cur = c;
	return 0;
}

int rk_schema__lex(parser *ps)
{
	token *t = &ps->tok;
	const char *c = skip_blank(ps, ps->cur);
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
			return rk_schema__perr(ps, t, "a name is at most %d bytes, this one has %zu", RK_MAX_IDENT, t->n);
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
	if (*c == '"' || *c == '\'')
		return lex_string(ps, t, c);
	t->kind = T_PUNCT;
	t->n = 1;
	if (!*c || !strchr("(),[]:=", *c)) /* strchr finds the NUL too */
		return rk_schema__perr(ps, t, "unexpected character");
	ps->cur = c + 1;
	return 0;
}

int rk_schema__expect_punct(parser *ps, char c)
{
	if (!is_punct(&ps->tok, c))
		return rk_schema__perr(ps, &ps->tok, "expected '%c'", c);
	return rk_schema__lex(ps);
}

int rk_schema__parse_int(parser *ps, long long *out, long long lo, long long hi, const char *what)
{
	token *t = &ps->tok;
	if (t->kind != T_NUM)
		return rk_schema__perr(ps, t, "expected %s (a number)", what);
	char buf[32];
	if (t->n >= sizeof buf)
		return rk_schema__perr(ps, t, "%s is too large", what);
	memcpy(buf, t->p, t->n);
	buf[t->n] = 0;
	errno = 0;
	long long v = strtoll(buf, NULL, 10);
	if (errno || v < lo || v > hi)
		return rk_schema__perr(ps, t, "%s must be between %lld and %lld", what, lo, hi);
	*out = v;
	return rk_schema__lex(ps);
}

int rk_schema__parse_u64(parser *ps, uint64_t *out, const char *what)
{
	token *t = &ps->tok;
	if (t->kind != T_NUM || t->p[0] == '-')
		return rk_schema__perr(ps, t, "expected %s (a non-negative number)", what);
	char buf[32];
	if (t->n >= sizeof buf)
		return rk_schema__perr(ps, t, "%s is too large", what);
	memcpy(buf, t->p, t->n);
	buf[t->n] = 0;
	errno = 0;
	unsigned long long v = strtoull(buf, NULL, 10);
	if (errno)
		return rk_schema__perr(ps, t, "%s does not fit in 64 bits", what);
	*out = v;
	return rk_schema__lex(ps);
}
