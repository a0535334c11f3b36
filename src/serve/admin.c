/*
 * google.bigtable.admin.v2.BigtableTableAdmin for `rowkey serve`, on raw
 * request bytes (no gRPC here): the dispatch and the tables (CreateTable,
 * ListTables, GetTable, DeleteTable), each instance's through the catalog
 * (catalog.c). Column families and DropRowRange are in admin_families.c;
 * packing responses and a table's info, which both use, in admin_pack.c.
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

static int split_cmp(const void *a, const void *b)
{
	const rk_bytes *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->ptr, y->ptr, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The settings of a Table to create that rowkey has not: refused by name
 * (UNIMPLEMENTED), a granularity that is not milliseconds INVALID_ARGUMENT. */
static int table_options(const Rkbt__Table *t, rk_sv_status *st)
{
	const char *what = !t                            ? NULL
	                   : t->deletion_protection       ? "deletion_protection"
	                   : t->change_stream_config.len   ? "change_stream_config"
	                   : t->automated_backup_policy.len ? "automated_backup_policy"
	                   : t->row_key_schema.len         ? "row_key_schema"
	                                                    : NULL;
	if (what)
		return rk_sv__fail(st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
		                   "table.%s: not implemented by rowkey serve", what);
	if (t && t->granularity != RKBT__TABLE__TIMESTAMP_GRANULARITY__TIMESTAMP_GRANULARITY_UNSPECIFIED &&
	    t->granularity != RKBT__TABLE__TIMESTAMP_GRANULARITY__MILLIS)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "table.granularity: %d is not a granularity (MILLIS is the one)",
		                   (int)t->granularity);
	return 0;
}

static int create_table(const rk_sv_env *env, const Rkbt__CreateTableRequest *r, uint8_t **resp,
                        size_t *len, rk_sv_status *st)
{
	int rc = rk_sv__instance_name(env, r->parent, "parent", st);
	if (rc || (rc = table_options(r->table, st)) != 0)
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
		if (!rk_sv__family_name_ok(e->key)) {
			rc = rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                 "table.column_families: family name '%.100s' is not 1..%u "
			                 "bytes of [-_.a-zA-Z0-9]",
			                 e->key, RK_MAX_FAMILY_LEN);
			goto out;
		}
		if ((rc = rk_sv__family_def(&fams[i], &rules[i], e->key, e->value, "table.column_families",
		                     st)) != 0)
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
	if ((rc = rk_sv__table_info(&all, &nall, &one, env, &ref, &tn, st)) == 0)
		rc = rk_sv__pack_table(resp, len, tn.inst, tn.id, one, 0, st);
out:
	rk_table_info_free(all, nall);
	for (size_t i = 0; rules && i < nf; i++)
		free(rules[i]);
	free(rules);
	free(fams);
	free(splits);
	return rc;
}

/* Whether `view` answers names only (dflt_name_only: what unspecified
 * means for the call); -1 with st set for a view rowkey has not. */
static int view_name_only(int view, int dflt_name_only, rk_sv_status *st)
{
	switch (view) {
	case RKBT__TABLE__VIEW__VIEW_UNSPECIFIED:
		return dflt_name_only;
	case RKBT__TABLE__VIEW__NAME_ONLY:
		return 1;
	case RKBT__TABLE__VIEW__SCHEMA_VIEW:
	case RKBT__TABLE__VIEW__FULL:
		return 0;
	case RKBT__TABLE__VIEW__REPLICATION_VIEW:
	case RKBT__TABLE__VIEW__ENCRYPTION_VIEW:
		rk_sv__fail(st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
		            "view: %s is not implemented by rowkey serve (no clusters)",
		            view == RKBT__TABLE__VIEW__REPLICATION_VIEW ? "REPLICATION_VIEW"
		                                                       : "ENCRYPTION_VIEW");
		return -1;
	default:
		rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID, "view: %d is not a view", view);
		return -1;
	}
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
	int name_only = view_name_only(r->view, 1, st);
	if (name_only < 0)
		return RK_EINVALID;
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
		if ((rc = rk_sv__pack_table(&bufs[nt], &bl, r->parent, named[i].id, info, name_only, st)))
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
		rc = rk_sv__pack(resp, len, &out.base, st);
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
	int name_only = view_name_only(r->view, 0, st);
	if (name_only < 0)
		return RK_EINVALID;
	int rc = rk_sv__table_find(&ref, &tn, env, r->name, "name", st);
	if (rc)
		return rc;
	rk_table_info *all = NULL;
	size_t n = 0;
	const rk_table_info *one;
	if ((rc = rk_sv__table_info(&all, &n, &one, env, &ref, &tn, st)) == 0)
		rc = rk_sv__pack_table(resp, len, tn.inst, tn.id, one, name_only, st);
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
	return rk_sv__pack(resp, len, &e.base, st);
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
#define call_modify_column_families_request rk_sv__modify_families
#define call_drop_row_range_request rk_sv__drop_row_range
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
