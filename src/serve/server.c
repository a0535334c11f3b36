/*
 * The gRPC side of `rowkey serve`: the C core server on plaintext HTTP/2,
 * one thread per call. An accept thread keeps a few call requests posted on
 * the notification queue; each call arrives bound to a completion queue of
 * its own, which its thread drives alone: read the one request message,
 * run the call (admin.c, data.c), send the responses one at a time (a
 * failed send means the client is gone: the call stops and frees
 * everything), then the status.
 */
#include "serve/serve.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "serve/serve_int.h"

#define ACCEPTS 8 /* call requests kept posted (while under the call limit) */

typedef struct slot {
	grpc_call *call;
	grpc_call_details details;
	grpc_metadata_array md;
	grpc_completion_queue *cq;
	struct rk_sv_server *srv;
} slot;

struct rk_sv_server {
	grpc_server *server;
	grpc_completion_queue *ncq;
	grpc_resource_quota *quota;
	rk_sv_limits lim;
	rk_sv_env env;
	char project[128], instance[128];
	pthread_t acceptor;
	int have_acceptor;
	atomic_int stopping;
	unsigned drain_ms;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned running, posted;
	unsigned long long answered, stalled;
	int shutdown_tag;
};

/* ---- one call ---- */

typedef struct callctx {
	grpc_call *call;
	grpc_completion_queue *cq;
	int sent_md;
	int closed; /* RECV_CLOSE_ON_SERVER completed */
	int cancelled;
	int close_tag, op_tag;
	unsigned stall_ms; /* the client's part of a step may take this long */
	int stalled;       /* the call was cancelled for it */
} callctx;

/* Waits for `tag` on the call's queue; 1 when its batch succeeded. A client
 * that takes longer than the stall limit over its part (sending the
 * request, taking a response the flow control holds back) has its call
 * cancelled with DEADLINE_EXCEEDED, so it cannot hold a call thread: the
 * wait then ends as soon as gRPC fails the batch. */
static int wait_tag(callctx *c, void *tag)
{
	for (;;) {
		gpr_timespec dl = c->stalled ? gpr_inf_future(GPR_CLOCK_MONOTONIC)
		                             : gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
		                                            gpr_time_from_millis(c->stall_ms,
		                                                                 GPR_TIMESPAN));
		grpc_event ev = grpc_completion_queue_next(c->cq, dl, NULL);
		if (ev.type == GRPC_QUEUE_TIMEOUT) {
			c->stalled = 1;
			grpc_call_cancel_with_status(c->call, GRPC_STATUS_DEADLINE_EXCEEDED,
			                             "rowkey serve: the client stalled (sent or took "
			                             "nothing for the server's stall limit)",
			                             NULL);
			continue;
		}
		if (ev.type != GRPC_OP_COMPLETE)
			return 0;
		if (ev.tag == &c->close_tag) {
			c->closed = 1;
			if (tag == &c->close_tag)
				return 1;
			continue;
		}
		if (ev.tag == tag)
			return ev.success;
	}
}

static int send_one(void *arg, const uint8_t *msg, size_t len)
{
	callctx *c = arg;
	if (c->cancelled || (c->closed && c->cancelled))
		return 1;
	grpc_op ops[2];
	memset(ops, 0, sizeof ops);
	size_t n = 0;
	if (!c->sent_md) {
		ops[n].op = GRPC_OP_SEND_INITIAL_METADATA;
		n++;
		c->sent_md = 1;
	}
	grpc_slice s = grpc_slice_from_copied_buffer((const char *)msg, len);
	grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	ops[n].op = GRPC_OP_SEND_MESSAGE;
	ops[n].data.send_message.send_message = bb;
	n++;
	int ok = grpc_call_start_batch(c->call, ops, n, &c->op_tag, NULL) == GRPC_CALL_OK &&
	         wait_tag(c, &c->op_tag);
	grpc_byte_buffer_destroy(bb);
	return ok ? 0 : 1;
}

/* The request message, copied into *buf (malloc'd). */
static int recv_request(callctx *c, uint8_t **buf, size_t *len, rk_sv_status *st)
{
	grpc_byte_buffer *bb = NULL;
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_RECV_MESSAGE;
	op.data.recv_message.recv_message = &bb;
	if (grpc_call_start_batch(c->call, &op, 1, &c->op_tag, NULL) != GRPC_CALL_OK ||
	    !wait_tag(c, &c->op_tag))
		return rk_sv__fail(st, RK_SV_CANCELLED, RK_EIO, "the request did not arrive");
	if (!bb)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "no request message in the call");
	grpc_byte_buffer_reader r;
	if (!grpc_byte_buffer_reader_init(&r, bb)) {
		grpc_byte_buffer_destroy(bb);
		return rk_sv__fail(st, RK_SV_INTERNAL, RK_EIO, "cannot read the request");
	}
	grpc_slice s = grpc_byte_buffer_reader_readall(&r);
	grpc_byte_buffer_reader_destroy(&r);
	grpc_byte_buffer_destroy(bb);
	*len = GRPC_SLICE_LENGTH(s);
	*buf = malloc(*len ? *len : 1);
	if (*buf && *len)
		memcpy(*buf, GRPC_SLICE_START_PTR(s), *len);
	grpc_slice_unref(s);
	if (!*buf)
		return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
	return 0;
}

static void finish(callctx *c, const rk_sv_status *st)
{
	grpc_op ops[2];
	memset(ops, 0, sizeof ops);
	size_t n = 0;
	if (!c->sent_md) {
		ops[n].op = GRPC_OP_SEND_INITIAL_METADATA;
		n++;
		c->sent_md = 1;
	}
	grpc_slice details = grpc_slice_from_copied_string(st->code ? st->msg : "");
	ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
	ops[n].data.send_status_from_server.status = (grpc_status_code)st->code;
	ops[n].data.send_status_from_server.status_details = &details;
	n++;
	if (grpc_call_start_batch(c->call, ops, n, &c->op_tag, NULL) == GRPC_CALL_OK)
		wait_tag(c, &c->op_tag);
	grpc_slice_unref(details);
}

static void run_call(struct rk_sv_server *srv, slot *sl)
{
	callctx c = {sl->call, sl->cq, 0, 0, 0, 0, 0, srv->lim.stall_ms, 0};
	rk_sv_status st = {RK_SV_OK, ""};
	char path[256];
	size_t pl = GRPC_SLICE_LENGTH(sl->details.method);
	if (pl >= sizeof path)
		pl = sizeof path - 1;
	memcpy(path, GRPC_SLICE_START_PTR(sl->details.method), pl);
	path[pl] = 0;

	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	op.data.recv_close_on_server.cancelled = &c.cancelled;
	int close_started =
	        grpc_call_start_batch(c.call, &op, 1, &c.close_tag, NULL) == GRPC_CALL_OK;

	uint8_t *req = NULL;
	size_t len = 0;
	static const char data_svc[] = "/google.bigtable.v2.Bigtable/";
	static const char admin_svc[] = "/google.bigtable.admin.v2.BigtableTableAdmin/";
	int is_data = strncmp(path, data_svc, sizeof data_svc - 1) == 0;
	int is_admin = strncmp(path, admin_svc, sizeof admin_svc - 1) == 0;
	if (!is_data && !is_admin) {
		rk_sv__fail(&st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
		            "%s: rowkey serve implements google.bigtable.v2.Bigtable and "
		            "google.bigtable.admin.v2.BigtableTableAdmin only",
		            path);
	} else if (recv_request(&c, &req, &len, &st) == 0) {
		rk_sv_sink sink = {send_one, &c};
		if (is_data) {
			rk_sv__data_call(&srv->env, path + sizeof data_svc - 1, req, len,
			                 &sink, &st);
		} else {
			uint8_t *resp = NULL;
			size_t rl = 0;
			if (rk_sv__admin_unary(&srv->env, path + sizeof admin_svc - 1, req, len, &resp,
			                       &rl, &st) == 0 &&
			    send_one(&c, resp, rl))
				rk_sv__fail(&st, RK_SV_CANCELLED, RK_EIO, "the client went away");
			free(resp);
		}
	}
	free(req);
	if (!c.stalled)
		finish(&c, &st);
	if (close_started && !c.closed)
		wait_tag(&c, &c.close_tag);
	grpc_call_unref(c.call);
	if (c.stalled) {
		pthread_mutex_lock(&srv->mu);
		srv->stalled++;
		pthread_mutex_unlock(&srv->mu);
	}
}

static void slot_free(slot *sl)
{
	grpc_completion_queue_shutdown(sl->cq);
	while (grpc_completion_queue_next(sl->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
	       GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(sl->cq);
	grpc_call_details_destroy(&sl->details);
	grpc_metadata_array_destroy(&sl->md);
	free(sl);
}

static void *call_thread(void *arg)
{
	slot *sl = arg;
	struct rk_sv_server *srv = sl->srv;
	run_call(srv, sl);
	slot_free(sl);
	pthread_mutex_lock(&srv->mu);
	srv->running--;
	srv->answered++;
	pthread_cond_broadcast(&srv->cv);
	pthread_mutex_unlock(&srv->mu);
	return NULL;
}

/* ---- accepting ---- */


/* Posts one call request (srv->mu held by the caller or not needed). */
static int post(struct rk_sv_server *srv)
{
	slot *sl = calloc(1, sizeof *sl);
	if (!sl)
		return RK_ENOMEM;
	sl->srv = srv;
	grpc_call_details_init(&sl->details);
	grpc_metadata_array_init(&sl->md);
	sl->cq = grpc_completion_queue_create_for_next(NULL);
	if (grpc_server_request_call(srv->server, &sl->call, &sl->details, &sl->md, sl->cq,
	                             srv->ncq, sl) != GRPC_CALL_OK) {
		slot_free(sl);
		return RK_EIO;
	}
	srv->posted++;
	return 0;
}

/* Keeps ACCEPTS call requests posted, as long as the calls running and
 * posted stay under the call limit: past it, new calls wait in gRPC (on
 * their connections' flow control) until one ends, rather than each taking
 * a thread. */
static void post_more(struct rk_sv_server *srv)
{
	pthread_mutex_lock(&srv->mu);
	while (srv->posted < ACCEPTS && srv->running + srv->posted < srv->lim.max_calls)
		if (post(srv))
			break;
	pthread_mutex_unlock(&srv->mu);
}

static void *acceptor(void *arg)
{
	struct rk_sv_server *srv = arg;
	int shutting = 0;
	gpr_timespec drain_end = gpr_inf_future(GPR_CLOCK_MONOTONIC);
	for (;;) {
		if (!shutting && atomic_load(&srv->stopping)) {
			shutting = 1;
			grpc_server_shutdown_and_notify(srv->server, srv->ncq, &srv->shutdown_tag);
			drain_end = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
			                         gpr_time_from_millis(srv->drain_ms, GPR_TIMESPAN));
		}
		if (shutting && gpr_time_cmp(gpr_now(GPR_CLOCK_MONOTONIC), drain_end) > 0) {
			grpc_server_cancel_all_calls(srv->server);
			drain_end = gpr_inf_future(GPR_CLOCK_MONOTONIC);
		}
		if (!shutting)
			post_more(srv); /* calls that ended made room */
		gpr_timespec dl = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
		                               gpr_time_from_millis(100, GPR_TIMESPAN));
		grpc_event ev = grpc_completion_queue_next(srv->ncq, dl, NULL);
		if (ev.type == GRPC_QUEUE_TIMEOUT)
			continue;
		if (ev.type != GRPC_OP_COMPLETE)
			break;
		if (ev.tag == &srv->shutdown_tag)
			break;
		slot *sl = ev.tag;
		pthread_mutex_lock(&srv->mu);
		srv->posted--;
		if (ev.success)
			srv->running++;
		pthread_mutex_unlock(&srv->mu);
		if (!ev.success) {
			slot_free(sl);
			continue;
		}
		pthread_t th;
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&th, &at, call_thread, sl) != 0) {
			/* no thread: answer from here */
			call_thread(sl);
		}
		pthread_attr_destroy(&at);
		if (!shutting)
			post_more(srv);
	}
	return NULL;
}

/* The channel arguments of the limits: gRPC enforces these itself. */
static grpc_channel_args *server_args(grpc_arg *args, grpc_channel_args *ca,
                                      const rk_sv_limits *lim, grpc_resource_quota *quota)
{
	static const struct {
		const char *key;
		int lim_field; /* 0 max_request, 1 max_streams, 2 idle_ms, or -1: value below */
		int value;
	} ints[] = {
		{GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, 0, 0},
		{GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, -1, -1},
		{GRPC_ARG_MAX_CONCURRENT_STREAMS, 1, 0},
		{GRPC_ARG_MAX_CONNECTION_IDLE_MS, 2, 0},
		/* ping a silent client every 2 minutes; no answer in 20 s: gone */
		{GRPC_ARG_KEEPALIVE_TIME_MS, -1, 120000},
		{GRPC_ARG_KEEPALIVE_TIMEOUT_MS, -1, 20000},
	};
	size_t n = 0;
	for (; n < sizeof ints / sizeof ints[0]; n++) {
		args[n].type = GRPC_ARG_INTEGER;
		args[n].key = (char *)ints[n].key;
		args[n].value.integer = ints[n].lim_field == 0   ? (int)lim->max_request
		                        : ints[n].lim_field == 1 ? (int)lim->max_streams
		                        : ints[n].lim_field == 2 ? (int)lim->idle_ms
		                                                 : ints[n].value;
	}
	args[n].type = GRPC_ARG_POINTER;
	args[n].key = (char *)GRPC_ARG_RESOURCE_QUOTA;
	args[n].value.pointer.p = quota;
	args[n].value.pointer.vtable = grpc_resource_quota_arg_vtable();
	ca->num_args = n + 1;
	ca->args = args;
	return ca;
}

int rk_sv_server_start(rk_sv_server **out, rk_store *store, const char *listen,
                       const char *project, const char *instance, const rk_sv_limits *lim,
                       char *bound, size_t cap)
{
	static const rk_sv_limits defaults = RK_SV_LIMITS_INIT;
	struct rk_sv_server *srv = calloc(1, sizeof *srv);
	if (!srv)
		return rk__err(RK_ENOMEM, "serve: out of memory");
	srv->lim = lim ? *lim : defaults;
	snprintf(srv->project, sizeof srv->project, "%s", project);
	snprintf(srv->instance, sizeof srv->instance, "%s", instance);
	pthread_mutex_init(&srv->mu, NULL);
	pthread_cond_init(&srv->cv, NULL);
	atomic_init(&srv->stopping, 0);
	srv->drain_ms = 30000;
	int rc = rk_sv__tables_new(&srv->env.tables, store);
	if (!rc)
		rc = rk_sv__catalog_new(&srv->env.catalog, store, srv->env.tables);
	if (!rc && (rc = rk_sv__mirrors_new(&srv->env.mirrors, store, srv->env.tables,
	                                    srv->env.catalog)) != 0)
		rk_sv__catalog_free(srv->env.catalog);
	if (rc) {
		rk_sv__tables_free(srv->env.tables);
		free(srv);
		return rc;
	}
	srv->env.store = store;
	srv->env.project = srv->project;
	srv->env.instance = srv->instance;
	grpc_init();
	grpc_arg args[8];
	grpc_channel_args ca;
	srv->quota = grpc_resource_quota_create("rowkey serve");
	grpc_resource_quota_resize(srv->quota, srv->lim.memory);
	srv->server = grpc_server_create(server_args(args, &ca, &srv->lim, srv->quota), NULL);
	srv->ncq = grpc_completion_queue_create_for_next(NULL);
	grpc_server_register_completion_queue(srv->server, srv->ncq, NULL);
	grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
	int port = grpc_server_add_http2_port(srv->server, listen, creds);
	grpc_server_credentials_release(creds);
	if (port <= 0) {
		rc = rk__err(RK_EIO, "serve: cannot listen on %s (in use, or not HOST:PORT)", listen);
		grpc_server_destroy(srv->server);
		grpc_completion_queue_shutdown(srv->ncq);
		while (grpc_completion_queue_next(srv->ncq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL)
		               .type != GRPC_QUEUE_SHUTDOWN)
			;
		grpc_completion_queue_destroy(srv->ncq);
		grpc_resource_quota_unref(srv->quota);
		grpc_shutdown();
		rk_sv__mirrors_free(srv->env.mirrors);
		rk_sv__catalog_free(srv->env.catalog);
		rk_sv__tables_free(srv->env.tables);
		free(srv);
		return rc;
	}
	/* the address as bound: the host given, the port chosen */
	const char *colon = strrchr(listen, ':');
	int hl = colon ? (int)(colon - listen) : (int)strlen(listen);
	snprintf(bound, cap, "%.*s:%d", hl, listen, port);
	grpc_server_start(srv->server);
	post_more(srv);
	if (pthread_create(&srv->acceptor, NULL, acceptor, srv) != 0) {
		rk_sv_server_stop(srv, 0);
		return rk__err(RK_EIO, "serve: cannot start a thread");
	}
	srv->have_acceptor = 1;
	*out = srv;
	return 0;
}

void rk_sv_server_rekey_live(struct rk_rekey_live *out, rk_sv_server *s)
{
	rk_sv__mirrors_live(out, s->env.mirrors);
}

const rk_sv_env *rk_sv__server_env(const rk_sv_server *s)
{
	return &s->env;
}

void rk_sv_server_counts(const rk_sv_server *s, unsigned long long *answered,
                         unsigned *in_flight, unsigned long long *stalled)
{
	pthread_mutex_lock((pthread_mutex_t *)&s->mu);
	*answered = s->answered;
	*in_flight = s->running;
	if (stalled)
		*stalled = s->stalled;
	pthread_mutex_unlock((pthread_mutex_t *)&s->mu);
}

void rk_sv_server_stop(rk_sv_server *srv, unsigned drain_ms)
{
	if (!srv)
		return;
	srv->drain_ms = drain_ms;
	atomic_store(&srv->stopping, 1);
	if (srv->have_acceptor) {
		pthread_join(srv->acceptor, NULL);
	} else {
		grpc_server_shutdown_and_notify(srv->server, srv->ncq, &srv->shutdown_tag);
		grpc_server_cancel_all_calls(srv->server);
		for (;;) { /* until the shutdown is done; posted requests come back failed */
			grpc_event ev = grpc_completion_queue_next(
			        srv->ncq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
			if (ev.type != GRPC_OP_COMPLETE || ev.tag == &srv->shutdown_tag)
				break;
			slot_free(ev.tag);
		}
	}
	pthread_mutex_lock(&srv->mu);
	while (srv->running)
		pthread_cond_wait(&srv->cv, &srv->mu);
	pthread_mutex_unlock(&srv->mu);
	grpc_server_destroy(srv->server);
	grpc_completion_queue_shutdown(srv->ncq);
	for (;;) {
		grpc_event ev = grpc_completion_queue_next(srv->ncq, gpr_inf_future(GPR_CLOCK_REALTIME),
		                                           NULL);
		if (ev.type == GRPC_QUEUE_SHUTDOWN)
			break;
		if (ev.type == GRPC_OP_COMPLETE && ev.tag != &srv->shutdown_tag)
			slot_free(ev.tag);
	}
	grpc_completion_queue_destroy(srv->ncq);
	grpc_resource_quota_unref(srv->quota);
	grpc_shutdown();
	rk_sv__mirrors_free(srv->env.mirrors);
	rk_sv__catalog_free(srv->env.catalog);
	rk_sv__tables_free(srv->env.tables);
	pthread_mutex_destroy(&srv->mu);
	pthread_cond_destroy(&srv->cv);
	free(srv);
}
