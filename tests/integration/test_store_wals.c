/*
 * Lost write-ahead logs are noticed (formats.md B.5): a log deleted, cut
 * short, replaced by another or written to after the store closed refuses
 * the open, naming the log and what was recorded of it, and a repair
 * (rk_store_repair, `rowkey check --repair`) accepts the loss saying what is
 * lost; a crash's logs (live, torn, several after memtable switches) open
 * without a false alarm; the list itself missing or damaged is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "integration/integrity_util.h"
#include "store/local/crc.h"
#include "store/local/engine_files.h"
#include "store/local/ldb_log.h"
#include "store/local/ldb_manifest.h"
#include "store/local/wals.h"

#define VLEN 100

static rk_store_options opts(unsigned servers)
{
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.n_servers = servers;
	o.background_splits = 0;
	o.split_threshold = 0;
	return o;
}

/* A store of `servers` servers (table t split at row00000100 when 2), rows
 * [0, n) written one a batch, closed cleanly: its logs sealed. */
static char *closed_store(const char *tag, unsigned servers, uint64_t n)
{
	char *dir = st_tmpdir(tag);
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts(servers);
	ST_OK(rk_store_open(&s, dir, &o));
	it_create_at(s, servers > 1 ? "row00000100" : NULL);
	ST_OK(rk_table_open(&t, s, "t"));
	it_write(t, 0, n, 1, VLEN);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	return dir;
}

static void server_log(char *out, size_t cap, const char *dir, unsigned server)
{
	char rs[4200];
	snprintf(rs, sizeof rs, "%s/rs-%03u", dir, server);
	assert_int_equal(it_newest(out, cap, rs, ".log"), 0);
}

/* The open is refused naming `log` and saying `what`. */
static void refused(const char *dir, unsigned servers, const char *log, const char *what)
{
	rk_store *s;
	rk_store_options o = opts(servers);
	int rc = rk_store_open(&s, dir, &o);
	if (rc == 0)
		rk_store_close(s);
	assert_int_equal(rc, RK_ECORRUPT);
	const char *msg = rk_error_last();
	fprintf(stderr, "open: %s\n", msg);
	if (log)
		assert_non_null(strstr(msg, log));
	assert_non_null(strstr(msg, what));
	assert_non_null(strstr(msg, "--repair"));
}

static char said[4][2000];
static size_t nsaid;

static void on_repair(const char *line, void *payload)
{
	(void)payload;
	if (nsaid < 4)
		snprintf(said[nsaid], sizeof said[nsaid], "%s", line);
	nsaid++;
}

/* Repairs; returns how many losses it reported. */
static size_t repair(const char *dir)
{
	size_t damaged = 0;
	nsaid = 0;
	ST_OK(rk_store_repair(&damaged, dir, on_repair, NULL));
	for (size_t i = 0; i < nsaid && i < 4; i++)
		fprintf(stderr, "repair: %s\n", said[i]);
	assert_int_equal(damaged, nsaid);
	return nsaid;
}

/* Opens, checks clean, and counts the rows (all of them right). */
static uint64_t rows_after(const char *dir, unsigned servers)
{
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts(servers);
	uint64_t good, wrong;
	size_t problems = 1;
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_store_check(&problems, s, NULL, NULL));
	assert_int_equal(problems, 0);
	ST_OK(rk_table_open(&t, s, "t"));
	ST_OK(it_scan(t, VLEN, &good, &wrong));
	assert_int_equal(wrong, 0);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	return good;
}

static void done(char *dir)
{
	st_rmtree(dir);
	free(dir);
}

static void test_deleted_log(void **state)
{
	(void)state;
	char *dir = closed_store("del", 1, 300);
	char log[4400];
	server_log(log, sizeof log, dir, 0);
	assert_int_equal(unlink(log), 0);
	refused(dir, 1, log, "is missing (");
	assert_int_equal(repair(dir), 1);
	assert_non_null(strstr(said[0], log));
	assert_non_null(strstr(said[0], "its writes are lost"));
	char rl[4200];
	snprintf(rl, sizeof rl, "%s/repair.log", dir);
	assert_true(it_file_size(rl) > 0);
	assert_int_equal(rows_after(dir, 1), 0);
	assert_int_equal(repair(dir), 0); /* nothing left to accept */
	done(dir);
}

static void test_truncated_log(void **state)
{
	(void)state;
	char *dir = closed_store("cut", 1, 300);
	char log[4400];
	server_log(log, sizeof log, dir, 0);
	long size = it_file_size(log);
	assert_int_equal(truncate(log, size / 2), 0);
	refused(dir, 1, log, "cut short");
	assert_int_equal(repair(dir), 1);
	assert_non_null(strstr(said[0], "replayed, the rest is lost"));
	uint64_t n = rows_after(dir, 1);
	fprintf(stderr, "%llu of 300 rows after the repair\n", (unsigned long long)n);
	assert_true(n > 100 && n < 200);
	done(dir);
}

/* Two servers' logs of the same size swapped: each is sound, neither is
 * the one closed there. */
static void test_swapped_logs(void **state)
{
	(void)state;
	char *dir = closed_store("swap", 2, 200);
	char a[4400], b[4400], tmp[4500];
	server_log(a, sizeof a, dir, 0);
	server_log(b, sizeof b, dir, 1);
	assert_int_equal(it_file_size(a), it_file_size(b));
	snprintf(tmp, sizeof tmp, "%s.x", a);
	assert_int_equal(rename(a, tmp), 0);
	assert_int_equal(rename(b, a), 0);
	assert_int_equal(rename(tmp, b), 0);
	refused(dir, 2, a, "is not the log closed there");
	assert_int_equal(repair(dir), 2);
	assert_non_null(strstr(said[0], "moved aside"));
	char lost[4500];
	snprintf(lost, sizeof lost, "%s.lost", a);
	assert_true(it_file_size(lost) > 0);
	assert_int_equal(rows_after(dir, 2), 0);
	done(dir);
}

static void test_grown_log(void **state)
{
	(void)state;
	char *dir = closed_store("grow", 1, 100);
	char log[4400];
	server_log(log, sizeof log, dir, 0);
	FILE *f = fopen(log, "ab");
	assert_non_null(f);
	fputs("more bytes after the close", f);
	fclose(f);
	refused(dir, 1, log, "written to since");
	assert_int_equal(repair(dir), 1);
	assert_non_null(strstr(said[0], "cut back"));
	assert_int_equal(rows_after(dir, 1), 100);
	done(dir);
}

/* A crash leaves the live log as LevelDB wrote it: cut short, it opens
 * (the torn tail); deleted, it is missed. */
static void test_crash_live_log(void **state)
{
	(void)state;
	char *dir = st_tmpdir("live");
	assert_int_equal(it_crashed_store(dir, 1, 200, 1, VLEN), 0);
	char log[4400];
	server_log(log, sizeof log, dir, 0);
	long size = it_file_size(log);
	assert_int_equal(truncate(log, size - 10), 0);
	assert_int_equal(rows_after(dir, 1), 199);
	done(dir);

	dir = st_tmpdir("live2");
	assert_int_equal(it_crashed_store(dir, 1, 200, 1, VLEN), 0);
	server_log(log, sizeof log, dir, 0);
	assert_int_equal(unlink(log), 0);
	refused(dir, 1, log, "the log LevelDB was writing");
	done(dir);
}

/* Many memtable switches (a small write buffer), then a crash: the logs
 * closed on the way open without a false alarm, every row there. */
static void test_crash_after_switches(void **state)
{
	(void)state;
	char *dir = st_tmpdir("switch");
	pid_t pid = fork();
	if (pid == 0) {
		rk_store *s;
		rk_table *t;
		rk_store_options o = opts(1);
		o.write_buffer_size = 64 << 10;
		if (rk_store_open(&s, dir, &o))
			_exit(3);
		it_create(s);
		if (rk_table_open(&t, s, "t"))
			_exit(4);
		it_write(t, 0, 3000, 20, VLEN);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the list followed LevelDB to its newest log, recorded live */
	char log[4400], rs[4200];
	server_log(log, sizeof log, dir, 0);
	uint64_t newest = strtoull(strrchr(log, '/') + 1, NULL, 10);
	rk__wals w = {0};
	int found;
	snprintf(rs, sizeof rs, "%s/rs-000", dir);
	ST_OK(rk_wals__load(&w, &found, rs));
	assert_true(found);
	fprintf(stderr, "newest log %llu; %zu recorded, the last %llu\n", (unsigned long long)newest,
	        w.n, (unsigned long long)w.logs[w.n - 1].number);
	assert_true(newest > 5); /* LevelDB started new logs on the way */
	assert_non_null(rk_wals__find(&w, newest));
	assert_int_equal(rk_wals__find(&w, newest)->state, RK_WAL_LIVE);
	rk_wals__free(&w);
	assert_int_equal(rows_after(dir, 1), 3000);
	done(dir);
}

static void test_list_missing_or_damaged(void **state)
{
	(void)state;
	char *dir = closed_store("list", 1, 50);
	char wals[4200];
	snprintf(wals, sizeof wals, "%s/rs-000/WALS", dir);
	assert_int_equal(unlink(wals), 0);
	refused(dir, 1, wals, "is missing");
	assert_int_equal(repair(dir), 1);
	assert_int_equal(rows_after(dir, 1), 50);

	it_flip(wals, 20, 0x01);
	refused(dir, 1, wals, "checksum mismatch");
	assert_int_equal(repair(dir), 1);
	assert_int_equal(rows_after(dir, 1), 50);
	done(dir);
}

/* The MANIFEST reader finds the log LevelDB writes: the newest log there. */
static void test_manifest_log_number(void **state)
{
	(void)state;
	char *dir = closed_store("mf", 1, 20);
	char rs[4200], cur[4400], mf[4600], log[4400], why[200];
	uint8_t *b;
	size_t n;
	snprintf(rs, sizeof rs, "%s/rs-000", dir);
	snprintf(cur, sizeof cur, "%s/CURRENT", rs);
	assert_int_equal(rk_engine__slurp(&b, &n, cur), 0);
	snprintf(mf, sizeof mf, "%s/%.*s", rs, (int)(n - 1), (const char *)b);
	free(b);
	assert_int_equal(rk_engine__slurp(&b, &n, mf), 0);
	rk__ldb_manifest m;
	assert_int_equal(rk_ldb__read_manifest(&m, b, n, why, sizeof why), 0);
	free(b);
	server_log(log, sizeof log, dir, 0);
	assert_int_equal(m.log_number, strtoull(strrchr(log, '/') + 1, NULL, 10));
	assert_true(m.edits >= 2);
	done(dir);
}

/* ---- a MANIFEST whose records cross LevelDB's 32 KiB blocks ---- */

typedef struct image {
	uint8_t *p;
	size_t len, block_off;
} image;

/* Appends one record as LevelDB's log::Writer frames it: FULL, or FIRST,
 * MIDDLE..., LAST across the 32 KiB blocks. */
static void frame(image *im, const uint8_t *d, size_t len)
{
	int begin = 1;
	do {
		size_t left = 32768 - im->block_off;
		if (left < 7) {
			memset(im->p + im->len, 0, left);
			im->len += left;
			im->block_off = 0;
			left = 32768;
		}
		size_t n = len < left - 7 ? len : left - 7;
		int end = n == len;
		uint8_t *h = im->p + im->len, type = begin && end ? 1 : begin ? 2 : end ? 4 : 3;
		h[4] = (uint8_t)n, h[5] = (uint8_t)(n >> 8), h[6] = type;
		memcpy(h + 7, d, n);
		uint32_t c = rk_crc__32c(h + 6, n + 1);
		c = ((c >> 15) | (c << 17)) + 0xa282ead8u; /* LevelDB's masked CRC */
		h[0] = (uint8_t)c, h[1] = (uint8_t)(c >> 8), h[2] = (uint8_t)(c >> 16),
		h[3] = (uint8_t)(c >> 24);
		im->len += 7 + n;
		im->block_off += 7 + n;
		d += n;
		len -= n;
		begin = 0;
	} while (len);
}

static void keep_record(const uint8_t *d, size_t len, void *payload)
{
	image *recs = payload; /* records back to back, each after its u32 length */
	memcpy(recs->p + recs->len, &(uint32_t){(uint32_t)len}, 4);
	memcpy(recs->p + recs->len + 4, d, len);
	recs->len += 4 + len;
}

/* The store's own MANIFEST, rewritten with a first edit that fills its
 * first block but for 17 bytes (next-file-number, tag 3, set again and
 * again: an edit LevelDB reads), so that each real edit after it crosses
 * a block boundary: the reader must hand the fragments on whole, and the
 * store must open on it. */
static void test_manifest_across_blocks(void **state)
{
	(void)state;
	char *dir = closed_store("mfb", 1, 20);
	char cur[4400], mf[4600], why[200];
	uint8_t *b;
	size_t n;
	snprintf(cur, sizeof cur, "%s/rs-000/CURRENT", dir);
	assert_int_equal(rk_engine__slurp(&b, &n, cur), 0);
	snprintf(mf, sizeof mf, "%s/rs-000/%.*s", dir, (int)(n - 1), (const char *)b);
	free(b);
	assert_int_equal(rk_engine__slurp(&b, &n, mf), 0);
	rk__ldb_manifest before, after;
	assert_int_equal(rk_ldb__read_manifest(&before, b, n, why, sizeof why), 0);

	image recs = {malloc(n + 64), 0, 0}, im = {calloc(1, 2 * n + 100000), 0, 0};
	rk__ldb_log_scan sc;
	assert_int_equal(rk_ldb__log_records(&sc, b, n, keep_record, &recs), 0);
	free(b);
	static uint8_t filler[32768 - 7 - 7 - 10];
	for (size_t i = 0; i < sizeof filler; i += 2)
		filler[i] = 3, filler[i + 1] = 1;
	frame(&im, filler, sizeof filler);
	for (size_t o = 0; o < recs.len;) {
		uint32_t len;
		memcpy(&len, recs.p + o, 4);
		frame(&im, recs.p + o + 4, len);
		o += 4 + len;
	}
	assert_true(im.len > 32768 + 7);
	assert_int_equal(rk_ldb__read_manifest(&after, im.p, im.len, why, sizeof why), 0);
	assert_int_equal(after.edits, before.edits + 1);
	assert_int_equal(after.log_number, before.log_number);
	FILE *f = fopen(mf, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(im.p, 1, im.len, f), im.len);
	assert_int_equal(fclose(f), 0);
	free(recs.p);
	free(im.p);
	assert_int_equal(rows_after(dir, 1), 20);
	done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deleted_log),
		cmocka_unit_test(test_truncated_log),
		cmocka_unit_test(test_swapped_logs),
		cmocka_unit_test(test_grown_log),
		cmocka_unit_test(test_crash_live_log),
		cmocka_unit_test(test_crash_after_switches),
		cmocka_unit_test(test_list_missing_or_damaged),
		cmocka_unit_test(test_manifest_log_number),
		cmocka_unit_test(test_manifest_across_blocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
