/*
 * Check-and-mutate, as HBase's RowResource does it: PUT or POST
 * /TABLE/ROW?check=put|delete with a CellSet of one Row whose last Cell is
 * the check (its column and the value the column's newest version must
 * hold) and whose other Cells are the mutation:
 *
 *   check=put     the other cells are puts, one of them to the checked
 *                 column (HBase refuses a check on a column it does not
 *                 put); at least two cells.
 *   check=delete  the other cells are deletes: "family:qualifier" one
 *                 version (its timestamp) or, without one, every version;
 *                 "family" the family's versions up to the timestamp (or
 *                 all). The check alone deletes its column.
 *
 * 200 when the check held and the mutation was applied, 304 Not Modified
 * when it did not (nothing written). An empty check value holds when the
 * column has no version or an empty newest one (HBase's ifEquals with no
 * value). The read and the writes are one rk_table_check_and_mutate, so no
 * other write to the row comes between them.
 *
 * ?check=append and ?check=increment are refused (400): the store's
 * read-modify-write is Bigtable's, with other number and return rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve/hbase/hbase_int.h"

/* "the newest version of family:qual is v" (nonempty: "...is not empty",
 * whose failure is the check's success) */
static void predicate(rk_filter f[4], const rk_mutation *c, int nonempty)
{
	rk_filter_bound q = {RK_BOUND_CLOSED, c->qualifier, c->qualifier_len};
	memset(f, 0, 4 * sizeof *f);
	f[1] = (rk_filter){.kind = RK_FILTER_COLUMN_RANGE, .family = c->family, .lo = q, .hi = q};
	f[2] = (rk_filter){.kind = RK_FILTER_COLUMN_LIMIT, .n = 1};
	f[3].kind = RK_FILTER_VALUE_RANGE;
	if (nonempty) {
		f[3].lo = (rk_filter_bound){RK_BOUND_OPEN, (const uint8_t *)"", 0};
	} else {
		f[3].lo = (rk_filter_bound){RK_BOUND_CLOSED, c->value, c->value_len};
		f[3].hi = f[3].lo;
	}
	f[0] = (rk_filter){.kind = RK_FILTER_CHAIN, .kids = &f[1], .nkids = 3};
}

/* the cells before the check as deletes (in place) */
static void deletes(rk_mutation *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t ms_end = m[i].ts ? m[i].ts + 999 : RK_TS_MAX;
		if (!m[i].qualifier) {
			m[i].type = RK_MUT_DELETE_FAMILY;
			m[i].ts_from = 0;
		} else {
			m[i].type = RK_MUT_DELETE_COLUMN;
			m[i].ts_from = m[i].ts; /* one millisecond's versions, or from the first */
		}
		m[i].ts = ms_end;
		m[i].value = NULL;
		m[i].value_len = 0;
	}
}

static const uint8_t empty[1];

int rk_hb__check(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, const char *check,
                 rk_hb_resp *r)
{
	int put = !strcasecmp(check, "put"), del = !strcasecmp(check, "delete");
	if (!put && !del)
		return rk_hb__fail(r, 400, "Bad request: ?check=%.20s: %s", check,
		                   !strcasecmp(check, "append") || !strcasecmp(check, "increment")
		                           ? "not supported (put and delete are)"
		                           : "not put or delete");
	if (rk_hb__ctype_is(q->ctype, "application/octet-stream"))
		return rk_hb__fail(r, 400, "Bad request: a check-and-%s takes a CellSet, not a raw "
		                           "value", check);
	rk_hb_body b;
	rk_hb_puts o;
	char err[256];
	if (rk_hb__body(&b, q, RK_HB_M_CELLSET, r))
		return r->status;
	int st = rk_hb__cellset_parse(&o, b.p, b.len, p, RK_HB_CELLS_NO_VALUE, err, sizeof err);
	free(b.owned);
	if (st)
		return rk_hb__fail(r, st, "%s", err);
	rk_mutation *c = &o.m[o.n - 1], del_one;
	if (o.nrows != 1)
		st = rk_hb__fail(r, 400, "Bad request: Number of rows specified is not 1.");
	else if (put && o.n < 2)
		st = rk_hb__fail(r, 400, "Bad request: a check-and-put needs a cell to put and the "
		                         "check, last");
	else if (put && (!c->qualifier || !c->qualifier_len))
		st = rk_hb__fail(r, 400, "Bad request: Column incorrectly specified (the check's "
		                         "column is family:qualifier)");
	if (st)
		goto out;
	if (!c->qualifier) { /* "family": its empty qualifier, as HBase reads it */
		c->qualifier = empty;
		c->qualifier_len = 0;
	}
	if (put) {
		size_t i = 0;
		while (i < o.n - 1 && !(o.m[i].qualifier && !strcmp(o.m[i].family, c->family) &&
		                        o.m[i].qualifier_len == c->qualifier_len &&
		                        !memcmp(o.m[i].qualifier, c->qualifier, c->qualifier_len)))
			i++;
		if (i == o.n - 1) {
			st = rk_hb__fail(r, 400, "Bad request: The column to put and check do not match.");
			goto out;
		}
	} else if (o.n > 1) {
		deletes(o.m, o.n - 1);
	} else { /* the check alone: its column goes */
		del_one = *c;
		deletes(&del_one, 1);
		del_one.ts_from = 0;
		del_one.ts = RK_TS_MAX;
	}
	rk_filter f[4];
	int nonempty = c->value_len == 0, matched = 0;
	predicate(f, c, nonempty);
	const rk_mutation *m = del && o.n == 1 ? &del_one : o.m;
	size_t n = del && o.n == 1 ? 1 : o.n - 1;
	rk_table *t;
	if (rk_hb__acquire(&t, h, p->table, r)) {
		st = r->status;
		goto out;
	}
	int rc = rk_table_check_and_mutate(&matched, t, c->row, c->row_len, f,
	                                   nonempty ? NULL : m, nonempty ? 0 : n,
	                                   nonempty ? m : NULL, nonempty ? n : 0);
	rk_hb__release(h, p->table, t);
	if (rc)
		st = rk_hb__from_store(r, rc, put ? "check-and-put" : "check-and-delete");
	else if (matched == nonempty)
		st = rk_hb__fail(r, 304, put ? "Value not Modified" : "Delete check failed.");
	else
		st = rk_hb__ok(r, 200);
out:
	rk_hb__arena_free(&o.a);
	return st;
}
