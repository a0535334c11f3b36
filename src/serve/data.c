/*
 * google.bigtable.v2.Bigtable for `rowkey serve`, on raw request bytes: the
 * dispatch (each request's shape checked before it is decoded: wire.c),
 * the helpers the calls share, and SampleRowKeys. The responses go to a
 * sink (server.c sends them on the call; tests and the fuzz target collect
 * them). The writing calls are in data_write.c, ReadRows in data_read.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/error.h"
#include "serve/serve_int.h"
#include "store/bigtable/bt_map.h"

/* ---- shared by the calls ---- */

int rk_sv__send(const rk_sv_sink *sink, const ProtobufCMessage *m, rk_sv_status *st)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *b = malloc(n ? n : 1);
	if (!b)
		return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
	protobuf_c_message_pack(m, b);
	int rc = sink->send(sink->arg, b, n);
	free(b);
	if (rc)
		return rk_sv__fail(st, RK_SV_CANCELLED, RK_EIO, "the client went away");
	return 0;
}

int rk_sv__open_table(rk_table **t, char *store, const rk_sv_env *env, const char *name,
                      const char *field, rk_sv_status *st)
{
	rk_sv_tname tn;
	rk_sv_ref ref;
	int rc = rk_sv__table_find(&ref, &tn, env, name, field, st);
	if (rc)
		return rc;
	if ((rc = rk_sv__table_acquire(t, env->tables, ref.store)) != 0) {
		if (rc == RK_ENOTFOUND)
			return rk_sv__fail(st, RK_SV_NOT_FOUND, rc, "table %.300s not found", name);
		return rk_sv__from_store(st, rc, "opening the table");
	}
	/* dropped (and its store name taken again) while it was opened */
	if (!rk_sv__catalog_still(env->catalog, &ref)) {
		rk_sv__table_release(env->tables, ref.store, *t);
		*t = NULL;
		return rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND, "table %.300s not found", name);
	}
	memcpy(store, ref.store, sizeof ref.store);
	return 0;
}

int rk_sv__no_views(const char *authorized, const char *materialized, rk_sv_status *st)
{
	if (authorized && *authorized)
		return rk_sv__fail(st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
		                   "authorized_view_name: authorized views are not implemented by "
		                   "rowkey serve (name the table in table_name)");
	if (materialized && *materialized)
		return rk_sv__fail(st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
		                   "materialized_view_name: materialized views are not implemented "
		                   "by rowkey serve");
	return 0;
}

int rk_sv__check_row_key(const ProtobufCBinaryData *k, const char *field, rk_sv_status *st)
{
	if (k->len == 0)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID, "%s: empty row key",
		                   field);
	if (k->len > RK_SV_MAX_ROW_KEY)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s: row key of %zu bytes (at most %u)", field, k->len,
		                   RK_SV_MAX_ROW_KEY);
	return 0;
}

/* What Bigtable refuses in a filter the store would take (the emulator, which
 * answers as the service, refuses it too, and the official clients never
 * send it): a chain or interleave of fewer than two filters (the clients
 * fold them into the one filter, or into pass-all when there is none), and
 * a cells-per-row or cells-per-column limit of 0. Run on a filter the store
 * has taken, so its depth is bounded. */
static int filter_bigtable_takes(const Rkbt__RowFilter *f, const char *p, rk_sv_status *st)
{
	char kp[512];
	if (!f)
		return 0;
	switch (f->filter_case) {
	case RKBT__ROW_FILTER__FILTER_CHAIN:
	case RKBT__ROW_FILTER__FILTER_INTERLEAVE: {
		int chain = f->filter_case == RKBT__ROW_FILTER__FILTER_CHAIN;
		const char *what = chain ? "chain" : "interleave";
		size_t n = chain ? f->chain->n_filters : f->interleave->n_filters;
		Rkbt__RowFilter *const *k = chain ? f->chain->filters : f->interleave->filters;
		if (n < 2)
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                   "%s.%s: %zu filter%s (at least two: a single filter is "
			                   "sent alone)", p, what, n, n == 1 ? "" : "s");
		for (size_t i = 0; i < n; i++) {
			snprintf(kp, sizeof kp, "%.400s.%s.filters[%zu]", p, what, i);
			if (filter_bigtable_takes(k[i], kp, st))
				return RK_EINVALID;
		}
		return 0;
	}
	case RKBT__ROW_FILTER__FILTER_CONDITION: {
		const Rkbt__RowFilter__Condition *c = f->condition;
		snprintf(kp, sizeof kp, "%.400s.condition.predicate_filter", p);
		if (filter_bigtable_takes(c->predicate_filter, kp, st))
			return RK_EINVALID;
		snprintf(kp, sizeof kp, "%.400s.condition.true_filter", p);
		if (filter_bigtable_takes(c->true_filter, kp, st))
			return RK_EINVALID;
		snprintf(kp, sizeof kp, "%.400s.condition.false_filter", p);
		return filter_bigtable_takes(c->false_filter, kp, st);
	}
	case RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_LIMIT_FILTER:
		if (f->cells_per_row_limit_filter == 0)
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                   "%s.cells_per_row_limit_filter: must be > 0", p);
		return 0;
	case RKBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER:
		if (f->cells_per_column_limit_filter == 0)
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                   "%s.cells_per_column_limit_filter: must be > 0", p);
		return 0;
	default:
		return 0;
	}
}

int rk_sv__filter(rk_filter **out, const Rkbt__RowFilter *f, const char *path,
                  rk_sv_status *st)
{
	int unsupported;
	int rc = rk_bt__filter_from_pb(out, &unsupported, f, path);
	if (rc)
		return rk_sv__fail(st, unsupported ? RK_SV_UNIMPLEMENTED : RK_SV_INVALID_ARGUMENT, rc,
		                   "%s%s", rk_error_last(),
		                   unsupported ? " by rowkey serve" : "");
	if ((rc = filter_bigtable_takes(f, path, st)) != 0) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* ---- SampleRowKeys: the real region boundaries ---- */

static int region_cmp(const void *a, const void *b)
{
	const rk_region_info *x = a, *y = b;
	return rk__bytes_cmp(x->start, x->start_len, y->start, y->start_len);
}

static int sample_row_keys(const rk_sv_env *env, const Rkbt__SampleRowKeysRequest *r,
                           const rk_sv_sink *sink, rk_sv_status *st)
{
	rk_sv_tname tn;
	rk_sv_ref ref;
	int rc = rk_sv__no_views(r->authorized_view_name, r->materialized_view_name, st);
	if (rc || (rc = rk_sv__table_find(&ref, &tn, env, r->table_name, "table_name", st)) != 0)
		return rc;
	rk_region_info *regs;
	size_t n;
	if ((rc = rk_store_regions(&regs, &n, env->store, ref.store)) != 0 ||
	    !rk_sv__catalog_still(env->catalog, &ref)) {
		if (!rc)
			rk_region_info_free(regs, n);
		if (!rc || rc == RK_ENOTFOUND)
			return rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND, "table %.300s not found",
			                   r->table_name);
		return rk_sv__from_store(st, rc, "listing regions");
	}
	qsort(regs, n, sizeof *regs, region_cmp);
	uint64_t off = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		off += regs[i].size_bytes;
		Rkbt__SampleRowKeysResponse s = RKBT__SAMPLE_ROW_KEYS_RESPONSE__INIT;
		if (regs[i].end) { /* the last sample is the empty key: the table's end */
			s.row_key.data = regs[i].end;
			s.row_key.len = regs[i].end_len;
		}
		s.offset_bytes = (int64_t)off;
		rc = rk_sv__send(sink, &s.base, st);
	}
	rk_region_info_free(regs, n);
	return rc;
}

/* ---- PingAndWarm: the instance named is this server's ---- */

static int ping_and_warm(const rk_sv_env *env, const Rkbt__PingAndWarmRequest *r,
                         const rk_sv_sink *sink, rk_sv_status *st)
{
	int rc = rk_sv__instance_name(env, r->name, "name", st);
	if (rc)
		return rc;
	static const uint8_t none[1]; /* PingAndWarmResponse is empty */
	if (sink->send(sink->arg, none, 0))
		return rk_sv__fail(st, RK_SV_CANCELLED, RK_EIO, "the client went away");
	return 0;
}

/* ---- dispatch ---- */

int rk_sv__data_call(const rk_sv_env *env, const char *method, const uint8_t *req, size_t len,
                     const rk_sv_sink *sink, rk_sv_status *st)
{
	st->code = RK_SV_OK;
	st->msg[0] = 0;
#define CALL(NAME, type, fn, handler)                                                          \
	if (strcmp(method, NAME) == 0) {                                                       \
		int wrc_ = rk_sv__wire_check(&rkbt__##fn##__descriptor, req, len, st);          \
		if (wrc_)                                                                          \
			return wrc_;                                                               \
		Rkbt__##type *r = rkbt__##fn##__unpack(NULL, len, req);                         \
		if (!r)                                                                            \
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_ECORRUPT,                 \
			                   "%s: the request does not parse as " #type, NAME);     \
		int rc_ = handler(env, r, sink, st);                                               \
		rkbt__##fn##__free_unpacked(r, NULL);                                              \
		if (rc_ && st->code == RK_SV_OK)                                                   \
			rk_sv__fail(st, RK_SV_INTERNAL, rc_, "%s failed", NAME);                       \
		return rc_;                                                                        \
	}
	CALL("ReadRows", ReadRowsRequest, read_rows_request, rk_sv__read_rows)
	CALL("MutateRow", MutateRowRequest, mutate_row_request, rk_sv__mutate_row)
	CALL("MutateRows", MutateRowsRequest, mutate_rows_request, rk_sv__mutate_rows)
	CALL("CheckAndMutateRow", CheckAndMutateRowRequest, check_and_mutate_row_request,
	     rk_sv__check_and_mutate)
	CALL("ReadModifyWriteRow", ReadModifyWriteRowRequest, read_modify_write_row_request,
	     rk_sv__read_modify_write)
	CALL("SampleRowKeys", SampleRowKeysRequest, sample_row_keys_request, sample_row_keys)
	CALL("PingAndWarm", PingAndWarmRequest, ping_and_warm_request, ping_and_warm)
#undef CALL
	return rk_sv__fail(st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
	                   "google.bigtable.v2.Bigtable/%.100s is not implemented by rowkey serve",
	                   method);
}
