/*
 * The schema language (docs/schema.md): directives (fields, key, option,
 * name), rk_schema_parse and rk_schema_load, and the accessors. The lexer
 * is schema_lex.c, the field types' names and widths schema_types.c, the
 * key template's grammar schema_parts.c, its derived properties and
 * decodability rules schema_rules.c, printing schema_print.c.
 *
 * Every error names the line, column and token. What these files do not do:
 * encode or decode keys (encode.c), plan queries (plan.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "key/schema_parse.h"
#include "key/timefmt.h"

/* ---- top level ---- */

/* `ts("FORMAT")`: the text format of field f's values (timefmt.h), at '('. */
static int parse_time_format(parser *ps, size_t f)
{
	token *t = &ps->tok;
	const char *why;
	int rc;
	if ((rc = rk_schema__lex(ps)) < 0)
		return rc;
	if (t->kind != T_STR)
		return rk_schema__perr(ps, t, "expected a quoted time format, as in ts(\"%%m/%%d/%%Y\")");
	if (rk__datefmt_check((const char *)t->sval, t->slen, &why))
		return rk_schema__perr(ps, t, "time format of '%s': %s", ps->s->fname[f], why);
	if (!(ps->s->tfmt[f] = strndup((const char *)t->sval, t->slen)))
		return rk__err(RK_ENOMEM, "out of memory parsing a schema");
	if ((rc = rk_schema__lex(ps)) < 0)
		return rc;
	return rk_schema__expect_punct(ps, ')');
}

static int parse_fields(parser *ps)
{
	rk_schema *s = ps->s;
	token *t = &ps->tok;
	int rc;
	while (t->kind != T_EOL && t->kind != T_EOF) {
		if (is_punct(t, ',')) {
			if ((rc = rk_schema__lex(ps)) < 0)
				return rc;
			continue;
		}
		if (t->kind != T_IDENT)
			return rk_schema__perr(ps, t, "expected a field name");
		if (rk_schema__field_lookup(s, t->p, t->n) >= 0)
			return rk_schema__perr(ps, t, "field '%.*s' is declared twice", (int)t->n, t->p);
		if (s->nfields >= RK_MAX_FIELDS)
			return rk_schema__perr(ps, t, "more than %d fields", RK_MAX_FIELDS);
		token name = *t;
		if ((rc = rk_schema__lex(ps)) < 0 || (rc = rk_schema__expect_punct(ps, ':')) < 0)
			return rc;
		if (t->kind != T_IDENT)
			return rk_schema__perr(ps, t, "expected a type (u8..u64, i8..i64, ts, f64, str, bytes)");
		rk_type ty = rk_type__parse(t->p, t->n);
		if (!ty)
			return rk_schema__perr(ps, t, "unknown type (use u8..u64, i8..i64, ts, f64, str, bytes)");
		s->fname[s->nfields] = strndup(name.p, name.n);
		if (!s->fname[s->nfields])
			return rk__err(RK_ENOMEM, "out of memory parsing a schema");
		int is_ts = is_ident(t, "ts");
		if (is_ts)
			s->time_mask |= 1ull << s->nfields;
		s->ftype[s->nfields++] = ty;
		if ((rc = rk_schema__lex(ps)) < 0)
			return rc;
		if (is_ts && is_punct(t, '(') && (rc = parse_time_format(ps, s->nfields - 1)) < 0)
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
		if ((rc = rk_schema__lex(ps)) < 0 || (rc = rk_schema__expect_punct(ps, '=')) < 0 ||
		    (rc = rk_schema__parse_int(ps, &v, 1, 1 << 20, "max_key_len")) < 0)
			return rc;
		ps->s->max_key_len = (size_t)v;
		return 0;
	}
	if (is_ident(t, "target")) {
		if ((rc = rk_schema__lex(ps)) < 0 || (rc = rk_schema__expect_punct(ps, '=')) < 0)
			return rc;
		if (is_ident(t, "hbase"))
			ps->s->max_key_len = 32767;
		else if (is_ident(t, "bigtable"))
			ps->s->max_key_len = 4096;
		else
			return rk_schema__perr(ps, t, "target must be hbase or bigtable");
		return rk_schema__lex(ps);
	}
	return rk_schema__perr(ps, t, "unknown option (known: max_key_len=N, target=hbase|bigtable)");
}

/* key TEMPLATE: one per schema, after the fields. */
static int parse_key(parser *ps, int *have_key)
{
	token *t = &ps->tok;
	rk_schema *s = ps->s;
	int rc;
	if (*have_key)
		return rk_schema__perr(ps, t, "a schema has one key line (continue a long one with '\\' at the end)");
	if (s->nfields == 0)
		return rk_schema__perr(ps, t, "declare the fields before the key");
	if ((rc = rk_schema__lex(ps)) < 0 || (rc = rk_schema__parse_template(ps, &s->parts, &s->nparts, 0, 0)) < 0)
		return rc;
	*have_key = 1;
	return 0;
}

/* name NAME, or name "NAME" */
static int parse_name(parser *ps)
{
	token *t = &ps->tok;
	int rc;
	if ((rc = rk_schema__lex(ps)) < 0)
		return rc;
	if (t->kind != T_IDENT && t->kind != T_STR)
		return rk_schema__perr(ps, t, "expected a name");
	free(ps->s->name);
	ps->s->name = t->kind == T_STR ? strndup((const char *)t->sval, t->slen) : strndup(t->p, t->n);
	return rk_schema__lex(ps);
}

/* One directive, from its first token to the end of its line. */
static int parse_directive(parser *ps, int *have_key)
{
	token *t = &ps->tok;
	int rc;
	if (is_ident(t, "fields")) {
		if ((rc = rk_schema__lex(ps)) >= 0)
			rc = parse_fields(ps);
	} else if (is_ident(t, "key")) {
		rc = parse_key(ps, have_key);
	} else if (is_ident(t, "option")) {
		if ((rc = rk_schema__lex(ps)) >= 0)
			rc = parse_option(ps);
	} else if (is_ident(t, "name")) {
		rc = parse_name(ps);
	} else {
		return rk_schema__perr(ps, t, "expected a directive: fields, key, option or name");
	}
	if (rc < 0)
		return rc;
	if (ps->tok.kind != T_EOL && ps->tok.kind != T_EOF)
		return rk_schema__perr(ps, &ps->tok, "unexpected text after the directive");
	return 0;
}

/* What a schema gets once all of it is read: each part's derived facts, the
 * summary, the check of its shortest key, its canonical text. */
static int finish_schema(parser *ps, rk_schema *s)
{
	int rc;
	if ((rc = rk_schema__derive(ps, s, s->parts, s->nparts, 0)) < 0)
		return rc;
	rk_schema__compute_info(s);
	if (s->info.key_min_len > s->max_key_len)
		return rk__err(RK_EINVALID, "%s:%d:%d: the shortest key (%zu bytes) is over max_key_len %zu (the key template starts here)",
		               ps->name, s->nparts ? s->parts[0].line : 0, s->nparts ? s->parts[0].col : 0,
		               s->info.key_min_len, s->max_key_len);
	size_t l = 0, c = 0;
	rk_schema__render(&s->text, &l, &c, s, s->parts, s->nparts);
	if (!s->text)
		return rk__err(RK_ENOMEM, "out of memory parsing a schema");
	return 0;
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
	if ((rc = rk_schema__lex(&ps)) < 0)
		goto fail;
	while (ps.tok.kind != T_EOF) {
		rc = ps.tok.kind == T_EOL ? rk_schema__lex(&ps) : parse_directive(&ps, &have_key);
		if (rc < 0)
			goto fail;
	}
	if (!have_key) {
		rc = rk__err(RK_EINVALID, "%s:%d: the schema has no 'key' line (at the end of the schema)", ps.name, ps.line);
		goto fail;
	}
	if ((rc = finish_schema(&ps, s)) < 0)
		goto fail;
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
	for (size_t i = 0; i < s->nfields; i++) {
		free(s->fname[i]);
		free(s->tfmt[i]);
	}
	rk_schema__parts_free(s->parts, s->nparts);
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
	int i = rk_schema__field_lookup(s, name, len);
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
