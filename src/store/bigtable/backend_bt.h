/*
 * The Bigtable backend of the table store: what the registry
 * (src/store/backends.c) calls to
 * open a store named `bigtable://PROJECT/INSTANCE` (backend_bt.c). The rest
 * of the store API reaches it through the ops table of src/store/backend.h.
 *
 * Without RK_WITH_BIGTABLE the opener fails with a message that says so, so that a
 * Bigtable URI is never mistaken for a directory name.
 */
#ifndef RK_STORE_BACKEND_BT_H
#define RK_STORE_BACKEND_BT_H

#include <string.h>

#include "key/error.h"
#include "store/backend.h"

#define RK_BT_URI_SCHEME "bigtable://"

/* 1 when `dir` names a Bigtable instance rather than a directory. */
static inline int rk_bt__is_uri(const char *dir)
{
	return strncmp(dir, RK_BT_URI_SCHEME, sizeof RK_BT_URI_SCHEME - 1) == 0;
}

#ifdef RK_WITH_BIGTABLE
/* Opens the store on Bigtable instance `uri` (BIGTABLE_EMULATOR_HOST for the
 * emulator). Does not contact the service: a wrong address or a missing
 * instance shows on the first call. RK_EINVALID on a malformed URI, RK_EIO
 * when no credentials are found (see bt_client.h). The local-store options
 * (durability, servers, splits, metrics) do not apply and are ignored. */
int rk_bt__store_open(rk_store **out, const char *uri, const rk_store_options *opts);
#else
static inline int rk_bt__store_open(rk_store **out, const char *uri,
                                    const rk_store_options *opts)
{
	(void)opts;
	*out = NULL;
	return rk__err(RK_EINVALID,
	               "store %s: this rowkey was built without the Bigtable backend "
	               "(configure with -DRK_WITH_BIGTABLE=ON)",
	               uri);
}
#endif

#endif
