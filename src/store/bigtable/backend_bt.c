/*
 * The Bigtable backend of the table store (src/store/backend.h) on top of the
 * Bigtable client (bt_client.h). `rk_store_open("bigtable://P/I")` lands
 * here; every store.h call then works on Bigtable tables.
 *
 * The mapping (docs/formats.md (part C) has the wire side):
 * - tables: CreateTable with one family per rowkey family (GC rule
 *   max_num_versions) and the split points as initial splits; DeleteTable;
 *   ListTables + GetTable for the families. bucket_prefix_len is not kept:
 *   Bigtable splits and places tablets itself, so rowkey never splits there.
 * - writes: one rk_table_apply is one writer (MutateRows batches, calls in
 *   flight, retries of retryable entries). All mutations of one row go into
 *   one MutateRows entry, in call order, because Bigtable applies the entries
 *   of a request independently and in any order. Each mutation's result is
 *   its row's fate. Everything is checked before anything is sent, so a bad
 *   mutation still means nothing is written.
 * - timestamps: Bigtable tables keep milliseconds. The store's clock hands
 *   out whole milliseconds (in microseconds); an explicit put timestamp that
 *   is not a multiple of 1000 is RK_EINVALID. Deletes and read ranges are
 *   mapped exactly onto millisecond cells (see the write section).
 * - deletes: Bigtable has no time bound on family or row deletes. "Delete
 *   the family / row, versions <= ts" is therefore only accepted when ts is
 *   "now" (the timestamp the store assigned to the call, or one at or after
 *   the wall clock) and ts_from is 0; otherwise RK_EINVALID. A delete
 *   removes the cells that exist, as store.h says: a later put with an older
 *   timestamp shows.
 * - reads: ReadRows with a row set (the key, or the scan's range), a row
 *   limit and filters for columns, time range and versions. GC is lazy on
 *   Bigtable, so each family's version limit is applied here, before the
 *   time range, as store.h defines visibility (see map_read).
 *   Reverse scans are RK_EINVALID: ReadRowsRequest.reversed is not in the
 *   subset rowkey speaks (docs/formats.md (part C)).
 * - regions: the tablets SampleRowKeys reports; servers, splits, moves and
 *   balancing are the service's business (RK_EINVALID, or no servers).
 */
#include "store/bigtable/backend_bt.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/bigtable/bt_client.h"
#include "store/rowasm.h"

#define BT_MAX_QUALIFIER (16u << 10) /* Bigtable's limits */
#define BT_MAX_VALUE (100u << 20)
#define BT_MAX_KEY 4096u
#define BT_MAX_ROW_MUTATIONS 100000u

typedef struct bt_open {
	char name[RK_MAX_TABLE_NAME_LEN + 1];
	unsigned handles;
} bt_open;

typedef struct bt_store {
	struct rk_store base;
	rk_bt_client *c;
	char uri[256];
	_Atomic uint64_t acked; /* rows acknowledged since the store opened */
	pthread_mutex_t mu;     /* guards open[] */
	bt_open *open;
	size_t nopen, capopen;
} bt_store;

typedef struct bt_table {
	struct rk_table base;
	bt_store *s;
	rk__family *fams;
} bt_table;

/* A converted row: rk_cell views of a rk_bt_row, plus the names of families
 * the handle does not know (added after it was opened). */
typedef struct bt_rowconv {
	rk_cell *cells;
	size_t cap;
	char *names;
	size_t names_cap;
	rk_row row;
} bt_rowconv;

/* What the client still does to a row the server sent (see map_read). */
typedef struct bt_spec {
	unsigned want;  /* versions per column asked for */
	int local_time; /* 1: the time range is applied here, after the family limit */
	uint64_t lo, hi; /* the time range [lo, hi), hi 0: no end */
} bt_spec;

typedef struct bt_scan {
	struct rk_scan base;
	bt_table *t;
	rk_bt_scan *sc; /* NULL: an empty scan */
	bt_spec spec;
	uint64_t limit, rows; /* rows to hand out (0: all), rows handed out */
	bt_rowconv conv;
} bt_scan;

static const struct rk_backend_ops bt_ops;

/* The clock value this thread was last handed by a store, to recognise a
 * delete that store.c stamped "now" (see the file comment). */
static _Thread_local struct {
	const bt_store *s;
	uint64_t ts;
} last_clock;

static int bytes_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t m = al < bl ? al : bl;
	int c = m ? memcmp(a, b, m) : 0;
	if (c)
		return c;
	return al < bl ? -1 : al > bl;
}

/* ---- store ---- */

/* A tuning knob from the environment: *out stays 0 when it is unset. */
static int env_count(unsigned long *out, const char *name, unsigned long max)
{
	const char *v = getenv(name);
	*out = 0;
	if (!v || !*v)
		return 0;
	char *end;
	unsigned long n = strtoul(v, &end, 10);
	if (*end || n < 1 || n > max)
		return rk__err(RK_EINVALID, "%s=%s: want a whole number from 1 to %lu", name, v, max);
	*out = n;
	return 0;
}

int rk_bt__store_open(rk_store **out, const char *uri, const rk_store_options *opts)
{
	(void)opts;
	*out = NULL;
	int rc;
	bt_store *s = calloc(1, sizeof *s);
	if (!s)
		return rk__err(RK_ENOMEM, "store %s: out of memory", uri);
	if (strlen(uri) >= sizeof s->uri) {
		free(s);
		return rk__err(RK_EINVALID, "store %.80s...: URI over %zu bytes", uri,
		               sizeof s->uri - 1);
	}
	snprintf(s->uri, sizeof s->uri, "%s", uri);
	rk_bt_opts o = RK_BT_OPTS_INIT;
	/* a 1000-row apply goes out as 4 calls in flight (bench/RESULTS.md) */
	o.batch_size = 250;
	o.inflight = 4;
	unsigned long rows, calls;
	if ((rc = env_count(&rows, "RK_BIGTABLE_BATCH_ROWS", 100000)) < 0 ||
	    (rc = env_count(&calls, "RK_BIGTABLE_INFLIGHT", 256)) < 0) {
		free(s);
		return rc;
	}
	if (rows)
		o.batch_size = rows;
	if (calls)
		o.inflight = (unsigned)calls;
	rc = rk_bt__client_open(&s->c, uri, &o);
	if (rc < 0) {
		free(s);
		return rk__err_wrap(rc, "store %s", uri);
	}
	pthread_mutex_init(&s->mu, NULL);
	atomic_init(&s->acked, 0);
	s->base.ops = &bt_ops;
	*out = &s->base;
	return 0;
}

static int bt_close(rk_store *st)
{
	bt_store *s = (bt_store *)st;
	rk_bt__client_free(s->c);
	pthread_mutex_destroy(&s->mu);
	free(s->open);
	free(s);
	return 0;
}

/* Acknowledged writes are durable in Bigtable: nothing to do. */
static int bt_sync(rk_store *st)
{
	(void)st;
	return 0;
}

static uint64_t bt_clock(rk_store *st)
{
	bt_store *s = (bt_store *)st;
	uint64_t ts = (uint64_t)rk_bt__client_next_ts(s->c);
	last_clock.s = s;
	last_clock.ts = ts;
	return ts;
}

/* ---- tables ---- */

static int bt_table_create(rk_store *st, const rk_table_def *def)
{
	bt_store *s = (bt_store *)st;
	rk_bt_family fams[255];
	rk_bt_bytes *splits = NULL;
	for (size_t i = 0; i < def->nfamilies; i++) {
		if (def->families[i].max_versions > INT32_MAX)
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
	int rc = rk_bt__table_create(s->c, def->name, fams, def->nfamilies, splits, def->nsplits);
	free(splits);
	if (rc == RK_EEXISTS)
		return rk__err(RK_EEXISTS, "table %s already exists in %s", def->name, s->uri);
	return rc < 0 ? rk__err_wrap(rc, "%s", s->uri) : 0;
}

static bt_open *find_open(bt_store *s, const char *name)
{
	for (size_t i = 0; i < s->nopen; i++)
		if (!strcmp(s->open[i].name, name))
			return &s->open[i];
	return NULL;
}

static int bt_table_drop(rk_store *st, const char *name)
{
	bt_store *s = (bt_store *)st;
	pthread_mutex_lock(&s->mu);
	bt_open *o = find_open(s, name);
	unsigned h = o ? o->handles : 0;
	pthread_mutex_unlock(&s->mu);
	/* only this process's handles are known: Bigtable has no notion of them */
	if (h)
		return rk__err(RK_EBUSY, "table %s: %u handles still open in this process", name, h);
	int rc = rk_bt__table_delete(s->c, name);
	if (rc == RK_ENOTFOUND)
		return rk__err(RK_ENOTFOUND, "table %s does not exist in %s", name, s->uri);
	return rc < 0 ? rk__err_wrap(rc, "%s", s->uri) : 0;
}

/* The families of `name` as the store API shows them; a family without a
 * version limit keeps UINT_MAX versions. */
static int get_families(rk__family **out, size_t *count, bt_store *s, const char *name)
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
	for (size_t i = 0; i < n; i++) {
		snprintf(v[i].name, sizeof v[i].name, "%s", f[i].name);
		v[i].name_len = strlen(v[i].name);
		v[i].max_versions = f[i].max_versions > 0 ? (unsigned)f[i].max_versions : UINT_MAX;
	}
	rk_bt__families_free(f, n);
	*out = v;
	*count = n;
	return 0;
}

/* Regions of one table from SampleRowKeys, appended to *a (n entries, cap). */
static int table_regions(rk_region_info **a, size_t *n, size_t *cap, bt_store *s,
                         const char *table)
{
	rk_bt_sample *sm;
	size_t ns;
	int rc = rk_bt__sample_row_keys(&sm, &ns, s->c, table);
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
		if (!last && prev && bytes_cmp(sm[i].key, sm[i].key_len, prev, prev_len) <= 0) {
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

static int bt_table_list(rk_table_info **out, size_t *count, rk_store *st)
{
	bt_store *s = (bt_store *)st;
	char **names;
	size_t n;
	int rc = rk_bt__table_list(&names, &n, s->c);
	if (rc < 0)
		return rk__err_wrap(rc, "%s", s->uri);
	rk_table_info *a = calloc(n ? n : 1, sizeof *a);
	if (!a) {
		rk_bt__strv_free(names);
		return rk__err(RK_ENOMEM, "out of memory listing tables");
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		rk__family *f = NULL;
		size_t nf = 0, nr = 0, cap = 0;
		rk_region_info *ri = NULL;
		rc = get_families(&f, &nf, s, names[i]);
		if (rc == RK_ENOTFOUND)
			continue; /* dropped meanwhile */
		if (rc == 0)
			rc = table_regions(&ri, &nr, &cap, s, names[i]);
		rk_region_info_free(ri, nr);
		if (rc < 0) {
			free(f);
			goto fail;
		}
		rk_table_info *t = &a[k++];
		t->name = strdup(names[i]);
		t->families = calloc(nf ? nf : 1, sizeof *t->families);
		t->nregions = nr;
		if (!t->name || !t->families) {
			free(f);
			rc = rk__err(RK_ENOMEM, "out of memory listing tables");
			goto fail;
		}
		for (size_t j = 0; j < nf; j++) {
			t->families[j].name = strdup(f[j].name);
			t->families[j].max_versions = f[j].max_versions;
			t->nfamilies = j + 1;
			if (!t->families[j].name) {
				free(f);
				rc = rk__err(RK_ENOMEM, "out of memory listing tables");
				goto fail;
			}
		}
		free(f);
	}
	rk_bt__strv_free(names);
	*out = a;
	*count = k;
	return 0;
fail:
	rk_table_info_free(a, k);
	rk_bt__strv_free(names);
	return rc;
}

static int bt_table_open(rk_table **out, rk_store *st, const char *name)
{
	bt_store *s = (bt_store *)st;
	bt_table *t = calloc(1, sizeof *t);
	if (!t)
		return rk__err(RK_ENOMEM, "table %s: out of memory", name);
	size_t nf;
	int rc = get_families(&t->fams, &nf, s, name);
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
				free(t->fams);
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

static void bt_table_close(rk_table *tb)
{
	bt_table *t = (bt_table *)tb;
	bt_store *s = t->s;
	pthread_mutex_lock(&s->mu);
	bt_open *o = find_open(s, tb->name);
	if (o && o->handles && --o->handles == 0)
		*o = s->open[--s->nopen];
	pthread_mutex_unlock(&s->mu);
	free(t->fams);
	free(t);
}

/* ---- writes ---- */

/* Turns one store mutation into a Bigtable one. *skip: nothing to send (a
 * single-version delete at a timestamp no millisecond cell can have). */
static int map_mutation(rk_bt_mutation *out, int *skip, const bt_table *t, const rk_mutation *m,
                        size_t i, uint64_t now_us)
{
	char kb[200];
	*skip = 0;
	memset(out, 0, sizeof *out);
	out->family = m->family;
	out->qualifier = m->qualifier;
	out->qualifier_len = m->qualifier_len;
	if (m->row_len > BT_MAX_KEY)
		return rk__err(RK_ETOOLONG, "table %s: mutation %zu: row key '%s' is %zu bytes "
		               "(Bigtable row keys are at most %u)", t->base.name, i,
		               rk__err_bytes(kb, sizeof kb, m->row, m->row_len), m->row_len, BT_MAX_KEY);
	if ((m->type == RK_MUT_PUT || m->type == RK_MUT_DELETE_CELL ||
	     m->type == RK_MUT_DELETE_COLUMN) && m->qualifier_len > BT_MAX_QUALIFIER)
		return rk__err(RK_ETOOLONG, "table %s: mutation %zu: qualifier of %zu bytes (Bigtable "
		               "allows %u)", t->base.name, i, m->qualifier_len, BT_MAX_QUALIFIER);
	int64_t ts = (int64_t)m->ts; /* store.c checked ts <= INT64_MAX */
	switch (m->type) {
	case RK_MUT_PUT:
		if (m->value_len > BT_MAX_VALUE)
			return rk__err(RK_ETOOLONG, "table %s: mutation %zu: value of %zu bytes (Bigtable "
			               "allows %u)", t->base.name, i, m->value_len, BT_MAX_VALUE);
		if (ts % 1000)
			return rk__err(RK_EINVALID, "table %s: mutation %zu (row '%s'): timestamp %lld is "
			               "not a whole millisecond; Bigtable keeps milliseconds (give "
			               "microseconds that are a multiple of 1000, or 0 for now)",
			               t->base.name, i, rk__err_bytes(kb, sizeof kb, m->row, m->row_len),
			               (long long)ts);
		out->kind = RK_BT_SET_CELL;
		out->ts_micros = ts;
		out->value = m->value;
		out->value_len = m->value_len;
		return 0;
	case RK_MUT_DELETE_CELL:
		if (ts % 1000 || ts > INT64_MAX - 1000) {
			*skip = 1; /* no millisecond cell has this timestamp */
			return 0;
		}
		out->kind = RK_BT_DELETE_COLUMN;
		out->ts_micros = ts;
		out->ts_end_micros = ts + 1000;
		return 0;
	case RK_MUT_DELETE_COLUMN: {
		/* versions in [ts_from, ts]: the millisecond cells in [ts_from rounded
		 * up, the next millisecond after ts) */
		int64_t from = (int64_t)m->ts_from;
		out->kind = RK_BT_DELETE_COLUMN;
		out->ts_micros = from % 1000 ? from - from % 1000 + 1000 : from;
		if (ts <= INT64_MAX - 1000)
			out->ts_end_micros = ts - ts % 1000 + 1000;
		if (out->ts_end_micros && out->ts_micros >= out->ts_end_micros)
			*skip = 1; /* no millisecond cell in the range */
		return 0;
	}
	case RK_MUT_DELETE_FAMILY:
	case RK_MUT_DELETE_ROW: {
		int is_now = (last_clock.s == t->s && m->ts == last_clock.ts) || m->ts >= now_us;
		if (m->ts_from)
			return rk__err(RK_EINVALID,
			               "table %s: mutation %zu (row '%s'): deleting a %s from timestamp "
			               "%llu is not supported by Bigtable: it deletes every version of a "
			               "%s",
			               t->base.name, i, rk__err_bytes(kb, sizeof kb, m->row, m->row_len),
			               m->type == RK_MUT_DELETE_ROW ? "row" : "family",
			               (unsigned long long)m->ts_from,
			               m->type == RK_MUT_DELETE_ROW ? "row" : "family");
		if (!is_now)
			return rk__err(RK_EINVALID,
			               "table %s: mutation %zu (row '%s'): deleting a %s up to timestamp "
			               "%llu is not supported by Bigtable: it deletes every version of a "
			               "%s; only a delete at the current time (timestamp 0) maps onto it",
			               t->base.name, i, rk__err_bytes(kb, sizeof kb, m->row, m->row_len),
			               m->type == RK_MUT_DELETE_ROW ? "row" : "family",
			               (unsigned long long)m->ts,
			               m->type == RK_MUT_DELETE_ROW ? "row" : "family");
		out->kind = m->type == RK_MUT_DELETE_ROW ? RK_BT_DELETE_ROW : RK_BT_DELETE_FAMILY;
		return 0;
	}
	}
	return rk__err(RK_EINVALID, "table %s: mutation %zu: unknown type %d", t->base.name, i,
	               (int)m->type);
}

typedef struct sorted_mut {
	const uint8_t *row;
	size_t row_len;
	size_t idx;
} sorted_mut;

static int sorted_cmp(const void *a, const void *b)
{
	const sorted_mut *x = a, *y = b;
	int c = bytes_cmp(x->row, x->row_len, y->row, y->row_len);
	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

typedef struct apply_ctx {
	int *row_rc;    /* per sent row */
	uint64_t first; /* the writer's seq of the first row */
	uint64_t nrows;
} apply_ctx;

static void row_done(uint64_t seq, int rc, const char *why, void *payload)
{
	(void)why;
	apply_ctx *a = payload;
	if (seq >= a->first && seq - a->first < a->nrows)
		a->row_rc[seq - a->first] = rc;
}

static int bt_apply(rk_table *tb, const rk_mutation *muts, size_t n, int *results)
{
	bt_table *t = (bt_table *)tb;
	bt_store *s = t->s;
	char firstmsg[512] = "";
	int first = 0, rc = 0;
	uint64_t now_us = (uint64_t)rk_bt__now_micros();
	rk_bt_mutation *bm = calloc(n, sizeof *bm);
	int *skip = calloc(n, sizeof *skip);
	sorted_mut *ord = calloc(n, sizeof *ord);
	size_t *mut_row = calloc(n, sizeof *mut_row); /* mutation -> sent row number */
	int *row_rc = calloc(n, sizeof *row_rc);
	rk_bt_mutation *rowm = calloc(n, sizeof *rowm);
	rk_bt_writer *w = NULL;
	if (!bm || !skip || !ord || !mut_row || !row_rc || !rowm) {
		rc = rk__err(RK_ENOMEM, "table %s: out of memory for %zu mutations", tb->name, n);
		goto done;
	}
	/* everything is checked before anything is sent */
	for (size_t i = 0; i < n; i++) {
		int r = map_mutation(&bm[i], &skip[i], t, &muts[i], i, now_us);
		if (results)
			results[i] = r;
		if (r && !first) {
			first = r;
			snprintf(firstmsg, sizeof firstmsg, "%s", rk_error_last());
		}
	}
	if (first) {
		rc = rk__err(first, "%s", firstmsg);
		goto done;
	}
	/* group by row, keeping each row's mutations in call order */
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!skip[i])
			ord[k++] = (sorted_mut){muts[i].row, muts[i].row_len, i};
	qsort(ord, k, sizeof *ord, sorted_cmp);
	size_t nrows = 0;
	for (size_t i = 0; i < k;) {
		size_t j = i;
		while (j < k && !bytes_cmp(ord[j].row, ord[j].row_len, ord[i].row, ord[i].row_len))
			j++;
		if (j - i > BT_MAX_ROW_MUTATIONS) {
			char kb[200];
			for (size_t x = i; x < j && results; x++)
				results[ord[x].idx] = RK_EINVALID;
			rc = rk__err(RK_EINVALID, "table %s: %zu mutations of row '%s' in one call "
			             "(Bigtable takes at most %u per row and request)", tb->name, j - i,
			             rk__err_bytes(kb, sizeof kb, ord[i].row, ord[i].row_len),
			             BT_MAX_ROW_MUTATIONS);
			goto done;
		}
		for (size_t x = i; x < j; x++) {
			rowm[x] = bm[ord[x].idx];
			mut_row[ord[x].idx] = nrows;
		}
		nrows++;
		i = j;
	}
	if ((rc = rk_bt__writer_new(&w, s->c, tb->name)) < 0)
		goto done;
	apply_ctx ctx = {row_rc, 0, nrows};
	rk_bt__writer_on_done(w, row_done, &ctx);
	size_t row = 0;
	int add_err = 0;
	for (size_t i = 0; i < k; row++) {
		size_t j = i;
		while (j < k && !bytes_cmp(ord[j].row, ord[j].row_len, ord[i].row, ord[i].row_len))
			j++;
		rk_bt_write_stats before, after;
		rk_bt__writer_stats(&before, w);
		int r = rk_bt__writer_add(w, ord[i].row, ord[i].row_len, &rowm[i], j - i);
		if (r < 0) {
			rk_bt__writer_stats(&after, w);
			if (after.rows_added == before.rows_added)
				row_rc[row] = r; /* not queued: never sent */
			if (!add_err) {
				add_err = r;
				snprintf(firstmsg, sizeof firstmsg, "%s", rk_error_last());
			}
		}
		i = j;
	}
	rc = rk_bt__writer_flush(w);
	rk_bt_write_stats st;
	rk_bt__writer_stats(&st, w);
	/* a load is many applies: say how far it got, not only this call */
	uint64_t total = atomic_fetch_add(&s->acked, st.rows_acked) + st.rows_acked;
	if (rc < 0) {
		rc = rk__err_wrap(rc, "table %s in %s: %llu of %zu rows acknowledged (this call), "
		                  "%llu since the store was opened", tb->name, s->uri,
		                  (unsigned long long)st.rows_acked, nrows, (unsigned long long)total);
	} else if (add_err) {
		rc = rk__err(add_err, "table %s in %s: %llu of %zu rows acknowledged (this call), %llu "
		             "since the store was opened; %s", tb->name, s->uri,
		             (unsigned long long)st.rows_acked, nrows, (unsigned long long)total,
		             firstmsg);
	}
	if (results)
		for (size_t i = 0; i < n; i++)
			results[i] = skip[i] ? 0 : row_rc[mut_row[i]];
done:
	rk_bt__writer_free(w);
	free(bm);
	free(skip);
	free(ord);
	free(mut_row);
	free(row_rc);
	free(rowm);
	return rc;
}

/* ---- reads ---- */

/* Fills the filter part of a Bigtable read from store read options. *cols
 * (caller frees) holds the columns, without overlaps. *empty: no cell can
 * match (a time range with no whole millisecond in it).
 *
 * store.h's visibility: a version counts only if it is among its column's
 * newest max_versions of its family; the time range filters what is left;
 * then the newest `want` come back. Bigtable's GC is lazy, so versions past
 * the family limit may still be stored: when any family has a limit, the
 * server is asked for the newest versions up to the largest limit (no time
 * filter) and the rest is done here; when none has, the time range and
 * `want` go to the server. */
static int map_read(rk_bt_read *q, rk_bt_column **cols, bt_spec *spec, int *empty,
                    const bt_table *t, const rk_read_options *ro)
{
	*cols = NULL;
	*empty = 0;
	memset(spec, 0, sizeof *spec);
	spec->want = ro->max_versions ? ro->max_versions : 1;
	unsigned cap = 0;
	int limited = 0, unlimited = 0;
	for (size_t i = 0; i < t->base.nfamilies; i++) {
		unsigned v = t->base.families[i].max_versions;
		if (v == UINT_MAX) {
			unlimited = 1;
		} else {
			limited = 1;
			if (v > cap)
				cap = v;
		}
	}
	/* cells sit on whole milliseconds: [min, max) holds the same cells as
	 * [ceil_ms(min), ceil_ms(max)) */
	uint64_t lo = ro->min_ts, hi = ro->max_ts;
	const uint64_t top = (uint64_t)INT64_MAX - 1000;
	if (lo > top) {
		*empty = 1;
		return 0;
	}
	lo = (lo + 999) / 1000 * 1000;
	if (hi > top)
		hi = 0;
	else if (hi)
		hi = (hi + 999) / 1000 * 1000;
	if (hi && hi <= lo) {
		*empty = 1;
		return 0;
	}
	int ranged = lo || hi;
	if (ranged && limited) {
		spec->local_time = 1;
		spec->lo = lo;
		spec->hi = hi;
		q->versions = unlimited ? 0 : (cap > INT32_MAX ? INT32_MAX : (int32_t)cap);
	} else {
		q->ts_start_micros = (int64_t)lo;
		q->ts_end_micros = (int64_t)hi;
		unsigned v = limited && !unlimited && cap < spec->want ? cap : spec->want;
		q->versions = v > INT32_MAX ? INT32_MAX : (int32_t)v;
	}
	if (ro->ncolumns) {
		rk_bt_column *c = calloc(ro->ncolumns, sizeof *c);
		size_t nc = 0;
		if (!c)
			return rk__err(RK_ENOMEM, "table %s: out of memory", t->base.name);
		for (size_t i = 0; i < ro->ncolumns; i++) {
			const rk_column *x = &ro->columns[i];
			int dup = 0;
			/* a whole family covers its columns; the same column twice is once */
			for (size_t j = 0; j < ro->ncolumns && !dup; j++) {
				const rk_column *y = &ro->columns[j];
				if (j == i || strcmp(x->family, y->family))
					continue;
				if (!y->qualifier && (x->qualifier || j < i))
					dup = 1;
				else if (x->qualifier && y->qualifier && j < i &&
				         !bytes_cmp(x->qualifier, x->qualifier_len, y->qualifier,
				                    y->qualifier_len))
					dup = 1;
			}
			if (!dup)
				c[nc++] = (rk_bt_column){x->family, x->qualifier, x->qualifier_len};
		}
		q->columns = c;
		q->ncolumns = nc;
		*cols = c;
	}
	return 0;
}

static void conv_free(bt_rowconv *c)
{
	free(c->cells);
	free(c->names);
}

/* Makes the store's view of a Bigtable row: family names NUL-terminated,
 * each column cut to its family's limit, then (spec->local_time) to the time
 * range, then to the versions asked for. Values and qualifiers stay
 * borrowed from `in`. A row may come out with no cell. */
static int convert(bt_rowconv *c, const rk_bt_row *in, const bt_table *t, const bt_spec *spec)
{
	size_t names = 0;
	if (in->ncells > c->cap) {
		rk_cell *nc = realloc(c->cells, in->ncells * sizeof *nc);
		if (!nc)
			return rk__err(RK_ENOMEM, "out of memory for a row of %zu cells", in->ncells);
		c->cells = nc;
		c->cap = in->ncells;
	}
	for (size_t i = 0; i < in->ncells; i++)
		names += in->cells[i].family_len + 1;
	if (names > c->names_cap) {
		char *nn = realloc(c->names, names);
		if (!nn)
			return rk__err(RK_ENOMEM, "out of memory for a row of %zu cells", in->ncells);
		c->names = nn;
		c->names_cap = names;
	}
	size_t n = 0, np = 0;
	unsigned rank = 0, kept = 0, limit = UINT_MAX;
	const char *fam = NULL;
	for (size_t i = 0; i < in->ncells; i++) {
		const rk_bt_cell *x = &in->cells[i];
		const rk_bt_cell *p = i ? &in->cells[i - 1] : NULL;
		if (x->ts_micros < 0)
			return rk__err(RK_ECORRUPT, "table %s: the server sent a cell with timestamp %lld",
			               t->base.name, (long long)x->ts_micros);
		int new_fam = !p || bytes_cmp((const uint8_t *)p->family, p->family_len,
		                              (const uint8_t *)x->family, x->family_len);
		if (new_fam) {
			const rk__family *f = rk_store__family(&t->base, x->family, x->family_len);
			limit = f ? f->max_versions : UINT_MAX;
			if (f) {
				fam = f->name;
			} else {
				memcpy(c->names + np, x->family, x->family_len);
				c->names[np + x->family_len] = 0;
				fam = c->names + np;
				np += x->family_len + 1;
			}
		}
		if (new_fam || bytes_cmp(p->qualifier, p->qualifier_len, x->qualifier, x->qualifier_len)) {
			rank = 0;
			kept = 0;
		} else {
			rank++;
		}
		uint64_t ts = (uint64_t)x->ts_micros;
		if (rank >= limit || kept >= spec->want)
			continue;
		if (spec->local_time && (ts < spec->lo || (spec->hi && ts >= spec->hi)))
			continue;
		kept++;
		c->cells[n++] = (rk_cell){fam, x->qualifier, x->qualifier_len, ts, x->value,
		                          x->value_len};
	}
	c->row = (rk_row){in->key, in->key_len, c->cells, n};
	return 0;
}

static int bt_get(rk_row **out, rk_table *tb, const uint8_t *row, size_t len,
                  const rk_read_options *ro)
{
	bt_table *t = (bt_table *)tb;
	char kb[200];
	rk_bt_read q = RK_BT_READ_INIT;
	rk_bt_column *cols;
	bt_spec spec;
	int empty;
	if (len > BT_MAX_KEY)
		return rk__err(RK_ETOOLONG, "table %s: row key of %zu bytes (Bigtable row keys are at "
		               "most %u)", tb->name, len, BT_MAX_KEY);
	int rc = map_read(&q, &cols, &spec, &empty, t, ro);
	if (rc < 0)
		return rc;
	if (empty) {
		free(cols);
		return rk__err(RK_ENOTFOUND, "table %s: row '%s' not found (no cell in the time range)",
		               tb->name, rk__err_bytes(kb, sizeof kb, row, len));
	}
	rk_bt_bytes key = {row, len};
	q.keys = &key;
	q.nkeys = 1;
	q.rows_limit = 1;
	rk_bt_scan *sc = NULL;
	const rk_bt_row *r;
	bt_rowconv conv = {0};
	if ((rc = rk_bt__scan_open(&sc, t->s->c, tb->name, &q)) < 0)
		goto done;
	rc = rk_bt__scan_next(&r, sc);
	if (rc == RK_EITEROVER) {
		rc = rk__err(RK_ENOTFOUND, "table %s: row '%s' not found", tb->name,
		             rk__err_bytes(kb, sizeof kb, row, len));
		goto done;
	}
	if (rc == RK_ENOTFOUND) {
		rc = rk__err(RK_ENOTFOUND, "table %s does not exist in %s", tb->name, t->s->uri);
		goto done;
	}
	if (rc < 0)
		goto done;
	if (bytes_cmp(r->key, r->key_len, row, len)) {
		rc = rk__err(RK_ECORRUPT, "table %s: asked for row '%s', the server sent another",
		             tb->name, rk__err_bytes(kb, sizeof kb, row, len));
		goto done;
	}
	if ((rc = convert(&conv, r, t, &spec)) < 0)
		goto done;
	if (conv.row.ncells == 0) {
		rc = rk__err(RK_ENOTFOUND, "table %s: row '%s' not found (no visible cell in the time "
		             "range)", tb->name, rk__err_bytes(kb, sizeof kb, row, len));
		goto done;
	}
	rc = rk_rowbuf__copy(out, &conv.row);
done:
	if (rc < 0 && rc != RK_ENOTFOUND)
		rc = rk__err_wrap(rc, "%s", t->s->uri);
	rk_bt__scan_free(sc);
	conv_free(&conv);
	free(cols);
	return rc;
}

static int bt_scan_open(rk_scan **out, rk_table *tb, const rk_scan_options *so)
{
	bt_table *t = (bt_table *)tb;
	if (so->reverse)
		return rk__err(RK_EINVALID, "table %s: reverse scans are not supported by Bigtable "
		               "(rowkey's Bigtable API subset has no ReadRowsRequest.reversed)",
		               tb->name);
	if (so->start_len > BT_MAX_KEY || so->stop_len > BT_MAX_KEY)
		return rk__err(RK_ETOOLONG, "table %s: scan bound over Bigtable's %u-byte key limit",
		               tb->name, BT_MAX_KEY);
	bt_scan *sc = calloc(1, sizeof *sc);
	if (!sc)
		return rk__err(RK_ENOMEM, "table %s: out of memory for a scan", tb->name);
	sc->base.table = tb;
	sc->t = t;
	rk_bt_read q = RK_BT_READ_INIT;
	rk_bt_column *cols;
	int empty;
	int rc = map_read(&q, &cols, &sc->spec, &empty, t, &so->read);
	if (rc < 0) {
		free(sc);
		return rc;
	}
	if (so->stop_len && bytes_cmp(so->start, so->start_len, so->stop, so->stop_len) >= 0)
		empty = 1;
	rk_bt_range range = {{so->start, so->start_len}, 0, {so->stop, so->stop_len}, 0};
	if (so->start_len || so->stop_len) {
		q.ranges = &range;
		q.nranges = 1;
	}
	/* with the time range applied here a row may come out empty: then the
	 * limit is counted here, not by the server */
	sc->limit = so->limit;
	if (!sc->spec.local_time)
		q.rows_limit = so->limit > (uint64_t)INT64_MAX ? 0 : (int64_t)so->limit;
	if (!empty && (rc = rk_bt__scan_open(&sc->sc, t->s->c, tb->name, &q)) < 0) {
		free(cols);
		free(sc);
		return rk__err_wrap(rc, "%s", t->s->uri);
	}
	free(cols);
	*out = &sc->base;
	return 0;
}

static int bt_scan_next(const rk_row **out, rk_scan *base)
{
	bt_scan *sc = (bt_scan *)base;
	const rk_bt_row *r;
	if (!sc->sc || (sc->limit && sc->rows >= sc->limit))
		return RK_EITEROVER;
	for (;;) {
		int rc = rk_bt__scan_next(&r, sc->sc);
		if (rc == RK_EITEROVER)
			return rc;
		if (rc == RK_ENOTFOUND)
			return rk__err(RK_ENOTFOUND, "table %s does not exist in %s", base->table->name,
			               sc->t->s->uri);
		if (rc < 0)
			return rk__err_wrap(rc, "%s", sc->t->s->uri);
		if ((rc = convert(&sc->conv, r, sc->t, &sc->spec)) < 0)
			return rc;
		if (sc->conv.row.ncells)
			break;
	}
	sc->rows++;
	*out = &sc->conv.row;
	return 0;
}

static void bt_scan_close(rk_scan *base)
{
	bt_scan *sc = (bt_scan *)base;
	rk_bt__scan_free(sc->sc);
	conv_free(&sc->conv);
	free(sc);
}

/* ---- regions and maintenance ---- */

static int bt_regions(rk_region_info **out, size_t *count, rk_store *st, const char *table)
{
	bt_store *s = (bt_store *)st;
	rk_region_info *a = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	if (table) {
		rc = table_regions(&a, &n, &cap, s, table);
	} else {
		char **names;
		size_t nt;
		if ((rc = rk_bt__table_list(&names, &nt, s->c)) < 0)
			return rk__err_wrap(rc, "%s", s->uri);
		for (size_t i = 0; i < nt && rc == 0; i++) {
			rc = table_regions(&a, &n, &cap, s, names[i]);
			if (rc == RK_ENOTFOUND)
				rc = 0; /* dropped meanwhile */
		}
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
static int bt_servers(rk_server_info **out, size_t *count, rk_store *st)
{
	(void)st;
	*out = calloc(1, sizeof **out);
	*count = 0;
	return *out ? 0 : rk__err(RK_ENOMEM, "out of memory listing servers");
}

static int bt_region_split(rk_store *st, uint64_t id, const uint8_t *at, size_t at_len)
{
	(void)at;
	(void)at_len;
	return rk__err(RK_EINVALID, "region %llu: splitting is not supported by Bigtable (%s): the "
	               "service splits tablets itself; give split points when creating the table",
	               (unsigned long long)id, ((bt_store *)st)->uri);
}

static int bt_region_move(rk_store *st, uint64_t id, unsigned server)
{
	(void)server;
	return rk__err(RK_EINVALID, "region %llu: moving is not supported by Bigtable (%s): the "
	               "service places tablets itself", (unsigned long long)id,
	               ((bt_store *)st)->uri);
}

static int bt_balance(size_t *out, rk_store *st)
{
	*out = 0;
	return rk__err(RK_EINVALID, "balancing is not supported by Bigtable (%s): the service "
	               "balances tablets itself", ((bt_store *)st)->uri);
}

/* Checks what can be checked from outside: every table answers GetTable and
 * SampleRowKeys with well-formed, ordered answers. */
static int bt_check(size_t *out, rk_store *st, void (*report)(const char *, void *),
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
		int r = get_families(&f, &nf, s, names[i]);
		if (r == 0)
			r = table_regions(&ri, &nr, &cap, s, names[i]);
		free(f);
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

static int bt_write_metrics(rk_store *st, const char *path)
{
	if (!path)
		return 0; /* nothing is recorded for Bigtable stores */
	return rk__err(RK_EINVALID, "%s: a Bigtable store keeps no metrics file (asked for %s)",
	               ((bt_store *)st)->uri, path);
}

static const struct rk_backend_ops bt_ops = {
	"bigtable",
	bt_close,
	bt_sync,
	bt_table_create,
	bt_table_drop,
	bt_table_list,
	bt_table_open,
	bt_table_close,
	bt_apply,
	bt_get,
	bt_scan_open,
	bt_scan_next,
	bt_scan_close,
	bt_regions,
	bt_servers,
	bt_region_split,
	bt_region_move,
	bt_balance,
	bt_check,
	bt_write_metrics,
	bt_clock,
	NULL, /* apply_async: MutateRows is applied before rk_table_apply_async returns */
	NULL, /* flush: nothing is ever queued */
	NULL, /* table_prop_set: Bigtable tables carry no rowkey settings */
	NULL, /* table_prop_get */
	NULL, /* family_set */
	NULL, /* family_drop */
	NULL, /* split_due: Bigtable splits tablets itself */
	NULL, /* metrics: Bigtable keeps its load in its own console */
};
