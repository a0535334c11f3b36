/*
 * The JSON representations HBase's REST server reads and writes (its model
 * classes: CellSetModel, RowModel, CellModel, TableSchemaModel,
 * ColumnSchemaModel): CellSets into put mutations, rows into CellSets,
 * table schemas into family definitions and back. Row keys, columns and
 * values travel base64-encoded; "column" is "family:qualifier".
 *
 * A family's VERSIONS and TTL are HBase's two collection rules, either of
 * which removes a version: the store's GC rule is then the union of "keep
 * VERSIONS" and "younger than TTL" (TTL FOREVER: VERSIONS alone). Other
 * ColumnSchema attributes (BLOCKSIZE, COMPRESSION, BLOOMFILTER...) tune
 * HBase's storage, which the store does its own way: they are accepted and
 * not kept (docs/serve.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/hbase/hbase_int.h"

#define FOREVER 2147483647ll /* HBase's TTL for "no TTL", seconds */
#define MAX_CELLS 100000u    /* cells of one CellSet (Bigtable's mutations a call) */

static json_t *load(const uint8_t *body, size_t len, const char *what, char *err, size_t cap)
{
	json_error_t je;
	json_t *j = json_loadb((const char *)body, len, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		snprintf(err, cap, "Bad request: %s: JSON at line %d, column %d: %s", what, je.line,
		         je.column, je.text);
	else if (!json_is_object(j)) {
		snprintf(err, cap, "Bad request: %s: expected a JSON object", what);
		json_decref(j);
		j = NULL;
	}
	return j;
}

/* member `key` of o as base64 bytes into the arena: 0, 1 when absent, -1
 * (err said) when not a base64 string */
static int b64_member(uint8_t **out, size_t *len, rk_hb_arena *a, json_t *o, const char *key,
                      const char *where, char *err, size_t cap)
{
	json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v))
		return 1;
	if (!json_is_string(v) ||
	    rk_hb__b64_decode(out, len, a, json_string_value(v), json_string_length(v))) {
		snprintf(err, cap, "Bad request: %s.%s: not base64", where, key);
		return -1;
	}
	return 0;
}

int rk_hb__ms_to_us(uint64_t *us, json_int_t ms)
{
	if (ms < 0)
		return -1;
	if (ms == INT64_MAX) { /* HConstants.LATEST_TIMESTAMP: now */
		*us = 0;
		return 0;
	}
	if ((uint64_t)ms > RK_TS_MAX / 1000)
		return -1;
	*us = (uint64_t)ms * 1000;
	return 0;
}

/* one Cell of Row ri into m */
static int cell(rk_mutation *m, rk_hb_puts *o, json_t *c, const char *where,
                const rk_hb_path *path, int flags, char *err, size_t cap)
{
	uint8_t *col, *val;
	size_t cl, vl;
	rk_hb_col hc;
	if (!json_is_object(c))
		return snprintf(err, cap, "Bad request: %s: expected an object", where), -1;
	int rc = b64_member(&col, &cl, &o->a, c, "column", where, err, cap);
	if (rc < 0)
		return -1;
	if (rc == 0 ? rk_hb__column(&hc, &o->a, col, cl) != 0 : path->ncols != 1)
		return snprintf(err, cap, "Bad request: %s.column: %s", where,
		                rc ? "missing (and the path names no one column)"
		                   : "not family:qualifier"), -1;
	if (rc)
		hc = path->cols[0];
	if ((rc = b64_member(&val, &vl, &o->a, c, "$", where, err, cap)) < 0)
		return -1;
	if (rc && !(flags & RK_HB_CELLS_NO_VALUE))
		return snprintf(err, cap, "Bad request: %s.$: missing", where), -1;
	if (rc) { /* a check's cell, or a delete's: no value is an empty one */
		val = NULL;
		vl = 0;
	}
	json_t *ts = json_object_get(c, "timestamp");
	m->type = RK_MUT_PUT;
	m->family = rk_hb__alloc(&o->a, strlen(hc.family) + 1);
	if (!m->family)
		return snprintf(err, cap, "Service unavailable: out of memory"), -1;
	memcpy((char *)m->family, hc.family, strlen(hc.family) + 1);
	m->qualifier = hc.qual;
	m->qualifier_len = hc.qual_len;
	m->value = val;
	m->value_len = vl;
	/* a number, or digits in a string (Jackson reads both into a long; the
	 * npm hbase client sends strings) */
	json_int_t ms = json_is_integer(ts) ? json_integer_value(ts) : -1;
	if (json_is_string(ts) && json_string_length(ts) && json_string_length(ts) <= 18 &&
	    strspn(json_string_value(ts), "0123456789") == json_string_length(ts))
		ms = strtoll(json_string_value(ts), NULL, 10);
	if (ts && !json_is_null(ts) && rk_hb__ms_to_us(&m->ts, ms))
		return snprintf(err, cap, "Bad request: %s.timestamp: not milliseconds 0..%llu", where,
		                (unsigned long long)(RK_TS_MAX / 1000)), -1;
	return 0;
}

int rk_hb__cellset_parse(rk_hb_puts *o, const uint8_t *body, size_t len,
                         const rk_hb_path *path, int flags, char *err, size_t cap)
{
	char where[64];
	memset(o, 0, sizeof *o);
	json_t *j = load(body, len, "CellSet", err, cap), *rows = j ? json_object_get(j, "Row") : NULL;
	if (!j)
		return 400;
	size_t total = 0, k = 0;
	if (!json_is_array(rows) || !json_array_size(rows)) {
		snprintf(err, cap, "Bad request: CellSet: Row must be a non-empty array");
		goto bad;
	}
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *cs = json_object_get(json_array_get(rows, i), "Cell");
		if (!json_is_array(cs) || !json_array_size(cs)) {
			snprintf(err, cap, "Bad request: Row[%zu].Cell must be a non-empty array", i);
			goto bad;
		}
		total += json_array_size(cs);
	}
	if (total > MAX_CELLS) {
		snprintf(err, cap, "Bad request: %zu cells in one request (at most %u)", total, MAX_CELLS);
		goto bad;
	}
	if (!(o->m = rk_hb__alloc(&o->a, total * sizeof *o->m))) {
		snprintf(err, cap, "Service unavailable: out of memory");
		goto bad;
	}
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *row = json_array_get(rows, i), *cs = json_object_get(row, "Cell");
		uint8_t *key;
		size_t kl;
		snprintf(where, sizeof where, "Row[%zu]", i);
		int rc = b64_member(&key, &kl, &o->a, row, "key", where, err, cap);
		if (rc < 0)
			goto bad;
		if (rc) {
			key = path->row;
			kl = path->row_len;
		}
		if (!kl || kl > RK_MAX_ROW_LEN) {
			snprintf(err, cap, "Bad request: %s.key: %zu bytes (1..%u)", where, kl, RK_MAX_ROW_LEN);
			goto bad;
		}
		for (size_t c = 0; c < json_array_size(cs); c++, k++) {
			snprintf(where, sizeof where, "Row[%zu].Cell[%zu]", i, c);
			if (cell(&o->m[k], o, json_array_get(cs, c), where, path, flags, err, cap))
				goto bad;
			o->m[k].row = key;
			o->m[k].row_len = kl;
		}
	}
	o->n = k;
	o->nrows = json_array_size(rows);
	json_decref(j);
	return 0;
bad:
	json_decref(j);
	rk_hb__arena_free(&o->a);
	memset(o, 0, sizeof *o);
	return 400;
}

/* ---- schemas ---- */

/* attribute `key` of a ColumnSchema: a number or a string of digits in
 * 1..max; 1 when absent, -1 when bad */
static int attr(long long *v, json_t *o, const char *key, long long max)
{
	json_t *a = json_object_get(o, key);
	long long x = 0;
	if (!a)
		return 1;
	if (json_is_integer(a))
		x = json_integer_value(a);
	else if (json_is_string(a)) {
		const char *s = json_string_value(a);
		if (!*s || strlen(s) > 18)
			return -1;
		for (; *s; s++) {
			if (*s < '0' || *s > '9')
				return -1;
			x = x * 10 + (*s - '0');
		}
	} else
		return -1;
	if (x < 1 || x > max)
		return -1;
	*v = x;
	return 0;
}

static int family(rk_family_def *f, rk_gc_rule *rules, rk_hb_arena *a, json_t *cs, size_t i,
                  char *err, size_t cap)
{
	json_t *name = json_object_get(cs, "name");
	long long versions = 1, ttl = FOREVER;
	rk_hb_col c;
	if (!json_is_string(name) ||
	    rk_hb__column(&c, a, (const uint8_t *)json_string_value(name), json_string_length(name)) ||
	    c.qual)
		return snprintf(err, cap, "Bad request: ColumnSchema[%zu].name: not a family name "
		                          "(1..64 of [A-Za-z0-9_.-])", i), -1;
	if (attr(&versions, cs, "VERSIONS", 2147483647) < 0 || attr(&ttl, cs, "TTL", FOREVER) < 0)
		return snprintf(err, cap, "Bad request: ColumnSchema[%zu] (%s): VERSIONS and TTL must "
		                          "be 1..2147483647", i, c.family), -1;
	char *n = rk_hb__alloc(a, strlen(c.family) + 1);
	if (!n)
		return snprintf(err, cap, "Service unavailable: out of memory"), -1;
	memcpy(n, c.family, strlen(c.family) + 1);
	f->name = n;
	f->max_versions = (unsigned)versions;
	f->gc = NULL;
	if (ttl != FOREVER) {
		rules[0] = (rk_gc_rule){RK_GC_VERSIONS, (unsigned)versions, 0, NULL, 0};
		rules[1] = (rk_gc_rule){RK_GC_AGE, 0, (uint64_t)ttl * 1000000u, NULL, 0};
		rules[2] = (rk_gc_rule){RK_GC_UNION, 0, 0, rules, 2};
		f->gc = &rules[2];
	}
	return 0;
}

int rk_hb__schema_parse(rk_hb_schema *o, const uint8_t *body, size_t len, char *err, size_t cap)
{
	memset(o, 0, sizeof *o);
	json_t *j = load(body, len, "TableSchema", err, cap);
	if (!j)
		return 400;
	json_t *name = json_object_get(j, "name"), *cs = json_object_get(j, "ColumnSchema");
	size_t n = json_array_size(cs);
	if (name && (!json_is_string(name) || json_string_length(name) > RK_MAX_TABLE_NAME_LEN)) {
		snprintf(err, cap, "Bad request: TableSchema.name: not a table name");
		goto bad;
	}
	if (name)
		snprintf(o->name, sizeof o->name, "%s", json_string_value(name));
	if (!json_is_array(cs) || !n || n > 255) {
		snprintf(err, cap, "Bad request: TableSchema.ColumnSchema: 1..255 families");
		goto bad;
	}
	rk_gc_rule *rules = rk_hb__alloc(&o->a, 3 * n * sizeof *rules);
	if (!rules || !(o->fams = rk_hb__alloc(&o->a, n * sizeof *o->fams))) {
		snprintf(err, cap, "Service unavailable: out of memory");
		goto bad;
	}
	for (size_t i = 0; i < n; i++) {
		if (family(&o->fams[i], &rules[3 * i], &o->a, json_array_get(cs, i), i, err, cap))
			goto bad;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(o->fams[k].name, o->fams[i].name)) {
				snprintf(err, cap, "Bad request: family %s named twice", o->fams[i].name);
				goto bad;
			}
	}
	o->n = n;
	json_decref(j);
	return 0;
bad:
	json_decref(j);
	rk_hb__arena_free(&o->a);
	memset(o, 0, sizeof *o);
	return 400;
}

json_t *rk_hb__family_json(const rk_family_def *f)
{
	unsigned long long versions = f->max_versions, ttl = FOREVER;
	const rk_gc_rule *g = f->gc;
	if (g && g->kind == RK_GC_UNION && g->nrules == 2 && g->rules[0].kind == RK_GC_VERSIONS &&
	    g->rules[1].kind == RK_GC_AGE) {
		versions = g->rules[0].max_versions;
		ttl = g->rules[1].max_age_us / 1000000u;
	} else if (g && g->kind == RK_GC_AGE) {
		ttl = g->max_age_us / 1000000u;
	}
	if (versions > FOREVER)
		versions = FOREVER;
	if (ttl > FOREVER)
		ttl = FOREVER;
	char v[24], t[24];
	snprintf(v, sizeof v, "%llu", versions);
	snprintf(t, sizeof t, "%llu", ttl);
	return json_pack("{s:s,s:s,s:s}", "name", f->name, "VERSIONS", v, "TTL", t);
}

/* ---- rows ---- */

static int add_b64(json_t *o, const char *key, const uint8_t *p, size_t n)
{
	char *s = rk_hb__b64_encode(p, n);
	int rc = s ? json_object_set_new(o, key, json_string(s)) : -1;
	free(s);
	return rc;
}

long rk_hb__row_json(json_t *rows, const rk_row *row, size_t skip, size_t max)
{
	json_t *r = json_object(), *cells = json_array();
	long bytes = 0;
	if (!r || !cells || add_b64(r, "key", row->key, row->key_len) ||
	    json_object_set(r, "Cell", cells))
		goto oom;
	for (size_t i = skip; i < row->ncells && (!max || i < skip + max); i++) {
		const rk_cell *c = &row->cells[i];
		size_t fl = strlen(c->family), cl = fl + 1 + c->qualifier_len;
		uint8_t *col = malloc(cl);
		json_t *o = json_object();
		if (!col || !o) {
			free(col);
			json_decref(o);
			goto oom;
		}
		memcpy(col, c->family, fl);
		col[fl] = ':';
		memcpy(col + fl + 1, c->qualifier, c->qualifier_len);
		int bad = add_b64(o, "column", col, cl) ||
		          json_object_set_new(o, "timestamp", json_integer((json_int_t)(c->ts / 1000))) ||
		          add_b64(o, "$", c->value, c->value_len);
		free(col);
		if (bad)
			json_decref(o);
		if (bad || json_array_append_new(cells, o))
			goto oom;
		bytes += (long)(cl + c->value_len);
	}
	json_decref(cells);
	return json_array_append_new(rows, r) ? -1 : bytes;
oom:
	json_decref(cells);
	json_decref(r);
	return -1;
}
