/*
 * Row operations resolved by a region server's writer (rowop.h): the range
 * deletes here; the calls (check-and-mutate, read-modify-write, garbage
 * collection) bring their own resolver.
 *
 * A range delete is a key prefix (a row, a family of a row, a column) and a
 * time range. Resolving it reads the engine under the prefix and deletes
 * each version in the range, and each delete marker an older build wrote
 * there (docs/formats.md B.1) whose whole reach the delete covers; a marker
 * it covers only in part stays, still hiding what it hid.
 */
#include "store/local/rowop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/cell.h"
#include "store/local/server.h"

void rk_wops__clear(rk__wops *o)
{
	o->len = 0;
	o->n = 0;
	o->err[0] = 0;
}

void rk_wops__fini(rk__wops *o)
{
	free(o->arena);
	free(o->v);
	memset(o, 0, sizeof *o);
}

static int push(rk__wops *o, const rk__wop *w)
{
	if (o->n == o->cap_v) {
		size_t c = o->cap_v ? o->cap_v * 2 : 8;
		rk__wop *v = realloc(o->v, c * sizeof *v);
		if (!v)
			return rk__err(RK_ENOMEM, "out of memory queueing a delete");
		o->v = v;
		o->cap_v = c;
	}
	o->v[o->n++] = *w;
	return 0;
}

static int arena_room(rk__wops *o, size_t more)
{
	if (o->len + more <= o->cap)
		return 0;
	size_t c = o->cap ? o->cap : 256;
	while (c < o->len + more)
		c *= 2;
	uint8_t *a = realloc(o->arena, c);
	if (!a)
		return rk__err(RK_ENOMEM, "out of memory queueing a delete");
	o->arena = a;
	o->cap = c;
	return 0;
}

int rk_wops__add_delete(rk__wops *o, uint32_t tid, const rk_mutation *m)
{
	size_t fl = m->type == RK_MUT_DELETE_ROW ? 0 : strlen(m->family);
	size_t need = 4 + rk_cell__esc_len(m->row, m->row_len) + (fl ? fl * 2 + 2 : 0) +
	              (m->type == RK_MUT_DELETE_COLUMN ? rk_cell__esc_len(m->qualifier,
	                                                                  m->qualifier_len)
	                                               : 0);
	int rc = arena_room(o, need);
	if (rc)
		return rc;
	uint8_t *p = o->arena + o->len;
	rk_cell__put_u32(p, tid);
	uint8_t *e = rk_cell__esc(p + 4, m->row, m->row_len);
	if (fl)
		e = rk_cell__esc(e, (const uint8_t *)m->family, fl);
	if (m->type == RK_MUT_DELETE_COLUMN)
		e = rk_cell__esc(e, m->qualifier, m->qualifier_len);
	rk__wop w = {RK__OP_DELETE, o->len, (size_t)(e - p), 0, m->ts_from, m->ts, NULL};
	w.scope = m->type == RK_MUT_DELETE_ROW ? 0 : m->type == RK_MUT_DELETE_FAMILY ? 1 : 2;
	if ((rc = push(o, &w)) != 0)
		return rc;
	o->len += w.pre_len;
	return 0;
}

int rk_wops__add_call(rk__wops *o, rk__opcall *c)
{
	rk__wop w = {RK__OP_CALL, 0, 0, 0, 0, 0, c};
	return push(o, &w);
}

/* ---- puts a later delete of the same batch covers ---- */

typedef struct rowent {
	const rk_mutation *m;
	size_t i;
} rowent;

static int rowent_cmp(const void *a, const void *b)
{
	const rowent *x = a, *y = b;
	size_t n = x->m->row_len < y->m->row_len ? x->m->row_len : y->m->row_len;
	int c = memcmp(x->m->row, y->m->row, n);
	if (c)
		return c;
	if (x->m->row_len != y->m->row_len)
		return x->m->row_len < y->m->row_len ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int is_range_delete(const rk_mutation *m)
{
	return m->type == RK_MUT_DELETE_COLUMN || m->type == RK_MUT_DELETE_FAMILY ||
	       m->type == RK_MUT_DELETE_ROW;
}

/* 1 when range delete d (of the same row) removes what m writes. */
static int covers(const rk_mutation *d, const rk_mutation *m)
{
	if (m->ts < d->ts_from || m->ts > d->ts)
		return 0;
	if (d->type == RK_MUT_DELETE_ROW)
		return 1;
	if (strcmp(d->family, m->family) != 0)
		return 0;
	return d->type == RK_MUT_DELETE_FAMILY ||
	       (d->qualifier_len == m->qualifier_len &&
	        (!m->qualifier_len || !memcmp(d->qualifier, m->qualifier, m->qualifier_len)));
}

int rk_rowop__covered(uint8_t **drop, const rk_mutation *muts, size_t n)
{
	size_t nd = 0;
	*drop = NULL;
	for (size_t i = 0; i < n; i++)
		nd += is_range_delete(&muts[i]);
	if (!nd)
		return 0;
	rowent *e = malloc(n * sizeof *e);
	size_t *later = malloc(nd * sizeof *later);
	uint8_t *d = calloc(n, 1);
	if (!e || !later || !d) {
		free(e);
		free(later);
		free(d);
		return rk__err(RK_ENOMEM, "out of memory ordering a batch of %zu mutations", n);
	}
	for (size_t i = 0; i < n; i++)
		e[i] = (rowent){&muts[i], i};
	qsort(e, n, sizeof *e, rowent_cmp);
	/* within each row, walk back from its last mutation, keeping the deletes
	 * met (the later ones) */
	for (size_t a = 0, b; a < n; a = b) {
		size_t nl = 0;
		for (b = a + 1; b < n && e[b].m->row_len == e[a].m->row_len &&
		                !memcmp(e[b].m->row, e[a].m->row, e[a].m->row_len);
		     b++)
			;
		for (size_t j = b; j-- > a;) {
			if (is_range_delete(e[j].m)) {
				later[nl++] = j;
				continue;
			}
			for (size_t k = 0; k < nl && !d[e[j].i]; k++)
				d[e[j].i] = (uint8_t)covers(e[later[k]].m, e[j].m);
		}
	}
	free(e);
	free(later);
	*drop = d;
	return 0;
}

size_t rk_rowop__encode(rk__ebatch *b, uint8_t **key, size_t *cap, uint32_t tid,
                        const rk_mutation *m)
{
	size_t fl = strlen(m->family);
	/* room for the key at its longest (every byte of row and qualifier a
	   00, escaped to two): no pass over them to size it exactly */
	size_t need = 4 + 2 * m->row_len + 2 + fl + 2 + 2 * m->qualifier_len + 2 + 9;
	if (need > *cap) {
		uint8_t *k = realloc(*key, need);
		if (!k) {
			rk__err(RK_ENOMEM, "out of memory encoding a cell of %zu bytes", need);
			return 0;
		}
		*key = k;
		*cap = need;
	}
	size_t kl = rk_cell__encode(*key, tid, m->row, m->row_len, m->family, fl, m->qualifier,
	                            m->qualifier_len, 0, m->ts, RK_CELL_PUT);
	if (m->type == RK_MUT_PUT) {
		rk_ebatch__put(b, *key, kl, m->value, m->value_len);
		return kl + m->value_len;
	}
	rk_ebatch__del(b, *key, kl);
	(*key)[kl - 1] = RK_CELL_DELETE_CELL; /* the type is the key's last byte */
	rk_ebatch__del(b, *key, kl);
	return kl;
}

/* ---- resolving range deletes ---- */

/* 1 when delete w removes the entry ck under its prefix. A marker of an
 * older build hides the versions at or under its timestamp (a cell marker:
 * at it), written before or after it: it goes only with all of them. */
static int removes(const rk__wop *w, const rk__cellkey *ck)
{
	switch (ck->type) {
	case RK_CELL_PUT:
	case RK_CELL_DELETE_CELL:
		return ck->ts >= w->lo && ck->ts <= w->hi;
	case RK_CELL_DELETE_COLUMN:
		return w->lo <= 1 && w->hi >= ck->ts;
	case RK_CELL_DELETE_FAMILY:
		return w->scope <= 1 && w->lo <= 1 && w->hi >= ck->ts;
	default:
		return 0;
	}
}

static int resolve_delete(rk__eiter *it, const rk__wops *o, const rk__wop *w, rk__ebatch *out)
{
	const uint8_t *pre = o->arena + w->pre_off;
	for (rk_eiter__seek(it, pre, w->pre_len); rk_eiter__valid(it); rk_eiter__next(it)) {
		size_t kl;
		const uint8_t *k = rk_eiter__key(it, &kl);
		if (kl < w->pre_len || memcmp(k, pre, w->pre_len) != 0)
			break;
		rk__cellkey ck;
		int rc = rk_cell__decode(&ck, k, kl);
		if (rc)
			return rk__err_wrap(rc, "deleting the cells of a row");
		if (removes(w, &ck))
			rk_ebatch__del(out, k, kl);
	}
	return rk_eiter__status(it);
}

/* The range deletes of o (its calls aside) against e into out. */
static int resolve_deletes(rk__engine *e, const rk__wops *o, rk__ebatch *out)
{
	rk__eiter *it = NULL;
	int rc = 0;
	for (size_t i = 0; i < o->n && !rc; i++) {
		if (o->v[i].kind != RK__OP_DELETE)
			continue;
		if (!it && !(it = rk_eiter__take(e)))
			return rk__err(RK_ENOMEM, "out of memory reading the cells to delete");
		rc = resolve_delete(it, o, &o->v[i], out);
	}
	if (it)
		rk_eiter__give_back(it);
	return rc;
}

int rk_rowop__resolve(rk__engine *e, struct rk__wreq *req, rk__ebatch *out)
{
	rk__wops *o = &req->ops;
	int rc = resolve_deletes(e, o, out);
	for (size_t i = 0; i < o->n && !rc; i++)
		if (o->v[i].kind == RK__OP_CALL)
			rc = o->v[i].call->fn(o->v[i].call, e, req, out);
	if (rc)
		snprintf(o->err, sizeof o->err, "%s", rk_error_last());
	return rc;
}

int rk_rowop__apply(rk__engine *e, uint32_t tid, const rk_mutation *m, size_t n,
                    rk__ebatch *out, uint64_t *bytes)
{
	rk__wops o = {0};
	uint8_t *drop, *key = NULL;
	size_t cap = 0;
	*bytes = 0;
	int rc = rk_rowop__covered(&drop, m, n);
	for (size_t i = 0; i < n && !rc; i++)
		if (m[i].type != RK_MUT_PUT && m[i].type != RK_MUT_DELETE_CELL)
			rc = rk_wops__add_delete(&o, tid, &m[i]);
	if (!rc)
		rc = resolve_deletes(e, &o, out);
	for (size_t i = 0; i < n && !rc; i++) {
		if ((m[i].type != RK_MUT_PUT && m[i].type != RK_MUT_DELETE_CELL) || (drop && drop[i]))
			continue;
		size_t b = rk_rowop__encode(out, &key, &cap, tid, &m[i]);
		if (!b)
			rc = RK_ENOMEM;
		*bytes += b;
	}
	free(key);
	free(drop);
	rk_wops__fini(&o);
	return rc;
}
