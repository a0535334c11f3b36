/*
 * Additive helpers over the meta map for callers that drive regions without
 * engines (the analyzer's simulator, src/analyze/sim.c). They read and pick;
 * they never lock (the caller owns the meta map).
 */
#ifndef RK_LOCAL_SIM_HOOKS_H
#define RK_LOCAL_SIM_HOOKS_H

#include <stddef.h>

#include "store/local/meta.h"

/* Regions of table t held by `server`. */
size_t rk_meta__regions_on_server(const rk__tmeta *t, unsigned server);

/* One step of the region balancer, the policy of the store's
 * rk_store_balance (admin.c, rk_local__balance): count t's regions per server;
 * when the busiest and the idlest server differ by more than one region,
 * pick the busiest server's last region (in key order) to move to the
 * idlest (lowest numbered on ties). `count` is scratch of n_servers entries.
 * Returns 1 with *index (into t->regions) and *to set, or 0 when balanced. */
int rk_meta__balance_pick(size_t *index, unsigned *to, const rk__tmeta *t, unsigned n_servers,
                          size_t *count);

#endif
