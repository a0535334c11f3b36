/*
 * The MutateRows writer: batches, calls in flight, per-entry status, retries.
 * This file holds the writer and its scheduling; its calls are in
 * bt_wcall.c (around bt_write_int.h), the mutations' messages in
 * bt_mutation.c.
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
#include "store/bigtable/bt_write_int.h"

#include <grpc/byte_buffer_reader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt_data.pb-c.h"
#include "key/error.h"

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

	Rkbt__Mutation **mp;
	void *mem;
	went *e = NULL;
	if ((rc = rk_bt__pack_mutations(&mp, &mem, muts, nmuts, w->what, row, row_len)) < 0)
		return rc;
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
	free(mem);
	if (rc < 0)
		return rc;
	/* a full batch goes out now, waiting for a free slot if need be */
	return w->fn >= w->c->opts.batch_size ? drive(w, 0) : 0;
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
		rc = rk_bt__start_call(w, batch, n);
		if (rc < 0) {
			/* put them back: retries to the retry list, fresh ones to the front */
			for (size_t i = 0; i < from_fresh; i++) {
				w->fhead = (w->fhead + w->fcap - 1) % w->fcap;
				w->fresh[w->fhead] = batch[n - 1 - i];
				w->fn++;
			}
			for (size_t i = 0; i < n - from_fresh; i++)
				if (rk_bt__push_retry(w, batch[i]) < 0)
					rk_bt__give_up(w, batch[i]);
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
			if ((rc = rk_bt__wait_event(w, dl)) < 0)
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
				rk_bt__wcall_free(k);
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
