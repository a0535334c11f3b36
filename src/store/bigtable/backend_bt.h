/*
 * The Bigtable backend of the table store: what the registry
 * (src/store/backends.c) calls to
 * open a store named `bigtable://PROJECT/INSTANCE` (backend_bt.c). The rest
 * of the store API reaches it through the ops table of src/store/backend.h.
 */
#ifndef RK_STORE_BACKEND_BT_H
#define RK_STORE_BACKEND_BT_H

#include "store/backend.h"

/* Opens the store on Bigtable instance `uri`, "bigtable://PROJECT/INSTANCE"
 * (BIGTABLE_EMULATOR_HOST for the emulator). Does not contact the service: a
 * wrong address or a missing instance shows on the first call. RK_EINVALID
 * on a malformed URI, RK_EIO when no credentials are found (see
 * bt_client.h). The local-store options (durability, servers, splits,
 * metrics) do not apply and are ignored. rk_bigtable_register() gives it to
 * the registry. */
int rk_bt__store_open(rk_store **out, const char *uri, const rk_store_options *opts);

#endif
