/*
 * Corruption test, in the spirit of LevelDB's corruption_test:
 * a two-server store holds rows both in table files and in write-ahead
 * logs; each case restores it, flips one byte of one file (write-ahead
 * logs, table files, MANIFESTs, META; offsets spread over each whole file),
 * then opens the store and scans every row. Each case must end in a refused
 * open, a read error naming the damaged file, or every row with its value:
 * never a row missing or wrong with success. Prints how many cases ended
 * which way and how many rows were read back correctly in all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "integration/integrity_util.h"

#define ROWS 600
#define VLEN 100
#define OFFSETS 14 /* flipped offsets per file */

static rk_store_options opts(void)
{
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.n_servers = 2;
	o.background_splits = 0;
	o.split_threshold = 0;
	return o;
}

static void run(const char *cmd)
{
	if (system(cmd) != 0)
		fail_msg("%s failed", cmd);
}

/* The store's files worth damaging, relative to dir. */
static size_t list_files(char (*out)[64], size_t cap, const char *dir)
{
	size_t n = 0;
	snprintf(out[n++], 64, "META");
	for (int s = 0; s < 2; s++) {
		char sub[4200];
		snprintf(sub, sizeof sub, "%s/rs-%03d", dir, s);
		DIR *d = opendir(sub);
		struct dirent *e;
		while (d && (e = readdir(d)) != NULL && n < cap) {
			const char *x = strrchr(e->d_name, '.');
			if ((x && (!strcmp(x, ".log") || !strcmp(x, ".ldb"))) ||
			    !strncmp(e->d_name, "MANIFEST-", 9))
				snprintf(out[n++], 64, "rs-%03d/%.50s", s, e->d_name);
		}
		if (d)
			closedir(d);
	}
	return n;
}

static void test_flip_every_file(void **state)
{
	(void)state;
	char *base = st_tmpdir("corrupt-base"), *dir = st_tmpdir("corrupt");
	rk_store *s;
	rk_table *t;
	rk_store_options o = opts();
	/* rows 0..199 and 300..499 end up in table files (an open replays the
	 * logs into them), rows 200..299 and 500..599 stay in the logs, 10
	 * records each; the table has a region on each server */
	ST_OK(rk_store_open(&s, base, &o));
	it_create_at(s, "row00000250");
	ST_OK(rk_table_open(&t, s, "t"));
	it_write(t, 0, 200, 50, VLEN);
	it_write(t, 300, 500, 50, VLEN);
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	ST_OK(rk_store_open(&s, base, &o));
	ST_OK(rk_table_open(&t, s, "t"));
	it_write(t, 200, 300, 10, VLEN);
	it_write(t, 500, ROWS, 10, VLEN);
	rk_table_close(t);
	ST_OK(rk_store_close(s));

	char files[64][64];
	size_t nf = list_files(files, 64, base);
	int kinds[4] = {0}; /* log, table, manifest, META files seen */
	size_t cases = 0, refused = 0, read_errors = 0, intact = 0;
	uint64_t survived = 0;
	char cmd[9000];
	for (size_t f = 0; f < nf; f++) {
		char path[4400];
		snprintf(path, sizeof path, "%s/%s", base, files[f]);
		long size = it_file_size(path);
		if (size <= 0)
			continue;
		kinds[strstr(files[f], ".log")   ? 0
		      : strstr(files[f], ".ldb") ? 1
		      : strstr(files[f], "MANI") ? 2
		                                 : 3]++;
		for (int k = 0; k < OFFSETS; k++) {
			long off = k == OFFSETS - 1 ? size - 1 : size * k / (OFFSETS - 1);
			snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", dir, base, dir);
			run(cmd);
			snprintf(path, sizeof path, "%s/%s", dir, files[f]);
			it_flip(path, off, (uint8_t)(1u << (k % 8)));
			cases++;
			int rc = rk_store_open(&s, dir, &o);
			if (rc) {
				refused++;
				continue;
			}
			ST_OK(rk_table_open(&t, s, "t"));
			uint64_t good = 0, wrong = 0;
			rc = it_scan(t, VLEN, &good, &wrong);
			rk_table_close(t);
			const char *base_name = strrchr(files[f], '/') ? strrchr(files[f], '/') + 1
			                                                : files[f];
			if (wrong)
				fail_msg("%s byte %ld: %llu wrong rows returned", files[f], off,
				         (unsigned long long)wrong);
			if (rc) {
				if (!strstr(rk_error_last(), base_name))
					fail_msg("%s byte %ld: the read error does not name the file: %s",
					         files[f], off, rk_error_last());
				read_errors++;
			} else {
				if (good != ROWS)
					fail_msg("%s byte %ld: %llu of %d rows, and no error", files[f], off,
					         (unsigned long long)good, ROWS);
				intact++;
			}
			survived += good;
			rk_store_close(s);
		}
	}
	fprintf(stderr,
	        "%zu flips over %d log, %d table, %d MANIFEST and %d META files: %zu refused "
	        "opens, %zu read errors naming the file, %zu with every row intact; %llu of "
	        "%llu rows read back correctly (never a wrong one)\n",
	        cases, kinds[0], kinds[1], kinds[2], kinds[3], refused, read_errors, intact,
	        (unsigned long long)survived, (unsigned long long)cases * ROWS);
	assert_true(kinds[0] > 0 && kinds[1] > 0 && kinds[2] > 0 && kinds[3] > 0);
	st_rmtree(dir);
	st_rmtree(base);
	free(dir);
	free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flip_every_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
