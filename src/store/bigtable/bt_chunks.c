/*
 * ReadRows chunk reassembly (see bt_chunks.h for the protocol in brief).
 *
 * The row in progress keeps all its bytes (key, family names, qualifiers,
 * values) in one growable buffer and its cells as offsets into it, because
 * the buffer moves as it grows. On commit the row is copied into a single
 * allocation with real pointers and queued; the queue hands rows out one at a
 * time. The rules follow Bigtable's read-rows acceptance tests: a new row
 * needs a key greater than the last committed one, a family and a qualifier;
 * inside a row the key may be repeated but not changed, and a family needs a
 * qualifier; a continuation of a split cell carries value bytes only; reset
 * carries nothing else; commit may not fall inside a split cell.
 *
 * Parsing of the message itself is protobuf-c's (bounds-checked); this file
 * checks the protocol on top of it.
 */
#include "key/bytes.h"
#include "store/bigtable/bt_chunks.h"

#include <stdlib.h>
#include <string.h>

#include "bt_data.pb-c.h"
#include "key/error.h"
#include "key/units.h"

enum state {
	ST_NEW_ROW,  /* between rows: the next chunk starts one */
	ST_IN_ROW,   /* between cells of a row */
	ST_IN_CELL,  /* inside a cell split across chunks */
	ST_FAILED    /* a protocol error was seen; the stream is unusable */
};

/* A cell of the row in progress, as offsets into the row buffer. */
typedef struct cell_off {
	size_t fam, fam_len, qual, qual_len, val, val_len;
	int64_t ts;
} cell_off;

struct rk_bt_chunks {
	enum state st;
	uint64_t nchunk; /* chunks seen, for messages */

	/* the row in progress */
	uint8_t *buf;
	size_t len, cap;
	size_t key_len; /* the key is buf[0..key_len) */
	size_t fam, fam_len, qual, qual_len; /* the current family and qualifier */
	cell_off *cells;
	size_t ncells, cells_cap;
	size_t split_declared; /* value_size of the split cell in progress */

	/* the last committed key */
	uint8_t *last;
	size_t last_len, last_cap;
	int have_last;

	/* committed rows not yet handed out, and the one handed out */
	rk_bt_row **ready;
	size_t rhead, rcount, rcap;
	rk_bt_row *out;
};

int rk_bt__chunks_new(rk_bt_chunks **out)
{
	rk_bt_chunks *d = calloc(1, sizeof *d);
	if (!d)
		return rk__err(RK_ENOMEM, "bigtable: out of memory for a ReadRows decoder");
	*out = d;
	return 0;
}

void rk_bt__chunks_free(rk_bt_chunks *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->rcount; i++)
		free(d->ready[(d->rhead + i) % d->rcap]);
	free(d->ready);
	free(d->out);
	free(d->buf);
	free(d->cells);
	free(d->last);
	free(d);
}

static int fail(rk_bt_chunks *d, const char *why)
{
	d->st = ST_FAILED;
	return rk__err(RK_ECORRUPT, "bigtable ReadRows: chunk %llu: %s",
	               (unsigned long long)d->nchunk, why);
}

/* Appends n bytes to the row buffer; returns their offset via *at. */
static int buf_put(rk_bt_chunks *d, const void *p, size_t n, size_t *at)
{
	if (n > RK_BT_MAX_ROW_BYTES - d->len)
		return fail(d, "row larger than 256 MiB");
	if (d->len + n > d->cap) {
		size_t cap = d->cap ? d->cap : 256;
		while (cap < d->len + n)
			cap *= 2;
		uint8_t *nb = realloc(d->buf, cap);
		if (!nb)
			return rk__err(RK_ENOMEM, "bigtable ReadRows: out of memory for a row");
		d->buf = nb;
		d->cap = cap;
	}
	if (n)
		memcpy(d->buf + d->len, p, n);
	if (at)
		*at = d->len;
	d->len += n;
	return 0;
}

static void row_reset(rk_bt_chunks *d)
{
	d->len = 0;
	d->key_len = 0;
	d->ncells = 0;
	d->split_declared = 0;
	d->st = ST_NEW_ROW;
}

/* A run of cells of one family, for ordering families. */
typedef struct fam_run {
	size_t first, n;
	const uint8_t *name;
	size_t name_len;
} fam_run;

static int run_cmp(const void *a, const void *b)
{
	const fam_run *x = a, *y = b;
	int c = rk__bytes_cmp(x->name, x->name_len, y->name, y->name_len);
	if (c)
		return c;
	return x->first < y->first ? -1 : x->first > y->first; /* stable */
}

/* Bigtable leaves the order of families in a row unspecified (the emulator
 * varies it); rowkey promises family order. Reorders the cells by family,
 * keeping the server's order (qualifier, newest first) inside a family.
 * Returns the permutation in *out (NULL when already in order). */
static int family_order(size_t **out, rk_bt_chunks *d)
{
	size_t nruns = 0;
	int sorted = 1;
	*out = NULL;
	for (size_t i = 0; i < d->ncells; i++) {
		const cell_off *c = &d->cells[i], *p = i ? &d->cells[i - 1] : NULL;
		if (p && rk__bytes_cmp(d->buf + p->fam, p->fam_len, d->buf + c->fam, c->fam_len) == 0)
			continue;
		if (p && rk__bytes_cmp(d->buf + p->fam, p->fam_len, d->buf + c->fam, c->fam_len) > 0)
			sorted = 0;
		nruns++;
	}
	if (sorted)
		return 0;
	fam_run *runs = malloc(nruns * sizeof *runs);
	size_t *perm = malloc(d->ncells * sizeof *perm);
	if (!runs || !perm) {
		free(runs);
		free(perm);
		return rk__err(RK_ENOMEM, "bigtable ReadRows: out of memory for a row");
	}
	size_t r = 0;
	for (size_t i = 0; i < d->ncells; i++) {
		const cell_off *c = &d->cells[i];
		if (r && rk__bytes_cmp(runs[r - 1].name, runs[r - 1].name_len, d->buf + c->fam, c->fam_len) == 0) {
			runs[r - 1].n++;
			continue;
		}
		runs[r++] = (fam_run){i, 1, d->buf + c->fam, c->fam_len};
	}
	qsort(runs, nruns, sizeof *runs, run_cmp);
	size_t o = 0;
	for (size_t k = 0; k < nruns; k++)
		for (size_t j = 0; j < runs[k].n; j++)
			perm[o++] = runs[k].first + j;
	free(runs);
	*out = perm;
	return 0;
}

/* Copies the row in progress into one allocation and queues it. */
static int row_commit(rk_bt_chunks *d)
{
	size_t *perm;
	int rc = family_order(&perm, d);
	if (rc < 0)
		return rc;
	size_t head = sizeof(rk_bt_row) + d->ncells * sizeof(rk_bt_cell);
	rk_bt_row *r = malloc(head + d->len);
	if (!r) {
		free(perm);
		return rk__err(RK_ENOMEM, "bigtable ReadRows: out of memory for a row");
	}
	rk_bt_cell *cells = (rk_bt_cell *)(r + 1);
	uint8_t *bytes = (uint8_t *)r + head;
	if (d->len)
		memcpy(bytes, d->buf, d->len);
	for (size_t i = 0; i < d->ncells; i++) {
		const cell_off *c = &d->cells[perm ? perm[i] : i];
		cells[i] = (rk_bt_cell){
			.family = (const char *)bytes + c->fam,
			.family_len = c->fam_len,
			.qualifier = bytes + c->qual,
			.qualifier_len = c->qual_len,
			.ts_micros = c->ts,
			.value = bytes + c->val,
			.value_len = c->val_len,
		};
	}
	free(perm);
	r->key = bytes;
	r->key_len = d->key_len;
	r->cells = cells;
	r->ncells = d->ncells;

	if (d->rcount == d->rcap) {
		size_t ncap = d->rcap ? d->rcap * 2 : 16;
		rk_bt_row **nq = malloc(ncap * sizeof *nq);
		if (!nq) {
			free(r);
			return rk__err(RK_ENOMEM, "bigtable ReadRows: out of memory for the row queue");
		}
		for (size_t i = 0; i < d->rcount; i++)
			nq[i] = d->ready[(d->rhead + i) % d->rcap];
		free(d->ready);
		d->ready = nq;
		d->rcap = ncap;
		d->rhead = 0;
	}
	d->ready[(d->rhead + d->rcount) % d->rcap] = r;
	d->rcount++;

	if (d->key_len > d->last_cap) {
		uint8_t *nl = realloc(d->last, d->key_len);
		if (!nl)
			return rk__err(RK_ENOMEM, "bigtable ReadRows: out of memory for a row key");
		d->last = nl;
		d->last_cap = d->key_len;
	}
	memcpy(d->last, d->buf, d->key_len);
	d->last_len = d->key_len;
	d->have_last = 1;
	row_reset(d);
	return 0;
}

static int is_reset(const Rkbt__ReadRowsResponse__CellChunk *c)
{
	return c->row_status_case == RKBT__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_RESET_ROW &&
	       c->reset_row;
}

static int is_commit(const Rkbt__ReadRowsResponse__CellChunk *c)
{
	return c->row_status_case == RKBT__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_COMMIT_ROW &&
	       c->commit_row;
}

/* Starts a cell (header fields already checked) or continues a split one,
 * then completes the cell and commits the row as the chunk says. */
static int take_value(rk_bt_chunks *d, const Rkbt__ReadRowsResponse__CellChunk *c)
{
	int rc;
	if (c->value_size < 0)
		return fail(d, "negative value_size");
	if (d->st != ST_IN_CELL) {
		cell_off co = {0};
		if (d->ncells == d->cells_cap) {
			size_t ncap = d->cells_cap ? d->cells_cap * 2 : 16;
			cell_off *nc = realloc(d->cells, ncap * sizeof *nc);
			if (!nc)
				return rk__err(RK_ENOMEM, "bigtable ReadRows: out of memory for cells");
			d->cells = nc;
			d->cells_cap = ncap;
		}
		co.fam = d->fam;
		co.fam_len = d->fam_len;
		co.qual = d->qual;
		co.qual_len = d->qual_len;
		co.ts = c->timestamp_micros;
		co.val = d->len;
		d->cells[d->ncells++] = co;
		d->split_declared = (size_t)c->value_size;
	}
	cell_off *cur = &d->cells[d->ncells - 1];
	if ((rc = buf_put(d, c->value.data, c->value.len, NULL)) < 0)
		return rc;
	cur->val_len += c->value.len;

	if (c->value_size > 0) {
		if (is_commit(c))
			return fail(d, "commit_row inside a split cell");
		if (cur->val_len > d->split_declared)
			return fail(d, "split cell longer than its value_size");
		d->st = ST_IN_CELL;
		return 0;
	}
	if (d->st == ST_IN_CELL && cur->val_len != d->split_declared)
		return fail(d, "split cell length differs from its value_size");
	d->st = ST_IN_ROW;
	return is_commit(c) ? row_commit(d) : 0;
}

static int take_chunk(rk_bt_chunks *d, const Rkbt__ReadRowsResponse__CellChunk *c)
{
	int rc;
	d->nchunk++;
	if (is_reset(c)) {
		if (d->st == ST_NEW_ROW)
			return fail(d, "reset_row with no row in progress");
		if (c->row_key.len || c->family_name || c->qualifier || c->timestamp_micros ||
		    c->n_labels || c->value.len || c->value_size)
			return fail(d, "reset_row chunk carries cell data");
		row_reset(d);
		return 0;
	}
	switch (d->st) {
	case ST_NEW_ROW:
		if (!c->row_key.len)
			return fail(d, "new row without a row key");
		if (d->have_last && rk__bytes_cmp(c->row_key.data, c->row_key.len, d->last, d->last_len) <= 0)
			return fail(d, "row key not greater than the previous row's");
		if (!c->family_name)
			return fail(d, "new row without a family name");
		if (!c->qualifier)
			return fail(d, "new row without a qualifier");
		if ((rc = buf_put(d, c->row_key.data, c->row_key.len, NULL)) < 0)
			return rc;
		d->key_len = c->row_key.len;
		break;
	case ST_IN_ROW:
		if (c->row_key.len && rk__bytes_cmp(c->row_key.data, c->row_key.len, d->buf, d->key_len))
			return fail(d, "row key changed inside a row without a commit");
		if (c->family_name && !c->qualifier)
			return fail(d, "new family without a qualifier");
		break;
	case ST_IN_CELL:
		if (c->row_key.len || c->family_name || c->qualifier || c->timestamp_micros ||
		    c->n_labels)
			return fail(d, "continuation of a split cell carries a cell header");
		return take_value(d, c);
	case ST_FAILED:
		return fail(d, "stream already failed");
	}
	if (c->family_name) {
		const char *f = c->family_name->value ? c->family_name->value : "";
		if ((rc = buf_put(d, f, strlen(f), &d->fam)) < 0)
			return rc;
		d->fam_len = strlen(f);
	}
	if (c->qualifier) {
		if ((rc = buf_put(d, c->qualifier->value.data, c->qualifier->value.len, &d->qual)) < 0)
			return rc;
		d->qual_len = c->qualifier->value.len;
	}
	return take_value(d, c);
}

int rk_bt__chunks_feed(rk_bt_chunks *d, const uint8_t *msg, size_t len)
{
	if (d->st == ST_FAILED)
		return fail(d, "stream already failed");
	Rkbt__ReadRowsResponse *m = rkbt__read_rows_response__unpack(NULL, len, msg);
	if (!m) {
		d->st = ST_FAILED;
		return rk__err(RK_ECORRUPT,
		               "bigtable ReadRows: %s %zu-byte response after chunk %llu does not parse "
		               "as a ReadRowsResponse",
		               rk__article(len), len, (unsigned long long)d->nchunk);
	}
	int rc = 0;
	for (size_t i = 0; i < m->n_chunks && rc == 0; i++)
		rc = take_chunk(d, m->chunks[i]);
	rkbt__read_rows_response__free_unpacked(m, NULL);
	return rc;
}

int rk_bt__chunks_next(const rk_bt_row **out, rk_bt_chunks *d)
{
	free(d->out);
	d->out = NULL;
	if (!d->rcount)
		return RK_EITEROVER;
	d->out = d->ready[d->rhead];
	d->rhead = (d->rhead + 1) % d->rcap;
	d->rcount--;
	*out = d->out;
	return 0;
}

int rk_bt__chunks_finish(rk_bt_chunks *d)
{
	if (d->st == ST_FAILED)
		return fail(d, "stream already failed");
	if (d->st != ST_NEW_ROW)
		return fail(d, "stream ended inside a row (no commit_row)");
	return 0;
}

int rk_bt__chunks_start_after(rk_bt_chunks *d, const uint8_t *key, size_t len)
{
	if (len > d->last_cap) {
		uint8_t *nl = realloc(d->last, len);
		if (!nl)
			return rk__err(RK_ENOMEM, "bigtable ReadRows: out of memory for a row key");
		d->last = nl;
		d->last_cap = len;
	}
	if (len)
		memcpy(d->last, key, len);
	d->last_len = len;
	d->have_last = 1;
	return 0;
}

const uint8_t *rk_bt__chunks_last_key(const rk_bt_chunks *d, size_t *len)
{
	*len = d->have_last ? d->last_len : 0;
	return d->have_last ? d->last : NULL;
}
