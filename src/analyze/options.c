/*
 * Options by name (rk_analyze_option): one parser for the command line, the
 * benchmark and tests, so every front end spells and checks options alike.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "key/error.h"
#include "key/units.h"

static int num(double *out, const char *name, const char *v)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (end == v || *end || errno || !isfinite(d))
		return rk__err(RK_EINVALID, "option %s: '%s' is not a number", name, v);
	*out = d;
	return 0;
}

static int uint(uint64_t *out, const char *name, const char *v, int suffixes)
{
	char *end;
	if (!*v || *v == '-')
		return rk__err(RK_EINVALID, "option %s: '%s' is not a non-negative integer", name, v);
	errno = 0;
	unsigned long long u = strtoull(v, &end, 10);
	uint64_t mul = 1;
	if (suffixes && *end && !end[1]) {
		switch (*end) {
		case 'k': case 'K': mul = 1ull << 10; end++; break;
		case 'm': case 'M': mul = 1ull << 20; end++; break;
		case 'g': case 'G': mul = 1ull << 30; end++; break;
		default: break;
		}
	}
	if (end == v || *end || errno || (mul > 1 && u > UINT64_MAX / mul))
		return rk__err(RK_EINVALID, "option %s: '%s' is not a non-negative integer%s", name, v,
		               suffixes ? " (K, M, G suffixes allowed)" : "");
	*out = (uint64_t)u * mul;
	return 0;
}

int rk_analyze_option(rk_workload_options *w, rk_analyze_options *o, const char *name,
                      const char *v)
{
	double d = 0;
	uint64_t u;
	int rc;
	if (!name || !v)
		return rk__err(RK_EINVALID, "option: no name or value");
#define NEED(p)                                                                                    \
	do {                                                                                       \
		if (!(p))                                                                          \
			return rk__err(RK_EINVALID, "option %s does not apply here", name);        \
	} while (0)
	if (!strcmp(name, "workload")) {
		NEED(w);
		w->name = v;
	} else if (!strcmp(name, "file")) {
		NEED(w);
		w->file = v;
	} else if (!strcmp(name, "seed")) {
		NEED(w);
		if ((rc = uint(&u, name, v, 0)) != 0)
			return rc;
		w->seed = u;
	} else if (!strcmp(name, "rate") || !strcmp(name, "duration") || !strcmp(name, "zipf") ||
	           !strcmp(name, "read-fraction")) {
		NEED(w);
		if ((rc = num(&d, name, v)) != 0)
			return rc;
		if (name[0] == 'r' && name[1] == 'e' ? (d < 0 || d > 1) : !(d > 0))
			return rk__err(RK_EINVALID, "option %s: %s is out of range (%s)", name, v,
			               name[0] == 'r' && name[1] == 'e' ? "0..1" : "> 0");
		if (!strcmp(name, "rate"))
			w->rate = d;
		else if (!strcmp(name, "duration"))
			w->duration = d;
		else if (!strcmp(name, "zipf"))
			w->zipf = d;
		else
			w->read_fraction = d;
	} else if (!strcmp(name, "memory")) {
		NEED(w);
		if (rk__size_parse(&u, v, strlen(v), 1) < 0)
			return rk__err_wrap(RK_EINVALID, "option memory");
		if (u < (1u << 20) || u > SIZE_MAX)
			return rk__err(RK_EINVALID, "option memory: %s is under 1M or too large", v);
		w->memory = (size_t)u;
	} else if (!strcmp(name, "limit")) {
		NEED(w);
		if ((rc = uint(&u, name, v, 1)) != 0)
			return rc;
		w->limit = u;
	} else if (!strcmp(name, "cardinality")) {
		NEED(w);
		if ((rc = uint(&u, name, v, 1)) != 0)
			return rc;
		if (u == 0) /* the field's default is the option left out */
			return rk__err(RK_EINVALID, "option %s: %s is out of range (at least 1)", name, v);
		w->cardinality = u;
	} else if (!strcmp(name, "servers") || !strcmp(name, "time-buckets") ||
	           !strcmp(name, "key-buckets")) {
		NEED(o);
		if ((rc = uint(&u, name, v, 0)) != 0)
			return rc;
		unsigned max = name[0] == 't' ? RK__MAX_TIME_BUCKETS
		             : name[0] == 'k' ? RK__MAX_KEY_BUCKETS
		                              : 100000;
		if (u == 0 || u > max)
			return rk__err(RK_EINVALID, "option %s: %s is out of range (1..%u)", name, v, max);
		if (!strcmp(name, "servers"))
			o->servers = (unsigned)u;
		else if (name[0] == 't')
			o->time_buckets = (unsigned)u;
		else
			o->key_buckets = (unsigned)u;
	} else if (!strcmp(name, "capacity") || !strcmp(name, "balance-interval")) {
		NEED(o);
		if ((rc = num(&d, name, v)) != 0)
			return rc;
		if (name[0] == 'c' ? !(d > 0) : d < 0)
			return rk__err(RK_EINVALID, "option %s: %s is out of range (%s)", name, v,
			               name[0] == 'c' ? "> 0" : ">= 0");
		if (name[0] == 'c')
			o->capacity = d;
		else
			o->balance_interval = d;
	} else if (!strcmp(name, "split-threshold") || !strcmp(name, "value-len")) {
		NEED(o);
		if (rk__size_parse(&u, v, strlen(v), 1) < 0)
			return rk__err_wrap(RK_EINVALID, "option %s", name);
		if (name[0] == 's')
			o->split_threshold = u;
		else if (u > RK_MAX_VALUE_LEN) /* a cell's value, as the store run writes it */
			return rk__err(RK_EINVALID, "option %s: %s is out of range (0..%u bytes)", name,
			               v, RK_MAX_VALUE_LEN);
		else
			o->value_len = (size_t)u;
	} else if (!strcmp(name, "presplit")) {
		NEED(o);
		if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "2"))
			return rk__err(RK_EINVALID, "option presplit: '%s' is not 0, 1 or 2", v);
		o->presplit = *v - '0';
	} else {
		return rk__err(RK_ENOTFOUND, "unknown option '%s'", name);
	}
#undef NEED
	return 0;
}

int rk_analysis_set_schema_text(rk_analysis *a, const char *text)
{
	char *t = strdup(text ? text : "");
	if (!t)
		return rk__err(RK_ENOMEM, "out of memory");
	free(a->schema_text);
	a->schema_text = t;
	return 0;
}
