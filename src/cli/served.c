/*
 * Reading a served store from its SERVING note and metrics file (served.h).
 */
#include "cli/served.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "key/error.h"
#include "key/bytes.h"

int rk_cli__served(const char *dir, long *pid, char *listen, size_t cap)
{
	char path[4200], line[256];
	snprintf(path, sizeof path, "%s/SERVING", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fgets(line, sizeof line, f) && strncmp(line, "rowkey-serving 1", 16) == 0;
	*pid = 0;
	listen[0] = 0;
	while (ok && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "pid ", 4) == 0)
			*pid = strtol(line + 4, NULL, 10);
		else if (strncmp(line, "listen ", 7) == 0)
			snprintf(listen, cap, "%.200s", line + 7);
	}
	fclose(f);
	if (!ok || !listen[0])
		return 0;
	/* a note left by a killed server: the lock is free, the store opens */
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.create_if_missing = 0;
	o.background_splits = 0;
	rk_store *s;
	int rc = rk_store_open(&s, dir, &o);
	if (rc == 0) {
		rk_store_close(s);
		return 0;
	}
	return rc == RK_EBUSY;
}

void rk_cli__live_regions_free(rk_cli_live_region *r, size_t count)
{
	for (size_t i = 0; r && i < count; i++) {
		free(r[i].start);
		free(r[i].end);
	}
	free(r);
}

static int by_table_id(const void *a, const void *b)
{
	const rk_cli_live_region *x = a, *y = b;
	int c = strcmp(x->table, y->table);
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

int rk_cli__live_regions(rk_cli_live_region **out, size_t *count, double *age_s,
                         const char *dir, const char *table)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/metrics.tsv", dir);
	*out = NULL;
	*count = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return rk__err(RK_ENOTFOUND, "%s: %s (the server writes it every 5 s)", path,
		               strerror(errno));
	struct stat st;
	*age_s = fstat(fileno(f), &st) == 0 ? difftime(time(NULL), st.st_mtime) : 0;
	rk_cli_live_region *all = NULL;
	size_t n = 0, cap = 0;
	char *line = NULL;
	size_t lcap = 0;
	long lineno = 0;
	int rc = 0;
	ssize_t got;
	/* pass 1: every region line */
	while ((got = getline(&line, &lcap, f)) > 0) {
		lineno++;
		if (strncmp(line, "region\t", 7) != 0)
			continue;
		line[strcspn(line, "\n")] = 0;
		char *fld[6];
		int nf = 0;
		for (char *p = line, *tab; nf < 6; p = tab + 1) {
			fld[nf++] = p;
			if (!(tab = strchr(p, '\t')))
				break;
			*tab = 0;
		}
		if (nf != 6 || strlen(fld[2]) > RK_MAX_TABLE_NAME_LEN) {
			rc = rk__err(RK_ECORRUPT, "%s: line %ld: not a region line", path, lineno);
			break;
		}
		if (table && strcmp(fld[2], table) != 0)
			continue;
		if (n == cap) {
			size_t c2 = cap ? cap * 2 : 64;
			rk_cli_live_region *na = realloc(all, c2 * sizeof *na);
			if (!na) {
				rc = rk__err(RK_ENOMEM, "out of memory reading %s", path);
				break;
			}
			all = na;
			cap = c2;
		}
		rk_cli_live_region *r = &all[n];
		memset(r, 0, sizeof *r);
		r->id = strtoull(fld[1], NULL, 10);
		snprintf(r->table, sizeof r->table, "%s", fld[2]);
		r->server = (unsigned)strtoul(fld[3], NULL, 10);
		n++;
		if (rk__unhex(&r->start, &r->start_len, fld[4], strlen(fld[4])) ||
		    (strcmp(fld[5], "-") != 0 && rk__unhex(&r->end, &r->end_len, fld[5], strlen(fld[5])))) {
			rc = rk__err(RK_ECORRUPT, "%s: line %ld: a region bound is not hex", path, lineno);
			break;
		}
	}
	if (rc) {
		fclose(f);
		free(line);
		rk_cli__live_regions_free(all, n);
		return rc;
	}
	/* the live chain of each table: from the first key, the newest region
	 * starting there, then from its end, until an unbounded one */
	qsort(all, n, sizeof *all, by_table_id);
	rk_cli_live_region *live = calloc(n ? n : 1, sizeof *live);
	char *used = calloc(n ? n : 1, 1);
	size_t nl = 0;
	if (!live || !used)
		rc = rk__err(RK_ENOMEM, "out of memory reading %s", path);
	for (size_t t0 = 0; !rc && t0 < n;) {
		size_t t1 = t0;
		while (t1 < n && !strcmp(all[t1].table, all[t0].table))
			t1++;
		const uint8_t *at = (const uint8_t *)"";
		size_t at_len = 0;
		for (size_t steps = 0; steps <= t1 - t0; steps++) {
			size_t best = SIZE_MAX;
			for (size_t i = t0; i < t1; i++)
				if (!rk__bytes_cmp(all[i].start, all[i].start_len, at, at_len) &&
				    (best == SIZE_MAX || all[i].id > all[best].id))
					best = i;
			if (best == SIZE_MAX || used[best])
				break;
			used[best] = 1;
			live[nl++] = all[best];
			if (!all[best].end)
				break;
			at = all[best].end;
			at_len = all[best].end_len;
		}
		t0 = t1;
	}
	/* pass 2: the load of each live region, every run's */
	rewind(f);
	while (!rc && getline(&line, &lcap, f) > 0) {
		unsigned long long id, w, r, bw, br;
		long long ts;
		if (sscanf(line, "r\t%llu\t%lld\t%llu\t%llu\t%llu\t%llu", &id, &ts, &w, &r, &bw, &br) != 6)
			continue;
		for (size_t i = 0; i < nl; i++)
			if (live[i].id == id) {
				live[i].writes += w;
				live[i].reads += r;
				live[i].bytes_written += bw;
				live[i].bytes_read += br;
			}
	}
	fclose(f);
	free(line);
	for (size_t i = 0; i < n; i++)
		if (!used || !used[i]) {
			free(all[i].start);
			free(all[i].end);
		}
	free(all);
	free(used);
	if (rc) {
		rk_cli__live_regions_free(live, nl);
		return rc;
	}
	*out = live;
	*count = nl;
	return 0;
}
