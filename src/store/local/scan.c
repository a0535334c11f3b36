/*
 * The local backend's scans. A scan walks the table's regions one segment
 * at a time: for the region holding its cursor it opens an iterator of that
 * region's server engine bounded to the region (or to the scan's stop),
 * reads rows from it, and at the segment's end moves the cursor to the next
 * region's start (the previous one's, reverse). The region is looked up
 * again under the meta lock at each segment, so a scan crosses splits and
 * moves made while it runs: a split leaves the cursor inside one of the
 * halves; a move's old copy stays readable through the iterator's snapshot.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/cell.h"
#include "store/local/local_int.h"
#include "store/rowasm.h"

/* A forward scan reads up to SCAN_AHEAD rows (SCAN_AHEAD_BYTES of them at
 * most) and looks at the iterator's read error once for all of them before
 * handing any out: that look asks every level of the engine, and it costs
 * as much as the rest of a small row's read. Rows read after a damaged
 * block are still never handed out: the whole batch is dropped for the
 * error. */
#define SCAN_AHEAD 32
#define SCAN_AHEAD_BYTES (256u << 10)
/* a row buffer past this size is freed before its slot is read into again */
#define SCAN_BUF_KEEP (1u << 20)

typedef struct rk__lscan {
	struct rk_scan base;
	rk__local *st;
	rk__ltable *lt;
	uint8_t *start, *stop;
	size_t start_len, stop_len;
	int reverse;
	uint64_t limit, returned;
	rk_read_options ro;
	rk_column *cols;
	/* cursor: forward, the next row >= resume; reverse, rows < resume */
	uint8_t *resume;
	size_t resume_len, resume_cap;
	int resume_set, done;
	rk__eiter *it;
	rk__region *region;
	unsigned server; /* the segment's server */
	uint8_t *seg_lo, *seg_hi;
	size_t seg_lo_len, seg_hi_len, seg_lo_cap, seg_hi_cap;
	int final; /* this segment ends the scan */
	uint8_t *rowkey, *rowend;
	size_t rowkey_len, rowkey_cap, rowend_len, rowend_cap;
	const uint8_t *next_k; /* forward: the key read_row stopped on, if have_next */
	size_t next_kl;
	int have_next;
	uint8_t fam_part[RK_MAX_FAMILY_LEN + 2]; /* escaped family + 00 01 of the last cell */
	size_t fam_part_len;                     /* 0: none yet */
	uint64_t m_cells, m_bytes, m_rows; /* read counters not yet added to metrics */
	rk__kvacc kv;                      /* rows read by key bucket, not yet counted */
	rk__rowbuf bufs[SCAN_AHEAD]; /* rows read ahead, [qhead, qn) not handed out yet */
	size_t qhead, qn;
	int q_rc; /* an error met reading ahead, returned after the rows before it */
	rk__rowasm a;
} rk__lscan;

static int set_resume(rk__lscan *sc, const uint8_t *row, size_t len)
{
	int rc = rk_local__grow(&sc->resume, &sc->resume_cap, len + 1);
	if (rc)
		return rc;
	if (len)
		memcpy(sc->resume, row, len);
	sc->resume_len = len;
	sc->resume_set = 1;
	return 0;
}

static int set_bound(uint8_t **buf, size_t *cap, size_t *len, uint32_t tid, const uint8_t *row,
                     size_t rl, int unbounded)
{
	int rc = rk_local__grow(buf, cap, 4 + 2 * rl + 2);
	if (rc)
		return rc;
	*len = rk_cell__row_bound(*buf, tid, rl ? row : NULL, rl, unbounded);
	return 0;
}

static int copy_bytes(uint8_t **dst, const uint8_t *src, size_t len)
{
	if (!src || !len) {
		*dst = NULL;
		return 0;
	}
	if (!(*dst = malloc(len)))
		return rk__err(RK_ENOMEM, "out of memory opening a scan");
	memcpy(*dst, src, len);
	return 0;
}

/* Adds the segment's pending read counters to its region and server. */
static void flush_scan_metrics(rk__lscan *sc)
{
	if (!sc->m_cells)
		return;
	int64_t now = rk_metrics__now_ms();
	unsigned b = sc->st->opts.metrics_bucket_ms;
	rk_metrics__add(&sc->region->metrics, now, b, sc->server, 0, sc->m_cells, 0, sc->m_bytes);
	rk_metrics__add(&sc->st->servers[sc->server].metrics, now, b, sc->server, 0, sc->m_cells, 0,
	                sc->m_bytes);
	rk_server__admit_read(&sc->st->servers[sc->server], 0, sc->m_bytes);
	rk_kvacc__commit(&sc->kv, now);
	sc->m_cells = sc->m_bytes = sc->m_rows = 0;
}

void rk_local__scan_close(rk_scan *base)
{
	rk__lscan *sc = (rk__lscan *)base;
	if (sc->region)
		flush_scan_metrics(sc);
	rk_eiter__free(sc->it);
	rk_kvacc__fini(&sc->kv);
	for (size_t i = 0; sc->cols && i < sc->ro.ncolumns; i++) {
		free((char *)sc->cols[i].family);
		free((uint8_t *)sc->cols[i].qualifier);
	}
	free(sc->cols);
	free(sc->start);
	free(sc->stop);
	free(sc->resume);
	free(sc->seg_lo);
	free(sc->seg_hi);
	free(sc->rowkey);
	free(sc->rowend);
	rk_rowasm__fini(&sc->a);
	for (size_t i = 0; i < SCAN_AHEAD; i++)
		rk_rowbuf__fini(&sc->bufs[i]);
	free(sc);
}

int rk_local__scan_open(rk_scan **out, rk_table *tb, const rk_scan_options *so)
{
	rk__ltable *lt = (rk__ltable *)tb;
	rk__lscan *sc = calloc(1, sizeof *sc);
	int rc;
	if (!sc)
		return rk__err(RK_ENOMEM, "table %s: out of memory opening a scan", tb->name);
	sc->base.table = tb;
	sc->st = lt->st;
	sc->lt = lt;
	sc->reverse = so->reverse;
	sc->limit = so->limit;
	sc->ro = so->read;
	if ((rc = copy_bytes(&sc->start, so->start, so->start_len)) != 0 ||
	    (rc = copy_bytes(&sc->stop, so->stop, so->stop_len)) != 0)
		goto fail;
	sc->start_len = sc->start ? so->start_len : 0;
	sc->stop_len = sc->stop ? so->stop_len : 0;
	if (so->read.ncolumns) {
		sc->cols = calloc(so->read.ncolumns, sizeof *sc->cols);
		if (!sc->cols) {
			rc = rk__err(RK_ENOMEM, "out of memory opening a scan");
			goto fail;
		}
		for (size_t i = 0; i < so->read.ncolumns; i++) {
			const rk_column *c = &so->read.columns[i];
			sc->cols[i].family = strdup(c->family);
			if (!sc->cols[i].family) {
				rc = rk__err(RK_ENOMEM, "out of memory opening a scan");
				goto fail;
			}
			if (c->qualifier) {
				uint8_t *q = malloc(c->qualifier_len + 1);
				if (!q) {
					rc = rk__err(RK_ENOMEM, "out of memory opening a scan");
					goto fail;
				}
				memcpy(q, c->qualifier, c->qualifier_len);
				sc->cols[i].qualifier = q;
				sc->cols[i].qualifier_len = c->qualifier_len;
			}
		}
		sc->ro.columns = sc->cols;
	}
	rk_rowasm__init(&sc->a, tb, &sc->ro, &sc->bufs[0]);
	if (sc->stop_len && rk_meta__row_cmp(sc->start, sc->start_len, sc->stop, sc->stop_len) >= 0)
		sc->done = 1;
	if (!sc->reverse)
		rc = set_resume(sc, sc->start, sc->start_len);
	else if (sc->stop_len)
		rc = set_resume(sc, sc->stop, sc->stop_len);
	if (rc)
		goto fail;
	*out = &sc->base;
	return 0;
fail:
	rk_local__scan_close(&sc->base);
	return rc;
}

/* Opens the engine iterator for the region holding the cursor. */
static int open_segment(rk__lscan *sc)
{
	rk__local *s = sc->st;
	rk__tmeta *t = sc->lt->tm;
	int rc = 0;
	pthread_rwlock_rdlock(&s->lock);
	rk__region *r;
	if (!sc->reverse) {
		r = rk_meta__lookup(t, sc->resume, sc->resume_len);
	} else if (!sc->resume_set) {
		r = t->regions[t->nregions - 1];
	} else {
		size_t i = rk_meta__lookup_index(t, sc->resume, sc->resume_len);
		if (i > 0 && !rk_meta__row_cmp(t->regions[i]->start, t->regions[i]->start_len,
		                               sc->resume, sc->resume_len))
			i--;
		r = t->regions[i];
	}
	sc->region = r;
	sc->server = r->server;
	sc->it = rk_eiter__new(s->servers[r->server].engine);
	if (!sc->reverse) {
		rc = set_bound(&sc->seg_lo, &sc->seg_lo_cap, &sc->seg_lo_len, t->id, sc->resume,
		               sc->resume_len, 0);
		if (!rc && sc->stop_len &&
		    (!r->end || rk_meta__row_cmp(sc->stop, sc->stop_len, r->end, r->end_len) <= 0)) {
			sc->final = 1;
			rc = set_bound(&sc->seg_hi, &sc->seg_hi_cap, &sc->seg_hi_len, t->id, sc->stop,
			               sc->stop_len, 0);
		} else if (!rc) {
			sc->final = r->end == NULL;
			rc = set_bound(&sc->seg_hi, &sc->seg_hi_cap, &sc->seg_hi_len, t->id, r->end,
			               r->end_len, r->end == NULL);
			if (!rc && r->end)
				rc = set_resume(sc, r->end, r->end_len);
		}
	} else {
		if (sc->resume_set)
			rc = set_bound(&sc->seg_hi, &sc->seg_hi_cap, &sc->seg_hi_len, t->id, sc->resume,
			               sc->resume_len, 0);
		else
			rc = set_bound(&sc->seg_hi, &sc->seg_hi_cap, &sc->seg_hi_len, t->id, NULL, 0, 1);
		if (!rc && sc->start_len &&
		    rk_meta__row_cmp(sc->start, sc->start_len, r->start, r->start_len) >= 0) {
			sc->final = 1;
			rc = set_bound(&sc->seg_lo, &sc->seg_lo_cap, &sc->seg_lo_len, t->id, sc->start,
			               sc->start_len, 0);
		} else if (!rc) {
			sc->final = r->start_len == 0;
			rc = set_bound(&sc->seg_lo, &sc->seg_lo_cap, &sc->seg_lo_len, t->id, r->start,
			               r->start_len, 0);
			if (!rc)
				rc = set_resume(sc, r->start, r->start_len);
		}
	}
	pthread_rwlock_unlock(&s->lock);
	if (rc)
		return rc;
	rk_server__admit_read(&s->servers[sc->server], 1, 0); /* one region visited */
	if (!sc->reverse) {
		rk_eiter__seek(sc->it, sc->seg_lo, sc->seg_lo_len);
	} else {
		rk_eiter__seek(sc->it, sc->seg_hi, sc->seg_hi_len);
		if (rk_eiter__valid(sc->it))
			rk_eiter__prev(sc->it);
		else
			rk_eiter__seek_last(sc->it);
	}
	return 0;
}

/* The segment iterator's read error, named after table and region, or 0.
 * LevelDB's iterator steps over a block it cannot read (a checksum
 * mismatch) to the next one and only records the error, so the error must
 * be looked at before any row read after a move is trusted: else a limited
 * or reverse scan, or any scan before its end, returns the rows around the
 * damage without the damaged block's rows and without a word. */
static int segment_error(rk__lscan *sc)
{
	int rc = rk_eiter__status(sc->it);
	return rc ? rk__err_wrap(rc, "table %s: region %llu", sc->lt->base.name,
	                         (unsigned long long)sc->region->id)
	          : 0;
}

static int end_segment(rk__lscan *sc)
{
	flush_scan_metrics(sc);
	int rc = segment_error(sc);
	rk_eiter__free(sc->it);
	sc->it = NULL;
	if (rc)
		return rc;
	if (sc->final)
		sc->done = 1;
	return 0;
}

/* Reads the row whose first cell the iterator is on (forward; k, kl: that
 * cell's key), leaving the iterator on the first cell after the row and
 * *nk, *nkl on its key (NULL at the end). One pass over the row part decodes
 * and unescapes it straight into the row buffer; later cells of the row are
 * recognised by their row part's bytes and only their rest is decoded. */
static int read_row(rk__lscan *sc, const uint8_t *k, size_t kl, const uint8_t **nk, size_t *nkl)
{
	int rc;
	rk__cellkey ck;
	size_t rl;
	uint8_t *dst = rk_rowasm__begin_raw(&sc->a, kl + 8);
	if (!dst)
		return RK_ENOMEM;
	if ((rc = rk_cell__decode_row_unesc(&ck, k, kl, dst, &rl)) != 0)
		return rk__err_wrap(rc, "table %s: region %llu", sc->lt->base.name,
		                    (unsigned long long)sc->region->id);
	rk_rowasm__set_key_len(&sc->a, rl);
	size_t pl = ck.row_part_end;
	if ((rc = rk_local__grow(&sc->rowkey, &sc->rowkey_cap, pl)) != 0)
		return rc;
	memcpy(sc->rowkey, k, pl);
	sc->rowkey_len = pl;
	for (;;) {
		size_t vl;
		const uint8_t *v = rk_eiter__value(sc->it, &vl);
		ck.row = k + 4;
		size_t fp = sc->fam_part_len;
		if (fp && kl > pl + fp && !memcmp(k + pl, sc->fam_part, fp)) {
			/* the family of the cell before: only its tail to decode */
			ck.family = sc->fam_part;
			ck.family_len = fp - 2;
			rc = rk_cell__decode_rest_same_family(&ck, k, kl);
		} else if ((rc = rk_cell__decode_rest(&ck, k, kl)) == 0 &&
		           ck.family_len + 2 <= sizeof sc->fam_part) {
			sc->fam_part_len = ck.family_len + 2;
			memcpy(sc->fam_part, k + pl, sc->fam_part_len);
		}
		if (rc)
			return rk__err_wrap(rc, "table %s: region %llu", sc->lt->base.name,
			                    (unsigned long long)sc->region->id);
		if ((rc = rk_rowasm__add(&sc->a, &ck, v, vl)) != 0)
			return rc;
		rk_eiter__next(sc->it);
		if (!rk_eiter__valid(sc->it)) {
			k = NULL;
			break;
		}
		k = rk_eiter__key(sc->it, &kl);
		if (kl < pl || memcmp(k, sc->rowkey, pl))
			break;
	}
	*nk = k;
	*nkl = k ? kl : 0;
	return 0;
}

/* Reads backwards the row whose last cell is k (the first met going
 * backwards): goes to the row's first cell, reads the row forward, then
 * steps to just before it. */
static int read_row_backward(rk__lscan *sc, const uint8_t *k, size_t kl)
{
	rk__cellkey ck;
	const uint8_t *nk;
	size_t nkl;
	int rc;
	if ((rc = rk_cell__decode_row(&ck, k, kl)) != 0)
		return rk__err_wrap(rc, "table %s: region %llu", sc->lt->base.name,
		                    (unsigned long long)sc->region->id);
	size_t pl = ck.row_part_end;
	if ((rc = rk_local__grow(&sc->rowend, &sc->rowend_cap, pl)) != 0)
		return rc;
	memcpy(sc->rowend, k, pl);
	sc->rowend_len = pl;
	rk_eiter__seek(sc->it, sc->rowend, sc->rowend_len);
	if ((rc = segment_error(sc)) != 0)
		return rc;
	if (!rk_eiter__valid(sc->it))
		return rk__err(RK_EIO, "table %s: region %llu: a row read backwards vanished "
		               "from the scan's snapshot", sc->lt->base.name,
		               (unsigned long long)sc->region->id);
	k = rk_eiter__key(sc->it, &kl);
	if ((rc = read_row(sc, k, kl, &nk, &nkl)) != 0)
		return rc;
	rk_eiter__seek(sc->it, sc->rowend, sc->rowend_len);
	if (rk_eiter__valid(sc->it))
		rk_eiter__prev(sc->it);
	return 0;
}

/* A row of nc cells handed out: into the scan's metrics, and the key
 * visualizer's when it runs. */
static void count_row(rk__lscan *sc, const rk__rowbuf *b, size_t nc)
{
	sc->m_cells += nc;
	uint64_t rb = rk_rowbuf__bytes(b);
	sc->m_bytes += rb;
	if (sc->lt->tm->kv)
		rk_kvacc__add(&sc->kv, sc->lt->tm->kv, b->row.key, b->row.key_len,
		              &(rk_metrics_counts){0, 1, 0, rb}, 0);
	/* counted every 4096 rows, and when a key-bucket interval ends */
	if (++sc->m_rows >= 4096 ||
	    (!(sc->m_rows & 255) && sc->kv.t && rk_metrics__now_ms() >= sc->kv.until))
		flush_scan_metrics(sc);
}

/* The key the iterator is on for the next row of the segment, or NULL at
 * the segment's end. */
static const uint8_t *next_key(rk__lscan *sc, size_t *kl)
{
	const uint8_t *k;
	if (sc->have_next) {
		/* the key read_row stopped on: the iterator has not moved since */
		k = sc->next_k;
		*kl = sc->next_kl;
		sc->have_next = 0;
	} else {
		k = rk_eiter__valid(sc->it) ? rk_eiter__key(sc->it, kl) : NULL;
	}
	if (!k || (!sc->reverse && !rk_local__key_lt(k, *kl, sc->seg_hi, sc->seg_hi_len)) ||
	    (sc->reverse && rk_local__key_lt(k, *kl, sc->seg_lo, sc->seg_lo_len)))
		return NULL;
	return k;
}

/* Reads the segment's next rows into bufs[0, qn): up to SCAN_AHEAD forward
 * (one reverse), within the scan's limit. *ended: the segment has no more
 * rows. A read error of the iterator drops every row read. */
static int read_ahead(rk__lscan *sc, int *ended)
{
	size_t want = sc->reverse ? 1 : SCAN_AHEAD, bytes = 0;
	int rc = 0;
	if (sc->limit && sc->limit - sc->returned < want)
		want = (size_t)(sc->limit - sc->returned);
	for (size_t i = 1; i < sc->qn; i++)
		if (sc->bufs[i].cap > SCAN_BUF_KEEP)
			rk_rowbuf__fini(&sc->bufs[i]);
	sc->qn = sc->qhead = 0;
	*ended = 0;
	while (sc->qn < want && bytes < SCAN_AHEAD_BYTES) {
		size_t kl;
		const uint8_t *k = next_key(sc, &kl);
		if (!k) {
			*ended = 1;
			break;
		}
		rk__rowbuf *b = &sc->bufs[sc->qn];
		sc->a.out = b;
		if (!sc->reverse) {
			if ((rc = read_row(sc, k, kl, &sc->next_k, &sc->next_kl)) != 0)
				break;
			sc->have_next = 1;
		} else if ((rc = read_row_backward(sc, k, kl)) != 0) {
			break;
		}
		if (rk_rowasm__finish(&sc->a)) {
			sc->qn++;
			bytes += b->len;
		}
	}
	/* every move since the last look, up to the cell after the last row */
	int se = segment_error(sc);
	if (se) {
		sc->qn = 0;
		return se;
	}
	if (rc && sc->qn == 0)
		return rc;
	sc->q_rc = rc;
	return 0;
}

int rk_local__scan_next(const rk_row **out, rk_scan *base)
{
	rk__lscan *sc = (rk__lscan *)base;
	int rc, ended;
	for (;;) {
		if (sc->qhead < sc->qn) {
			rk__rowbuf *b = &sc->bufs[sc->qhead++];
			count_row(sc, b, b->row.ncells);
			sc->returned++;
			*out = &b->row;
			return 0;
		}
		if (sc->q_rc) {
			rc = sc->q_rc;
			sc->q_rc = 0;
			return rc;
		}
		if (sc->limit && sc->returned >= sc->limit)
			return RK_EITEROVER;
		if (!sc->it) {
			if (sc->done)
				return RK_EITEROVER;
			if (sc->reverse && sc->resume_set && sc->resume_len == 0)
				return RK_EITEROVER;
			if ((rc = open_segment(sc)) != 0)
				return rc;
			sc->have_next = 0;
		}
		if ((rc = read_ahead(sc, &ended)) != 0)
			return rc;
		/* the segment ends once its rows read ahead are handed out (they
		   count against its region) */
		if (ended && sc->qn == 0 && (rc = end_segment(sc)) != 0)
			return rc;
	}
}
