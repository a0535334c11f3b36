/*
 * The backend registry: which backend opens a store name. store.c hands
 * the name here and names no backend itself; a backend shows the registry
 * only its opener and its log repair (local/local.h), and reaches the
 * shared code through backend.h alone.
 *
 * Backends in libraries of their own (librowkey-bigtable, which brings
 * gRPC) register their scheme with the public rk_store_register (store.h):
 * the table below is this library's state, and nothing outside this file
 * touches it. "bigtable://" names stay refused, never taken for a
 * directory, until rk_bigtable_register() has registered that scheme.
 */
#include <pthread.h>
#include <string.h>

#include "key/error.h"
#include "store/backend.h"
#include "store/local/local.h"

#define SCHEME_MAX 16 /* the name before "://" */

typedef struct {
	char scheme[SCHEME_MAX + 4]; /* with "://" */
	rk_store_opener open;
} scheme_entry;

static pthread_mutex_t schemes_mu = PTHREAD_MUTEX_INITIALIZER;
static scheme_entry schemes[RK_STORE_SCHEMES_MAX];
static size_t nschemes;

/* Index of the entry whose scheme begins `name` (at most one can: a scheme
 * has no ':' before its "://"), or nschemes. Under schemes_mu. */
static size_t find(const char *name)
{
	size_t i = 0;
	while (i < nschemes && strncmp(name, schemes[i].scheme, strlen(schemes[i].scheme)))
		i++;
	return i;
}

static int scheme_ok(const char *scheme)
{
	size_t n = 0;
	while (scheme[n] && scheme[n] != ':') {
		char c = scheme[n];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '.' ||
		      c == '-'))
			return 0;
		n++;
	}
	return n >= 1 && n <= SCHEME_MAX && !strcmp(scheme + n, "://");
}

int rk_store_register(const char *scheme, rk_store_opener open)
{
	if (!scheme || !scheme_ok(scheme))
		return rk__err(RK_EINVALID,
		               "store scheme '%.40s': want 1 to %d of a-z, 0-9, '+', '.', '-' then "
		               "\"://\" (as \"bigtable://\")",
		               scheme ? scheme : "(null)", SCHEME_MAX);
	int rc = 0;
	pthread_mutex_lock(&schemes_mu);
	size_t i = find(scheme);
	if (i < nschemes && open) {
		schemes[i].open = open;
	} else if (i < nschemes) {
		schemes[i] = schemes[--nschemes];
	} else if (open && nschemes == RK_STORE_SCHEMES_MAX) {
		rc = rk__err(RK_EINVALID, "store scheme %s: already %d schemes registered", scheme,
		             RK_STORE_SCHEMES_MAX);
	} else if (open) {
		strcpy(schemes[nschemes].scheme, scheme);
		schemes[nschemes++].open = open;
	}
	pthread_mutex_unlock(&schemes_mu);
	return rc;
}

/* The registered opener of name, or NULL; its scheme into scheme[]. */
static rk_store_opener registered(const char *name, char scheme[SCHEME_MAX + 4])
{
	rk_store_opener fn = NULL;
	pthread_mutex_lock(&schemes_mu);
	size_t i = find(name);
	if (i < nschemes) {
		fn = schemes[i].open;
		strcpy(scheme, schemes[i].scheme);
	}
	pthread_mutex_unlock(&schemes_mu);
	return fn;
}

static int is_bigtable(const char *name)
{
	return !strncmp(name, "bigtable://", 11);
}

int rk_store__open_name(rk_store **out, const char *name, const rk_store_options *opts)
{
	char scheme[SCHEME_MAX + 4];
	rk_store_opener fn = registered(name, scheme);
	*out = NULL;
	if (fn)
		return fn(out, name, opts);
	if (!is_bigtable(name))
		return rk_local__open(out, name, opts); /* the default: a directory */
#ifdef RK_WITH_BIGTABLE
	return rk__err(RK_EINVALID,
	               "store %s: the Bigtable backend is not registered: link librowkey-bigtable "
	               "(pkg-config rowkey-bigtable) and call rk_bigtable_register() first",
	               name);
#else
	return rk__err(RK_EINVALID,
	               "store %s: this rowkey was built without the Bigtable backend "
	               "(configure with -DRK_WITH_BIGTABLE=ON)",
	               name);
#endif
}

int rk_store__repair_name(size_t *out, const char *name,
                          void (*report)(const char *, void *), void *payload)
{
	char scheme[SCHEME_MAX + 4];
	if (registered(name, scheme) || is_bigtable(name)) {
		if (is_bigtable(name))
			strcpy(scheme, "bigtable");
		else
			scheme[strlen(scheme) - 3] = 0;
		return rk__err(RK_EINVALID, "store %s: the %s backend keeps no logs to repair", name,
		               scheme);
	}
	return rk_local__repair(out, name, report, payload);
}
