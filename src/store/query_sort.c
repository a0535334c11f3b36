/*
 * Rows in logical order for plans whose ranges do not give them in that
 * order (query_int.h): copies of rows with their keys' logical forms, and
 * an external merge sort. Rows gather in memory up to a byte budget; then
 * they are sorted and written to a temporary file as one run (docs/formats.md
 * part D; the file is unlinked at once, so nothing is left behind whatever
 * happens to the process). At the end the rows still in memory and the
 * runs are merged with a heap. Past MAX_RUNS runs, they are merged into one
 * first, so file descriptors stay bounded.
 *
 * What it does not do: keep anything between queries, or spill the heap of
 * run heads (one row per run).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "key/bytes.h"
#include "key/error.h"
#include "store/query_int.h"

#define MAX_RUNS 64

/* ---- rows ---- */

rk__qrow *rk_qrow__new(const rk_row *r, const uint8_t *lkey, size_t llen, const rk_value *fields,
                       size_t nf, uint64_t strs)
{
	size_t n = sizeof(rk__qrow) + r->ncells * sizeof(rk_cell) + nf * sizeof(rk_value) + r->key_len + llen;
	for (size_t i = 0; i < r->ncells; i++)
		n += strlen(r->cells[i].family) + 1 + r->cells[i].qualifier_len + r->cells[i].value_len;
	for (size_t i = 0; i < nf; i++)
		n += fields[i].present && (strs >> i & 1) ? fields[i].v.s.len : 0;
	rk__qrow *d = malloc(n);
	if (!d)
		return NULL;
	rk_cell *cells = (rk_cell *)(d + 1);
	rk_value *fv = (rk_value *)(cells + r->ncells);
	uint8_t *p = (uint8_t *)(fv + nf);
	if (r->key_len)
		memcpy(p, r->key, r->key_len);
	d->row.key = p;
	d->row.key_len = r->key_len;
	p += r->key_len;
	for (size_t i = 0; i < r->ncells; i++) {
		const rk_cell *c = &r->cells[i];
		size_t fl = strlen(c->family) + 1;
		cells[i] = *c;
		memcpy(p, c->family, fl);
		cells[i].family = (const char *)p;
		p += fl;
		if (c->qualifier_len)
			memcpy(p, c->qualifier, c->qualifier_len);
		cells[i].qualifier = p;
		p += c->qualifier_len;
		if (c->value_len)
			memcpy(p, c->value, c->value_len);
		cells[i].value = p;
		p += c->value_len;
	}
	d->row.cells = cells;
	d->row.ncells = r->ncells;
	if (llen)
		memcpy(p, lkey, llen);
	d->lkey = p;
	d->llen = llen;
	p += llen;
	for (size_t i = 0; i < nf; i++) {
		fv[i] = fields[i];
		if (fields[i].present && (strs >> i & 1)) {
			if (fields[i].v.s.len)
				memcpy(p, fields[i].v.s.ptr, fields[i].v.s.len);
			fv[i].v.s.ptr = p;
			p += fields[i].v.s.len;
		}
	}
	d->fields = nf ? fv : NULL;
	d->bytes = n;
	return d;
}

int rk_qrow__cmp(const rk__qrow *a, const rk__qrow *b, int reverse)
{
	int c = rk__bytes_cmp(a->lkey, a->llen, b->lkey, b->llen);
	if (!c)
		c = rk__bytes_cmp(a->row.key, a->row.key_len, b->row.key, b->row.key_len);
	return reverse ? -c : c;
}

/* ---- runs: rows written to and read back from a temporary file ---- */

typedef struct run {
	FILE *f;
	rk__qrow *head; /* its next row, or NULL at its end */
} run;

static int put_u32(FILE *f, size_t v)
{
	uint32_t x = (uint32_t)v;
	return fwrite(&x, sizeof x, 1, f) == 1 ? 0 : -1;
}

static int put_bytes(FILE *f, const void *p, size_t n)
{
	return put_u32(f, n) || (n && fwrite(p, 1, n, f) != n) ? -1 : 0;
}

/* One row as formats.md D.1 lays it out. */
static int write_row(FILE *f, const rk__qrow *r)
{
	if (put_bytes(f, r->lkey, r->llen) || put_bytes(f, r->row.key, r->row.key_len) ||
	    put_u32(f, r->row.ncells))
		return -1;
	for (size_t i = 0; i < r->row.ncells; i++) {
		const rk_cell *c = &r->row.cells[i];
		if (put_bytes(f, c->family, strlen(c->family)) ||
		    put_bytes(f, c->qualifier, c->qualifier_len) ||
		    fwrite(&c->ts, sizeof c->ts, 1, f) != 1 || put_bytes(f, c->value, c->value_len))
			return -1;
	}
	return 0;
}

/* A growing buffer the reader parses a row into. */
typedef struct scratch {
	uint8_t *b;
	size_t len, cap;
} scratch;

/* Reads n bytes into the scratch; returns their offset, or -1. */
static long get_bytes(scratch *sc, FILE *f, size_t n)
{
	if (n + 1 > sc->cap - sc->len) {
		size_t cap = (sc->len + n + 1) * 2;
		uint8_t *nb = realloc(sc->b, cap);
		if (!nb)
			return -1;
		sc->b = nb;
		sc->cap = cap;
	}
	if (n && fread(sc->b + sc->len, 1, n, f) != n)
		return -1;
	long at = (long)sc->len;
	sc->len += n;
	sc->b[sc->len++] = 0; /* families are read back NUL-terminated */
	return at;
}

static long get_field(scratch *sc, FILE *f, size_t *n)
{
	uint32_t x;
	if (fread(&x, sizeof x, 1, f) != 1)
		return -1;
	*n = x;
	return get_bytes(sc, f, x);
}

/* The run's next row into r->head (NULL at its end). */
static int run_advance(run *r, scratch *sc)
{
	size_t ll, kl, nc;
	uint32_t x;
	sc->len = 0;
	r->head = NULL;
	long lo = get_field(sc, r->f, &ll);
	if (lo < 0) {
		if (feof(r->f) && !ferror(r->f))
			return 0;
		return rk__err(RK_EIO, "reading a sort run back failed: %s", strerror(errno));
	}
	long ko = get_field(sc, r->f, &kl);
	if (ko < 0 || fread(&x, sizeof x, 1, r->f) != 1)
		return rk__err(RK_EIO, "reading a sort run back failed (a row cut short)");
	nc = x;
	rk_cell *cells = malloc((nc + 1) * sizeof *cells);
	long (*offs)[3] = malloc((nc + 1) * sizeof *offs);
	int rc = 0;
	if (!cells || !offs) {
		rc = rk__err(RK_ENOMEM, "out of memory reading a sort run");
		goto out;
	}
	for (size_t i = 0; i < nc; i++) {
		size_t fl;
		if ((offs[i][0] = get_field(sc, r->f, &fl)) < 0 ||
		    (offs[i][1] = get_field(sc, r->f, &cells[i].qualifier_len)) < 0 ||
		    fread(&cells[i].ts, sizeof cells[i].ts, 1, r->f) != 1 ||
		    (offs[i][2] = get_field(sc, r->f, &cells[i].value_len)) < 0) {
			rc = rk__err(RK_EIO, "reading a sort run back failed (a row cut short)");
			goto out;
		}
	}
	for (size_t i = 0; i < nc; i++) { /* the scratch has stopped moving */
		cells[i].family = (const char *)sc->b + offs[i][0];
		cells[i].qualifier = sc->b + offs[i][1];
		cells[i].value = sc->b + offs[i][2];
	}
	rk_row row = {sc->b + ko, kl, cells, nc};
	if (!(r->head = rk_qrow__new(&row, sc->b + lo, ll, NULL, 0, 0)))
		rc = rk__err(RK_ENOMEM, "out of memory reading a sort run");
out:
	free(cells);
	free(offs);
	return rc;
}

/* A new, already unlinked temporary file. */
static FILE *temp_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/rowkey-sort-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0) {
		rk__err(RK_EIO, "cannot make a temporary file to sort rows in (%s): %s", path,
		        strerror(errno));
		return NULL;
	}
	unlink(path);
	FILE *f = fdopen(fd, "w+b");
	if (!f) {
		close(fd);
		rk__err(RK_EIO, "cannot make a temporary file to sort rows in: %s", strerror(errno));
	}
	return f;
}

/* ---- the sorter ---- */

struct rk__qsort {
	size_t budget;
	int reverse;
	rk__qrow **mem; /* rows held in memory */
	size_t nmem, capmem, bytes, next_mem;
	run runs[MAX_RUNS + 1];
	size_t nruns;
	size_t *heap; /* the merge: indexes of sources, runs[0..nruns) and nruns for memory */
	size_t nheap;
	scratch sc;
	size_t runs_written;
};

/* qsort's comparator takes no argument (qsort_r is a GNU extension): the
 * direction travels in a thread-local, set by the sorting thread */
static _Thread_local int sort_reverse;
static int mem_cmp(const void *x, const void *y)
{
	return rk_qrow__cmp(*(rk__qrow *const *)x, *(rk__qrow *const *)y, sort_reverse);
}

static void sort_mem(rk__qsort *s)
{
	sort_reverse = s->reverse;
	if (s->nmem > 1)
		qsort(s->mem, s->nmem, sizeof *s->mem, mem_cmp);
}

/* The head of source i: a run's next row, or the next row in memory. */
static rk__qrow *source_head(const rk__qsort *s, size_t i)
{
	if (i < s->nruns)
		return s->runs[i].head;
	return s->next_mem < s->nmem ? s->mem[s->next_mem] : NULL;
}

static int source_before(const rk__qsort *s, size_t a, size_t b)
{
	return rk_qrow__cmp(source_head(s, a), source_head(s, b), s->reverse) < 0;
}

static void heap_down(rk__qsort *s, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < s->nheap && source_before(s, s->heap[l], s->heap[m]))
			m = l;
		if (r < s->nheap && source_before(s, s->heap[r], s->heap[m]))
			m = r;
		if (m == i)
			return;
		size_t t = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = t;
		i = m;
	}
}

/* Starts the merge of the runs and the rows in memory (sorted). */
static int merge_start(rk__qsort *s)
{
	int rc;
	free(s->heap);
	if (!(s->heap = malloc((s->nruns + 1) * sizeof *s->heap)))
		return rk__err(RK_ENOMEM, "out of memory sorting rows");
	s->nheap = 0;
	s->next_mem = 0;
	for (size_t i = 0; i <= s->nruns; i++) {
		if (i < s->nruns) {
			if (fflush(s->runs[i].f) || fseek(s->runs[i].f, 0, SEEK_SET))
				return rk__err(RK_EIO, "rewinding a sort run: %s", strerror(errno));
			if ((rc = run_advance(&s->runs[i], &s->sc)) < 0)
				return rc;
		}
		if (source_head(s, i))
			s->heap[s->nheap++] = i;
	}
	for (size_t i = s->nheap / 2; i-- > 0;)
		heap_down(s, i);
	return 0;
}

/* The merge's next row (owned by the caller), or NULL at the end. */
static int merge_next(rk__qrow **out, rk__qsort *s)
{
	*out = NULL;
	if (!s->nheap)
		return 0;
	size_t top = s->heap[0];
	if (top < s->nruns) {
		*out = s->runs[top].head;
		int rc = run_advance(&s->runs[top], &s->sc);
		if (rc < 0)
			return rc;
	} else {
		*out = s->mem[s->next_mem];
		s->mem[s->next_mem++] = NULL;
	}
	if (!source_head(s, top))
		s->heap[0] = s->heap[--s->nheap];
	heap_down(s, 0);
	return 0;
}

static void close_runs(rk__qsort *s)
{
	for (size_t i = 0; i < s->nruns; i++) {
		free(s->runs[i].head);
		fclose(s->runs[i].f);
	}
	s->nruns = 0;
}

/* Writes the rows in memory, sorted, as a new run; past MAX_RUNS merges
 * every run into one first. */
static int spill(rk__qsort *s)
{
	int rc = 0;
	if (s->nruns == MAX_RUNS) {
		FILE *f = temp_file();
		rk__qrow *r;
		size_t saved = s->nmem;
		if (!f)
			return RK_EIO;
		s->nmem = 0; /* the memory rows wait for the next run */
		if ((rc = merge_start(s)) == 0)
			while ((rc = merge_next(&r, s)) == 0 && r) {
				int bad = write_row(f, r);
				free(r);
				if (bad) {
					rc = rk__err(RK_EIO, "writing a sort run: %s", strerror(errno));
					break;
				}
			}
		s->nmem = saved;
		close_runs(s);
		s->runs[s->nruns++] = (run){f, NULL};
		s->runs_written++;
		if (rc < 0)
			return rc;
	}
	FILE *f = temp_file();
	if (!f)
		return RK_EIO;
	sort_mem(s);
	for (size_t i = 0; i < s->nmem && !rc; i++)
		if (write_row(f, s->mem[i]))
			rc = rk__err(RK_EIO, "writing a sort run: %s", strerror(errno));
	if (!rc && fflush(f))
		rc = rk__err(RK_EIO, "writing a sort run: %s", strerror(errno));
	for (size_t i = 0; i < s->nmem; i++)
		free(s->mem[i]);
	s->nmem = s->bytes = 0;
	s->runs[s->nruns++] = (run){f, NULL};
	s->runs_written++;
	return rc;
}

int rk_qsort__new(rk__qsort **out, size_t budget, int reverse)
{
	rk__qsort *s = calloc(1, sizeof *s);
	if (!s)
		return rk__err(RK_ENOMEM, "out of memory sorting rows");
	s->budget = budget;
	s->reverse = reverse;
	*out = s;
	return 0;
}

int rk_qsort__add(rk__qsort *s, rk__qrow *r)
{
	if (s->nmem == s->capmem) {
		size_t cap = s->capmem ? s->capmem * 2 : 256;
		rk__qrow **nm = realloc(s->mem, cap * sizeof *nm);
		if (!nm) {
			free(r);
			return rk__err(RK_ENOMEM, "out of memory sorting rows");
		}
		s->mem = nm;
		s->capmem = cap;
	}
	s->mem[s->nmem++] = r;
	s->bytes += r->bytes;
	return s->bytes > s->budget ? spill(s) : 0;
}

int rk_qsort__finish(rk__qsort *s)
{
	sort_mem(s);
	return merge_start(s);
}

int rk_qsort__next(rk__qrow **out, rk__qsort *s)
{
	int rc = merge_next(out, s);
	if (rc < 0)
		return rc;
	return *out ? 0 : RK_EITEROVER;
}

size_t rk_qsort__runs(const rk__qsort *s)
{
	return s->runs_written;
}

void rk_qsort__free(rk__qsort *s)
{
	if (!s)
		return;
	close_runs(s);
	for (size_t i = 0; i < s->nmem; i++)
		free(s->mem[i]);
	free(s->mem);
	free(s->heap);
	free(s->sc.b);
	free(s);
}
