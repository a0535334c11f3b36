/*
 * Every request field of the Bigtable API that rowkey serve does not
 * honour is refused naming it, never dropped in silence (docs/serve.md,
 * "Request fields"): authorized and materialized views, full request
 * stats, aggregate cells and families, table options rowkey has not
 * (deletion protection, change streams, automated backups, row key
 * schemas), views of clusters, unknown views and granularities, and any
 * field outside the API by its number. The fields it accepts without
 * effect (app_profile_id, idempotency, ignore_warnings) are accepted.
 * PingAndWarm checks the instance it names. The calls run on the request
 * path the server uses (rk_sv__data_call, rk_sv__admin_unary) against a
 * real store, with the status message read back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bt_admin.pb-c.h"
#include "bt_data.pb-c.h"
#include "integration/store_test_util.h"
#include "serve/serve_int.h"

#define INST "projects/p/instances/i"
#define TBL INST "/tables/t"

static char *dir;
static rk_store *store;
static rk_sv_tables *pool;
static rk_sv_catalog *catalog;
static rk_sv_env env;

static int setup(void **state)
{
	(void)state;
	dir = st_tmpdir("serve_fields");
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	ST_OK(rk_store_open(&store, dir, &o));
	ST_OK(rk_sv__tables_new(&pool, store));
	ST_OK(rk_sv__catalog_new(&catalog, store, pool));
	env = (rk_sv_env){store, pool, catalog, "p", "i", NULL};
	static const rk_family_def fams[] = {{"cf", 1, NULL}};
	rk_table_def d = {NULL, fams, 1, NULL, 0, 0};
	rk_sv_ref ref;
	ST_OK(rk_sv__catalog_create(&ref, catalog, INST, "t", &d));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rk_sv__catalog_free(catalog);
	rk_sv__tables_free(pool);
	ST_OK(rk_store_close(store));
	st_rmtree(dir);
	free(dir);
	return 0;
}

static int drop_response(void *arg, const uint8_t *msg, size_t len)
{
	(void)arg;
	(void)msg;
	(void)len;
	return 0;
}

/* Runs a call (Data API unless admin) with request m; checks the status
 * code and, when `names` is given, that the message contains it. */
static void expect(int admin, const char *method, const ProtobufCMessage *m, int code,
                   const char *names)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *b = malloc(n + 1);
	protobuf_c_message_pack(m, b);
	rk_sv_status st;
	if (admin) {
		uint8_t *resp = NULL;
		size_t rl = 0;
		rk_sv__admin_unary(&env, method, b, n, &resp, &rl, &st);
		free(resp);
	} else {
		rk_sv_sink sink = {drop_response, NULL};
		rk_sv__data_call(&env, method, b, n, &sink, &st);
	}
	free(b);
	if (st.code != code || (names && !strstr(st.msg, names)))
		fail_msg("%s: got %d '%s', want %d naming '%s'", method, st.code, st.msg, code,
		         names ? names : "");
}

static Rkbt__Mutation set_cf(Rkbt__Mutation__SetCell *sc)
{
	Rkbt__Mutation m = RKBT__MUTATION__INIT;
	rkbt__mutation__set_cell__init(sc);
	sc->family_name = "cf";
	sc->column_qualifier = (ProtobufCBinaryData){1, (uint8_t *)"q"};
	sc->timestamp_micros = 1000;
	sc->value = (ProtobufCBinaryData){1, (uint8_t *)"v"};
	m.mutation_case = RKBT__MUTATION__MUTATION_SET_CELL;
	m.set_cell = sc;
	return m;
}

static void test_data_fields(void **state)
{
	(void)state;
	Rkbt__ReadRowsRequest rr = RKBT__READ_ROWS_REQUEST__INIT;
	rr.table_name = TBL;
	rr.app_profile_id = "default"; /* accepted: one cluster, every profile routes to it */
	expect(0, "ReadRows", &rr.base, RK_SV_OK, NULL);
	rr.authorized_view_name = TBL "/authorizedViews/v";
	expect(0, "ReadRows", &rr.base, RK_SV_UNIMPLEMENTED, "authorized_view_name");
	rr.authorized_view_name = "";
	rr.materialized_view_name = INST "/materializedViews/m";
	expect(0, "ReadRows", &rr.base, RK_SV_UNIMPLEMENTED, "materialized_view_name");
	rr.materialized_view_name = "";
	rr.request_stats_view = 1; /* REQUEST_STATS_NONE: nothing to send */
	expect(0, "ReadRows", &rr.base, RK_SV_OK, NULL);
	rr.request_stats_view = 2;
	expect(0, "ReadRows", &rr.base, RK_SV_UNIMPLEMENTED, "request_stats_view");
	rr.request_stats_view = 7;
	expect(0, "ReadRows", &rr.base, RK_SV_INVALID_ARGUMENT, "request_stats_view");

	Rkbt__SampleRowKeysRequest sr = RKBT__SAMPLE_ROW_KEYS_REQUEST__INIT;
	sr.table_name = TBL;
	expect(0, "SampleRowKeys", &sr.base, RK_SV_OK, NULL);
	sr.authorized_view_name = "v";
	expect(0, "SampleRowKeys", &sr.base, RK_SV_UNIMPLEMENTED, "authorized_view_name");
	sr.authorized_view_name = "";
	sr.materialized_view_name = "m";
	expect(0, "SampleRowKeys", &sr.base, RK_SV_UNIMPLEMENTED, "materialized_view_name");

	Rkbt__Mutation__SetCell sc;
	Rkbt__Mutation set = set_cf(&sc), agg = RKBT__MUTATION__INIT;
	Rkbt__Mutation *mp[] = {&set};
	Rkbt__MutateRowRequest mr = RKBT__MUTATE_ROW_REQUEST__INIT;
	mr.table_name = TBL;
	mr.row_key = (ProtobufCBinaryData){1, (uint8_t *)"r"};
	mr.n_mutations = 1;
	mr.mutations = mp;
	static const uint8_t token[] = {0x0a, 0x02, 'i', 'd'}; /* Idempotency.token */
	mr.idempotency = (ProtobufCBinaryData){sizeof token, (uint8_t *)token};
	expect(0, "MutateRow", &mr.base, RK_SV_OK, NULL); /* accepted: for aggregates only */
	mr.authorized_view_name = "v";
	expect(0, "MutateRow", &mr.base, RK_SV_UNIMPLEMENTED, "authorized_view_name");
	mr.authorized_view_name = "";
	agg.mutation_case = RKBT__MUTATION__MUTATION_ADD_TO_CELL;
	agg.add_to_cell = (ProtobufCBinaryData){0, NULL};
	mp[0] = &agg;
	expect(0, "MutateRow", &mr.base, RK_SV_UNIMPLEMENTED, "mutations[0].add_to_cell");
	agg.mutation_case = RKBT__MUTATION__MUTATION_MERGE_TO_CELL;
	expect(0, "MutateRow", &mr.base, RK_SV_UNIMPLEMENTED, "mutations[0].merge_to_cell");
	mp[0] = &set;

	Rkbt__MutateRowsRequest__Entry e = RKBT__MUTATE_ROWS_REQUEST__ENTRY__INIT, *ep = &e;
	e.row_key = (ProtobufCBinaryData){1, (uint8_t *)"r"};
	e.n_mutations = 1;
	e.mutations = mp;
	Rkbt__MutateRowsRequest ms = RKBT__MUTATE_ROWS_REQUEST__INIT;
	ms.table_name = TBL;
	ms.n_entries = 1;
	ms.entries = &ep;
	ms.authorized_view_name = "v";
	expect(0, "MutateRows", &ms.base, RK_SV_UNIMPLEMENTED, "authorized_view_name");

	Rkbt__CheckAndMutateRowRequest cm = RKBT__CHECK_AND_MUTATE_ROW_REQUEST__INIT;
	cm.table_name = TBL;
	cm.row_key = (ProtobufCBinaryData){1, (uint8_t *)"r"};
	cm.n_true_mutations = 1;
	cm.true_mutations = mp;
	cm.authorized_view_name = "v";
	expect(0, "CheckAndMutateRow", &cm.base, RK_SV_UNIMPLEMENTED, "authorized_view_name");

	Rkbt__ReadModifyWriteRule rule = RKBT__READ_MODIFY_WRITE_RULE__INIT, *rp = &rule;
	rule.family_name = "cf";
	rule.column_qualifier = (ProtobufCBinaryData){1, (uint8_t *)"n"};
	rule.rule_case = RKBT__READ_MODIFY_WRITE_RULE__RULE_INCREMENT_AMOUNT;
	rule.increment_amount = 1;
	Rkbt__ReadModifyWriteRowRequest rm = RKBT__READ_MODIFY_WRITE_ROW_REQUEST__INIT;
	rm.table_name = TBL;
	rm.row_key = (ProtobufCBinaryData){1, (uint8_t *)"r"};
	rm.n_rules = 1;
	rm.rules = &rp;
	rm.authorized_view_name = "v";
	expect(0, "ReadModifyWriteRow", &rm.base, RK_SV_UNIMPLEMENTED, "authorized_view_name");

	Rkbt__PingAndWarmRequest pw = RKBT__PING_AND_WARM_REQUEST__INIT;
	pw.name = INST;
	expect(0, "PingAndWarm", &pw.base, RK_SV_OK, NULL);
	pw.name = "projects/p/instances/other";
	expect(0, "PingAndWarm", &pw.base, RK_SV_NOT_FOUND, "name");
	pw.name = "";
	expect(0, "PingAndWarm", &pw.base, RK_SV_INVALID_ARGUMENT, "name");
}

/* A field outside the API is refused naming its number. */
/* Requests at the edge of the API refused as Bigtable refuses them, naming
 * where (docs/serve.md, "Known differences"): a row range whose start sorts
 * after its end (equal keys: an empty range), chains and interleaves of
 * fewer than two filters, anywhere in the tree, and per-row and per-column
 * cell limits of 0 (an offset of 0 is fine). */
static void test_edge_requests(void **state)
{
	(void)state;
	Rkbt__ReadRowsRequest rr = RKBT__READ_ROWS_REQUEST__INIT;
	rr.table_name = TBL;
	Rkbt__RowSet rs = RKBT__ROW_SET__INIT;
	Rkbt__RowRange g = RKBT__ROW_RANGE__INIT, *gp[] = {NULL, &g};
	Rkbt__RowRange all = RKBT__ROW_RANGE__INIT;
	gp[0] = &all;
	rs.n_row_ranges = 2;
	rs.row_ranges = gp;
	rr.rows = &rs;
	g.start_key_case = RKBT__ROW_RANGE__START_KEY_START_KEY_OPEN;
	g.start_key_open = (ProtobufCBinaryData){1, (uint8_t *)"m"};
	g.end_key_case = RKBT__ROW_RANGE__END_KEY_END_KEY_CLOSED;
	g.end_key_closed = (ProtobufCBinaryData){1, (uint8_t *)"c"};
	expect(0, "ReadRows", &rr.base, RK_SV_INVALID_ARGUMENT, "rows.row_ranges[1]");
	g.end_key_closed = (ProtobufCBinaryData){1, (uint8_t *)"m"}; /* (m, m]: empty */
	expect(0, "ReadRows", &rr.base, RK_SV_OK, NULL);
	g.end_key_closed = (ProtobufCBinaryData){0, NULL}; /* (m, end of table) */
	expect(0, "ReadRows", &rr.base, RK_SV_OK, NULL);
	rr.rows = NULL;

	Rkbt__RowFilter f = RKBT__ROW_FILTER__INIT, cond = RKBT__ROW_FILTER__INIT,
	                kid = RKBT__ROW_FILTER__INIT, *kids[] = {&kid, &kid};
	Rkbt__RowFilter__Interleave il = RKBT__ROW_FILTER__INTERLEAVE__INIT;
	Rkbt__RowFilter__Chain ch = RKBT__ROW_FILTER__CHAIN__INIT;
	Rkbt__RowFilter__Condition c = RKBT__ROW_FILTER__CONDITION__INIT;
	kid.filter_case = RKBT__ROW_FILTER__FILTER_PASS_ALL_FILTER;
	kid.pass_all_filter = 1;
	rr.filter = &f;
	f.filter_case = RKBT__ROW_FILTER__FILTER_INTERLEAVE;
	f.interleave = &il;
	il.filters = kids;
	for (size_t n = 0; n < 3; n++) {
		il.n_filters = n;
		expect(0, "ReadRows", &rr.base, n < 2 ? RK_SV_INVALID_ARGUMENT : RK_SV_OK,
		       n < 2 ? "filter.interleave" : NULL);
	}
	f.filter_case = RKBT__ROW_FILTER__FILTER_CHAIN;
	f.chain = &ch;
	ch.filters = kids;
	ch.n_filters = 1;
	expect(0, "ReadRows", &rr.base, RK_SV_INVALID_ARGUMENT, "filter.chain");
	/* deep in the tree: a condition's true branch */
	rr.filter = &cond;
	cond.filter_case = RKBT__ROW_FILTER__FILTER_CONDITION;
	cond.condition = &c;
	c.predicate_filter = &kid;
	c.true_filter = &f;
	expect(0, "ReadRows", &rr.base, RK_SV_INVALID_ARGUMENT, "filter.condition.true_filter.chain");
	ch.n_filters = 2;
	expect(0, "ReadRows", &rr.base, RK_SV_OK, NULL);
	kid.filter_case = RKBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER;
	kid.cells_per_column_limit_filter = 0;
	expect(0, "ReadRows", &rr.base, RK_SV_INVALID_ARGUMENT,
	       "filter.condition.predicate_filter.cells_per_column_limit_filter");
	kid.cells_per_column_limit_filter = 1;
	expect(0, "ReadRows", &rr.base, RK_SV_OK, NULL);
	rr.filter = &kid;
	kid.filter_case = RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_LIMIT_FILTER;
	kid.cells_per_row_limit_filter = 0;
	expect(0, "ReadRows", &rr.base, RK_SV_INVALID_ARGUMENT, "filter.cells_per_row_limit_filter");
	kid.filter_case = RKBT__ROW_FILTER__FILTER_CELLS_PER_ROW_OFFSET_FILTER;
	kid.cells_per_row_offset_filter = 0;
	expect(0, "ReadRows", &rr.base, RK_SV_OK, NULL);
}

static void test_unknown_field(void **state)
{
	(void)state;
	Rkbt__SampleRowKeysRequest sr = RKBT__SAMPLE_ROW_KEYS_REQUEST__INIT;
	sr.table_name = TBL;
	size_t n = protobuf_c_message_get_packed_size(&sr.base);
	uint8_t b[256];
	protobuf_c_message_pack(&sr.base, b);
	b[n++] = 0x98; /* field 99 (tag 99 << 3 as a varint), varint 1 */
	b[n++] = 0x06;
	b[n++] = 1;
	rk_sv_status st;
	rk_sv_sink sink = {drop_response, NULL};
	rk_sv__data_call(&env, "SampleRowKeys", b, n, &sink, &st);
	assert_int_equal(st.code, RK_SV_UNIMPLEMENTED);
	assert_non_null(strstr(st.msg, "99"));
}

static void test_admin_fields(void **state)
{
	(void)state;
	Rkbt__ColumnFamily cf = RKBT__COLUMN_FAMILY__INIT;
	Rkbt__Table__ColumnFamiliesEntry fe = RKBT__TABLE__COLUMN_FAMILIES_ENTRY__INIT, *fep = &fe;
	fe.key = "f";
	fe.value = &cf;
	Rkbt__Table t = RKBT__TABLE__INIT;
	t.n_column_families = 1;
	t.column_families = &fep;
	Rkbt__CreateTableRequest ct = RKBT__CREATE_TABLE_REQUEST__INIT;
	ct.parent = INST;
	ct.table_id = "n";
	ct.table = &t;
	static const uint8_t any[] = {0x08, 0x01};
	ProtobufCBinaryData some = {sizeof any, (uint8_t *)any};
	t.deletion_protection = 1;
	expect(1, "CreateTable", &ct.base, RK_SV_UNIMPLEMENTED, "table.deletion_protection");
	t.deletion_protection = 0;
	t.change_stream_config = some;
	expect(1, "CreateTable", &ct.base, RK_SV_UNIMPLEMENTED, "table.change_stream_config");
	t.change_stream_config = (ProtobufCBinaryData){0, NULL};
	t.automated_backup_policy = some;
	expect(1, "CreateTable", &ct.base, RK_SV_UNIMPLEMENTED, "table.automated_backup_policy");
	t.automated_backup_policy = (ProtobufCBinaryData){0, NULL};
	t.row_key_schema = some;
	expect(1, "CreateTable", &ct.base, RK_SV_UNIMPLEMENTED, "table.row_key_schema");
	t.row_key_schema = (ProtobufCBinaryData){0, NULL};
	t.granularity = 5;
	expect(1, "CreateTable", &ct.base, RK_SV_INVALID_ARGUMENT, "table.granularity");
	t.granularity = RKBT__TABLE__TIMESTAMP_GRANULARITY__MILLIS;
	cf.value_type = some;
	expect(1, "CreateTable", &ct.base, RK_SV_UNIMPLEMENTED, "value_type");
	cf.value_type = (ProtobufCBinaryData){0, NULL};
	expect(1, "CreateTable", &ct.base, RK_SV_OK, NULL); /* nothing of the above made it */

	Rkbt__ModifyColumnFamiliesRequest__Modification mo =
	        RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__INIT, *mop = &mo;
	mo.id = "g";
	mo.mod_case = RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_CREATE;
	mo.create = &cf;
	Rkbt__ModifyColumnFamiliesRequest mf = RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__INIT;
	mf.name = INST "/tables/n";
	mf.n_modifications = 1;
	mf.modifications = &mop;
	mf.ignore_warnings = 1; /* accepted: there are no warnings */
	cf.value_type = some;
	expect(1, "ModifyColumnFamilies", &mf.base, RK_SV_UNIMPLEMENTED, "value_type");
	cf.value_type = (ProtobufCBinaryData){0, NULL};
	expect(1, "ModifyColumnFamilies", &mf.base, RK_SV_OK, NULL);

	Rkbt__GetTableRequest gt = RKBT__GET_TABLE_REQUEST__INIT;
	gt.name = INST "/tables/n";
	gt.view = RKBT__TABLE__VIEW__FULL;
	expect(1, "GetTable", &gt.base, RK_SV_OK, NULL);
	gt.view = RKBT__TABLE__VIEW__REPLICATION_VIEW;
	expect(1, "GetTable", &gt.base, RK_SV_UNIMPLEMENTED, "view: REPLICATION_VIEW");
	gt.view = RKBT__TABLE__VIEW__ENCRYPTION_VIEW;
	expect(1, "GetTable", &gt.base, RK_SV_UNIMPLEMENTED, "view: ENCRYPTION_VIEW");
	gt.view = 42;
	expect(1, "GetTable", &gt.base, RK_SV_INVALID_ARGUMENT, "view");
	Rkbt__ListTablesRequest lt = RKBT__LIST_TABLES_REQUEST__INIT;
	lt.parent = INST;
	lt.view = RKBT__TABLE__VIEW__REPLICATION_VIEW;
	expect(1, "ListTables", &lt.base, RK_SV_UNIMPLEMENTED, "view: REPLICATION_VIEW");

	Rkbt__DeleteTableRequest dt = RKBT__DELETE_TABLE_REQUEST__INIT;
	dt.name = INST "/tables/n";
	expect(1, "DeleteTable", &dt.base, RK_SV_OK, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_fields),
		cmocka_unit_test(test_edge_requests),
		cmocka_unit_test(test_unknown_field),
		cmocka_unit_test(test_admin_fields),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
