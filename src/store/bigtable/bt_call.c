/*
 * The Bigtable client's gRPC call helper (bt_int.h): one call on its own
 * completion queue, unary or server-streaming, raw byte buffers in and out.
 */
#include "store/bigtable/bt_int.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/slice.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"

/* ---- one call on its own completion queue ---- */

struct rk_bt_call {
	grpc_completion_queue *cq;
	grpc_call *call;
	const char *what;
	grpc_byte_buffer *send;
	grpc_metadata md;
	int have_md;
	grpc_metadata_array init_md, trail_md;
	grpc_status_code status;
	grpc_slice details;
	const char *errstr;
	grpc_byte_buffer *recv;
	grpc_slice cur;
	int have_cur;
	int status_done, ended;
	char tag_status, tag_recv; /* their addresses are the tags */
};

int rk_bt__call_start(rk_bt_call **out, grpc_channel *ch, const char *method, const void *req,
                      size_t len, const char *routing, gpr_timespec deadline, const char *what)
{
	rk_bt_call *c = calloc(1, sizeof *c);
	if (!c)
		return rk__err(RK_ENOMEM, "%s: out of memory", what);
	c->what = what;
	c->details = grpc_empty_slice();
	grpc_metadata_array_init(&c->init_md);
	grpc_metadata_array_init(&c->trail_md);
	c->cq = grpc_completion_queue_create_for_next(NULL);
	c->call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, c->cq,
	                                   grpc_slice_from_static_string(method), NULL, deadline,
	                                   NULL);
	if (!c->call) {
		c->status_done = 1;
		rk_bt__call_free(c);
		return rk__err(RK_EIO, "%s: gRPC could not create the call", what);
	}
	grpc_slice s = grpc_slice_from_copied_buffer(req, len);
	c->send = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	if (routing) {
		c->md.key = grpc_slice_from_static_string("x-goog-request-params");
		c->md.value = grpc_slice_from_copied_string(routing);
		c->have_md = 1;
	}
	grpc_op ops[5];
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[0].data.send_initial_metadata.count = c->have_md ? 1 : 0;
	ops[0].data.send_initial_metadata.metadata = c->have_md ? &c->md : NULL;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = c->send;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &c->init_md;
	ops[4].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[4].data.recv_status_on_client.trailing_metadata = &c->trail_md;
	ops[4].data.recv_status_on_client.status = &c->status;
	ops[4].data.recv_status_on_client.status_details = &c->details;
	ops[4].data.recv_status_on_client.error_string = &c->errstr;
	grpc_call_error e = grpc_call_start_batch(c->call, ops, 5, &c->tag_status, NULL);
	if (e != GRPC_CALL_OK) {
		c->status_done = 1;
		rk_bt__call_free(c);
		return rk__err(RK_EIO, "%s: gRPC refused the call (error %d)", what, (int)e);
	}
	*out = c;
	return 0;
}

/* Waits for the event with `tag`, noting the status batch on the way. */
static int wait_tag(rk_bt_call *c, void *tag)
{
	for (;;) {
		grpc_event ev = grpc_completion_queue_next(c->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
		if (ev.type != GRPC_OP_COMPLETE)
			return rk__err(RK_EIO, "%s: completion queue %s", c->what,
			               ev.type == GRPC_QUEUE_SHUTDOWN ? "shut down" : "timed out");
		if (ev.tag == &c->tag_status)
			c->status_done = 1;
		if (ev.tag == tag)
			return 0;
	}
}

static int call_status(rk_bt_call *c)
{
	int rc;
	if (!c->status_done && (rc = wait_tag(c, &c->tag_status)) < 0)
		return rc;
	if (c->status == GRPC_STATUS_OK)
		return RK_EITEROVER;
	char *details = grpc_slice_to_c_string(c->details);
	rc = rk_bt__status_err(c->status, details && *details ? details : c->errstr, c->what);
	gpr_free(details);
	return rc;
}

int rk_bt__call_next(rk_bt_call *c, const uint8_t **msg, size_t *len)
{
	int rc;
	if (c->have_cur) {
		grpc_slice_unref(c->cur);
		c->have_cur = 0;
	}
	if (c->ended)
		return call_status(c);
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_RECV_MESSAGE;
	op.data.recv_message.recv_message = &c->recv;
	grpc_call_error e = grpc_call_start_batch(c->call, &op, 1, &c->tag_recv, NULL);
	if (e != GRPC_CALL_OK) {
		c->ended = 1;
		return rk__err(RK_EIO, "%s: gRPC refused to receive (error %d)", c->what, (int)e);
	}
	if ((rc = wait_tag(c, &c->tag_recv)) < 0) {
		c->ended = 1;
		return rc;
	}
	if (!c->recv) {
		c->ended = 1;
		return call_status(c);
	}
	grpc_byte_buffer_reader r;
	if (!grpc_byte_buffer_reader_init(&r, c->recv)) {
		grpc_byte_buffer_destroy(c->recv);
		c->recv = NULL;
		c->ended = 1;
		return rk__err(RK_ECORRUPT, "%s: could not read a response message", c->what);
	}
	c->cur = grpc_byte_buffer_reader_readall(&r);
	c->have_cur = 1;
	grpc_byte_buffer_reader_destroy(&r);
	grpc_byte_buffer_destroy(c->recv);
	c->recv = NULL;
	*msg = GRPC_SLICE_START_PTR(c->cur);
	*len = GRPC_SLICE_LENGTH(c->cur);
	return 0;
}

int rk_bt__call_status(const rk_bt_call *c)
{
	return c && c->status_done ? (int)c->status : -1;
}

void rk_bt__call_free(rk_bt_call *c)
{
	if (!c)
		return;
	if (c->call) {
		if (!c->status_done) {
			grpc_call_cancel(c->call, NULL);
			wait_tag(c, &c->tag_status);
		}
		grpc_call_unref(c->call);
	}
	if (c->have_cur)
		grpc_slice_unref(c->cur);
	if (c->send)
		grpc_byte_buffer_destroy(c->send);
	if (c->have_md)
		grpc_slice_unref(c->md.value);
	grpc_metadata_array_destroy(&c->init_md);
	grpc_metadata_array_destroy(&c->trail_md);
	grpc_slice_unref(c->details);
	gpr_free((void *)c->errstr);
	if (c->cq) {
		grpc_completion_queue_shutdown(c->cq);
		while (grpc_completion_queue_next(c->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
		       GRPC_QUEUE_SHUTDOWN)
			;
		grpc_completion_queue_destroy(c->cq);
	}
	free(c);
}

int rk_bt__unary(uint8_t **resp, size_t *resp_len, grpc_channel *ch, const char *method,
                 const void *req, size_t len, const char *routing, gpr_timespec deadline,
                 const char *what)
{
	rk_bt_call *c;
	const uint8_t *m;
	size_t n;
	int rc = rk_bt__call_start(&c, ch, method, req, len, routing, deadline, what);
	if (rc < 0)
		return rc;
	rc = rk_bt__call_next(c, &m, &n);
	if (rc == RK_EITEROVER)
		rc = rk__err(RK_ECORRUPT, "%s: the server sent no response message", what);
	if (rc < 0)
		goto done;
	*resp = malloc(n ? n : 1);
	if (!*resp) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
		goto done;
	}
	memcpy(*resp, m, n);
	*resp_len = n;
	rc = rk_bt__call_next(c, &m, &n);
	if (rc == 0)
		rc = rk__err(RK_ECORRUPT, "%s: the server sent two responses to a unary call", what);
	if (rc == RK_EITEROVER)
		rc = 0;
	else
		free(*resp);
done:
	rk_bt__call_free(c);
	return rc;
}
