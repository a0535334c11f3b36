/*
 * The Bigtable backend of the table store (src/store/backend.h) on top of the
 * Bigtable client (bt_client.h). `rk_store_open("bigtable://P/I")` lands
 * here; every store.h call then works on Bigtable tables.
 *
 * The mapping (docs/formats.md (part C) has the wire side):
 * - tables: CreateTable with one family per rowkey family (GC rule
 *   max_num_versions) and the split points as initial splits; DeleteTable;
 *   ListTables + GetTable for the families. bucket_prefix_len is not kept:
 *   Bigtable splits and places tablets itself, so rowkey never splits there.
 * - writes: one rk_table_apply is one writer (MutateRows batches, calls in
 *   flight, retries of retryable entries). All mutations of one row go into
 *   one MutateRows entry, in call order, because Bigtable applies the entries
 *   of a request independently and in any order. Each mutation's result is
 *   its row's fate. Everything is checked before anything is sent, so a bad
 *   mutation still means nothing is written.
 * - timestamps: Bigtable tables keep milliseconds. The store's clock hands
 *   out whole milliseconds (in microseconds); an explicit put timestamp that
 *   is not a multiple of 1000 is RK_EINVALID. Deletes and read ranges are
 *   mapped exactly onto millisecond cells (see the write section).
 * - deletes: Bigtable has no time bound on family or row deletes. "Delete
 *   the family / row, versions <= ts" is therefore only accepted when ts is
 *   "now" (the timestamp the store assigned to the call, or one at or after
 *   the wall clock) and ts_from is 0; otherwise RK_EINVALID. A delete
 *   removes the cells that exist, as store.h says: a later put with an older
 *   timestamp shows.
 * - reads: ReadRows with a row set (the key, or the scan's range), a row
 *   limit and filters for columns, time range and versions. GC is lazy on
 *   Bigtable, so each family's version limit is applied here, before the
 *   time range, as store.h defines visibility (see map_read).
 *   Reverse scans are RK_EINVALID: ReadRowsRequest.reversed is not in the
 *   subset rowkey speaks (docs/formats.md (part C)).
 * - regions: the tablets SampleRowKeys reports; servers, splits, moves and
 *   balancing are the service's business (RK_EINVALID, or no servers).
 * - table settings: one row per table in the instance's _rowkey_meta table
 *   (bt_settings.c).
 * - renames: Bigtable has none, so rowkey's table names resolve to Bigtable
 *   table ids through one row of that table, changed atomically
 *   (bt_names.c); every call that names a table resolves it first.
 */
#include "store/bigtable/bt_store.h"

#include <rowkey/bigtable.h>

#include <stdio.h>
#include <stdlib.h>

_Thread_local struct rk_bt__clock_seen rk_bt__last_clock;

static const struct rk_backend_ops bt_ops;

/* ---- store ---- */

/* A tuning knob from the environment: *out stays 0 when it is unset. */
static int env_count(unsigned long *out, const char *name, unsigned long max)
{
	const char *v = getenv(name);
	*out = 0;
	if (!v || !*v)
		return 0;
	char *end;
	unsigned long n = strtoul(v, &end, 10);
	if (*end || n < 1 || n > max)
		return rk__err(RK_EINVALID, "%s=%s: want a whole number from 1 to %lu", name, v, max);
	*out = n;
	return 0;
}

int rk_bt__store_open(rk_store **out, const char *uri, const rk_store_options *opts)
{
	(void)opts;
	*out = NULL;
	int rc;
	bt_store *s = calloc(1, sizeof *s);
	if (!s)
		return rk__err(RK_ENOMEM, "store %s: out of memory", uri);
	if (strlen(uri) >= sizeof s->uri) {
		free(s);
		return rk__err(RK_EINVALID, "store %.80s...: URI over %zu bytes", uri,
		               sizeof s->uri - 1);
	}
	snprintf(s->uri, sizeof s->uri, "%s", uri);
	rk_bt_opts o = RK_BT_OPTS_INIT;
	/* a 1000-row apply goes out as 4 calls in flight (bench/RESULTS.md) */
	o.batch_size = 250;
	o.inflight = 4;
	unsigned long rows, calls;
	if ((rc = env_count(&rows, "RK_BIGTABLE_BATCH_ROWS", 100000)) < 0 ||
	    (rc = env_count(&calls, "RK_BIGTABLE_INFLIGHT", 256)) < 0) {
		free(s);
		return rc;
	}
	if (rows)
		o.batch_size = rows;
	if (calls)
		o.inflight = (unsigned)calls;
	rc = rk_bt__client_open(&s->c, uri, &o);
	if (rc < 0) {
		free(s);
		return rk__err_wrap(rc, "store %s", uri);
	}
	pthread_mutex_init(&s->mu, NULL);
	atomic_init(&s->acked, 0);
	s->base.ops = &bt_ops;
	*out = &s->base;
	return 0;
}

int rk_bigtable_register(void)
{
	return rk_store_register("bigtable://", rk_bt__store_open);
}

int rk_bigtable_table_id(char **out, rk_store *st, const char *table)
{
	*out = NULL;
	if (!st || st->ops != &bt_ops)
		return rk__err(RK_EINVALID, "table %s: not a Bigtable store", table ? table : "(null)");
	rk_table *t;
	int rc = rk_table_open(&t, st, table); /* checks the name, resolves it, finds the table */
	if (rc < 0)
		return rc;
	*out = strdup(((bt_table *)t)->id);
	rk_table_close(t);
	return *out ? 0 : rk__err(RK_ENOMEM, "table %s: out of memory", table);
}

static int bt_close(rk_store *st)
{
	bt_store *s = (bt_store *)st;
	rk_bt__client_free(s->c);
	pthread_mutex_destroy(&s->mu);
	free(s->open);
	free(s);
	return 0;
}

/* Acknowledged writes are durable in Bigtable: nothing to do. */
static int bt_sync(rk_store *st)
{
	(void)st;
	return 0;
}

static uint64_t bt_clock(rk_store *st)
{
	bt_store *s = (bt_store *)st;
	uint64_t ts = (uint64_t)rk_bt__client_next_ts(s->c);
	rk_bt__last_clock.s = s;
	rk_bt__last_clock.ts = ts;
	return ts;
}

static const struct rk_backend_ops bt_ops = {
	"bigtable",
	bt_close,
	bt_sync,
	rk_bt__table_create_op,
	rk_bt__table_drop_op,
	rk_bt__table_list_op,
	rk_bt__table_open_op,
	rk_bt__table_close_op,
	rk_bt__apply,
	rk_bt__get,
	rk_bt__scan_open_op,
	rk_bt__scan_next_op,
	rk_bt__scan_close_op,
	rk_bt__regions,
	rk_bt__servers,
	rk_bt__region_split,
	rk_bt__region_move,
	rk_bt__balance,
	rk_bt__check,
	rk_bt__write_metrics,
	bt_clock,
	NULL, /* apply_async: MutateRows is applied before rk_table_apply_async returns */
	NULL, /* flush: nothing is ever queued */
	rk_bt__prop_set_op, /* in the instance's _rowkey_meta table (bt_settings.c) */
	rk_bt__prop_get_op,
	rk_bt__tables_rename_op, /* in the #names row of _rowkey_meta (bt_names.c) */
	NULL, /* family_set */
	NULL, /* family_drop */
	NULL, /* split_due: Bigtable splits tablets itself */
	NULL, /* metrics: Bigtable keeps its load in its own console */
	NULL, /* collect: Bigtable collects garbage itself */
	rk_bt__check_and_mutate,
	rk_bt__read_modify_write,
};

