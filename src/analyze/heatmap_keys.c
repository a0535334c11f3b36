/*
 * Key text for the heatmap pictures (heatmap.c, heatmap_html.c): the heat
 * row holding a key, and labels that decode binary keys into their fields
 * through the run's schema.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "store/local/meta.h"

/* the heat row holding key k: the last row whose first key is <= k */
size_t rk__heat_row_of(const rk_analysis *a, const uint8_t *k, size_t kl)
{
	size_t lo = 0, hi = a->rows;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (rk_meta__row_cmp(a->row_key[mid], a->row_key_len[mid], k, kl) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void rk__keyfmt_init(rk__keyfmt *f, const rk_analysis *a)
{
	memset(f, 0, sizeof *f);
	if (!a->schema_text || rk_schema_load(&f->s, a->schema_text) != 0) {
		f->s = NULL;
		return; /* no schema: labels show the key bytes */
	}
	f->nf = rk_schema_nfields(f->s);
	if (rk_encoder_new(&f->e, f->s, 0) != 0 || !(f->v = calloc(f->nf ? f->nf : 1, sizeof *f->v))) {
		rk_encoder_free(f->e);
		rk_schema_free(f->s);
		memset(f, 0, sizeof *f);
	}
}

void rk__keyfmt_fini(rk__keyfmt *f)
{
	free(f->v);
	rk_encoder_free(f->e);
	rk_schema_free(f->s);
}

/* "field=value ..." of a whole key (with "bucket N: " for a bucketed design);
 * "" when the key does not decode (a split point is often only a prefix) */
const char *rk__key_decoded(char *buf, size_t cap, rk__keyfmt *f, const uint8_t *k, size_t kl)
{
	size_t o = 0;
	buf[0] = 0;
	if (!f->s || !kl || rk_key_decode(f->v, f->e, k, kl) != 0)
		return buf;
	int b = rk_key_bucket(f->e, k, kl);
	if (b >= 0)
		o += (size_t)snprintf(buf, cap, "bucket %d:", b);
	for (size_t i = 0; i < f->nf && o + 8 < cap; i++) {
		if (!f->v[i].present)
			continue;
		char val[64];
		rk_value_format(val, sizeof val, rk_schema_field_type(f->s, i), &f->v[i]);
		for (char *c = val; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				*c = '?';
		o += (size_t)snprintf(buf + o, cap - o, "%s%s=%s", o ? " " : "", rk_schema_field_name(f->s, i),
		                      val);
	}
	if (o >= cap)
		buf[cap - 1] = 0;
	return buf;
}

/* a label for a key: its bytes when they are all printable, else its fields
 * when it decodes, else its bytes with \xNN escapes */
const char *rk__key_label(char *buf, size_t cap, rk__keyfmt *f, const uint8_t *k, size_t kl)
{
	rk__key_text(buf, cap < 60 ? cap : 60, k, kl);
	if (!strstr(buf, "\\x"))
		return buf;
	char dec[160];
	rk__key_decoded(dec, sizeof dec, f, k, kl);
	int b = f->s && kl ? rk_key_bucket(f->e, k, kl) : -1;
	if (dec[0])
		snprintf(buf, cap, "%s", dec);
	else if (b >= 0 && kl <= 2) /* a split point at a bucket prefix */
		snprintf(buf, cap, "bucket %d", b);
	return buf;
}
