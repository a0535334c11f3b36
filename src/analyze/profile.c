/*
 * Data profiles (rowkey/analyze.h, docs/advisor.md): a dataset's streaming
 * statistics made exact where the records are held, and the smallest field
 * sets that identify every record.
 *
 * Exact figures come from one 64-bit fingerprint per value (XXH3 of the
 * value's text, as the streaming statistics hash it): distinct counts and
 * the most frequent values by a count per fingerprint over the records
 * held.
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
#include "analyze/workload.h"
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

/* A count per fingerprint: an open-addressing map beside the set's table. */
typedef struct cmap {
	uint64_t *key;
	uint32_t *count, *first; /* occurrences, and the first record that has it */
	size_t mask;
} cmap;

static int cmap_init(cmap *m, uint64_t n)
{
	size_t cap = 16;
	while (cap < 2 * n + 16)
		cap *= 2;
	m->mask = cap - 1;
	m->key = calloc(cap, sizeof *m->key);
	m->count = malloc(cap * sizeof *m->count);
	m->first = malloc(cap * sizeof *m->first);
	return m->key && m->count && m->first ? 0 : rk__err(RK_ENOMEM, "out of memory profiling");
}

static void cmap_free(cmap *m)
{
	free(m->key);
	free(m->count);
	free(m->first);
}

/* Distinct values and the five most frequent, exactly, over the records
 * held. */
static void exact_field(rk_profile *p, size_t f, uint64_t *const *fp, cmap *m)
{
	const rk__dataset *d = p->d;
	rk_field_profile *x = &p->f[f];
	uint64_t distinct = 0;
	memset(m->key, 0, (m->mask + 1) * sizeof *m->key);
	for (uint64_t r = 0; r < d->held; r++) {
		if (d->col[f].len[r] == RK__ABSENT)
			continue;
		uint64_t h = fp[f][r] ? fp[f][r] : 1;
		size_t i = mix(h) & m->mask;
		while (m->key[i] && m->key[i] != h)
			i = (i + 1) & m->mask;
		if (!m->key[i]) {
			m->key[i] = h;
			m->count[i] = 0;
			m->first[i] = (uint32_t)r;
			distinct++;
		}
		m->count[i]++;
	}
	if (d->complete) {
		x->distinct = distinct;
		x->distinct_exact = 1;
	}
	size_t top[5], nt = 0;
	for (size_t i = 0; i <= m->mask; i++) {
		if (!m->key[i] || m->count[i] < 2 || (double)m->count[i] < 0.001 * (double)d->held)
			continue; /* a value seen once, or under 0.1% of the records, is not frequent */
		size_t n0;
		if (d->col[f].kind == RK__W_STR && !d->col[f].seq &&
		    (rk__dataset_text(d, f, m->first[i], &n0), n0 == 0))
			continue; /* an empty cell is counted as empty, not as a hot value */
		size_t at = nt < 5 ? nt : 5;
		while (at > 0 && m->count[top[at - 1]] < m->count[i])
			at--;
		if (at == 5)
			continue;
		size_t end = nt < 5 ? nt : 4;
		memmove(top + at + 1, top + at, (end - at) * sizeof *top);
		top[at] = i;
		nt = end + 1;
	}
	uint64_t vals = 0;
	for (uint64_t r = 0; r < d->held; r++)
		vals += d->col[f].len[r] != RK__ABSENT;
	for (size_t k = 0; k < nt; k++) {
		char *t = p->top_text[f][k];
		const rk__column *c = &d->col[f];
		uint64_t r = m->first[top[k]];
		size_t n;
		const char *v = rk__dataset_text(d, f, r, &n);
		if (c->seq || (d->typed && c->kind != RK__W_STR)) { /* a number without its text */
			if (c->kind == RK__W_I64)
				snprintf(t, RK__TOP_TEXT, "%lld", (long long)c->v[r]);
			else
				snprintf(t, RK__TOP_TEXT, "%llu", (unsigned long long)c->v[r]);
		} else {
			size_t cut = n < RK__TOP_TEXT ? n : RK__TOP_TEXT;
			memcpy(t, v ? v : "", cut);
			strcpy(t + cut, n > RK__TOP_TEXT ? "..." : "");
		}
		x->top[k].value = t;
		x->top[k].count = m->count[top[k]];
		x->top[k].share = vals ? (double)m->count[top[k]] / (double)vals : 0;
	}
	x->ntop = nt;
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
	x->time_unit = c->tu == RK__TU_FMT ? c->dfmt : rk__tunit_name(c->tu);
	x->empties = st->empties;
	x->values = st->cells - st->empties;
	x->distinct = (uint64_t)llround(rk__fstats_distinct(st));
	if (x->distinct > x->values)
		x->distinct = x->values;
	x->monotonic = rk__column_monotonic(c);
	x->min = c->tu == RK__TU_ISO ? (double)st->iso_min : c->tu == RK__TU_FMT ? (double)st->dmin[c->dfmt_k] : st->min;
	x->max = c->tu == RK__TU_ISO ? (double)st->iso_max : c->tu == RK__TU_FMT ? (double)st->dmax[c->dfmt_k] : st->max;
	if (c->tu && c->tu != RK__TU_ISO && c->tu != RK__TU_FMT) {
		x->min = (double)rk__tunit_ms(c->tu, (int64_t)st->min);
		x->max = (double)rk__tunit_ms(c->tu, (int64_t)st->max);
	}
	x->len_min = x->values ? st->len_min : 0;
	x->len_max = st->len_max;
	x->len_avg = x->values ? (double)st->len_sum / (double)x->values : 0;
}

int rk__profile_of(rk_profile **out, rk__dataset *d, int own)
{
	uint64_t *fp[64] = {0};
	hset set = {0};
	cmap cm = {0};
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
	if (d->held && (rc = hset_init(&set, d->held)) == 0 && (rc = cmap_init(&cm, d->held)) == 0) {
		for (size_t f = 0; f < d->nf && !rc; f++) {
			if (!(fp[f] = malloc(d->held * sizeof *fp[f]))) {
				rc = rk__err(RK_ENOMEM, "out of memory profiling");
				break;
			}
			for (uint64_t i = 0; i < d->held; i++)
				fp[f][i] = fingerprint(d, f, i);
			exact_field(p, f, fp, &cm);
		}
		if (!rc) {
			search s = {p, fp, &set, {0}, 0, d->held, 0};
			find_unique(&s);
		}
	}
	for (size_t f = 0; f < d->nf; f++)
		free(fp[f]);
	free(set.t);
	cmap_free(&cm);
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
	d->label = o->label;
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
	rc = rk__workload_hold(&d, wl, &dopt);
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
