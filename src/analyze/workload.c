/*
 * The analyzer's workloads (see workload.h): the cursor every run reads
 * operations from, over a generated workload (gen.c) or a file's records
 * (a dataset, or a second pass over a file too large to hold).
 *
 * A file replays every record in file order. When the data has a clock (a
 * time field in order: dataset.h) each record arrives at its own time, so
 * the time axis of the heatmap is the data's; otherwise, or with
 * fixed_rate, records arrive at `rate` per second.
 */
#include "analyze/workload.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/wstate.h"
#include "key/error.h"
#include "key/suggest.h"

static const char *const names[] = {"messages", "keys", "urls", "trades", "cars", "users", "file",
                                    NULL};

const char *const *rk_workload_names(void)
{
	return names;
}

/* ---- opening ---- */

static int check_options(const rk_workload_options *o, const char *name, int kind)
{
	if (!(o->rate > 0) || !isfinite(o->rate))
		return rk__err(RK_EINVALID, "workload %s: the rate must be > 0 operations/s", name);
	if (kind != RK__WL_FILE && (!(o->duration > 0) || !isfinite(o->duration)))
		return rk__err(RK_EINVALID, "workload %s: the duration must be > 0 seconds", name);
	if (o->read_fraction > 1)
		return rk__err(RK_EINVALID, "workload %s: the read fraction must be in 0..1", name);
	if (kind == RK__WL_FILE && !o->file)
		return rk__err(RK_EINVALID, "workload file: no file given (--file PATH)");
	if (o->nqueries > RK__WMAXSHAPES)
		return rk__err(RK_EINVALID, "workload %s: at most %d query shapes", name, RK__WMAXSHAPES);
	return 0;
}

/* --query shapes replace a workload's own (the generator's reads stop:
 * they would execute shapes the report does not price). */
static void user_shapes(rk__workload *w)
{
	if (!w->o.nqueries)
		return;
	for (size_t k = 0; k < w->o.nqueries; k++) {
		w->shapes[k].name = w->o.queries[k];
		w->shapes[k].where = w->o.queries[k];
		w->shapes[k].weight = 1;
	}
	w->nshapes = w->o.nqueries;
	w->own_shapes = 0;
	w->read_fraction = 0;
}

static void fields_text(rk__workload *w)
{
	size_t off = (size_t)snprintf(w->fields_text_buf, sizeof w->fields_text_buf, "fields ");
	for (size_t k = 0; k < w->nfields && off < sizeof w->fields_text_buf; k++) {
		const char *t = w->fields[k].kind == RK__W_U64   ? "u64"
		                : w->fields[k].kind == RK__W_I64 ? "i64"
		                : w->fields[k].kind == RK__W_F64 ? "f64"
		                                                 : "str";
		if (w->ds)
			t = rk__dataset_type(w->ds, k);
		off += (size_t)snprintf(w->fields_text_buf + off, sizeof w->fields_text_buf - off, "%s%s:%s",
		                        k ? ", " : "", w->fields[k].name, t);
	}
}

/* The held record replayed i-th (from 1): file order, or last to first
 * when the file is newest first (its clock falls). */
static uint64_t held_index(const rk__dataset *d, uint64_t i)
{
	return d->clock_falls > 0 && d->complete ? d->held - i : i - 1;
}

/* A file workload's fields, total and clock, from its dataset. */
static int setup_file(rk__workload *w)
{
	const rk__dataset *d = w->ds;
	w->nfields = d->nf;
	for (size_t f = 0; f < d->nf; f++) {
		snprintf(w->fields[f].name, sizeof w->fields[f].name, "%s", d->col[f].name);
		w->fields[f].kind = d->col[f].kind;
	}
	w->natural_key = w->fields[0].name;
	w->read_fraction = 0;
	w->total = w->o.limit && w->o.limit < d->records ? w->o.limit : d->records;
	w->own_time = d->time_field >= 0 && !w->o.fixed_rate && d->complete;
	if (w->own_time) {
		uint64_t last = w->total < d->held ? w->total : d->held;
		w->t0 = d->t_ms[held_index(d, 1)];
		w->dur_ms = d->t_ms[held_index(d, last)] - w->t0 + 1;
		w->rate = (double)w->total * 1000.0 / (double)w->dur_ms;
	}
	return 0;
}

static int open_common(rk__workload **out, const rk_workload_options *o, int kind,
                       const rk__dataset *d)
{
	int rc;
	rk__workload *w = calloc(1, sizeof *w);
	if (!w)
		return rk__err(RK_ENOMEM, "out of memory for a workload");
	w->kind = kind;
	w->o = *o;
	w->o.name = names[kind];
	if (o->file && !(w->file = strdup(o->file))) {
		free(w);
		return rk__err(RK_ENOMEM, "out of memory for a workload");
	}
	w->o.file = w->file;
	w->rate = o->rate;
	w->t0 = RK__T0_MS;
	if (kind == RK__WL_FILE) {
		rk__dataset_options dopt = {0};
		dopt.label = o->file_label;
		dopt.memory = o->memory;
		dopt.limit = o->limit;
		dopt.rec.format = (rk_rec_format)o->format;
		dopt.rec.header = !o->no_header;
		if (!d && (rc = rk__dataset_from_file(&w->own, o->file, &dopt)) != 0)
			goto fail;
		w->ds = d ? d : w->own;
		w->t0 = 0;
		rc = setup_file(w);
	} else {
		double total = floor(o->rate * o->duration);
		if (total < 1 || total > 1e13) {
			rc = rk__err(RK_EINVALID, "workload %s: rate x duration gives %.0f operations",
			             names[kind], total);
			goto fail;
		}
		w->total = (uint64_t)total;
		rc = rk__gen_setup(w);
	}
	if (rc)
		goto fail;
	user_shapes(w);
	fields_text(w);
	if (!w->dur_ms) {
		w->dur_ms = (int64_t)ceil((double)w->total * 1000.0 / w->rate);
		if (w->dur_ms < 1)
			w->dur_ms = 1;
	}
	w->ms_per_op = (double)w->dur_ms / (double)w->total;
	uint64_t t = w->total;
	unsigned digits = 1;
	while (t >= 10) {
		t /= 10;
		digits++;
	}
	w->key_width = digits < 4 ? 4 : digits;
	if ((rc = rk__workload_rewind(w)) != 0)
		goto fail;
	*out = w;
	return 0;
fail:
	rk__workload_close(w);
	return rc;
}

static int kind_of(const char *name)
{
	for (int k = 0; names[k]; k++)
		if (!strcmp(names[k], name))
			return k;
	return -1;
}

int rk__workload_open(rk__workload **out, const rk_workload_options *o)
{
	int rc;
	*out = NULL;
	const char *name = o && o->name ? o->name : "";
	int kind = kind_of(name);
	if (kind < 0) {
		char known[128] = "";
		rk__suggest sg;
		rk__suggest_init(&sg, name, strlen(name));
		for (int k = 0; names[k]; k++) {
			rk__suggest_add(&sg, names[k]);
			snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? ", " : "",
			         names[k]);
		}
		const char *best = rk__suggest_best(&sg);
		return rk__err(RK_ENOTFOUND, "unknown workload '%s' (%s%s%sknown: %s)", name,
		               best ? "did you mean '" : "", best ? best : "", best ? "'? " : "", known);
	}
	if ((rc = check_options(o, name, kind)) != 0)
		return rc;
	return open_common(out, o, kind, NULL);
}

int rk__workload_open_on(rk__workload **out, const rk_workload_options *o, const rk__dataset *d)
{
	int rc;
	*out = NULL;
	if ((rc = check_options(o, "file", RK__WL_FILE)) != 0)
		return rc;
	return open_common(out, o, RK__WL_FILE, d);
}

int rk__workload_rewind(rk__workload *w)
{
	rk__rng_seed(&w->rng, w->o.seed);
	rk__rng_seed(&w->qrng, w->o.seed ^ 0x5851F42D4C957F2Dull);
	w->i = 0;
	w->writes = 0;
	w->day = -1;
	w->sec = INT64_MIN;
	if (w->stream) {
		rk__dstream_close(w->stream);
		w->stream = NULL;
	}
	w->stream_last = INT64_MIN;
	return 0;
}

void rk__workload_close(rk__workload *w)
{
	if (!w)
		return;
	rk__dstream_close(w->stream);
	rk__dataset_free(w->own);
	free(w->file);
	free(w);
}

/* ---- accessors ---- */

size_t rk__workload_nfields(const rk__workload *w)
{
	return w->nfields;
}

const rk__wfield *rk__workload_field(const rk__workload *w, size_t i)
{
	return &w->fields[i];
}

const char *rk__workload_name(const rk__workload *w)
{
	return w->o.name;
}

size_t rk__workload_nshapes(const rk__workload *w)
{
	return w->nshapes;
}

const char *rk__workload_shape(const rk__workload *w, size_t i)
{
	return w->shapes[i].name;
}

const char *rk__workload_shape_where(const rk__workload *w, size_t i)
{
	return w->shapes[i].where;
}

double rk__workload_shape_weight(const rk__workload *w, size_t i)
{
	return w->shapes[i].weight;
}

const char *rk__workload_fields_text(const rk__workload *w)
{
	return w->fields_text_buf;
}

const char *rk__workload_natural_key(const rk__workload *w)
{
	return w->natural_key;
}

uint64_t rk__workload_total(const rk__workload *w)
{
	return w->total;
}

int64_t rk__workload_duration_ms(const rk__workload *w)
{
	return w->dur_ms;
}

double rk__workload_rate(const rk__workload *w)
{
	return w->rate;
}

int rk__workload_own_time(const rk__workload *w)
{
	if (w->own_time && w->ds && w->ds->clock_falls > 0)
		return 2;
	return w->own_time;
}

int64_t rk__workload_t0_ms(const rk__workload *w)
{
	return w->t0;
}

const rk__dataset *rk__workload_dataset(const rk__workload *w)
{
	return w->ds;
}

/* The workload's next write, for rk__dataset_from_values. */
static int next_write(void *ctx, const rk__wval **rec)
{
	rk__workload *w = ctx;
	for (;;) {
		int64_t t;
		int shape, rc = rk__workload_next(w, &t, &shape);
		if (rc)
			return rc;
		if (shape < 0) {
			*rec = w->rec;
			return 0;
		}
	}
}

int rk__workload_hold(rk__dataset **out, rk__workload *w, const rk__dataset_options *o)
{
	char source[96];
	*out = NULL;
	snprintf(source, sizeof source, "workload %s", rk__workload_name(w));
	int rc = rk__workload_rewind(w);
	if (!rc)
		rc = rk__dataset_from_values(out, source, w->fields, w->nfields, next_write, w, o);
	int rc2 = rk__workload_rewind(w);
	if (!rc && rc2) {
		rk__dataset_free(*out);
		*out = NULL;
	}
	return rc ? rc : rc2;
}

const rk__wval *rk__workload_rec(const rk__workload *w)
{
	return w->rec;
}

const rk__wval *rk__workload_lo(const rk__workload *w)
{
	return w->lo;
}

const rk__wval *rk__workload_hi(const rk__workload *w)
{
	return w->hi;
}

void rk__workload_query(rk__workload *w, int shape, int64_t t_ms)
{
	rk__gen_query(w, shape, t_ms);
}

/* ---- the next operation ---- */

/* Record i of a file: from the dataset, or the second pass's stream. */
static int file_record(rk__workload *w, int64_t *t)
{
	const rk__dataset *d = w->ds;
	if (w->i - 1 < d->held && d->complete) {
		uint64_t at = held_index(d, w->i);
		rk__dataset_record(d, at, w->rec);
		if (w->own_time)
			*t = d->t_ms[at] - w->t0;
		return 0;
	}
	int rc;
	int64_t ts;
	if (!w->stream && (rc = rk__dstream_open(&w->stream, d)) != 0)
		return rc;
	rc = rk__dstream_next(w->stream, w->rec, &ts);
	if (rc == RK_EITEROVER)
		return rk__err(RK_EIO, "%s: the file ended before record %llu (it changed since it was "
		                       "read)",
		               d->source, (unsigned long long)w->i);
	return rc;
}

int rk__workload_next(rk__workload *w, int64_t *t_ms, int *shape)
{
	if (w->i >= w->total)
		return RK_EITEROVER;
	int64_t t = (int64_t)((double)w->i * w->ms_per_op);
	w->i++;
	*t_ms = t;
	if (w->own_shapes && w->read_fraction > 0 && rk__rng_unit(&w->rng) < w->read_fraction) {
		*shape = (int)((uint64_t)(((unsigned __int128)rk__rng_next(&w->rng) * w->nshapes) >> 64));
		rk__gen_query(w, *shape, t);
		return 0;
	}
	*shape = -1;
	if (w->kind == RK__WL_FILE) {
		int rc = file_record(w, t_ms);
		if (rc)
			return rc;
	} else {
		rk__gen_write(w, t);
	}
	w->writes++;
	return 0;
}

/* ---- description ---- */

int rk_workload_describe(char **out, const rk_workload_options *opts)
{
	rk__workload *w;
	int rc;
	*out = NULL;
	if ((rc = rk__workload_open(&w, opts)) != 0)
		return rc;
	size_t cap = 4096;
	char *s = malloc(cap);
	if (!s) {
		rk__workload_close(w);
		return rk__err(RK_ENOMEM, "out of memory");
	}
	size_t off = (size_t)snprintf(s, cap,
	                              "workload    %s\n%s\nnatural key %s\noperations  %llu over %.0f s "
	                              "(%.0f/s), reads %.0f%%\n",
	                              w->o.name, w->fields_text_buf, w->natural_key,
	                              (unsigned long long)w->total, (double)w->dur_ms / 1000.0, w->rate,
	                              w->read_fraction * 100);
	for (size_t k = 0; k < w->nshapes && off < cap; k++)
		off += (size_t)snprintf(s + off, cap - off, "query       %s: %s\n", w->shapes[k].name,
		                        w->shapes[k].where);
	rk__workload_close(w);
	*out = s;
	return 0;
}
