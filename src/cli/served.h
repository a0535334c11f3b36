/*
 * A store held by `rowkey serve`: who serves it (DIR/SERVING, formats.md
 * B.4) and its live regions and load, read from the metrics the server
 * rewrites every 5 seconds (DIR/metrics.tsv, formats.md B.3), so that
 * `rowkey regions` and `rowkey stats` work while it serves.
 */
#ifndef RK_CLI_SERVED_H
#define RK_CLI_SERVED_H

#include <stddef.h>
#include <stdint.h>

#include "rowkey/store.h"

/* 1 when DIR is held by a running server (its SERVING file is there and the
 * store's lock is taken), with its pid and address; 0 otherwise. */
int rk_cli__served(const char *dir, long *pid, char *listen, size_t cap);

typedef struct rk_cli_live_region {
	uint64_t id;
	char table[RK_MAX_TABLE_NAME_LEN + 1];
	unsigned server;
	uint8_t *start, *end; /* end NULL: unbounded */
	size_t start_len, end_len;
	uint64_t writes, reads, bytes_written, bytes_read; /* every run's */
} rk_cli_live_region;

/* The regions as of the metrics file's last rewrite: for each table (or
 * only `table`), the chain of the newest regions from the first key to the
 * end (a split's halves supersede their parent), in table and key order,
 * with the load recorded for each. *age_s: seconds since the file was
 * written. *out is owned by the caller (rk_cli__live_regions_free).
 * RK_ENOTFOUND when there is no metrics file yet, RK_ECORRUPT naming a line
 * that does not parse. */
int rk_cli__live_regions(rk_cli_live_region **out, size_t *count, double *age_s,
                         const char *dir, const char *table);
void rk_cli__live_regions_free(rk_cli_live_region *r, size_t count);

#endif
