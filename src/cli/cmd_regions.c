/*
 * rowkey regions: list regions (server, size, their load since born and
 * now, their key range decoded), or manage them: move one to another
 * server, split one, balance the servers.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/recorded.h"
#include "cli/served.h"
#include "cli/store_cli.h"
#include "key/units.h"

#define CMD "regions"

static const rk_cli_opt regions_opts[] = {
	RK_CLI_OPT_DB,
	{"json", 0, 'j', NULL, RK_ARG_NONE, NULL,
	 "one JSON object per region (keys as hex and their fields): the stable form for scripts, "
	 "where the table's columns may change"},
	{"retired", 0, 'r', NULL, RK_ARG_NONE, NULL, "the regions retired by splits too"},
	{"window", 0, 'w', "S", RK_ARG_NUMBER, NULL, "seconds \"now\" covers (default 60)"},
};

const rk_cli_spec rk_cli_spec_regions = {
	"regions",
	"[options] [TABLE]\n"
	"[options] move REGION SERVER\n"
	"[options] split REGION [ROW]\n"
	"[options] balance",
	"Lists the live regions of every table (or TABLE): id, table, server, estimated size, the "
	"cells written to and read from each since it was born (over every run, from "
	"DIR/metrics.tsv), when it was born, and the rows per second its key range takes now (the "
	"last seconds recorded, from the store's key buckets), its key range through the table's "
	"schema. A split's halves are born with it and start at zero; a moved region keeps its "
	"history. What a backend does not say (Bigtable reports neither load nor servers) is "
	"shown as -, and is null in JSON.\n\n"
	"Scripts read --json: its members keep their names and meaning from release to release, "
	"while the table is for people and its columns may change.\n\n"
	"move copies a region to another server; split cuts one at ROW or at its middle key; "
	"balance evens region counts across the servers.\n\n" RK_CLI_EXIT_STATUS_TEXT,
	regions_opts, RK_CLI_NOPTS(regions_opts), RK_ARG_TABLE, "move split balance",
	"  $ rowkey regions --db /tmp/rk events\n"
	"  $ rowkey regions --db /tmp/rk split 3\n",
	"rowkey-stats(1), rowkey-heatmap(1), rowkey-keyviz(1)",
};

/* Every number with its unit, in the one format of key/units.h. */
#define ROW "%-8s %-16s %6s %10s %16s %16s %16s %16s  %-19s  %s"

static void header(void)
{
	printf(ROW "\n", "id", "table", "server", "size", "written", "read", "now:written",
	       "now:read", "born(UTC)", "start .. end");
}

static void key_json(rk__keytext *kt, const uint8_t *k, size_t n, int present)
{
	if (present)
		rk__keytext_json(stdout, kt, k, n);
	else
		fputs("null", stdout);
}

static void print_json(const rk_cli_region *x, const rk_cli_record *R, rk__keytext *kt)
{
	const rk_metrics_region *g = x->g;
	double secs = (double)(R->to_ms - R->from_ms) / 1000.0;
	rk_metrics_counts z = {0}, c = g->load ? g->load->total : z;
	printf("{\"id\":%llu,\"table\":\"%s\",\"state\":\"%s\",\"server\":", (unsigned long long)g->id,
	       g->table, g->live ? "live" : "retired");
	x->no_load ? printf("null") : printf("%u", g->server);
	printf(",\"size_bytes\":");
	x->has_size ? printf("%llu", (unsigned long long)x->size) : printf("null");
	g->born_ms ? printf(",\"born_ms\":%lld", (long long)g->born_ms) : printf(",\"born_ms\":null");
	printf(",\"start\":");
	key_json(kt, g->start, g->start_len, 1);
	printf(",\"end\":");
	key_json(kt, g->end, g->end_len, g->end != NULL);
	if (x->no_load)
		printf(",\"since_born\":null");
	else
		printf(",\"since_born\":{\"unit\":\"cells\",\"writes\":%llu,\"reads\":%llu,"
		       "\"bytes_written\":%llu,\"bytes_read\":%llu}",
		       (unsigned long long)c.writes, (unsigned long long)c.reads,
		       (unsigned long long)c.bytes_written, (unsigned long long)c.bytes_read);
	if (x->has_now)
		printf(",\"now\":{\"unit\":\"rows\",\"from_ms\":%lld,\"to_ms\":%lld,\"writes\":%llu,"
		       "\"reads\":%llu,\"bytes_written\":%llu,\"bytes_read\":%llu,\"writes_per_s\":%.3f,"
		       "\"reads_per_s\":%.3f}}\n",
		       (long long)R->from_ms, (long long)R->to_ms, (unsigned long long)x->now.writes,
		       (unsigned long long)x->now.reads, (unsigned long long)x->now.bytes_written,
		       (unsigned long long)x->now.bytes_read, (double)x->now.writes / secs,
		       (double)x->now.reads / secs);
	else
		printf(",\"now\":null}\n");
}

static void print_text(const rk_cli_region *x, const rk_cli_record *R, rk__keytext *kt)
{
	const rk_metrics_region *g = x->g;
	double secs = (double)(R->to_ms - R->from_ms) / 1000.0;
	rk_metrics_counts z = {0}, c = g->load ? g->load->total : z;
	char id[24], srv[16], size[RK_NUM_STR] = "-", w[RK_NUM_STR] = "-", r[RK_NUM_STR] = "-";
	char nw[RK_NUM_STR] = "-", nr[RK_NUM_STR] = "-", born[32] = "-", k0[200], k1[200];
	snprintf(id, sizeof id, "%llu", (unsigned long long)g->id);
	if (x->no_load)
		strcpy(srv, "-");
	else
		snprintf(srv, sizeof srv, "%u", g->server);
	if (x->has_size)
		rk__size_str(size, x->size);
	if (!x->no_load) {
		rk__count_str(w, c.writes, "cells");
		rk__count_str(r, c.reads, "cells");
	}
	if (x->has_now) {
		rk__rate_str(nw, (double)x->now.writes / secs, "rows");
		rk__rate_str(nr, (double)x->now.reads / secs, "rows");
	}
	if (g->born_ms)
		rk_cli__utc(born, sizeof born, g->born_ms, 1);
	rk__keytext_label(kt, k0, sizeof k0, g->start, g->start_len);
	rk__keytext_label(kt, k1, sizeof k1, g->end, g->end_len);
	printf(ROW " .. %s%s\n", id, g->table, srv, size, w, r, nw, nr, born,
	       g->start_len ? k0 : "(start)", g->end ? k1 : "(end)", g->live ? "" : "  (retired)");
}

/* The regions and their load, from the store's record (open, or served:
 * the metrics file its server rewrites every 5 s). 0 or the store's error. */
static int list(rk_store *s, const char *db, const char *table, int json, int retired,
                double window)
{
	rk_cli_record R;
	int rc = rk_cli__record(&R, s, db, table, retired, window);
	if (rc)
		return rc;
	rk__keytext *kt = NULL;
	if (!json)
		header();
	for (size_t i = 0; i < R.n; i++) {
		if (!i || strcmp(R.r[i].g->table, R.r[i - 1].g->table)) {
			rk__keytext_free(kt);
			if (!(kt = rk_cli__keytext(&R, R.r[i].g->table)))
				break;
		}
		(json ? print_json : print_text)(&R.r[i], &R, kt);
	}
	rk__keytext_free(kt);
	if (!json) {
		char a[32], b[32];
		printf("(written, read: cells since each region was born, every run of the store; now: rows "
		       "per second over the last %.0f s recorded, %s-%s UTC, from the key buckets)\n",
		       window, rk_cli__utc(a, sizeof a, R.from_ms, 0), rk_cli__utc(b, sizeof b, R.to_ms, 0));
	}
	rk_cli__record_free(&R);
	return 0;
}

/* A key reader through the schema `table` remembers (none, or unreadable:
 * keys as bytes, as the store's own listing shows them). */
static rk__keytext *plain_keytext(rk_store *s, const char *table)
{
	void *schema = NULL;
	size_t len;
	if (rk_store_table_prop_get(&schema, &len, s, table, "schema"))
		schema = NULL;
	rk__keytext *kt = rk__keytext_new(schema);
	free(schema);
	return kt;
}

/* A backend that records no load (Bigtable): its regions (tablets) only,
 * their keys through each table's schema. */
static int list_plain(rk_store *s, const char *table, int json)
{
	rk_region_info *ri;
	size_t n;
	if (rk_store_regions(&ri, &n, s, table))
		return rk_cli_fail(CMD, "listing regions");
	rk__keytext *kt = NULL;
	if (!json)
		header();
	for (size_t i = 0; i < n; i++) {
		if (!i || strcmp(ri[i].table, ri[i - 1].table)) {
			rk__keytext_free(kt);
			if (!(kt = plain_keytext(s, ri[i].table)))
				break;
		}
		rk_metrics_region g = {ri[i].id, ri[i].table, ri[i].server, ri[i].start, ri[i].start_len,
		                       ri[i].end, ri[i].end_len, 1, 0, NULL};
		rk_cli_region x = {&g, 1, ri[i].size_bytes, 0, {0}, 1};
		rk_cli_record R = {0};
		R.to_ms = 1;
		(json ? print_json : print_text)(&x, &R, kt);
	}
	rk__keytext_free(kt);
	if (!json)
		printf("(server, written, read, now: - where the backend does not say; size: its "
		       "estimate)\n");
	for (size_t i = 0; !json && i < n; i++) {
		if (i && !strcmp(ri[i].table, ri[i - 1].table))
			continue;
		/* after a rekey cutover a name answers from a table of another id,
		 * which is the one other Bigtable clients must open */
		char *id = rk_cli__bigtable_id(s, ri[i].table);
		if (id && strcmp(id, ri[i].table))
			printf("(table %s is Bigtable table %s: what cbt and the client libraries "
			       "open)\n", ri[i].table, id);
		free(id);
	}
	rk_region_info_free(ri, n);
	return RK_EXIT_OK;
}

typedef struct regions_args {
	const char *db, *sub; /* sub: move, split, balance, a TABLE or NULL */
	char **operands;      /* after sub */
	int json, retired, nargs;
	uint64_t id, server, window;
} regions_args;

/* A subcommand's operands: move REGION SERVER, split REGION [ROW], balance,
 * or one TABLE. 0 or the usage error's exit status. */
static int parse_operands(regions_args *a)
{
	const char *sub = a->sub;
	char **op = a->operands;
	if (sub && !strcmp(sub, "move")) {
		if (a->nargs != 3 || rk_cli__parse_u64(&a->id, op[0]))
			return rk_cli_usage_error(CMD, "expected: move REGION SERVER (numbers)");
		if (rk_cli__parse_range(&a->server, CMD, "move's SERVER", op[1], 0, RK_MAX_SERVERS - 1))
			return RK_EXIT_USAGE;
	} else if (sub && !strcmp(sub, "split")) {
		if (a->nargs < 2 || a->nargs > 3 || rk_cli__parse_u64(&a->id, op[0]))
			return rk_cli_usage_error(CMD, "expected: split REGION [ROW]");
	} else if (sub && !strcmp(sub, "balance")) {
		if (a->nargs != 1)
			return rk_cli_usage_error(CMD, "balance takes no arguments");
	} else if (a->nargs > 1) {
		return rk_cli_usage_error(CMD, "expected at most one TABLE");
	}
	return 0;
}

/* -1 to go on, else the exit status (help, a usage error). */
static int parse_args(regions_args *a, int argc, char **argv)
{
	int c;
	while ((c = rk_cli_getopt(&rk_cli_spec_regions, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'd': a->db = optarg; break;
		case 'j': a->json = 1; break;
		case 'r': a->retired = 1; break;
		case 'w':
			if (rk_cli__parse_u64(&a->window, optarg) || a->window < 1 || a->window > 86400 * 366)
				return rk_cli_usage_error(CMD, "--window: '%s' is not 1..31622400 seconds", optarg);
			break;
		case 'h':
			rk_cli_help(&rk_cli_spec_regions, stdout);
			return RK_EXIT_OK;
		default: /* rk_cli_getopt said why */
			return RK_EXIT_USAGE;
		}
	}
	a->nargs = argc - optind;
	a->sub = a->nargs ? argv[optind] : NULL;
	a->operands = argv + optind + 1;
	int rc = parse_operands(a);
	return rc ? rc : -1;
}

/* move, split or balance on the open store. */
static int change(rk_store *s, const regions_args *a)
{
	int rc = RK_EXIT_OK;
	if (!strcmp(a->sub, "move")) {
		if (rk_region_move(s, a->id, (unsigned)a->server))
			return rk_cli_fail(CMD, "moving the region");
		printf("region %llu now on server %llu\n", (unsigned long long)a->id,
		       (unsigned long long)a->server);
	} else if (!strcmp(a->sub, "split")) {
		uint8_t *at = NULL;
		size_t at_len = 0;
		if (a->nargs == 3 && rk_cli__unescape(&at, &at_len, a->operands[1]))
			return rk_cli_usage_error(CMD, "bad escape in '%s'", a->operands[1]);
		if (rk_region_split(s, a->id, at, at_len))
			rc = rk_cli_fail(CMD, "splitting the region");
		else
			printf("region %llu split\n", (unsigned long long)a->id);
		free(at);
	} else {
		size_t moved;
		if (rk_store_balance(&moved, s))
			return rk_cli_fail(CMD, "balancing");
		printf("moved %zu region%s\n", moved, moved == 1 ? "" : "s");
	}
	return rc;
}

static int is_change(const char *sub)
{
	return sub && (!strcmp(sub, "move") || !strcmp(sub, "split") || !strcmp(sub, "balance"));
}

/* A store that rowkey serve holds: its regions and load from the metrics
 * it writes. 0 when it is not served (*served 0). */
static int list_served(const regions_args *a, int *served)
{
	long pid;
	char listen[256];
	*served = 0;
	if (is_change(a->sub) || !rk_cli__served(a->db, &pid, listen, sizeof listen))
		return 0;
	*served = 1;
	fprintf(stderr,
	        "rowkey regions: %s is served by rowkey serve (pid %ld) at %s: regions and load "
	        "from the metrics it writes every 5 s (sizes are not recorded there)\n",
	        a->db, pid, listen);
	if (list(NULL, a->db, a->sub, a->json, a->retired, (double)a->window))
		return rk_cli_fail(CMD, "reading the served store's metrics");
	return RK_EXIT_OK;
}

int rk_cli_regions(int argc, char **argv)
{
	regions_args a = {.db = RK_CLI_DEFAULT_DB, .window = 60};
	int rc = parse_args(&a, argc, argv), served;
	if (rc >= 0)
		return rc;
	if ((rc = list_served(&a, &served)) != 0 || served)
		return rc;
	rk_store *s = rk_cli__open_store(CMD, a.db, 0, NULL);
	if (!s)
		return RK_EXIT_FAIL;
	if (is_change(a.sub))
		rc = change(s, &a);
	else if ((rc = list(s, a.db, a.sub, a.json, a.retired, (double)a.window)) != 0)
		/* RK_EINVALID: a backend that records no load (Bigtable) */
		rc = rc == RK_EINVALID ? list_plain(s, a.sub, a.json) : rk_cli_fail(CMD, "listing regions");
	const char *done = !is_change(a.sub)           ? NULL
	                   : !strcmp(a.sub, "move")  ? "the move was applied"
	                   : !strcmp(a.sub, "split") ? "the split was applied"
	                                             : "the balancing was applied";
	return rk_cli__close_store_after(CMD, s, rc, done);
}
