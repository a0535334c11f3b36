/*
 * google.bigtable.admin.v2.BigtableTableAdmin for `rowkey serve`: column
 * families (ModifyColumnFamilies, checked whole before any of it applies)
 * and DropRowRange.
 *
 * GC rules are the store's own (rk_gc_rule: versions, age, unions and
 * intersections, nested), kept and answered as they were sent; the mapping
 * is the Bigtable backend's (store/bigtable/bt_map.h). Dropping a family
 * deletes its cells (rk_table_family_drop: a scan of the table).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_admin.pb-c.h"
#include "key/error.h"
#include "serve/serve_int.h"
#include "store/bigtable/bt_map.h"

int rk_sv__family_def(rk_family_def *def, rk_gc_rule **rule, const char *name,
                      const Rkbt__ColumnFamily *cf, const char *field, rk_sv_status *st)
{
	char path[200];
	snprintf(path, sizeof path, "%s: column family %.80s: gc_rule", field, name);
	*rule = NULL;
	if (cf && cf->value_type.len)
		return rk_sv__fail(st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
		                   "%s: column family %.80s: value_type: aggregate families are not "
		                   "implemented by rowkey serve",
		                   field, name);
	if (rk_bt__gc_from_pb(rule, cf ? cf->gc_rule : NULL, path))
		return rk_sv__from_store(st, RK_EINVALID, "gc_rule");
	*def = (rk_family_def){name, 1, *rule};
	return 0;
}

int rk_sv__family_name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > RK_MAX_FAMILY_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

/* A ModifyColumnFamilies checked whole before any of it applies: each
 * modification's family definition (a drop: drop[i] set). */
typedef struct mods {
	rk_family_def *defs;
	rk_gc_rule **rules;
	int *drop;
	size_t n;
} mods;

static void mods_free(mods *m)
{
	for (size_t i = 0; m->rules && i < m->n; i++)
		free(m->rules[i]);
	free(m->rules);
	free(m->drop);
	free(m->defs);
}

/* Checks modification i against the table's families `one`. */
static int check_mod(mods *out, size_t i, const Rkbt__ModifyColumnFamiliesRequest__Modification *m,
                     const rk_table_info *one, rk_sv_status *st)
{
	int exists = 0, rc = 0;
	for (size_t f = 0; f < one->nfamilies; f++)
		exists |= strcmp(one->families[f].name, m->id) == 0;
	if (!rk_sv__family_name_ok(m->id))
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "modifications[%zu].id: '%.100s' is not 1..%u bytes of "
		                   "[-_.a-zA-Z0-9]",
		                   i, m->id, RK_MAX_FAMILY_LEN);
	out->defs[i].name = m->id;
	switch (m->mod_case) {
	case RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_CREATE:
		if (exists)
			return rk_sv__fail(st, RK_SV_ALREADY_EXISTS, RK_EEXISTS,
			                   "modifications[%zu]: column family %s already exists", i, m->id);
		return rk_sv__family_def(&out->defs[i], &out->rules[i], m->id, m->create,
		                         "modifications", st);
	case RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_UPDATE:
		if (!exists)
			return rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND,
			                   "modifications[%zu]: column family %s not found", i, m->id);
		for (size_t p = 0; m->update_mask && p < m->update_mask->n_paths && !rc; p++)
			if (strcmp(m->update_mask->paths[p], "gc_rule") != 0)
				rc = rk_sv__fail(st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
				                 "modifications[%zu].update_mask: path '%.100s' is not "
				                 "supported (only gc_rule)",
				                 i, m->update_mask->paths[p]);
		return rc ? rc
		          : rk_sv__family_def(&out->defs[i], &out->rules[i], m->id, m->update,
		                              "modifications", st);
	case RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_DROP:
		out->drop[i] = 1;
		if (!m->drop)
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                   "modifications[%zu].drop: must be true", i);
		if (!exists)
			return rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND,
			                   "modifications[%zu]: column family %s not found", i, m->id);
		return 0;
	default:
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "modifications[%zu]: one of create, update or drop is needed", i);
	}
}

/* Applies the checked modifications to the table ref found, with no handle
 * on it open (the store refuses family changes while handles are open). */
static int apply_mods(const rk_sv_env *env, const rk_sv_ref *ref, const mods *m,
                      const char *name, rk_sv_status *st)
{
	int rc = 0;
	rk_sv__table_block(env->tables, ref->store);
	if (!rk_sv__catalog_still(env->catalog, ref)) /* dropped meanwhile */
		rc = rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND, "table %s not found", name);
	for (size_t i = 0; i < m->n && !rc; i++) {
		rc = m->drop[i] ? rk_table_family_drop(env->store, ref->store, m->defs[i].name)
		                : rk_table_family_set(env->store, ref->store, &m->defs[i]);
		if (rc)
			rk_sv__from_store(st, rc, "ModifyColumnFamilies");
	}
	rk_sv__table_unblock(env->tables, ref->store);
	return rc;
}

int rk_sv__modify_families(const rk_sv_env *env, const Rkbt__ModifyColumnFamiliesRequest *r,
                           uint8_t **resp, size_t *len, rk_sv_status *st)
{
	rk_sv_tname tn;
	rk_sv_ref ref;
	int rc = rk_sv__table_find(&ref, &tn, env, r->name, "name", st);
	if (rc)
		return rc;
	if (r->n_modifications == 0)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "modifications: at least one is needed");
	rk_table_info *all = NULL;
	size_t n = 0;
	const rk_table_info *one;
	if ((rc = rk_sv__table_info(&all, &n, &one, env, &ref, &tn, st)) != 0)
		return rc;
	size_t nm = r->n_modifications;
	mods m = {calloc(nm, sizeof *m.defs), calloc(nm, sizeof *m.rules), calloc(nm, sizeof *m.drop),
	          nm};
	if (!m.defs || !m.rules || !m.drop)
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
	for (size_t i = 0; i < nm && !rc; i++)
		rc = check_mod(&m, i, r->modifications[i], one, st);
	if (!rc)
		rc = apply_mods(env, &ref, &m, r->name, st);
	mods_free(&m);
	rk_table_info_free(all, n);
	all = NULL;
	n = 0;
	if (!rc && (rc = rk_sv__table_info(&all, &n, &one, env, &ref, &tn, st)) == 0)
		rc = rk_sv__pack_table(resp, len, tn.inst, tn.id, one, 0, st);
	rk_table_info_free(all, n);
	return rc;
}

/* Deletes the rows of the table (all, or those under a prefix), in batches
 * of DELETE_ROW mutations as the scan goes. */
int rk_sv__drop_row_range(const rk_sv_env *env, const Rkbt__DropRowRangeRequest *r,
                          uint8_t **resp, size_t *len, rk_sv_status *st)
{
	if (r->target_case == RKBT__DROP_ROW_RANGE_REQUEST__TARGET_ROW_KEY_PREFIX) {
		if (r->row_key_prefix.len == 0)
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                   "row_key_prefix: empty (use delete_all_data_from_table)");
	} else if (r->target_case != RKBT__DROP_ROW_RANGE_REQUEST__TARGET_DELETE_ALL_DATA_FROM_TABLE ||
	           !r->delete_all_data_from_table) {
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "target: row_key_prefix or delete_all_data_from_table is needed");
	}
	rk_table *t;
	char store[RK_MAX_TABLE_NAME_LEN + 1];
	int rc = rk_sv__open_table(&t, store, env, r->name, "name", st);
	if (rc)
		return rc;
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	if (r->target_case == RKBT__DROP_ROW_RANGE_REQUEST__TARGET_ROW_KEY_PREFIX) {
		so.prefix = r->row_key_prefix.data;
		so.prefix_len = r->row_key_prefix.len;
	}
	enum { BATCH = 512 };
	rk_mutation *muts = calloc(BATCH, sizeof *muts);
	uint8_t **keys = calloc(BATCH, sizeof *keys);
	rk_scan *sc = NULL;
	size_t nm = 0;
	if (!muts || !keys) {
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = rk_scan_open(&sc, t, &so)) != 0) {
		rk_sv__from_store(st, rc, "DropRowRange");
		goto out;
	}
	for (;;) {
		const rk_row *row;
		rc = rk_scan_next(&row, sc);
		if (rc == 0) {
			if (!(keys[nm] = malloc(row->key_len))) {
				rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
				break;
			}
			memcpy(keys[nm], row->key, row->key_len);
			muts[nm] = (rk_mutation){RK_MUT_DELETE_ROW, keys[nm], row->key_len, NULL, NULL,
			                         0, 0, NULL, 0, 0};
			nm++;
		} else if (rc != RK_EITEROVER) {
			rk_sv__from_store(st, rc, "DropRowRange");
			break;
		}
		if (nm == BATCH || (rc == RK_EITEROVER && nm)) {
			int arc = rk_table_apply(t, muts, nm, NULL);
			for (size_t i = 0; i < nm; i++)
				free(keys[i]);
			nm = 0;
			if (arc) {
				rc = rk_sv__from_store(st, arc, "DropRowRange");
				break;
			}
		}
		if (rc == RK_EITEROVER) {
			rc = 0;
			break;
		}
	}
out:
	for (size_t i = 0; keys && i < nm; i++)
		free(keys[i]);
	rk_scan_close(sc);
	free(muts);
	free(keys);
	rk_sv__table_release(env->tables, store, t);
	if (rc)
		return rc;
	Rkbt__Empty e = RKBT__EMPTY__INIT;
	return rk_sv__pack(resp, len, &e.base, st);
}
