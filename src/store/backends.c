/*
 * The backend registry: which backend opens a store name. store.c looks the
 * name up here and names no backend itself; a backend shows the registry
 * only its opener and its log repair (local/local.h), and reaches the
 * shared code through backend.h alone. A new backend is one entry in the
 * table below.
 *
 * The Bigtable backend lives in its own library (librowkey-bigtable, which
 * brings gRPC), so its entry here holds only the scheme: the opener arrives
 * when that library's rk_bigtable_register() calls rk_store__provide. Until
 * then a "bigtable://" name is refused, never taken for a directory.
 */
#include <stdatomic.h>
#include <string.h>

#include "key/error.h"
#include "store/backend.h"
#include "store/local/local.h"

static _Atomic(rk__backend_open_fn *) bigtable_opener;

static int bigtable_open(rk_store **out, const char *uri, const rk_store_options *opts)
{
	rk__backend_open_fn *fn = atomic_load(&bigtable_opener);
	*out = NULL;
	if (fn)
		return fn(out, uri, opts);
#ifdef RK_WITH_BIGTABLE
	return rk__err(RK_EINVALID,
	               "store %s: the Bigtable backend is not registered: link librowkey-bigtable "
	               "(pkg-config rowkey-bigtable) and call rk_bigtable_register() first",
	               uri);
#else
	return rk__err(RK_EINVALID,
	               "store %s: this rowkey was built without the Bigtable backend "
	               "(configure with -DRK_WITH_BIGTABLE=ON)",
	               uri);
#endif
}

static const rk__backend backends[] = {
	{"bigtable", "bigtable://", bigtable_open, NULL},
	{"local", NULL, rk_local__open, rk_local__repair}, /* the default: a directory */
};

int rk_store__provide(const char *name, rk__backend_open_fn *open)
{
	if (strcmp(name, "bigtable"))
		return rk__err(RK_EINVALID, "store: no backend '%s' to provide", name);
	atomic_store(&bigtable_opener, open);
	return 0;
}

const rk__backend *rk_store__backend(const char *name)
{
	size_t n = sizeof backends / sizeof backends[0];
	for (size_t i = 0; i + 1 < n; i++)
		if (!strncmp(name, backends[i].scheme, strlen(backends[i].scheme)))
			return &backends[i];
	return &backends[n - 1];
}
