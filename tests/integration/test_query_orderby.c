/*
 * Integration test of ORDER BY and LIMIT through rk_query on the embedded
 * store: for designs that give "newest first" from the key (a reverse
 * timestamp), by reading backwards (ts ascending), across salt buckets
 * (computed from the user, or random), and designs that must sort, the rows
 * come back as a brute-force filter and sort of every stored row says (by
 * the field in the direction asked, ties in logical order: backwards when
 * the plan is read backwards), with the predicate's LIMIT and the options'
 * limit (the smaller wins); the three plan orders all occur; a query whose
 * key gives the order with LIMIT 20 reads at most 20 rows per stream, one
 * that sorts reads every match.
 * RK_TEST_LABEL_CONCURRENCY: streams run in threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rowkey/query.h>

#define NREC 2400
#define NUID 10

#include "integration/query_test_store.h"

typedef struct {
	const char *name, *schema;
	unsigned buckets; /* pre-split on one-byte bucket boundaries */
	/* the plan order of "uid = 7 ORDER BY ts DESC LIMIT 20" */
	rk_plan_order latest;
} design;

static const design designs[] = {
	{"rts", "fields uid:u64, ts:ts, n:u32; key u64(uid) u64(rts(ts)) u32(n)", 0, RK_ORDER_KEY},
	{"asc", "fields uid:u64, ts:ts, n:u32; key u64(uid) i64(ts) u32(n)", 0, RK_ORDER_REVERSE},
	{"bucketed", "fields uid:u64, ts:ts, n:u32; key bucket(8, xxh3(uid)) u64(uid) u64(rts(ts)) u32(n)", 8,
	 RK_ORDER_KEY},
	{"salted", "fields uid:u64, ts:ts, n:u32; key random(4) u64(uid) i64(ts):desc u32(n)", 4, RK_ORDER_KEY},
	{"ts_first", "fields uid:u64, ts:ts, n:u32; key u32(n) u64(uid) i64(ts)", 0, RK_ORDER_SORT},
};

typedef struct {
	uint8_t key[64], lkey[64];
	size_t len, llen;
	rk_value f[3];
} stored;

static size_t load(rk_table *t, rk_schema *s, stored *rows)
{
	rk_encoder *e;
	assert_int_equal(rk_encoder_new(&e, s, 7), 0);
	rk_mutation *m = calloc(NREC, sizeof *m);
	size_t n = 0;
	for (int i = 0; i < NREC; i++) {
		stored *r = &rows[n];
		rk_value v[3] = {{.present = 1, .v.u = rnd() % NUID}, {.present = 1, .v.i = (int64_t)(rnd() % 600)},
		                 {.present = 1, .v.u = rnd() % 5}};
		assert_int_equal(rk_key_encode(r->key, sizeof r->key, &r->len, e, v), 0);
		int dup = 0;
		for (size_t j = 0; j < n && !dup; j++)
			dup = rows[j].len == r->len && !memcmp(rows[j].key, r->key, r->len);
		if (dup)
			continue;
		assert_int_equal(rk_key_logical(r->lkey, sizeof r->lkey, &r->llen, e, r->key, r->len), 0);
		memcpy(r->f, v, sizeof v);
		m[n] = (rk_mutation){RK_MUT_PUT, r->key, r->len, "d", (const uint8_t *)"v", 1, 1, (const uint8_t *)"x", 1, 0};
		n++;
	}
	assert_int_equal(rk_table_apply(t, m, n, NULL), 0);
	free(m);
	rk_encoder_free(e);
	return n;
}

static int bytes_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}

/* the brute force's order: the field (g_field, -1: none) in its direction,
 * then the logical form and the key (backwards when g_back) */
static int g_field, g_desc, g_back;
static int brute_cmp(const void *x, const void *y)
{
	const stored *a = x, *b = y;
	if (g_field >= 0) {
		int64_t va = g_field == 1 ? a->f[1].v.i : (int64_t)a->f[g_field].v.u;
		int64_t vb = g_field == 1 ? b->f[1].v.i : (int64_t)b->f[g_field].v.u;
		if (va != vb)
			return (va < vb) != g_desc ? -1 : 1;
	}
	int c = bytes_cmp(a->lkey, a->llen, b->lkey, b->llen);
	if (!c)
		c = bytes_cmp(a->key, a->len, b->key, b->len);
	return g_back ? -c : c;
}

static int seen[4];

/* Runs `where` (limit: the options' limit, 0: none) and compares it with the
 * brute force; returns the plan's order, *read the rows it read. */
static rk_plan_order check(rk_table *t, rk_schema *s, const stored *rows, size_t n, const char *where,
                           uint64_t limit, uint64_t *read)
{
	rk_predicate *p;
	rk_plan *plan;
	if (rk_predicate_parse(&p, s, where, strlen(where)) || rk_plan_build(&plan, s, p))
		fail_msg("where '%s': %s", where, rk_error_last());
	stored *want = malloc((n + 1) * sizeof *want);
	size_t nw = 0;
	for (size_t i = 0; i < n; i++)
		if (rk_predicate_match(p, rows[i].f))
			want[nw++] = rows[i];
	size_t matches = nw;
	g_field = plan->order_field;
	g_desc = plan->order_desc;
	g_back = plan->order_by == RK_ORDER_REVERSE;
	qsort(want, nw, sizeof *want, brute_cmp);
	uint64_t lim = plan->limit && (!limit || plan->limit < limit) ? plan->limit : limit;
	if (lim && nw > lim)
		nw = lim;

	rk_query_options qo = RK_QUERY_OPTIONS_INIT;
	qo.limit = limit;
	if (plan->order_by != RK_ORDER_NONE) {
		qo.reverse = (int)(rnd() % 2); /* the ORDER BY decides */
		qo.unordered = (int)(rnd() % 2);
	}
	rk_query *q;
	if (rk_query_open(&q, t, s, plan, p, &qo))
		fail_msg("query '%s': %s", where, rk_error_last());
	rk_query_row r;
	size_t ng = 0;
	int rc;
	while ((rc = rk_query_next(&r, q)) == 0) {
		if (ng >= nw)
			fail_msg("'%s' (%s): more than %zu rows", where, plan->explain, nw);
		if (r.row->key_len != want[ng].len || memcmp(r.row->key, want[ng].key, want[ng].len))
			fail_msg("'%s' limit %llu (%s): row %zu of %zu differs", where, (unsigned long long)limit, plan->explain,
			         ng, nw);
		ng++;
	}
	if (rc != RK_EITEROVER)
		fail_msg("query '%s': %s", where, rk_error_last());
	if (ng != nw)
		fail_msg("'%s': %zu rows, want %zu", where, ng, nw);
	*read = rk_query_rows_read(q);
	if (plan->order_by == RK_ORDER_SORT && *read < matches)
		fail_msg("'%s' sorts: read %llu rows of %zu matches", where, (unsigned long long)*read, matches);
	rk_query_close(q);
	rk_plan_order o = plan->order_by;
	seen[o]++;
	free(want);
	rk_plan_free(plan);
	rk_predicate_free(p);
	return o;
}

static void random_where(char *w, size_t cap)
{
	static const char *fields[] = {"ts", "ts", "n", "uid"};
	int uid = (int)(rnd() % NUID), a = (int)(rnd() % 600), lim = 1 + (int)(rnd() % 30);
	const char *f = fields[rnd() % 4], *dir = rnd() % 2 ? "DESC" : rnd() % 2 ? "ASC" : "";
	char lt[32] = "";
	if (rnd() % 4)
		snprintf(lt, sizeof lt, " LIMIT %d", lim);
	switch (rnd() % 6) {
	case 0: snprintf(w, cap, "uid = %d ORDER BY %s %s%s", uid, f, dir, lt); break;
	case 1: snprintf(w, cap, "uid = %d AND ts >= %d ORDER BY %s %s%s", uid, a, f, dir, lt); break;
	case 2: snprintf(w, cap, "uid IN (%d, %d) ORDER BY %s %s%s", uid, (uid + 3) % NUID, f, dir, lt); break;
	case 3: snprintf(w, cap, "uid = %d AND n = %d ORDER BY %s %s%s", uid, a % 5, f, dir, lt); break;
	case 4: snprintf(w, cap, "ORDER BY %s %s%s", f, dir, lt); break;
	default: snprintf(w, cap, "uid = %d%s", uid, lt); break;
	}
}

static void test_order_by_against_brute_force(void **state)
{
	(void)state;
	stored *rows = malloc(NREC * sizeof *rows);
	for (size_t d = 0; d < sizeof designs / sizeof designs[0]; d++) {
		const design *ds = &designs[d];
		rk_schema *s;
		assert_int_equal(rk_schema_parse(&s, ds->schema, strlen(ds->schema), ds->name), 0);
		rk_family_def fam = {"d", 1, NULL};
		uint8_t sp[16];
		rk_bytes splits[16];
		for (unsigned b = 1; b < ds->buckets; b++) {
			sp[b] = (uint8_t)b;
			splits[b - 1] = (rk_bytes){&sp[b], 1};
		}
		rk_table_def def = {"t", &fam, 1, splits, ds->buckets ? ds->buckets - 1 : 0, ds->buckets ? 1 : 0};
		assert_int_equal(rk_table_create(store, &def), 0);
		rk_table *t;
		assert_int_equal(rk_table_open(&t, store, "t"), 0);
		size_t n = load(t, s, rows);
		uint64_t read;
		unsigned streams = ds->buckets > 1 && ds->latest == RK_ORDER_KEY && strstr(ds->schema, "random") ? ds->buckets : 1;

		/* the chat app's last 20 messages of a user: 20 rows read per stream */
		if (check(t, s, rows, n, "uid = 7 ORDER BY ts DESC LIMIT 20", 0, &read) != ds->latest)
			fail_msg("%s: the latest 20 are not planned %d", ds->name, ds->latest);
		if (ds->latest != RK_ORDER_SORT && read > 20 * streams)
			fail_msg("%s: LIMIT 20 read %llu rows over %u streams", ds->name, (unsigned long long)read, streams);
		check(t, s, rows, n, "uid = 7 ORDER BY ts ASC LIMIT 20", 0, &read);
		if (ds->latest != RK_ORDER_SORT && read > 20 * streams)
			fail_msg("%s: the oldest 20 read %llu rows", ds->name, (unsigned long long)read);
		/* the options' limit and the predicate's: the smaller wins */
		check(t, s, rows, n, "uid = 7 ORDER BY ts DESC LIMIT 20", 5, &read);
		check(t, s, rows, n, "uid = 7 ORDER BY ts DESC LIMIT 20", 50, &read);
		check(t, s, rows, n, "uid = 7 ORDER BY ts DESC", 9, &read);
		/* another field: every row of the user read and sorted (n first: read backwards) */
		assert_int_equal(check(t, s, rows, n, "uid = 7 ORDER BY n DESC LIMIT 15", 0, &read),
		                 ds->latest == RK_ORDER_SORT ? RK_ORDER_REVERSE : RK_ORDER_SORT);
		/* sorted gets: IN values on the user before the field */
		check(t, s, rows, n, "uid IN (2, 3) AND ts IN (10, 20, 30, 40) AND n IN (0, 1, 2, 3, 4) ORDER BY ts DESC", 0,
		      &read);
		check(t, s, rows, n, "ORDER BY ts DESC LIMIT 5", 0, &read);
		for (int k = 0; k < 40; k++) {
			char w[256];
			random_where(w, sizeof w);
			check(t, s, rows, n, w, rnd() % 5 == 0 ? 1 + rnd() % 10 : 0, &read);
		}
		rk_table_close(t);
		assert_int_equal(rk_table_drop(store, "t"), 0);
		rk_schema_free(s);
	}
	free(rows);
	/* every way of giving the order was taken */
	assert_true(seen[RK_ORDER_KEY] > 0 && seen[RK_ORDER_REVERSE] > 0 && seen[RK_ORDER_SORT] > 0 &&
	            seen[RK_ORDER_NONE] > 0);
}

static void test_order_by_unrecoverable_field(void **state)
{
	(void)state;
	const char *txt = "fields uid:u64, ts:ts; key u64(uid) i64(tbucket(ts, 100))";
	rk_schema *s;
	assert_int_equal(rk_schema_parse(&s, txt, strlen(txt), NULL), 0);
	rk_family_def fam = {"d", 1, NULL};
	rk_table_def def = {"tb", &fam, 1, NULL, 0, 0};
	assert_int_equal(rk_table_create(store, &def), 0);
	rk_table *t;
	assert_int_equal(rk_table_open(&t, store, "tb"), 0);
	rk_predicate *p;
	rk_plan *plan;
	const char *w = "uid = 1 ORDER BY ts DESC";
	assert_int_equal(rk_predicate_parse(&p, s, w, strlen(w)), 0);
	assert_int_equal(rk_plan_build(&plan, s, p), 0);
	assert_int_equal(plan->order_by, RK_ORDER_SORT);
	rk_query *q = NULL;
	assert_int_equal(rk_query_open(&q, t, s, plan, p, NULL), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "ORDER BY 'ts': its value cannot be recovered"));
	assert_null(q);
	rk_plan_free(plan);
	rk_predicate_free(p);
	rk_table_close(t);
	rk_schema_free(s);
}

int main(void)
{
	rs = 0x2545f4914f6cdd1dULL;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_by_against_brute_force),
		cmocka_unit_test(test_order_by_unrecoverable_field),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
