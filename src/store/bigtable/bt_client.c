/*
 * The Bigtable client: URI, channels and credentials, the gRPC call helper
 * (one call on its own completion queue, unary or server-streaming, raw byte
 * buffers in and out), status mapping, the table-admin calls and
 * SampleRowKeys. Writes live in bt_write.c, reads in bt_read.c.
 *
 * The emulator path (BIGTABLE_EMULATOR_HOST) uses an insecure channel; the
 * real service uses TLS with Google default credentials, which the C core
 * builds from GOOGLE_APPLICATION_CREDENTIALS, gcloud's application-default
 * file, or the GCE metadata server. That path is kept minimal: it is only
 * exercised here as far as building the credentials.
 */
#include "store/bigtable/bt_int.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bt_admin.pb-c.h"
#include "bt_data.pb-c.h"
#include "key/error.h"

#define ROOTS_PEM "/usr/share/grpc/roots.pem"
#define DATA_HOST "bigtable.googleapis.com:443"
#define ADMIN_HOST "bigtableadmin.googleapis.com:443"

/* ---- status codes ---- */

static const char *const code_names[] = {
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
	"ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
	"UNAUTHENTICATED",
};

const char *rk_bt__code_name(int code)
{
	if (code >= 0 && (size_t)code < sizeof code_names / sizeof code_names[0])
		return code_names[code];
	return "UNKNOWN_CODE";
}

int rk_bt__code_retryable(int code)
{
	return code == GRPC_STATUS_DEADLINE_EXCEEDED || code == GRPC_STATUS_ABORTED ||
	       code == GRPC_STATUS_UNAVAILABLE;
}

int rk_bt__code_rk(int code)
{
	switch (code) {
	case GRPC_STATUS_OK: return 0;
	case GRPC_STATUS_NOT_FOUND: return RK_ENOTFOUND;
	case GRPC_STATUS_ALREADY_EXISTS: return RK_EEXISTS;
	case GRPC_STATUS_INVALID_ARGUMENT:
	case GRPC_STATUS_FAILED_PRECONDITION:
	case GRPC_STATUS_OUT_OF_RANGE: return RK_EINVALID;
	case GRPC_STATUS_RESOURCE_EXHAUSTED: return RK_EBUSY;
	default: return RK_EIO;
	}
}

int rk_bt__status_err(int code, const char *details, const char *what)
{
	int rc = code == GRPC_STATUS_OK ? RK_EIO : rk_bt__code_rk(code);
	return rk__err(rc, "%s: %s: %s", what, rk_bt__code_name(code),
	               details && *details ? details : "(no details)");
}

/* ---- small helpers ---- */

gpr_timespec rk_bt__deadline(unsigned ms)
{
	if (!ms)
		return gpr_inf_future(GPR_CLOCK_REALTIME);
	return gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
	                    gpr_time_from_millis((int64_t)ms, GPR_TIMESPAN));
}

int64_t rk_bt__now_micros(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000) * 1000;
}

int64_t rk_bt__client_next_ts(rk_bt_client *c)
{
	int64_t last = atomic_load(&c->last_ts_ms), next;
	do {
		int64_t now = rk_bt__now_micros() / 1000;
		next = now > last ? now : last + 1;
	} while (!atomic_compare_exchange_weak(&c->last_ts_ms, &last, next));
	return next * 1000;
}

size_t rk_bt__regex_quote(char *out, const uint8_t *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t ch = s[i];
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    ch == '_') {
			out[o++] = (char)ch;
		} else if (ch > 0x20 && ch < 0x7f) {
			out[o++] = '\\';
			out[o++] = (char)ch;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[ch >> 4];
			out[o++] = hex[ch & 15];
		}
	}
	out[o] = 0;
	return o;
}

size_t rk_bt__prefix_end(uint8_t *out, const uint8_t *p, size_t n)
{
	while (n && p[n - 1] == 0xff)
		n--;
	if (!n)
		return 0;
	memcpy(out, p, n);
	out[n - 1]++;
	return n;
}

static int id_ok(const char *s, size_t max, int first_any)
{
	size_t n = strnlen(s, max + 1);
	if (n == 0 || n > max)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		int alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		            (ch >= '0' && ch <= '9') || ch == '_';
		if (!alnum && !((i > 0 || first_any) && (ch == '-' || ch == '.')))
			return 0;
	}
	return 1;
}

int rk_bt__table_name(char **out, const rk_bt_client *c, const char *table)
{
	if (!table || !id_ok(table, 50, 0))
		return rk__err(RK_EINVALID,
		               "bigtable: bad table id '%s': want 1-50 characters of "
		               "[-_.a-zA-Z0-9], not starting with '-' or '.'",
		               table ? table : "(null)");
	size_t n = strlen(c->instance_name) + strlen(table) + 9;
	char *s = malloc(n);
	if (!s)
		return rk__err(RK_ENOMEM, "bigtable: out of memory");
	snprintf(s, n, "%s/tables/%s", c->instance_name, table);
	*out = s;
	return 0;
}

char *rk_bt__routing(const char *table_name)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(table_name);
	char *s = malloc(11 + 3 * n + 1), *p = s;
	if (!s)
		return NULL;
	memcpy(p, "table_name=", 11);
	p += 11;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)table_name[i];
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '_' || ch == '.' || ch == '~') {
			*p++ = (char)ch;
		} else {
			*p++ = '%';
			*p++ = hex[ch >> 4];
			*p++ = hex[ch & 15];
		}
	}
	*p = 0;
	return s;
}

void rk_bt__strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

void rk_bt__samples_free(rk_bt_sample *s, size_t count)
{
	if (!s)
		return;
	for (size_t i = 0; i < count; i++)
		free(s[i].key);
	free(s);
}

/* ---- URI, credentials, channels ---- */

int rk_bt__parse_uri(char *project, char *instance, size_t cap, const char *uri)
{
	static const char scheme[] = "bigtable://";
	if (!uri || strncmp(uri, scheme, sizeof scheme - 1) != 0)
		return rk__err(RK_EINVALID, "bigtable: bad URI '%s': want bigtable://PROJECT/INSTANCE",
		               uri ? uri : "(null)");
	const char *p = uri + sizeof scheme - 1;
	const char *slash = strchr(p, '/');
	if (!slash || slash == p || !slash[1] || strchr(slash + 1, '/'))
		return rk__err(RK_EINVALID,
		               "bigtable: bad URI '%s': want bigtable://PROJECT/INSTANCE, "
		               "both non-empty, nothing after",
		               uri);
	size_t pl = (size_t)(slash - p), il = strlen(slash + 1);
	if (pl >= cap || il >= cap)
		return rk__err(RK_EINVALID, "bigtable: bad URI '%s': project or instance too long", uri);
	memcpy(project, p, pl);
	project[pl] = 0;
	memcpy(instance, slash + 1, il + 1);
	/* project ids: [a-z0-9-] (and "domain:" prefixes); instance ids: [a-z0-9-] */
	for (size_t i = 0; i < pl; i++)
		if (!((project[i] >= 'a' && project[i] <= 'z') || (project[i] >= '0' && project[i] <= '9') ||
		      project[i] == '-' || project[i] == '.' || project[i] == ':' || project[i] == '_'))
			return rk__err(RK_EINVALID, "bigtable: bad URI '%s': character '%c' in the project id",
			               uri, project[i]);
	for (size_t i = 0; i < il; i++)
		if (!((instance[i] >= 'a' && instance[i] <= 'z') ||
		      (instance[i] >= '0' && instance[i] <= '9') || instance[i] == '-' ||
		      instance[i] == '_'))
			return rk__err(RK_EINVALID, "bigtable: bad URI '%s': character '%c' in the instance id",
			               uri, instance[i]);
	return 0;
}

static void fill_defaults(rk_bt_opts *o)
{
	if (!o->batch_size)
		o->batch_size = 1000;
	if (o->batch_size > 100000)
		o->batch_size = 100000; /* the server's limit on mutations per call */
	if (!o->inflight)
		o->inflight = 4;
	if (!o->max_attempts)
		o->max_attempts = 6;
	if (!o->backoff_ms)
		o->backoff_ms = 25;
	if (!o->timeout_ms)
		o->timeout_ms = 30000;
	if (!o->read_timeout_ms)
		o->read_timeout_ms = 600000;
}

int rk_bt__client_open(rk_bt_client **out, const char *uri, const rk_bt_opts *opts)
{
	char project[128], instance[128];
	int rc = rk_bt__parse_uri(project, instance, sizeof project, uri);
	if (rc < 0)
		return rc;
	rk_bt_client *c = calloc(1, sizeof *c);
	if (!c)
		return rk__err(RK_ENOMEM, "bigtable: out of memory");
	if (opts)
		c->opts = *opts;
	fill_defaults(&c->opts);
	size_t n = strlen(project) + strlen(instance) + 22;
	c->instance_name = malloc(n);
	if (!c->instance_name) {
		free(c);
		return rk__err(RK_ENOMEM, "bigtable: out of memory");
	}
	snprintf(c->instance_name, n, "projects/%s/instances/%s", project, instance);
	grpc_init();

	grpc_arg args[2];
	args[0].type = GRPC_ARG_INTEGER;
	args[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
	args[0].value.integer = (int)(RK_BT_MAX_ROW_BYTES + (1 << 20));
	args[1].type = GRPC_ARG_STRING;
	args[1].key = GRPC_ARG_PRIMARY_USER_AGENT_STRING;
	args[1].value.string = "rowkey";
	grpc_channel_args cargs = {2, args};

	const char *emu = getenv("BIGTABLE_EMULATOR_HOST");
	if (emu && *emu) {
		grpc_channel_credentials *creds = grpc_insecure_credentials_create();
		c->target = strdup(emu);
		c->data = grpc_channel_create(emu, creds, &cargs);
		grpc_channel_credentials_release(creds);
		c->admin = c->data;
	} else {
		const char *roots = getenv("GRPC_DEFAULT_SSL_ROOTS_FILE_PATH");
		if (!roots || !*roots)
			roots = ROOTS_PEM;
		if (access(roots, R_OK) != 0) {
			rc = rk__err(RK_EIO,
			             "bigtable: no TLS root certificates at %s (install libgrpc-dev's "
			             "data, or set GRPC_DEFAULT_SSL_ROOTS_FILE_PATH)",
			             roots);
			goto fail;
		}
		grpc_channel_credentials *creds = grpc_google_default_credentials_create(NULL);
		if (!creds) {
			const char *gac = getenv("GOOGLE_APPLICATION_CREDENTIALS");
			if (gac && !*gac)
				gac = NULL; /* set but empty: not a source */
			rc = rk__err(RK_EIO,
			             "bigtable: no Google default credentials for %s: %s%s%s"
			             "set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file, "
			             "run `gcloud auth application-default login`, or run on GCE; "
			             "for the emulator set BIGTABLE_EMULATOR_HOST=host:port",
			             uri, gac ? "GOOGLE_APPLICATION_CREDENTIALS=" : "",
			             gac ? gac : "", gac ? " did not load; " : "");
			goto fail;
		}
		c->target = strdup(DATA_HOST);
		c->data = grpc_channel_create(DATA_HOST, creds, &cargs);
		c->admin = grpc_channel_create(ADMIN_HOST, creds, &cargs);
		grpc_channel_credentials_release(creds);
	}
	if (!c->target || !c->data || !c->admin) {
		rc = rk__err(RK_EIO, "bigtable: could not create a gRPC channel for %s", uri);
		goto fail;
	}
	*out = c;
	return 0;
fail:
	rk_bt__client_free(c);
	return rc;
}

void rk_bt__client_free(rk_bt_client *c)
{
	if (!c)
		return;
	if (c->admin && c->admin != c->data)
		grpc_channel_destroy(c->admin);
	if (c->data)
		grpc_channel_destroy(c->data);
	free(c->target);
	free(c->instance_name);
	free(c);
	grpc_shutdown();
}

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

/* ---- admin ---- */

int rk_bt__table_create(rk_bt_client *c, const char *table, const rk_bt_family *families,
                        size_t nfamilies, const rk_bt_bytes *splits, size_t nsplits)
{
	char what[128];
	snprintf(what, sizeof what, "bigtable CreateTable %.60s", table ? table : "");
	char *name = NULL;
	int rc = rk_bt__table_name(&name, c, table);
	if (rc < 0)
		return rc;
	free(name);
	for (size_t i = 0; i < nfamilies; i++) {
		if (!families[i].name || !id_ok(families[i].name, 64, 1))
			return rk__err(RK_EINVALID, "%s: bad family name '%s': want 1-64 characters of "
			               "[-_.a-zA-Z0-9]", what, families[i].name ? families[i].name : "(null)");
		if (families[i].max_versions < 0)
			return rk__err(RK_EINVALID, "%s: family %s: negative max_versions", what,
			               families[i].name);
	}
	for (size_t i = 0; i < nsplits; i++)
		if (!splits[i].len || splits[i].len > RK_BT_MAX_KEY)
			return rk__err(RK_EINVALID, "%s: split key %zu is %s", what, i,
			               splits[i].len ? "over 4 KiB" : "empty");

	Rkbt__Table__ColumnFamiliesEntry *fe = calloc(nfamilies ? nfamilies : 1, sizeof *fe);
	Rkbt__Table__ColumnFamiliesEntry **fep = calloc(nfamilies ? nfamilies : 1, sizeof *fep);
	Rkbt__ColumnFamily *cf = calloc(nfamilies ? nfamilies : 1, sizeof *cf);
	Rkbt__GcRule *gc = calloc(nfamilies ? nfamilies : 1, sizeof *gc);
	Rkbt__CreateTableRequest__Split *sp = calloc(nsplits ? nsplits : 1, sizeof *sp);
	Rkbt__CreateTableRequest__Split **spp = calloc(nsplits ? nsplits : 1, sizeof *spp);
	uint8_t *buf = NULL, *resp = NULL;
	size_t resp_len;
	if (!fe || !fep || !cf || !gc || !sp || !spp) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
		goto done;
	}
	for (size_t i = 0; i < nfamilies; i++) {
		rkbt__table__column_families_entry__init(&fe[i]);
		rkbt__column_family__init(&cf[i]);
		fe[i].key = (char *)families[i].name;
		fe[i].value = &cf[i];
		if (families[i].max_versions > 0) {
			rkbt__gc_rule__init(&gc[i]);
			gc[i].rule_case = RKBT__GC_RULE__RULE_MAX_NUM_VERSIONS;
			gc[i].max_num_versions = families[i].max_versions;
			cf[i].gc_rule = &gc[i];
		}
		fep[i] = &fe[i];
	}
	for (size_t i = 0; i < nsplits; i++) {
		rkbt__create_table_request__split__init(&sp[i]);
		sp[i].key.data = (uint8_t *)splits[i].ptr;
		sp[i].key.len = splits[i].len;
		spp[i] = &sp[i];
	}
	Rkbt__Table t;
	rkbt__table__init(&t);
	t.n_column_families = nfamilies;
	t.column_families = fep;
	t.granularity = RKBT__TABLE__TIMESTAMP_GRANULARITY__MILLIS;
	Rkbt__CreateTableRequest req;
	rkbt__create_table_request__init(&req);
	req.parent = c->instance_name;
	req.table_id = (char *)table;
	req.table = &t;
	req.n_initial_splits = nsplits;
	req.initial_splits = spp;
	size_t len = rkbt__create_table_request__get_packed_size(&req);
	buf = malloc(len ? len : 1);
	if (!buf) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
		goto done;
	}
	rkbt__create_table_request__pack(&req, buf);
	rc = rk_bt__unary(&resp, &resp_len, c->admin, RK_BT_M_CREATE_TABLE, buf, len, NULL,
	                  rk_bt__deadline(c->opts.timeout_ms), what);
	if (rc == 0) {
		Rkbt__Table *got = rkbt__table__unpack(NULL, resp_len, resp);
		if (!got)
			rc = rk__err(RK_ECORRUPT, "%s: the response does not parse as a Table", what);
		rkbt__table__free_unpacked(got, NULL);
		free(resp);
	}
done:
	free(buf);
	free(fe);
	free(fep);
	free(cf);
	free(gc);
	free(sp);
	free(spp);
	return rc;
}

int rk_bt__table_delete(rk_bt_client *c, const char *table)
{
	char what[128];
	snprintf(what, sizeof what, "bigtable DeleteTable %.60s", table ? table : "");
	char *name;
	int rc = rk_bt__table_name(&name, c, table);
	if (rc < 0)
		return rc;
	Rkbt__DeleteTableRequest req;
	rkbt__delete_table_request__init(&req);
	req.name = name;
	size_t len = rkbt__delete_table_request__get_packed_size(&req);
	uint8_t *buf = malloc(len ? len : 1), *resp = NULL;
	size_t resp_len;
	if (!buf) {
		free(name);
		return rk__err(RK_ENOMEM, "%s: out of memory", what);
	}
	rkbt__delete_table_request__pack(&req, buf);
	rc = rk_bt__unary(&resp, &resp_len, c->admin, RK_BT_M_DELETE_TABLE, buf, len, NULL,
	                  rk_bt__deadline(c->opts.timeout_ms), what);
	free(resp);
	free(buf);
	free(name);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int rk_bt__table_ids_from_list(char ***vp, size_t *np, char **token, const uint8_t *resp,
                               size_t resp_len, const char *instance_name, const char *what)
{
	char **v = *vp;
	size_t n = *np, plen = strlen(instance_name);
	Rkbt__ListTablesResponse *r = rkbt__list_tables_response__unpack(NULL, resp_len, resp);
	if (!r)
		return rk__err(RK_ECORRUPT, "%s: the response does not parse", what);
	char **nv = realloc(v, (n + r->n_tables + 1) * sizeof *v);
	if (!nv) {
		rkbt__list_tables_response__free_unpacked(r, NULL);
		return rk__err(RK_ENOMEM, "%s: out of memory", what);
	}
	*vp = v = nv;
	v[n] = NULL;
	int rc = 0;
	for (size_t i = 0; i < r->n_tables && !rc; i++) {
		const char *full = r->tables[i]->name;
		/* names come back as projects/P/instances/I/tables/T */
		const char *id = full;
		if (strncmp(full, instance_name, plen) == 0 && strncmp(full + plen, "/tables/", 8) == 0)
			id = full + plen + 8;
		if (!(v[n] = strdup(id)))
			rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
		else
			v[++n] = NULL;
	}
	*np = n;
	if (!rc) {
		free(*token);
		if (!(*token = strdup(r->next_page_token ? r->next_page_token : "")))
			rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
	}
	rkbt__list_tables_response__free_unpacked(r, NULL);
	return rc;
}

int rk_bt__table_list(char ***out, size_t *count, rk_bt_client *c)
{
	const char *what = "bigtable ListTables";
	char **v = calloc(1, sizeof *v);
	size_t n = 0;
	char *token = strdup("");
	int rc = 0;
	unsigned pages = 0;
	if (!v || !token) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
		goto fail;
	}
	do {
		if (++pages > 100000) { /* a server that never ends its pages */
			rc = rk__err(RK_ECORRUPT, "%s: more than 100000 pages of tables", what);
			goto fail;
		}
		Rkbt__ListTablesRequest req;
		rkbt__list_tables_request__init(&req);
		req.parent = c->instance_name;
		req.view = RKBT__TABLE__VIEW__NAME_ONLY;
		req.page_token = token;
		size_t len = rkbt__list_tables_request__get_packed_size(&req);
		uint8_t *buf = malloc(len ? len : 1), *resp = NULL;
		size_t resp_len;
		if (!buf) {
			rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
			goto fail;
		}
		rkbt__list_tables_request__pack(&req, buf);
		rc = rk_bt__unary(&resp, &resp_len, c->admin, RK_BT_M_LIST_TABLES, buf, len, NULL,
		                  rk_bt__deadline(c->opts.timeout_ms), what);
		free(buf);
		if (rc < 0)
			goto fail;
		rc = rk_bt__table_ids_from_list(&v, &n, &token, resp, resp_len, c->instance_name,
		                                what);
		free(resp);
		if (rc < 0)
			goto fail;
	} while (*token);
	free(token);
	v[n] = NULL;
	qsort(v, n, sizeof *v, cmp_str);
	*out = v;
	*count = n;
	return 0;
fail:
	free(token);
	if (v) {
		v[n] = NULL;
		rk_bt__strv_free(v);
	}
	return rc;
}

/* ---- SampleRowKeys ---- */

int rk_bt__sample_from_response(rk_bt_sample *out, const uint8_t *m, size_t ml, size_t i,
                                const char *what)
{
	Rkbt__SampleRowKeysResponse *r = rkbt__sample_row_keys_response__unpack(NULL, ml, m);
	if (!r)
		return rk__err(RK_ECORRUPT, "%s: response %zu does not parse", what, i);
	size_t kl = r->row_key.len;
	long long off = (long long)r->offset_bytes;
	if (kl > RK_BT_MAX_KEY || off < 0) {
		rkbt__sample_row_keys_response__free_unpacked(r, NULL);
		return kl > RK_BT_MAX_KEY
		               ? rk__err(RK_ECORRUPT,
		                         "%s: response %zu: a sample key of %zu bytes (at most %u)",
		                         what, i, kl, RK_BT_MAX_KEY)
		               : rk__err(RK_ECORRUPT, "%s: response %zu: negative offset %lld", what, i,
		                         off);
	}
	out->key_len = r->row_key.len;
	out->key = malloc(r->row_key.len ? r->row_key.len : 1);
	out->offset_bytes = r->offset_bytes;
	if (!out->key) {
		rkbt__sample_row_keys_response__free_unpacked(r, NULL);
		return rk__err(RK_ENOMEM, "%s: out of memory", what);
	}
	if (r->row_key.len)
		memcpy(out->key, r->row_key.data, r->row_key.len);
	rkbt__sample_row_keys_response__free_unpacked(r, NULL);
	return 0;
}

int rk_bt__sample_row_keys(rk_bt_sample **out, size_t *count, rk_bt_client *c, const char *table)
{
	char what[128];
	snprintf(what, sizeof what, "bigtable SampleRowKeys %.60s", table ? table : "");
	char *name, *routing = NULL;
	uint8_t *buf = NULL;
	rk_bt_call *call = NULL;
	rk_bt_sample *v = NULL;
	size_t n = 0, cap = 0;
	int rc = rk_bt__table_name(&name, c, table);
	if (rc < 0)
		return rc;
	Rkbt__SampleRowKeysRequest req;
	rkbt__sample_row_keys_request__init(&req);
	req.table_name = name;
	if (c->opts.app_profile_id)
		req.app_profile_id = (char *)c->opts.app_profile_id;
	size_t len = rkbt__sample_row_keys_request__get_packed_size(&req);
	buf = malloc(len ? len : 1);
	routing = rk_bt__routing(name);
	if (!buf || !routing) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
		goto fail;
	}
	rkbt__sample_row_keys_request__pack(&req, buf);
	if ((rc = rk_bt__call_start(&call, c->data, RK_BT_M_SAMPLE_ROW_KEYS, buf, len, routing,
	                            rk_bt__deadline(c->opts.timeout_ms), what)) < 0)
		goto fail;
	for (;;) {
		const uint8_t *m;
		size_t ml;
		rc = rk_bt__call_next(call, &m, &ml);
		if (rc == RK_EITEROVER)
			break;
		if (rc < 0)
			goto fail;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			rk_bt_sample *nv = realloc(v, ncap * sizeof *nv);
			if (!nv) {
				rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
				goto fail;
			}
			v = nv;
			cap = ncap;
		}
		if ((rc = rk_bt__sample_from_response(&v[n], m, ml, n, what)) < 0)
			goto fail;
		n++;
	}
	rk_bt__call_free(call);
	free(routing);
	free(buf);
	free(name);
	*out = v;
	*count = n;
	return 0;
fail:
	rk_bt__call_free(call);
	rk_bt__samples_free(v, n);
	free(routing);
	free(buf);
	free(name);
	return rc;
}

/* ---- GetTable: the column families ---- */

/* The version limit a GC rule puts on a column: -1 for none. Hostile input:
 * nesting is bounded. */
static int gc_versions(const Rkbt__GcRule *r, int depth)
{
	if (!r || depth > 16)
		return -1;
	switch (r->rule_case) {
	case RKBT__GC_RULE__RULE_MAX_NUM_VERSIONS:
		return r->max_num_versions > 0 ? r->max_num_versions : -1;
	case RKBT__GC_RULE__RULE_UNION: {
		/* a cell goes when any rule says so: the smallest limit holds */
		int best = -1;
		for (size_t i = 0; i < r->union_->n_rules; i++) {
			int v = gc_versions(r->union_->rules[i], depth + 1);
			if (v > 0 && (best < 0 || v < best))
				best = v;
		}
		return best;
	}
	case RKBT__GC_RULE__RULE_INTERSECTION: {
		/* a cell goes only when every rule says so: the largest limit holds,
		 * and a rule without one lifts the limit */
		int best = -1;
		for (size_t i = 0; i < r->intersection->n_rules; i++) {
			int v = gc_versions(r->intersection->rules[i], depth + 1);
			if (v < 0)
				return -1;
			if (v > best)
				best = v;
		}
		return best;
	}
	default:
		return -1;
	}
}

static int cmp_family(const void *a, const void *b)
{
	return strcmp(((const rk_bt_family *)a)->name, ((const rk_bt_family *)b)->name);
}

void rk_bt__families_free(rk_bt_family *f, size_t count)
{
	if (!f)
		return;
	for (size_t i = 0; i < count; i++)
		free((char *)f[i].name);
	free(f);
}

int rk_bt__families_from_table(rk_bt_family **out, size_t *count, const uint8_t *resp,
                               size_t resp_len, const char *what)
{
	int rc = 0;
	size_t n = 0;
	rk_bt_family *v = NULL;
	Rkbt__Table *t = rkbt__table__unpack(NULL, resp_len, resp);
	if (!t) {
		rc = rk__err(RK_ECORRUPT, "%s: the response does not parse as a Table", what);
		goto done;
	}
	v = calloc(t->n_column_families + 1, sizeof *v);
	if (!v) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
		goto done;
	}
	for (size_t i = 0; i < t->n_column_families; i++) {
		const Rkbt__Table__ColumnFamiliesEntry *e = t->column_families[i];
		if (!e->key || !id_ok(e->key, 64, 1)) {
			rc = rk__err(RK_ECORRUPT, "%s: the server named a family '%.80s' that is not a "
			             "valid family name", what, e->key ? e->key : "(null)");
			goto done;
		}
		for (size_t j = 0; j < n; j++)
			if (!strcmp(v[j].name, e->key)) {
				rc = rk__err(RK_ECORRUPT, "%s: family %s listed twice", what, e->key);
				goto done;
			}
		v[n].name = strdup(e->key);
		if (!v[n].name) {
			rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
			goto done;
		}
		v[n].max_versions = gc_versions(e->value ? e->value->gc_rule : NULL, 0);
		n++;
	}
	qsort(v, n, sizeof *v, cmp_family);
	*out = v;
	*count = n;
	v = NULL;
	n = 0;
done:
	rk_bt__families_free(v, n);
	if (t)
		rkbt__table__free_unpacked(t, NULL);
	return rc;
}

int rk_bt__table_families(rk_bt_family **out, size_t *count, rk_bt_client *c, const char *table)
{
	char what[128];
	snprintf(what, sizeof what, "bigtable GetTable %.60s", table ? table : "");
	char *name;
	int rc = rk_bt__table_name(&name, c, table);
	if (rc < 0)
		return rc;
	Rkbt__GetTableRequest req;
	rkbt__get_table_request__init(&req);
	req.name = name;
	req.view = RKBT__TABLE__VIEW__SCHEMA_VIEW;
	size_t len = rkbt__get_table_request__get_packed_size(&req);
	uint8_t *buf = malloc(len ? len : 1), *resp = NULL;
	size_t resp_len = 0;
	if (!buf) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
		goto done;
	}
	rkbt__get_table_request__pack(&req, buf);
	rc = rk_bt__unary(&resp, &resp_len, c->admin, RK_BT_M_GET_TABLE, buf, len, NULL,
	                  rk_bt__deadline(c->opts.timeout_ms), what);
	if (rc < 0)
		goto done;
	rc = rk_bt__families_from_table(out, count, resp, resp_len, what);
done:
	free(resp);
	free(buf);
	free(name);
	return rc;
}
