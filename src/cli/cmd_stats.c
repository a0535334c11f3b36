/*
 * rowkey stats: a summary of the store: tables, regions per server, sizes,
 * and the load each server and table took over the runs recorded in the
 * metrics file (DIR/metrics.tsv, written whenever the store closes).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/served.h"
#include "cli/store_cli.h"

#define CMD "stats"

static void usage(FILE *f)
{
	fprintf(f, "usage: rowkey stats [options]\n\n"
	           "Prints the store's tables and, per region server, its regions, their\n"
	           "estimated size, and the writes and reads recorded in the metrics file over\n"
	           "every run of the store.\n\n"
	           "  --db DIR     store directory (default " RK_CLI_DEFAULT_DB ")\n"
	           "  -h, --help   this help\n");
}


int rk_cli_stats(int argc, char **argv)
{
	static const struct option lo[] = {
		{"db", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *db = RK_CLI_DEFAULT_DB;
	int c;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'h':
			usage(stdout);
			return RK_EXIT_OK;
		default:
			return rk_cli_usage_error(CMD, "unknown option");
		}
	}
	if (optind != argc)
		return rk_cli_usage_error(CMD, "no arguments expected");

	/* the metrics file accumulates every run's buckets (read before this run adds its own) */
	char path[4200];
	snprintf(path, sizeof path, "%s/metrics.tsv", db);
	unsigned long long sw[RK_MAX_SERVERS] = {0}, sr[RK_MAX_SERVERS] = {0};
	unsigned long long sbw[RK_MAX_SERVERS] = {0}, sbr[RK_MAX_SERVERS] = {0};
	long long first = -1, last = -1;
	int have_metrics = 0;
	unsigned file_servers = 0; /* the header's servers=N */
	FILE *mf = fopen(path, "r");
	if (mf) {
		char line[1024];
		while (fgets(line, sizeof line, mf)) {
			unsigned id;
			if (sscanf(line, "# rowkey metrics v1 bucket_ms=%*u servers=%u", &id) == 1 &&
			    id <= RK_MAX_SERVERS)
				file_servers = id;
			long long t;
			unsigned long long w, r, bw, br;
			if (sscanf(line, "s\t%u\t%lld\t%llu\t%llu\t%llu\t%llu", &id, &t, &w, &r, &bw, &br) ==
			        6 &&
			    id < RK_MAX_SERVERS) {
				sw[id] += w;
				sr[id] += r;
				sbw[id] += bw;
				sbr[id] += br;
				if (first < 0 || t < first)
					first = t;
				if (t > last)
					last = t;
				have_metrics = 1;
			}
		}
		fclose(mf);
	}

	long pid;
	char listen[256];
	if (rk_cli__served(db, &pid, listen, sizeof listen)) {
		/* held by rowkey serve: what its metrics say, live */
		rk_cli_live_region *lr;
		size_t nl;
		double age;
		if (rk_cli__live_regions(&lr, &nl, &age, db, NULL))
			return rk_cli_fail(CMD, "reading the served store's metrics");
		unsigned nsrv = file_servers;
		size_t ntab = 0;
		for (size_t i = 0; i < nl; i++) {
			if (lr[i].server + 1 > nsrv)
				nsrv = lr[i].server + 1;
			if (!i || strcmp(lr[i].table, lr[i - 1].table))
				ntab++;
		}
		for (unsigned i = 0; i < RK_MAX_SERVERS; i++)
			if ((sw[i] || sr[i]) && i + 1 > nsrv)
				nsrv = i + 1;
		printf("store %s: served by rowkey serve (pid %ld) at %s; from its metrics, written "
		       "%.0f s ago: %zu table%s, %zu region%s\n\n",
		       db, pid, listen, age, ntab, ntab == 1 ? "" : "s", nl, nl == 1 ? "" : "s");
		printf("%-20s %9s\n", "table", "regions");
		for (size_t i = 0; i < nl;) {
			size_t j = i;
			while (j < nl && !strcmp(lr[j].table, lr[i].table))
				j++;
			printf("%-20s %9zu\n", lr[i].table, j - i);
			i = j;
		}
		printf("\n%-8s %8s %12s %12s %14s %14s\n", "server", "regions", "writes", "reads",
		       "bytes_written", "bytes_read");
		for (unsigned i = 0; i < nsrv && i < RK_MAX_SERVERS; i++) {
			size_t nr = 0;
			for (size_t k = 0; k < nl; k++)
				nr += lr[k].server == i;
			printf("%-8u %8zu %12llu %12llu %14llu %14llu\n", i, nr, sw[i], sr[i], sbw[i],
			       sbr[i]);
		}
		rk_cli__live_regions_free(lr, nl);
		return RK_EXIT_OK;
	}
	rk_store *s = rk_cli__open_store(CMD, db, 0, NULL);
	if (!s)
		return RK_EXIT_FAIL;
	int rc = RK_EXIT_OK;
	rk_table_info *ti = NULL;
	rk_region_info *ri = NULL;
	rk_server_info *si = NULL;
	size_t nt = 0, nr = 0, ns = 0;
	if (rk_table_list(&ti, &nt, s) || rk_store_regions(&ri, &nr, s, NULL) ||
	    rk_store_servers(&si, &ns, s)) {
		rc = rk_cli_fail(CMD, "reading the store");
		goto out;
	}
	printf("store %s: %zu region servers, %zu table%s, %zu region%s\n\n", db, ns, nt,
	       nt == 1 ? "" : "s", nr, nr == 1 ? "" : "s");
	if (ns && (si[0].capacity_ops || si[0].capacity_bytes)) {
		printf("each region server's capacity:");
		if (si[0].capacity_ops)
			printf(" %llu ops/s", (unsigned long long)si[0].capacity_ops);
		if (si[0].capacity_bytes)
			printf(" %llu bytes/s", (unsigned long long)si[0].capacity_bytes);
		printf("\n\n");
	}
	printf("%-20s %9s %10s %14s  %s\n", "table", "regions", "bucket_len", "size", "families");
	for (size_t i = 0; i < nt; i++) {
		unsigned long long size = 0;
		for (size_t k = 0; k < nr; k++)
			if (!strcmp(ri[k].table, ti[i].name))
				size += ri[k].size_bytes;
		printf("%-20s %9zu %10u %14llu  ", ti[i].name, ti[i].nregions, ti[i].bucket_prefix_len,
		       size);
		for (size_t f = 0; f < ti[i].nfamilies; f++)
			printf("%s%s(%u)", f ? " " : "", ti[i].families[f].name,
			       ti[i].families[f].max_versions);
		printf("\n");
	}
	printf("\n%-8s %8s %14s %12s %12s %14s %14s\n", "server", "regions", "size", "writes",
	       "reads", "bytes_written", "bytes_read");
	for (size_t i = 0; i < ns; i++) {
		unsigned long long size = 0;
		for (size_t k = 0; k < nr; k++)
			if (ri[k].server == si[i].id)
				size += ri[k].size_bytes;
		printf("%-8u %8zu %14llu %12llu %12llu %14llu %14llu\n", si[i].id, si[i].nregions, size,
		       sw[i], sr[i], sbw[i], sbr[i]);
	}
	if (have_metrics)
		printf("\nload from %s over %.1f s of recorded buckets\n", path,
		       (double)(last - first) / 1000.0 + 1.0);
	else
		printf(strncmp(db, "bigtable://", 11) ? "\n(no metrics recorded yet: %s is written when a store closes)\n"
		                                       : "\n(Bigtable keeps no per-server metrics here; see the Cloud console)%.0s\n",
		       path);
out:
	rk_table_info_free(ti, nt);
	rk_region_info_free(ri, nr);
	free(si);
	return rk_cli__close_store(CMD, s, rc);
}
