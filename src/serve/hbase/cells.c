/*
 * Rows and cells: GET /TABLE/ROW[/COLUMNS[/TS]] (?v=N), PUT and POST of a
 * CellSet (or of one raw value, application/octet-stream), DELETE of a
 * row, family, column or cell, /TABLE/multiget and the stateless scan
 * /TABLE/PREFIX* (?startrow, endrow, limit, column). Writes go through
 * rk_table_apply as the gRPC API's MutateRows do: acknowledged once the
 * store applied them under its durability mode (fsync by default).
 *
 * HBase's timestamps are milliseconds, the store's microseconds: a version
 * at microsecond us reads back as us / 1000, and a delete of millisecond
 * ms removes the versions of that whole millisecond.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "serve/hbase/hbase_int.h"

#define MAX_MULTIGET 10000u

int rk_hb__acquire(rk_table **t, rk_hb *h, const char *table, rk_hb_resp *r)
{
	rk_sv_ref ref;
	if (rk_sv__catalog_find(&ref, h->env->catalog, NULL, table))
		return rk_hb__fail(r, 404, "Not found: table %s", table);
	int rc = rk_sv__table_acquire(t, h->env->tables, table);
	return rc ? rk_hb__from_store(r, rc, table) : 0;
}

void rk_hb__release(rk_hb *h, const char *table, rk_table *t)
{
	rk_sv__table_release(h->env->tables, table, t);
}

/* 1 when the Accept header takes a representation of the models */
static int accepts(const rk_hb_req *q)
{
	return rk_hb__negotiate(q->accept) >= 0;
}

/* the path's columns as read options' columns (in the path's arena) */
static int read_opts(rk_read_options *o, rk_hb_path *p, const rk_hb_req *q, rk_hb_resp *r)
{
	uint64_t v = 1;
	*o = (rk_read_options)RK_READ_OPTIONS_INIT;
	if (rk_hb__arg_u64(&v, q, "v", 2147483647, r))
		return -1;
	o->max_versions = v ? (unsigned)v : 1;
	if (p->ncols) {
		rk_column *c = rk_hb__alloc(&p->a, p->ncols * sizeof *c);
		if (!c)
			return rk_hb__fail(r, 503, "Service unavailable: out of memory"), -1;
		for (size_t i = 0; i < p->ncols; i++)
			c[i] = (rk_column){p->cols[i].family, p->cols[i].qual, p->cols[i].qual_len};
		o->columns = c;
		o->ncolumns = p->ncols;
	}
	if (p->has_ts) {
		o->min_ts = p->ts_from * 1000;
		o->max_ts = p->ts_to * 1000;
	}
	return 0;
}

int rk_hb__row_get(rk_hb *h, const rk_hb_req *q, const rk_hb_path *cp, rk_hb_resp *r)
{
	rk_hb_path *p = (rk_hb_path *)cp; /* its arena takes the read's columns */
	rk_read_options o;
	rk_table *t;
	rk_row *row;
	int raw = q->accept && strstr(q->accept, "application/octet-stream") && p->ncols == 1 &&
	          p->cols[0].qual;
	if (!raw && !accepts(q))
		return rk_hb__fail(r, 406, "Not acceptable: %s (rows are application/json, text/xml or "
		                           "application/x-protobuf; one cell's value also "
		                           "application/octet-stream)", q->accept);
	if (read_opts(&o, p, q, r) || rk_hb__acquire(&t, h, p->table, r))
		return r->status;
	int rc = rk_table_get(&row, t, p->row, p->row_len, &o);
	rk_hb__release(h, p->table, t);
	if (rc == RK_ENOTFOUND)
		return rk_hb__fail(r, 404, "Not found: row");
	if (rc)
		return rk_hb__from_store(r, rc, "reading the row");
	if (raw) {
		r->body = malloc(row->cells[0].value_len + 1);
		if (r->body)
			memcpy(r->body, row->cells[0].value, row->cells[0].value_len);
		r->len = row->cells[0].value_len;
		r->status = r->body ? 200 : 503;
		r->type = "application/octet-stream";
		snprintf(r->timestamp, sizeof r->timestamp, "%llu",
		         (unsigned long long)(row->cells[0].ts / 1000));
		rk_row_free(row);
		return r->status;
	}
	json_t *rows = json_array();
	long b = rows ? rk_hb__row_json(rows, row, 0, 0) : -1;
	rk_row_free(row);
	return rk_hb__model(r, RK_HB_M_CELLSET, 200,
	                    b < 0 ? (json_decref(rows), NULL) : json_pack("{s:o}", "Row", rows));
}

/* PUT/POST of one raw value at the path's one column */
static int raw_put(rk_hb_puts *o, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r)
{
	memset(o, 0, sizeof *o);
	if (p->ncols != 1 || !p->cols[0].qual)
		return rk_hb__fail(r, 400, "Bad request: a raw value goes to one family:qualifier");
	uint64_t ts = 0;
	if (q->x_timestamp) {
		char *end;
		unsigned long long ms = strtoull(q->x_timestamp, &end, 10);
		if (*end || !*q->x_timestamp || ms > RK_TS_MAX / 1000)
			return rk_hb__fail(r, 400, "Bad request: X-Timestamp: not milliseconds");
		ts = ms * 1000;
	} else if (p->has_ts && p->ts_to == p->ts_from + 1) {
		ts = p->ts_from * 1000;
	}
	if (!(o->m = rk_hb__alloc(&o->a, sizeof *o->m)))
		return rk_hb__fail(r, 503, "Service unavailable: out of memory");
	*o->m = (rk_mutation){RK_MUT_PUT, p->row, p->row_len, p->cols[0].family, p->cols[0].qual,
	                      p->cols[0].qual_len, ts, q->body, q->body_len, 0};
	o->n = 1;
	return 0;
}

int rk_hb__row_put(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r)
{
	rk_hb_puts o;
	char err[256];
	rk_table *t;
	const rk_hb_arg *check = rk_hb__arg(q, "check");
	rk_hb_body b;
	if (check && check->value[0]) /* HBase: ?check= empty is no check */
		return rk_hb__check(h, q, p, check->value, r);
	if (rk_hb__ctype_is(q->ctype, "application/octet-stream")) {
		if (raw_put(&o, q, p, r))
			return r->status;
	} else {
		if (rk_hb__body(&b, q, RK_HB_M_CELLSET, r))
			return r->status;
		int st = rk_hb__cellset_parse(&o, b.p, b.len, p, 0, err, sizeof err);
		free(b.owned);
		if (st)
			return rk_hb__fail(r, st, "%s", err);
	}
	if (!rk_hb__acquire(&t, h, p->table, r)) {
		int rc = rk_table_apply(t, o.m, o.n, NULL);
		rk_hb__release(h, p->table, t);
		rc ? rk_hb__from_store(r, rc, "writing") : rk_hb__ok(r, 200);
	}
	rk_hb__arena_free(&o.a);
	return r->status;
}

int rk_hb__row_delete(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r)
{
	rk_mutation m[1024];
	size_t n = p->ncols ? p->ncols : 1;
	rk_table *t;
	/* HBase's DELETE ignores ?check and deletes: refused here, since a
	 * client asking for a condition must not lose the row unconditionally */
	const rk_hb_arg *check = rk_hb__arg(q, "check");
	if (check && check->value[0])
		return rk_hb__fail(r, 400, "Bad request: ?check=%.20s on DELETE: a check-and-delete is "
		                           "PUT or POST /TABLE/ROW?check=delete with a CellSet whose last "
		                           "cell is the check", check->value);
	uint64_t from = p->has_ts ? p->ts_from * 1000 : 0;
	uint64_t to = p->has_ts ? p->ts_to * 1000 - 1 : RK_TS_MAX;
	for (size_t i = 0; i < n; i++) {
		const rk_hb_col *c = p->ncols ? &p->cols[i] : NULL;
		m[i] = (rk_mutation){!c ? RK_MUT_DELETE_ROW : c->qual ? RK_MUT_DELETE_COLUMN
		                                                      : RK_MUT_DELETE_FAMILY,
		                     p->row, p->row_len, c ? c->family : NULL, c ? c->qual : NULL,
		                     c ? c->qual_len : 0, to, NULL, 0, from};
	}
	if (rk_hb__acquire(&t, h, p->table, r))
		return r->status;
	int rc = rk_table_apply(t, m, n, NULL);
	rk_hb__release(h, p->table, t);
	return rc ? rk_hb__from_store(r, rc, "deleting") : rk_hb__ok(r, 200);
}

int rk_hb__multiget(rk_hb *h, const rk_hb_req *q, const rk_hb_path *cp, rk_hb_resp *r)
{
	rk_hb_path *p = (rk_hb_path *)cp;
	rk_read_options o;
	rk_table *t;
	size_t asked = 0;
	if (!accepts(q))
		return rk_hb__fail(r, 406, "Not acceptable: %s (application/json, text/xml or "
		                           "application/x-protobuf)", q->accept);
	for (size_t i = 0; i < q->nargs; i++)
		asked += !strcmp(q->args[i].name, "row");
	if (!asked || asked > MAX_MULTIGET)
		return rk_hb__fail(r, 400, "Bad request: multiget takes 1..%u ?row=KEY", MAX_MULTIGET);
	if (read_opts(&o, p, q, r) || rk_hb__acquire(&t, h, p->table, r))
		return r->status;
	json_t *rows = json_array();
	long bytes = 0;
	int rc = rows ? 0 : RK_ENOMEM;
	for (size_t i = 0; i < q->nargs && !rc; i++) {
		const rk_hb_arg *a = &q->args[i];
		rk_row *row;
		if (strcmp(a->name, "row"))
			continue;
		if (!a->value_len || a->value_len > RK_MAX_ROW_LEN) {
			rc = rk__err(RK_EINVALID, "?row=: a key of %zu bytes", a->value_len);
			break;
		}
		rc = rk_table_get(&row, t, (const uint8_t *)a->value, a->value_len, &o);
		if (rc == RK_ENOTFOUND) {
			rc = 0;
			continue;
		}
		long b = rc ? 0 : rk_hb__row_json(rows, row, 0, 0);
		if (!rc)
			rk_row_free(row);
		if (b < 0)
			rc = rk__err(RK_ENOMEM, "out of memory");
		else if ((bytes += b) > (long)h->lim.max_response)
			rc = rk__err(RK_EINVALID, "the answer passed %zu bytes of cells: ask for fewer rows",
			             h->lim.max_response);
	}
	rk_hb__release(h, p->table, t);
	if (rc) {
		json_decref(rows);
		return rk_hb__from_store(r, rc, "multiget");
	}
	if (!json_array_size(rows)) {
		json_decref(rows);
		return rk_hb__fail(r, 404, "Not found: none of the rows");
	}
	return rk_hb__model(r, RK_HB_M_CELLSET, 200, json_pack("{s:o}", "Row", rows));
}

/* ?NAME= as bytes (the decoded value), or NULL/0 */
static const uint8_t *arg_bytes(size_t *len, const rk_hb_req *q, const char *name)
{
	const rk_hb_arg *a = rk_hb__arg(q, name);
	*len = a ? a->value_len : 0;
	return a && a->value_len ? (const uint8_t *)a->value : NULL;
}

int rk_hb__scan(rk_hb *h, const rk_hb_req *q, const rk_hb_path *cp, rk_hb_resp *r)
{
	rk_hb_path *p = (rk_hb_path *)cp;
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_table *t;
	rk_scan *sc;
	const rk_row *row;
	uint64_t mv = 0;
	const rk_hb_arg *rev = rk_hb__arg(q, "reversed");
	if (!accepts(q))
		return rk_hb__fail(r, 406, "Not acceptable: %s (application/json, text/xml or "
		                           "application/x-protobuf)", q->accept);
	for (size_t i = 0; i < q->nargs && !p->ncols; i++)
		if (!strcmp(q->args[i].name, "column"))
			return rk_hb__fail(r, 400, "Bad request: give columns in the path "
			                           "(/TABLE/PREFIX*/family:qualifier,...)");
	if (read_opts(&so.read, p, q, r) || rk_hb__arg_u64(&so.limit, q, "limit", UINT64_MAX >> 1, r) ||
	    rk_hb__arg_u64(&mv, q, "maxversions", 2147483647, r))
		return r->status;
	if (mv)
		so.read.max_versions = (unsigned)mv;
	so.prefix = p->row_len ? p->row : NULL;
	so.prefix_len = p->row_len;
	so.start = arg_bytes(&so.start_len, q, "startrow");
	so.stop = arg_bytes(&so.stop_len, q, "endrow");
	so.reverse = rev && !strcmp(rev->value, "true");
	if (rk_hb__acquire(&t, h, p->table, r))
		return r->status;
	json_t *rows = json_array();
	long bytes = 0;
	int rc = rows ? rk_scan_open(&sc, t, &so) : rk__err(RK_ENOMEM, "out of memory");
	int opened = rows && rc == 0;
	while (!rc && (rc = rk_scan_next(&row, sc)) == 0) {
		long b = rk_hb__row_json(rows, row, 0, 0);
		if (b < 0)
			rc = rk__err(RK_ENOMEM, "out of memory");
		else if ((bytes += b) > (long)h->lim.max_response)
			rc = rk__err(RK_EINVALID, "the scan's answer passed %zu bytes of cells: use a "
			             "scanner, or ?limit=", h->lim.max_response);
	}
	if (opened)
		rk_scan_close(sc);
	rk_hb__release(h, p->table, t);
	if (rc != RK_EITEROVER) {
		json_decref(rows);
		return rk_hb__from_store(r, rc, "scanning");
	}
	if (!json_array_size(rows) && p->row_len) {
		json_decref(rows);
		return rk_hb__fail(r, 404, "Not found: no row begins with the prefix");
	}
	return rk_hb__model(r, RK_HB_M_CELLSET, 200, json_pack("{s:o}", "Row", rows));
}
