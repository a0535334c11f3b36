/*
 * The order of a key's fields (rk_schema_key_fields): what sorts the rows
 * of a table, read off the parsed template for the analyzer's causes (which
 * field leads, whether a number is compared as text).
 */
#include <string.h>

#include "key/schema_int.h"

size_t rk_schema_key_fields(const rk_schema *s, rk_key_field *out, size_t max)
{
	uint64_t seen = 0;
	size_t n = 0;
	for (size_t i = 0; i < s->nparts; i++) {
		const rk_part *p = &s->parts[i];
		if (p->kind != P_VAL || (seen >> p->field & 1))
			continue; /* literals and spread prefixes do not order rows by a field */
		seen |= 1ull << p->field;
		if (n < max) {
			rk_key_field *k = &out[n];
			memset(k, 0, sizeof *k);
			k->field = (size_t)p->field;
			k->as_text = p->enc == E_TEXT && p->vop == V_FIELD && s->ftype[p->field] != RK_T_STR &&
			             s->ftype[p->field] != RK_T_BYTES;
			k->transformed = p->vop != V_FIELD;
			k->desc = p->desc;
		}
		n++;
	}
	return n;
}

/* Fields read by the parts before the first value part (hashes, buckets,
 * salts over fields: what decides a row's spread prefix). */
uint64_t rk_schema_spread_fields(const rk_schema *s)
{
	uint64_t m = 0;
	for (size_t i = 0; i < s->nparts && s->parts[i].kind != P_VAL; i++)
		m |= rk_schema__fields_used(s->parts[i].sub, s->parts[i].nsub);
	return m;
}
