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
#include "bt_data.pb-c.h"

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

/* ---- row filters (google.bigtable.v2.RowFilter) ---- */

/* The store filter for f (NULL, or no filter set: RK_FILTER_PASS) in one
 * allocation the caller frees with free(); its patterns, names and labels
 * point into f, which must outlive it. What the store checks itself
 * (regexes, labels, probabilities, depth) is left to rk_table_get /
 * rk_scan_open / rk_table_check_and_mutate; refused here: what the store
 * model has no room for (a negative count, a flag set to false, a
 * condition without a predicate) as RK_EINVALID, and a filter this build
 * does not implement as RK_EINVALID with *unsupported set, both naming
 * the filter by its path from `path`. */
int rk_bt__filter_from_pb(rk_filter **out, int *unsupported, const Rkbt__RowFilter *f,
                          const char *path);

/* The RowFilter tree for a checked filter f (its byte strings borrowed
 * from f); the caller frees it with rk_bt__filter_pb_free. */
int rk_bt__filter_to_pb(Rkbt__RowFilter **out, const rk_filter *f);
void rk_bt__filter_pb_free(Rkbt__RowFilter *f);

#endif
