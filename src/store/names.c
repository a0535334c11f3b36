/*
 * Name checks and the family lookup that store.c and the backends share
 * (declared in backend.h): kept out of store.c so that no backend calls
 * back into the API layer above it.
 */
#include <string.h>

#include "store/backend.h"

int rk_store__valid_name(const char *name, size_t max)
{
	if (!name)
		return 0;
	size_t n = strlen(name);
	if (n == 0 || n > max)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

const rk__family *rk_store__family(const rk_table *t, const char *name, size_t len)
{
	size_t lo = 0, hi = t->nfamilies;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const rk__family *f = &t->families[mid];
		size_t m = f->name_len < len ? f->name_len : len;
		int c = memcmp(f->name, name, m);
		if (c == 0)
			c = f->name_len < len ? -1 : f->name_len > len;
		if (c == 0)
			return f;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
