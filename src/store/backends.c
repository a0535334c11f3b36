/*
 * The backend registry: which backend opens a store name. store.c looks the
 * name up here and names no backend itself; a backend shows the registry
 * only its opener and its log repair (local/local.h,
 * bigtable/backend_bt.h), and reaches the shared code through backend.h
 * alone. A new backend is one entry in the table below.
 */
#include <string.h>

#include "store/backend.h"
#include "store/bigtable/backend_bt.h"
#include "store/local/local.h"

static const rk__backend backends[] = {
	{"bigtable", RK_BT_URI_SCHEME, rk_bt__store_open, NULL},
	{"local", NULL, rk_local__open, rk_local__repair}, /* the default: a directory */
};

const rk__backend *rk_store__backend(const char *name)
{
	size_t n = sizeof backends / sizeof backends[0];
	for (size_t i = 0; i + 1 < n; i++)
		if (!strncmp(name, backends[i].scheme, strlen(backends[i].scheme)))
			return &backends[i];
	return &backends[n - 1];
}
