/*
 * Integration tests for the Bigtable client (src/store/bigtable/) against
 * Google's Bigtable emulator, cross-checked with Google's `cbt` tool.
 *
 * The test starts its own `cbtemulator --host=127.0.0.1 --port=<free port>`,
 * waits until it accepts connections, points BIGTABLE_EMULATOR_HOST at it,
 * and stops it at the end; the emulator also gets SIGKILL if this process
 * dies (PR_SET_PDEATHSIG), so a failed or crashed test leaves nothing behind.
 * One test runs a second emulator of its own and kills it in the middle of a
 * load, to see the writer report the rows it could not write.
 */
#ifdef RK_WITH_BIGTABLE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "key/error.h"
#include "store/bigtable/bt_client.h"

#define URI "bigtable://p/i"
#define CBT "cbt -project p -instance i"

#include "integration/emulator.h"

static emulator emu;

static int setup(void **state)
{
	(void)state;
	if (emulator_start(&emu) < 0) {
		fprintf(stderr, "could not start %s\n", EMULATOR);
		return -1;
	}
	setenv("BIGTABLE_EMULATOR_HOST", emu.host, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	emulator_stop(&emu);
	return 0;
}

/* Runs a shell command, returns its standard output (static buffer) or fails.
 * Its standard error (cbt logs there) goes to the test's. */
static const char *run(const char *cmd)
{
	static char out[1 << 16];
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t n = fread(out, 1, sizeof out - 1, p);
	out[n] = 0;
	int st = pclose(p);
	if (st != 0)
		fail_msg("`%s` exited with %d: %s", cmd, st, out);
	return out;
}

static rk_bt_client *open_client(size_t batch, unsigned inflight)
{
	rk_bt_opts o = RK_BT_OPTS_INIT;
	o.batch_size = batch;
	o.inflight = inflight;
	o.backoff_ms = 5;
	rk_bt_client *c = NULL;
	setenv("BIGTABLE_EMULATOR_HOST", emu.host, 1); /* even if an earlier test failed midway */
	if (rk_bt__client_open(&c, URI, &o) < 0)
		fail_msg("open: %s", rk_error_last());
	return c;
}

static rk_bt_bytes b(const char *s)
{
	return (rk_bt_bytes){(const uint8_t *)s, strlen(s)};
}

static void set_cell(rk_bt_mutation *m, const char *fam, const char *qual, int64_t ts,
                     const char *val)
{
	*m = (rk_bt_mutation){.kind = RK_BT_SET_CELL, .family = fam,
	                      .qualifier = (const uint8_t *)qual, .qualifier_len = strlen(qual),
	                      .ts_micros = ts, .value = (const uint8_t *)val,
	                      .value_len = strlen(val)};
}

/* Collects the keys a scan returns as "k1,k2,...". */
static const char *scan_keys(rk_bt_client *c, const char *table, const rk_bt_read *q,
                             size_t *nrows)
{
	static char out[1 << 16];
	rk_bt_scan *s;
	const rk_bt_row *r;
	int rc;
	size_t o = 0;
	out[0] = 0;
	*nrows = 0;
	if (rk_bt__scan_open(&s, c, table, q) < 0)
		fail_msg("scan_open: %s", rk_error_last());
	while ((rc = rk_bt__scan_next(&r, s)) == 0) {
		if (o + r->key_len + 2 < sizeof out) {
			if (o)
				out[o++] = ',';
			memcpy(out + o, r->key, r->key_len);
			o += r->key_len;
			out[o] = 0;
		}
		(*nrows)++;
	}
	if (rc != RK_EITEROVER)
		fail_msg("scan_next: %d %s", rc, rk_error_last());
	assert_int_equal(rk_bt__scan_rows(s), *nrows);
	rk_bt__scan_free(s);
	return out;
}

/* ---- tests ---- */

static void test_uri(void **state)
{
	(void)state;
	char p[64], i[64];
	assert_int_equal(rk_bt__parse_uri(p, i, sizeof p, "bigtable://proj-1/inst-2"), 0);
	assert_string_equal(p, "proj-1");
	assert_string_equal(i, "inst-2");
	const char *bad[] = {"bigtable:/p/i", "bigtable://p", "bigtable://p/", "bigtable:///i",
	                     "bigtable://p/i/x", "hbase://p/i", "bigtable://p q/i", ""};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		rk_bt_client *c = NULL;
		assert_int_equal(rk_bt__client_open(&c, bad[k], NULL), RK_EINVALID);
		assert_null(c);
		assert_non_null(strstr(rk_error_last(), "bad URI"));
	}
}

static void test_credentials(void **state)
{
	(void)state;
	rk_bt_client *c = NULL;
	char dir[] = "/tmp/rk_bt_credXXXXXX", path[128];
	assert_non_null(mkdtemp(dir));
	char home[512];
	snprintf(home, sizeof home, "%s", getenv("HOME") ? getenv("HOME") : "/");
	unsetenv("BIGTABLE_EMULATOR_HOST");
	setenv("GCE_METADATA_HOST", "127.0.0.1:1", 1); /* no GCE here: fail fast */
	setenv("HOME", dir, 1);                        /* no gcloud well-known file */
	snprintf(path, sizeof path, "%s/missing.json", dir);
	setenv("GOOGLE_APPLICATION_CREDENTIALS", path, 1);
	int rc = rk_bt__client_open(&c, URI, NULL);
	assert_int_equal(rc, RK_EIO);
	assert_null(c);
	assert_non_null(strstr(rk_error_last(), "no Google default credentials"));
	assert_non_null(strstr(rk_error_last(), "BIGTABLE_EMULATOR_HOST"));

	/* a well-formed (if useless) user credential: the TLS channel builds */
	snprintf(path, sizeof path, "%s/user.json", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"type\":\"authorized_user\",\"client_id\":\"x.apps.googleusercontent.com\","
	      "\"client_secret\":\"s\",\"refresh_token\":\"t\"}\n", f);
	fclose(f);
	setenv("GOOGLE_APPLICATION_CREDENTIALS", path, 1);
	rc = rk_bt__client_open(&c, URI, NULL);
	if (rc != 0)
		fail_msg("open with credentials: %s", rk_error_last());
	rk_bt__client_free(c);
	unlink(path);
	rmdir(dir);
	unsetenv("GOOGLE_APPLICATION_CREDENTIALS");
	setenv("HOME", home, 1);
	setenv("BIGTABLE_EMULATOR_HOST", emu.host, 1);
}

static void test_admin(void **state)
{
	(void)state;
	rk_bt_client *c = open_client(0, 0);
	rk_bt_family fam[] = {{"cf", 3, NULL}, {"meta", 0, NULL}};
	rk_bt_bytes splits[] = {b("k0600"), b("k0300")};
	assert_int_equal(rk_bt__table_create(c, "adm", fam, 2, splits, 2), 0);
	assert_int_equal(rk_bt__table_create(c, "adm", fam, 2, NULL, 0), RK_EEXISTS);
	assert_int_equal(rk_bt__table_create(c, "adm2", fam, 1, NULL, 0), 0);
	char **v;
	size_t n;
	assert_int_equal(rk_bt__table_list(&v, &n, c), 0);
	int seen = 0;
	for (size_t i = 0; i < n; i++)
		seen += !strcmp(v[i], "adm") || !strcmp(v[i], "adm2");
	assert_int_equal(seen, 2);
	assert_null(v[n]);
	rk_bt__strv_free(v);
	/* cbt sees the families */
	const char *out = run(CBT " ls adm");
	assert_non_null(strstr(out, "cf"));
	assert_non_null(strstr(out, "meta"));
	assert_int_equal(rk_bt__table_delete(c, "adm2"), 0);
	assert_int_equal(rk_bt__table_delete(c, "adm2"), RK_ENOTFOUND);
	assert_non_null(strstr(rk_error_last(), "NOT_FOUND"));
	assert_int_equal(rk_bt__table_create(c, "-bad", fam, 1, NULL, 0), RK_EINVALID);
	rk_bt_family badfam = {"c:f", 0, NULL};
	assert_int_equal(rk_bt__table_create(c, "t", &badfam, 1, NULL, 0), RK_EINVALID);
	assert_int_equal(rk_bt__table_delete(c, "adm"), 0);
	rk_bt__client_free(c);
}

enum { ROWS = 2500 };

static void load_rows(rk_bt_client *c, const char *table)
{
	rk_bt_writer *w;
	rk_bt_mutation m[3];
	char key[16], val[16], old[16];
	assert_int_equal(rk_bt__writer_new(&w, c, table), 0);
	for (int i = 0; i < ROWS; i++) {
		snprintf(key, sizeof key, "k%04d", i);
		snprintf(val, sizeof val, "v%04d", i);
		snprintf(old, sizeof old, "old%04d", i);
		set_cell(&m[0], "cf", "q", 2000000, val);
		set_cell(&m[1], "cf", "q", 1000000, old); /* an older version */
		set_cell(&m[2], "meta", "n", 1000000, key);
		if (rk_bt__writer_add(w, (const uint8_t *)key, strlen(key), m, 3) < 0)
			fail_msg("add: %s", rk_error_last());
	}
	if (rk_bt__writer_flush(w) < 0)
		fail_msg("flush: %s", rk_error_last());
	rk_bt_write_stats st;
	rk_bt__writer_stats(&st, w);
	assert_int_equal(st.rows_added, ROWS);
	assert_int_equal(st.rows_acked, ROWS);
	assert_int_equal(st.rows_failed, 0);
	assert_true(st.calls >= ROWS / 400); /* batches of 400 */
	rk_bt__writer_free(w);
}

static void test_write_read(void **state)
{
	(void)state;
	rk_bt_client *c = open_client(400, 3);
	rk_bt_family fam[] = {{"cf", 5, NULL}, {"meta", 1, NULL}};
	rk_bt_bytes splits[] = {b("k1000"), b("k2000")};
	assert_int_equal(rk_bt__table_create(c, "rw", fam, 2, splits, 2), 0);
	load_rows(c, "rw");

	/* everything */
	rk_bt_read q = RK_BT_READ_INIT;
	size_t n;
	scan_keys(c, "rw", &q, &n);
	assert_int_equal(n, ROWS);

	/* a row set of ranges (closed/open bounds) and single keys, out of order */
	rk_bt_range rg[] = {
		{.start = b("k0500"), .start_open = 1, .end = b("k0510"), .end_closed = 1},
		{.start = b("k0100"), .end = b("k0103")},
	};
	rk_bt_bytes keys[] = {b("k2499"), b("k0000"), b("nope")};
	q.ranges = rg;
	q.nranges = 2;
	q.keys = keys;
	q.nkeys = 3;
	const char *got = scan_keys(c, "rw", &q, &n);
	assert_string_equal(got, "k0000,k0100,k0101,k0102,k0501,k0502,k0503,k0504,k0505,k0506,"
	                         "k0507,k0508,k0509,k0510,k2499");
	/* the row limit */
	q.rows_limit = 4;
	got = scan_keys(c, "rw", &q, &n);
	assert_string_equal(got, "k0000,k0100,k0101,k0102");

	/* cells: all versions, newest first; then filters */
	rk_bt_read one = RK_BT_READ_INIT;
	rk_bt_bytes k7 = b("k0007");
	one.keys = &k7;
	one.nkeys = 1;
	rk_bt_scan *s;
	const rk_bt_row *r;
	assert_int_equal(rk_bt__scan_open(&s, c, "rw", &one), 0);
	assert_int_equal(rk_bt__scan_next(&r, s), 0);
	assert_int_equal(r->ncells, 3);
	assert_memory_equal(r->cells[0].family, "cf", 2);
	assert_int_equal(r->cells[0].ts_micros, 2000000);
	assert_memory_equal(r->cells[0].value, "v0007", 5);
	assert_int_equal(r->cells[1].ts_micros, 1000000);
	assert_memory_equal(r->cells[1].value, "old0007", 7);
	assert_memory_equal(r->cells[2].family, "meta", 4);
	assert_memory_equal(r->cells[2].value, "k0007", 5);
	assert_int_equal(rk_bt__scan_next(&r, s), RK_EITEROVER);
	rk_bt__scan_free(s);

	struct {
		const char *fam;
		const char *qual;
		int64_t ts0, ts1;
		int versions, strip;
		size_t ncells;
		const char *first;
	} fc[] = {
		{NULL, NULL, 0, 0, 1, 0, 2, "v0007"},         /* newest version only */
		{"cf", NULL, 0, 0, 0, 0, 2, "v0007"},         /* one family */
		{NULL, "n", 0, 0, 0, 0, 1, "k0007"},          /* one qualifier */
		{NULL, NULL, 0, 1500000, 0, 0, 2, "old0007"}, /* time range */
		{"cf", NULL, 1000000, 2000000, 1, 0, 1, "old0007"},
		{NULL, NULL, 0, 0, 0, 1, 3, ""}, /* values stripped */
	};
	for (size_t i = 0; i < sizeof fc / sizeof fc[0]; i++) {
		rk_bt_read f = one;
		f.family_regex = fc[i].fam;
		f.qualifier_regex = (const uint8_t *)fc[i].qual;
		f.qualifier_regex_len = fc[i].qual ? strlen(fc[i].qual) : 0;
		f.ts_start_micros = fc[i].ts0;
		f.ts_end_micros = fc[i].ts1;
		f.versions = fc[i].versions;
		f.strip_values = fc[i].strip;
		assert_int_equal(rk_bt__scan_open(&s, c, "rw", &f), 0);
		if (rk_bt__scan_next(&r, s) != 0)
			fail_msg("filter case %zu: %s", i, rk_error_last());
		if (r->ncells != fc[i].ncells)
			fail_msg("filter case %zu: %zu cells, want %zu", i, r->ncells, fc[i].ncells);
		assert_int_equal(r->cells[0].value_len, strlen(fc[i].first));
		assert_memory_equal(r->cells[0].value, fc[i].first, strlen(fc[i].first));
		rk_bt__scan_free(s);
	}

	/* cbt agrees on the count, the values and the timestamps */
	const char *out = run(CBT " count rw");
	assert_int_equal(atoi(out), ROWS);
	out = run(CBT " read rw start=k0042 end=k0043");
	assert_non_null(strstr(out, "k0042"));
	assert_non_null(strstr(out, "\"v0042\""));
	assert_non_null(strstr(out, "\"old0042\""));
	assert_non_null(strstr(out, "1970/01/01-00:00:02.000000")); /* 2000000 µs */
	assert_non_null(strstr(out, "1970/01/01-00:00:01.000000"));

	/* and rowkey reads what cbt writes */
	run(CBT " set rw zz-cbt cf:col=from-cbt");
	rk_bt_bytes zk = b("zz-cbt");
	one.keys = &zk;
	assert_int_equal(rk_bt__scan_open(&s, c, "rw", &one), 0);
	assert_int_equal(rk_bt__scan_next(&r, s), 0);
	assert_int_equal(r->ncells, 1);
	assert_int_equal(r->cells[0].qualifier_len, 3);
	assert_memory_equal(r->cells[0].qualifier, "col", 3);
	assert_int_equal(r->cells[0].value_len, 8);
	assert_memory_equal(r->cells[0].value, "from-cbt", 8);
	assert_true(r->cells[0].ts_micros > 0);
	rk_bt__scan_free(s);

	/* SampleRowKeys: sorted keys, growing offsets */
	rk_bt_sample *sm;
	size_t ns;
	if (rk_bt__sample_row_keys(&sm, &ns, c, "rw") < 0)
		fail_msg("sample: %s", rk_error_last());
	for (size_t i = 1; i < ns; i++) {
		assert_true(sm[i].offset_bytes >= sm[i - 1].offset_bytes);
		if (sm[i].key_len && sm[i - 1].key_len) {
			size_t l = sm[i].key_len < sm[i - 1].key_len ? sm[i].key_len : sm[i - 1].key_len;
			int cmpv = memcmp(sm[i - 1].key, sm[i].key, l);
			assert_true(cmpv < 0 || (cmpv == 0 && sm[i - 1].key_len < sm[i].key_len));
		}
	}
	rk_bt__samples_free(sm, ns);
	printf("SampleRowKeys on %d rows: %zu samples\n", ROWS, ns);

	/* deletes: a whole row, a column, a version range, a family */
	rk_bt_writer *w;
	assert_int_equal(rk_bt__writer_new(&w, c, "rw"), 0);
	rk_bt_mutation d;
	d = (rk_bt_mutation){.kind = RK_BT_DELETE_ROW};
	assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)"k0001", 5, &d, 1), 0);
	d = (rk_bt_mutation){.kind = RK_BT_DELETE_COLUMN, .family = "cf",
	                     .qualifier = (const uint8_t *)"q", .qualifier_len = 1};
	assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)"k0002", 5, &d, 1), 0);
	d.ts_micros = 2000000;
	d.ts_end_micros = 3000000;
	assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)"k0003", 5, &d, 1), 0);
	d = (rk_bt_mutation){.kind = RK_BT_DELETE_FAMILY, .family = "meta"};
	assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)"k0004", 5, &d, 1), 0);
	assert_int_equal(rk_bt__writer_flush(w), 0);
	rk_bt__writer_free(w);
	rk_bt_range first5 = {.start = b("k0000"), .end = b("k0005")};
	rk_bt_read q5 = RK_BT_READ_INIT;
	q5.ranges = &first5;
	q5.nranges = 1;
	assert_string_equal(scan_keys(c, "rw", &q5, &n), "k0000,k0002,k0003,k0004");
	size_t want[] = {3, 1, 2, 2}; /* cells left in k0000, k0002, k0003, k0004 */
	assert_int_equal(rk_bt__scan_open(&s, c, "rw", &q5), 0);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(rk_bt__scan_next(&r, s), 0);
		assert_int_equal(r->ncells, want[i]);
	}
	rk_bt__scan_free(s);
	rk_bt_read all = RK_BT_READ_INIT;
	scan_keys(c, "rw", &all, &n);
	assert_int_equal(n, ROWS);
	out = run(CBT " count rw");
	assert_int_equal(atoi(out), ROWS); /* -1 deleted row, +1 cbt row */

	assert_int_equal(rk_bt__table_delete(c, "rw"), 0);
	rk_bt__client_free(c);
}

static void test_bad_writes_and_missing_table(void **state)
{
	(void)state;
	rk_bt_client *c = open_client(10, 2);
	rk_bt_writer *w;
	rk_bt_mutation m;
	char big[5000];
	memset(big, 'x', sizeof big);
	assert_int_equal(rk_bt__writer_new(&w, c, "no_such_table"), 0);
	set_cell(&m, "cf", "q", 1500, "v"); /* not a whole millisecond */
	assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)"a", 1, &m, 1), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "milliseconds"));
	set_cell(&m, "cf", "q", RK_BT_TS_NOW, "v");
	assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)big, sizeof big, &m, 1), RK_ETOOLONG);
	assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)"", 0, &m, 1), RK_EINVALID);
	assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)"a", 1, &m, 0), RK_EINVALID);
	m.family = NULL;
	assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)"a", 1, &m, 1), RK_EINVALID);
	set_cell(&m, "cf", "q", RK_BT_TS_NOW, "v");
	for (int i = 0; i < 25; i++) {
		char key[16];
		snprintf(key, sizeof key, "r%02d", i);
		assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)key, 3, &m, 1), 0);
	}
	int rc = rk_bt__writer_flush(w);
	assert_int_equal(rc, RK_ENOTFOUND);
	assert_non_null(strstr(rk_error_last(), "25 of 25 rows failed"));
	assert_non_null(strstr(rk_error_last(), "NOT_FOUND"));
	rk_bt_write_stats st;
	rk_bt__writer_stats(&st, w);
	assert_int_equal(st.rows_failed, 25);
	assert_int_equal(st.rows_acked, 0);
	assert_int_equal(st.retries, 0); /* NOT_FOUND is not retried */
	assert_int_equal(rk_bt__writer_flush(w), 0); /* reported once */
	rk_bt__writer_free(w);

	rk_bt_scan *s;
	const rk_bt_row *r;
	rk_bt_read q = RK_BT_READ_INIT;
	assert_int_equal(rk_bt__scan_open(&s, c, "no_such_table", &q), 0);
	assert_int_equal(rk_bt__scan_next(&r, s), RK_ENOTFOUND);
	assert_int_equal(rk_bt__scan_next(&r, s), RK_ENOTFOUND); /* stays failed */
	rk_bt__scan_free(s);
	rk_bt_sample *sm;
	size_t ns;
	assert_int_equal(rk_bt__sample_row_keys(&sm, &ns, c, "no_such_table"), RK_ENOTFOUND);
	rk_bt__client_free(c);
}

typedef struct done_log {
	int n;
	uint64_t seq[16];
	int rc[16];
	int with_why;
} done_log;

static void on_done(uint64_t seq, int rc, const char *why, void *payload)
{
	done_log *d = payload;
	if (d->n < 16) {
		d->seq[d->n] = seq;
		d->rc[d->n] = rc;
	}
	d->n++;
	d->with_why += why != NULL && *why != 0;
}

/* Column selection with bytes that are regex syntax, per-row callbacks, and
 * the client's strictly increasing clock. */
static void test_columns_callbacks_clock(void **state)
{
	(void)state;
	rk_bt_client *c = open_client(2, 2);
	rk_bt_family fam[] = {{"cf", 1, NULL}, {"meta", 1, NULL}};
	assert_int_equal(rk_bt__table_create(c, "cols", fam, 2, NULL, 0), 0);
	rk_bt_writer *w;
	assert_int_equal(rk_bt__writer_new(&w, c, "cols"), 0);
	done_log log = {0};
	rk_bt__writer_on_done(w, on_done, &log);
	const char *quals[] = {"a.b", "axb", "a*", "aaa", "q\n"};
	rk_bt_mutation m[6];
	for (int i = 0; i < 5; i++)
		set_cell(&m[i], "cf", quals[i], 1000, quals[i]);
	m[5] = (rk_bt_mutation){.kind = RK_BT_SET_CELL, .family = "cf",
	                        .qualifier = (const uint8_t *)"z\0\xff", .qualifier_len = 3,
	                        .ts_micros = 1000, .value = (const uint8_t *)"bin", .value_len = 3};
	assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)"row", 3, m, 6), 0);
	set_cell(&m[0], "meta", "n", 1000, "meta");
	assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)"row", 3, m, 1), 0);
	assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)"row2", 4, m, 1), 0);
	assert_int_equal(rk_bt__writer_flush(w), 0);
	assert_int_equal(log.n, 3);
	uint64_t seen = 0;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(log.rc[i], 0);
		seen |= 1u << log.seq[i];
	}
	assert_int_equal(seen, 7);
	rk_bt__writer_free(w);

	struct {
		rk_bt_column cols[3];
		size_t n;
		const char *values; /* values of the cells of "row", in order */
	} cs[] = {
		{{{"cf", (const uint8_t *)"a.b", 3}}, 1, "a.b"},
		{{{"cf", (const uint8_t *)"a*", 2}}, 1, "a*"},
		{{{"cf", (const uint8_t *)"z\0\xff", 3}}, 1, "bin"},
		{{{"cf", (const uint8_t *)"q\n", 2}, {"meta", NULL, 0}}, 2, "q\n,meta"},
		{{{"meta", NULL, 0}}, 1, "meta"},
		{{{"cf", (const uint8_t *)"nope", 4}}, 1, ""},
	};
	for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
		rk_bt_read q = RK_BT_READ_INIT;
		rk_bt_bytes k = b("row");
		q.keys = &k;
		q.nkeys = 1;
		q.columns = cs[i].cols;
		q.ncolumns = cs[i].n;
		rk_bt_scan *s;
		const rk_bt_row *r;
		char got[256] = "";
		size_t o = 0;
		assert_int_equal(rk_bt__scan_open(&s, c, "cols", &q), 0);
		int rc = rk_bt__scan_next(&r, s);
		if (rc == 0)
			for (size_t j = 0; j < r->ncells && o + r->cells[j].value_len + 2 < sizeof got; j++) {
				if (o)
					got[o++] = ',';
				memcpy(got + o, r->cells[j].value, r->cells[j].value_len);
				o += r->cells[j].value_len;
				got[o] = 0;
			}
		else if (rc != RK_EITEROVER)
			fail_msg("columns case %zu: %s", i, rk_error_last());
		if (strcmp(got, cs[i].values) != 0)
			fail_msg("columns case %zu: got '%s', want '%s'", i, got, cs[i].values);
		rk_bt__scan_free(s);
	}

	/* a failing row reaches the callback with its code and the server's text */
	assert_int_equal(rk_bt__writer_new(&w, c, "missing"), 0);
	done_log bad = {0};
	rk_bt__writer_on_done(w, on_done, &bad);
	assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)"r", 1, m, 1), 0);
	assert_int_equal(rk_bt__writer_flush(w), RK_ENOTFOUND);
	assert_int_equal(bad.n, 1);
	assert_int_equal(bad.rc[0], RK_ENOTFOUND);
	assert_int_equal(bad.with_why, 1);
	rk_bt__writer_free(w);

	int64_t prev = 0;
	for (int i = 0; i < 2000; i++) {
		int64_t t = rk_bt__client_next_ts(c);
		assert_true(t > prev);
		assert_int_equal(t % 1000, 0);
		prev = t;
	}
	assert_true(prev >= rk_bt__now_micros() - 5000000);
	assert_int_equal(rk_bt__table_delete(c, "cols"), 0);
	rk_bt__client_free(c);
}

/* One client shared by threads, each with its own writer: every row lands,
 * and the shared clock never hands out the same timestamp twice. */
enum { THREADS = 4, PER_THREAD = 500 };

typedef struct thread_arg {
	rk_bt_client *c;
	int id;
	int rc;
	int64_t ts[PER_THREAD];
} thread_arg;

static void *writer_thread(void *p)
{
	thread_arg *a = p;
	rk_bt_writer *w;
	char key[32], val[32];
	a->rc = rk_bt__writer_new(&w, a->c, "threads");
	if (a->rc < 0)
		return NULL;
	for (int i = 0; i < PER_THREAD && a->rc == 0; i++) {
		snprintf(key, sizeof key, "t%d-%04d", a->id, i);
		snprintf(val, sizeof val, "%d", i);
		a->ts[i] = rk_bt__client_next_ts(a->c);
		rk_bt_mutation m;
		set_cell(&m, "cf", "q", a->ts[i], val);
		a->rc = rk_bt__writer_add(w, (const uint8_t *)key, strlen(key), &m, 1);
	}
	if (a->rc == 0)
		a->rc = rk_bt__writer_flush(w);
	rk_bt__writer_free(w);
	return NULL;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

static void test_threads_share_a_client(void **state)
{
	(void)state;
	rk_bt_client *c = open_client(64, 2);
	rk_bt_family fam = {"cf", 1, NULL};
	assert_int_equal(rk_bt__table_create(c, "threads", &fam, 1, NULL, 0), 0);
	static thread_arg args[THREADS];
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++) {
		args[i] = (thread_arg){.c = c, .id = i};
		assert_int_equal(pthread_create(&t[i], NULL, writer_thread, &args[i]), 0);
	}
	static int64_t all[THREADS * PER_THREAD];
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(args[i].rc, 0);
		memcpy(all + i * PER_THREAD, args[i].ts, sizeof args[i].ts);
	}
	qsort(all, THREADS * PER_THREAD, sizeof all[0], cmp_i64);
	for (int i = 1; i < THREADS * PER_THREAD; i++)
		assert_true(all[i] > all[i - 1]);
	rk_bt_read q = RK_BT_READ_INIT;
	size_t n;
	scan_keys(c, "threads", &q, &n);
	assert_int_equal(n, THREADS * PER_THREAD);
	assert_int_equal(rk_bt__table_delete(c, "threads"), 0);
	rk_bt__client_free(c);
}

/* The emulator dies in the middle of a load: the rows acknowledged before
 * are counted, every other row is reported failed, nothing is lost silently. */
static void test_emulator_killed_mid_load(void **state)
{
	(void)state;
	emulator e2;
	assert_int_equal(emulator_start(&e2), 0);
	setenv("BIGTABLE_EMULATOR_HOST", e2.host, 1);
	rk_bt_opts o = RK_BT_OPTS_INIT;
	o.batch_size = 100;
	o.inflight = 2;
	o.backoff_ms = 5;
	o.max_attempts = 3;
	o.timeout_ms = 5000;
	rk_bt_client *c;
	assert_int_equal(rk_bt__client_open(&c, URI, &o), 0);
	setenv("BIGTABLE_EMULATOR_HOST", emu.host, 1);
	rk_bt_family fam = {"cf", 1, NULL};
	assert_int_equal(rk_bt__table_create(c, "kill", &fam, 1, NULL, 0), 0);
	rk_bt_writer *w;
	rk_bt_mutation m;
	set_cell(&m, "cf", "q", RK_BT_TS_NOW, "value");
	assert_int_equal(rk_bt__writer_new(&w, c, "kill"), 0);
	char key[16];
	for (int i = 0; i < 1000; i++) {
		snprintf(key, sizeof key, "a%05d", i);
		assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)key, strlen(key), &m, 1), 0);
	}
	assert_int_equal(rk_bt__writer_flush(w), 0);
	emulator_stop(&e2);
	for (int i = 0; i < 1000; i++) {
		snprintf(key, sizeof key, "b%05d", i);
		assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)key, strlen(key), &m, 1), 0);
	}
	int rc = rk_bt__writer_flush(w);
	assert_int_equal(rc, RK_EIO);
	assert_non_null(strstr(rk_error_last(), "UNAVAILABLE"));
	assert_non_null(strstr(rk_error_last(), "1000 of 2000 rows failed (1000 acknowledged)"));
	rk_bt_write_stats st;
	rk_bt__writer_stats(&st, w);
	assert_int_equal(st.rows_acked, 1000);
	assert_int_equal(st.rows_failed, 1000);
	assert_int_equal(st.retries, 1000 * (o.max_attempts - 1)); /* UNAVAILABLE is retried */
	rk_bt__writer_free(w);
	rk_bt__client_free(c);
}

int main(void)
{
	if (access(EMULATOR, X_OK) != 0) {
		printf("skipped: %s not installed\n", EMULATOR);
		return 77; /* ctest: SKIP_RETURN_CODE */
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uri),
		cmocka_unit_test(test_credentials),
		cmocka_unit_test(test_admin),
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_bad_writes_and_missing_table),
		cmocka_unit_test(test_columns_callbacks_clock),
		cmocka_unit_test(test_threads_share_a_client),
		cmocka_unit_test(test_emulator_killed_mid_load),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
#else
#include <stdio.h>
int main(void)
{
	puts("skipped: built without RK_WITH_BIGTABLE");
	return 77; /* ctest: SKIP_RETURN_CODE */
}
#endif
