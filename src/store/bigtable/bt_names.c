/*
 * The Bigtable backend's table names (bt_store.h): Bigtable has no table
 * rename, so a rowkey table name resolves to the Bigtable table id that
 * holds it through one row of the instance's _rowkey_meta table, `#names`
 * (docs/formats.md, Part C, Table names). A name not in the row is the id
 * of the same name, so tables nobody renamed need no entry. A rename is one
 * CheckAndMutateRow of that row, guarded by its generation cell, so two
 * processes renaming at once cannot both win on a stale read.
 *
 * What this file does not do: create or delete tables (bt_tables.c), or
 * keep the row in memory: every call reads it again, so a cutover made by
 * another process is seen by the next call here.
 */
#include <stdio.h>
#include <stdlib.h>

#include "store/bigtable/bt_store.h"

#define META_FAMILY "s"
#define NAMES_ROW "#names"
#define GEN_COL "#gen"

/* ---- the row in memory ---- */

void rk_bt__names_free(bt_names *nm)
{
	free(nm->v);
	memset(nm, 0, sizeof *nm);
}

static bt_name *find(const bt_names *nm, const char *name)
{
	for (size_t i = 0; i < nm->n; i++)
		if (!strcmp(nm->v[i].name, name))
			return &nm->v[i];
	return NULL;
}

int rk_bt__names_set(bt_names *nm, const char *name, const char *id)
{
	bt_name *e = find(nm, name);
	if (!e) {
		if (nm->n == nm->cap) {
			size_t nc = nm->cap ? nm->cap * 2 : 8;
			bt_name *nv = realloc(nm->v, nc * sizeof *nv);
			if (!nv)
				return rk__err(RK_ENOMEM, "table names: out of memory");
			nm->v = nv;
			nm->cap = nc;
		}
		e = &nm->v[nm->n++];
		snprintf(e->name, sizeof e->name, "%s", name);
	}
	snprintf(e->id, sizeof e->id, "%s", id);
	return 0;
}

int rk_bt__names_has(const bt_names *nm, const char *name)
{
	return find(nm, name) != NULL;
}

const char *rk_bt__names_id(const bt_names *nm, const char *name)
{
	const bt_name *e = find(nm, name);
	return !e ? name : e->id[0] ? e->id : NULL;
}

const char *rk_bt__names_of(const bt_names *nm, const char *id)
{
	for (size_t i = 0; i < nm->n; i++)
		if (!strcmp(nm->v[i].id, id))
			return nm->v[i].name;
	return find(nm, id) ? NULL : id;
}

/* Removes what the row need not say: entries naming their own id, and
 * empty ones whose name is no other entry's id (docs/formats.md). */
static void normalize(bt_names *nm)
{
	size_t k = 0;
	for (size_t i = 0; i < nm->n; i++) {
		bt_name *e = &nm->v[i];
		int keep = strcmp(e->name, e->id) != 0;
		if (keep && !e->id[0]) {
			keep = 0;
			for (size_t j = 0; j < nm->n && !keep; j++)
				keep = j != i && !strcmp(nm->v[j].id, e->name);
		}
		if (keep)
			nm->v[k++] = *e;
	}
	nm->n = k;
}

int rk_bt__names_copy(bt_names *out, const bt_names *nm)
{
	*out = (bt_names){0};
	out->gen = nm->gen;
	out->has_gen = nm->has_gen;
	for (size_t i = 0; i < nm->n; i++)
		if (rk_bt__names_set(out, nm->v[i].name, nm->v[i].id) < 0) {
			rk_bt__names_free(out);
			return RK_ENOMEM;
		}
	return 0;
}

/* ---- reading ---- */

/* A cell's bytes as a name or id into out (RK_MAX_TABLE_NAME_LEN + 1
 * bytes); empty allowed for an id. RK_ECORRUPT when it is not one. */
static int cell_text(char *out, const uint8_t *p, size_t n, int empty_ok, bt_store *s)
{
	if ((!n && !empty_ok) || n > RK_MAX_TABLE_NAME_LEN)
		goto bad;
	/* [A-Za-z0-9_.-], as store.c's names (its check is not exported to
	 * this library) */
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
		      (p[i] >= '0' && p[i] <= '9') || p[i] == '_' || p[i] == '.' || p[i] == '-'))
			goto bad;
	memcpy(out, p, n);
	out[n] = 0;
	return 0;
bad:
	return rk__err(RK_ECORRUPT, "%s: %s row %s: a cell of %zu bytes that is not a table name",
	               s->uri, RK_BT_META_TABLE, NAMES_ROW, n);
}

int rk_bt__names_load(bt_names *out, bt_store *s)
{
	*out = (bt_names){0};
	rk_bt_bytes k = {(const uint8_t *)NAMES_ROW, strlen(NAMES_ROW)};
	rk_bt_read q = RK_BT_READ_INIT;
	q.keys = &k;
	q.nkeys = 1;
	q.rows_limit = 1;
	q.versions = 1; /* GC is lazy: older versions may still be stored */
	q.family_regex = META_FAMILY;
	rk_bt_scan *sc = NULL;
	const rk_bt_row *row = NULL;
	int rc = rk_bt__scan_open(&sc, s->c, RK_BT_META_TABLE, &q);
	if (rc == 0)
		rc = rk_bt__scan_next(&row, sc);
	if (rc == RK_EITEROVER || rc == RK_ENOTFOUND) { /* no row, or no _rowkey_meta */
		row = NULL;
		rc = 0;
	}
	for (size_t i = 0; !rc && row && i < row->ncells; i++) {
		const rk_bt_cell *c = &row->cells[i];
		char name[RK_MAX_TABLE_NAME_LEN + 1], id[RK_MAX_TABLE_NAME_LEN + 1];
		if (c->qualifier_len == strlen(GEN_COL) && !memcmp(c->qualifier, GEN_COL, strlen(GEN_COL))) {
			char g[24];
			char *end;
			if (!c->value_len || c->value_len >= sizeof g)
				goto bad_gen;
			memcpy(g, c->value, c->value_len);
			g[c->value_len] = 0;
			out->gen = strtoull(g, &end, 10);
			if (*end || g[0] < '0' || g[0] > '9')
				goto bad_gen;
			out->has_gen = 1;
			continue;
		}
		if ((rc = cell_text(name, c->qualifier, c->qualifier_len, 0, s)) < 0 ||
		    (rc = cell_text(id, c->value, c->value_len, 1, s)) < 0)
			break;
		if (find(out, name))
			continue; /* an older version: the newest came first */
		rc = rk_bt__names_set(out, name, id);
	}
	rk_bt__scan_free(sc);
	if (rc < 0) {
		rk_bt__names_free(out);
		return rc == RK_ECORRUPT ? rc : rk__err_wrap(rc, "%s: reading the table names", s->uri);
	}
	return 0;
bad_gen:
	rk_bt__scan_free(sc);
	rk_bt__names_free(out);
	return rk__err(RK_ECORRUPT, "%s: %s row %s: %s is not a number", s->uri, RK_BT_META_TABLE,
	               NAMES_ROW, GEN_COL);
}

int rk_bt__resolve(char id[RK_MAX_TABLE_NAME_LEN + 1], bt_store *s, const char *name)
{
	bt_names nm;
	int rc = rk_bt__names_load(&nm, s);
	if (rc < 0)
		return rc;
	const char *v = rk_bt__names_id(&nm, name);
	if (v)
		snprintf(id, RK_MAX_TABLE_NAME_LEN + 1, "%s", v);
	rk_bt__names_free(&nm);
	return v ? 0 : rk__err(RK_ENOTFOUND, "table %s does not exist in %s", name, s->uri);
}

/* ---- writing ---- */

/* The mutations that turn row `old` into `nm` (nm->gen is old->gen + 1):
 * each changed column deleted, then set; m and text hold room for them. */
static size_t diff(rk_bt_mutation *m, char (*gen)[24], const bt_names *old, const bt_names *nm,
                   int64_t ts)
{
	size_t k = 0;
	for (size_t i = 0; i < nm->n; i++) {
		const bt_name *e = &nm->v[i], *o = find(old, e->name);
		if (o && !strcmp(o->id, e->id))
			continue;
		const uint8_t *q = (const uint8_t *)e->name;
		m[k++] = (rk_bt_mutation){RK_BT_DELETE_COLUMN, META_FAMILY, q, strlen(e->name), 0, 0,
		                          NULL, 0};
		m[k++] = (rk_bt_mutation){RK_BT_SET_CELL, META_FAMILY, q, strlen(e->name), ts, 0,
		                          (const uint8_t *)e->id, strlen(e->id)};
	}
	for (size_t i = 0; i < old->n; i++)
		if (!find(nm, old->v[i].name))
			m[k++] = (rk_bt_mutation){RK_BT_DELETE_COLUMN, META_FAMILY,
			                          (const uint8_t *)old->v[i].name,
			                          strlen(old->v[i].name), 0, 0, NULL, 0};
	if (!k)
		return 0;
	int gl = snprintf(*gen, sizeof *gen, "%llu", (unsigned long long)nm->gen);
	const uint8_t *gq = (const uint8_t *)GEN_COL;
	m[k++] = (rk_bt_mutation){RK_BT_DELETE_COLUMN, META_FAMILY, gq, strlen(GEN_COL), 0, 0,
	                          NULL, 0};
	m[k++] = (rk_bt_mutation){RK_BT_SET_CELL, META_FAMILY, gq, strlen(GEN_COL), ts, 0,
	                          (const uint8_t *)*gen, (size_t)gl};
	return k;
}

/* One CheckAndMutateRow: the predicate is `#gen` as old had it. */
static int guarded_write(bt_store *s, const bt_names *old, const rk_bt_mutation *m, size_t n)
{
	char gq[16], gv[96], gtext[24];
	size_t gql = rk_bt__regex_quote(gq, (const uint8_t *)GEN_COL, strlen(GEN_COL));
	int gl = snprintf(gtext, sizeof gtext, "%llu", (unsigned long long)old->gen);
	size_t gvl = rk_bt__regex_quote(gv, (const uint8_t *)gtext, (size_t)gl);
	rk_filter kids[4] = {{0}};
	kids[0].kind = RK_FILTER_FAMILY_REGEX;
	kids[0].pattern = (const uint8_t *)META_FAMILY;
	kids[0].pattern_len = 1;
	kids[1].kind = RK_FILTER_QUALIFIER_REGEX;
	kids[1].pattern = (const uint8_t *)gq;
	kids[1].pattern_len = gql;
	kids[2].kind = RK_FILTER_COLUMN_LIMIT;
	kids[2].n = 1;
	kids[3].kind = RK_FILTER_VALUE_REGEX;
	kids[3].pattern = (const uint8_t *)gv;
	kids[3].pattern_len = gvl;
	rk_filter pred = {0};
	pred.kind = RK_FILTER_CHAIN;
	pred.kids = kids;
	pred.nkids = old->has_gen ? 4 : 3; /* none yet: any #gen cell means one came meanwhile */
	const uint8_t *row = (const uint8_t *)NAMES_ROW;
	int matched = 0;
	int rc = old->has_gen ? rk_bt__check_and_mutate_row(&matched, s->c, RK_BT_META_TABLE, row,
	                                                   strlen(NAMES_ROW), &pred, m, n, NULL, 0)
	                      : rk_bt__check_and_mutate_row(&matched, s->c, RK_BT_META_TABLE, row,
	                                                   strlen(NAMES_ROW), &pred, NULL, 0, m, n);
	if (rc < 0)
		return rc;
	if (matched != old->has_gen)
		return rk__err(RK_EBUSY, "%s: table names changed meanwhile (another process renamed, "
		               "created or dropped a table): nothing written; run it again", s->uri);
	return 0;
}

int rk_bt__names_write(bt_store *s, const bt_names *old, bt_names *nm)
{
	normalize(nm);
	nm->gen = old->gen + 1;
	nm->has_gen = 1;
	rk_bt_mutation *m = calloc(2 * (nm->n + old->n) + 2, sizeof *m);
	char gen[24];
	if (!m)
		return rk__err(RK_ENOMEM, "table names: out of memory");
	size_t n = diff(m, &gen, old, nm, rk_bt__client_next_ts(s->c));
	int rc = n ? guarded_write(s, old, m, n) : 0;
	if (rc == RK_ENOTFOUND) { /* no _rowkey_meta yet */
		if ((rc = rk_bt__meta_create(s)) == 0)
			rc = guarded_write(s, old, m, n);
	}
	free(m);
	return rc < 0 && rc != RK_EBUSY ? rk__err_wrap(rc, "%s: writing the table names", s->uri)
	                                : rc;
}

/* ---- rename ---- */

/* 1 when table id `id` exists, 0 when not, or an error. */
static int id_exists(bt_store *s, const char *id)
{
	rk_bt_family *f;
	size_t n;
	int rc = rk_bt__table_families(&f, &n, s->c, id);
	if (rc == RK_ENOTFOUND)
		return 0;
	if (rc < 0)
		return rk__err_wrap(rc, "%s", s->uri);
	rk_bt__families_free(f, n);
	return 1;
}

/* RK_EBUSY when this process holds a handle on table `name`. */
static int not_open(bt_store *s, const char *name)
{
	unsigned h = rk_bt__handles(s, name);
	return h ? rk__err(RK_EBUSY, "table %s: %u handles still open in this process", name, h) : 0;
}

/* Checks renames v[0..n) against the row: each from a table, each to free
 * or freed by the call. */
static int rename_check(bt_store *s, const bt_names *nm, const rk_table_rename *v, size_t n)
{
	int rc;
	for (size_t i = 0; i < n; i++) {
		const char *id = rk_bt__names_id(nm, v[i].from);
		if (rk_bt__is_meta(v[i].to) || rk_bt__is_meta(v[i].from))
			return rk__err(RK_EINVALID, "rename %s -> %s: %s is rowkey's own table", v[i].from,
			               v[i].to, RK_BT_META_TABLE);
		if ((rc = not_open(s, v[i].from)) || (rc = not_open(s, v[i].to)))
			return rc;
		if (!id || (rc = id_exists(s, id)) == 0)
			return rk__err(RK_ENOTFOUND, "rename %s -> %s: table %s does not exist in %s",
			               v[i].from, v[i].to, v[i].from, s->uri);
		if (rc < 0)
			return rc;
		int freed = 0;
		for (size_t k = 0; k < n && !freed; k++)
			freed = !strcmp(v[k].from, v[i].to);
		if (freed)
			continue;
		const char *tid = rk_bt__names_id(nm, v[i].to);
		if (tid && (rc = id_exists(s, tid)) != 0)
			return rc < 0 ? rc : rk__err(RK_EEXISTS, "rename %s -> %s: table %s already exists "
			                             "in %s", v[i].from, v[i].to, v[i].to, s->uri);
	}
	return 0;
}

int rk_bt__tables_rename_op(rk_store *st, const rk_table_rename *v, size_t n)
{
	bt_store *s = (bt_store *)st;
	bt_names old, nm;
	int rc = rk_bt__names_load(&old, s);
	if (rc < 0)
		return rc;
	if ((rc = rename_check(s, &old, v, n)) < 0 || (rc = rk_bt__names_copy(&nm, &old)) < 0) {
		rk_bt__names_free(&old);
		return rc;
	}
	/* every to takes its from's id (read from the old row: a swap reads
	 * both before either changes); a from left without a table is empty */
	for (size_t i = 0; i < n && !rc; i++)
		rc = rk_bt__names_set(&nm, v[i].to, rk_bt__names_id(&old, v[i].from));
	for (size_t i = 0; i < n && !rc; i++) {
		int taken = 0;
		for (size_t k = 0; k < n && !taken; k++)
			taken = !strcmp(v[k].to, v[i].from);
		if (!taken)
			rc = rk_bt__names_set(&nm, v[i].from, "");
	}
	if (!rc)
		rc = rk_bt__names_write(s, &old, &nm);
	rk_bt__names_free(&old);
	rk_bt__names_free(&nm);
	return rc;
}
