/*
 * DIR/metrics.tsv, the local backend's load record (format: docs/formats.md):
 * read at open, its records of earlier runs kept (old buckets rolled up by
 * rk_metrics__carry), and rewritten whole at close or on demand through a
 * temporary file and a rename: earlier runs' records, the current regions,
 * then each region's and server's buckets (metrics.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "key/error.h"
#include "store/local/local_int.h"
#include "store/local/metrics.h"

/* Loads the records of earlier runs from DIR/metrics.tsv (the file is ours,
 * but is read as text that may be damaged): what rk_metrics__carry keeps,
 * old buckets rolled up into coarser ones once there are many. */
void rk_local__metrics_load(rk__local *s)
{
	char path[4200];
	uint8_t *text = NULL;
	size_t n = 0;
	int fd;
	struct stat st;
	snprintf(path, sizeof path, "%s/metrics.tsv", s->dir);
	if ((fd = open(path, O_RDONLY)) < 0)
		return;
	if (!fstat(fd, &st) && (text = malloc((size_t)st.st_size + 1)) != NULL) {
		while (n < (size_t)st.st_size) {
			ssize_t r = read(fd, text + n, (size_t)st.st_size - n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			n += (size_t)r;
		}
	}
	close(fd);
	if (!text || n != (size_t)st.st_size ||
	    rk_metrics__carry(&s->metrics_base, &s->metrics_base_len, (const char *)text, n,
	                      s->opts.metrics_bucket_ms, RK_METRICS_CARRY_MAX)) {
		/* unread: kept aside whole rather than replaced without it */
		char old[4300];
		snprintf(old, sizeof old, "%s.unread", path);
		rename(path, old);
		s->metrics_base = NULL;
		s->metrics_base_len = 0;
	}
	free(text);
}

static void hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

static int id_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int rk_local__metrics_write(rk__local *s, const char *path)
{
	char def[4200], tmp[4300];
	uint64_t *ids = NULL;
	size_t nids = 0, capids = 0;
	if (!path) {
		snprintf(def, sizeof def, "%s/metrics.tsv", s->dir);
		path = def;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return rk__err(RK_EIO, "metrics file %s: %s", tmp, strerror(errno));
	int rc = 0;
	pthread_rwlock_rdlock(&s->lock);
	fprintf(f, "# rowkey metrics v1 bucket_ms=%u servers=%u\n", s->opts.metrics_bucket_ms,
	        s->nservers);
	for (rk__region *r = s->meta.all_regions; r; r = r->next_all) {
		if (nids == capids) {
			size_t c = capids ? capids * 2 : 64;
			uint64_t *q = realloc(ids, c * sizeof *q);
			if (!q) {
				rc = rk__err(RK_ENOMEM, "out of memory writing metrics");
				goto out;
			}
			ids = q;
			capids = c;
		}
		ids[nids++] = r->id;
	}
	if (nids)
		qsort(ids, nids, sizeof *ids, id_cmp);
	/* earlier runs: their buckets, and the region lines this run does not supersede */
	for (const char *p = s->metrics_base, *e = p ? p + s->metrics_base_len : NULL; p && p < e;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(e - p);
		int keep = 1;
		if (!strncmp(p, "region\t", 7)) {
			uint64_t id = strtoull(p + 7, NULL, 10);
			keep = !nids || !bsearch(&id, ids, nids, sizeof *ids, id_cmp);
		}
		if (keep)
			fwrite(p, 1, n, f);
		p += n;
	}
	for (rk__region *r = s->meta.all_regions; r; r = r->next_all) {
		fprintf(f, "region\t%" PRIu64 "\t%s\t%u\t", r->id, r->table->name, r->server);
		hex(f, r->start, r->start_len);
		fputc('\t', f);
		if (r->end)
			hex(f, r->end, r->end_len);
		else
			fputc('-', f);
		fputc('\n', f);
	}
	for (rk__region *r = s->meta.all_regions; r && !rc; r = r->next_all)
		rc = rk_metrics__dump(&r->metrics, f, "r", r->id);
	for (unsigned i = 0; i < s->nservers && !rc; i++)
		rc = rk_metrics__dump(&s->servers[i].metrics, f, "s", i);
out:
	pthread_rwlock_unlock(&s->lock);
	free(ids);
	if (fclose(f) && !rc)
		rc = rk__err(RK_EIO, "metrics file %s: %s", tmp, strerror(errno));
	if (!rc && rename(tmp, path))
		rc = rk__err(RK_EIO, "metrics file %s: %s", path, strerror(errno));
	if (rc)
		unlink(tmp);
	return rc;
}

int rk_local__write_metrics(rk_store *st, const char *path)
{
	return rk_local__metrics_write((rk__local *)st, path);
}
