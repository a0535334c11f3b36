/*
 * The local backend: an HBase-style cluster inside one process. This file
 * opens and closes it; local_int.h lists where the rest is.
 *
 * A store directory holds the meta map (META), one LevelDB engine per region
 * server (rs-000, rs-001, ...) and the metrics file. Open takes DIR/LOCK,
 * reads META (or starts a new store), settles the settings kept there (split
 * threshold, server capacity), opens the engines, sweeps the cells no region
 * owns (what a crash in a move or a drop left), sizes the regions and starts
 * the splitter and the region servers' writer threads. Close stops them in
 * the reverse order and writes the metrics file.
 *
 * Every change of the meta map is written through meta_persist.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "key/error.h"
#include "store/cell.h"
#include "store/local/local.h"
#include "store/local/local_int.h"
#include "store/local/split.h"

static const struct rk_backend_ops local_ops;

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

/* ---- open and recovery ---- */

static int lock_dir(rk__local *s)
{
	return rk_dirlock__acquire(&s->dirlock, s->dir);
}

/* Only keys that decode are touched; anything else is left for
 * rk_store_check to report. Deletes the cells on server srv that no region of that server owns (what
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
	rk_local__splitter_stop(s);
	for (unsigned i = 0; s->servers && i < s->nservers; i++)
		rk_server__stop(&s->servers[i]);
	for (unsigned i = 0; s->servers && i < s->nservers; i++) {
		rk_engine__close(s->servers[i].engine);
		if (s->servers[i].bucket_ms)
			rk_metrics__fini(&s->servers[i].metrics);
	}
	free(s->servers);
	rk_ecache__free(s->cache); /* after the engines that shared it */
	free(s->split_q);
	rk_meta__fini(&s->meta);
	pthread_rwlock_destroy(&s->lock);
	pthread_mutex_destroy(&s->persist_mu);
	pthread_mutex_destroy(&s->move_mu);
	pthread_cond_destroy(&s->move_cv);
	pthread_mutex_destroy(&s->split_mu);
	pthread_cond_destroy(&s->split_cv);
	rk_dirlock__release(&s->dirlock); /* after the engines closed */
	rk_metrics_free(s->mbase);
	free(s->dir);
	free(s);
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

/* The capacity of each region server, kept in META as the
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

/* The directory made when missing (create_if_missing) and locked. */
static int open_dir(rk__local *s)
{
	struct stat st;
	const char *dir = s->dir;
	if (stat(dir, &st)) {
		if (errno != ENOENT || !s->opts.create_if_missing)
			return rk__err(RK_ENOTFOUND, "store %s: %s", dir, strerror(errno));
		if (mkdir(dir, 0755) && errno != EEXIST)
			return rk__err(RK_EIO, "store %s: cannot create: %s", dir, strerror(errno));
	} else if (!S_ISDIR(st.st_mode)) {
		return rk__err(RK_EINVALID, "store %s: not a directory", dir);
	}
	return lock_dir(s);
}

/* META read into s->meta (*fresh: there is none, a new store) and its
 * settings settled; saved at once when they changed on an existing store. */
static int load_meta(rk__local *s, int *fresh)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int save = 0;
	int rc = rk_meta__read(&buf, &len, s->dir);
	*fresh = 0;
	if (rc == RK_ENOTFOUND) {
		if (!s->opts.create_if_missing)
			return rk__err(RK_ENOTFOUND, "store %s: no META file (not a rowkey store)", s->dir);
		*fresh = 1; /* META is written once the engines exist */
		rc = 0;
	} else if (rc == 0) {
		char path[4200];
		snprintf(path, sizeof path, "%s/META", s->dir);
		rc = rk_meta__decode(&s->meta, buf, len, path);
	}
	free(buf);
	buf = NULL;
	if (!rc)
		rc = settle_split_threshold(s, *fresh, &save);
	if (!rc && !*fresh && save &&
	    !(rc = rk_meta__encode(&buf, &len, &s->meta)))
		rc = rk_meta__save(s->dir, buf, len);
	free(buf);
	return rc;
}

/* One engine per region server (every one must be there unless the store
 * is new); a new store's engines must hold nothing (else META was lost). */
static int open_engines(rk__local *s, int fresh)
{
	struct stat st;
	int rc;
	/* every engine keeps its list of expected logs (WALS) once META says so */
	const uint8_t *wv;
	size_t wn;
	int wals = rk_meta__prop_get(&s->meta.props, "wals", &wv, &wn) == 0 && wn == 1 && wv[0] == '1';
	for (unsigned i = 0; i < s->nservers; i++) {
		char path[4200];
		rk__engine_options eo = {s->opts.write_buffer_size, fresh, 1, NULL, NULL, s->cache, wals};
		snprintf(path, sizeof path, "%s/rs-%03u", s->dir, i);
		if (!fresh && stat(path, &st))
			return rk__err(RK_ECORRUPT, "store %s: region server %u's engine %s is missing",
			               s->dir, i, path);
		if ((rc = rk_engine__open(&s->servers[i].engine, path, &eo)) != 0)
			return rc;
		s->servers[i].id = i;
	}
	for (unsigned i = 0; fresh && i < s->nservers; i++) {
		/* engines with data but no META: the meta map was lost; refuse
		 * rather than reuse the data under new table ids */
		rk__eiter *it = rk_eiter__new(s->servers[i].engine);
		rk_eiter__seek_first(it);
		/* a first block that cannot be read holds data too */
		int has_data = rk_eiter__valid(it) || rk_eiter__status(it) != 0;
		rk_eiter__free(it);
		if (has_data)
			return rk__err(RK_ECORRUPT,
			               "store %s: no META file, but engine %s holds data (the meta map "
			               "was lost; restore META or move the directory away)",
			               s->dir, rk_engine__path(s->servers[i].engine));
	}
	return 0;
}

/* The settings that need the engines (capacity; every engine keeps a WALS
 * now), and META written when new or changed: only now, so a crash before
 * this leaves no META and the next open starts afresh over whatever empty
 * engines exist. */
static int settle_and_save(rk__local *s, int fresh, uint64_t *cap_ops, uint64_t *cap_bytes)
{
	uint8_t *buf = NULL;
	size_t len;
	const uint8_t *v;
	size_t n;
	int save = fresh;
	int rc = server_capacity(s, cap_ops, cap_bytes, &save);
	if (!rc && !(rk_meta__prop_get(&s->meta.props, "wals", &v, &n) == 0 && n == 1 && v[0] == '1')) {
		rc = rk_meta__prop_set(&s->meta.props, "wals", "1", 1);
		save = 1;
	}
	if (!rc && save && !(rc = rk_meta__encode(&buf, &len, &s->meta)))
		rc = rk_meta__save(s->dir, buf, len);
	free(buf);
	return rc;
}

/* Cells no region on their server owns swept, region sizes measured. */
static int recover(rk__local *s)
{
	int rc;
	for (unsigned i = 0; i < s->nservers; i++) {
		int read_rc = 0;
		if ((rc = remove_orphans(s, i, &read_rc)) != 0)
			return rc;
		if (read_rc == RK_ENOMEM)
			return read_rc;
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
	return 0;
}

/* The splitter (when asked for) and the region servers' writer threads. */
static int start_threads(rk__local *s, uint64_t cap_ops, uint64_t cap_bytes)
{
	int rc;
	/* grown regions are queued whenever there is a threshold; without the
	 * background thread they wait for rk_store_split_due */
	if (s->opts.background_splits && s->opts.split_threshold) {
		if (pthread_create(&s->split_thread, NULL, rk_local__splitter_main, s))
			return rk__err(RK_EIO, "store %s: cannot start the split thread", s->dir);
		s->split_started = 1;
	}
	s->splits_on = s->opts.split_threshold != 0;
	for (unsigned i = 0; i < s->nservers; i++) {
		s->servers[i].bucket_ms = s->opts.metrics_bucket_ms;
		s->servers[i].cap_ops = cap_ops;
		s->servers[i].cap_bytes = cap_bytes;
		s->servers[i].grew = rk_local__region_grew;
		s->servers[i].payload = s;
		if ((rc = rk_server__start(&s->servers[i])) != 0)
			return rc;
	}
	return 0;
}

int rk_local__open(rk_store **out, const char *dir, const rk_store_options *opts)
{
	int rc, fresh;
	uint64_t cap_ops = 0, cap_bytes = 0;
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
	if ((rc = open_dir(s)) != 0 || (rc = load_meta(s, &fresh)) != 0)
		goto fail;
	s->nservers = s->meta.n_servers;
	s->servers = calloc(s->nservers, sizeof *s->servers);
	if (opts->block_cache_size)
		s->cache = rk_ecache__new(opts->block_cache_size);
	if (!s->servers || (opts->block_cache_size && !s->cache)) {
		rc = rk__err(RK_ENOMEM, "store %s: out of memory", dir);
		goto fail;
	}
	if ((rc = open_engines(s, fresh)) != 0)
		goto fail;
	rk_local__metrics_load(s);
	if ((rc = settle_and_save(s, fresh, &cap_ops, &cap_bytes)) != 0 || (rc = recover(s)) != 0 ||
	    (rc = start_threads(s, cap_ops, cap_bytes)) != 0)
		goto fail;
	*out = &s->base;
	return 0;
fail:
	local_free(s);
	return rc;
}

int rk_local__close(rk_store *st)
{
	rk__local *s = (rk__local *)st;
	/* stop splits and drain writes first so the metrics are complete */
	rk_local__splitter_stop(s);
	for (unsigned i = 0; i < s->nservers; i++)
		rk_server__stop(&s->servers[i]);
	int rc = rk_local__metrics_write(s, NULL);
	if (rc) /* what was written is in the logs; only the counters are lost */
		rc = rk__err_wrap(rc, "the store's metrics could not be saved");
	local_free(s);
	return rc;
}

int rk_local__sync(rk_store *st)
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

static const struct rk_backend_ops local_ops = {
	.name = "local",
	.close = rk_local__close,
	.sync = rk_local__sync,
	.table_create = rk_local__table_create,
	.table_drop = rk_local__table_drop,
	.table_list = rk_local__table_list,
	.table_open = rk_local__table_open,
	.table_close = rk_local__table_close,
	.apply = rk_local__apply,
	.get = rk_local__get,
	.scan_open = rk_local__scan_open,
	.scan_next = rk_local__scan_next,
	.scan_close = rk_local__scan_close,
	.regions = rk_local__regions,
	.servers = rk_local__servers,
	.region_split = rk_local__region_split,
	.region_move = rk_local__region_move,
	.balance = rk_local__balance,
	.check = rk_local__check,
	.write_metrics = rk_local__write_metrics,
	.clock = local_clock,
	.apply_async = rk_local__apply_async,
	.flush = rk_local__flush,
	.table_prop_set = rk_local__table_prop_set,
	.table_prop_get = rk_local__table_prop_get,
	.tables_rename = rk_local__tables_rename,
	.family_set = rk_local__family_set,
	.family_drop = rk_local__family_drop,
	.split_due = rk_local__split_due,
	.metrics = rk_local__metrics,
	.collect = rk_local__collect,
	.check_and_mutate = rk_local__check_and_mutate,
	.read_modify_write = rk_local__read_modify_write,
};
