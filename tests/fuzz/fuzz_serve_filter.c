/*
 * Fuzz target: a RowFilter as a client sends it (protobuf bytes), checked
 * for its shape as rowkey serve checks a request (wire.c), decoded, mapped
 * onto the store's filter (bt_map.c), compiled and applied to a fixed row
 * by the store (filter.c). A filter that compiles must run (or stop at its
 * work budget); one that does not must say why; nothing may crash, leak or
 * recurse without bound.
 */
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "serve/serve_int.h"
#include "store/bigtable/bt_map.h"
#include "store/filter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const rk_cell row[] = {
	{"cf", (const uint8_t *)"a", 1, 30, (const uint8_t *)"v1", 2, NULL},
	{"cf", (const uint8_t *)"a", 1, 20, (const uint8_t *)"v2", 2, NULL},
	{"cf", (const uint8_t *)"b", 1, 30, (const uint8_t *)"", 0, NULL},
	{"m", (const uint8_t *)"\x00\xff", 2, 5, (const uint8_t *)"\n\x01", 2, NULL},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk_sv_status st;
	if (rk_sv__wire_check(&rkbt__row_filter__descriptor, data, size, &st)) {
		if (st.code == RK_SV_OK || !st.msg[0])
			abort();
		return 0;
	}
	Rkbt__RowFilter *f = rkbt__row_filter__unpack(NULL, size, data);
	if (!f)
		return 0;
	rk_filter *sf;
	int unsupported;
	if (rk_bt__filter_from_pb(&sf, &unsupported, f, "filter") == 0) {
		rk__filter *x;
		if (rk__filter_compile(&x, sf) == 0) {
			rk__cells out = {0};
			int rc = rk__filter_row(&out, x, (const uint8_t *)"k\x00y", 3, row,
			                        sizeof row / sizeof row[0]);
			if (rc && rc != RK_ETOOLONG)
				abort();
			for (size_t i = 1; !rc && i < out.n; i++) /* results in row order */
				if (strcmp(out.v[i - 1].family, out.v[i].family) > 0)
					abort();
			free(out.v);
			rk__filter_free(x);
		} else if (!rk_error_last()[0]) {
			abort();
		}
		free(sf);
	} else if (!rk_error_last()[0]) {
		abort();
	}
	rkbt__row_filter__free_unpacked(f, NULL);
	return 0;
}
