/*
 * The MutateRows writer's calls (bt_write_int.h): a request made of the
 * entries' packed bytes, the responses' per-entry statuses, retries with
 * backoff, and the final failures.
 */
#include "store/bigtable/bt_write_int.h"

#include <grpc/byte_buffer_reader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt_data.pb-c.h"
#include "key/error.h"

/* ---- calls ---- */

void rk_bt__wcall_free(wcall *k)
{
	if (!k)
		return;
	if (k->call)
		grpc_call_unref(k->call);
	if (k->send)
		grpc_byte_buffer_destroy(k->send);
	if (k->recv)
		grpc_byte_buffer_destroy(k->recv);
	grpc_slice_unref(k->md.value);
	grpc_metadata_array_destroy(&k->init_md);
	grpc_metadata_array_destroy(&k->trail_md);
	grpc_slice_unref(k->details);
	gpr_free((void *)k->errstr);
	free(k->ents);
	free(k->codes);
	free(k->protocol_error);
	free(k);
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Appends a length-delimited field (tag byte for fields 1-15). */
static uint8_t *put_field(uint8_t *p, unsigned field, const void *data, size_t len)
{
	*p++ = (uint8_t)(field << 3 | 2);
	p = put_varint(p, len);
	memcpy(p, data, len);
	return p + len;
}

static int start_recv(rk_bt_writer *w, wcall *k)
{
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_RECV_MESSAGE;
	op.data.recv_message.recv_message = &k->recv;
	grpc_call_error e = grpc_call_start_batch(k->call, &op, 1, &k->tag_recv, NULL);
	if (e != GRPC_CALL_OK)
		return rk__err(RK_EIO, "%s: gRPC refused to receive (error %d)", w->what, (int)e);
	return 0;
}

/* Sends ents[0..n) in one MutateRows call. On failure the entries are still
 * the caller's. */
int rk_bt__start_call(rk_bt_writer *w, went **ents, size_t n)
{
	const rk_bt_opts *o = &w->c->opts;
	size_t tl = strlen(w->table_name), al = o->app_profile_id ? strlen(o->app_profile_id) : 0;
	size_t len = 1 + varint_len(tl) + tl + (al ? 1 + varint_len(al) + al : 0);
	for (size_t i = 0; i < n; i++)
		len += 1 + varint_len(ents[i]->len) + ents[i]->len;
	uint8_t *buf = malloc(len), *p = buf;
	wcall *k = calloc(1, sizeof *k);
	if (!buf || !k) {
		free(buf);
		free(k);
		return rk__err(RK_ENOMEM, "%s: out of memory", w->what);
	}
	p = put_field(p, 1, w->table_name, tl);
	for (size_t i = 0; i < n; i++)
		p = put_field(p, 2, went_bytes(ents[i]), ents[i]->len);
	if (al)
		p = put_field(p, 3, o->app_profile_id, al);

	k->details = grpc_empty_slice();
	k->md.key = grpc_slice_from_static_string("x-goog-request-params");
	k->md.value = grpc_slice_from_copied_string(w->routing);
	grpc_metadata_array_init(&k->init_md);
	grpc_metadata_array_init(&k->trail_md);
	k->tag_status = (wtag){k, 0};
	k->tag_recv = (wtag){k, 1};
	grpc_slice s = grpc_slice_new(buf, len, free);
	k->send = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	k->ents = malloc(n * sizeof *k->ents);
	k->codes = malloc(n * sizeof *k->codes);
	if (!k->ents || !k->codes) {
		rk_bt__wcall_free(k);
		return rk__err(RK_ENOMEM, "%s: out of memory", w->what);
	}
	memcpy(k->ents, ents, n * sizeof *ents);
	for (size_t i = 0; i < n; i++)
		k->codes[i] = -1;
	k->n = n;
	k->call = grpc_channel_create_call(w->c->data, NULL, GRPC_PROPAGATE_DEFAULTS, w->cq,
	                                   grpc_slice_from_static_string(RK_BT_M_MUTATE_ROWS), NULL,
	                                   rk_bt__deadline(o->timeout_ms), NULL);
	if (!k->call) {
		rk_bt__wcall_free(k);
		return rk__err(RK_EIO, "%s: gRPC could not create the call", w->what);
	}
	grpc_op ops[5];
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[0].data.send_initial_metadata.count = 1;
	ops[0].data.send_initial_metadata.metadata = &k->md;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = k->send;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &k->init_md;
	ops[4].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[4].data.recv_status_on_client.trailing_metadata = &k->trail_md;
	ops[4].data.recv_status_on_client.status = &k->status;
	ops[4].data.recv_status_on_client.status_details = &k->details;
	ops[4].data.recv_status_on_client.error_string = &k->errstr;
	grpc_call_error ge = grpc_call_start_batch(k->call, ops, 5, &k->tag_status, NULL);
	if (ge != GRPC_CALL_OK) {
		rk_bt__wcall_free(k);
		return rk__err(RK_EIO, "%s: gRPC refused the call (error %d)", w->what, (int)ge);
	}
	if (start_recv(w, k) < 0) {
		/* the status batch is out: cancel, and let the entries settle as
		 * CANCELLED when it completes */
		grpc_call_cancel(k->call, NULL);
		k->recv_done = 1;
	}
	for (size_t i = 0; i < n; i++)
		ents[i]->attempts++;
	w->calls[w->ncalls++] = k;
	w->st.calls++;
	return 0;
}

static void set_msg(went *e, const char *msg)
{
	free(e->msg);
	e->msg = strdup(msg ? msg : "");
}

const char *rk_bt__mutate_rows_entries(const uint8_t *msg, size_t len, size_t n,
                                       void (*entry)(void *arg, size_t index, int code,
                                                     const char *message),
                                       void *arg)
{
	Rkbt__MutateRowsResponse *m = rkbt__mutate_rows_response__unpack(NULL, len, msg);
	if (!m)
		return "a response does not parse as MutateRowsResponse";
	const char *err = NULL;
	for (size_t i = 0; i < m->n_entries; i++) {
		const Rkbt__MutateRowsResponse__Entry *re = m->entries[i];
		if (re->index < 0 || (uint64_t)re->index >= n) {
			err = "a response names an entry index out of range";
			continue;
		}
		entry(arg, (size_t)re->index, re->status ? re->status->code : 0,
		      re->status ? re->status->message : NULL);
	}
	rkbt__mutate_rows_response__free_unpacked(m, NULL);
	return err;
}

static void take_entry(void *arg, size_t index, int code, const char *message)
{
	wcall *k = arg;
	k->codes[index] = code;
	if (code)
		set_msg(k->ents[index], message);
}

/* Reads one MutateRowsResponse into the call's per-entry codes. */
static void take_response(wcall *k)
{
	grpc_byte_buffer_reader r;
	if (!grpc_byte_buffer_reader_init(&r, k->recv)) {
		if (!k->protocol_error)
			k->protocol_error = strdup("could not read a response message");
		return;
	}
	grpc_slice s = grpc_byte_buffer_reader_readall(&r);
	grpc_byte_buffer_reader_destroy(&r);
	const char *err = rk_bt__mutate_rows_entries(GRPC_SLICE_START_PTR(s), GRPC_SLICE_LENGTH(s),
	                                             k->n, take_entry, k);
	grpc_slice_unref(s);
	if (err && !k->protocol_error)
		k->protocol_error = strdup(err);
}

static unsigned backoff_ms(rk_bt_writer *w, unsigned attempts)
{
	uint64_t ms = w->c->opts.backoff_ms;
	for (unsigned i = 1; i < attempts && ms < MAX_BACKOFF_MS; i++)
		ms *= 2;
	if (ms > MAX_BACKOFF_MS)
		ms = MAX_BACKOFF_MS;
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return (unsigned)(ms / 2 + w->rng % (ms / 2 + 1)); /* 50-100% of the step */
}

int rk_bt__push_retry(rk_bt_writer *w, went *e)
{
	if (w->rn == w->rcap) {
		size_t ncap = w->rcap ? w->rcap * 2 : 256;
		went **nr = realloc(w->retry, ncap * sizeof *nr);
		if (!nr)
			return RK_ENOMEM;
		w->retry = nr;
		w->rcap = ncap;
	}
	w->retry[w->rn++] = e;
	return 0;
}

void rk_bt__give_up(rk_bt_writer *w, went *e)
{
	w->st.rows_failed++;
	if (w->done)
		w->done(e->seq, rk_bt__code_rk(e->code), e->msg, w->done_payload);
	if (w->st.rows_failed - w->failed_reported == 1) {
		w->first_code = e->code;
		rk__err_bytes(w->first_key, sizeof w->first_key, went_key(e), e->key_len);
		free(w->first_msg);
		w->first_msg = e->msg;
		e->msg = NULL;
		w->first_attempts = e->attempts;
	}
	went_free(e);
}

/* Settles every entry of a finished call, then frees it. */
static void finish_call(rk_bt_writer *w, wcall *k)
{
	char *details = grpc_slice_to_c_string(k->details);
	const char *call_msg = details && *details ? details : k->errstr;
	int64_t now = now_ms();
	/* entries that failed together retry together: one delay per attempt count */
	unsigned delay_for = 0, delay = 0;
	for (size_t i = 0; i < k->n; i++) {
		went *e = k->ents[i];
		int code = k->codes[i];
		if (code < 0) {
			if (k->status != GRPC_STATUS_OK) {
				code = k->status;
				set_msg(e, call_msg);
			} else {
				code = GRPC_STATUS_INTERNAL;
				set_msg(e, k->protocol_error ? k->protocol_error
				                             : "the server reported no status for this row");
			}
		}
		e->code = code;
		if (code == GRPC_STATUS_OK) {
			w->st.rows_acked++;
			if (w->done)
				w->done(e->seq, 0, NULL, w->done_payload);
			went_free(e);
		} else if (rk_bt__code_retryable(code) && e->attempts < w->c->opts.max_attempts) {
			if (delay_for != e->attempts) {
				delay_for = e->attempts;
				delay = backoff_ms(w, e->attempts);
			}
			e->not_before_ms = now + delay;
			if (rk_bt__push_retry(w, e) < 0) {
				set_msg(e, "out of memory for the retry list");
				rk_bt__give_up(w, e);
			} else {
				w->st.retries++;
			}
		} else {
			rk_bt__give_up(w, e);
		}
	}
	gpr_free(details);
	for (unsigned i = 0; i < w->ncalls; i++)
		if (w->calls[i] == k) {
			w->calls[i] = w->calls[--w->ncalls];
			break;
		}
	rk_bt__wcall_free(k);
}

/* Handles one completion-queue event, waiting until `deadline` at most. */
int rk_bt__wait_event(rk_bt_writer *w, gpr_timespec deadline)
{
	grpc_event ev = grpc_completion_queue_next(w->cq, deadline, NULL);
	if (ev.type == GRPC_QUEUE_TIMEOUT)
		return 0;
	if (ev.type != GRPC_OP_COMPLETE)
		return rk__err(RK_EIO, "%s: completion queue shut down", w->what);
	wtag *t = ev.tag;
	wcall *k = t->call;
	if (!t->recv) {
		k->status_done = 1;
	} else if (k->recv) {
		take_response(k);
		grpc_byte_buffer_destroy(k->recv);
		k->recv = NULL;
		if (start_recv(w, k) < 0) {
			grpc_call_cancel(k->call, NULL);
			k->recv_done = 1;
		}
	} else {
		k->recv_done = 1;
	}
	if (k->status_done && k->recv_done)
		finish_call(w, k);
	return 0;
}
