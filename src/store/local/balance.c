/*
 * The region balancer's policy (see balance.h).
 */
#include "store/local/balance.h"

#include <string.h>

int rk_balance__pick(size_t *index, unsigned *to, const rk__tmeta *t, unsigned n_servers,
                     size_t *count)
{
	memset(count, 0, n_servers * sizeof *count);
	for (size_t i = 0; i < t->nregions; i++)
		count[t->regions[i]->server]++;
	unsigned hi = 0, lo = 0;
	for (unsigned i = 1; i < n_servers; i++) {
		if (count[i] > count[hi])
			hi = i;
		if (count[i] < count[lo])
			lo = i;
	}
	if (count[hi] - count[lo] <= 1)
		return 0;
	for (size_t i = t->nregions; i-- > 0;)
		if (t->regions[i]->server == hi) {
			*index = i;
			*to = lo;
			return 1;
		}
	return 0;
}
