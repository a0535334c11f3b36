/*
 * Table renames (rk_store_tables_rename) in the embedded store: a change of
 * names in the meta map, persisted in one META write (docs/formats.md B.7).
 * Cells are keyed by the table's id, so nothing else moves. Every check is
 * made before the first name changes, and a failed write puts every name
 * back, so a call renames all its tables or none.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/local/local_int.h"

/* 1 when `name` is one of the froms of v[0..n). */
static int renamed_away(const rk_table_rename *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].from, name))
			return 1;
	return 0;
}

/* The tables of the renames, after checking that each can be renamed now
 * (lock held). */
static int find_tables(rk__local *s, rk__tmeta **t, const rk_table_rename *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		t[i] = rk_meta__table(&s->meta, v[i].from);
		if (!t[i])
			return rk__err(RK_ENOTFOUND, "table %s does not exist in %s", v[i].from,
			               s->dir);
		if (atomic_load(&t[i]->handles) > 0)
			return rk__err(RK_EBUSY, "table %s: %d handles still open", v[i].from,
			               atomic_load(&t[i]->handles));
		if (rk_meta__table(&s->meta, v[i].to) && !renamed_away(v, n, v[i].to))
			return rk__err(RK_EEXISTS, "rename %s -> %s: table %s already exists in %s",
			               v[i].from, v[i].to, v[i].to, s->dir);
	}
	return 0;
}

/* Sets the names (each table taken out and put back, so the name order of
 * the meta map holds). `names` holds what each gets. */
static int set_names(rk__local *s, rk__tmeta **t, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < s->meta.ntables && s->meta.tables[k] != t[i])
			k++;
		memmove(s->meta.tables + k, s->meta.tables + k + 1,
		        (s->meta.ntables - k - 1) * sizeof *s->meta.tables);
		s->meta.ntables--;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(t[i]->name, sizeof t[i]->name, "%s", names[i]);
		int rc = rk_meta__table_add(&s->meta, t[i]);
		if (rc)
			return rc; /* out of memory: the caller cannot recover the map */
	}
	return 0;
}

int rk_local__tables_rename(rk_store *st, const rk_table_rename *v, size_t n)
{
	rk__local *s = (rk__local *)st;
	rk__tmeta *t[16];
	const char *to[16];
	char old[16][RK_MAX_TABLE_NAME_LEN + 1];
	const char *back[16];
	uint8_t *buf;
	size_t len;
	uint64_t seq;
	pthread_rwlock_wrlock(&s->lock);
	int rc = find_tables(s, t, v, n);
	if (rc) {
		pthread_rwlock_unlock(&s->lock);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		to[i] = v[i].to;
		snprintf(old[i], sizeof old[i], "%s", t[i]->name);
		back[i] = old[i];
	}
	/* the table array only shrinks and regrows here: no allocation fails
	   that the first removal did not already have room for */
	rc = set_names(s, t, to, n);
	if (!rc)
		rc = rk_local__meta_snapshot(s, &buf, &len, &seq);
	if (!rc)
		rc = rk_local__meta_persist(s, buf, len, seq);
	if (rc) {
		int rc2 = set_names(s, t, back, n);
		(void)rc2;
	}
	pthread_rwlock_unlock(&s->lock);
	return rc;
}
