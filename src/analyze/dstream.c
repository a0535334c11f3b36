/*
 * The second pass over a records file too large to hold (see dataset.h):
 * the file read again through the same reader and options, each record's
 * cells converted by the types the first pass inferred. Records the reader
 * refuses are skipped, as the first pass skipped them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/dataset.h"
#include "key/error.h"

struct rk__dstream {
	const rk__dataset *d;
	FILE *in;
	rk_rec *r;
	int by_name;
	uint64_t n; /* records returned: the uniquifier's value */
};

int rk__dstream_open(rk__dstream **out, const rk__dataset *d)
{
	int rc;
	*out = NULL;
	rk__dstream *s = calloc(1, sizeof *s);
	if (!s)
		return rk__err(RK_ENOMEM, "out of memory");
	s->d = d;
	if (!(s->in = fopen(d->path, "rb"))) {
		free(s);
		return rk__err(RK_EIO, "%s: opening it again: %s", d->source, strerror(errno));
	}
	rk_rec_options ro = d->rec;
	ro.name = d->source;
	if ((rc = rk_rec__open(&s->r, s->in, &ro)) != 0) {
		rk__dstream_close(s);
		return rc;
	}
	s->by_name = rk_rec__format(s->r) == RK_REC_JSONL;
	*out = s;
	return 0;
}

static void cell(const rk__column *c, const rk_rec_cell *x, rk__wval *v)
{
	if (x->kind == RK_CELL_NULL || (c->kind != RK__W_STR && x->len == 0)) {
		v->ext = 2;
		return;
	}
	v->ext = 0;
	v->has_text = 1;
	v->s = x->p;
	v->len = x->len;
	if (c->kind == RK__W_STR)
		return;
	uint64_t n = rk__column_parse(c, x->p, x->len);
	v->u = n;
	v->i = (int64_t)n;
	memcpy(&v->f, &n, sizeof v->f);
}

int rk__dstream_next(rk__dstream *s, rk__wval *out, int64_t *t_ms)
{
	const rk__dataset *d = s->d;
	rk_record rec;
	int rc;
	do
		rc = rk_rec__next(s->r, &rec);
	while (rc == RK_EINVALID || rc == RK_ETOOLONG);
	if (rc)
		return rc;
	for (size_t f = 0; f < d->nf; f++)
		out[f].ext = 2;
	for (size_t i = 0; i < rec.n; i++) {
		int f = s->by_name ? rk__dataset_find(d, rec.cell[i].name, rec.cell[i].name_len) : (int)i;
		if (f >= 0 && (size_t)f < d->nf)
			cell(&d->col[f], &rec.cell[i], &out[f]);
	}
	s->n++;
	for (size_t f = 0; f < d->nf; f++)
		if (d->col[f].seq) {
			out[f].ext = 0;
			out[f].has_text = 0;
			out[f].u = s->n;
		}
	*t_ms = 0;
	if (d->time_field >= 0 && out[d->time_field].ext == 0)
		*t_ms = rk__tunit_ms(d->col[d->time_field].tu, out[d->time_field].i);
	return 0;
}

void rk__dstream_close(rk__dstream *s)
{
	if (!s)
		return;
	rk_rec__close(s->r);
	if (s->in)
		fclose(s->in);
	free(s);
}
