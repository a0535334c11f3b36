/*
 * Writing a metrics file (docs/formats.md B.3, version 2) from an
 * rk_metrics: the inverse of metrics_read.c, so a file read and written
 * back is the same record. The store writes its own through a temporary
 * file and a rename (metrics_file.c builds what it writes).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "key/error.h"
#include "store/local/keyviz.h"
#include "store/local/metrics.h"

static void hex(FILE *f, const uint8_t *p, size_t n)
{
	static const char d[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		putc(d[p[i] >> 4], f);
		putc(d[p[i] & 15], f);
	}
}

static void series(FILE *f, char tag, const rk_metrics_series *s, size_t n, unsigned bucket_ms)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < s[i].n; j++) {
			const rk_metrics_bucket *b = &s[i].b[j];
			fprintf(f, "%c\t%" PRIu64 "\t%" PRId64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64,
			        tag, s[i].id, b->start_ms, b->c.writes, b->c.reads, b->c.bytes_written,
			        b->c.bytes_read);
			if (tag == 'r') /* the server that served it */
				fprintf(f, "\t%" PRIu64 "\t%u", b->width_ms, b->server);
			else if (b->width_ms != bucket_ms)
				fprintf(f, "\t%" PRIu64, b->width_ms);
			putc('\n', f);
		}
}

static void schema_line(FILE *f, const rk_keyviz_table *t)
{
	fprintf(f, "schema\t%s\t", t->name);
	for (const char *c = t->schema; *c; c++)
		switch (*c) {
		case '\\': fputs("\\\\", f); break;
		case '\t': fputs("\\t", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		default: putc(*c, f);
		}
	putc('\n', f);
}

typedef struct lref {
	const rk_keyviz_layout *l;
	size_t no; /* numbered in the order of first use */
} lref;

static int lref_cmp(const void *x, const void *y)
{
	const lref *a = x, *b = y;
	if (a->l != b->l)
		return (uintptr_t)a->l < (uintptr_t)b->l ? -1 : 1;
	return (a->no > b->no) - (a->no < b->no);
}

static int by_no(const void *x, const void *y)
{
	size_t a = ((const lref *)x)->no, b = ((const lref *)y)->no;
	return (a > b) - (a < b);
}

/* a table's layouts (those its intervals use, in the order they do) and
 * intervals */
static int key_buckets(FILE *f, const rk_keyviz_table *t)
{
	lref *ls = malloc((t->niv ? t->niv : 1) * sizeof *ls);
	if (!ls)
		return rk__err(RK_ENOMEM, "out of memory writing the metrics");
	size_t nl = 0, k = 0;
	for (size_t i = 0; i < t->niv; i++)
		if (!nl || ls[nl - 1].l != t->iv[i].layout) {
			ls[nl] = (lref){t->iv[i].layout, nl};
			nl++;
		}
	qsort(ls, nl, sizeof *ls, lref_cmp); /* a layout used again later keeps its first place */
	for (size_t i = 0; i < nl; i++)
		if (!k || ls[k - 1].l != ls[i].l)
			ls[k++] = ls[i];
	nl = k;
	qsort(ls, nl, sizeof *ls, by_no);
	for (size_t i = 0; i < nl; i++) {
		const rk_keyviz_layout *l = ls[i].l;
		ls[i].no = i + 1;
		fprintf(f, "kl\t%s\t%zu\t%zu", t->name, i + 1, l->nbuckets);
		for (size_t b = 1; b < l->nbuckets; b++) {
			putc('\t', f);
			hex(f, l->start[b], l->start_len[b]);
		}
		putc('\n', f);
	}
	qsort(ls, nl, sizeof *ls, lref_cmp); /* by layout for the look-ups; numbers kept */
	for (size_t i = 0; i < t->niv; i++) {
		const rk_keyviz_interval *iv = &t->iv[i];
		size_t lo = 0, hi = nl;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if ((uintptr_t)ls[mid].l <= (uintptr_t)iv->layout)
				lo = mid;
			else
				hi = mid;
		}
		fprintf(f, "k\t%s\t%zu\t%" PRId64 "\t%" PRIu64, t->name, ls[lo].no, iv->start_ms,
		        iv->width_ms);
		for (size_t c = 0; c < iv->ncells; c++) {
			const rk_keyviz_cell *x = &iv->cells[c];
			fprintf(f, "\t%" PRIu32 ":%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, x->bucket,
			        x->c.writes, x->c.reads, x->c.bytes_written, x->c.bytes_read);
		}
		putc('\n', f);
	}
	free(ls);
	return 0;
}

int rk_metrics__format(FILE *f, const rk_metrics *m)
{
	int rc = 0;
	errno = 0; /* what the failed write said, when the stream fails */
	fprintf(f, "# rowkey metrics v2 bucket_ms=%u servers=%u\n", m->bucket_ms, m->servers);
	for (size_t i = 0; i < m->nregions; i++) {
		const rk_metrics_region *g = &m->regions[i];
		fprintf(f, "region\t%" PRIu64 "\t%s\t%u\t", g->id, g->table, g->server);
		hex(f, g->start, g->start_len);
		putc('\t', f);
		if (g->end)
			hex(f, g->end, g->end_len);
		else
			putc('-', f);
		fprintf(f, "\t%s\t%" PRId64 "\n", g->live ? "live" : "retired", g->born_ms);
	}
	series(f, 'r', m->region_load, m->nregion_load, m->bucket_ms);
	series(f, 's', m->server_load, m->nserver_load, m->bucket_ms);
	for (size_t i = 0; i < m->ntables && !rc; i++) {
		if (m->tables[i].schema)
			schema_line(f, &m->tables[i]);
		rc = key_buckets(f, &m->tables[i]);
	}
	if (!rc && ferror(f))
		rc = rk__err(RK_EIO, "writing failed: %s", errno ? strerror(errno) : "a write error");
	return rc;
}

int rk_metrics__write_file(const rk_metrics *m, const char *path)
{
	char tmp[4300];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return rk__err(RK_EIO, "metrics file %s: %s", tmp, strerror(errno));
	int rc = rk_metrics__format(f, m);
	if (rc == RK_EIO)
		rk__err_wrap(rc, "metrics file %s", tmp);
	if (fclose(f) && !rc)
		rc = rk__err(RK_EIO, "metrics file %s: %s", tmp, strerror(errno));
	if (!rc && rename(tmp, path))
		rc = rk__err(RK_EIO, "metrics file %s: %s", path, strerror(errno));
	if (rc)
		unlink(tmp);
	return rc;
}
