/*
 * Private to src/store/bigtable: the client's insides and the gRPC call
 * helpers (bt_call.c) shared by bt_client.c, bt_admin.c (admin,
 * SampleRowKeys), bt_write.c and bt_read.c. Messages travel as raw gRPC
 * byte buffers; protobuf-c packs and unpacks them.
 */
#ifndef RK_STORE_BT_INT_H
#define RK_STORE_BT_INT_H

#include <grpc/grpc.h>
#include <stdatomic.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include "bt_data.pb-c.h"
#include "store/bigtable/bt_client.h"

/* gRPC method paths: upstream package, service and method names. */
#define RK_BT_M_READ_ROWS "/google.bigtable.v2.Bigtable/ReadRows"
#define RK_BT_M_MUTATE_ROWS "/google.bigtable.v2.Bigtable/MutateRows"
#define RK_BT_M_SAMPLE_ROW_KEYS "/google.bigtable.v2.Bigtable/SampleRowKeys"
#define RK_BT_M_CHECK_AND_MUTATE "/google.bigtable.v2.Bigtable/CheckAndMutateRow"
#define RK_BT_M_READ_MODIFY_WRITE "/google.bigtable.v2.Bigtable/ReadModifyWriteRow"
#define RK_BT_M_CREATE_TABLE "/google.bigtable.admin.v2.BigtableTableAdmin/CreateTable"
#define RK_BT_M_DELETE_TABLE "/google.bigtable.admin.v2.BigtableTableAdmin/DeleteTable"
#define RK_BT_M_LIST_TABLES "/google.bigtable.admin.v2.BigtableTableAdmin/ListTables"
#define RK_BT_M_GET_TABLE "/google.bigtable.admin.v2.BigtableTableAdmin/GetTable"

#define RK_BT_MAX_KEY 4096 /* Bigtable's row key limit */

struct rk_bt_client {
	char *instance_name; /* projects/P/instances/I */
	char *target;        /* data endpoint, for messages */
	grpc_channel *data;
	grpc_channel *admin;
	rk_bt_opts opts; /* defaults filled in */
	_Atomic int64_t last_ts_ms; /* rk_bt__client_next_ts */
};

/* 1 when s is a Bigtable id of 1..max bytes of [-_.a-zA-Z0-9], '-' and '.'
 * not first unless first_any. */
int rk_bt__id_ok(const char *s, size_t max, int first_any);

/* "projects/P/instances/I/tables/T", malloc'd; RK_EINVALID on a bad id. */
int rk_bt__table_name(char **out, const rk_bt_client *c, const char *table);

/* Sets the message "what: CODE: details" and returns the mapped RK code. */
int rk_bt__status_err(int code, const char *details, const char *what);

/* The canonical name of a gRPC status code ("UNAVAILABLE"). */
const char *rk_bt__code_name(int code);

/* Whether a gRPC status code is worth retrying a write for. */
int rk_bt__code_retryable(int code);

/* Deadline `ms` milliseconds from now (0: none). */
gpr_timespec rk_bt__deadline(unsigned ms);

/* The x-goog-request-params routing header for a table, malloc'd. */
char *rk_bt__routing(const char *table_name);

/* ---- one call on its own completion queue: unary or server-streaming ---- */

typedef struct rk_bt_call rk_bt_call;

/* Starts a call of `method` on `ch` sending one request message (req, len;
 * copied). `routing` (may be NULL) becomes the x-goog-request-params header.
 * `what` names the call in messages. */
int rk_bt__call_start(rk_bt_call **out, grpc_channel *ch, const char *method, const void *req,
                      size_t len, const char *routing, gpr_timespec deadline, const char *what);

/* The next response message: 0 with *msg, *len borrowed until the next call
 * on `call`; RK_EITEROVER when the server closed the stream with OK; or the
 * call's status as an error. */
int rk_bt__call_next(rk_bt_call *call, const uint8_t **msg, size_t *len);

/* The call's gRPC status code once it has ended, -1 before. */
int rk_bt__call_status(const rk_bt_call *call);

/* Cancels the call if it is still running and frees everything. */
void rk_bt__call_free(rk_bt_call *call);

/* A unary call: exactly one response, copied into *resp (malloc'd, caller
 * frees). */
int rk_bt__unary(uint8_t **resp, size_t *resp_len, grpc_channel *ch, const char *method,
                 const void *req, size_t len, const char *routing, gpr_timespec deadline,
                 const char *what);

/* ---- mutations (bt_mutation.c) ---- */

/* The Rkbt__Mutation messages of muts[0..n), checked (a family, whole
 * milliseconds, a non-empty range; `who` and the row name them in errors),
 * their bytes borrowed from muts: *mp points at n messages held in *mem,
 * which the caller frees with free(). */
int rk_bt__pack_mutations(Rkbt__Mutation ***mp, void **mem, const rk_bt_mutation *muts,
                          size_t n, const char *who, const uint8_t *row, size_t row_len);

/* ---- response decoding (each takes hostile bytes: fuzz_bt_responses) ---- */

/* The column families of a GetTable response (a Table), sorted by name;
 * *out (rk_bt__families_free) and *count set on success. RK_ECORRUPT when it
 * does not parse or names an invalid or repeated family. */
int rk_bt__families_from_table(rk_bt_family **out, size_t *count, const uint8_t *resp,
                               size_t resp_len, const char *what);

/* Appends the table ids of one ListTablesResponse to *v (NULL-terminated,
 * *n entries; the caller frees with rk_bt__strv_free) and replaces *token
 * (malloc'd) with its next_page_token. */
int rk_bt__table_ids_from_list(char ***v, size_t *n, char **token, const uint8_t *resp,
                               size_t resp_len, const char *instance_name, const char *what);

/* One SampleRowKeysResponse (the i-th) into *out (its key malloc'd). */
int rk_bt__sample_from_response(rk_bt_sample *out, const uint8_t *m, size_t ml, size_t i,
                                const char *what);

/* Calls entry() for each entry of a MutateRowsResponse about a request of
 * n entries. NULL, or what was wrong with it (it does not parse, an index
 * out of range: such entries are skipped). */
const char *rk_bt__mutate_rows_entries(const uint8_t *msg, size_t len, size_t n,
                                       void (*entry)(void *arg, size_t index, int code,
                                                     const char *message),
                                       void *arg);

#endif
