/*
 * The same workload on the embedded store, for real: a new store in a
 * directory whose region servers each have the simulator's capacity C
 * (rk_store_options.server_capacity_ops), a table created with the design's
 * split points and bucket prefix (the ones the simulator starts from), the
 * workload's writes encoded by the real encoder and replayed as fast as the
 * servers admit them, the balancer run at the same virtual times as in the
 * simulator.
 *
 * Measured: the throughput is rows written per second of wall-clock time,
 * from the first write queued to the last acknowledged; the per-server
 * shares and the per-time-bucket loads come from the store's own counters
 * (rk_store_servers), read when each moment of the workload's clock ends
 * and its writes are acknowledged, so a moment's counts are its own writes
 * (binned by wall time, a moment's edge blurred over the writes in flight and
 * the busiest server of each read several points low); the regions from
 * rk_store_regions. Modelled: nothing
 * of the write side; reads are not executed (the read side is priced by the
 * simulator), and the hottest server's busy fraction (its writes / (C x wall
 * time)) says whether the servers or this machine set the pace.
 *
 * The replay keeps two batches in flight (one table handle's buffered
 * writes): the servers apply one while this thread encodes the next. A
 * deeper queue lets the servers drift apart by its depth. With about one
 * time bucket in flight (the rule until 2026-11-25), the store's hottest
 * server per time bucket read 1-3 points above the simulator's, and its
 * splits, made when the region is next looked at, came that much later and
 * fewer (16 regions for the simulator's 17). The measured throughputs did
 * not move (bench/RESULTS.md, "The store run's write window").
 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <rowkey/store.h>

#include "analyze/analyze_int.h"
#include "key/error.h"

#define BATCH 128
/* A batch is at most an eighth of a time bucket's writes: the servers'
 * busy time, sampled in wall-clock bins between batches, is then not a
 * bucket's worth of writes off either. */
#define BATCH_MIN 8
#define FINE 1024 /* real-time sampling bins, merged in pairs as the run goes on */

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Per-server writes in real time: FINE bins of width w seconds from t0;
 * when the run outgrows them, neighbours merge and w doubles. */
typedef struct rtbins {
	double t0, w;
	size_t S, at;        /* servers; the bin sampled last */
	uint64_t *bin, *last; /* FINE x S; S */
} rtbins;

/* Adds the writes each server applied since the last sample to the bin of
 * time t (force: sample even within the bin sampled last). */
static int rt_sample(rtbins *r, rk_store *st, double t, int force)
{
	size_t i = (size_t)((t - r->t0) / r->w);
	while (i >= FINE) {
		for (size_t j = 0; j < FINE / 2; j++)
			for (size_t k = 0; k < r->S; k++)
				r->bin[j * r->S + k] = r->bin[2 * j * r->S + k] + r->bin[(2 * j + 1) * r->S + k];
		memset(r->bin + FINE / 2 * r->S, 0, FINE / 2 * r->S * sizeof *r->bin);
		r->w *= 2;
		r->at /= 2;
		i = (size_t)((t - r->t0) / r->w);
	}
	if (i == r->at && !force)
		return 0;
	r->at = i;
	rk_server_info *now = NULL;
	size_t nn = 0;
	int rc = rk_store_servers(&now, &nn, st);
	if (rc)
		return rc;
	for (size_t k = 0; k < nn && k < r->S; k++) {
		r->bin[i * r->S + k] += now[k].writes - r->last[k];
		r->last[k] = now[k].writes;
	}
	free(now);
	return 0;
}

/* How busy the busiest server of each moment was, over the run: the
 * busiest of each fine bin, not of the whole run, since a hot region that
 * the balancer moves takes its load from server to server (and the fine
 * bins, a few milliseconds wide, rarely hold a move). A server's writes are
 * counted when a sample is taken, a batch after it did them, so the writes
 * of a bin are work done in it or before it: each server carries its
 * backlog (writes / capacity, in seconds) from bin to bin towards the start
 * of the run, and is busy in a bin for at most its width. So no server is
 * ever busier than all of the time. */
static double hottest_busy(const rtbins *r, double capacity, double wall)
{
	double busy = 0;
	double *backlog = calloc(r->S ? r->S : 1, sizeof *backlog);
	if (!(wall > 0) || !(capacity > 0) || !backlog) {
		free(backlog);
		return 0;
	}
	size_t n = 0;
	while (n < FINE && (double)n * r->w < wall)
		n++;
	for (size_t j = n; j-- > 0;) {
		double dt = fmin(r->w, wall - (double)j * r->w), most = 0;
		for (size_t k = 0; k < r->S; k++) {
			backlog[k] += (double)r->bin[j * r->S + k] / capacity;
			double here = fmin(dt, backlog[k]);
			backlog[k] -= here;
			most = fmax(most, here);
		}
		busy += most;
	}
	free(backlog);
	return busy / wall;
}

/* One store run: what it holds from start to end. */
typedef struct srun {
	const rk_schema *schema;
	const char *design;
	const rk_workload_options *wopts;
	const rk_analyze_options *o;
	rk__workload *w;
	rk__binder *bind;
	rk_analysis *a;
	rk__prefixes pfx; /* the sampled keys and prefixes the split points */
	uint8_t **keys;   /* point into */
	size_t *key_len, nkeys;
	rk_bytes *sp; /* the initial split points */
	size_t nsp;
	rk_store_options so;
	rk_store *st;
	rk_table *tb;
	rk_encoder *enc;
	rtbins rt;
	/* the batch being filled: keys (cap bytes each), mutations */
	size_t cap, n, batch;
	uint8_t *kbuf, *val, *prev;
	size_t *klen, prev_len;
	rk_mutation *muts;
	uint64_t kbytes, mono;
	size_t kmax;
	double wall;
	/* the moments of the workload's clock: the time bucket the writes being
	   sent belong to, and each server's writes when the last one ended */
	int64_t dur;
	size_t vcol;
	uint64_t *vlast;
} srun;

/* The workload, its binding, and the simulator's initial regions (the
 * same sampling pass). */
static int srun_prepare(srun *r)
{
	int rc;
	if ((rc = rk__workload_open(&r->w, r->wopts)) != 0)
		return rc;
	if (!(r->bind = malloc(sizeof *r->bind)))
		return rk__err(RK_ENOMEM, "out of memory");
	if ((rc = rk__bind_init(r->bind, r->schema, r->w, r->design)) != 0)
		return rc;
	if (!(r->a = rk__analysis_new(r->design, rk__workload_name(r->w), "store", r->o->servers)))
		return rk__err(RK_ENOMEM, "out of memory");
	rk_schema_get_info(&r->a->info, r->schema);
	rc = rk__sample_keys(&r->pfx, &r->keys, &r->key_len, &r->nkeys, 8192, r->schema, r->w, NULL,
	                     r->bind, r->wopts->seed);
	if (!rc)
		rc = rk__initial_splits(&r->sp, &r->nsp, &r->a->info, &r->pfx, r->keys, r->key_len,
		                        r->nkeys, r->o);
	return rc;
}

/* A new store whose servers have the simulator's capacity, the design's
 * table in it, and the run's buffers. */
static int srun_open(srun *r, const char *dir)
{
	const rk_analyze_options *o = r->o;
	int rc;
	r->so = (rk_store_options)RK_STORE_OPTIONS_INIT;
	r->so.durability = RK_DURABILITY_ASYNC;
	r->so.n_servers = o->servers;
	r->so.split_threshold = o->split_threshold;
	r->so.create_if_missing = 1;
	r->so.metrics_bucket_ms = 1000;
	r->so.background_splits = 0; /* made at batch boundaries: rk_store_split_due */
	r->so.server_capacity_ops = o->capacity < 1 ? 1 : (uint64_t)(o->capacity + 0.5);
	if ((rc = rk_store_open(&r->st, dir, &r->so)) != 0)
		return rc;
	rk_family_def fam = {"f", 1, NULL};
	rk_table_def def = {"analyze", &fam, 1, r->sp, r->nsp,
	                    r->a->info.buckets > 1 ? r->a->info.prefix_len : 0};
	if ((rc = rk_table_create(r->st, &def)) != 0 || (rc = rk_table_open(&r->tb, r->st, "analyze")))
		return rc;
	r->a->rep.regions_initial = r->nsp + 1;
	r->cap = rk_schema_max_key_len(r->schema);
	uint64_t per = rk__workload_total(r->w) / (o->time_buckets ? o->time_buckets : 1) / 8;
	r->batch = per < BATCH_MIN ? BATCH_MIN : per > BATCH ? BATCH : (size_t)per;
	if (!(r->kbuf = malloc(BATCH * r->cap)) || !(r->klen = malloc(BATCH * sizeof *r->klen)) ||
	    !(r->muts = calloc(BATCH, sizeof *r->muts)) || !(r->val = calloc(1, o->value_len + 1)) ||
	    !(r->prev = malloc(r->cap)))
		return rk__err(RK_ENOMEM, "out of memory");
	memset(r->val, 'v', o->value_len);
	if ((rc = rk_encoder_new(&r->enc, r->schema, r->wopts->seed)) != 0)
		return rc;
	r->a->cols = o->time_buckets;
	r->rt.S = o->servers;
	r->rt.w = 0.002;
	if (!(r->a->sw = calloc((size_t)r->a->cols * o->servers, sizeof *r->a->sw)) ||
	    !(r->a->sr = calloc((size_t)r->a->cols * o->servers, sizeof *r->a->sr)) ||
	    !(r->rt.bin = calloc((size_t)FINE * o->servers, sizeof *r->rt.bin)) ||
	    !(r->rt.last = calloc(o->servers, sizeof *r->rt.last)) ||
	    !(r->vlast = calloc(o->servers, sizeof *r->vlast)))
		return rk__err(RK_ENOMEM, "out of memory");
	r->dur = rk__workload_duration_ms(r->w);
	return 0;
}

/* The writes each server applied since the last moment ended, into that
 * moment's column (every write of it acknowledged: see srun_replay). */
static int vt_sample(srun *r)
{
	rk_server_info *now = NULL;
	size_t nn = 0, S = r->o->servers;
	int rc = rk_store_servers(&now, &nn, r->st);
	if (rc)
		return rc;
	for (size_t k = 0; k < nn && k < S; k++) {
		r->a->sw[r->vcol * S + k] += now[k].writes - r->vlast[k];
		r->vlast[k] = now[k].writes;
	}
	free(now);
	return 0;
}

/* The time bucket of virtual time t, as the simulator counts it. */
static size_t vcol_of(const srun *r, int64_t t)
{
	size_t cols = r->a->cols;
	size_t b = r->dur > 0 ? (size_t)(t * (int64_t)cols / r->dur) : 0;
	return b >= cols ? cols - 1 : b;
}

/* Queues the batch (two in flight: see the file comment), makes the
 * splits due, and samples the servers' counters. */
static int srun_send(srun *r)
{
	int rc;
	if (!r->n)
		return 0;
	if ((rc = rk_table_apply_async(r->tb, r->muts, r->n)) != 0 ||
	    (rc = rk_store_split_due(NULL, r->st)) != 0)
		return rc;
	memcpy(r->prev, r->kbuf + (r->n - 1) * r->cap, r->klen[r->n - 1]);
	r->prev_len = r->klen[r->n - 1];
	r->n = 0;
	return rt_sample(&r->rt, r->st, now_s(), 0);
}

/* Encodes the workload's current write at virtual time t into the batch,
 * counting key bytes and whether the key rose over the previous one. */
static int srun_add(srun *r, int64_t t)
{
	const rk_value *v = rk__bind(r->bind, rk__workload_rec(r->w));
	if (!v)
		return RK_EINVALID;
	size_t n = r->n;
	uint8_t *k = r->kbuf + n * r->cap;
	int rc = rk_key_encode(k, r->cap, &r->klen[n], r->enc, v);
	if (rc)
		return rk__err_wrap(rc, "design %s", r->design);
	if (r->a->rep.writes > 0) {
		const uint8_t *pk = n ? r->kbuf + (n - 1) * r->cap : r->prev;
		size_t pl = n ? r->klen[n - 1] : r->prev_len;
		size_t m = pl < r->klen[n] ? pl : r->klen[n];
		int cmpv = m ? memcmp(k, pk, m) : 0;
		r->mono += cmpv > 0 || (cmpv == 0 && r->klen[n] > pl);
	}
	r->kbytes += r->klen[n];
	if (r->klen[n] > r->kmax)
		r->kmax = r->klen[n];
	r->muts[n] = (rk_mutation){.type = RK_MUT_PUT,
	                           .row = k,
	                           .row_len = r->klen[n],
	                           .family = "f",
	                           .qualifier = (const uint8_t *)"q",
	                           .qualifier_len = 1,
	                           .ts = 1000 + (uint64_t)t * 1000,
	                           .value = r->val,
	                           .value_len = r->o->value_len};
	r->n++;
	r->a->rep.writes++;
	return 0;
}

/* The workload's writes, as fast as the servers admit them, with the
 * balancer run at the simulator's virtual times. */
static int srun_replay(srun *r)
{
	double every = r->o->balance_interval;
	int64_t next_balance = every > 0 ? (int64_t)(every * 1000) : -1;
	int rc;
	r->rt.t0 = now_s();
	for (;;) {
		int64_t t;
		int shape;
		rc = rk__workload_next(r->w, &t, &shape);
		int end = rc == RK_EITEROVER;
		if (rc && !end)
			return rc;
		int balance_now = !end && next_balance >= 0 && t >= next_balance;
		/* a moment of the workload's clock ends: its writes are sent and
		   acknowledged, and each server's count of them is that moment's (the
		   same moments the simulator judges, whatever the wall clock did) */
		int moment = !end && shape < 0 && vcol_of(r, t) != r->vcol;
		if ((end || balance_now || moment || r->n == r->batch) && (rc = srun_send(r)) != 0)
			return rc;
		if (moment && ((rc = rk_table_flush(r->tb)) != 0 || (rc = vt_sample(r)) != 0))
			return rc;
		if (moment)
			r->vcol = vcol_of(r, t);
		/* everything queued is applied (and split) before the balancer
		 * runs, so it sees the regions the simulator's balancer sees */
		if ((end || balance_now) && ((rc = rk_table_flush(r->tb)) != 0 ||
		                             (rc = rk_store_split_due(NULL, r->st)) != 0))
			return rc;
		if (end)
			break;
		while (next_balance >= 0 && t >= next_balance) {
			size_t moved = 0;
			if ((rc = rk_store_balance(&moved, r->st)) != 0)
				return rc;
			r->a->rep.moves += moved;
			next_balance += (int64_t)(every * 1000);
		}
		/* reads are not executed: see the file comment */
		if (shape < 0 && (rc = srun_add(r, t)) != 0)
			return rc;
	}
	r->wall = now_s() - r->rt.t0;
	if ((rc = vt_sample(r)) != 0)
		return rc;
	return rt_sample(&r->rt, r->st, r->rt.t0 + r->wall, 1);
}

/* The store's own counters and region map into the analysis. */
static int srun_collect(srun *r)
{
	rk_analysis *a = r->a;
	rk_server_info *srv = NULL;
	rk_region_info *reg = NULL;
	size_t nsrv = 0, nreg = 0;
	a->col_s = (double)r->dur / 1000.0 / (double)a->cols;
	int rc = rk_store_servers(&srv, &nsrv, r->st);
	if (!rc)
		rc = rk_store_regions(&reg, &nreg, r->st, "analyze");
	for (size_t i = 0; !rc && i < nsrv && i < r->o->servers; i++)
		a->srv_writes[i] = srv[i].writes;
	a->rep.regions = nreg;
	a->rep.splits = nreg > r->nsp + 1 ? (nreg - r->nsp - 1) : 0;
	a->nregions = nreg;
	if (!rc && !(a->regions = calloc(nreg ? nreg : 1, sizeof *a->regions)))
		rc = rk__err(RK_ENOMEM, "out of memory");
	for (size_t i = 0; !rc && i < nreg; i++) {
		rk__region_row *x = &a->regions[i];
		x->id = reg[i].id;
		x->server = reg[i].server;
		x->writes = reg[i].writes;
		x->reads = reg[i].reads;
		x->start_len = reg[i].start_len;
		x->end_len = reg[i].end_len;
		if (!(x->start = malloc(x->start_len + 1)) ||
		    (reg[i].end && !(x->end = malloc(x->end_len + 1)))) {
			rc = rk__err(RK_ENOMEM, "out of memory");
			break;
		}
		memcpy(x->start, reg[i].start, x->start_len);
		if (reg[i].end)
			memcpy(x->end, reg[i].end, x->end_len);
	}
	free(srv);
	rk_region_info_free(reg, nreg);
	return rc;
}

/* The report's figures: what was written, and measured rather than
 * modelled, rows per second of wall-clock time. */
static int srun_report(srun *r)
{
	rk_analysis *a = r->a;
	uint64_t w = a->rep.writes;
	a->rep.offered_rate = rk__workload_rate(r->w);
	a->rep.capacity = (double)r->so.server_capacity_ops;
	a->rep.key_total = r->kbytes;
	a->rep.key_max = r->kmax;
	a->rep.key_mean = w ? (double)r->kbytes / (double)w : 0;
	a->mono = w > 1 ? (double)r->mono / (double)(w - 1) : 0;
	int rc = rk__analysis_finish(a, r->schema, NULL, r->o);
	if (rc)
		return rc;
	a->rep.wall_seconds = r->wall;
	a->rep.throughput_measured = 1;
	a->rep.throughput = r->wall > 0 ? (double)w / r->wall : 0;
	a->rep.hottest_busy = hottest_busy(&r->rt, a->rep.capacity, r->wall);
	return 0;
}

/* Closes the store (its error is the run's when it had none) and frees. */
static int srun_end(srun *r, int rc)
{
	if (r->tb)
		rk_table_close(r->tb);
	if (r->st) {
		int crc = rk_store_close(r->st);
		rc = rc ? rc : crc;
	}
	rk_encoder_free(r->enc);
	free(r->muts);
	free(r->kbuf);
	free(r->klen);
	free(r->val);
	free(r->prev);
	free(r->rt.bin);
	free(r->rt.last);
	free(r->vlast);
	free(r->sp);
	for (size_t i = 0; r->keys && i < r->nkeys; i++)
		free(r->keys[i]);
	free(r->keys);
	free(r->key_len);
	free(r->pfx.p);
	rk_analysis_free(r->a);
	free(r->bind);
	rk__workload_close(r->w);
	return rc;
}

static int dir_is_new(const char *dir)
{
	struct stat sb;
	char meta[4096];
	if (!dir)
		return rk__err(RK_EINVALID, "no store directory given");
	snprintf(meta, sizeof meta, "%s/META", dir);
	if (stat(dir, &sb) == 0 && stat(meta, &sb) == 0)
		return rk__err(RK_EEXISTS, "%s already holds a store; give a new directory", dir);
	return 0;
}

int rk_analyze_store(rk_analysis **out, const rk_schema *schema, const char *design,
                     const rk_workload_options *wopts, const rk_analyze_options *o,
                     const char *dir)
{
	*out = NULL;
	int rc = rk__check_options(o, RK_MAX_SERVERS);
	if (rc || (rc = dir_is_new(dir)) != 0)
		return rc;
	srun r = {.schema = schema, .design = design ? design : "design", .wopts = wopts, .o = o};
	if ((rc = srun_prepare(&r)) == 0 && (rc = srun_open(&r, dir)) == 0 &&
	    (rc = srun_replay(&r)) == 0) {
		rk_table_close(r.tb);
		r.tb = NULL;
		if ((rc = srun_collect(&r)) == 0)
			rc = srun_report(&r);
	}
	rk_analysis *a = NULL;
	if (!rc) { /* kept unless closing the store fails */
		a = r.a;
		r.a = NULL;
	}
	if ((rc = srun_end(&r, rc)) != 0)
		rk_analysis_free(a);
	else
		*out = a;
	return rc;
}
