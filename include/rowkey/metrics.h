/*
 * rowkey/metrics.h: the load a store recorded, and its Key Visualizer map.
 *
 * The embedded store counts what each region and region server applied in
 * time buckets (cells and bytes), and what each table's key ranges took in
 * key buckets: about 1,000 contiguous key ranges per time interval whose
 * boundaries follow the keys seen, rows and bytes written and read. It keeps
 * them in DIR/metrics.tsv (docs/formats.md B.3) across runs. This header is
 * the one reader of that record: from the file (rk_metrics_read, no lock
 * taken, so it works beside a running `rowkey serve`), or from an open store
 * (rk_store_metrics: the file's earlier runs and this run so far); and the
 * key x time map drawn from the key buckets (rk_metrics_keymap).
 *
 * Conventions are those of key.h: 0 or a negative RK_E* code,
 * rk_error_last() for the message, out-parameters first.
 */
#ifndef ROWKEY_METRICS_H
#define ROWKEY_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Four counters. For regions and servers: cells written (values and delete
 * markers) and returned, and their bytes (cell key plus value). For key
 * buckets: rows written (a mutation's row) and returned, and the same
 * bytes. */
typedef struct rk_metrics_counts {
	uint64_t writes, reads, bytes_written, bytes_read;
} rk_metrics_counts;

/* One time bucket: [start_ms, start_ms + width_ms), Unix milliseconds. */
typedef struct rk_metrics_bucket {
	int64_t start_ms;
	uint64_t width_ms;
	unsigned server;         /* the region server that applied or served it */
	rk_metrics_counts c;
} rk_metrics_bucket;

/* A region's or a region server's time buckets, by start time (buckets
 * recorded twice are added up; a region's bucket in which it moved is one
 * per server). */
typedef struct rk_metrics_series {
	uint64_t id;             /* region id, or server number */
	rk_metrics_bucket *b;
	size_t n;
	rk_metrics_counts total; /* the sum of every bucket */
} rk_metrics_series;

typedef struct rk_metrics_region {
	uint64_t id;
	char *table;
	unsigned server;         /* the server that held it last */
	uint8_t *start;          /* inclusive; empty for a table's first region */
	size_t start_len;
	uint8_t *end;            /* exclusive; NULL when unbounded */
	size_t end_len;
	int live;                /* 1: in the table's region map now; 0: retired by a
	                            split or a dropped table */
	int64_t born_ms;         /* when it was made (Unix ms); 0: not known */
	const rk_metrics_series *load; /* its buckets since it was born, or NULL */
} rk_metrics_region;

/* A cut of the key space into contiguous buckets: bucket i covers
 * [start[i], start[i + 1]), the last one up to the end; start[0] is the
 * empty key. */
typedef struct rk_keyviz_layout {
	size_t nbuckets;
	uint8_t **start;
	size_t *start_len;
} rk_keyviz_layout;

/* The load of one key bucket in one interval (counts in rows and bytes). */
typedef struct rk_keyviz_cell {
	uint32_t bucket;
	rk_metrics_counts c;
} rk_keyviz_cell;

/* One interval of a table's key buckets: the cells of the buckets that saw
 * load, by bucket. Consecutive intervals cut alike share one layout. */
typedef struct rk_keyviz_interval {
	int64_t start_ms;
	uint64_t width_ms;
	const rk_keyviz_layout *layout;
	rk_keyviz_cell *cells;
	size_t ncells;
} rk_keyviz_interval;

/* What the record holds of one table: its schema text (the `schema` table
 * setting the keys were written with, or NULL) and its key-bucket history,
 * intervals in time order. */
typedef struct rk_keyviz_table {
	char *name;
	char *schema;
	rk_keyviz_interval *iv;
	size_t niv;
} rk_keyviz_table;

typedef struct rk_metrics {
	unsigned version;          /* of the file read (1 or 2); 2 for a store's */
	unsigned bucket_ms;        /* width of a time bucket as recorded */
	unsigned servers;          /* region servers of the store */
	rk_metrics_region *regions; /* every region recorded, live or retired: by
	                               table, then start key, then id */
	size_t nregions;
	rk_metrics_series *region_load; /* by region id (also ids no region line names) */
	size_t nregion_load;
	rk_metrics_series *server_load; /* by server */
	size_t nserver_load;
	rk_keyviz_table *tables;   /* tables with a schema or key buckets, by name */
	size_t ntables;
} rk_metrics;

/* Reads DIR/metrics.tsv, version 1 or 2, without opening the store (a
 * running `rowkey serve` rewrites it every 5 s). The caller owns *out
 * (rk_metrics_free). RK_ENOTFOUND when the file does not exist, RK_ECORRUPT
 * naming the line and what is wrong with it. */
int rk_metrics_read(rk_metrics **out, const char *dir);

/* The same from the file's text (len bytes, need not end in a NUL); `name`
 * names it in messages (NULL: "metrics.tsv"). */
int rk_metrics_parse(rk_metrics **out, const char *text, size_t len, const char *name);

/* The load an open store recorded: its metrics file's earlier runs and this
 * run so far, up to the current key-bucket interval. A snapshot, owned by
 * the caller (rk_metrics_free). RK_EINVALID on a backend that keeps none
 * (Bigtable). */
int rk_store_metrics(rk_metrics **out, rk_store *store);

void rk_metrics_free(rk_metrics *m);

/* The table's entry, or NULL. Borrowed from m. */
const rk_keyviz_table *rk_metrics_table(const rk_metrics *m, const char *name);

/* ---- the key x time map (Key Visualizer's heatmap) ---- */

typedef struct rk_keymap_options {
	int64_t from_ms, to_ms;   /* time window [from, to); 0, 0: all recorded */
	const uint8_t *lo;        /* key window [lo, hi); NULL: from the first key */
	size_t lo_len;
	const uint8_t *hi;        /* NULL: to the end */
	size_t hi_len;
	size_t max_rows;          /* key rows at most (1..10000) */
	size_t max_cols;          /* time columns at most (1..10000) */
	const rk_bytes *rows_at;  /* rows cut exactly at these keys (strictly increasing,
	                             the window's start first) instead of following the
	                             load: the load of given ranges (regions, say) */
	size_t nrows_at;
} rk_keymap_options;

#define RK_KEYMAP_OPTIONS_INIT { 0, 0, NULL, 0, NULL, 0, 1000, 600, NULL, 0 }

/* rows x cols, row-major: row 0 is the lowest key range, column 0 the
 * earliest time. Rows are cut where the recorded buckets are cut, merged
 * (the least loaded neighbours first) down to max_rows, so the rows follow
 * the load: a sequential key's writes draw a diagonal. A bucket that spans
 * several rows has its counts shared evenly among the pieces it covers. */
typedef struct rk_keymap {
	size_t rows, cols;
	int64_t t0_ms;            /* start of column 0, Unix ms */
	uint64_t col_ms;          /* width of a column */
	uint8_t **row_start;      /* row r covers [row_start[r], row_start[r + 1]) */
	size_t *row_start_len;
	uint8_t *end;             /* the last row's end; NULL: the end of the table */
	size_t end_len;
	uint64_t *writes, *reads, *bytes_written, *bytes_read; /* rows, rows, bytes, bytes */
} rk_keymap;

/* The key-bucket load of `table` over the windows in o (NULL: defaults). The
 * caller owns *out (rk_keymap_free). RK_ENOTFOUND when the record has no key
 * buckets of that table in the window (a version 1 file has none);
 * RK_EINVALID for bad options. */
int rk_metrics_keymap(rk_keymap **out, const rk_metrics *m, const char *table,
                      const rk_keymap_options *o);

void rk_keymap_free(rk_keymap *map);

#ifdef __cplusplus
}
#endif
#endif
