/*
 * DIR/metrics.tsv, the local backend's load record (docs/formats.md B.3):
 * read at open with the one reader (metrics_read.c, lenient: a damaged
 * line is dropped, a file it cannot read at all is kept aside), its
 * earlier runs kept (old region and server buckets rolled up, key buckets
 * handed to their tables' counters), and rewritten whole at close or on
 * demand: the earlier runs and this run's as one rk_metrics, the snapshot
 * rk_store_metrics gives, written by metrics_write.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/local/keyviz.h"
#include "store/local/local_int.h"
#include "store/local/metrics.h"

void rk_local__kv_attach(rk__local *s, rk__tmeta *t)
{
	if (s->opts.key_buckets && !t->kv)
		t->kv = rk_kvt__new(s->opts.metrics_bucket_ms, s->opts.key_buckets); /* NULL: not counted */
}

typedef struct born {
	uint64_t id;
	int64_t ms;
} born;

static int born_cmp(const void *a, const void *b)
{
	uint64_t x = ((const born *)a)->id, y = ((const born *)b)->id;
	return (x > y) - (x < y);
}

/* the regions of META were made in earlier runs: their birth from the file */
static void births(rk__local *s, const rk_metrics *m)
{
	born *b = malloc((m->nregions ? m->nregions : 1) * sizeof *b);
	if (!b)
		return;
	for (size_t i = 0; i < m->nregions; i++)
		b[i] = (born){m->regions[i].id, m->regions[i].born_ms};
	qsort(b, m->nregions, sizeof *b, born_cmp);
	for (rk__region *r = s->meta.all_regions; r; r = r->next_all) {
		born key = {r->id, 0}, *hit = bsearch(&key, b, m->nregions, sizeof *b, born_cmp);
		if (hit)
			r->born_ms = hit->ms;
	}
	free(b);
}

void rk_local__metrics_load(rk__local *s)
{
	char path[4200], *text = NULL;
	size_t n = 0;
	snprintf(path, sizeof path, "%s/metrics.tsv", s->dir);
	for (size_t i = 0; i < s->meta.ntables; i++)
		rk_local__kv_attach(s, s->meta.tables[i]);
	int rc = rk_metrics__slurp(&text, &n, path);
	if (rc == RK_ENOTFOUND)
		return;
	if (rc || rk_metrics__parse(&s->mbase, text, n, path, 1)) {
		/* unread: kept aside whole rather than replaced without it */
		char old[4300];
		snprintf(old, sizeof old, "%s.unread", path);
		rename(path, old);
		free(text);
		return;
	}
	free(text);
	rk_metrics__rollup(s->mbase, RK_METRICS_CARRY_MAX);
	births(s, s->mbase);
	/* key buckets go to their tables; a table no longer there takes its own along */
	for (size_t i = 0; i < s->mbase->ntables; i++) {
		rk_keyviz_table *kt = &s->mbase->tables[i];
		rk__tmeta *t = rk_meta__table(&s->meta, kt->name);
		if (t && t->kv)
			rk_kvhist__adopt(t->kv, kt); /* best effort, as all counting */
		rk_kvhist__clear(kt);
	}
}

/* ---- this run and the earlier ones as one rk_metrics ---- */

typedef struct recs {
	rk__mrec *r;
	size_t n, cap;
	rk_metrics_bucket *tmp; /* one region's or server's buckets */
	size_t ntmp, captmp;
} recs;

static int push(recs *R, char tag, uint64_t id, const rk_metrics_bucket *b)
{
	if (R->n == R->cap) {
		size_t c = R->cap ? 2 * R->cap : 1024;
		rk__mrec *q = realloc(R->r, c * sizeof *q);
		if (!q)
			return RK_ENOMEM;
		R->r = q;
		R->cap = c;
	}
	R->r[R->n++] = (rk__mrec){tag, id, *b};
	return 0;
}

static int push_live(recs *R, char tag, uint64_t id, rk__metrics *m, unsigned bucket_ms)
{
	R->ntmp = 0;
	int rc = rk_metrics__buckets(m, bucket_ms, &R->tmp, &R->ntmp, &R->captmp);
	for (size_t i = 0; !rc && i < R->ntmp; i++)
		rc = push(R, tag, id, &R->tmp[i]);
	return rc;
}

static int push_base(recs *R, char tag, const rk_metrics_series *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < s[i].n; j++)
			if (push(R, tag, s[i].id, &s[i].b[j]))
				return RK_ENOMEM;
	return 0;
}

static int dup_region(rk_metrics_region *o, uint64_t id, const char *table, unsigned server,
                      const uint8_t *start, size_t sl, const uint8_t *end, size_t el)
{
	memset(o, 0, sizeof *o);
	o->id = id;
	o->server = server;
	o->start_len = sl;
	o->end_len = el;
	if (!(o->table = strdup(table)) || !(o->start = malloc(sl + 1)) || (end && !(o->end = malloc(el + 1))))
		return RK_ENOMEM;
	if (sl)
		memcpy(o->start, start, sl);
	if (end && el)
		memcpy(o->end, end, el);
	return 0;
}

/* regions: the earlier runs' (retired unless still in META) and this run's */
static int regions(rk_metrics *m, rk__local *s, recs *R)
{
	size_t n = 0, k = 0, nb = s->mbase ? s->mbase->nregions : 0;
	for (rk__region *r = s->meta.all_regions; r; r = r->next_all)
		n++;
	if (!(m->regions = calloc(n + nb + 1, sizeof *m->regions)))
		return RK_ENOMEM;
	born *ids = malloc((n + 1) * sizeof *ids);
	if (!ids)
		return RK_ENOMEM;
	for (rk__region *r = s->meta.all_regions; r; r = r->next_all) {
		rk_metrics_region *o = &m->regions[m->nregions++];
		ids[k++] = (born){r->id, 0};
		if (dup_region(o, r->id, r->table->name, r->server, r->start, r->start_len, r->end,
		               r->end_len) ||
		    push_live(R, 'r', r->id, &r->metrics, s->opts.metrics_bucket_ms)) {
			free(ids);
			return RK_ENOMEM;
		}
		o->live = !atomic_load(&r->retired);
		o->born_ms = r->born_ms;
	}
	qsort(ids, k, sizeof *ids, born_cmp);
	for (size_t i = 0; i < nb; i++) {
		const rk_metrics_region *g = &s->mbase->regions[i];
		born key = {g->id, 0};
		if (bsearch(&key, ids, k, sizeof *ids, born_cmp))
			continue; /* this run lists it */
		rk_metrics_region *o = &m->regions[m->nregions++];
		if (dup_region(o, g->id, g->table, g->server, g->start, g->start_len, g->end, g->end_len)) {
			free(ids);
			return RK_ENOMEM;
		}
		o->born_ms = g->born_ms; /* live 0: not in META now */
	}
	free(ids);
	return 0;
}

/* each table's schema and key buckets */
static int tables(rk_metrics *m, rk__local *s, int64_t now)
{
	if (!(m->tables = calloc(s->meta.ntables + 1, sizeof *m->tables)))
		return RK_ENOMEM;
	for (size_t i = 0; i < s->meta.ntables; i++) {
		rk__tmeta *t = s->meta.tables[i];
		rk_keyviz_table *o = &m->tables[m->ntables++];
		const uint8_t *v;
		size_t vl;
		if (!(o->name = strdup(t->name)))
			return RK_ENOMEM;
		if (!rk_meta__prop_get(&t->props, "schema", &v, &vl) && !(o->schema = strndup((const char *)v, vl)))
			return RK_ENOMEM;
		if (t->kv && rk_kvhist__snapshot(o, t->kv, now))
			return RK_ENOMEM;
	}
	return 0;
}

int rk_local__metrics(rk_metrics **out, rk_store *st)
{
	rk__local *s = (rk__local *)st;
	recs R = {0};
	rk_metrics *m = calloc(1, sizeof *m);
	int rc = RK_ENOMEM;
	*out = NULL;
	if (!m)
		goto out;
	m->version = 2;
	m->bucket_ms = s->opts.metrics_bucket_ms;
	m->servers = s->nservers;
	if (s->mbase && (push_base(&R, 'r', s->mbase->region_load, s->mbase->nregion_load) ||
	                 push_base(&R, 's', s->mbase->server_load, s->mbase->nserver_load)))
		goto out;
	pthread_rwlock_rdlock(&s->lock);
	rc = regions(m, s, &R);
	for (unsigned i = 0; i < s->nservers && !rc; i++)
		rc = push_live(&R, 's', i, &s->servers[i].metrics, s->opts.metrics_bucket_ms);
	if (!rc)
		rc = tables(m, s, rk_metrics__now_ms());
	pthread_rwlock_unlock(&s->lock);
	if (!rc)
		rc = rk_metrics__index(m, R.r, R.n);
out:
	free(R.r);
	free(R.tmp);
	if (rc) {
		rk_metrics_free(m);
		return rc == RK_ENOMEM ? rk__err(RK_ENOMEM, "store %s: out of memory reading its load", s->dir)
		                       : rc;
	}
	*out = m;
	return 0;
}

int rk_local__metrics_write(rk__local *s, const char *path)
{
	char def[4200];
	rk_metrics *m;
	if (!path) {
		snprintf(def, sizeof def, "%s/metrics.tsv", s->dir);
		path = def;
	}
	int rc = rk_local__metrics(&m, &s->base);
	if (rc)
		return rc;
	rc = rk_metrics__write_file(m, path);
	rk_metrics_free(m);
	return rc;
}

int rk_local__write_metrics(rk_store *st, const char *path)
{
	return rk_local__metrics_write((rk__local *)st, path);
}
