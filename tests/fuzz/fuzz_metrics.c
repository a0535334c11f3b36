/*
 * Fuzz target for the metrics.tsv reader (rk_metrics__carry in
 * src/store/local/metrics.c), which reads the file earlier runs left, as
 * text that may be damaged. It must not crash; what it keeps must read back
 * the same (carrying its own output changes nothing); and rolling up (a
 * small record budget) must keep every count: the totals per counter equal
 * those kept at full resolution.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/local/metrics.h"

/* Sums the four counters of the output's bucket lines; 0, or -1 when a sum
 * gets near overflow (saturated roll-ups are not compared). */
static int totals(const char *t, uint64_t sum[4])
{
	memset(sum, 0, 4 * sizeof *sum);
	for (const char *p = t; *p;) {
		const char *nl = strchr(p, '\n');
		unsigned long long id, v[4];
		long long ts;
		if ((p[0] == 'r' || p[0] == 's') &&
		    sscanf(p + 1, "\t%llu\t%lld\t%llu\t%llu\t%llu\t%llu", &id, &ts, &v[0], &v[1], &v[2],
		           &v[3]) == 6) {
			for (int i = 0; i < 4; i++) {
				if (v[i] > (1ull << 60) || sum[i] > (1ull << 60))
					return -1;
				sum[i] += v[i];
			}
		}
		p = nl ? nl + 1 : p + strlen(p);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *full, *again, *small;
	size_t nf, na, ns;
	if (rk_metrics__carry(&full, &nf, (const char *)data, size, 1000, 1u << 20))
		return 0;
	if (strlen(full) != nf)
		abort();
	if (!rk_metrics__carry(&again, &na, full, nf, 1000, 1u << 20)) {
		if (na != nf || memcmp(again, full, nf))
			abort();
		free(again);
	}
	if (!rk_metrics__carry(&small, &ns, (const char *)data, size, 1000, 4)) {
		uint64_t a[4], b[4];
		if (!totals(full, a) && !totals(small, b) && memcmp(a, b, sizeof a))
			abort();
		free(small);
	}
	free(full);
	return 0;
}
