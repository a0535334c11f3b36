/*
 * Fuzz target: the metrics-file reader behind rowkey heatmap
 * (rk_analysis_from_metrics, docs/formats.md B.3). The first byte picks the
 * table argument (NULL, "t", "analyze"); the rest is the file. It must build
 * an analysis or fail with a code and a message; nothing may read out of
 * bounds or leak; an analysis it builds must render as text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/analyze.h>

#include "analyze/analyze_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static const char *const tables[] = {NULL, "t", "analyze"};
	rk_analysis *a = NULL;
	int rc = rk__analysis_from_metrics_text(&a, (const char *)data + 1, size - 1, tables[data[0] % 3],
	                                        "fuzz");
	if (rc != 0) {
		if (a || rc > 0 || !rk_error_last() || !*rk_error_last())
			abort();
		return 0;
	}
	char *t = NULL;
	if (!a || rk_analysis_text(&t, a) != 0)
		abort();
	free(t);
	rk_heatmap h;
	if (rk_analysis_heatmap(&h, a) != 0 || h.rows == 0 || h.cols == 0 || h.cols > 600)
		abort();
	rk_analysis_free(a);
	return 0;
}
