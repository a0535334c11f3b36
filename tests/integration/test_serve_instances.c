/*
 * rowkey serve keeps each instance's tables apart (serve_client.h; a server
 * answering for any project and instance, as the emulator): a table of one
 * instance is neither listed, read nor blocking in another, across a
 * restart; a table the store had before (no instance) is seen by every
 * instance as it was; ListTables pages by page_size and page_token; a
 * server for one instance sees its own tables and the shared ones only.
 */
#include "integration/serve_client.h"

#define A "projects/p/instances/a"
#define B "projects/p/instances/b"
#define Q "projects/q/instances/a"

static int setup(void **state)
{
	(void)state;
	sv_start("*", "*", 0);
	return 0;
}

/* CreateTable `id` in instance inst with one family; the call's status. */
static int create_in(const char *inst, const char *id, const char *family)
{
	Rkbt__ColumnFamily cf = RKBT__COLUMN_FAMILY__INIT;
	Rkbt__Table__ColumnFamiliesEntry e = RKBT__TABLE__COLUMN_FAMILIES_ENTRY__INIT;
	e.key = (char *)family;
	e.value = &cf;
	Rkbt__Table__ColumnFamiliesEntry *ep = &e;
	Rkbt__Table t = RKBT__TABLE__INIT;
	t.n_column_families = 1;
	t.column_families = &ep;
	Rkbt__CreateTableRequest r = RKBT__CREATE_TABLE_REQUEST__INIT;
	r.parent = (char *)inst;
	r.table_id = (char *)id;
	r.table = &t;
	return callm(NULL, ADMIN "CreateTable", &r.base);
}

static int delete_in(const char *inst, const char *id)
{
	char name[256];
	snprintf(name, sizeof name, "%s/tables/%s", inst, id);
	Rkbt__DeleteTableRequest d = RKBT__DELETE_TABLE_REQUEST__INIT;
	d.name = name;
	return callm(NULL, ADMIN "DeleteTable", &d.base);
}

/* ListTables of inst, one page: the names joined by ',' into names[cap]
 * (the part after "/tables/"), the next page's token into token[cap]. */
static int list_in(const char *inst, int page_size, const char *page_token, char *names,
                   char *token, size_t cap)
{
	Rkbt__ListTablesRequest lt = RKBT__LIST_TABLES_REQUEST__INIT;
	lt.parent = (char *)inst;
	lt.page_size = page_size;
	lt.page_token = (char *)(page_token ? page_token : "");
	resp out;
	int code = callm(&out, ADMIN "ListTables", &lt.base);
	names[0] = token[0] = 0;
	if (code == GRPC_STATUS_OK) {
		Rkbt__ListTablesResponse *l = rkbt__list_tables_response__unpack(NULL, out.len[0],
		                                                                 out.msg[0]);
		assert_non_null(l);
		for (size_t i = 0; i < l->n_tables; i++) {
			const char *n = l->tables[i]->name;
			assert_true(strncmp(n, inst, strlen(inst)) == 0);
			size_t nl = strlen(names);
			snprintf(names + nl, cap - nl, "%s%s", nl ? "," : "", strstr(n, "/tables/") + 8);
		}
		snprintf(token, cap, "%s", l->next_page_token);
		rkbt__list_tables_response__free_unpacked(l, NULL);
	}
	resp_free(&out);
	return code;
}

/* The families GetTable answers for inst/tables/id, joined by ','. */
static int families_of(const char *inst, const char *id, char *fams, size_t cap)
{
	char name[256];
	snprintf(name, sizeof name, "%s/tables/%s", inst, id);
	Rkbt__GetTableRequest g = RKBT__GET_TABLE_REQUEST__INIT;
	g.name = name;
	resp out;
	int code = callm(&out, ADMIN "GetTable", &g.base);
	fams[0] = 0;
	if (code == GRPC_STATUS_OK) {
		Rkbt__Table *t = rkbt__table__unpack(NULL, out.len[0], out.msg[0]);
		assert_non_null(t);
		assert_string_equal(t->name, name);
		for (size_t i = 0; i < t->n_column_families; i++) {
			size_t fl = strlen(fams);
			snprintf(fams + fl, cap - fl, "%s%s", fl ? "," : "", t->column_families[i]->key);
		}
		rkbt__table__free_unpacked(t, NULL);
	}
	resp_free(&out);
	return code;
}

/* Writes row/family:q = v in inst/tables/id. */
static int put_in(const char *inst, const char *id, const char *row, const char *fam,
                  const char *v)
{
	char name[256];
	snprintf(name, sizeof name, "%s/tables/%s", inst, id);
	Rkbt__Mutation *m = set_cell(fam, "q", 1000, v);
	int code = mutate_row(name, row, strlen(row), &m, 1);
	mut_free(m);
	return code;
}

/* The row keys of inst/tables/id, joined by ','. */
static int rows_in(const char *inst, const char *id, char *keys, size_t cap)
{
	char name[256];
	snprintf(name, sizeof name, "%s/tables/%s", inst, id);
	Rkbt__ReadRowsRequest r = RKBT__READ_ROWS_REQUEST__INIT;
	r.table_name = name;
	size_t rows, cells;
	return read_rows(&r, &rows, &cells, keys, cap);
}

/* The same table id in two instances (and in another project): two
 * tables, each listed, read and written in its own instance only, kept
 * apart across a restart, one dropped without the other. */
static void test_instances_apart(void **state)
{
	(void)state;
	char s[256], tok[256];
	assert_int_equal(create_in(A, "t", "fa"), GRPC_STATUS_OK);
	assert_int_equal(create_in(B, "t", "fb"), GRPC_STATUS_OK); /* not ALREADY_EXISTS */
	assert_int_equal(create_in(Q, "t", "fq"), GRPC_STATUS_OK);
	assert_int_equal(create_in(B, "t", "fb"), GRPC_STATUS_ALREADY_EXISTS);
	assert_int_equal(create_in(A, "only_a", "fa"), GRPC_STATUS_OK);
	assert_int_equal(put_in(A, "t", "ra", "fa", "1"), GRPC_STATUS_OK);
	assert_int_equal(put_in(B, "t", "rb", "fb", "2"), GRPC_STATUS_OK);
	assert_int_equal(put_in(B, "t", "rb", "fa", "2"), GRPC_STATUS_NOT_FOUND); /* A's family */
	for (int round = 0; round < 2; round++) {
		assert_int_equal(list_in(A, 0, NULL, s, tok, sizeof s), GRPC_STATUS_OK);
		assert_string_equal(s, "only_a,t");
		assert_int_equal(list_in(B, 0, NULL, s, tok, sizeof s), GRPC_STATUS_OK);
		assert_string_equal(s, "t");
		assert_int_equal(list_in(Q, 0, NULL, s, tok, sizeof s), GRPC_STATUS_OK);
		assert_string_equal(s, "t");
		assert_int_equal(families_of(A, "t", s, sizeof s), GRPC_STATUS_OK);
		assert_string_equal(s, "fa");
		assert_int_equal(families_of(B, "t", s, sizeof s), GRPC_STATUS_OK);
		assert_string_equal(s, "fb");
		assert_int_equal(families_of(B, "only_a", s, sizeof s), GRPC_STATUS_NOT_FOUND);
		assert_int_equal(rows_in(A, "t", s, sizeof s), GRPC_STATUS_OK);
		assert_string_equal(s, "ra");
		assert_int_equal(rows_in(B, "t", s, sizeof s), GRPC_STATUS_OK);
		assert_string_equal(s, "rb");
		assert_int_equal(rows_in(Q, "t", s, sizeof s), GRPC_STATUS_OK);
		assert_string_equal(s, "");
		assert_int_equal(rows_in(B, "only_a", s, sizeof s), GRPC_STATUS_NOT_FOUND);
		sv_stop(1); /* the instances are read back from the store */
		sv_start("*", "*", 1);
	}
	assert_int_equal(delete_in(B, "only_a"), GRPC_STATUS_NOT_FOUND);
	assert_int_equal(delete_in(A, "t"), GRPC_STATUS_OK);
	assert_int_equal(rows_in(A, "t", s, sizeof s), GRPC_STATUS_NOT_FOUND);
	assert_int_equal(rows_in(B, "t", s, sizeof s), GRPC_STATUS_OK);
	assert_string_equal(s, "rb");
	/* the store name A's table had is free again: A's new table is empty */
	assert_int_equal(create_in(A, "t", "fa"), GRPC_STATUS_OK);
	assert_int_equal(rows_in(A, "t", s, sizeof s), GRPC_STATUS_OK);
	assert_string_equal(s, "");
	const char *insts[] = {A, B, Q, A};
	const char *ids[] = {"t", "t", "t", "only_a"};
	for (int i = 0; i < 4; i++)
		assert_int_equal(delete_in(insts[i], ids[i]), GRPC_STATUS_OK);
}

/* A table the store had before tables were kept by instance (made by
 * `rowkey create`, or served by an older build) belongs to none: every
 * instance lists and reads it under its name, and none may create its own
 * of that name. A server for one instance sees its own tables and those. */
static void test_tables_of_no_instance(void **state)
{
	(void)state;
	char s[256], tok[256];
	assert_int_equal(create_in(A, "mine", "f"), GRPC_STATUS_OK);
	sv_stop(1);
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	ST_OK(rk_store_open(&store, dir, &o));
	static const rk_family_def fams[] = {{"f", 1, NULL}};
	rk_table_def d = {"old", fams, 1, NULL, 0, 0};
	ST_OK(rk_table_create(store, &d));
	rk_table *t;
	ST_OK(rk_table_open(&t, store, "old"));
	rk_mutation m = {RK_MUT_PUT, (const uint8_t *)"r", 1, "f", (const uint8_t *)"q", 1, 1000,
	                 (const uint8_t *)"v", 1, 0};
	ST_OK(rk_table_apply(t, &m, 1, NULL));
	rk_table_close(t);
	ST_OK(rk_store_close(store));

	sv_start("*", "*", 1);
	assert_int_equal(list_in(A, 0, NULL, s, tok, sizeof s), GRPC_STATUS_OK);
	assert_string_equal(s, "mine,old");
	assert_int_equal(list_in(B, 0, NULL, s, tok, sizeof s), GRPC_STATUS_OK);
	assert_string_equal(s, "old");
	assert_int_equal(rows_in(B, "old", s, sizeof s), GRPC_STATUS_OK);
	assert_string_equal(s, "r");
	assert_int_equal(create_in(B, "old", "f"), GRPC_STATUS_ALREADY_EXISTS);
	sv_stop(1);

	sv_start("p", "b", 1); /* one instance: b */
	assert_int_equal(list_in(B, 0, NULL, s, tok, sizeof s), GRPC_STATUS_OK);
	assert_string_equal(s, "old");
	assert_int_equal(list_in(A, 0, NULL, s, tok, sizeof s), GRPC_STATUS_NOT_FOUND);
	assert_int_equal(create_in(B, "mine", "f"), GRPC_STATUS_OK); /* b's own, not a's */
	assert_int_equal(rows_in(B, "mine", s, sizeof s), GRPC_STATUS_OK);
	assert_string_equal(s, "");
	sv_stop(1);

	sv_start("*", "*", 1);
	assert_int_equal(delete_in(B, "old"), GRPC_STATUS_OK); /* any instance may drop it */
	assert_int_equal(list_in(A, 0, NULL, s, tok, sizeof s), GRPC_STATUS_OK);
	assert_string_equal(s, "mine");
	assert_int_equal(delete_in(A, "mine"), GRPC_STATUS_OK);
	assert_int_equal(delete_in(B, "mine"), GRPC_STATUS_OK);
}

/* ListTables pages: at most page_size tables, in the order of their ids,
 * next_page_token until the last page; a token it did not give and a
 * negative page_size are refused. */
static void test_list_pages(void **state)
{
	(void)state;
	char s[256], tok[256], all[256] = "";
	const char *ids[] = {"e", "b", "d", "a", "c"};
	for (int i = 0; i < 5; i++)
		assert_int_equal(create_in(A, ids[i], "f"), GRPC_STATUS_OK);
	assert_int_equal(create_in(B, "x", "f"), GRPC_STATUS_OK);
	const char *want[] = {"a,b", "c,d", "e"};
	tok[0] = 0;
	for (int page = 0; page < 3; page++) {
		char from[256];
		snprintf(from, sizeof from, "%s", tok);
		assert_int_equal(list_in(A, 2, from, s, tok, sizeof s), GRPC_STATUS_OK);
		assert_string_equal(s, want[page]);
		assert_int_equal(tok[0] == 0, page == 2);
		strcat(all, s);
	}
	assert_string_equal(all, "a,bc,de");
	assert_int_equal(list_in(A, 5, NULL, s, tok, sizeof s), GRPC_STATUS_OK);
	assert_string_equal(s, "a,b,c,d,e");
	assert_string_equal(tok, "");
	assert_int_equal(list_in(A, -1, NULL, s, tok, sizeof s), GRPC_STATUS_INVALID_ARGUMENT);
	assert_int_equal(list_in(A, 2, "not a token!", s, tok, sizeof s),
	                 GRPC_STATUS_INVALID_ARGUMENT);
	for (int i = 0; i < 5; i++)
		assert_int_equal(delete_in(A, ids[i]), GRPC_STATUS_OK);
	assert_int_equal(delete_in(B, "x"), GRPC_STATUS_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instances_apart),
		cmocka_unit_test(test_tables_of_no_instance),
		cmocka_unit_test(test_list_pages),
	};
	return cmocka_run_group_tests(tests, setup, sv_teardown);
}
