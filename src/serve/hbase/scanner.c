/*
 * Scanners: POST /TABLE/scanner makes one from a Scanner model (201 with
 * its Location), GET /TABLE/scanner/ID answers the next batch (204 once
 * there are no more), DELETE frees it; one unused for the idle limit is
 * freed by the next scanner call.
 *
 * A scanner holds no store scan or table handle between requests: it
 * keeps the model as sent and where it stopped (a row key, and how many of
 * that row's cells went out when a batch cut the row), and each GET opens
 * a scan from there. So an idle scanner pins nothing (a table drop never
 * waits for one), and each batch sees the rows as they are when it is
 * read, as HBase's scanners do across region boundaries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "key/error.h"
#include "serve/hbase/hbase_int.h"

enum { AT_START, AT_ROW /* resume at key, skipping `skip` cells */, AFTER_ROW };

typedef struct hscanner {
	char id[40];
	char table[RK_MAX_TABLE_NAME_LEN + 1];
	uint8_t *model;
	size_t model_len;
	int pos;
	uint8_t *key;
	size_t key_len, skip;
	uint64_t rows_done;
	int done, busy, deleted;
	time_t used;
} hscanner;

struct rk_hb_scanners {
	pthread_mutex_t mu;
	hscanner **v;
	size_t n;
};

int rk_hb__scanners_new(rk_hb_scanners **out)
{
	rk_hb_scanners *s = calloc(1, sizeof *s);
	if (!s)
		return rk__err(RK_ENOMEM, "out of memory");
	pthread_mutex_init(&s->mu, NULL);
	*out = s;
	return 0;
}

static void sc_free(hscanner *c)
{
	free(c->model);
	free(c->key);
	free(c);
}

void rk_hb__scanners_free(rk_hb_scanners *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		sc_free(s->v[i]);
	free(s->v);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* Frees the idle ones (under the mutex). */
static void sweep(rk_hb_scanners *s, unsigned idle_s)
{
	time_t now = time(NULL);
	for (size_t i = 0; i < s->n;)
		if (!s->v[i]->busy && difftime(now, s->v[i]->used) >= (double)idle_s) {
			sc_free(s->v[i]);
			s->v[i] = s->v[--s->n];
		} else {
			i++;
		}
}

static hscanner *find(rk_hb_scanners *s, const rk_hb_path *p, size_t *at)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i]->id, p->scanner) && !strcmp(s->v[i]->table, p->table) &&
		    !s->v[i]->deleted) {
			*at = i;
			return s->v[i];
		}
	return NULL;
}

int rk_hb__scanner_create(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r)
{
	rk_hb_scanspec spec;
	char err[256];
	rk_hb_body b;
	if (rk_hb__body(&b, q, RK_HB_M_SCANNER, r))
		return r->status;
	int st = rk_hb__scanner_parse(&spec, b.p, b.len, err, sizeof err);
	if (st) {
		free(b.owned);
		return rk_hb__fail(r, st, "%s", err);
	}
	/* a scan opened and closed: a bad pattern or column is refused now,
	 * not at the first batch */
	rk_table *t;
	rk_scan *sc;
	if (rk_hb__acquire(&t, h, p->table, r)) {
		rk_hb__arena_free(&spec.a);
		free(b.owned);
		return r->status;
	}
	int rc = rk_scan_open(&sc, t, &spec.so);
	if (!rc)
		rk_scan_close(sc);
	rk_hb__release(h, p->table, t);
	rk_hb__arena_free(&spec.a);
	if (rc) {
		free(b.owned);
		return rk_hb__from_store(r, rc, "the scanner");
	}
	/* the model kept is the JSON one, whatever the body's representation */
	hscanner *c = calloc(1, sizeof *c);
	uint64_t rnd = 0;
	if (!c || !(c->model = malloc(b.len + 1)) ||
	    getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		if (c)
			sc_free(c);
		free(b.owned);
		return rk_hb__fail(r, 503, "Service unavailable: out of memory or randomness");
	}
	memcpy(c->model, b.p, b.len);
	c->model_len = b.len;
	free(b.owned);
	snprintf(c->id, sizeof c->id, "%llx%016llx", (unsigned long long)time(NULL),
	         (unsigned long long)rnd);
	snprintf(c->table, sizeof c->table, "%s", p->table);
	c->used = time(NULL);
	rk_hb_scanners *s = h->sc;
	pthread_mutex_lock(&s->mu);
	sweep(s, h->lim.scanner_idle_s);
	hscanner **v = s->n < h->lim.max_scanners ? realloc(s->v, (s->n + 1) * sizeof *v) : NULL;
	if (v) {
		s->v = v;
		s->v[s->n++] = c;
	}
	pthread_mutex_unlock(&s->mu);
	if (!v) {
		sc_free(c);
		return rk_hb__fail(r, 503, "Service unavailable: %u scanners are open (delete some, or "
		                           "wait %u s for idle ones to expire)",
		                   h->lim.max_scanners, h->lim.scanner_idle_s);
	}
	snprintf(r->location, sizeof r->location, "http://%s/%s/scanner/%s",
	         q->host ? q->host : "127.0.0.1", p->table, c->id);
	return rk_hb__ok(r, 201);
}

/* Where the scan stopped, to save in the scanner. */
typedef struct stop {
	int pos;
	uint8_t *key;
	size_t key_len, skip;
	uint64_t rows;
	int done;
} stop;

static int save_key(stop *o, const rk_row *row, int pos, size_t skip)
{
	o->pos = pos;
	o->skip = skip;
	o->key_len = row->key_len;
	o->key = malloc(row->key_len + 1);
	if (!o->key)
		return rk__err(RK_ENOMEM, "out of memory");
	memcpy(o->key, row->key, row->key_len);
	return 0;
}

/* One batch from c's position into rows: at most `cells` cells (0: any),
 * `nrows` rows (0: any), about max_bytes of cells. */
static int batch(stop *o, json_t *rows, rk_table *t, const hscanner *c, uint64_t nrows,
                 size_t max_bytes, char *err, size_t cap)
{
	rk_hb_scanspec s;
	rk_scan *sc = NULL;
	const rk_row *row;
	int st = rk_hb__scanner_parse(&s, c->model, c->model_len, err, cap);
	if (st)
		return rk__err(RK_EINVALID, "%s", err);
	if (c->pos != AT_START) {
		s.so.start = c->key;
		s.so.start_len = c->key_len;
	}
	if (s.limit)
		s.so.limit = s.limit - c->rows_done + (c->pos == AT_ROW && c->skip) +
		             (c->pos == AFTER_ROW);
	uint64_t cells = s.batch ? s.batch : UINT64_MAX, out_rows = 0;
	long bytes = 0;
	int rc = rk_scan_open(&sc, t, &s.so), first = 1, opened = rc == 0;
	while (!rc && (rc = rk_scan_next(&row, sc)) == 0) {
		int same = first && c->pos != AT_START && row->key_len == c->key_len &&
		           !memcmp(row->key, c->key, c->key_len);
		first = 0;
		if (same && c->pos == AFTER_ROW)
			continue;
		size_t from = same ? c->skip : 0;
		if (from >= row->ncells)
			continue;
		size_t take = row->ncells - from < cells ? row->ncells - from : (size_t)cells;
		long b = rk_hb__row_json(rows, row, from, take);
		if (b < 0) {
			rc = rk__err(RK_ENOMEM, "out of memory");
			break;
		}
		bytes += b;
		cells -= take;
		o->rows += from == 0;
		out_rows++;
		if (from + take < row->ncells) {
			rc = save_key(o, row, AT_ROW, from + take);
			break;
		}
		if (!cells || (nrows && out_rows == nrows) || bytes >= (long)max_bytes) {
			rc = save_key(o, row, AFTER_ROW, 0);
			break;
		}
	}
	if (rc == RK_EITEROVER) {
		o->done = 1;
		rc = 0;
	}
	if (opened)
		rk_scan_close(sc);
	rk_hb__arena_free(&s.a);
	return rc;
}

int rk_hb__scanner_next(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r)
{
	rk_hb_scanners *s = h->sc;
	size_t at;
	uint64_t nrows = 0;
	char err[256];
	if (rk_hb__arg_u64(&nrows, q, "n", UINT32_MAX, r))
		return r->status;
	pthread_mutex_lock(&s->mu);
	sweep(s, h->lim.scanner_idle_s);
	hscanner *c = find(s, p, &at);
	int busy = c && c->busy;
	if (c)
		c->busy = 1;
	pthread_mutex_unlock(&s->mu);
	if (!c)
		return rk_hb__fail(r, 404, "Not found: scanner %s (deleted, or idle past %u s)",
		                   p->scanner, h->lim.scanner_idle_s);
	if (busy)
		return rk_hb__fail(r, 409, "Conflict: scanner %s is answering another request",
		                   p->scanner);
	stop o = {0};
	rk_table *t;
	json_t *rows = json_array();
	int rc = 0;
	if (c->done)
		;
	else if (!rows)
		rc = rk__err(RK_ENOMEM, "out of memory");
	else if (rk_hb__acquire(&t, h, p->table, r))
		rc = -1;
	else {
		rc = batch(&o, rows, t, c, nrows, h->lim.max_response, err, sizeof err);
		rk_hb__release(h, p->table, t);
	}
	pthread_mutex_lock(&s->mu);
	c->busy = 0;
	c->used = time(NULL);
	if (!rc && !c->done) {
		c->rows_done += o.rows;
		c->done = o.done;
		if (!o.done) {
			free(c->key);
			c->key = o.key;
			c->key_len = o.key_len;
			c->skip = o.skip;
			c->pos = o.pos;
			o.key = NULL;
		}
	}
	if (c->deleted) { /* others may have moved it: find it again */
		for (at = 0; s->v[at] != c; at++)
			;
		s->v[at] = s->v[--s->n];
		sc_free(c);
	}
	pthread_mutex_unlock(&s->mu);
	free(o.key);
	if (rc == -1) {
		json_decref(rows);
		return r->status;
	}
	if (rc) {
		json_decref(rows);
		return rk_hb__from_store(r, rc, "scanning");
	}
	if (!json_array_size(rows)) {
		json_decref(rows);
		r->status = 204;
		return 204;
	}
	return rk_hb__model(r, RK_HB_M_CELLSET, 200, json_pack("{s:o}", "Row", rows));
}

int rk_hb__scanner_delete(rk_hb *h, const rk_hb_path *p, rk_hb_resp *r)
{
	rk_hb_scanners *s = h->sc;
	size_t at;
	pthread_mutex_lock(&s->mu);
	hscanner *c = find(s, p, &at);
	if (c && c->busy) {
		c->deleted = 1; /* the GET answering frees it */
	} else if (c) {
		s->v[at] = s->v[--s->n];
		sc_free(c);
	}
	sweep(s, h->lim.scanner_idle_s);
	pthread_mutex_unlock(&s->mu);
	return c ? rk_hb__ok(r, 200) : rk_hb__fail(r, 404, "Not found: scanner %s", p->scanner);
}
