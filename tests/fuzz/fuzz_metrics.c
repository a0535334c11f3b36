/*
 * Fuzz target for the metrics file's reader and writer (src/store/local/
 * metrics_read.c, metrics_write.c), which read the file earlier runs left
 * as text that may be damaged. It must not crash; what the store's lenient
 * read keeps must be a file the strict reader accepts and that reads back
 * to the same text; and rolling the region and server buckets up to a small
 * budget must keep every count: the totals per counter do not change.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/local/metrics.h"

static char *text_of(const rk_metrics *m, size_t *n)
{
	char *t = NULL;
	FILE *f = open_memstream(&t, n);
	if (!f || rk_metrics__format(f, m))
		abort();
	fclose(f);
	return t;
}

/* the four counters of every r and s bucket summed; -1 near overflow */
static int totals(const rk_metrics *m, uint64_t sum[4])
{
	const rk_metrics_series *s[2] = {m->region_load, m->server_load};
	size_t n[2] = {m->nregion_load, m->nserver_load};
	memset(sum, 0, 4 * sizeof *sum);
	for (int t = 0; t < 2; t++)
		for (size_t i = 0; i < n[t]; i++)
			for (size_t j = 0; j < s[t][i].n; j++) {
				const rk_metrics_counts *c = &s[t][i].b[j].c;
				uint64_t v[4] = {c->writes, c->reads, c->bytes_written, c->bytes_read};
				for (int k = 0; k < 4; k++) {
					if (v[k] > (1ull << 60) || sum[k] > (1ull << 60))
						return -1;
					sum[k] += v[k];
				}
			}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk_metrics *m, *again;
	size_t n1, n2;
	if (rk_metrics__parse(&m, (const char *)data, size, "fuzz", 1))
		return 0;
	char *t1 = text_of(m, &n1);
	if (rk_metrics__parse(&again, t1, n1, "again", 0))
		abort(); /* what the store writes, the strict reader reads */
	char *t2 = text_of(again, &n2);
	if (n1 != n2 || memcmp(t1, t2, n1))
		abort();
	uint64_t a[4], b[4];
	int ok = totals(m, a) == 0;
	rk_metrics__rollup(m, 4);
	if (ok && totals(m, b) == 0 && memcmp(a, b, sizeof a))
		abort();
	free(t1);
	free(t2);
	rk_metrics_free(m);
	rk_metrics_free(again);
	return 0;
}
