/*
 * The key rows of the heatmap pictures (heatmap.c, heatmap_html.c): which
 * row holds a key. The keys' text is the key library's (key/keytext.h).
 */
#include "analyze/analyze_int.h"
#include "key/bytes.h"

size_t rk__heat_row_of(const rk_analysis *a, const uint8_t *k, size_t kl)
{
	size_t lo = 0, hi = a->rows;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (rk__bytes_cmp(a->row_key[mid], a->row_key_len[mid], k, kl) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}
