/*
 * The Bigtable backend's table settings (bt_store.h): what the embedded
 * store keeps in its META (a table's key schema, serve's names), kept in a
 * Bigtable table of the instance, `_rowkey_meta`, one row per table (keyed
 * by its Bigtable id, so settings go with the table when names move:
 * bt_names.c), one cell per setting (docs/formats.md, Part C, Table settings). Each change is
 * one MutateRows entry of that row, so Bigtable applies it whole.
 *
 * The settings table is made on the first setting stored, never to be read:
 * a missing one holds no settings. It is a real table that other tools see;
 * rowkey's listings leave it out (bt_tables.c). What this file does not do:
 * make a table and its settings one step (Bigtable has no such call; the
 * table is deleted again when its settings cannot be written).
 */
#include <stdio.h>
#include <stdlib.h>

#include "store/bigtable/bt_store.h"

#define META_FAMILY "s"

int rk_bt__is_meta(const char *table)
{
	return !strcmp(table, RK_BT_META_TABLE);
}

/* RK_EINVALID when `table` is the settings table itself. */
static int not_meta(const char *table)
{
	if (rk_bt__is_meta(table))
		return rk__err(RK_EINVALID, "table %s holds rowkey's table settings (docs/formats.md "
		               "Part C): it has none of its own", table);
	return 0;
}

/* The Bigtable id of table `table` into id (its settings row's key),
 * RK_ENOTFOUND naming the table when it does not exist. */
static int table_id(char id[RK_MAX_TABLE_NAME_LEN + 1], bt_store *s, const char *table)
{
	rk_bt_family *f;
	size_t n;
	int rc = rk_bt__resolve(id, s, table);
	if (rc < 0)
		return rc;
	rc = rk_bt__table_families(&f, &n, s->c, id);
	if (rc == RK_ENOTFOUND)
		return rk__err(RK_ENOTFOUND, "table %s does not exist in %s", table, s->uri);
	if (rc < 0)
		return rk__err_wrap(rc, "%s", s->uri);
	rk_bt__families_free(f, n);
	return 0;
}

/* ---- writing the row ---- */

int rk_bt__meta_create(bt_store *s)
{
	rk_bt_family f = {META_FAMILY, 1, NULL};
	int rc = rk_bt__table_create(s->c, RK_BT_META_TABLE, &f, 1, NULL, 0);
	return rc == RK_EEXISTS ? 0 : rc;
}

static int meta_write_once(bt_store *s, const char *table, const rk_bt_mutation *m, size_t n)
{
	rk_bt_writer *w;
	int rc = rk_bt__writer_new(&w, s->c, RK_BT_META_TABLE);
	if (rc < 0)
		return rc;
	rc = rk_bt__writer_add(w, (const uint8_t *)table, strlen(table), m, n);
	int frc = rk_bt__writer_flush(w);
	rk_bt__writer_free(w);
	return rc < 0 ? rc : frc;
}

/* Applies m[0..n) to the settings row of `table`, atomically. With no
 * settings table: `make` creates it and writes, else nothing is written
 * (deletes have nothing to delete). */
static int meta_write(bt_store *s, const char *table, const rk_bt_mutation *m, size_t n,
                      int make)
{
	int rc = meta_write_once(s, table, m, n);
	if (rc == RK_ENOTFOUND && make) {
		if ((rc = rk_bt__meta_create(s)) < 0)
			return rk__err_wrap(rc, "creating %s", RK_BT_META_TABLE);
		rc = meta_write_once(s, table, m, n);
	}
	return rc == RK_ENOTFOUND && !make ? 0 : rc;
}

/* ---- reading the row ---- */

/* The newest version of each setting of `table` (key NULL: all of them,
 * values stripped; else only that one) into *row, or *row NULL when there
 * is none. *sc holds the row; the caller frees it. */
static int meta_read(const rk_bt_row **row, rk_bt_scan **sc, bt_store *s, const char *table,
                     const char *key)
{
	rk_bt_bytes k = {(const uint8_t *)table, strlen(table)};
	rk_bt_column col = {META_FAMILY, (const uint8_t *)key, key ? strlen(key) : 0};
	rk_bt_read q = RK_BT_READ_INIT;
	q.keys = &k;
	q.nkeys = 1;
	q.rows_limit = 1;
	q.versions = 1; /* GC is lazy: older versions may still be stored */
	q.strip_values = !key;
	q.columns = &col;
	q.ncolumns = 1;
	*row = NULL;
	*sc = NULL;
	int rc = rk_bt__scan_open(sc, s->c, RK_BT_META_TABLE, &q);
	if (rc == 0)
		rc = rk_bt__scan_next(row, *sc);
	if (rc == RK_EITEROVER || rc == RK_ENOTFOUND) { /* no row, or no settings table */
		*row = NULL;
		rc = 0;
	}
	return rc;
}

/* The cell of setting `key` in a row of the settings table, or NULL. */
static const rk_bt_cell *row_cell(const rk_bt_row *row, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; row && i < row->ncells; i++) {
		const rk_bt_cell *c = &row->cells[i];
		if (c->family_len == 1 && c->family[0] == META_FAMILY[0] && c->qualifier_len == kl &&
		    !memcmp(c->qualifier, key, kl))
			return c;
	}
	return NULL;
}

/* RK_EINVALID when setting `key` is new and `table` already has the most
 * settings a table may have. */
static int room_for(bt_store *s, const char *table, const char *key)
{
	const rk_bt_row *row;
	rk_bt_scan *sc;
	int rc = meta_read(&row, &sc, s, table, NULL);
	size_t n = 0;
	for (size_t i = 0; !rc && row && i < row->ncells; i++)
		n += row->cells[i].family_len == 1 && row->cells[i].family[0] == META_FAMILY[0];
	if (!rc && n >= RK_STORE__PROPS_MAX && !row_cell(row, key))
		rc = rk__err(RK_EINVALID, "table %s: setting %s: already %d settings", table, key,
		             RK_STORE__PROPS_MAX);
	else if (rc < 0)
		rc = rk__err_wrap(rc, "%s: table %s: reading its settings", s->uri, table);
	rk_bt__scan_free(sc);
	return rc;
}

/* ---- the ops ---- */

static int key_ok(const char *table, const char *key)
{
	if (!rk_store__valid_prop_key(key))
		return rk__err(RK_EINVALID, "table %s: setting '%s': a key is 1..%d bytes of a-z "
		               "0-9 _ .", table, key, RK_STORE__PROP_KEY_MAX);
	return 0;
}

int rk_bt__prop_set_op(rk_store *st, const char *table, const char *key, const void *val,
                       size_t len)
{
	bt_store *s = (bt_store *)st;
	char id[RK_MAX_TABLE_NAME_LEN + 1];
	int rc;
	if ((rc = not_meta(table)) || (rc = key_ok(table, key)) || (rc = table_id(id, s, table)))
		return rc;
	rk_bt_mutation m = {0};
	m.family = META_FAMILY;
	m.qualifier = (const uint8_t *)key;
	m.qualifier_len = strlen(key);
	if (val) {
		if ((rc = room_for(s, id, key)) < 0)
			return rc;
		m.kind = RK_BT_SET_CELL;
		m.ts_micros = rk_bt__client_next_ts(s->c);
		m.value = val;
		m.value_len = len;
	} else {
		m.kind = RK_BT_DELETE_COLUMN; /* both ends 0: every version */
	}
	rc = meta_write(s, id, &m, 1, val != NULL);
	return rc < 0 ? rk__err_wrap(rc, "%s: table %s: setting %s", s->uri, table, key) : 0;
}

int rk_bt__prop_get_op(void **out, size_t *out_len, rk_store *st, const char *table,
                       const char *key)
{
	bt_store *s = (bt_store *)st;
	const rk_bt_row *row;
	rk_bt_scan *sc;
	char id[RK_MAX_TABLE_NAME_LEN + 1];
	int rc;
	if ((rc = not_meta(table)) || (rc = key_ok(table, key)) || (rc = table_id(id, s, table)))
		return rc;
	if ((rc = meta_read(&row, &sc, s, id, key)) < 0) {
		rk_bt__scan_free(sc);
		return rk__err_wrap(rc, "%s: table %s: reading setting %s", s->uri, table, key);
	}
	const rk_bt_cell *c = row_cell(row, key);
	if (!c)
		rc = rk__err(RK_ENOTFOUND, "table %s: setting %s is not set", table, key);
	else if (c->value_len > RK_STORE__PROP_VAL_MAX)
		rc = rk__err(RK_ECORRUPT, "%s: %s row %s: setting %s is %zu bytes (at most %d)",
		             s->uri, RK_BT_META_TABLE, table, key, c->value_len,
		             RK_STORE__PROP_VAL_MAX);
	else if (!(*out = malloc(c->value_len + 1)))
		rc = rk__err(RK_ENOMEM, "table %s: setting %s: out of memory", table, key);
	if (!rc) {
		if (c->value_len)
			memcpy(*out, c->value, c->value_len);
		((uint8_t *)*out)[c->value_len] = 0;
		*out_len = c->value_len;
	}
	rk_bt__scan_free(sc);
	return rc;
}

int rk_bt__settings_check(const char *table, const rk_table_prop *props, size_t n)
{
	int rc = n ? not_meta(table) : 0;
	for (size_t i = 0; i < n && !rc; i++) {
		rc = key_ok(table, props[i].key);
		for (size_t j = 0; j < i && !rc; j++)
			if (!strcmp(props[i].key, props[j].key))
				rc = rk__err(RK_EINVALID, "table %s: setting %s given twice", table,
				             props[i].key);
	}
	return rc;
}

int rk_bt__settings_create(bt_store *s, const char *table, const rk_table_prop *props, size_t n)
{
	rk_bt_mutation *m = calloc(n + 1, sizeof *m);
	if (!m)
		return rk__err(RK_ENOMEM, "table %s: out of memory", table);
	/* the row a table of this name dropped by another tool may have left */
	m[0].kind = RK_BT_DELETE_ROW;
	int64_t ts = n ? rk_bt__client_next_ts(s->c) : 0;
	for (size_t i = 0; i < n; i++)
		m[i + 1] = (rk_bt_mutation){RK_BT_SET_CELL, META_FAMILY,
		                            (const uint8_t *)props[i].key, strlen(props[i].key), ts,
		                            0, props[i].val, props[i].len};
	int rc = meta_write(s, table, m, n + 1, n > 0);
	free(m);
	return rc < 0 ? rk__err_wrap(rc, "%s: table %s: saving its settings", s->uri, table) : 0;
}

int rk_bt__settings_drop(bt_store *s, const char *table)
{
	rk_bt_mutation m = {0};
	m.kind = RK_BT_DELETE_ROW;
	int rc = meta_write(s, table, &m, 1, 0);
	return rc < 0 ? rk__err_wrap(rc, "%s: table %s: removing its settings", s->uri, table) : 0;
}
