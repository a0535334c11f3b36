/*
 * rowkey stats: a summary of the store: tables, regions per server, sizes,
 * and the load each table and server took, as the store recorded it
 * (rowkey/metrics.h): over every run, and now (the last seconds recorded).
 * A served store is read from the metrics its server rewrites every 5 s.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/recorded.h"
#include "cli/served.h"
#include "cli/store_cli.h"
#include "key/units.h"

#define CMD "stats"

static const rk_cli_opt stats_opts[] = {
	RK_CLI_OPT_DB,
	{"window", 0, 'w', "S", RK_ARG_NUMBER, NULL, "seconds \"now\" covers (default 60)"},
	{"tables", 0, 'T', NULL, RK_ARG_NONE, NULL, "print only the table names, one a line"},
};

const rk_cli_spec rk_cli_spec_stats = {
	"stats",
	"[options]",
	"Prints the store's tables and region servers: regions, estimated sizes, and the load the "
	"store recorded (DIR/metrics.tsv, over every run of the store): per table the rows written "
	"and read (key buckets), per server the cells and bytes, each also per second over the "
	"last seconds recorded (\"now\").",
	stats_opts, RK_CLI_NOPTS(stats_opts), RK_ARG_NONE, NULL,
	"  $ rowkey stats --db /tmp/rk\n",
	"rowkey-regions(1), rowkey-heatmap(1), rowkey-keyviz(1)",
};

/* --tables: the names alone, one a line (what shell completion offers). */
static int print_table_names(const char *db)
{
	rk_store *s = rk_cli__open_store(CMD, db, 0, NULL);
	rk_table_info *ti;
	size_t nt;
	if (!s)
		return RK_EXIT_FAIL;
	int rc = RK_EXIT_OK;
	if (rk_table_list(&ti, &nt, s)) {
		rc = rk_cli_fail(CMD, "listing tables");
	} else {
		for (size_t i = 0; i < nt; i++)
			printf("%s\n", ti[i].name);
		rk_table_info_free(ti, nt);
	}
	return rk_cli__close_store(CMD, s, rc);
}

typedef struct view {
	rk_cli_record R;
	int have;               /* a record was read */
	rk_table_info *ti;      /* an open store's tables */
	size_t nt;
	rk_server_info *si;
	size_t ns;
} view;

/* rows of a table's key buckets: in all, and in the window */
static void table_rows(const rk_cli_record *R, const char *table, rk_metrics_counts *all,
                       rk_metrics_counts *now)
{
	const rk_keyviz_table *t = rk_metrics_table(R->m, table);
	memset(all, 0, sizeof *all);
	memset(now, 0, sizeof *now);
	for (size_t i = 0; t && i < t->niv; i++)
		for (size_t c = 0; c < t->iv[i].ncells; c++) {
			const rk_metrics_counts *x = &t->iv[i].cells[c].c;
			all->writes += x->writes;
			all->reads += x->reads;
		}
	for (size_t i = 0; i < R->n; i++)
		if (R->r[i].has_now && !strcmp(R->r[i].g->table, table)) {
			now->writes += R->r[i].now.writes;
			now->reads += R->r[i].now.reads;
		}
}

/* Every number with its unit, in the one format of key/units.h. */
#define TABLE_ROW "%-20s %8s %10s %10s %15s %15s %16s %16s  "

/* The live regions of one table (name), or of one server (name NULL):
 * how many, and their size summed (*sized: any of them has one). */
static size_t regions_size(const view *V, const char *name, unsigned server, uint64_t *size,
                           int *sized)
{
	size_t nreg = 0;
	*size = 0;
	*sized = 0;
	for (size_t k = 0; k < V->R.n; k++)
		if (name ? !strcmp(V->R.r[k].g->table, name) : V->R.r[k].g->server == server) {
			nreg++;
			*size += V->R.r[k].size;
			*sized |= V->R.r[k].has_size;
		}
	return nreg;
}

static void print_tables(const view *V, double secs)
{
	printf(TABLE_ROW "%s\n", "table", "regions", "bucket_len", "size", "written", "read",
	       "now:written", "now:read", "families");
	const char *prev = NULL;
	for (size_t i = 0; i < V->R.n + V->nt; i++) {
		const char *name = V->nt ? (i < V->nt ? V->ti[i].name : NULL) : V->R.r[i].g->table;
		if (!name || (prev && !strcmp(prev, name)))
			continue;
		prev = name;
		uint64_t size;
		int sized;
		size_t nreg = regions_size(V, name, 0, &size, &sized);
		rk_metrics_counts all, now;
		table_rows(&V->R, name, &all, &now);
		char sz[RK_NUM_STR] = "-", nregs[24], bl[16] = "-", w[RK_NUM_STR] = "-", r[RK_NUM_STR] = "-";
		char nw[RK_NUM_STR] = "-", nr[RK_NUM_STR] = "-";
		if (sized)
			rk__size_str(sz, size);
		if (V->have && rk_metrics_table(V->R.m, name) && rk_metrics_table(V->R.m, name)->niv) {
			rk__count_str(w, all.writes, "rows");
			rk__count_str(r, all.reads, "rows");
			rk__rate_str(nw, (double)now.writes / secs, "rows");
			rk__rate_str(nr, (double)now.reads / secs, "rows");
		}
		if (V->nt) {
			nreg = V->ti[i].nregions;
			snprintf(bl, sizeof bl, "%u", V->ti[i].bucket_prefix_len);
		}
		snprintf(nregs, sizeof nregs, "%zu", nreg);
		printf(TABLE_ROW, name, nregs, bl, sz, w, r, nw, nr);
		for (size_t f = 0; V->nt && f < V->ti[i].nfamilies; f++)
			printf("%s%s(%u)", f ? " " : "", V->ti[i].families[f].name, V->ti[i].families[f].max_versions);
		printf(V->nt ? "\n" : "-\n");
	}
}

/* one server's cells: in all, and in the window */
static void server_cells(const rk_cli_record *R, unsigned id, rk_metrics_counts *all,
                         rk_metrics_counts *now)
{
	memset(all, 0, sizeof *all);
	memset(now, 0, sizeof *now);
	for (size_t i = 0; R->m && i < R->m->nserver_load; i++) {
		const rk_metrics_series *s = &R->m->server_load[i];
		if (s->id != id)
			continue;
		*all = s->total;
		for (size_t j = 0; j < s->n; j++)
			if (s->b[j].start_ms >= R->from_ms && s->b[j].start_ms < R->to_ms) {
				now->writes += s->b[j].c.writes;
				now->reads += s->b[j].c.reads;
			}
	}
}

#define SERVER_ROW "%-8s %8s %10s %16s %16s %13s %13s %17s %17s\n"

static void print_servers(const view *V, unsigned nsrv, double secs)
{
	printf("\n" SERVER_ROW, "server", "regions", "size", "written", "read", "written:size", "read:size",
	       "now:written", "now:read");
	for (unsigned i = 0; i < nsrv; i++) {
		uint64_t size;
		int sized;
		size_t nr = regions_size(V, NULL, i, &size, &sized);
		rk_metrics_counts all, now;
		server_cells(&V->R, i, &all, &now);
		char id[16], nregs[24], sz[RK_NUM_STR] = "-", w[RK_NUM_STR], r[RK_NUM_STR];
		char bw[RK_NUM_STR], br[RK_NUM_STR], nw[RK_NUM_STR], nrd[RK_NUM_STR];
		snprintf(id, sizeof id, "%u", i);
		snprintf(nregs, sizeof nregs, "%zu", V->ns ? V->si[i].nregions : nr);
		if (sized || V->ns)
			rk__size_str(sz, size);
		printf(SERVER_ROW, id, nregs, sz, rk__count_str(w, all.writes, "cells"),
		       rk__count_str(r, all.reads, "cells"), rk__size_str(bw, all.bytes_written),
		       rk__size_str(br, all.bytes_read), rk__rate_str(nw, (double)now.writes / secs, "cells"),
		       rk__rate_str(nrd, (double)now.reads / secs, "cells"));
	}
}

/* the span the record covers */
static void print_window(const view *V, double window)
{
	int64_t first = INT64_MAX;
	const rk_metrics *m = V->R.m;
	for (size_t i = 0; i < m->nserver_load; i++)
		if (m->server_load[i].n && m->server_load[i].b[0].start_ms < first)
			first = m->server_load[i].b[0].start_ms;
	for (size_t i = 0; i < m->ntables; i++)
		if (m->tables[i].niv && m->tables[i].iv[0].start_ms < first)
			first = m->tables[i].iv[0].start_ms;
	char a[32], b[32], c[32];
	if (first == INT64_MAX) {
		printf("load recorded: none yet (DIR/metrics.tsv is written when a store closes, and "
		       "every 5 s while served)\n\n");
		return;
	}
	printf("load recorded from %s to %s UTC over every run of the store; now: the last %.0f s "
	       "recorded, from %s UTC\n\n",
	       rk_cli__utc(a, sizeof a, first, 1), rk_cli__utc(b, sizeof b, V->R.to_ms, 1), window,
	       rk_cli__utc(c, sizeof c, V->R.from_ms, 0));
}

static int served(const char *db, long pid, const char *listen, double window)
{
	view V = {0};
	char path[4200];
	struct stat st;
	if (rk_cli__record(&V.R, NULL, db, NULL, 0, window))
		return rk_cli_fail(CMD, "reading the served store's metrics");
	snprintf(path, sizeof path, "%s/metrics.tsv", db);
	double age = stat(path, &st) == 0 ? difftime(time(NULL), st.st_mtime) : 0;
	size_t ntab = 0;
	for (size_t i = 0; i < V.R.n; i++)
		ntab += !i || strcmp(V.R.r[i].g->table, V.R.r[i - 1].g->table);
	printf("store %s: served by rowkey serve (pid %ld) at %s; from its metrics, written %.0f s "
	       "ago: %u region servers, %zu table%s, %zu region%s\n",
	       db, pid, listen, age, V.R.m->servers, ntab, ntab == 1 ? "" : "s", V.R.n,
	       V.R.n == 1 ? "" : "s");
	V.have = 1;
	print_window(&V, window);
	print_tables(&V, window);
	print_servers(&V, V.R.m->servers, window);
	rk_cli__record_free(&V.R);
	return RK_EXIT_OK;
}

static int opened(rk_store *s, const char *db, double window)
{
	view V = {0};
	int rc = rk_cli__record(&V.R, s, db, NULL, 0, window);
	V.have = rc == 0;
	if ((rc && rc != RK_EINVALID) || rk_table_list(&V.ti, &V.nt, s) || rk_store_servers(&V.si, &V.ns, s)) {
		rc = rk_cli_fail(CMD, "reading the store");
		goto out;
	}
	if (!V.have) { /* a backend that records no load: its regions only */
		rk_region_info *ri;
		size_t n;
		if (rk_store_regions(&ri, &n, s, NULL) == 0) {
			for (size_t i = 0; i < V.nt; i++)
				V.ti[i].nregions = 0;
			for (size_t k = 0; k < n; k++)
				for (size_t i = 0; i < V.nt; i++)
					V.ti[i].nregions += !strcmp(ri[k].table, V.ti[i].name);
			rk_region_info_free(ri, n);
		}
	}
	size_t nr = 0;
	for (size_t i = 0; i < V.nt; i++)
		nr += V.ti[i].nregions;
	printf("store %s: %zu region servers, %zu table%s, %zu region%s\n", db, V.ns, V.nt,
	       V.nt == 1 ? "" : "s", nr, nr == 1 ? "" : "s");
	if (V.ns && (V.si[0].capacity_ops || V.si[0].capacity_bytes)) {
		char n[RK_NUM_STR];
		printf("each region server's capacity:");
		if (V.si[0].capacity_ops)
			printf(" %s", rk__rate_str(n, (double)V.si[0].capacity_ops, "ops"));
		if (V.si[0].capacity_bytes)
			printf("%s %s/s", V.si[0].capacity_ops ? "," : "", rk__size_str(n, V.si[0].capacity_bytes));
		printf("\n");
	}
	if (V.have)
		print_window(&V, window);
	else
		printf("(Bigtable keeps no per-server metrics here; see the Cloud console)\n\n");
	print_tables(&V, window);
	if (V.have)
		print_servers(&V, (unsigned)V.ns, window);
	rc = RK_EXIT_OK;
out:
	if (V.have)
		rk_cli__record_free(&V.R);
	rk_table_info_free(V.ti, V.nt);
	free(V.si);
	return rk_cli__close_store(CMD, s, rc);
}

int rk_cli_stats(int argc, char **argv)
{
	const char *db = RK_CLI_DEFAULT_DB;
	uint64_t window = 60;
	int c, names = 0;
	while ((c = rk_cli_getopt(&rk_cli_spec_stats, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'w':
			if (rk_cli__parse_u64(&window, optarg) || window < 1 || window > 86400 * 366)
				return rk_cli_usage_error(CMD, "--window: '%s' is not 1..31622400 seconds", optarg);
			break;
		case 'T':
			names = 1;
			break;
		case 'h':
			rk_cli_help(&rk_cli_spec_stats, stdout);
			return RK_EXIT_OK;
		default: /* rk_cli_getopt said why */
			return RK_EXIT_USAGE;
		}
	}
	if (optind != argc)
		return rk_cli_usage_error(CMD, "no arguments expected");
	if (names)
		return print_table_names(db);
	long pid;
	char listen[256];
	if (rk_cli__served(db, &pid, listen, sizeof listen))
		return served(db, pid, listen, (double)window);
	rk_store *s = rk_cli__open_store(CMD, db, 0, NULL);
	if (!s)
		return RK_EXIT_FAIL;
	return opened(s, db, (double)window);
}
