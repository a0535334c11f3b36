/*
 * Data profiles (rowkey/analyze.h, docs/advisor.md): a dataset's streaming
 * statistics made exact where the records are held, and the smallest field
 * sets that identify every record.
 *
 * Exact figures come from one 64-bit fingerprint per value (XXH3 of the
 * value's text, as the streaming statistics hash it): distinct counts by a
 * hash set, the frequent values' counts by looking their fingerprints up.
 * A field set identifies every record when no two records share the
 * combined fingerprint of its fields (a false "duplicate" needs a 64-bit
 * collision: about n^2 / 2^65, 3e-8 for a million records).
 *
 * The search for identifying sets tries one field, then pairs, triples and
 * quadruples of the 12 fields with the most distinct values, skipping
 * supersets of a set found and sets whose distinct counts multiply to fewer
 * than the records; decimals (f64: measurements, not identities) and fields
 * with empty values come in only when nothing else identifies the records.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/profile_int.h"
#include "key/error.h"

/* ---- fingerprints ---- */

static size_t udec(char *b, uint64_t v)
{
	char t[24];
	size_t n = 0, o = 0;
	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		b[o++] = t[--n];
	return o;
}

/* The fingerprint of field f of record i: the hash of its text (a typed
 * number's decimal text), or a constant for no value. */
static uint64_t fingerprint(const rk__dataset *d, size_t f, uint64_t i)
{
	const rk__column *c = &d->col[f];
	if (c->len[i] == RK__ABSENT)
		return 0x5bd1e9955bd1e995ull;
	if (!d->typed || c->kind == RK__W_STR)
		return rk__fstats_hash(d->arena + c->off[i], c->len[i]);
	char b[24];
	size_t n = 0;
	if (c->kind == RK__W_I64 && (int64_t)c->v[i] < 0) {
		b[n++] = '-';
		n += udec(b + 1, (uint64_t)0 - c->v[i]);
	} else {
		n = udec(b, c->v[i]);
	}
	return rk__fstats_hash(b, n);
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

/* An open-addressing set of nonzero 64-bit values. */
typedef struct hset {
	uint64_t *t;
	size_t mask;
} hset;

static int hset_init(hset *s, uint64_t n)
{
	size_t cap = 16;
	while (cap < 2 * n + 16)
		cap *= 2;
	s->mask = cap - 1;
	s->t = calloc(cap, sizeof *s->t);
	return s->t ? 0 : rk__err(RK_ENOMEM, "out of memory profiling");
}

static void hset_clear(hset *s)
{
	memset(s->t, 0, (s->mask + 1) * sizeof *s->t);
}

/* 1 when h is new (inserted), 0 when it was there. */
static int hset_add(hset *s, uint64_t h)
{
	h = h ? h : 1;
	for (size_t i = mix(h) & s->mask;; i = (i + 1) & s->mask) {
		if (s->t[i] == h)
			return 0;
		if (!s->t[i]) {
			s->t[i] = h;
			return 1;
		}
	}
}

/* ---- exact figures ---- */

static int exact_field(rk_profile *p, size_t f, uint64_t *const *fp, hset *set)
{
	const rk__dataset *d = p->d;
	rk_field_profile *x = &p->f[f];
	uint64_t n = d->held, distinct = 0;
	hset_clear(set);
	for (uint64_t i = 0; i < n; i++)
		if (d->col[f].len[i] != RK__ABSENT)
			distinct += hset_add(set, fp[f][i]);
	x->distinct = distinct;
	x->distinct_exact = 1;
	/* the frequent values' exact counts (every value over n/64 is a candidate):
	 * a 256-slot table from a candidate's fingerprint to its counter */
	rk__fstats *ss = &p->d->col[f].st;
	int slot[256];
	memset(slot, -1, sizeof slot);
	for (size_t k = 0; k < ss->nss; k++) {
		size_t i = mix(ss->ss[k].h) & 255;
		while (slot[i] >= 0)
			i = (i + 1) & 255;
		slot[i] = (int)k;
		ss->ss[k].count = 0;
		ss->ss[k].err = 0;
	}
	for (uint64_t r = 0; r < n; r++) {
		if (d->col[f].len[r] == RK__ABSENT)
			continue;
		for (size_t i = mix(fp[f][r]) & 255; slot[i] >= 0; i = (i + 1) & 255)
			if (ss->ss[slot[i]].h == fp[f][r]) {
				ss->ss[slot[i]].count++;
				break;
			}
	}
	return 0;
}

/* ---- identifying sets ---- */

typedef struct search {
	rk_profile *p;
	uint64_t *const *fp;
	hset *set;
	size_t cand[12], ncand;
	uint64_t n;
	int found_size;
} search;

static int is_unique(search *s, const size_t *fields, size_t k)
{
	hset_clear(s->set);
	for (uint64_t i = 0; i < s->n; i++) {
		uint64_t h = 0x9E3779B97F4A7C15ull;
		for (size_t j = 0; j < k; j++)
			h = mix(h ^ s->fp[fields[j]][i]) + j;
		if (!hset_add(s->set, h))
			return 0;
	}
	return 1;
}

static int superset_of_found(const rk_profile *p, const size_t *fields, size_t k)
{
	for (size_t u = 0; u < p->nunique; u++) {
		size_t hit = 0;
		for (size_t a = 0; a < p->unique_n[u]; a++)
			for (size_t b = 0; b < k; b++)
				hit += p->unique[u][a] == fields[b];
		if (hit == p->unique_n[u])
			return 1;
	}
	return 0;
}

static void try_set(search *s, const size_t *fields, size_t k)
{
	rk_profile *p = s->p;
	double product = 1;
	for (size_t j = 0; j < k; j++)
		product *= (double)p->f[fields[j]].distinct;
	if (p->nunique == RK__MAX_UNIQUE || product < (double)s->n || superset_of_found(p, fields, k))
		return;
	if (!is_unique(s, fields, k))
		return;
	p->unique_n[p->nunique] = k;
	memcpy(p->unique[p->nunique], fields, k * sizeof *fields);
	p->nunique++;
	s->found_size = (int)k;
}

/* Sets of k candidates, in order of the candidates (most distinct first). */
static void combos(search *s, size_t k, size_t start, size_t *pick, size_t depth)
{
	if (depth == k) {
		size_t fields[RK__UNIQUE_MAX_FIELDS];
		for (size_t j = 0; j < k; j++)
			fields[j] = s->cand[pick[j]];
		try_set(s, fields, k);
		return;
	}
	for (size_t i = start; i < s->ncand; i++) {
		pick[depth] = i;
		combos(s, k, i + 1, pick, depth + 1);
	}
}

static void candidates(search *s, int with_all)
{
	const rk__dataset *d = s->p->d;
	s->ncand = 0;
	for (size_t f = 0; f < d->nf; f++) {
		const rk_field_profile *x = &s->p->f[f];
		if (x->distinct < 2 && s->n > 1)
			continue; /* a constant identifies nothing */
		if (!with_all && (d->col[f].kind == RK__W_F64 || x->empties))
			continue;
		/* keep the 12 with the most distinct values, in that order */
		size_t at = s->ncand;
		while (at > 0 && s->p->f[s->cand[at - 1]].distinct < x->distinct)
			at--;
		if (at >= 12)
			continue;
		size_t end = s->ncand < 12 ? s->ncand : 11;
		memmove(s->cand + at + 1, s->cand + at, (end - at) * sizeof *s->cand);
		s->cand[at] = f;
		if (s->ncand < 12)
			s->ncand++;
	}
}

static void find_unique(search *s)
{
	size_t pick[RK__UNIQUE_MAX_FIELDS];
	for (int with_all = 0; with_all < 2 && !s->p->nunique; with_all++) {
		candidates(s, with_all);
		for (size_t k = 1; k <= RK__UNIQUE_MAX_FIELDS && !s->p->nunique; k++)
			combos(s, k, 0, pick, 0);
	}
	rk_profile *p = s->p;
	for (size_t u = 0; u < p->nunique; u++)
		for (size_t j = 0; j < p->unique_n[u]; j++)
			p->unique_has_decimal |= p->d->col[p->unique[u][j]].kind == RK__W_F64;
	if (p->nunique)
		return;
	/* nothing small: every field together, and how many records repeat */
	size_t all[64];
	for (size_t f = 0; f < p->d->nf; f++)
		all[f] = f;
	hset_clear(s->set);
	for (uint64_t i = 0; i < s->n; i++) {
		uint64_t h = 0x9E3779B97F4A7C15ull;
		for (size_t f = 0; f < p->d->nf; f++)
			h = mix(h ^ s->fp[f][i]) + f;
		p->duplicates += !hset_add(s->set, h);
	}
	if (!p->duplicates) {
		p->unique_all = 1;
		p->unique_n[0] = p->d->nf;
		memcpy(p->unique[0], all, p->d->nf * sizeof *all);
		p->nunique = 1;
	}
}

/* ---- the profile ---- */

static void streaming_figures(rk_profile *p, size_t f)
{
	const rk__column *c = &p->d->col[f];
	const rk__fstats *st = &c->st;
	rk_field_profile *x = &p->f[f];
	x->name = c->name;
	x->type = rk__dataset_type(p->d, f);
	x->time_unit = rk__tunit_name(c->tu);
	x->empties = st->empties;
	x->values = st->cells - st->empties;
	x->distinct = (uint64_t)llround(rk__fstats_distinct(st));
	if (x->distinct > x->values)
		x->distinct = x->values;
	x->monotonic = rk__fstats_monotonic(st, c->kind != RK__W_STR && c->tu != RK__TU_ISO);
	x->min = c->tu == RK__TU_ISO ? (double)st->iso_min : st->min;
	x->max = c->tu == RK__TU_ISO ? (double)st->iso_max : st->max;
	if (c->tu && c->tu != RK__TU_ISO) {
		x->min = (double)rk__tunit_ms(c->tu, (int64_t)st->min);
		x->max = (double)rk__tunit_ms(c->tu, (int64_t)st->max);
	}
	x->len_min = x->values ? st->len_min : 0;
	x->len_max = st->len_max;
	x->len_avg = x->values ? (double)st->len_sum / (double)x->values : 0;
}

static int cmp_ss(const void *a, const void *b)
{
	const rk__ss *x = a, *y = b;
	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static void top_values(rk_profile *p, size_t f)
{
	rk__fstats *st = &p->d->col[f].st;
	rk_field_profile *x = &p->f[f];
	qsort(st->ss, st->nss, sizeof *st->ss, cmp_ss);
	x->ntop = 0;
	for (size_t k = 0; k < st->nss && x->ntop < 5; k++) {
		if (st->ss[k].count < 2 || (double)st->ss[k].count < 0.001 * (double)x->values)
			break; /* a value seen once, or under 0.1% of the values, is not frequent */
		char *t = p->top_text[f][x->ntop];
		memcpy(t, st->ss[k].text, st->ss[k].len);
		strcpy(t + st->ss[k].len, st->ss[k].cut ? "..." : "");
		x->top[x->ntop].value = t;
		x->top[x->ntop].count = st->ss[k].count;
		x->top[x->ntop].share = x->values ? (double)st->ss[k].count / (double)x->values : 0;
		x->ntop++;
	}
}

int rk__profile_of(rk_profile **out, rk__dataset *d, int own)
{
	uint64_t *fp[64] = {0};
	hset set = {0};
	int rc = 0;
	*out = NULL;
	rk_profile *p = calloc(1, sizeof *p);
	if (!p) {
		if (own)
			rk__dataset_free(d);
		return rk__err(RK_ENOMEM, "out of memory profiling");
	}
	p->d = d;
	p->own = own;
	for (size_t f = 0; f < d->nf; f++)
		streaming_figures(p, f);
	if (d->held && (rc = hset_init(&set, d->held)) == 0) {
		for (size_t f = 0; f < d->nf && !rc; f++) {
			if (!(fp[f] = malloc(d->held * sizeof *fp[f]))) {
				rc = rk__err(RK_ENOMEM, "out of memory profiling");
				break;
			}
			for (uint64_t i = 0; i < d->held; i++)
				fp[f][i] = fingerprint(d, f, i);
			if (d->complete)
				rc = exact_field(p, f, fp, &set);
		}
		if (!rc) {
			search s = {p, fp, &set, {0}, 0, d->held, 0};
			find_unique(&s);
		}
	}
	for (size_t f = 0; f < d->nf; f++) {
		top_values(p, f);
		free(fp[f]);
	}
	free(set.t);
	if (rc) {
		rk_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

static void dataset_options(rk__dataset_options *d, const rk_profile_options *o)
{
	memset(d, 0, sizeof *d);
	if (!o)
		return;
	d->memory = o->memory;
	d->limit = o->limit;
	d->rec.format = (rk_rec_format)o->format;
	d->rec.header = !o->no_header;
	d->progress = o->progress;
	d->payload = o->payload;
}

int rk_profile_file(rk_profile **out, const char *path, const rk_profile_options *o)
{
	rk__dataset_options dopt;
	rk__dataset *d;
	int rc;
	*out = NULL;
	dataset_options(&dopt, o);
	if ((rc = rk__dataset_from_file(&d, path, &dopt)) != 0)
		return rc;
	return rk__profile_of(out, d, 1);
}

int rk_profile_workload(rk_profile **out, const rk_workload_options *w, const rk_profile_options *o)
{
	rk__workload *wl;
	rk__dataset *d;
	rk__dataset_options dopt;
	int rc;
	*out = NULL;
	if (w && w->name && !strcmp(w->name, "file"))
		return rk_profile_file(out, w->file ? w->file : "", o);
	dataset_options(&dopt, o);
	if ((rc = rk__workload_open(&wl, w)) != 0)
		return rc;
	rc = rk__dataset_from_workload(&d, wl, &dopt);
	rk__workload_close(wl);
	return rc ? rc : rk__profile_of(out, d, 1);
}

void rk_profile_free(rk_profile *p)
{
	if (!p)
		return;
	if (p->own)
		rk__dataset_free(p->d);
	free(p);
}

rk__dataset *rk__profile_dataset(const rk_profile *p)
{
	return p->d;
}

uint64_t rk_profile_records(const rk_profile *p)
{
	return p->d->records;
}

uint64_t rk_profile_checked(const rk_profile *p)
{
	return p->d->held;
}

uint64_t rk_profile_rejected(const rk_profile *p)
{
	return p->d->rejected;
}

size_t rk_profile_nfields(const rk_profile *p)
{
	return p->d->nf;
}

const rk_field_profile *rk_profile_field(const rk_profile *p, size_t i)
{
	return i < p->d->nf ? &p->f[i] : NULL;
}

size_t rk_profile_nunique(const rk_profile *p)
{
	return p->nunique;
}

size_t rk_profile_unique(const rk_profile *p, size_t i, const size_t **fields)
{
	if (i >= p->nunique) {
		*fields = NULL;
		return 0;
	}
	*fields = p->unique[i];
	return p->unique_n[i];
}

uint64_t rk_profile_duplicates(const rk_profile *p)
{
	return p->duplicates;
}

int rk_profile_clock(const rk_profile *p)
{
	return p->d->time_field;
}
