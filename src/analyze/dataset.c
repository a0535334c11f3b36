/*
 * Datasets (see dataset.h): reading a records file into columns, inferring
 * each field's type, and reading it again when it was too large to hold.
 *
 * While the file is read every cell's text goes into one arena (offset and
 * length per record and field); once the types are known, number columns
 * parse their text into v[]. The text stays: a number bound to a str field
 * of a design keeps the digits the file wrote.
 */
#include "analyze/dataset.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "key/timefmt.h"

const char *rk__tunit_name(rk__tunit tu)
{
	static const char *const n[] = {NULL, "s", "ms", "us", "ns", "ISO-8601", "format"};
	return tu <= RK__TU_FMT ? n[tu] : NULL;
}

const char *rk__dataset_type(const rk__dataset *d, size_t f)
{
	const rk__column *c = &d->col[f];
	if (c->tu == RK__TU_FMT)
		return c->type_text;
	if (c->tu)
		return "ts";
	switch (c->kind) {
	case RK__W_U64: return "u64";
	case RK__W_I64: return "i64";
	case RK__W_F64: return "f64";
	default: return "str";
	}
}

/* ---- holding records ---- */

static int grow_records(rk__dataset *d)
{
	uint64_t n = d->cap ? d->cap * 2 : 4096;
	for (size_t f = 0; f < d->nf; f++) {
		rk__column *c = &d->col[f];
		uint64_t *off = realloc(c->off, n * sizeof *off);
		if (off)
			c->off = off;
		uint32_t *len = realloc(c->len, n * sizeof *len);
		if (len)
			c->len = len;
		if (!off || !len)
			return rk__err(RK_ENOMEM, "%s: out of memory holding records", d->source);
		if (d->typed && c->kind != RK__W_STR) {
			uint64_t *v = realloc(c->v, n * sizeof *v);
			if (!v)
				return rk__err(RK_ENOMEM, "%s: out of memory holding records", d->source);
			c->v = v;
		}
	}
	d->cap = n;
	return 0;
}

static int put_text(rk__dataset *d, const char *p, size_t n, uint64_t *off)
{
	if (d->alen + n + 1 > d->acap) {
		size_t c = d->acap ? d->acap * 2 : 1 << 20;
		while (c < d->alen + n + 1)
			c *= 2;
		char *a = realloc(d->arena, c);
		if (!a)
			return rk__err(RK_ENOMEM, "%s: out of memory holding records", d->source);
		d->arena = a;
		d->acap = c;
	}
	*off = d->alen;
	memcpy(d->arena + d->alen, p, n);
	d->arena[d->alen + n] = 0;
	d->alen += n + 1;
	return 0;
}

/* What holding one more record costs, roughly, and whether it still fits:
 * its text, an offset, a length and a value per field, and the profile's
 * fingerprint per field. */
static int fits(const rk__dataset *d, size_t text)
{
	size_t per = d->nf * (sizeof(uint64_t) * 3 + sizeof(uint32_t));
	return (d->held + 1) * per + d->alen + text <= d->memory;
}

static int add_column(rk__dataset *d, const char *name, size_t n, rk__wkind kind)
{
	if (d->nf == 64)
		return rk__err(RK_EINVALID, "%s: more than 64 fields", d->source);
	if (n == 0)
		return rk__err(RK_EINVALID, "%s: field %zu has an empty name", d->source, d->nf + 1);
	if (n >= sizeof d->col[0].name)
		return rk__err(RK_EINVALID, "%s: field %zu's name ('%.20s...') is %zu bytes, more than %zu: "
		               "rename the column (a schema field's name: letters, digits and _)",
		               d->source, d->nf + 1, name, n, sizeof d->col[0].name - 1);
	rk__column *c = &d->col[d->nf];
	memset(c, 0, sizeof *c);
	memcpy(c->name, name, n);
	c->kind = kind;
	rk__fstats_init(&c->st);
	if (d->cap) {
		if (!(c->off = calloc(d->cap, sizeof *c->off)) || !(c->len = malloc(d->cap * sizeof *c->len)))
			return rk__err(RK_ENOMEM, "%s: out of memory", d->source);
		for (uint64_t i = 0; i < d->held; i++)
			c->len[i] = RK__ABSENT; /* records before the field appeared */
		/* statistics see the earlier records as absent too */
		for (uint64_t i = 0; i < d->records; i++)
			rk__fstats_text(&c->st, "", 0, 1);
	}
	d->nf++;
	return 0;
}

int rk__dataset_find(const rk__dataset *d, const char *name, size_t n)
{
	for (size_t f = 0; f < d->nf; f++)
		if (strlen(d->col[f].name) == n && !memcmp(d->col[f].name, name, n))
			return (int)f;
	return -1;
}

/* One record of the file: cells to columns (by position or member name). */
static int take_record(rk__dataset *d, const rk_record *rec, int by_name)
{
	int col_of[64];
	size_t text = 0;
	int rc;
	if (rec->n > 64)
		return rk__err(RK_EINVALID, "%s: line %ld: more than 64 fields", d->source, rec->line);
	for (size_t i = 0; i < rec->n; i++) {
		int f = (int)i;
		if (by_name)
			f = rk__dataset_find(d, rec->cell[i].name, rec->cell[i].name_len);
		if (f < 0 || (size_t)f >= d->nf) {
			char name[16];
			const char *nm = rec->cell[i].name;
			size_t nl = rec->cell[i].name_len;
			if (!by_name) /* no header: columns are numbered */
				nl = (size_t)snprintf(name, sizeof name, "col%zu", d->nf + 1), nm = name;
			if ((rc = add_column(d, nm, nl, RK__W_STR)) != 0)
				return rc;
			f = (int)d->nf - 1;
		}
		col_of[i] = f;
	}
	for (size_t i = 0; i < rec->n; i++)
		text += rec->cell[i].len + 1;
	int hold = d->complete && fits(d, text);
	if (!hold)
		d->complete = 0;
	if (hold && d->held == d->cap && (rc = grow_records(d)) != 0)
		return rc;
	uint8_t seen[64] = {0};
	for (size_t i = 0; i < rec->n; i++) {
		size_t f = (size_t)col_of[i];
		const rk_rec_cell *c = &rec->cell[i];
		int absent = c->kind == RK_CELL_NULL;
		seen[f] = 1;
		rk__fstats_text(&d->col[f].st, c->p, c->len, absent);
		if (!hold)
			continue;
		d->col[f].len[d->held] = absent ? RK__ABSENT : (uint32_t)c->len;
		if (!absent && (rc = put_text(d, c->p, c->len, &d->col[f].off[d->held])) != 0)
			return rc;
	}
	for (size_t f = 0; f < d->nf; f++)
		if (!seen[f]) {
			rk__fstats_text(&d->col[f].st, "", 0, 1);
			if (hold)
				d->col[f].len[d->held] = RK__ABSENT;
		}
	d->held += hold;
	d->records++;
	return 0;
}

/* ---- types ---- */

static int time_like(const char *name)
{
	static const char *const words[] = {"ts", "time", "timestamp", "date", "datetime", "created",
	                                    "updated", "when", "at", NULL};
	char low[64];
	size_t n = strlen(name), k;
	for (k = 0; k < n && k < 63; k++)
		low[k] = (char)(name[k] >= 'A' && name[k] <= 'Z' ? name[k] + 32 : name[k]);
	low[k] = 0;
	for (int i = 0; words[i]; i++) {
		size_t w = strlen(words[i]);
		for (const char *p = low; (p = strstr(p, words[i])); p++) {
			int start = p == low || p[-1] == '_' || p[-1] == '-';
			int end = p[w] == 0 || p[w] == '_' || p[w] == '-';
			if (start && end)
				return 1;
		}
	}
	return 0;
}

/* The unit of integer times by their size: 2001-09-09 .. 2286-11-20 in each. */
static rk__tunit epoch_unit(double lo, double hi)
{
	static const double scale[] = {0, 1, 1e3, 1e6, 1e9};
	for (int u = RK__TU_S; u <= RK__TU_NS; u++)
		if (lo >= 1e9 * scale[u] && hi < 1e10 * scale[u])
			return (rk__tunit)u;
	return RK__TU_NONE;
}

static void infer(rk__column *c)
{
	const rk__shape_counts *s = &c->st.shape;
	uint64_t vals = c->st.cells - c->st.empties;
	int also, k = rk__fstats_date_format(&c->st, &also);
	c->tu = RK__TU_NONE;
	if (k >= 0) {
		c->kind = RK__W_I64;
		c->tu = RK__TU_FMT;
		c->dfmt = rk__fstats_datefmt(k);
		c->dfmt_k = k;
		c->dfmt_also = also >= 0 ? rk__fstats_datefmt(also) : NULL;
		snprintf(c->type_text, sizeof c->type_text, "ts(\"%s\")", c->dfmt);
	} else if (vals == 0 || s->texts || s->dates) {
		c->kind = RK__W_STR;
	} else if (s->isos == vals) {
		c->kind = RK__W_I64;
		c->tu = RK__TU_ISO;
	} else if (s->isos) {
		c->kind = RK__W_STR;
	} else if (s->ints == vals && s->lead0) {
		c->kind = RK__W_STR; /* identifiers: "007" is not 7 */
	} else if (s->ints == vals) {
		c->kind = s->neg ? (s->big ? RK__W_F64 : RK__W_I64) : RK__W_U64;
		if (time_like(c->name) && (c->tu = epoch_unit(c->st.min, c->st.max)))
			c->kind = RK__W_I64;
	} else {
		c->kind = RK__W_F64;
	}
}

uint64_t rk__column_parse(const rk__column *c, const char *t, size_t n)
{
	int64_t ms = 0;
	double x;
	uint64_t v;
	if (c->tu == RK__TU_ISO) {
		rk__iso8601_ms(&ms, t, n);
		return (uint64_t)ms;
	}
	if (c->tu == RK__TU_FMT) {
		const char *why;
		rk__datefmt_parse(&ms, c->dfmt, t, n, &why); /* every value read in it (fstats) */
		return (uint64_t)ms;
	}
	if (c->kind == RK__W_U64)
		return strtoull(t, NULL, 10);
	if (c->kind == RK__W_I64)
		return (uint64_t)strtoll(t, NULL, 10);
	x = strtod(t, NULL);
	memcpy(&v, &x, sizeof v);
	return v;
}

/* Parses a held column's text into v[] by its kind. */
static int convert(rk__dataset *d, rk__column *c)
{
	if (c->kind == RK__W_STR)
		return 0;
	if (!(c->v = malloc((d->held ? d->held : 1) * sizeof *c->v)))
		return rk__err(RK_ENOMEM, "%s: out of memory", d->source);
	for (uint64_t i = 0; i < d->held; i++) {
		if (c->len[i] == RK__ABSENT || c->len[i] == 0)
			c->len[i] = RK__ABSENT; /* an empty number is no number */
		else
			c->v[i] = rk__column_parse(c, d->arena + c->off[i], c->len[i]);
	}
	return 0;
}

double rk__column_monotonic(const rk__column *c)
{
	if (c->tu == RK__TU_FMT)
		return c->st.dpairs ? (double)c->st.dge[c->dfmt_k] / (double)c->st.dpairs : 0;
	return rk__fstats_monotonic(&c->st, c->kind != RK__W_STR && c->tu != RK__TU_ISO);
}

int64_t rk__tunit_ms(rk__tunit tu, int64_t v)
{
	switch (tu) {
	case RK__TU_S: return v * 1000;
	case RK__TU_US: return v / 1000;
	case RK__TU_NS: return v / 1000000;
	default: return v;
	}
}

int64_t rk__tunit_of_ms(rk__tunit tu, int64_t ms)
{
	switch (tu) {
	case RK__TU_S: return ms / 1000;
	case RK__TU_US: return ms * 1000;
	case RK__TU_NS: return ms * 1000000;
	default: return ms;
	}
}


/* ---- reading a file ---- */

static void note_reject(rk__dataset *d)
{
	if (!d->rejected++)
		snprintf(d->first_error, sizeof d->first_error, "%s", rk_error_last());
}

static int read_all(rk__dataset *d, rk_rec *r, const rk__dataset_options *o)
{
	int rc, by_name = rk_rec__format(r) == RK_REC_JSONL;
	for (size_t i = 0; i < rk_rec__ncolumns(r); i++) {
		size_t n;
		const char *name = rk_rec__column(r, i, &n);
		if ((rc = add_column(d, name, n, RK__W_STR)) != 0)
			return rc;
	}
	for (;;) {
		rk_record rec;
		if (o->limit && d->records >= o->limit) {
			d->limited = rk_rec__next(r, &rec) != RK_EITEROVER;
			return 0;
		}
		rc = rk_rec__next(r, &rec);
		if (rc == RK_EITEROVER)
			return 0;
		if (rc == RK_EINVALID || rc == RK_ETOOLONG) {
			note_reject(d);
			continue;
		}
		if (rc || (rc = take_record(d, &rec, by_name)) != 0)
			return rc;
		if (o->progress && (d->records & 0xffff) == 0)
			o->progress("reading", d->records, rk_rec__bytes(r), o->payload);
	}
}

static int finish(rk__dataset *d)
{
	int rc;
	if (d->records == 0)
		return rk__err(RK_EINVALID, "%s: no records%s%s%s", d->source, d->rejected ? " (" : "",
		               d->rejected ? d->first_error : "", d->rejected ? ")" : "");
	for (size_t f = 0; f < d->nf; f++) {
		infer(&d->col[f]);
		if ((rc = convert(d, &d->col[f])) != 0)
			return rc;
	}
	return rk__dataset_pick_clock(d);
}

int rk__dataset_from_file(rk__dataset **out, const char *path, const rk__dataset_options *o)
{
	rk__dataset_options def = {0};
	rk_rec *r = NULL;
	int rc;
	*out = NULL;
	if (!o) { /* the defaults: the reader's own (a header, 16 MiB records) */
		rk_rec_options ro = RK_REC_OPTIONS_INIT;
		def.rec = ro;
		o = &def;
	}
	FILE *in = fopen(path, "rb");
	if (!in)
		return rk__err(errno == ENOENT ? RK_ENOTFOUND : RK_EIO, "%s: %s", path, strerror(errno));
	rk__dataset *d = calloc(1, sizeof *d);
	if (!d) {
		fclose(in);
		return rk__err(RK_ENOMEM, "out of memory");
	}
	snprintf(d->source, sizeof d->source, "%s", o->label ? o->label : path);
	snprintf(d->path, sizeof d->path, "%s", path);
	d->memory = o->memory ? o->memory : RK__DATASET_MEMORY_DEFAULT;
	d->complete = 1;
	d->rec = o->rec;
	d->rec.name = NULL; /* the source, when read again */
	rk_rec_options ro = o->rec;
	ro.name = d->source;
	if ((rc = rk_rec__open(&r, in, &ro)) == 0 && (rc = read_all(d, r, o)) == 0)
		rc = finish(d);
	if (rc == 0 && o->progress)
		o->progress("read", d->records, rk_rec__bytes(r), o->payload);
	rk_rec__close(r);
	fclose(in);
	if (rc) {
		rk__dataset_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

/* One generated write into the columns (typed; text only for strings). */
static int take_typed(rk__dataset *d, const rk__wval *rec)
{
	size_t text = 0;
	int rc;
	for (size_t f = 0; f < d->nf; f++)
		text += d->col[f].kind == RK__W_STR ? rec[f].len + 1 : 0;
	int hold = d->complete && fits(d, text);
	if (!hold)
		d->complete = 0;
	if (hold && d->held == d->cap && (rc = grow_records(d)) != 0)
		return rc;
	for (size_t f = 0; f < d->nf; f++) {
		rk__column *c = &d->col[f];
		const rk__wval *v = &rec[f];
		if (c->kind == RK__W_STR)
			rk__fstats_text(&c->st, v->s, v->len, v->ext != 0);
		else if (c->kind == RK__W_U64)
			rk__fstats_u64(&c->st, v->u);
		else
			rk__fstats_i64(&c->st, v->i);
		if (!hold)
			continue;
		c->len[d->held] = v->ext ? RK__ABSENT : c->kind == RK__W_STR ? (uint32_t)v->len : 0;
		if (c->kind == RK__W_STR && !v->ext && (rc = put_text(d, v->s, v->len, &c->off[d->held])))
			return rc;
		if (c->kind != RK__W_STR)
			c->v[d->held] = c->kind == RK__W_U64 ? v->u : (uint64_t)v->i;
	}
	d->held += hold;
	d->records++;
	return 0;
}

int rk__dataset_from_values(rk__dataset **out, const char *source, const rk__wfield *fields,
                           size_t nf, rk__dataset_next next, void *ctx,
                           const rk__dataset_options *o)
{
	int rc;
	*out = NULL;
	rk__dataset *d = calloc(1, sizeof *d);
	if (!d)
		return rk__err(RK_ENOMEM, "out of memory");
	snprintf(d->source, sizeof d->source, "%s", source);
	d->memory = o && o->memory ? o->memory : RK__DATASET_MEMORY_DEFAULT;
	d->complete = 1;
	d->typed = 1;
	d->time_field = -1;
	for (size_t f = 0; f < nf; f++)
		if ((rc = add_column(d, fields[f].name, strlen(fields[f].name), fields[f].kind)) != 0)
			goto fail;
	const rk__wval *rec;
	while ((rc = next(ctx, &rec)) == 0)
		if ((rc = take_typed(d, rec)) != 0)
			goto fail;
	if (rc != RK_EITEROVER)
		goto fail;
	for (size_t f = 0; f < d->nf; f++) {
		rk__column *c = &d->col[f];
		if (c->kind != RK__W_STR && time_like(c->name) && (c->tu = epoch_unit(c->st.min, c->st.max)))
			c->kind = RK__W_I64;
	}
	*out = d;
	return 0;
fail:
	rk__dataset_free(d);
	return rc;
}

int rk__dataset_add_seq(rk__dataset *d)
{
	char name[64] = "seq";
	for (int k = 2; rk__dataset_find(d, name, strlen(name)) >= 0; k++)
		snprintf(name, sizeof name, "seq_%d", k);
	if (d->nf == 64)
		return rk__err(RK_EINVALID, "%s: no room for a uniquifier field (64 fields)", d->source);
	rk__column *c = &d->col[d->nf];
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s", name);
	c->kind = RK__W_U64;
	c->seq = 1;
	rk__fstats_init(&c->st);
	uint64_t n = d->held ? d->held : 1;
	if (!(c->v = malloc(n * sizeof *c->v)) || !(c->off = calloc(n, sizeof *c->off)) ||
	    !(c->len = calloc(n, sizeof *c->len))) {
		free(c->v);
		free(c->off);
		return rk__err(RK_ENOMEM, "out of memory");
	}
	for (uint64_t i = 0; i < d->held; i++)
		c->v[i] = i + 1;
	c->st.cells = d->records;
	c->st.shape.ints = d->records;
	c->st.pairs = c->st.ge_num = c->st.num_pairs = d->records ? d->records - 1 : 0;
	return (int)d->nf++;
}

void rk__dataset_free(rk__dataset *d)
{
	if (!d)
		return;
	for (size_t f = 0; f < d->nf; f++) {
		free(d->col[f].v);
		free(d->col[f].off);
		free(d->col[f].len);
	}
	free(d->arena);
	free(d->t_ms);
	free(d);
}

const char *rk__dataset_text(const rk__dataset *d, size_t f, uint64_t i, size_t *len)
{
	const rk__column *c = &d->col[f];
	if (c->len[i] == RK__ABSENT || c->seq || (d->typed && c->kind != RK__W_STR)) {
		*len = 0;
		return NULL; /* no value, or a number held without its text */
	}
	*len = c->len[i];
	return d->arena + c->off[i];
}

void rk__dataset_record(const rk__dataset *d, uint64_t i, rk__wval *out)
{
	for (size_t f = 0; f < d->nf; f++) {
		const rk__column *c = &d->col[f];
		rk__wval *v = &out[f];
		if (c->len[i] == RK__ABSENT) {
			v->ext = 2;
			v->has_text = 0;
			continue;
		}
		int text = !c->seq && (!d->typed || c->kind == RK__W_STR);
		v->ext = 0;
		v->has_text = text && c->kind != RK__W_STR;
		v->s = text ? d->arena + c->off[i] : NULL;
		v->len = text ? c->len[i] : 0;
		if (c->kind == RK__W_U64)
			v->u = c->v[i];
		else if (c->kind == RK__W_I64)
			v->i = (int64_t)c->v[i];
		else if (c->kind == RK__W_F64)
			memcpy(&v->f, &c->v[i], sizeof v->f);
	}
}
