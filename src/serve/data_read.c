/*
 * ReadRows for `rowkey serve`: the request's row set as sorted, disjoint
 * ranges, each read with one store scan (every visible version, the
 * request's filter run by the store), the rows streamed back as cell chunks
 * in responses of about 1 MiB, values over 1 MiB split across chunks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/error.h"
#include "serve/serve_int.h"

/* Builds ReadRowsResponse bytes: field 1 (chunks) repeated, each chunk
 * packed by protobuf-c; sent when over FLUSH bytes and at the end. */
#define FLUSH (1u << 20)
#define VALUE_PIECE (1u << 20)

typedef struct rbuf {
	uint8_t *b;
	size_t n, cap;
	const rk_sv_sink *sink;
} rbuf;

static int rbuf_room(rbuf *r, size_t more)
{
	if (r->n + more <= r->cap)
		return 0;
	size_t c = r->cap ? r->cap : 4096;
	while (c < r->n + more)
		c *= 2;
	uint8_t *nb = realloc(r->b, c);
	if (!nb)
		return RK_ENOMEM;
	r->b = nb;
	r->cap = c;
	return 0;
}

static int add_chunk(rbuf *r, const Rkbt__ReadRowsResponse__CellChunk *ch)
{
	size_t n = protobuf_c_message_get_packed_size(&ch->base);
	if (rbuf_room(r, n + 11))
		return RK_ENOMEM;
	r->b[r->n++] = 0x0a; /* field 1, length-delimited */
	size_t v = n;
	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		r->b[r->n++] = byte | (v ? 0x80 : 0);
	} while (v);
	protobuf_c_message_pack(&ch->base, r->b + r->n);
	r->n += n;
	return 0;
}

static int rbuf_flush(rbuf *r, rk_sv_status *st)
{
	if (!r->n)
		return 0;
	int rc = r->sink->send(r->sink->arg, r->b, r->n);
	r->n = 0;
	return rc ? rk_sv__fail(st, RK_SV_CANCELLED, RK_EIO, "the client went away") : 0;
}

/* The chunks of one row (it has cells). */
static int emit_row(rbuf *r, const rk_row *row, rk_sv_status *st)
{
	for (size_t i = 0; i < row->ncells; i++) {
		const rk_cell *c = &row->cells[i];
		const rk_cell *p = i ? &row->cells[i - 1] : NULL;
		Rkbt__ReadRowsResponse__CellChunk ch = RKBT__READ_ROWS_RESPONSE__CELL_CHUNK__INIT;
		Rkbt__StringValue fam = RKBT__STRING_VALUE__INIT;
		Rkbt__BytesValue qual = RKBT__BYTES_VALUE__INIT;
		char *label = (char *)c->label;
		if (!p) {
			ch.row_key.data = (uint8_t *)row->key;
			ch.row_key.len = row->key_len;
		}
		int new_fam = !p || strcmp(p->family, c->family) != 0;
		if (new_fam) {
			fam.value = (char *)c->family;
			ch.family_name = &fam;
		}
		if (new_fam || p->qualifier_len != c->qualifier_len ||
		    (c->qualifier_len && memcmp(p->qualifier, c->qualifier, c->qualifier_len))) {
			qual.value.data = (uint8_t *)c->qualifier;
			qual.value.len = c->qualifier_len;
			ch.qualifier = &qual;
		}
		ch.timestamp_micros = (int64_t)c->ts;
		if (label) {
			ch.n_labels = 1;
			ch.labels = &label;
		}
		size_t off = 0;
		do {
			size_t piece = c->value_len - off;
			if (piece > VALUE_PIECE)
				piece = VALUE_PIECE;
			ch.value.data = off ? (uint8_t *)c->value + off : (uint8_t *)c->value;
			ch.value.len = piece;
			int last_piece = off + piece == c->value_len;
			ch.value_size = last_piece ? 0 : (int32_t)c->value_len;
			if (last_piece && i + 1 == row->ncells) {
				ch.row_status_case = RKBT__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_COMMIT_ROW;
				ch.commit_row = 1;
			}
			if (add_chunk(r, &ch))
				return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
			if (r->n >= FLUSH && rbuf_flush(r, st))
				return RK_EIO;
			off += piece;
			/* the pieces after the first carry the value only */
			ch.row_key.len = 0;
			ch.family_name = NULL;
			ch.qualifier = NULL;
			ch.timestamp_micros = 0;
			ch.n_labels = 0;
		} while (off < c->value_len);
	}
	return 0;
}

/* A row range [start, end) in bytes; end_inf: unbounded. */
typedef struct range {
	uint8_t *start;
	size_t slen;
	uint8_t *end;
	size_t elen;
	int end_inf;
} range;

static int range_cmp(const void *a, const void *b)
{
	const range *x = a, *y = b;
	return rk__bytes_cmp(x->start, x->slen, y->start, y->slen);
}

/* Copies k, with a 0 byte after it when plus0 (the next key in order). */
static uint8_t *keycopy(const uint8_t *k, size_t n, int plus0, size_t *len)
{
	uint8_t *c = malloc(n + 1);
	if (!c)
		return NULL;
	if (n)
		memcpy(c, k, n);
	c[n] = 0;
	*len = n + (plus0 ? 1 : 0);
	return c;
}

static void free_ranges(range *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++) {
		free(r[i].start);
		free(r[i].end);
	}
	free(r);
}

/* Row range g as x, its keys copied: an open start begins at the next key
 * after it, a closed end ends at the next key after it, an empty end is
 * unbounded. -1 when out of memory (x holds what was copied). */
static int copy_row_range(range *x, const Rkbt__RowRange *g)
{
	*x = (range){0};
	switch (g->start_key_case) {
	case RKBT__ROW_RANGE__START_KEY_START_KEY_CLOSED:
		x->start = keycopy(g->start_key_closed.data, g->start_key_closed.len, 0, &x->slen);
		break;
	case RKBT__ROW_RANGE__START_KEY_START_KEY_OPEN:
		x->start = keycopy(g->start_key_open.data, g->start_key_open.len,
		                   g->start_key_open.len > 0, &x->slen);
		break;
	default: x->start = keycopy(NULL, 0, 0, &x->slen);
	}
	const ProtobufCBinaryData *e = NULL;
	int closed = 0;
	if (g->end_key_case == RKBT__ROW_RANGE__END_KEY_END_KEY_OPEN)
		e = &g->end_key_open;
	else if (g->end_key_case == RKBT__ROW_RANGE__END_KEY_END_KEY_CLOSED)
		e = &g->end_key_closed, closed = 1;
	if (!e || e->len == 0)
		x->end_inf = 1;
	else
		x->end = keycopy(e->data, e->len, closed, &x->elen);
	return !x->start || (!x->end_inf && !x->end) ? -1 : 0;
}

/* A range whose start key sorts after its end key is refused, as Bigtable
 * does (the emulator too); equal keys are an empty range, not an error.
 * The keys compare as given, whether open or closed; an empty key is the
 * unbounded side. */
static int check_row_range(const Rkbt__RowRange *g, size_t i, rk_sv_status *st)
{
	const ProtobufCBinaryData *a = NULL, *b = NULL;
	if (g->start_key_case == RKBT__ROW_RANGE__START_KEY_START_KEY_CLOSED)
		a = &g->start_key_closed;
	else if (g->start_key_case == RKBT__ROW_RANGE__START_KEY_START_KEY_OPEN)
		a = &g->start_key_open;
	if (g->end_key_case == RKBT__ROW_RANGE__END_KEY_END_KEY_OPEN)
		b = &g->end_key_open;
	else if (g->end_key_case == RKBT__ROW_RANGE__END_KEY_END_KEY_CLOSED)
		b = &g->end_key_closed;
	if (a && b && a->len && b->len && rk__bytes_cmp(a->data, a->len, b->data, b->len) > 0)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "rows.row_ranges[%zu]: the start key sorts after the end key", i);
	return 0;
}

/* Sorts r[0..n) by start and merges the ranges that overlap or touch, in
 * place; returns how many are left. */
static size_t merge_ranges(range *r, size_t n)
{
	qsort(r, n, sizeof *r, range_cmp);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		range *c = w ? &r[w - 1] : NULL;
		if (c && (c->end_inf || rk__bytes_cmp(r[i].start, r[i].slen, c->end, c->elen) <= 0)) {
			/* overlaps or touches: extend c */
			if (!c->end_inf &&
			    (r[i].end_inf || rk__bytes_cmp(r[i].end, r[i].elen, c->end, c->elen) > 0)) {
				free(c->end);
				c->end = r[i].end;
				c->elen = r[i].elen;
				c->end_inf = r[i].end_inf;
				r[i].end = NULL;
			}
			free(r[i].start);
			free(r[i].end);
			continue;
		}
		r[w++] = r[i];
	}
	return w;
}

/* The request's row set as sorted, disjoint ranges (whole table when empty). */
static int build_ranges(range **out, size_t *count, const Rkbt__RowSet *rs, rk_sv_status *st)
{
	size_t nk = rs ? rs->n_row_keys : 0, nr = rs ? rs->n_row_ranges : 0;
	if (nk + nr > RK_SV_MAX_ROW_RANGES)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "rows: %zu row keys and ranges (at most %u)", nk + nr,
		                   RK_SV_MAX_ROW_RANGES);
	range *r = calloc(nk + nr + 1, sizeof *r);
	size_t n = 0;
	if (!r)
		return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
	if (nk + nr == 0) {
		r[0].start = keycopy(NULL, 0, 0, &r[0].slen);
		r[0].end_inf = 1;
		if (!r[0].start)
			goto oom;
		*out = r;
		*count = 1;
		return 0;
	}
	for (size_t i = 0; i < nk; i++) {
		const ProtobufCBinaryData *k = &rs->row_keys[i];
		char field[48];
		snprintf(field, sizeof field, "rows.row_keys[%zu]", i);
		int rc = rk_sv__check_row_key(k, field, st);
		if (rc) {
			free_ranges(r, n);
			return rc;
		}
		r[n].start = keycopy(k->data, k->len, 0, &r[n].slen);
		r[n].end = keycopy(k->data, k->len, 1, &r[n].elen);
		n++;
		if (!r[n - 1].start || !r[n - 1].end)
			goto oom;
	}
	for (size_t i = 0; i < nr; i++) {
		range x;
		int rc = check_row_range(rs->row_ranges[i], i, st);
		if (rc) {
			free_ranges(r, n);
			return rc;
		}
		rc = copy_row_range(&x, rs->row_ranges[i]);
		r[n++] = x;
		if (rc < 0)
			goto oom;
		if (!x.end_inf && rk__bytes_cmp(x.start, x.slen, x.end, x.elen) >= 0) { /* empty */
			n--;
			free(x.start);
			free(x.end);
		}
	}
	*out = r;
	*count = merge_ranges(r, n);
	return 0;
oom:
	free_ranges(r, n + 1);
	return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
}

/* Scans one range and emits its rows; *left counts the rows still wanted
 * (UINT64_MAX: no limit). */
static int read_range(rk_table *t, const range *g, int reversed, const rk_filter *f,
                      rbuf *rb, uint64_t *left, rk_sv_status *st)
{
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	so.start = g->start;
	so.start_len = g->slen;
	if (!g->end_inf) {
		so.stop = g->end;
		so.stop_len = g->elen;
	}
	so.reverse = reversed;
	so.limit = *left == UINT64_MAX ? 0 : *left;
	so.read.max_versions = UINT32_MAX;
	so.read.filter = f;
	rk_scan *sc;
	int rc = rk_scan_open(&sc, t, &so);
	if (rc)
		return rk_sv__from_store(st, rc, "filter");
	while (*left) {
		const rk_row *row;
		rc = rk_scan_next(&row, sc);
		if (rc == RK_EITEROVER) {
			rc = 0;
			break;
		}
		if (rc) {
			rk_sv__from_store(st, rc, "reading rows");
			break;
		}
		if ((rc = emit_row(rb, row, st)) != 0)
			break;
		if (*left != UINT64_MAX)
			(*left)--;
	}
	rk_scan_close(sc);
	return rc;
}

int rk_sv__read_rows(const rk_sv_env *env, const Rkbt__ReadRowsRequest *r,
                     const rk_sv_sink *sink, rk_sv_status *st)
{
	int rc = rk_sv__no_views(r->authorized_view_name, r->materialized_view_name, st);
	if (rc)
		return rc;
	if (r->rows_limit < 0)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "rows_limit: must not be negative (got %lld)",
		                   (long long)r->rows_limit);
	if (r->request_stats_view < 0 || r->request_stats_view > 2)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "request_stats_view: %d is not a RequestStatsView",
		                   r->request_stats_view);
	if (r->request_stats_view == 2)
		return rk_sv__fail(st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
		                   "request_stats_view: REQUEST_STATS_FULL is not implemented by "
		                   "rowkey serve (no request stats are kept)");
	rk_filter *f = NULL;
	if (r->filter && (rc = rk_sv__filter(&f, r->filter, "filter", st)) != 0)
		return rc;
	rk_table *t = NULL;
	char store[RK_MAX_TABLE_NAME_LEN + 1];
	range *g = NULL;
	size_t ng = 0;
	rbuf rb = {NULL, 0, 0, sink};
	if ((rc = rk_sv__open_table(&t, store, env, r->table_name, "table_name", st)) != 0)
		goto done;
	if ((rc = build_ranges(&g, &ng, r->rows, st)) != 0)
		goto done;
	uint64_t left = r->rows_limit ? (uint64_t)r->rows_limit : UINT64_MAX;
	for (size_t i = 0; i < ng && left && !rc; i++)
		rc = read_range(t, &g[r->reversed ? ng - 1 - i : i], r->reversed, f, &rb, &left, st);
	if (!rc)
		rc = rbuf_flush(&rb, st);
done:
	free_ranges(g, ng);
	free(rb.b);
	free(f);
	if (t)
		rk_sv__table_release(env->tables, store, t);
	return rc;
}
