/*
 * Private to the schema parser (schema.c, schema_lex.c, schema_parts.c,
 * schema_rules.c, schema_print.c): the lexer's tokens, the parser's state,
 * and the pieces those files share. Nothing outside src/key/schema*.c
 * includes it.
 */
#ifndef RK_KEY_SCHEMA_PARSE_H
#define RK_KEY_SCHEMA_PARSE_H

#include <string.h>

#include "key/error.h"
#include "key/schema_int.h"

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


/* "NAME:LINE:COL: message (at 'token')" as RK_EINVALID. */
int rk_schema__perr(parser *ps, const token *t, const char *fmt, ...) RK_PRINTF(3, 4);

/* Reads the next token into ps->tok. */
int rk_schema__lex(parser *ps);

static inline int is_punct(const token *t, char c)
{
	return t->kind == T_PUNCT && t->p[0] == c;
}

static inline int is_ident(const token *t, const char *s)
{
	return t->kind == T_IDENT && strlen(s) == t->n && !memcmp(t->p, s, t->n);
}

int rk_schema__expect_punct(parser *ps, char c);
int rk_schema__parse_int(parser *ps, long long *out, long long lo, long long hi, const char *what);
int rk_schema__parse_u64(parser *ps, uint64_t *out, const char *what);

/* ---- the key template (schema_parts.c) ---- */

/* The encoding functions of the key language: name, encoding, width. */
typedef struct {
	const char *name;
	rk_enc_kind enc;
	int width;
} rk_enc_func;
#define RK_ENC_FUNCS 16
extern const rk_enc_func rk_schema__enc_funcs[RK_ENC_FUNCS];

/* Parses parts up to the end of the line (or up to ')' when until_paren). */
int rk_schema__parse_template(parser *ps, rk_part **out, size_t *nout, int depth, int until_paren);
void rk_schema__parts_free(rk_part *p, size_t n);
int rk_schema__field_lookup(const rk_schema *s, const char *p, size_t n);

/* ---- derived properties (schema_rules.c) ---- */

/* Widths, tails and the encoder's fast paths of a template, and the checks
 * that make it decodable. */
int rk_schema__derive(parser *ps, rk_schema *s, rk_part *parts, size_t n, int depth);
/* Fills s->info from the derived template. */
void rk_schema__compute_info(rk_schema *s);

#endif
