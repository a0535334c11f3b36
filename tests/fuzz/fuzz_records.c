/*
 * Fuzz target: the command line's record readers (CSV with quoting, TSV,
 * JSON lines). The first byte picks the format and the header mode; the
 * rest is the input. Every record must parse or fail with a code; nothing
 * may read out of bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

#include "cli/records.h"

static rk_schema *schema;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (!schema) {
		const char *t = "fields a:str, b:u32, c:f64, d:i8; key esc(a) u32(b)";
		if (rk_schema_parse(&schema, t, strlen(t), "fuzz"))
			abort();
	}
	rk_rec_format fmt = (rk_rec_format)(1 + data[0] % 3);
	int header = (int)(data[0] / 3 % 3) - 1;
	FILE *in = fmemopen((void *)(data + 1), size - 1, "rb");
	if (!in) {
		if (size == 1)
			return 0; /* fmemopen refuses an empty buffer */
		abort();
	}
	rk_reader r;
	rk_value vals[4];
	if (rk_reader_open(&r, in, fmt, schema, header) == 0) {
		for (int n = 0; n < 10000; n++) {
			int rc = rk_reader_next(&r, vals, schema);
			if (rc == RK_EITEROVER)
				break;
			if (rc < 0 && rc != RK_EINVALID && rc != RK_ENOMEM && rc != RK_EIO)
				abort();
		}
	}
	rk_reader_close(&r);
	fclose(in);
	return 0;
}
