/*
 * Crash test: a loader child process writes to a store in sync mode (with
 * small regions, so splits and moves happen) and reports each acknowledged
 * batch through a pipe; the parent kills it with SIGKILL at a random moment,
 * reopens the store, runs the check and verifies that every acknowledged
 * row is present with its value. Repeated for RK_CRASH_ROUNDS rounds
 * (default 24) on the same store, then a third as many rounds in async
 * mode (a killed process, unlike a crashed machine, must lose nothing there
 * either). The loader is this program re-executed with --loader.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "crash/crash_rows.h"
#include "integration/store_test_util.h"

#define BATCH 20

/* The loader's durability: sync for the main rounds; the last rounds run in
 * async mode, where a killed process (not machine) must lose nothing either,
 * since every acknowledged write is in the OS's hands. */
static rk_durability durability = RK_DURABILITY_SYNC;

static rk_store_options opts(void)
{
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = durability;
	o.n_servers = 3;
	o.split_threshold = 96 << 10;
	return o;
}

/* The child: loads rows from `next` on, forever, reporting acks on fd. */
static void loader(const char *dir, uint64_t next, int fd)
{
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts();
	if (rk_store_open(&s, dir, &o) || rk_table_open(&t, s, "t"))
		_exit(3);
	/* open: the parent's kill timer may start */
	if (write(fd, &next, sizeof next) != sizeof next)
		_exit(5);
	static char rows[BATCH][24], vals[BATCH][100];
	for (uint64_t round = 0;; round++) {
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
		if (round % 40 == 39) {
			/* move a region now and then, so kills land inside moves too */
			rk_region_info *ri;
			size_t n;
			if (rk_store_regions(&ri, &n, s, "t"))
				_exit(6);
			size_t k = (size_t)(next / BATCH) % n;
			int rc = rk_region_move(s, ri[k].id, (ri[k].server + 1) % 3);
			if (rc && rc != RK_EBUSY && rc != RK_ENOTFOUND)
				_exit(7);
			rk_region_info_free(ri, n);
		}
	}
}

/* Reopens, checks, and verifies with one scan that rows 0..acked-1 are all
 * there with their values. *present gets the first missing row number. */
static void verify(const char *dir, uint64_t acked, uint64_t *present)
{
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts();
	ST_OK(rk_store_open(&s, dir, &o));
	size_t problems = 0;
	int rc = rk_store_check(&problems, s, NULL, NULL);
	if (rc)
		fail_msg("check after crash: %zu problems: %s", problems, rk_error_last());
	ST_OK(rk_table_open(&t, s, "t"));
	size_t cap = (size_t)acked + 100000;
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
	assert_int_equal(rc, RK_EITEROVER);
	rk_scan_close(sc);
	for (uint64_t i = 0; i < acked; i++)
		if (!seen[i])
			fail_msg("acknowledged row %llu missing after the crash",
			         (unsigned long long)i);
	uint64_t n = acked;
	while (n < cap && seen[n])
		n++;
	*present = n;
	free(seen);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
}

static void test_kill9_rounds(void **state)
{
	(void)state;
	char *dir = st_tmpdir("crash");
	int rounds = getenv("RK_CRASH_ROUNDS") ? atoi(getenv("RK_CRASH_ROUNDS")) : 24;
	int async_rounds = rounds / 3; /* after the sync rounds */
	{
		rk_store *s;
		rk_store_options o = opts();
		ST_OK(rk_store_open(&s, dir, &o));
		rk_family_def f = {"f", 1, NULL};
		rk_table_def d = {"t", &f, 1, NULL, 0, 0};
		ST_OK(rk_table_create(s, &d));
		ST_OK(rk_store_close(s));
	}
	uint64_t next = 0, seed = 0x5eed;
	int regions_max = 0;
	for (int round = 0; round < rounds + async_rounds; round++) {
		int p[2];
		const char *mode = round < rounds ? "sync" : "async";
		durability = round < rounds ? RK_DURABILITY_SYNC : RK_DURABILITY_ASYNC;
		assert_int_equal(pipe(p), 0);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			/* exec a fresh process: this one has LevelDB's background
			 * thread, whose locks a plain fork would copy mid-use */
			char a_next[32], a_fd[16];
			close(p[0]);
			snprintf(a_next, sizeof a_next, "%llu", (unsigned long long)next);
			snprintf(a_fd, sizeof a_fd, "%d", p[1]);
			execl("/proc/self/exe", "test_crash_store", "--loader", dir, a_next, a_fd, mode,
			      (char *)NULL);
			_exit(9);
		}
		close(p[1]);
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		long ms = 20 + (long)((seed >> 33) % 120);
		uint64_t v0;
		/* three rounds in four, the timer starts once the loader has
		 * opened the store (a slow start, as under ASan, would otherwise
		 * leave every kill inside the open); the fourth kills wherever */
		if (round % 4 != 3 && read(p[0], &v0, sizeof v0) != (ssize_t)sizeof v0)
			fail_msg("the loader died before opening the store");
		st_sleep_ms(ms);
		kill(pid, SIGKILL);
		int status;
		waitpid(pid, &status, 0);
		if (!WIFSIGNALED(status))
			fail_msg("loader exited with status %d before the kill", WEXITSTATUS(status));
		uint64_t acked = next, v;
		while (read(p[0], &v, sizeof v) == (ssize_t)sizeof v)
			acked = v;
		close(p[0]);
		uint64_t present;
		verify(dir, acked, &present);
		next = present; /* continue after whatever survived */

		rk_store *s;
		rk_store_options o = opts();
		rk_region_info *ri;
		size_t n;
		ST_OK(rk_store_open(&s, dir, &o));
		ST_OK(rk_store_regions(&ri, &n, s, "t"));
		if ((int)n > regions_max)
			regions_max = (int)n;
		rk_region_info_free(ri, n);
		ST_OK(rk_store_close(s));
	}
	fprintf(stderr, "%d sync + %d async rounds, %llu rows acknowledged, up to %d regions\n",
	        rounds, async_rounds, (unsigned long long)next, regions_max);
	assert_true(next > 0);
	st_rmtree(dir);
	free(dir);
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "--loader")) {
		durability = strcmp(argv[5], "async") ? RK_DURABILITY_SYNC : RK_DURABILITY_ASYNC;
		loader(argv[2], strtoull(argv[3], NULL, 10), atoi(argv[4]));
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill9_rounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
