/*
 * The MutateRows writer: batches, calls in flight, per-entry status, retries.
 *
 * Each added row is packed once into the bytes of a MutateRowsRequest.Entry
 * and kept until the server acknowledges it or the writer gives up. A request
 * is then just the table name followed by the entries' bytes, each behind a
 * field-2 tag (that is how protobuf encodes a repeated message), so a retry
 * re-sends exactly the bytes of the first attempt, timestamps included: a
 * retried SetCell overwrites its own cell instead of adding a version.
 *
 * All calls of a writer share one completion queue, driven by the thread that
 * calls add/flush. A MutateRows call streams back MutateRowsResponse messages
 * whose entries carry the index of a request entry and its status. The call
 * can end OK while entries failed, or fail as a whole (then every entry the
 * server said nothing about shares the call's status). Entries that failed
 * with DEADLINE_EXCEEDED, ABORTED or UNAVAILABLE go back into a retry list
 * after an exponential backoff with jitter; other failures are final. The
 * writer never asks for server-assigned timestamps.
 */
#include "store/bigtable/bt_int.h"

#include <grpc/byte_buffer_reader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt_data.pb-c.h"
#include "key/error.h"

#define MAX_BACKOFF_MS 5000

/* One row waiting to be acknowledged. The key and the packed entry follow the
 * struct in the same allocation. */
typedef struct went {
	size_t key_len, len;
	uint64_t seq;          /* its number in add order */
	unsigned attempts;     /* calls it has been sent in */
	int64_t not_before_ms; /* retries: not before this time */
	int code;              /* last gRPC code seen for it */
	char *msg;             /* last failure text, malloc'd */
	uint8_t data[];        /* key, then the packed Entry */
} went;

static const uint8_t *went_key(const went *e) { return e->data; }
static const uint8_t *went_bytes(const went *e) { return e->data + e->key_len; }

static void went_free(went *e)
{
	if (e) {
		free(e->msg);
		free(e);
	}
}

typedef struct wcall wcall;
typedef struct wtag {
	wcall *call;
	int recv; /* 0: the status batch, 1: a receive */
} wtag;

struct wcall {
	grpc_call *call;
	grpc_byte_buffer *send;
	grpc_metadata md;
	grpc_metadata_array init_md, trail_md;
	grpc_status_code status;
	grpc_slice details;
	const char *errstr;
	grpc_byte_buffer *recv;
	int status_done, recv_done;
	wtag tag_status, tag_recv;
	went **ents;
	int *codes; /* per entry: -1 until the server reports on it */
	size_t n;
	char *protocol_error; /* set when a response made no sense */
};

struct rk_bt_writer {
	rk_bt_client *c;
	char *table_name;
	char *routing;
	char what[128];
	grpc_completion_queue *cq;
	wcall **calls;
	unsigned ncalls;
	went **fresh; /* FIFO of rows never sent */
	size_t fhead, fn, fcap;
	went **retry; /* rows waiting for their backoff */
	size_t rn, rcap;
	rk_bt_write_stats st;
	uint64_t failed_reported;
	uint64_t rng;
	rk_bt_row_done done;
	void *done_payload;
	/* the first row given up on since the last flush */
	int first_code;
	char first_key[200];
	char *first_msg;
	unsigned first_attempts;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int drive(rk_bt_writer *w, int all);

/* ---- setup ---- */

int rk_bt__writer_new(rk_bt_writer **out, rk_bt_client *c, const char *table)
{
	rk_bt_writer *w = calloc(1, sizeof *w);
	if (!w)
		return rk__err(RK_ENOMEM, "bigtable: out of memory for a writer");
	int rc = rk_bt__table_name(&w->table_name, c, table);
	if (rc < 0) {
		free(w);
		return rc;
	}
	w->c = c;
	snprintf(w->what, sizeof w->what, "bigtable MutateRows %.60s", table);
	w->routing = rk_bt__routing(w->table_name);
	w->calls = calloc(c->opts.inflight, sizeof *w->calls);
	w->rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)rk_bt__now_micros();
	if (!w->routing || !w->calls) {
		rk_bt__writer_free(w);
		return rk__err(RK_ENOMEM, "bigtable: out of memory for a writer");
	}
	w->cq = grpc_completion_queue_create_for_next(NULL);
	*out = w;
	return 0;
}

/* ---- packing rows ---- */

static int check_ts(const rk_bt_writer *w, int64_t ts, const char *what)
{
	if (ts < 0 || ts % 1000 != 0)
		return rk__err(RK_EINVALID,
		               "%s: %s %lld is not a whole number of milliseconds in microseconds "
		               "(Bigtable tables keep millisecond granularity)",
		               w->what, what, (long long)ts);
	return 0;
}

int rk_bt__writer_add(rk_bt_writer *w, const uint8_t *row, size_t row_len,
                      const rk_bt_mutation *muts, size_t nmuts)
{
	int rc;
	char kb[200];
	if (!row_len)
		return rk__err(RK_EINVALID, "%s: empty row key", w->what);
	if (row_len > RK_BT_MAX_KEY)
		return rk__err(RK_ETOOLONG, "%s: row key of %zu bytes is over Bigtable's 4 KiB limit",
		               w->what, row_len);
	if (!nmuts || nmuts > 100000)
		return rk__err(RK_EINVALID, "%s: row '%s': %zu mutations (want 1 to 100000)", w->what,
		               rk__err_bytes(kb, sizeof kb, row, row_len), nmuts);

	Rkbt__Mutation *m = calloc(nmuts, sizeof *m);
	Rkbt__Mutation **mp = calloc(nmuts, sizeof *mp);
	union {
		Rkbt__Mutation__SetCell set;
		Rkbt__Mutation__DeleteFromColumn col;
		Rkbt__Mutation__DeleteFromFamily fam;
		Rkbt__Mutation__DeleteFromRow row;
	} *sub = calloc(nmuts, sizeof *sub);
	Rkbt__TimestampRange *tr = calloc(nmuts, sizeof *tr);
	went *e = NULL;
	if (!m || !mp || !sub || !tr) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", w->what);
		goto done;
	}
	int64_t now = RK_BT_TS_NOW;
	for (size_t i = 0; i < nmuts; i++) {
		const rk_bt_mutation *u = &muts[i];
		rkbt__mutation__init(&m[i]);
		mp[i] = &m[i];
		if (u->kind != RK_BT_DELETE_ROW && (!u->family || !*u->family)) {
			rc = rk__err(RK_EINVALID, "%s: row '%s': mutation %zu has no family", w->what,
			             rk__err_bytes(kb, sizeof kb, row, row_len), i);
			goto done;
		}
		switch (u->kind) {
		case RK_BT_SET_CELL: {
			int64_t ts = u->ts_micros;
			if (ts == RK_BT_TS_NOW) {
				if (now == RK_BT_TS_NOW)
					now = rk_bt__now_micros();
				ts = now;
			}
			if ((rc = check_ts(w, ts, "timestamp")) < 0)
				goto done;
			rkbt__mutation__set_cell__init(&sub[i].set);
			sub[i].set.family_name = (char *)u->family;
			sub[i].set.column_qualifier.data = (uint8_t *)u->qualifier;
			sub[i].set.column_qualifier.len = u->qualifier_len;
			sub[i].set.timestamp_micros = ts;
			sub[i].set.value.data = (uint8_t *)u->value;
			sub[i].set.value.len = u->value_len;
			m[i].mutation_case = RKBT__MUTATION__MUTATION_SET_CELL;
			m[i].set_cell = &sub[i].set;
			break;
		}
		case RK_BT_DELETE_COLUMN:
			if ((rc = check_ts(w, u->ts_micros, "delete range start")) < 0 ||
			    (rc = check_ts(w, u->ts_end_micros, "delete range end")) < 0)
				goto done;
			if (u->ts_end_micros && u->ts_end_micros <= u->ts_micros) {
				rc = rk__err(RK_EINVALID, "%s: empty delete range [%lld, %lld)", w->what,
				             (long long)u->ts_micros, (long long)u->ts_end_micros);
				goto done;
			}
			rkbt__mutation__delete_from_column__init(&sub[i].col);
			sub[i].col.family_name = (char *)u->family;
			sub[i].col.column_qualifier.data = (uint8_t *)u->qualifier;
			sub[i].col.column_qualifier.len = u->qualifier_len;
			if (u->ts_micros || u->ts_end_micros) {
				rkbt__timestamp_range__init(&tr[i]);
				tr[i].start_timestamp_micros = u->ts_micros;
				tr[i].end_timestamp_micros = u->ts_end_micros;
				sub[i].col.time_range = &tr[i];
			}
			m[i].mutation_case = RKBT__MUTATION__MUTATION_DELETE_FROM_COLUMN;
			m[i].delete_from_column = &sub[i].col;
			break;
		case RK_BT_DELETE_FAMILY:
			rkbt__mutation__delete_from_family__init(&sub[i].fam);
			sub[i].fam.family_name = (char *)u->family;
			m[i].mutation_case = RKBT__MUTATION__MUTATION_DELETE_FROM_FAMILY;
			m[i].delete_from_family = &sub[i].fam;
			break;
		case RK_BT_DELETE_ROW:
			rkbt__mutation__delete_from_row__init(&sub[i].row);
			m[i].mutation_case = RKBT__MUTATION__MUTATION_DELETE_FROM_ROW;
			m[i].delete_from_row = &sub[i].row;
			break;
		default:
			rc = rk__err(RK_EINVALID, "%s: mutation %zu has unknown kind %d", w->what, i, u->kind);
			goto done;
		}
	}
	Rkbt__MutateRowsRequest__Entry ent;
	rkbt__mutate_rows_request__entry__init(&ent);
	ent.row_key.data = (uint8_t *)row;
	ent.row_key.len = row_len;
	ent.n_mutations = nmuts;
	ent.mutations = mp;
	size_t len = protobuf_c_message_get_packed_size(&ent.base);
	e = malloc(sizeof *e + row_len + len);
	if (!e) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", w->what);
		goto done;
	}
	memset(e, 0, sizeof *e);
	e->key_len = row_len;
	e->len = len;
	e->seq = w->st.rows_added;
	memcpy(e->data, row, row_len);
	protobuf_c_message_pack(&ent.base, e->data + row_len);

	if (w->fn == w->fcap) {
		size_t ncap = w->fcap ? w->fcap * 2 : 1024;
		went **nq = malloc(ncap * sizeof *nq);
		if (!nq) {
			rc = rk__err(RK_ENOMEM, "%s: out of memory", w->what);
			goto done;
		}
		for (size_t i = 0; i < w->fn; i++)
			nq[i] = w->fresh[(w->fhead + i) % w->fcap];
		free(w->fresh);
		w->fresh = nq;
		w->fcap = ncap;
		w->fhead = 0;
	}
	w->fresh[(w->fhead + w->fn) % w->fcap] = e;
	w->fn++;
	e = NULL;
	w->st.rows_added++;
	rc = 0;
done:
	free(e);
	free(m);
	free(mp);
	free(sub);
	free(tr);
	if (rc < 0)
		return rc;
	/* a full batch goes out now, waiting for a free slot if need be */
	return w->fn >= w->c->opts.batch_size ? drive(w, 0) : 0;
}

/* ---- calls ---- */

static void wcall_free(wcall *k)
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
static int start_call(rk_bt_writer *w, went **ents, size_t n)
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
		wcall_free(k);
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
		wcall_free(k);
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
		wcall_free(k);
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

static int push_retry(rk_bt_writer *w, went *e)
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

static void give_up(rk_bt_writer *w, went *e)
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
			if (push_retry(w, e) < 0) {
				set_msg(e, "out of memory for the retry list");
				give_up(w, e);
			} else {
				w->st.retries++;
			}
		} else {
			give_up(w, e);
		}
	}
	gpr_free(details);
	for (unsigned i = 0; i < w->ncalls; i++)
		if (w->calls[i] == k) {
			w->calls[i] = w->calls[--w->ncalls];
			break;
		}
	wcall_free(k);
}

/* Handles one completion-queue event, waiting until `deadline` at most. */
static int wait_event(rk_bt_writer *w, gpr_timespec deadline)
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

/* ---- scheduling ---- */

/* Starts calls while there are free slots and entries ready: full batches of
 * fresh rows, ready retries, and when `all`, partial batches too. */
static int pump(rk_bt_writer *w, int all)
{
	const rk_bt_opts *o = &w->c->opts;
	int rc;
	while (w->ncalls < o->inflight) {
		int64_t now = now_ms();
		size_t ready = 0;
		for (size_t i = 0; i < w->rn; i++)
			ready += w->retry[i]->not_before_ms <= now;
		if (!ready && w->fn < o->batch_size && !(all && w->fn))
			return 0;
		size_t n = 0, cap = o->batch_size;
		went **batch = malloc(cap * sizeof *batch);
		if (!batch)
			return rk__err(RK_ENOMEM, "%s: out of memory", w->what);
		/* ready retries first, keeping the others in order */
		size_t keep = 0;
		for (size_t i = 0; i < w->rn; i++) {
			if (n < cap && w->retry[i]->not_before_ms <= now)
				batch[n++] = w->retry[i];
			else
				w->retry[keep++] = w->retry[i];
		}
		w->rn = keep;
		size_t from_fresh = 0;
		while (n < cap && w->fn) {
			batch[n++] = w->fresh[w->fhead];
			w->fhead = (w->fhead + 1) % w->fcap;
			w->fn--;
			from_fresh++;
		}
		rc = start_call(w, batch, n);
		if (rc < 0) {
			/* put them back: retries to the retry list, fresh ones to the front */
			for (size_t i = 0; i < from_fresh; i++) {
				w->fhead = (w->fhead + w->fcap - 1) % w->fcap;
				w->fresh[w->fhead] = batch[n - 1 - i];
				w->fn++;
			}
			for (size_t i = 0; i < n - from_fresh; i++)
				if (push_retry(w, batch[i]) < 0)
					give_up(w, batch[i]);
			free(batch);
			return rc;
		}
		free(batch);
	}
	return 0;
}

static int64_t earliest_retry(const rk_bt_writer *w)
{
	int64_t t = INT64_MAX;
	for (size_t i = 0; i < w->rn; i++)
		if (w->retry[i]->not_before_ms < t)
			t = w->retry[i]->not_before_ms;
	return t;
}

static gpr_timespec until(int64_t t_ms)
{
	int64_t d = t_ms - now_ms();
	if (d < 0)
		d = 0;
	return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(d, GPR_TIMESPAN));
}

/* Drives calls until `all` the queued rows are settled, or (not all) until a
 * full batch's worth of fresh rows no longer waits for a slot. */
static int drive(rk_bt_writer *w, int all)
{
	int rc;
	for (;;) {
		if ((rc = pump(w, all)) < 0)
			return rc;
		if (!all && w->fn < w->c->opts.batch_size)
			return 0;
		if (all && !w->ncalls && !w->fn && !w->rn)
			return 0;
		gpr_timespec dl = w->rn ? until(earliest_retry(w)) : gpr_inf_future(GPR_CLOCK_MONOTONIC);
		if (w->ncalls) {
			if ((rc = wait_event(w, dl)) < 0)
				return rc;
		} else {
			/* only retries waiting for their backoff */
			int64_t d = earliest_retry(w) - now_ms();
			if (d > 0) {
				struct timespec ts = {(time_t)(d / 1000), (long)(d % 1000) * 1000000};
				nanosleep(&ts, NULL);
			}
		}
	}
}

/* ---- public ---- */

int rk_bt__writer_flush(rk_bt_writer *w)
{
	int rc = drive(w, 1);
	if (rc < 0)
		return rc;
	uint64_t failed = w->st.rows_failed - w->failed_reported;
	if (!failed)
		return 0;
	w->failed_reported = w->st.rows_failed;
	int code = w->first_code;
	rc = rk_bt__status_err(code, w->first_msg, w->what);
	rc = rk__err(rc,
	             "%s: %llu of %llu rows failed (%llu acknowledged); first: row '%s' after %u "
	             "attempt%s: %s: %s",
	             w->what, (unsigned long long)failed, (unsigned long long)w->st.rows_added,
	             (unsigned long long)w->st.rows_acked, w->first_key, w->first_attempts,
	             w->first_attempts == 1 ? "" : "s", rk_bt__code_name(code),
	             w->first_msg && *w->first_msg ? w->first_msg : "(no details)");
	free(w->first_msg);
	w->first_msg = NULL;
	return rc;
}

void rk_bt__writer_stats(rk_bt_write_stats *out, const rk_bt_writer *w)
{
	*out = w->st;
}

void rk_bt__writer_on_done(rk_bt_writer *w, rk_bt_row_done cb, void *payload)
{
	w->done = cb;
	w->done_payload = payload;
}

void rk_bt__writer_free(rk_bt_writer *w)
{
	if (!w)
		return;
	if (w->cq) {
		for (unsigned i = 0; i < w->ncalls; i++)
			grpc_call_cancel(w->calls[i]->call, NULL);
		while (w->ncalls) {
			grpc_event ev = grpc_completion_queue_next(w->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC),
			                                           NULL);
			if (ev.type != GRPC_OP_COMPLETE)
				break;
			wtag *t = ev.tag;
			wcall *k = t->call;
			if (!t->recv) {
				k->status_done = 1;
			} else {
				if (k->recv) {
					grpc_byte_buffer_destroy(k->recv);
					k->recv = NULL;
				}
				k->recv_done = 1; /* no new receive after a cancel */
			}
			if (k->status_done && k->recv_done) {
				for (size_t j = 0; j < k->n; j++)
					went_free(k->ents[j]);
				for (unsigned j = 0; j < w->ncalls; j++)
					if (w->calls[j] == k) {
						w->calls[j] = w->calls[--w->ncalls];
						break;
					}
				wcall_free(k);
			}
		}
		grpc_completion_queue_shutdown(w->cq);
		while (grpc_completion_queue_next(w->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type !=
		       GRPC_QUEUE_SHUTDOWN)
			;
		grpc_completion_queue_destroy(w->cq);
	}
	for (size_t i = 0; i < w->fn; i++)
		went_free(w->fresh[(w->fhead + i) % w->fcap]);
	for (size_t i = 0; i < w->rn; i++)
		went_free(w->retry[i]);
	free(w->fresh);
	free(w->retry);
	free(w->calls);
	free(w->first_msg);
	free(w->routing);
	free(w->table_name);
	free(w);
}
