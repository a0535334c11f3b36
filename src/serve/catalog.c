/*
 * The tables `rowkey serve` answers for, by instance. Bigtable keeps each
 * instance's tables apart (projects/P/instances/I/tables/T); the store has
 * one namespace of table names. A table created through an instance is the
 * store table T, or T.<12 hex digits of a hash of the instance's name> when
 * T is taken, created with the settings serve.instance (the instance's
 * name) and serve.table (T) in the same step (rk_table_create_with). A
 * store table without them (made by `rowkey create`, or served before
 * instances were kept apart) belongs to no instance: every instance sees it
 * under its store name, as before (docs/serve.md).
 *
 * The catalog is read from the store when the server starts and kept in
 * step by the admin calls (the server holds the store's lock: nothing else
 * changes its tables). Its mutex is held for lookups and bookkeeping only,
 * never while the store works or a call waits: a table being created or
 * dropped has an entry that reserves its store name but is not found, and
 * each entry has a serial number, so a call that found a table and then
 * opened it can check it found the same one (rk_sv__catalog_still).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "serve/serve_int.h"

#define PROP_INSTANCE "serve.instance"
#define PROP_TABLE "serve.table"

enum { LIVE, CREATING, DROPPING };

typedef struct centry {
	char *inst; /* "projects/P/instances/I"; NULL: shared by every instance */
	char id[RK_MAX_TABLE_NAME_LEN + 1];
	char store[RK_MAX_TABLE_NAME_LEN + 1];
	uint64_t serial;
	int state;
} centry;

struct rk_sv_catalog {
	rk_store *store;
	rk_sv_tables *pool;
	pthread_mutex_t mu;
	centry *v;
	size_t n, cap;
	uint64_t next_serial;
};

/* Adds an entry (under the mutex, or before the catalog is shared). */
static centry *add(rk_sv_catalog *c, const char *inst, const char *id, const char *store,
                   int state)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		centry *v = realloc(c->v, cap * sizeof *v);
		if (!v)
			return NULL;
		c->v = v;
		c->cap = cap;
	}
	centry *e = &c->v[c->n];
	e->inst = inst ? strdup(inst) : NULL;
	if (inst && !e->inst)
		return NULL;
	snprintf(e->id, sizeof e->id, "%s", id);
	snprintf(e->store, sizeof e->store, "%s", store);
	e->serial = ++c->next_serial;
	e->state = state;
	c->n++;
	return e;
}

static void remove_at(rk_sv_catalog *c, centry *e)
{
	free(e->inst);
	*e = c->v[--c->n];
}

static centry *by_serial(rk_sv_catalog *c, uint64_t serial)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].serial == serial)
			return &c->v[i];
	return NULL;
}

/* A setting of store table `name` as a C string, or NULL when unset. */
static char *setting(rk_store *store, const char *name, const char *key)
{
	void *v;
	size_t n;
	return rk_store_table_prop_get(&v, &n, store, name, key) == 0 ? v : NULL;
}

int rk_sv__catalog_new(rk_sv_catalog **out, rk_store *store, rk_sv_tables *pool)
{
	rk_sv_catalog *c = calloc(1, sizeof *c);
	rk_table_info *ti = NULL;
	size_t n = 0;
	if (!c)
		return rk__err(RK_ENOMEM, "serve: out of memory");
	c->store = store;
	c->pool = pool;
	pthread_mutex_init(&c->mu, NULL);
	int rc = rk_table_list(&ti, &n, store);
	for (size_t i = 0; i < n && !rc; i++) {
		char *inst = setting(store, ti[i].name, PROP_INSTANCE);
		char *id = inst ? setting(store, ti[i].name, PROP_TABLE) : NULL;
		/* a table with the instance but not the id is one of the instance's
		 * under its store name */
		if (!add(c, inst, id ? id : ti[i].name, ti[i].name, LIVE))
			rc = rk__err(RK_ENOMEM, "serve: out of memory for the table catalog");
		free(inst);
		free(id);
	}
	rk_table_info_free(ti, n);
	if (rc) {
		rk_sv__catalog_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void rk_sv__catalog_free(rk_sv_catalog *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].inst);
	free(c->v);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

/* The entry of table `id` in instance `inst` in any state (the instance's
 * own first, then a shared one), or NULL; inst NULL: the entry whose store
 * name is `id` (the HBase REST API names tables so). Under the mutex. */
static centry *lookup(rk_sv_catalog *c, const char *inst, const char *id)
{
	centry *shared = NULL;
	for (size_t i = 0; i < c->n; i++) {
		centry *e = &c->v[i];
		if (!inst) {
			if (strcmp(e->store, id) == 0)
				return e;
			continue;
		}
		if (strcmp(e->id, id) != 0)
			continue;
		if (e->inst && strcmp(e->inst, inst) == 0)
			return e;
		if (!e->inst)
			shared = e;
	}
	return shared;
}

static int store_name_taken(const rk_sv_catalog *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].store, name) == 0)
			return 1;
	return 0;
}

int rk_sv__catalog_find(rk_sv_ref *ref, rk_sv_catalog *c, const char *inst, const char *id)
{
	pthread_mutex_lock(&c->mu);
	centry *e = lookup(c, inst, id);
	int found = e && e->state == LIVE;
	if (found) {
		memcpy(ref->store, e->store, sizeof ref->store);
		ref->serial = e->serial;
	}
	pthread_mutex_unlock(&c->mu);
	return found ? 0 : RK_ENOTFOUND;
}

int rk_sv__catalog_still(rk_sv_catalog *c, const rk_sv_ref *ref)
{
	pthread_mutex_lock(&c->mu);
	centry *e = by_serial(c, ref->serial);
	int live = e && e->state == LIVE;
	pthread_mutex_unlock(&c->mu);
	return live;
}

static int id_cmp(const void *a, const void *b)
{
	return strcmp(((const rk_sv_named *)a)->id, ((const rk_sv_named *)b)->id);
}

int rk_sv__catalog_list(rk_sv_named **out, size_t *count, rk_sv_catalog *c, const char *inst)
{
	pthread_mutex_lock(&c->mu);
	rk_sv_named *v = calloc(c->n ? c->n : 1, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; v && i < c->n; i++)
		/* an instance's own table hides a shared one of the same id */
		if (c->v[i].state == LIVE && lookup(c, inst, c->v[i].id) == &c->v[i]) {
			memcpy(v[k].id, c->v[i].id, sizeof v[k].id);
			memcpy(v[k].store, c->v[i].store, sizeof v[k].store);
			k++;
		}
	pthread_mutex_unlock(&c->mu);
	if (!v)
		return rk__err(RK_ENOMEM, "serve: out of memory listing tables");
	qsort(v, k, sizeof *v, id_cmp);
	*out = v;
	*count = k;
	return 0;
}

/* The store name for table `id` of instance `inst`: id itself when free,
 * else id.<12 hex digits of the FNV-1a hash of inst>. */
static void store_name_for(char *out, const rk_sv_catalog *c, const char *inst, const char *id)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = inst ? inst : ""; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	if (!store_name_taken(c, id))
		snprintf(out, RK_MAX_TABLE_NAME_LEN + 1, "%s", id);
	else
		snprintf(out, RK_MAX_TABLE_NAME_LEN + 1, "%.50s.%012llx", id,
		         (unsigned long long)(h & 0xffffffffffffull));
}

int rk_sv__catalog_create(rk_sv_ref *ref, rk_sv_catalog *c, const char *inst, const char *id,
                          rk_table_def *def)
{
	char name[RK_MAX_TABLE_NAME_LEN + 1];
	pthread_mutex_lock(&c->mu);
	if (lookup(c, inst, id)) {
		pthread_mutex_unlock(&c->mu);
		return inst ? rk__err(RK_EEXISTS, "table %s/tables/%s already exists", inst, id)
		            : rk__err(RK_EEXISTS, "table %s already exists", id);
	}
	store_name_for(name, c, inst, id);
	centry *e = store_name_taken(c, name) ? NULL : add(c, inst, id, name, CREATING);
	uint64_t serial = e ? e->serial : 0;
	pthread_mutex_unlock(&c->mu);
	if (!e)
		return rk__err(RK_EEXISTS, "table %s/tables/%s: its store names %s and %s are taken "
		                           "(or out of memory)",
		               inst ? inst : "(no instance)", id, id, name);
	rk_table_prop props[] = {{PROP_INSTANCE, inst, inst ? strlen(inst) : 0},
	                         {PROP_TABLE, id, strlen(id)}};
	def->name = name;
	/* without an instance: a shared table, seen by every instance */
	int rc = rk_table_create_with(c->store, def, props, inst ? 2 : 0);
	pthread_mutex_lock(&c->mu);
	e = by_serial(c, serial);
	if (rc)
		remove_at(c, e);
	else
		e->state = LIVE;
	pthread_mutex_unlock(&c->mu);
	if (!rc) {
		memcpy(ref->store, name, sizeof ref->store);
		ref->serial = serial;
	}
	return rc;
}

int rk_sv__catalog_drop(rk_sv_catalog *c, const char *inst, const char *id)
{
	char name[RK_MAX_TABLE_NAME_LEN + 1];
	pthread_mutex_lock(&c->mu);
	centry *e = lookup(c, inst, id);
	uint64_t serial = 0;
	if (e && e->state == LIVE) {
		e->state = DROPPING; /* not found from now on; its store name stays taken */
		serial = e->serial;
		memcpy(name, e->store, sizeof name);
	}
	pthread_mutex_unlock(&c->mu);
	if (!serial)
		return inst ? rk__err(RK_ENOTFOUND, "table %s/tables/%s not found", inst, id)
		            : rk__err(RK_ENOTFOUND, "table %s not found", id);
	/* handles in use are waited for; no new one is opened meanwhile */
	rk_sv__table_block(c->pool, name);
	int rc = rk_table_drop(c->store, name);
	rk_sv__table_unblock(c->pool, name);
	pthread_mutex_lock(&c->mu);
	e = by_serial(c, serial);
	if (rc && rc != RK_ENOTFOUND)
		e->state = LIVE;
	else
		remove_at(c, e);
	pthread_mutex_unlock(&c->mu);
	return rc;
}

/* Store table `name` as the catalog should see it: its instance (malloc'd,
 * NULL: shared) and id. 1 when it exists, 0 when not. */
static int as_stored(char **inst, char *id, size_t cap, rk_store *store, const char *name)
{
	rk_table *t;
	*inst = NULL;
	if (rk_table_open(&t, store, name))
		return 0;
	rk_table_close(t);
	*inst = setting(store, name, PROP_INSTANCE);
	char *tid = *inst ? setting(store, name, PROP_TABLE) : NULL;
	snprintf(id, cap, "%s", tid ? tid : name);
	free(tid);
	return 1;
}

void rk_sv__catalog_refresh(rk_sv_catalog *c, const char *const *names, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		char *inst, id[RK_MAX_TABLE_NAME_LEN + 1];
		int there = as_stored(&inst, id, sizeof id, c->store, names[k]);
		pthread_mutex_lock(&c->mu);
		centry *e = NULL;
		for (size_t i = 0; i < c->n && !e; i++)
			if (c->v[i].state == LIVE && !strcmp(c->v[i].store, names[k]))
				e = &c->v[i];
		if (e && !there) {
			remove_at(c, e);
		} else if (e) { /* the same name: calls that found it go on with it */
			free(e->inst);
			e->inst = inst;
			inst = NULL;
			snprintf(e->id, sizeof e->id, "%s", id);
		} else if (there) {
			add(c, inst, id, names[k], LIVE); /* out of memory: seen after a restart */
		}
		pthread_mutex_unlock(&c->mu);
		free(inst);
	}
}
