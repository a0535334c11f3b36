/*
 * The Bigtable backend's atomic row operations (bt_store.h): store
 * mutations mapped as rk_table_apply maps them (bt_apply.c) onto one
 * CheckAndMutateRow, and read-modify-write rules onto ReadModifyWriteRow.
 * The service makes them atomic; its clock stamps a read-modify-write (the
 * store's `ts` does not reach it), and a predicate sees the versions it has
 * not collected yet.
 */
#include <stdlib.h>

#include "store/bigtable/bt_store.h"

/* The Bigtable mutations of m[0..n), those with nothing to send left out. */
static int map_all(rk_bt_mutation **out, size_t *count, const bt_table *t,
                   const rk_mutation *m, size_t n, uint64_t now_us)
{
	rk_bt_mutation *v = calloc(n ? n : 1, sizeof *v);
	size_t k = 0;
	if (!v)
		return rk__err(RK_ENOMEM, "table %s: out of memory for %zu mutations", t->base.name, n);
	for (size_t i = 0; i < n; i++) {
		int skip, rc = rk_bt__map_mutation(&v[k], &skip, t, &m[i], i, now_us);
		if (rc) {
			free(v);
			return rc;
		}
		k += !skip;
	}
	*out = v;
	*count = k;
	return 0;
}

int rk_bt__check_and_mutate(int *matched, rk_table *tb, const uint8_t *row, size_t len,
                            const struct rk__filter *pred, const rk_filter *pred_src,
                            const rk_mutation *if_true, size_t ntrue,
                            const rk_mutation *if_false, size_t nfalse)
{
	(void)pred; /* the service runs the predicate */
	bt_table *t = (bt_table *)tb;
	uint64_t now = (uint64_t)rk_bt__now_micros();
	rk_bt_mutation *yes = NULL, *no = NULL;
	size_t ny = 0, nn = 0;
	int rc = map_all(&yes, &ny, t, if_true, ntrue, now);
	if (!rc)
		rc = map_all(&no, &nn, t, if_false, nfalse, now);
	if (!rc)
		rc = rk_bt__check_and_mutate_row(matched, t->s->c, t->id, row, len, pred_src, yes,
		                                 ny, no, nn);
	if (rc < 0)
		rc = rk__err_wrap(rc, "%s", t->s->uri);
	free(yes);
	free(no);
	return rc;
}

int rk_bt__read_modify_write(rk_row **out, rk_table *tb, const uint8_t *row, size_t len,
                             const rk_rmw_rule *rules, size_t n, uint64_t ts)
{
	(void)ts; /* the service's clock stamps the new cells */
	bt_table *t = (bt_table *)tb;
	int rc = rk_bt__read_modify_write_row(out, t->s->c, t->id, row, len, rules, n);
	return rc < 0 ? rk__err_wrap(rc, "%s", t->s->uri) : 0;
}
