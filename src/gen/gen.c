/*
 * What the language generators share: handing text over as a file, names in each
 * language's case, the key template as a table of runtime constructor calls
 * (one walk over the parsed schema for every language), string literals, the
 * header comment. The language files build on these; gen_source.c, above
 * them, picks the language.
 *
 * The template is emitted as parsed by the C library, part for part: the
 * runtimes derive widths and tails from it the way schema_rules.c does, and
 * nothing of a schema's meaning is decided here a second time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_int.h"

/* ---- the text buffer (key/strbuf.h) ---- */

int rk_gen__finish(rk_gen_file *f, rk__sb *b, const char *name)
{
	f->name = strdup(name);
	if (b->oom || !b->p || !f->name) {
		free(b->p);
		free(f->name);
		memset(b, 0, sizeof *b);
		f->name = NULL;
		return rk__err(RK_ENOMEM, "out of memory generating %s", name);
	}
	f->text = b->p;
	f->len = b->len;
	memset(b, 0, sizeof *b);
	return 0;
}

void rk_gen_files_free(rk_gen_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(files[i].name);
		free(files[i].text);
		files[i].name = files[i].text = NULL;
	}
}

/* ---- names ---- */

static char upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

void rk_gen__case(char out[RK_GEN_NAME_MAX], const char *in, rk_gen_case c)
{
	size_t o = 0, max = RK_GEN_NAME_MAX - 8;
	if (c == RK_CASE_KEEP || c == RK_CASE_SNAKE) {
		for (size_t i = 0; in[i] && o < max; i++) {
			char ch = in[i];
			/* snake: an upper-case letter after a lower-case one or a digit starts a word */
			if (c == RK_CASE_SNAKE && ch >= 'A' && ch <= 'Z') {
				char prev = i ? in[i - 1] : 0;
				if ((prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9'))
					out[o++] = '_';
				ch = lower(ch);
			}
			out[o++] = ch;
		}
	} else {
		int start = c == RK_CASE_PASCAL; /* capitalise the next letter */
		for (size_t i = 0; in[i] && o < max; i++) {
			if (in[i] == '_') {
				start = 1;
				continue;
			}
			char ch = in[i];
			if (o == 0)
				ch = c == RK_CASE_PASCAL ? upper(ch) : lower(ch);
			else if (start)
				ch = upper(ch);
			out[o++] = ch;
			start = 0;
		}
	}
	out[o] = 0;
	if (o == 0 || (out[0] >= '0' && out[0] <= '9')) { /* "_" or "_1": no letter to start with */
		memmove(out + 1, out, o + 1);
		out[0] = c == RK_CASE_PASCAL ? 'F' : 'f';
	}
}

static int listed(const char *name, const char *const *list)
{
	for (; list && *list; list++)
		if (!strcmp(name, *list))
			return 1;
	return 0;
}

void rk_gen__members(char (*out)[RK_GEN_NAME_MAX], const rk_schema *s, rk_gen_case c, const char *const *reserved_names)
{
	for (size_t i = 0; i < s->nfields; i++) {
		rk_gen__case(out[i], s->fname[i], c);
		for (;;) {
			int taken = listed(out[i], reserved_names);
			for (size_t k = 0; k < i && !taken; k++)
				taken = !strcmp(out[k], out[i]);
			size_t n = strlen(out[i]);
			if (!taken || n + 2 >= RK_GEN_NAME_MAX)
				break;
			out[i][n] = '_';
			out[i][n + 1] = 0;
		}
	}
}

int rk_gen__design_name(char out[RK_GEN_NAME_MAX], const rk_schema *s, const rk_gen_options *o)
{
	const char *n = o->name ? o->name : s->name ? s->name : "RowKey";
	size_t len = strlen(n);
	int ok = len > 0 && len < 200 && ((n[0] >= 'a' && n[0] <= 'z') || (n[0] >= 'A' && n[0] <= 'Z'));
	for (size_t i = 0; ok && i < len; i++)
		ok = (n[i] >= 'a' && n[i] <= 'z') || (n[i] >= 'A' && n[i] <= 'Z') || (n[i] >= '0' && n[i] <= '9') ||
		     n[i] == '_';
	if (!ok)
		return rk__err(RK_EINVALID, "the design's name '%s' must be a letter followed by letters, digits and '_' "
		                            "(at most 199 of them): it names the generated types and file%s",
		               n, o->name ? "" : " (give one with --name)");
	memcpy(out, n, len + 1);
	return 0;
}

/* ---- the key template ---- */

static void part(rk__sb *b, const rk_gen_syntax *x, const rk_part *p)
{
	const char *ctor = x->ctor[p->kind];
	switch (p->kind) {
	case P_LIT:
		rk__sb_printf(b, "%s(", ctor);
		x->bytes(b, p->lit, p->litlen);
		rk__sb_printf(b, ")");
		return;
	case P_VAL:
		rk__sb_printf(b, "%s(%s, %d, %s, %d, ", ctor, x->enc[p->enc], p->width, x->vop[p->vop], p->field);
		x->i64(b, p->varg);
		rk__sb_printf(b, ", ");
		x->u64(b, p->vmax);
		rk__sb_printf(b, ", %s)", p->desc ? x->yes : x->no);
		return;
	case P_HASH:
	case P_HEX:
		rk__sb_printf(b, "%s(%s", ctor, p->kind == P_HASH ? x->alg[p->alg] : p->upper ? x->yes : x->no);
		for (size_t i = 0; i < p->nsub; i++) {
			rk__sb_printf(b, ", ");
			part(b, x, &p->sub[i]);
		}
		rk__sb_printf(b, ")");
		return;
	case P_SLICE:
		rk__sb_printf(b, "%s(%ld, %ld, ", ctor, p->sa, p->sb);
		part(b, x, &p->sub[0]);
		rk__sb_printf(b, ")");
		return;
	case P_BUCKET:
	case P_SALT:
		if (p->kind == P_BUCKET)
			rk__sb_printf(b, "%s(%u, %s, ", ctor, p->n, x->form[p->form]);
		else
			rk__sb_printf(b, "%s(%s, %u, %s, ", ctor, x->saltk[p->salt], p->n, x->form[p->form]);
		if (p->form == F_ALPHA)
			x->bytes(b, (const uint8_t *)p->alpha, p->n);
		else
			rk__sb_printf(b, "%s", x->none);
		if (p->kind == P_BUCKET) {
			rk__sb_printf(b, ", ");
			part(b, x, &p->sub[0]);
		}
		rk__sb_printf(b, ")");
		return;
	case P_PSALT:
		rk__sb_printf(b, "%s(%u)", ctor, p->n);
		return;
	}
}

void rk_gen__parts(rk__sb *b, const rk_schema *s, const rk_gen_syntax *syn, const char *indent)
{
	for (size_t k = 0; k < s->nparts; k++) {
		char *text = NULL;
		size_t l = 0, c = 0;
		rk_schema__render(&text, &l, &c, s, &s->parts[k], 1);
		rk__sb_printf(b, "%s%s %s\n%s", indent, syn->comment, text ? text : "", indent);
		free(text);
		if (!text)
			b->oom = 1;
		part(b, syn, &s->parts[k]);
		if (k + 1 < s->nparts)
			rk__sb_printf(b, ",\n");
	}
}

void rk_gen__types(rk__sb *b, const rk_schema *s, const rk_gen_syntax *syn)
{
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(b, "%s%s", i ? ", " : "", syn->type[s->ftype[i]]);
}

/* ---- literals and comments ---- */

void rk_gen__quoted(rk__sb *b, const char *s)
{
	rk__sb_put(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			rk__sb_put(b, "\\", 1);
		rk__sb_put(b, s, 1);
	}
	rk__sb_put(b, "\"", 1);
}

void rk_gen__bytes_literal(rk__sb *b, const uint8_t *p, size_t n, const char *open, const char *close, int octal)
{
	rk__sb_printf(b, "%s\"", open);
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			rk__sb_put(b, (const char *)&p[i], 1);
		else
			rk__sb_printf(b, octal ? "\\%03o" : "\\x%02x", p[i]);
	}
	rk__sb_printf(b, "\"%s", close);
}

void rk_gen__header(rk__sb *b, const char *comment, const char *lang, const char *name, const char *schema)
{
	rk__sb_printf(b,
	               "%s Generated by rowkey gen from the schema below. DO NOT EDIT: change the schema and run\n"
	               "%s   rowkey gen --lang %s --name %s -s SCHEMA\n"
	               "%s again. Key format version %d (rowkey's docs/formats.md part A).\n"
	               "%s\n"
	               "%s   %s\n",
	               comment, comment, lang, name, comment, RK_GEN_FORMAT_VERSION, comment, comment, schema);
}

const char *rk_gen__field_role(const rk_schema *s, size_t i)
{
	if (s->info.decodable_mask >> i & 1)
		return "in the key; decode recovers it";
	if (s->info.point_get_mask >> i & 1)
		return "in the key only hashed, bucketed or time-bucketed: encode needs it, decode leaves it unset";
	return "not in the key: encode ignores it, decode leaves it unset";
}
