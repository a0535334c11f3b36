/*
 * The backend interface behind include/rowkey/store.h. src/store/store.c
 * validates arguments once, for every backend, then calls through the ops
 * table of the store. A backend embeds `struct rk_store` as the first member
 * of its store object and `struct rk_table` in its table handle.
 *
 * Backends: local (src/store/local, the embedded cluster) and Bigtable
 * (src/store/bigtable, which registers its scheme with rk_store_register);
 * src/store/backends.c picks one by the store's name; nothing above this
 * file knows which one runs.
 */
#ifndef RK_STORE_BACKEND_H
#define RK_STORE_BACKEND_H

#include <rowkey/store.h>

#include "store/gc.h"

/* A column family as the backends hold it: gc NULL keeps max_versions
 * versions; else the rule decides (max_versions then the most it keeps).
 * gc is owned by whoever owns the family array. */
typedef struct rk__family {
	char name[RK_MAX_FAMILY_LEN + 1];
	size_t name_len;
	unsigned max_versions;
	rk__gc *gc;
} rk__family;

/* 1 when family f collects the rank-th undeleted version (1 the newest) of
 * a column, of timestamp ts, at time now. */
static inline int rk__family_collects(const rk__family *f, unsigned rank, uint64_t ts,
                                      uint64_t now)
{
	return f->gc ? rk_gc__collects(f->gc, rank, ts, now) : rank > f->max_versions;
}

/* Sets family f's rule from a checked definition (gc or max_versions).
 * f->gc must not hold a rule (it is overwritten). */
int rk_store__family_rule(rk__family *f, const rk_family_def *def);

/* Frees families v[0..n) (their rules) and the array. */
void rk_store__families_free(rk__family *v, size_t n);

/* The public definition of f into *def (name borrowed from f; gc a new
 * tree the caller frees, NULL for a version count). */
int rk_store__family_def(rk_family_def *def, const rk__family *f);

struct rk_backend_ops;
struct rk_metrics;
struct rk__filter; /* store/filter.h */

struct rk_store {
	const struct rk_backend_ops *ops;
};

/* What every table handle knows; filled by the backend's table_open. The
 * family array is sorted by name and lives as long as the handle. */
struct rk_table {
	rk_store *store;
	char name[RK_MAX_TABLE_NAME_LEN + 1];
	const rk__family *families;
	size_t nfamilies;
	unsigned bucket_prefix_len;
};

struct rk__fscan;

/* What every scan knows; the backend's scan object embeds it first.
 * filter is store.c's (a filtered scan's state), set after scan_open. */
struct rk_scan {
	rk_table *table;
	struct rk__fscan *filter;
};

struct rk_backend_ops {
	const char *name;
	int (*close)(rk_store *s);
	int (*sync)(rk_store *s);
	/* props: checked by store.c but for the key's form (the backend's) */
	int (*table_create)(rk_store *s, const rk_table_def *def, const rk_table_prop *props,
	                    size_t nprops);
	int (*table_drop)(rk_store *s, const char *name);
	int (*table_list)(rk_table_info **out, size_t *count, rk_store *s);
	int (*table_open)(rk_table **out, rk_store *s, const char *name);
	void (*table_close)(rk_table *t);
	/* muts are validated; ts already assigned (never 0). */
	int (*apply)(rk_table *t, const rk_mutation *muts, size_t n, int *results);
	int (*get)(rk_row **out, rk_table *t, const uint8_t *row, size_t len,
	           const rk_read_options *ro);
	/* start/stop already narrowed by the prefix; stop_len 0 = unbounded. */
	int (*scan_open)(rk_scan **out, rk_table *t, const rk_scan_options *so);
	int (*scan_next)(const rk_row **out, rk_scan *sc);
	void (*scan_close)(rk_scan *sc);
	int (*regions)(rk_region_info **out, size_t *count, rk_store *s, const char *table);
	int (*servers)(rk_server_info **out, size_t *count, rk_store *s);
	int (*region_split)(rk_store *s, uint64_t id, const uint8_t *at, size_t at_len);
	int (*region_move)(rk_store *s, uint64_t id, unsigned server);
	int (*balance)(size_t *out, rk_store *s);
	int (*check)(size_t *out, rk_store *s, void (*report)(const char *, void *), void *payload);
	int (*write_metrics)(rk_store *s, const char *path);
	/* the next assigned timestamp (strictly increasing, >= wall clock, us) */
	uint64_t (*clock)(rk_store *s);
	/* optional (NULL: rk_table_apply_async applies synchronously): queue a
	 * validated batch and return before it is applied; flush waits for what
	 * is queued and returns its first failure */
	int (*apply_async)(rk_table *t, const rk_mutation *muts, size_t n);
	int (*flush)(rk_table *t);
	/* optional (NULL: the backend keeps no table settings): key checked by
	 * store.c; val NULL removes the setting */
	int (*table_prop_set)(rk_store *s, const char *table, const char *key, const void *val,
	                      size_t len);
	int (*table_prop_get)(void **out, size_t *out_len, rk_store *s, const char *table,
	                      const char *key);
	/* optional (NULL: refused): names checked by store.c (valid, no name
	 * twice among the froms or the tos) */
	int (*tables_rename)(rk_store *s, const rk_table_rename *v, size_t n);
	/* optional (NULL: refused): arguments checked by store.c */
	int (*family_set)(rk_store *s, const char *table, const rk_family_def *fam);
	int (*family_drop)(rk_store *s, const char *table, const char *family);
	/* optional (NULL: the backend splits on its own; *out stays 0) */
	int (*split_due)(size_t *out, rk_store *s);
	/* optional (NULL: the backend records no load): rk_store_metrics */
	int (*metrics)(struct rk_metrics **out, rk_store *s);
	/* optional (NULL: the backend collects on its own; *out stays 0) */
	int (*collect)(size_t *out, rk_store *s);
	/* atomic row operations; arguments checked by store.c: the mutations
	 * validated, their rows set to `row` and timestamps assigned; pred
	 * compiled (NULL: the row has a cell), pred_src its definition; for
	 * read_modify_write the rules checked and ts assigned (never 0) */
	int (*check_and_mutate)(int *matched, rk_table *t, const uint8_t *row, size_t len,
	                        const struct rk__filter *pred, const rk_filter *pred_src,
	                        const rk_mutation *if_true, size_t ntrue,
	                        const rk_mutation *if_false, size_t nfalse);
	int (*read_modify_write)(rk_row **out, rk_table *t, const uint8_t *row, size_t len,
	                         const rk_rmw_rule *rules, size_t n, uint64_t ts);
};

/* rk_store_open and rk_store_repair of a checked name: a scheme registered
 * with rk_store_register, else a directory of the local backend
 * (src/store/backends.c, the registry). */
int rk_store__open_name(rk_store **out, const char *name, const rk_store_options *opts);
int rk_store__repair_name(size_t *out, const char *name,
                          void (*report)(const char *, void *), void *payload);

/* 1 when `name` is 1..max bytes of [A-Za-z0-9_.-] (src/store/names.c, as
 * the next: shared by store.c and the backends). */
int rk_store__valid_name(const char *name, size_t max);

/* Table settings as every backend keeps them (docs/formats.md B.2): keys
 * of 1..RK_STORE__PROP_KEY_MAX bytes of [a-z0-9_.], values of at most
 * RK_STORE__PROP_VAL_MAX bytes, at most RK_STORE__PROPS_MAX of a table. */
#define RK_STORE__PROP_KEY_MAX 64
#define RK_STORE__PROP_VAL_MAX 65536
#define RK_STORE__PROPS_MAX 1024

/* 1 when `key` is a setting's key as above (src/store/names.c). */
int rk_store__valid_prop_key(const char *key);

/* Checks mutation i of a batch for table t (store.c): RK_EINVALID or
 * RK_ETOOLONG naming it. `known`: a family name pointer already found in t
 * (batches mostly repeat one literal), so its lookup can be skipped; updated
 * when one is found. For the API layer (store.c, atomic.c), not backends. */
int rk_store__check_mutation(const rk_table *t, const rk_mutation *m, size_t i,
                             const char **known);

/* Returns the family of a table handle by name, or NULL. */
const rk__family *rk_store__family(const rk_table *t, const char *name, size_t len);

#endif
