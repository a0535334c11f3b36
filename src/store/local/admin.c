/*
 * The local backend's region administration: splits, moves, the balancer,
 * and the region and server listings.
 *
 * A split is a metadata switch under the meta write lock; the middle key is
 * found beforehand from an engine snapshot, without locks (split.c holds
 * the policy: when and where). Regions that grow past their limit are
 * queued by the writer threads (rk_local__region_grew) for the background
 * splitter, or, on a store opened without it, for rk_store_split_due. A
 * move blocks writes to the one region, copies its range to the new server,
 * switches meta and deletes the old copy; readers that looked the region up
 * before the switch hold engine snapshots. The balancer follows balance.h's
 * policy until no move is left.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/local/balance.h"
#include "store/local/local_int.h"
#include "store/local/split.h"

/* ---- splits ---- */

/* Writer-thread hook: a region grew; queue it for a split check. */
void rk_local__region_grew(void *payload, rk__region *r)
{
	rk__local *s = payload;
	if (!s->splits_on)
		return;
	if (atomic_load_explicit(&r->size, memory_order_relaxed) <=
	    atomic_load_explicit(&r->split_at_size, memory_order_relaxed))
		return;
	int expected = 0;
	if (!atomic_compare_exchange_strong(&r->split_pending, &expected, 1))
		return;
	pthread_mutex_lock(&s->split_mu);
	if (s->nsplit_q == s->cap_split_q) {
		size_t n = s->cap_split_q ? s->cap_split_q * 2 : 16;
		rk__region **q = realloc(s->split_q, n * sizeof *q);
		if (!q) {
			atomic_store(&r->split_pending, 0);
			pthread_mutex_unlock(&s->split_mu);
			return;
		}
		s->split_q = q;
		s->cap_split_q = n;
	}
	s->split_q[s->nsplit_q++] = r;
	pthread_cond_signal(&s->split_cv);
	pthread_mutex_unlock(&s->split_mu);
}

/* Where region r splits, into point: at `at` when it is strictly inside
 * (and on a bucket boundary when the table has L-byte buckets), the bytes
 * before it taken as half; else (at NULL) at its middle key, read through
 * it (freed here), rounded to a bucket boundary. */
static int split_point(uint8_t *point, size_t *point_len, uint64_t *left, uint64_t *total,
                       const rk__region *r, unsigned L, const uint8_t *at, size_t at_len,
                       rk__eiter *it)
{
	uint8_t *mid = NULL;
	size_t mid_len = 0;
	char b1[200];
	int rc;
	if (at) {
		if (!rk_split__valid_point(r, at, at_len, L))
			return rk__err(RK_EINVALID,
			               "table %s: region %llu: split row '%s' is not strictly inside the "
			               "region%s",
			               r->table->name, (unsigned long long)r->id,
			               rk__err_bytes(b1, sizeof b1, at, at_len),
			               L ? " or not on a bucket boundary" : "");
		memcpy(point, at, at_len);
		*point_len = at_len;
		*left = *total / 2;
		return 0;
	}
	rc = rk_split__middle(&mid, &mid_len, left, total, it, r);
	rk_eiter__free(it);
	if (rc && rc != RK_ENOTFOUND)
		return rk__err_wrap(rc, "table %s: region %llu: looking for its middle key",
		                    r->table->name, (unsigned long long)r->id);
	if (rc)
		return rc;
	if (!rk_split__round(point, point_len, mid, mid_len, r->start, r->start_len, r->end,
	                     r->end_len, L)) {
		free(mid);
		return rk__err(RK_ENOTFOUND,
		               "table %s: region %llu holds no bucket boundary to split at",
		               r->table->name, (unsigned long long)r->id);
	}
	free(mid);
	return 0;
}

/* Splits region r at `at` (NULL: its middle key). RK_EBUSY when the region
 * changed meanwhile (retired, moving, moved); RK_ENOTFOUND when it cannot be
 * split (one row, or no bucket boundary inside). */
static int split_region(rk__local *s, rk__region *r, const uint8_t *at, size_t at_len)
{
	uint8_t point[RK_MAX_ROW_LEN];
	size_t point_len = 0;
	uint64_t left = 0, total = atomic_load(&r->size);
	int rc = 0;

	pthread_rwlock_rdlock(&s->lock);
	if (atomic_load(&r->retired) || atomic_load(&r->moving)) {
		pthread_rwlock_unlock(&s->lock);
		return rk__err(RK_EBUSY, "region %llu changed while splitting; retry",
		               (unsigned long long)r->id);
	}
	unsigned srv = r->server, L = r->table->bucket_prefix_len;
	rk__eiter *it = at ? NULL : rk_eiter__new(s->servers[srv].engine);
	pthread_rwlock_unlock(&s->lock);

	if ((rc = split_point(point, &point_len, &left, &total, r, L, at, at_len, it)) != 0)
		return rc;

	pthread_rwlock_wrlock(&s->lock);
	if (atomic_load(&r->retired) || atomic_load(&r->moving) || r->server != srv) {
		pthread_rwlock_unlock(&s->lock);
		return rk__err(RK_EBUSY, "region %llu changed while splitting; retry",
		               (unsigned long long)r->id);
	}
	rk__tmeta *t = r->table;
	size_t i = rk_meta__lookup_index(t, r->start, r->start_len);
	rk__region *a = NULL, *b = NULL;
	if (t->regions[i] != r)
		rc = rk__err(RK_EBUSY, "region %llu changed while splitting; retry",
		             (unsigned long long)r->id);
	else
		rc = rk_split__apply(&a, &b, &s->meta, t, i, point, point_len, left, total,
		                     s->opts.split_threshold);
	if (rc) {
		pthread_rwlock_unlock(&s->lock);
		return rc;
	}
	a->born_ms = b->born_ms = rk_metrics__now_ms();
	uint8_t *buf;
	size_t len;
	uint64_t seq;
	rc = rk_local__meta_snapshot(s, &buf, &len, &seq);
	pthread_rwlock_unlock(&s->lock);
	if (rc)
		return rc;
	if ((rc = rk_local__meta_persist(s, buf, len, seq)) != 0)
		return rc;
	/* a half still over its limit splits again, as in HBase, without waiting
	   for another write to notice (a load that stops would leave it too big) */
	rk_local__region_grew(s, a);
	rk_local__region_grew(s, b);
	return 0;
}

/* Looks at one queued region under the split policy: splits it when it is
 * still past its limit, else records the limit it must pass next. Returns 1
 * when it split; *err gets a failure other than "no split point" or "the
 * region changed" (a read error over a damaged block), 0 otherwise. */
static int split_queued(rk__local *s, rk__region *r, int *err)
{
	*err = 0;
	int split = 0;
	pthread_rwlock_rdlock(&s->lock);
	int gone = atomic_load(&r->retired);
	uint64_t lim = gone ? 0
	                    : rk_split__limit(s->opts.split_threshold,
	                                      rk_meta__regions_on_server(r->table, r->server));
	pthread_rwlock_unlock(&s->lock);
	uint64_t size = atomic_load(&r->size);
	if (gone)
		return 0;
	if (size <= lim) {
		atomic_store(&r->split_at_size, lim);
	} else {
		int rc = split_region(s, r, NULL, 0);
		split = rc == 0;
		if (rc == RK_ENOTFOUND || (rc && rc != RK_EBUSY))
			atomic_store(&r->split_at_size, size * 2); /* try again much later */
		if (rc && rc != RK_ENOTFOUND && rc != RK_EBUSY)
			*err = rc;
	}
	atomic_store(&r->split_pending, 0);
	return split;
}

void *rk_local__splitter_main(void *arg)
{
	rk__local *s = arg;
	pthread_mutex_lock(&s->split_mu);
	for (;;) {
		while (!s->nsplit_q && !s->split_stop)
			pthread_cond_wait(&s->split_cv, &s->split_mu);
		if (s->split_stop)
			break;
		rk__region *r = s->split_q[--s->nsplit_q];
		s->split_busy = 1;
		pthread_mutex_unlock(&s->split_mu);
		/* a failure has no caller here: the reads that meet it report it */
		int err;
		split_queued(s, r, &err);
		pthread_mutex_lock(&s->split_mu);
		s->split_busy = 0;
		pthread_cond_broadcast(&s->split_cv);
	}
	pthread_mutex_unlock(&s->split_mu);
	return NULL;
}

/* The queue drained in the caller's thread (a split's halves still over
 * their limit join the queue and are taken too). A split that fails on a
 * read (its middle key is looked for over a damaged block) ends the drain
 * with that error, naming the file: the caller's regions would otherwise
 * stop splitting without a word. */
int rk_local__split_due(size_t *out, rk_store *st)
{
	rk__local *s = (rk__local *)st;
	for (;;) {
		pthread_mutex_lock(&s->split_mu);
		rk__region *r = s->nsplit_q ? s->split_q[--s->nsplit_q] : NULL;
		pthread_mutex_unlock(&s->split_mu);
		if (!r)
			return 0;
		int err;
		*out += (size_t)split_queued(s, r, &err);
		if (err)
			return err;
	}
}

void rk_local__splitter_stop(rk__local *s)
{
	if (!s->split_started)
		return;
	pthread_mutex_lock(&s->split_mu);
	s->split_stop = 1;
	pthread_cond_broadcast(&s->split_cv);
	pthread_mutex_unlock(&s->split_mu);
	pthread_join(s->split_thread, NULL);
	s->split_started = 0;
}

/* ---- regions, servers, moves ---- */

int rk_local__regions(rk_region_info **out, size_t *count, rk_store *st, const char *table)
{
	rk__local *s = (rk__local *)st;
	int rc = 0;
	size_t n = 0, k = 0;
	pthread_rwlock_rdlock(&s->lock);
	if (table && !rk_meta__table(&s->meta, table)) {
		rc = rk__err(RK_ENOTFOUND, "table %s does not exist in %s", table, s->dir);
		goto out;
	}
	for (size_t i = 0; i < s->meta.ntables; i++)
		if (!table || !strcmp(table, s->meta.tables[i]->name))
			n += s->meta.tables[i]->nregions;
	rk_region_info *a = calloc(n ? n : 1, sizeof *a);
	if (!a)
		goto nomem;
	for (size_t i = 0; i < s->meta.ntables; i++) {
		const rk__tmeta *t = s->meta.tables[i];
		if (table && strcmp(table, t->name))
			continue;
		for (size_t j = 0; j < t->nregions; j++, k++) {
			const rk__region *r = t->regions[j];
			rk_region_info *o = &a[k];
			o->id = r->id;
			o->table = strdup(t->name);
			o->start = malloc(r->start_len + 1);
			if (!o->table || !o->start || (r->end && !(o->end = malloc(r->end_len + 1)))) {
				rk_region_info_free(a, k + 1);
				goto nomem;
			}
			memcpy(o->start, r->start, r->start_len);
			o->start_len = r->start_len;
			if (r->end) {
				memcpy(o->end, r->end, r->end_len);
				o->end_len = r->end_len;
			}
			o->server = r->server;
			o->size_bytes = atomic_load(&r->size);
			o->writes = atomic_load(&r->metrics.total[RK_M_WRITES]);
			o->reads = atomic_load(&r->metrics.total[RK_M_READS]);
			o->bytes_written = atomic_load(&r->metrics.total[RK_M_BWRITTEN]);
			o->bytes_read = atomic_load(&r->metrics.total[RK_M_BREAD]);
		}
	}
	*out = a;
	*count = n;
	goto out;
nomem:
	rc = rk__err(RK_ENOMEM, "out of memory listing regions");
out:
	pthread_rwlock_unlock(&s->lock);
	return rc;
}

int rk_local__servers(rk_server_info **out, size_t *count, rk_store *st)
{
	rk__local *s = (rk__local *)st;
	rk_server_info *a = calloc(s->nservers, sizeof *a);
	if (!a)
		return rk__err(RK_ENOMEM, "out of memory listing servers");
	pthread_rwlock_rdlock(&s->lock);
	for (unsigned i = 0; i < s->nservers; i++) {
		rk__server *v = &s->servers[i];
		a[i].id = i;
		for (size_t t = 0; t < s->meta.ntables; t++)
			a[i].nregions += rk_meta__regions_on_server(s->meta.tables[t], i);
		a[i].writes = atomic_load(&v->metrics.total[RK_M_WRITES]);
		a[i].reads = atomic_load(&v->metrics.total[RK_M_READS]);
		a[i].bytes_written = atomic_load(&v->metrics.total[RK_M_BWRITTEN]);
		a[i].bytes_read = atomic_load(&v->metrics.total[RK_M_BREAD]);
		a[i].batches = atomic_load(&v->batches);
		a[i].queue_max = atomic_load(&v->queue_max);
		a[i].capacity_ops = v->cap_ops;
		a[i].capacity_bytes = v->cap_bytes;
	}
	pthread_rwlock_unlock(&s->lock);
	*out = a;
	*count = s->nservers;
	return 0;
}

int rk_local__region_split(rk_store *st, uint64_t id, const uint8_t *at, size_t at_len)
{
	rk__local *s = (rk__local *)st;
	pthread_rwlock_rdlock(&s->lock);
	rk__region *r = rk_meta__region(&s->meta, id);
	pthread_rwlock_unlock(&s->lock);
	if (!r)
		return rk__err(RK_ENOTFOUND, "region %llu does not exist in %s", (unsigned long long)id,
		               s->dir);
	return split_region(s, r, at, at_len);
}

/* A move changes how many regions of its table the two servers hold, and so
 * the split limit of each of their regions (the first region of a table on a
 * server splits early): each takes its server's limit now, and its next
 * write queues it when it is past that, as the simulator checks the limit
 * of the moment at every write (sim.c). A "no split point" mark is lost
 * too; that costs one more look for a middle key. Meta lock held. */
static void reset_limits(rk__local *s, const rk__tmeta *t, unsigned a, unsigned b)
{
	uint64_t la = rk_split__limit(s->opts.split_threshold, rk_meta__regions_on_server(t, a));
	uint64_t lb = rk_split__limit(s->opts.split_threshold, rk_meta__regions_on_server(t, b));
	for (size_t i = 0; i < t->nregions; i++) {
		rk__region *q = t->regions[i];
		if (q->server == a || q->server == b)
			atomic_store(&q->split_at_size, q->server == a ? la : lb);
	}
}

static void end_move(rk__local *s, rk__region *r)
{
	pthread_mutex_lock(&s->move_mu);
	atomic_store(&r->moving, 0);
	pthread_cond_broadcast(&s->move_cv);
	pthread_mutex_unlock(&s->move_mu);
}

/* Copies [lo, hi) from one engine to another, fsyncing at the end. */
static int copy_range(rk__engine *src, rk__engine *dst, const uint8_t *lo, size_t lolen,
                      const uint8_t *hi, size_t hilen)
{
	rk__eiter *it = rk_eiter__new(src);
	rk__ebatch *b = rk_ebatch__new();
	size_t bytes = 0;
	int rc = 0;
	for (rk_eiter__seek(it, lo, lolen); rk_eiter__valid(it); rk_eiter__next(it)) {
		size_t kl, vl;
		const uint8_t *k = rk_eiter__key(it, &kl);
		if (!rk_local__key_lt(k, kl, hi, hilen))
			break;
		const uint8_t *v = rk_eiter__value(it, &vl);
		rk_ebatch__put(b, k, kl, v, vl);
		bytes += kl + vl;
		if (bytes > (4u << 20)) {
			if ((rc = rk_engine__write(dst, b, 0)) != 0)
				goto out;
			rk_ebatch__clear(b);
			bytes = 0;
		}
	}
	if ((rc = rk_eiter__status(it)) != 0)
		goto out;
	rc = rk_engine__write(dst, b, 1);
out:
	rk_ebatch__free(b);
	rk_eiter__free(it);
	return rc;
}

int rk_local__region_move(rk_store *st, uint64_t id, unsigned dst)
{
	rk__local *s = (rk__local *)st;
	uint8_t *buf;
	size_t len;
	uint64_t seq;
	int rc;
	if (dst >= s->nservers)
		return rk__err(RK_EINVALID, "region %llu: no server %u (store has %u)",
		               (unsigned long long)id, dst, s->nservers);
	pthread_rwlock_wrlock(&s->lock);
	rk__region *r = rk_meta__region(&s->meta, id);
	if (!r) {
		pthread_rwlock_unlock(&s->lock);
		return rk__err(RK_ENOTFOUND, "region %llu does not exist in %s", (unsigned long long)id,
		               s->dir);
	}
	if (atomic_load(&r->moving)) {
		pthread_rwlock_unlock(&s->lock);
		return rk__err(RK_EBUSY, "region %llu is already moving", (unsigned long long)id);
	}
	unsigned src = r->server;
	if (src == dst) {
		pthread_rwlock_unlock(&s->lock);
		return 0;
	}
	atomic_store(&r->moving, 1);
	pthread_rwlock_unlock(&s->lock);

	/* every write routed before the flag was set is now applied */
	rk_server__barrier(&s->servers[src]);
	rc = copy_range(s->servers[src].engine, s->servers[dst].engine, r->lo, r->lo_len, r->hi,
	                r->hi_len);
	if (rc) {
		rk__err_wrap(rc, "moving region %llu from server %u to %u", (unsigned long long)id, src,
		             dst);
		rk_engine__delete_range(s->servers[dst].engine, r->lo, r->lo_len, r->hi, r->hi_len, 0);
		end_move(s, r);
		return rc;
	}
	pthread_rwlock_wrlock(&s->lock);
	r->server = dst;
	rc = rk_local__meta_snapshot(s, &buf, &len, &seq);
	pthread_rwlock_unlock(&s->lock);
	if (!rc)
		rc = rk_local__meta_persist(s, buf, len, seq);
	if (rc) {
		pthread_rwlock_wrlock(&s->lock);
		r->server = src;
		pthread_rwlock_unlock(&s->lock);
		rk_engine__delete_range(s->servers[dst].engine, r->lo, r->lo_len, r->hi, r->hi_len, 0);
		end_move(s, r);
		return rk__err_wrap(rc, "moving region %llu", (unsigned long long)id);
	}
	pthread_rwlock_rdlock(&s->lock);
	reset_limits(s, r->table, src, dst);
	pthread_rwlock_unlock(&s->lock);
	end_move(s, r);
	/* readers that looked the region up before the switch hold snapshots */
	return rk_engine__delete_range(s->servers[src].engine, r->lo, r->lo_len, r->hi, r->hi_len, 0);
}

int rk_local__balance(size_t *out, rk_store *st)
{
	rk__local *s = (rk__local *)st;
	size_t *count = calloc(s->nservers, sizeof *count);
	int rc = 0;
	if (!count)
		return rk__err(RK_ENOMEM, "out of memory balancing");
	for (size_t guard = 0; guard < 100000; guard++) {
		uint64_t move_id = 0;
		unsigned to = 0;
		pthread_rwlock_rdlock(&s->lock);
		for (size_t t = 0; t < s->meta.ntables && !move_id; t++) {
			/* the policy the analyzer's simulator follows too (balance.h) */
			const rk__tmeta *tm = s->meta.tables[t];
			size_t idx;
			if (rk_balance__pick(&idx, &to, tm, s->nservers, count))
				move_id = tm->regions[idx]->id;
		}
		pthread_rwlock_unlock(&s->lock);
		if (!move_id)
			break;
		if ((rc = rk_local__region_move(st, move_id, to)) != 0)
			break;
		++*out;
	}
	free(count);
	return rc;
}
