/*
 * Statuses and names for `rowkey serve`: gRPC status from a store error,
 * and the Bigtable resource names a request carries.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "key/error.h"
#include "serve/serve_int.h"

int rk_sv__fail(rk_sv_status *st, int grpc_code, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(st->msg, sizeof st->msg, fmt, ap);
	va_end(ap);
	st->code = grpc_code;
	return rc;
}

int rk_sv__from_store(rk_sv_status *st, int rc, const char *what)
{
	int code;
	switch (rc) {
	case RK_ENOTFOUND: code = RK_SV_NOT_FOUND; break;
	case RK_EEXISTS: code = RK_SV_ALREADY_EXISTS; break;
	case RK_EINVALID: code = RK_SV_INVALID_ARGUMENT; break;
	case RK_ETOOLONG: code = RK_SV_INVALID_ARGUMENT; break;
	case RK_EBUSY: code = RK_SV_UNAVAILABLE; break;
	case RK_ENOMEM: code = RK_SV_RESOURCE_EXHAUSTED; break;
	/* stored bytes that fail their checksum: what gRPC calls unrecoverable
	 * data loss, so a client neither retries nor takes it for a bug */
	case RK_ECORRUPT: code = RK_SV_DATA_LOSS; break;
	default: code = RK_SV_INTERNAL; break;
	}
	return rk_sv__fail(st, code, rc, "%s: %s", what, rk_error_last());
}

/* Bigtable ids: [_a-zA-Z0-9][-_.a-zA-Z0-9]*, and the store's own limit. */
int rk_sv__id_ok(const char *s, size_t n, size_t max)
{
	if (n == 0 || n > max)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		         c == '_' || (i > 0 && (c == '-' || c == '.'));
		if (!ok)
			return 0;
	}
	return 1;
}

int rk_sv__instance_name(const rk_sv_env *env, const char *name, const char *field,
                         rk_sv_status *st)
{
	char want[512];
	snprintf(want, sizeof want, "projects/%s/instances/%s", env->project, env->instance);
	if (!name || !*name)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s: missing (expected projects/P/instances/I)", field);
	const char *in = strstr(name, "/instances/");
	if (strncmp(name, "projects/", 9) != 0 || !in || in == name + 9 || !in[11] ||
	    strchr(name + 9, '/') != in || strchr(in + 11, '/'))
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s: '%.200s' is not projects/P/instances/I", field, name);
	if (strlen(name) > RK_SV_MAX_INSTANCE)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s: the instance's name is over %u bytes", field,
		                   RK_SV_MAX_INSTANCE);
	int any = strcmp(env->project, "*") == 0 && strcmp(env->instance, "*") == 0;
	if (!any && strcmp(name, want) != 0)
		return rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND,
		                   "%s: instance '%.200s' not found (this server is %s)", field, name,
		                   want);
	return 0;
}

int rk_sv__table_name(rk_sv_tname *tn, const rk_sv_env *env, const char *name,
                      const char *field, rk_sv_status *st)
{
	const char *t = name ? strstr(name, "/tables/") : NULL;
	if (!name || !*name)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s: missing (expected projects/P/instances/I/tables/T)", field);
	if (!t)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s: '%.200s' is not projects/P/instances/I/tables/T", field, name);
	size_t il = (size_t)(t - name);
	if (il > RK_SV_MAX_INSTANCE)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s: the instance's name is over %u bytes", field,
		                   RK_SV_MAX_INSTANCE);
	memcpy(tn->inst, name, il);
	tn->inst[il] = 0;
	int rc = rk_sv__instance_name(env, tn->inst, field, st);
	if (rc)
		return rc;
	t += 8;
	size_t n = strlen(t);
	if (!rk_sv__id_ok(t, n, RK_MAX_TABLE_NAME_LEN))
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s: table id '%.200s' is not [_a-zA-Z0-9][-_.a-zA-Z0-9]* of at "
		                   "most %u bytes",
		                   field, t, RK_MAX_TABLE_NAME_LEN);
	memcpy(tn->id, t, n + 1);
	return 0;
}

int rk_sv__table_find(rk_sv_ref *ref, rk_sv_tname *tn, const rk_sv_env *env, const char *name,
                      const char *field, rk_sv_status *st)
{
	int rc = rk_sv__table_name(tn, env, name, field, st);
	if (rc)
		return rc;
	if (rk_sv__catalog_find(ref, env->catalog, tn->inst, tn->id))
		return rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND, "table %s/tables/%s not found",
		                   tn->inst, tn->id);
	return 0;
}
