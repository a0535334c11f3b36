/*
 * rowkey/rowkey.h: the whole public API in one include.
 *
 *   key.h      schemas, encoding and decoding row keys, query plans
 *   store.h    tables, cells, scans, regions (embedded store or Bigtable)
 *   metrics.h  the load a store recorded: regions, servers, key buckets
 *   query.h    running a plan: point gets, ordered scatter-gather reads
 *   analyze.h  workloads, the simulator, reports and heatmaps
 *
 * Link with -lrowkey (pkg-config rowkey).
 */
#ifndef ROWKEY_ROWKEY_H
#define ROWKEY_ROWKEY_H

#include <rowkey/key.h>
#include <rowkey/store.h>
#include <rowkey/metrics.h>
#include <rowkey/query.h>
#include <rowkey/analyze.h>

#endif
