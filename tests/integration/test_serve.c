/*
 * rowkey serve through gRPC: an in-process server on a temporary
 * store, reached by a real gRPC channel (serve_client.h). Admin and data
 * calls and their answers; at least 20 hostile or malformed requests with
 * the status each must get and nothing of them applied; concurrent
 * read-modify-writes on one cell; admin changes seen under a write load; a
 * client that cancels a stream in the middle (ASan sees what the server
 * would leak).
 */
#include <pthread.h>
#include <stdatomic.h>

#include "integration/integrity_util.h"
#include "integration/serve_client.h"

/* ---- tests ---- */

static void test_calls(void **state)
{
	(void)state;
	create_table();
	for (const char *k = "abcghmpqz"; *k; k++) {
		char row[2] = {*k, 0};
		assert_int_equal(put(row, "cf", "x", row), GRPC_STATUS_OK);
	}
	assert_int_equal(count_rows(), 9);

	/* SampleRowKeys: the region ends g, p and the empty key */
	Rkbt__SampleRowKeysRequest sr = RKBT__SAMPLE_ROW_KEYS_REQUEST__INIT;
	sr.table_name = TBL;
	resp out;
	assert_int_equal(callm(&out, DATA "SampleRowKeys", &sr.base), GRPC_STATUS_OK);
	assert_int_equal(out.n, 3);
	const char *want[] = {"g", "p", ""};
	for (size_t i = 0; i < 3; i++) {
		Rkbt__SampleRowKeysResponse *s = rkbt__sample_row_keys_response__unpack(NULL, out.len[i],
		                                                                       out.msg[i]);
		assert_int_equal(s->row_key.len, strlen(want[i]));
		assert_memory_equal(s->row_key.data, want[i], s->row_key.len);
		rkbt__sample_row_keys_response__free_unpacked(s, NULL);
	}
	resp_free(&out);

	/* ranges, keys, limit, reversed */
	Rkbt__RowRange rg = RKBT__ROW_RANGE__INIT;
	rg.start_key_case = RKBT__ROW_RANGE__START_KEY_START_KEY_OPEN;
	rg.start_key_open = (ProtobufCBinaryData){1, (uint8_t *)"b"};
	rg.end_key_case = RKBT__ROW_RANGE__END_KEY_END_KEY_CLOSED;
	rg.end_key_closed = (ProtobufCBinaryData){1, (uint8_t *)"m"};
	Rkbt__RowRange *rgp = &rg;
	ProtobufCBinaryData k[] = {{1, (uint8_t *)"z"}, {1, (uint8_t *)"c"}, {1, (uint8_t *)"y"}};
	Rkbt__RowSet rs = RKBT__ROW_SET__INIT;
	rs.n_row_ranges = 1;
	rs.row_ranges = &rgp;
	rs.n_row_keys = 3;
	rs.row_keys = k;
	Rkbt__ReadRowsRequest rr = RKBT__READ_ROWS_REQUEST__INIT;
	rr.table_name = TBL;
	rr.rows = &rs;
	size_t rows, cells;
	char keys[256];
	assert_int_equal(read_rows(&rr, &rows, &cells, keys, sizeof keys), GRPC_STATUS_OK);
	assert_string_equal(keys, "c,g,h,m,z"); /* (b, m] and the keys, once each, in order */
	rr.reversed = 1;
	rr.rows_limit = 2;
	assert_int_equal(read_rows(&rr, &rows, &cells, keys, sizeof keys), GRPC_STATUS_OK);
	assert_string_equal(keys, "z,m");

	/* MutateRows: a bad entry fails alone */
	Rkbt__Mutation *good = set_cell("cf", "y", -1, "v"), *bad = set_cell("nofam", "y", 5000, "v");
	Rkbt__MutateRowsRequest__Entry e[3];
	Rkbt__MutateRowsRequest__Entry *ep[3];
	Rkbt__Mutation *gm[] = {good}, *bm[] = {good, bad};
	const char *rk[] = {"n1", "n2", "n3"};
	for (int i = 0; i < 3; i++) {
		rkbt__mutate_rows_request__entry__init(&e[i]);
		e[i].row_key = (ProtobufCBinaryData){2, (uint8_t *)rk[i]};
		e[i].n_mutations = i == 1 ? 2 : 1;
		e[i].mutations = i == 1 ? bm : gm;
		ep[i] = &e[i];
	}
	Rkbt__MutateRowsRequest mr = RKBT__MUTATE_ROWS_REQUEST__INIT;
	mr.table_name = TBL;
	mr.n_entries = 3;
	mr.entries = ep;
	assert_int_equal(callm(&out, DATA "MutateRows", &mr.base), GRPC_STATUS_OK);
	assert_int_equal(out.n, 1);
	Rkbt__MutateRowsResponse *mres = rkbt__mutate_rows_response__unpack(NULL, out.len[0],
	                                                                    out.msg[0]);
	assert_int_equal(mres->n_entries, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(mres->entries[mres->entries[i]->index]->status->code,
		                 mres->entries[i]->index == 1 ? GRPC_STATUS_NOT_FOUND : 0);
	rkbt__mutate_rows_response__free_unpacked(mres, NULL);
	resp_free(&out);
	mut_free(good);
	mut_free(bad);
	assert_int_equal(count_rows(), 11); /* n1, n3; nothing of n2 */

	/* CheckAndMutateRow: a predicate on the value */
	Rkbt__RowFilter pf = RKBT__ROW_FILTER__INIT;
	pf.filter_case = RKBT__ROW_FILTER__FILTER_VALUE_REGEX_FILTER;
	pf.value_regex_filter = (ProtobufCBinaryData){1, (uint8_t *)"a"};
	Rkbt__Mutation *tm = set_cell("meta", "hit", 2000, "yes");
	Rkbt__CheckAndMutateRowRequest cm = RKBT__CHECK_AND_MUTATE_ROW_REQUEST__INIT;
	cm.table_name = TBL;
	cm.row_key = (ProtobufCBinaryData){1, (uint8_t *)"a"};
	cm.predicate_filter = &pf;
	cm.n_true_mutations = 1;
	cm.true_mutations = &tm;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(callm(&out, DATA "CheckAndMutateRow", &cm.base), GRPC_STATUS_OK);
		Rkbt__CheckAndMutateRowResponse *c = rkbt__check_and_mutate_row_response__unpack(
		        NULL, out.len[0], out.msg[0]);
		assert_int_equal(c->predicate_matched, i == 0); /* row b does not match "a" */
		rkbt__check_and_mutate_row_response__free_unpacked(c, NULL);
		resp_free(&out);
		cm.row_key.data = (uint8_t *)"b";
	}
	mut_free(tm);

	/* ReadModifyWriteRow: increment twice, append */
	Rkbt__ReadModifyWriteRule inc = RKBT__READ_MODIFY_WRITE_RULE__INIT,
	                          app = RKBT__READ_MODIFY_WRITE_RULE__INIT;
	inc.family_name = "cf";
	inc.column_qualifier = (ProtobufCBinaryData){1, (uint8_t *)"n"};
	inc.rule_case = RKBT__READ_MODIFY_WRITE_RULE__RULE_INCREMENT_AMOUNT;
	inc.increment_amount = 5;
	app.family_name = "cf";
	app.column_qualifier = (ProtobufCBinaryData){1, (uint8_t *)"s"};
	app.rule_case = RKBT__READ_MODIFY_WRITE_RULE__RULE_APPEND_VALUE;
	app.append_value = (ProtobufCBinaryData){2, (uint8_t *)"ab"};
	Rkbt__ReadModifyWriteRule *rules[] = {&inc, &app, &inc};
	Rkbt__ReadModifyWriteRowRequest rm = RKBT__READ_MODIFY_WRITE_ROW_REQUEST__INIT;
	rm.table_name = TBL;
	rm.row_key = (ProtobufCBinaryData){3, (uint8_t *)"ctr"};
	rm.n_rules = 3;
	rm.rules = rules;
	for (int round = 1; round <= 2; round++) {
		assert_int_equal(callm(&out, DATA "ReadModifyWriteRow", &rm.base), GRPC_STATUS_OK);
		Rkbt__ReadModifyWriteRowResponse *w = rkbt__read_modify_write_row_response__unpack(
		        NULL, out.len[0], out.msg[0]);
		assert_non_null(w->row);
		assert_int_equal(w->row->n_families, 1);
		assert_int_equal(w->row->families[0]->n_columns, 2); /* n, s */
		const Rkbt__Cell *n = w->row->families[0]->columns[0]->cells[0];
		assert_int_equal(n->value.len, 8);
		assert_int_equal(n->value.data[7], 10 * round);
		const Rkbt__Cell *s = w->row->families[0]->columns[1]->cells[0];
		assert_int_equal(s->value.len, 2 * round);
		rkbt__read_modify_write_row_response__free_unpacked(w, NULL);
		resp_free(&out);
	}

	/* ModifyColumnFamilies: create, update (with mask), drop */
	Rkbt__GcRule one = RKBT__GC_RULE__INIT, age = RKBT__GC_RULE__INIT;
	one.rule_case = RKBT__GC_RULE__RULE_MAX_NUM_VERSIONS;
	one.max_num_versions = 1;
	Rkbt__Duration d = RKBT__DURATION__INIT;
	d.seconds = 3600;
	age.rule_case = RKBT__GC_RULE__RULE_MAX_AGE;
	age.max_age = &d;
	Rkbt__ColumnFamily c1 = RKBT__COLUMN_FAMILY__INIT, c2 = RKBT__COLUMN_FAMILY__INIT;
	c1.gc_rule = &one;
	c2.gc_rule = &age;
	char *paths[] = {"gc_rule"};
	Rkbt__FieldMask mask = RKBT__FIELD_MASK__INIT;
	mask.n_paths = 1;
	mask.paths = paths;
	Rkbt__ModifyColumnFamiliesRequest__Modification mo = RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__INIT;
	Rkbt__ModifyColumnFamiliesRequest__Modification *mop = &mo;
	Rkbt__ModifyColumnFamiliesRequest mf = RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__INIT;
	mf.name = TBL;
	mf.n_modifications = 1;
	mf.modifications = &mop;
	mo.id = "extra";
	mo.mod_case = RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_CREATE;
	mo.create = &c1;
	assert_int_equal(callm(NULL, ADMIN "ModifyColumnFamilies", &mf.base), GRPC_STATUS_OK);
	mo.id = "cf";
	mo.mod_case = RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_UPDATE;
	mo.update = &c1;
	mo.update_mask = &mask;
	assert_int_equal(callm(NULL, ADMIN "ModifyColumnFamilies", &mf.base), GRPC_STATUS_OK);
	/* max_age, and a union of version counts: kept as sent (a union was
	 * flattened into its smallest count before) */
	mo.update = &c2;
	assert_int_equal(callm(NULL, ADMIN "ModifyColumnFamilies", &mf.base), GRPC_STATUS_OK);
	Rkbt__GcRule three = RKBT__GC_RULE__INIT, uni = RKBT__GC_RULE__INIT;
	three.rule_case = RKBT__GC_RULE__RULE_MAX_NUM_VERSIONS;
	three.max_num_versions = 3;
	Rkbt__GcRule *pair[] = {&one, &three};
	Rkbt__GcRule__Union un = RKBT__GC_RULE__UNION__INIT;
	un.n_rules = 2;
	un.rules = pair;
	uni.rule_case = RKBT__GC_RULE__RULE_UNION;
	uni.union_ = &un;
	Rkbt__ColumnFamily c3 = RKBT__COLUMN_FAMILY__INIT;
	c3.gc_rule = &uni;
	mo.id = "extra";
	mo.update = &c3;
	assert_int_equal(callm(NULL, ADMIN "ModifyColumnFamilies", &mf.base), GRPC_STATUS_OK);
	mo.id = "cf";
	assert_int_equal(put("a", "extra", "q", "v"), GRPC_STATUS_OK);
	/* a family dropped takes its cells along; dropping it again: NOT_FOUND */
	mo.id = "meta";
	assert_int_equal(put("a", "meta", "q", "v"), GRPC_STATUS_OK);
	mo.mod_case = RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_DROP;
	mo.drop = 1;
	assert_int_equal(callm(NULL, ADMIN "ModifyColumnFamilies", &mf.base), GRPC_STATUS_OK);
	assert_int_equal(callm(NULL, ADMIN "ModifyColumnFamilies", &mf.base),
	                 GRPC_STATUS_NOT_FOUND);
	assert_int_equal(put("a", "meta", "q", "v"), GRPC_STATUS_NOT_FOUND);
	mo.id = "cf";

	Rkbt__GetTableRequest g = RKBT__GET_TABLE_REQUEST__INIT;
	g.name = TBL;
	assert_int_equal(callm(&out, ADMIN "GetTable", &g.base), GRPC_STATUS_OK);
	Rkbt__Table *t = rkbt__table__unpack(NULL, out.len[0], out.msg[0]);
	assert_int_equal(t->n_column_families, 2); /* cf, extra */
	for (size_t i = 0; i < 2; i++) {
		const Rkbt__GcRule *gr = t->column_families[i]->value->gc_rule;
		if (!strcmp(t->column_families[i]->key, "cf")) {
			assert_int_equal(gr->rule_case, RKBT__GC_RULE__RULE_MAX_AGE);
			assert_int_equal(gr->max_age->seconds, 3600);
		} else {
			assert_int_equal(gr->rule_case, RKBT__GC_RULE__RULE_UNION);
			assert_int_equal(gr->union_->n_rules, 2);
			assert_int_equal(gr->union_->rules[0]->max_num_versions, 1);
			assert_int_equal(gr->union_->rules[1]->max_num_versions, 3);
		}
	}
	rkbt__table__free_unpacked(t, NULL);
	resp_free(&out);
	Rkbt__ListTablesRequest lt = RKBT__LIST_TABLES_REQUEST__INIT;
	lt.parent = INST;
	assert_int_equal(callm(&out, ADMIN "ListTables", &lt.base), GRPC_STATUS_OK);
	Rkbt__ListTablesResponse *l = rkbt__list_tables_response__unpack(NULL, out.len[0],
	                                                                 out.msg[0]);
	assert_int_equal(l->n_tables, 1);
	assert_string_equal(l->tables[0]->name, TBL);
	assert_int_equal(l->tables[0]->n_column_families, 0); /* NAME_ONLY by default */
	rkbt__list_tables_response__free_unpacked(l, NULL);
	resp_free(&out);

	/* DropRowRange: a prefix, then everything */
	Rkbt__DropRowRangeRequest dr = RKBT__DROP_ROW_RANGE_REQUEST__INIT;
	dr.name = TBL;
	dr.target_case = RKBT__DROP_ROW_RANGE_REQUEST__TARGET_ROW_KEY_PREFIX;
	dr.row_key_prefix = (ProtobufCBinaryData){1, (uint8_t *)"n"};
	size_t before = count_rows();
	assert_int_equal(callm(NULL, ADMIN "DropRowRange", &dr.base), GRPC_STATUS_OK);
	assert_int_equal(count_rows(), before - 2);
	dr.target_case = RKBT__DROP_ROW_RANGE_REQUEST__TARGET_DELETE_ALL_DATA_FROM_TABLE;
	dr.delete_all_data_from_table = 1;
	assert_int_equal(callm(NULL, ADMIN "DropRowRange", &dr.base), GRPC_STATUS_OK);
	assert_int_equal(count_rows(), 0);
	drop_table();
}

/* Hostile and malformed requests: each gets its status, none applies anything. */
static void test_hostile(void **state)
{
	(void)state;
	create_table();
	assert_int_equal(put("keep", "cf", "x", "v"), GRPC_STATUS_OK);
	int n = 0;
#define EXPECT(code, call)                                                                     \
	do {                                                                                   \
		assert_int_equal((call), (code));                                              \
		n++;                                                                           \
	} while (0)
	Rkbt__Mutation *m = set_cell("cf", "x", 1000, "v");
	Rkbt__Mutation *nofam = set_cell("nope", "x", 1000, "v");
	Rkbt__Mutation *badts = set_cell("cf", "x", -5, "v");
	char big[4097];
	memset(big, 'k', sizeof big);
	EXPECT(GRPC_STATUS_NOT_FOUND, mutate_row(INST "/tables/nosuch", "r", 1, &m, 1));
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, mutate_row(TBL, "", 0, &m, 1));
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, mutate_row(TBL, big, 4097, &m, 1));
	EXPECT(GRPC_STATUS_OK, mutate_row(TBL, big, 4096, &m, 1)); /* the limit itself */
	EXPECT(GRPC_STATUS_NOT_FOUND, mutate_row(TBL, "r", 1, &nofam, 1));
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, mutate_row(TBL, "r", 1, &badts, 1));
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, mutate_row(TBL, "r", 1, NULL, 0));
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, mutate_row("tables/t", "r", 1, &m, 1));
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, mutate_row("", "r", 1, &m, 1));
	EXPECT(GRPC_STATUS_NOT_FOUND, mutate_row("projects/x/instances/y/tables/t", "r", 1, &m, 1));
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, mutate_row(INST "/tables/bad name", "r", 1, &m, 1));
	/* a good mutation after a bad one: nothing of the row is applied */
	Rkbt__Mutation *mix[] = {m, nofam};
	EXPECT(GRPC_STATUS_NOT_FOUND, mutate_row(TBL, "half", 4, mix, 2));
	/* a huge batch: over 100,000 mutations */
	size_t nbig = 100001;
	Rkbt__Mutation **many = malloc(nbig * sizeof *many);
	for (size_t i = 0; i < nbig; i++)
		many[i] = m;
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, mutate_row(TBL, "huge", 4, many, nbig));
	free(many);
	/* malformed bytes */
	static const uint8_t junk[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01};
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, call_raw(DATA "MutateRow", junk, sizeof junk));
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, call_raw(DATA "ReadRows", junk, sizeof junk));
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, call_raw(ADMIN "CreateTable", junk, sizeof junk));
	EXPECT(GRPC_STATUS_UNIMPLEMENTED, call_raw(DATA "ExecuteQuery", "", 0));
	EXPECT(GRPC_STATUS_UNIMPLEMENTED, call_raw("/google.bigtable.admin.v2.BigtableInstanceAdmin/ListInstances", "", 0));
	/* reads: a bad regex, a filter nested 1000 deep, a negative limit, empty key */
	Rkbt__ReadRowsRequest rr = RKBT__READ_ROWS_REQUEST__INIT;
	rr.table_name = TBL;
	Rkbt__RowFilter bad = RKBT__ROW_FILTER__INIT;
	bad.filter_case = RKBT__ROW_FILTER__FILTER_VALUE_REGEX_FILTER;
	bad.value_regex_filter = (ProtobufCBinaryData){3, (uint8_t *)"a(b"};
	rr.filter = &bad;
	size_t rows, cells;
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, read_rows(&rr, &rows, &cells, NULL, 0));
	Rkbt__RowFilter *deep = calloc(1000, sizeof *deep);
	Rkbt__RowFilter__Chain *chains = calloc(1000, sizeof *chains);
	Rkbt__RowFilter **links = calloc(1000, sizeof *links);
	for (int i = 0; i < 1000; i++) {
		rkbt__row_filter__init(&deep[i]);
		rkbt__row_filter__chain__init(&chains[i]);
		if (i < 999) {
			links[i] = &deep[i + 1];
			chains[i].n_filters = 1;
			chains[i].filters = &links[i];
			deep[i].filter_case = RKBT__ROW_FILTER__FILTER_CHAIN;
			deep[i].chain = &chains[i];
		} else {
			deep[i].filter_case = RKBT__ROW_FILTER__FILTER_PASS_ALL_FILTER;
			deep[i].pass_all_filter = 1;
		}
	}
	rr.filter = deep;
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, read_rows(&rr, &rows, &cells, NULL, 0));
	free(deep);
	free(chains);
	free(links);
	rr.filter = NULL;
	rr.rows_limit = -1;
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, read_rows(&rr, &rows, &cells, NULL, 0));
	rr.rows_limit = 0;
	ProtobufCBinaryData empty = {0, NULL};
	Rkbt__RowSet rs = RKBT__ROW_SET__INIT;
	rs.n_row_keys = 1;
	rs.row_keys = &empty;
	rr.rows = &rs;
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, read_rows(&rr, &rows, &cells, NULL, 0));
	/* admin: a bad table id, an unknown table, a bad GC rule */
	Rkbt__CreateTableRequest ct = RKBT__CREATE_TABLE_REQUEST__INIT;
	ct.parent = INST;
	ct.table_id = "bad/id";
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, callm(NULL, ADMIN "CreateTable", &ct.base));
	Rkbt__GetTableRequest gt = RKBT__GET_TABLE_REQUEST__INIT;
	gt.name = INST "/tables/nosuch";
	EXPECT(GRPC_STATUS_NOT_FOUND, callm(NULL, ADMIN "GetTable", &gt.base));
	Rkbt__GcRule zero = RKBT__GC_RULE__INIT;
	zero.rule_case = RKBT__GC_RULE__RULE_MAX_NUM_VERSIONS;
	zero.max_num_versions = 0;
	Rkbt__ColumnFamily cz = RKBT__COLUMN_FAMILY__INIT;
	cz.gc_rule = &zero;
	Rkbt__Table__ColumnFamiliesEntry ez = RKBT__TABLE__COLUMN_FAMILIES_ENTRY__INIT;
	ez.key = "z";
	ez.value = &cz;
	Rkbt__Table__ColumnFamiliesEntry *ezp = &ez;
	Rkbt__Table tz = RKBT__TABLE__INIT;
	tz.n_column_families = 1;
	tz.column_families = &ezp;
	ct.table_id = "t0";
	ct.table = &tz;
	EXPECT(GRPC_STATUS_INVALID_ARGUMENT, callm(NULL, ADMIN "CreateTable", &ct.base));
	/* an increment of a value that is not 8 bytes */
	Rkbt__ReadModifyWriteRule inc = RKBT__READ_MODIFY_WRITE_RULE__INIT;
	inc.family_name = "cf";
	inc.column_qualifier = (ProtobufCBinaryData){1, (uint8_t *)"x"};
	inc.rule_case = RKBT__READ_MODIFY_WRITE_RULE__RULE_INCREMENT_AMOUNT;
	inc.increment_amount = 1;
	Rkbt__ReadModifyWriteRule *incp = &inc;
	Rkbt__ReadModifyWriteRowRequest rm = RKBT__READ_MODIFY_WRITE_ROW_REQUEST__INIT;
	rm.table_name = TBL;
	rm.row_key = (ProtobufCBinaryData){4, (uint8_t *)"keep"};
	rm.n_rules = 1;
	rm.rules = &incp;
	EXPECT(GRPC_STATUS_FAILED_PRECONDITION, callm(NULL, DATA "ReadModifyWriteRow", &rm.base));
	assert_true(n >= 20);

	/* nothing of the refused requests was applied */
	rr.rows = NULL;
	char keys[8192];
	assert_int_equal(read_rows(&rr, &rows, &cells, keys, sizeof keys), GRPC_STATUS_OK);
	assert_int_equal(rows, 2); /* keep, and the 4096-byte key */
	assert_non_null(strstr(keys, "keep"));
	assert_null(strstr(keys, "half"));
	assert_null(strstr(keys, "huge"));
	Rkbt__ListTablesRequest lt = RKBT__LIST_TABLES_REQUEST__INIT;
	lt.parent = INST;
	resp out;
	assert_int_equal(callm(&out, ADMIN "ListTables", &lt.base), GRPC_STATUS_OK);
	Rkbt__ListTablesResponse *l = rkbt__list_tables_response__unpack(NULL, out.len[0],
	                                                                 out.msg[0]);
	assert_int_equal(l->n_tables, 1);
	rkbt__list_tables_response__free_unpacked(l, NULL);
	resp_free(&out);
	mut_free(m);
	mut_free(nofam);
	mut_free(badts);
	drop_table();
}

static void *incr_thread(void *arg)
{
	(void)arg;
	Rkbt__ReadModifyWriteRule inc = RKBT__READ_MODIFY_WRITE_RULE__INIT;
	inc.family_name = "cf";
	inc.column_qualifier = (ProtobufCBinaryData){1, (uint8_t *)"n"};
	inc.rule_case = RKBT__READ_MODIFY_WRITE_RULE__RULE_INCREMENT_AMOUNT;
	inc.increment_amount = 1;
	Rkbt__ReadModifyWriteRule *incp = &inc;
	Rkbt__ReadModifyWriteRowRequest rm = RKBT__READ_MODIFY_WRITE_ROW_REQUEST__INIT;
	rm.table_name = TBL;
	rm.row_key = (ProtobufCBinaryData){3, (uint8_t *)"ctr"};
	rm.n_rules = 1;
	rm.rules = &incp;
	for (int i = 0; i < 100; i++)
		if (callm(NULL, DATA "ReadModifyWriteRow", &rm.base) != GRPC_STATUS_OK)
			return (void *)1;
	return NULL;
}

/* Read-modify-writes from several clients at once lose no increment. */
static void test_concurrent_increments(void **state)
{
	(void)state;
	create_table();
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, incr_thread, NULL), 0);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(th[i], &r);
		assert_null(r);
	}
	rk_table *t;
	ST_OK(rk_table_open(&t, store, "t"));
	rk_row *row;
	ST_OK(rk_table_get(&row, t, (const uint8_t *)"ctr", 3, NULL));
	assert_int_equal(row->cells[0].value_len, 8);
	assert_int_equal(row->cells[0].value[6] * 256 + row->cells[0].value[7], 400);
	rk_row_free(row);
	rk_table_close(t);
	drop_table();
}

/* An increment of an existing value that is not 8 bytes, an empty one
 * included (only a missing cell counts as 0), fails the whole call as
 * Cloud Bigtable does, FAILED_PRECONDITION, with nothing of it applied: not
 * even the append before it. */
static void test_increment_of_non_64_bit_value(void **state)
{
	(void)state;
	create_table();
	assert_int_equal(put("r", "cf", "empty", ""), GRPC_STATUS_OK);
	assert_int_equal(put("r", "cf", "four", "abcd"), GRPC_STATUS_OK);
	Rkbt__ReadModifyWriteRule app = RKBT__READ_MODIFY_WRITE_RULE__INIT,
	                          inc = RKBT__READ_MODIFY_WRITE_RULE__INIT;
	app.family_name = inc.family_name = "cf";
	app.column_qualifier = (ProtobufCBinaryData){3, (uint8_t *)"new"};
	app.rule_case = RKBT__READ_MODIFY_WRITE_RULE__RULE_APPEND_VALUE;
	app.append_value = (ProtobufCBinaryData){1, (uint8_t *)"x"};
	inc.rule_case = RKBT__READ_MODIFY_WRITE_RULE__RULE_INCREMENT_AMOUNT;
	inc.increment_amount = 1;
	Rkbt__ReadModifyWriteRule *rules[] = {&app, &inc};
	Rkbt__ReadModifyWriteRowRequest rm = RKBT__READ_MODIFY_WRITE_ROW_REQUEST__INIT;
	rm.table_name = TBL;
	rm.row_key = (ProtobufCBinaryData){1, (uint8_t *)"r"};
	rm.n_rules = 2;
	rm.rules = rules;
	static const char *cols[] = {"empty", "four"};
	for (int i = 0; i < 2; i++) {
		inc.column_qualifier = (ProtobufCBinaryData){strlen(cols[i]), (uint8_t *)cols[i]};
		assert_int_equal(callm(NULL, DATA "ReadModifyWriteRow", &rm.base),
		                 GRPC_STATUS_FAILED_PRECONDITION);
	}
	rk_table *t;
	ST_OK(rk_table_open(&t, store, "t"));
	rk_row *row;
	ST_OK(rk_table_get(&row, t, (const uint8_t *)"r", 1, NULL));
	assert_int_equal(row->ncells, 2); /* empty, four: no "new" */
	assert_memory_equal(row->cells[0].qualifier, "empty", 5);
	assert_int_equal(row->cells[0].value_len, 0);
	assert_memory_equal(row->cells[1].qualifier, "four", 4);
	assert_int_equal(row->cells[1].value_len, 4);
	rk_row_free(row);
	rk_table_close(t);
	drop_table();
}

/* A client that goes away in the middle of a long stream: the server stops
 * the call and frees it; other calls go on. */
static void test_cancel_midstream(void **state)
{
	(void)state;
	create_table();
	char *v = malloc(64 << 10);
	memset(v, 'v', 64 << 10);
	v[(64 << 10) - 1] = 0;
	for (int i = 0; i < 100; i++) { /* ~6 MiB: several responses */
		char row[16];
		snprintf(row, sizeof row, "r%03d", i);
		Rkbt__Mutation *m = set_cell("cf", "x", 1000, v);
		assert_int_equal(mutate_row(TBL, row, strlen(row), &m, 1), GRPC_STATUS_OK);
		mut_free(m);
	}
	free(v);
	Rkbt__ReadRowsRequest rr = RKBT__READ_ROWS_REQUEST__INIT;
	rr.table_name = TBL;
	size_t n = protobuf_c_message_get_packed_size(&rr.base);
	uint8_t *b = malloc(n + 1);
	protobuf_c_message_pack(&rr.base, b);
	for (int round = 0; round < 5; round++) {
		rk_bt_call *c;
		assert_int_equal(rk_bt__call_start(&c, ch, DATA "ReadRows", b, n, NULL,
		                                   rk_bt__deadline(20000), "ReadRows"),
		                 0);
		const uint8_t *m;
		size_t l;
		assert_int_equal(rk_bt__call_next(c, &m, &l), 0);
		rk_bt__call_free(c); /* cancels */
	}
	free(b);
	assert_int_equal(count_rows(), 100);
	drop_table();
}

/* A table block with a flipped bit: ReadRows over it ends in DATA_LOSS
 * naming the file, after rows that skip nothing; SampleRowKeys, which reads
 * no table block, answers as before. A store and server of its own. */
static void test_damaged_block_is_data_loss(void **state)
{
	(void)state;
	char *d2 = st_tmpdir("svdmg");
	rk_store *s2;
	rk_table *t;
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.n_servers = 1;
	o.background_splits = 0;
	ST_OK(rk_store_open(&s2, d2, &o));
	it_create(s2);
	ST_OK(rk_table_open(&t, s2, "t"));
	it_write(t, 0, 2000, 50, 100);
	rk_table_close(t);
	ST_OK(rk_store_close(s2));
	ST_OK(rk_store_open(&s2, d2, &o)); /* the log replayed into a table file */
	ST_OK(rk_store_close(s2));
	char rs[4200], ldb[4400];
	snprintf(rs, sizeof rs, "%s/rs-000", d2);
	assert_int_equal(it_newest(ldb, sizeof ldb, rs, ".ldb"), 0);
	it_flip(ldb, it_file_size(ldb) * 3 / 10, 0x10);
	ST_OK(rk_store_open(&s2, d2, &o));
	rk_sv_server *srv2;
	char bound[128];
	ST_OK(rk_sv_server_start(&srv2, s2, "127.0.0.1:0", "p", "i", NULL, bound, sizeof bound));
	grpc_channel_credentials *cr = grpc_insecure_credentials_create();
	grpc_channel *saved = ch;
	ch = grpc_channel_create(bound, cr, NULL);
	grpc_channel_credentials_release(cr);

	Rkbt__ReadRowsRequest r = RKBT__READ_ROWS_REQUEST__INIT;
	r.table_name = TBL;
	r.rows_limit = 1800; /* past the damage, short of the end */
	size_t rows, cells, cap = 2000 * 12 + 1;
	char *keys = malloc(cap);
	assert_int_equal(read_rows(&r, &rows, &cells, keys, cap), GRPC_STATUS_DATA_LOSS);
	assert_true(rows < 1800);
	char *k = keys;
	for (size_t i = 0; i < rows; i++) { /* row00000000, row00000001, ... */
		char want[32];
		it_row(want, sizeof want, i);
		assert_memory_equal(k, want, strlen(want));
		k += strlen(want) + 1;
	}
	free(keys);
	Rkbt__SampleRowKeysRequest sr = RKBT__SAMPLE_ROW_KEYS_REQUEST__INIT;
	sr.table_name = TBL;
	resp out;
	assert_int_equal(callm(&out, DATA "SampleRowKeys", &sr.base), GRPC_STATUS_OK);
	assert_int_equal(out.n, 1); /* one region: the table's end */
	resp_free(&out);

	grpc_channel_destroy(ch);
	ch = saved;
	rk_sv_server_stop(srv2, 5000);
	ST_OK(rk_store_close(s2));
	st_rmtree(d2);
	free(d2);
}

static atomic_int writers_stop;

static void *write_loop(void *arg)
{
	(void)arg;
	Rkbt__Mutation *m = set_cell("cf", "x", -1, "v");
	enum { N = 50 };
	Rkbt__MutateRowsRequest__Entry e[N], *ep[N];
	char rows[N][32];
	long n = 0;
	while (!atomic_load(&writers_stop)) {
		for (int i = 0; i < N; i++) {
			rkbt__mutate_rows_request__entry__init(&e[i]);
			snprintf(rows[i], sizeof rows[i], "w%ld", n++ % 5000);
			e[i].row_key = (ProtobufCBinaryData){strlen(rows[i]), (uint8_t *)rows[i]};
			e[i].n_mutations = 1;
			e[i].mutations = &m;
			ep[i] = &e[i];
		}
		Rkbt__MutateRowsRequest mr = RKBT__MUTATE_ROWS_REQUEST__INIT;
		mr.table_name = TBL;
		mr.n_entries = N;
		mr.entries = ep;
		if (callm(NULL, DATA "MutateRows", &mr.base) != GRPC_STATUS_OK)
			break;
	}
	mut_free(m);
	return (void *)n;
}

static int modify_family(const char *fam, int create, int versions)
{
	Rkbt__GcRule gc = RKBT__GC_RULE__INIT;
	gc.rule_case = RKBT__GC_RULE__RULE_MAX_NUM_VERSIONS;
	gc.max_num_versions = versions;
	Rkbt__ColumnFamily cf = RKBT__COLUMN_FAMILY__INIT;
	cf.gc_rule = &gc;
	Rkbt__ModifyColumnFamiliesRequest__Modification mo =
	        RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__INIT;
	Rkbt__ModifyColumnFamiliesRequest__Modification *mop = &mo;
	mo.id = (char *)fam;
	if (create) {
		mo.mod_case = RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_CREATE;
		mo.create = &cf;
	} else {
		mo.mod_case = RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_UPDATE;
		mo.update = &cf;
	}
	Rkbt__ModifyColumnFamiliesRequest mf = RKBT__MODIFY_COLUMN_FAMILIES_REQUEST__INIT;
	mf.name = TBL;
	mf.n_modifications = 1;
	mf.modifications = &mop;
	return callm(NULL, ADMIN "ModifyColumnFamilies", &mf.base);
}

/* An admin change that answered OK is seen by the next call, whatever the
 * write load: a family created is there to update and to write into. */
static void test_admin_seen_under_load(void **state)
{
	(void)state;
	create_table();
	atomic_store(&writers_stop, 0);
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, write_loop, NULL), 0);
	for (int k = 0; k < 40; k++) {
		char fam[16];
		snprintf(fam, sizeof fam, "f%d", k);
		assert_int_equal(modify_family(fam, 1, 1), GRPC_STATUS_OK);
		assert_int_equal(modify_family(fam, 0, 2), GRPC_STATUS_OK);
		assert_int_equal(put("seen", fam, "q", "v"), GRPC_STATUS_OK);
	}
	atomic_store(&writers_stop, 1);
	for (int i = 0; i < 4; i++) {
		void *n;
		pthread_join(th[i], &n);
		assert_true((long)n > 0);
	}
	drop_table();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_concurrent_increments),
		cmocka_unit_test(test_increment_of_non_64_bit_value),
		cmocka_unit_test(test_admin_seen_under_load),
		cmocka_unit_test(test_cancel_midstream),
		cmocka_unit_test(test_damaged_block_is_data_loss),
	};
	return cmocka_run_group_tests(tests, sv_setup, sv_teardown);
}
