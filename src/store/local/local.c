/*
 * The local backend: an HBase-style cluster inside one process.
 *
 * A store directory holds the meta map (META), one LevelDB engine per region
 * server (rs-000, rs-001, ...) and the metrics file. Writes are routed under
 * the meta read lock: each mutation goes to the region holding its row, the
 * cells are encoded into one engine batch per region server and queued to
 * that server's writer thread (server.c). Reads open engine iterators
 * directly. A split is a metadata switch under the meta write lock (the
 * middle key is found beforehand from an engine snapshot, without locks); a
 * move blocks writes to the one region, copies its range to the new server,
 * switches meta and deletes the old copy.
 *
 * Lock order: meta lock, then a server's queue mutex, then a completion's
 * mutex. No thread waits for a server while holding the meta lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "key/error.h"
#include "store/backend.h"
#include "store/cell.h"
#include "store/local/dirlock.h"
#include "store/local/engine.h"
#include "store/local/meta.h"
#include "store/local/server.h"
#include "store/local/sim_hooks.h"
#include "store/local/split.h"
#include "store/rowasm.h"

typedef struct rk__local {
	struct rk_store base;
	char *dir;
	rk_store_options opts;
	pthread_rwlock_t lock; /* the meta lock */
	rk__meta meta;
	uint64_t meta_seq; /* bumped on every change (under the write lock) */
	rk__server *servers;
	unsigned nservers;
	pthread_mutex_t persist_mu;
	uint64_t persisted_seq;
	pthread_mutex_t move_mu;
	pthread_cond_t move_cv;
	/* background splits */
	pthread_t split_thread;
	int split_started;
	int splits_on; /* set before the writer threads start, then constant */
	pthread_mutex_t split_mu;
	pthread_cond_t split_cv;
	rk__region **split_q;
	size_t nsplit_q, cap_split_q;
	int split_stop, split_busy;
	_Atomic uint64_t clock;
	rk__dirlock dirlock; /* DIR/LOCK, held while open */
	/* records of earlier runs from metrics.tsv, carried into the file this
	 * run writes (the file accumulates across runs) */
	char *metrics_base;
	size_t metrics_base_len;
} rk__local;

/* Buffered writes: two request sets, so the caller encodes the next batch
 * while the region servers apply the last. A set is reused only after its
 * requests were acknowledged. */
typedef struct rk__aset {
	rk__wreq *reqs; /* one per server */
	rk__wdone done;
	int in_flight;
} rk__aset;

typedef struct rk__ltable {
	struct rk_table base;
	rk__local *st;
	rk__tmeta *tm;
	/* write scratch, reused across rk_table_apply calls (a handle belongs to
	 * one thread at a time): per-server requests with their batches, the
	 * server of each mutation, the cell key buffer */
	rk__wreq *reqs;
	unsigned *server_of;
	size_t server_of_cap;
	uint8_t *key;
	size_t key_cap;
	rk__aset *aset;        /* buffered writes: two request sets, NULL until used */
	int anext;             /* the set the next buffered batch fills */
} rk__ltable;

static const struct rk_backend_ops local_ops;

/* ---- helpers ---- */

static int key_lt(const uint8_t *k, size_t kl, const uint8_t *hi, size_t hl)
{
	return rk_meta__row_cmp(k, kl, hi, hl) < 0;
}

static int grow_buf_slow(uint8_t **p, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 256;
	while (n < need)
		n *= 2;
	uint8_t *q = realloc(*p, n);
	if (!q)
		return rk__err(RK_ENOMEM, "out of memory (%zu bytes)", n);
	*p = q;
	*cap = n;
	return 0;
}

static inline int grow_buf(uint8_t **p, size_t *cap, size_t need)
{
	return need <= *cap ? 0 : grow_buf_slow(p, cap, need);
}

static uint64_t local_clock(rk_store *st)
{
	rk__local *s = (rk__local *)st;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
	uint64_t old = atomic_load(&s->clock), next;
	do {
		next = now > old ? now : old + 1;
	} while (!atomic_compare_exchange_weak(&s->clock, &old, next));
	return next;
}

/* Encodes the meta map (write lock held); the caller persists it. */
static int meta_snapshot(rk__local *s, uint8_t **buf, size_t *len, uint64_t *seq)
{
	*seq = ++s->meta_seq;
	return rk_meta__encode(buf, len, &s->meta);
}

/* Writes a snapshot unless a newer one is already on disk. Frees buf. */
static int meta_persist(rk__local *s, uint8_t *buf, size_t len, uint64_t seq)
{
	int rc = 0;
	pthread_mutex_lock(&s->persist_mu);
	if (seq > s->persisted_seq) {
		rc = rk_meta__save(s->dir, buf, len);
		if (!rc)
			s->persisted_seq = seq;
	}
	pthread_mutex_unlock(&s->persist_mu);
	free(buf);
	return rc;
}

/* ---- splits ---- */

/* Writer-thread hook: a region grew; queue it for a split check. */
static void region_grew(void *payload, rk__region *r)
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

/* Splits region r at `at` (NULL: its middle key). RK_EBUSY when the region
 * changed meanwhile (retired, moving, moved); RK_ENOTFOUND when it cannot be
 * split (one row, or no bucket boundary inside). */
static int split_region(rk__local *s, rk__region *r, const uint8_t *at, size_t at_len)
{
	uint8_t *mid = NULL, point[RK_MAX_ROW_LEN];
	size_t mid_len = 0, point_len = 0;
	uint64_t left = 0, total = atomic_load(&r->size);
	char b1[200];
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

	if (at) {
		if (!rk_split__valid_point(r, at, at_len, L))
			return rk__err(RK_EINVALID,
			               "table %s: region %llu: split row '%s' is not strictly inside the "
			               "region%s",
			               r->table->name, (unsigned long long)r->id,
			               rk__err_bytes(b1, sizeof b1, at, at_len),
			               L ? " or not on a bucket boundary" : "");
		memcpy(point, at, at_len);
		point_len = at_len;
		left = total / 2;
	} else {
		rc = rk_split__middle(&mid, &mid_len, &left, &total, it, r);
		rk_eiter__free(it);
		if (rc)
			return rc;
		if (!rk_split__round(point, &point_len, mid, mid_len, r->start, r->start_len, r->end,
		                     r->end_len, L)) {
			free(mid);
			return rk__err(RK_ENOTFOUND,
			               "table %s: region %llu holds no bucket boundary to split at",
			               r->table->name, (unsigned long long)r->id);
		}
		free(mid);
	}

	pthread_rwlock_wrlock(&s->lock);
	if (atomic_load(&r->retired) || atomic_load(&r->moving) || r->server != srv) {
		pthread_rwlock_unlock(&s->lock);
		return rk__err(RK_EBUSY, "region %llu changed while splitting; retry",
		               (unsigned long long)r->id);
	}
	rk__tmeta *t = r->table;
	size_t i = rk_meta__lookup_index(t, r->start, r->start_len);
	rk__region *a = rk_meta__region_new(&s->meta, t, s->meta.next_region_id, r->start,
	                                    r->start_len, point, point_len, srv);
	rk__region *b = a ? rk_meta__region_new(&s->meta, t, s->meta.next_region_id + 1, point,
	                                        point_len, r->end, r->end_len, srv)
	                  : NULL;
	rk__region *pair[2] = {a, b};
	if (!a || !b || t->regions[i] != r || (rc = rk_meta__replace(t, i, pair, 2)) != 0) {
		pthread_rwlock_unlock(&s->lock);
		return rc ? rc : rk__err(RK_ENOMEM, "region %llu: out of memory splitting",
		                         (unsigned long long)r->id);
	}
	s->meta.next_region_id += 2;
	uint64_t lim = rk_split__limit(s->opts.split_threshold, rk_meta__regions_on_server(t, srv));
	atomic_store(&a->size, left);
	atomic_store(&b->size, total > left ? total - left : 0);
	atomic_store(&a->split_at_size, lim);
	atomic_store(&b->split_at_size, lim);
	atomic_store(&r->retired, 1);
	uint8_t *buf;
	size_t len;
	uint64_t seq;
	rc = meta_snapshot(s, &buf, &len, &seq);
	pthread_rwlock_unlock(&s->lock);
	if (rc)
		return rc;
	if ((rc = meta_persist(s, buf, len, seq)) != 0)
		return rc;
	/* a half still over its limit splits again, as in HBase, without waiting
	   for another write to notice (a load that stops would leave it too big) */
	region_grew(s, a);
	region_grew(s, b);
	return 0;
}

static void *splitter_main(void *arg)
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

		pthread_rwlock_rdlock(&s->lock);
		int gone = atomic_load(&r->retired);
		uint64_t lim = gone ? 0
		                    : rk_split__limit(s->opts.split_threshold,
		                                      rk_meta__regions_on_server(r->table, r->server));
		pthread_rwlock_unlock(&s->lock);
		uint64_t size = atomic_load(&r->size);
		if (!gone) {
			if (size <= lim) {
				atomic_store(&r->split_at_size, lim);
			} else {
				int rc = split_region(s, r, NULL, 0);
				if (rc == RK_ENOTFOUND || (rc && rc != RK_EBUSY))
					atomic_store(&r->split_at_size, size * 2); /* try again much later */
			}
			atomic_store(&r->split_pending, 0);
		}
		pthread_mutex_lock(&s->split_mu);
		s->split_busy = 0;
		pthread_cond_broadcast(&s->split_cv);
	}
	pthread_mutex_unlock(&s->split_mu);
	return NULL;
}

/* ---- open and recovery ---- */

static int lock_dir(rk__local *s)
{
	return rk_dirlock__acquire(&s->dirlock, s->dir);
}

/* Deletes the cells of server `srv` that no region on it owns: leftovers of
 * a move or a drop interrupted by a crash. Only keys that decode are
 * touched; anything else is left for rk_store_check to report. */
/* Deletes the cells on server srv that no region of that server owns (what
 * an interrupted move or drop left). Best effort over damaged data: a read
 * error (a corrupt or truncated table file) ends the sweep and is returned
 * in *read_rc, not as the result, so the store still opens; reads over the
 * damage and `rowkey check` name the file. A failed delete is the result. */
static int remove_orphans(rk__local *s, unsigned srv, int *read_rc)
{
	rk__engine *e = s->servers[srv].engine;
	rk__eiter *it = rk_eiter__new(e);
	uint8_t lo[4], hi[4];
	int rc = 0;
	rk_eiter__seek_first(it);
	while (rk_eiter__valid(it)) {
		size_t kl;
		const uint8_t *k = rk_eiter__key(it, &kl);
		rk__cellkey ck;
		if (kl < 4) {
			rk_eiter__next(it);
			continue;
		}
		uint32_t tid = rk_cell__get_u32(k);
		rk__tmeta *t = rk_meta__table_by_id(&s->meta, tid);
		rk_cell__put_u32(lo, tid);
		rk_cell__put_u32(hi, tid + 1);
		if (!t) {
			if (tid && tid < s->meta.next_table_id &&
			    (rc = rk_engine__delete_range(e, lo, 4, hi, 4, 1)) != 0)
				break;
			if (tid == UINT32_MAX)
				break;
			rk_eiter__seek(it, hi, 4);
			continue;
		}
		if (rk_cell__decode_row(&ck, k, kl)) {
			rk_eiter__next(it);
			continue;
		}
		uint8_t *row = malloc(ck.row_len + 1);
		if (!row) {
			rc = rk__err(RK_ENOMEM, "out of memory recovering %s", rk_engine__path(e));
			break;
		}
		size_t rl = rk_cell__unesc(row, ck.row, ck.row_len);
		rk__region *r = rk_meta__lookup(t, row, rl);
		free(row);
		if (r->server != srv &&
		    (rc = rk_engine__delete_range(e, r->lo, r->lo_len, r->hi, r->hi_len, 1)) != 0)
			break;
		rk_eiter__seek(it, r->hi, r->hi_len);
	}
	if (!rc)
		*read_rc = rk_eiter__status(it);
	rk_eiter__free(it);
	return rc;
}

static void local_free(rk__local *s)
{
	if (s->split_started) {
		pthread_mutex_lock(&s->split_mu);
		s->split_stop = 1;
		pthread_cond_broadcast(&s->split_cv);
		pthread_mutex_unlock(&s->split_mu);
		pthread_join(s->split_thread, NULL);
		s->split_started = 0;
	}
	for (unsigned i = 0; s->servers && i < s->nservers; i++)
		rk_server__stop(&s->servers[i]);
	for (unsigned i = 0; s->servers && i < s->nservers; i++) {
		rk_engine__close(s->servers[i].engine);
		if (s->servers[i].bucket_ms)
			rk_metrics__fini(&s->servers[i].metrics);
	}
	free(s->servers);
	free(s->split_q);
	rk_meta__fini(&s->meta);
	pthread_rwlock_destroy(&s->lock);
	pthread_mutex_destroy(&s->persist_mu);
	pthread_mutex_destroy(&s->move_mu);
	pthread_cond_destroy(&s->move_cv);
	pthread_mutex_destroy(&s->split_mu);
	pthread_cond_destroy(&s->split_cv);
	rk_dirlock__release(&s->dirlock); /* after the engines closed */
	free(s->metrics_base);
	free(s->dir);
	free(s);
}

/* Loads the records of earlier runs from DIR/metrics.tsv (the file is ours,
 * but is read as text that may be damaged): what rk_metrics__carry keeps,
 * old buckets rolled up into coarser ones once there are many. */
static void load_metrics_base(rk__local *s)
{
	char path[4200];
	uint8_t *text = NULL;
	size_t n = 0;
	int fd;
	struct stat st;
	snprintf(path, sizeof path, "%s/metrics.tsv", s->dir);
	if ((fd = open(path, O_RDONLY)) < 0)
		return;
	if (!fstat(fd, &st) && (text = malloc((size_t)st.st_size + 1)) != NULL) {
		while (n < (size_t)st.st_size) {
			ssize_t r = read(fd, text + n, (size_t)st.st_size - n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			n += (size_t)r;
		}
	}
	close(fd);
	if (!text || n != (size_t)st.st_size ||
	    rk_metrics__carry(&s->metrics_base, &s->metrics_base_len, (const char *)text, n,
	                      s->opts.metrics_bucket_ms, RK_METRICS_CARRY_MAX)) {
		/* unread: kept aside whole rather than replaced without it */
		char old[4300];
		snprintf(old, sizeof old, "%s.unread", path);
		rename(path, old);
		s->metrics_base = NULL;
		s->metrics_base_len = 0;
	}
	free(text);
}

/* The split threshold kept with the store (META v2 store-wide property
 * "split_threshold", decimal bytes): a new store saves the one it is given;
 * an existing store uses its saved one, unless the caller gives another than
 * the default (RK_STORE_OPTIONS_INIT's 256 MiB), which then replaces it.
 * *save: META must be written. */
#define SPLIT_THRESHOLD_DEFAULT (256ull << 20)
static int settle_split_threshold(rk__local *s, int fresh, int *save)
{
	const uint8_t *v;
	size_t n;
	uint64_t saved = 0;
	char text[32];
	int have = rk_meta__prop_get(&s->meta.props, "split_threshold", &v, &n) == 0;
	int rc = have ? rk_meta__prop_u64(&s->meta.props, "split_threshold", &saved) : 0;
	*save = 0;
	if (rc)
		return rk__err_wrap(rc, "store %s: META", s->dir);
	if (have && !fresh && s->opts.split_threshold == SPLIT_THRESHOLD_DEFAULT) {
		s->opts.split_threshold = saved;
		return 0;
	}
	if (!fresh && !have && s->opts.split_threshold == SPLIT_THRESHOLD_DEFAULT)
		return 0; /* a store from before META v2, opened with the default */
	if (have && saved == s->opts.split_threshold)
		return 0;
	snprintf(text, sizeof text, "%" PRIu64, s->opts.split_threshold);
	*save = 1;
	return rk_meta__prop_set(&s->meta.props, "split_threshold", text, strlen(text));
}

/* The capacity of each region server (issue 11), kept in META as the
 * store-wide settings server_capacity_ops and server_capacity_bytes
 * (decimal; absent: unlimited). An option other than 0 replaces the saved
 * value (RK_SERVER_CAPACITY_OFF removes it) and sets *changed: META must
 * be saved; 0 keeps what the store has. */
static int server_capacity(rk__local *s, uint64_t *ops, uint64_t *bytes, int *changed)
{
	static const char *const key[2] = {"server_capacity_ops", "server_capacity_bytes"};
	const uint64_t want[2] = {s->opts.server_capacity_ops, s->opts.server_capacity_bytes};
	uint64_t *got[2] = {ops, bytes};
	for (int i = 0; i < 2; i++) {
		const uint8_t *v;
		size_t n;
		int rc = 0;
		*got[i] = 0;
		if (want[i] == RK_SERVER_CAPACITY_OFF) {
			if (rk_meta__prop_get(&s->meta.props, key[i], &v, &n) == 0) {
				rc = rk_meta__prop_del(&s->meta.props, key[i]);
				*changed = 1;
			}
		} else if (want[i]) {
			char t[24];
			int tl = snprintf(t, sizeof t, "%llu", (unsigned long long)want[i]);
			if (rk_meta__prop_get(&s->meta.props, key[i], &v, &n) || n != (size_t)tl ||
			    memcmp(v, t, n)) {
				rc = rk_meta__prop_set(&s->meta.props, key[i], t, (size_t)tl);
				*changed = 1;
			}
		}
		if (rc || (rc = rk_meta__prop_u64(&s->meta.props, key[i], got[i])) != 0)
			return rk__err_wrap(rc, "store %s", s->dir);
	}
	return 0;
}

int rk_local__open(rk_store **out, const char *dir, const rk_store_options *opts)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int rc;
	rk__local *s = calloc(1, sizeof *s);
	if (!s || !(s->dir = strdup(dir))) {
		free(s);
		return rk__err(RK_ENOMEM, "store %s: out of memory", dir);
	}
	s->base.ops = &local_ops;
	s->opts = *opts;
	s->dirlock.fd = -1;
	pthread_rwlock_init(&s->lock, NULL);
	pthread_mutex_init(&s->persist_mu, NULL);
	pthread_mutex_init(&s->move_mu, NULL);
	pthread_cond_init(&s->move_cv, NULL);
	pthread_mutex_init(&s->split_mu, NULL);
	pthread_cond_init(&s->split_cv, NULL);
	atomic_init(&s->clock, 0);
	rk_meta__init(&s->meta, opts->n_servers);

	struct stat st;
	if (stat(dir, &st)) {
		if (errno != ENOENT || !opts->create_if_missing) {
			rc = rk__err(RK_ENOTFOUND, "store %s: %s", dir, strerror(errno));
			goto fail;
		}
		if (mkdir(dir, 0755) && errno != EEXIST) {
			rc = rk__err(RK_EIO, "store %s: cannot create: %s", dir, strerror(errno));
			goto fail;
		}
	} else if (!S_ISDIR(st.st_mode)) {
		rc = rk__err(RK_EINVALID, "store %s: not a directory", dir);
		goto fail;
	}
	if ((rc = lock_dir(s)) != 0)
		goto fail;
	int fresh = 0;
	rc = rk_meta__read(&buf, &len, dir);
	if (rc == RK_ENOTFOUND) {
		if (!opts->create_if_missing) {
			rc = rk__err(RK_ENOTFOUND, "store %s: no META file (not a rowkey store)", dir);
			goto fail;
		}
		fresh = 1; /* META is written once the engines exist (below) */
	} else if (rc) {
		goto fail;
	} else {
		char path[4200];
		snprintf(path, sizeof path, "%s/META", dir);
		if ((rc = rk_meta__decode(&s->meta, buf, len, path)) != 0)
			goto fail;
	}
	int save_settings = 0;
	if ((rc = settle_split_threshold(s, fresh, &save_settings)) != 0)
		goto fail;
	if (!fresh && save_settings) {
		free(buf);
		buf = NULL;
		if ((rc = rk_meta__encode(&buf, &len, &s->meta)) != 0 ||
		    (rc = rk_meta__save(dir, buf, len)) != 0)
			goto fail;
	}
	free(buf);
	buf = NULL;

	s->nservers = s->meta.n_servers;
	s->servers = calloc(s->nservers, sizeof *s->servers);
	if (!s->servers) {
		rc = rk__err(RK_ENOMEM, "store %s: out of memory", dir);
		goto fail;
	}
	for (unsigned i = 0; i < s->nservers; i++) {
		char path[4200];
		rk__engine_options eo = {opts->write_buffer_size, fresh, 1, NULL, NULL};
		snprintf(path, sizeof path, "%s/rs-%03u", dir, i);
		if (!fresh && stat(path, &st)) {
			rc = rk__err(RK_ECORRUPT, "store %s: region server %u's engine %s is missing", dir,
			             i, path);
			goto fail;
		}
		if ((rc = rk_engine__open(&s->servers[i].engine, path, &eo)) != 0)
			goto fail;
		s->servers[i].id = i;
	}
	for (unsigned i = 0; fresh && i < s->nservers; i++) {
		/* engines with data but no META: the meta map was lost; refuse
		 * rather than reuse the data under new table ids */
		rk__eiter *it = rk_eiter__new(s->servers[i].engine);
		rk_eiter__seek_first(it);
		int has_data = rk_eiter__valid(it);
		rk_eiter__free(it);
		if (has_data) {
			rc = rk__err(RK_ECORRUPT,
			             "store %s: no META file, but engine %s holds data (the meta map "
			             "was lost; restore META or move the directory away)",
			             dir, rk_engine__path(s->servers[i].engine));
			goto fail;
		}
	}
	load_metrics_base(s);
	uint64_t cap_ops = 0, cap_bytes = 0;
	int cap_changed = 0;
	if ((rc = server_capacity(s, &cap_ops, &cap_bytes, &cap_changed)) != 0)
		goto fail;
	if (fresh || cap_changed) {
		/* only now: a crash before this leaves no META, and the next open
		 * starts afresh over whatever empty engines exist */
		if ((rc = rk_meta__encode(&buf, &len, &s->meta)) != 0 ||
		    (rc = rk_meta__save(dir, buf, len)) != 0)
			goto fail;
		free(buf);
		buf = NULL;
	}
	for (unsigned i = 0; i < s->nservers; i++) {
		int read_rc = 0;
		if ((rc = remove_orphans(s, i, &read_rc)) != 0)
			goto fail;
		if (read_rc == RK_ENOMEM) {
			rc = read_rc;
			goto fail;
		}
		/* other read errors: the store opens; see remove_orphans */
	}
	for (size_t t = 0; t < s->meta.ntables; t++) {
		rk__tmeta *tm = s->meta.tables[t];
		for (size_t k = 0; k < tm->nregions; k++) {
			rk__region *r = tm->regions[k];
			atomic_store(&r->size, rk_engine__approx_size(s->servers[r->server].engine, r->lo,
			                                               r->lo_len, r->hi, r->hi_len));
			atomic_store(&r->split_at_size,
			             rk_split__limit(s->opts.split_threshold,
			                             rk_meta__regions_on_server(tm, r->server)));
		}
	}
	if (opts->background_splits && s->opts.split_threshold) {
		if (pthread_create(&s->split_thread, NULL, splitter_main, s)) {
			rc = rk__err(RK_EIO, "store %s: cannot start the split thread", dir);
			goto fail;
		}
		s->split_started = 1;
		s->splits_on = 1;
	}
	for (unsigned i = 0; i < s->nservers; i++) {
		s->servers[i].bucket_ms = opts->metrics_bucket_ms;
		s->servers[i].cap_ops = cap_ops;
		s->servers[i].cap_bytes = cap_bytes;
		s->servers[i].grew = region_grew;
		s->servers[i].payload = s;
		if ((rc = rk_server__start(&s->servers[i])) != 0)
			goto fail;
	}
	*out = &s->base;
	return 0;
fail:
	free(buf);
	local_free(s);
	return rc;
}

static int write_metrics_file(rk__local *s, const char *path);

static int local_close(rk_store *st)
{
	rk__local *s = (rk__local *)st;
	/* stop splits and drain writes first so the metrics are complete */
	if (s->split_started) {
		pthread_mutex_lock(&s->split_mu);
		s->split_stop = 1;
		pthread_cond_broadcast(&s->split_cv);
		pthread_mutex_unlock(&s->split_mu);
		pthread_join(s->split_thread, NULL);
		s->split_started = 0;
	}
	for (unsigned i = 0; i < s->nservers; i++)
		rk_server__stop(&s->servers[i]);
	int rc = write_metrics_file(s, NULL);
	local_free(s);
	return rc;
}

static int local_sync(rk_store *st)
{
	rk__local *s = (rk__local *)st;
	int rc = 0;
	for (unsigned i = 0; i < s->nservers && !rc; i++) {
		rk__ebatch *b = rk_ebatch__new();
		rk_server__barrier(&s->servers[i]);
		rc = rk_engine__write(s->servers[i].engine, b, 1);
		rk_ebatch__free(b);
	}
	return rc;
}

/* ---- tables ---- */

static int fam_cmp(const void *a, const void *b)
{
	return strcmp(((const rk__family *)a)->name, ((const rk__family *)b)->name);
}

static int local_table_create(rk_store *st, const rk_table_def *def)
{
	rk__local *s = (rk__local *)st;
	rk__tmeta *t = NULL;
	uint8_t *buf;
	size_t len;
	uint64_t seq;
	int rc;
	pthread_rwlock_wrlock(&s->lock);
	if (rk_meta__table(&s->meta, def->name)) {
		rc = rk__err(RK_EEXISTS, "table %s already exists in %s", def->name, s->dir);
		goto fail;
	}
	if (!(t = calloc(1, sizeof *t)) ||
	    !(t->families = calloc(def->nfamilies ? def->nfamilies : 1, sizeof *t->families)) ||
	    !(t->regions = calloc(def->nsplits + 1, sizeof *t->regions))) {
		rc = rk__err(RK_ENOMEM, "table %s: out of memory", def->name);
		goto fail;
	}
	t->id = s->meta.next_table_id;
	snprintf(t->name, sizeof t->name, "%s", def->name);
	t->bucket_prefix_len = def->bucket_prefix_len;
	atomic_init(&t->handles, 0);
	for (size_t i = 0; i < def->nfamilies; i++) {
		snprintf(t->families[i].name, sizeof t->families[i].name, "%s", def->families[i].name);
		t->families[i].name_len = strlen(t->families[i].name);
		t->families[i].max_versions = def->families[i].max_versions;
	}
	t->nfamilies = def->nfamilies;
	qsort(t->families, t->nfamilies, sizeof *t->families, fam_cmp);
	for (size_t i = 0; i <= def->nsplits; i++) {
		const rk_bytes *a = i ? &def->split_points[i - 1] : NULL;
		const rk_bytes *b = i < def->nsplits ? &def->split_points[i] : NULL;
		unsigned server = (unsigned)((t->id - 1 + i) % s->nservers);
		rk__region *r = rk_meta__region_new(&s->meta, t, s->meta.next_region_id + i,
		                                    a ? a->ptr : NULL, a ? a->len : 0,
		                                    b ? b->ptr : NULL, b ? b->len : 0, server);
		if (!r) {
			rc = RK_ENOMEM;
			goto fail;
		}
		if (b && !b->ptr) {
			rc = rk__err(RK_EINVALID, "table %s: split point %zu is NULL", def->name, i);
			goto fail;
		}
		t->regions[i] = r;
		t->nregions = i + 1;
	}
	for (size_t i = 0; i < t->nregions; i++)
		atomic_store(&t->regions[i]->split_at_size,
		             rk_split__limit(s->opts.split_threshold,
		                             rk_meta__regions_on_server(t, t->regions[i]->server)));
	if ((rc = rk_meta__table_add(&s->meta, t)) != 0)
		goto fail;
	s->meta.next_table_id++;
	s->meta.next_region_id += t->nregions;
	if ((rc = meta_snapshot(s, &buf, &len, &seq)) != 0 ||
	    (rc = meta_persist(s, buf, len, seq)) != 0) {
		rk_meta__table_remove(&s->meta, t); /* now on the dropped list, freed with meta */
		pthread_rwlock_unlock(&s->lock);
		return rc;
	}
	pthread_rwlock_unlock(&s->lock);
	return 0;
fail:
	pthread_rwlock_unlock(&s->lock);
	if (t) {
		free(t->families);
		free(t->regions);
		free(t);
	}
	return rc;
}

static int local_table_drop(rk_store *st, const char *name)
{
	rk__local *s = (rk__local *)st;
	uint8_t *buf;
	size_t len;
	uint64_t seq;
	int rc;
	pthread_rwlock_wrlock(&s->lock);
	rk__tmeta *t = rk_meta__table(&s->meta, name);
	if (!t) {
		pthread_rwlock_unlock(&s->lock);
		return rk__err(RK_ENOTFOUND, "table %s does not exist in %s", name, s->dir);
	}
	if (atomic_load(&t->handles) > 0) {
		pthread_rwlock_unlock(&s->lock);
		return rk__err(RK_EBUSY, "table %s: %d handles still open", name,
		               atomic_load(&t->handles));
	}
	for (size_t i = 0; i < t->nregions; i++)
		if (atomic_load(&t->regions[i]->moving)) {
			pthread_rwlock_unlock(&s->lock);
			return rk__err(RK_EBUSY, "table %s: region %llu is moving", name,
			               (unsigned long long)t->regions[i]->id);
		}
	rk_meta__table_remove(&s->meta, t);
	rc = meta_snapshot(s, &buf, &len, &seq);
	if (!rc)
		rc = meta_persist(s, buf, len, seq);
	if (rc) {
		/* put it back as it was */
		s->meta.dropped = t->next_dropped;
		for (size_t i = 0; i < t->nregions; i++)
			atomic_store(&t->regions[i]->retired, 0);
		rk_meta__table_add(&s->meta, t);
		pthread_rwlock_unlock(&s->lock);
		return rc;
	}
	uint32_t tid = t->id;
	pthread_rwlock_unlock(&s->lock);
	uint8_t lo[4], hi[4];
	rk_cell__put_u32(lo, tid);
	rk_cell__put_u32(hi, tid + 1);
	for (unsigned i = 0; i < s->nservers && !rc; i++)
		rc = rk_engine__delete_range(s->servers[i].engine, lo, 4, hi, 4, 1);
	return rc;
}

static int local_table_list(rk_table_info **out, size_t *count, rk_store *st)
{
	rk__local *s = (rk__local *)st;
	int rc = 0;
	pthread_rwlock_rdlock(&s->lock);
	size_t n = s->meta.ntables;
	rk_table_info *a = calloc(n ? n : 1, sizeof *a);
	if (!a) {
		rc = rk__err(RK_ENOMEM, "out of memory listing tables");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const rk__tmeta *t = s->meta.tables[i];
		a[i].name = strdup(t->name);
		a[i].families = calloc(t->nfamilies, sizeof *a[i].families);
		if (!a[i].name || !a[i].families) {
			rk_table_info_free(a, i + 1);
			rc = rk__err(RK_ENOMEM, "out of memory listing tables");
			goto out;
		}
		for (size_t f = 0; f < t->nfamilies; f++) {
			a[i].families[f].name = strdup(t->families[f].name);
			a[i].families[f].max_versions = t->families[f].max_versions;
			a[i].nfamilies = f + 1;
			if (!a[i].families[f].name) {
				rk_table_info_free(a, i + 1);
				rc = rk__err(RK_ENOMEM, "out of memory listing tables");
				goto out;
			}
		}
		a[i].bucket_prefix_len = t->bucket_prefix_len;
		a[i].nregions = t->nregions;
	}
	*out = a;
	*count = n;
out:
	pthread_rwlock_unlock(&s->lock);
	return rc;
}

/* Table settings (META v2 props): set persists before it returns; a failed
 * save puts the old value back. */
static int local_table_prop_set(rk_store *st, const char *table, const char *key,
                                const void *val, size_t len)
{
	rk__local *s = (rk__local *)st;
	uint8_t *buf, *old = NULL;
	const uint8_t *ov;
	size_t len_meta, olen = 0;
	uint64_t seq;
	int rc, had;
	pthread_rwlock_wrlock(&s->lock);
	rk__tmeta *t = rk_meta__table(&s->meta, table);
	if (!t) {
		rc = rk__err(RK_ENOTFOUND, "table %s does not exist in %s", table, s->dir);
		goto out;
	}
	had = rk_meta__prop_get(&t->props, key, &ov, &olen) == 0;
	if (had && !(old = malloc(olen + 1))) {
		rc = rk__err(RK_ENOMEM, "table %s: setting %s: out of memory", table, key);
		goto out;
	}
	if (had)
		memcpy(old, ov, olen);
	rc = val ? rk_meta__prop_set(&t->props, key, val, len) : rk_meta__prop_del(&t->props, key);
	if (rc) {
		rk__err_wrap(rc, "table %s", table);
		goto out;
	}
	if ((rc = meta_snapshot(s, &buf, &len_meta, &seq)) != 0 ||
	    (rc = meta_persist(s, buf, len_meta, seq)) != 0) {
		if (had)
			rk_meta__prop_set(&t->props, key, old, olen); /* the old copy fits: it did */
		else
			rk_meta__prop_del(&t->props, key);
	}
out:
	pthread_rwlock_unlock(&s->lock);
	free(old);
	return rc;
}

static int local_table_prop_get(void **out, size_t *out_len, rk_store *st, const char *table,
                                const char *key)
{
	rk__local *s = (rk__local *)st;
	const uint8_t *v;
	size_t n;
	int rc = 0;
	pthread_rwlock_rdlock(&s->lock);
	rk__tmeta *t = rk_meta__table(&s->meta, table);
	if (!t) {
		rc = rk__err(RK_ENOTFOUND, "table %s does not exist in %s", table, s->dir);
	} else if (!rk_meta__prop_key_ok(key)) {
		rc = rk__err(RK_EINVALID, "table %s: setting '%s': a key is 1..%d bytes of a-z 0-9 _ .",
		             table, key, RK__PROP_KEY_MAX);
	} else if (rk_meta__prop_get(&t->props, key, &v, &n)) {
		rc = rk__err(RK_ENOTFOUND, "table %s: setting %s is not set", table, key);
	} else if (!(*out = malloc(n + 1))) {
		rc = rk__err(RK_ENOMEM, "table %s: setting %s: out of memory", table, key);
	} else {
		memcpy(*out, v, n);
		((uint8_t *)*out)[n] = 0;
		*out_len = n;
	}
	pthread_rwlock_unlock(&s->lock);
	return rc;
}

/* Adds or changes one family; refused while handles are open, since they
 * point at the family array. A failed save puts the table back as it was. */
static int local_family_set(rk_store *st, const char *table, const rk_family_def *fam)
{
	rk__local *s = (rk__local *)st;
	rk__family *fams = NULL, *old;
	uint8_t *buf;
	size_t len, oldn;
	uint64_t seq;
	int rc;
	pthread_rwlock_wrlock(&s->lock);
	rk__tmeta *t = rk_meta__table(&s->meta, table);
	if (!t) {
		rc = rk__err(RK_ENOTFOUND, "table %s does not exist in %s", table, s->dir);
		goto out;
	}
	if (atomic_load(&t->handles) > 0) {
		rc = rk__err(RK_EBUSY, "table %s: %d handles still open", table,
		             atomic_load(&t->handles));
		goto out;
	}
	size_t i = 0;
	while (i < t->nfamilies && strcmp(t->families[i].name, fam->name) != 0)
		i++;
	if (i == t->nfamilies && t->nfamilies >= 255) {
		rc = rk__err(RK_EINVALID, "table %s: 255 families already", table);
		goto out;
	}
	if (!(fams = calloc(t->nfamilies + 1, sizeof *fams))) {
		rc = rk__err(RK_ENOMEM, "table %s: out of memory", table);
		goto out;
	}
	memcpy(fams, t->families, t->nfamilies * sizeof *fams);
	snprintf(fams[i].name, sizeof fams[i].name, "%s", fam->name);
	fams[i].name_len = strlen(fams[i].name);
	fams[i].max_versions = fam->max_versions;
	old = t->families;
	oldn = t->nfamilies;
	t->families = fams;
	t->nfamilies = oldn + (i == oldn);
	qsort(t->families, t->nfamilies, sizeof *t->families, fam_cmp);
	if ((rc = meta_snapshot(s, &buf, &len, &seq)) != 0 ||
	    (rc = meta_persist(s, buf, len, seq)) != 0) {
		t->families = old;
		t->nfamilies = oldn;
		free(fams);
		goto out;
	}
	free(old);
out:
	pthread_rwlock_unlock(&s->lock);
	return rc;
}

/* Deletes every cell of one family of a table, server by server (a scan of
 * the table's keys on each engine; the deletes go in synced batches), then
 * removes the family from the table and saves META. Held under the meta
 * lock, so no split, move or open happens meanwhile; refused while handles
 * are open or a region moves. A crash before the save leaves the family
 * declared and empty, never cells of an undeclared family. */
static int local_family_drop(rk_store *st, const char *table, const char *family)
{
	rk__local *s = (rk__local *)st;
	uint8_t *buf;
	size_t len, fl = strlen(family);
	uint64_t seq;
	int rc = 0;
	pthread_rwlock_wrlock(&s->lock);
	rk__tmeta *t = rk_meta__table(&s->meta, table);
	size_t fi = 0;
	if (!t) {
		rc = rk__err(RK_ENOTFOUND, "table %s does not exist in %s", table, s->dir);
		goto out;
	}
	while (fi < t->nfamilies && strcmp(t->families[fi].name, family) != 0)
		fi++;
	if (fi == t->nfamilies) {
		rc = rk__err(RK_ENOTFOUND, "table %s has no family %s", table, family);
		goto out;
	}
	if (atomic_load(&t->handles) > 0) {
		rc = rk__err(RK_EBUSY, "table %s: %d handles still open", table,
		             atomic_load(&t->handles));
		goto out;
	}
	for (size_t i = 0; i < t->nregions; i++)
		if (atomic_load(&t->regions[i]->moving)) {
			rc = rk__err(RK_EBUSY, "table %s: region %llu is moving", table,
			             (unsigned long long)t->regions[i]->id);
			goto out;
		}
	uint8_t lo[4], hi[4];
	rk_cell__put_u32(lo, t->id);
	rk_cell__put_u32(hi, t->id + 1);
	for (unsigned i = 0; i < s->nservers && !rc; i++) {
		rk__engine *e = s->servers[i].engine;
		rk_server__barrier(&s->servers[i]);
		rk__eiter *it = rk_eiter__new(e);
		rk__ebatch *b = rk_ebatch__new();
		if (!it || !b) {
			rk_eiter__free(it);
			rk_ebatch__free(b);
			rc = rk__err(RK_ENOMEM, "table %s: out of memory dropping family %s", table,
			             family);
			break;
		}
		for (rk_eiter__seek(it, lo, 4); !rc && rk_eiter__valid(it); rk_eiter__next(it)) {
			size_t kl;
			const uint8_t *k = rk_eiter__key(it, &kl);
			if (kl < 4 || memcmp(k, hi, 4) >= 0)
				break;
			rk__cellkey ck;
			if (rk_cell__decode(&ck, k, kl) != 0)
				continue; /* not ours to judge here: rowkey check names it */
			/* family names have no byte that escaping changes */
			if (ck.family_len == fl && !memcmp(ck.family, family, fl))
				rk_ebatch__del(b, k, kl);
			if (rk_ebatch__count(b) >= 4096) {
				rc = rk_engine__write(e, b, 1);
				rk_ebatch__clear(b);
			}
		}
		if (!rc && (rc = rk_eiter__status(it)) != 0)
			rk__err_wrap(rc, "table %s: dropping family %s on server %u", table, family, i);
		if (!rc && rk_ebatch__count(b))
			rc = rk_engine__write(e, b, 1);
		rk_eiter__free(it);
		rk_ebatch__free(b);
	}
	if (rc)
		goto out;
	rk__family removed = t->families[fi];
	memmove(&t->families[fi], &t->families[fi + 1],
	        (t->nfamilies - fi - 1) * sizeof *t->families);
	t->nfamilies--;
	if ((rc = meta_snapshot(s, &buf, &len, &seq)) != 0 ||
	    (rc = meta_persist(s, buf, len, seq)) != 0) {
		memmove(&t->families[fi + 1], &t->families[fi],
		        (t->nfamilies - fi) * sizeof *t->families);
		t->families[fi] = removed;
		t->nfamilies++;
	}
out:
	pthread_rwlock_unlock(&s->lock);
	return rc;
}

static int local_table_open(rk_table **out, rk_store *st, const char *name)
{
	rk__local *s = (rk__local *)st;
	rk__ltable *lt = calloc(1, sizeof *lt);
	if (!lt)
		return rk__err(RK_ENOMEM, "table %s: out of memory", name);
	pthread_rwlock_rdlock(&s->lock);
	rk__tmeta *t = rk_meta__table(&s->meta, name);
	if (!t) {
		pthread_rwlock_unlock(&s->lock);
		free(lt);
		return rk__err(RK_ENOTFOUND, "table %s does not exist in %s", name, s->dir);
	}
	atomic_fetch_add(&t->handles, 1);
	pthread_rwlock_unlock(&s->lock);
	lt->st = s;
	lt->tm = t;
	lt->base.store = st;
	snprintf(lt->base.name, sizeof lt->base.name, "%s", t->name);
	lt->base.families = t->families;
	lt->base.nfamilies = t->nfamilies;
	lt->base.bucket_prefix_len = t->bucket_prefix_len;
	*out = &lt->base;
	return 0;
}

static int local_flush(rk_table *tb);

static void local_table_close(rk_table *tb)
{
	rk__ltable *lt = (rk__ltable *)tb;
	if (lt->aset) {
		local_flush(tb); /* its requests point into the sets; errors: rk_table_flush */
		for (int i = 0; i < 2; i++) {
			for (unsigned k = 0; k < lt->st->nservers; k++) {
				rk_ebatch__free(lt->aset[i].reqs[k].batch);
				free(lt->aset[i].reqs[k].acct);
			}
			free(lt->aset[i].reqs);
			rk_wdone__fini(&lt->aset[i].done);
		}
		free(lt->aset);
	}
	for (unsigned k = 0; lt->reqs && k < lt->st->nservers; k++) {
		rk_ebatch__free(lt->reqs[k].batch);
		free(lt->reqs[k].acct);
	}
	free(lt->reqs);
	free(lt->server_of);
	free(lt->key);
	atomic_fetch_sub(&lt->tm->handles, 1);
	free(lt);
}

/* ---- writes ---- */

static void wait_not_moving(rk__local *s, rk__region *r)
{
	pthread_mutex_lock(&s->move_mu);
	while (atomic_load(&r->moving))
		pthread_cond_wait(&s->move_cv, &s->move_mu);
	pthread_mutex_unlock(&s->move_mu);
}

/* Encodes muts (validated, timestamps set) into one request per region
 * server in reqs[] (nservers of them, reused) and queues those that got
 * cells, counted in *done (initialised by the caller). server_of[i], when
 * not NULL, gets each mutation's server. On an error nothing is queued. */
static int queue_batch(rk__ltable *lt, rk__wreq *reqs, rk__wdone *done, const rk_mutation *muts,
                       size_t n, unsigned *server_of)
{
	rk__local *s = lt->st;
	rk__tmeta *t = lt->tm;
	unsigned ns = s->nservers;
	int rc = 0;
	for (unsigned k = 0; k < ns; k++) {
		if (reqs[k].batch)
			rk_ebatch__clear(reqs[k].batch);
		reqs[k].nacct = 0;
		reqs[k].status = 0;
	}
retry:
	pthread_rwlock_rdlock(&s->lock);
	for (size_t i = 0; i < n; i++) {
		const rk_mutation *m = &muts[i];
		rk__region *r = rk_meta__lookup(t, m->row, m->row_len);
		if (atomic_load(&r->moving)) {
			pthread_rwlock_unlock(&s->lock);
			wait_not_moving(s, r);
			for (unsigned k = 0; k < ns; k++) {
				if (reqs[k].batch)
					rk_ebatch__clear(reqs[k].batch);
				reqs[k].nacct = 0;
			}
			goto retry;
		}
		rk__wreq *q = &reqs[r->server];
		if (server_of)
			server_of[i] = r->server;
		if (!q->batch && !(q->batch = rk_ebatch__new())) {
			pthread_rwlock_unlock(&s->lock);
			rc = rk__err(RK_ENOMEM, "table %s: out of memory", t->name);
			goto fail;
		}
		size_t rowesc = rk_cell__esc_len(m->row, m->row_len);
		uint64_t cells = 0, bytes = 0;
		size_t nf = m->type == RK_MUT_DELETE_ROW ? t->nfamilies : 1;
		for (size_t f = 0; f < nf; f++) {
			const char *fam = m->type == RK_MUT_DELETE_ROW ? t->families[f].name : m->family;
			size_t fl = strlen(fam);
			int marker = m->type == RK_MUT_DELETE_ROW || m->type == RK_MUT_DELETE_FAMILY;
			uint8_t type = marker                             ? RK_CELL_DELETE_FAMILY
			               : m->type == RK_MUT_PUT           ? RK_CELL_PUT
			               : m->type == RK_MUT_DELETE_CELL   ? RK_CELL_DELETE_CELL
			                                                 : RK_CELL_DELETE_COLUMN;
			size_t need = rk_cell__key_len(rowesc, fl, m->qualifier, m->qualifier_len, marker);
			if ((rc = grow_buf(&lt->key, &lt->key_cap, need)) != 0) {
				pthread_rwlock_unlock(&s->lock);
				goto fail;
			}
			size_t kl = rk_cell__encode(lt->key, t->id, m->row, m->row_len, fam, fl,
			                            m->qualifier, m->qualifier_len, marker, m->ts, type);
			size_t vl = type == RK_CELL_PUT ? m->value_len : 0;
			rk_ebatch__put(q->batch, lt->key, kl, type == RK_CELL_PUT ? m->value : NULL, vl);
			cells++;
			bytes += kl + vl;
		}
		if ((rc = rk_wreq__account(q, r, cells, bytes)) != 0) {
			pthread_rwlock_unlock(&s->lock);
			goto fail;
		}
	}
	int sync = s->opts.durability == RK_DURABILITY_SYNC;
	for (unsigned k = 0; k < ns; k++)
		if (reqs[k].nacct)
			done->pending++;
	for (unsigned k = 0; k < ns; k++) {
		if (!reqs[k].nacct)
			continue;
		reqs[k].sync = sync;
		reqs[k].done = done;
		rk_server__submit(&s->servers[k], &reqs[k]);
	}
	pthread_rwlock_unlock(&s->lock);
	return 0;
fail:
	for (unsigned k = 0; k < ns; k++)
		reqs[k].nacct = 0;
	return rc;
}

/* The first failure among the acknowledged requests reqs[] (0 if none). */
static int batch_status(rk__ltable *lt, const rk__wreq *reqs)
{
	rk__local *s = lt->st;
	for (unsigned k = 0; k < s->nservers; k++)
		if (reqs[k].nacct && reqs[k].status)
			return rk__err(reqs[k].status, "table %s: region server %u: write failed: %s",
			               lt->tm->name, k, rk_engine__failure(s->servers[k].engine));
	return 0;
}

static int local_apply(rk_table *tb, const rk_mutation *muts, size_t n, int *results)
{
	rk__ltable *lt = (rk__ltable *)tb;
	rk__tmeta *t = lt->tm;
	unsigned ns = lt->st->nservers;
	rk__wdone done;
	int rc;
	if (!lt->reqs && !(lt->reqs = calloc(ns, sizeof *lt->reqs)))
		return rk__err(RK_ENOMEM, "table %s: out of memory for a batch", t->name);
	if (n > lt->server_of_cap) {
		unsigned *so = realloc(lt->server_of, n * sizeof *so);
		if (!so)
			return rk__err(RK_ENOMEM, "table %s: out of memory for a batch of %zu", t->name,
			               n);
		lt->server_of = so;
		lt->server_of_cap = n;
	}
	rk_wdone__init(&done);
	rc = queue_batch(lt, lt->reqs, &done, muts, n, lt->server_of);
	if (rc) {
		if (results)
			for (size_t i = 0; i < n; i++)
				results[i] = rc;
		rk_wdone__fini(&done);
		return rc;
	}
	rk_wdone__wait(&done);
	rc = batch_status(lt, lt->reqs);
	if (results)
		for (size_t i = 0; i < n; i++)
			results[i] = lt->reqs[lt->server_of[i]].status;
	rk_wdone__fini(&done);
	return rc;
}

/* Waits for a set in flight; its first failure, if any. */
static int aset_settle(rk__ltable *lt, rk__aset *a)
{
	if (!a->in_flight)
		return 0;
	rk_wdone__wait(&a->done);
	a->in_flight = 0;
	return batch_status(lt, a->reqs);
}

static int local_flush(rk_table *tb)
{
	rk__ltable *lt = (rk__ltable *)tb;
	int rc = 0;
	for (int i = 0; lt->aset && i < 2; i++) {
		int r = aset_settle(lt, &lt->aset[lt->anext ^ i]); /* the older set first */
		if (r && !rc)
			rc = r;
	}
	return rc;
}

static int local_apply_async(rk_table *tb, const rk_mutation *muts, size_t n)
{
	rk__ltable *lt = (rk__ltable *)tb;
	unsigned ns = lt->st->nservers;
	if (!lt->aset) {
		rk__aset *a = calloc(2, sizeof *a);
		if (!a || !(a[0].reqs = calloc(ns, sizeof *a[0].reqs)) ||
		    !(a[1].reqs = calloc(ns, sizeof *a[1].reqs))) {
			if (a) {
				free(a[0].reqs);
				free(a);
			}
			return rk__err(RK_ENOMEM, "table %s: out of memory for buffered writes",
			               lt->tm->name);
		}
		rk_wdone__init(&a[0].done);
		rk_wdone__init(&a[1].done);
		lt->aset = a;
		lt->anext = 0;
	}
	rk__aset *a = &lt->aset[lt->anext];
	int rc = aset_settle(lt, a); /* the batch before the last one */
	if (rc)
		return rk__err_wrap(rc, "an earlier buffered batch failed; this one was not queued");
	if ((rc = queue_batch(lt, a->reqs, &a->done, muts, n, NULL)) != 0)
		return rc;
	a->in_flight = 1;
	lt->anext ^= 1;
	return 0;
}

/* ---- reads ---- */

/* Engine key bound just past every cell of `row`: u32(t) escbody(row) 00 02. */
static int row_end_key(uint8_t **buf, size_t *cap, size_t *len, uint32_t tid, const uint8_t *row,
                       size_t rl)
{
	int rc = grow_buf(buf, cap, 4 + 2 * rl + 2);
	if (rc)
		return rc;
	*len = rk_cell__row_bound(*buf, tid, row, rl, 0);
	(*buf)[*len - 1] = 0x02;
	return 0;
}

/* A get's working buffers (its row assembly), kept per thread from one get
 * to the next: a get then allocates only the row it returns. Freed when the
 * thread exits. */
typedef struct get_scratch {
	rk__rowbuf rb;
	rk__rowasm a;
} get_scratch;

static pthread_key_t scratch_key;
static int scratch_ok;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p)
{
	get_scratch *g = p;
	rk_rowasm__fini(&g->a);
	rk_rowbuf__fini(&g->rb);
	free(g);
}

static void scratch_init(void)
{
	scratch_ok = pthread_key_create(&scratch_key, scratch_free) == 0;
}

/* This thread's scratch; NULL (the error set) when out of memory. */
static get_scratch *get_scratch_take(void)
{
	pthread_once(&scratch_once, scratch_init);
	get_scratch *g = scratch_ok ? pthread_getspecific(scratch_key) : NULL;
	if (g)
		return g;
	g = calloc(1, sizeof *g);
	if (!g) {
		rk__err(RK_ENOMEM, "out of memory reading a row");
		return NULL;
	}
	if (scratch_ok && pthread_setspecific(scratch_key, g) != 0) {
		free(g);
		rk__err(RK_ENOMEM, "out of memory reading a row");
		return NULL;
	}
	return g;
}

/* After a get: frees a scratch that could not be kept per thread, and the
 * row buffer of one that held a large row (kept, it would stay that large). */
static void get_scratch_done(get_scratch *g)
{
	if (!scratch_ok)
		scratch_free(g);
	else if (g->rb.cap > (1u << 20))
		rk_rowbuf__fini(&g->rb);
}

static int local_get(rk_row **out, rk_table *tb, const uint8_t *row, size_t len,
                     const rk_read_options *ro)
{
	rk__ltable *lt = (rk__ltable *)tb;
	rk__local *s = lt->st;
	/* the row's engine range [lo, hi) on the stack for rows up to 120 bytes */
	uint8_t lo_st[256], hi_st[256];
	uint8_t *lo = lo_st, *hi = hi_st, *lo_heap = NULL, *hi_heap = NULL;
	size_t lo_len, hi_len, cap = 0;
	int rc;
	char b1[200];
	if (4 + 2 * len + 2 > sizeof hi_st) {
		if ((rc = row_end_key(&hi_heap, &cap, &hi_len, lt->tm->id, row, len)) != 0)
			return rc;
		if (!(lo_heap = malloc(hi_len))) {
			free(hi_heap);
			return rk__err(RK_ENOMEM, "out of memory reading a row");
		}
		lo = lo_heap;
		hi = hi_heap;
	} else {
		hi_len = rk_cell__row_bound(hi, lt->tm->id, row, len, 0);
		hi[hi_len - 1] = 0x02;
	}
	memcpy(lo, hi, hi_len);
	lo_len = hi_len;
	lo[lo_len - 1] = 0x01;

	get_scratch *g = get_scratch_take();
	if (!g) {
		rc = RK_ENOMEM;
		goto out;
	}
	rk__rowasm *a = &g->a;
	rk_rowasm__reinit(a, tb, ro, &g->rb);

	pthread_rwlock_rdlock(&s->lock);
	rk__region *r = rk_meta__lookup(lt->tm, row, len);
	unsigned srv = r->server;
	rk__eiter *it = rk_eiter__take(s->servers[srv].engine);
	pthread_rwlock_unlock(&s->lock);

	if ((rc = rk_rowasm__begin(a, row, len)) != 0)
		goto out_it;
	for (rk_eiter__seek(it, lo, lo_len); rk_eiter__valid(it); rk_eiter__next(it)) {
		size_t kl, vl;
		const uint8_t *k = rk_eiter__key(it, &kl);
		if (!key_lt(k, kl, hi, hi_len))
			break;
		const uint8_t *v = rk_eiter__value(it, &vl);
		rk__cellkey ck;
		if ((rc = rk_cell__decode(&ck, k, kl)) != 0) {
			rk__err_wrap(rc, "table %s: region %llu (server %u)", tb->name,
			             (unsigned long long)r->id, srv);
			goto out_it;
		}
		if ((rc = rk_rowasm__add(a, &ck, v, vl)) != 0)
			goto out_it;
	}
	if ((rc = rk_eiter__status(it)) != 0) {
		rk__err_wrap(rc, "table %s: region %llu", tb->name, (unsigned long long)r->id);
		goto out_it;
	}
	size_t nc = rk_rowasm__finish(a);
	int64_t now = rk_metrics__now_ms();
	uint64_t bytes = rk_rowbuf__bytes(&g->rb);
	rk_metrics__add(&r->metrics, now, s->opts.metrics_bucket_ms, 0, nc, 0, bytes);
	rk_metrics__add(&s->servers[srv].metrics, now, s->opts.metrics_bucket_ms, 0, nc, 0, bytes);
	rk_server__admit_read(&s->servers[srv], 1, bytes);
	if (nc == 0)
		rc = rk__err(RK_ENOTFOUND, "table %s: row '%s' not found", tb->name,
		             rk__err_bytes(b1, sizeof b1, row, len));
	else
		rc = rk_rowbuf__copy(out, &g->rb.row);
out_it:
	rk_eiter__give_back(it);
	get_scratch_done(g);
out:
	free(lo_heap);
	free(hi_heap);
	return rc;
}

/* ---- scans ---- */

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
	rk__rowbuf buf;
	rk__rowasm a;
} rk__lscan;

static int set_resume(rk__lscan *sc, const uint8_t *row, size_t len)
{
	int rc = grow_buf(&sc->resume, &sc->resume_cap, len + 1);
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
	int rc = grow_buf(buf, cap, 4 + 2 * rl + 2);
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
	rk_metrics__add(&sc->region->metrics, now, b, 0, sc->m_cells, 0, sc->m_bytes);
	rk_metrics__add(&sc->st->servers[sc->server].metrics, now, b, 0, sc->m_cells, 0,
	                sc->m_bytes);
	rk_server__admit_read(&sc->st->servers[sc->server], 0, sc->m_bytes);
	sc->m_cells = sc->m_bytes = sc->m_rows = 0;
}

static void local_scan_close(rk_scan *base)
{
	rk__lscan *sc = (rk__lscan *)base;
	if (sc->region)
		flush_scan_metrics(sc);
	rk_eiter__free(sc->it);
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
	rk_rowbuf__fini(&sc->buf);
	free(sc);
}

static int local_scan_open(rk_scan **out, rk_table *tb, const rk_scan_options *so)
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
	rk_rowasm__init(&sc->a, tb, &sc->ro, &sc->buf);
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
	local_scan_close(&sc->base);
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

static int end_segment(rk__lscan *sc)
{
	flush_scan_metrics(sc);
	int rc = rk_eiter__status(sc->it);
	rk_eiter__free(sc->it);
	sc->it = NULL;
	if (rc)
		return rk__err_wrap(rc, "table %s: region %llu", sc->lt->base.name,
		                    (unsigned long long)sc->region->id);
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
	if ((rc = grow_buf(&sc->rowkey, &sc->rowkey_cap, pl)) != 0)
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

static int local_scan_next(const rk_row **out, rk_scan *base)
{
	rk__lscan *sc = (rk__lscan *)base;
	int rc;
	for (;;) {
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
		size_t kl;
		const uint8_t *k;
		if (sc->have_next) {
			/* the key read_row stopped on: the iterator has not moved since */
			k = sc->next_k;
			kl = sc->next_kl;
			sc->have_next = 0;
		} else {
			k = rk_eiter__valid(sc->it) ? rk_eiter__key(sc->it, &kl) : NULL;
		}
		if (!k || (!sc->reverse && !key_lt(k, kl, sc->seg_hi, sc->seg_hi_len)) ||
		    (sc->reverse && key_lt(k, kl, sc->seg_lo, sc->seg_lo_len))) {
			if ((rc = end_segment(sc)) != 0)
				return rc;
			continue;
		}
		if (!sc->reverse) {
			if ((rc = read_row(sc, k, kl, &sc->next_k, &sc->next_kl)) != 0)
				return rc;
			sc->have_next = 1;
		} else {
			/* go to the row's first cell, read forward, then step before it */
			rk__cellkey ck;
			const uint8_t *nk;
			size_t nkl;
			if ((rc = rk_cell__decode_row(&ck, k, kl)) != 0)
				return rk__err_wrap(rc, "table %s: region %llu", sc->lt->base.name,
				                    (unsigned long long)sc->region->id);
			size_t pl = ck.row_part_end;
			if ((rc = grow_buf(&sc->rowend, &sc->rowend_cap, pl)) != 0)
				return rc;
			memcpy(sc->rowend, k, pl);
			sc->rowend_len = pl;
			rk_eiter__seek(sc->it, sc->rowend, sc->rowend_len);
			k = rk_eiter__key(sc->it, &kl);
			if ((rc = read_row(sc, k, kl, &nk, &nkl)) != 0)
				return rc;
			rk_eiter__seek(sc->it, sc->rowend, sc->rowend_len);
			if (rk_eiter__valid(sc->it))
				rk_eiter__prev(sc->it);
		}
		size_t nc = rk_rowasm__finish(&sc->a);
		if (nc == 0)
			continue;
		sc->m_cells += nc;
		sc->m_bytes += rk_rowbuf__bytes(&sc->buf);
		if (++sc->m_rows >= 4096)
			flush_scan_metrics(sc);
		sc->returned++;
		*out = &sc->buf.row;
		return 0;
	}
}

/* ---- regions, servers ---- */

static int local_regions(rk_region_info **out, size_t *count, rk_store *st, const char *table)
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

static int local_servers(rk_server_info **out, size_t *count, rk_store *st)
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

static int local_region_split(rk_store *st, uint64_t id, const uint8_t *at, size_t at_len)
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
		if (!key_lt(k, kl, hi, hilen))
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

static int local_region_move(rk_store *st, uint64_t id, unsigned dst)
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
	rc = meta_snapshot(s, &buf, &len, &seq);
	pthread_rwlock_unlock(&s->lock);
	if (!rc)
		rc = meta_persist(s, buf, len, seq);
	if (rc) {
		pthread_rwlock_wrlock(&s->lock);
		r->server = src;
		pthread_rwlock_unlock(&s->lock);
		rk_engine__delete_range(s->servers[dst].engine, r->lo, r->lo_len, r->hi, r->hi_len, 0);
		end_move(s, r);
		return rk__err_wrap(rc, "moving region %llu", (unsigned long long)id);
	}
	end_move(s, r);
	/* readers that looked the region up before the switch hold snapshots */
	return rk_engine__delete_range(s->servers[src].engine, r->lo, r->lo_len, r->hi, r->hi_len, 0);
}

static int local_balance(size_t *out, rk_store *st)
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
			/* the same pick the analyzer's simulator makes (sim_hooks.c) */
			const rk__tmeta *tm = s->meta.tables[t];
			size_t idx;
			if (rk_meta__balance_pick(&idx, &to, tm, s->nservers, count))
				move_id = tm->regions[idx]->id;
		}
		pthread_rwlock_unlock(&s->lock);
		if (!move_id)
			break;
		if ((rc = local_region_move(st, move_id, to)) != 0)
			break;
		++*out;
	}
	free(count);
	return rc;
}

/* ---- check ---- */

typedef struct checker {
	size_t problems;
	void (*report)(const char *, void *);
	void *payload;
} checker;

static void problem(checker *c, const char *fmt, ...) RK_PRINTF(2, 3);

static void problem(checker *c, const char *fmt, ...)
{
	char msg[1200];
	va_list ap;
	c->problems++;
	if (!c->report || c->problems > 1000)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->report(msg, c->payload);
}

typedef struct file_checker {
	checker *c;
	unsigned server;
} file_checker;

static void damaged_file(const char *file, const char *why, void *payload)
{
	file_checker *f = payload;
	problem(f->c, "server %u: table file %s: %s", f->server, file, why);
}

static int local_check(size_t *out, rk_store *st, void (*report)(const char *, void *),
                       void *payload)
{
	rk__local *s = (rk__local *)st;
	checker c = {0, report, payload};
	char b1[200];
	uint8_t *row = NULL;
	size_t row_cap = 0;
	int rc = 0;
	pthread_rwlock_rdlock(&s->lock);
	for (size_t t = 0; t < s->meta.ntables; t++)
		if (rk_meta__validate_table(&s->meta, s->meta.tables[t]))
			problem(&c, "meta: %s", rk_error_last());
	for (unsigned i = 0; i < s->nservers; i++) {
		rk__engine *e = s->servers[i].engine;
		rk__eiter *it = rk_eiter__new(e);
		for (rk_eiter__seek_first(it); rk_eiter__valid(it); rk_eiter__next(it)) {
			size_t kl, vl;
			const uint8_t *k = rk_eiter__key(it, &kl);
			rk_eiter__value(it, &vl);
			rk__cellkey ck;
			if (rk_cell__decode(&ck, k, kl)) {
				problem(&c, "server %u (%s): key '%s': %s", i, rk_engine__path(e),
				        rk__err_bytes(b1, sizeof b1, k, kl), rk_error_last());
				continue;
			}
			rk__tmeta *t = rk_meta__table_by_id(&s->meta, ck.table_id);
			if (!t) {
				problem(&c, "server %u (%s): cell of unknown table id %u", i,
				        rk_engine__path(e), ck.table_id);
				continue;
			}
			if ((rc = grow_buf(&row, &row_cap, ck.row_len + 1)) != 0)
				break;
			size_t rl = rk_cell__unesc(row, ck.row, ck.row_len);
			if (!rk_store__family(&(struct rk_table){.families = t->families,
			                                         .nfamilies = t->nfamilies},
			                      (const char *)ck.family, ck.family_len))
				problem(&c, "server %u: table %s: row '%s': cell of undeclared family '%.*s'",
				        i, t->name, rk__err_bytes(b1, sizeof b1, row, rl), (int)ck.family_len,
				        (const char *)ck.family);
			if (ck.type != RK_CELL_PUT && vl)
				problem(&c, "server %u: table %s: row '%s': delete marker carries %zu value "
				            "bytes",
				        i, t->name, rk__err_bytes(b1, sizeof b1, row, rl), vl);
			rk__region *r = rk_meta__lookup(t, row, rl);
			if (r->server != i)
				problem(&c, "server %u: table %s: row '%s' lies in region %llu, held by "
				            "server %u, not by this server",
				        i, t->name, rk__err_bytes(b1, sizeof b1, row, rl),
				        (unsigned long long)r->id, r->server);
		}
		int st_rc = rk_eiter__status(it);
		if (st_rc)
			problem(&c, "server %u: engine read failed: %s", i, rk_error_last());
		rk_eiter__free(it);
		if (rc)
			break;
		/* each table file on its own, naming the damaged one */
		file_checker fc = {&c, i};
		rk_engine__verify_tables(e, damaged_file, &fc);
	}
	pthread_rwlock_unlock(&s->lock);
	free(row);
	*out = c.problems;
	if (rc)
		return rc;
	if (c.problems)
		return rk__err(RK_ECORRUPT, "store %s: %zu problem%s found", s->dir, c.problems,
		               c.problems == 1 ? "" : "s");
	return 0;
}

/* ---- metrics file ---- */

static void hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

static int id_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int write_metrics_file(rk__local *s, const char *path)
{
	char def[4200], tmp[4300];
	uint64_t *ids = NULL;
	size_t nids = 0, capids = 0;
	if (!path) {
		snprintf(def, sizeof def, "%s/metrics.tsv", s->dir);
		path = def;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return rk__err(RK_EIO, "metrics file %s: %s", tmp, strerror(errno));
	int rc = 0;
	pthread_rwlock_rdlock(&s->lock);
	fprintf(f, "# rowkey metrics v1 bucket_ms=%u servers=%u\n", s->opts.metrics_bucket_ms,
	        s->nservers);
	for (rk__region *r = s->meta.all_regions; r; r = r->next_all) {
		if (nids == capids) {
			size_t c = capids ? capids * 2 : 64;
			uint64_t *q = realloc(ids, c * sizeof *q);
			if (!q) {
				rc = rk__err(RK_ENOMEM, "out of memory writing metrics");
				goto out;
			}
			ids = q;
			capids = c;
		}
		ids[nids++] = r->id;
	}
	if (nids)
		qsort(ids, nids, sizeof *ids, id_cmp);
	/* earlier runs: their buckets, and the region lines this run does not supersede */
	for (const char *p = s->metrics_base, *e = p ? p + s->metrics_base_len : NULL; p && p < e;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(e - p);
		int keep = 1;
		if (!strncmp(p, "region\t", 7)) {
			uint64_t id = strtoull(p + 7, NULL, 10);
			keep = !nids || !bsearch(&id, ids, nids, sizeof *ids, id_cmp);
		}
		if (keep)
			fwrite(p, 1, n, f);
		p += n;
	}
	for (rk__region *r = s->meta.all_regions; r; r = r->next_all) {
		fprintf(f, "region\t%" PRIu64 "\t%s\t%u\t", r->id, r->table->name, r->server);
		hex(f, r->start, r->start_len);
		fputc('\t', f);
		if (r->end)
			hex(f, r->end, r->end_len);
		else
			fputc('-', f);
		fputc('\n', f);
	}
	for (rk__region *r = s->meta.all_regions; r && !rc; r = r->next_all)
		rc = rk_metrics__dump(&r->metrics, f, "r", r->id);
	for (unsigned i = 0; i < s->nservers && !rc; i++)
		rc = rk_metrics__dump(&s->servers[i].metrics, f, "s", i);
out:
	pthread_rwlock_unlock(&s->lock);
	free(ids);
	if (fclose(f) && !rc)
		rc = rk__err(RK_EIO, "metrics file %s: %s", tmp, strerror(errno));
	if (!rc && rename(tmp, path))
		rc = rk__err(RK_EIO, "metrics file %s: %s", path, strerror(errno));
	if (rc)
		unlink(tmp);
	return rc;
}

static int local_write_metrics(rk_store *st, const char *path)
{
	return write_metrics_file((rk__local *)st, path);
}

static const struct rk_backend_ops local_ops = {
	"local",
	local_close,
	local_sync,
	local_table_create,
	local_table_drop,
	local_table_list,
	local_table_open,
	local_table_close,
	local_apply,
	local_get,
	local_scan_open,
	local_scan_next,
	local_scan_close,
	local_regions,
	local_servers,
	local_region_split,
	local_region_move,
	local_balance,
	local_check,
	local_write_metrics,
	local_clock,
	local_apply_async,
	local_flush,
	local_table_prop_set,
	local_table_prop_get,
	local_family_set,
	local_family_drop,
};
