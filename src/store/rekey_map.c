/*
 * An old row's key under the new design: the old key decoded with the
 * table's remembered schema, each new field matched to the old field of its
 * name, and what the old key does not carry (a field only hashed, or one
 * the old design left out) taken from the row's cell of that qualifier,
 * which is where `rowkey load` writes every field. A value of another type
 * is converted through its text, so the new type's range checks apply.
 * Deliberately no guessing beyond that: a field the new key needs and no
 * source gives stops the rekey naming the row and the field.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/rekey.h"

void rk_rekey__map_free(rk_rekey_map *m)
{
	for (size_t i = 0; m->text && i < m->nnew; i++)
		free(m->text[i]);
	free(m->text);
	free(m->text_cap);
	free(m->from_old);
	free(m->ov);
	free(m->nv);
	free(m->key);
	rk_encoder_free(m->olde);
	rk_encoder_free(m->newe);
	rk_schema_free(m->olds);
	rk_schema_free(m->news);
	memset(m, 0, sizeof *m);
}

int rk_rekey__map_init(rk_rekey_map *m, const char *old_text, const char *new_text)
{
	memset(m, 0, sizeof *m);
	int rc;
	if ((rc = rk_schema_parse(&m->olds, old_text, strlen(old_text), "the table's schema")) ||
	    (rc = rk_schema_parse(&m->news, new_text, strlen(new_text), "the new schema")))
		return rk__err_wrap(rc, "reading a schema");
	m->nold = rk_schema_nfields(m->olds);
	m->nnew = rk_schema_nfields(m->news);
	m->maxkey = rk_schema_max_key_len(m->news);
	size_t no = m->nold ? m->nold : 1, nn = m->nnew ? m->nnew : 1;
	m->from_old = calloc(nn, sizeof *m->from_old);
	m->ov = calloc(no, sizeof *m->ov);
	m->nv = calloc(nn, sizeof *m->nv);
	m->text = calloc(nn, sizeof *m->text);
	m->text_cap = calloc(nn, sizeof *m->text_cap);
	m->key = malloc(m->maxkey ? m->maxkey : 1);
	if (!m->from_old || !m->ov || !m->nv || !m->text || !m->text_cap || !m->key)
		return rk__err(RK_ENOMEM, "rekey: out of memory");
	for (size_t i = 0; i < m->nnew; i++) {
		const char *name = rk_schema_field_name(m->news, i);
		int k = rk_schema_field_index(m->olds, name, strlen(name));
		m->from_old[i] = k >= 0 ? k : -1;
	}
	if ((rc = rk_encoder_new(&m->olde, m->olds, 0)) || (rc = rk_encoder_new(&m->newe, m->news, 0)))
		return rk__err_wrap(rc, "preparing the encoders");
	return 0;
}

/* Field i's value from text t[0..n) (its own copy, as nv[i] borrows it). */
static int from_text(rk_rekey_map *m, size_t i, const char *t, size_t n, const char *where,
                     const rk_row *r)
{
	char kt[RK_REKEY_KEYTEXT];
	if (n + 1 > m->text_cap[i]) {
		char *q = realloc(m->text[i], n + 1);
		if (!q)
			return rk__err(RK_ENOMEM, "out of memory");
		m->text[i] = q;
		m->text_cap[i] = n + 1;
	}
	memcpy(m->text[i], t, n);
	m->text[i][n] = 0;
	if (rk_schema_value_parse(&m->nv[i], m->news, i, m->text[i], n))
		return rk__err_wrap(RK_EINVALID, "old row %s: field %s (%s) does not fit the new design",
		                    rk_rekey__key_text(kt, sizeof kt, r->key, r->key_len),
		                    rk_schema_field_name(m->news, i), where);
	return 0;
}

/* The newest cell of qualifier `name` in the row, or NULL. */
static const rk_cell *named_cell(const rk_row *r, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].qualifier_len == n && !memcmp(r->cells[i].qualifier, name, n))
			return &r->cells[i];
	return NULL;
}

/* New field i from old field k (present): the value itself when the types
 * agree, else through its text. */
static int from_old(rk_rekey_map *m, size_t i, size_t k, const rk_row *r)
{
	rk_type ot = rk_schema_field_type(m->olds, k), nt = rk_schema_field_type(m->news, i);
	if (ot == nt) {
		m->nv[i] = m->ov[k];
		return 0;
	}
	char buf[64];
	size_t need = rk_value_format(buf, sizeof buf, ot, &m->ov[k]);
	if (need < sizeof buf)
		return from_text(m, i, buf, need, "from the old key", r);
	char *big = malloc(need + 1);
	if (!big)
		return rk__err(RK_ENOMEM, "out of memory");
	rk_value_format(big, need + 1, ot, &m->ov[k]);
	int rc = from_text(m, i, big, need, "from the old key", r);
	free(big);
	return rc;
}

int rk_rekey__map_fields(rk_rekey_map *m, const rk_row *r)
{
	char kt[RK_REKEY_KEYTEXT];
	int rc = rk_key_decode(m->ov, m->olde, r->key, r->key_len);
	if (rc)
		return rk__err_wrap(rc, "old row %s does not decode with the table's schema",
		                    rk_rekey__key_text(kt, sizeof kt, r->key, r->key_len));
	for (size_t i = 0; i < m->nnew; i++) {
		long k = m->from_old[i];
		m->nv[i].present = 0;
		if (k >= 0 && m->ov[k].present) {
			if ((rc = from_old(m, i, (size_t)k, r)) != 0)
				return rc;
			continue;
		}
		const rk_cell *c = named_cell(r, rk_schema_field_name(m->news, i));
		if (c && (rc = from_text(m, i, (const char *)c->value, c->value_len,
		                         "from its cell", r)) != 0)
			return rc;
	}
	return 0;
}

int rk_rekey__map_row(rk_rekey_map *m, size_t *len, const rk_row *r)
{
	char kt[RK_REKEY_KEYTEXT];
	int rc = rk_rekey__map_fields(m, r);
	if (rc)
		return rc;
	rc = rk_key_encode(m->key, m->maxkey, len, m->newe, m->nv);
	if (!rc && (*len == 0 || *len > RK_MAX_ROW_LEN))
		rc = rk__err(RK_EINVALID, "the new key would be %s", *len ? "over 32767 bytes" : "empty");
	if (rc)
		return rk__err_wrap(rc, "old row %s: the new design cannot encode it",
		                    rk_rekey__key_text(kt, sizeof kt, r->key, r->key_len));
	return 0;
}

const char *rk_rekey__fields_text(rk_rekey_map *m, char *buf, size_t cap, const uint8_t *key,
                                  size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	if (rk_key_decode(m->ov, m->olde, key, len))
		return buf;
	for (size_t i = 0; i < m->nold && o + 2 < cap; i++) {
		if (!m->ov[i].present)
			continue;
		o += (size_t)snprintf(buf + o, cap - o, "%s%s=", o ? " " : "",
		                      rk_schema_field_name(m->olds, i));
		if (o >= cap)
			break;
		o += rk_value_format(buf + o, cap - o, rk_schema_field_type(m->olds, i), &m->ov[i]);
	}
	if (o >= cap)
		snprintf(buf + cap - 4, 4, "...");
	return buf;
}
