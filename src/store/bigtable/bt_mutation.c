/*
 * Bigtable mutations as messages: rk_bt_mutation (bt_client.h) packed into
 * the Rkbt__Mutation messages a MutateRows entry carries (bt_write.c), and
 * the branches of a CheckAndMutateRow (the backend's bt_atomic.c). Checked
 * here, once: a family, whole-millisecond timestamps, a non-empty range.
 */
#include "store/bigtable/bt_int.h"

#include <stdlib.h>
#include <string.h>

#include "bt_data.pb-c.h"
#include "key/error.h"

static int check_ts(const char *who, int64_t ts, const char *what)
{
	if (ts < 0 || ts % 1000 != 0)
		return rk__err(RK_EINVALID,
		               "%s: %s %lld is not a whole number of milliseconds in microseconds "
		               "(Bigtable tables keep millisecond granularity)",
		               who, what, (long long)ts);
	return 0;
}

/* The messages' memory, in one allocation. */
typedef union pbsub {
	Rkbt__Mutation__SetCell set;
	Rkbt__Mutation__DeleteFromColumn col;
	Rkbt__Mutation__DeleteFromFamily fam;
	Rkbt__Mutation__DeleteFromRow row;
} pbsub;

typedef struct pbmem {
	Rkbt__Mutation *m;
	Rkbt__Mutation **mp;
	pbsub *sub;
	Rkbt__TimestampRange *tr;
} pbmem;

static void *pb_alloc(pbmem *p, size_t n)
{
	size_t a = n * sizeof *p->m, b = n * sizeof *p->mp, c = n * sizeof *p->sub;
	char *mem = calloc(1, a + b + c + n * sizeof *p->tr + 1);
	if (!mem)
		return NULL;
	p->m = (Rkbt__Mutation *)mem;
	p->mp = (Rkbt__Mutation **)(mem + a);
	p->sub = (pbsub *)(mem + a + b);
	p->tr = (Rkbt__TimestampRange *)(mem + a + b + c);
	return mem;
}

/* Mutation i (u) into p's slots. */
static int pack_one(pbmem *p, size_t i, const rk_bt_mutation *u, int64_t *now, const char *who)
{
	Rkbt__Mutation *m = &p->m[i];
	pbsub *sub = &p->sub[i];
	switch (u->kind) {
	case RK_BT_SET_CELL: {
		int64_t ts = u->ts_micros;
		if (ts == RK_BT_TS_NOW) {
			if (*now == RK_BT_TS_NOW)
				*now = rk_bt__now_micros();
			ts = *now;
		}
		int rc = check_ts(who, ts, "timestamp");
		if (rc < 0)
			return rc;
		rkbt__mutation__set_cell__init(&sub->set);
		sub->set.family_name = (char *)u->family;
		sub->set.column_qualifier.data = (uint8_t *)u->qualifier;
		sub->set.column_qualifier.len = u->qualifier_len;
		sub->set.timestamp_micros = ts;
		sub->set.value.data = (uint8_t *)u->value;
		sub->set.value.len = u->value_len;
		m->mutation_case = RKBT__MUTATION__MUTATION_SET_CELL;
		m->set_cell = &sub->set;
		return 0;
	}
	case RK_BT_DELETE_COLUMN: {
		int rc;
		if ((rc = check_ts(who, u->ts_micros, "delete range start")) < 0 ||
		    (rc = check_ts(who, u->ts_end_micros, "delete range end")) < 0)
			return rc;
		if (u->ts_end_micros && u->ts_end_micros <= u->ts_micros)
			return rk__err(RK_EINVALID, "%s: empty delete range [%lld, %lld)", who,
			               (long long)u->ts_micros, (long long)u->ts_end_micros);
		rkbt__mutation__delete_from_column__init(&sub->col);
		sub->col.family_name = (char *)u->family;
		sub->col.column_qualifier.data = (uint8_t *)u->qualifier;
		sub->col.column_qualifier.len = u->qualifier_len;
		if (u->ts_micros || u->ts_end_micros) {
			rkbt__timestamp_range__init(&p->tr[i]);
			p->tr[i].start_timestamp_micros = u->ts_micros;
			p->tr[i].end_timestamp_micros = u->ts_end_micros;
			sub->col.time_range = &p->tr[i];
		}
		m->mutation_case = RKBT__MUTATION__MUTATION_DELETE_FROM_COLUMN;
		m->delete_from_column = &sub->col;
		return 0;
	}
	case RK_BT_DELETE_FAMILY:
		rkbt__mutation__delete_from_family__init(&sub->fam);
		sub->fam.family_name = (char *)u->family;
		m->mutation_case = RKBT__MUTATION__MUTATION_DELETE_FROM_FAMILY;
		m->delete_from_family = &sub->fam;
		return 0;
	case RK_BT_DELETE_ROW:
		rkbt__mutation__delete_from_row__init(&sub->row);
		m->mutation_case = RKBT__MUTATION__MUTATION_DELETE_FROM_ROW;
		m->delete_from_row = &sub->row;
		return 0;
	default:
		return rk__err(RK_EINVALID, "%s: mutation %zu has unknown kind %d", who, i, u->kind);
	}
}

int rk_bt__pack_mutations(Rkbt__Mutation ***mp, void **mem, const rk_bt_mutation *muts,
                          size_t n, const char *who, const uint8_t *row, size_t row_len)
{
	pbmem p;
	char kb[200];
	*mp = NULL;
	if (!(*mem = pb_alloc(&p, n)))
		return rk__err(RK_ENOMEM, "%s: out of memory", who);
	int64_t now = RK_BT_TS_NOW;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const rk_bt_mutation *u = &muts[i];
		rkbt__mutation__init(&p.m[i]);
		p.mp[i] = &p.m[i];
		if (u->kind != RK_BT_DELETE_ROW && (!u->family || !*u->family))
			rc = rk__err(RK_EINVALID, "%s: row '%s': mutation %zu has no family", who,
			             rk__err_bytes(kb, sizeof kb, row, row_len), i);
		else
			rc = pack_one(&p, i, u, &now, who);
	}
	if (rc) {
		free(*mem);
		*mem = NULL;
		return rc;
	}
	*mp = p.mp;
	return 0;
}
