/*
 * The key rows of the heatmap pictures (heatmap.c, heatmap_html.c): which
 * row holds a key. The keys' text is the key library's (key/keytext.h).
 */
#include "analyze/analyze_int.h"
#include "key/bytes.h"

size_t rk__heat_row_of(const rk_analysis *a, const uint8_t *k, size_t kl)
{
	return rk__bytes_floor((const uint8_t *const *)a->row_key, a->row_key_len, 0, a->rows, k, kl);
}
