/*
 * metrics.tsv history is never dropped. A store whose
 * metrics file holds more bucket records than are carried at full
 * resolution (here a 75 MiB file, past the old 64 MiB cut-off) keeps every
 * count: old buckets are rolled up into coarser ones, and the file shrinks.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "integration/integrity_util.h"

/* Sums the writes of "r" lines for region `id`, and counts lines. */
static uint64_t writes_of(const char *path, uint64_t id, size_t *lines)
{
	FILE *f = fopen(path, "r");
	char line[512];
	uint64_t sum = 0;
	*lines = 0;
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		unsigned long long rid, w;
		long long ts;
		++*lines;
		if (sscanf(line, "r\t%llu\t%lld\t%llu", &rid, &ts, &w) == 3 && rid == id)
			sum += w;
	}
	fclose(f);
	return sum;
}

static void test_history_rolled_up_not_dropped(void **state)
{
	(void)state;
	char *dir = st_tmpdir("mhist");
	rk_store *s;
	rk_table *t;
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.n_servers = 1;
	ST_OK(rk_store_open(&s, dir, &o));
	it_create(s);
	ST_OK(rk_store_close(s));
	rk_region_info *ri;
	size_t nr;
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_store_regions(&ri, &nr, s, "t"));
	uint64_t id = ri[0].id;
	rk_region_info_free(ri, nr);
	ST_OK(rk_store_close(s));
	/* an old history: 2.2 M one-second buckets of 3 writes each, ~75 MiB */
	char path[4200];
	snprintf(path, sizeof path, "%s/metrics.tsv", dir);
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	const uint64_t nb = 2200000;
	static char buf[1 << 16];
	setvbuf(f, buf, _IOFBF, sizeof buf);
	for (uint64_t i = 0; i < nb; i++)
		fprintf(f, "r\t%" PRIu64 "\t%" PRIu64 "\t3\t0\t300000\t0\n", id,
		        (uint64_t)1600000000000ull + i * 1000);
	fclose(f);
	size_t lines;
	assert_int_equal(writes_of(path, id, &lines), 3 * nb);
	assert_true(it_file_size(path) > (64L << 20));

	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_table_open(&t, s, "t"));
	it_write(t, 0, 1, 1, 10); /* one more write */
	rk_table_close(t);
	ST_OK(rk_store_close(s));
	uint64_t after = writes_of(path, id, &lines);
	fprintf(stderr, "history: %llu writes in %zu lines, %ld bytes\n", (unsigned long long)after,
	        lines, it_file_size(path));
	assert_int_equal(after, 3 * nb + 1);
	assert_true(lines <= 250000 + 10);
	assert_true(it_file_size(path) < (16L << 20));
	/* and again: stable */
	ST_OK(rk_store_open(&s, dir, &o));
	ST_OK(rk_store_close(s));
	assert_int_equal(writes_of(path, id, &lines), 3 * nb + 1);
	st_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history_rolled_up_not_dropped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
