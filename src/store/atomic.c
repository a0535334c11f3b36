/*
 * The atomic row operations of the public API (include/rowkey/store.h):
 * check-and-mutate and read-modify-write, checked here once for every
 * backend (mutations as rk_table_apply checks them, rules, the predicate
 * compiled), then run by the backend, which makes them atomic: the local
 * store in the row's region server's writer (local/atomic.c), Bigtable with
 * CheckAndMutateRow and ReadModifyWriteRow (bigtable/bt_atomic.c).
 */
#include "store/backend.h"

#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/filter.h"

static int check_row(const rk_table *t, const uint8_t *row, size_t len, const char *what)
{
	if (!row || len == 0)
		return rk__err(RK_EINVALID, "table %s: %s of an empty row key", t->name, what);
	if (len > RK_MAX_ROW_LEN)
		return rk__err(RK_ETOOLONG, "table %s: %s: row key of %zu bytes (max %u)", t->name,
		               what, len, RK_MAX_ROW_LEN);
	return 0;
}

int rk_table_check_and_mutate(int *matched, rk_table *table, const uint8_t *row,
                              size_t row_len, const rk_filter *predicate,
                              const rk_mutation *if_true, size_t ntrue,
                              const rk_mutation *if_false, size_t nfalse)
{
	int dummy;
	rk__filter *pred = NULL;
	const char *known = NULL;
	if (!matched)
		matched = &dummy;
	*matched = 0;
	int rc = check_row(table, row, row_len, "check-and-mutate");
	if (rc)
		return rc;
	if (!table->store->ops->check_and_mutate)
		return rk__err(RK_EINVALID, "table %s: the %s backend has no check-and-mutate",
		               table->name, table->store->ops->name);
	if ((ntrue && !if_true) || (nfalse && !if_false))
		return rk__err(RK_EINVALID, "table %s: check-and-mutate: a NULL list of mutations",
		               table->name);
	size_t n = ntrue + nfalse;
	rk_mutation *m = malloc((n ? n : 1) * sizeof *m);
	if (!m)
		return rk__err(RK_ENOMEM, "table %s: out of memory for %zu mutations", table->name, n);
	if (ntrue)
		memcpy(m, if_true, ntrue * sizeof *m);
	if (nfalse)
		memcpy(m + ntrue, if_false, nfalse * sizeof *m);
	uint64_t now = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		m[i].row = row;
		m[i].row_len = row_len;
		rc = rk_store__check_mutation(table, &m[i], i, &known);
		if (!rc && !m[i].ts) /* one clock value: one branch applies */
			m[i].ts = now ? now : (now = table->store->ops->clock(table->store));
	}
	if (!rc && predicate)
		rc = rk__filter_compile(&pred, predicate);
	if (!rc)
		rc = table->store->ops->check_and_mutate(matched, table, row, row_len, pred, predicate,
		                                         m, ntrue, m + ntrue, nfalse);
	rk__filter_free(pred);
	free(m);
	return rc;
}

static int check_rule(const rk_table *t, const rk_rmw_rule *r, size_t i)
{
	if (r->kind != RK_RMW_APPEND && r->kind != RK_RMW_INCREMENT)
		return rk__err(RK_EINVALID, "table %s: rule %zu: unknown kind %d", t->name, i,
		               (int)r->kind);
	if (!r->family || !rk_store__family(t, r->family, strlen(r->family)))
		return rk__err(RK_EINVALID, "table %s: rule %zu: unknown family '%s'", t->name, i,
		               r->family ? r->family : "(null)");
	if (r->qualifier_len > RK_MAX_QUALIFIER_LEN || (r->qualifier_len && !r->qualifier))
		return rk__err(RK_EINVALID, "table %s: rule %zu: qualifier of %zu bytes (max %u)",
		               t->name, i, r->qualifier_len, RK_MAX_QUALIFIER_LEN);
	if (r->kind == RK_RMW_APPEND &&
	    (r->append_len > RK_MAX_VALUE_LEN || (r->append_len && !r->append)))
		return rk__err(RK_EINVALID, "table %s: rule %zu: append of %zu bytes (max %u)",
		               t->name, i, r->append_len, RK_MAX_VALUE_LEN);
	return 0;
}

int rk_table_read_modify_write(rk_row **out, rk_table *table, const uint8_t *row,
                               size_t row_len, const rk_rmw_rule *rules, size_t n, uint64_t ts)
{
	*out = NULL;
	int rc = check_row(table, row, row_len, "read-modify-write");
	if (rc)
		return rc;
	if (!table->store->ops->read_modify_write)
		return rk__err(RK_EINVALID, "table %s: the %s backend has no read-modify-write",
		               table->name, table->store->ops->name);
	if (n == 0 || !rules)
		return rk__err(RK_EINVALID, "table %s: read-modify-write without rules", table->name);
	if (ts > RK_TS_MAX)
		return rk__err(RK_EINVALID, "table %s: read-modify-write: timestamp %llu out of range",
		               table->name, (unsigned long long)ts);
	for (size_t i = 0; i < n; i++)
		if ((rc = check_rule(table, &rules[i], i)) != 0)
			return rc;
	if (!ts)
		ts = table->store->ops->clock(table->store);
	return table->store->ops->read_modify_write(out, table, row, row_len, rules, n, ts);
}
