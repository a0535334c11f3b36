/*
 * rowkey serve's limits, reached through gRPC (serve_client.h): a request
 * nested past any depth refused before it is decoded, every per-request
 * limit refused naming its field, clients that stall cancelled while
 * others are served. The server serves the next call after each.
 */
#include "integration/serve_client.h"

/* ---- raw request bytes ---- */

/* Writes v as a varint ending just before *p (building a message from its
 * end towards its start); returns the new start. */
static uint8_t *put_varint_before(uint8_t *p, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	p -= n;
	memcpy(p, tmp, n);
	return p;
}

/* A ReadRowsRequest for TBL whose filter is a chain nested `depth` deep
 * around a pass_all_filter, as wire bytes built inside out (protobuf-c's own
 * packer recurses as deep as the message). *len: its length; free() it. */
static uint8_t *deep_chain_request(size_t depth, size_t *len)
{
	size_t cap = 64 + depth * 12;
	uint8_t *buf = malloc(cap), *end = buf + cap, *p = end;
	*--p = 0x01; /* pass_all_filter = true (field 17, varint) */
	*--p = 0x01;
	*--p = 0x88;
	for (size_t i = 0; i < depth; i++) {
		p = put_varint_before(p, (uint64_t)(end - p)); /* Chain.filters[0] */
		*--p = 0x0a;
		p = put_varint_before(p, (uint64_t)(end - p)); /* RowFilter.chain */
		*--p = 0x0a;
	}
	p = put_varint_before(p, (uint64_t)(end - p)); /* ReadRowsRequest.filter */
	*--p = 0x1a;
	size_t tl = strlen(TBL);
	p -= tl;
	memcpy(p, TBL, tl);
	p = put_varint_before(p, tl);
	*--p = 0x0a; /* table_name */
	*len = (size_t)(end - p);
	memmove(buf, p, *len);
	return buf;
}

/* ---- tests ---- */

/* A filter nested far deeper than any limit: refused before the request is
 * decoded (the decoder recurses once per level), and the server serves the
 * next call. */
static void test_deep_filter_refused(void **state)
{
	(void)state;
	create_table();
	assert_int_equal(put("keep", "cf", "x", "v"), GRPC_STATUS_OK);
	size_t depths[] = {60, 5000, 200000};
	for (size_t i = 0; i < 3; i++) {
		size_t len;
		uint8_t *req = deep_chain_request(depths[i], &len);
		assert_int_equal(call_raw(DATA "ReadRows", req, len), GRPC_STATUS_INVALID_ARGUMENT);
		free(req);
	}
	assert_int_equal(count_rows(), 1);
	drop_table();
}

/* Starts a call of `method` that sends its initial metadata and nothing
 * else: a client that never sends its request. The caller cancels and
 * unrefs it. */
static grpc_call *silent_call(grpc_completion_queue *cq, const char *method)
{
	grpc_slice m = grpc_slice_from_static_string(method);
	grpc_call *c = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, m, NULL,
	                                        gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_SEND_INITIAL_METADATA;
	assert_int_equal(grpc_call_start_batch(c, &op, 1, (void *)1, NULL), GRPC_CALL_OK);
	grpc_event ev = grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	assert_int_equal(ev.type, GRPC_OP_COMPLETE);
	return c;
}

/* Waits until the server has cancelled `want` stalled calls and has none
 * in flight (at most 30 s). */
static void wait_stalled(unsigned long long want)
{
	unsigned long long answered, stalled = 0;
	unsigned in_flight = 1;
	for (int i = 0; i < 600 && (stalled < want || in_flight); i++) {
		st_sleep_ms(50);
		rk_sv_server_counts(srv, &answered, &in_flight, &stalled);
	}
	assert_true(stalled >= want);
	assert_int_equal(in_flight, 0);
}

/* Limits on what one request may ask, each refused naming the field, the
 * server serving the next call: a message over the request limit, a row
 * key over 4 KiB in a row set, more row keys and ranges than a ReadRows
 * may scan, a qualifier over 16 KiB, a timestamp off the millisecond
 * grid, a regex RE2 will not compile within its memory. */
static void test_limits(void **state)
{
	(void)state;
	create_table();
	size_t big = 17u << 20; /* over the test server's 16 MiB */
	char *v = malloc(big + 1);
	memset(v, 'v', big);
	v[big] = 0;
	Rkbt__Mutation *m = set_cell("cf", "x", 1000, v);
	assert_int_equal(mutate_row(TBL, "big", 3, &m, 1), GRPC_STATUS_RESOURCE_EXHAUSTED);
	mut_free(m);
	free(v);
	char q[(16 << 10) + 2];
	memset(q, 'q', sizeof q - 1);
	q[sizeof q - 1] = 0;
	m = set_cell("cf", q, 1000, "v");
	assert_int_equal(mutate_row(TBL, "r", 1, &m, 1), GRPC_STATUS_INVALID_ARGUMENT);
	mut_free(m);
	m = set_cell("cf", "x", 1500, "v"); /* not a whole millisecond */
	assert_int_equal(mutate_row(TBL, "r", 1, &m, 1), GRPC_STATUS_INVALID_ARGUMENT);
	mut_free(m);
	Rkbt__ReadRowsRequest rr = RKBT__READ_ROWS_REQUEST__INIT;
	rr.table_name = TBL;
	Rkbt__RowSet rs = RKBT__ROW_SET__INIT;
	static char longkey[4097];
	memset(longkey, 'k', sizeof longkey);
	ProtobufCBinaryData lk = {sizeof longkey, (uint8_t *)longkey};
	rs.n_row_keys = 1;
	rs.row_keys = &lk;
	rr.rows = &rs;
	size_t rows, cells;
	assert_int_equal(read_rows(&rr, &rows, &cells, NULL, 0), GRPC_STATUS_INVALID_ARGUMENT);
	size_t nkeys = 100001;
	ProtobufCBinaryData *keys = calloc(nkeys, sizeof *keys);
	for (size_t i = 0; i < nkeys; i++)
		keys[i] = (ProtobufCBinaryData){1, (uint8_t *)"k"};
	rs.n_row_keys = nkeys;
	rs.row_keys = keys;
	assert_int_equal(read_rows(&rr, &rows, &cells, NULL, 0), GRPC_STATUS_INVALID_ARGUMENT);
	free(keys);
	rr.rows = NULL;
	Rkbt__RowFilter f = RKBT__ROW_FILTER__INIT;
	f.filter_case = RKBT__ROW_FILTER__FILTER_VALUE_REGEX_FILTER;
	static const char huge_re[] = "((((a{1000}){1000}){1000}){1000})";
	f.value_regex_filter = (ProtobufCBinaryData){sizeof huge_re - 1, (uint8_t *)huge_re};
	rr.filter = &f;
	assert_int_equal(read_rows(&rr, &rows, &cells, NULL, 0), GRPC_STATUS_INVALID_ARGUMENT);
	/* a pattern that backtracking engines take exponential time on: RE2 is linear */
	assert_int_equal(put("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "cf", "x",
	                     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"),
	                 GRPC_STATUS_OK);
	static const char evil[] = "(a+)+$";
	f.value_regex_filter = (ProtobufCBinaryData){sizeof evil - 1, (uint8_t *)evil};
	assert_int_equal(read_rows(&rr, &rows, &cells, NULL, 0), GRPC_STATUS_OK);
	assert_int_equal(rows, 0);
	rr.filter = NULL;
	assert_int_equal(read_rows(&rr, &rows, &cells, NULL, 0), GRPC_STATUS_OK);
	assert_int_equal(rows, 1);
	drop_table();
}

/* Clients that stall: one never sends its request, one never takes the
 * responses of a large ReadRows. The server cancels both after its stall
 * limit (3 s here), freeing their threads, and serves others meanwhile;
 * more silent calls than the server's call limit (16) wait, and are
 * cancelled in turn, never leaving it unable to serve. */
static void test_stalled_clients(void **state)
{
	(void)state;
	create_table();
	char *v = malloc(64 << 10);
	memset(v, 'v', 64 << 10);
	v[(64 << 10) - 1] = 0;
	for (int i = 0; i < 300; i++) { /* ~19 MiB: past any flow-control window */
		char row[16];
		snprintf(row, sizeof row, "r%03d", i);
		Rkbt__Mutation *m = set_cell("cf", "x", 1000, v);
		assert_int_equal(mutate_row(TBL, row, strlen(row), &m, 1), GRPC_STATUS_OK);
		mut_free(m);
	}
	free(v);
	unsigned long long answered, before;
	unsigned in_flight;
	rk_sv_server_counts(srv, &answered, &in_flight, &before);
	grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
	grpc_call *silent = silent_call(cq, DATA "MutateRow");
	Rkbt__ReadRowsRequest rr = RKBT__READ_ROWS_REQUEST__INIT;
	rr.table_name = TBL;
	size_t n = protobuf_c_message_get_packed_size(&rr.base);
	uint8_t *b = malloc(n + 1);
	protobuf_c_message_pack(&rr.base, b);
	rk_bt_call *reader;
	assert_int_equal(rk_bt__call_start(&reader, ch, DATA "ReadRows", b, n, NULL,
	                                   rk_bt__deadline(60000), "ReadRows"),
	                 0);
	free(b);
	assert_int_equal(put("meanwhile", "cf", "x", "v"), GRPC_STATUS_OK); /* others are served */
	wait_stalled(before + 2);
	rk_bt__call_free(reader);
	grpc_call_cancel(silent, NULL);
	grpc_call_unref(silent);
	/* more silent calls than the call limit: they wait, are cancelled in turn */
	grpc_call *many[20];
	for (int i = 0; i < 20; i++)
		many[i] = silent_call(cq, DATA "MutateRow");
	assert_int_equal(put("after", "cf", "x", "v"), GRPC_STATUS_OK);
	wait_stalled(before + 2 + 20);
	for (int i = 0; i < 20; i++) {
		grpc_call_cancel(many[i], NULL);
		grpc_call_unref(many[i]);
	}
	grpc_completion_queue_shutdown(cq);
	while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
	       GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(cq);
	drop_table();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deep_filter_refused),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_stalled_clients),
	};
	return cmocka_run_group_tests(tests, sv_setup, sv_teardown);
}
