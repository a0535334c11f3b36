/*
 * The Bigtable backend's reads (bt_store.h): gets and scans mapped onto
 * ReadRows (bt_read.c) with filters for columns, time range and versions,
 * and each row the server sends turned into the rows store.h defines.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/bigtable/bt_store.h"
#include "store/rowasm.h"

/* A converted row: rk_cell views of a rk_bt_row, plus the names of families
 * the handle does not know (added after it was opened). */
typedef struct bt_rowconv {
	rk_cell *cells;
	size_t cap;
	char *names;
	size_t names_cap;
	rk_row row;
} bt_rowconv;

/* What the client still does to a row the server sent (see map_read). */
typedef struct bt_spec {
	unsigned want;  /* versions per column asked for */
	int local_time; /* 1: the time range is applied here, after the family limit */
	uint64_t lo, hi; /* the time range [lo, hi), hi 0: no end */
} bt_spec;

typedef struct bt_scan {
	struct rk_scan base;
	bt_table *t;
	rk_bt_scan *sc; /* NULL: an empty scan */
	bt_spec spec;
	uint64_t limit, rows; /* rows to hand out (0: all), rows handed out */
	bt_rowconv conv;
} bt_scan;

/* ---- reads ---- */

/* Fills the filter part of a Bigtable read from store read options. *cols
 * (caller frees) holds the columns, without overlaps. *empty: no cell can
 * match (a time range with no whole millisecond in it).
 *
 * store.h's visibility: a version counts only if its family's GC rule keeps
 * it; the time range filters what is left; then the newest `want` come
 * back. Bigtable's GC is lazy, so versions a rule collects may still be
 * stored: when any family has a rule, the server is asked for the newest
 * versions up to the largest version limit (no time filter) and the rest
 * is done here; when none has, the time range and `want` go to the server.
 * (What any rule keeps is the newest versions of a column, so asking for the
 * newest `want` is enough when there is no time range.) */
static int map_read(rk_bt_read *q, rk_bt_column **cols, bt_spec *spec, int *empty,
                    const bt_table *t, const rk_read_options *ro)
{
	*cols = NULL;
	*empty = 0;
	memset(spec, 0, sizeof *spec);
	spec->want = ro->max_versions ? ro->max_versions : 1;
	unsigned cap = 0;
	int limited = 0, unlimited = 0;
	for (size_t i = 0; i < t->base.nfamilies; i++) {
		unsigned v = t->base.families[i].max_versions;
		if (t->base.families[i].gc)
			limited = 1; /* an age, or a composite: applied here */
		if (v == UINT_MAX) {
			unlimited = 1;
		} else {
			limited = 1;
			if (v > cap)
				cap = v;
		}
	}
	/* cells sit on whole milliseconds: [min, max) holds the same cells as
	 * [ceil_ms(min), ceil_ms(max)) */
	uint64_t lo = ro->min_ts, hi = ro->max_ts;
	const uint64_t top = (uint64_t)INT64_MAX - 1000;
	if (lo > top) {
		*empty = 1;
		return 0;
	}
	lo = (lo + 999) / 1000 * 1000;
	if (hi > top)
		hi = 0;
	else if (hi)
		hi = (hi + 999) / 1000 * 1000;
	if (hi && hi <= lo) {
		*empty = 1;
		return 0;
	}
	int ranged = lo || hi;
	if (ranged && limited) {
		spec->local_time = 1;
		spec->lo = lo;
		spec->hi = hi;
		q->versions = unlimited ? 0 : (cap > INT32_MAX ? INT32_MAX : (int32_t)cap);
	} else {
		q->ts_start_micros = (int64_t)lo;
		q->ts_end_micros = (int64_t)hi;
		unsigned v = limited && !unlimited && cap < spec->want ? cap : spec->want;
		q->versions = v > INT32_MAX ? INT32_MAX : (int32_t)v;
	}
	if (ro->ncolumns) {
		rk_bt_column *c = calloc(ro->ncolumns, sizeof *c);
		size_t nc = 0;
		if (!c)
			return rk__err(RK_ENOMEM, "table %s: out of memory", t->base.name);
		for (size_t i = 0; i < ro->ncolumns; i++) {
			const rk_column *x = &ro->columns[i];
			int dup = 0;
			/* a whole family covers its columns; the same column twice is once */
			for (size_t j = 0; j < ro->ncolumns && !dup; j++) {
				const rk_column *y = &ro->columns[j];
				if (j == i || strcmp(x->family, y->family))
					continue;
				if (!y->qualifier && (x->qualifier || j < i))
					dup = 1;
				else if (x->qualifier && y->qualifier && j < i &&
				         !rk_bt__bytes_cmp(x->qualifier, x->qualifier_len, y->qualifier,
				                    y->qualifier_len))
					dup = 1;
			}
			if (!dup)
				c[nc++] = (rk_bt_column){x->family, x->qualifier, x->qualifier_len};
		}
		q->columns = c;
		q->ncolumns = nc;
		*cols = c;
	}
	return 0;
}

static void conv_free(bt_rowconv *c)
{
	free(c->cells);
	free(c->names);
}

/* Makes the store's view of a Bigtable row: family names NUL-terminated,
 * each column cut to what its family's rule keeps, then (spec->local_time) to the time
 * range, then to the versions asked for. Values and qualifiers stay
 * borrowed from `in`. A row may come out with no cell. */
static int convert(bt_rowconv *c, const rk_bt_row *in, const bt_table *t, const bt_spec *spec)
{
	size_t names = 0;
	if (in->ncells > c->cap) {
		rk_cell *nc = realloc(c->cells, in->ncells * sizeof *nc);
		if (!nc)
			return rk__err(RK_ENOMEM, "out of memory for a row of %zu cells", in->ncells);
		c->cells = nc;
		c->cap = in->ncells;
	}
	for (size_t i = 0; i < in->ncells; i++)
		names += in->cells[i].family_len + 1;
	if (names > c->names_cap) {
		char *nn = realloc(c->names, names);
		if (!nn)
			return rk__err(RK_ENOMEM, "out of memory for a row of %zu cells", in->ncells);
		c->names = nn;
		c->names_cap = names;
	}
	size_t n = 0, np = 0;
	unsigned rank = 0, kept = 0;
	const char *fam = NULL;
	const rk__family *f = NULL;
	uint64_t now = rk_gc__now();
	for (size_t i = 0; i < in->ncells; i++) {
		const rk_bt_cell *x = &in->cells[i];
		const rk_bt_cell *p = i ? &in->cells[i - 1] : NULL;
		if (x->ts_micros < 0)
			return rk__err(RK_ECORRUPT, "table %s: the server sent a cell with timestamp %lld",
			               t->base.name, (long long)x->ts_micros);
		int new_fam = !p || rk_bt__bytes_cmp((const uint8_t *)p->family, p->family_len,
		                              (const uint8_t *)x->family, x->family_len);
		if (new_fam) {
			f = rk_store__family(&t->base, x->family, x->family_len);
			if (f) {
				fam = f->name;
			} else {
				memcpy(c->names + np, x->family, x->family_len);
				c->names[np + x->family_len] = 0;
				fam = c->names + np;
				np += x->family_len + 1;
			}
		}
		if (new_fam || rk_bt__bytes_cmp(p->qualifier, p->qualifier_len, x->qualifier, x->qualifier_len)) {
			rank = 0;
			kept = 0;
		} else {
			rank++;
		}
		uint64_t ts = (uint64_t)x->ts_micros;
		if ((f && rk__family_collects(f, rank + 1, ts, now)) || kept >= spec->want)
			continue;
		if (spec->local_time && (ts < spec->lo || (spec->hi && ts >= spec->hi)))
			continue;
		kept++;
		c->cells[n++] = (rk_cell){fam, x->qualifier, x->qualifier_len, ts, x->value,
		                          x->value_len, NULL};
	}
	c->row = (rk_row){in->key, in->key_len, c->cells, n};
	return 0;
}

int rk_bt__get(rk_row **out, rk_table *tb, const uint8_t *row, size_t len,
                  const rk_read_options *ro)
{
	bt_table *t = (bt_table *)tb;
	char kb[200];
	rk_bt_read q = RK_BT_READ_INIT;
	rk_bt_column *cols;
	bt_spec spec;
	int empty;
	if (len > BT_MAX_KEY)
		return rk__err(RK_ETOOLONG, "table %s: row key of %zu bytes (Bigtable row keys are at "
		               "most %u)", tb->name, len, BT_MAX_KEY);
	int rc = map_read(&q, &cols, &spec, &empty, t, ro);
	if (rc < 0)
		return rc;
	if (empty) {
		free(cols);
		return rk__err(RK_ENOTFOUND, "table %s: row '%s' not found (no cell in the time range)",
		               tb->name, rk__err_bytes(kb, sizeof kb, row, len));
	}
	rk_bt_bytes key = {row, len};
	q.keys = &key;
	q.nkeys = 1;
	q.rows_limit = 1;
	rk_bt_scan *sc = NULL;
	const rk_bt_row *r;
	bt_rowconv conv = {0};
	if ((rc = rk_bt__scan_open(&sc, t->s->c, t->id, &q)) < 0)
		goto done;
	rc = rk_bt__scan_next(&r, sc);
	if (rc == RK_EITEROVER) {
		rc = rk__err(RK_ENOTFOUND, "table %s: row '%s' not found", tb->name,
		             rk__err_bytes(kb, sizeof kb, row, len));
		goto done;
	}
	if (rc == RK_ENOTFOUND) {
		rc = rk__err(RK_ENOTFOUND, "table %s does not exist in %s", tb->name, t->s->uri);
		goto done;
	}
	if (rc < 0)
		goto done;
	if (rk_bt__bytes_cmp(r->key, r->key_len, row, len)) {
		rc = rk__err(RK_ECORRUPT, "table %s: asked for row '%s', the server sent another",
		             tb->name, rk__err_bytes(kb, sizeof kb, row, len));
		goto done;
	}
	if ((rc = convert(&conv, r, t, &spec)) < 0)
		goto done;
	if (conv.row.ncells == 0) {
		rc = rk__err(RK_ENOTFOUND, "table %s: row '%s' not found (no visible cell in the time "
		             "range)", tb->name, rk__err_bytes(kb, sizeof kb, row, len));
		goto done;
	}
	rc = rk_rowbuf__copy(out, &conv.row);
done:
	if (rc < 0 && rc != RK_ENOTFOUND)
		rc = rk__err_wrap(rc, "%s", t->s->uri);
	rk_bt__scan_free(sc);
	conv_free(&conv);
	free(cols);
	return rc;
}

int rk_bt__scan_open_op(rk_scan **out, rk_table *tb, const rk_scan_options *so)
{
	bt_table *t = (bt_table *)tb;
	if (so->reverse)
		return rk__err(RK_EINVALID, "table %s: reverse scans are not supported by Bigtable "
		               "(rowkey's Bigtable API subset has no ReadRowsRequest.reversed)",
		               tb->name);
	if (so->start_len > BT_MAX_KEY || so->stop_len > BT_MAX_KEY)
		return rk__err(RK_ETOOLONG, "table %s: scan bound over Bigtable's %u-byte key limit",
		               tb->name, BT_MAX_KEY);
	bt_scan *sc = calloc(1, sizeof *sc);
	if (!sc)
		return rk__err(RK_ENOMEM, "table %s: out of memory for a scan", tb->name);
	sc->base.table = tb;
	sc->t = t;
	rk_bt_read q = RK_BT_READ_INIT;
	rk_bt_column *cols;
	int empty;
	int rc = map_read(&q, &cols, &sc->spec, &empty, t, &so->read);
	if (rc < 0) {
		free(sc);
		return rc;
	}
	if (so->stop_len && rk_bt__bytes_cmp(so->start, so->start_len, so->stop, so->stop_len) >= 0)
		empty = 1;
	rk_bt_range range = {{so->start, so->start_len}, 0, {so->stop, so->stop_len}, 0};
	if (so->start_len || so->stop_len) {
		q.ranges = &range;
		q.nranges = 1;
	}
	/* with the time range applied here a row may come out empty: then the
	 * limit is counted here, not by the server */
	sc->limit = so->limit;
	if (!sc->spec.local_time)
		q.rows_limit = so->limit > (uint64_t)INT64_MAX ? 0 : (int64_t)so->limit;
	if (!empty && (rc = rk_bt__scan_open(&sc->sc, t->s->c, t->id, &q)) < 0) {
		free(cols);
		free(sc);
		return rk__err_wrap(rc, "%s", t->s->uri);
	}
	free(cols);
	*out = &sc->base;
	return 0;
}

int rk_bt__scan_next_op(const rk_row **out, rk_scan *base)
{
	bt_scan *sc = (bt_scan *)base;
	const rk_bt_row *r;
	if (!sc->sc || (sc->limit && sc->rows >= sc->limit))
		return RK_EITEROVER;
	for (;;) {
		int rc = rk_bt__scan_next(&r, sc->sc);
		if (rc == RK_EITEROVER)
			return rc;
		if (rc == RK_ENOTFOUND)
			return rk__err(RK_ENOTFOUND, "table %s does not exist in %s", base->table->name,
			               sc->t->s->uri);
		if (rc < 0)
			return rk__err_wrap(rc, "%s", sc->t->s->uri);
		if ((rc = convert(&sc->conv, r, sc->t, &sc->spec)) < 0)
			return rc;
		if (sc->conv.row.ncells)
			break;
	}
	sc->rows++;
	*out = &sc->conv.row;
	return 0;
}

void rk_bt__scan_close_op(rk_scan *base)
{
	bt_scan *sc = (bt_scan *)base;
	rk_bt__scan_free(sc->sc);
	conv_free(&sc->conv);
	free(sc);
}
