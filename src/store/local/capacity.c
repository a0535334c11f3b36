/*
 * Token buckets of region servers (see capacity.h). One mutex per bucket:
 * a take is a few arithmetic operations under it, and the sleep happens
 * after it is released.
 */
#include "store/local/capacity.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define BURST_S 0.05

void rk_cap__init(rk__cap *c, uint64_t ops_per_s, uint64_t bytes_per_s)
{
	memset(c, 0, sizeof *c);
	c->rate[0] = (double)ops_per_s;
	c->rate[1] = (double)bytes_per_s;
	for (int i = 0; i < 2; i++) {
		c->burst[i] = c->rate[i] * BURST_S;
		if (c->burst[i] < 1 && c->rate[i] > 0)
			c->burst[i] = 1;
		c->balance[i] = 0; /* empty: see rk_cap__init */
	}
	c->on = ops_per_s || bytes_per_s;
	c->last_ns = -1;
	pthread_mutex_init(&c->mu, NULL);
}

void rk_cap__fini(rk__cap *c)
{
	pthread_mutex_destroy(&c->mu);
}

int64_t rk_cap__debit(rk__cap *c, int64_t now_ns, uint64_t ops, uint64_t bytes)
{
	double take[2] = {(double)ops, (double)bytes}, wait = 0;
	pthread_mutex_lock(&c->mu);
	double dt = c->last_ns < 0 || now_ns < c->last_ns ? 0 : (double)(now_ns - c->last_ns) / 1e9;
	if (now_ns > c->last_ns)
		c->last_ns = now_ns;
	for (int i = 0; i < 2; i++) {
		if (c->rate[i] <= 0)
			continue;
		/* the time since the debt (if any) was paid: a short gap is the
		 * last taker's oversleep, credited up to the burst; a longer one
		 * means the server was idle, and an idle server banks nothing (a
		 * machine cannot work faster later for having waited) */
		double paid = c->balance[i] < 0 ? -c->balance[i] / c->rate[i] : 0;
		double b = c->balance[i] + dt * c->rate[i];
		if (dt - paid > BURST_S)
			b = 0;
		else if (b > c->burst[i])
			b = c->burst[i];
		b -= take[i];
		c->balance[i] = b;
		if (b < 0 && -b / c->rate[i] > wait)
			wait = -b / c->rate[i];
	}
	pthread_mutex_unlock(&c->mu);
	return (int64_t)(wait * 1e9);
}

void rk_cap__take(rk__cap *c, uint64_t ops, uint64_t bytes)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ns = rk_cap__debit(c, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec, ops, bytes);
	if (ns <= 0)
		return;
	struct timespec d = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
	while (nanosleep(&d, &d) && errno == EINTR)
		;
}
