/*
 * Power-cut test: a loader child process, with the power-cut
 * shim preloaded (tests/faults/powercut_shim.c), writes rows in sync mode
 * to a three-server store with small regions (so splits happen) and reports
 * each acknowledged batch through a pipe. The parent kills it at a random
 * moment, then applies the shim's journal (tests/faults/powercut.h) as a
 * machine losing power would: every write since the last sync of its file
 * is dropped, or in every other round a random subset of them survives with
 * holes of zeros (writes reordered). It then reopens the store, which must
 * open; `check` must be clean; and every acknowledged row must be there with
 * its value. RK_POWERCUT_ROUNDS rounds (default 24: 12 of each mode; the
 * soak script runs more). Skipped (77) when the shim is not built.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "faults/powercut.h"
#include "crash/crash_rows.h"
#include "integration/store_test_util.h"

#define BATCH 10

extern char **environ;

static rk_store_options opts(void)
{
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.n_servers = 3;
	o.split_threshold = 64 << 10;
	o.write_buffer_size = 64 << 10; /* flushes and compactions happen too */
	return o;
}

static void loader(const char *dir, uint64_t next, int fd)
{
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts();
	if (rk_store_open(&s, dir, &o) || rk_table_open(&t, s, "t"))
		_exit(3);
	static char rows[BATCH][24], vals[BATCH][100];
	for (;;) {
		rk_mutation m[BATCH];
		for (int k = 0; k < BATCH; k++) {
			row_name(rows[k], next + (uint64_t)k);
			value_of(vals[k], next + (uint64_t)k);
			m[k] = (rk_mutation){RK_MUT_PUT, (const uint8_t *)rows[k], 17, "f", NULL, 0, 0,
			                     (const uint8_t *)vals[k], 100, 0};
		}
		if (rk_table_apply(t, m, BATCH, NULL))
			_exit(4);
		next += BATCH;
		if (write(fd, &next, sizeof next) != sizeof next)
			_exit(5);
	}
}

/* Reopens (must open), checks (must be clean), and finds every row below
 * `acked`; returns how many rows past it survived too. */
static uint64_t verify(const char *dir, uint64_t acked, int round, int mode)
{
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts();
	int rc = rk_store_open(&s, dir, &o);
	if (rc)
		fail_msg("round %d (%s): the store does not open after the power cut: %s", round,
		         mode ? "reorder" : "drop", rk_error_last());
	size_t problems = 0;
	if ((rc = rk_store_check(&problems, s, NULL, NULL)) != 0)
		fail_msg("round %d: check after the power cut: %zu problems: %s", round, problems,
		         rk_error_last());
	ST_OK(rk_table_open(&t, s, "t"));
	size_t cap = (size_t)acked + 1000000; /* rows the loader cannot have reached */
	unsigned char *seen = calloc(cap, 1);
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_scan *sc;
	const rk_row *r;
	char val[100], num[16];
	ST_OK(rk_scan_open(&sc, t, &so));
	while ((rc = rk_scan_next(&r, sc)) == 0) {
		assert_int_equal(r->key_len, 17);
		memcpy(num, r->key + 9, 8);
		num[8] = 0;
		uint64_t i = strtoull(num, NULL, 10);
		assert_true(i < cap);
		value_of(val, i);
		assert_int_equal(r->cells[0].value_len, 100);
		assert_memory_equal(r->cells[0].value, val, 100);
		seen[i] = 1;
	}
	if (rc != RK_EITEROVER)
		fail_msg("round %d: scan after the power cut: %s", round, rk_error_last());
	rk_scan_close(sc);
	for (uint64_t i = 0; i < acked; i++)
		if (!seen[i])
			fail_msg("round %d (%s): acknowledged row %llu missing after the power cut",
			         round, mode ? "reorder" : "drop", (unsigned long long)i);
	uint64_t extra = 0;
	for (uint64_t i = acked; i < cap; i++)
		extra += seen[i];
	free(seen);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	return extra;
}

static void test_power_cuts(void **state)
{
	(void)state;
	const char *shim = getenv("RK_POWERCUT_SHIM");
	if (!shim || access(shim, R_OK))
		skip();
	char *dir = st_tmpdir("powercut");
	int rounds = getenv("RK_POWERCUT_ROUNDS") ? atoi(getenv("RK_POWERCUT_ROUNDS")) : 24;
	{
		rk_store *s;
		rk_store_options o = opts();
		ST_OK(rk_store_open(&s, dir, &o));
		rk_family_def f = {"f", 1, NULL};
		rk_table_def d = {"t", &f, 1, NULL, 0, 0};
		ST_OK(rk_table_create(s, &d));
		ST_OK(rk_store_close(s));
	}
	char journal[4200];
	snprintf(journal, sizeof journal, "%s.journal", dir);
	uint64_t next = 0, seed = 0x90ec;
	int changed_total = 0;
	uint64_t extra_total = 0;
	for (int round = 0; round < rounds; round++) {
		int mode = round % 2 ? POWERCUT_REORDER : POWERCUT_DROP;
		int p[2];
		unlink(journal);
		assert_int_equal(pipe(p), 0);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			/* a fresh process with the shim preloaded */
			char a_next[32], a_fd[16], e_pre[4200], e_dir[4200], e_j[4300], e_asan[1024];
			close(p[0]);
			snprintf(a_next, sizeof a_next, "%llu", (unsigned long long)next);
			snprintf(a_fd, sizeof a_fd, "%d", p[1]);
			snprintf(e_pre, sizeof e_pre, "LD_PRELOAD=%s", shim);
			snprintf(e_dir, sizeof e_dir, "RK_POWERCUT_DIR=%s", dir);
			snprintf(e_j, sizeof e_j, "RK_POWERCUT_JOURNAL=%s", journal);
			/* gcc's ASan runtime insists on coming first among preloads */
			const char *asan = getenv("ASAN_OPTIONS");
			snprintf(e_asan, sizeof e_asan, "ASAN_OPTIONS=%s%sverify_asan_link_order=0",
			         asan ? asan : "", asan && *asan ? ":" : "");
			char *env[512];
			int k = 0;
			for (int i = 0; environ[i] && k < 500; i++)
				if (strncmp(environ[i], "LD_PRELOAD=", 11) &&
				    strncmp(environ[i], "RK_POWERCUT_", 12) &&
				    strncmp(environ[i], "ASAN_OPTIONS=", 13))
					env[k++] = environ[i];
			env[k++] = e_pre;
			env[k++] = e_dir;
			env[k++] = e_j;
			env[k++] = e_asan;
			env[k] = NULL;
			char *argv[] = {"test_powercut", "--loader", dir, a_next, a_fd, NULL};
			execve("/proc/self/exe", argv, env);
			_exit(9);
		}
		close(p[1]);
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		st_sleep_ms(80 + (long)((seed >> 33) % 250));
		kill(pid, SIGKILL);
		int status;
		waitpid(pid, &status, 0);
		if (!WIFSIGNALED(status))
			fail_msg("loader exited with status %d before the power cut",
			         WEXITSTATUS(status));
		uint64_t acked = next, v;
		while (read(p[0], &v, sizeof v) == (ssize_t)sizeof v)
			acked = v;
		close(p[0]);
		changed_total += powercut_apply(journal, mode, seed);
		extra_total += verify(dir, acked, round, mode);
		/* rows past acked that survived hold the values the next round
		 * writes again */
		next = acked;
	}
	fprintf(stderr,
	        "%d power cuts (%d dropping unsynced writes, %d reordering them): %d files lost "
	        "bytes, all %llu acknowledged rows present, %llu unacknowledged rows survived\n",
	        rounds, (rounds + 1) / 2, rounds / 2, changed_total, (unsigned long long)next,
	        (unsigned long long)extra_total);
	assert_true(changed_total > 0); /* the cuts did drop something */
	assert_true(next > 0);
	unlink(journal);
	st_rmtree(dir);
	free(dir);
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--loader")) {
		loader(argv[2], strtoull(argv[3], NULL, 10), atoi(argv[4]));
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_cuts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
