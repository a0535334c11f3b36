/*
 * Fuzz target for the LevelDB table-file verifier (src/store/local/ldb_table.c),
 * which reads engine files that may be damaged in any way: the whole input
 * is a table file, and also a Snappy block. Either is accepted or rejected
 * with RK_ECORRUPT, never a crash or a read outside the input. A Snappy
 * block that decodes yields exactly the length its preamble declares.
 * Second mode: a copy of the input with every block checksum recomputed
 * (rk_ldb__fix_table_crcs), so that mutations get past the CRC checks into
 * the snappy, index and metaindex parsers behind them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/local/ldb_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[600];
	int rc = rk_ldb__verify_table(data, size, why, sizeof why);
	if (rc && rc != RK_ECORRUPT)
		abort();
	uint8_t *fixed = malloc(size ? size : 1);
	if (!fixed)
		return 0;
	memcpy(fixed, data, size);
	rc = rk_ldb__fix_table_crcs(fixed, size);
	if (rc && rc != RK_ECORRUPT)
		abort();
	rc = rk_ldb__verify_table(fixed, size, why, sizeof why);
	if (rc && rc != RK_ECORRUPT)
		abort();
	free(fixed);
	uint8_t *out;
	size_t n;
	rc = rk_ldb__snappy_uncompress(&out, &n, data, size);
	if (rc == 0) {
		uint64_t want = 0;
		for (size_t i = 0, s = 0; i < size && i < 5; i++, s += 7) {
			want |= (uint64_t)(data[i] & 0x7f) << s;
			if (!(data[i] & 0x80))
				break;
		}
		if (n != want)
			abort();
		free(out);
	} else if (rc != RK_ECORRUPT && rc != RK_ENOMEM) {
		abort();
	}
	return 0;
}
