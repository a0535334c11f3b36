/*
 * The public read API (include/rowkey/store.h): gets and scans checked once
 * for every backend, then run through the store's ops. A row filter is the
 * store's, not a backend's: the backend returns the rows its read options
 * select, and the filter (filter.c) takes each row here, so every backend
 * filters alike; a filtered scan applies its row limit after the filter.
 */
#include "store/backend.h"

#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/error.h"
#include "store/filter.h"
#include "store/rowasm.h"

/* A filtered scan's state (struct rk_scan's filter). */
struct rk__fscan {
	rk__filter *f;
	rk__cells cells;
	rk_row row;
	uint64_t limit, rows; /* rows to hand out (0: all), rows handed out */
};

static int check_read(const rk_table *t, const rk_read_options *ro)
{
	for (size_t i = 0; i < ro->ncolumns; i++) {
		const rk_column *c = &ro->columns[i];
		if (!c->family || !rk_store__family(t, c->family, strlen(c->family)))
			return rk__err(RK_EINVALID, "table %s: read of unknown family '%s'", t->name,
			               c->family ? c->family : "(null)");
	}
	if (ro->max_ts && ro->max_ts <= ro->min_ts)
		return rk__err(RK_EINVALID, "table %s: empty time range [%llu, %llu)", t->name,
		               (unsigned long long)ro->min_ts, (unsigned long long)ro->max_ts);
	return 0;
}

/* Replaces *out (a row the caller owns) with what filter f passes of it:
 * RK_ENOTFOUND (and *out NULL) when that is nothing. */
static int filter_owned_row(rk_row **out, const rk__filter *f, const rk_table *t)
{
	rk__cells c = {0};
	rk_row *in = *out;
	int rc = rk__filter_row(&c, f, in->key, in->key_len, in->cells, in->ncells);
	if (!rc && c.n == 0) {
		char kb[200];
		rc = rk__err(RK_ENOTFOUND, "table %s: row '%s': no cell passes the filter", t->name,
		             rk__err_bytes(kb, sizeof kb, in->key, in->key_len));
	}
	if (!rc) {
		rk_row view = {in->key, in->key_len, c.v, c.n};
		rc = rk_rowbuf__copy(out, &view);
	}
	if (rc)
		*out = NULL;
	free(c.v);
	rk_row_free(in);
	return rc;
}

int rk_table_get(rk_row **out, rk_table *table, const uint8_t *row, size_t row_len,
                 const rk_read_options *opts)
{
	rk_read_options def = RK_READ_OPTIONS_INIT;
	rk__filter *f = NULL;
	*out = NULL;
	if (!opts)
		opts = &def;
	if (!row || row_len == 0)
		return rk__err(RK_EINVALID, "table %s: get of an empty row key", table->name);
	if (row_len > RK_MAX_ROW_LEN)
		return rk__err(RK_ETOOLONG, "table %s: row key of %zu bytes (max %u)", table->name,
		               row_len, RK_MAX_ROW_LEN);
	int rc = check_read(table, opts);
	if (!rc && opts->filter)
		rc = rk__filter_compile(&f, opts->filter);
	if (!rc)
		rc = table->store->ops->get(out, table, row, row_len, opts);
	if (!rc && f)
		rc = filter_owned_row(out, f, table);
	rk__filter_free(f);
	return rc;
}

void rk_row_free(rk_row *row)
{
	free(row);
}

/* The smallest row greater than every row starting with p, or 0 length when
 * none exists (p is all FF). Writes into dst (len bytes). */
static size_t prefix_successor(uint8_t *dst, const uint8_t *p, size_t len)
{
	memcpy(dst, p, len);
	while (len && dst[len - 1] == 0xFF)
		len--;
	if (len)
		dst[len - 1]++;
	return len;
}

/* Narrows so's [start, stop) to its prefix (succ: room for the prefix's
 * successor, which so->stop may then point at). */
static void narrow_to_prefix(rk_scan_options *so, uint8_t *succ)
{
	if (rk__bytes_cmp(so->prefix, so->prefix_len, so->start, so->start_len) > 0) {
		so->start = so->prefix;
		so->start_len = so->prefix_len;
	}
	size_t sl = prefix_successor(succ, so->prefix, so->prefix_len);
	if (sl && (so->stop_len == 0 || rk__bytes_cmp(succ, sl, so->stop, so->stop_len) < 0)) {
		so->stop = succ;
		so->stop_len = sl;
	}
}

int rk_scan_open(rk_scan **out, rk_table *table, const rk_scan_options *opts)
{
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	uint8_t *succ = NULL;
	struct rk__fscan *fs = NULL;
	*out = NULL;
	if (opts)
		so = *opts;
	int rc = check_read(table, &so.read);
	if (rc)
		return rc;
	if (so.start_len > RK_MAX_ROW_LEN || so.stop_len > RK_MAX_ROW_LEN ||
	    so.prefix_len > RK_MAX_ROW_LEN)
		return rk__err(RK_ETOOLONG, "table %s: scan bound over %u bytes", table->name,
		               RK_MAX_ROW_LEN);
	if (!so.start)
		so.start_len = 0;
	if (!so.stop)
		so.stop_len = 0;
	if (so.read.filter) {
		if (!(fs = calloc(1, sizeof *fs)))
			return rk__err(RK_ENOMEM, "out of memory opening a scan");
		if ((rc = rk__filter_compile(&fs->f, so.read.filter)) != 0) {
			free(fs);
			return rc;
		}
		fs->limit = so.limit; /* counted after the filter */
		so.limit = 0;
		so.read.filter = NULL;
	}
	if (so.prefix && so.prefix_len) {
		if (!(succ = malloc(so.prefix_len))) {
			rc = rk__err(RK_ENOMEM, "out of memory opening a scan");
			goto out;
		}
		narrow_to_prefix(&so, succ);
	}
	so.prefix = NULL;
	so.prefix_len = 0;
	if ((rc = table->store->ops->scan_open(out, table, &so)) == 0) {
		(*out)->filter = fs;
		fs = NULL;
	}
out:
	if (fs) {
		rk__filter_free(fs->f);
		free(fs);
	}
	free(succ);
	return rc;
}

int rk_scan_next(const rk_row **out, rk_scan *scan)
{
	struct rk__fscan *fs = scan->filter;
	*out = NULL;
	if (!fs)
		return scan->table->store->ops->scan_next(out, scan);
	if (fs->limit && fs->rows >= fs->limit)
		return RK_EITEROVER;
	for (;;) {
		const rk_row *r;
		int rc = scan->table->store->ops->scan_next(&r, scan);
		if (rc)
			return rc;
		if ((rc = rk__filter_row(&fs->cells, fs->f, r->key, r->key_len, r->cells,
		                         r->ncells)) != 0)
			return rc;
		if (!fs->cells.n)
			continue; /* a row the filter leaves empty is not returned */
		fs->row = (rk_row){r->key, r->key_len, fs->cells.v, fs->cells.n};
		fs->rows++;
		*out = &fs->row;
		return 0;
	}
}

void rk_scan_close(rk_scan *scan)
{
	if (!scan)
		return;
	struct rk__fscan *fs = scan->filter;
	scan->table->store->ops->scan_close(scan);
	if (fs) {
		rk__filter_free(fs->f);
		free(fs->cells.v);
		free(fs);
	}
}
