/*
 * The local backend's tables: create (regions from the split points, spread
 * over the servers), drop (META first, then the cells), list, open and close
 * handles, table settings (META props) and column families. Every change is
 * made under the meta write lock and saved before it returns; a failed save
 * puts the meta map back as it was.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/cell.h"
#include "store/local/local_int.h"
#include "store/local/split.h"

static int fam_cmp(const void *a, const void *b)
{
	return strcmp(((const rk__family *)a)->name, ((const rk__family *)b)->name);
}

/* The new table's families, sorted by name, each with its GC rule. */
static int create_families(rk__tmeta *t, const rk_table_def *def)
{
	int rc;
	for (size_t i = 0; i < def->nfamilies; i++) {
		snprintf(t->families[i].name, sizeof t->families[i].name, "%s", def->families[i].name);
		t->families[i].name_len = strlen(t->families[i].name);
		t->nfamilies = i + 1; /* freed with the table from here on */
		if ((rc = rk_store__family_rule(&t->families[i], &def->families[i])) != 0)
			return rc;
	}
	qsort(t->families, t->nfamilies, sizeof *t->families, fam_cmp);
	return 0;
}

static int create_props(rk__tmeta *t, const char *table, const rk_table_prop *props, size_t nprops)
{
	int rc;
	for (size_t i = 0; i < nprops; i++) {
		if (!rk_meta__prop_key_ok(props[i].key))
			return rk__err(RK_EINVALID, "table %s: setting '%s': a key is 1..%d bytes of a-z "
			               "0-9 _ .", table, props[i].key, RK__PROP_KEY_MAX);
		if ((rc = rk_meta__prop_set(&t->props, props[i].key, props[i].val, props[i].len)) != 0)
			return rc;
	}
	return 0;
}

/* The new table's regions, one per split point and one more, round-robin
 * over the servers (table N's first on server N - 1); each splits at the
 * size its server's share of regions gives. */
static int create_regions(rk__local *s, rk__tmeta *t, const rk_table_def *def)
{
	for (size_t i = 0; i <= def->nsplits; i++) {
		const rk_bytes *a = i ? &def->split_points[i - 1] : NULL;
		const rk_bytes *b = i < def->nsplits ? &def->split_points[i] : NULL;
		unsigned server = (unsigned)((t->id - 1 + i) % s->nservers);
		rk__region *r = rk_meta__region_new(&s->meta, t, s->meta.next_region_id + i,
		                                    a ? a->ptr : NULL, a ? a->len : 0,
		                                    b ? b->ptr : NULL, b ? b->len : 0, server);
		if (!r)
			return RK_ENOMEM;
		if (b && !b->ptr)
			return rk__err(RK_EINVALID, "table %s: split point %zu is NULL", def->name, i);
		t->regions[i] = r;
		t->nregions = i + 1;
	}
	for (size_t i = 0; i < t->nregions; i++)
		atomic_store(&t->regions[i]->split_at_size,
		             rk_split__limit(s->opts.split_threshold,
		                             rk_meta__regions_on_server(t, t->regions[i]->server)));
	return 0;
}

int rk_local__table_create(rk_store *st, const rk_table_def *def, const rk_table_prop *props,
                           size_t nprops)
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
	if ((rc = create_families(t, def)) != 0 ||
	    (rc = create_props(t, def->name, props, nprops)) != 0 ||
	    (rc = create_regions(s, t, def)) != 0 ||
	    (rc = rk_meta__table_add(&s->meta, t)) != 0)
		goto fail;
	rk_local__kv_attach(s, t);
	int64_t now = rk_metrics__now_ms();
	for (size_t i = 0; i < t->nregions; i++)
		t->regions[i]->born_ms = now;
	s->meta.next_table_id++;
	s->meta.next_region_id += t->nregions;
	if ((rc = rk_local__meta_snapshot(s, &buf, &len, &seq)) != 0 ||
	    (rc = rk_local__meta_persist(s, buf, len, seq)) != 0) {
		rk_meta__table_remove(&s->meta, t); /* now on the dropped list, freed with meta */
		pthread_rwlock_unlock(&s->lock);
		return rc;
	}
	pthread_rwlock_unlock(&s->lock);
	return 0;
fail:
	pthread_rwlock_unlock(&s->lock);
	rk_meta__table_free(t); /* its families' rules and settings too */
	return rc;
}

int rk_local__table_drop(rk_store *st, const char *name)
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
	rc = rk_local__meta_snapshot(s, &buf, &len, &seq);
	if (!rc)
		rc = rk_local__meta_persist(s, buf, len, seq);
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

int rk_local__table_list(rk_table_info **out, size_t *count, rk_store *st)
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
			int frc = rk_store__family_def(&a[i].families[f], &t->families[f]);
			a[i].families[f].name = strdup(t->families[f].name);
			a[i].nfamilies = f + 1;
			if (frc || !a[i].families[f].name) {
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
int rk_local__table_prop_set(rk_store *st, const char *table, const char *key,
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
	if ((rc = rk_local__meta_snapshot(s, &buf, &len_meta, &seq)) != 0 ||
	    (rc = rk_local__meta_persist(s, buf, len_meta, seq)) != 0) {
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

int rk_local__table_prop_get(void **out, size_t *out_len, rk_store *st, const char *table,
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
int rk_local__family_set(rk_store *st, const char *table, const rk_family_def *fam)
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
	rk__gc *replaced = i < t->nfamilies ? t->families[i].gc : NULL;
	if ((rc = rk_store__family_rule(&fams[i], fam)) != 0) {
		free(fams);
		goto out;
	}
	rk__gc *added = fams[i].gc;
	old = t->families;
	oldn = t->nfamilies;
	t->families = fams;
	t->nfamilies = oldn + (i == oldn);
	qsort(t->families, t->nfamilies, sizeof *t->families, fam_cmp);
	if ((rc = rk_local__meta_snapshot(s, &buf, &len, &seq)) != 0 ||
	    (rc = rk_local__meta_persist(s, buf, len, seq)) != 0) {
		t->families = old;
		t->nfamilies = oldn;
		free(added);
		free(fams);
		goto out;
	}
	free(replaced);
	free(old);
out:
	pthread_rwlock_unlock(&s->lock);
	return rc;
}

/* Family `family` of table t (named `table`), when it may be dropped now:
 * its index in *fi. */
static int drop_check(size_t *fi, rk__tmeta *t, const char *table, const char *family)
{
	*fi = 0;
	while (*fi < t->nfamilies && strcmp(t->families[*fi].name, family) != 0)
		(*fi)++;
	if (*fi == t->nfamilies)
		return rk__err(RK_ENOTFOUND, "table %s has no family %s", table, family);
	if (atomic_load(&t->handles) > 0)
		return rk__err(RK_EBUSY, "table %s: %d handles still open", table,
		               atomic_load(&t->handles));
	for (size_t i = 0; i < t->nregions; i++)
		if (atomic_load(&t->regions[i]->moving))
			return rk__err(RK_EBUSY, "table %s: region %llu is moving", table,
			               (unsigned long long)t->regions[i]->id);
	return 0;
}

/* Deletes the family's cells of table t on server srv: a scan of the
 * table's keys, the deletes in synced batches of 4096. */
static int drop_cells(rk__local *s, unsigned srv, const rk__tmeta *t, const char *table,
                      const char *family)
{
	size_t fl = strlen(family);
	uint8_t lo[4], hi[4];
	int rc = 0;
	rk_cell__put_u32(lo, t->id);
	rk_cell__put_u32(hi, t->id + 1);
	rk__engine *e = s->servers[srv].engine;
	rk_server__barrier(&s->servers[srv]);
	rk__eiter *it = rk_eiter__new(e);
	rk__ebatch *b = rk_ebatch__new();
	if (!it || !b) {
		rk_eiter__free(it);
		rk_ebatch__free(b);
		return rk__err(RK_ENOMEM, "table %s: out of memory dropping family %s", table, family);
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
		rk__err_wrap(rc, "table %s: dropping family %s on server %u", table, family, srv);
	if (!rc && rk_ebatch__count(b))
		rc = rk_engine__write(e, b, 1);
	rk_eiter__free(it);
	rk_ebatch__free(b);
	return rc;
}

/* Removes family fi from t and saves META; put back if the save fails. */
static int drop_from_meta(rk__local *s, rk__tmeta *t, size_t fi)
{
	uint8_t *buf;
	size_t len;
	uint64_t seq;
	int rc;
	rk__family removed = t->families[fi];
	memmove(&t->families[fi], &t->families[fi + 1],
	        (t->nfamilies - fi - 1) * sizeof *t->families);
	t->nfamilies--;
	if ((rc = rk_local__meta_snapshot(s, &buf, &len, &seq)) != 0 ||
	    (rc = rk_local__meta_persist(s, buf, len, seq)) != 0) {
		memmove(&t->families[fi + 1], &t->families[fi],
		        (t->nfamilies - fi) * sizeof *t->families);
		t->families[fi] = removed;
		t->nfamilies++;
	} else {
		free(removed.gc);
	}
	return rc;
}

/* Deletes every cell of one family of a table, server by server, then
 * removes the family from the table and saves META. Held under the meta
 * lock, so no split, move or open happens meanwhile; refused while handles
 * are open or a region moves. A crash before the save leaves the family
 * declared and empty, never cells of an undeclared family. */
int rk_local__family_drop(rk_store *st, const char *table, const char *family)
{
	rk__local *s = (rk__local *)st;
	size_t fi;
	int rc = 0;
	pthread_rwlock_wrlock(&s->lock);
	rk__tmeta *t = rk_meta__table(&s->meta, table);
	if (!t) {
		rc = rk__err(RK_ENOTFOUND, "table %s does not exist in %s", table, s->dir);
		goto out;
	}
	if ((rc = drop_check(&fi, t, table, family)) != 0)
		goto out;
	for (unsigned i = 0; i < s->nservers && !rc; i++)
		rc = drop_cells(s, i, t, table, family);
	if (!rc)
		rc = drop_from_meta(s, t, fi);
out:
	pthread_rwlock_unlock(&s->lock);
	return rc;
}

int rk_local__table_open(rk_table **out, rk_store *st, const char *name)
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

void rk_local__table_close(rk_table *tb)
{
	rk__ltable *lt = (rk__ltable *)tb;
	if (lt->aset) {
		rk_local__flush(tb); /* its requests point into the sets; errors: rk_table_flush */
		for (int i = 0; i < 2; i++) {
			for (unsigned k = 0; k < lt->st->nservers; k++) {
				rk_ebatch__free(lt->aset[i].reqs[k].batch);
				rk_wops__fini(&lt->aset[i].reqs[k].ops);
				free(lt->aset[i].reqs[k].acct);
				rk_kvacc__fini(&lt->aset[i].reqs[k].kv);
			}
			free(lt->aset[i].reqs);
			rk_wdone__fini(&lt->aset[i].done);
		}
		free(lt->aset);
	}
	for (unsigned k = 0; lt->reqs && k < lt->st->nservers; k++) {
		rk_ebatch__free(lt->reqs[k].batch);
		rk_wops__fini(&lt->reqs[k].ops);
		free(lt->reqs[k].acct);
		rk_kvacc__fini(&lt->reqs[k].kv);
	}
	free(lt->reqs);
	free(lt->server_of);
	free(lt->key);
	atomic_fetch_sub(&lt->tm->handles, 1);
	free(lt);
}
