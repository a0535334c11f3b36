/*
 * Full disk: a writer child process runs with tests/faults/enospc_shim.c
 * preloaded, so its writes under the store directory fail with ENOSPC once a
 * byte budget is spent, and reports every batch's per-entry results through a
 * pipe. The parent then reopens the store without the shim and verifies:
 * the failure's message names the table, the region server, the engine file
 * and the cause; the check finds nothing wrong; every acknowledged entry is
 * there with its value, and no entry of a failed group is (nothing
 * half-applied); the store takes writes again.
 *
 * Two disks: one that stays full, and one full for a single write call (as
 * when another process frees space at once). In the second, a region server
 * whose write failed must refuse later writes until the store is reopened:
 * LevelDB's log writer has by then counted the lost record, so records it
 * appended after it would sit at the wrong offsets and be dropped on replay
 * (acknowledged writes lost).
 *
 * The writer is this program re-executed with --writer. Skipped (77) when
 * RK_ENOSPC_SHIM does not name the built shim.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "integration/store_test_util.h"

#define BATCH 40
#define BATCHES 60
#define VAL_LEN 200

extern char **environ;

/* What the writer reports for each batch. */
typedef struct report {
	int32_t rc;
	int32_t results[BATCH];
	char msg[512]; /* the error message when rc != 0 */
} report;

static rk_store_options opts(void)
{
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.n_servers = 2;
	o.split_threshold = 0;
	return o;
}

/* Row i: a, b, c or d (one region each, servers 0 1 0 1), then its number. */
static void row_name(char *buf, uint64_t i)
{
	snprintf(buf, 16, "%c%07llu", 'a' + (int)(i % 4), (unsigned long long)i);
}

static void value_of(char *buf, uint64_t i)
{
	memset(buf, 'a' + (int)(i % 26), VAL_LEN);
	snprintf(buf, 32, "value-%llu", (unsigned long long)i);
}

/* The child: BATCHES batches of BATCH puts, each reported on fd, failed or
 * not (a caller may well retry after a failure). `buffered`: through
 * rk_table_apply_async, a flush after the last; a report's results are then
 * unknown (-1), its rc what apply_async (or, for the last, flush) said. */
static int writer(const char *dir, int fd, int buffered)
{
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts();
	if (rk_store_open(&s, dir, &o) || rk_table_open(&t, s, "t")) {
		fprintf(stderr, "writer: %s\n", rk_error_last());
		return 3;
	}
	static char rows[BATCH][16], vals[BATCH][VAL_LEN];
	for (uint64_t b = 0; b < BATCHES; b++) {
		rk_mutation m[BATCH];
		int res[BATCH];
		report r;
		memset(&r, 0, sizeof r);
		for (int k = 0; k < BATCH; k++) {
			uint64_t i = b * BATCH + (uint64_t)k;
			row_name(rows[k], i);
			value_of(vals[k], i);
			m[k] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)rows[k], 8, "f", NULL, 0, 0,
			                     (const uint8_t *)vals[k], VAL_LEN, 0};
		}
		if (buffered) {
			r.rc = rk_table_apply_async(t, m, BATCH);
			if (b == BATCHES - 1 && !r.rc)
				r.rc = rk_table_flush(t);
			for (int k = 0; k < BATCH; k++)
				res[k] = -1;
		} else {
			r.rc = rk_table_apply(t, m, BATCH, res);
		}
		for (int k = 0; k < BATCH; k++)
			r.results[k] = res[k];
		if (r.rc)
			snprintf(r.msg, sizeof r.msg, "%s", rk_error_last());
		if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
			return 5;
	}
	rk_table_close(t);
	rk_store_close(s); /* may fail on the full disk; the parent checks the store */
	return 0;
}

static void create_store(const char *dir)
{
	rk_store *s;
	rk_store_options o = opts();
	ST_OK(rk_store_open(&s, dir, &o));
	rk_family_def f = {"f", 1, NULL};
	rk_bytes splits[3] = {{(const uint8_t *)"b", 1}, {(const uint8_t *)"c", 1},
	                      {(const uint8_t *)"d", 1}};
	rk_table_def d = {"t", &f, 1, splits, 3, 0};
	ST_OK(rk_table_create(s, &d));
	ST_OK(rk_store_close(s));
}

/* Runs the writer under the shim; fills reps[BATCHES]. */
static void run_writer(const char *dir, const char *budget, const char *fails, report *reps,
                       int buffered)
{
	const char *shim = getenv("RK_ENOSPC_SHIM");
	char e_pre[4200], e_dir[4200], e_bytes[64], e_fails[64], e_asan[1024];
	snprintf(e_pre, sizeof e_pre, "LD_PRELOAD=%s", shim);
	snprintf(e_dir, sizeof e_dir, "RK_ENOSPC_DIR=%s", dir);
	snprintf(e_bytes, sizeof e_bytes, "RK_ENOSPC_BYTES=%s", budget);
	snprintf(e_fails, sizeof e_fails, "RK_ENOSPC_FAILS=%s", fails);
	/* gcc's ASan runtime insists on coming first among preloads */
	const char *asan = getenv("ASAN_OPTIONS");
	snprintf(e_asan, sizeof e_asan, "ASAN_OPTIONS=%s%sverify_asan_link_order=0",
	         asan ? asan : "", asan && *asan ? ":" : "");
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 6, sizeof *env);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) && strncmp(environ[i], "RK_ENOSPC_", 10) &&
		    strncmp(environ[i], "ASAN_OPTIONS=", 13))
			env[k++] = environ[i];
	env[k++] = e_pre;
	env[k++] = e_dir;
	env[k++] = e_bytes;
	env[k++] = e_fails;
	env[k++] = e_asan;
	env[k] = NULL;

	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char a_fd[16];
		close(p[0]);
		snprintf(a_fd, sizeof a_fd, "%d", p[1]);
		char *argv[] = {"test_store_full_disk", buffered ? "--writer-async" : "--writer",
		                (char *)dir, a_fd, NULL};
		execve("/proc/self/exe", argv, env);
		_exit(9);
	}
	close(p[1]);
	free(env);
	size_t got = 0;
	while (got < BATCHES && read(p[0], &reps[got], sizeof *reps) == (ssize_t)sizeof *reps)
		got++;
	close(p[0]);
	int status;
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("writer ended with status 0x%x", status);
	assert_int_equal(got, BATCHES);
}

/* The first failure's message says where and why. */
static void check_message(const report *reps)
{
	const char *msg = NULL;
	for (int b = 0; b < BATCHES && !msg; b++)
		if (reps[b].rc)
			msg = reps[b].msg;
	if (!msg)
		fail_msg("no write failed: the budget was never spent");
	fprintf(stderr, "first failure: %s\n", msg);
	const char *want[] = {"table t", "region server", "/rs-00", ".log",
	                      "No space left on device"};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		if (!strstr(msg, want[i]))
			fail_msg("the failure's message lacks '%s': %s", want[i], msg);
}

/* Reopens without the shim: check clean, acknowledged entries present,
 * failed ones absent, and the store writable. */
static void verify(const char *dir, const report *reps)
{
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts();
	ST_OK(rk_store_open(&s, dir, &o));
	size_t problems = 0;
	if (rk_store_check(&problems, s, NULL, NULL))
		fail_msg("check after the full disk: %zu problems: %s", problems, rk_error_last());
	ST_OK(rk_table_open(&t, s, "t"));
	size_t acked = 0, failed = 0;
	char row[16], val[VAL_LEN];
	for (uint64_t b = 0; b < BATCHES; b++)
		for (int k = 0; k < BATCH; k++) {
			uint64_t i = b * BATCH + (uint64_t)k;
			rk_row *r = NULL;
			row_name(row, i);
			int rc = rk_table_get(&r, t, (const uint8_t *)row, 8, NULL);
			if (reps[b].results[k] == -1) { /* buffered: either way, but whole */
				if (rc == 0) {
					acked++;
					value_of(val, i);
					assert_int_equal(r->ncells, 1);
					assert_memory_equal(r->cells[0].value, val, VAL_LEN);
				} else {
					failed++;
					assert_int_equal(rc, RK_ENOTFOUND);
				}
			} else if (reps[b].results[k] == 0) {
				acked++;
				if (rc)
					fail_msg("acknowledged row %s (batch %llu) lost: %s", row,
					         (unsigned long long)b, rk_error_last());
				value_of(val, i);
				assert_int_equal(r->ncells, 1);
				assert_int_equal(r->cells[0].value_len, VAL_LEN);
				assert_memory_equal(r->cells[0].value, val, VAL_LEN);
			} else {
				failed++;
				if (rc != RK_ENOTFOUND)
					fail_msg("row %s of a failed group (batch %llu) is there: "
					         "half-applied (%d)",
					         row, (unsigned long long)b, rc);
			}
			rk_row_free(r);
		}
	fprintf(stderr, "%zu entries acknowledged, %zu failed\n", acked, failed);
	assert_true(acked > 0);
	assert_true(failed > 0);
	/* the store takes writes again */
	ST_OK(rk_table_put(t, (const uint8_t *)"after", 5, "f", NULL, 0, 0, (const uint8_t *)"x", 1));
	rk_table_close(t);
	ST_OK(rk_store_close(s));
}

/* A fresh store, the writer under the shim (`fails`: "0" a disk that stays
 * full, "1" full for one write call), and the first failure's message
 * checked. The caller verifies, then removes and frees the directory. */
static char *full_disk_run(const char *name, const char *fails, int buffered, report *reps)
{
	char *dir = st_tmpdir(name);
	create_store(dir);
	run_writer(dir, "150000", fails, reps, buffered);
	check_message(reps);
	return dir;
}

static void done_with(char *dir, const report *reps)
{
	verify(dir, reps);
	st_rmtree(dir);
	free(dir);
}

static void test_disk_stays_full(void **state)
{
	(void)state;
	static report reps[BATCHES];
	done_with(full_disk_run("enospc", "0", 0, reps), reps);
}

static void test_disk_full_once(void **state)
{
	(void)state;
	static report reps[BATCHES];
	char *dir = full_disk_run("enospc1", "1", 0, reps);
	/* the server whose write failed refuses every later write (saying why);
	 * the other one, with its own log, goes on */
	int first = -1, srv = -1, other_ok = 0;
	for (int b = 0; b < BATCHES; b++) {
		if (first < 0 && reps[b].rc) {
			first = b;
			for (int k = 0; k < BATCH && srv < 0; k++)
				if (reps[b].results[k])
					srv = k % 2;
			continue;
		}
		if (first < 0)
			continue;
		for (int k = 0; k < BATCH; k++) {
			if (k % 2 != srv) {
				other_ok |= reps[b].results[k] == 0;
				continue;
			}
			if (reps[b].results[k] == 0)
				fail_msg("batch %d: server %d took a write after its failure in batch %d", b,
				         srv, first);
		}
		if (!strstr(reps[b].msg, "refus"))
			fail_msg("batch %d: the refusal does not say so: %s", b, reps[b].msg);
	}
	assert_true(first >= 0 && first + 1 < BATCHES);
	assert_true(other_ok);
	done_with(dir, reps);
}

/* Buffered writes on a disk that fills: a failure surfaces at a later
 * apply_async or at the flush, naming the server and the cause; once one is
 * reported no further batch is queued; the store is clean afterwards. */
static void test_disk_full_buffered(void **state)
{
	(void)state;
	static report reps[BATCHES];
	done_with(full_disk_run("enospc-async", "0", 1, reps), reps);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--writer"))
		return writer(argv[2], atoi(argv[3]), 0);
	if (argc == 4 && !strcmp(argv[1], "--writer-async"))
		return writer(argv[2], atoi(argv[3]), 1);
	const char *shim = getenv("RK_ENOSPC_SHIM");
	if (!shim || access(shim, R_OK)) {
		fprintf(stderr, "skipped: RK_ENOSPC_SHIM does not name the full-disk shim\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disk_stays_full),
		cmocka_unit_test(test_disk_full_once),
		cmocka_unit_test(test_disk_full_buffered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
