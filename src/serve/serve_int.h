/*
 * Internal contracts between the parts of `rowkey serve`:
 *
 *   server.c   gRPC C core: listens, accepts calls, routes each by method
 *              path, runs the Data API (google.bigtable.v2.Bigtable) and
 *              hands Admin API calls to admin.c; signals, draining.
 *   admin.c    google.bigtable.admin.v2.BigtableTableAdmin: unary calls on
 *              raw request bytes -> raw response bytes (no gRPC inside, so
 *              tests and the fuzz target call it directly); the tables.
 *              admin_families.c column families and DropRowRange;
 *              admin_pack.c what both use (packing, a table's info).
 *   data.c     google.bigtable.v2.Bigtable likewise: dispatch and
 *              SampleRowKeys; data_write.c the mutations, check-and-mutate
 *              and read-modify-write; data_read.c ReadRows.
 *   tables.c   the open table handles the calls share, by store table.
 *   catalog.c  which store table each instance's table is.
 *   wire.c     a request's shape checked before it is decoded.
 *
 * Serve does protocol work only: it maps Bigtable's messages onto the
 * public store API (include/rowkey/store.h; filters and GC rules through
 * store/bigtable/bt_map.h, which the Bigtable backend shares), and the
 * store does the rest: reads, filters, atomic row operations, GC.
 *
 * Every function returns 0 or a negative RK_E* code. Failures meant for the
 * client fill an rk_sv_status with the gRPC status code and a message that
 * names the field (e.g. "table_name: expected projects/P/instances/I/tables/T").
 */
#ifndef RK_SERVE_INT_H
#define RK_SERVE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "bt_admin.pb-c.h"
#include "bt_data.pb-c.h"
#include "rowkey/store.h"

/* gRPC status codes used in answers (grpc/status.h values). */
enum {
	RK_SV_OK = 0,
	RK_SV_CANCELLED = 1,
	RK_SV_UNKNOWN = 2,
	RK_SV_INVALID_ARGUMENT = 3,
	RK_SV_DEADLINE_EXCEEDED = 4,
	RK_SV_NOT_FOUND = 5,
	RK_SV_ALREADY_EXISTS = 6,
	RK_SV_RESOURCE_EXHAUSTED = 8,
	RK_SV_FAILED_PRECONDITION = 9,
	RK_SV_ABORTED = 10,
	RK_SV_OUT_OF_RANGE = 11,
	RK_SV_UNIMPLEMENTED = 12,
	RK_SV_INTERNAL = 13,
	RK_SV_UNAVAILABLE = 14,
	RK_SV_DATA_LOSS = 15
};

typedef struct rk_sv_status {
	int code;       /* RK_SV_*; RK_SV_OK when the call succeeded */
	char msg[512];  /* NUL-terminated */
} rk_sv_status;

/* Sets st (printf-style message) and returns the RK_E* code `rc`, so a
 * handler can `return rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND, ...)`. */
int rk_sv__fail(rk_sv_status *st, int grpc_code, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Maps a store error (RK_E* code, with rk_error_last()) to a gRPC status. */
int rk_sv__from_store(rk_sv_status *st, int rc, const char *what);

/* ---- shared table handles (tables.c) ---- */

typedef struct rk_sv_tables rk_sv_tables;

int rk_sv__tables_new(rk_sv_tables **out, rk_store *store);
/* Closes every handle; none may be in use. */
void rk_sv__tables_free(rk_sv_tables *t);

/* A handle on table `id` for this call alone (a write through a handle
 * must not overlap another write through it). RK_ENOTFOUND when the table
 * does not exist. Pair with rk_sv__table_release (the same id). */
int rk_sv__table_acquire(rk_table **out, rk_sv_tables *t, const char *id);
void rk_sv__table_release(rk_sv_tables *t, const char *id, rk_table *table);

/* Before dropping or changing table `id`: new acquires of it wait, handles
 * in use are waited for, then closed. Pair with rk_sv__table_unblock. */
void rk_sv__table_block(rk_sv_tables *t, const char *id);
void rk_sv__table_unblock(rk_sv_tables *t, const char *id);

/* ---- tables by instance (catalog.c) ---- */

typedef struct rk_sv_catalog rk_sv_catalog;

/* A table found in the catalog: its store name, and the serial number of
 * the entry (a table dropped and created again has another). */
typedef struct rk_sv_ref {
	char store[RK_MAX_TABLE_NAME_LEN + 1];
	uint64_t serial;
} rk_sv_ref;

/* A table of an instance, as listed: its id there and its store name. */
typedef struct rk_sv_named {
	char id[RK_MAX_TABLE_NAME_LEN + 1];
	char store[RK_MAX_TABLE_NAME_LEN + 1];
} rk_sv_named;

/* Reads the store's tables; drops go through `pool` (rk_sv__table_block). */
int rk_sv__catalog_new(rk_sv_catalog **out, rk_store *store, rk_sv_tables *pool);
void rk_sv__catalog_free(rk_sv_catalog *c);

/* Table `id` of instance `inst` ("projects/P/instances/I"): the instance's
 * own, else a table no instance owns. RK_ENOTFOUND (no error text set).
 * Here and in create and drop, inst NULL names tables by their store name
 * (the HBase REST API, which has no instances); create then makes a table
 * no instance owns. */
int rk_sv__catalog_find(rk_sv_ref *ref, rk_sv_catalog *c, const char *inst, const char *id);

/* 1 while the table ref found is still there (not dropped, not another
 * table of the same store name): checked after opening or blocking it. */
int rk_sv__catalog_still(rk_sv_catalog *c, const rk_sv_ref *ref);

/* The tables instance `inst` sees, by id (*out free()). */
int rk_sv__catalog_list(rk_sv_named **out, size_t *count, rk_sv_catalog *c, const char *inst);

/* Creates table `id` of instance `inst` from def (families, splits; its
 * name is set here). RK_EEXISTS when the instance sees a table `id`. */
int rk_sv__catalog_create(rk_sv_ref *ref, rk_sv_catalog *c, const char *inst, const char *id,
                          rk_table_def *def);

/* Drops table `id` of instance `inst` and its cells, once the calls using
 * it are done. RK_ENOTFOUND. */
int rk_sv__catalog_drop(rk_sv_catalog *c, const char *inst, const char *id);

/* The store tables names[0..n) read again from the store (after a rename
 * or a drop made while they were blocked): their entries replaced, with
 * new serial numbers. */
void rk_sv__catalog_refresh(rk_sv_catalog *c, const char *const *names, size_t n);

/* ---- the live mirror of a rekey (mirror.c) ---- */

typedef struct rk_sv_mirrors rk_sv_mirrors;
struct rk_rekey_live;

/* Turns on the mirrors the store's rekey checkpoints ask for. */
int rk_sv__mirrors_new(rk_sv_mirrors **out, rk_store *store, rk_sv_tables *pool,
                       rk_sv_catalog *catalog);
void rk_sv__mirrors_free(rk_sv_mirrors *ms);

/* Around every write to store table `table` of rows keys[0..n): enter
 * before applying it (through handle t), leave after, applied or not; leave
 * makes the new-design copy of each row equal to it when `table` is being
 * rekeyed. */
void *rk_sv__mirror_enter(rk_sv_mirrors *ms, const char *table, const uint8_t *const *keys,
                          const size_t *lens, size_t n);
void rk_sv__mirror_leave(rk_sv_mirrors *ms, void *token, rk_table *t,
                         const uint8_t *const *keys, const size_t *lens, size_t n);

/* The hooks a rekey the server runs calls (store/rekey.h). */
void rk_sv__mirrors_live(struct rk_rekey_live *out, rk_sv_mirrors *ms);

/* ---- what every call sees ---- */

typedef struct rk_sv_env {
	rk_store *store;
	rk_sv_tables *tables;
	rk_sv_catalog *catalog;
	const char *project;  /* the names this server answers for; both "*": */
	const char *instance; /* any project and instance (as the emulator) */
	rk_sv_mirrors *mirrors; /* NULL: writes are never mirrored (tests) */
} rk_sv_env;

/* The server's env (store, shared handles, catalog), for the other front
 * door over the same tables (src/serve/hbase): valid until
 * rk_sv_server_stop. */
struct rk_sv_server;
const rk_sv_env *rk_sv__server_env(const struct rk_sv_server *s);

/* The longest "projects/P/instances/I" taken. */
#define RK_SV_MAX_INSTANCE 400u

/* A table's name in a request, taken apart. */
typedef struct rk_sv_tname {
	char inst[RK_SV_MAX_INSTANCE + 1]; /* "projects/P/instances/I" */
	char id[RK_MAX_TABLE_NAME_LEN + 1]; /* T */
} rk_sv_tname;

/* Parses "projects/P/instances/I/tables/T" (field names the request field
 * for the message), checking P and I against env. INVALID_ARGUMENT naming
 * the field when malformed, NOT_FOUND when project or instance differ. */
int rk_sv__table_name(rk_sv_tname *tn, const rk_sv_env *env, const char *name,
                      const char *field, rk_sv_status *st);

/* rk_sv__table_name, then the table in the catalog: NOT_FOUND naming it. */
int rk_sv__table_find(rk_sv_ref *ref, rk_sv_tname *tn, const rk_sv_env *env, const char *name,
                      const char *field, rk_sv_status *st);

/* 1 when s[0..n) is a Bigtable id ([_a-zA-Z0-9][-_.a-zA-Z0-9]*) of at most
 * max bytes. */
int rk_sv__id_ok(const char *s, size_t n, size_t max);

/* Checks "projects/P/instances/I" against env (INVALID_ARGUMENT when
 * malformed, NOT_FOUND for another instance). */
int rk_sv__instance_name(const rk_sv_env *env, const char *name, const char *field,
                         rk_sv_status *st);

/* ---- a request's shape, before decoding (wire.c) ---- */

/* Messages inside messages (protobuf's default recursion limit, which
 * Bigtable's servers keep), RowFilters and GcRules in one request. */
#define RK_SV_MAX_NESTING 100u
#define RK_SV_MAX_FILTERS 10000u
#define RK_SV_MAX_GC_RULES 1000u

/* Checks the request bytes b[len] against the limits above and the message
 * descriptor d without decoding them (the decoder recurses per level):
 * INVALID_ARGUMENT naming the path for too deep or too many, UNIMPLEMENTED
 * naming a field d does not define, INVALID_ARGUMENT with the byte offset
 * for bytes that do not parse. 0 when the request may be unpacked. */
int rk_sv__wire_check(const ProtobufCMessageDescriptor *d, const uint8_t *b, size_t len,
                      rk_sv_status *st);

/* Bigtable's own limits, which the server enforces before the store's
 * (a value: the store's 64 MiB, under Bigtable's 100 MiB). */
#define RK_SV_MAX_ROW_KEY 4096u
#define RK_SV_MAX_MUTATIONS 100000u
#define RK_SV_MAX_QUALIFIER (16u << 10)
/* Row keys and ranges of one ReadRows (Bigtable: bounded by the request's
 * size only); each is a scan here. */
#define RK_SV_MAX_ROW_RANGES 100000u
#define RK_SV_MAX_VALUE RK_MAX_VALUE_LEN

/* ---- Admin API (admin.c) ---- */

/* Runs one unary BigtableTableAdmin call. `method` is the bare method name
 * ("CreateTable", "ListTables", "GetTable", "DeleteTable",
 * "ModifyColumnFamilies", "DropRowRange"); req[len] the request message.
 * On success *resp (malloc'd, owned by the caller, free()) holds the
 * encoded response message and st->code is RK_SV_OK. On failure st says
 * what to answer (UNIMPLEMENTED for a method it does not know) and *resp is
 * NULL. Nothing is half applied. */
int rk_sv__admin_unary(const rk_sv_env *env, const char *method, const uint8_t *req,
                       size_t len, uint8_t **resp, size_t *resp_len, rk_sv_status *st);

/* ---- shared by admin.c and admin_families.c (admin_pack.c) ---- */

/* Packs any message into a malloc'd buffer (*resp, free() it). */
int rk_sv__pack(uint8_t **resp, size_t *len, const ProtobufCMessage *m, rk_sv_status *st);

/* Packs a Table message for `info`, table `id` of instance `inst` (its
 * families unless name_only). */
int rk_sv__pack_table(uint8_t **resp, size_t *len, const char *inst, const char *id,
                      const rk_table_info *info, int name_only, rk_sv_status *st);

/* The store's info on the table ref found (table tn), from rk_table_list
 * (the caller frees *all, n); NOT_FOUND when it is gone. */
int rk_sv__table_info(rk_table_info **all, size_t *n, const rk_table_info **one,
                      const rk_sv_env *env, const rk_sv_ref *ref, const rk_sv_tname *tn,
                      rk_sv_status *st);

/* The family definition for ColumnFamily cf (NULL, or no GcRule: keep
 * every version), its rule in *rule (free() it); field names the request
 * field in messages. INVALID_ARGUMENT naming the rule when Bigtable would
 * refuse it; UNIMPLEMENTED for an aggregate family (value_type). */
int rk_sv__family_def(rk_family_def *def, rk_gc_rule **rule, const char *name,
                      const Rkbt__ColumnFamily *cf, const char *field, rk_sv_status *st);

/* 1 for a family name: 1..64 bytes of [-_.a-zA-Z0-9] (Bigtable's and the
 * store's). */
int rk_sv__family_name_ok(const char *s);

int rk_sv__modify_families(const rk_sv_env *env, const Rkbt__ModifyColumnFamiliesRequest *r,
                           uint8_t **resp, size_t *len, rk_sv_status *st);
int rk_sv__drop_row_range(const rk_sv_env *env, const Rkbt__DropRowRangeRequest *r,
                          uint8_t **resp, size_t *len, rk_sv_status *st);

/* ---- Data API (data.c) ---- */

/* Where a call's responses go: `send` takes one encoded response message and
 * returns 0, or nonzero when the client is gone (the call then stops). */
typedef struct rk_sv_sink {
	int (*send)(void *arg, const uint8_t *msg, size_t len);
	void *arg;
} rk_sv_sink;

/* Runs one google.bigtable.v2.Bigtable call: `method` the bare name
 * ("ReadRows", "MutateRow", "MutateRows", "CheckAndMutateRow",
 * "ReadModifyWriteRow", "SampleRowKeys", "PingAndWarm"), req[len] its request.
 * Responses (one for unary calls, any number for streams) go to `sink`. st
 * says how the call ends (RK_SV_OK or the error to answer). Returns 0 or the
 * negative RK_E* code matching st. */
int rk_sv__data_call(const rk_sv_env *env, const char *method, const uint8_t *req, size_t len,
                     const rk_sv_sink *sink, rk_sv_status *st);

/* ---- shared by data.c, data_write.c, data_read.c ---- */

/* Packs response m and hands it to the sink (CANCELLED when the client is
 * gone). */
int rk_sv__send(const rk_sv_sink *sink, const ProtobufCMessage *m, rk_sv_status *st);

/* The table a request names (field `field`), acquired: release it with
 * rk_sv__table_release(env->tables, store, *t), store[RK_MAX_TABLE_NAME_LEN
 * + 1] its store name. NOT_FOUND when the instance has no such table. */
int rk_sv__open_table(rk_table **t, char *store, const rk_sv_env *env, const char *name,
                      const char *field, rk_sv_status *st);

/* UNIMPLEMENTED naming the field when a request reads or writes through
 * an authorized view or a materialized view (materialized NULL: the
 * request has no such field). */
int rk_sv__no_views(const char *authorized, const char *materialized, rk_sv_status *st);

/* INVALID_ARGUMENT naming `field` for an empty row key or one over 4 KiB. */
int rk_sv__check_row_key(const ProtobufCBinaryData *k, const char *field, rk_sv_status *st);

/* The store filter of a request's RowFilter (*out free()), for field `path`:
 * INVALID_ARGUMENT, or UNIMPLEMENTED for a filter rowkey does not have. */
int rk_sv__filter(rk_filter **out, const Rkbt__RowFilter *f, const char *path,
                  rk_sv_status *st);

int rk_sv__read_rows(const rk_sv_env *env, const Rkbt__ReadRowsRequest *r,
                     const rk_sv_sink *sink, rk_sv_status *st);
int rk_sv__mutate_row(const rk_sv_env *env, const Rkbt__MutateRowRequest *r,
                      const rk_sv_sink *sink, rk_sv_status *st);
int rk_sv__mutate_rows(const rk_sv_env *env, const Rkbt__MutateRowsRequest *r,
                       const rk_sv_sink *sink, rk_sv_status *st);
int rk_sv__check_and_mutate(const rk_sv_env *env, const Rkbt__CheckAndMutateRowRequest *r,
                            const rk_sv_sink *sink, rk_sv_status *st);
int rk_sv__read_modify_write(const rk_sv_env *env, const Rkbt__ReadModifyWriteRowRequest *r,
                             const rk_sv_sink *sink, rk_sv_status *st);

#endif
