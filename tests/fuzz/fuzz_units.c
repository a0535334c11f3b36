/*
 * Fuzz target: the size parser (rk__size_parse) and the shortest float text
 * (rk__double_str). Any text must parse or fail with RK_EINVALID; a size
 * that parses prints as a size, and a bare number of bytes reads back as
 * itself. The first 8 bytes, as a double, must print as text that strtod
 * reads back bit for bit.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

#include "key/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t v;
	int rc = rk__size_parse(&v, (const char *)data, size, size && data[0] & 1 ? 1 : 1u << 20);
	if (rc != 0 && rc != RK_EINVALID)
		abort();
	if (rc == 0) {
		char s[RK_NUM_STR], t[32];
		rk__size_str(s, v);
		if (!strchr(s, 'B'))
			abort();
		int n = snprintf(t, sizeof t, "%lluB", (unsigned long long)v);
		uint64_t back;
		if (rk__size_parse(&back, t, (size_t)n, 1) == 0 && back != v && v < (1ull << 53))
			abort();
	}
	if (size >= 8) {
		double d;
		memcpy(&d, data, sizeof d);
		char b[64];
		size_t n = rk__double_str(b, sizeof b, d);
		if (n >= sizeof b)
			abort();
		if (!isnan(d)) {
			double back = strtod(b, NULL);
			if (memcmp(&back, &d, sizeof d))
				abort();
		}
	}
	return 0;
}
