/*
 * Check-and-mutate and read-modify-write for the local store. Each is one
 * call (rowop.h) queued to the writer of the server holding the row's
 * region: the writer reads the row from its engine, decides, and writes,
 * with no other write to the server between (it applies them one at a
 * time), so the operation is atomic with every write to the row without a
 * lock of its own. The caller waits for the call; what it computed (the
 * predicate's answer, the new cells) comes back in the call's struct.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/error.h"
#include "store/cell.h"
#include "store/filter.h"
#include "store/local/local_int.h"
#include "store/rowasm.h"

/* What both calls share: the row, its table and region. */
typedef struct rowcall {
	rk__opcall base;
	rk__ltable *lt;
	rk__region *region; /* set before the call is queued */
	const uint8_t *row;
	size_t len;
} rowcall;

/* Queues call c to the writer of the server that holds its row (after a
 * move of the row's region, if one runs) and waits for it. */
static int run_call(rowcall *c)
{
	rk__local *s = c->lt->st;
	rk__wreq req;
	rk__wdone done;
	memset(&req, 0, sizeof req);
	rk_wdone__init(&done);
	int rc = rk_wops__add_call(&req.ops, &c->base);
	if (rc)
		goto out;
	for (;;) {
		pthread_rwlock_rdlock(&s->lock);
		rk__region *r = rk_meta__lookup(c->lt->tm, c->row, c->len);
		if (!atomic_load(&r->moving)) {
			c->region = r;
			done.pending = 1;
			req.done = &done;
			req.sync = s->opts.durability == RK_DURABILITY_SYNC;
			rk_server__submit(&s->servers[r->server], &req);
			pthread_rwlock_unlock(&s->lock);
			break;
		}
		pthread_rwlock_unlock(&s->lock);
		rk_local__wait_not_moving(s, r);
	}
	rk_wdone__wait(&done);
	if ((rc = req.status) != 0)
		rc = rk__err(rc, "table %s: %s", c->lt->tm->name,
		             req.ops.err[0] ? req.ops.err
		                            : rk_engine__failure(s->servers[c->region->server].engine));
out:
	rk_wops__fini(&req.ops);
	free(req.acct); /* the writer counted the call's cells there */
	rk_wdone__fini(&done);
	return rc;
}

/* Reads the call's row from engine e (the writer's) under read options ro
 * into a (whose buffer then holds the row). */
static int read_row(rk__rowasm *a, rk__engine *e, const rowcall *c)
{
	size_t cap = 4 + 2 * c->len + 2, lo_len, hi_len;
	uint8_t *lo = malloc(cap), *hi = malloc(cap);
	rk__eiter *it = rk_eiter__take(e);
	int rc = 0;
	if (!lo || !hi || !it) {
		rc = rk__err(RK_ENOMEM, "out of memory reading a row");
		goto out;
	}
	/* the row's engine range: [u32(t) escbody(row) 00 01, ... 00 02) */
	hi_len = rk_cell__row_bound(hi, c->lt->tm->id, c->row, c->len, 0);
	hi[hi_len - 1] = 0x02;
	memcpy(lo, hi, hi_len);
	lo_len = hi_len;
	lo[lo_len - 1] = 0x01;
	if ((rc = rk_rowasm__begin(a, c->row, c->len)) != 0)
		goto out;
	rc = rk_local__row_cells(a, it, lo, lo_len, hi, hi_len, &c->lt->base, c->region,
	                         c->region->server);
	rk_rowasm__finish(a);
out:
	if (it)
		rk_eiter__give_back(it);
	free(lo);
	free(hi);
	return rc;
}

/* ---- check-and-mutate ---- */

typedef struct cam {
	rowcall c;
	const rk__filter *pred;
	const rk_mutation *yes, *no;
	size_t nyes, nno;
	int matched;
} cam;

static int cam_run(rk__opcall *base, rk__engine *e, struct rk__wreq *req, rk__ebatch *out)
{
	cam *x = (cam *)base;
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	ro.max_versions = UINT32_MAX; /* the predicate sees every visible version */
	rk__rowbuf rb = {0};
	rk__rowasm a;
	rk__cells pass = {0};
	rk_rowasm__init(&a, &x->c.lt->base, &ro, &rb);
	int rc = read_row(&a, e, &x->c);
	if (!rc && x->pred)
		rc = rk__filter_row(&pass, x->pred, x->c.row, x->c.len, rb.row.cells, rb.row.ncells);
	if (!rc) {
		x->matched = x->pred ? pass.n > 0 : rb.row.ncells > 0;
		const rk_mutation *m = x->matched ? x->yes : x->no;
		size_t n = x->matched ? x->nyes : x->nno;
		uint64_t bytes;
		if (n && (rc = rk_rowop__apply(e, x->c.lt->tm->id, m, n, out, &bytes)) == 0)
			rc = rk_wreq__account(req, x->c.region, n, bytes);
	}
	free(pass.v);
	rk_rowasm__fini(&a);
	rk_rowbuf__fini(&rb);
	return rc;
}

int rk_local__check_and_mutate(int *matched, rk_table *tb, const uint8_t *row, size_t len,
                               const struct rk__filter *pred, const rk_filter *pred_src,
                               const rk_mutation *if_true, size_t ntrue,
                               const rk_mutation *if_false, size_t nfalse)
{
	(void)pred_src;
	cam x = {{{cam_run}, (rk__ltable *)tb, NULL, row, len}, pred, if_true, if_false, ntrue,
	         nfalse, 0};
	int rc = run_call(&x.c);
	*matched = x.matched;
	return rc;
}

/* ---- read-modify-write ---- */

typedef struct rmw {
	rowcall c;
	const rk_rmw_rule *rules;
	size_t n;
	uint64_t ts;
	rk_row *result;
} rmw;

/* One new cell of the call; value owned. */
typedef struct newcell {
	rk_cell cell;
	uint8_t *val;
} newcell;

/* The newest value of rule r's column: a new cell an earlier rule made
 * (*made its index), or the row's; NULL when there is none. */
static const rk_cell *current(size_t *made, const newcell *nc, size_t nn, const rk_row *row,
                              const rk_rmw_rule *r)
{
	*made = SIZE_MAX;
	for (size_t k = nn; k-- > 0;)
		if (!strcmp(nc[k].cell.family, r->family) &&
		    !rk__bytes_cmp(nc[k].cell.qualifier, nc[k].cell.qualifier_len, r->qualifier,
		                   r->qualifier_len)) {
			*made = k;
			return &nc[k].cell;
		}
	for (size_t k = 0; k < row->ncells; k++)
		if (!strcmp(row->cells[k].family, r->family) &&
		    !rk__bytes_cmp(row->cells[k].qualifier, row->cells[k].qualifier_len, r->qualifier,
		                   r->qualifier_len))
			return &row->cells[k];
	return NULL;
}

/* The new value of rule i over the current cell (NULL: none), malloc'd. */
static int new_value(uint8_t **out, size_t *len, const rk_rmw_rule *r, size_t i,
                     const rk_cell *cur)
{
	size_t ol = cur ? cur->value_len : 0;
	if (r->kind == RK_RMW_APPEND) {
		if (ol + r->append_len > RK_MAX_VALUE_LEN)
			return rk__err(RK_EINVALID, "rule %zu: the new value would be %zu bytes (max %u)", i,
			               ol + r->append_len, RK_MAX_VALUE_LEN);
		if (!(*out = malloc(ol + r->append_len + 1)))
			return rk__err(RK_ENOMEM, "out of memory for a new value");
		if (ol)
			memcpy(*out, cur->value, ol);
		if (r->append_len)
			memcpy(*out + ol, r->append, r->append_len);
		*len = ol + r->append_len;
		return 0;
	}
	/* an existing empty value is no number: only a missing cell counts as 0 */
	if (cur && ol != 8)
		return rk__err(RK_EINVALID, "rule %zu: the cell's value is %zu bytes, not a 64-bit "
		               "big-endian integer", i, ol);
	uint64_t v = 0;
	for (size_t b = 0; b < ol; b++)
		v = v << 8 | cur->value[b];
	v += (uint64_t)r->increment; /* two's complement wraps, as Bigtable's */
	if (!(*out = malloc(8)))
		return rk__err(RK_ENOMEM, "out of memory for a new value");
	for (int b = 7; b >= 0; b--, v >>= 8)
		(*out)[b] = (uint8_t)(v & 0xff);
	*len = 8;
	return 0;
}

static int cell_order(const void *a, const void *b)
{
	const newcell *x = a, *y = b;
	int c = strcmp(x->cell.family, y->cell.family);
	return c ? c : rk__bytes_cmp(x->cell.qualifier, x->cell.qualifier_len, y->cell.qualifier,
	                             y->cell.qualifier_len);
}

/* Computes the new cells of x over row, writes them into out and makes the
 * call's result. */
static int rmw_apply(rmw *x, const rk_row *row, struct rk__wreq *req, rk__ebatch *out)
{
	newcell *nc = calloc(x->n, sizeof *nc);
	size_t nn = 0;
	uint64_t bytes = 0;
	int rc = nc ? 0 : rk__err(RK_ENOMEM, "out of memory for %zu rules", x->n);
	for (size_t i = 0; i < x->n && !rc; i++) {
		const rk_rmw_rule *r = &x->rules[i];
		size_t made;
		const rk_cell *cur = current(&made, nc, nn, row, r);
		uint8_t *v = NULL;
		size_t vl = 0;
		if ((rc = new_value(&v, &vl, r, i, cur)) != 0)
			break;
		/* the newest version's timestamp when it is later: it is replaced */
		uint64_t ts = cur && cur->ts > x->ts ? cur->ts : x->ts;
		newcell *slot = made != SIZE_MAX ? &nc[made] : &nc[nn++];
		free(slot->val);
		const rk__family *f = rk_store__family(&x->c.lt->base, r->family, strlen(r->family));
		*slot = (newcell){{f->name, r->qualifier, r->qualifier_len, ts, v, vl, NULL}, v};
	}
	qsort(nc, nn, sizeof *nc, cell_order);
	uint8_t *key = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < nn && !rc; i++) {
		rk_mutation m = {RK_MUT_PUT, x->c.row, x->c.len, nc[i].cell.family,
		                 nc[i].cell.qualifier, nc[i].cell.qualifier_len, nc[i].cell.ts,
		                 nc[i].val, nc[i].cell.value_len, 0};
		size_t b = rk_rowop__encode(out, &key, &cap, x->c.lt->tm->id, &m);
		rc = b ? 0 : RK_ENOMEM;
		bytes += b;
	}
	rk_cell *cells = nn ? malloc(nn * sizeof *cells) : NULL;
	if (!rc && nn && !cells)
		rc = rk__err(RK_ENOMEM, "out of memory for the new cells");
	for (size_t i = 0; !rc && i < nn; i++)
		cells[i] = nc[i].cell;
	if (!rc) {
		rk_row view = {x->c.row, x->c.len, cells, nn};
		rc = rk_rowbuf__copy(&x->result, &view);
	}
	if (!rc)
		rc = rk_wreq__account(req, x->c.region, nn, bytes);
	for (size_t i = 0; nc && i < x->n; i++)
		free(nc[i].val);
	free(nc);
	free(cells);
	free(key);
	return rc;
}

static int rmw_run(rk__opcall *base, rk__engine *e, struct rk__wreq *req, rk__ebatch *out)
{
	rmw *x = (rmw *)base;
	rk_column *cols = calloc(x->n, sizeof *cols);
	if (!cols)
		return rk__err(RK_ENOMEM, "out of memory for %zu rules", x->n);
	for (size_t i = 0; i < x->n; i++)
		cols[i] = (rk_column){x->rules[i].family, x->rules[i].qualifier,
		                      x->rules[i].qualifier_len};
	rk_read_options ro = RK_READ_OPTIONS_INIT; /* the newest version of each column */
	ro.columns = cols;
	ro.ncolumns = x->n;
	rk__rowbuf rb = {0};
	rk__rowasm a;
	rk_rowasm__init(&a, &x->c.lt->base, &ro, &rb);
	int rc = read_row(&a, e, &x->c);
	if (!rc)
		rc = rmw_apply(x, &rb.row, req, out);
	rk_rowasm__fini(&a);
	rk_rowbuf__fini(&rb);
	free(cols);
	return rc;
}

int rk_local__read_modify_write(rk_row **out, rk_table *tb, const uint8_t *row, size_t len,
                                const rk_rmw_rule *rules, size_t n, uint64_t ts)
{
	rmw x = {{{rmw_run}, (rk__ltable *)tb, NULL, row, len}, rules, n, ts, NULL};
	int rc = run_call(&x.c);
	if (rc) {
		rk_row_free(x.result);
		return rc;
	}
	*out = x.result;
	return 0;
}
