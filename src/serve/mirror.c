/*
 * The live mirror of a rekey (docs/rekey.md, "While rowkey serve serves the
 * table"): while table SOURCE is being rekeyed into TARGET, every write the
 * server applies to a row of SOURCE is followed, before the call answers,
 * by that row's new-design copy in TARGET made equal to it: TARGET's row
 * at the new key is deleted and written again with every cell the old row
 * holds now (each version, its timestamp). Copying the row's state rather
 * than replaying the mutation makes the mirror exact for every kind of
 * write (a server-assigned timestamp, an increment, a check-and-mutate) and
 * idempotent.
 *
 * Order: the rows are locked by stripes (a hash of the old key) for the
 * write and its mirror, and the copy (src/cli/rekey_copy.c) holds the same
 * stripes while it re-reads a batch's old rows and writes them: so the
 * copy writes a row only as it is now (a row changed since the copy's scan
 * read it is left to the mirror, which already wrote it), and a mirror
 * write never lands between the copy's read and its write. The gate (a
 * writer-first rwlock) is taken shared by every write and exclusively to
 * turn a mirror on or off and by the verify: once a mirror is on, every
 * write that was not mirrored has finished.
 *
 * A mirror is turned on by the rekey (rk_rekey_live.mirror_on) and when
 * the server starts, for every table whose rekey checkpoint says copying,
 * copied or verified: a restart mid-copy mirrors from its first call.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "key/error.h"
#include "serve/serve_int.h"
#include "store/rekey.h"

#define NSTRIPES 64

typedef struct mirror {
	char source[RK_MAX_TABLE_NAME_LEN + 1], target[RK_MAX_TABLE_NAME_LEN + 1];
	rk_rekey_map map;
	pthread_mutex_t map_mu; /* the map's buffers are one call's at a time */
	pthread_mutex_t stripes[NSTRIPES];
	pthread_mutex_t err_mu;
	char *error; /* the first failure, kept for the verify */
	struct mirror *next;
} mirror;

struct rk_sv_mirrors {
	rk_store *store;
	rk_sv_tables *pool;
	rk_sv_catalog *catalog;
	pthread_rwlock_t gate;
	mirror *head; /* changed only under the gate, exclusively */
};

static void mirror_free(mirror *m)
{
	if (!m)
		return;
	rk_rekey__map_free(&m->map);
	pthread_mutex_destroy(&m->map_mu);
	pthread_mutex_destroy(&m->err_mu);
	for (int i = 0; i < NSTRIPES; i++)
		pthread_mutex_destroy(&m->stripes[i]);
	free(m->error);
	free(m);
}

static mirror *find(rk_sv_mirrors *ms, const char *source)
{
	for (mirror *m = ms->head; m; m = m->next)
		if (!strcmp(m->source, source))
			return m;
	return NULL;
}

/* Adds the mirror of checkpoint c (under the gate, exclusively). */
static int add(rk_sv_mirrors *ms, const rk_rekey_ckpt *c)
{
	mirror *have = find(ms, c->source);
	if (have && !strcmp(have->target, c->target))
		return 0;
	if (have)
		return rk__err(RK_EEXISTS, "table %s is already being rekeyed into %s", c->source,
		               have->target);
	mirror *m = calloc(1, sizeof *m);
	if (!m)
		return rk__err(RK_ENOMEM, "serve: out of memory");
	pthread_mutex_init(&m->map_mu, NULL);
	pthread_mutex_init(&m->err_mu, NULL);
	for (int i = 0; i < NSTRIPES; i++)
		pthread_mutex_init(&m->stripes[i], NULL);
	snprintf(m->source, sizeof m->source, "%s", c->source);
	snprintf(m->target, sizeof m->target, "%s", c->target);
	int rc = rk_rekey__map_init(&m->map, c->old_schema, c->new_schema);
	if (rc) {
		mirror_free(m);
		return rc;
	}
	m->next = ms->head;
	ms->head = m;
	return 0;
}

static void drop(rk_sv_mirrors *ms, const char *source)
{
	for (mirror **p = &ms->head; *p; p = &(*p)->next)
		if (!strcmp((*p)->source, source)) {
			mirror *m = *p;
			*p = m->next;
			mirror_free(m);
			return;
		}
}

/* The mirrors the store's checkpoints ask for (a restart mid-rekey). */
static int resume_all(rk_sv_mirrors *ms)
{
	rk_table_info *ti = NULL;
	size_t n = 0;
	int rc = rk_table_list(&ti, &n, ms->store);
	for (size_t i = 0; i < n && !rc; i++) {
		rk_rekey_ckpt c;
		if (rk_rekey__ckpt_load(&c, ms->store, ti[i].name))
			continue; /* none (or unreadable: the rekey command says so) */
		if (strcmp(c.state, "cutover") && !strcmp(c.target, ti[i].name) &&
		    rk_rekey__table_exists(ms->store, c.source) == 1) {
			rc = add(ms, &c);
			if (rc)
				rc = rk__err_wrap(rc, "serve: resuming the mirror of %s into %s", c.source,
				                  c.target);
			else
				fprintf(stderr, "rowkey serve: mirroring writes to %s into %s (a rekey in "
				                "progress)\n", c.source, c.target);
		}
		rk_rekey__ckpt_free(&c);
	}
	rk_table_info_free(ti, n);
	return rc;
}

int rk_sv__mirrors_new(rk_sv_mirrors **out, rk_store *store, rk_sv_tables *pool,
                       rk_sv_catalog *catalog)
{
	rk_sv_mirrors *ms = calloc(1, sizeof *ms);
	if (!ms)
		return rk__err(RK_ENOMEM, "serve: out of memory");
	ms->store = store;
	ms->pool = pool;
	ms->catalog = catalog;
	pthread_rwlockattr_t a;
	pthread_rwlockattr_init(&a);
	/* the verify and a mirror's start must not wait behind a stream of writes */
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&ms->gate, &a);
	pthread_rwlockattr_destroy(&a);
	int rc = resume_all(ms);
	if (rc) {
		rk_sv__mirrors_free(ms);
		return rc;
	}
	*out = ms;
	return 0;
}

void rk_sv__mirrors_free(rk_sv_mirrors *ms)
{
	if (!ms)
		return;
	while (ms->head)
		drop(ms, ms->head->source);
	pthread_rwlock_destroy(&ms->gate);
	free(ms);
}

/* ---- the stripes ---- */

static uint64_t stripes_of(const uint8_t *const *keys, const size_t *lens, size_t n)
{
	uint64_t mask = 0;
	for (size_t i = 0; i < n; i++)
		mask |= (uint64_t)1 << (XXH3_64bits(keys[i], lens[i]) % NSTRIPES);
	return mask;
}

/* Locks (ascending, so two holders never wait on each other) or unlocks. */
static void stripes(mirror *m, uint64_t mask, int hold)
{
	for (int i = 0; i < NSTRIPES; i++)
		if (mask & ((uint64_t)1 << i)) {
			if (hold)
				pthread_mutex_lock(&m->stripes[i]);
			else
				pthread_mutex_unlock(&m->stripes[i]);
		}
}

/* ---- a write's mirror ---- */

static void failed(mirror *m, const char *what)
{
	pthread_mutex_lock(&m->err_mu);
	if (!m->error) {
		size_t n = strlen(what) + 1;
		if ((m->error = malloc(n)) != NULL)
			memcpy(m->error, what, n);
		fprintf(stderr, "rowkey serve: the mirror of %s into %s failed: %s (the verify will "
		                "fail; abort this rekey)\n", m->source, m->target, what);
	}
	pthread_mutex_unlock(&m->err_mu);
}

/* Old row `key`'s new key (malloc'd) into *nk: from the old key alone when
 * the new design's key fields are all in it, else with the row's cells. */
static int new_key(uint8_t **nk, size_t *nl, mirror *m, const uint8_t *key, size_t len,
                   const rk_row *r)
{
	rk_row bare = {key, len, NULL, 0};
	pthread_mutex_lock(&m->map_mu);
	int rc = rk_rekey__map_row(&m->map, nl, &bare);
	if (rc && r)
		rc = rk_rekey__map_row(&m->map, nl, r);
	if (!rc && !(*nk = malloc(*nl)))
		rc = rk__err(RK_ENOMEM, "out of memory");
	if (!rc)
		memcpy(*nk, m->map.key, *nl);
	pthread_mutex_unlock(&m->map_mu);
	return rc;
}

/* Target's row at old row `key`'s new key made equal to the old row. */
static void resync(rk_sv_mirrors *ms, mirror *m, rk_table *old, const uint8_t *key, size_t len)
{
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	ro.max_versions = (unsigned)-1;
	rk_row *r = NULL;
	uint8_t *nk = NULL;
	size_t nl;
	rk_mutation *mv = NULL;
	rk_table *nt = NULL;
	int rc = rk_table_get(&r, old, key, len, &ro);
	if (rc == RK_ENOTFOUND)
		rc = 0, r = NULL;
	if (!rc)
		rc = new_key(&nk, &nl, m, key, len, r);
	if (!rc && !(mv = calloc(1 + (r ? r->ncells : 0), sizeof *mv)))
		rc = rk__err(RK_ENOMEM, "out of memory");
	if (rc) {
		failed(m, rk_error_last());
		goto out;
	}
	mv[0] = (rk_mutation){RK_MUT_DELETE_ROW, nk, nl, NULL, NULL, 0, RK_TS_MAX, NULL, 0, 0};
	for (size_t i = 0; r && i < r->ncells; i++) {
		const rk_cell *c = &r->cells[i];
		mv[1 + i] = (rk_mutation){RK_MUT_PUT, nk, nl, c->family, c->qualifier,
		                          c->qualifier_len, c->ts, c->value, c->value_len, 0};
	}
	if ((rc = rk_sv__table_acquire(&nt, ms->pool, m->target)) != 0 ||
	    (rc = rk_table_apply(nt, mv, 1 + (r ? r->ncells : 0), NULL)) != 0)
		failed(m, rk_error_last());
	rk_sv__table_release(ms->pool, m->target, nt);
out:
	free(mv);
	free(nk);
	rk_row_free(r);
}

void *rk_sv__mirror_enter(rk_sv_mirrors *ms, const char *table, const uint8_t *const *keys,
                          const size_t *lens, size_t n)
{
	if (!ms)
		return NULL;
	pthread_rwlock_rdlock(&ms->gate);
	mirror *m = find(ms, table);
	if (m)
		stripes(m, stripes_of(keys, lens, n), 1);
	return m;
}

void rk_sv__mirror_leave(rk_sv_mirrors *ms, void *token, rk_table *t,
                         const uint8_t *const *keys, const size_t *lens, size_t n)
{
	mirror *m = token;
	if (!ms)
		return;
	if (m) {
		for (size_t i = 0; i < n; i++)
			resync(ms, m, t, keys[i], lens[i]);
		stripes(m, stripes_of(keys, lens, n), 0);
	}
	pthread_rwlock_unlock(&ms->gate);
}

/* ---- the hooks a rekey run by the server calls (rk_rekey_live) ---- */

static int live_on(void *ctx, const rk_rekey_ckpt *c)
{
	rk_sv_mirrors *ms = ctx;
	pthread_rwlock_wrlock(&ms->gate);
	int rc = add(ms, c);
	pthread_rwlock_unlock(&ms->gate);
	return rc;
}

/* Here and in live_error the list is read without the gate: only the
 * rekey's own thread changes it once the server runs, so the mirror found
 * stays while it is used. */
static void live_rows(void *ctx, const char *source, const uint8_t *const *keys,
                      const size_t *lens, size_t n, int hold)
{
	mirror *m = find(ctx, source);
	if (m)
		stripes(m, stripes_of(keys, lens, n), hold);
}

static void live_writes(void *ctx, int hold)
{
	rk_sv_mirrors *ms = ctx;
	if (hold)
		pthread_rwlock_wrlock(&ms->gate);
	else
		pthread_rwlock_unlock(&ms->gate);
}

static void live_tables(void *ctx, const char *source, const char *const *names, size_t n,
                        int step)
{
	rk_sv_mirrors *ms = ctx;
	if (step == 0) {
		for (size_t i = 0; i < n; i++) /* the source first: its writes mirror to the target */
			rk_sv__table_block(ms->pool, names[i]);
		return;
	}
	if (step == 1) {
		pthread_rwlock_wrlock(&ms->gate);
		drop(ms, source);
		pthread_rwlock_unlock(&ms->gate);
		rk_sv__catalog_refresh(ms->catalog, names, n);
	}
	for (size_t i = 0; i < n; i++)
		rk_sv__table_unblock(ms->pool, names[i]);
}

static const char *live_error(void *ctx, const char *source)
{
	mirror *m = find(ctx, source); /* no gate: the verify may hold it */
	if (!m)
		return NULL;
	pthread_mutex_lock(&m->err_mu);
	const char *e = m->error;
	pthread_mutex_unlock(&m->err_mu);
	return e;
}

void rk_sv__mirrors_live(rk_rekey_live *out, rk_sv_mirrors *ms)
{
	*out = (rk_rekey_live){ms, live_on, live_rows, live_writes, live_tables, live_error};
}
