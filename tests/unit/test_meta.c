/*
 * The meta map (src/store/local/meta.c): encode/decode round trip, region
 * lookup, and hostile META images: every truncation and every flipped byte
 * is RK_ECORRUPT, and well-checksummed files that break an invariant (gap,
 * overlap, bad server, bad name) are rejected naming the table and region.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/local/crc.h"
#include "store/local/meta.h"
#include "store/cell.h"

static rk__tmeta *add_table(rk__meta *m, const char *name, const char **splits, size_t n)
{
	rk__tmeta *t = calloc(1, sizeof *t);
	assert_non_null(t);
	t->id = m->next_table_id++;
	strcpy(t->name, name);
	t->families = calloc(2, sizeof *t->families);
	strcpy(t->families[0].name, "a");
	t->families[0].name_len = 1;
	t->families[0].max_versions = 1;
	strcpy(t->families[1].name, "b");
	t->families[1].name_len = 1;
	t->families[1].max_versions = 5;
	t->nfamilies = 2;
	t->bucket_prefix_len = 1;
	t->regions = calloc(n + 1, sizeof *t->regions);
	for (size_t i = 0; i <= n; i++) {
		const char *s = i ? splits[i - 1] : NULL, *e = i < n ? splits[i] : NULL;
		t->regions[i] = rk_meta__region_new(m, t, m->next_region_id++, (const uint8_t *)s,
		                                    s ? strlen(s) : 0, (const uint8_t *)e,
		                                    e ? strlen(e) : 0, (unsigned)(i % m->n_servers));
		assert_non_null(t->regions[i]);
	}
	t->nregions = n + 1;
	assert_int_equal(rk_meta__table_add(m, t), 0);
	return t;
}

static void build(rk__meta *m)
{
	static const char *s1[] = {"b", "d", "f"};
	static const char *s2[] = {"m"};
	rk_meta__init(m, 3);
	rk__tmeta *u = add_table(m, "users", s1, 3);
	add_table(m, "events", s2, 1);
	add_table(m, "empty", NULL, 0);
	assert_int_equal(rk_meta__prop_set(&m->props, "split_threshold", "1048576", 7), 0);
	assert_int_equal(rk_meta__prop_set(&m->props, "a.later.key", "", 0), 0);
	assert_int_equal(rk_meta__prop_set(&u->props, "schema", "fields a:u64; key a", 19), 0);
}

static void test_roundtrip_and_lookup(void **state)
{
	(void)state;
	rk__meta m, back;
	uint8_t *buf;
	size_t len;
	build(&m);
	assert_int_equal(rk_meta__encode(&buf, &len, &m), 0);
	rk_meta__init(&back, 1);
	assert_int_equal(rk_meta__decode(&back, buf, len, "META"), 0);
	assert_int_equal(back.n_servers, 3);
	assert_int_equal(back.ntables, 3);
	assert_string_equal(back.tables[0]->name, "empty"); /* sorted by name */
	rk__tmeta *u = rk_meta__table(&back, "users");
	assert_non_null(u);
	assert_int_equal(u->nregions, 4);
	assert_int_equal(u->bucket_prefix_len, 1);
	assert_int_equal(u->families[1].max_versions, 5);
	assert_ptr_equal(rk_meta__lookup(u, (const uint8_t *)"a", 1), u->regions[0]);
	assert_ptr_equal(rk_meta__lookup(u, (const uint8_t *)"b", 1), u->regions[1]);
	assert_ptr_equal(rk_meta__lookup(u, (const uint8_t *)"c\xff", 2), u->regions[1]);
	assert_ptr_equal(rk_meta__lookup(u, (const uint8_t *)"d", 1), u->regions[2]);
	assert_ptr_equal(rk_meta__lookup(u, (const uint8_t *)"zzz", 3), u->regions[3]);
	assert_ptr_equal(rk_meta__region(&back, u->regions[2]->id), u->regions[2]);
	/* settings come back, store-wide and per table */
	const uint8_t *v;
	size_t vl;
	uint64_t x = 7;
	assert_int_equal(rk_meta__prop_u64(&back.props, "split_threshold", &x), 0);
	assert_int_equal(x, 1048576);
	assert_int_equal(rk_meta__prop_get(&back.props, "a.later.key", &v, &vl), 0);
	assert_int_equal(vl, 0);
	assert_int_equal(rk_meta__prop_get(&u->props, "schema", &v, &vl), 0);
	assert_string_equal((const char *)v, "fields a:u64; key a");
	assert_int_equal(rk_meta__prop_get(&rk_meta__table(&back, "events")->props, "schema", &v, &vl),
	                 RK_ENOTFOUND);
	/* re-encoding gives the same bytes */
	uint8_t *buf2;
	size_t len2;
	assert_int_equal(rk_meta__encode(&buf2, &len2, &back), 0);
	assert_int_equal(len, len2);
	assert_memory_equal(buf, buf2, len);
	free(buf2);
	free(buf);
	rk_meta__fini(&m);
	rk_meta__fini(&back);
}

static void test_hostile_bytes(void **state)
{
	(void)state;
	rk__meta m;
	uint8_t *buf;
	size_t len;
	build(&m);
	assert_int_equal(rk_meta__encode(&buf, &len, &m), 0);
	for (size_t cut = 0; cut < len; cut++) {
		rk__meta x;
		rk_meta__init(&x, 1);
		assert_int_equal(rk_meta__decode(&x, buf, cut, "META"), RK_ECORRUPT);
		rk_meta__fini(&x);
	}
	for (size_t i = 0; i < len; i++) {
		rk__meta x;
		rk_meta__init(&x, 1);
		buf[i] ^= 0x20;
		assert_int_equal(rk_meta__decode(&x, buf, len, "META"), RK_ECORRUPT);
		assert_non_null(strstr(rk_error_last(), "META"));
		buf[i] ^= 0x20;
		rk_meta__fini(&x);
	}
	free(buf);
	rk_meta__fini(&m);
}

/* Encodes m after `mutate` broke it and expects a decode error naming `want`. */
static void expect_rejected(void (*mutate)(rk__meta *), const char *want)
{
	rk__meta m, x;
	uint8_t *buf;
	size_t len;
	build(&m);
	mutate(&m);
	assert_int_equal(rk_meta__encode(&buf, &len, &m), 0);
	rk_meta__init(&x, 1);
	assert_int_equal(rk_meta__decode(&x, buf, len, "META"), RK_ECORRUPT);
	if (!strstr(rk_error_last(), want))
		fail_msg("message '%s' does not name '%s'", rk_error_last(), want);
	free(buf);
	rk_meta__fini(&x);
	rk_meta__fini(&m);
}

static void gap(rk__meta *m)
{
	rk__tmeta *t = rk_meta__table(m, "users");
	t->regions[1]->end[0] = 'c'; /* [b, c) then [d, ...): a gap */
}

static void overlap(rk__meta *m)
{
	rk__tmeta *t = rk_meta__table(m, "users");
	t->regions[1]->end[0] = 'e'; /* [b, e) then [d, ...) */
}

static void bad_server(rk__meta *m)
{
	rk_meta__table(m, "events")->regions[1]->server = 7;
}

static void bad_name(rk__meta *m)
{
	rk_meta__table(m, "events")->families[0].name[0] = ' ';
}

/* "a\0" on disk: a C string would read "a", and re-encode to other bytes */
static void nul_in_name(rk__meta *m)
{
	rk_meta__table(m, "events")->families[0].name_len = 2;
}

static void first_not_empty(rk__meta *m)
{
	rk__tmeta *t = rk_meta__table(m, "events");
	t->regions[0]->start = realloc(t->regions[0]->start, 2);
	t->regions[0]->start[0] = 'a';
	t->regions[0]->start_len = 1;
}

static void dup_region_id(rk__meta *m)
{
	rk_meta__table(m, "events")->regions[1]->id = rk_meta__table(m, "users")->regions[0]->id;
}

static void test_invariants(void **state)
{
	(void)state;
	expect_rejected(gap, "gap");
	expect_rejected(overlap, "overlap");
	expect_rejected(bad_server, "server 7");
	expect_rejected(bad_name, "family");
	expect_rejected(nul_in_name, "bad family 0");
	expect_rejected(first_not_empty, "events");
	expect_rejected(dup_region_id, "region id");
}

/* settings broken after they were set: the decoder must refuse them */
static void prop_out_of_order(rk__meta *m)
{
	strcpy(m->props.v[0].key, "zzz"); /* now after split_threshold */
}

static void prop_bad_key(rk__meta *m)
{
	strcpy(rk_meta__table(m, "users")->props.v[0].key, "Schema");
}

static void prop_oversize(rk__meta *m)
{
	rk__prop *p = &rk_meta__table(m, "users")->props.v[0];
	p->val = realloc(p->val, RK__PROP_VAL_MAX + 1);
	memset(p->val, 'x', RK__PROP_VAL_MAX + 1);
	p->len = RK__PROP_VAL_MAX + 1;
}

static void test_props(void **state)
{
	(void)state;
	rk__props p = {0};
	const uint8_t *v;
	size_t vl;
	uint64_t x = 5;
	expect_rejected(prop_out_of_order, "out of order");
	expect_rejected(prop_bad_key, "table users: bad setting key");
	expect_rejected(prop_oversize, "table users: setting schema has 65537 bytes");
	assert_int_equal(rk_meta__prop_set(&p, "Bad", "1", 1), RK_EINVALID);
	assert_int_equal(rk_meta__prop_set(&p, "", "1", 1), RK_EINVALID);
	assert_int_equal(rk_meta__prop_set(&p, "k", NULL, RK__PROP_VAL_MAX + 1), RK_EINVALID);
	assert_int_equal(rk_meta__prop_u64(&p, "n", &x), 0); /* unset: unchanged */
	assert_int_equal(x, 5);
	assert_int_equal(rk_meta__prop_set(&p, "n", "12x", 3), 0);
	assert_int_equal(rk_meta__prop_u64(&p, "n", &x), RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), "setting n"));
	assert_int_equal(rk_meta__prop_set(&p, "n", "18446744073709551616", 20), 0);
	assert_int_equal(rk_meta__prop_u64(&p, "n", &x), RK_ECORRUPT); /* 2^64 */
	assert_int_equal(rk_meta__prop_set(&p, "n", "18446744073709551615", 20), 0);
	assert_int_equal(rk_meta__prop_u64(&p, "n", &x), 0);
	assert_true(x == UINT64_MAX);
	assert_int_equal(rk_meta__prop_set(&p, "b", "2", 1), 0);
	assert_int_equal(rk_meta__prop_set(&p, "a", "1", 1), 0);
	assert_string_equal(p.v[0].key, "a"); /* kept sorted */
	assert_string_equal(p.v[2].key, "n");
	assert_int_equal(rk_meta__prop_del(&p, "b"), 0);
	assert_int_equal(rk_meta__prop_get(&p, "b", &v, &vl), RK_ENOTFOUND);
	assert_int_equal(p.n, 2);
	rk_meta__props_free(&p);
}

/* A version-1 file (written before settings existed) still opens, with no
 * settings; re-encoding writes version 2. */
static void test_reads_version_1(void **state)
{
	(void)state;
	rk__meta m, x;
	uint8_t *buf;
	size_t len;
	rk_meta__init(&m, 2);
	add_table(&m, "only", NULL, 0);
	assert_int_equal(rk_meta__encode(&buf, &len, &m), 0);
	/* drop the store's nprops (after magic, length, version, servers, table
	 * id, region id: offset 32) and the table's (just before the crc) */
	uint8_t *v1 = malloc(len);
	size_t n = 0;
	memcpy(v1, buf, 32);
	n = 32;
	memcpy(v1 + n, buf + 34, len - 34 - 6);
	n += len - 34 - 6;
	n += 4; /* crc */
	rk_cell__put_u32(v1 + 12, 1);
	rk_cell__put_u32(v1 + 8, (uint32_t)(n - 16));
	rk_cell__put_u32(v1 + n - 4, rk_crc__32(v1 + 12, n - 16));
	rk_meta__init(&x, 1);
	assert_int_equal(rk_meta__decode(&x, v1, n, "META"), 0);
	assert_int_equal(x.ntables, 1);
	assert_int_equal(x.props.n, 0);
	assert_int_equal(x.tables[0]->props.n, 0);
	uint8_t *again;
	size_t alen;
	assert_int_equal(rk_meta__encode(&again, &alen, &x), 0);
	assert_int_equal(alen, len);
	assert_memory_equal(again, buf, len);
	rk_cell__put_u32(v1 + 12, 4); /* an unknown version */
	rk_cell__put_u32(v1 + n - 4, rk_crc__32(v1 + 12, n - 16));
	rk_meta__fini(&x);
	rk_meta__init(&x, 1);
	assert_int_equal(rk_meta__decode(&x, v1, n, "META"), RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), "meta version 4"));
	free(again);
	free(v1);
	free(buf);
	rk_meta__fini(&x);
	rk_meta__fini(&m);
}

static void test_replace(void **state)
{
	(void)state;
	rk__meta m;
	build(&m);
	rk__tmeta *t = rk_meta__table(&m, "events");
	rk__region *a = rk_meta__region_new(&m, t, 100, NULL, 0, (const uint8_t *)"g", 1, 0);
	rk__region *b = rk_meta__region_new(&m, t, 101, (const uint8_t *)"g", 1, (const uint8_t *)"m",
	                                    1, 1);
	rk__region *pair[2] = {a, b};
	m.next_region_id = 200;
	assert_int_equal(rk_meta__replace(t, 0, pair, 2), 0);
	assert_int_equal(t->nregions, 3);
	assert_int_equal(rk_meta__validate_table(&m, t), 0);
	assert_ptr_equal(rk_meta__lookup(t, (const uint8_t *)"h", 1), b);
	rk_meta__fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_and_lookup),
		cmocka_unit_test(test_hostile_bytes),
		cmocka_unit_test(test_invariants),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_props),
		cmocka_unit_test(test_reads_version_1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
