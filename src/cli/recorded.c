/*
 * The load a store recorded, for `rowkey regions` and `rowkey stats`
 * (recorded.h): the store's own record and key map (rowkey/metrics.h), the
 * sizes of an open store's regions, and "now", the load of each live
 * region's key range over the last seconds recorded, from the key buckets:
 * so a region shows where the load is now even when it was born after the
 * writes that made it (a split's halves start at zero).
 */
#include "cli/recorded.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "key/error.h"

/* the latest time the record reaches */
static int64_t record_end(const rk_metrics *m)
{
	int64_t end = 0;
	for (size_t i = 0; i < m->ntables; i++) {
		const rk_keyviz_table *t = &m->tables[i];
		if (t->niv) {
			int64_t e = t->iv[t->niv - 1].start_ms + (int64_t)t->iv[t->niv - 1].width_ms;
			end = e > end ? e : end;
		}
	}
	for (size_t i = 0; i < m->nserver_load; i++) {
		const rk_metrics_series *s = &m->server_load[i];
		if (s->n) {
			int64_t e = s->b[s->n - 1].start_ms + (int64_t)s->b[s->n - 1].width_ms;
			end = e > end ? e : end;
		}
	}
	if (!end) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		end = (int64_t)ts.tv_sec * 1000;
	}
	return end;
}

/* the live regions of table rows [i0, i1) get their load in the window */
static int now_of(rk_cli_record *R, size_t i0, size_t i1)
{
	size_t n = 0;
	rk_bytes *at = malloc((i1 - i0 + 1) * sizeof *at);
	size_t *which = malloc((i1 - i0 + 1) * sizeof *which);
	int rc = RK_ENOMEM;
	if (!at || !which)
		goto out;
	for (size_t i = i0; i < i1; i++)
		if (R->r[i].g->live) {
			at[n] = (rk_bytes){R->r[i].g->start, R->r[i].g->start_len};
			which[n++] = i;
		}
	rk_keymap_options o = RK_KEYMAP_OPTIONS_INIT;
	rk_keymap *k;
	o.from_ms = R->from_ms;
	o.to_ms = R->to_ms;
	o.max_cols = 1;
	o.rows_at = at;
	o.nrows_at = n;
	rc = n ? rk_metrics_keymap(&k, R->m, R->r[i0].g->table, &o) : RK_ENOTFOUND;
	if (rc == RK_ENOTFOUND) { /* no key buckets: "now" unknown */
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	/* the live regions start at distinct keys from the empty key: a row each */
	for (size_t j = 0; j < n && j < k->rows; j++) {
		rk_cli_region *x = &R->r[which[j]];
		x->has_now = 1;
		x->now = (rk_metrics_counts){k->writes[j], k->reads[j], k->bytes_written[j], k->bytes_read[j]};
	}
	rk_keymap_free(k);
out:
	free(at);
	free(which);
	return rc;
}

static int sizes(rk_cli_record *R, rk_store *s, const char *table)
{
	rk_region_info *ri;
	size_t n;
	int rc = rk_store_regions(&ri, &n, s, table);
	if (rc)
		return rc;
	for (size_t i = 0; i < R->n; i++)
		for (size_t j = 0; j < n; j++)
			if (ri[j].id == R->r[i].g->id) {
				R->r[i].has_size = 1;
				R->r[i].size = ri[j].size_bytes;
				break;
			}
	rk_region_info_free(ri, n);
	return 0;
}

int rk_cli__record(rk_cli_record *out, rk_store *s, const char *db, const char *table,
                   int retired, double window_s)
{
	memset(out, 0, sizeof *out);
	int rc = s ? rk_store_metrics(&out->m, s) : rk_metrics_read(&out->m, db);
	if (rc)
		return rc;
	rk_metrics *m = out->m;
	if (table && !rk_metrics_table(m, table)) {
		int known = 0;
		for (size_t i = 0; i < m->nregions && !known; i++)
			known = !strcmp(m->regions[i].table, table);
		if (!known) {
			rk_cli__record_free(out);
			return rk__err(RK_ENOTFOUND, "table %s does not exist in %s", table, db);
		}
	}
	out->to_ms = record_end(m);
	out->from_ms = out->to_ms - (int64_t)(window_s * 1000);
	if (!(out->r = calloc(m->nregions + 1, sizeof *out->r))) {
		rk_cli__record_free(out);
		return rk__err(RK_ENOMEM, "out of memory reading the recorded load");
	}
	for (size_t i = 0; i < m->nregions; i++)
		if ((!table || !strcmp(m->regions[i].table, table)) && (retired || m->regions[i].live))
			out->r[out->n++].g = &m->regions[i];
	for (size_t i0 = 0, i1; !rc && i0 < out->n; i0 = i1) {
		for (i1 = i0; i1 < out->n && !strcmp(out->r[i1].g->table, out->r[i0].g->table);)
			i1++;
		rc = now_of(out, i0, i1);
	}
	if (!rc && s)
		rc = sizes(out, s, table);
	if (rc)
		rk_cli__record_free(out);
	return rc;
}

void rk_cli__record_free(rk_cli_record *r)
{
	rk_metrics_free(r->m);
	free(r->r);
	memset(r, 0, sizeof *r);
}

rk__keytext *rk_cli__keytext(const rk_cli_record *r, const char *table)
{
	const rk_keyviz_table *t = rk_metrics_table(r->m, table);
	return rk__keytext_new(t ? t->schema : NULL);
}

const char *rk_cli__utc(char *buf, size_t cap, int64_t t, int with_date)
{
	time_t s = (time_t)(t / 1000);
	struct tm tm;
	if (!gmtime_r(&s, &tm) || !strftime(buf, cap, with_date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm))
		snprintf(buf, cap, "-");
	return buf;
}
