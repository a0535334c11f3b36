/*
 * ReadRows scans: one server-streaming call per scan, its responses fed to
 * the chunk decoder (bt_chunks.c), whole rows handed out in key order.
 *
 * The request maps rowkey's read onto Bigtable's: single keys and ranges go
 * into one RowSet (the planner's point gets and per-bucket ranges travel in a
 * single call), the row limit into rows_limit, and the column and version
 * selectors into a RowFilter chain (family regex, qualifier regex, timestamp
 * range, cells per column, strip values), in that order, so the version
 * limit counts only cells that passed the column and time filters. A scan
 * does not resume a broken stream: it reports the error and the rows it
 * handed out so far (rk_bt__scan_rows).
 */
#include "store/bigtable/bt_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_data.pb-c.h"
#include "key/error.h"

struct rk_bt_scan {
	rk_bt_call *call;
	rk_bt_chunks *dec;
	int ended;
	int failed; /* the error code that ended the scan, 0 if none */
	int pending;              /* an error to report once the queued rows are out */
	char pending_msg[512];
	uint64_t rows;
	int64_t limit;
	char what[128];
};

static int check_key(const char *what, const char *name, size_t i, const rk_bt_bytes *b)
{
	if (b->len > RK_BT_MAX_KEY)
		return rk__err(RK_ETOOLONG, "%s: %s %zu is over Bigtable's 4 KiB key limit", what, name, i);
	if (b->len && !b->ptr)
		return rk__err(RK_EINVALID, "%s: %s %zu has a length but no bytes", what, name, i);
	return 0;
}

int rk_bt__scan_open(rk_bt_scan **out, rk_bt_client *c, const char *table, const rk_bt_read *q)
{
	rk_bt_scan *s = calloc(1, sizeof *s);
	char *name = NULL, *routing = NULL;
	uint8_t *buf = NULL;
	ProtobufCBinaryData *keys = NULL;
	Rkbt__RowRange *rr = NULL, **rrp = NULL;
	Rkbt__RowFilter *cf = NULL, **cfp = NULL, **top = NULL;
	Rkbt__RowFilter__Chain *cch = NULL;
	char *rx = NULL;
	int rc;
	if (!s)
		return rk__err(RK_ENOMEM, "bigtable: out of memory for a scan");
	snprintf(s->what, sizeof s->what, "bigtable ReadRows %.60s", table ? table : "");
	if ((rc = rk_bt__table_name(&name, c, table)) < 0)
		goto fail;
	if (q->rows_limit < 0 || q->versions < 0 || q->ts_start_micros < 0 || q->ts_end_micros < 0 ||
	    (q->ts_end_micros && q->ts_end_micros <= q->ts_start_micros)) {
		rc = rk__err(RK_EINVALID, "%s: negative limit or empty timestamp range", s->what);
		goto fail;
	}
	for (size_t i = 0; i < q->nkeys; i++) {
		if ((rc = check_key(s->what, "key", i, &q->keys[i])) < 0)
			goto fail;
		if (!q->keys[i].len) {
			rc = rk__err(RK_EINVALID, "%s: key %zu is empty", s->what, i);
			goto fail;
		}
	}
	for (size_t i = 0; i < q->nranges; i++)
		if ((rc = check_key(s->what, "range start", i, &q->ranges[i].start)) < 0 ||
		    (rc = check_key(s->what, "range end", i, &q->ranges[i].end)) < 0)
			goto fail;
	if ((rc = rk_bt__chunks_new(&s->dec)) < 0)
		goto fail;

	Rkbt__ReadRowsRequest req;
	rkbt__read_rows_request__init(&req);
	req.table_name = name;
	if (c->opts.app_profile_id)
		req.app_profile_id = (char *)c->opts.app_profile_id;
	req.rows_limit = q->rows_limit;
	s->limit = q->rows_limit;

	Rkbt__RowSet set;
	rkbt__row_set__init(&set);
	if (q->nkeys || q->nranges) {
		keys = calloc(q->nkeys ? q->nkeys : 1, sizeof *keys);
		rr = calloc(q->nranges ? q->nranges : 1, sizeof *rr);
		rrp = calloc(q->nranges ? q->nranges : 1, sizeof *rrp);
		if (!keys || !rr || !rrp) {
			rc = rk__err(RK_ENOMEM, "%s: out of memory", s->what);
			goto fail;
		}
		for (size_t i = 0; i < q->nkeys; i++) {
			keys[i].data = (uint8_t *)q->keys[i].ptr;
			keys[i].len = q->keys[i].len;
		}
		for (size_t i = 0; i < q->nranges; i++) {
			const rk_bt_range *g = &q->ranges[i];
			rkbt__row_range__init(&rr[i]);
			ProtobufCBinaryData st = {g->start.len, (uint8_t *)g->start.ptr};
			ProtobufCBinaryData en = {g->end.len, (uint8_t *)g->end.ptr};
			if (g->start.len && g->start_open) {
				rr[i].start_key_case = RKBT__ROW_RANGE__START_KEY_START_KEY_OPEN;
				rr[i].start_key_open = st;
			} else if (g->start.len) {
				rr[i].start_key_case = RKBT__ROW_RANGE__START_KEY_START_KEY_CLOSED;
				rr[i].start_key_closed = st;
			}
			if (g->end.len && g->end_closed) {
				rr[i].end_key_case = RKBT__ROW_RANGE__END_KEY_END_KEY_CLOSED;
				rr[i].end_key_closed = en;
			} else if (g->end.len) {
				rr[i].end_key_case = RKBT__ROW_RANGE__END_KEY_END_KEY_OPEN;
				rr[i].end_key_open = en;
			}
			rrp[i] = &rr[i];
		}
		set.n_row_keys = q->nkeys;
		set.row_keys = keys;
		set.n_row_ranges = q->nranges;
		set.row_ranges = rrp;
		req.rows = &set;
	}

	/* the filter chain; first the columns: per column a family filter, or a
	 * chain of family and qualifier filters, all interleaved */
	Rkbt__RowFilter f[6], *fp[6], chain_f, inter_f;
	Rkbt__RowFilter__Chain chain;
	Rkbt__RowFilter__Interleave inter;
	Rkbt__TimestampRange tr;
	size_t nf = 0;
	if (q->ncolumns) {
		size_t rxlen = 0, k = q->ncolumns;
		for (size_t i = 0; i < k; i++) {
			if (!q->columns[i].family || !*q->columns[i].family) {
				rc = rk__err(RK_EINVALID, "%s: column %zu has no family", s->what, i);
				goto fail;
			}
			rxlen += 4 * (strlen(q->columns[i].family) + q->columns[i].qualifier_len) + 2;
		}
		cf = calloc(3 * k, sizeof *cf);
		cfp = calloc(2 * k, sizeof *cfp);
		top = calloc(k, sizeof *top);
		cch = calloc(k, sizeof *cch);
		rx = malloc(rxlen);
		if (!cf || !cfp || !top || !cch || !rx) {
			rc = rk__err(RK_ENOMEM, "%s: out of memory", s->what);
			goto fail;
		}
		char *p = rx;
		for (size_t i = 0; i < k; i++) {
			const rk_bt_column *col = &q->columns[i];
			Rkbt__RowFilter *ff = &cf[3 * i], *qf = &cf[3 * i + 1], *chf = &cf[3 * i + 2];
			rkbt__row_filter__init(ff);
			ff->filter_case = RKBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER;
			ff->family_name_regex_filter = p;
			p += rk_bt__regex_quote(p, (const uint8_t *)col->family, strlen(col->family)) + 1;
			top[i] = ff;
			if (!col->qualifier)
				continue;
			rkbt__row_filter__init(qf);
			qf->filter_case = RKBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER;
			qf->column_qualifier_regex_filter.data = (uint8_t *)p;
			qf->column_qualifier_regex_filter.len =
				rk_bt__regex_quote(p, col->qualifier, col->qualifier_len);
			p += qf->column_qualifier_regex_filter.len + 1;
			rkbt__row_filter__chain__init(&cch[i]);
			cfp[2 * i] = ff;
			cfp[2 * i + 1] = qf;
			cch[i].n_filters = 2;
			cch[i].filters = &cfp[2 * i];
			rkbt__row_filter__init(chf);
			chf->filter_case = RKBT__ROW_FILTER__FILTER_CHAIN;
			chf->chain = &cch[i];
			top[i] = chf;
		}
		if (k == 1) {
			fp[nf++] = top[0];
		} else {
			rkbt__row_filter__interleave__init(&inter);
			inter.n_filters = k;
			inter.filters = top;
			rkbt__row_filter__init(&inter_f);
			inter_f.filter_case = RKBT__ROW_FILTER__FILTER_INTERLEAVE;
			inter_f.interleave = &inter;
			fp[nf++] = &inter_f;
		}
	}
	if (q->family_regex) {
		rkbt__row_filter__init(&f[nf]);
		f[nf].filter_case = RKBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER;
		f[nf].family_name_regex_filter = (char *)q->family_regex;
		fp[nf] = &f[nf];
		nf++;
	}
	if (q->qualifier_regex) {
		rkbt__row_filter__init(&f[nf]);
		f[nf].filter_case = RKBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER;
		f[nf].column_qualifier_regex_filter.data = (uint8_t *)q->qualifier_regex;
		f[nf].column_qualifier_regex_filter.len = q->qualifier_regex_len;
		fp[nf] = &f[nf];
		nf++;
	}
	if (q->ts_start_micros || q->ts_end_micros) {
		rkbt__timestamp_range__init(&tr);
		tr.start_timestamp_micros = q->ts_start_micros;
		tr.end_timestamp_micros = q->ts_end_micros;
		rkbt__row_filter__init(&f[nf]);
		f[nf].filter_case = RKBT__ROW_FILTER__FILTER_TIMESTAMP_RANGE_FILTER;
		f[nf].timestamp_range_filter = &tr;
		fp[nf] = &f[nf];
		nf++;
	}
	if (q->versions) {
		rkbt__row_filter__init(&f[nf]);
		f[nf].filter_case = RKBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER;
		f[nf].cells_per_column_limit_filter = q->versions;
		fp[nf] = &f[nf];
		nf++;
	}
	if (q->strip_values) {
		rkbt__row_filter__init(&f[nf]);
		f[nf].filter_case = RKBT__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER;
		f[nf].strip_value_transformer = 1;
		fp[nf] = &f[nf];
		nf++;
	}
	if (nf == 1) {
		req.filter = fp[0];
	} else if (nf > 1) {
		rkbt__row_filter__chain__init(&chain);
		chain.n_filters = nf;
		chain.filters = fp;
		rkbt__row_filter__init(&chain_f);
		chain_f.filter_case = RKBT__ROW_FILTER__FILTER_CHAIN;
		chain_f.chain = &chain;
		req.filter = &chain_f;
	}

	size_t len = rkbt__read_rows_request__get_packed_size(&req);
	buf = malloc(len ? len : 1);
	routing = rk_bt__routing(name);
	if (!buf || !routing) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", s->what);
		goto fail;
	}
	rkbt__read_rows_request__pack(&req, buf);
	rc = rk_bt__call_start(&s->call, c->data, RK_BT_M_READ_ROWS, buf, len, routing,
	                       rk_bt__deadline(c->opts.read_timeout_ms), s->what);
	if (rc < 0)
		goto fail;
	free(buf);
	free(routing);
	free(name);
	free(keys);
	free(rr);
	free(rrp);
	free(cf);
	free(cfp);
	free(top);
	free(cch);
	free(rx);
	*out = s;
	return 0;
fail:
	free(buf);
	free(routing);
	free(name);
	free(keys);
	free(rr);
	free(rrp);
	free(cf);
	free(cfp);
	free(top);
	free(cch);
	free(rx);
	rk_bt__scan_free(s);
	return rc;
}

int rk_bt__scan_next(const rk_bt_row **out, rk_bt_scan *s)
{
	int rc;
	if (s->failed)
		return rk__err(s->failed, "%s: the scan already failed after %llu rows", s->what,
		               (unsigned long long)s->rows);
	for (;;) {
		if (s->limit && s->rows >= (uint64_t)s->limit)
			return RK_EITEROVER;
		rc = rk_bt__chunks_next(out, s->dec);
		if (rc == 0) {
			s->rows++;
			return 0;
		}
		if (s->pending) {
			/* rows committed before the error have been handed out */
			s->failed = s->pending;
			return rk__err(s->pending, "%s", s->pending_msg);
		}
		if (s->ended)
			return RK_EITEROVER;
		const uint8_t *m;
		size_t n;
		rc = rk_bt__call_next(s->call, &m, &n);
		if (rc == 0)
			rc = rk_bt__chunks_feed(s->dec, m, n);
		else if (rc == RK_EITEROVER && (rc = rk_bt__chunks_finish(s->dec)) == 0)
			s->ended = 1;
		if (rc < 0) {
			s->pending = rc;
			snprintf(s->pending_msg, sizeof s->pending_msg, "%s", rk_error_last());
		}
	}
}

uint64_t rk_bt__scan_rows(const rk_bt_scan *s)
{
	return s->rows;
}

void rk_bt__scan_free(rk_bt_scan *s)
{
	if (!s)
		return;
	rk_bt__call_free(s->call);
	rk_bt__chunks_free(s->dec);
	free(s);
}
