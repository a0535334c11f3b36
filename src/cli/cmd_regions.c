/*
 * rowkey regions: list regions (range, server, size, writes, reads), or
 * manage them: move one to another server, split one, balance the servers.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/served.h"
#include "cli/store_cli.h"

#define CMD "regions"

static void usage(FILE *f)
{
	fprintf(f, "usage: rowkey regions [options] [TABLE]\n"
	           "       rowkey regions [options] move REGION SERVER\n"
	           "       rowkey regions [options] split REGION [ROW]\n"
	           "       rowkey regions [options] balance\n\n"
	           "Lists the regions of every table (or TABLE): id, table, start, end, server,\n"
	           "estimated size, and the cells written to and read from each, as recorded in\n"
	           "DIR/metrics.tsv over every run (a region made by a split starts at zero; its\n"
	           "parent keeps the history). move copies a region to\n"
	           "another server; split cuts one at ROW or its middle key; balance evens\n"
	           "region counts across servers.\n\n"
	           "  --db DIR     store directory (default " RK_CLI_DEFAULT_DB ")\n"
	           "  --json       one JSON object per region\n"
	           "  -h, --help   this help\n");
}

typedef struct idx {
	uint64_t id;
	size_t i;
} idx;

static int idx_cmp(const void *a, const void *b)
{
	uint64_t x = ((const idx *)a)->id, y = ((const idx *)b)->id;
	return x < y ? -1 : x > y;
}

/* Adds the writes and reads recorded in DIR/metrics.tsv (earlier runs) to
 * the listed regions' in-process counters. */
static void add_history(rk_region_info *ri, size_t n, const char *db)
{
	char path[4200], line[1024];
	snprintf(path, sizeof path, "%s/metrics.tsv", db);
	FILE *f = fopen(path, "r");
	idx *x = n ? malloc(n * sizeof *x) : NULL;
	if (!f || !x) {
		if (f)
			fclose(f);
		free(x);
		return;
	}
	for (size_t i = 0; i < n; i++)
		x[i] = (idx){ri[i].id, i};
	qsort(x, n, sizeof *x, idx_cmp);
	while (fgets(line, sizeof line, f)) {
		unsigned long long id, w, r, bw, br;
		long long ts;
		if (sscanf(line, "r\t%llu\t%lld\t%llu\t%llu\t%llu\t%llu", &id, &ts, &w, &r, &bw, &br) !=
		    6)
			continue;
		idx key = {id, 0};
		idx *hit = bsearch(&key, x, n, sizeof *x, idx_cmp);
		if (hit) {
			ri[hit->i].writes += w;
			ri[hit->i].reads += r;
			ri[hit->i].bytes_written += bw;
			ri[hit->i].bytes_read += br;
		}
	}
	fclose(f);
	free(x);
}

static int list(rk_store *s, const char *table, int json, const char *db)
{
	rk_region_info *ri;
	size_t n;
	if (rk_store_regions(&ri, &n, s, table))
		return rk_cli_fail(CMD, "listing regions");
	add_history(ri, n, db);
	if (!json)
		printf("%-8s %-16s %-20s %-20s %6s %12s %10s %10s\n", "id", "table", "start", "end",
		       "server", "size", "writes", "reads");
	for (size_t i = 0; i < n; i++) {
		const rk_region_info *r = &ri[i];
		if (json) {
			printf("{\"id\":%llu,\"table\":\"%s\",\"start\":\"", (unsigned long long)r->id,
			       r->table);
			rk_cli__print_json_bytes(stdout, r->start, r->start_len);
			printf("\",\"end\":");
			if (r->end) {
				putchar('"');
				rk_cli__print_json_bytes(stdout, r->end, r->end_len);
				putchar('"');
			} else {
				printf("null");
			}
			printf(",\"server\":%u,\"size\":%llu,\"writes\":%llu,\"reads\":%llu}\n", r->server,
			       (unsigned long long)r->size_bytes, (unsigned long long)r->writes,
			       (unsigned long long)r->reads);
			continue;
		}
		char start[64], end[64];
		FILE *m = fmemopen(start, sizeof start, "w");
		rk_cli__print_bytes(m, r->start, r->start_len);
		fclose(m);
		start[sizeof start - 1] = 0;
		if (r->end) {
			m = fmemopen(end, sizeof end, "w");
			rk_cli__print_bytes(m, r->end, r->end_len);
			fclose(m);
			end[sizeof end - 1] = 0;
		} else {
			strcpy(end, "(end)");
		}
		printf("%-8llu %-16s %-20s %-20s %6u %12llu %10llu %10llu\n", (unsigned long long)r->id,
		       r->table, r->start_len ? start : "(start)", end, r->server,
		       (unsigned long long)r->size_bytes, (unsigned long long)r->writes,
		       (unsigned long long)r->reads);
	}
	rk_region_info_free(ri, n);
	return RK_EXIT_OK;
}

/* A store held by rowkey serve: its regions and load as of the server's
 * last metrics rewrite (sizes are not recorded there). */
static int list_served(const char *db, const char *table, int json, long pid,
                       const char *listen)
{
	rk_cli_live_region *r;
	size_t n;
	double age;
	if (rk_cli__live_regions(&r, &n, &age, db, table))
		return rk_cli_fail(CMD, "reading the served store's metrics");
	fprintf(stderr,
	        "rowkey regions: %s is served by rowkey serve (pid %ld) at %s: regions and load "
	        "from its metrics, written %.0f s ago (sizes are not recorded there)\n",
	        db, pid, listen, age);
	if (!json)
		printf("%-8s %-16s %-20s %-20s %6s %12s %10s %10s\n", "id", "table", "start", "end",
		       "server", "size", "writes", "reads");
	for (size_t i = 0; i < n; i++) {
		if (json) {
			printf("{\"id\":%llu,\"table\":\"%s\",\"start\":\"", (unsigned long long)r[i].id,
			       r[i].table);
			rk_cli__print_json_bytes(stdout, r[i].start, r[i].start_len);
			printf("\",\"end\":");
			if (r[i].end) {
				putchar('"');
				rk_cli__print_json_bytes(stdout, r[i].end, r[i].end_len);
				putchar('"');
			} else {
				printf("null");
			}
			printf(",\"server\":%u,\"size\":null,\"writes\":%llu,\"reads\":%llu}\n",
			       r[i].server, (unsigned long long)r[i].writes,
			       (unsigned long long)r[i].reads);
			continue;
		}
		char start[64], end[64];
		FILE *m = fmemopen(start, sizeof start, "w");
		rk_cli__print_bytes(m, r[i].start, r[i].start_len);
		fclose(m);
		start[sizeof start - 1] = 0;
		if (r[i].end) {
			m = fmemopen(end, sizeof end, "w");
			rk_cli__print_bytes(m, r[i].end, r[i].end_len);
			fclose(m);
			end[sizeof end - 1] = 0;
		} else {
			strcpy(end, "(end)");
		}
		printf("%-8llu %-16s %-20s %-20s %6u %12s %10llu %10llu\n", (unsigned long long)r[i].id,
		       r[i].table, r[i].start_len ? start : "(start)", end, r[i].server, "-",
		       (unsigned long long)r[i].writes, (unsigned long long)r[i].reads);
	}
	rk_cli__live_regions_free(r, n);
	return RK_EXIT_OK;
}

int rk_cli_regions(int argc, char **argv)
{
	static const struct option lo[] = {
		{"db", required_argument, NULL, 'd'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *db = RK_CLI_DEFAULT_DB;
	int json = 0, c, rc;
	uint64_t id, v;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return RK_EXIT_OK;
		default:
			return rk_cli_usage_error(CMD, "unknown option");
		}
	}
	int nargs = argc - optind;
	const char *sub = nargs ? argv[optind] : NULL;
	if (sub && !strcmp(sub, "move")) {
		if (nargs != 3 || rk_cli__parse_u64(&id, argv[optind + 1]))
			return rk_cli_usage_error(CMD, "expected: move REGION SERVER (numbers)");
		if (rk_cli__parse_range(&v, CMD, "move's SERVER", argv[optind + 2], 0,
		                        RK_MAX_SERVERS - 1))
			return RK_EXIT_USAGE;
	} else if (sub && !strcmp(sub, "split")) {
		if (nargs < 2 || nargs > 3 || rk_cli__parse_u64(&id, argv[optind + 1]))
			return rk_cli_usage_error(CMD, "expected: split REGION [ROW]");
	} else if (sub && !strcmp(sub, "balance")) {
		if (nargs != 1)
			return rk_cli_usage_error(CMD, "balance takes no arguments");
	} else if (nargs > 1) {
		return rk_cli_usage_error(CMD, "expected at most one TABLE");
	}
	long pid;
	char listen[256];
	if ((!sub || nargs == 1) && !(sub && (!strcmp(sub, "balance"))) &&
	    rk_cli__served(db, &pid, listen, sizeof listen))
		return list_served(db, sub, json, pid, listen);
	rk_store *s = rk_cli__open_store(CMD, db, 0, NULL);
	if (!s)
		return RK_EXIT_FAIL;
	rc = RK_EXIT_OK;
	if (sub && !strcmp(sub, "move")) {
		if (rk_region_move(s, id, (unsigned)v))
			rc = rk_cli_fail(CMD, "moving the region");
		else
			printf("region %llu now on server %llu\n", (unsigned long long)id,
			       (unsigned long long)v);
	} else if (sub && !strcmp(sub, "split")) {
		uint8_t *at = NULL;
		size_t at_len = 0;
		if (nargs == 3 && rk_cli__unescape(&at, &at_len, argv[optind + 2])) {
			rk_store_close(s);
			return rk_cli_usage_error(CMD, "bad escape in '%s'", argv[optind + 2]);
		}
		if (rk_region_split(s, id, at, at_len))
			rc = rk_cli_fail(CMD, "splitting the region");
		else
			printf("region %llu split\n", (unsigned long long)id);
		free(at);
	} else if (sub && !strcmp(sub, "balance")) {
		size_t moved;
		if (rk_store_balance(&moved, s))
			rc = rk_cli_fail(CMD, "balancing");
		else
			printf("moved %zu region%s\n", moved, moved == 1 ? "" : "s");
	} else {
		rc = list(s, sub, json, db);
	}
	return rk_cli__close_store(CMD, s, rc);
}
