/*
 * rk_store_collect for the local store: gives back the space of what reads
 * no longer see. LevelDB's C API has no compaction filter, so the versions
 * a family's GC rule collects (past max_versions, older than max_age) stay
 * in the engine until something deletes them; this pass does, and removes
 * the delete markers of older stores with the versions they hide (after
 * which the rows behave as in a new store: docs/store.md).
 *
 * The pass walks each region in steps of about STEP engine entries, ending
 * at a row's end. A step runs in the writer thread of the region's server
 * (rowop.h): no write to its rows can come between what it reads and what
 * it deletes, so what reads see is the same before and after. A region
 * that moves while the pass runs is left for the next pass.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/cell.h"
#include "store/local/local_int.h"
#include "store/rowasm.h"

#define STEP 4096 /* engine entries a step reads before it stops at a row's end */

/* One region of the pass: [lo, hi) in engine keys, on one server. */
typedef struct span {
	uint32_t tid;
	uint8_t *lo, *hi;
	size_t lo_len, hi_len;
	unsigned server;
} span;

typedef struct step {
	rk__opcall base;
	rk__local *s;
	const span *sp;
	const uint8_t *from; /* the first key of this step */
	size_t from_len;
	uint8_t *next;       /* where the next step starts; NULL: the span is done */
	size_t next_len, next_cap;
	size_t removed;
	rk__family *fams;    /* the table's families when the step was queued */
	size_t nfams;
} step;

static int keep_next(step *st, const uint8_t *k, size_t kl)
{
	if (kl > st->next_cap) {
		uint8_t *n = realloc(st->next, kl);
		if (!n)
			return rk__err(RK_ENOMEM, "out of memory collecting old versions");
		st->next = n;
		st->next_cap = kl;
	}
	memcpy(st->next, k, kl);
	st->next_len = kl;
	return 0;
}

/* Reads the step's rows and deletes, into out, each entry a reader skips:
 * markers, the versions they hide, the versions the GC rule collects. */
static int walk(step *st, struct rk_table *view, rk__eiter *it, rk__ebatch *out)
{
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	rk__rowbuf rb = {0};
	rk__rowasm a;
	rk_rowasm__init(&a, view, &ro, &rb);
	size_t seen = 0, row_end = 0;
	uint8_t *row = NULL;
	int rc = 0, more = 0;
	for (rk_eiter__seek(it, st->from, st->from_len); rk_eiter__valid(it); rk_eiter__next(it)) {
		size_t kl;
		const uint8_t *k = rk_eiter__key(it, &kl);
		if (!rk_local__key_lt(k, kl, st->sp->hi, st->sp->hi_len))
			break;
		rk__cellkey ck;
		if ((rc = rk_cell__decode(&ck, k, kl)) != 0)
			break;
		if (!row || ck.row_part_end != row_end || memcmp(row, k, row_end) != 0) {
			if (seen >= STEP) { /* a new row: a step ends here */
				more = 1;
				rc = keep_next(st, k, kl);
				break;
			}
			free(row);
			if (!(row = malloc(ck.row_part_end))) {
				rc = rk__err(RK_ENOMEM, "out of memory collecting old versions");
				break;
			}
			memcpy(row, k, ck.row_part_end);
			row_end = ck.row_part_end;
			if ((rc = rk_rowasm__begin(&a, NULL, 0)) != 0)
				break;
		}
		seen++;
		int v = rk_rowasm__verdict(&a, &ck);
		if (v < 0) {
			rc = v;
			break;
		}
		if (v == RK_VIS_MARKER || v == RK_VIS_MASKED || v == RK_VIS_COLLECTED) {
			rk_ebatch__del(out, k, kl);
			st->removed++;
		}
	}
	if (!rc)
		rc = rk_eiter__status(it);
	if (!more) {
		free(st->next);
		st->next = NULL;
		st->next_cap = 0;
	}
	free(row);
	rk_rowasm__fini(&a);
	rk_rowbuf__fini(&rb);
	return rc;
}

/* The writer's part, with the table's families as they were when the step
 * was queued (the writer must not take the meta lock: a family drop holds
 * it while it waits for the writers). A rule changed meanwhile applies from
 * the next step: what the old rule collected is gone, as with Bigtable's
 * lazy collection. */
static int step_run(rk__opcall *c, rk__engine *e, struct rk__wreq *req, rk__ebatch *out)
{
	(void)req;
	step *st = (step *)c;
	struct rk_table view = {&st->s->base, "", st->fams, st->nfams, 0};
	rk__eiter *it = rk_eiter__take(e);
	if (!it)
		return rk__err(RK_ENOMEM, "out of memory collecting old versions");
	int rc = walk(st, &view, it, out);
	rk_eiter__give_back(it);
	return rc;
}

/* A copy of table tid's families into st (0 families: dropped meanwhile). */
static int copy_families(step *st, uint32_t tid)
{
	rk__local *s = st->s;
	int rc = 0;
	rk_store__families_free(st->fams, st->nfams);
	st->fams = NULL;
	st->nfams = 0;
	pthread_rwlock_rdlock(&s->lock);
	const rk__tmeta *t = rk_meta__table_by_id(&s->meta, tid);
	if (t && t->nfamilies) {
		if (!(st->fams = calloc(t->nfamilies, sizeof *st->fams)))
			rc = rk__err(RK_ENOMEM, "out of memory collecting old versions");
		for (size_t i = 0; !rc && i < t->nfamilies; i++) {
			st->fams[i] = t->families[i];
			st->nfams = i + 1;
			if (t->families[i].gc && !(st->fams[i].gc = rk_gc__dup(t->families[i].gc)))
				rc = RK_ENOMEM;
		}
	}
	pthread_rwlock_unlock(&s->lock);
	return rc;
}

/* Runs one step on the span's server and waits for it. */
static int run_step(rk__local *s, step *st)
{
	rk__wreq req;
	rk__wdone done;
	int rc = copy_families(st, st->sp->tid);
	if (rc || !st->nfams) {
		free(st->next);
		st->next = NULL;
		return rc;
	}
	memset(&req, 0, sizeof req);
	rk_wdone__init(&done);
	if (!(rc = rk_wops__add_call(&req.ops, &st->base))) {
		done.pending = 1;
		req.done = &done;
		req.sync = s->opts.durability == RK_DURABILITY_SYNC;
		rk_server__submit(&s->servers[st->sp->server], &req);
		rk_wdone__wait(&done);
		rc = req.status;
	}
	rk_wops__fini(&req.ops);
	rk_wdone__fini(&done);
	return rc;
}

static void spans_free(span *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].lo);
		free(v[i].hi);
	}
	free(v);
}

/* Every region of every table, as the meta map has them now. */
static int spans_of(span **out, size_t *count, rk__local *s)
{
	size_t n = 0, cap = 0;
	span *v = NULL;
	int rc = 0;
	pthread_rwlock_rdlock(&s->lock);
	for (size_t i = 0; i < s->meta.ntables && !rc; i++) {
		const rk__tmeta *t = s->meta.tables[i];
		for (size_t k = 0; k < t->nregions && !rc; k++) {
			const rk__region *r = t->regions[k];
			if (n == cap) {
				span *nv = realloc(v, (cap = cap * 2 + 16) * sizeof *nv);
				if (!nv) {
					rc = rk__err(RK_ENOMEM, "out of memory listing regions");
					break;
				}
				v = nv;
			}
			span *p = &v[n++];
			*p = (span){t->id, malloc(4 + 2 * r->start_len + 2),
			            malloc(4 + 2 * (r->end ? r->end_len : 0) + 2), 0, 0, r->server};
			if (!p->lo || !p->hi) {
				rc = rk__err(RK_ENOMEM, "out of memory listing regions");
				break;
			}
			p->lo_len = rk_cell__row_bound(p->lo, t->id, r->start, r->start_len, 0);
			p->hi_len = rk_cell__row_bound(p->hi, t->id, r->end, r->end ? r->end_len : 0,
			                               !r->end);
		}
	}
	pthread_rwlock_unlock(&s->lock);
	if (rc) {
		spans_free(v, n);
		return rc;
	}
	*out = v;
	*count = n;
	return 0;
}

int rk_local__collect(size_t *out, rk_store *st)
{
	rk__local *s = (rk__local *)st;
	span *v;
	size_t n;
	int rc = spans_of(&v, &n, s);
	if (rc)
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		step sp = {{step_run}, s, &v[i], v[i].lo, v[i].lo_len, NULL, 0, 0, 0, NULL, 0};
		do {
			sp.removed = 0;
			rc = run_step(s, &sp);
			*out += sp.removed;
			if (sp.next) {
				/* the next step starts at the key this one stopped on */
				uint8_t *from = malloc(sp.next_len);
				if (!from) {
					rc = rk__err(RK_ENOMEM, "out of memory collecting old versions");
					break;
				}
				memcpy(from, sp.next, sp.next_len);
				if (sp.from != v[i].lo)
					free((uint8_t *)sp.from);
				sp.from = from;
				sp.from_len = sp.next_len;
			}
		} while (!rc && sp.next);
		if (sp.from != v[i].lo)
			free((uint8_t *)sp.from);
		free(sp.next);
		rk_store__families_free(sp.fams, sp.nfams);
	}
	spans_free(v, n);
	return rc;
}
