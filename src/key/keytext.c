/*
 * Row keys as people read them (keytext.h): decoded through a schema with
 * the key library's own decoder, fields listed in key-template order (what
 * the key sorts by first comes first), printable or escaped otherwise.
 */
#include "key/keytext.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "key/schema_int.h"

struct rk__keytext {
	rk_schema *s;
	rk_encoder *e;
	rk_value *v;
	int order[RK_MAX_FIELDS]; /* fields in key-template order, -1 ends */
	int has_bucket;           /* the template has a bucket, salt or Phoenix salt */
};

/* the fields in the order the key template writes them, then the rest */
static void template_order(rk__keytext *k)
{
	const rk_schema *s = k->s;
	size_t n = 0;
	uint64_t seen = 0;
	for (size_t i = 0; i < s->nparts; i++) {
		const rk_part *p = &s->parts[i];
		if (p->kind == P_SALT || p->kind == P_BUCKET || p->kind == P_PSALT)
			k->has_bucket = 1;
		if (p->kind == P_VAL && !(seen >> p->field & 1)) {
			seen |= 1ull << p->field;
			k->order[n++] = p->field;
		}
	}
	for (size_t f = 0; f < s->nfields; f++)
		if (!(seen >> f & 1))
			k->order[n++] = (int)f;
	if (n < RK_MAX_FIELDS)
		k->order[n] = -1;
}

rk__keytext *rk__keytext_new(const char *schema)
{
	rk__keytext *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	k->order[0] = -1;
	if (!schema || rk_schema_parse(&k->s, schema, strlen(schema), "the table's schema") != 0) {
		k->s = NULL;
		return k; /* no schema: keys are shown as bytes */
	}
	if (rk_encoder_new(&k->e, k->s, 0) != 0 ||
	    !(k->v = calloc(k->s->nfields ? k->s->nfields : 1, sizeof *k->v))) {
		rk__keytext_free(k);
		return NULL;
	}
	template_order(k);
	return k;
}

void rk__keytext_free(rk__keytext *k)
{
	if (!k)
		return;
	free(k->v);
	rk_encoder_free(k->e);
	rk_schema_free(k->s);
	free(k);
}

int rk__keytext_decodes(const rk__keytext *k)
{
	return k && k->s;
}

const char *rk__key_text(char *buf, size_t cap, const uint8_t *k, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 5 < cap; i++) {
		if (k[i] >= 0x20 && k[i] < 0x7f && k[i] != '\\')
			buf[o++] = (char)k[i];
		else
			o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", k[i]);
	}
	if (o + 4 < cap && o < 4 * n && n && o + 5 >= cap) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = 0;
	return buf;
}

/* decodes key into k->v; 0, or -1 when it does not decode */
static int decode(rk__keytext *k, const uint8_t *key, size_t len)
{
	return k && k->s && len && rk_key_decode(k->v, k->e, key, len) == 0 ? 0 : -1;
}

/* one field's value as text, unprintable bytes as '?' */
static void value_text(char *out, size_t cap, const rk__keytext *k, int f)
{
	rk_schema_value_format(out, cap, k->s, (size_t)f, &k->v[f]);
	for (char *c = out; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
}

const char *rk__keytext_fields(rk__keytext *k, char *buf, size_t cap, const uint8_t *key,
                               size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	if (decode(k, key, len))
		return buf;
	int b = rk_key_bucket(k->e, key, len);
	if (b >= 0)
		o += (size_t)snprintf(buf, cap, "bucket %d:", b);
	for (int i = 0; i < RK_MAX_FIELDS && k->order[i] >= 0 && o + 8 < cap; i++) {
		int f = k->order[i];
		if (!k->v[f].present)
			continue;
		char val[64];
		value_text(val, sizeof val, k, f);
		o += (size_t)snprintf(buf + o, cap - o, "%s%s=%s", o ? " " : "",
		                      rk_schema_field_name(k->s, (size_t)f), val);
	}
	if (o >= cap)
		buf[cap - 1] = 0;
	return buf;
}

const char *rk__keytext_label(rk__keytext *k, char *buf, size_t cap, const uint8_t *key,
                              size_t len)
{
	rk__key_text(buf, cap < 60 ? cap : 60, key, len);
	if (!strstr(buf, "\\x"))
		return buf;
	char dec[200];
	rk__keytext_fields(k, dec, sizeof dec, key, len);
	int b = k && k->s ? rk_key_bucket(k->e, key, len) : -1;
	if (dec[0]) {
		snprintf(buf, cap, "%s", dec);
	} else if (b >= 0 && len <= 2) { /* a split point at a bucket prefix */
		snprintf(buf, cap, "bucket %d", b);
	} else if (len > 1 && key[len - 1] == 0) {
		if (*rk__keytext_fields(k, dec, sizeof dec, key, len - 1))
			snprintf(buf, cap, "after %s", dec);
	}
	return buf;
}

/* printable text cut at delimiters: a:b:c -> "a", "b", "c" */
static size_t text_parts(const char **parts, size_t max, char *buf, size_t cap, const uint8_t *key,
                         size_t len)
{
	size_t n = 0, o = 0;
	if (!len || len + 1 > cap)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (key[i] < 0x20 || key[i] >= 0x7f)
			return 0;
	memcpy(buf, key, len);
	buf[len] = 0;
	while (o < len && n < max) {
		parts[n++] = buf + o;
		size_t e = o + strcspn(buf + o, ":#/|");
		buf[e] = 0;
		o = e + 1;
	}
	return n;
}

size_t rk__keytext_parts(rk__keytext *k, const char **parts, size_t max, char *buf, size_t cap,
                         const uint8_t *key, size_t len)
{
	if (decode(k, key, len) && !(len > 1 && key[len - 1] == 0 && !decode(k, key, len - 1))) {
		int b = k && k->s && k->has_bucket && max ? rk_key_bucket(k->e, key, len) : -1;
		if (b < 0) /* not even a bucket: its text, when printable */
			return text_parts(parts, max, buf, cap, key, len);
		snprintf(buf, cap, "bucket %d", b); /* a boundary at a bucket prefix */
		parts[0] = buf;
		return 1;
	}
	size_t n = 0, o = 0;
	if (k->has_bucket && n < max) {
		int b = rk_key_bucket(k->e, key, len);
		int w = snprintf(buf, cap, "bucket %d", b < 0 ? 0 : b);
		parts[n++] = buf;
		o = (size_t)w + 1;
	}
	for (int i = 0; i < RK_MAX_FIELDS && k->order[i] >= 0 && n < max && o + 8 < cap; i++) {
		int f = k->order[i];
		if (!k->v[f].present)
			continue;
		char val[64];
		value_text(val, sizeof val, k, f);
		int w = snprintf(buf + o, cap - o, "%s=%s", rk_schema_field_name(k->s, (size_t)f), val);
		parts[n++] = buf + o;
		o += (size_t)w + 1;
		if (o > cap)
			o = cap;
	}
	return n;
}

/* ---- a prefix hierarchy ---- */

enum { PARTS = 8, PART_BUF = 512 };

int rk__keytext_groups(rk__keygroup **groups, size_t *ngroups, size_t nlevels, rk__keytext *k,
                       const uint8_t *const *keys, const size_t *lens, size_t n)
{
	char (*buf)[2][PART_BUF] = malloc(sizeof *buf);
	const char *parts[2][PARTS];
	size_t np[2] = {0, 0};
	int cur = 0, rc = 0;
	if (nlevels > PARTS)
		nlevels = PARTS;
	for (size_t L = 0; L < nlevels; L++) {
		groups[L] = NULL;
		ngroups[L] = 0;
		if (!(groups[L] = malloc((n ? n : 1) * sizeof **groups)))
			rc = -1;
	}
	if (!buf || rc)
		goto fail;
	for (size_t r = 0; r < n; r++) {
		int nx = cur ^ 1;
		size_t got = rk__keytext_parts(k, parts[nx], PARTS, (*buf)[nx], PART_BUF, keys[r], lens[r]);
		size_t agree = 0;
		while (r && agree < got && agree < np[cur] && !strcmp(parts[nx][agree], parts[cur][agree]))
			agree++;
		if (got < np[cur] && r && agree == got) { /* fewer parts, those alike: carry the row before's */
			memcpy((*buf)[nx], (*buf)[cur], PART_BUF);
			for (size_t i = 0; i < np[cur]; i++)
				parts[nx][i] = (*buf)[nx] + (parts[cur][i] - (*buf)[cur]);
			got = np[cur];
		}
		np[nx] = got;
		/* the first level whose parts differ from the row before starts new groups */
		size_t same = 0;
		while (r && same < got && same < np[cur] && !strcmp(parts[nx][same], parts[cur][same]))
			same++;
		for (size_t L = 0; L < nlevels; L++) {
			if (L < same && ngroups[L]) {
				groups[L][ngroups[L] - 1].rows++;
				continue;
			}
			if (L >= got)
				continue;
			rk__keygroup *g = &groups[L][ngroups[L]++];
			g->row = r;
			g->rows = 1;
			snprintf(g->label, sizeof g->label, "%s", parts[nx][L]);
		}
		cur = nx;
	}
	free(buf);
	return 0;
fail:
	free(buf);
	for (size_t L = 0; L < nlevels; L++) {
		free(groups[L]);
		groups[L] = NULL;
	}
	return RK_ENOMEM;
}

/* ---- JSON ---- */

static void json_value(FILE *f, const rk__keytext *k, int fld)
{
	const rk_value *v = &k->v[fld];
	rk_type t = rk_schema_field_type(k->s, (size_t)fld);
	const double safe = 9007199254740992.0; /* 2^53: JSON readers keep integers up to it */
	if (t == RK_T_STR || t == RK_T_BYTES)
		rk__json_str(f, v->v.s.ptr, v->v.s.len);
	else if (t == RK_T_F64 && isfinite(v->v.f))
		fprintf(f, "%.17g", v->v.f);
	else if (t == RK_T_F64)
		fprintf(f, "\"%s\"", isnan(v->v.f) ? "nan" : v->v.f > 0 ? "inf" : "-inf");
	else if (rk_type__is_signed(t))
		fprintf(f, (v->v.i < 0 ? -(double)v->v.i : (double)v->v.i) <= safe ? "%lld" : "\"%lld\"",
		        (long long)v->v.i);
	else
		fprintf(f, (double)v->v.u <= safe ? "%llu" : "\"%llu\"", (unsigned long long)v->v.u);
}

void rk__keytext_json(FILE *f, rk__keytext *k, const uint8_t *key, size_t len)
{
	char text[200];
	fputs("{\"hex\":\"", f);
	for (size_t i = 0; i < len; i++)
		fprintf(f, "%02x", key[i]);
	fputs("\",\"text\":", f);
	rk__keytext_label(k, text, sizeof text, key, len);
	rk__json_str(f, (const uint8_t *)text, strlen(text));
	if (k && k->s && decode(k, key, len))
		fputs(",\"fields\":null", f);
	if (!decode(k, key, len)) {
		int b = rk_key_bucket(k->e, key, len);
		if (b >= 0)
			fprintf(f, ",\"bucket\":%d", b);
		fputs(",\"fields\":{", f);
		int first = 1;
		for (int i = 0; i < RK_MAX_FIELDS && k->order[i] >= 0; i++) {
			int fld = k->order[i];
			if (!k->v[fld].present)
				continue;
			const char *name = rk_schema_field_name(k->s, (size_t)fld);
			if (!first)
				putc(',', f);
			first = 0;
			rk__json_str(f, (const uint8_t *)name, strlen(name));
			putc(':', f);
			json_value(f, k, fld);
		}
		putc('}', f);
	}
	putc('}', f);
}
