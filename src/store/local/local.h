/*
 * The local backend's face to the backend registry (src/store/backends.c):
 * the embedded cluster's open and its log repair. Everything else reaches
 * it through the ops table of src/store/backend.h.
 */
#ifndef RK_STORE_LOCAL_H
#define RK_STORE_LOCAL_H

#include <rowkey/store.h>

/* Opens (or creates, opts->create_if_missing) the store in directory dir
 * (open.c). */
int rk_local__open(rk_store **out, const char *dir, const rk_store_options *opts);

/* Repairs the write-ahead logs of a store that is not open (repair.c;
 * rk_store_repair). */
int rk_local__repair(size_t *out, const char *dir, void (*report)(const char *, void *),
                     void *payload);

#endif
