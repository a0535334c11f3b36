/*
 * The table store through its public API (include/rowkey/store.h) on the
 * embedded store: the behaviour suite every backend runs
 * (integration/store_suite.h), then what only the embedded store has:
 * buffered writes, long rows, regions with explicit and automatic splits,
 * moves and balancing, persistence across reopen, the metrics file, table
 * settings, family changes, deletes across compaction, moves and restarts,
 * an older store's delete markers, and GC rules in META.
 */
#include <rowkey/metrics.h>

#include "integration/store_suite.h"

static rk_store *open_store(const char *dir, unsigned servers, uint64_t split)
{
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	o.n_servers = servers;
	o.split_threshold = split;
	rk_store *s;
	ST_OK(rk_store_open(&s, dir, &o));
	return s;
}

/* The META file's version (docs/formats.md B.2). */
static unsigned meta_version(const char *dir)
{
	char path[600];
	unsigned char b[16];
	snprintf(path, sizeof path, "%s/META", dir);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(b, 1, 16, f), 16);
	fclose(f);
	return (unsigned)b[12] << 24 | (unsigned)b[13] << 16 | (unsigned)b[14] << 8 | b[15];
}

/* rk_table_apply_async: batches queued while the caller refills one buffer,
 * across two servers; a bad batch refused at once with nothing queued; after
 * rk_table_flush every row reads back, the newest put of a row winning. */
static void test_buffered_writes(void **state)
{
	(void)state;
	char *dir = st_tmpdir("async");
	rk_store *s = open_store(dir, 2, 0);
	const char *splits[] = {"m"};
	create(s, "t", splits, 1, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	enum { NB = 50, BS = 100 };
	char rows[BS][16], vals[BS][16];
	rk_mutation m[BS];
	for (int b = 0; b < NB; b++) {
		for (int k = 0; k < BS; k++) {
			int i = b * BS + k;
			/* rows a.. and n..: both servers; batch b rewrites b-1's rows */
			snprintf(rows[k], sizeof rows[k], "%c%05d", k % 2 ? 'a' : 'n', (i % (2 * BS)));
			snprintf(vals[k], sizeof vals[k], "v%d", b);
			m[k] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)rows[k], strlen(rows[k]), "cf",
			                     (const uint8_t *)"q", 1, 0, (const uint8_t *)vals[k],
			                     strlen(vals[k]), 0};
		}
		ST_OK(rk_table_apply_async(t, m, BS));
		memset(rows, 'X', sizeof rows); /* the store copied them */
		memset(vals, 'X', sizeof vals);
	}
	rk_mutation bad = {RK_MUT_PUT, (const uint8_t *)"zz", 2, "nope", NULL, 0, 0,
	                   (const uint8_t *)"x", 1, 0};
	assert_int_equal(rk_table_apply_async(t, &bad, 1), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "nope"));
	ST_OK(rk_table_flush(t));
	ST_OK(rk_table_flush(t)); /* nothing left: at once */
	want_value(t, "zz", "cf", "q", NULL);
	/* 200 distinct rows; the last two batches wrote them last */
	for (int i = 0; i < 2 * BS; i++) {
		char row[16], want[16];
		int b = (NB - 2) + (i / BS); /* i < BS: batch NB-2, else NB-1 */
		snprintf(row, sizeof row, "%c%05d", (i % BS) % 2 ? 'a' : 'n', i);
		snprintf(want, sizeof want, "v%d", b);
		want_value(t, row, "cf", "q", want);
	}
	rk_server_info *si;
	size_t ns;
	ST_OK(rk_store_servers(&si, &ns, s));
	assert_true(si[0].writes > 0 && si[1].writes > 0);
	free(si);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* Gets of rows of every length up to the limit, including rows of 00 bytes
 * (whose escaped bounds are twice their length) around the size a get keeps
 * its bounds on the stack for, next to rows they are a prefix of; a value
 * larger than the buffer a get keeps between gets, then small ones; and two
 * tables with different families read in turn by the same thread. */
static void test_get_row_lengths(void **state)
{
	(void)state;
	char *dir = st_tmpdir("getlen");
	rk_store *s = open_store(dir, 2, 0);
	create(s, "t", NULL, 0, 0);
	rk_family_def of[] = {{"other", 1, NULL}};
	rk_table_def d2 = {"u", of, 1, NULL, 0, 0};
	ST_OK(rk_table_create(s, &d2));
	rk_table *t, *u;
	ST_OK(rk_table_open(&t, s, "t"));
	ST_OK(rk_table_open(&u, s, "u"));
	static uint8_t row[RK_MAX_ROW_LEN];
	static const size_t lens[] = {1, 60, 61, 62, 124, 125, 126, 127, 300, 5000, RK_MAX_ROW_LEN - 1};
	size_t nl = sizeof lens / sizeof lens[0];
	/* for each length: a row of n 00 bytes, the same plus a 01 byte (the
	   first is its prefix), and n 'a' bytes */
	for (size_t i = 0; i < nl; i++) {
		size_t n = lens[i];
		memset(row, 0, n);
		row[n] = 1;
		char v[32];
		snprintf(v, sizeof v, "z%zu", n);
		ST_OK(rk_table_put(t, row, n, "cf", (const uint8_t *)"q", 1, 0, (const uint8_t *)v,
		                   strlen(v)));
		snprintf(v, sizeof v, "z%zu+", n);
		ST_OK(rk_table_put(t, row, n + 1, "cf", (const uint8_t *)"q", 1, 0,
		                   (const uint8_t *)v, strlen(v)));
		memset(row, 'a', n);
		snprintf(v, sizeof v, "a%zu", n);
		ST_OK(rk_table_put(u, row, n, "other", (const uint8_t *)"", 0, 0, (const uint8_t *)v,
		                   strlen(v)));
	}
	/* a 2 MiB value */
	size_t bl = 2u << 20;
	uint8_t *big = malloc(bl);
	assert_non_null(big);
	for (size_t i = 0; i < bl; i++)
		big[i] = (uint8_t)(i * 7);
	ST_OK(rk_table_put(t, (const uint8_t *)"big", 3, "meta", NULL, 0, 0, big, bl));
	for (int pass = 0; pass < 2; pass++) {
		rk_row *r;
		ST_OK(rk_table_get(&r, t, (const uint8_t *)"big", 3, NULL));
		assert_int_equal(r->ncells, 1);
		assert_int_equal(r->cells[0].value_len, bl);
		assert_memory_equal(r->cells[0].value, big, bl);
		assert_string_equal(r->cells[0].family, "meta");
		rk_row_free(r);
		for (size_t i = 0; i < nl; i++) {
			size_t n = lens[i];
			char v[32];
			for (int plus = 0; plus < 2; plus++) {
				memset(row, 0, n);
				row[n] = 1;
				ST_OK(rk_table_get(&r, t, row, n + (size_t)plus, NULL));
				snprintf(v, sizeof v, plus ? "z%zu+" : "z%zu", n);
				assert_int_equal(r->key_len, n + (size_t)plus);
				assert_memory_equal(r->key, row, n + (size_t)plus);
				assert_int_equal(r->ncells, 1);
				assert_string_equal(r->cells[0].family, "cf");
				assert_int_equal(r->cells[0].value_len, strlen(v));
				assert_memory_equal(r->cells[0].value, v, strlen(v));
				rk_row_free(r);
			}
			memset(row, 'a', n);
			ST_OK(rk_table_get(&r, u, row, n, NULL));
			snprintf(v, sizeof v, "a%zu", n);
			assert_int_equal(r->ncells, 1);
			assert_string_equal(r->cells[0].family, "other");
			assert_int_equal(r->cells[0].qualifier_len, 0);
			assert_memory_equal(r->cells[0].value, v, strlen(v));
			rk_row_free(r);
			/* not there: the 'a' row in t; n 00 bytes then 02 */
			assert_int_equal(rk_table_get(&r, t, row, n, NULL), RK_ENOTFOUND);
			memset(row, 0, n);
			row[n] = 2;
			assert_int_equal(rk_table_get(&r, t, row, n + 1, NULL), RK_ENOTFOUND);
		}
	}
	free(big);
	rk_table_close(t);
	rk_table_close(u);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* Regions of a table with split points, round-robin over 3 servers: an
 * explicit split, a move, the balancer, a reopen with another server count
 * (the store keeps its own), the load in the metrics file across runs. */
static void test_regions_splits_moves(void **state)
{
	(void)state;
	char *dir = st_tmpdir("scan");
	rk_store *s = open_store(dir, 3, 0);
	const char *splits[] = {"b", "d", "f"};
	create(s, "t", splits, 3, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	const char *rows[] = {"a1", "a2", "b", "b1", "c", "d", "e1", "e2", "f", "g"};
	for (size_t i = 0; i < 10; i++)
		put(t, rows[i], "cf", "q", 0, rows[i]);
	ST_OK(rk_table_delete(t, (const uint8_t *)"c", 1, NULL, NULL, 0, 0)); /* hidden row */
	put(t, "e2", "meta", "m", 0, "only-meta");

	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	scan_expect(t, &so, "a1 a2 b b1 d e1 e2 f g");
	so.reverse = 1;
	scan_expect(t, &so, "g f e2 e1 d b1 b a2 a1");
	so = (rk_scan_options)RK_SCAN_OPTIONS_INIT;
	so.prefix = (const uint8_t *)"e";
	so.prefix_len = 1;
	so.reverse = 1;
	scan_expect(t, &so, "e2 e1");
	assert_int_equal(rk_region_move(s, 1, 99), RK_EINVALID);
	assert_int_equal(rk_region_move(s, 999, 0), RK_ENOTFOUND);

	/* regions: 4, round-robin over 3 servers */
	rk_region_info *ri;
	size_t n;
	ST_OK(rk_store_regions(&ri, &n, s, "t"));
	assert_int_equal(n, 4);
	assert_int_equal(ri[0].start_len, 0);
	assert_memory_equal(ri[1].start, "b", 1);
	assert_null(ri[3].end);
	assert_int_equal(ri[0].server, 0);
	assert_int_equal(ri[1].server, 1);
	assert_int_equal(ri[3].server, 0);
	assert_int_equal(ri[0].writes, 2);
	uint64_t id2 = ri[2].id;
	rk_region_info_free(ri, n);

	/* explicit split, then a move, then balance; data stays readable */
	ST_OK(rk_region_split(s, id2, (const uint8_t *)"e", 1));
	assert_int_equal(rk_region_split(s, id2, (const uint8_t *)"e", 1), RK_ENOTFOUND);
	ST_OK(rk_store_regions(&ri, &n, s, "t"));
	assert_int_equal(n, 5);
	assert_memory_equal(ri[3].start, "e", 1);
	uint64_t last = ri[4].id, e_id = ri[3].id;
	rk_region_info_free(ri, n);
	assert_int_equal(rk_region_split(s, e_id, (const uint8_t *)"a", 1), RK_EINVALID);
	ST_OK(rk_region_split(s, last, NULL, 0)); /* middle of f, g */
	ST_OK(rk_store_regions(&ri, &n, s, "t"));
	assert_int_equal(n, 6);
	assert_memory_equal(ri[5].start, "g", 1);
	rk_region_info_free(ri, n);
	ST_OK(rk_region_move(s, e_id, 1));
	so = (rk_scan_options)RK_SCAN_OPTIONS_INIT;
	scan_expect(t, &so, "a1 a2 b b1 d e1 e2 f g");
	want_value(t, "e1", "cf", "q", "e1");
	size_t moved;
	ST_OK(rk_store_balance(&moved, s));
	rk_server_info *si;
	size_t ns;
	ST_OK(rk_store_servers(&si, &ns, s));
	assert_int_equal(ns, 3);
	for (size_t i = 0; i < ns; i++)
		assert_int_equal(si[i].nregions, 2);
	free(si);
	scan_expect(t, &so, "a1 a2 b b1 d e1 e2 f g");
	size_t problems = 99;
	ST_OK(rk_store_check(&problems, s, NULL, NULL));
	assert_int_equal(problems, 0);

	/* reopen: meta and data persist */
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	s = open_store(dir, 1, 0); /* server count comes from the store */
	ST_OK(rk_table_open(&t, s, "t"));
	scan_expect(t, &so, "a1 a2 b b1 d e1 e2 f g");
	ST_OK(rk_store_regions(&ri, &n, s, "t"));
	assert_int_equal(n, 6);
	rk_region_info_free(ri, n);
	ST_OK(rk_store_check(NULL, s, NULL, NULL));
	rk_table_close(t);

	/* drop removes the table and its cells */
	ST_OK(rk_table_drop(s, "t"));
	assert_int_equal(rk_table_open(&t, s, "t"), RK_ENOTFOUND);
	create(s, "t", NULL, 0, 0);
	ST_OK(rk_table_open(&t, s, "t"));
	scan_expect(t, &so, "");
	rk_table_info *ti;
	ST_OK(rk_table_list(&ti, &n, s));
	assert_int_equal(n, 1);
	assert_string_equal(ti[0].name, "t");
	assert_int_equal(ti[0].nfamilies, 2);
	rk_table_info_free(ti, n);
	rk_table_close(t);
	ST_OK(rk_store_close(s));

	/* the metrics file was written on close; its one reader reads it */
	rk_metrics *m;
	ST_OK(rk_metrics_read(&m, dir));
	assert_int_equal(m->version, 2);
	assert_int_equal(m->bucket_ms, 1000);
	assert_int_equal(m->servers, 3);
	/* the file accumulates runs: the first run's writes (10 puts, a row delete
	 * counted once, 1 more put) plus the second run's, which only read */
	unsigned long long w = 0, rd = 0, sw = 0;
	for (size_t i = 0; i < m->nregion_load; i++) {
		for (size_t j = 0; j < m->region_load[i].n; j++)
			assert_true(m->region_load[i].b[j].start_ms % 1000 == 0);
		w += m->region_load[i].total.writes;
		rd += m->region_load[i].total.reads;
	}
	for (size_t i = 0; i < m->nserver_load; i++)
		sw += m->server_load[i].total.writes;
	size_t regions = m->nregions;
	rk_metrics_free(m);
	assert_true(regions >= 7); /* the second run's 6 regions plus the new table's */
	assert_int_equal(w, 12);
	assert_int_equal(sw, 12);
	assert_true(rd >= 10 * 5); /* at least five full scans of ten cells over both runs */
	st_rmtree(dir);
	free(dir);
}

/* 800 rows of 200-byte values, 100 in each of the buckets '0'..'7' (one
 * leading byte). */
static void load_buckets(rk_table *t)
{
	char val[200];
	memset(val, 'v', sizeof val);
	for (int b = 0; b < 8; b++) {
		rk_mutation m[100];
		char rows[100][8];
		for (int i = 0; i < 100; i++) {
			rows[i][0] = (char)('0' + b);
			snprintf(rows[i] + 1, 7, "%05d", i);
			m[i] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)rows[i], 6, "cf", NULL, 0, 0,
			                     (const uint8_t *)val, sizeof val, 0};
		}
		ST_OK(rk_table_apply(t, m, 100, NULL));
	}
}

static void test_auto_split_salted(void **state)
{
	(void)state;
	char *dir = st_tmpdir("split");
	rk_store *s = open_store(dir, 2, 64 << 10);
	create(s, "salted", NULL, 0, 1);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "salted"));
	load_buckets(t);
	/* wait for the background splitter: up to 30 s, a loaded CI machine is slow */
	size_t n = 0;
	rk_region_info *ri = NULL;
	for (int tries = 0; tries < 3000; tries++) {
		ST_OK(rk_store_regions(&ri, &n, s, "salted"));
		if (n >= 3)
			break;
		rk_region_info_free(ri, n);
		ri = NULL;
		st_sleep_ms(10);
	}
	assert_true(n >= 3);
	for (size_t i = 1; i < n; i++)
		assert_int_equal(ri[i].start_len, 1); /* bucket boundaries only */
	rk_region_info_free(ri, n);
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_scan *sc;
	const rk_row *r;
	size_t rows = 0;
	ST_OK(rk_scan_open(&sc, t, &so));
	while (rk_scan_next(&r, sc) == 0)
		rows++;
	rk_scan_close(sc);
	assert_int_equal(rows, 800);
	ST_OK(rk_store_check(NULL, s, NULL, NULL));
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* 2 servers, a 64 KiB split threshold, splits made by rk_store_split_due. */
static rk_store *open_split_due_store(const char *dir)
{
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	o.n_servers = 2;
	o.split_threshold = 64 << 10;
	o.background_splits = 0;
	rk_store *s;
	ST_OK(rk_store_open(&s, dir, &o));
	return s;
}

/* Without the background splitter, grown regions wait for
 * rk_store_split_due, which makes the same splits in the caller's thread
 * (the halves still too big included) and then has nothing left to do. */
static void test_split_due(void **state)
{
	(void)state;
	char *dir = st_tmpdir("splitdue");
	rk_store *s = open_split_due_store(dir);
	create(s, "salted", NULL, 0, 1);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "salted"));
	load_buckets(t);
	size_t n = 0, made = 99;
	rk_region_info *ri = NULL;
	st_sleep_ms(50);
	ST_OK(rk_store_regions(&ri, &n, s, "salted"));
	assert_int_equal(n, 1); /* nothing splits by itself */
	rk_region_info_free(ri, n);
	ST_OK(rk_store_split_due(&made, s));
	ST_OK(rk_store_regions(&ri, &n, s, "salted"));
	assert_true(n >= 3);
	assert_int_equal(made, n - 1);
	for (size_t i = 1; i < n; i++)
		assert_int_equal(ri[i].start_len, 1); /* bucket boundaries only */
	rk_region_info_free(ri, n);
	ST_OK(rk_store_split_due(&made, s));
	assert_int_equal(made, 0);
	ST_OK(rk_store_split_due(NULL, s));
	ST_OK(rk_store_check(NULL, s, NULL, NULL));
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* A move changes the split limit of the regions it leaves behind: a region
 * that has its server to itself after a move splits at a quarter of the
 * threshold at its next write, as the simulator's does (regression: the
 * limit recorded before the move held until the region passed the full
 * threshold, so the analyzer's store run and the simulator moved different
 * regions). */
static void test_split_limit_after_move(void **state)
{
	(void)state;
	char *dir = st_tmpdir("splitmove");
	rk_store *s = open_split_due_store(dir);
	const char *sp[] = {"m"};
	create(s, "mv", sp, 1, 0);
	rk_region_info *ri = NULL;
	size_t n = 0, made = 99;
	ST_OK(rk_store_regions(&ri, &n, s, "mv"));
	assert_int_equal(n, 2);
	uint64_t left = ri[0].id, right = ri[1].id;
	rk_region_info_free(ri, n);
	ST_OK(rk_region_move(s, left, 0));
	ST_OK(rk_region_move(s, right, 0)); /* two regions on server 0: limit 64 KiB */
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "mv"));
	char row[16], val[101];
	memset(val, 'v', 100);
	val[100] = 0;
	for (int i = 0; i < 300; i++) {
		snprintf(row, sizeof row, "n%04d", i);
		put(t, row, "cf", "q", 1, val);
	}
	ST_OK(rk_store_split_due(&made, s));
	assert_int_equal(made, 0);
	ST_OK(rk_store_regions(&ri, &n, s, "mv"));
	assert_int_equal(n, 2);
	assert_true(ri[1].size_bytes > (16u << 10) && ri[1].size_bytes < (64u << 10));
	rk_region_info_free(ri, n);
	ST_OK(rk_region_move(s, left, 1)); /* server 0 keeps one region: 16 KiB */
	put(t, "n9999", "cf", "q", 1, val);
	ST_OK(rk_store_split_due(&made, s));
	assert_int_equal(made, 1);
	ST_OK(rk_store_regions(&ri, &n, s, "mv"));
	assert_int_equal(n, 3);
	rk_region_info_free(ri, n);
	ST_OK(rk_store_check(NULL, s, NULL, NULL));
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* rk_table_family_set: adds a family, changes max_versions, refuses while a
 * handle is open and bad input, and the change survives a reopen. */
static void test_family_set(void **state)
{
	(void)state;
	char *dir = st_tmpdir("famset");
	rk_store *s = open_store(dir, 2, 0);
	rk_table *t;
	create(s, "a", NULL, 0, 0);
	ST_OK(rk_table_open(&t, s, "a"));
	assert_int_equal(rk_table_put(t, (const uint8_t *)"r", 1, "new", (const uint8_t *)"q", 1, 5,
	                              (const uint8_t *)"v", 1),
	                 RK_EINVALID);
	rk_family_def nf = {"new", 2, NULL};
	assert_int_equal(rk_table_family_set(s, "a", &nf), RK_EBUSY);
	rk_table_close(t);
	ST_OK(rk_table_family_set(s, "a", &nf));
	rk_family_def cf1 = {"cf", 1, NULL};
	ST_OK(rk_table_family_set(s, "a", &cf1));
	rk_family_def bad = {"no space", 1, NULL};
	assert_int_equal(rk_table_family_set(s, "a", &bad), RK_EINVALID);
	assert_int_equal(rk_table_family_set(s, "nosuch", &nf), RK_ENOTFOUND);
	rk_family_def zero = {"z", 0, NULL};
	assert_int_equal(rk_table_family_set(s, "a", &zero), RK_EINVALID);
	rk_table_def bare = {"bare", NULL, 0, NULL, 0, 0}; /* Bigtable allows it */
	ST_OK(rk_table_create(s, &bare));
	ST_OK(rk_store_close(s));
	s = open_store(dir, 2, 0); /* a table without families survives a reopen */
	ST_OK(rk_table_family_set(s, "bare", &nf));
	ST_OK(rk_table_drop(s, "bare"));
	ST_OK(rk_store_close(s));

	s = open_store(dir, 2, 0);
	rk_table_info *ti;
	size_t n;
	ST_OK(rk_table_list(&ti, &n, s));
	assert_int_equal(n, 1);
	assert_int_equal(ti[0].nfamilies, 3); /* cf, meta, new: sorted by name */
	assert_string_equal(ti[0].families[0].name, "cf");
	assert_int_equal(ti[0].families[0].max_versions, 1);
	assert_string_equal(ti[0].families[2].name, "new");
	assert_int_equal(ti[0].families[2].max_versions, 2);
	rk_table_info_free(ti, n);
	ST_OK(rk_table_open(&t, s, "a"));
	put(t, "r", "new", "q", 5, "v5");
	put(t, "r", "cf", "q", 5, "old");
	put(t, "r", "cf", "q", 6, "new");
	want_value(t, "r", "new", "q", "v5");
	rk_row *r;
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	ro.max_versions = 10;
	ST_OK(rk_table_get(&r, t, (const uint8_t *)"r", 1, &ro));
	assert_int_equal(r->ncells, 2); /* cf keeps 1 version now, new has 1 */
	rk_row_free(r);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* rk_table_family_drop: the family's cells go (a re-created family of the
 * same name starts empty), the others stay, check stays clean, the change
 * survives a reopen; refused while a handle is open and for unknown names. */
static void test_family_drop(void **state)
{
	(void)state;
	char *dir = st_tmpdir("famdrop");
	rk_store *s = open_store(dir, 3, 0);
	const char *splits[] = {"m"};
	create(s, "a", splits, 1, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "a"));
	char row[16];
	for (int i = 0; i < 300; i++) {
		snprintf(row, sizeof row, "%c%03d", 'a' + i % 26, i);
		put(t, row, "meta", "n", 10, "m");
		if (i % 2)
			put(t, row, "cf", "x", 10, "c");
	}
	assert_int_equal(rk_table_family_drop(s, "a", "meta"), RK_EBUSY);
	rk_table_close(t);
	assert_int_equal(rk_table_family_drop(s, "a", "nosuch"), RK_ENOTFOUND);
	assert_int_equal(rk_table_family_drop(s, "nosuch", "meta"), RK_ENOTFOUND);
	ST_OK(rk_table_family_drop(s, "a", "meta"));
	size_t problems;
	ST_OK(rk_store_check(&problems, s, NULL, NULL));
	assert_int_equal(problems, 0);
	ST_OK(rk_store_close(s));

	s = open_store(dir, 3, 0);
	rk_table_info *ti;
	size_t n;
	ST_OK(rk_table_list(&ti, &n, s));
	assert_int_equal(ti[0].nfamilies, 1);
	assert_string_equal(ti[0].families[0].name, "cf");
	rk_table_info_free(ti, n);
	rk_family_def again = {"meta", 1, NULL};
	ST_OK(rk_table_family_set(s, "a", &again)); /* the old cells do not come back */
	ST_OK(rk_table_open(&t, s, "a"));
	rk_scan *sc;
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	ST_OK(rk_scan_open(&sc, t, &so));
	const rk_row *r;
	size_t rows = 0;
	while (rk_scan_next(&r, sc) == 0) {
		rows++;
		for (size_t i = 0; i < r->ncells; i++)
			assert_string_equal(r->cells[i].family, "cf");
	}
	rk_scan_close(sc);
	assert_int_equal(rows, 150);
	rk_table_close(t);
	ST_OK(rk_store_check(&problems, s, NULL, NULL));
	assert_int_equal(problems, 0);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* What the suite's delete order does not reach: family and row deletes
 * over a time range, buffered writes in order, and the order kept after the
 * cells went to sorted files, were compacted, the store reopened, the
 * region moved and split. */
static void test_delete_order_durable(void **state)
{
	(void)state;
	char *dir = st_tmpdir("delorder");
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	o.n_servers = 2;
	o.split_threshold = 0;
	o.write_buffer_size = 64 << 10; /* small memtables: the filler below compacts */
	rk_store *s;
	ST_OK(rk_store_open(&s, dir, &o));
	rk_family_def f5[] = {{"cf", 5, NULL}};
	rk_table_def d = {"t", f5, 1, NULL, 0, 0};
	ST_OK(rk_table_create(s, &d));
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	put(t, "a", "cf", "x", 100, "new");
	apply1(t, RK_MUT_DELETE_COLUMN, "a", "cf", "x", 0, 0);
	put(t, "a", "cf", "x", 50, "older-ts-after");
	/* a family's and a row's time range [15, 35] */
	for (uint64_t ts = 10; ts <= 40; ts += 10) {
		put(t, "e", "cf", "x", ts, "v");
		put(t, "e", "cf", "y", ts, "v");
	}
	apply1(t, RK_MUT_DELETE_FAMILY, "e", "cf", NULL, 15, 35);
	want_versions(t, "e", "cf", "x", "40,10");
	want_versions(t, "e", "cf", "y", "40,10");
	put(t, "e", "cf", "y", 20, "back");
	apply1(t, RK_MUT_DELETE_ROW, "e", NULL, NULL, 35, RK_TS_MAX);
	want_versions(t, "e", "cf", "y", "20,10");
	/* buffered writes keep the order too */
	rk_mutation del = {RK_MUT_DELETE_ROW, (const uint8_t *)"f", 1, NULL, NULL, 0, RK_TS_MAX,
	                   NULL, 0, 0};
	rk_mutation p1 = {RK_MUT_PUT, (const uint8_t *)"f", 1, "cf", (const uint8_t *)"x", 1, 50,
	                  (const uint8_t *)"1", 1, 0};
	rk_mutation p2 = p1;
	p2.ts = 40;
	ST_OK(rk_table_apply_async(t, &p1, 1));
	ST_OK(rk_table_apply_async(t, &del, 1));
	ST_OK(rk_table_apply_async(t, &p2, 1));
	ST_OK(rk_table_flush(t));
	want_versions(t, "f", "cf", "x", "40");
	/* filler: the cells above go to sorted files and are compacted */
	char row[32], val[512];
	memset(val, 'f', sizeof val - 1);
	val[sizeof val - 1] = 0;
	for (int i = 0; i < 3000; i++) {
		snprintf(row, sizeof row, "filler%05d", i);
		put(t, row, "cf", "x", 1, val);
	}
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_table_open(&t, s, "t"));
	want_versions(t, "a", "cf", "x", "50");
	want_versions(t, "e", "cf", "y", "20,10");
	want_versions(t, "f", "cf", "x", "40");
	/* the region moves to the other server and splits: the same */
	rk_region_info *ri;
	size_t n;
	ST_OK(rk_store_regions(&ri, &n, s, "t"));
	assert_int_equal(n, 1);
	uint64_t id = ri[0].id;
	unsigned other = ri[0].server ? 0 : 1;
	rk_region_info_free(ri, n);
	ST_OK(rk_region_move(s, id, other));
	ST_OK(rk_region_split(s, id, (const uint8_t *)"c", 1));
	want_versions(t, "a", "cf", "x", "50");
	want_versions(t, "e", "cf", "y", "20,10");
	rk_table_close(t);
	size_t problems = 1;
	ST_OK(rk_store_check(&problems, s, NULL, NULL));
	assert_int_equal(problems, 0);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* A store whose deletes an earlier build wrote as markers
 * (tests/fixtures/store_with_markers, docs/formats.md B.1): each marker
 * keeps hiding the versions at or under its timestamp, also those written
 * after it, until a delete that covers its whole reach removes it; then a
 * write with an old timestamp shows. */
static void test_delete_markers_of_old_stores(void **state)
{
	(void)state;
	char *dir = st_tmpdir("markers");
	char cmd[1024];
	const char *src = getenv("RK_SOURCE_DIR");
	assert_non_null(src);
	snprintf(cmd, sizeof cmd, "cp -r '%s/tests/fixtures/store_with_markers' '%s'", src, dir);
	assert_int_equal(system(cmd), 0);
	rk_store *s = open_store(dir, 1, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	/* written: col cf:x @10 @20, column marker @15, then @12; fam cf:a @10,
	 * family marker @30, then cf:b @20, cf:c @40 */
	want_versions(t, "col", "cf", "x", "20");
	want_versions(t, "fam", "cf", "a", "");
	want_versions(t, "fam", "cf", "b", "");
	want_versions(t, "fam", "cf", "c", "40");
	/* a delete of part of a marker's reach leaves it */
	apply1(t, RK_MUT_DELETE_COLUMN, "col", "cf", "x", 11, 13);
	put(t, "col", "cf", "x", 14, "under-the-marker");
	want_versions(t, "col", "cf", "x", "20");
	/* one that covers it all removes it with what it hid */
	apply1(t, RK_MUT_DELETE_COLUMN, "col", "cf", "x", 0, 15);
	put(t, "col", "cf", "x", 12, "shows");
	want_versions(t, "col", "cf", "x", "20,12");
	apply1(t, RK_MUT_DELETE_FAMILY, "fam", "cf", NULL, 0, 0);
	put(t, "fam", "cf", "b", 20, "shows");
	want_versions(t, "fam", "cf", "b", "20");
	want_versions(t, "fam", "cf", "c", "");
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);

	/* rk_store_collect removes a fresh copy's markers and what they hide:
	 * reads see the same, and from then on an older write shows */
	assert_int_equal(system(cmd), 0);
	s = open_store(dir, 1, 0);
	size_t removed = 0;
	ST_OK(rk_store_collect(&removed, s));
	assert_int_equal(removed, 6); /* 2 markers, v10 and v12, a10 and b20 */
	ST_OK(rk_table_open(&t, s, "t"));
	want_versions(t, "col", "cf", "x", "20");
	want_versions(t, "fam", "cf", "c", "40");
	put(t, "col", "cf", "x", 12, "shows");
	want_versions(t, "col", "cf", "x", "20,12");
	put(t, "fam", "cf", "b", 20, "shows");
	want_versions(t, "fam", "cf", "b", "20");
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* GC rules in META: version 3 only while a family has a rule beyond a
 * version count (older builds then refuse the file rather than misread
 * it), kept across a reopen; bad rules refused naming the rule; a second
 * collection finds nothing. */
static void test_gc_rules_in_meta(void **state)
{
	(void)state;
	char *dir = st_tmpdir("gcmeta");
	rk_store *s = open_store(dir, 2, 0);
	create(s, "t", NULL, 0, 0);
	assert_int_equal(meta_version(dir), 2);
	rk_gc_rule v1 = {RK_GC_VERSIONS, 1, 0, NULL, 0};
	rk_gc_rule age = {RK_GC_AGE, 0, 3600ull * 1000000u, NULL, 0};
	rk_gc_rule pair[] = {v1, age};
	rk_gc_rule uni = {RK_GC_UNION, 0, 0, pair, 2};
	rk_family_def cf = {"cf", 0, &uni};
	ST_OK(rk_table_family_set(s, "t", &cf));
	assert_int_equal(meta_version(dir), 3);
	/* bad rules: refused, naming the rule */
	rk_gc_rule empty = {RK_GC_UNION, 0, 0, NULL, 0}, zero = {RK_GC_VERSIONS, 0, 0, NULL, 0};
	rk_family_def bad = {"b", 1, &empty};
	assert_int_equal(rk_table_family_set(s, "t", &bad), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "union needs at least one rule"));
	rk_gc_rule deep[RK_GC_MAX_DEPTH + 1];
	for (unsigned i = 0; i <= RK_GC_MAX_DEPTH; i++)
		deep[i] = i < RK_GC_MAX_DEPTH ? (rk_gc_rule){RK_GC_UNION, 0, 0, &deep[i + 1], 1} : zero;
	bad.gc = deep;
	assert_int_equal(rk_table_family_set(s, "t", &bad), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "nested deeper"));
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	for (uint64_t ts = 1; ts <= 3; ts++)
		put(t, "r", "cf", "q", ts, "v"); /* old: the union keeps none of them */
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	s = open_store(dir, 2, 0);
	rk_table_info *ti;
	size_t n;
	ST_OK(rk_table_list(&ti, &n, s));
	assert_non_null(ti[0].families[0].gc);
	assert_int_equal(ti[0].families[0].gc->kind, RK_GC_UNION);
	rk_table_info_free(ti, n);
	size_t removed = 0;
	ST_OK(rk_store_collect(&removed, s));
	assert_int_equal(removed, 3);
	ST_OK(rk_store_collect(&removed, s));
	assert_int_equal(removed, 0);
	/* back to a plain version count: META version 2, which older builds read */
	rk_family_def plain = {"cf", 3, NULL};
	ST_OK(rk_table_family_set(s, "t", &plain));
	ST_OK(rk_store_close(s));
	assert_int_equal(meta_version(dir), 2);
	st_rmtree(dir);
	free(dir);
}

/* A row is read whole into memory: one whose cells pass RK_MAX_ROW_BYTES
 * is refused (RK_ETOOLONG naming it) rather than read; a column of it
 * still reads. */
static void test_row_too_big_to_read(void **state)
{
	(void)state;
	char *dir = st_tmpdir("bigrow");
	rk_store *s = open_store(dir, 1, 0);
	create(s, "t", NULL, 0, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	uint8_t *v = calloc(1, RK_MAX_VALUE_LEN);
	assert_non_null(v);
	for (unsigned i = 0; i < RK_MAX_ROW_BYTES / RK_MAX_VALUE_LEN; i++) {
		uint8_t q = (uint8_t)('a' + i);
		ST_OK(rk_table_put(t, (const uint8_t *)"huge", 4, "cf", &q, 1, 0, v,
		                   RK_MAX_VALUE_LEN));
	}
	free(v);
	rk_row *r;
	assert_int_equal(rk_table_get(&r, t, (const uint8_t *)"huge", 4, NULL), RK_ETOOLONG);
	assert_non_null(strstr(rk_error_last(), "row 'huge'"));
	rk_column c = {"cf", (const uint8_t *)"a", 1};
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	ro.columns = &c;
	ro.ncolumns = 1;
	ST_OK(rk_table_get(&r, t, (const uint8_t *)"huge", 4, &ro));
	assert_int_equal(r->cells[0].value_len, RK_MAX_VALUE_LEN);
	rk_row_free(r);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* Cells read from table t's region i (in key order). */
static uint64_t region_reads(rk_store *s, size_t i)
{
	rk_region_info *ri;
	size_t n;
	ST_OK(rk_store_regions(&ri, &n, s, "t"));
	assert_true(i < n);
	uint64_t rd = ri[i].reads;
	rk_region_info_free(ri, n);
	return rd;
}

/* Takes n rows of a scan (so), then closes it. */
static void scan_take(rk_table *t, const rk_scan_options *so, int n)
{
	rk_scan *sc;
	const rk_row *r;
	ST_OK(rk_scan_open(&sc, t, so));
	for (int i = 0; i < n; i++)
		ST_OK(rk_scan_next(&r, sc));
	rk_scan_close(sc);
}

/* A scan reads rows ahead of its caller: only the rows it hands out are
 * counted, each against the region it came from. */
static void test_scan_counts_rows_handed_out(void **state)
{
	(void)state;
	char *dir = st_tmpdir("scancount");
	rk_store *s = open_store(dir, 1, 0);
	create(s, "t", NULL, 0, 0);
	rk_table *t;
	ST_OK(rk_table_open(&t, s, "t"));
	for (int i = 0; i < 100; i++) {
		char row[8];
		snprintf(row, sizeof row, "r%03d", i);
		ST_OK(rk_table_put(t, (const uint8_t *)row, 4, "cf", (const uint8_t *)"q", 1, 0,
		                   (const uint8_t *)"v", 1));
	}
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	scan_take(t, &so, 3); /* closed after three rows */
	assert_int_equal(region_reads(s, 0), 3);
	so.limit = 5;
	scan_take(t, &so, 5);
	assert_int_equal(region_reads(s, 0), 8);

	/* two regions: rows of the first read ahead are the first's */
	rk_region_info *ri;
	size_t n;
	ST_OK(rk_store_regions(&ri, &n, s, "t"));
	ST_OK(rk_region_split(s, ri[0].id, (const uint8_t *)"r010", 4));
	rk_region_info_free(ri, n);
	uint64_t a = region_reads(s, 0), b = region_reads(s, 1);
	so.limit = 0;
	scan_take(t, &so, 12);
	assert_int_equal(region_reads(s, 0) - a, 10);
	assert_int_equal(region_reads(s, 1) - b, 2);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* ---- the suite on the embedded store ---- */

static char *suite_dir;

static rk_store *local_open(const char *tag)
{
	suite_dir = st_tmpdir(tag);
	return open_store(suite_dir, 2, 0);
}

static rk_store *local_reopen(rk_store *s, const char *tag)
{
	(void)tag;
	ST_OK(rk_store_close(s));
	return open_store(suite_dir, 2, 0);
}

static void local_done(rk_store *s, const char *tag)
{
	(void)tag;
	ST_OK(rk_store_close(s));
	st_rmtree(suite_dir);
	free(suite_dir);
	suite_dir = NULL;
}

static const suite_backend local = {"local", local_open, local_reopen, local_done, 1, 1};

int main(void)
{
	B = &local;
	const struct CMUnitTest tests[] = {
		SUITE_CASES,
		cmocka_unit_test(test_buffered_writes),
		cmocka_unit_test(test_scan_counts_rows_handed_out),
		cmocka_unit_test(test_get_row_lengths),
		cmocka_unit_test(test_regions_splits_moves),
		cmocka_unit_test(test_auto_split_salted),
		cmocka_unit_test(test_split_due),
		cmocka_unit_test(test_split_limit_after_move),
		cmocka_unit_test(test_family_set),
		cmocka_unit_test(test_family_drop),
		cmocka_unit_test(test_delete_order_durable),
		cmocka_unit_test(test_delete_markers_of_old_stores),
		cmocka_unit_test(test_gc_rules_in_meta),
		cmocka_unit_test(test_row_too_big_to_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
