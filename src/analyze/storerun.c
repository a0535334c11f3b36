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
 * (rk_store_servers, sampled in real time and binned into the run's time
 * buckets afterwards), the regions from rk_store_regions. Modelled: nothing
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

/* The fine bins into cols buckets of the run's wall time T (cols x S). */
static void rt_rebin(const rtbins *r, uint64_t *sw, size_t cols, double T)
{
	for (size_t j = 0; j < FINE; j++) {
		double mid = ((double)j + 0.5) * r->w;
		size_t b = T > 0 ? (size_t)(mid / (T / (double)cols)) : 0;
		if (b >= cols)
			b = cols - 1;
		for (size_t k = 0; k < r->S; k++)
			sw[b * r->S + k] += r->bin[j * r->S + k];
	}
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

int rk_analyze_store(rk_analysis **out, const rk_schema *schema, const char *design,
                     const rk_workload_options *wopts, const rk_analyze_options *o,
                     const char *dir)
{
	rk__workload *w = NULL;
	rk__binder *bind = NULL;
	rk__prefixes pfx = {0, 0, NULL};
	uint8_t **keys = NULL, *kbuf = NULL, *val = NULL, *prev = NULL;
	size_t *key_len = NULL, nkeys = 0, *klen = NULL;
	rk_bytes *sp = NULL;
	size_t nsp = 0;
	rk_encoder *enc = NULL;
	rk_store *st = NULL;
	rk_table *tb = NULL;
	rtbins rt = {0, 0, 0, 0, NULL, NULL};
	rk_mutation *muts = NULL;
	rk_analysis *a = NULL;
	rk_server_info *srv = NULL;
	rk_region_info *reg = NULL;
	size_t nsrv = 0, nreg = 0;
	int rc;
	*out = NULL;
	design = design ? design : "design";
	if ((rc = rk__check_options(o, RK_MAX_SERVERS)) != 0)
		return rc;
	if (!dir)
		return rk__err(RK_EINVALID, "no store directory given");
	struct stat sb;
	if (stat(dir, &sb) == 0) {
		char meta[4096];
		snprintf(meta, sizeof meta, "%s/META", dir);
		if (stat(meta, &sb) == 0)
			return rk__err(RK_EEXISTS, "%s already holds a store; give a new directory", dir);
	}
	if ((rc = rk__workload_open(&w, wopts)) != 0)
		return rc;
	if (!(bind = malloc(sizeof *bind))) {
		rc = rk__err(RK_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = rk__bind_init(bind, schema, w, design)) != 0)
		goto out;
	if (!(a = rk__analysis_new(design, rk__workload_name(w), "store", o->servers))) {
		rc = rk__err(RK_ENOMEM, "out of memory");
		goto out;
	}
	rk_schema_get_info(&a->info, schema);
	/* the same initial regions as the simulator (the same sampling pass) */
	if ((rc = rk__sample_keys(&pfx, &keys, &key_len, &nkeys, 8192, schema, w, NULL, bind,
	                          wopts->seed)) != 0)
		goto out;
	if ((rc = rk__initial_splits(&sp, &nsp, &a->info, &pfx, keys, key_len, nkeys, o->servers,
	                             o->presplit)) != 0)
		goto out;

	rk_store_options so = RK_STORE_OPTIONS_INIT;
	so.durability = RK_DURABILITY_ASYNC;
	so.n_servers = o->servers;
	so.split_threshold = o->split_threshold;
	so.create_if_missing = 1;
	so.metrics_bucket_ms = 1000;
	so.background_splits = 0; /* made at batch boundaries: rk_store_split_due */
	so.server_capacity_ops = o->capacity < 1 ? 1 : (uint64_t)(o->capacity + 0.5);
	if ((rc = rk_store_open(&st, dir, &so)) != 0)
		goto out;
	rk_family_def fam = {"f", 1};
	rk_table_def def = {"analyze", &fam, 1, sp, nsp, a->info.buckets > 1 ? a->info.prefix_len : 0};
	if ((rc = rk_table_create(st, &def)) != 0)
		goto out;
	if ((rc = rk_table_open(&tb, st, "analyze")) != 0)
		goto out;
	a->rep.regions_initial = nsp + 1;

	size_t cap = rk_schema_max_key_len(schema);
	if (!(kbuf = malloc(BATCH * cap)) || !(klen = malloc(BATCH * sizeof *klen)) ||
	    !(muts = calloc(BATCH, sizeof *muts)) || !(val = calloc(1, o->value_len + 1)) ||
	    !(prev = malloc(cap))) {
		rc = rk__err(RK_ENOMEM, "out of memory");
		goto out;
	}
	memset(val, 'v', o->value_len);
	if ((rc = rk_encoder_new(&enc, schema, wopts->seed)) != 0)
		goto out;
	int64_t next_balance = o->balance_interval > 0 ? (int64_t)(o->balance_interval * 1000) : -1;
	a->cols = o->time_buckets;
	rt.S = o->servers;
	rt.w = 0.002;
	if (!(a->sw = calloc((size_t)a->cols * o->servers, sizeof *a->sw)) ||
	    !(a->sr = calloc((size_t)a->cols * o->servers, sizeof *a->sr)) ||
	    !(rt.bin = calloc((size_t)FINE * o->servers, sizeof *rt.bin)) ||
	    !(rt.last = calloc(o->servers, sizeof *rt.last))) {
		rc = rk__err(RK_ENOMEM, "out of memory");
		goto out;
	}
	size_t n = 0, prev_len = 0;
	uint64_t kbytes = 0, mono = 0;
	size_t kmax = 0;
	rt.t0 = now_s();
	for (;;) {
		int64_t t;
		int shape;
		rc = rk__workload_next(w, &t, &shape);
		int end = rc == RK_EITEROVER;
		if (rc && !end)
			goto out;
		int balance_now = !end && next_balance >= 0 && t >= next_balance;
		if ((end || balance_now || n == BATCH) && n) {
			if ((rc = rk_table_apply_async(tb, muts, n)) != 0)
				goto out;
			if ((rc = rk_store_split_due(NULL, st)) != 0)
				goto out;
			memcpy(prev, kbuf + (n - 1) * cap, klen[n - 1]);
			prev_len = klen[n - 1];
			n = 0;
			if ((rc = rt_sample(&rt, st, now_s(), 0)) != 0)
				goto out;
		}
		if (end || balance_now) {
			/* everything queued is applied (and split) before the balancer
			 * runs, so it sees the regions the simulator's balancer sees */
			if ((rc = rk_table_flush(tb)) != 0)
				goto out;
			if ((rc = rk_store_split_due(NULL, st)) != 0)
				goto out;
		}
		if (end)
			break;
		while (next_balance >= 0 && t >= next_balance) {
			size_t moved = 0;
			if ((rc = rk_store_balance(&moved, st)) != 0)
				goto out;
			a->rep.moves += moved;
			next_balance += (int64_t)(o->balance_interval * 1000);
		}
		if (shape >= 0)
			continue; /* reads are not executed: see the file comment */
		const rk_value *v = rk__bind(bind, rk__workload_rec(w));
		if (!v) {
			rc = RK_EINVALID;
			goto out;
		}
		uint8_t *k = kbuf + n * cap;
		if ((rc = rk_key_encode(k, cap, &klen[n], enc, v)) != 0) {
			rk__err_wrap(rc, "design %s", design);
			goto out;
		}
		if (a->rep.writes > 0) {
			const uint8_t *pk = n ? kbuf + (n - 1) * cap : prev;
			size_t pl = n ? klen[n - 1] : prev_len;
			size_t m = pl < klen[n] ? pl : klen[n];
			int cmpv = m ? memcmp(k, pk, m) : 0;
			mono += cmpv > 0 || (cmpv == 0 && klen[n] > pl);
		}
		kbytes += klen[n];
		if (klen[n] > kmax)
			kmax = klen[n];
		rk_mutation *m = &muts[n];
		m->type = RK_MUT_PUT;
		m->row = k;
		m->row_len = klen[n];
		m->family = "f";
		m->qualifier = (const uint8_t *)"q";
		m->qualifier_len = 1;
		m->ts = 1000 + (uint64_t)t * 1000;
		m->value = val;
		m->value_len = o->value_len;
		n++;
		a->rep.writes++;
	}
	rc = 0;
	double wall = now_s() - rt.t0;
	if ((rc = rt_sample(&rt, st, rt.t0 + wall, 1)) != 0)
		goto out;
	rt_rebin(&rt, a->sw, a->cols, wall);
	a->col_s = wall / (double)a->cols;
	rk_table_close(tb);
	tb = NULL;
	if ((rc = rk_store_servers(&srv, &nsrv, st)) != 0 ||
	    (rc = rk_store_regions(&reg, &nreg, st, "analyze")) != 0)
		goto out;
	for (size_t i = 0; i < nsrv && i < o->servers; i++)
		a->srv_writes[i] = srv[i].writes;
	a->rep.regions = nreg;
	a->rep.splits = nreg > nsp + 1 ? (nreg - nsp - 1) : 0;
	a->nregions = nreg;
	if (!(a->regions = calloc(nreg ? nreg : 1, sizeof *a->regions))) {
		rc = rk__err(RK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nreg; i++) {
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
			goto out;
		}
		memcpy(x->start, reg[i].start, x->start_len);
		if (reg[i].end)
			memcpy(x->end, reg[i].end, x->end_len);
	}
	a->rep.offered_rate = rk__workload_rate(w);
	a->rep.capacity = (double)so.server_capacity_ops;
	a->rep.key_total = kbytes;
	a->rep.key_max = kmax;
	a->rep.key_mean = a->rep.writes ? (double)kbytes / (double)a->rep.writes : 0;
	a->mono = a->rep.writes > 1 ? (double)mono / (double)(a->rep.writes - 1) : 0;
	if ((rc = rk__analysis_finish(a, schema, NULL, o)) != 0)
		goto out;
	/* measured, not modelled: rows per second of wall-clock time */
	a->rep.wall_seconds = wall;
	a->rep.throughput_measured = 1;
	a->rep.throughput = wall > 0 ? (double)a->rep.writes / wall : 0;
	a->rep.hottest_busy = hottest_busy(&rt, a->rep.capacity, wall);
	*out = a;
	a = NULL;
out:
	if (tb)
		rk_table_close(tb);
	if (st) {
		int crc = rk_store_close(st);
		if (!rc && crc)
			rc = crc;
		if (rc && *out) {
			rk_analysis_free(*out);
			*out = NULL;
		}
	}
	free(srv);
	rk_region_info_free(reg, nreg);
	rk_encoder_free(enc);
	free(muts);
	free(kbuf);
	free(klen);
	free(val);
	free(prev);
	free(rt.bin);
	free(rt.last);
	free(sp);
	for (size_t i = 0; keys && i < nkeys; i++)
		free(keys[i]);
	free(keys);
	free(key_len);
	free(pfx.p);
	rk_analysis_free(a);
	free(bind);
	rk__workload_close(w);
	return rc;
}
