/*
 * Name checks, the family lookup and the families' GC rules that store.c
 * and the backends share (declared in backend.h): kept out of store.c so
 * that no backend calls back into the API layer above it.
 */
#include <stdlib.h>
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

int rk_store__valid_prop_key(const char *key)
{
	size_t n = key ? strlen(key) : 0;
	if (n == 0 || n > RK_STORE__PROP_KEY_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = key[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
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

int rk_store__family_rule(rk__family *f, const rk_family_def *def)
{
	f->gc = NULL;
	f->max_versions = def->max_versions;
	return def->gc ? rk_gc__compile(&f->gc, &f->max_versions, def->gc) : 0;
}

int rk_store__family_def(rk_family_def *def, const rk__family *f)
{
	rk_gc_rule *r = NULL;
	int rc = f->gc ? rk_gc__to_rule(&r, f->gc) : 0;
	*def = (rk_family_def){f->name, f->max_versions, r};
	return rc;
}

void rk_store__families_free(rk__family *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].gc);
	free(v);
}
