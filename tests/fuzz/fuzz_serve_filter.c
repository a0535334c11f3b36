/*
 * Fuzz target: a RowFilter as a client sends it (protobuf bytes), decoded,
 * compiled and applied to a fixed row by rowkey serve's filter module. A
 * filter that compiles must run; one that does not must say why (a gRPC code
 * and a message); nothing may crash, leak or recurse without bound.
 */
#include <stdlib.h>
#include <string.h>

#include "serve/filter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const rk_sv_cell row[] = {
	{"cf", (const uint8_t *)"a", 1, 30, (const uint8_t *)"v1", 2, NULL},
	{"cf", (const uint8_t *)"a", 1, 20, (const uint8_t *)"v2", 2, NULL},
	{"cf", (const uint8_t *)"b", 1, 30, (const uint8_t *)"", 0, NULL},
	{"m", (const uint8_t *)"\x00\xff", 2, 5, (const uint8_t *)"\n\x01", 2, NULL},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Rkbt__RowFilter *f = rkbt__row_filter__unpack(NULL, size, data);
	if (!f)
		return 0;
	rk_sv_filter *x;
	int code = 0;
	char err[256];
	if (rk_sv__filter_compile(&x, f, &code, err, sizeof err) == 0) {
		rk_sv_cells out = {0};
		if (rk_sv__filter_row(&out, x, (const uint8_t *)"k\x00y", 3, row,
		                      sizeof row / sizeof row[0]) != 0)
			abort();
		for (size_t i = 1; i < out.n; i++) /* results come back in row order */
			if (strcmp(out.cells[i - 1].family, out.cells[i].family) > 0)
				abort();
		free(out.cells);
		rk_sv__filter_free(x);
	} else if (code == 0 || !err[0]) {
		abort();
	}
	rkbt__row_filter__free_unpacked(f, NULL);
	return 0;
}
