/*
 * What each query shape costs under a design (rk_query_cost): the filled
 * queries of a shape (shape.c) planned by the key library's planner and
 * laid over the run's final region map.
 *
 *   gets      one read per key the plan names
 *   ranges    the plan's row ranges; with no residual filter the ranges hold
 *             exactly the matching rows, so rows read = rows returned (exact);
 *             with one, rows read are estimated from the design's sampled
 *             keys (the share of samples inside the ranges x the records)
 *   scan      a full scan reads every record; ranges that read half the
 *             table or more (whole salt buckets, say) are costed as the scan
 *             they are
 *   a larger table (--rows N, more than the file's R records) of data
 *             with a clock: the rows beyond the file are older history, the
 *             file's records moved back a span of the clock at a time
 *             (rk__sample_history). A shape that binds the clock returns what
 *             it returns on the file (its windows lie in the file's span); one
 *             that does not returns N/R times as much. A residual range reads
 *             the file's rows inside it plus (N - R) x the share of the older
 *             keys inside it: nothing more when the key orders by time before
 *             the filtered field, all of its share when the time is only
 *             filtered. Without a clock the other rows are other entities':
 *             exact ranges read what they match in the file, a residual range
 *             its share of N. A range that reads rows far older than the
 *             window of a shape binding the clock (the file's records moved
 *             back two days) grows with the history: rows_read_grow.
 *   LIMIT     a plan that reads rows in the order asked for (ORDER BY served
 *             by the key, forward or backward, or the key's own order) and
 *             drops none with a residual filter stops each stream after LIMIT
 *             rows; one that must sort reads every match first
 * Rows read per row returned is the read amplification the ranking weighs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "analyze/shape.h"
#include "key/error.h"
#include "store/local/meta.h"

/* Sampled keys at or after k (sorted keys). */
static size_t lower(uint8_t *const *keys, const size_t *kl, size_t n, const uint8_t *k, size_t len)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (rk_meta__row_cmp(keys[mid], kl[mid], k, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first and last region a range touches in the final map. */
static void regions_of(const rk__tmeta *t, const rk_key_range *r, int get, size_t *i0, size_t *i1)
{
	*i0 = *i1 = rk_meta__lookup_index(t, r->start, r->start_len);
	if (get)
		return;
	if (!r->stop_len) {
		*i1 = t->nregions - 1;
		return;
	}
	*i1 = rk_meta__lookup_index(t, r->stop, r->stop_len);
	if (*i1 > *i0 && !rk_meta__row_cmp(t->regions[*i1]->start, t->regions[*i1]->start_len, r->stop,
	                                  r->stop_len))
		(*i1)--; /* an exclusive stop at a region's first row does not reach into it */
}

static int by_first(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The distinct regions a plan's ranges touch: the servers a query asks
 * (16 adjacent ranges of one small tenant are one region, a salt's 16 are
 * 16). */
static double plan_regions(const rk__tmeta *t, const rk_plan *plan, int get)
{
	size_t *iv = malloc(2 * (plan->nranges ? plan->nranges : 1) * sizeof *iv), n = 0, last = 0;
	double regions = 0;
	if (!iv) /* out of memory: every range its own regions, as an upper bound */
		return (double)plan->nranges;
	for (size_t j = 0; j < plan->nranges; j++)
		regions_of(t, &plan->ranges[j], get, &iv[2 * j], &iv[2 * j + 1]);
	qsort(iv, plan->nranges, 2 * sizeof *iv, by_first);
	for (size_t j = 0; j < plan->nranges; j++) {
		size_t a = iv[2 * j], b = iv[2 * j + 1];
		if (n && a <= last)
			a = last + 1;
		if (a <= b)
			regions += (double)(b - a + 1);
		if (!n || b > last)
			last = b;
		n = 1;
	}
	free(iv);
	return regions;
}

typedef struct tally {
	double ranges, regions, read, returned, seeks;
	int gets, scans, full, merges, estimated, unplanned, unordered, backwards, grows;
	int this_estimated; /* the last query's read was estimated */
	unsigned ways;
} tally;

static void one_plan(tally *t, const rk__qshape *sh, const rk__qsample *q, const rk__price_in *in);

/* What a LIMIT saves: when the plan reads its rows in the order asked for
 * (the key's, forward or backward) and no residual filter drops any, each
 * stream stops after LIMIT rows; a plan that must sort reads every match. */
static double limited(const rk_plan *plan, double read)
{
	if (!plan->limit || plan->residual || plan->order_by == RK_ORDER_SORT ||
	    (plan->order_by == RK_ORDER_NONE && !plan->ordered))
		return read;
	double most = (double)plan->limit * (plan->nstreams > 1 ? plan->nstreams : 1);
	return read < most ? read : most;
}

static void one_query(tally *t, const rk__qshape *sh, const rk__qsample *q, const rk__price_in *in,
                      rk_query_fill *f)
{
	double read0 = t->read, returned0 = t->returned;
	t->this_estimated = 0;
	one_plan(t, sh, q, in);
	f->rows_read = t->read - read0;
	f->rows_returned = t->returned - returned0;
	f->estimated = t->this_estimated;
}

/* Sampled keys inside a plan's ranges. */
static double keys_inside(const rk_plan *plan, uint8_t *const *keys, const size_t *kl, size_t n)
{
	double inside = 0;
	for (size_t j = 0; j < plan->nranges; j++) {
		const rk_key_range *r = &plan->ranges[j];
		size_t a = lower(keys, kl, n, r->start, r->start_len);
		size_t b = r->stop_len ? lower(keys, kl, n, r->stop, r->stop_len) : n;
		inside += b > a ? (double)(b - a) : 0;
	}
	return inside;
}

/* Rows a residual plan reads at the table's size: the file's rows inside its
 * ranges, and the older rows' (the price model above). */
static double residual_read(const rk_plan *plan, const rk__price_in *in)
{
	double N = (double)in->records, R = (double)in->file_records;
	double now = keys_inside(plan, in->keys, in->key_len, in->nkeys) / (double)in->nkeys;
	if (N <= R || R <= 0 || in->clock < 0)
		return now * N;
	double older = in->nhist ? keys_inside(plan, in->hist, in->hist_len, in->nhist) / (double)in->nhist
	                         : now;
	return now * R + older * (N - R);
}

/* The shape's matches at the table's size: with a clock, the older rows
 * match a shape that does not bind it as the file's do; without one, the
 * table's other rows are other entities' and match nothing. */
static double matched_at_size(const rk__qshape *sh, const rk__qsample *q, const rk__price_in *in)
{
	double N = (double)in->records, R = (double)in->file_records;
	int older = in->clock >= 0 && in->clock < 64 && N > R && R > 0 &&
	            !((sh->eq_mask | sh->range_mask) >> in->clock & 1);
	return (double)q->matched * (older ? N / R : 1);
}

/* 1: a residual plan of a shape that binds the clock reads rows far older
 * than its window too (the key does not bound the window, the clock is only
 * filtered), so its rows read grow with the table's history while the rows
 * it returns do not. A key with the time or a time bucket in its ranges
 * leaves them outside. */
static int grows(const rk__qshape *sh, const rk_plan *plan, const rk__price_in *in)
{
	if (in->clock < 0 || in->clock >= 64 || !in->nfar ||
	    !((sh->eq_mask | sh->range_mask) >> in->clock & 1))
		return 0;
	return keys_inside(plan, in->far, in->far_len, in->nfar) > 0;
}

/* Of those, the rows returned: at most LIMIT, never fewer than on the file. */
static double returned_of(const rk__qshape *sh, const rk__qsample *q, double matched)
{
	double rows = sh->limit && matched > (double)sh->limit ? (double)sh->limit : matched;
	return rows < (double)q->rows ? (double)q->rows : rows;
}

static void one_plan(tally *t, const rk__qshape *sh, const rk__qsample *q, const rk__price_in *in)
{
	rk_predicate *pred = NULL;
	rk_plan *plan = NULL;
	double N = (double)in->records, matched = matched_at_size(sh, q, in);
	if (rk_predicate_parse(&pred, in->schema, q->where, strlen(q->where)) != 0 ||
	    rk_plan_build(&plan, in->schema, pred) != 0) {
		/* the design cannot plan it (a field it lacks): it can only read everything */
		t->unplanned++;
		t->scans++;
		t->full++;
		t->ranges += 1;
		t->seeks += 1;
		t->regions += (double)in->map->nregions;
		t->read += N;
		t->returned += returned_of(sh, q, matched);
		rk_predicate_free(pred);
		return;
	}
	t->backwards += plan->order_by == RK_ORDER_REVERSE;
	if (plan->kind == RK_PLAN_FULL_SCAN) {
		double read = limited(plan, N);
		t->scans += read >= 0.5 * N;
		t->full += read >= 0.5 * N;
		t->ranges += 1;
		t->seeks += 1;
		t->regions += (double)in->map->nregions;
		t->read += read;
	} else {
		int get = plan->kind == RK_PLAN_GETS;
		if (get) /* a whole key without the clock has no older rows under it */
			matched = (double)q->matched;
		t->gets += get;
		t->ranges += (double)plan->nranges;
		t->regions += plan_regions(in->map, plan, get);
		double read = get ? (double)plan->nranges : matched;
		if (plan->residual && !get && in->nkeys) {
			double est = residual_read(plan, in);
			read = est > read ? est : read;
			t->estimated = t->this_estimated = 1;
			t->grows += grows(sh, plan, in);
		}
		read = limited(plan, read);
		t->read += read;
		/* each range reads the row past its end (an iterator knows the range
		   is over only by reading the next key); a get reads its row alone */
		t->seeks += get ? 1 : (read + (double)plan->nranges) / (read + 1);
		if (!get && read >= 0.5 * N && N > 1)
			t->scans++;
		t->unordered += !plan->ordered; /* rows must be sorted after reading */
		if (plan->merge) {
			t->merges++;
			t->ways = plan->nstreams; /* the streams merged (a salt: one per bucket) */
		}
	}
	t->returned += returned_of(sh, q, matched);
	rk_plan_free(plan);
	rk_predicate_free(pred);
}

int rk__price_queries(rk_analysis *a, const rk__price_in *in)
{
	const rk__qset *qs = in->q;
	if (!qs || !qs->n)
		return 0;
	if (!(a->queries = calloc(qs->n, sizeof *a->queries)) ||
	    !(a->query_str = calloc(2 * qs->n, sizeof *a->query_str)) ||
	    !(a->fills = calloc(qs->n, sizeof *a->fills)))
		return rk__err(RK_ENOMEM, "out of memory pricing queries");
	a->rep.nqueries = qs->n;
	for (size_t s = 0; s < qs->n; s++) /* the analysis outlives the shapes */
		if (!(a->query_str[2 * s] = strdup(qs->q[s].name)) ||
		    !(a->query_str[2 * s + 1] = strdup(qs->q[s].where)))
			return rk__err(RK_ENOMEM, "out of memory pricing queries");
	for (size_t s = 0; s < qs->n; s++) {
		const rk__qshape *q = &qs->q[s];
		rk_query_cost *c = &a->queries[s];
		tally t = {0};
		if (q->ns && !(a->fills[s] = calloc(q->ns, sizeof *a->fills[s])))
			return rk__err(RK_ENOMEM, "out of memory pricing queries");
		c->fills = a->fills[s];
		for (size_t k = 0; k < q->ns; k++) {
			if (!(a->fills[s][k].query = strdup(q->s[k].where)))
				return rk__err(RK_ENOMEM, "out of memory pricing queries");
			c->samples = k + 1; /* what the analysis frees */
			one_query(&t, q, &q->s[k], in, &a->fills[s][k]);
		}
		double n = q->ns ? (double)q->ns : 1;
		c->name = a->query_str[2 * s];
		c->query = a->query_str[2 * s + 1];
		c->weight = q->weight;
		c->ranges = t.ranges / n;
		c->regions = t.regions / n;
		c->rows_read = t.read / n;
		c->seek_cost = q->ns ? t.seeks / n : 1;
		c->rows_returned = t.returned / n;
		c->rows_read_per_row = t.read / (t.returned > n ? t.returned : n);
		c->rows_read_estimated = t.estimated;
		c->read_backwards = 2 * t.backwards > (int)q->ns;
		c->rows_read_grow = 2 * t.grows > (int)q->ns;
		c->merge_ways = 2 * t.merges > (int)q->ns ? t.ways : 0;
		c->kind = 2 * t.scans > (int)q->ns ? "scan" : 2 * t.gets > (int)q->ns ? "gets" : "ranges";
		c->plan = !strcmp(c->kind, "scan")
		              ? (t.unplanned ? "full scan (fields missing)"
		                 : 2 * t.full > (int)q->ns ? "full scan"
		                                           : "ranges that read most of the table")
		          : !strcmp(c->kind, "gets") ? (c->ranges > 1.5 ? "gets" : "get")
		          : c->merge_ways ? "one scan per bucket"
		                          : "scan";
		c->ordered = !c->merge_ways && 2 * t.unordered <= (int)q->ns;
		c->samples = q->ns;
	}
	return 0;
}
