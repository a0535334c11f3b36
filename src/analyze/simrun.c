/*
 * A simulated run (rk__analyze_on, rk_analyze_run): a workload through a
 * design on the simulated cluster (sim.c). Two passes over the workload:
 * the first samples the design's keys (the heatmap's key ranges, the bucket
 * prefixes, the initial split points), the second replays every operation
 * through the regions, counting writes and reads per region, server, time
 * bucket and heatmap cell, and every key's fingerprint for the distinct
 * count. Then the shapes are priced on the final regions (price.c) and the
 * causes named (causes.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "analyze/sim_int.h"
#include "analyze/source.h"
#include "key/error.h"
#include "store/cell.h"
#include "store/local/split.h"

static void free_keys(uint8_t **keys, size_t *kl, size_t n)
{
	for (size_t i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
	free(kl);
}

/* ---- the run, in steps ---- */

/* Everything one simulated run holds besides the cluster (sim). */
typedef struct run {
	const rk__source *src;
	const rk_schema *schema;
	const rk_analyze_options *o;
	const char *design;
	rk__workload *w;
	rk__binder *bind;
	rk__prefixes pfx;
	uint8_t **keys;     /* the design's sampled keys, sorted */
	size_t *key_len, nkeys;
	uint8_t **hist;     /* the older rows' when the table is larger than the file */
	size_t *hist_len, nhist;
	uint8_t **far; /* the same, moved far back: does a range bound the time? */
	size_t *far_len, nfar;
	rk_bytes *sp;
	size_t nsp;
	rk_encoder *enc;
	rk__ranger rg;
	int have_rg;
	int clock;          /* the workload's clock field, or -1 */
	uint64_t *seen;     /* fingerprints of the keys written, bounded; sorted at the end */
	uint64_t seen_n, distinct;
	/* the heatmap while it fills, column by column (a time bucket's cells
	 * are contiguous: the writes of one moment hit one small slice), reads
	 * as +1/-1 at their first and past their last row */
	uint64_t *hwc;      /* cols x rows */
	int64_t *hrd;       /* cols x (rows + 1) */
} run;

#define KEYS_CHECKED_MAX (16u << 20)

/* Heatmap rows: quantiles of the sampled keys; row 0 starts at "". */
static int heat_rows(rk_analysis *a, run *r)
{
	size_t rows = r->nkeys < r->o->key_buckets ? (r->nkeys ? r->nkeys : 1) : r->o->key_buckets;
	a->cols = r->o->time_buckets;
	if (!(a->row_key = calloc(rows, sizeof *a->row_key)) ||
	    !(a->row_key_len = calloc(rows, sizeof *a->row_key_len)) || !(a->row_key[0] = malloc(1)))
		return rk__err(RK_ENOMEM, "out of memory for the heatmap");
	a->rows = 1;
	for (size_t k = 1; k < rows; k++) {
		size_t j = (size_t)((double)k * (double)r->nkeys / (double)rows);
		if (rk_meta__row_cmp(r->keys[j], r->key_len[j], a->row_key[a->rows - 1],
		                     a->row_key_len[a->rows - 1]) <= 0)
			continue;
		if (!(a->row_key[a->rows] = malloc(r->key_len[j] ? r->key_len[j] : 1)))
			return rk__err(RK_ENOMEM, "out of memory for the heatmap");
		memcpy(a->row_key[a->rows], r->keys[j], r->key_len[j]);
		a->row_key_len[a->rows] = r->key_len[j];
		a->rows++;
	}
	if (rk__sim_heat_index(a))
		return RK_ENOMEM;
	if (!(a->hw = calloc(a->rows * a->cols, sizeof *a->hw)) ||
	    !(a->hr = calloc(a->rows * a->cols, sizeof *a->hr)) ||
	    !(r->hwc = calloc(a->rows * a->cols, sizeof *r->hwc)) ||
	    !(r->hrd = calloc((a->rows + 1) * a->cols, sizeof *r->hrd)) ||
	    !(a->sw = calloc((size_t)a->cols * r->o->servers, sizeof *a->sw)) ||
	    !(a->sr = calloc((size_t)a->cols * r->o->servers, sizeof *a->sr)))
		return rk__err(RK_ENOMEM, "out of memory for the heatmap");
	return 0;
}

/* The key fingerprints written, for the distinct count: appended as they
 * come (sequential memory), counted once sorted at the end. */
static int seen_init(run *r, uint64_t total)
{
	uint64_t n = total < KEYS_CHECKED_MAX ? total : KEYS_CHECKED_MAX;
	r->seen = malloc((n ? n : 1) * sizeof *r->seen);
	return r->seen ? 0 : rk__err(RK_ENOMEM, "out of memory counting keys");
}

static void seen_add(run *r, uint64_t cap, const uint8_t *key, size_t kl)
{
	if (r->seen_n < cap && r->seen_n < KEYS_CHECKED_MAX)
		r->seen[r->seen_n++] = XXH3_64bits(key, kl);
}

/* LSD radix sort of the fingerprints, then the distinct count. */
static int seen_count(run *r)
{
	uint64_t n = r->seen_n, *a = r->seen, *b = malloc((n ? n : 1) * sizeof *b);
	if (!b)
		return rk__err(RK_ENOMEM, "out of memory counting keys");
	for (int shift = 0; shift < 64; shift += 16) {
		size_t cnt[65537] = {0};
		for (uint64_t i = 0; i < n; i++)
			cnt[(a[i] >> shift & 0xffff) + 1]++;
		for (size_t k = 1; k < 65537; k++)
			cnt[k] += cnt[k - 1];
		for (uint64_t i = 0; i < n; i++)
			b[cnt[a[i] >> shift & 0xffff]++] = a[i];
		uint64_t *t = a;
		a = b;
		b = t;
	}
	r->distinct = 0;
	for (uint64_t i = 0; i < n; i++)
		r->distinct += i == 0 || a[i] != a[i - 1];
	free(b);
	r->seen = a;
	return 0;
}

/* The column-major accumulators into the analysis's row-major maps. */
static void heat_finish(rk_analysis *a, const run *r)
{
	for (size_t b = 0; b < a->cols; b++) {
		int64_t run = 0;
		for (size_t h = 0; h < a->rows; h++) {
			run += r->hrd[b * (a->rows + 1) + h];
			a->hw[h * a->cols + b] += r->hwc[b * a->rows + h];
			a->hr[h * a->cols + b] += (uint64_t)run;
		}
	}
}

/* One write: its region, server, heat cell, size and maybe a split. */
static int sim_write(sim *s, run *r, uint32_t b, uint8_t *key, size_t kl, uint64_t fam_q)
{
	rk_analysis *a = s->a;
	size_t idx = rk_meta__lookup_index(s->t, key, kl);
	rk__region *reg = s->t->regions[idx];
	int rc;
	if ((rc = rk__sim_count(s, reg, b, 1, 0)) != 0)
		return rc;
	a->sw[(size_t)b * r->o->servers + reg->server]++;
	r->hwc[(size_t)b * a->rows + rk__sim_heat_row(a, key, kl)]++;
	a->rep.writes++;
	seen_add(r, rk__workload_total(r->w), key, kl);
	rk__sim_sample_row(s, &s->st[reg->id], key, kl);
	uint64_t size = atomic_load_explicit(&reg->size, memory_order_relaxed) + fam_q +
	                rk_cell__esc_len(key, kl) + r->o->value_len;
	atomic_store_explicit(&reg->size, size, memory_order_relaxed);
	/* split.h's limit for the region's server now (a balancer move changes
	 * it), unless an earlier try found no split point */
	if (size > rk_split__limit(r->o->split_threshold, s->on_server[reg->server]) &&
	    size > atomic_load_explicit(&reg->split_at_size, memory_order_relaxed))
		return rk__sim_maybe_split(s, idx);
	return 0;
}

/* One read of a generated workload: the regions and heat rows it visits. */
static int sim_read(sim *s, run *r, uint32_t b)
{
	rk_analysis *a = s->a;
	int rc;
	if ((rc = rk__ranger_plan(&r->rg, rk__workload_lo(r->w), rk__workload_hi(r->w))) != 0)
		return rc;
	a->rep.reads++;
	size_t nr = r->rg.full ? 1 : r->rg.n;
	for (size_t k = 0; k < nr; k++) {
		size_t i0 = 0, i1 = s->t->nregions - 1, h0 = 0, h1 = a->rows - 1;
		if (!r->rg.full) {
			rk__sim_range_regions(&i0, &i1, s->t, &r->rg.r[k]);
			h0 = rk__sim_heat_row(a, r->rg.r[k].lo, r->rg.r[k].lo_len);
			if (r->rg.r[k].hi_kind != RK__HI_NONE)
				h1 = rk__sim_heat_row(a, r->rg.r[k].hi, r->rg.r[k].hi_len);
		}
		for (size_t i = i0; i <= i1; i++) {
			rk__region *reg = s->t->regions[i];
			if ((rc = rk__sim_count(s, reg, b, 0, 1)) != 0)
				return rc;
			a->sr[(size_t)b * r->o->servers + reg->server]++;
			a->rep.read_visits++;
		}
		r->hrd[(size_t)b * (a->rows + 1) + h0]++;
		r->hrd[(size_t)b * (a->rows + 1) + h1 + 1]--;
	}
	return 0;
}

/* Pass 2: every operation of the workload through the cluster. */
static int sim_replay(sim *s, run *r)
{
	rk_analysis *a = s->a;
	const rk_analyze_options *o = r->o;
	size_t cap = rk_schema_max_key_len(r->schema);
	uint8_t *key = malloc(cap), *prev = malloc(cap);
	size_t prev_len = 0;
	uint64_t mono = 0, kbytes = 0;
	int64_t dur = rk__workload_duration_ms(r->w);
	int64_t next_balance = o->balance_interval > 0 ? (int64_t)(o->balance_interval * 1000) : -1;
	const uint64_t fam_q = rk_cell__key_len(0, 1, (const uint8_t *)"q", 1, 0);
	int rc = key && prev ? seen_init(r, rk__workload_total(r->w)) : rk__err(RK_ENOMEM, "out of memory");
	while (!rc) {
		int64_t t;
		int shape;
		if ((rc = rk__workload_next(r->w, &t, &shape)) != 0)
			break;
		uint32_t b = (uint32_t)(t * (int64_t)a->cols / dur);
		b = b >= a->cols ? (uint32_t)a->cols - 1 : b;
		for (; next_balance >= 0 && t >= next_balance; next_balance += (int64_t)(o->balance_interval * 1000))
			rk__sim_balance(s);
		if (shape >= 0) {
			rc = sim_read(s, r, b);
			continue;
		}
		const rk_value *v = rk__bind(r->bind, rk__workload_rec(r->w));
		size_t kl;
		if (!v) {
			rc = rk__err_wrap(RK_EINVALID, "record %llu", (unsigned long long)a->rep.writes + 1);
			break;
		}
		if ((rc = rk_key_encode(key, cap, &kl, r->enc, v)) != 0) {
			rk__err_wrap(rc, "design %s: record %llu", r->design,
			             (unsigned long long)a->rep.writes + 1);
			break;
		}
		kbytes += kl;
		a->rep.key_max = kl > a->rep.key_max ? kl : a->rep.key_max;
		mono += a->rep.writes > 0 && rk_meta__row_cmp(key, kl, prev, prev_len) > 0;
		rc = sim_write(s, r, b, key, kl, fam_q);
		uint8_t *tk = prev; /* this key is the next one's predecessor */
		prev = key;
		key = tk;
		prev_len = kl;
	}
	free(key);
	free(prev);
	if (rc != RK_EITEROVER)
		return rc;
	a->mono = a->rep.writes > 1 ? (double)mono / (double)(a->rep.writes - 1) : 0;
	a->rep.key_total = kbytes;
	a->rep.key_mean = a->rep.writes ? (double)kbytes / (double)a->rep.writes : 0;
	heat_finish(a, r);
	if ((rc = seen_count(r)) != 0)
		return rc;
	a->rep.key_distinct = r->distinct;
	a->rep.keys_checked = r->seen_n;
	return 0;
}

/* The final regions, with their series, into the analysis. */
static int collect_regions(sim *s)
{
	rk_analysis *a = s->a;
	a->nregions = s->t->nregions;
	if (!(a->regions = calloc(a->nregions, sizeof *a->regions)))
		return rk__err(RK_ENOMEM, "out of memory");
	for (size_t i = 0; i < a->nregions; i++) {
		const rk__region *reg = s->t->regions[i];
		rk__region_row *x = &a->regions[i];
		x->id = reg->id;
		x->server = reg->server;
		x->start_len = reg->start_len;
		x->end_len = reg->end_len;
		if (!(x->start = malloc(reg->start_len + 1)) || (reg->end && !(x->end = malloc(reg->end_len + 1))))
			return rk__err(RK_ENOMEM, "out of memory");
		memcpy(x->start, reg->start, reg->start_len);
		if (reg->end)
			memcpy(x->end, reg->end, reg->end_len);
		if (reg->id < s->nst) {
			rstat *st = &s->st[reg->id];
			x->writes = st->writes;
			x->reads = st->reads;
			x->first = st->first;
			x->len = st->len;
			x->wr = st->wr; /* the series moves to the analysis */
			st->wr = NULL;
		}
	}
	for (unsigned k = 0; k < s->o->servers; k++)
		for (size_t b = 0; b < a->cols; b++)
			a->srv_writes[k] += a->sw[b * s->o->servers + k];
	return 0;
}

/* 1: a query shape bounds the clock (its price asks whether the key bounds
 * it too, or reads the older rows and filters them out). */
static int binds_clock(const rk__qset *q, int clock)
{
	for (size_t i = 0; clock >= 0 && clock < 64 && i < q->n; i++)
		if ((q->q[i].eq_mask | q->q[i].range_mask) >> clock & 1)
			return 1;
	return 0;
}

/* Another day's writes: the sampled records moved two days back, routed to
 * the table's first regions. A key whose time comes before the field that
 * spreads it (service + tbucket(ts) + host) looks even on a file shorter
 * than its bucket, whose split points cut that one bucket by host; any
 * other day puts each value's writes at one end of its range, one region
 * (tomorrow's at the far end, the same way). Keys without the clock have
 * no such sample and keep today's spread. */
static int day_share(sim *s, run *r)
{
	const rk__tmeta *t = s->t;
	unsigned S = r->o->servers;
	uint64_t *n = calloc(S, sizeof *n), most = 0;
	if (!n)
		return rk__err(RK_ENOMEM, "out of memory");
	for (size_t k = 0; k < r->nfar; k++) {
		unsigned sv = rk_meta__lookup(t, r->far[k], r->far_len[k])->server; /* the store's routing */
		n[sv]++;
		most = n[sv] > most ? n[sv] : most;
	}
	s->a->rep.day_share = r->nfar ? (double)most / (double)r->nfar : 0;
	free(n);
	return 0;
}

/* Binder, encoder, cluster, pass 1 (sampled keys), table and heatmap. */
static int run_setup(sim *s, run *r)
{
	const rk_analyze_options *o = r->o;
	int rc;
	if ((rc = rk__source_workload(&r->w, r->src)) != 0)
		return rc;
	if (!(r->bind = malloc(sizeof *r->bind)))
		return rk__err(RK_ENOMEM, "out of memory");
	if ((rc = rk__bind_init(r->bind, r->schema, r->w, r->design)) != 0)
		return rc;
	s->o = o;
	rk__rng_seed(&s->rng, r->src->o.seed ^ 0x2545F4914F6CDD1Dull);
	rk_meta__init(&s->meta, o->servers);
	if (!(s->a = rk__analysis_new(r->design, rk__workload_name(r->w), "simulator", o->servers)) ||
	    !(s->on_server = calloc(o->servers, sizeof *s->on_server)) ||
	    !(s->scratch = calloc(o->servers, sizeof *s->scratch)))
		return rk__err(RK_ENOMEM, "out of memory");
	rk_analysis *a = s->a;
	rk_schema_get_info(&a->info, r->schema);
	if ((rc = rk__sample_keys(&r->pfx, &r->keys, &r->key_len, &r->nkeys, SAMPLE_KEYS, r->schema,
	                          r->w, r->src->d, r->bind, r->src->o.seed)) != 0)
		return rc;
	const rk__dataset *d = rk__workload_dataset(r->w) ? rk__workload_dataset(r->w) : r->src->d;
	r->clock = d ? d->time_field : -1;
	if (o->table_rows > rk__workload_total(r->w) &&
	    (rc = rk__sample_history(&r->hist, &r->hist_len, &r->nhist, SAMPLE_KEYS, r->schema, r->w,
	                             r->src->d, r->bind, r->src->o.seed, r->clock, 1, 0)) != 0)
		return rc;
	if (r->clock >= 0) {
		/* two days in the clock's units: past the widest time bucket the
		   advisor makes; a clock that is no time: a thousand spans (none
		   when the key holds no clock) */
		rk__tunit tu = d->col[r->clock].tu;
		int64_t two_days = tu ? rk__tunit_of_ms(tu, 2 * 86400000) : 0;
		if ((rc = rk__sample_history(&r->far, &r->far_len, &r->nfar, SAMPLE_KEYS, r->schema, r->w,
		                             r->src->d, r->bind, r->src->o.seed, r->clock, tu ? 1 : 1000,
		                             two_days)) != 0)
			return rc;
	}
	s->L = a->info.buckets > 1 ? a->info.prefix_len : 0;
	if ((rc = rk__initial_splits(&r->sp, &r->nsp, &a->info, &r->pfx, r->keys, r->key_len, r->nkeys,
	                             o)) != 0 ||
	    (rc = rk__sim_make_table(s, r->sp, r->nsp, s->L)) != 0 ||
	    (rc = rk__analysis_set_splits(a, r->sp, r->nsp)) != 0)
		return rc;
	a->rep.regions_initial = s->t->nregions;
	if ((rc = day_share(s, r)) != 0 || (rc = heat_rows(a, r)) != 0)
		return rc;
	a->col_s = (double)rk__workload_duration_ms(r->w) / 1000.0 / (double)a->cols;
	a->t0_ms = rk__workload_own_time(r->w) ? rk__workload_t0_ms(r->w) : 0;
	a->rep.own_time = rk__workload_own_time(r->w);
	if (rk__workload_dataset(r->w)) {
		a->rep.records = rk__workload_dataset(r->w)->records;
		a->rep.limited = rk__workload_dataset(r->w)->limited;
	}
	a->rep.offered_rate = rk__workload_rate(r->w);
	a->rep.capacity = o->capacity;
	if ((rc = rk_encoder_new(&r->enc, r->schema, r->src->o.seed)) != 0 ||
	    (rc = rk__ranger_init(&r->rg, r->schema, r->bind)) != 0)
		return rc;
	r->have_rg = 1;
	return 0;
}

static void run_free(sim *s, run *r)
{
	if (r->have_rg)
		rk__ranger_fini(&r->rg);
	rk_encoder_free(r->enc);
	free(r->sp);
	free_keys(r->keys, r->key_len, r->nkeys);
	free_keys(r->hist, r->hist_len, r->nhist);
	free_keys(r->far, r->far_len, r->nfar);
	free(r->pfx.p);
	free(r->seen);
	free(r->hwc);
	free(r->hrd);
	free(r->bind);
	rk__workload_close(r->w);
	for (size_t i = 0; i < s->nst; i++) {
		free(s->st[i].wr);
		for (uint32_t k = 0; k < s->st[i].ns; k++)
			free(s->st[i].samp[k]);
	}
	free(s->st);
	free(s->on_server);
	free(s->scratch);
	rk_meta__fini(&s->meta);
	rk_analysis_free(s->a);
}

int rk__analyze_on(rk_analysis **out, const rk_schema *schema, const char *design,
                   const rk__source *src, const rk_analyze_options *o)
{
	sim s;
	run r;
	int rc;
	memset(&s, 0, sizeof s);
	memset(&r, 0, sizeof r);
	*out = NULL;
	r.src = src;
	r.schema = schema;
	r.o = o;
	r.design = design ? design : "design";
	if ((rc = rk__check_options(o, 100000)) == 0 && (rc = run_setup(&s, &r)) == 0 &&
	    (rc = sim_replay(&s, &r)) == 0) {
		rk_analysis *a = s.a;
		/* the older rows a time window reads past, when a shape binds the clock */
		size_t nfar = binds_clock(&src->q, r.clock) ? r.nfar : 0;
		rk__price_in in = {&src->q,    schema,    s.t,        r.keys,  r.key_len,
		                   r.nkeys,    o->table_rows ? o->table_rows : a->rep.writes,
		                   a->rep.writes, r.hist, r.hist_len, r.nhist, r.far, r.far_len,
		                   nfar, r.clock};
		a->rep.splits = s.splits;
		a->rep.moves = s.moves;
		a->rep.regions = s.t->nregions;
		if ((rc = rk__price_queries(a, &in)) == 0 && (rc = collect_regions(&s)) == 0 &&
		    (rc = rk__analysis_finish(a, schema, src, o)) == 0) {
			*out = a;
			s.a = NULL;
		}
	}
	run_free(&s, &r);
	return rc;
}

int rk_analyze_run_on(rk_analysis **out, const rk_schema *schema, const char *design,
                      const rk_workload_source *src, const rk_analyze_options *o)
{
	*out = NULL;
	return rk__analyze_on(out, schema, design, src, o);
}

int rk_analyze_run(rk_analysis **out, const rk_schema *schema, const char *design,
                   const rk_workload_options *wopts, const rk_analyze_options *o)
{
	rk__source *src;
	int rc;
	*out = NULL;
	if ((rc = rk__check_options(o, 100000)) != 0)
		return rc;
	if ((rc = rk__source_open(&src, wopts, NULL, NULL)) != 0)
		return rc;
	rc = rk__analyze_on(out, schema, design, src, o);
	rk__source_free(src);
	return rc;
}
