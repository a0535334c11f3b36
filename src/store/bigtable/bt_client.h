/*
 * The Bigtable backend's client: what src/store may call to run rowkey tables
 * on Cloud Bigtable or its emulator. It speaks the public Bigtable v2 gRPC API
 * through gRPC's C core with protobuf-c messages (proto/ holds the subset).
 *
 * - A client is opened from a URI `bigtable://PROJECT/INSTANCE`. When the
 *   environment variable BIGTABLE_EMULATOR_HOST is set (host:port), it talks
 *   plaintext to that emulator; otherwise TLS to bigtable.googleapis.com and
 *   bigtableadmin.googleapis.com with Google default credentials.
 * - Admin: create a table (families, max-versions GC rule, initial splits),
 *   delete it, list tables.
 * - Writes go through a writer: it packs rows into MutateRows batches, keeps
 *   several calls in flight, checks every entry's status, retries only the
 *   entries that failed with a retryable code (with backoff), and counts the
 *   rows acknowledged and failed. Timestamps are always client-assigned, in
 *   whole milliseconds expressed in microseconds, so a retry rewrites exactly
 *   the same cell.
 * - Reads go through a scan: one ReadRows call for a set of keys and ranges,
 *   with an optional row limit and filters, handing out whole rows in key
 *   order (bt_chunks.h does the reassembly).
 * - SampleRowKeys, for the tablet boundaries.
 *
 * Threads: a client may be shared by threads (gRPC channels are thread-safe);
 * a writer or a scan belongs to one thread at a time.
 * Names of tables are Bigtable table ids (`[_a-zA-Z0-9][-_.a-zA-Z0-9]*`).
 * Every function returns 0 or a negative RK_E* code with rk_error_last() set;
 * gRPC codes map to RK_ENOTFOUND (NOT_FOUND), RK_EEXISTS (ALREADY_EXISTS),
 * RK_EINVALID (INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE),
 * RK_EBUSY (RESOURCE_EXHAUSTED) and RK_EIO (everything else), and the message
 * names the call, the gRPC code and the server's text.
 */
#ifndef RK_STORE_BT_CLIENT_H
#define RK_STORE_BT_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <rowkey/store.h>

#include "store/bigtable/bt_chunks.h"

typedef struct rk_bt_client rk_bt_client;

/* Tunables. Zero fields take the defaults shown. */
typedef struct rk_bt_opts {
	size_t batch_size;          /* entries per MutateRows call (1000; at most 100000) */
	unsigned inflight;          /* MutateRows calls in flight per writer (4) */
	unsigned max_attempts;      /* tries per entry, the first included (6) */
	unsigned backoff_ms;        /* first retry delay, doubling, capped at 5 s (25) */
	unsigned timeout_ms;        /* deadline of admin and MutateRows calls (30000) */
	unsigned read_timeout_ms;   /* deadline of a whole ReadRows scan (600000) */
	const char *app_profile_id; /* NULL: the instance's default profile */
} rk_bt_opts;
#define RK_BT_OPTS_INIT {0, 0, 0, 0, 0, 0, NULL}

/* Opens a client for `uri` (bigtable://PROJECT/INSTANCE). opts may be NULL.
 * The caller owns *out and frees it with rk_bt__client_free. Does not contact
 * the server: a bad address shows up on the first call. Fails with
 * RK_EINVALID on a malformed URI, and with RK_EIO and a message saying where
 * credentials are looked for when, without BIGTABLE_EMULATOR_HOST, no Google
 * default credentials are found. */
int rk_bt__client_open(rk_bt_client **out, const char *uri, const rk_bt_opts *opts);
void rk_bt__client_free(rk_bt_client *c);

/* Splits a URI into project and instance (NUL-terminated, into buffers of
 * cap bytes). RK_EINVALID with the reason when it is not bigtable://P/I. */
int rk_bt__parse_uri(char *project, char *instance, size_t cap, const char *uri);

/* ---- admin ---- */

typedef struct rk_bt_bytes {
	const uint8_t *ptr;
	size_t len;
} rk_bt_bytes;

typedef struct rk_bt_family {
	const char *name;
	int max_versions; /* GC rule: keep the newest N cells per column; 0: no rule
	                     (rk_bt__table_families reports "no limit" as -1) */
	rk_gc_rule *gc;   /* a rule that is more than a version count (max_age,
	                     unions, intersections), or NULL: creating, borrowed
	                     and used instead of max_versions; from GetTable,
	                     owned by the array (max_versions then the most
	                     versions it keeps, -1 no bound) */
} rk_bt_family;

/* Creates `table` with the given families and initial split keys (sorted or
 * not; the server sorts). RK_EEXISTS if it exists. */
int rk_bt__table_create(rk_bt_client *c, const char *table, const rk_bt_family *families,
                        size_t nfamilies, const rk_bt_bytes *splits, size_t nsplits);

/* Deletes `table` and its data. RK_ENOTFOUND if there is no such table. */
int rk_bt__table_delete(rk_bt_client *c, const char *table);

/* GetTable (SCHEMA_VIEW): the table's column families, sorted by name, with
 * their GC rule (see rk_bt_family). *out is an array of *count families the
 * caller frees with rk_bt__families_free. RK_ENOTFOUND when there is no
 * such table. */
int rk_bt__table_families(rk_bt_family **out, size_t *count, rk_bt_client *c, const char *table);
void rk_bt__families_free(rk_bt_family *f, size_t count);

/* Lists the instance's table ids, sorted. *out is a NULL-terminated array the
 * caller frees with rk_bt__strv_free; *count gets its length. */
int rk_bt__table_list(char ***out, size_t *count, rk_bt_client *c);
void rk_bt__strv_free(char **v);

/* ---- writes ---- */

enum rk_bt_mut_kind {
	RK_BT_SET_CELL = 1,      /* family, qualifier, ts_micros, value */
	RK_BT_DELETE_COLUMN = 2, /* family, qualifier, cells in [ts_micros, ts_end_micros) */
	RK_BT_DELETE_FAMILY = 3, /* family */
	RK_BT_DELETE_ROW = 4
};

/* ts_micros for SET_CELL: the writer's clock, read once when the row is added
 * (never the server's, so that retries are idempotent). */
#define RK_BT_TS_NOW INT64_MIN

typedef struct rk_bt_mutation {
	int kind;           /* enum rk_bt_mut_kind */
	const char *family; /* NUL-terminated */
	const uint8_t *qualifier;
	size_t qualifier_len;
	int64_t ts_micros;     /* a multiple of 1000, or RK_BT_TS_NOW (SET_CELL only) */
	int64_t ts_end_micros; /* DELETE_COLUMN: exclusive end, 0 = no end; both 0: all */
	const uint8_t *value;
	size_t value_len;
} rk_bt_mutation;

typedef struct rk_bt_write_stats {
	uint64_t rows_added;   /* rows given to rk_bt__writer_add */
	uint64_t rows_acked;   /* rows the server applied */
	uint64_t rows_failed;  /* rows given up on (non-retryable, or out of attempts) */
	uint64_t retries;      /* entries sent again */
	uint64_t calls;        /* MutateRows calls made */
} rk_bt_write_stats;

typedef struct rk_bt_writer rk_bt_writer;

/* Called once per row when its fate is settled: rc 0 when the server applied
 * it, else the row's error code, with `why` the server's text (borrowed, for
 * the call only). `seq` is the row's number in the order of
 * rk_bt__writer_add calls, from 0. Runs on the thread that called add or
 * flush, from inside that call. */
typedef void (*rk_bt_row_done)(uint64_t seq, int rc, const char *why, void *payload);

/* A writer into `table`. The caller owns *out and frees it with
 * rk_bt__writer_free; it borrows the client, which must outlive it. */
int rk_bt__writer_new(rk_bt_writer **out, rk_bt_client *c, const char *table);

/* Adds one row's mutations (applied atomically, in order). The writer copies
 * everything. When a batch is full it is sent; when `inflight` calls are
 * already out, this waits for one to finish. Returns RK_EINVALID (empty key,
 * no mutations, a timestamp that is not a whole millisecond, a missing
 * family) or RK_ETOOLONG (key over 4 KiB) without adding anything; row
 * failures are not reported here but by rk_bt__writer_flush. Rarer errors
 * while sending a full batch (out of memory, gRPC refusing a call) are
 * returned here with the row already queued: flush settles it. */
int rk_bt__writer_add(rk_bt_writer *w, const uint8_t *row, size_t row_len,
                      const rk_bt_mutation *muts, size_t nmuts);

/* Sends what is buffered and waits until every row added so far has been
 * acknowledged or given up on. Returns 0 when none failed; otherwise the code
 * of the first failure (RK_ENOTFOUND for a missing table, RK_EIO when the
 * server is unreachable, ...) with a message that counts the failed rows and
 * quotes the first one's key and status. The counts stay in the stats. */
int rk_bt__writer_flush(rk_bt_writer *w);

void rk_bt__writer_stats(rk_bt_write_stats *out, const rk_bt_writer *w);

/* Sets (or, with NULL, clears) the per-row callback, for rows settled after. */
void rk_bt__writer_on_done(rk_bt_writer *w, rk_bt_row_done cb, void *payload);

/* Frees the writer. Rows not yet flushed are abandoned (calls in flight are
 * cancelled): flush first to know their fate. */
void rk_bt__writer_free(rk_bt_writer *w);

/* ---- atomic row calls (bt_rowcalls.c) ---- */

/* CheckAndMutateRow: applies yes[0..nyes) when `predicate` (NULL: any
 * cell) passes a cell of `row`, else no[0..nno); *matched says which. */
int rk_bt__check_and_mutate_row(int *matched, rk_bt_client *c, const char *table,
                                const uint8_t *row, size_t row_len, const rk_filter *predicate,
                                const rk_bt_mutation *yes, size_t nyes,
                                const rk_bt_mutation *no, size_t nno);

/* ReadModifyWriteRow with `rules`: *out (rk_row_free) the new cells the
 * server returns, in its order (the service's clock stamps them). */
int rk_bt__read_modify_write_row(rk_row **out, rk_bt_client *c, const char *table,
                                 const uint8_t *row, size_t row_len, const rk_rmw_rule *rules,
                                 size_t n);

/* ---- reads ---- */

/* A row range. An empty start means the first row, an empty end the end of
 * the table. Default bounds: start inclusive, end exclusive. */
typedef struct rk_bt_range {
	rk_bt_bytes start;
	int start_open;
	rk_bt_bytes end;
	int end_closed;
} rk_bt_range;

/* A column to read: a family, and a qualifier or (NULL) the whole family. */
typedef struct rk_bt_column {
	const char *family;
	const uint8_t *qualifier;
	size_t qualifier_len;
} rk_bt_column;

typedef struct rk_bt_read {
	const rk_bt_bytes *keys; /* single rows */
	size_t nkeys;
	const rk_bt_range *ranges;
	size_t nranges;              /* no keys and no ranges: the whole table */
	int64_t rows_limit;          /* 0: no limit */
	const char *family_regex;    /* RE2, full match; NULL: all families */
	const uint8_t *qualifier_regex; /* RE2 over bytes; NULL: all qualifiers */
	size_t qualifier_regex_len;
	int64_t ts_start_micros;     /* inclusive; both 0: all timestamps */
	int64_t ts_end_micros;       /* exclusive, 0 = no end */
	int32_t versions;            /* newest N cells per column; 0: all */
	int strip_values;            /* 1: cells come back with empty values */
	const rk_bt_column *columns; /* only these columns (matched exactly, any
	                                bytes); NULL / 0: every column. Columns
	                                should not overlap: a cell matching two
	                                comes back twice */
	size_t ncolumns;
} rk_bt_read;
#define RK_BT_READ_INIT {NULL, 0, NULL, 0, 0, NULL, NULL, 0, 0, 0, 0, 0, NULL, 0}

typedef struct rk_bt_scan rk_bt_scan;

/* Starts a ReadRows call. The caller owns *out and frees it with
 * rk_bt__scan_free; `req` is copied into the request and may go away. */
int rk_bt__scan_open(rk_bt_scan **out, rk_bt_client *c, const char *table, const rk_bt_read *req);

/* The next row in key order: 0, RK_EITEROVER after the last, or an error
 * (RK_ENOTFOUND for a missing table, RK_ECORRUPT for a stream that breaks the
 * protocol, RK_EIO). A stream cut with UNAVAILABLE, DEADLINE_EXCEEDED or
 * ABORTED is resumed after the last row handed out, up to max_attempts calls
 * without progress. Rows committed before an error are handed out first.
 * The row is owned by the scan and valid until the next call on it. */
int rk_bt__scan_next(const rk_bt_row **out, rk_bt_scan *s);

/* Rows handed out so far. */
uint64_t rk_bt__scan_rows(const rk_bt_scan *s);

/* Times the scan resumed a broken stream (see bt_read.c). */
uint64_t rk_bt__scan_resumes(const rk_bt_scan *s);

/* Frees the scan, cancelling the call if it has not finished. */
void rk_bt__scan_free(rk_bt_scan *s);

/* ---- tablets ---- */

typedef struct rk_bt_sample {
	uint8_t *key; /* tablet end key; empty for the end of the table */
	size_t key_len;
	int64_t offset_bytes; /* approximate bytes before key */
} rk_bt_sample;

/* SampleRowKeys: *out is an array of *count samples, in key order, that the
 * caller frees with rk_bt__samples_free. */
int rk_bt__sample_row_keys(rk_bt_sample **out, size_t *count, rk_bt_client *c,
                           const char *table);
void rk_bt__samples_free(rk_bt_sample *s, size_t count);

/* The writer's clock: now in whole milliseconds, expressed in microseconds. */
int64_t rk_bt__now_micros(void);

/* A strictly increasing clock per client (thread-safe): the wall clock in
 * whole milliseconds, or the previous value plus one millisecond, expressed
 * in microseconds. For stores that promise a later write supersedes an
 * earlier one. */
int64_t rk_bt__client_next_ts(rk_bt_client *c);

/* The end of the range of rows that start with prefix p[0..n): writes the
 * smallest key greater than every such row into out (n bytes of room) and
 * returns its length, or 0 when there is none (p empty or all 0xff: scan to
 * the end of the table). */
size_t rk_bt__prefix_end(uint8_t *out, const uint8_t *p, size_t n);

/* The gRPC status code as an RK_E* code (see the top of this file). */
int rk_bt__code_rk(int grpc_code);

/* Writes `n` bytes as an RE2 pattern that matches exactly them (Latin-1 byte
 * mode, as Bigtable's regex filters use): letters, digits and '_' as they
 * are, other printable ASCII escaped with '\', other bytes as \xHH.
 * Needs at most 4n+1 bytes of `out`, NUL-terminated; returns the length. */
size_t rk_bt__regex_quote(char *out, const uint8_t *s, size_t n);

#endif
