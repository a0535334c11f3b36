/*
 * google.bigtable.admin.v2.BigtableTableAdmin for `rowkey serve`: tables and
 * column families of the store, on raw request bytes (no gRPC here).
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

/* The family definition for a GcRule (NULL: keep every version), its rule
 * in *rule (free() it). INVALID_ARGUMENT naming the rule when Bigtable
 * would refuse it. */
static int family_def(rk_family_def *def, rk_gc_rule **rule, const char *name,
                      const Rkbt__GcRule *r, const char *field, rk_sv_status *st)
{
	char path[200];
	snprintf(path, sizeof path, "%s: column family %.80s: gc_rule", field, name);
	*rule = NULL;
	if (rk_bt__gc_from_pb(rule, r, path))
		return rk_sv__from_store(st, RK_EINVALID, "gc_rule");
	*def = (rk_family_def){name, 1, *rule};
	return 0;
}

/* A family name: 1..64 bytes of [-_.a-zA-Z0-9] (Bigtable's and the store's). */
static int fam_ok(const char *s)
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

/* Packs any message into a malloc'd buffer. */
static int pack(uint8_t **resp, size_t *len, const ProtobufCMessage *m, rk_sv_status *st)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *b = malloc(n ? n : 1);
	if (!b)
		return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
	protobuf_c_message_pack(m, b);
	*resp = b;
	*len = n;
	return 0;
}

/* Packs a Table message for `info`, table `id` of instance `inst` (families
 * unless name_only). */
static int pack_table(uint8_t **resp, size_t *len, const char *inst, const char *id,
                      const rk_table_info *info, int name_only, rk_sv_status *st)
{
	char name[RK_SV_MAX_INSTANCE + RK_MAX_TABLE_NAME_LEN + 16];
	snprintf(name, sizeof name, "%s/tables/%s", inst, id);
	Rkbt__Table t = RKBT__TABLE__INIT;
	t.name = name;
	t.granularity = RKBT__TABLE__TIMESTAMP_GRANULARITY__MILLIS;
	size_t nf = name_only ? 0 : info->nfamilies;
	Rkbt__Table__ColumnFamiliesEntry *ents = calloc(nf ? nf : 1, sizeof *ents);
	Rkbt__Table__ColumnFamiliesEntry **ep = calloc(nf ? nf : 1, sizeof *ep);
	Rkbt__ColumnFamily *cfs = calloc(nf ? nf : 1, sizeof *cfs);
	Rkbt__GcRule **gcs = calloc(nf ? nf : 1, sizeof *gcs);
	int rc = 0;
	if (!ents || !ep || !cfs || !gcs) {
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nf && !rc; i++) {
		const rk_family_def *f = &info->families[i];
		rk_gc_rule versions = {f->max_versions == UINT32_MAX ? RK_GC_NONE : RK_GC_VERSIONS,
		                       f->max_versions, 0, NULL, 0};
		rkbt__table__column_families_entry__init(&ents[i]);
		rkbt__column_family__init(&cfs[i]);
		if (rk_bt__gc_to_pb(&gcs[i], f->gc ? f->gc : &versions))
			rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
		cfs[i].gc_rule = gcs[i];
		ents[i].key = (char *)info->families[i].name;
		ents[i].value = &cfs[i];
		ep[i] = &ents[i];
	}
	t.n_column_families = nf;
	t.column_families = ep;
	if (!rc)
		rc = pack(resp, len, &t.base, st);
out:
	for (size_t i = 0; gcs && i < nf; i++)
		rk_bt__gc_pb_free(gcs[i]);
	free(ents);
	free(ep);
	free(cfs);
	free(gcs);
	return rc;
}

/* The info of the table ref found (table `id` of instance `inst`), from
 * rk_table_list (caller frees *all). */
static int table_info(rk_table_info **all, size_t *n, const rk_table_info **one,
                      const rk_sv_env *env, const rk_sv_ref *ref, const rk_sv_tname *tn,
                      rk_sv_status *st)
{
	int rc = rk_table_list(all, n, env->store);
	if (rc)
		return rk_sv__from_store(st, rc, "listing tables");
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*all)[i].name, ref->store) == 0 && rk_sv__catalog_still(env->catalog, ref)) {
			*one = &(*all)[i];
			return 0;
		}
	return rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND, "table %s/tables/%s not found",
	                   tn->inst, tn->id);
}

static int split_cmp(const void *a, const void *b)
{
	const rk_bytes *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->ptr, y->ptr, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int create_table(const rk_sv_env *env, const Rkbt__CreateTableRequest *r, uint8_t **resp,
                        size_t *len, rk_sv_status *st)
{
	int rc = rk_sv__instance_name(env, r->parent, "parent", st);
	if (rc)
		return rc;
	if (!rk_sv__id_ok(r->table_id, strlen(r->table_id), 50))
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "table_id: '%.100s' is not [_a-zA-Z0-9][-_.a-zA-Z0-9]* of 1..50 "
		                   "bytes",
		                   r->table_id);
	size_t nf = r->table ? r->table->n_column_families : 0;
	rk_family_def *fams = calloc(nf ? nf : 1, sizeof *fams);
	rk_gc_rule **rules = calloc(nf ? nf : 1, sizeof *rules);
	rk_bytes *splits = calloc(r->n_initial_splits ? r->n_initial_splits : 1, sizeof *splits);
	rk_table_info *all = NULL;
	size_t nall = 0;
	if (!fams || !rules || !splits) {
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nf; i++) {
		const Rkbt__Table__ColumnFamiliesEntry *e = r->table->column_families[i];
		if (!fam_ok(e->key)) {
			rc = rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                 "table.column_families: family name '%.100s' is not 1..%u "
			                 "bytes of [-_.a-zA-Z0-9]",
			                 e->key, RK_MAX_FAMILY_LEN);
			goto out;
		}
		if ((rc = family_def(&fams[i], &rules[i], e->key, e->value ? e->value->gc_rule : NULL,
		                     "table.column_families", st)) != 0)
			goto out;
	}
	size_t ns = 0;
	for (size_t i = 0; i < r->n_initial_splits; i++) {
		const Rkbt__CreateTableRequest__Split *sp = r->initial_splits[i];
		if (!sp || sp->key.len == 0) {
			rc = rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                 "initial_splits[%zu]: empty split key", i);
			goto out;
		}
		if (sp->key.len > RK_SV_MAX_ROW_KEY) {
			rc = rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                 "initial_splits[%zu]: %zu bytes (row keys are at most %u)", i,
			                 sp->key.len, RK_SV_MAX_ROW_KEY);
			goto out;
		}
		splits[ns++] = (rk_bytes){sp->key.data, sp->key.len};
	}
	/* Bigtable takes splits in any order, duplicates once */
	qsort(splits, ns, sizeof *splits, split_cmp);
	size_t w = 0;
	for (size_t i = 0; i < ns; i++)
		if (!w || split_cmp(&splits[w - 1], &splits[i]) != 0)
			splits[w++] = splits[i];
	rk_table_def def = {NULL, fams, nf, splits, w, 0};
	rk_sv_ref ref;
	if ((rc = rk_sv__catalog_create(&ref, env->catalog, r->parent, r->table_id, &def)) != 0) {
		if (rc == RK_EEXISTS)
			rc = rk_sv__fail(st, RK_SV_ALREADY_EXISTS, rc, "%s", rk_error_last());
		else
			rc = rk_sv__from_store(st, rc, "CreateTable");
		goto out;
	}
	rk_sv_tname tn;
	snprintf(tn.inst, sizeof tn.inst, "%s", r->parent);
	snprintf(tn.id, sizeof tn.id, "%s", r->table_id);
	const rk_table_info *one;
	if ((rc = table_info(&all, &nall, &one, env, &ref, &tn, st)) == 0)
		rc = pack_table(resp, len, tn.inst, tn.id, one, 0, st);
out:
	rk_table_info_free(all, nall);
	for (size_t i = 0; rules && i < nf; i++)
		free(rules[i]);
	free(rules);
	free(fams);
	free(splits);
	return rc;
}

static int view_name_only(int view, int dflt_name_only)
{
	if (view == RKBT__TABLE__VIEW__VIEW_UNSPECIFIED)
		return dflt_name_only;
	return view == RKBT__TABLE__VIEW__NAME_ONLY;
}

/* The store's info for the table listed as `named`, or NULL (dropped
 * since it was listed). */
static const rk_table_info *info_of(const rk_table_info *all, size_t n, const rk_sv_named *named)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(all[i].name, named->store) == 0)
			return &all[i];
	return NULL;
}

/* A page of the instance's tables in the order of their ids: page_token is
 * the id the page starts at (the next_page_token this server gave). */
static int list_tables(const rk_sv_env *env, const Rkbt__ListTablesRequest *r, uint8_t **resp,
                       size_t *len, rk_sv_status *st)
{
	int rc = rk_sv__instance_name(env, r->parent, "parent", st);
	if (rc)
		return rc;
	if (r->page_size < 0)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "page_size: must not be negative (got %d)", r->page_size);
	if (*r->page_token && !rk_sv__id_ok(r->page_token, strlen(r->page_token),
	                                    RK_MAX_TABLE_NAME_LEN))
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "page_token: '%.100s' is not a token this server gave",
		                   r->page_token);
	rk_sv_named *named = NULL;
	rk_table_info *all = NULL;
	size_t nn = 0, n = 0;
	if ((rc = rk_sv__catalog_list(&named, &nn, env->catalog, r->parent)) != 0 ||
	    (rc = rk_table_list(&all, &n, env->store)) != 0) {
		free(named);
		return rk_sv__from_store(st, rc, "ListTables");
	}
	size_t from = 0;
	while (from < nn && strcmp(named[from].id, r->page_token) < 0)
		from++;
	size_t max = r->page_size > 0 ? (size_t)r->page_size : nn;
	int name_only = view_name_only(r->view, 1);
	Rkbt__ListTablesResponse out = RKBT__LIST_TABLES_RESPONSE__INIT;
	Rkbt__Table **tabs = calloc(nn ? nn : 1, sizeof *tabs);
	uint8_t **bufs = calloc(nn ? nn : 1, sizeof *bufs);
	size_t nt = 0, i = from;
	if (!tabs || !bufs)
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
	/* each table packed alone, then unpacked into the list: one way to
	 * build a Table, the one GetTable uses */
	for (; !rc && i < nn && nt < max; i++) {
		const rk_table_info *info = info_of(all, n, &named[i]);
		size_t bl;
		if (!info)
			continue;
		if ((rc = pack_table(&bufs[nt], &bl, r->parent, named[i].id, info, name_only, st)))
			break;
		if (!(tabs[nt] = rkbt__table__unpack(NULL, bl, bufs[nt])))
			rc = rk_sv__fail(st, RK_SV_INTERNAL, RK_ENOMEM, "out of memory");
		else
			nt++;
	}
	if (!rc) {
		out.n_tables = nt;
		out.tables = tabs;
		if (i < nn)
			out.next_page_token = named[i].id;
		rc = pack(resp, len, &out.base, st);
	}
	for (size_t k = 0; tabs && k <= nt && k < nn; k++) {
		if (tabs[k])
			rkbt__table__free_unpacked(tabs[k], NULL);
		free(bufs ? bufs[k] : NULL);
	}
	free(tabs);
	free(bufs);
	free(named);
	rk_table_info_free(all, n);
	return rc;
}

static int get_table(const rk_sv_env *env, const Rkbt__GetTableRequest *r, uint8_t **resp,
                     size_t *len, rk_sv_status *st)
{
	rk_sv_tname tn;
	rk_sv_ref ref;
	int rc = rk_sv__table_find(&ref, &tn, env, r->name, "name", st);
	if (rc)
		return rc;
	rk_table_info *all = NULL;
	size_t n = 0;
	const rk_table_info *one;
	if ((rc = table_info(&all, &n, &one, env, &ref, &tn, st)) == 0)
		rc = pack_table(resp, len, tn.inst, tn.id, one, view_name_only(r->view, 0), st);
	rk_table_info_free(all, n);
	return rc;
}

static int delete_table(const rk_sv_env *env, const Rkbt__DeleteTableRequest *r,
                        uint8_t **resp, size_t *len, rk_sv_status *st)
{
	rk_sv_tname tn;
	int rc = rk_sv__table_name(&tn, env, r->name, "name", st);
	if (rc)
		return rc;
	rc = rk_sv__catalog_drop(env->catalog, tn.inst, tn.id);
	if (rc == RK_ENOTFOUND)
		return rk_sv__fail(st, RK_SV_NOT_FOUND, rc, "table %s/tables/%s not found", tn.inst,
		                   tn.id);
	if (rc)
		return rk_sv__from_store(st, rc, "DeleteTable");
	Rkbt__Empty e = RKBT__EMPTY__INIT;
	return pack(resp, len, &e.base, st);
}

static int modify_families(const rk_sv_env *env, const Rkbt__ModifyColumnFamiliesRequest *r,
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
	if ((rc = table_info(&all, &n, &one, env, &ref, &tn, st)) != 0)
		goto out;
	rk_family_def *defs = calloc(r->n_modifications, sizeof *defs);
	rk_gc_rule **rules = calloc(r->n_modifications, sizeof *rules);
	int *drop = calloc(r->n_modifications, sizeof *drop);
	if (!defs || !rules || !drop) {
		free(defs);
		free(rules);
		free(drop);
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
		goto out;
	}
	/* check every modification before applying any */
	for (size_t i = 0; i < r->n_modifications && !rc; i++) {
		const Rkbt__ModifyColumnFamiliesRequest__Modification *m = r->modifications[i];
		int exists = 0;
		for (size_t f = 0; f < one->nfamilies; f++)
			exists |= strcmp(one->families[f].name, m->id) == 0;
		if (!fam_ok(m->id)) {
			rc = rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                 "modifications[%zu].id: '%.100s' is not 1..%u bytes of "
			                 "[-_.a-zA-Z0-9]",
			                 i, m->id, RK_MAX_FAMILY_LEN);
			break;
		}
		defs[i].name = m->id;
		switch (m->mod_case) {
		case RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_CREATE:
			if (exists)
				rc = rk_sv__fail(st, RK_SV_ALREADY_EXISTS, RK_EEXISTS,
				                 "modifications[%zu]: column family %s already exists", i,
				                 m->id);
			else
				rc = family_def(&defs[i], &rules[i], m->id,
				                m->create ? m->create->gc_rule : NULL, "modifications", st);
			break;
		case RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_UPDATE:
			if (!exists) {
				rc = rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND,
				                 "modifications[%zu]: column family %s not found", i, m->id);
				break;
			}
			for (size_t p = 0; m->update_mask && p < m->update_mask->n_paths && !rc; p++)
				if (strcmp(m->update_mask->paths[p], "gc_rule") != 0)
					rc = rk_sv__fail(st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
					                 "modifications[%zu].update_mask: path '%.100s' is not "
					                 "supported (only gc_rule)",
					                 i, m->update_mask->paths[p]);
			if (!rc)
				rc = family_def(&defs[i], &rules[i], m->id,
				                m->update ? m->update->gc_rule : NULL, "modifications", st);
			break;
		case RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_DROP:
			if (!m->drop)
				rc = rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
				                 "modifications[%zu].drop: must be true", i);
			else if (!exists)
				rc = rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND,
				                 "modifications[%zu]: column family %s not found", i, m->id);
			drop[i] = 1;
			break;
		default:
			rc = rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                 "modifications[%zu]: one of create, update or drop is needed", i);
		}
	}
	if (!rc) {
		rk_sv__table_block(env->tables, ref.store);
		if (!rk_sv__catalog_still(env->catalog, &ref)) /* dropped meanwhile */
			rc = rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND, "table %s not found",
			                 r->name);
		for (size_t i = 0; i < r->n_modifications && !rc; i++) {
			rc = drop[i] ? rk_table_family_drop(env->store, ref.store, defs[i].name)
			             : rk_table_family_set(env->store, ref.store, &defs[i]);
			if (rc)
				rk_sv__from_store(st, rc, "ModifyColumnFamilies");
		}
		rk_sv__table_unblock(env->tables, ref.store);
	}
	for (size_t i = 0; rules && i < r->n_modifications; i++)
		free(rules[i]);
	free(rules);
	free(drop);
	free(defs);
	if (!rc) {
		rk_table_info_free(all, n);
		all = NULL;
		n = 0;
		if ((rc = table_info(&all, &n, &one, env, &ref, &tn, st)) == 0)
			rc = pack_table(resp, len, tn.inst, tn.id, one, 0, st);
	}
out:
	rk_table_info_free(all, n);
	return rc;
}

/* Deletes the rows of the table (all, or those under a prefix), in batches
 * of DELETE_ROW mutations as the scan goes. */
static int drop_row_range(const rk_sv_env *env, const Rkbt__DropRowRangeRequest *r,
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
	return pack(resp, len, &e.base, st);
}

int rk_sv__admin_unary(const rk_sv_env *env, const char *method, const uint8_t *req,
                       size_t len, uint8_t **resp, size_t *resp_len, rk_sv_status *st)
{
	*resp = NULL;
	*resp_len = 0;
	st->code = RK_SV_OK;
	st->msg[0] = 0;
#define CALL(NAME, type, fn)                                                                   \
	if (strcmp(method, NAME) == 0) {                                                       \
		int wrc_ = rk_sv__wire_check(&rkbt__##fn##__descriptor, req, len, st);          \
		if (wrc_)                                                                          \
			return wrc_;                                                               \
		Rkbt__##type *r = rkbt__##fn##__unpack(NULL, len, req);                         \
		if (!r)                                                                            \
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_ECORRUPT,                 \
			                   "%s: the request does not parse as " #type, NAME);     \
		int rc_ = call_##fn(env, r, resp, resp_len, st);                                   \
		rkbt__##fn##__free_unpacked(r, NULL);                                              \
		if (rc_ && st->code == RK_SV_OK)                                                   \
			rk_sv__fail(st, RK_SV_INTERNAL, rc_, "%s failed", NAME);                       \
		return rc_;                                                                        \
	}
#define call_create_table_request create_table
#define call_list_tables_request list_tables
#define call_get_table_request get_table
#define call_delete_table_request delete_table
#define call_modify_column_families_request modify_families
#define call_drop_row_range_request drop_row_range
	CALL("CreateTable", CreateTableRequest, create_table_request)
	CALL("ListTables", ListTablesRequest, list_tables_request)
	CALL("GetTable", GetTableRequest, get_table_request)
	CALL("DeleteTable", DeleteTableRequest, delete_table_request)
	CALL("ModifyColumnFamilies", ModifyColumnFamiliesRequest, modify_column_families_request)
	CALL("DropRowRange", DropRowRangeRequest, drop_row_range_request)
#undef CALL
	return rk_sv__fail(st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
	                   "google.bigtable.admin.v2.BigtableTableAdmin/%.100s is not implemented "
	                   "by rowkey serve",
	                   method);
}
