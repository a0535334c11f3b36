/*
 * The Scanner model (HBase's ScannerModel, JSON) and its filters, mapped
 * onto rk_scan_options and the store's row filter (rk_filter, Bigtable's
 * model). What maps:
 *
 *   PrefixFilter            the scan's prefix
 *   PageFilter              the scan's row limit
 *   FirstKeyOnlyFilter      ROW_LIMIT 1 (the row's first cell)
 *   KeyOnlyFilter           STRIP_VALUE
 *   RowFilter, QualifierFilter, ValueFilter with op EQUAL and a
 *     BinaryComparator, BinaryPrefixComparator, RegexStringComparator or
 *     SubstringComparator: the row key, qualifier or value regex (the bytes
 *     as \xHH literals; a RegexStringComparator finds its pattern anywhere,
 *     DOTALL, as Java's Matcher.find with HBase's default flags)
 *   ValueFilter with LESS, LESS_OR_EQUAL, GREATER, GREATER_OR_EQUAL and a
 *     BinaryComparator: VALUE_RANGE
 *   FilterList MUST_PASS_ALL of the above: CHAIN
 *
 * Everything else (NOT_EQUAL, MUST_PASS_ONE, SingleColumnValueFilter, ...)
 * is refused with 400 naming it: the store's filters cannot say it, and a
 * scan that silently ignored a filter would return rows the client did not
 * ask for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/hbase/hbase_int.h"

#define MAX_FILTERS 100u
#define MAX_DEPTH 16u

typedef struct fctx {
	rk_hb_scanspec *s;
	size_t nodes;
	char *err;
	size_t cap;
} fctx;

static int oom(fctx *x)
{
	snprintf(x->err, x->cap, "Service unavailable: out of memory");
	return -1;
}

/* pre, then the bytes p[n] as \xHH literals, then post, into f's pattern */
static int literal(fctx *x, rk_filter *f, const char *pre, const uint8_t *p, size_t n,
                   const char *post)
{
	size_t pl = strlen(pre), ql = strlen(post);
	char *o = rk_hb__alloc(&x->s->a, pl + 4 * n + ql + 1);
	if (!o)
		return oom(x);
	memcpy(o, pre, pl);
	for (size_t i = 0; i < n; i++)
		snprintf(o + pl + 4 * i, 5, "\\x%02x", p[i]);
	memcpy(o + pl + 4 * n, post, ql + 1);
	f->pattern = (const uint8_t *)o;
	f->pattern_len = pl + 4 * n + ql;
	return 0;
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* RowFilter, QualifierFilter, ValueFilter: their op and comparator */
static int compare(fctx *x, rk_filter *f, json_t *j, const char *type, rk_filter_kind kind)
{
	json_t *cmp = json_object_get(j, "comparator");
	const char *op = str(j, "op"), *ct = str(cmp, "type"), *v = str(cmp, "value");
	uint8_t *b = NULL;
	size_t bl = 0;
	if (!op || !ct || !v)
		return snprintf(x->err, x->cap, "Bad request: %s needs op and a comparator with type "
		                                "and value", type), -1;
	int binary = !strcmp(ct, "BinaryComparator") || !strcmp(ct, "BinaryPrefixComparator");
	if (binary && rk_hb__b64_decode(&b, &bl, &x->s->a, v, strlen(v)))
		return snprintf(x->err, x->cap, "Bad request: %s.comparator.value: not base64", type), -1;
	f->kind = kind;
	if (strcmp(op, "EQUAL")) {
		int lt = !strcmp(op, "LESS"), le = !strcmp(op, "LESS_OR_EQUAL");
		int gt = !strcmp(op, "GREATER"), ge = !strcmp(op, "GREATER_OR_EQUAL");
		if (kind != RK_FILTER_VALUE_REGEX || strcmp(ct, "BinaryComparator") ||
		    !(lt || le || gt || ge))
			return snprintf(x->err, x->cap, "Bad request: %s with op %.32s and %.40s is not "
			                                "supported (only ValueFilter compares by order)",
			                type, op, ct), -1;
		f->kind = RK_FILTER_VALUE_RANGE;
		rk_filter_bound bd = {lt || gt ? RK_BOUND_OPEN : RK_BOUND_CLOSED, b, bl};
		if (lt || le)
			f->hi = bd;
		else
			f->lo = bd;
		return 0;
	}
	if (!strcmp(ct, "BinaryComparator"))
		return literal(x, f, "", b, bl, "");
	if (!strcmp(ct, "BinaryPrefixComparator"))
		return literal(x, f, "", b, bl, "(?s:.*)");
	if (!strcmp(ct, "SubstringComparator"))
		return literal(x, f, "(?is).*", (const uint8_t *)v, strlen(v), ".*");
	if (!strcmp(ct, "RegexStringComparator")) {
		size_t n = strlen(v);
		char *o = rk_hb__alloc(&x->s->a, n + 16);
		if (!o)
			return oom(x);
		f->pattern_len = (size_t)snprintf(o, n + 16, "(?s).*(?:%s).*", v);
		f->pattern = (const uint8_t *)o;
		return 0;
	}
	return snprintf(x->err, x->cap, "Bad request: comparator %.40s is not supported", ct), -1;
}

/* A filter j into f. top: at the top or in MUST_PASS_ALL lists only, where
 * a prefix or a page limit is the scan's own. */
static int filter(fctx *x, rk_filter *f, json_t *j, unsigned depth)
{
	const char *type = str(j, "type");
	memset(f, 0, sizeof *f);
	if (!json_is_object(j) || !type)
		return snprintf(x->err, x->cap, "Bad request: a filter is an object with a type"), -1;
	if (++x->nodes > MAX_FILTERS || depth > MAX_DEPTH)
		return snprintf(x->err, x->cap, "Bad request: more than %u filters or %u levels",
		                MAX_FILTERS, MAX_DEPTH), -1;
	rk_scan_options *so = &x->s->so;
	const char *v = str(j, "value");
	if (!strcmp(type, "PrefixFilter")) {
		uint8_t *p;
		size_t n;
		if (!v || rk_hb__b64_decode(&p, &n, &x->s->a, v, strlen(v)))
			return snprintf(x->err, x->cap, "Bad request: PrefixFilter.value: not base64"), -1;
		if (so->prefix && (so->prefix_len != n || memcmp(so->prefix, p, n)))
			return snprintf(x->err, x->cap, "Bad request: two different PrefixFilters"), -1;
		so->prefix = p;
		so->prefix_len = n;
		f->kind = RK_FILTER_PASS;
		return 0;
	}
	if (!strcmp(type, "PageFilter")) {
		json_t *jv = json_object_get(j, "value");
		long long n = json_is_integer(jv) ? json_integer_value(jv) : v ? atoll(v) : -1;
		if (n < 1 || (v && strspn(v, "0123456789") != strlen(v)))
			return snprintf(x->err, x->cap, "Bad request: PageFilter.value: not a page size"), -1;
		if (!x->s->limit || (uint64_t)n < x->s->limit)
			x->s->limit = (uint64_t)n;
		f->kind = RK_FILTER_PASS;
		return 0;
	}
	if (!strcmp(type, "FirstKeyOnlyFilter")) {
		f->kind = RK_FILTER_ROW_LIMIT;
		f->n = 1;
		return 0;
	}
	if (!strcmp(type, "KeyOnlyFilter")) {
		f->kind = RK_FILTER_STRIP_VALUE;
		return 0;
	}
	if (!strcmp(type, "RowFilter"))
		return compare(x, f, j, type, RK_FILTER_ROW_KEY_REGEX);
	if (!strcmp(type, "QualifierFilter"))
		return compare(x, f, j, type, RK_FILTER_QUALIFIER_REGEX);
	if (!strcmp(type, "ValueFilter"))
		return compare(x, f, j, type, RK_FILTER_VALUE_REGEX);
	if (!strcmp(type, "FilterList")) {
		json_t *kids = json_object_get(j, "filters");
		const char *op = str(j, "op");
		size_t n = json_array_size(kids);
		if (!op || strcmp(op, "MUST_PASS_ALL"))
			return snprintf(x->err, x->cap, "Bad request: FilterList with op %.32s is not "
			                                "supported (only MUST_PASS_ALL)", op ? op : "(none)"), -1;
		if (!n)
			return snprintf(x->err, x->cap, "Bad request: FilterList.filters: empty"), -1;
		rk_filter *k = rk_hb__alloc(&x->s->a, n * sizeof *k);
		if (!k)
			return oom(x);
		for (size_t i = 0; i < n; i++)
			if (filter(x, &k[i], json_array_get(kids, i), depth + 1))
				return -1;
		f->kind = RK_FILTER_CHAIN;
		f->kids = k;
		f->nkids = n;
		return 0;
	}
	return snprintf(x->err, x->cap, "Bad request: filter %.60s is not supported", type), -1;
}

int rk_hb__filter_parse(rk_hb_scanspec *s, const char *text, char *err, size_t cap)
{
	json_error_t je;
	fctx x = {s, 0, err, cap};
	json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		return snprintf(err, cap, "Bad request: filter: JSON at column %d: %s", je.column,
		                je.text), 400;
	rk_filter *f = rk_hb__alloc(&s->a, sizeof *f);
	int rc = f ? filter(&x, f, j, 0) : oom(&x);
	json_decref(j);
	if (rc)
		return 400;
	s->so.read.filter = f;
	return 0;
}

/* member key of o as an integer in lo..hi into *v (absent: untouched) */
static int integer(long long *v, json_t *o, const char *key, long long lo, long long hi,
                   char *err, size_t cap)
{
	json_t *a = json_object_get(o, key);
	if (!a)
		return 0;
	if (!json_is_integer(a) || json_integer_value(a) < lo || json_integer_value(a) > hi)
		return snprintf(err, cap, "Bad request: Scanner.%s: not an integer in %lld..%lld", key,
		                lo, hi), -1;
	*v = json_integer_value(a);
	return 0;
}

static int columns(rk_hb_scanspec *s, json_t *cols, char *err, size_t cap)
{
	size_t n = json_array_size(cols);
	if (cols && !json_is_array(cols))
		return snprintf(err, cap, "Bad request: Scanner.column: not an array"), -1;
	if (n > 1024)
		return snprintf(err, cap, "Bad request: Scanner.column: more than 1024"), -1;
	rk_column *c = n ? rk_hb__alloc(&s->a, n * sizeof *c) : NULL;
	if (n && !c)
		return snprintf(err, cap, "Service unavailable: out of memory"), -1;
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(cols, i);
		uint8_t *b;
		size_t bl;
		rk_hb_col hc;
		char *fam;
		if (!json_is_string(e) ||
		    rk_hb__b64_decode(&b, &bl, &s->a, json_string_value(e), json_string_length(e)) ||
		    rk_hb__column(&hc, &s->a, b, bl))
			return snprintf(err, cap, "Bad request: Scanner.column[%zu]: not base64 of "
			                          "family[:qualifier]", i), -1;
		if (!(fam = rk_hb__alloc(&s->a, strlen(hc.family) + 1)))
			return snprintf(err, cap, "Service unavailable: out of memory"), -1;
		memcpy(fam, hc.family, strlen(hc.family) + 1);
		c[i] = (rk_column){fam, hc.qual, hc.qual_len};
	}
	s->so.read.columns = c;
	s->so.read.ncolumns = n;
	return 0;
}

int rk_hb__scanner_parse(rk_hb_scanspec *s, const uint8_t *body, size_t len, char *err,
                         size_t cap)
{
	json_error_t je;
	memset(s, 0, sizeof *s);
	s->so = (rk_scan_options)RK_SCAN_OPTIONS_INIT;
	json_t *j = json_loadb((const char *)body, len, JSON_REJECT_DUPLICATES, &je);
	if (!j || !json_is_object(j)) {
		if (j)
			snprintf(err, cap, "Bad request: Scanner: expected a JSON object");
		else
			snprintf(err, cap, "Bad request: Scanner: JSON at line %d, column %d: %s", je.line,
			         je.column, je.text);
		json_decref(j);
		return 400;
	}
	long long batch = 0, st = 0, et = INT64_MAX, mv = 2147483647, limit = 0;
	json_t *a, *f = json_object_get(j, "filter");
	uint8_t *b;
	size_t bl;
	int rc = 400;
	const char *bad = NULL;
	if ((a = json_object_get(j, "startRow")) &&
	    (!json_is_string(a) || rk_hb__b64_decode(&b, &bl, &s->a, json_string_value(a),
	                                             json_string_length(a))))
		bad = "startRow";
	else if (a)
		s->so.start = b, s->so.start_len = bl;
	if ((a = json_object_get(j, "endRow")) &&
	    (!json_is_string(a) || rk_hb__b64_decode(&b, &bl, &s->a, json_string_value(a),
	                                             json_string_length(a))))
		bad = "endRow";
	else if (a)
		s->so.stop = b, s->so.stop_len = bl;
	if (bad) {
		snprintf(err, cap, "Bad request: Scanner.%s: not base64", bad);
		goto out;
	}
	if (integer(&batch, j, "batch", 1, 2147483647, err, cap) ||
	    integer(&st, j, "startTime", 0, INT64_MAX, err, cap) ||
	    integer(&et, j, "endTime", 0, INT64_MAX, err, cap) ||
	    integer(&mv, j, "maxVersions", 1, 2147483647, err, cap) ||
	    integer(&limit, j, "limit", 0, INT64_MAX, err, cap) ||
	    columns(s, json_object_get(j, "column"), err, cap))
		goto out;
	if (json_array_size(json_object_get(j, "labels"))) {
		snprintf(err, cap, "Bad request: Scanner.labels: visibility labels are not supported");
		goto out;
	}
	uint64_t from, to = 0;
	if (rk_hb__ms_to_us(&from, st) || (et != INT64_MAX && rk_hb__ms_to_us(&to, et)) ||
	    (et != INT64_MAX && to <= from)) {
		snprintf(err, cap, "Bad request: Scanner: startTime..endTime is not a time range (ms)");
		goto out;
	}
	s->so.read.min_ts = from;
	s->so.read.max_ts = to;
	s->so.read.max_versions = (unsigned)mv;
	s->batch = (uint64_t)batch;
	s->limit = (uint64_t)limit;
	if (f && !json_is_string(f)) {
		snprintf(err, cap, "Bad request: Scanner.filter: a string holding the filter's JSON");
		goto out;
	}
	if (f && (rc = rk_hb__filter_parse(s, json_string_value(f), err, cap)) != 0)
		goto out;
	rc = 0;
out:
	json_decref(j);
	if (rc)
		rk_hb__arena_free(&s->a);
	return rc;
}
