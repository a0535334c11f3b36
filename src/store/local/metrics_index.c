/*
 * The record read from a metrics file, put in order (metrics.h): r and s
 * lines filed into series, regions sorted and linked to their load, their
 * liveness decided where the file did not state it (version 1); and the
 * file read whole, the record freed, a table looked up. The lines are
 * parsed by metrics_read.c, which calls in here.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "key/bytes.h"
#include "key/error.h"
#include "store/local/keyviz.h"
#include "store/local/metrics.h"

/* ---- after the lines: series, order, liveness ---- */

static int rec_cmp(const void *x, const void *y)
{
	const rk__mrec *a = x, *b = y;
	if (a->tag != b->tag)
		return a->tag < b->tag ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->b.start_ms != b->b.start_ms)
		return a->b.start_ms < b->b.start_ms ? -1 : 1;
	if (a->b.width_ms != b->b.width_ms)
		return a->b.width_ms < b->b.width_ms ? -1 : 1;
	return (a->b.server > b->b.server) - (a->b.server < b->b.server);
}

/* the sorted records of one tag into series (equal buckets added up); one
 * allocation holds every series' buckets, owned by the first series */
static int file_series(rk_metrics_series **out, size_t *count, const rk__mrec *r, size_t n)
{
	size_t ns = 0;
	for (size_t i = 0; i < n; i++)
		ns += !i || r[i].id != r[i - 1].id;
	rk_metrics_series *s = calloc(ns ? ns : 1, sizeof *s);
	rk_metrics_bucket *all = ns ? malloc(n * sizeof *all) : NULL;
	if (!s || (ns && !all)) {
		free(s);
		free(all);
		return RK_ENOMEM;
	}
	size_t k = 0, nb = 0;
	for (size_t i = 0; i < n; i++) {
		if (!i || r[i].id != r[i - 1].id) {
			s[k++] = (rk_metrics_series){r[i].id, all + nb, 0, {0}};
		} else if (r[i].b.start_ms == r[i - 1].b.start_ms && r[i].b.width_ms == r[i - 1].b.width_ms &&
		           r[i].b.server == r[i - 1].b.server) {
			rk_metrics__counts_add(&s[k - 1].b[s[k - 1].n - 1].c, &r[i].b.c);
			rk_metrics__counts_add(&s[k - 1].total, &r[i].b.c);
			continue;
		}
		s[k - 1].b[s[k - 1].n++] = r[i].b;
		rk_metrics__counts_add(&s[k - 1].total, &r[i].b.c);
		nb++;
	}
	*out = s;
	*count = ns;
	return 0;
}

static int region_cmp(const void *x, const void *y)
{
	const rk_metrics_region *a = x, *b = y;
	int c = strcmp(a->table, b->table);
	if (!c)
		c = rk__bytes_cmp(a->start, a->start_len, b->start, b->start_len);
	return c ? c : (a->id > b->id) - (a->id < b->id);
}

/* A region whose state no line gave (live < 0) is live when it is on its
 * table's newest chain: from the empty key, the highest id starting at
 * each point, then from its end, to the unbounded end. Regions sorted. */
static void mark_chains(rk_metrics *m)
{
	for (size_t t0 = 0, t1; t0 < m->nregions; t0 = t1) {
		for (t1 = t0; t1 < m->nregions && !strcmp(m->regions[t1].table, m->regions[t0].table);)
			t1++;
		const uint8_t *at = (const uint8_t *)"";
		size_t at_len = 0;
		for (size_t steps = 0; steps <= t1 - t0; steps++) {
			size_t best = SIZE_MAX;
			for (size_t i = t0; i < t1; i++)
				if (!rk__bytes_cmp(m->regions[i].start, m->regions[i].start_len, at, at_len) &&
				    (best == SIZE_MAX || m->regions[i].id > m->regions[best].id))
					best = i;
			if (best == SIZE_MAX || m->regions[best].live == 2)
				break;
			if (m->regions[best].live < 0)
				m->regions[best].live = 2; /* on the chain: 1 below */
			if (!m->regions[best].end)
				break;
			at = m->regions[best].end;
			at_len = m->regions[best].end_len;
		}
	}
	for (size_t i = 0; i < m->nregions; i++)
		m->regions[i].live = m->regions[i].live == 2 ? 1 : m->regions[i].live > 0;
}

static int id_server_cmp(const void *x, const void *y)
{
	uint64_t a = ((const rk__mrec *)x)->id, b = ((const rk__mrec *)y)->id;
	return (a > b) - (a < b);
}

/* r records without a server (version 1) take their region line's, or 0 */
static int fill_servers(rk_metrics *m, rk__mrec *recs, size_t n)
{
	rk__mrec *idx = malloc((m->nregions ? m->nregions : 1) * sizeof *idx);
	if (!idx)
		return -1;
	for (size_t i = 0; i < m->nregions; i++)
		idx[i] = (rk__mrec){'r', m->regions[i].id, {.server = m->regions[i].server}};
	qsort(idx, m->nregions, sizeof *idx, id_server_cmp);
	for (size_t i = 0; i < n; i++)
		if (recs[i].b.server == UINT_MAX) {
			const rk__mrec *hit = bsearch(&recs[i], idx, m->nregions, sizeof *idx, id_server_cmp);
			recs[i].b.server = hit ? hit->b.server : 0;
		}
	free(idx);
	return 0;
}

int rk_metrics__index(rk_metrics *m, rk__mrec *recs, size_t n)
{
	size_t nr = 0;
	if (fill_servers(m, recs, n))
		return rk__err(RK_ENOMEM, "out of memory reading the metrics");
	if (n) /* recs may be NULL then */
		qsort(recs, n, sizeof *recs, rec_cmp);
	while (nr < n && recs[nr].tag == 'r')
		nr++;
	/* recs + nr only when recs is an array: NULL + 0 is undefined */
	if (file_series(&m->region_load, &m->nregion_load, recs, nr) ||
	    file_series(&m->server_load, &m->nserver_load, n ? recs + nr : recs, n - nr))
		return rk__err(RK_ENOMEM, "out of memory reading the metrics");
	if (m->nregions)
		qsort(m->regions, m->nregions, sizeof *m->regions, region_cmp);
	mark_chains(m);
	for (size_t i = 0; i < m->nregions; i++) {
		rk_metrics_region *g = &m->regions[i];
		size_t lo = 0, hi = m->nregion_load;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (m->region_load[mid].id < g->id)
				lo = mid + 1;
			else
				hi = mid;
		}
		g->load = lo < m->nregion_load && m->region_load[lo].id == g->id ? &m->region_load[lo] : NULL;
	}
	for (size_t i = 1; i < m->ntables; i++) /* tables by name (few: insertion) */
		for (size_t j = i; j > 0 && strcmp(m->tables[j - 1].name, m->tables[j].name) > 0; j--) {
			rk_keyviz_table x = m->tables[j];
			m->tables[j] = m->tables[j - 1];
			m->tables[j - 1] = x;
		}
	return 0;
}

int rk_metrics__slurp(char **out, size_t *len, const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	*out = NULL;
	*len = 0;
	if (fd < 0)
		return rk__err(errno == ENOENT ? RK_ENOTFOUND : RK_EIO, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) || !(*out = malloc((size_t)st.st_size + 1))) {
		int e = errno;
		close(fd);
		return rk__err(*out ? RK_EIO : RK_ENOMEM, "%s: %s", path, strerror(e));
	}
	size_t n = 0;
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, *out + n, (size_t)st.st_size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n != (size_t)st.st_size) {
		free(*out);
		*out = NULL;
		return rk__err(RK_EIO, "%s: short read", path);
	}
	(*out)[n] = 0;
	*len = n;
	return 0;
}

void rk_metrics_free(rk_metrics *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nregions; i++) {
		free(m->regions[i].table);
		free(m->regions[i].start);
		free(m->regions[i].end);
	}
	free(m->regions);
	if (m->nregion_load)
		free(m->region_load[0].b);
	free(m->region_load);
	if (m->nserver_load)
		free(m->server_load[0].b);
	free(m->server_load);
	for (size_t i = 0; i < m->ntables; i++) {
		rk_kvhist__clear(&m->tables[i]);
		free(m->tables[i].iv);
		free(m->tables[i].name);
		free(m->tables[i].schema);
	}
	free(m->tables);
	free(m);
}

const rk_keyviz_table *rk_metrics_table(const rk_metrics *m, const char *name)
{
	for (size_t i = 0; m && name && i < m->ntables; i++)
		if (!strcmp(m->tables[i].name, name))
			return &m->tables[i];
	return NULL;
}
