/*
 * Fuzz target for the write-ahead log scan and salvage
 * (src/store/local/ldb_log.c), which read logs that may be damaged in any
 * way before an engine opens. Neither may crash or read outside the input;
 * the salvaged log must scan clean (no damage, no torn tail) with exactly
 * the records the salvage kept, and the scan and the salvage must agree.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/local/ldb_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk__ldb_log_scan a, b, c;
	uint8_t *img;
	size_t len;
	rk_ldb__scan_log(&a, data, size);
	if (a.good_end > size || a.records_after > a.records)
		abort();
	if (rk_ldb__salvage_log(&img, &len, &b, data, size))
		return 0; /* out of memory */
	if (memcmp(&a, &b, sizeof a))
		abort();
	rk_ldb__scan_log(&c, img, len);
	if (c.middle_damage || c.tail_damage || c.records != b.records || c.good_end != len)
		abort();
	free(img);
	return 0;
}
