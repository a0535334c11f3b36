/*
 * Private to the Bigtable backend of the store (backend_bt.c and the files
 * it is split into): its store object and table handle, and what one file
 * calls in another.
 *
 *   backend_bt.c  open, close, sync, the clock, the ops table
 *   bt_tables.c   tables: create, drop, list, open, close; regions and the
 *                 maintenance calls the service does itself
 *   bt_apply.c    writes: store mutations onto MutateRows
 *   bt_rows.c     reads: gets and scans onto ReadRows
 *   bt_atomic.c   CheckAndMutateRow and ReadModifyWriteRow
 *   bt_settings.c table settings, in the instance's _rowkey_meta table
 *   bt_names.c    rowkey table names over Bigtable table ids, and renames,
 *                 in the `#names` row of that table
 */
#ifndef RK_STORE_BT_STORE_H
#define RK_STORE_BT_STORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "key/error.h"
#include "store/bigtable/backend_bt.h"
#include "store/bigtable/bt_client.h"

#define BT_MAX_QUALIFIER (16u << 10) /* Bigtable's limits */
#define BT_MAX_VALUE (100u << 20)
#define BT_MAX_KEY 4096u
#define BT_MAX_ROW_MUTATIONS 100000u
#define BT_MAX_TABLE_ID 50 /* bytes of a Bigtable table id */

typedef struct bt_open {
	char name[RK_MAX_TABLE_NAME_LEN + 1];
	unsigned handles;
} bt_open;

typedef struct bt_store {
	struct rk_store base;
	rk_bt_client *c;
	char uri[256];
	_Atomic uint64_t acked; /* rows acknowledged since the store opened */
	pthread_mutex_t mu;     /* guards open[] */
	bt_open *open;
	size_t nopen, capopen;
} bt_store;

typedef struct bt_table {
	struct rk_table base; /* base.name: the rowkey name it was opened by */
	bt_store *s;
	rk__family *fams;
	char id[RK_MAX_TABLE_NAME_LEN + 1]; /* the Bigtable table id behind it (bt_names.c) */
} bt_table;

/* The clock value this thread was last handed by a store, to recognise a
 * delete that store.c stamped "now" (backend_bt.c's file comment). */
extern _Thread_local struct rk_bt__clock_seen {
	const bt_store *s;
	uint64_t ts;
} rk_bt__last_clock;

static inline int rk_bt__bytes_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t m = al < bl ? al : bl;
	int c = m ? memcmp(a, b, m) : 0;
	if (c)
		return c;
	return al < bl ? -1 : al > bl;
}

/* ---- bt_tables.c ---- */

/* The families of `name` as the store API shows them; a family without a
 * version limit keeps UINT_MAX versions. */
int rk_bt__get_families(rk__family **out, size_t *count, bt_store *s, const char *name);
/* Regions of table `table` (Bigtable id `id`) from SampleRowKeys, appended
 * to *a (n entries, cap). */
int rk_bt__table_regions(rk_region_info **a, size_t *n, size_t *cap, bt_store *s,
                         const char *table, const char *id);
/* The handles this process holds on table `name`. */
unsigned rk_bt__handles(bt_store *s, const char *name);
int rk_bt__table_create_op(rk_store *st, const rk_table_def *def, const rk_table_prop *props,
                           size_t nprops);
int rk_bt__table_drop_op(rk_store *st, const char *name);
int rk_bt__table_list_op(rk_table_info **out, size_t *count, rk_store *st);
int rk_bt__table_open_op(rk_table **out, rk_store *st, const char *name);
void rk_bt__table_close_op(rk_table *tb);
int rk_bt__regions(rk_region_info **out, size_t *count, rk_store *st, const char *table);
int rk_bt__servers(rk_server_info **out, size_t *count, rk_store *st);
int rk_bt__region_split(rk_store *st, uint64_t id, const uint8_t *at, size_t at_len);
int rk_bt__region_move(rk_store *st, uint64_t id, unsigned server);
int rk_bt__balance(size_t *out, rk_store *st);
int rk_bt__check(size_t *out, rk_store *st, void (*report)(const char *, void *), void *payload);
int rk_bt__write_metrics(rk_store *st, const char *path);

/* ---- bt_apply.c ---- */

int rk_bt__apply(rk_table *tb, const rk_mutation *muts, size_t n, int *results);
/* Turns store mutation i into a Bigtable one (now_us: the wall clock, for
 * "delete up to now"). *skip: nothing to send (a single-version delete at a
 * timestamp no millisecond cell can have). */
int rk_bt__map_mutation(rk_bt_mutation *out, int *skip, const bt_table *t, const rk_mutation *m,
                        size_t i, uint64_t now_us);

/* ---- bt_atomic.c ---- */

int rk_bt__check_and_mutate(int *matched, rk_table *tb, const uint8_t *row, size_t len,
                            const struct rk__filter *pred, const rk_filter *pred_src,
                            const rk_mutation *if_true, size_t ntrue,
                            const rk_mutation *if_false, size_t nfalse);
int rk_bt__read_modify_write(rk_row **out, rk_table *tb, const uint8_t *row, size_t len,
                             const rk_rmw_rule *rules, size_t n, uint64_t ts);

/* ---- bt_settings.c ---- */

/* The table that holds the other tables' settings (docs/formats.md Part C,
 * frozen): left out of rowkey's listings, never created or dropped by it. */
#define RK_BT_META_TABLE "_rowkey_meta"

/* 1 when `table` is RK_BT_META_TABLE. */
int rk_bt__is_meta(const char *table);
int rk_bt__prop_set_op(rk_store *st, const char *table, const char *key, const void *val,
                       size_t len);
int rk_bt__prop_get_op(void **out, size_t *out_len, rk_store *st, const char *table,
                       const char *key);
/* Checks the settings of a table about to be created (keys, no key twice):
 * RK_EINVALID before anything is sent. */
int rk_bt__settings_check(const char *table, const rk_table_prop *props, size_t n);
/* After CreateTable: the table's settings row made afresh, holding
 * props[0..n) (n 0: a row left by an earlier table of that name removed). */
int rk_bt__settings_create(bt_store *s, const char *table, const rk_table_prop *props, size_t n);
/* After DeleteTable: the table's settings row removed. */
int rk_bt__settings_drop(bt_store *s, const char *table);
/* Creates the _rowkey_meta table; one made meanwhile by another process is
 * fine. */
int rk_bt__meta_create(bt_store *s);

/* ---- bt_names.c ---- */

/* One entry of the `#names` row: rowkey table name -> Bigtable table id
 * ("" : no table answers to the name). */
typedef struct bt_name {
	char name[RK_MAX_TABLE_NAME_LEN + 1];
	char id[RK_MAX_TABLE_NAME_LEN + 1];
} bt_name;

/* The row as read: its entries and its generation (has_gen 0: none yet). */
typedef struct bt_names {
	bt_name *v;
	size_t n, cap;
	uint64_t gen;
	int has_gen;
} bt_names;

/* Reads the row (none, or no _rowkey_meta: no entries). The caller frees
 * *out with rk_bt__names_free. */
int rk_bt__names_load(bt_names *out, bt_store *s);
void rk_bt__names_free(bt_names *nm);
int rk_bt__names_copy(bt_names *out, const bt_names *nm);
/* Sets the entry of `name` ("" id: no table of that name). */
int rk_bt__names_set(bt_names *nm, const char *name, const char *id);
/* 1 when `name` has an entry in the row. */
int rk_bt__names_has(const bt_names *nm, const char *name);
/* The id `name` resolves to (itself when not in the row), or NULL when no
 * table answers to it. Borrowed from nm, or name itself. */
const char *rk_bt__names_id(const bt_names *nm, const char *name);
/* The name table id `id` answers to, or NULL when none (it is held under
 * no name). Borrowed from nm, or id itself. */
const char *rk_bt__names_of(const bt_names *nm, const char *id);
/* Writes the row as nm (normalized here, its generation one past old's)
 * in one CheckAndMutateRow guarded by old's generation: RK_EBUSY, nothing
 * written, when the row changed since old was read. */
int rk_bt__names_write(bt_store *s, const bt_names *old, bt_names *nm);
/* The id table `name` resolves to, into id; RK_ENOTFOUND naming it when no
 * table answers to it (whether the id's table exists is not checked). */
int rk_bt__resolve(char id[RK_MAX_TABLE_NAME_LEN + 1], bt_store *s, const char *name);
int rk_bt__tables_rename_op(rk_store *st, const rk_table_rename *v, size_t n);

/* ---- bt_rows.c ---- */

int rk_bt__get(rk_row **out, rk_table *tb, const uint8_t *row, size_t len,
               const rk_read_options *ro);
int rk_bt__scan_open_op(rk_scan **out, rk_table *tb, const rk_scan_options *so);
int rk_bt__scan_next_op(const rk_row **out, rk_scan *base);
void rk_bt__scan_close_op(rk_scan *base);

#endif
