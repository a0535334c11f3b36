/*
 * The Bigtable client: URI, channels and credentials, status mapping and
 * names. The gRPC call helper lives in bt_call.c, the table-admin calls and
 * SampleRowKeys in bt_admin.c, writes in bt_write.c, reads in bt_read.c.
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

int rk_bt__id_ok(const char *s, size_t max, int first_any)
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
	if (!table || !rk_bt__id_ok(table, 50, 0))
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
