/*
 * Data integrity regressions: a flipped byte in a
 * table file is a read error naming table, region and file, never data; a
 * damaged write-ahead log record with later records after it refuses the
 * open (naming file and offset) until an explicit repair says what it
 * drops, while a torn tail is accepted; a second open of a store in one
 * process is refused and leaves the first one's lock in force against other
 * processes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "integration/integrity_util.h"

#define VLEN 100

static rk_store_options opts1(void)
{
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.n_servers = 1;
	o.background_splits = 0;
	o.split_threshold = 0;
	return o;
}

/* A one-server store holding rows [0, n), written `per` a batch; closed. */
static char *make_store(const char *tag, uint64_t n, size_t per)
{
	char *dir = st_tmpdir(tag);
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts1();
	ST_OK(rk_store_open(&s, dir, &o));
	it_create(s);
	ST_OK(rk_table_open(&t, s, "t"));
	it_write(t, 0, n, per, VLEN);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	return dir;
}

static void log_path(char *out, size_t cap, const char *dir)
{
	char rs[4200];
	snprintf(rs, sizeof rs, "%s/rs-000", dir);
	assert_int_equal(it_newest(out, cap, rs, ".log"), 0);
}

/* Item 1: bit rot in a table file is a read error naming the file. */
static void test_table_flip_is_read_error(void **state)
{
	(void)state;
	char *dir = make_store("rot", 300, 50);
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts1();
	/* an open replays the log into a table file */
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_store_close(s));
	char rs[4200], ldb[4400];
	snprintf(rs, sizeof rs, "%s/rs-000", dir);
	assert_int_equal(it_newest(ldb, sizeof ldb, rs, ".ldb"), 0);
	long size = it_file_size(ldb);
	assert_true(size > 20000);
	/* a value byte in a data block (the blocks come first, values are
	 * incompressible and stored as written) */
	it_flip(ldb, size / 3, 0x10);
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_table_open(&t, s, "t"));
	uint64_t good, wrong;
	int rc = it_scan(t, VLEN, &good, &wrong);
	assert_int_equal(wrong, 0);
	assert_int_equal(rc, RK_ECORRUPT);
	const char *msg = rk_error_last();
	fprintf(stderr, "scan: %s\n", msg);
	assert_non_null(strstr(msg, "table t"));
	assert_non_null(strstr(msg, "region"));
	assert_non_null(strstr(msg, strrchr(ldb, '/') + 1));
	/* point reads: each row is right or an error, never other bytes */
	size_t errors = 0;
	for (uint64_t i = 0; i < 300; i++) {
		char row[32];
		uint8_t want[VLEN];
		rk_row *r;
		it_row(row, sizeof row, i);
		it_value(want, VLEN, i);
		rc = rk_table_get(&r, t, (const uint8_t *)row, strlen(row), NULL);
		if (rc) {
			assert_int_equal(rc, RK_ECORRUPT);
			errors++;
			continue;
		}
		assert_int_equal(r->cells[0].value_len, VLEN);
		assert_memory_equal(r->cells[0].value, want, VLEN);
		rk_row_free(r);
	}
	assert_true(errors > 0);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

static size_t repaired_lines;
static char repaired_text[2000];

static void on_repair(const char *line, void *payload)
{
	(void)payload;
	repaired_lines++;
	snprintf(repaired_text, sizeof repaired_text, "%s", line);
}

/* Item 2: a damaged record with later records refuses the open; the repair
 * says what it drops and keeps the later records. */
static void test_log_middle_damage_refused(void **state)
{
	(void)state;
	char *dir = make_store("wal", 60, 1); /* 60 log records */
	char log[4400];
	log_path(log, sizeof log, dir);
	long size = it_file_size(log);
	assert_true(size > 60 * VLEN);
	it_flip(log, size / 2, 0x01);
	rk_store *s;
	rk_store_options o = opts1();
	int rc = rk_store_open(&s, dir, &o);
	assert_int_equal(rc, RK_ECORRUPT);
	const char *msg = rk_error_last();
	fprintf(stderr, "open: %s\n", msg);
	assert_non_null(strstr(msg, log));
	assert_non_null(strstr(msg, "offset"));
	assert_non_null(strstr(msg, "--repair"));

	size_t damaged = 0;
	repaired_lines = 0;
	ST_OK(rk_store_repair(&damaged, dir, on_repair, NULL));
	assert_int_equal(damaged, 1);
	assert_int_equal(repaired_lines, 1);
	fprintf(stderr, "repair: %s\n", repaired_text);
	assert_non_null(strstr(repaired_text, log));
	char rl[4200];
	snprintf(rl, sizeof rl, "%s/repair.log", dir);
	assert_true(it_file_size(rl) > 0);

	rk_table *t;
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_table_open(&t, s, "t"));
	uint64_t good, wrong;
	ST_OK(it_scan(t, VLEN, &good, &wrong));
	assert_int_equal(wrong, 0);
	assert_int_equal(good, 59); /* only the damaged record is lost */
	rk_row *r;
	ST_OK(rk_table_get(&r, t, (const uint8_t *)"row00000059", 11, NULL)); /* after the damage */
	rk_row_free(r);
	rk_table_close(t);
	size_t problems = 1;
	ST_OK(rk_store_check(&problems, s, NULL, NULL));
	ST_OK(rk_store_close(s));
	/* nothing left to repair */
	ST_OK(rk_store_repair(&damaged, dir, NULL, NULL));
	assert_int_equal(damaged, 0);
	st_rmtree(dir);
	free(dir);
}

/* Item 2: the last record cut short by a crash is dropped, the rest kept
 * (a crash: a log closed cleanly and cut short is a lost log). */
static void test_log_torn_tail_accepted(void **state)
{
	(void)state;
	char *dir = st_tmpdir("torn");
	assert_int_equal(it_crashed_store(dir, 1, 40, 1, VLEN), 0);
	char log[4400];
	log_path(log, sizeof log, dir);
	long size = it_file_size(log);
	assert_int_equal(truncate(log, size - 30), 0);
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts1();
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_table_open(&t, s, "t"));
	uint64_t good, wrong;
	ST_OK(it_scan(t, VLEN, &good, &wrong));
	assert_int_equal(wrong, 0);
	assert_int_equal(good, 39);
	rk_table_close(t);
	size_t problems = 1;
	ST_OK(rk_store_check(&problems, s, NULL, NULL));
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* Item 2: a flipped byte in the last record (all of it there) is damage,
 * not a torn write: refused, then repaired. */
static void test_log_last_record_flip_refused(void **state)
{
	(void)state;
	char *dir = make_store("last", 40, 1);
	char log[4400];
	log_path(log, sizeof log, dir);
	it_flip(log, it_file_size(log) - 5, 0x80);
	rk_store *s;
	rk_store_options o = opts1();
	assert_int_equal(rk_store_open(&s, dir, &o), RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), log));
	size_t damaged = 0;
	ST_OK(rk_store_repair(&damaged, dir, NULL, NULL));
	assert_int_equal(damaged, 1);
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

/* Item 3: a second open in this process is refused and the first open's
 * lock still keeps another process out. */
static void test_second_open_keeps_lock(void **state)
{
	(void)state;
	char *dir = make_store("lock", 10, 5);
	int go[2], res[2];
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(res), 0);
	pid_t pid = fork(); /* before this process starts any store thread */
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;
		rk_store *s2;
		rk_store_options o = opts1();
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		int rc = rk_store_open(&s2, dir, &o);
		if (rc == 0)
			rk_store_close(s2);
		_exit(rc == RK_EBUSY ? 0 : 1);
	}
	rk_store *s, *s2;
	rk_table *t;
	rk_store_options o = opts1();
	ST_OK(rk_store_open(&s, dir, &o));
	assert_int_equal(rk_store_open(&s2, dir, &o), RK_EBUSY);
	fprintf(stderr, "second open: %s\n", rk_error_last());
	assert_non_null(strstr(rk_error_last(), "this process"));
	/* and through another path to the same directory */
	char alias[4200];
	snprintf(alias, sizeof alias, "%s/.", dir);
	assert_int_equal(rk_store_open(&s2, alias, &o), RK_EBUSY);
	/* the first open still works */
	ST_OK(rk_table_open(&t, s, "t"));
	it_write(t, 10, 20, 5, VLEN);
	assert_int_equal(write(go[1], "x", 1), 1);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0); /* the other process was refused */
	uint64_t good, wrong;
	ST_OK(it_scan(t, VLEN, &good, &wrong));
	assert_int_equal(good, 20);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	/* closed: it opens again */
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_store_close(s));
	close(go[0]), close(go[1]), close(res[0]), close(res[1]);
	st_rmtree(dir);
	free(dir);
}

static size_t regions_of(rk_store *s)
{
	rk_region_info *ri;
	size_t n;
	ST_OK(rk_store_regions(&ri, &n, s, "t"));
	rk_region_info_free(ri, n);
	return n;
}

/* Item 4: the split threshold a store was created with is kept: a reopened
 * store (default options) splits at it, and an explicit one replaces it. */
static void test_split_threshold_persisted(void **state)
{
	(void)state;
	char *dir = st_tmpdir("thresh");
	rk_store *s;
	rk_table *t;
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.n_servers = 1;
	o.split_threshold = 24 << 10;
	ST_OK(rk_store_open(&s, dir, &o));
	it_create(s);
	ST_OK(rk_store_close(s));
	rk_store_options d = RK_STORE_OPTIONS_INIT; /* as every later command opens it */
	d.n_servers = 1;
	ST_OK(rk_store_open(&s, dir, &d));
	ST_OK(rk_table_open(&t, s, "t"));
	it_write(t, 0, 3000, 50, VLEN); /* ~400 KiB */
	rk_table_close(t);
	ST_OK(rk_store_close(s)); /* waits for the background splits */
	ST_OK(rk_store_open(&s, dir, &d));
	size_t n1 = regions_of(s);
	fprintf(stderr, "regions after 3000 rows at a saved 24 KiB threshold: %zu\n", n1);
	assert_true(n1 >= 4);
	ST_OK(rk_store_close(s));
	/* an explicit threshold replaces the saved one: never split */
	rk_store_options z = d;
	z.split_threshold = 0;
	ST_OK(rk_store_open(&s, dir, &z));
	ST_OK(rk_store_close(s));
	ST_OK(rk_store_open(&s, dir, &d));
	ST_OK(rk_table_open(&t, s, "t"));
	it_write(t, 3000, 6000, 50, VLEN);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	ST_OK(rk_store_open(&s, dir, &d));
	assert_int_equal(regions_of(s), n1);
	ST_OK(rk_store_close(s));
	st_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_second_open_keeps_lock),
		cmocka_unit_test(test_table_flip_is_read_error),
		cmocka_unit_test(test_log_middle_damage_refused),
		cmocka_unit_test(test_log_torn_tail_accepted),
		cmocka_unit_test(test_log_last_record_flip_refused),
		cmocka_unit_test(test_split_threshold_persisted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
