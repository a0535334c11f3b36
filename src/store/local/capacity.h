/*
 * A region server's capacity: a token bucket over operations and bytes per
 * second, so that a hot server limits throughput the way a cluster's
 * machine does, even though all servers share this machine's cores.
 *
 * The bucket runs in debt: a taker subtracts what it applies (the balance
 * may go negative) and then sleeps until the balance is back at zero, so
 * concurrent takers (the writer thread and readers) queue up fairly behind
 * one another and a request larger than the burst simply waits longer. The
 * balance refills at the rate; once the debt is paid, a gap of up to 50 ms
 * (`burst`) is credited, which absorbs a taker's oversleeping on a loaded
 * machine, and a longer gap means the server was idle: it starts empty again,
 * banking nothing, as a machine cannot work faster later for having waited
 * (a hot region the balancer moves to an idle server gets that server's
 * rate, not a burst on top).
 *
 * An operation is a cell written, or a region visited by a read (a get, or
 * one region's part of a scan): the unit the analyzer's simulator charges.
 * Off (both rates 0) the bucket is never touched: callers test `on` first.
 */
#ifndef RK_LOCAL_CAPACITY_H
#define RK_LOCAL_CAPACITY_H

#include <pthread.h>
#include <stdint.h>

typedef struct rk__cap {
	int on;                  /* constant after rk_cap__init */
	double rate[2];          /* ops/s, bytes/s; 0: that side unlimited */
	double burst[2];
	double balance[2];       /* may be negative: debt */
	int64_t last_ns;         /* when balance was last refilled */
	pthread_mutex_t mu;
} rk__cap;

/* Sets up a bucket of ops_per_s operations and bytes_per_s bytes per
 * second (0: unlimited); on is 0 when both are 0. Starts empty, as if the
 * server had just been busy, so that a run of a few seconds measures the
 * capacity and not a first burst. */
void rk_cap__init(rk__cap *c, uint64_t ops_per_s, uint64_t bytes_per_s);
void rk_cap__fini(rk__cap *c);

/* Takes ops and bytes at time now_ns (a monotonic clock) and returns the
 * nanoseconds the taker must wait before its work counts as admitted (0:
 * at once). The arithmetic of rk_cap__take without the clock and the sleep,
 * for tests. */
int64_t rk_cap__debit(rk__cap *c, int64_t now_ns, uint64_t ops, uint64_t bytes);

/* Takes ops and bytes now and sleeps as long as the bucket says. */
void rk_cap__take(rk__cap *c, uint64_t ops, uint64_t bytes);

#endif
