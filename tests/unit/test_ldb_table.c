/*
 * The LevelDB table-file verifier (src/store/local/ldb_table.c): CRC-32C and
 * Snappy against known vectors and malformed input; tables written by
 * LevelDB itself (with Snappy-compressed index blocks) verify clean, and
 * every flipped byte before the footer, a damaged magic number and every
 * truncation are RK_ECORRUPT with the block and its offset named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <leveldb/c.h>

#include "integration/store_test_util.h"
#include "store/local/crc.h"
#include "store/local/ldb_table.h"

static void test_crc32c(void **state)
{
	(void)state;
	uint8_t zeros[32] = {0}, ones[32];
	memset(ones, 0xff, sizeof ones);
	/* RFC 3720, appendix B.4, and the usual check value */
	assert_int_equal(rk_crc__32c((const uint8_t *)"123456789", 9), 0xE3069283u);
	assert_int_equal(rk_crc__32c(zeros, 32), 0x8A9136AAu);
	assert_int_equal(rk_crc__32c(ones, 32), 0x62A8AB43u);
	assert_int_equal(rk_crc__32c(zeros, 0), 0);
}

static void test_snappy(void **state)
{
	(void)state;
	uint8_t *out;
	size_t n;
	/* "abc", then a 9-byte copy from 3 back (overlapping its own output) */
	const uint8_t ok[] = {12, 0x08, 'a', 'b', 'c', 0x15, 3};
	assert_int_equal(rk_ldb__snappy_uncompress(&out, &n, ok, sizeof ok), 0);
	assert_int_equal(n, 12);
	assert_memory_equal(out, "abcabcabcabc", 12);
	free(out);
	/* a long literal (its length in the next byte), then a copy with a
	 * 2-byte offset */
	uint8_t two[3 + 61 + 3] = {67, 60 << 2, 60};
	for (int i = 0; i < 61; i++)
		two[3 + i] = (uint8_t)('A' + i % 26);
	two[64] = (uint8_t)(2 | (5 << 2)); /* copy 6 bytes ... */
	two[65] = 61;                      /* ... from 61 back (little-endian) */
	two[66] = 0;
	assert_int_equal(rk_ldb__snappy_uncompress(&out, &n, two, sizeof two), 0);
	assert_int_equal(n, 67);
	assert_memory_equal(out, two + 3, 61);
	assert_memory_equal(out + 61, two + 3, 6);
	free(out);

	const uint8_t *bad[] = {
		(const uint8_t[]){12, 0x08, 'a', 'b', 'c', 0x15, 0}, /* offset 0 */
		(const uint8_t[]){12, 0x08, 'a', 'b', 'c', 0x15, 4}, /* before the start */
		(const uint8_t[]){13, 0x08, 'a', 'b', 'c', 0x15, 3}, /* one byte short */
		(const uint8_t[]){11, 0x08, 'a', 'b', 'c', 0x15, 3}, /* one byte over */
		(const uint8_t[]){3, 0x08, 'a', 'b', 'c', 0x15, 3},  /* copy past the end */
		(const uint8_t[]){12, 0x08, 'a', 'b', 'c', 0x16, 3}, /* 2-byte offset cut off */
		(const uint8_t[]){12, 0x0c, 'a', 'b', 'c', 'd', 'e'}, /* literal past input */
		(const uint8_t[]){0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, /* bad preamble */
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		out = (uint8_t *)"x";
		assert_int_equal(rk_ldb__snappy_uncompress(&out, &n, bad[i], 7), RK_ECORRUPT);
		assert_null(out);
	}
	/* every truncation of a good stream */
	for (size_t k = 0; k < sizeof ok; k++)
		assert_int_equal(rk_ldb__snappy_uncompress(&out, &n, ok, k), RK_ECORRUPT);
}

/* Writes a LevelDB database into dir and compacts it into table files;
 * returns the path of its largest table file. */
static char *make_table(const char *dir)
{
	char *err = NULL;
	leveldb_options_t *o = leveldb_options_create();
	leveldb_options_set_create_if_missing(o, 1);
	leveldb_filterpolicy_t *bloom = leveldb_filterpolicy_create_bloom(10);
	leveldb_options_set_filter_policy(o, bloom); /* a meta block, as the store has */
	leveldb_t *db = leveldb_open(o, dir, &err);
	assert_null(err);
	leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
	char k[32], v[128];
	for (int i = 0; i < 5000; i++) {
		memcpy(k, "\x00\x00\x00\x01", 4); /* like a cell key: table id 1 first */
		snprintf(k + 4, sizeof k - 4, "user%06d", i);
		memset(v, 'a' + i % 26, sizeof v);
		snprintf(v, 24, "value %d", i);
		leveldb_put(db, wo, k, 14, v, sizeof v, &err);
		assert_null(err);
	}
	leveldb_compact_range(db, NULL, 0, NULL, 0);
	leveldb_writeoptions_destroy(wo);
	leveldb_close(db);
	leveldb_options_destroy(o);
	leveldb_filterpolicy_destroy(bloom);

	DIR *d = opendir(dir);
	struct dirent *e;
	char *best = NULL;
	long best_size = -1;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l < 4 || strcmp(e->d_name + l - 4, ".ldb"))
			continue;
		char p[4200];
		struct stat st;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (!stat(p, &st) && st.st_size > best_size) {
			free(best);
			best = strdup(p);
			best_size = st.st_size;
		}
	}
	closedir(d);
	assert_non_null(best);
	return best;
}

static uint8_t *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)sz);
	assert_int_equal(fread(b, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	*n = (size_t)sz;
	return b;
}

static uint64_t varint(const uint8_t **p)
{
	uint64_t v = 0;
	for (int s = 0;; s += 7) {
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return v;
	}
}

static void test_leveldb_tables(void **state)
{
	(void)state;
	char *dir = st_tmpdir("ldb");
	char *path = make_table(dir);
	size_t n;
	uint8_t *b = read_all(path, &n);
	char why[600];
	assert_int_equal(rk_ldb__verify_table(b, n, why, sizeof why), 0);

	/* the index block as LevelDB writes it: Snappy-compressed, so the
	 * verifier's decompressor is what reads it */
	const uint8_t *f = b + n - 48;
	varint(&f);
	varint(&f);
	uint64_t io = varint(&f), is = varint(&f);
	assert_int_equal(b[io + is], 1);

	/* one flipped byte anywhere in the blocks (every one lies under a CRC) */
	size_t step = n / 1500 + 1;
	for (size_t i = 0; i < n - 48; i += step) {
		b[i] ^= 0x20;
		int rc = rk_ldb__verify_table(b, n, why, sizeof why);
		if (rc != RK_ECORRUPT)
			fail_msg("byte %zu of %zu flipped: %d (%s)", i, n, rc, why);
		if (!strstr(why, "offset"))
			fail_msg("byte %zu flipped: no offset in '%s'", i, why);
		b[i] ^= 0x20;
	}
	/* the footer's padding (after two short handles) is read by no one,
	 * LevelDB included */
	b[n - 20] ^= 0x20;
	assert_int_equal(rk_ldb__verify_table(b, n, why, sizeof why), 0);
	b[n - 20] ^= 0x20;
	b[n - 1] ^= 0x01; /* the magic number */
	assert_int_equal(rk_ldb__verify_table(b, n, why, sizeof why), RK_ECORRUPT);
	assert_non_null(strstr(why, "bad magic number"));
	b[n - 1] ^= 0x01;
	/* a bad data block is named with its offset, and the others counted */
	b[10] ^= 1;
	b[n / 2] ^= 1;
	assert_int_equal(rk_ldb__verify_table(b, n, why, sizeof why), RK_ECORRUPT);
	assert_non_null(strstr(why, "data block at offset 0 ("));
	assert_non_null(strstr(why, "checksum mismatch"));
	assert_non_null(strstr(why, "and 1 more of its"));
	b[10] ^= 1;
	b[n / 2] ^= 1;

	/* every truncation */
	for (size_t k = 0; k < n; k += (k < 100 ? 1 : step))
		if (rk_ldb__verify_table(b, k, why, sizeof why) != RK_ECORRUPT)
			fail_msg("truncated to %zu of %zu bytes: accepted", k, n);
	assert_int_equal(rk_ldb__verify_table(b, 10, why, sizeof why), RK_ECORRUPT);
	assert_non_null(strstr(why, "too short"));
	assert_int_equal(rk_ldb__verify_table(b, n, why, sizeof why), 0);

	free(b);
	free(path);
	st_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_snappy),
		cmocka_unit_test(test_leveldb_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
