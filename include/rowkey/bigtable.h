/*
 * rowkey/bigtable.h: the store API on Cloud Bigtable (librowkey-bigtable,
 * pkg-config rowkey-bigtable).
 *
 * With this part registered, rk_store_open (store.h) also opens
 * "bigtable://PROJECT/INSTANCE": Cloud Bigtable with Application Default
 * Credentials, or the emulator at BIGTABLE_EMULATOR_HOST when that is set.
 * Every store.h call then works on Bigtable tables; what Bigtable does
 * differently (millisecond timestamps, no delete markers, the service's own
 * tablets) is said in docs/store.md.
 *
 * The registration is a call, not a side effect of linking, so that a
 * program that links the embedded store alone carries no gRPC, and a static
 * link cannot silently drop the backend.
 */
#ifndef ROWKEY_BIGTABLE_H
#define ROWKEY_BIGTABLE_H

#include <rowkey/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Lets rk_store_open and rk_store_repair of this process take "bigtable://"
 * names. Safe to call more than once and from several threads. Returns 0.
 * Before it, such a name is refused (RK_EINVALID) with a message saying so. */
int rk_bigtable_register(void);

/* The Bigtable table id that holds rowkey table `table` of a Bigtable store
 * (the name cbt and Google's client libraries open): the table's own name
 * unless a rename (rk_store_tables_rename, rowkey rekey --cutover) gave the
 * name another table (docs/formats.md, Part C, Table names). The caller
 * owns *out and frees it with free(). RK_ENOTFOUND when no such table
 * exists, RK_EINVALID when `store` is not a Bigtable store. */
int rk_bigtable_table_id(char **out, rk_store *store, const char *table);

#ifdef __cplusplus
}
#endif

#endif
