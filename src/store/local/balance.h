/*
 * The region balancer's policy, shared by the store (admin.c,
 * rk_store_balance) and the analyzer's simulator (src/analyze/sim.c), so the
 * two move regions alike: count a table's regions per server; while the
 * busiest and the idlest server differ by more than one region, move the
 * busiest server's last region (in key order) to the idlest (the lowest
 * numbered on ties). HBase's SimpleLoadBalancer evens region counts the same
 * way. Pure functions over the meta map: the caller holds its lock.
 */
#ifndef RK_LOCAL_BALANCE_H
#define RK_LOCAL_BALANCE_H

#include <stddef.h>

#include "store/local/meta.h"

/* One step of the policy. `count` is scratch of n_servers entries. Returns
 * 1 with *index (into t->regions) and *to set, or 0 when balanced. */
int rk_balance__pick(size_t *index, unsigned *to, const rk__tmeta *t, unsigned n_servers,
                     size_t *count);

#endif
