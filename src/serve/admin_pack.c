/*
 * What the BigtableTableAdmin calls of `rowkey serve` (admin.c: the tables,
 * admin_families.c: column families and DropRowRange) share, below both:
 * packing a response message, packing a Table with its families and GC
 * rules (mapped by the Bigtable backend's store/bigtable/bt_map.h), and the
 * store's info on one table.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_admin.pb-c.h"
#include "key/error.h"
#include "serve/serve_int.h"
#include "store/bigtable/bt_map.h"

int rk_sv__pack(uint8_t **resp, size_t *len, const ProtobufCMessage *m, rk_sv_status *st)
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

int rk_sv__pack_table(uint8_t **resp, size_t *len, const char *inst, const char *id,
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
		rc = rk_sv__pack(resp, len, &t.base, st);
out:
	for (size_t i = 0; gcs && i < nf; i++)
		rk_bt__gc_pb_free(gcs[i]);
	free(ents);
	free(ep);
	free(cfs);
	free(gcs);
	return rc;
}

int rk_sv__table_info(rk_table_info **all, size_t *n, const rk_table_info **one,
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
