/*
 * A gRPC client of an in-process `rowkey serve` for the test_serve* tests:
 * a server on a temporary store reached by a real channel with rowkey's own
 * Bigtable call helpers, and builders for the requests they send.
 */
#ifndef RK_TEST_SERVE_CLIENT_H
#define RK_TEST_SERVE_CLIENT_H

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bt_admin.pb-c.h"
#include "bt_data.pb-c.h"
#include "integration/store_test_util.h"
#include "serve/serve.h"
#include "store/bigtable/bt_int.h"

#define INST "projects/p/instances/i"
#define TBL INST "/tables/t"
#define DATA "/google.bigtable.v2.Bigtable/"
#define ADMIN "/google.bigtable.admin.v2.BigtableTableAdmin/"

static char *dir;
static rk_store *store;
static rk_sv_server *srv;
static grpc_channel *ch;

/* Starts a server for project/instance ("*" "*": any) on a new store, or
 * on the store in `dir` when reopen, and a channel to it: requests up to
 * 16 MiB, 16 calls at once, a client silent 3 s over its part cancelled
 * (small limits, to reach them). */
static inline void sv_start(const char *project, const char *instance, int reopen)
{
	if (!reopen)
		dir = st_tmpdir("serve");
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	o.n_servers = 3;
	ST_OK(rk_store_open(&store, dir, &o));
	char bound[128];
	rk_sv_limits lim = RK_SV_LIMITS_INIT;
	lim.max_request = 16u << 20;
	lim.max_calls = 16;
	lim.stall_ms = 3000;
	ST_OK(rk_sv_server_start(&srv, store, "127.0.0.1:0", project, instance, &lim, bound,
	                         sizeof bound));
	grpc_channel_credentials *cr = grpc_insecure_credentials_create();
	grpc_arg a = {GRPC_ARG_INTEGER, (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, {.integer = -1}};
	grpc_channel_args ca = {1, &a};
	ch = grpc_channel_create(bound, cr, &ca);
	grpc_channel_credentials_release(cr);
}

/* Stops the server and closes the store; removes it unless keep. */
static inline void sv_stop(int keep)
{
	grpc_channel_destroy(ch);
	rk_sv_server_stop(srv, 5000);
	ST_OK(rk_store_close(store));
	if (!keep) {
		st_rmtree(dir);
		free(dir);
	}
}

/* cmocka's group set-up and tear-down for the tests of one instance: a
 * server for projects/p/instances/i on a new store, removed after. */
static inline int sv_setup(void **state)
{
	(void)state;
	sv_start("p", "i", 0);
	return 0;
}

static inline int sv_teardown(void **state)
{
	(void)state;
	sv_stop(0);
	return 0;
}

/* One call: the responses concatenated as length-prefixed blobs in *out
 * (caller frees), their count in *n; returns the gRPC status code. */
typedef struct resp {
	uint8_t **msg;
	size_t *len;
	size_t n;
} resp;

static inline void resp_free(resp *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->msg[i]);
	free(r->msg);
	free(r->len);
	memset(r, 0, sizeof *r);
}

static inline int callm(resp *out, const char *method, const ProtobufCMessage *req)
{
	size_t n = req ? protobuf_c_message_get_packed_size(req) : 0;
	uint8_t *b = malloc(n + 1);
	if (req)
		protobuf_c_message_pack(req, b);
	rk_bt_call *c;
	resp r = {0};
	int rc = rk_bt__call_start(&c, ch, method, b, n, NULL, rk_bt__deadline(20000), method);
	free(b);
	assert_int_equal(rc, 0);
	for (;;) {
		const uint8_t *m;
		size_t l;
		rc = rk_bt__call_next(c, &m, &l);
		if (rc)
			break;
		r.msg = realloc(r.msg, (r.n + 1) * sizeof *r.msg);
		r.len = realloc(r.len, (r.n + 1) * sizeof *r.len);
		r.msg[r.n] = malloc(l + 1);
		memcpy(r.msg[r.n], m, l);
		r.len[r.n++] = l;
	}
	int code = rk_bt__call_status(c);
	rk_bt__call_free(c);
	if (out)
		*out = r;
	else
		resp_free(&r);
	return code;
}

/* Raw bytes as the request (malformed input). */
static inline int call_raw(const char *method, const void *bytes, size_t n)
{
	rk_bt_call *c;
	assert_int_equal(rk_bt__call_start(&c, ch, method, bytes, n, NULL, rk_bt__deadline(20000),
	                                   method),
	                 0);
	const uint8_t *m;
	size_t l;
	while (rk_bt__call_next(c, &m, &l) == 0)
		;
	int code = rk_bt__call_status(c);
	rk_bt__call_free(c);
	return code;
}

/* ---- request builders ---- */

static inline Rkbt__Mutation *set_cell(const char *fam, const char *q, int64_t ts, const char *v)
{
	Rkbt__Mutation *m = calloc(1, sizeof *m);
	Rkbt__Mutation__SetCell *s = calloc(1, sizeof *s);
	rkbt__mutation__init(m);
	rkbt__mutation__set_cell__init(s);
	s->family_name = (char *)fam;
	s->column_qualifier = (ProtobufCBinaryData){strlen(q), (uint8_t *)q};
	s->timestamp_micros = ts;
	s->value = (ProtobufCBinaryData){strlen(v), (uint8_t *)v};
	m->mutation_case = RKBT__MUTATION__MUTATION_SET_CELL;
	m->set_cell = s;
	return m;
}

static inline void mut_free(Rkbt__Mutation *m)
{
	free(m->set_cell);
	free(m);
}

static inline int mutate_row(const char *table, const char *row, size_t rowlen, Rkbt__Mutation **m,
                      size_t n)
{
	Rkbt__MutateRowRequest r = RKBT__MUTATE_ROW_REQUEST__INIT;
	r.table_name = (char *)table;
	r.row_key = (ProtobufCBinaryData){rowlen, (uint8_t *)row};
	r.n_mutations = n;
	r.mutations = m;
	return callm(NULL, DATA "MutateRow", &r.base);
}

static inline int put(const char *row, const char *fam, const char *q, const char *v)
{
	Rkbt__Mutation *m = set_cell(fam, q, 1000, v);
	int code = mutate_row(TBL, row, strlen(row), &m, 1);
	mut_free(m);
	return code;
}

/* Rows (committed) and cells a ReadRows returns; keys of the rows in order
 * joined by ',' into keys[cap]. */
static inline int read_rows(const Rkbt__ReadRowsRequest *r, size_t *rows, size_t *cells, char *keys,
                     size_t cap)
{
	resp out;
	int code = callm(&out, DATA "ReadRows", &r->base);
	*rows = *cells = 0;
	if (keys)
		keys[0] = 0;
	for (size_t i = 0; i < out.n; i++) {
		Rkbt__ReadRowsResponse *rr = rkbt__read_rows_response__unpack(NULL, out.len[i],
		                                                              out.msg[i]);
		assert_non_null(rr);
		for (size_t k = 0; k < rr->n_chunks; k++) {
			const Rkbt__ReadRowsResponse__CellChunk *c = rr->chunks[k];
			if (c->row_key.len && keys) {
				size_t kl = strlen(keys);
				snprintf(keys + kl, cap - kl, "%s%.*s", kl ? "," : "", (int)c->row_key.len,
				         (const char *)c->row_key.data);
			}
			if (c->value_size == 0)
				(*cells)++;
			if (c->row_status_case ==
			    RKBT__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_COMMIT_ROW)
				(*rows)++;
		}
		rkbt__read_rows_response__free_unpacked(rr, NULL);
	}
	resp_free(&out);
	return code;
}

static inline size_t count_rows(void)
{
	Rkbt__ReadRowsRequest r = RKBT__READ_ROWS_REQUEST__INIT;
	r.table_name = TBL;
	size_t rows, cells;
	assert_int_equal(read_rows(&r, &rows, &cells, NULL, 0), GRPC_STATUS_OK);
	return rows;
}

static inline void create_table(void)
{
	Rkbt__GcRule two = RKBT__GC_RULE__INIT;
	two.rule_case = RKBT__GC_RULE__RULE_MAX_NUM_VERSIONS;
	two.max_num_versions = 2;
	Rkbt__ColumnFamily cf = RKBT__COLUMN_FAMILY__INIT, meta = RKBT__COLUMN_FAMILY__INIT;
	cf.gc_rule = &two;
	Rkbt__Table__ColumnFamiliesEntry e1 = RKBT__TABLE__COLUMN_FAMILIES_ENTRY__INIT,
	                                 e2 = RKBT__TABLE__COLUMN_FAMILIES_ENTRY__INIT;
	e1.key = "cf";
	e1.value = &cf;
	e2.key = "meta";
	e2.value = &meta;
	Rkbt__Table__ColumnFamiliesEntry *ep[] = {&e1, &e2};
	Rkbt__Table t = RKBT__TABLE__INIT;
	t.n_column_families = 2;
	t.column_families = ep;
	Rkbt__CreateTableRequest__Split s[3];
	Rkbt__CreateTableRequest__Split *sp[3];
	const char *keys[] = {"p", "g", "g"}; /* any order, duplicates once */
	for (int i = 0; i < 3; i++) {
		rkbt__create_table_request__split__init(&s[i]);
		s[i].key = (ProtobufCBinaryData){1, (uint8_t *)keys[i]};
		sp[i] = &s[i];
	}
	Rkbt__CreateTableRequest r = RKBT__CREATE_TABLE_REQUEST__INIT;
	r.parent = INST;
	r.table_id = "t";
	r.table = &t;
	r.n_initial_splits = 3;
	r.initial_splits = sp;
	resp out;
	assert_int_equal(callm(&out, ADMIN "CreateTable", &r.base), GRPC_STATUS_OK);
	assert_int_equal(out.n, 1);
	Rkbt__Table *got = rkbt__table__unpack(NULL, out.len[0], out.msg[0]);
	assert_non_null(got);
	assert_string_equal(got->name, TBL);
	assert_int_equal(got->n_column_families, 2);
	rkbt__table__free_unpacked(got, NULL);
	resp_free(&out);
	assert_int_equal(callm(NULL, ADMIN "CreateTable", &r.base), GRPC_STATUS_ALREADY_EXISTS);
}

static inline void drop_table(void)
{
	Rkbt__DeleteTableRequest d = RKBT__DELETE_TABLE_REQUEST__INIT;
	d.name = TBL;
	assert_int_equal(callm(NULL, ADMIN "DeleteTable", &d.base), GRPC_STATUS_OK);
	assert_int_equal(callm(NULL, ADMIN "DeleteTable", &d.base), GRPC_STATUS_NOT_FOUND);
}

#endif
