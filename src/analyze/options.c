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

/* ---- one handler per option group: parse, check the range, set ---- */

typedef int (*option_set)(rk_workload_options *w, rk_analyze_options *o, const char *name,
                          const char *v);

/* workload, file: kept as given; the workload's loader checks them */
static int set_source(rk_workload_options *w, rk_analyze_options *o, const char *name,
                      const char *v)
{
	(void)o;
	if (!strcmp(name, "workload"))
		w->name = v;
	else
		w->file = v;
	return 0;
}

/* seed, limit, cardinality: counts; limit and cardinality take K, M, G */
static int set_count(rk_workload_options *w, rk_analyze_options *o, const char *name,
                     const char *v)
{
	uint64_t u;
	int seed = !strcmp(name, "seed"), rc;
	(void)o;
	if ((rc = uint(&u, name, v, !seed)) != 0)
		return rc;
	if (seed)
		w->seed = u;
	else if (!strcmp(name, "limit"))
		w->limit = u;
	else if (u == 0) /* the field's default is the option left out */
		return rk__err(RK_EINVALID, "option %s: %s is out of range (at least 1)", name, v);
	else
		w->cardinality = u;
	return 0;
}

/* rate, duration, zipf: over 0; read-fraction: 0..1 */
static int set_rate(rk_workload_options *w, rk_analyze_options *o, const char *name,
                    const char *v)
{
	double d = 0;
	int fraction = !strcmp(name, "read-fraction"), rc;
	(void)o;
	if ((rc = num(&d, name, v)) != 0)
		return rc;
	if (fraction ? (d < 0 || d > 1) : !(d > 0))
		return rk__err(RK_EINVALID, "option %s: %s is out of range (%s)", name, v,
		               fraction ? "0..1" : "> 0");
	if (!strcmp(name, "rate"))
		w->rate = d;
	else if (!strcmp(name, "duration"))
		w->duration = d;
	else if (!strcmp(name, "zipf"))
		w->zipf = d;
	else
		w->read_fraction = d;
	return 0;
}

static int set_memory(rk_workload_options *w, rk_analyze_options *o, const char *name,
                      const char *v)
{
	uint64_t u;
	(void)o, (void)name;
	if (rk__size_parse(&u, v, strlen(v), 1) < 0)
		return rk__err_wrap(RK_EINVALID, "option memory");
	if (u < (1u << 20) || u > SIZE_MAX)
		return rk__err(RK_EINVALID, "option memory: %s is under 1M or too large", v);
	w->memory = (size_t)u;
	return 0;
}

/* servers, time-buckets, key-buckets: from 1 to a limit of their own */
static int set_buckets(rk_workload_options *w, rk_analyze_options *o, const char *name,
                       const char *v)
{
	uint64_t u;
	int rc;
	(void)w;
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
	return 0;
}

/* capacity: over 0; balance-interval: 0 or more */
static int set_capacity(rk_workload_options *w, rk_analyze_options *o, const char *name,
                        const char *v)
{
	double d = 0;
	int capacity = name[0] == 'c', rc;
	(void)w;
	if ((rc = num(&d, name, v)) != 0)
		return rc;
	if (capacity ? !(d > 0) : d < 0)
		return rk__err(RK_EINVALID, "option %s: %s is out of range (%s)", name, v,
		               capacity ? "> 0" : ">= 0");
	if (capacity)
		o->capacity = d;
	else
		o->balance_interval = d;
	return 0;
}

/* split-threshold, value-len: sizes (4M, 64KiB) */
static int set_size(rk_workload_options *w, rk_analyze_options *o, const char *name,
                    const char *v)
{
	uint64_t u;
	(void)w;
	if (rk__size_parse(&u, v, strlen(v), 1) < 0)
		return rk__err_wrap(RK_EINVALID, "option %s", name);
	if (name[0] == 's')
		o->split_threshold = u;
	else if (u > RK_MAX_VALUE_LEN) /* a cell's value, as the store run writes it */
		return rk__err(RK_EINVALID, "option %s: %s is out of range (0..%u bytes)", name, v,
		               RK_MAX_VALUE_LEN);
	else
		o->value_len = (size_t)u;
	return 0;
}

/* rows: the table's size when it is queried (0: the records replayed) */
static int set_rows(rk_workload_options *w, rk_analyze_options *o, const char *name, const char *v)
{
	uint64_t u;
	int rc;
	(void)w;
	if ((rc = uint(&u, name, v, 1)) != 0)
		return rc;
	o->table_rows = u;
	return 0;
}

static int set_presplit(rk_workload_options *w, rk_analyze_options *o, const char *name,
                        const char *v)
{
	(void)w, (void)name;
	if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "2"))
		return rk__err(RK_EINVALID, "option presplit: '%s' is not 0, 1 or 2", v);
	o->presplit = *v - '0';
	return 0;
}

/* Every option: the workload's set w, the analysis's set o; a front end
 * passes NULL for the one it has not got, and its options do not apply. */
static const struct option {
	const char *name;
	int analysis;
	option_set set;
} options[] = {
	{"workload", 0, set_source},
	{"file", 0, set_source},
	{"seed", 0, set_count},
	{"rate", 0, set_rate},
	{"duration", 0, set_rate},
	{"zipf", 0, set_rate},
	{"read-fraction", 0, set_rate},
	{"memory", 0, set_memory},
	{"limit", 0, set_count},
	{"cardinality", 0, set_count},
	{"servers", 1, set_buckets},
	{"time-buckets", 1, set_buckets},
	{"key-buckets", 1, set_buckets},
	{"capacity", 1, set_capacity},
	{"balance-interval", 1, set_capacity},
	{"split-threshold", 1, set_size},
	{"value-len", 1, set_size},
	{"presplit", 1, set_presplit},
	{"rows", 1, set_rows},
};

int rk_analyze_option(rk_workload_options *w, rk_analyze_options *o, const char *name,
                      const char *v)
{
	if (!name || !v)
		return rk__err(RK_EINVALID, "option: no name or value");
	for (size_t i = 0; i < sizeof options / sizeof *options; i++) {
		const struct option *op = &options[i];
		if (strcmp(name, op->name))
			continue;
		if (op->analysis ? !o : !w)
			return rk__err(RK_EINVALID, "option %s does not apply here", name);
		return op->set(w, o, name, v);
	}
	return rk__err(RK_ENOTFOUND, "unknown option '%s'", name);
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
