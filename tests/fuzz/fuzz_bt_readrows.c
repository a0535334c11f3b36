/*
 * Fuzz target for the ReadRows chunk decoder (src/store/bigtable/bt_chunks.c).
 * The input is split into ReadRowsResponse messages: each starts with a
 * one-byte length class (n = byte * 4, so one input can hold several
 * responses), the rest of the input being the last message. Every committed
 * row is walked so that ASan sees any pointer past its storage. Without the
 * Bigtable backend the target builds and does nothing.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef RK_WITH_BIGTABLE
#include "store/bigtable/bt_chunks.h"

static volatile uint8_t sink;

static void drain(rk_bt_chunks *d)
{
	const rk_bt_row *r;
	while (rk_bt__chunks_next(&r, d) == 0) {
		uint8_t x = 0;
		for (size_t i = 0; i < r->key_len; i++)
			x ^= r->key[i];
		for (size_t c = 0; c < r->ncells; c++) {
			const rk_bt_cell *cell = &r->cells[c];
			for (size_t i = 0; i < cell->family_len; i++)
				x ^= (uint8_t)cell->family[i];
			for (size_t i = 0; i < cell->qualifier_len; i++)
				x ^= cell->qualifier[i];
			for (size_t i = 0; i < cell->value_len; i++)
				x ^= cell->value[i];
		}
		sink = x;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk_bt_chunks *d;
	if (rk_bt__chunks_new(&d) < 0)
		return 0;
	size_t at = 0;
	int rc = 0;
	while (at < size && rc == 0) {
		size_t n = (size_t)data[at++] * 4;
		if (n == 0 || n > size - at)
			n = size - at;
		rc = rk_bt__chunks_feed(d, data + at, n);
		at += n;
		drain(d);
	}
	if (rc == 0)
		rk_bt__chunks_finish(d);
	rk_bt__chunks_free(d);
	return 0;
}
#else
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)data;
	(void)size;
	return 0;
}
#endif
