/*
 * rk_suggest: the advisor's ranking (docs/advisor.md).
 *
 * One source (the data read once, its profile, the shapes filled from it),
 * the candidates advisor.c builds from them, each simulated on the cluster
 * (two at a time: each run only reads the shared source) with the table
 * pre-split as suggest would create it, and priced per query shape.
 *
 *   write score  1 / (servers x the busiest server's share of each time
 *                bucket's writes, or of another day's when larger): 1 when
 *                every server takes the same share at every moment;
 *                divided by the number of tables a write goes to
 *   read score   per shape 1 / (sqrt(rows read per row returned) x
 *                (1 + log2(ranges) / 4) x seeks), seeks the mean over the
 *                filled queries of (rows read + ranges) / (rows read + 1)
 *                (1 for gets): 1 for one get or one exact range, about 1/2
 *                for 16 ranges merged that read many rows, 1/5 for 16 that
 *                read 10 (each range reads a row past its end), 1/3 for
 *                reading 10 rows per row returned, 1/1000 for a full scan
 *                of a million rows that returns one (a scan grows with the
 *                table; so does a range that only filters its time window,
 *                priced as one); the shapes' weighted geometric mean
 *   score        write score x read score (x 0.8 for each table of a set
 *                beyond the first)
 *
 * A design whose keys are not all distinct on the data is dropped, never
 * proposed. When the best single key leaves a shape poorly served (read
 * efficiency under 1/2), a set of tables is tried: the best key plus, for
 * each such shape, the key that serves it best (an index table written
 * beside the main one), at most three.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/advisor.h"
#include "analyze/analyze_int.h"
#include "analyze/profile_int.h"
#include "key/error.h"

typedef struct result {
	rk_analysis *a;
	char *schema_text;
	int rc;
	int parsed; /* 1: the design's schema parsed (an error is then the data's) */
	char err[512];
} result;

typedef struct pool {
	const rk__source *src;
	const rk__candidates *cands;
	const rk_analyze_options *o;
	result *res;
	atomic_size_t next, done;
	const rk_suggest_options *so;
	pthread_mutex_t mu; /* progress calls, one at a time */
} pool;

static void run_one(pool *p, size_t i)
{
	const rk__cand *c = &p->cands->c[i];
	result *r = &p->res[i];
	char text[5400];
	rk_schema *sc = NULL;
	snprintf(text, sizeof text, "%s; key %s", p->cands->fields, c->key);
	r->rc = rk_schema_parse(&sc, text, strlen(text), "suggestion");
	r->parsed = r->rc == 0;
	if (!r->rc)
		r->rc = rk__analyze_on(&r->a, sc, c->label, p->src, p->o);
	if (r->rc)
		snprintf(r->err, sizeof r->err, "%s", rk_error_last());
	else if (!(r->schema_text = strdup(text)) || rk_analysis_set_schema_text(r->a, text))
		r->rc = RK_ENOMEM;
	rk_schema_free(sc);
}

static void *worker(void *arg)
{
	pool *p = arg;
	size_t i;
	while ((i = atomic_fetch_add(&p->next, 1)) < p->cands->n) {
		run_one(p, i);
		size_t d = atomic_fetch_add(&p->done, 1) + 1;
		if (p->so && p->so->progress) {
			pthread_mutex_lock(&p->mu);
			p->so->progress("designs", d, p->cands->n, p->so->payload);
			pthread_mutex_unlock(&p->mu);
		}
	}
	return NULL;
}

static int run_all(pool *p, unsigned threads)
{
	pthread_t t[8];
	unsigned n = threads < 1 ? 1 : threads > 8 ? 8 : threads, started = 0;
	pthread_mutex_init(&p->mu, NULL);
	for (unsigned k = 1; k < n; k++)
		started += pthread_create(&t[started], NULL, worker, p) == 0;
	worker(p);
	for (unsigned k = 0; k < started; k++)
		pthread_join(t[k], NULL);
	pthread_mutex_destroy(&p->mu);
	for (size_t i = 0; i < p->cands->n; i++)
		if (p->res[i].rc && p->res[i].rc != RK_EINVALID)
			return rk__err(p->res[i].rc, "%s", p->res[i].err);
	return 0;
}

/* ---- scores ---- */

/* What a table beyond the first costs that the write score (divided by the
 * tables) does not count: no update is atomic across tables (HBase and
 * Bigtable transact within a row), so a writer must mend a half-written
 * record. A set of two comes first only when it scores a quarter more than
 * the best single key, a set of three 56% more. */
#define SET_PRICE 0.8

static int fits(const rk_report *r)
{
	return r->peak_server_rate > 0 && r->peak_server_rate <= r->capacity;
}

/* A covering range's extra rows are damped (sqrt): they are read from one
 * place, in order. A scan is priced in full, over every region it visits:
 * it reads the whole table on every server, and grows with the table,
 * which no index table does; so is a range that reads a time window's
 * older rows and filters them out (it grows with the table's history). A
 * backward read costs twice a forward one per row (a reversed scan seeks
 * back row by row; the reason the seeds put a reverse timestamp in the key
 * for the newest first). */
static double read_eff(const rk_query_cost *q)
{
	double amp = q->rows_read_per_row > 1 ? q->rows_read_per_row : 1;
	amp *= q->read_backwards ? 2 : 1;
	int scan = !strcmp(q->kind, "scan");
	double fan = scan ? q->regions : q->ranges;
	fan = fan > 1 ? fan : 1;
	/* each range reads the row past its end: 16 ranges for 10 rows read 26,
	   one range 11; for 1,500 rows the same 16 cost next to nothing more */
	double seek = q->seek_cost > 1 ? q->seek_cost : 1;
	return 1.0 / ((scan || q->rows_read_grow ? amp : sqrt(amp)) * (1 + log2(fan) / 4) * seek);
}

/* Spread only what one server cannot take: when the busiest server's
 * operations in its busiest time bucket fit its capacity, the design
 * carries the load and the reads decide (a salt would buy nothing and cost
 * every read); past it, the share of that peak the server can take (a key
 * that puts every write of 200,000/s on one 10,000/s server carries 5%). */
static double write_eff(const rk_analysis *a)
{
	const rk_report *r = rk_analysis_report(a);
	if (r->servers <= 1 || r->peak_share <= 0 || fits(r))
		return 1;
	if (r->peak_server_rate > 0 && r->capacity > 0)
		return r->capacity / r->peak_server_rate;
	double share = r->peak_share > r->day_share ? r->peak_share : r->day_share;
	double w = 1.0 / (share * r->servers); /* no clock to say the rate */
	return w > 1 ? 1 : w;
}

static int unique(const rk_analysis *a)
{
	const rk_report *r = rk_analysis_report(a);
	return r->keys_checked && r->key_distinct == r->keys_checked;
}

/* The read score of a set of tables: each shape read from its best table. */
static double read_score(rk_analysis *const *t, size_t k, uint64_t *serves)
{
	const rk_report *r0 = rk_analysis_report(t[0]);
	double sum = 0, wsum = 0;
	memset(serves, 0, k * sizeof *serves);
	for (size_t q = 0; q < r0->nqueries; q++) {
		size_t best = 0;
		double e = 0;
		for (size_t j = 0; j < k; j++) {
			double x = read_eff(&rk_analysis_report(t[j])->queries[q]);
			if (x > e) {
				e = x;
				best = j;
			}
		}
		serves[best] |= 1ull << q;
		double w = r0->queries[q].weight > 0 ? r0->queries[q].weight : 1;
		sum += w * log(e);
		wsum += w;
	}
	return wsum ? exp(sum / wsum) : 1;
}

/* ---- proposals ---- */

/* The N of the candidate's bucket(N, ...) part, or 0. */
static unsigned bucket_n(const char *key)
{
	const char *b = strstr(key, "bucket(");
	unsigned n = 0;
	return b && sscanf(b, "bucket(%u", &n) == 1 ? n : 0;
}

static char *trade_of(const rk__cand *c, const rk__candidates *cs, const rk_analysis *a)
{
	const rk_report *r = rk_analysis_report(a);
	char buf[600];
	size_t o = 0;
	if (!strcmp(c->variant, "hashed"))
		o += (size_t)snprintf(buf + o, sizeof buf - o,
		                      "a hash of the leading equality fields spreads their values over "
		                      "%u buckets; a query that binds them computes the bucket and reads "
		                      "one range",
		                      a->info.buckets);
	else if (!strcmp(c->variant, "salted"))
		o += (size_t)snprintf(buf + o, sizeof buf - o,
		                      "salting by the identifying fields spreads every write over %u "
		                      "buckets; every query reads %u ranges, merged to keep order",
		                      a->info.buckets, a->info.buckets);
	else if (!strcmp(c->variant, "inner"))
		o += (size_t)snprintf(buf + o, sizeof buf - o,
		                      "a hash after the equality fields spreads each of their values "
		                      "over %u sub-ranges (a hot value's writes over as many regions); "
		                      "a query that binds only them reads %u adjacent ranges merged (one "
		                      "region for a small value), one that binds the hashed fields too "
		                      "reads one",
		                      bucket_n(c->key), bucket_n(c->key));
	else if (!strcmp(c->variant, "promoted"))
		o += (size_t)snprintf(buf + o, sizeof buf - o,
		                      "a well-spread field in front keeps the rising field off one "
		                      "region; queries must bind that field");
	else if (!strcmp(c->variant, "windows"))
		o += (size_t)snprintf(buf + o, sizeof buf - o,
		                      "a time bucket after the equality fields bounds a window's range in "
		                      "time (the older rows are not read); a query that binds the fields "
		                      "after it reads one range per time bucket of its window%s",
		                      a->info.buckets > 1 ? "; the hash in front spreads the writes, and "
		                                            "a query that does not bind its fields reads "
		                                            "every bucket's window, merged"
		                                          : "");
	else if (!strcmp(c->variant, "current"))
		o += (size_t)snprintf(buf + o, sizeof buf - o,
		                      "the design the table has now, ranked by the same measure");
	else
		o += (size_t)snprintf(buf + o, sizeof buf - o,
		                      "rows in the order of the key's fields; no spread prefix, so no "
		                      "fan-out on reads");
	if (cs->uniquifier)
		o += (size_t)snprintf(buf + o, sizeof buf - o,
		                      "; a uniquifier field ends the key (no field set of the data "
		                      "identifies a record): the writer must supply it (a file: "
		                      "rowkey load --number FIELD numbers its records)");
	(void)r;
	return strdup(buf);
}

static int single(rk_suggestion *s, result *r, const rk__cand *c, const rk__candidates *cs)
{
	uint64_t serves;
	memset(s, 0, sizeof *s);
	s->ntables = 1;
	s->table[0].label = strdup(c->label);
	s->table[0].schema_text = r->schema_text;
	s->table[0].analysis = r->a;
	r->schema_text = NULL;
	r->a = NULL;
	s->write_score = write_eff(s->table[0].analysis);
	s->read_score = read_score(&s->table[0].analysis, 1, &serves);
	s->table[0].serves = serves;
	s->score = s->write_score * s->read_score;
	s->trade = trade_of(c, cs, s->table[0].analysis);
	return s->table[0].label && s->trade ? 0 : rk__err(RK_ENOMEM, "out of memory");
}

/* Regions a read visits, the shapes' weighted mean in the first table:
 * the servers a query asks (16 adjacent ranges of one small tenant are one
 * region; a salt's 16 are 16). */
static double regions_read(const rk_suggestion *s)
{
	const rk_report *r = rk_analysis_report(s->table[0].analysis);
	double sum = 0, wsum = 0;
	for (size_t q = 0; q < r->nqueries; q++) {
		double w = r->queries[q].weight > 0 ? r->queries[q].weight : 1;
		sum += w * r->queries[q].regions;
		wsum += w;
	}
	return wsum > 0 ? sum / wsum : 0;
}

/* Best score first; at a tie the fewer regions a read visits, then the
 * shorter key (no prefix that buys nothing). */
static int cmp_score(const void *a, const void *b)
{
	const rk_suggestion *x = a, *y = b;
	double kx = rk_analysis_report(x->table[0].analysis)->key_mean,
	       ky = rk_analysis_report(y->table[0].analysis)->key_mean;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	double rx = regions_read(x), ry = regions_read(y);
	if (fabs(rx - ry) >= 1) /* a whole region more a read: a server more to ask */
		return rx < ry ? -1 : 1;
	if (x->ntables != y->ntables)
		return x->ntables < y->ntables ? -1 : 1;
	if (kx != ky)
		return kx < ky ? -1 : 1;
	return strcmp(x->design, y->design);
}

/* The single whose key serves the shapes of mask best, writes included. */
static size_t best_for(const rk_suggestion *one, size_t n, uint64_t mask)
{
	size_t best = 0;
	double e = -1;
	for (size_t i = 0; i < n; i++) {
		const rk_analysis *a = one[i].table[0].analysis;
		const rk_report *r = rk_analysis_report(a);
		double sum = 0, wsum = 0;
		for (size_t q = 0; q < r->nqueries; q++)
			if (mask >> q & 1) {
				double wq = r->queries[q].weight > 0 ? r->queries[q].weight : 1;
				sum += wq * log(read_eff(&r->queries[q]));
				wsum += wq;
			}
		double x = (wsum ? exp(sum / wsum) : 1) * write_eff(a);
		if (x > e) {
			e = x;
			best = i;
		}
	}
	return best;
}

/* A set of tables from proposal 0 (the best single): for each shape it
 * serves poorly, the single that serves that shape best. The set borrows
 * the singles' runs; the caller copies what it keeps. */
static int make_set(rk_suggestion *set, const rk_suggestion *one, size_t n)
{
	size_t pick[3] = {0};
	size_t k = 1;
	const rk_report *r0 = rk_analysis_report(one[0].table[0].analysis);
	for (size_t q = 0; q < r0->nqueries && k < 3; q++) {
		if (read_eff(&r0->queries[q]) >= 0.5)
			continue;
		size_t best = 0;
		double e = 0;
		for (size_t i = 1; i < n; i++) {
			const rk_analysis *a = one[i].table[0].analysis;
			double x = read_eff(&rk_analysis_report(a)->queries[q]) * write_eff(a);
			if (x > e) {
				e = x;
				best = i;
			}
		}
		int dup = 0;
		for (size_t j = 0; j < k; j++)
			dup |= pick[j] == best;
		if (best && !dup)
			pick[k++] = best;
	}
	if (k == 1)
		return 0;
	rk_analysis *t[3];
	uint64_t serves[3];
	double w = 1;
	memset(set, 0, sizeof *set);
	for (size_t j = 0; j < k; j++)
		t[j] = one[pick[j]].table[0].analysis;
	/* each table, once its shapes are known, is the single that serves
	 * them best: the main table no longer needs what the others serve (a
	 * seller's table salted for lookups by order, when an order table
	 * takes those) */
	read_score(t, k, serves);
	for (size_t j = 0; j < k; j++) {
		size_t b = best_for(one, n, serves[j]);
		int dup = 0;
		for (size_t i = 0; i < k; i++)
			dup |= i != j && pick[i] == b;
		if (!dup) {
			pick[j] = b;
			t[j] = one[b].table[0].analysis;
		}
	}
	for (size_t j = 0; j < k; j++)
		w = write_eff(t[j]) < w ? write_eff(t[j]) : w;
	set->ntables = k;
	set->write_score = w / (double)k;
	set->read_score = read_score(t, k, serves);
	for (size_t j = 0; j < k; j++)
		if (!serves[j]) /* a table that serves no shape better is only a second copy */
			return 0;
	set->score = set->write_score * set->read_score * pow(SET_PRICE, (double)(k - 1));
	/* the main table first: the one whose shapes weigh most */
	double wt[3] = {0};
	const rk_report *r = rk_analysis_report(t[0]);
	for (size_t j = 0; j < k; j++)
		for (size_t q = 0; q < r->nqueries; q++)
			wt[j] += (serves[j] >> q & 1) ? (r->queries[q].weight > 0 ? r->queries[q].weight : 1) : 0;
	for (size_t j = 1; j < k; j++)
		for (size_t i = j; i > 0 && wt[i] > wt[i - 1]; i--) {
			double x = wt[i];
			wt[i] = wt[i - 1];
			wt[i - 1] = x;
			size_t p = pick[i];
			pick[i] = pick[i - 1];
			pick[i - 1] = p;
			uint64_t sv = serves[i];
			serves[i] = serves[i - 1];
			serves[i - 1] = sv;
		}
	for (size_t j = 0; j < k; j++) {
		set->table[j] = one[pick[j]].table[0];
		set->table[j].serves = serves[j];
	}
	return 1;
}

static int set_words(rk_suggestion *set)
{
	char buf[1200];
	size_t o = 0;
	for (size_t j = 0; j < set->ntables && o < sizeof buf; j++)
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", j ? " | " : "", set->table[j].label);
	if (!(set->design = strdup(buf)))
		return RK_ENOMEM;
	o = (size_t)snprintf(buf, sizeof buf,
	                     "a key per query shape: %zu tables, each written with every record (%zux "
	                     "the writes and the storage), each shape read from the table keyed for it",
	                     set->ntables, set->ntables);
	if (!(set->trade = strdup(buf)))
		return RK_ENOMEM;
	set->schema_text = set->table[0].schema_text;
	set->analysis = set->table[0].analysis;
	return 0;
}

void rk_suggestions_free(rk_suggestion *s, size_t count)
{
	for (size_t i = 0; s && i < count; i++) {
		free(s[i].design);
		free(s[i].trade);
		free(s[i].not_proposed);
		if (s[i].ntables > 1)
			continue; /* a set's tables are the single proposals' runs */
		free(s[i].table[0].label);
		free(s[i].table[0].schema_text);
		rk_analysis_free(s[i].table[0].analysis);
	}
	free(s);
}

/* Singles from the runs that finished with a unique key, then the set. */
static int assemble(rk_suggestion **out, size_t *count, result *res, const rk__candidates *cs)
{
	rk_suggestion *s = calloc(cs->n + 1, sizeof *s);
	size_t n = 0;
	int rc = 0;
	if (!s)
		return rk__err(RK_ENOMEM, "out of memory");
	for (size_t i = 0; i < cs->n && !rc; i++) {
		if (res[i].rc || !unique(res[i].a))
			continue; /* a key that loses rows is never a proposal */
		if ((rc = single(&s[n], &res[i], &cs->c[i], cs)) == 0 &&
		    !(s[n].design = strdup(cs->c[i].label)))
			rc = rk__err(RK_ENOMEM, "out of memory");
		s[n].schema_text = s[n].table[0].schema_text;
		s[n].analysis = s[n].table[0].analysis;
		n++;
	}
	if (!rc && n) {
		qsort(s, n, sizeof *s, cmp_score);
		if (make_set(&s[n], s, n)) {
			if (set_words(&s[n]))
				rc = rk__err(RK_ENOMEM, "out of memory");
			n++;
			qsort(s, n, sizeof *s, cmp_score);
		}
	}
	if (rc || !n) { /* none unique: the caller may build the candidates again */
		rk_suggestions_free(s, n);
		return rc;
	}
	*out = s;
	*count = n;
	return 0;
}

static void free_results(result *res, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		rk_analysis_free(res[i].a);
		free(res[i].schema_text);
	}
	free(res);
}

/* The first design the data could not run (its error, in a buffer of the
 * results), and in *n how many did not; NULL when every one ran. */
static const char *failed(const result *res, const rk__candidates *cs, size_t *n)
{
	const char *first = NULL;
	*n = 0;
	for (size_t i = 0; i < cs->n; i++)
		if (res[i].rc == RK_EINVALID && res[i].parsed && !(*n)++)
			first = res[i].err; /* names the design ("simulator: design month + name: ...") */
	return first;
}

/* 1: every design of the round failed on the data (none ran to the end). */
static int none_ran(const result *res, const rk__candidates *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		if (res[i].rc == 0)
			return 0;
	return cs->n > 0;
}

int rk_suggest_opts(rk_suggestion **out, size_t *count, const rk_workload_options *wopts,
                    const rk_analyze_options *opts, const rk_suggest_options *so)
{
	rk__source *src = NULL;
	rk__candidates cs;
	rk_analyze_options o = *opts;
	result *res = NULL;
	int rc;
	*out = NULL;
	*count = 0;
	if ((rc = rk__check_options(opts, 100000)) != 0)
		return rc;
	if ((rc = rk__source_open(&src, wopts, so ? so->progress : NULL, so ? so->payload : NULL)) != 0)
		return rc;
	o.presplit = 2; /* proposals come with their split points */
	/* The profile checks its identifying sets on the records it holds; the
	 * runs count every key of the file. When those show the set to collide
	 * (a repeat past the memory window), the candidates are built again
	 * with a uniquifier, never a key that loses rows. */
	int implicit = 0;
	cs.n = 0;
	for (int round = 0; round < 2 && !rc && !*count; round++) {
		if (res)
			free_results(res, cs.n);
		res = NULL;
		if ((rc = rk__candidates_build(&cs, src, opts->servers, round)) != 0)
			break;
		if (so && so->current && !cs.uniquifier)
			rk__candidates_add(&cs, "the table's design", so->current, "current");
		implicit |= cs.implicit_shape;
		if (!(res = calloc(cs.n ? cs.n : 1, sizeof *res))) {
			rc = rk__err(RK_ENOMEM, "out of memory");
			break;
		}
		pool p = {src, &cs, &o, res, 0, 0, so, PTHREAD_MUTEX_INITIALIZER};
		if ((rc = run_all(&p, so && so->threads ? so->threads : 2)) == 0)
			rc = assemble(out, count, res, &cs);
		if (cs.uniquifier || none_ran(res, &cs))
			break; /* a uniquifier already ends every key; or no key could be made at all */
	}
	size_t nf = 0;
	const char *why = res ? failed(res, &cs, &nf) : NULL;
	if (!rc && *count == 0 && why)
		rc = rk__err(RK_EINVALID, "no candidate design can hold every record of workload %s: %s",
		             rk__workload_name(src->shapes), why);
	else if (!rc && *count == 0)
		rc = rk__err(RK_EINVALID, "no candidate design identifies every record of workload %s",
		             rk__workload_name(src->shapes));
	if (!rc && why) {
		char *t = malloc(strlen(why) + 64);
		if (!t) {
			rc = rk__err(RK_ENOMEM, "out of memory");
			rk_suggestions_free(*out, *count);
			*out = NULL;
			*count = 0;
		} else {
			sprintf(t, "%zu design%s the data cannot give a key for: %s", nf, nf == 1 ? "" : "s",
			        why);
			(*out)[0].not_proposed = t;
		}
	}
	for (size_t i = 0; !rc && i < *count; i++) {
		(*out)[i].no_queries = implicit;
		(*out)[i].uniquifier = cs.uniquifier;
		(*out)[i].time_identity = cs.time_identity;
		(*out)[i].not_tried = cs.not_tried;
	}
	if (res)
		free_results(res, cs.n);
	rk__source_free(src);
	return rc;
}

int rk_suggest(rk_suggestion **out, size_t *count, const rk_workload_options *wopts,
               const rk_analyze_options *opts)
{
	return rk_suggest_opts(out, count, wopts, opts, NULL);
}
