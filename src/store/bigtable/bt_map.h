/*
 * The Bigtable protocol's messages mapped onto the store's public types, in
 * both directions, in one place: the Bigtable backend (src/store/bigtable)
 * sends them, rowkey serve (src/serve) receives them. Depends only on
 * include/rowkey/store.h and the generated protocol code (proto/), so
 * including it exposes nothing of the store's insides.
 *
 * Errors are RK_EINVALID with a message naming the field by its path in
 * the message (the caller passes the path of the message given).
 */
#ifndef RK_STORE_BT_MAP_H
#define RK_STORE_BT_MAP_H

#include <rowkey/store.h>

#include "bt_admin.pb-c.h"

/* ---- GC rules (google.bigtable.admin.v2.GcRule) ---- */

/* The store rule for g (NULL or no rule set: RK_GC_NONE), in one
 * allocation the caller frees with free(). max_age is kept in
 * microseconds (nanoseconds below one are refused with the rest of what
 * Bigtable refuses: a version count below 1, a negative or zero age, an
 * empty union or intersection, more than RK_GC_MAX_RULES rules or
 * RK_GC_MAX_DEPTH levels). */
int rk_bt__gc_from_pb(rk_gc_rule **out, const Rkbt__GcRule *g, const char *path);

/* The GcRule tree for a checked rule r; the caller frees it with
 * rk_bt__gc_pb_free. */
int rk_bt__gc_to_pb(Rkbt__GcRule **out, const rk_gc_rule *r);
void rk_bt__gc_pb_free(Rkbt__GcRule *g);

#endif
