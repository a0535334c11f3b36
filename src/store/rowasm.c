/*
 * Row assembly (see rowasm.h). Reading a family, the family-wide delete
 * marker comes first (its 00 00 qualifier part sorts lowest); within a
 * column, versions come newest first and a delete marker precedes the put
 * with the same timestamp. So one forward pass with a little state per
 * family and per column decides visibility; nothing is buffered but the
 * visible cells.
 */
#include "store/rowasm.h"

#include <stdlib.h>
#include <string.h>

#include "key/error.h"

static int grow_slow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * elem);
	if (!q)
		return rk__err(RK_ENOMEM, "out of memory assembling a row (%zu bytes)", n * elem);
	*p = q;
	*cap = n;
	return 0;
}

static inline int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	return need <= *cap ? 0 : grow_slow(p, cap, need, elem);
}

static int buf_append(rk__rowbuf *b, const uint8_t *p, size_t n, size_t *off)
{
	int rc = grow((void **)&b->data, &b->cap, b->len + n + 1, 1);
	if (rc)
		return rc;
	*off = b->len;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

void rk_rowasm__init(rk__rowasm *a, const rk_table *t, const rk_read_options *ro, rk__rowbuf *out)
{
	memset(a, 0, sizeof *a);
	a->table = t;
	a->ro = ro;
	a->out = out;
	a->now = rk_gc__now();
}

void rk_rowasm__reinit(rk__rowasm *a, const rk_table *t, const rk_read_options *ro,
                       rk__rowbuf *out)
{
	uint8_t *qual = a->qual, *tmp = a->tmp;
	size_t qual_cap = a->qual_cap, tmp_cap = a->tmp_cap;
	rk_rowasm__init(a, t, ro, out);
	a->qual = qual;
	a->qual_cap = qual_cap;
	a->tmp = tmp;
	a->tmp_cap = tmp_cap;
	a->now = 0; /* read at the first age rule met: most gets meet none */
}

void rk_rowasm__fini(rk__rowasm *a)
{
	free(a->qual);
	free(a->tmp);
	a->qual = a->tmp = NULL;
}

void rk_rowbuf__fini(rk__rowbuf *b)
{
	free(b->data);
	free(b->ents);
	free(b->cells);
	memset(b, 0, sizeof *b);
}

uint8_t *rk_rowasm__begin_raw(rk__rowasm *a, size_t cap)
{
	rk__rowbuf *b = a->out;
	if (grow((void **)&b->data, &b->cap, cap + 1, 1))
		return NULL;
	b->len = 0;
	b->nents = 0;
	/* the current family stays known (rows mostly share it); its per-row
	 * state does not */
	a->fam_del_ts = 0;
	a->col_valid = 0;
	b->key_off = 0;
	b->key_len = 0;
	return b->data;
}

void rk_rowasm__set_key_len(rk__rowasm *a, size_t len)
{
	a->out->key_len = len;
	a->out->len = len;
}

int rk_rowasm__begin(rk__rowasm *a, const uint8_t *row, size_t len)
{
	uint8_t *d = rk_rowasm__begin_raw(a, len);
	if (!d)
		return RK_ENOMEM;
	if (len)
		memcpy(d, row, len);
	rk_rowasm__set_key_len(a, len);
	return 0;
}

static int family_wanted(const rk__rowasm *a, const rk__family *f)
{
	if (!a->ro->ncolumns)
		return 1;
	for (size_t i = 0; i < a->ro->ncolumns; i++)
		if (!strcmp(a->ro->columns[i].family, f->name))
			return 1;
	return 0;
}

static int column_wanted(const rk__rowasm *a, const rk__family *f, const uint8_t *q, size_t qlen)
{
	if (!a->ro->ncolumns)
		return 1;
	for (size_t i = 0; i < a->ro->ncolumns; i++) {
		const rk_column *c = &a->ro->columns[i];
		if (strcmp(c->family, f->name))
			continue;
		if (!c->qualifier)
			return 1;
		if (c->qualifier_len == qlen && (qlen == 0 || !memcmp(c->qualifier, q, qlen)))
			return 1;
	}
	return 0;
}

int rk_rowasm__verdict(rk__rowasm *a, const rk__cellkey *ck)
{
	int rc;
	if (!a->fam_known || !a->fam || a->fam->name_len != ck->family_len ||
	    memcmp(a->fam->name, ck->family, ck->family_len)) {
		a->fam = rk_store__family(a->table, (const char *)ck->family, ck->family_len);
		a->fam_known = 1;
		a->fam_skip = !a->fam || !family_wanted(a, a->fam);
		a->fam_del_ts = 0;
		a->col_valid = 0;
	}
	if (a->fam_skip)
		return RK_VIS_SKIP;
	if (ck->family_marker) {
		if (ck->ts > a->fam_del_ts)
			a->fam_del_ts = ck->ts;
		return RK_VIS_MARKER;
	}
	if (!a->col_valid || a->qual_len != ck->qual_len ||
	    memcmp(a->qual, ck->qual, ck->qual_len)) {
		if ((rc = grow((void **)&a->qual, &a->qual_cap, ck->qual_len + 1, 1)) != 0)
			return rc;
		memcpy(a->qual, ck->qual, ck->qual_len);
		a->qual_len = ck->qual_len;
		a->col_valid = 1;
		a->col_del_ts = a->cell_del_ts = 0;
		a->rank = a->returned = 0;
		a->col_skip = 0;
		if (a->ro->ncolumns) {
			if ((rc = grow((void **)&a->tmp, &a->tmp_cap, ck->qual_len + 1, 1)) != 0)
				return rc;
			size_t ql = rk_cell__unesc(a->tmp, ck->qual, ck->qual_len);
			a->col_skip = !column_wanted(a, a->fam, a->tmp, ql);
		}
	}
	if (a->col_skip)
		return RK_VIS_SKIP;
	switch (ck->type) {
	case RK_CELL_DELETE_COLUMN:
		if (ck->ts > a->col_del_ts)
			a->col_del_ts = ck->ts;
		return RK_VIS_MARKER;
	case RK_CELL_DELETE_CELL:
		a->cell_del_ts = ck->ts;
		return RK_VIS_MARKER;
	case RK_CELL_PUT:
		break;
	default:
		return RK_VIS_SKIP;
	}
	if (ck->ts <= a->fam_del_ts || ck->ts <= a->col_del_ts || ck->ts == a->cell_del_ts)
		return RK_VIS_MASKED;
	if (a->fam->gc && !a->now)
		a->now = rk_gc__now();
	if (rk__family_collects(a->fam, ++a->rank, ck->ts, a->now))
		return RK_VIS_COLLECTED;
	return RK_VIS_KEEP;
}

int rk_rowasm__add(rk__rowasm *a, const rk__cellkey *ck, const uint8_t *val, size_t vlen)
{
	int rc = rk_rowasm__verdict(a, ck);
	if (rc != RK_VIS_KEEP)
		return rc < 0 ? rc : 0;
	if (ck->ts < a->ro->min_ts || (a->ro->max_ts && ck->ts >= a->ro->max_ts))
		return 0;
	unsigned want = a->ro->max_versions ? a->ro->max_versions : 1;
	if (a->returned >= want)
		return 0;
	a->returned++;

	rk__rowbuf *b = a->out;
	if (b->len + ck->qual_len + vlen > RK_MAX_ROW_BYTES) {
		char kb[200];
		return rk__err(RK_ETOOLONG, "table %s: row '%s': its cells pass %u MiB: not read",
		               a->table->name, rk__err_bytes(kb, sizeof kb, b->data + b->key_off,
		                                             b->key_len),
		               RK_MAX_ROW_BYTES >> 20);
	}
	if ((rc = grow((void **)&b->ents, &b->cap_ents, b->nents + 1, sizeof *b->ents)) != 0)
		return rc;
	struct rk__rowent *e = &b->ents[b->nents];
	if ((rc = grow((void **)&b->data, &b->cap, b->len + ck->qual_len + vlen + 2, 1)) != 0)
		return rc;
	e->qual_off = b->len;
	e->qual_len = rk_cell__unesc(b->data + b->len, ck->qual, ck->qual_len);
	b->len += e->qual_len;
	if ((rc = buf_append(b, val, vlen, &e->val_off)) != 0)
		return rc;
	e->val_len = vlen;
	e->family = a->fam->name;
	e->ts = ck->ts;
	b->nents++;
	return 0;
}

size_t rk_rowasm__finish(rk__rowasm *a)
{
	rk__rowbuf *b = a->out;
	if (grow((void **)&b->cells, &b->cap_cells, b->nents + 1, sizeof *b->cells)) {
		b->row.ncells = 0;
		return 0;
	}
	for (size_t i = 0; i < b->nents; i++) {
		const struct rk__rowent *e = &b->ents[i];
		b->cells[i] = (rk_cell){e->family, b->data + e->qual_off, e->qual_len, e->ts,
		                        b->data + e->val_off, e->val_len, NULL};
	}
	b->row.key = b->data + b->key_off;
	b->row.key_len = b->key_len;
	b->row.cells = b->cells;
	b->row.ncells = b->nents;
	return b->nents;
}

uint64_t rk_rowbuf__bytes(const rk__rowbuf *b)
{
	uint64_t n = 0;
	for (size_t i = 0; i < b->nents; i++)
		n += b->key_len + b->ents[i].qual_len + b->ents[i].val_len;
	return n;
}

int rk_rowbuf__copy(rk_row **out, const rk_row *row)
{
	size_t bytes = sizeof(rk_row) + row->ncells * sizeof(rk_cell) + row->key_len;
	for (size_t i = 0; i < row->ncells; i++)
		bytes += row->cells[i].qualifier_len + row->cells[i].value_len +
		         strlen(row->cells[i].family) + 1 +
		         (row->cells[i].label ? strlen(row->cells[i].label) + 1 : 0);
	uint8_t *m = malloc(bytes);
	if (!m)
		return rk__err(RK_ENOMEM, "out of memory copying a row (%zu bytes)", bytes);
	rk_row *r = (rk_row *)m;
	rk_cell *cells = (rk_cell *)(m + sizeof *r);
	uint8_t *p = (uint8_t *)(cells + row->ncells);
	memcpy(p, row->key, row->key_len);
	r->key = p;
	r->key_len = row->key_len;
	p += row->key_len;
	for (size_t i = 0; i < row->ncells; i++) {
		const rk_cell *c = &row->cells[i];
		size_t fl = strlen(c->family) + 1;
		memcpy(p, c->family, fl);
		cells[i].family = (const char *)p;
		p += fl;
		if (c->qualifier_len)
			memcpy(p, c->qualifier, c->qualifier_len);
		cells[i].qualifier = p;
		cells[i].qualifier_len = c->qualifier_len;
		p += c->qualifier_len;
		if (c->value_len)
			memcpy(p, c->value, c->value_len);
		cells[i].value = p;
		cells[i].value_len = c->value_len;
		p += c->value_len;
		cells[i].ts = c->ts;
		cells[i].label = NULL;
		if (c->label) {
			size_t ll = strlen(c->label) + 1;
			memcpy(p, c->label, ll);
			cells[i].label = (const char *)p;
			p += ll;
		}
	}
	r->cells = cells;
	r->ncells = row->ncells;
	*out = r;
	return 0;
}
