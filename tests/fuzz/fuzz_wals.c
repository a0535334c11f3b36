/*
 * Fuzz target for the list of expected write-ahead logs (WALS, formats.md
 * B.5; src/store/local/wals.c), read from an engine directory at every
 * open. Decoding must never crash or read outside the input; a list it
 * accepts is in order, and encodes back to exactly the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/local/wals.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk__wals w = {0};
	if (rk_wals__decode(&w, data, size, "WALS") == 0) {
		uint8_t *img;
		size_t len;
		for (size_t i = 1; i < w.n; i++)
			if (w.logs[i - 1].number >= w.logs[i].number)
				abort();
		if (rk_wals__encode(&img, &len, &w) == 0) {
			if (len != size || memcmp(img, data, size))
				abort();
			free(img);
		}
	}
	rk_wals__free(&w);
	return 0;
}
