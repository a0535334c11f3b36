/*
 * rowkey/rowkey.h: the whole public API in one include.
 *
 *   version.h   the version of these headers and of the library
 *   key.h       schemas, encoding and decoding row keys, query plans
 *   store.h     tables, cells, scans, regions (the embedded store)
 *   metrics.h   the load a store recorded: regions, servers, key buckets
 *   query.h     running a plan: point gets, ordered scatter-gather reads
 *   bigtable.h  the store on Cloud Bigtable
 *   analyze.h   workloads, the simulator, reports and heatmaps
 *
 * The library comes in parts; link the ones a program uses (pkg-config):
 *   rowkey-key (key.h), rowkey-store (store.h, query.h), rowkey-bigtable
 *   (bigtable.h), rowkey-analyze (analyze.h), or rowkey for all of them.
 */
#ifndef ROWKEY_ROWKEY_H
#define ROWKEY_ROWKEY_H

#include <rowkey/version.h>
#include <rowkey/key.h>
#include <rowkey/store.h>
#include <rowkey/metrics.h>
#include <rowkey/query.h>
#include <rowkey/bigtable.h>
#include <rowkey/analyze.h>

#endif
