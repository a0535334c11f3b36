/*
 * Integration test of planning + ordered scatter-gather reads (query.h) on
 * the embedded store: for generated data under designs among the techniques
 * (salted, hash-bucketed, Phoenix-salted, reverse timestamps, descending and
 * escaped fields) and random predicates, the rows a query returns equal a
 * brute-force filter of all rows, in the same order (logical order: the key
 * without its bucket prefix), with LIMIT, reverse, unordered reads, empty
 * buckets, ties across buckets, and a region split in the middle of a scan.
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

#define NREC 1500

#include "integration/query_test_store.h"

typedef struct {
	uint8_t key[64];
	size_t len;
} stored_key;

typedef struct {
	const char *name;
	const char *schema;
	unsigned buckets; /* pre-split on one-byte bucket boundaries */
	int empty_bucket; /* leave one bucket without rows */
} design;

static const design designs[] = {
	{"salted", "fields uid:u32, ts:ts, name:str; key random(4) u32(uid) i64(ts) esc(name)", 4, 0},
	{"bucketed_rts", "fields uid:u32, ts:ts, name:str; key bucket(8, xxh3(uid)) u32(uid) u64(rts(ts)) esc(name)", 8, 1},
	{"phoenix", "fields uid:u32, ts:ts, name:str; key phoenix_salt(4) phoenix(uid) phoenix(ts) phoenix(name)", 4, 0},
	{"plain_desc", "fields uid:u32, ts:ts, name:str; key u32(uid) i64(ts):desc esc(name)", 0, 0},
	{"roundrobin_text", "fields uid:u32, ts:ts, name:str; key roundrobin(3) esc(name) u32(uid) i64(ts)", 3, 0},
};

static const char *names[] = {"ann", "bob", "bo", "carl", "", "b\x01z"};

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}

static size_t g_prefix;
static int g_reverse;
static int logical_cmp(const void *x, const void *y)
{
	const stored_key *a = x, *b = y;
	size_t p = g_prefix;
	int c = key_cmp(a->key + p, a->len - p, b->key + p, b->len - p);
	if (!c)
		c = key_cmp(a->key, a->len, b->key, b->len);
	return g_reverse ? -c : c;
}

/* Loads NREC records; returns the stored keys (distinct). */
static size_t load(rk_table *t, const design *d, rk_schema *s, stored_key *keys)
{
	rk_encoder *e;
	assert_int_equal(rk_encoder_new(&e, s, 42), 0);
	size_t n = 0;
	rk_mutation *m = calloc(NREC, sizeof *m);
	for (int i = 0; i < NREC; i++) {
		rk_value v[3] = {{.present = 1}, {.present = 1}, {.present = 1}};
		v[0].v.u = (uint32_t)(rnd() % 25);
		v[1].v.i = (int64_t)(rnd() % 1000);
		const char *nm = names[rnd() % 6];
		v[2].v.s.ptr = (const uint8_t *)nm;
		v[2].v.s.len = strlen(nm);
		if (i % 50 == 0) /* ties: the same fields again (salts put them in other buckets) */
			v[0].v.u = 3, v[1].v.i = 500, v[2].v.s.ptr = (const uint8_t *)"bob", v[2].v.s.len = 3;
		stored_key k;
		assert_int_equal(rk_key_encode(k.key, sizeof k.key, &k.len, e, v), 0);
		if (d->empty_bucket && k.key[0] == 5)
			continue; /* bucket 5 stays empty */
		int dup = 0;
		for (size_t j = 0; j < n && !dup; j++)
			dup = keys[j].len == k.len && !memcmp(keys[j].key, k.key, k.len);
		if (dup)
			continue;
		keys[n] = k;
		m[n] = (rk_mutation){RK_MUT_PUT, keys[n].key, keys[n].len, "d", (const uint8_t *)"v", 1, 1,
		                     (const uint8_t *)"x", 1, 0};
		n++;
	}
	assert_int_equal(rk_table_apply(t, m, n, NULL), 0);
	free(m);
	rk_encoder_free(e);
	return n;
}

static void random_where(char *w, size_t cap)
{
	int uid = (int)(rnd() % 25), a = (int)(rnd() % 1000), b = (int)(rnd() % 1000);
	if (a > b) {
		int t = a;
		a = b;
		b = t;
	}
	if (a == b)
		b = a + 1;
	switch (rnd() % 9) {
	case 0: snprintf(w, cap, "uid = %d", uid); break;
	case 1: snprintf(w, cap, "uid = %d AND ts BETWEEN %d AND %d", uid, a, b); break;
	case 2: snprintf(w, cap, "uid IN (%d, %d, 3) AND ts >= %d", uid, (uid + 7) % 25, a); break;
	case 3: snprintf(w, cap, "ts > %d AND ts < %d", a, b); break;
	case 4: snprintf(w, cap, "name PREFIX 'bo'"); break;
	case 5: snprintf(w, cap, "uid = %d AND ts = %d AND name = 'bob'", uid, a); break;
	case 6: snprintf(w, cap, "uid >= %d AND uid <= %d", uid, uid + 3); break;
	case 7: snprintf(w, cap, "uid = 3 AND ts = 500 AND name = 'bob'"); break;
	default: snprintf(w, cap, "%s", ""); break;
	}
}

static void check_query(rk_table *t, rk_schema *s, const stored_key *keys, size_t n, const char *where,
                        uint64_t limit, int reverse, int unordered, int split_midway)
{
	rk_predicate *p;
	rk_plan *plan;
	if (rk_predicate_parse(&p, s, where, strlen(where)) || rk_plan_build(&plan, s, p))
		fail_msg("where '%s': %s", where, rk_error_last());
	/* brute force: decode every stored key, filter, order */
	rk_encoder *e;
	assert_int_equal(rk_encoder_new(&e, s, 1), 0);
	stored_key *want = malloc((n + 1) * sizeof *want);
	size_t nw = 0;
	rk_value f[3];
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(rk_key_decode(f, e, keys[i].key, keys[i].len), 0);
		if (rk_predicate_match(p, f))
			want[nw++] = keys[i];
	}
	g_prefix = plan->merge || plan->kind == RK_PLAN_GETS ? plan->prefix_len : 0;
	g_reverse = reverse;
	qsort(want, nw, sizeof *want, logical_cmp);
	if (limit && nw > limit)
		nw = limit;

	rk_query_options qo = RK_QUERY_OPTIONS_INIT;
	qo.limit = limit;
	qo.reverse = reverse;
	qo.unordered = unordered;
	rk_query *q;
	if (rk_query_open(&q, t, s, plan, p, &qo))
		fail_msg("query '%s': %s", where, rk_error_last());
	stored_key *got = malloc((n + 1) * sizeof *got);
	size_t ng = 0;
	rk_query_row r;
	int rc;
	while ((rc = rk_query_next(&r, q)) == 0) {
		assert_true(ng < n + 1);
		memcpy(got[ng].key, r.row->key, r.row->key_len);
		got[ng].len = r.row->key_len;
		ng++;
		if (split_midway && ng == 3) {
			/* split the region holding the next wanted row while streams are open */
			rk_region_info *ri;
			size_t nr;
			assert_int_equal(rk_store_regions(&ri, &nr, store, "t"), 0);
			for (size_t k = 0; k < nr; k++) {
				const stored_key *mid = &want[nw / 2];
				int in = key_cmp(mid->key, mid->len, ri[k].start, ri[k].start_len) > 0 &&
				         (!ri[k].end || key_cmp(mid->key, mid->len, ri[k].end, ri[k].end_len) < 0);
				if (in) {
					int src = rk_region_split(store, ri[k].id, mid->key, mid->len);
					assert_true(src == 0 || src == RK_EINVALID);
					break;
				}
			}
			rk_region_info_free(ri, nr);
		}
	}
	if (rc != RK_EITEROVER)
		fail_msg("query '%s': %s", where, rk_error_last());
	rk_query_close(q);
	if (unordered) { /* the same set */
		g_prefix = 0;
		g_reverse = 0;
		qsort(got, ng, sizeof *got, logical_cmp);
		qsort(want, nw, sizeof *want, logical_cmp);
	}
	if (ng != nw)
		fail_msg("where '%s' limit %llu reverse %d unordered %d: %zu rows, want %zu", where,
		         (unsigned long long)limit, reverse, unordered, ng, nw);
	for (size_t i = 0; i < nw; i++)
		if (got[i].len != want[i].len || memcmp(got[i].key, want[i].key, want[i].len))
			fail_msg("where '%s' limit %llu reverse %d: row %zu differs", where, (unsigned long long)limit,
			         reverse, i);
	free(got);
	free(want);
	rk_encoder_free(e);
	rk_plan_free(plan);
	rk_predicate_free(p);
}

static void test_queries_match_brute_force(void **state)
{
	(void)state;
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
		stored_key *keys = malloc(NREC * sizeof *keys);
		size_t n = load(t, ds, s, keys);
		for (int k = 0; k < 40; k++) {
			char w[256];
			random_where(w, sizeof w);
			uint64_t limit = rnd() % 3 == 0 ? 1 + rnd() % 12 : 0;
			check_query(t, s, keys, n, w, limit, (int)(rnd() % 4 == 0), 0, 0);
		}
		check_query(t, s, keys, n, "", 10, 0, 0, 0);       /* LIMIT after the merge */
		check_query(t, s, keys, n, "", 10, 1, 0, 0);       /* reverse merge */
		check_query(t, s, keys, n, "uid >= 2", 0, 0, 1, 0); /* unordered: same rows */
		check_query(t, s, keys, n, "", 0, 0, 0, 1);         /* a region splits mid-scan */
		rk_table_close(t);
		assert_int_equal(rk_table_drop(store, "t"), 0);
		free(keys);
		rk_schema_free(s);
	}
}

static void test_latest_first(void **state)
{
	(void)state;
	/* uid = 111 LIMIT 10 returns that user's 10 newest rows, from one range */
	const char *txt = "fields uid:u32, ts:ts; key bucket(16, xxh3(uid)) u32(uid) u64(rts(ts))";
	rk_schema *s;
	assert_int_equal(rk_schema_parse(&s, txt, strlen(txt), NULL), 0);
	rk_family_def fam = {"d", 1, NULL};
	rk_table_def def = {"latest", &fam, 1, NULL, 0, 1};
	assert_int_equal(rk_table_create(store, &def), 0);
	rk_table *t;
	assert_int_equal(rk_table_open(&t, store, "latest"), 0);
	rk_encoder *e;
	assert_int_equal(rk_encoder_new(&e, s, 1), 0);
	for (uint32_t uid = 110; uid <= 112; uid++)
		for (int ts = 1; ts <= 50; ts++) {
			rk_value v[2] = {{.present = 1, .v.u = uid}, {.present = 1, .v.i = ts * 1000}};
			uint8_t k[32];
			size_t kl;
			assert_int_equal(rk_key_encode(k, sizeof k, &kl, e, v), 0);
			assert_int_equal(rk_table_put(t, k, kl, "d", (const uint8_t *)"v", 1, 1, (const uint8_t *)"x", 1), 0);
		}
	rk_predicate *p;
	rk_plan *plan;
	assert_int_equal(rk_predicate_parse(&p, s, "uid = 111", 9), 0);
	assert_int_equal(rk_plan_build(&plan, s, p), 0);
	assert_int_equal(plan->nranges, 1);
	rk_query_options qo = RK_QUERY_OPTIONS_INIT;
	qo.limit = 10;
	rk_query *q;
	assert_int_equal(rk_query_open(&q, t, s, plan, p, &qo), 0);
	rk_query_row r;
	int64_t expect = 50000;
	int got = 0;
	while (rk_query_next(&r, q) == 0) {
		assert_true(r.fields[0].v.u == 111);
		assert_true(r.fields[1].v.i == expect);
		expect -= 1000;
		got++;
	}
	assert_int_equal(got, 10);
	assert_true(rk_query_rows_read(q) <= 10 + 64); /* never the whole user, never other users */
	rk_query_close(q);
	rk_plan_free(plan);
	rk_predicate_free(p);
	rk_encoder_free(e);
	rk_table_close(t);
	rk_schema_free(s);
}

int main(void)
{
	rs = 0x9e3779b97f4a7c15ULL;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queries_match_brute_force),
		cmocka_unit_test(test_latest_first),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
