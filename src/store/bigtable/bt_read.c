/*
 * ReadRows scans: a server-streaming call per attempt, its responses fed to
 * the chunk decoder (bt_chunks.c), whole rows handed out in key order.
 *
 * The request maps rowkey's read onto Bigtable's: single keys and ranges go
 * into one RowSet (the planner's point gets and per-bucket ranges travel in a
 * single call), the row limit into rows_limit, and the column and version
 * selectors into a RowFilter chain (columns, family regex, qualifier regex,
 * timestamp range, cells per column, strip values), in that order, so the
 * version limit counts only cells that passed the column and time filters.
 *
 * A stream that breaks with a retryable status (UNAVAILABLE,
 * DEADLINE_EXCEEDED, ABORTED) is resumed, as Google's clients do: the row set
 * is cut down to what lies after the last row handed out (keys at or before
 * it dropped, ranges that end at or before it dropped, the others started
 * just after it), the row limit reduced by the rows already handed out, and
 * the call made again after a backoff, up to max_attempts calls in a row
 * without progress. A partial row of the broken stream is discarded (the
 * server sends it again). Any other error ends the scan, after the rows
 * committed before it have been handed out.
 */
#include "key/bytes.h"
#include "store/bigtable/bt_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt_data.pb-c.h"
#include "key/error.h"
#include "key/units.h"

struct rk_bt_scan {
	rk_bt_client *c;
	char *name, *routing;
	char what[128];
	/* the request, kept to resume: owned copies of keys and ranges */
	rk_bt_bytes *keys;
	size_t nkeys;
	rk_bt_range *ranges;
	size_t nranges;
	uint8_t *arena;
	uint8_t *filter; /* packed RowFilter, NULL: none */
	size_t filter_len;
	int64_t limit;
	/* progress */
	rk_bt_call *call;
	rk_bt_chunks *dec;
	uint8_t resume[RK_BT_MAX_KEY]; /* the last row handed out */
	size_t resume_len;             /* 0: none yet */
	unsigned attempts;             /* calls since the last row */
	uint64_t resumes;
	int ended;
	int failed;  /* the error code that ended the scan, 0 if none */
	int pending; /* an error to report once the queued rows are out */
	char pending_msg[512];
	uint64_t rows;
};

static int check_key(const char *what, const char *name, size_t i, const rk_bt_bytes *b)
{
	if (b->len > RK_BT_MAX_KEY)
		return rk__err(RK_ETOOLONG, "%s: %s %zu is over Bigtable's 4 KiB key limit", what, name, i);
	if (b->len && !b->ptr)
		return rk__err(RK_EINVALID, "%s: %s %zu has a length but no bytes", what, name, i);
	return 0;
}

/* ---- the filter, packed once ---- */

/*
 * The column selector: per column a family filter, or a chain of a family
 * and a qualifier filter; the columns' filters interleaved (a single column
 * needs no interleave). The filters and their quoted regexes live in these
 * arrays, sized by the column count, until the whole filter is packed.
 */
typedef struct col_filters {
	Rkbt__RowFilter *cf;         /* per column: family, qualifier, their chain */
	Rkbt__RowFilter **cfp;       /* per column: the chain's two filters */
	Rkbt__RowFilter **top;       /* per column: the filter the interleave holds */
	Rkbt__RowFilter__Chain *cch; /* per column: the chain */
	char *rx;                    /* the quoted regexes, each NUL-terminated */
	Rkbt__RowFilter__Interleave inter;
	Rkbt__RowFilter inter_f;
} col_filters;

static void col_filters_free(col_filters *c)
{
	free(c->cf);
	free(c->cfp);
	free(c->top);
	free(c->cch);
	free(c->rx);
}

/* Checks that every column names a family, then allocates c for them. */
static int col_filters_alloc(col_filters *c, const rk_bt_read *q, const char *what)
{
	size_t rxlen = 0, k = q->ncolumns;
	for (size_t i = 0; i < k; i++) {
		if (!q->columns[i].family || !*q->columns[i].family)
			return rk__err(RK_EINVALID, "%s: column %zu has no family", what, i);
		/* rk_bt__regex_quote writes at most 4 bytes per byte (\xNN), then a NUL */
		rxlen += 4 * (strlen(q->columns[i].family) + q->columns[i].qualifier_len) + 2;
	}
	c->cf = calloc(3 * k, sizeof *c->cf);
	c->cfp = calloc(2 * k, sizeof *c->cfp);
	c->top = calloc(k, sizeof *c->top);
	c->cch = calloc(k, sizeof *c->cch);
	c->rx = malloc(rxlen);
	if (!c->cf || !c->cfp || !c->top || !c->cch || !c->rx)
		return rk__err(RK_ENOMEM, "%s: out of memory", what);
	return 0;
}

/* Column i's filter, its regexes quoted at p; returns where the next go. */
static char *col_filter(col_filters *c, size_t i, const rk_bt_column *col, char *p)
{
	Rkbt__RowFilter *ff = &c->cf[3 * i], *qf = &c->cf[3 * i + 1], *chf = &c->cf[3 * i + 2];
	rkbt__row_filter__init(ff);
	ff->filter_case = RKBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER;
	ff->family_name_regex_filter = p;
	p += rk_bt__regex_quote(p, (const uint8_t *)col->family, strlen(col->family)) + 1;
	c->top[i] = ff;
	if (!col->qualifier)
		return p;
	rkbt__row_filter__init(qf);
	qf->filter_case = RKBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER;
	qf->column_qualifier_regex_filter.data = (uint8_t *)p;
	qf->column_qualifier_regex_filter.len =
		rk_bt__regex_quote(p, col->qualifier, col->qualifier_len);
	p += qf->column_qualifier_regex_filter.len + 1;
	rkbt__row_filter__chain__init(&c->cch[i]);
	c->cfp[2 * i] = ff;
	c->cfp[2 * i + 1] = qf;
	c->cch[i].n_filters = 2;
	c->cch[i].filters = &c->cfp[2 * i];
	rkbt__row_filter__init(chf);
	chf->filter_case = RKBT__ROW_FILTER__FILTER_CHAIN;
	chf->chain = &c->cch[i];
	c->top[i] = chf;
	return p;
}

/* The column selector of q (which has columns) into *out; it points into c. */
static int col_filters_build(Rkbt__RowFilter **out, col_filters *c, const rk_bt_read *q,
                             const char *what)
{
	int rc = col_filters_alloc(c, q, what);
	if (rc < 0)
		return rc;
	char *p = c->rx;
	for (size_t i = 0; i < q->ncolumns; i++)
		p = col_filter(c, i, &q->columns[i], p);
	if (q->ncolumns == 1) {
		*out = c->top[0];
		return 0;
	}
	rkbt__row_filter__interleave__init(&c->inter);
	c->inter.n_filters = q->ncolumns;
	c->inter.filters = c->top;
	rkbt__row_filter__init(&c->inter_f);
	c->inter_f.filter_case = RKBT__ROW_FILTER__FILTER_INTERLEAVE;
	c->inter_f.interleave = &c->inter;
	*out = &c->inter_f;
	return 0;
}

/* The chain on the stack: the column selector, then one filter per other
 * selector q sets. Six is every selector at once. */
typedef struct filter_chain {
	Rkbt__RowFilter f[6], *fp[6];
	size_t nf;
	Rkbt__TimestampRange tr;
	Rkbt__RowFilter__Chain chain;
	Rkbt__RowFilter chain_f;
} filter_chain;

/* Appends a filter of this kind; the caller sets its argument. */
static Rkbt__RowFilter *chain_add(filter_chain *fc, Rkbt__RowFilter__FilterCase kind)
{
	Rkbt__RowFilter *f = &fc->f[fc->nf];
	rkbt__row_filter__init(f);
	f->filter_case = kind;
	fc->fp[fc->nf++] = f;
	return f;
}

/* The selectors other than columns, in the order the overview gives: the
 * version limit after the column and time filters, so it counts only the
 * cells they let through. */
static void chain_selectors(filter_chain *fc, const rk_bt_read *q)
{
	Rkbt__RowFilter *f;
	if (q->family_regex) {
		f = chain_add(fc, RKBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER);
		f->family_name_regex_filter = (char *)q->family_regex;
	}
	if (q->qualifier_regex) {
		f = chain_add(fc, RKBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER);
		f->column_qualifier_regex_filter.data = (uint8_t *)q->qualifier_regex;
		f->column_qualifier_regex_filter.len = q->qualifier_regex_len;
	}
	if (q->ts_start_micros || q->ts_end_micros) {
		rkbt__timestamp_range__init(&fc->tr);
		fc->tr.start_timestamp_micros = q->ts_start_micros;
		fc->tr.end_timestamp_micros = q->ts_end_micros;
		f = chain_add(fc, RKBT__ROW_FILTER__FILTER_TIMESTAMP_RANGE_FILTER);
		f->timestamp_range_filter = &fc->tr;
	}
	if (q->versions) {
		f = chain_add(fc, RKBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER);
		f->cells_per_column_limit_filter = q->versions;
	}
	if (q->strip_values) {
		f = chain_add(fc, RKBT__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER);
		f->strip_value_transformer = 1;
	}
}

/* The filter to send: none, the only one, or the chain of them all. */
static Rkbt__RowFilter *chain_root(filter_chain *fc)
{
	if (fc->nf <= 1)
		return fc->nf ? fc->fp[0] : NULL;
	rkbt__row_filter__chain__init(&fc->chain);
	fc->chain.n_filters = fc->nf;
	fc->chain.filters = fc->fp;
	rkbt__row_filter__init(&fc->chain_f);
	fc->chain_f.filter_case = RKBT__ROW_FILTER__FILTER_CHAIN;
	fc->chain_f.chain = &fc->chain;
	return &fc->chain_f;
}

/* q's selectors as a packed RowFilter in *out (the caller frees it); *out is
 * NULL when q selects every cell. */
static int build_filter(uint8_t **out, size_t *out_len, const rk_bt_read *q, const char *what)
{
	col_filters cols = {0};
	filter_chain fc;
	Rkbt__RowFilter *root;
	int rc = 0;
	*out = NULL;
	*out_len = 0;
	fc.nf = 0;
	if (q->ncolumns) {
		if ((rc = col_filters_build(&fc.fp[0], &cols, q, what)) < 0)
			goto done;
		fc.nf = 1;
	}
	chain_selectors(&fc, q);
	root = chain_root(&fc);
	if (root) {
		size_t len = rkbt__row_filter__get_packed_size(root);
		*out = malloc(len ? len : 1);
		if (!*out) {
			rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
			goto done;
		}
		rkbt__row_filter__pack(root, *out);
		*out_len = len;
	}
done:
	col_filters_free(&cols);
	return rc;
}

/* ---- one attempt ---- */

/* The row set's keys that lie after the last row handed out, into keys
 * (they point into s); returns how many. */
static size_t keys_left(ProtobufCBinaryData *keys, const rk_bt_scan *s)
{
	size_t nk = 0;
	for (size_t i = 0; i < s->nkeys; i++)
		if (!s->resume_len ||
		    rk__bytes_cmp(s->keys[i].ptr, s->keys[i].len, s->resume, s->resume_len) > 0)
			keys[nk++] = (ProtobufCBinaryData){s->keys[i].len, (uint8_t *)s->keys[i].ptr};
	return nk;
}

/* g as a RowRange; an empty start or end is unbounded. */
static void row_range(Rkbt__RowRange *r, const rk_bt_range *g)
{
	ProtobufCBinaryData st = {g->start.len, (uint8_t *)g->start.ptr};
	ProtobufCBinaryData en = {g->end.len, (uint8_t *)g->end.ptr};
	rkbt__row_range__init(r);
	if (g->start.len && g->start_open) {
		r->start_key_case = RKBT__ROW_RANGE__START_KEY_START_KEY_OPEN;
		r->start_key_open = st;
	} else if (g->start.len) {
		r->start_key_case = RKBT__ROW_RANGE__START_KEY_START_KEY_CLOSED;
		r->start_key_closed = st;
	}
	if (g->end.len && g->end_closed) {
		r->end_key_case = RKBT__ROW_RANGE__END_KEY_END_KEY_CLOSED;
		r->end_key_closed = en;
	} else if (g->end.len) {
		r->end_key_case = RKBT__ROW_RANGE__END_KEY_END_KEY_OPEN;
		r->end_key_open = en;
	}
}

/* The row set's ranges cut down to what lies after the last row handed out,
 * into rr (rrp pointing at each); `whole`: the row set is empty, the whole
 * table, which from its start needs no range at all. Returns how many. */
static size_t ranges_left(Rkbt__RowRange *rr, Rkbt__RowRange **rrp, const rk_bt_scan *s,
                          int whole)
{
	const uint8_t *rk = s->resume;
	size_t rl = s->resume_len, nr = 0;
	for (size_t i = 0; i < s->nranges + (size_t)whole; i++) {
		rk_bt_range g = whole ? (rk_bt_range){{NULL, 0}, 0, {NULL, 0}, 0} : s->ranges[i];
		if (rl && g.end.len && rk__bytes_cmp(g.end.ptr, g.end.len, rk, rl) <= 0)
			continue; /* wholly read */
		if (rl && (!g.start.len || rk__bytes_cmp(g.start.ptr, g.start.len, rk, rl) <= 0)) {
			g.start = (rk_bt_bytes){rk, rl};
			g.start_open = 1;
		}
		if (whole && !rl)
			break; /* the whole table, from its start: no row set at all */
		row_range(&rr[nr], &g);
		rrp[nr] = &rr[nr];
		nr++;
	}
	return nr;
}

/* Packs a ReadRowsRequest for rows (NULL: the whole table) and the row
 * limit, with the scan's filter. */
static int pack_request(uint8_t **out, size_t *out_len, const rk_bt_scan *s, Rkbt__RowSet *rows,
                        int64_t limit)
{
	Rkbt__ReadRowsRequest req;
	Rkbt__RowFilter *filter = NULL;
	int rc = 0;
	rkbt__read_rows_request__init(&req);
	req.table_name = s->name;
	if (s->c->opts.app_profile_id)
		req.app_profile_id = (char *)s->c->opts.app_profile_id;
	req.rows_limit = limit;
	req.rows = rows;
	if (s->filter) {
		filter = rkbt__row_filter__unpack(NULL, s->filter_len, s->filter);
		if (!filter)
			return rk__err(RK_ENOMEM, "%s: out of memory", s->what);
		req.filter = filter;
	}
	size_t len = rkbt__read_rows_request__get_packed_size(&req);
	*out = malloc(len ? len : 1);
	if (!*out) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", s->what);
	} else {
		rkbt__read_rows_request__pack(&req, *out);
		*out_len = len;
	}
	if (filter)
		rkbt__row_filter__free_unpacked(filter, NULL);
	return rc;
}

/* The request for the next attempt; *done set when nothing is left to read. */
static int build_request(uint8_t **out, size_t *out_len, int *done, rk_bt_scan *s)
{
	int rc = 0;
	ProtobufCBinaryData *keys = calloc(s->nkeys + 1, sizeof *keys);
	Rkbt__RowRange *rr = calloc(s->nranges + 1, sizeof *rr);
	Rkbt__RowRange **rrp = calloc(s->nranges + 1, sizeof *rrp);
	*out = NULL;
	*done = 0;
	if (!keys || !rr || !rrp) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", s->what);
		goto end;
	}
	int whole = !s->nkeys && !s->nranges;
	size_t nk = keys_left(keys, s);
	size_t nr = ranges_left(rr, rrp, s, whole);
	int64_t limit = 0;
	if (s->limit) {
		limit = s->limit - (int64_t)s->rows;
		if (limit <= 0)
			*done = 1;
	}
	if (!(whole && !s->resume_len) && !nk && !nr)
		*done = 1; /* every key and range lies at or before the last row */
	if (*done)
		goto end;
	Rkbt__RowSet set;
	rkbt__row_set__init(&set);
	set.n_row_keys = nk;
	set.row_keys = keys;
	set.n_row_ranges = nr;
	set.row_ranges = rrp;
	rc = pack_request(out, out_len, s, nk || nr ? &set : NULL, limit);
end:
	free(keys);
	free(rr);
	free(rrp);
	return rc;
}

/* Starts the next call (a fresh decoder with it), or ends the scan when
 * nothing is left to read. */
static int start_attempt(rk_bt_scan *s)
{
	uint8_t *buf;
	size_t len = 0;
	int done, rc;
	rk_bt__call_free(s->call);
	s->call = NULL;
	rk_bt__chunks_free(s->dec);
	s->dec = NULL;
	if ((rc = build_request(&buf, &len, &done, s)) < 0)
		return rc;
	if (done) {
		s->ended = 1;
		return 0;
	}
	if ((rc = rk_bt__chunks_new(&s->dec)) == 0 && s->resume_len)
		rc = rk_bt__chunks_start_after(s->dec, s->resume, s->resume_len);
	if (rc == 0)
		rc = rk_bt__call_start(&s->call, s->c->data, RK_BT_M_READ_ROWS, buf, len, s->routing,
		                       rk_bt__deadline(s->c->opts.read_timeout_ms), s->what);
	free(buf);
	s->attempts++;
	return rc;
}

static void backoff(const rk_bt_scan *s)
{
	uint64_t ms = s->c->opts.backoff_ms;
	for (unsigned i = 1; i < s->attempts && ms < 5000; i++)
		ms *= 2;
	if (ms > 5000)
		ms = 5000;
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

/* ---- public ---- */

int rk_bt__scan_open(rk_bt_scan **out, rk_bt_client *c, const char *table, const rk_bt_read *q)
{
	rk_bt_scan *s = calloc(1, sizeof *s);
	int rc;
	if (!s)
		return rk__err(RK_ENOMEM, "bigtable: out of memory for a scan");
	s->c = c;
	snprintf(s->what, sizeof s->what, "bigtable ReadRows %.60s", table ? table : "");
	if ((rc = rk_bt__table_name(&s->name, c, table)) < 0)
		goto fail;
	if (q->rows_limit < 0 || q->versions < 0 || q->ts_start_micros < 0 || q->ts_end_micros < 0 ||
	    (q->ts_end_micros && q->ts_end_micros <= q->ts_start_micros)) {
		rc = rk__err(RK_EINVALID, "%s: negative limit or empty timestamp range", s->what);
		goto fail;
	}
	size_t bytes = 0;
	for (size_t i = 0; i < q->nkeys; i++) {
		if ((rc = check_key(s->what, "key", i, &q->keys[i])) < 0)
			goto fail;
		if (!q->keys[i].len) {
			rc = rk__err(RK_EINVALID, "%s: key %zu is empty", s->what, i);
			goto fail;
		}
		bytes += q->keys[i].len;
	}
	for (size_t i = 0; i < q->nranges; i++) {
		if ((rc = check_key(s->what, "range start", i, &q->ranges[i].start)) < 0 ||
		    (rc = check_key(s->what, "range end", i, &q->ranges[i].end)) < 0)
			goto fail;
		bytes += q->ranges[i].start.len + q->ranges[i].end.len;
	}
	/* own copies of the row set, to resume with */
	s->keys = calloc(q->nkeys + 1, sizeof *s->keys);
	s->ranges = calloc(q->nranges + 1, sizeof *s->ranges);
	s->arena = malloc(bytes + 1);
	s->routing = rk_bt__routing(s->name);
	if (!s->keys || !s->ranges || !s->arena || !s->routing) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", s->what);
		goto fail;
	}
	uint8_t *p = s->arena;
#define RK_BT_COPY(dst, src)                                  \
	do {                                                  \
		(dst).len = (src).len;                        \
		(dst).ptr = (src).len ? p : NULL;             \
		if ((src).len)                                \
			memcpy(p, (src).ptr, (src).len);      \
		p += (src).len;                               \
	} while (0)
	for (size_t i = 0; i < q->nkeys; i++)
		RK_BT_COPY(s->keys[i], q->keys[i]);
	for (size_t i = 0; i < q->nranges; i++) {
		s->ranges[i] = q->ranges[i];
		RK_BT_COPY(s->ranges[i].start, q->ranges[i].start);
		RK_BT_COPY(s->ranges[i].end, q->ranges[i].end);
	}
#undef RK_BT_COPY
	s->nkeys = q->nkeys;
	s->nranges = q->nranges;
	s->limit = q->rows_limit;
	if ((rc = build_filter(&s->filter, &s->filter_len, q, s->what)) < 0)
		goto fail;
	if ((rc = start_attempt(s)) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
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
		if (s->dec && (rc = rk_bt__chunks_next(out, s->dec)) == 0) {
			if ((*out)->key_len > RK_BT_MAX_KEY) {
				s->failed = RK_ECORRUPT;
				return rk__err(RK_ECORRUPT, "%s: the server sent %s %zu-byte row key (over 4 KiB)",
				               s->what, rk__article((*out)->key_len), (*out)->key_len);
			}
			s->rows++;
			s->attempts = 0;
			memcpy(s->resume, (*out)->key, (*out)->key_len);
			s->resume_len = (*out)->key_len;
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
		if (rc == 0) {
			rc = rk_bt__chunks_feed(s->dec, m, n);
		} else if (rc == RK_EITEROVER) {
			if ((rc = rk_bt__chunks_finish(s->dec)) == 0)
				s->ended = 1;
		} else if (rk_bt__code_retryable(rk_bt__call_status(s->call)) &&
		           s->attempts < s->c->opts.max_attempts) {
			/* the stream broke: read on after the last row handed out */
			backoff(s);
			s->resumes++;
			rc = start_attempt(s);
		}
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

uint64_t rk_bt__scan_resumes(const rk_bt_scan *s)
{
	return s->resumes;
}

void rk_bt__scan_free(rk_bt_scan *s)
{
	if (!s)
		return;
	rk_bt__call_free(s->call);
	rk_bt__chunks_free(s->dec);
	free(s->keys);
	free(s->ranges);
	free(s->arena);
	free(s->filter);
	free(s->routing);
	free(s->name);
	free(s);
}
