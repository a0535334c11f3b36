/*
 * The Bigtable backend's tables (bt_store.h): CreateTable with one family
 * per store family and the split points as initial splits, DeleteTable,
 * ListTables + GetTable for the families, handles (counted in this process
 * only: Bigtable has none); regions from SampleRowKeys, and the maintenance
 * calls the service does itself (split, move, balance: refused). A table's
 * settings row (bt_settings.c) is made after it and removed after it; the
 * table holding those rows is left out of the listings. Tables are named
 * by rowkey names resolved to Bigtable ids (bt_names.c): every call here
 * resolves first, listings show each id under the name it answers to.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/bigtable/bt_store.h"

/* ---- tables ---- */

/* CreateTable of the id `name` resolves to, or of a fresh id when the name
 * is held empty (its own id serves another name: docs/formats.md, Part C,
 * Table names): `name-2`, `name-3`, ... (name cut to fit 50 bytes), the
 * first that is no table and no name in the row. The id into id. */
static int make_table(char id[RK_MAX_TABLE_NAME_LEN + 1], bt_store *s, const bt_names *nm,
                      const char *name, const rk_bt_family *fams, size_t nf,
                      const rk_bt_bytes *splits, size_t ns)
{
	const char *to = rk_bt__names_id(nm, name);
	int rc = RK_EEXISTS;
	if (to) {
		snprintf(id, RK_MAX_TABLE_NAME_LEN + 1, "%s", to);
		rc = rk_bt__table_create(s->c, id, fams, nf, splits, ns);
	}
	for (unsigned k = 2; !to && k < 1000 && rc == RK_EEXISTS; k++) {
		char tail[8];
		int tl = snprintf(tail, sizeof tail, "-%u", k);
		snprintf(id, RK_MAX_TABLE_NAME_LEN + 1, "%.*s%s", BT_MAX_TABLE_ID - tl, name, tail);
		if (!rk_bt__names_has(nm, id))
			rc = rk_bt__table_create(s->c, id, fams, nf, splits, ns);
	}
	if (rc == RK_EEXISTS)
		return rk__err(RK_EEXISTS, "table %s already exists in %s", name, s->uri);
	return rc < 0 ? rk__err_wrap(rc, "%s", s->uri) : 0;
}

/* Table `name` was made under the fresh id `id`: the row says so. */
static int name_fresh(bt_store *s, const bt_names *old, const char *name, const char *id)
{
	bt_names nm;
	int rc = rk_bt__names_copy(&nm, old);
	if (rc == 0 && (rc = rk_bt__names_set(&nm, name, id)) == 0 &&
	    (rc = rk_bt__names_set(&nm, id, "")) == 0)
		rc = rk_bt__names_write(s, old, &nm);
	rk_bt__names_free(&nm);
	if (rc < 0)
		rk_bt__settings_drop(s, id); /* the table goes too (the caller) */
	return rc;
}

int rk_bt__table_create_op(rk_store *st, const rk_table_def *def, const rk_table_prop *props,
                           size_t nprops)
{
	bt_store *s = (bt_store *)st;
	rk_bt_family fams[255];
	rk_bt_bytes *splits = NULL;
	if (rk_bt__is_meta(def->name))
		return rk__err(RK_EINVALID, "table %s: the name is rowkey's, for the table that holds "
		               "the other tables' settings in %s", def->name, s->uri);
	int rc = rk_bt__settings_check(def->name, props, nprops);
	if (rc)
		return rc;
	for (size_t i = 0; i < def->nfamilies; i++) {
		fams[i].gc = (rk_gc_rule *)def->families[i].gc;
		if (!fams[i].gc && def->families[i].max_versions > INT32_MAX)
			return rk__err(RK_EINVALID, "table %s: family %s: %u versions (Bigtable allows %d)",
			               def->name, def->families[i].name, def->families[i].max_versions,
			               INT32_MAX);
		fams[i].name = def->families[i].name;
		fams[i].max_versions = (int)def->families[i].max_versions;
	}
	for (size_t i = 0; i < def->nsplits; i++)
		if (def->split_points[i].len > BT_MAX_KEY)
			return rk__err(RK_ETOOLONG, "table %s: split point %zu is %zu bytes (Bigtable "
			               "row keys are at most %u)", def->name, i, def->split_points[i].len,
			               BT_MAX_KEY);
	if (def->nsplits && !(splits = calloc(def->nsplits, sizeof *splits)))
		return rk__err(RK_ENOMEM, "table %s: out of memory", def->name);
	for (size_t i = 0; i < def->nsplits; i++)
		splits[i] = (rk_bt_bytes){def->split_points[i].ptr, def->split_points[i].len};
	bt_names nm;
	char id[RK_MAX_TABLE_NAME_LEN + 1];
	if ((rc = rk_bt__names_load(&nm, s)) == 0 &&
	    (rc = make_table(id, s, &nm, def->name, fams, def->nfamilies, splits, def->nsplits)) == 0) {
		if ((rc = rk_bt__settings_create(s, id, props, nprops)) == 0 && strcmp(id, def->name))
			rc = name_fresh(s, &nm, def->name, id);
		if (rc < 0) {
			/* a table without its settings or its name is not the one asked for */
			char msg[512];
			snprintf(msg, sizeof msg, "%s", rk_error_last());
			int drc = rk_bt__table_delete(s->c, id);
			rc = rk__err(rc, "%s; table %s %s", msg, def->name,
			             drc < 0 ? "was created without them (deleting it failed too)"
			                     : "was not created");
		}
	}
	rk_bt__names_free(&nm);
	free(splits);
	return rc;
}

static bt_open *find_open(bt_store *s, const char *name)
{
	for (size_t i = 0; i < s->nopen; i++)
		if (!strcmp(s->open[i].name, name))
			return &s->open[i];
	return NULL;
}

unsigned rk_bt__handles(bt_store *s, const char *name)
{
	pthread_mutex_lock(&s->mu);
	bt_open *o = find_open(s, name);
	unsigned h = o ? o->handles : 0;
	pthread_mutex_unlock(&s->mu);
	return h;
}

int rk_bt__table_drop_op(rk_store *st, const char *name)
{
	bt_store *s = (bt_store *)st;
	unsigned h = rk_bt__handles(s, name);
	/* only this process's handles are known: Bigtable has no notion of them */
	if (h)
		return rk__err(RK_EBUSY, "table %s: %u handles still open in this process", name, h);
	if (rk_bt__is_meta(name))
		return rk__err(RK_EINVALID, "table %s holds the settings of the other tables of %s: "
		               "rowkey does not drop it", name, s->uri);
	bt_names old, nm;
	int rc = rk_bt__names_load(&old, s);
	if (rc < 0)
		return rc;
	const char *id = rk_bt__names_id(&old, name);
	rc = id ? rk_bt__table_delete(s->c, id) : RK_ENOTFOUND;
	if (rc == RK_ENOTFOUND)
		rc = rk__err(RK_ENOTFOUND, "table %s does not exist in %s", name, s->uri);
	else if (rc < 0)
		rc = rk__err_wrap(rc, "%s", s->uri);
	else if ((rc = rk_bt__settings_drop(s, id)) < 0)
		rc = rk__err_wrap(rc, "table %s is dropped but its settings row stays (a new "
		                      "table %s clears it)", name, name);
	/* the name no longer answers: the row says so, or forgets the id */
	if (rc == 0 && rk_bt__names_has(&old, name) && (rc = rk_bt__names_copy(&nm, &old)) == 0) {
		if ((rc = rk_bt__names_set(&nm, name, "")) == 0)
			rc = rk_bt__names_write(s, &old, &nm);
		if (rc < 0)
			rc = rk__err_wrap(rc, "table %s is dropped", name);
		rk_bt__names_free(&nm);
	}
	rk_bt__names_free(&old);
	return rc;
}

/* The families of `name` as the store API shows them; a family without a
 * version limit keeps UINT_MAX versions. */
int rk_bt__get_families(rk__family **out, size_t *count, bt_store *s, const char *name)
{
	rk_bt_family *f;
	size_t n;
	int rc = rk_bt__table_families(&f, &n, s->c, name);
	if (rc == RK_ENOTFOUND)
		return rk__err(RK_ENOTFOUND, "table %s does not exist in %s", name, s->uri);
	if (rc < 0)
		return rk__err_wrap(rc, "%s", s->uri);
	rk__family *v = calloc(n ? n : 1, sizeof *v);
	if (!v) {
		rk_bt__families_free(f, n);
		return rk__err(RK_ENOMEM, "table %s: out of memory", name);
	}
	for (size_t i = 0; i < n && !rc; i++) {
		snprintf(v[i].name, sizeof v[i].name, "%s", f[i].name);
		v[i].name_len = strlen(v[i].name);
		rk_family_def d = {v[i].name, f[i].max_versions > 0 ? (unsigned)f[i].max_versions
		                                                    : UINT_MAX, f[i].gc};
		rc = rk_store__family_rule(&v[i], &d);
	}
	rk_bt__families_free(f, n);
	if (rc) {
		rk_store__families_free(v, n);
		return rc;
	}
	*out = v;
	*count = n;
	return 0;
}

/* Regions of table `table` (Bigtable id `id`) from SampleRowKeys, appended
 * to *a (n entries, cap). */
int rk_bt__table_regions(rk_region_info **a, size_t *n, size_t *cap, bt_store *s,
                         const char *table, const char *id)
{
	rk_bt_sample *sm;
	size_t ns;
	int rc = rk_bt__sample_row_keys(&sm, &ns, s->c, id);
	if (rc == RK_ENOTFOUND)
		return rk__err(RK_ENOTFOUND, "table %s does not exist in %s", table, s->uri);
	if (rc < 0)
		return rk__err_wrap(rc, "%s", s->uri);
	/* tablets end at each non-empty sample key; the last one at the end */
	const uint8_t *prev = NULL;
	size_t prev_len = 0;
	int64_t prev_off = 0;
	for (size_t i = 0; i <= ns; i++) {
		int last = i == ns || sm[i].key_len == 0;
		if (!last && prev && rk_bt__bytes_cmp(sm[i].key, sm[i].key_len, prev, prev_len) <= 0) {
			rk_bt__samples_free(sm, ns);
			return rk__err(RK_ECORRUPT, "bigtable SampleRowKeys %s: sample %zu is not after "
			               "the one before", table, i);
		}
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 16;
			rk_region_info *na = realloc(*a, nc * sizeof *na);
			if (!na)
				goto nomem;
			*a = na;
			*cap = nc;
		}
		rk_region_info *r = &(*a)[*n];
		memset(r, 0, sizeof *r);
		r->id = *n + 1;
		r->table = strdup(table);
		r->start = malloc(prev_len + 1);
		if (!r->table || !r->start) {
			free(r->table);
			free(r->start);
			goto nomem;
		}
		if (prev_len)
			memcpy(r->start, prev, prev_len);
		r->start_len = prev_len;
		if (!last) {
			if (!(r->end = malloc(sm[i].key_len))) {
				free(r->table);
				free(r->start);
				goto nomem;
			}
			memcpy(r->end, sm[i].key, sm[i].key_len);
			r->end_len = sm[i].key_len;
		}
		int64_t off = i < ns ? sm[i].offset_bytes : prev_off;
		r->size_bytes = off > prev_off ? (uint64_t)(off - prev_off) : 0;
		(*n)++;
		if (last)
			break;
		prev = sm[i].key;
		prev_len = sm[i].key_len;
		prev_off = sm[i].offset_bytes;
	}
	rk_bt__samples_free(sm, ns);
	return 0;
nomem:
	rk_bt__samples_free(sm, ns);
	return rk__err(RK_ENOMEM, "out of memory listing the regions of %s", table);
}

/* A table as listed: the name it answers to, and its Bigtable id. */
typedef struct bt_listed {
	const char *name, *id;
} bt_listed;

static int listed_cmp(const void *a, const void *b)
{
	return strcmp(((const bt_listed *)a)->name, ((const bt_listed *)b)->name);
}

/* The instance's tables under the names they answer to, sorted by name:
 * *out (free it; its strings are borrowed from *ids and *nm, which the
 * caller frees with rk_bt__strv_free and rk_bt__names_free). */
static int list_named(bt_listed **out, size_t *count, char ***ids, bt_names *nm, bt_store *s)
{
	size_t n;
	int rc = rk_bt__table_list(ids, &n, s->c);
	if (rc < 0)
		return rk__err_wrap(rc, "%s", s->uri);
	if ((rc = rk_bt__names_load(nm, s)) < 0) {
		rk_bt__strv_free(*ids);
		return rc;
	}
	bt_listed *v = calloc(n ? n : 1, sizeof *v);
	if (!v) {
		rk_bt__strv_free(*ids);
		rk_bt__names_free(nm);
		return rk__err(RK_ENOMEM, "out of memory listing tables");
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = rk_bt__names_of(nm, (*ids)[i]);
		if (name && !rk_bt__is_meta((*ids)[i])) /* _rowkey_meta: rowkey's, not the user's */
			v[k++] = (bt_listed){name, (*ids)[i]};
	}
	qsort(v, k, sizeof *v, listed_cmp);
	*out = v;
	*count = k;
	return 0;
}

int rk_bt__table_list_op(rk_table_info **out, size_t *count, rk_store *st)
{
	bt_store *s = (bt_store *)st;
	char **names;
	bt_names nm;
	bt_listed *ls;
	size_t n;
	int rc = list_named(&ls, &n, &names, &nm, s);
	if (rc < 0)
		return rc;
	rk_table_info *a = calloc(n ? n : 1, sizeof *a);
	if (!a) {
		rc = rk__err(RK_ENOMEM, "out of memory listing tables");
		goto fail;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		rk__family *f = NULL;
		size_t nf = 0, nr = 0, cap = 0;
		rk_region_info *ri = NULL;
		rc = rk_bt__get_families(&f, &nf, s, ls[i].id);
		if (rc == RK_ENOTFOUND)
			continue; /* dropped meanwhile */
		if (rc == 0)
			rc = rk_bt__table_regions(&ri, &nr, &cap, s, ls[i].name, ls[i].id);
		rk_region_info_free(ri, nr);
		if (rc < 0) {
			rk_store__families_free(f, nf);
			goto fail;
		}
		rk_table_info *t = &a[k++];
		t->name = strdup(ls[i].name);
		t->families = calloc(nf ? nf : 1, sizeof *t->families);
		t->nregions = nr;
		if (!t->name || !t->families) {
			rk_store__families_free(f, nf);
			rc = rk__err(RK_ENOMEM, "out of memory listing tables");
			goto fail;
		}
		for (size_t j = 0; j < nf; j++) {
			int frc = rk_store__family_def(&t->families[j], &f[j]);
			t->families[j].name = strdup(f[j].name);
			t->nfamilies = j + 1;
			if (frc || !t->families[j].name) {
				rk_store__families_free(f, nf);
				rc = rk__err(RK_ENOMEM, "out of memory listing tables");
				goto fail;
			}
		}
		rk_store__families_free(f, nf);
	}
	free(ls);
	rk_bt__names_free(&nm);
	rk_bt__strv_free(names);
	*out = a;
	*count = k;
	return 0;
fail:
	if (a)
		rk_table_info_free(a, k);
	free(ls);
	rk_bt__names_free(&nm);
	rk_bt__strv_free(names);
	return rc;
}

int rk_bt__table_open_op(rk_table **out, rk_store *st, const char *name)
{
	bt_store *s = (bt_store *)st;
	bt_table *t = calloc(1, sizeof *t);
	if (!t)
		return rk__err(RK_ENOMEM, "table %s: out of memory", name);
	size_t nf;
	int rc = rk_bt__resolve(t->id, s, name);
	if (rc == 0 && (rc = rk_bt__get_families(&t->fams, &nf, s, t->id)) == RK_ENOTFOUND)
		rc = rk__err(RK_ENOTFOUND, "table %s does not exist in %s", name, s->uri);
	if (rc < 0) {
		free(t);
		return rc;
	}
	pthread_mutex_lock(&s->mu);
	bt_open *o = find_open(s, name);
	if (!o) {
		if (s->nopen == s->capopen) {
			size_t nc = s->capopen ? s->capopen * 2 : 8;
			bt_open *no = realloc(s->open, nc * sizeof *no);
			if (!no) {
				pthread_mutex_unlock(&s->mu);
				rk_store__families_free(t->fams, nf);
				free(t);
				return rk__err(RK_ENOMEM, "table %s: out of memory", name);
			}
			s->open = no;
			s->capopen = nc;
		}
		o = &s->open[s->nopen++];
		snprintf(o->name, sizeof o->name, "%s", name);
		o->handles = 0;
	}
	o->handles++;
	pthread_mutex_unlock(&s->mu);
	t->s = s;
	t->base.store = st;
	snprintf(t->base.name, sizeof t->base.name, "%s", name);
	t->base.families = t->fams;
	t->base.nfamilies = nf;
	t->base.bucket_prefix_len = 0;
	*out = &t->base;
	return 0;
}

void rk_bt__table_close_op(rk_table *tb)
{
	bt_table *t = (bt_table *)tb;
	bt_store *s = t->s;
	pthread_mutex_lock(&s->mu);
	bt_open *o = find_open(s, tb->name);
	if (o && o->handles && --o->handles == 0)
		*o = s->open[--s->nopen];
	pthread_mutex_unlock(&s->mu);
	rk_store__families_free(t->fams, t->base.nfamilies);
	free(t);
}

/* ---- regions and maintenance ---- */

int rk_bt__regions(rk_region_info **out, size_t *count, rk_store *st, const char *table)
{
	bt_store *s = (bt_store *)st;
	rk_region_info *a = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	if (table) {
		char id[RK_MAX_TABLE_NAME_LEN + 1];
		if ((rc = rk_bt__resolve(id, s, table)) == 0 &&
		    (rc = rk_bt__table_regions(&a, &n, &cap, s, table, id)) == RK_ENOTFOUND)
			rc = rk__err(RK_ENOTFOUND, "table %s does not exist in %s", table, s->uri);
	} else {
		char **names;
		bt_names nm;
		bt_listed *ls;
		size_t nt;
		if ((rc = list_named(&ls, &nt, &names, &nm, s)) < 0)
			return rc;
		for (size_t i = 0; i < nt && rc == 0; i++) {
			rc = rk_bt__table_regions(&a, &n, &cap, s, ls[i].name, ls[i].id);
			if (rc == RK_ENOTFOUND)
				rc = 0; /* dropped meanwhile */
		}
		free(ls);
		rk_bt__names_free(&nm);
		rk_bt__strv_free(names);
	}
	if (rc < 0) {
		rk_region_info_free(a, n);
		return rc;
	}
	if (!a && !(a = calloc(1, sizeof *a)))
		return rk__err(RK_ENOMEM, "out of memory listing regions");
	*out = a;
	*count = n;
	return 0;
}

/* Bigtable's nodes are not visible through its API: no servers to list. */
int rk_bt__servers(rk_server_info **out, size_t *count, rk_store *st)
{
	(void)st;
	*out = calloc(1, sizeof **out);
	*count = 0;
	return *out ? 0 : rk__err(RK_ENOMEM, "out of memory listing servers");
}

int rk_bt__region_split(rk_store *st, uint64_t id, const uint8_t *at, size_t at_len)
{
	(void)at;
	(void)at_len;
	return rk__err(RK_EINVALID, "region %llu: splitting is not supported by Bigtable (%s): the "
	               "service splits tablets itself; give split points when creating the table",
	               (unsigned long long)id, ((bt_store *)st)->uri);
}

int rk_bt__region_move(rk_store *st, uint64_t id, unsigned server)
{
	(void)server;
	return rk__err(RK_EINVALID, "region %llu: moving is not supported by Bigtable (%s): the "
	               "service places tablets itself", (unsigned long long)id,
	               ((bt_store *)st)->uri);
}

int rk_bt__balance(size_t *out, rk_store *st)
{
	*out = 0;
	return rk__err(RK_EINVALID, "balancing is not supported by Bigtable (%s): the service "
	               "balances tablets itself", ((bt_store *)st)->uri);
}

/* Checks what can be checked from outside: every table answers GetTable and
 * SampleRowKeys with well-formed, ordered answers. */
int rk_bt__check(size_t *out, rk_store *st, void (*report)(const char *, void *),
                    void *payload)
{
	bt_store *s = (bt_store *)st;
	char **names;
	size_t nt;
	int rc = rk_bt__table_list(&names, &nt, s->c);
	if (rc < 0)
		return rk__err_wrap(rc, "%s", s->uri);
	for (size_t i = 0; i < nt; i++) {
		rk__family *f = NULL;
		rk_region_info *ri = NULL;
		size_t nf, nr = 0, cap = 0;
		int r = rk_bt__get_families(&f, &nf, s, names[i]);
		if (r == 0)
			r = rk_bt__table_regions(&ri, &nr, &cap, s, names[i], names[i]);
		rk_store__families_free(f, nf);
		rk_region_info_free(ri, nr);
		if (r == RK_ENOTFOUND)
			continue;
		if (r == RK_ECORRUPT) {
			(*out)++;
			if (report)
				report(rk_error_last(), payload);
		} else if (r < 0) {
			rk_bt__strv_free(names);
			return r;
		}
	}
	rk_bt__strv_free(names);
	return *out ? rk__err(RK_ECORRUPT, "%s: %zu problems", s->uri, *out) : 0;
}

int rk_bt__write_metrics(rk_store *st, const char *path)
{
	if (!path)
		return 0; /* nothing is recorded for Bigtable stores */
	return rk__err(RK_EINVALID, "%s: a Bigtable store keeps no metrics file (asked for %s)",
	               ((bt_store *)st)->uri, path);
}
