/*
 * The Bigtable client against a scripted fake server: a gRPC C core server in
 * a thread of this test that answers MutateRows and ReadRows the way a real
 * Bigtable can but the emulator never does:
 *
 * - MutateRows: per-entry failures inside a call that ends OK (retryable
 *   UNAVAILABLE the first time for rows named "flaky*", non-retryable
 *   INVALID_ARGUMENT for rows named "bad*"), results spread over several
 *   response messages, and whole calls failing (table "callfail": the first
 *   call ends UNAVAILABLE without entries). The server records every attempt
 *   so the test can check that a retry re-sends the same timestamps.
 * - ReadRows: cells split across messages with value_size, a reset_row,
 *   a stream that breaks the protocol (RK_ECORRUPT through the scan), a
 *   stream that ends with a non-retryable error after some rows, and streams
 *   cut with UNAVAILABLE, which the client resumes with a row set cut down to
 *   what lies after the last row it handed out (the server records each
 *   request so the test can check that row set).
 *
 * The server handles one call at a time; the client's concurrent calls wait
 * in gRPC's queue.
 */
#ifdef RK_WITH_BIGTABLE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_data.pb-c.h"
#include "key/error.h"
#include "store/bigtable/bt_client.h"
#include "unit/bt_pbenc.h"

/* ---- the fake server ---- */

#define MAX_SEEN 4096

typedef struct seen_entry {
	char key[32];
	int64_t ts; /* the first SetCell's timestamp */
} seen_entry;

static struct {
	grpc_server *srv;
	grpc_completion_queue *cq;
	pthread_t thread;
	int port;
	pthread_mutex_t mu;
	seen_entry seen[MAX_SEEN]; /* every entry of every MutateRows attempt */
	int nseen;
	int mutate_calls;
	int callfail_done;
	char last_routing[256];
	struct {
		char table[32];
		int calls;
		uint8_t req[4096]; /* the last ReadRows request */
		size_t req_len;
	} reads[8];
} fs = {.mu = PTHREAD_MUTEX_INITIALIZER};

static char tag_new, tag_op, tag_shutdown;

static void srv_wait(void *tag)
{
	for (;;) {
		grpc_event ev = grpc_completion_queue_next(fs.cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
		if (ev.type != GRPC_OP_COMPLETE || ev.tag == tag)
			return;
	}
}

static void srv_send(grpc_call *call, const void *bytes, size_t len)
{
	grpc_slice s = grpc_slice_from_copied_buffer(bytes, len);
	grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_SEND_MESSAGE;
	op.data.send_message.send_message = bb;
	grpc_call_start_batch(call, &op, 1, &tag_op, NULL);
	srv_wait(&tag_op);
	grpc_byte_buffer_destroy(bb);
}

static void srv_finish(grpc_call *call, grpc_status_code code, const char *msg)
{
	int cancelled = 0;
	grpc_slice details = grpc_slice_from_copied_string(msg);
	grpc_op ops[2];
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
	ops[0].data.send_status_from_server.status = code;
	ops[0].data.send_status_from_server.status_details = &details;
	ops[1].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	ops[1].data.recv_close_on_server.cancelled = &cancelled;
	grpc_call_start_batch(call, ops, 2, &tag_op, NULL);
	srv_wait(&tag_op);
	grpc_slice_unref(details);
}

static void pack_status_entry(pbuf *out, int64_t index, int code, const char *msg)
{
	pbuf st = {.n = 0}, ent = {.n = 0};
	if (code)
		pb_int(&st, 1, code);
	if (msg)
		pb_bytes(&st, 2, msg, strlen(msg));
	pb_int(&ent, 1, index);
	pb_bytes(&ent, 2, st.b, st.n);
	pb_bytes(out, 1, ent.b, ent.n);
}

static void serve_mutate(grpc_call *call, const uint8_t *req, size_t len)
{
	Rkbt__MutateRowsRequest *m = rkbt__mutate_rows_request__unpack(NULL, len, req);
	if (!m) {
		srv_finish(call, GRPC_STATUS_INVALID_ARGUMENT, "fake: bad MutateRowsRequest");
		return;
	}
	pthread_mutex_lock(&fs.mu);
	fs.mutate_calls++;
	for (size_t i = 0; i < m->n_entries && fs.nseen < MAX_SEEN; i++) {
		seen_entry *s = &fs.seen[fs.nseen++];
		size_t kl = m->entries[i]->row_key.len < 31 ? m->entries[i]->row_key.len : 31;
		memcpy(s->key, m->entries[i]->row_key.data, kl);
		s->key[kl] = 0;
		s->ts = m->entries[i]->n_mutations && m->entries[i]->mutations[0]->set_cell
		                ? m->entries[i]->mutations[0]->set_cell->timestamp_micros
		                : -1;
	}
	int callfail = strstr(m->table_name, "/tables/callfail") && !fs.callfail_done;
	if (callfail)
		fs.callfail_done = 1;
	pthread_mutex_unlock(&fs.mu);
	if (callfail) {
		rkbt__mutate_rows_request__free_unpacked(m, NULL);
		srv_finish(call, GRPC_STATUS_UNAVAILABLE, "fake: whole call unavailable");
		return;
	}
	/* results in two messages: the odd indexes first, then the even ones */
	for (int parity = 1; parity >= 0; parity--) {
		static pbuf out;
		out.n = 0;
		for (size_t i = 0; i < m->n_entries; i++) {
			if ((int)(i % 2) != parity)
				continue;
			const ProtobufCBinaryData *k = &m->entries[i]->row_key;
			int code = 0;
			const char *msg = NULL;
			if (k->len >= 3 && !memcmp(k->data, "bad", 3)) {
				code = GRPC_STATUS_INVALID_ARGUMENT;
				msg = "fake: bad row";
			} else if (k->len >= 5 && !memcmp(k->data, "flaky", 5)) {
				/* unavailable on the first attempt only */
				int attempts = 0;
				pthread_mutex_lock(&fs.mu);
				for (int j = 0; j < fs.nseen; j++)
					attempts += strlen(fs.seen[j].key) == k->len &&
					            !memcmp(fs.seen[j].key, k->data, k->len);
				pthread_mutex_unlock(&fs.mu);
				if (attempts == 1) {
					code = GRPC_STATUS_UNAVAILABLE;
					msg = "fake: try again";
				}
			}
			pack_status_entry(&out, (int64_t)i, code, msg);
		}
		srv_send(call, out.b, out.n);
	}
	rkbt__mutate_rows_request__free_unpacked(m, NULL);
	srv_finish(call, GRPC_STATUS_OK, "");
}

static void serve_read(grpc_call *call, const uint8_t *req, size_t len)
{
	Rkbt__ReadRowsRequest *m = rkbt__read_rows_request__unpack(NULL, len, req);
	if (!m) {
		srv_finish(call, GRPC_STATUS_INVALID_ARGUMENT, "fake: bad ReadRowsRequest");
		return;
	}
	const char *t = strrchr(m->table_name, '/');
	t = t ? t + 1 : "";
	int calls = 0;
	pthread_mutex_lock(&fs.mu);
	for (int i = 0; i < 8; i++)
		if (!fs.reads[i].table[0] || !strcmp(fs.reads[i].table, t)) {
			snprintf(fs.reads[i].table, sizeof fs.reads[i].table, "%s", t);
			calls = ++fs.reads[i].calls;
			fs.reads[i].req_len = len < sizeof fs.reads[i].req ? len : 0;
			memcpy(fs.reads[i].req, req, fs.reads[i].req_len);
			break;
		}
	pthread_mutex_unlock(&fs.mu);
	static pbuf out;
	if (!strcmp(t, "resume") && calls == 1) {
		chunk a[] = {{.key = "a", .family = "f", .qualifier = "q", .value = "1", .commit = 1},
		             {.key = "b", .family = "f", .qualifier = "q", .value = "partial"}};
		pb_response(&out, a, 2);
		srv_send(call, out.b, out.n);
		srv_finish(call, GRPC_STATUS_UNAVAILABLE, "fake: stream cut");
	} else if (!strcmp(t, "resume")) {
		chunk a[] = {{.key = "b", .family = "f", .qualifier = "q", .value = "2", .commit = 1},
		             {.key = "c", .family = "f", .qualifier = "q", .value = "3", .commit = 1}};
		pb_response(&out, a, 2);
		srv_send(call, out.b, out.n);
		srv_finish(call, GRPC_STATUS_OK, "");
	} else if (!strcmp(t, "resume1")) {
		chunk a[] = {{.key = "a", .family = "f", .qualifier = "q", .value = "1", .commit = 1}};
		pb_response(&out, a, 1);
		srv_send(call, out.b, out.n);
		srv_finish(call, GRPC_STATUS_UNAVAILABLE, "fake: stream cut");
	} else if (!strcmp(t, "flapping")) {
		srv_finish(call, GRPC_STATUS_UNAVAILABLE, "fake: always down");
	} else if (!strcmp(t, "split")) {
		chunk a[] = {
			{.key = "r1", .family = "f", .qualifier = "big", .ts = 5000, .value = "0123",
			 .value_size = 10},
		};
		chunk b[] = {
			{.value = "4567", .value_size = 10},
		};
		chunk c[] = {
			{.value = "89"},
			{.qualifier = "small", .ts = 5000, .value = "s", .commit = 1},
			{.key = "r2", .family = "f", .qualifier = "q", .ts = 1000, .value = "dropped"},
			{.reset = 1},
			{.key = "r2", .family = "f", .qualifier = "q", .ts = 2000, .value = "kept",
			 .commit = 1},
		};
		pb_response(&out, a, 1);
		srv_send(call, out.b, out.n);
		pb_response(&out, b, 1);
		srv_send(call, out.b, out.n);
		pb_response(&out, c, 5);
		srv_send(call, out.b, out.n);
		srv_finish(call, GRPC_STATUS_OK, "");
	} else if (!strcmp(t, "corrupt")) {
		chunk a[] = {
			{.key = "m", .family = "f", .qualifier = "q", .value = "1", .commit = 1},
			{.key = "c", .family = "f", .qualifier = "q", .value = "2", .commit = 1},
		};
		pb_response(&out, a, 2);
		srv_send(call, out.b, out.n);
		srv_finish(call, GRPC_STATUS_OK, "");
	} else if (!strcmp(t, "midfail")) {
		chunk a[] = {{.key = "a", .family = "f", .qualifier = "q", .value = "1", .commit = 1},
		             {.key = "b", .family = "f", .qualifier = "q", .value = "2"}};
		pb_response(&out, a, 2);
		srv_send(call, out.b, out.n);
		srv_finish(call, GRPC_STATUS_DATA_LOSS, "fake: tablet lost");
	} else {
		srv_finish(call, GRPC_STATUS_NOT_FOUND, "fake: no such table");
	}
	rkbt__read_rows_request__free_unpacked(m, NULL);
}

static void *serve(void *arg)
{
	(void)arg;
	for (;;) {
		grpc_call *call = NULL;
		grpc_call_details det;
		grpc_metadata_array md;
		grpc_call_details_init(&det);
		grpc_metadata_array_init(&md);
		if (grpc_server_request_call(fs.srv, &call, &det, &md, fs.cq, fs.cq, &tag_new) !=
		    GRPC_CALL_OK)
			break;
		grpc_event ev;
		do
			ev = grpc_completion_queue_next(fs.cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
		while (ev.type == GRPC_OP_COMPLETE && ev.tag != &tag_new && ev.tag != &tag_shutdown);
		if (ev.type != GRPC_OP_COMPLETE || ev.tag == &tag_shutdown || !ev.success) {
			grpc_call_details_destroy(&det);
			grpc_metadata_array_destroy(&md);
			break;
		}
		for (size_t i = 0; i < md.count; i++)
			if (grpc_slice_str_cmp(md.metadata[i].key, "x-goog-request-params") == 0) {
				size_t n = GRPC_SLICE_LENGTH(md.metadata[i].value);
				if (n >= sizeof fs.last_routing)
					n = sizeof fs.last_routing - 1;
				pthread_mutex_lock(&fs.mu);
				memcpy(fs.last_routing, GRPC_SLICE_START_PTR(md.metadata[i].value), n);
				fs.last_routing[n] = 0;
				pthread_mutex_unlock(&fs.mu);
			}
		grpc_byte_buffer *req = NULL;
		grpc_op ops[2];
		memset(ops, 0, sizeof ops);
		ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
		ops[1].op = GRPC_OP_RECV_MESSAGE;
		ops[1].data.recv_message.recv_message = &req;
		grpc_call_start_batch(call, ops, 2, &tag_op, NULL);
		srv_wait(&tag_op);
		grpc_slice body = grpc_empty_slice();
		if (req) {
			grpc_byte_buffer_reader r;
			grpc_byte_buffer_reader_init(&r, req);
			body = grpc_byte_buffer_reader_readall(&r);
			grpc_byte_buffer_reader_destroy(&r);
			grpc_byte_buffer_destroy(req);
		}
		if (grpc_slice_str_cmp(det.method, "/google.bigtable.v2.Bigtable/MutateRows") == 0)
			serve_mutate(call, GRPC_SLICE_START_PTR(body), GRPC_SLICE_LENGTH(body));
		else if (grpc_slice_str_cmp(det.method, "/google.bigtable.v2.Bigtable/ReadRows") == 0)
			serve_read(call, GRPC_SLICE_START_PTR(body), GRPC_SLICE_LENGTH(body));
		else
			srv_finish(call, GRPC_STATUS_UNIMPLEMENTED, "fake: not scripted");
		grpc_slice_unref(body);
		grpc_call_unref(call);
		grpc_call_details_destroy(&det);
		grpc_metadata_array_destroy(&md);
	}
	return NULL;
}

static int setup(void **state)
{
	(void)state;
	grpc_init();
	fs.cq = grpc_completion_queue_create_for_next(NULL);
	fs.srv = grpc_server_create(NULL, NULL);
	grpc_server_register_completion_queue(fs.srv, fs.cq, NULL);
	grpc_server_credentials *sc = grpc_insecure_server_credentials_create();
	fs.port = grpc_server_add_http2_port(fs.srv, "127.0.0.1:0", sc);
	grpc_server_credentials_release(sc);
	if (fs.port <= 0)
		return -1;
	grpc_server_start(fs.srv);
	char host[64];
	snprintf(host, sizeof host, "127.0.0.1:%d", fs.port);
	setenv("BIGTABLE_EMULATOR_HOST", host, 1);
	return pthread_create(&fs.thread, NULL, serve, NULL) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	grpc_server_shutdown_and_notify(fs.srv, fs.cq, &tag_shutdown);
	grpc_server_cancel_all_calls(fs.srv);
	pthread_join(fs.thread, NULL);
	grpc_server_destroy(fs.srv);
	grpc_completion_queue_shutdown(fs.cq);
	while (grpc_completion_queue_next(fs.cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
	       GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(fs.cq);
	grpc_shutdown();
	return 0;
}

/* ---- tests ---- */

static rk_bt_client *client(size_t batch, unsigned inflight)
{
	rk_bt_opts o = RK_BT_OPTS_INIT;
	o.batch_size = batch;
	o.inflight = inflight;
	o.backoff_ms = 2;
	o.max_attempts = 4;
	rk_bt_client *c = NULL;
	if (rk_bt__client_open(&c, "bigtable://p/i", &o) < 0)
		fail_msg("open: %s", rk_error_last());
	return c;
}

static int64_t seen_ts(const char *key, int nth, int *count)
{
	int64_t ts = -2;
	int k = 0;
	pthread_mutex_lock(&fs.mu);
	for (int i = 0; i < fs.nseen; i++)
		if (!strcmp(fs.seen[i].key, key) && k++ == nth)
			ts = fs.seen[i].ts;
	pthread_mutex_unlock(&fs.mu);
	if (count)
		*count = k;
	return ts;
}

static void test_entry_failures_and_idempotent_retries(void **state)
{
	(void)state;
	rk_bt_client *c = client(7, 3);
	rk_bt_writer *w;
	assert_int_equal(rk_bt__writer_new(&w, c, "mut"), 0);
	rk_bt_mutation m = {.kind = RK_BT_SET_CELL, .family = "f", .qualifier = (const uint8_t *)"q",
	                    .qualifier_len = 1, .ts_micros = RK_BT_TS_NOW,
	                    .value = (const uint8_t *)"v", .value_len = 1};
	char key[32];
	int nok = 0, nflaky = 0, nbad = 0;
	for (int i = 0; i < 60; i++) {
		const char *kind = i % 5 == 1 ? "flaky" : i % 10 == 3 ? "bad" : "ok";
		snprintf(key, sizeof key, "%s%03d", kind, i);
		nok += kind[0] == 'o';
		nflaky += kind[0] == 'f';
		nbad += kind[0] == 'b';
		assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)key, strlen(key), &m, 1), 0);
	}
	int rc = rk_bt__writer_flush(w);
	assert_int_equal(rc, RK_EINVALID);
	char want[64];
	snprintf(want, sizeof want, "%d of 60 rows failed (%d acknowledged)", nbad, nok + nflaky);
	if (!strstr(rk_error_last(), want) || !strstr(rk_error_last(), "INVALID_ARGUMENT") ||
	    !strstr(rk_error_last(), "fake: bad row") || !strstr(rk_error_last(), "row 'bad"))
		fail_msg("message: %s", rk_error_last());
	rk_bt_write_stats st;
	rk_bt__writer_stats(&st, w);
	assert_int_equal(st.rows_acked, nok + nflaky);
	assert_int_equal(st.rows_failed, nbad);
	assert_int_equal(st.retries, nflaky); /* each flaky row once; bad rows never */

	/* every flaky row went out twice with the same client-chosen timestamp */
	for (int i = 1; i < 60; i += 5) {
		int n;
		snprintf(key, sizeof key, "flaky%03d", i);
		int64_t t0 = seen_ts(key, 0, &n), t1 = seen_ts(key, 1, NULL);
		assert_int_equal(n, 2);
		assert_true(t0 > 0);
		assert_int_equal(t0 % 1000, 0);
		assert_int_equal(t0, t1);
	}
	snprintf(key, sizeof key, "bad%03d", 3);
	int n;
	seen_ts(key, 0, &n);
	assert_int_equal(n, 1);
	pthread_mutex_lock(&fs.mu);
	assert_string_equal(fs.last_routing, "table_name=projects%2Fp%2Finstances%2Fi%2Ftables%2Fmut");
	pthread_mutex_unlock(&fs.mu);
	rk_bt__writer_free(w);
	rk_bt__client_free(c);
}

static void test_whole_call_failure_is_retried(void **state)
{
	(void)state;
	rk_bt_client *c = client(100, 1);
	rk_bt_writer *w;
	assert_int_equal(rk_bt__writer_new(&w, c, "callfail"), 0);
	rk_bt_mutation m = {.kind = RK_BT_SET_CELL, .family = "f", .qualifier = (const uint8_t *)"q",
	                    .qualifier_len = 1, .ts_micros = 42000,
	                    .value = (const uint8_t *)"v", .value_len = 1};
	char key[32];
	for (int i = 0; i < 10; i++) {
		snprintf(key, sizeof key, "cf%02d", i);
		assert_int_equal(rk_bt__writer_add(w, (const uint8_t *)key, strlen(key), &m, 1), 0);
	}
	if (rk_bt__writer_flush(w) != 0)
		fail_msg("flush: %s", rk_error_last());
	rk_bt_write_stats st;
	rk_bt__writer_stats(&st, w);
	assert_int_equal(st.rows_acked, 10);
	assert_int_equal(st.retries, 10);
	assert_int_equal(st.calls, 2);
	assert_int_equal(seen_ts("cf05", 1, NULL), 42000);
	rk_bt__writer_free(w);
	rk_bt__client_free(c);
}

static void test_read_split_cells_and_reset(void **state)
{
	(void)state;
	rk_bt_client *c = client(0, 0);
	rk_bt_scan *s;
	const rk_bt_row *r;
	rk_bt_read q = RK_BT_READ_INIT;
	assert_int_equal(rk_bt__scan_open(&s, c, "split", &q), 0);
	assert_int_equal(rk_bt__scan_next(&r, s), 0);
	assert_int_equal(r->key_len, 2);
	assert_memory_equal(r->key, "r1", 2);
	assert_int_equal(r->ncells, 2);
	assert_int_equal(r->cells[0].value_len, 10);
	assert_memory_equal(r->cells[0].value, "0123456789", 10);
	assert_int_equal(r->cells[0].ts_micros, 5000);
	assert_memory_equal(r->cells[1].qualifier, "small", 5);
	assert_int_equal(rk_bt__scan_next(&r, s), 0);
	assert_memory_equal(r->key, "r2", 2);
	assert_int_equal(r->ncells, 1);
	assert_int_equal(r->cells[0].value_len, 4);
	assert_memory_equal(r->cells[0].value, "kept", 4);
	assert_int_equal(rk_bt__scan_next(&r, s), RK_EITEROVER);
	assert_int_equal(rk_bt__scan_rows(s), 2);
	rk_bt__scan_free(s);
	rk_bt__client_free(c);
}

static void test_read_errors(void **state)
{
	(void)state;
	rk_bt_client *c = client(0, 0);
	rk_bt_scan *s;
	const rk_bt_row *r;
	rk_bt_read q = RK_BT_READ_INIT;

	assert_int_equal(rk_bt__scan_open(&s, c, "corrupt", &q), 0);
	assert_int_equal(rk_bt__scan_next(&r, s), 0); /* "m" is fine */
	assert_int_equal(rk_bt__scan_next(&r, s), RK_ECORRUPT);
	assert_non_null(strstr(rk_error_last(), "not greater"));
	rk_bt__scan_free(s);

	assert_int_equal(rk_bt__scan_open(&s, c, "midfail", &q), 0);
	assert_int_equal(rk_bt__scan_next(&r, s), 0);
	assert_memory_equal(r->key, "a", 1);
	assert_int_equal(rk_bt__scan_next(&r, s), RK_EIO);
	assert_non_null(strstr(rk_error_last(), "DATA_LOSS"));
	assert_non_null(strstr(rk_error_last(), "tablet lost"));
	assert_int_equal(rk_bt__scan_resumes(s), 0); /* not retryable */
	assert_int_equal(rk_bt__scan_rows(s), 1);
	rk_bt__scan_free(s);

	assert_int_equal(rk_bt__scan_open(&s, c, "other", &q), 0);
	assert_int_equal(rk_bt__scan_next(&r, s), RK_ENOTFOUND);
	rk_bt__scan_free(s);

	/* a scan abandoned in the middle of its stream is cancelled cleanly */
	assert_int_equal(rk_bt__scan_open(&s, c, "split", &q), 0);
	assert_int_equal(rk_bt__scan_next(&r, s), 0);
	rk_bt__scan_free(s);

	/* an unscripted method: the admin API is not served here */
	assert_int_equal(rk_bt__table_delete(c, "x"), RK_EIO);
	assert_non_null(strstr(rk_error_last(), "UNIMPLEMENTED"));
	rk_bt__client_free(c);
}

static int read_calls(const char *table, Rkbt__ReadRowsRequest **last)
{
	int n = 0;
	pthread_mutex_lock(&fs.mu);
	for (int i = 0; i < 8; i++)
		if (!strcmp(fs.reads[i].table, table)) {
			n = fs.reads[i].calls;
			if (last)
				*last = rkbt__read_rows_request__unpack(NULL, fs.reads[i].req_len, fs.reads[i].req);
		}
	pthread_mutex_unlock(&fs.mu);
	return n;
}

static void assert_bin(ProtobufCBinaryData b, const char *want)
{
	assert_int_equal(b.len, strlen(want));
	assert_memory_equal(b.data, want, b.len);
}

static void test_read_resumes_after_last_row(void **state)
{
	(void)state;
	rk_bt_client *c = client(0, 0);
	rk_bt_scan *s;
	const rk_bt_row *r;
	rk_bt_bytes keys[] = {{(const uint8_t *)"0", 1}, {(const uint8_t *)"z", 1}};
	rk_bt_range rg[] = {
		{.start = {(const uint8_t *)"a", 1}, .end = {(const uint8_t *)"c", 1}, .end_closed = 1},
		{.start = {(const uint8_t *)"x", 1}, .end = {(const uint8_t *)"y", 1}},
		{.end = {(const uint8_t *)"a", 1}}, /* wholly before the cut: dropped */
	};
	rk_bt_read q = RK_BT_READ_INIT;
	q.keys = keys;
	q.nkeys = 2;
	q.ranges = rg;
	q.nranges = 3;
	q.rows_limit = 10;
	q.versions = 1;
	assert_int_equal(rk_bt__scan_open(&s, c, "resume", &q), 0);
	const char *want[] = {"a", "b", "c"};
	for (int i = 0; i < 3; i++) {
		if (rk_bt__scan_next(&r, s) != 0)
			fail_msg("row %d: %s", i, rk_error_last());
		assert_int_equal(r->key_len, 1);
		assert_memory_equal(r->key, want[i], 1);
		assert_memory_equal(r->cells[0].value, i == 0 ? "1" : i == 1 ? "2" : "3", 1);
	}
	assert_int_equal(rk_bt__scan_next(&r, s), RK_EITEROVER);
	assert_int_equal(rk_bt__scan_resumes(s), 1);
	rk_bt__scan_free(s);

	/* the second request: after "a", the same filter, the limit reduced */
	Rkbt__ReadRowsRequest *m = NULL;
	assert_int_equal(read_calls("resume", &m), 2);
	assert_non_null(m);
	assert_non_null(m->rows);
	assert_int_equal(m->rows->n_row_keys, 1);
	assert_bin(m->rows->row_keys[0], "z");
	assert_int_equal(m->rows->n_row_ranges, 2);
	Rkbt__RowRange *r0 = m->rows->row_ranges[0], *r1 = m->rows->row_ranges[1];
	assert_int_equal(r0->start_key_case, RKBT__ROW_RANGE__START_KEY_START_KEY_OPEN);
	assert_bin(r0->start_key_open, "a");
	assert_int_equal(r0->end_key_case, RKBT__ROW_RANGE__END_KEY_END_KEY_CLOSED);
	assert_bin(r0->end_key_closed, "c");
	assert_int_equal(r1->start_key_case, RKBT__ROW_RANGE__START_KEY_START_KEY_CLOSED);
	assert_bin(r1->start_key_closed, "x");
	assert_int_equal(r1->end_key_case, RKBT__ROW_RANGE__END_KEY_END_KEY_OPEN);
	assert_bin(r1->end_key_open, "y");
	assert_int_equal(m->rows_limit, 9);
	assert_non_null(m->filter);
	assert_int_equal(m->filter->filter_case, RKBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER);
	assert_int_equal(m->filter->cells_per_column_limit_filter, 1);
	rkbt__read_rows_request__free_unpacked(m, NULL);

	/* nothing left after the cut: no second call */
	rk_bt_read one = RK_BT_READ_INIT;
	rk_bt_bytes ka = {(const uint8_t *)"a", 1};
	one.keys = &ka;
	one.nkeys = 1;
	assert_int_equal(rk_bt__scan_open(&s, c, "resume1", &one), 0);
	assert_int_equal(rk_bt__scan_next(&r, s), 0);
	assert_int_equal(rk_bt__scan_next(&r, s), RK_EITEROVER);
	assert_int_equal(read_calls("resume1", NULL), 1);
	rk_bt__scan_free(s);

	/* a server that stays down: max_attempts calls, then the error */
	rk_bt_read all = RK_BT_READ_INIT;
	assert_int_equal(rk_bt__scan_open(&s, c, "flapping", &all), 0);
	assert_int_equal(rk_bt__scan_next(&r, s), RK_EIO);
	assert_non_null(strstr(rk_error_last(), "UNAVAILABLE"));
	assert_int_equal(read_calls("flapping", &m), 4);
	assert_null(m->rows); /* the whole table, nothing read yet */
	rkbt__read_rows_request__free_unpacked(m, NULL);
	rk_bt__scan_free(s);
	rk_bt__client_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_failures_and_idempotent_retries),
		cmocka_unit_test(test_whole_call_failure_is_retried),
		cmocka_unit_test(test_read_split_cells_and_reset),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_read_resumes_after_last_row),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
#else
#include <stdio.h>
int main(void)
{
	puts("skipped: built without RK_WITH_BIGTABLE");
	return 77; /* ctest: SKIP_RETURN_CODE */
}
#endif
