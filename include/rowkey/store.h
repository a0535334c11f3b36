/*
 * rowkey/store.h: the table store.
 *
 * An HBase/Bigtable-shaped store: tables with declared column families; cells
 * (row, family, qualifier, timestamp, value); a family keeps up to V versions;
 * deletes are markers honoured by reads. A table is cut into regions
 * (contiguous row ranges) served by region servers. The API is backend
 * neutral: the embedded store ("local", a directory) implements it today; a
 * Bigtable backend can implement the same calls.
 *
 * Conventions are those of key.h: 0 or a negative RK_E* code, rk_error_last()
 * for the message, out-parameters first, byte strings as pointer + length.
 * All calls on one rk_store may be made from several threads at once, except
 * rk_store_close. Reads (get, scan_open) on one rk_table handle may run in
 * several threads; writes (apply, put, delete) through one handle must not
 * overlap, as they reuse the handle's buffers: give each writing thread its
 * own handle. An rk_scan belongs to one thread at a time.
 *
 * Timestamps are microseconds since the Unix epoch. A timestamp of 0 in a
 * mutation means "assign one": the store hands out a strictly increasing
 * clock (at least the wall clock), one value per rk_table_apply call, so a
 * later call always supersedes an earlier one.
 *
 * Deletes are ordered by when they are applied, not by timestamp (as in
 * Bigtable, and HBase with NEW_VERSION_BEHAVIOR): a delete removes the
 * versions in its time range that exist when it applies (written by earlier
 * calls, or earlier in the same batch); a write applied after it stays,
 * whatever its timestamp.
 */
#ifndef ROWKEY_STORE_H
#define ROWKEY_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/key.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Limits (HBase's row limit; bigger values are rejected with RK_ETOOLONG). */
#define RK_MAX_ROW_LEN 32767u
#define RK_MAX_QUALIFIER_LEN 65535u
#define RK_MAX_VALUE_LEN (64u << 20)
#define RK_MAX_FAMILY_LEN 64u
#define RK_MAX_TABLE_NAME_LEN 64u
#define RK_MAX_SERVERS 256u
/* A read of a row whose cells (qualifiers and values it returns) pass this
 * is RK_ETOOLONG: a row is read whole into memory (Bigtable's row limit). */
#define RK_MAX_ROW_BYTES (256u << 20)

/* ---- store ---- */

typedef struct rk_store rk_store;

typedef enum rk_durability {
	RK_DURABILITY_SYNC = 0, /* fsync the log before acknowledging a write */
	RK_DURABILITY_ASYNC = 1 /* acknowledge after the OS has the write; a crash
	                           may lose the last writes, never corrupts */
} rk_durability;

typedef struct rk_store_options {
	rk_durability durability;
	unsigned n_servers;          /* region servers of a new store (1..256); an
	                                existing store keeps its own count */
	uint64_t split_threshold;    /* bytes of a region before it splits; 0: never */
	int create_if_missing;       /* 1: create the directory and store */
	size_t write_buffer_size;    /* engine memtable bytes per server */
	unsigned metrics_bucket_ms;  /* width of a metrics time bucket */
	int background_splits;       /* 1: a background thread splits big regions;
	                                0: rk_store_split_due does */
	/* Capacity of each region server, per second: what it applies (cells
	 * written, and regions visited by the reads it serves) and the bytes of
	 * those cells. A server over its capacity makes writes queue and reads
	 * wait, as a cluster's machine would. 0: the store's saved setting (a
	 * new store: unlimited); RK_SERVER_CAPACITY_OFF: unlimited. A value other
	 * than 0 is saved with the store, and later opens use it. */
	uint64_t server_capacity_ops;
	uint64_t server_capacity_bytes;
	/* Bytes of table blocks kept in memory, in one LRU cache the region
	 * servers share (the default 64 MiB). Reads verify each block's checksum
	 * when they read it from disk, not when the cache has it, so a working
	 * set that fits here reads at full speed. 0: 8 MiB per server, LevelDB's
	 * own default. Not saved with the store: a setting of this process. */
	size_t block_cache_size;
	/* Key buckets (the store's Key Visualizer, rowkey/metrics.h): each
	 * table's load is also counted in at most this many contiguous key
	 * ranges per time interval (metrics_bucket_ms), whose boundaries follow
	 * the keys seen; kept in the metrics file. 2..1000 (the default 1000);
	 * 0: not counted. Not saved with the store. */
	unsigned key_buckets;
} rk_store_options;

#define RK_SERVER_CAPACITY_OFF UINT64_MAX

#define RK_STORE_OPTIONS_INIT                                                       \
	{ RK_DURABILITY_SYNC, 4, 256ull << 20, 1, 8u << 20, 1000, 1, 0, 0, 64u << 20, 1000 }

/* Opens (or creates) the store in directory `dir`. Replays each server's
 * log, validates the meta map and removes cells that no region on their
 * server owns (the leftovers of an interrupted move or drop). The caller owns
 * *out and releases it with rk_store_close. `opts` may be NULL (defaults).
 * RK_EBUSY when another process has the store open. */
int rk_store_open(rk_store **out, const char *dir, const rk_store_options *opts);

/* Waits for queued writes and background splits, writes the metrics file,
 * closes every engine and frees the store. Tables and scans must be closed
 * first. Returns the first error met; the store is freed in any case. */
int rk_store_close(rk_store *store);

/* Makes every acknowledged write durable (fsync), whatever the mode. */
int rk_store_sync(rk_store *store);

/* What opens a store name: rk_store_open's own signature. */
typedef int (*rk_store_opener)(rk_store **out, const char *name, const rk_store_options *opts);

#define RK_STORE_SCHEMES_MAX 8

/* Hands every store name that begins with `scheme` to `open`, for
 * rk_store_open in this process (the options are checked first; opening
 * anything else is unchanged). A scheme is 1..16 of [a-z0-9+.-] then "://".
 * A later call for the same scheme replaces its opener; `open` NULL takes
 * the scheme back. Thread-safe; at most RK_STORE_SCHEMES_MAX schemes.
 * rk_store_repair refuses such names (no logs to repair here).
 * The opener reports failures with rk_error_set (key.h). rowkey's Bigtable
 * part registers "bigtable://" through this (rk_bigtable_register); a
 * program may register its own, e.g. names that stand for a store opened
 * elsewhere with rk_store_open. RK_EINVALID for a bad scheme or one too many. */
int rk_store_register(const char *scheme, rk_store_opener open);

/* ---- tables ---- */

/* Which versions of a column a family keeps (Bigtable's GcRule, HBase's
 * VERSIONS and TTL). A collected version is hidden from reads at once and
 * its space given back by rk_store_collect. Rules nest at most
 * RK_GC_MAX_DEPTH deep, RK_GC_MAX_RULES rules in all. */
typedef enum rk_gc_kind {
	RK_GC_NONE = 0,        /* keep every version */
	RK_GC_VERSIONS = 1,    /* keep the newest max_versions (>= 1) */
	RK_GC_AGE = 2,         /* keep versions whose timestamp is less than
	                          max_age_us (1..2^62) before now */
	RK_GC_UNION = 3,       /* collect what any of rules[] collects */
	RK_GC_INTERSECTION = 4 /* collect what all of rules[] collect */
} rk_gc_kind;

typedef struct rk_gc_rule {
	rk_gc_kind kind;
	unsigned max_versions;
	uint64_t max_age_us;
	const struct rk_gc_rule *rules; /* UNION, INTERSECTION: 1.. rules */
	size_t nrules;
} rk_gc_rule;

#define RK_GC_MAX_DEPTH 8u
#define RK_GC_MAX_RULES 64u

typedef struct rk_family_def {
	const char *name;      /* 1..64 bytes of [A-Za-z0-9_.-] */
	unsigned max_versions; /* versions kept (>= 1) when gc is NULL */
	const rk_gc_rule *gc;  /* NULL: keep max_versions versions; else this
	                          rule decides and max_versions is ignored
	                          (in rk_table_info: the most it keeps,
	                          UINT32_MAX for no bound) */
} rk_family_def;

typedef struct rk_bytes {
	const uint8_t *ptr;
	size_t len;
} rk_bytes;

typedef struct rk_table_def {
	const char *name;               /* 1..64 bytes of [A-Za-z0-9_.-] */
	const rk_family_def *families;  /* 1..255 families */
	size_t nfamilies;
	const rk_bytes *split_points;   /* strictly increasing, non-empty rows: */
	size_t nsplits;                 /* nsplits + 1 regions */
	unsigned bucket_prefix_len;     /* salted designs: the first N bytes of a row
	                                   are its bucket; automatic splits happen
	                                   only on bucket boundaries (0: none) */
} rk_table_def;

/* Creates a table. Regions go to servers round-robin. RK_EEXISTS, or
 * RK_EINVALID naming the bad family / split point. Nothing is created on
 * error. */
int rk_table_create(rk_store *store, const rk_table_def *def);

/* A table setting (see rk_store_table_prop_set) given at creation. */
typedef struct rk_table_prop {
	const char *key;
	const void *val;
	size_t len;
} rk_table_prop;

/* rk_table_create with settings props[0..nprops), saved with the table in
 * one step: after a crash the table is there with all of them, or not at
 * all (on Bigtable, two calls: a crash between them leaves the table with
 * none; a failure to save them deletes it again). A bad key or value:
 * RK_EINVALID, nothing created; a backend that keeps no settings refuses
 * any. */
int rk_table_create_with(rk_store *store, const rk_table_def *def, const rk_table_prop *props,
                         size_t nprops);

/* Drops a table and deletes its cells. RK_ENOTFOUND, RK_EBUSY while a
 * handle on it is open. */
int rk_table_drop(rk_store *store, const char *name);

/* Adds family `fam` to table `table`, or changes the GC rule (or
 * max_versions) of the family of that name: the change is saved before it
 * returns. Versions the new rule collects stop being visible at once. RK_ENOTFOUND (table),
 * RK_EINVALID (bad family, 255 families already), RK_EBUSY while a handle on
 * the table is open (close them first), RK_EINVALID on a backend that does
 * not keep families (Bigtable: use its admin tools). */
int rk_table_family_set(rk_store *store, const char *table, const rk_family_def *fam);

/* Drops family `family` of table `table` and deletes its cells (every
 * version of every row: a scan of the table, so it takes as long as one).
 * RK_ENOTFOUND (table or family), RK_EBUSY while a handle on the table is
 * open or one of its regions moves, RK_EINVALID on a backend that does not
 * keep families (Bigtable). A failure part way leaves the family declared
 * with some of its cells gone; repeat the call. */
int rk_table_family_drop(rk_store *store, const char *table, const char *family);

/* One rename of rk_store_tables_rename. */
typedef struct rk_table_rename {
	const char *from; /* an existing table */
	const char *to;   /* its new name (1..64 bytes of [A-Za-z0-9_.-]) */
} rk_table_rename;

/* Renames tables renames[0..n) (1..16) in one catalogue change: after a
 * crash every table has its old name or every one its new name
 * (docs/formats.md B.7). A `to` may be a name another rename of the call
 * frees, so two tables can swap names. Cells, regions and settings stay
 * with the table. RK_ENOTFOUND (a `from`), RK_EEXISTS (a `to` held by a
 * table not renamed away), RK_EINVALID (a name twice, a bad name, or a
 * backend without renames), RK_EBUSY while a handle on one of them is open
 * (on Bigtable also when another process changed the names meanwhile: run
 * it again). Nothing is renamed on error. On Bigtable the names are
 * rowkey's own, over Bigtable table ids that do not change (docs/formats.md
 * Part C, Table names; rk_bigtable_table_id in rowkey/bigtable.h). */
int rk_store_tables_rename(rk_store *store, const rk_table_rename *renames, size_t n);

typedef struct rk_table_info {
	char *name;
	rk_family_def *families; /* names and rules owned by this info; gc is
	                            NULL for a family that keeps max_versions */
	size_t nfamilies;
	unsigned bucket_prefix_len;
	size_t nregions;
} rk_table_info;

/* Lists tables, sorted by name. The caller owns *out (count entries) and
 * frees it with rk_table_info_free. */
int rk_table_list(rk_table_info **out, size_t *count, rk_store *store);
void rk_table_info_free(rk_table_info *infos, size_t count);

/* Table settings: small named values kept with the table in the store's
 * META and read back by every later open (docs/formats.md B.2; on Bigtable
 * in the instance's _rowkey_meta table, Part C), for example the key
 * schema the table's rows were written with (`schema`).
 * key: 1..64 bytes of [a-z0-9_.]; value at most 64 KiB of bytes; at most
 * 1024 settings per table.
 *
 * set: persisted before it returns; val NULL removes the setting.
 * RK_ENOTFOUND for an unknown table, RK_EINVALID for a bad key or an
 * oversize value or a backend that keeps no settings.
 *
 * get: the caller owns *out (NUL-terminated past *out_len, so text can be
 * used as a C string) and frees it with free(). RK_ENOTFOUND when the table
 * or the setting does not exist. */
int rk_store_table_prop_set(rk_store *store, const char *table, const char *key,
                            const void *val, size_t len);
int rk_store_table_prop_get(void **out, size_t *out_len, rk_store *store, const char *table,
                            const char *key);

typedef struct rk_table rk_table;

/* Opens a handle on a table. The caller owns *out and frees it with
 * rk_table_close before closing the store. RK_ENOTFOUND naming the table. */
int rk_table_open(rk_table **out, rk_store *store, const char *name);
void rk_table_close(rk_table *table);

/* 1 when the table of `table` has column family `family` (as the handle saw
 * the table when it was opened), else 0. */
int rk_table_has_family(const rk_table *table, const char *family);

/* ---- writes ---- */

/* The largest timestamp: a delete up to it removes every version. */
#define RK_TS_MAX ((uint64_t)INT64_MAX)

/* Deletes remove the versions with ts_from <= timestamp <= ts that exist
 * when they apply (see the top of this file). */
typedef enum rk_mutation_type {
	RK_MUT_PUT = 1,           /* set family:qualifier at ts to value */
	RK_MUT_DELETE_CELL = 2,   /* delete the version at exactly ts (ts != 0) */
	RK_MUT_DELETE_COLUMN = 3, /* delete the column's versions in [ts_from, ts] */
	RK_MUT_DELETE_FAMILY = 4, /* delete the family's versions in [ts_from, ts] */
	RK_MUT_DELETE_ROW = 5     /* delete the row's versions in [ts_from, ts] */
} rk_mutation_type;

typedef struct rk_mutation {
	rk_mutation_type type;
	const uint8_t *row;
	size_t row_len;
	const char *family; /* NUL-terminated; unused for DELETE_ROW */
	const uint8_t *qualifier;
	size_t qualifier_len;
	uint64_t ts;        /* microseconds; 0: assigned by the store (for a
	                       delete: now); RK_TS_MAX: a delete of every version */
	const uint8_t *value;
	size_t value_len;
	uint64_t ts_from;   /* deletes of a column, family or row: the oldest
	                       version deleted (0: from the first); <= ts */
} rk_mutation;

/* Applies n mutations. All are validated first: if any is bad (unknown
 * family, row or value too long, ...) nothing is written, the call returns
 * that entry's code and results[i] holds each entry's own status (0 for the
 * good ones). Otherwise the mutations are grouped by region server; each
 * group is applied atomically (one engine batch), groups independently: on
 * an I/O failure results[i] tells which entries were applied (0) and which
 * not (the group's error). `results` may be NULL. Returns when every group
 * is acknowledged under the store's durability mode. */
int rk_table_apply(rk_table *table, const rk_mutation *muts, size_t n, int *results);

/* Buffered writes, like HBase's BufferedMutator: validates the batch as
 * rk_table_apply does (a bad entry: its code, nothing queued), encodes it,
 * queues each region server's share and returns without waiting, so the
 * caller can prepare the next batch while the servers apply this one. The
 * caller may reuse its buffers at once. Each server's share is still applied
 * atomically, and batches reach a server in call order. At most two batches
 * per handle are in flight: a third call first waits for the oldest, and if
 * that one failed returns its error (naming the server) and queues nothing.
 * Reads do not wait for queued batches; call rk_table_flush to read your own
 * writes. Backends without buffering apply the batch before returning. */
int rk_table_apply_async(rk_table *table, const rk_mutation *muts, size_t n);

/* 1 when rk_table_apply_async queues batches and returns before they are
 * applied (the embedded store: each server's share is then written whole or
 * not at all); 0 when the backend applies a batch before returning
 * (Bigtable: each row on its own, so a failed call may have written some
 * rows of its batch and not others). */
int rk_table_apply_is_async(const rk_table *table);

/* Waits until every batch queued with rk_table_apply_async on this handle is
 * acknowledged; returns the first failure among them (0 if none).
 * rk_table_close also waits, but cannot report failures. */
int rk_table_flush(rk_table *table);

/* One put: the cell family:qualifier of row at ts (0: now). */
int rk_table_put(rk_table *table, const uint8_t *row, size_t row_len, const char *family,
                 const uint8_t *qualifier, size_t qualifier_len, uint64_t ts,
                 const uint8_t *value, size_t value_len);

/* One delete: family NULL deletes the row; qualifier NULL the family;
 * otherwise the column (the versions <= ts that exist; ts 0: now). */
int rk_table_delete(rk_table *table, const uint8_t *row, size_t row_len, const char *family,
                    const uint8_t *qualifier, size_t qualifier_len, uint64_t ts);

/* ---- reads ---- */

typedef struct rk_column {
	const char *family;       /* NUL-terminated */
	const uint8_t *qualifier; /* NULL: the whole family */
	size_t qualifier_len;
} rk_column;

/* ---- row filters ---- */

/* A row filter, as Bigtable's RowFilter: it takes the cells a read returns
 * for a row (in row order: family, qualifier, newest first) and passes
 * some of them, perhaps transformed. Regular expressions are RE2 syntax on
 * bytes (Latin-1), matched against the whole field; RE2 runs in time linear
 * in its input, so no pattern takes exponential time. A filter nests at
 * most RK_FILTER_MAX_DEPTH deep and holds at most RK_FILTER_MAX_NODES
 * filters; refused filters are RK_EINVALID naming the filter by its path
 * in Bigtable's terms ("filter.chain.filters[2].value_regex_filter: ..."). */
typedef enum rk_filter_kind {
	RK_FILTER_PASS = 0,            /* every cell */
	RK_FILTER_BLOCK = 1,           /* no cell */
	RK_FILTER_CHAIN = 2,           /* kids in turn, each on the last one's output */
	RK_FILTER_INTERLEAVE = 3,      /* every kid on the input; outputs merged in row
	                                  order, duplicates kept */
	RK_FILTER_CONDITION = 4,       /* kids[0] the predicate: if it passes a cell,
	                                  kids[1] on the input, else kids[2] (nkids 3;
	                                  BLOCK for a branch that passes nothing) */
	RK_FILTER_SINK = 5,            /* its input goes to the row's result as is; it
	                                  passes nothing on (not inside a condition) */
	RK_FILTER_ROW_KEY_REGEX = 6,   /* rows whose key matches pattern */
	RK_FILTER_ROW_SAMPLE = 7,      /* rows whose key hashes under probability (0,1):
	                                  the same rows every time */
	RK_FILTER_FAMILY_REGEX = 8,    /* cells whose family matches pattern */
	RK_FILTER_QUALIFIER_REGEX = 9, /* cells whose qualifier matches pattern */
	RK_FILTER_COLUMN_RANGE = 10,   /* cells of `family` with a qualifier in [lo, hi] */
	RK_FILTER_TIME_RANGE = 11,     /* cells with ts_from <= ts < ts_to (0: no end) */
	RK_FILTER_VALUE_REGEX = 12,    /* cells whose value matches pattern */
	RK_FILTER_VALUE_RANGE = 13,    /* cells with a value in [lo, hi] */
	RK_FILTER_ROW_OFFSET = 14,     /* all but the first n cells of the row */
	RK_FILTER_ROW_LIMIT = 15,      /* the first n cells of the row */
	RK_FILTER_COLUMN_LIMIT = 16,   /* the newest n cells of each column */
	RK_FILTER_STRIP_VALUE = 17,    /* every cell, with an empty value */
	RK_FILTER_LABEL = 18           /* every cell, labelled `label` (1..15 bytes of
	                                  [a-z0-9-]) */
} rk_filter_kind;

typedef enum rk_bound_kind {
	RK_BOUND_NONE = 0,   /* unbounded */
	RK_BOUND_CLOSED = 1, /* the bound is included */
	RK_BOUND_OPEN = 2    /* the bound is excluded */
} rk_bound_kind;

typedef struct rk_filter_bound {
	rk_bound_kind kind;
	const uint8_t *ptr;
	size_t len;
} rk_filter_bound;

typedef struct rk_filter {
	rk_filter_kind kind;
	const struct rk_filter *kids; /* CHAIN, INTERLEAVE (1..), CONDITION (3) */
	size_t nkids;
	const uint8_t *pattern;       /* the *_REGEX kinds */
	size_t pattern_len;
	const char *family;           /* COLUMN_RANGE */
	rk_filter_bound lo, hi;       /* COLUMN_RANGE, VALUE_RANGE */
	uint64_t ts_from, ts_to;      /* TIME_RANGE */
	uint64_t n;                   /* ROW_OFFSET, ROW_LIMIT, COLUMN_LIMIT */
	double probability;           /* ROW_SAMPLE */
	const char *label;            /* LABEL */
} rk_filter;

#define RK_FILTER_MAX_DEPTH 64u
#define RK_FILTER_MAX_NODES 10000u

/* Visibility: a version is hidden when it is not among its column's newest
 * versions its family's GC rule keeps; the time range then filters what is
 * left, and at most `max_versions` (of these options) come back per
 * column. A filter, when given, then takes the row: a row it leaves no
 * cell of is not returned (and does not count against a scan's limit). */
typedef struct rk_read_options {
	const rk_column *columns; /* NULL / 0: every column */
	size_t ncolumns;
	unsigned max_versions;    /* newest visible versions per column (capped
	                             by the family's max_versions); 0 means 1 */
	uint64_t min_ts;          /* only versions with min_ts <= ts < max_ts */
	uint64_t max_ts;          /* 0: no upper bound */
	const rk_filter *filter;  /* NULL: none; borrowed for the call (a scan:
	                             until rk_scan_open returns) */
} rk_read_options;

#define RK_READ_OPTIONS_INIT { NULL, 0, 1, 0, 0, NULL }

typedef struct rk_cell {
	const char *family; /* NUL-terminated */
	const uint8_t *qualifier;
	size_t qualifier_len;
	uint64_t ts;
	const uint8_t *value;
	size_t value_len;
	const char *label;  /* a filter's RK_FILTER_LABEL, or NULL */
} rk_cell;

/* A row: its cells ordered by family, qualifier, then newest first (a
 * filter's interleave may repeat a cell). */
typedef struct rk_row {
	const uint8_t *key;
	size_t key_len;
	const rk_cell *cells;
	size_t ncells;
} rk_row;

/* Reads one row. The caller owns *out (one allocation) and frees it with
 * rk_row_free. RK_ENOTFOUND when the row has no visible cell under `opts`
 * (NULL: newest version of every column). */
int rk_table_get(rk_row **out, rk_table *table, const uint8_t *row, size_t row_len,
                 const rk_read_options *opts);
void rk_row_free(rk_row *row);

typedef struct rk_scan_options {
	const uint8_t *start; /* first row, inclusive (NULL/0: from the start) */
	size_t start_len;
	const uint8_t *stop;  /* end row, exclusive (NULL/0: to the end) */
	size_t stop_len;
	const uint8_t *prefix; /* only rows beginning with these bytes */
	size_t prefix_len;
	int reverse;           /* 1: rows in descending order (same range) */
	uint64_t limit;        /* most rows returned (0: all) */
	rk_read_options read;
} rk_scan_options;

#define RK_SCAN_OPTIONS_INIT { NULL, 0, NULL, 0, NULL, 0, 0, 0, RK_READ_OPTIONS_INIT }

typedef struct rk_scan rk_scan;

/* Starts a scan. Rows come in key order; a row written before the scan
 * starts and not deleted appears exactly once, even while regions split or
 * move. Each region is read from one engine snapshot, so one row is never
 * half-updated. The caller owns *out and frees it with rk_scan_close. */
int rk_scan_open(rk_scan **out, rk_table *table, const rk_scan_options *opts);

/* The next row, or RK_EITEROVER at the end. *out is borrowed from the scan:
 * valid until the next rk_scan_next or rk_scan_close. */
int rk_scan_next(const rk_row **out, rk_scan *scan);
void rk_scan_close(rk_scan *scan);

/* ---- atomic row operations ---- */

/* Reads row `row` and applies if_true[0..ntrue) when `predicate` passes at
 * least one of its cells (every visible version of every column; NULL: the
 * row has a cell), else if_false[0..nfalse), atomically: no other write to
 * the row comes between the read and the writes. The mutations' row fields
 * are ignored (they apply to `row`); both lists are validated first (a bad
 * one: its code, nothing written). *matched (may be NULL) receives 1 when
 * the predicate passed. Bigtable: CheckAndMutateRow, whose predicate sees
 * the versions the service has not collected yet. */
int rk_table_check_and_mutate(int *matched, rk_table *table, const uint8_t *row,
                              size_t row_len, const rk_filter *predicate,
                              const rk_mutation *if_true, size_t ntrue,
                              const rk_mutation *if_false, size_t nfalse);

typedef enum rk_rmw_kind {
	RK_RMW_APPEND = 1,   /* append `append` to the newest value (none: empty) */
	RK_RMW_INCREMENT = 2 /* add `increment` to the newest value, a 64-bit
	                        big-endian two's complement integer (none: 0);
	                        a value of another size is RK_EINVALID */
} rk_rmw_kind;

typedef struct rk_rmw_rule {
	rk_rmw_kind kind;
	const char *family;
	const uint8_t *qualifier;
	size_t qualifier_len;
	const uint8_t *append; /* RK_RMW_APPEND */
	size_t append_len;
	int64_t increment;     /* RK_RMW_INCREMENT */
} rk_rmw_rule;

/* Reads the newest version of each rule's column in row `row`, computes the
 * new value, and writes it, atomically (as above); a rule sees the value an
 * earlier rule of the call made. A new version's timestamp is ts (0: the
 * store's clock), or the newest version's when that is later (it is then
 * replaced), as Bigtable's ReadModifyWriteRow. *out receives the new cells,
 * one per column, in row order; the caller frees it with rk_row_free.
 * RK_EINVALID for a bad rule (nothing written). */
int rk_table_read_modify_write(rk_row **out, rk_table *table, const uint8_t *row,
                               size_t row_len, const rk_rmw_rule *rules, size_t n, uint64_t ts);

/* ---- regions, servers, maintenance ---- */

typedef struct rk_region_info {
	uint64_t id;
	char *table;
	uint8_t *start; /* inclusive; empty for the first region */
	size_t start_len;
	uint8_t *end;   /* exclusive; NULL when unbounded (last region) */
	size_t end_len;
	unsigned server;
	uint64_t size_bytes;    /* estimated bytes of cells in the region */
	uint64_t writes;        /* cells written while this store was open */
	uint64_t reads;         /* cells returned */
	uint64_t bytes_written;
	uint64_t bytes_read;
} rk_region_info;

/* Lists the regions of `table` (NULL: every table), in table then key order.
 * The caller owns *out and frees it with rk_region_info_free. */
int rk_store_regions(rk_region_info **out, size_t *count, rk_store *store, const char *table);
void rk_region_info_free(rk_region_info *infos, size_t count);

typedef struct rk_server_info {
	unsigned id;
	size_t nregions;
	uint64_t writes, reads, bytes_written, bytes_read;
	uint64_t batches;       /* engine writes (a group commit counts once) */
	uint64_t queue_max;     /* deepest the request queue got */
	uint64_t capacity_ops;  /* the server's capacity per second (see */
	uint64_t capacity_bytes; /* rk_store_options); 0: unlimited */
} rk_server_info;

/* Per-server counters. The caller owns *out (count entries), free() it. */
int rk_store_servers(rk_server_info **out, size_t *count, rk_store *store);

/* Splits a region at row `at` (NULL: its middle key, rounded to a bucket
 * boundary on salted tables). RK_EINVALID when `at` is not strictly inside
 * the region or not on a bucket boundary; RK_ENOTFOUND for an unknown id. */
int rk_region_split(rk_store *store, uint64_t region_id, const uint8_t *at, size_t at_len);

/* Moves a region to another server: writes to it wait while its cells are
 * copied, then meta switches and the old copy is deleted. */
int rk_region_move(rk_store *store, uint64_t region_id, unsigned server);

/* Makes, in the calling thread, the splits the store's split policy has due
 * now: each region that grew past its limit since it was last looked at
 * (and each half still past its own), as the background splitter would.
 * For stores opened with background_splits = 0, whose splits wait for this
 * call (the analyzer's store run makes them at batch boundaries); with
 * background splits on, the caller and the splitter share the queue.
 * *out (may be NULL) receives the number of splits made; 0 on a backend
 * that splits on its own (Bigtable). A split whose read of the region fails
 * (a damaged table block: RK_ECORRUPT naming the file) ends the call with
 * that error; a region with no split point is not an error. */
int rk_store_split_due(size_t *out, rk_store *store);

/* Gives back the space of what reads no longer see: the versions each
 * family's GC rule collects (past max_versions, older than max_age), and
 * the markers of older stores with the versions they hide (docs/store.md).
 * Region by region, a bounded number of rows at a time, each step atomic
 * with the writes to its rows. *out (may be NULL) receives the number of
 * engine entries removed; 0 on a backend that collects on its own
 * (Bigtable). */
int rk_store_collect(size_t *out, rk_store *store);

/* Evens region counts across servers, table by table. *out (may be NULL)
 * receives the number of regions moved. */
int rk_store_balance(size_t *out, rk_store *store);

/* Verifies the store: meta covers each table's key space without gap or
 * overlap, every cell decodes and lies in a region its server holds, every
 * engine reads cleanly. Calls report(problem, payload) once per problem (may
 * be NULL). Returns 0 when clean, RK_ECORRUPT when problems were found
 * (*out, may be NULL, receives their number), another code when it could not
 * run. */
int rk_store_check(size_t *out, rk_store *store,
                   void (*report)(const char *problem, void *payload), void *payload);

/* Repairs the write-ahead logs of the local store in `dir`, which must not
 * be open (RK_EBUSY otherwise). rk_store_open refuses a store when a
 * server's log is damaged before its end (replaying it would skip the
 * damaged records and keep later ones: acknowledged writes lost without a
 * word) or in the bytes of its last record; the error names the log file and
 * the offset. This rewrites each such log keeping every intact record (also
 * those a replay would skip along with the damaged ones) and dropping the
 * damaged ones; the next open replays it. Calls report(line, payload)
 * (may be NULL) once per damaged log with what is dropped (file, offset,
 * bytes, records kept) and appends the same lines, dated, to DIR/repair.log.
 * *out (may be NULL) receives the number of damaged logs. RK_EINVALID for a
 * Bigtable store. */
int rk_store_repair(size_t *out, const char *dir,
                    void (*report)(const char *line, void *payload), void *payload);

/* Writes the metrics file now (it is also written on close). path NULL: the
 * store's metrics.tsv. The file's format: docs/formats.md B.3; its reader:
 * rowkey/metrics.h. */
int rk_store_write_metrics(rk_store *store, const char *path);

#ifdef __cplusplus
}
#endif
#endif
