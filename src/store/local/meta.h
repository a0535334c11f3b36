/*
 * The meta map: tables, their families and their regions (contiguous row
 * ranges, each held by one region server), plus its persisted form (the META
 * file, docs/formats.md B.2). This file knows nothing of threads
 * or engines: the caller (the local backend, local_int.h) holds the meta lock around lookups and
 * changes. Region objects are never freed while the store is open (a split
 * or drop retires them), so a pointer taken under the lock stays valid.
 */
#ifndef RK_LOCAL_META_H
#define RK_LOCAL_META_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "store/backend.h"
#include "store/local/metrics.h"

struct rk__tmeta;

/* Settings persisted in META (version 2, docs/formats.md B.2): a list of
 * key -> bytes sorted by key. Keys are 1..RK__PROP_KEY_MAX bytes of
 * [a-z0-9_.]; values at most RK__PROP_VAL_MAX bytes. */
#define RK__PROP_KEY_MAX RK_STORE__PROP_KEY_MAX /* every backend's (backend.h) */
#define RK__PROP_VAL_MAX RK_STORE__PROP_VAL_MAX
#define RK__PROPS_MAX RK_STORE__PROPS_MAX

typedef struct rk__prop {
	char key[RK__PROP_KEY_MAX + 1];
	uint8_t *val; /* owned; NUL-terminated past len for text use */
	size_t len;
} rk__prop;

typedef struct rk__props {
	rk__prop *v; /* sorted by key */
	size_t n;
} rk__props;

/* 1 when key is a valid property key. */
int rk_meta__prop_key_ok(const char *key);
/* Sets (copies) key = val[0..len), replacing an old value. RK_EINVALID for a
 * bad key or an oversize value, RK_ENOMEM. */
int rk_meta__prop_set(rk__props *p, const char *key, const void *val, size_t len);
/* Borrowed value (valid until the next set/del on p); RK_ENOTFOUND if unset.
 * Sets no error message when absent: absence is the common case. */
int rk_meta__prop_get(const rk__props *p, const char *key, const uint8_t **val, size_t *len);
/* Removes key; 0 also when it was not set. */
int rk_meta__prop_del(rk__props *p, const char *key);
/* A decimal u64 property: *out unchanged and 0 returned when unset; RK_ECORRUPT
 * naming the key when the value is not a decimal number. */
int rk_meta__prop_u64(const rk__props *p, const char *key, uint64_t *out);
void rk_meta__props_free(rk__props *p);

typedef struct rk__region {
	uint64_t id;
	struct rk__tmeta *table;
	uint8_t *start; /* inclusive, start_len 0 for the first region */
	size_t start_len;
	uint8_t *end;   /* exclusive; NULL when unbounded */
	size_t end_len;
	unsigned server;       /* changed only under the meta write lock */
	_Atomic int moving;    /* writes wait while set */
	_Atomic int retired;   /* split or dropped: no longer in the meta map */
	_Atomic uint64_t size; /* estimated bytes */
	_Atomic uint64_t split_at_size; /* ask for a split check past this size */
	_Atomic int split_pending;
	/* engine bounds of the region: [lo, hi) */
	uint8_t *lo, *hi;
	size_t lo_len, hi_len;
	rk__metrics metrics;
	int64_t born_ms;       /* made (Unix ms): a table's creation or a split; 0: before this run's records */
	struct rk__region *next_all; /* every region ever made, for cleanup */
} rk__region;

typedef struct rk__tmeta {
	uint32_t id;
	char name[RK_MAX_TABLE_NAME_LEN + 1];
	unsigned bucket_prefix_len;
	rk__family *families; /* sorted by name */
	size_t nfamilies;
	rk__region **regions; /* key order */
	size_t nregions;
	_Atomic int handles;  /* open rk_table handles */
	rk__props props;      /* table settings (META v2) */
	struct rk__kvt *kv;   /* its key buckets (keyviz.h), NULL when not counted */
	struct rk__tmeta *next_dropped;
} rk__tmeta;

typedef struct rk__meta {
	unsigned n_servers;
	uint32_t next_table_id;
	uint64_t next_region_id;
	rk__tmeta **tables; /* sorted by name */
	size_t ntables;
	rk__region *all_regions; /* every region object (list through next_all) */
	rk__tmeta *dropped;      /* dropped tables, freed with the meta */
	rk__props props;         /* store-wide settings (META v2) */
} rk__meta;

void rk_meta__init(rk__meta *m, unsigned n_servers);
void rk_meta__fini(rk__meta *m);

/* Makes a region object (owned by the meta's list). start/end copied; end
 * NULL = unbounded. NULL on allocation failure (message set). */
rk__region *rk_meta__region_new(rk__meta *m, rk__tmeta *t, uint64_t id, const uint8_t *start,
                                size_t start_len, const uint8_t *end, size_t end_len,
                                unsigned server);

rk__tmeta *rk_meta__table(const rk__meta *m, const char *name);
rk__tmeta *rk_meta__table_by_id(const rk__meta *m, uint32_t id);

/* Adds / removes a table (keeping the name order). remove moves it to the
 * dropped list and retires its regions. */
int rk_meta__table_add(rk__meta *m, rk__tmeta *t);
void rk_meta__table_remove(rk__meta *m, rk__tmeta *t);
/* Frees a table that is in no list (its regions are m->all_regions'). */
void rk_meta__table_free(rk__tmeta *t);

/* The region of `t` holding `row` (rows compare bytewise). */
rk__region *rk_meta__lookup(const rk__tmeta *t, const uint8_t *row, size_t len);
size_t rk_meta__lookup_index(const rk__tmeta *t, const uint8_t *row, size_t len);

/* Region by id (NULL when unknown or retired). */
rk__region *rk_meta__region(const rk__meta *m, uint64_t id);

/* Regions of table t held by `server`. */
size_t rk_meta__regions_on_server(const rk__tmeta *t, unsigned server);

/* Replaces region index i of t by regions repl[0..n). */
int rk_meta__replace(rk__tmeta *t, size_t i, rk__region **repl, size_t n);

/* Serializes the meta map into a malloc'd buffer (the whole file: magic,
 * length, body, crc). The caller frees *out. */
int rk_meta__encode(uint8_t **out, size_t *len, const rk__meta *m);

/* Parses a META file image into an empty meta m (rk_meta__init'ed). Hostile
 * input: RK_ECORRUPT naming `file`, the table/region and the offset. */
int rk_meta__decode(rk__meta *m, const uint8_t *buf, size_t len, const char *file);

/* Checks the invariants of docs/formats.md B.2 for a table:
 * regions cover the key space in order without gap or overlap, servers in
 * range. Returns 0 or RK_ECORRUPT with a message naming table and region. */
int rk_meta__validate_table(const rk__meta *m, const rk__tmeta *t);

/* Writes the file atomically into dir/META (tmp + fsync + rename + dir fsync). */
int rk_meta__save(const char *dir, const uint8_t *buf, size_t len);

/* Reads dir/META into a malloc'd buffer; RK_ENOTFOUND when absent. */
int rk_meta__read(uint8_t **out, size_t *len, const char *dir);

int rk_meta__row_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl);

#endif
