/*
 * The load a store recorded, as `rowkey regions` and `rowkey stats` show it
 * (recorded.c): the record (rowkey/metrics.h) of an open store, or of a
 * served one from the metrics file its server rewrites every 5 s; per
 * region, its load since it was born (cells, every run) and now (the last
 * seconds recorded, rows per second from the key buckets); keys through
 * the table's remembered schema.
 */
#ifndef RK_CLI_RECORDED_H
#define RK_CLI_RECORDED_H

#include <stdint.h>
#include <stdio.h>

#include <rowkey/metrics.h>
#include <rowkey/store.h>

#include "key/keytext.h"

typedef struct rk_cli_region {
	const rk_metrics_region *g; /* borrowed from the record */
	int has_size;
	uint64_t size;              /* estimated bytes (an open store only) */
	int has_now;                /* key buckets cover it (a live region) */
	rk_metrics_counts now;      /* rows and bytes in the window */
	int no_load;                /* the backend records no load and places its
	                               regions itself (Bigtable): the cells written
	                               and read, and the server, are unknown, not 0 */
} rk_cli_region;

typedef struct rk_cli_record {
	rk_metrics *m;
	int64_t from_ms, to_ms;     /* "now": the last seconds recorded */
	rk_cli_region *r;           /* live regions (and retired ones when asked), by
	                               table then start key */
	size_t n;
} rk_cli_record;

/* Reads the record: of store s when it is open (NULL: DIR/metrics.tsv of
 * db, a served store), regions of `table` (NULL: all), retired ones too
 * when `retired`, "now" the last window_s seconds recorded. 0, or a store
 * error (RK_EINVALID: a backend that records no load). */
int rk_cli__record(rk_cli_record *out, rk_store *s, const char *db, const char *table,
                   int retired, double window_s);
void rk_cli__record_free(rk_cli_record *r);

/* A key reader for `table` through the schema the record keeps for it
 * (caller frees with rk__keytext_free). NULL when out of memory. */
rk__keytext *rk_cli__keytext(const rk_cli_record *r, const char *table);

/* "HH:MM:SS" (or "YYYY-MM-DD HH:MM:SS" when long) UTC of Unix ms t. */
const char *rk_cli__utc(char *buf, size_t cap, int64_t t, int with_date);

#endif
