/*
 * Key buckets (src/store/local/keyviz_*.c): layouts, the cut of a closed
 * interval (a sequential key's bucket becomes pieces along the keys it saw,
 * a steady load keeps its layout), the merge of neighbours, the history's
 * bound and roll-up (every count kept), and the keymap over intervals with
 * their own cuts (a sequential key draws a diagonal, counts are exact).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/local/keyviz_count.h"
#include "store/local/metrics.h"

/* Times of the simulated intervals: whole seconds ahead of the clock, as a
 * batch's layout is taken at the real time, and a clock that seems to go
 * back keeps the open interval. */
static int64_t T0;

/* an 8-byte big-endian key */
static void key8(uint8_t k[8], uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		k[i] = (uint8_t)v;
}

/* writes rows [from, to) of a sequential key (row i = i * step) at time now
 * through accumulators of `batch` rows, as the write path does */
static void write_seq(rk__kvt *t, uint64_t from, uint64_t to, uint64_t step, int64_t now, size_t batch)
{
	rk__kvacc a = {0};
	for (uint64_t i = from; i < to; i++) {
		uint8_t k[8];
		key8(k, i * step);
		rk_metrics_counts c = {1, 0, 100, 0};
		rk_kvacc__row(&a, t, k, 8, &c, 0);
		rk_kvacc__row(&a, t, k, 8, &(rk_metrics_counts){0, 0, 50, 0}, 1); /* a second cell */
		if ((i - from + 1) % batch == 0)
			rk_kvacc__commit(&a, now);
	}
	rk_kvacc__commit(&a, now);
	rk_kvacc__fini(&a);
}

static uint64_t total_writes(const rk_keyviz_table *h)
{
	uint64_t w = 0;
	for (size_t i = 0; i < h->niv; i++)
		for (size_t c = 0; c < h->iv[i].ncells; c++)
			w += h->iv[i].cells[c].c.writes;
	return w;
}

static void test_layout_find(void **state)
{
	(void)state;
	const uint8_t *keys[4] = {NULL, (const uint8_t *)"b", (const uint8_t *)"d", (const uint8_t *)"d\x00"};
	size_t lens[4] = {0, 1, 1, 2};
	rk__kvlayout *l = rk_kvlayout__new(4, keys, lens);
	assert_non_null(l);
	assert_int_equal(rk_kvlayout__find(&l->pub, (const uint8_t *)"a", 1), 0);
	assert_int_equal(rk_kvlayout__find(&l->pub, (const uint8_t *)"b", 1), 1);
	assert_int_equal(rk_kvlayout__find(&l->pub, (const uint8_t *)"c", 1), 1);
	assert_int_equal(rk_kvlayout__find(&l->pub, (const uint8_t *)"d", 1), 2);
	assert_int_equal(rk_kvlayout__find(&l->pub, (const uint8_t *)"d\x00", 2), 3);
	assert_int_equal(rk_kvlayout__find(&l->pub, (const uint8_t *)"z", 1), 3);
	rk__kvlayout *m = rk_kvlayout__new(4, keys, lens);
	assert_true(rk_kvlayout__same(&l->pub, &m->pub));
	rk_kvlayout__unref(m);
	rk_kvlayout__unref(l);
}

/* a sequential key: each closed interval is cut along the keys it took,
 * bucket 0 and the buckets after the last key stay idle */
static void test_sequential_cut(void **state)
{
	(void)state;
	rk__kvt *t = rk_kvt__new(1000, 1000);
	assert_non_null(t);
	for (int s = 0; s < 5; s++)
		write_seq(t, (uint64_t)s * 20000, (uint64_t)(s + 1) * 20000, 1, T0 + s * 1000 + 500, 128);
	pthread_mutex_lock(&t->mu);
	rk_kvt__roll(t, T0 + 5 * 1000 + 500);
	pthread_mutex_unlock(&t->mu);
	const rk_keyviz_table *h = &t->hist;
	assert_int_equal(h->niv, 5);
	assert_int_equal(total_writes(h), 100000);
	for (size_t i = 0; i < h->niv; i++) {
		const rk_keyviz_interval *iv = &h->iv[i];
		uint8_t lo[8], hi[8];
		key8(lo, i * 20000);
		key8(hi, (i + 1) * 20000 - 1);
		assert_true(iv->ncells >= (i ? 400u : 900u)); /* many pieces along the slice */
		/* every cell lies inside the keys written in that second: none in
		 * bucket 0 (below them) or in an unbounded last bucket (above) */
		for (size_t c = 0; c < iv->ncells; c++) {
			size_t b = iv->cells[c].bucket;
			const rk_keyviz_layout *l = iv->layout;
			if (i > 0)
				assert_true(b > 0 && memcmp(l->start[b], lo, 8) >= 0);
			assert_true(b + 1 < l->nbuckets);
			assert_true(memcmp(l->start[b + 1], hi, 8) <= 0); /* ends at most just after hi */
		}
		assert_true(iv->layout->nbuckets <= 1000);
	}
	rk_kvt__free(t);
}

/* a steady load over the same keys keeps its layout: the history shares it */
static void test_steady_layout_shared(void **state)
{
	(void)state;
	rk__kvt *t = rk_kvt__new(1000, 1000);
	for (int s = 0; s < 6; s++) /* the same 50,000 keys every second, shuffled by stride */
		for (uint64_t j = 0; j < 50000; j += 5000)
			write_seq(t, j, j + 5000, 7919, T0 + s * 1000 + 10, 256);
	pthread_mutex_lock(&t->mu);
	rk_kvt__roll(t, T0 + 6 * 1000 + 10);
	pthread_mutex_unlock(&t->mu);
	const rk_keyviz_table *h = &t->hist;
	assert_int_equal(h->niv, 6);
	size_t distinct = 1;
	for (size_t i = 2; i < h->niv; i++)
		distinct += h->iv[i].layout != h->iv[i - 1].layout;
	assert_int_equal(distinct, 1); /* from the second interval on: one layout */
	assert_true(h->iv[1].layout->nbuckets > 500);
	assert_int_equal(total_writes(h), 6 * 50000);
	rk_kvt__free(t);
}

/* least loaded neighbours merge first; kept apart, idle joins busy last */
static void test_reduce(void **state)
{
	(void)state;
	uint8_t keep[8];
	const uint64_t w[8] = {0, 0, 5, 5, 0, 9, 1, 1};
	assert_int_equal(rk_kvmap__reduce(keep, w, 8, 5, 0), 0);
	/* 0+0 first, then 1+1, then of the two pairs of sum 5 the smaller (5+0) */
	const uint8_t want[8] = {1, 0, 1, 1, 0, 1, 1, 0};
	assert_memory_equal(keep, want, 8);
	assert_int_equal(rk_kvmap__reduce(keep, w, 8, 4, 1), 0);
	/* apart: (0,0), (1,1), (5,5), (9,1+1) while the idle piece 4 stays between */
	const uint8_t want_apart[8] = {1, 0, 1, 0, 1, 1, 0, 0};
	assert_memory_equal(keep, want_apart, 8);
	assert_int_equal(rk_kvmap__reduce(keep, w, 8, 1, 1), 0);
	for (int i = 1; i < 8; i++)
		assert_int_equal(keep[i], 0);
}

/* the history stays within its bound, old intervals merged, counts kept */
static void test_history_bound(void **state)
{
	(void)state;
	rk__kvt *t = rk_kvt__new(1000, 1000);
	uint64_t rows = 0;
	for (int s = 0; s < 300; s++) {
		write_seq(t, (uint64_t)s * 3000, (uint64_t)(s + 1) * 3000, 3, T0 + s * 1000, 500);
		rows += 3000;
		pthread_mutex_lock(&t->mu);
		rk_kvt__roll(t, T0 + (s + 1) * 1000);
		pthread_mutex_unlock(&t->mu);
		assert_true(t->hist_cells <= RK_KV_HISTORY_CELLS);
	}
	const rk_keyviz_table *h = &t->hist;
	assert_int_equal(total_writes(h), rows);
	assert_true(h->niv < 300);
	assert_int_equal(h->iv[h->niv - 1].width_ms, 1000); /* recent ones at full resolution */
	assert_true(h->iv[0].width_ms > 1000);              /* the oldest merged */
	for (size_t i = 1; i < h->niv; i++)
		assert_true(h->iv[i].start_ms >= h->iv[i - 1].start_ms + (int64_t)h->iv[i - 1].width_ms);
	rk_kvt__free(t);
}

/* the keymap over intervals cut differently: a diagonal, exact totals */
static void test_keymap_diagonal(void **state)
{
	(void)state;
	rk__kvt *t = rk_kvt__new(1000, 1000);
	for (int s = 0; s < 10; s++)
		write_seq(t, (uint64_t)s * 10000, (uint64_t)(s + 1) * 10000, 1, T0 + s * 1000 + 1, 100);
	rk_metrics m = {.version = 2, .bucket_ms = 1000, .servers = 1};
	rk_keyviz_table kt = {.name = "t"};
	assert_int_equal(rk_kvhist__snapshot(&kt, t, T0 + 10 * 1000 + 1), 0);
	m.tables = &kt;
	m.ntables = 1;
	rk_keymap *k;
	rk_keymap_options o = RK_KEYMAP_OPTIONS_INIT;
	o.max_rows = 200;
	assert_int_equal(rk_metrics_keymap(&k, &m, "t", &o), 0);
	assert_int_equal(k->cols, 10);
	assert_true(k->rows > 100 && k->rows <= 200);
	uint64_t sum = 0;
	size_t prev_hi = 0;
	for (size_t c = 0; c < k->cols; c++) {
		size_t lo = SIZE_MAX, hi = 0;
		for (size_t r = 0; r < k->rows; r++) {
			uint64_t v = k->writes[r * k->cols + c];
			sum += v;
			if (v) {
				lo = r < lo ? r : lo;
				hi = r;
			}
		}
		assert_true(lo != SIZE_MAX);
		assert_true(c == 0 || lo >= prev_hi); /* each second's rows above the last one's */
		assert_true(hi - lo >= 5);           /* and spread over rows, not one block */
		prev_hi = hi;
	}
	assert_int_equal(sum, 100000);
	rk_keymap_free(k);
	/* the load of given ranges: rows cut exactly there */
	uint8_t mid[8];
	key8(mid, 50000);
	rk_bytes at[2] = {{(const uint8_t *)"", 0}, {mid, 8}};
	o.rows_at = at;
	o.nrows_at = 2;
	o.max_cols = 1;
	assert_int_equal(rk_metrics_keymap(&k, &m, "t", &o), 0);
	assert_int_equal(k->rows, 2);
	assert_int_equal(k->cols, 1);
	assert_int_equal(k->writes[0], 50000);
	assert_int_equal(k->writes[1], 50000);
	rk_keymap_free(k);
	rk_kvhist__clear(&kt);
	free(kt.iv);
	rk_kvt__free(t);
}

/* the text form of key buckets reads back as written */
static void test_file_round_trip(void **state)
{
	(void)state;
	const char *text = "# rowkey metrics v2 bucket_ms=1000 servers=2\n"
	                   "region\t1\tt\t0\t\t6d\tlive\t1000\n"
	                   "region\t2\tt\t1\t6d\t-\tlive\t1000\n"
	                   "r\t1\t1000\t3\t0\t30\t0\t1000\t0\n"
	                   "s\t0\t1000\t3\t0\t30\t0\n"
	                   "schema\tt\tfields a:str; key a\\tb\n"
	                   "kl\tt\t1\t3\t61\t6d\n"
	                   "k\tt\t1\t1000\t1000\t1:2,0,20,0\t2:1,0,10,0\n"
	                   "k\tt\t1\t2000\t1000\t0:5,1,50,10\n";
	rk_metrics *m;
	assert_int_equal(rk_metrics_parse(&m, text, strlen(text), "t.tsv"), 0);
	const rk_keyviz_table *t = rk_metrics_table(m, "t");
	assert_non_null(t);
	assert_string_equal(t->schema, "fields a:str; key a\tb");
	assert_int_equal(t->niv, 2);
	assert_ptr_equal(t->iv[0].layout, t->iv[1].layout);
	assert_int_equal(t->iv[0].layout->nbuckets, 3);
	assert_int_equal(t->iv[1].cells[0].c.bytes_read, 10);
	char *out = NULL;
	size_t n;
	FILE *f = open_memstream(&out, &n);
	assert_int_equal(rk_metrics__format(f, m), 0);
	fclose(f);
	assert_string_equal(out, text);
	free(out);
	rk_metrics_free(m);
}

/* bad lines are errors naming the line and what is wrong */
static void test_file_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {"kl\tt\t1\t3\t62\t61\n", "line 2: kl: the bucket starts are not strictly increasing"},
	    {"k\tt\t9\t1000\t1000\t0:1,0,0,0\n", "line 2: k: the layout is not defined"},
	    {"kl\tt\t1\t2\t61\nk\tt\t1\t1000\t1000\t2:1,0,0,0\n", "line 3: k: a bucket is not"},
	    {"kl\tt\t1\t2\t61\nk\tt\t1\t1000\t1000\nk\tt\t1\t1500\t1000\n", "line 4: k: the interval starts before"},
	    {"kl\tt\t1\t2\tzz\n", "line 2: kl: a bucket start is not non-empty hex"},
	    {"schema\tt\tbad \\q\n", "line 2: schema: a backslash"},
	    {"r\t1\t1000\t1\t0\t0\t0\t1000\t5\n", "line 2: r: the server (ninth field)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[512];
		rk_metrics *m = NULL;
		snprintf(text, sizeof text, "# rowkey metrics v2 bucket_ms=1000 servers=2\n%s", cases[i].text);
		assert_int_equal(rk_metrics_parse(&m, text, strlen(text), "x"), RK_ECORRUPT);
		assert_null(m);
		if (!strstr(rk_error_last(), cases[i].msg))
			fail_msg("case %zu: %s", i, rk_error_last());
	}
}

int main(void)
{
	T0 = (rk_metrics__now_ms() / 1000 + 100) * 1000;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layout_find),       cmocka_unit_test(test_sequential_cut),
	    cmocka_unit_test(test_steady_layout_shared), cmocka_unit_test(test_reduce),
	    cmocka_unit_test(test_history_bound),     cmocka_unit_test(test_keymap_diagonal),
	    cmocka_unit_test(test_file_round_trip),   cmocka_unit_test(test_file_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
