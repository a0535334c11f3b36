/*
 * Fuzz target: rowkey serve's request path. The first byte picks
 * a Data or Admin API method, the rest is its request message, decoded and
 * run against a real store (table "t" of projects/p/instances/i with
 * families cf and meta, split at "g" and "p", recreated when an input
 * drops it). Responses go to a sink
 * that checks each one parses as its method's response type. Nothing may
 * crash, leak or hang; every refusal must carry a status and a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_admin.pb-c.h"
#include "bt_data.pb-c.h"
#include "serve/serve_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the order seeds are written in (gen_serve_requests_seeds.py,
 * grpc_record.js) */
static const char *const data_methods[] = {"ReadRows",           "MutateRow",
                                           "MutateRows",         "CheckAndMutateRow",
                                           "ReadModifyWriteRow", "SampleRowKeys",
                                           "PingAndWarm"};
static const char *const admin_methods[] = {"CreateTable", "ListTables",
                                            "GetTable",    "DeleteTable",
                                            "ModifyColumnFamilies", "DropRowRange"};
#define NDATA (sizeof data_methods / sizeof data_methods[0])
#define NADMIN (sizeof admin_methods / sizeof admin_methods[0])

static rk_store *store;
static rk_sv_tables *tables;
static rk_sv_catalog *catalog;
static char dir[] = "/tmp/rk_fuzz_serve_XXXXXX";

static void cleanup(void)
{
	rk_sv__catalog_free(catalog);
	rk_sv__tables_free(tables);
	rk_store_close(store);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_serve_requests: could not remove %s\n", dir);
}

static void ensure_table(void)
{
	static const rk_family_def fams[] = {{"cf", 3, NULL}, {"meta", 1, NULL}};
	static const rk_bytes splits[] = {{(const uint8_t *)"g", 1}, {(const uint8_t *)"p", 1}};
	rk_table_def d = {NULL, fams, 2, splits, 2, 0};
	rk_sv_ref ref;
	if (rk_sv__catalog_find(&ref, catalog, "projects/p/instances/i", "t") == 0)
		return;
	int rc = rk_sv__catalog_create(&ref, catalog, "projects/p/instances/i", "t", &d);
	if (rc && rc != RK_EEXISTS)
		abort();
}

static void setup(void)
{
	if (store)
		return;
	if (!mkdtemp(dir))
		abort();
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	o.n_servers = 2;
	o.background_splits = 0;
	if (rk_store_open(&store, dir, &o) || rk_sv__tables_new(&tables, store) ||
	    rk_sv__catalog_new(&catalog, store, tables))
		abort();
	atexit(cleanup);
}

static const char *cur_method;

static int sink_send(void *arg, const uint8_t *msg, size_t len)
{
	(void)arg;
	ProtobufCMessage *m = NULL;
	const ProtobufCMessageDescriptor *d = NULL;
	if (!strcmp(cur_method, "ReadRows")) d = &rkbt__read_rows_response__descriptor;
	else if (!strcmp(cur_method, "MutateRows")) d = &rkbt__mutate_rows_response__descriptor;
	else if (!strcmp(cur_method, "SampleRowKeys")) d = &rkbt__sample_row_keys_response__descriptor;
	else if (!strcmp(cur_method, "ReadModifyWriteRow")) d = &rkbt__read_modify_write_row_response__descriptor;
	else if (!strcmp(cur_method, "CheckAndMutateRow")) d = &rkbt__check_and_mutate_row_response__descriptor;
	else if (!strcmp(cur_method, "MutateRow")) d = &rkbt__mutate_row_response__descriptor;
	if (d) {
		m = protobuf_c_message_unpack(d, NULL, len, msg);
		if (!m)
			abort(); /* we sent something that does not parse */
		protobuf_c_message_free_unpacked(m, NULL);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	setup();
	ensure_table();
	rk_sv_env env = {store, tables, catalog, "*", "*", NULL};
	rk_sv_status st;
	unsigned pick = data[0] % (NDATA + NADMIN);
	if (pick < NDATA) {
		rk_sv_sink sink = {sink_send, NULL};
		cur_method = data_methods[pick];
		int rc = rk_sv__data_call(&env, cur_method, data + 1, size - 1, &sink, &st);
		if ((rc != 0) != (st.code != RK_SV_OK) || (st.code && !st.msg[0]))
			abort();
	} else {
		uint8_t *resp = NULL;
		size_t rl = 0;
		cur_method = admin_methods[pick - NDATA];
		int rc = rk_sv__admin_unary(&env, cur_method, data + 1, size - 1, &resp, &rl, &st);
		if ((rc != 0) != (st.code != RK_SV_OK) || (st.code && !st.msg[0]) ||
		    (rc == 0) != (resp != NULL))
			abort();
		free(resp);
	}
	return 0;
}
