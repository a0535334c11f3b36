/*
 * Schemas as text: the canonical key template (describe, plans, the schema
 * a table remembers), and the describe summary in words and as JSON.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "key/schema_parse.h"
#include "key/units.h"

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
	for (size_t i = 0; i < sizeof rk_schema__enc_funcs / sizeof rk_schema__enc_funcs[0]; i++)
		if (rk_schema__enc_funcs[i].enc == p->enc && (rk_schema__enc_funcs[i].width == p->width || p->enc == E_DEC ||
		                                   p->enc == E_OB || p->enc == E_PHX || p->enc == E_F64))
			return rk_schema__enc_funcs[i].name;
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

/* A string literal of the schema language that reads back as the same
 * bytes: quotes and backslashes escaped, other bytes outside printable ASCII
 * as \xNN. Literals and bucket alphabets may hold any byte, 0x00 included. */
static void render_string(char **b, size_t *l, size_t *c, const uint8_t *s, size_t n)
{
	cat(b, l, c, "\"");
	for (size_t k = 0; k < n; k++) {
		uint8_t ch = s[k];
		if (ch == '"' || ch == '\\')
			cat(b, l, c, "\\%c", ch);
		else if (ch >= 0x20 && ch < 0x7f)
			cat(b, l, c, "%c", ch);
		else
			cat(b, l, c, "\\x%02x", ch);
	}
	cat(b, l, c, "\"");
}

void rk_schema__render(char **b, size_t *l, size_t *c, const rk_schema *s, const rk_part *parts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const rk_part *p = &parts[i];
		if (i)
			cat(b, l, c, " ");
		switch (p->kind) {
		case P_LIT:
			render_string(b, l, c, p->lit, p->litlen);
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
			else if (p->form == F_ALPHA) {
				cat(b, l, c, ", ");
				render_string(b, l, c, (const uint8_t *)p->alpha, p->n);
			}
			cat(b, l, c, ")");
			break;
		case P_PSALT: cat(b, l, c, "phoenix_salt(%u)", p->n); break;
		}
		if (p->desc)
			cat(b, l, c, ":desc");
	}
}


/* ---- describe ---- */

/* What spreads the key's prefix, before its first field, or NULL. */
static const char *spread_words(const rk_schema *s)
{
	for (size_t i = 0; i < s->nparts && s->parts[i].kind != P_VAL; i++) {
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

/* A bucket after fields: it spreads each of their prefixes, or NULL. */
static const rk_part *inner_bucket(const rk_schema *s)
{
	int field = 0;
	for (size_t i = 0; i < s->nparts; i++) {
		field |= s->parts[i].kind == P_VAL;
		if (field && s->parts[i].kind == P_BUCKET)
			return &s->parts[i];
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

/* The canonical text; legacy: as rowkey wrote it before `ts` fields kept
 * their type in it (every `ts` as the i64 it is stored as). */
static int schema_text(char **out, const rk_schema *s, int legacy)
{
	char *b = NULL;
	size_t l = 0, c = 0;
	cat(&b, &l, &c, "fields ");
	for (size_t i = 0; i < s->nfields; i++) {
		int ts = !legacy && (s->time_mask >> i & 1);
		cat(&b, &l, &c, "%s%s:%s", i ? ", " : "", s->fname[i], ts ? "ts" : rk_type__name(s->ftype[i]));
		if (ts && s->tfmt[i]) {
			cat(&b, &l, &c, "(");
			render_string(&b, &l, &c, (const uint8_t *)s->tfmt[i], strlen(s->tfmt[i]));
			cat(&b, &l, &c, ")");
		}
	}
	cat(&b, &l, &c, "; key %s; option max_key_len=%zu", s->text, s->max_key_len);
	if (!b)
		return rk__err(RK_ENOMEM, "out of memory writing a schema");
	*out = b;
	return 0;
}

int rk_schema_text(char **out, const rk_schema *s)
{
	return schema_text(out, s, 0);
}

int rk_schema__matches_text(const rk_schema *s, const void *text, size_t n)
{
	int same = 0;
	for (int legacy = 0; legacy < 2 && !same; legacy++) {
		char *t = NULL;
		if (schema_text(&t, s, legacy))
			return -1;
		same = strlen(t) == n && !memcmp(t, text, n);
		free(t);
	}
	return same;
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
		cat(&b, &l, &c, "reads       fan out over %u buckets (%s, %u prefix byte%s): ordered reads need %s %u-way merge\n",
		    in->buckets, spread ? spread : "salt", in->prefix_len, in->prefix_len == 1 ? "" : "s",
		    rk__article(in->buckets), in->buckets);
	else if (spread)
		cat(&b, &l, &c, "reads       range reads over the hashed fields are full scans (%s, %u bytes)\n",
		    spread, in->prefix_len);
	const rk_part *ib = inner_bucket(s);
	if (!ib && in->buckets <= 1 && !spread)
		cat(&b, &l, &c, "reads       no fan-out: ranges over leading fields are single scans\n");
	if (ib)
		cat(&b, &l, &c, "reads       a range under the fields before bucket(%u, ...) fans out over its %u "
		                "buckets: ordered reads need %s %u-way merge\n",
		    ib->n, ib->n, rk__article(ib->n), ib->n);
	if (spread) {
		cat(&b, &l, &c, "writes      spread by the prefix\n");
	} else if (ib) {
		cat(&b, &l, &c, "writes      each value of the fields before bucket(%u, ...) spread over %u "
		                "sub-ranges (a hot tenant or device over %u regions)\n", ib->n, ib->n, ib->n);
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
