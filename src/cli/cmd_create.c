/*
 * rowkey create: make a table with column families and initial regions:
 * explicit split points, one region per salt bucket (--buckets), uniform
 * hex / decimal splits for hash-prefixed keys (HBase RegionSplitter), or
 * split points derived from a schema (--schema): one region per bucket of a
 * salted design, or N regions at quantiles of a hash prefix, found by
 * encoding sample records, so any bucket or prefix form works.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/splits.h"
#include "cli/store_cli.h"
#include "key/units.h"

#define CMD "create"

static const rk_cli_opt create_opts[] = {
	RK_CLI_OPT_DB,
	{"family", 'f', 'f', "F[:V]", RK_ARG_TEXT, NULL,
	 "a column family keeping V versions (default 1); repeatable"},
	{NULL, 0, 0, NULL, RK_ARG_NONE, NULL, "initial regions (choose one)"},
	{"split", 0, 's', "ROW", RK_ARG_TEXT, NULL, "a split point (\\xNN escapes allowed); repeatable"},
	{"splits", 0, 'F', "FILE", RK_ARG_FILE, NULL,
	 "split points, one a line in --split's form (what rowkey suggest --splits writes)"},
	{"buckets", 0, 'b', "N", RK_ARG_NUMBER, NULL,
	 "one region per salt bucket: N buckets of one byte (0x00..N-1), splits kept on bucket "
	 "boundaries"},
	{"decimal-buckets", 0, 'B', "N", RK_ARG_NUMBER, NULL,
	 "the same for zero-padded decimal buckets (\"00\"..)"},
	{"hex-splits", 0, 'x', "N", RK_ARG_NUMBER, NULL,
	 "N regions split uniformly over 8 hex digits (HBase HexStringSplit), for hex hash prefixes"},
	{"decimal-splits", 0, 'X', "N", RK_ARG_NUMBER, NULL,
	 "N regions split uniformly over 8 decimal digits"},
	{"schema", 0, 'S', "SCHEMA", RK_ARG_SCHEMA, NULL,
	 "derive the regions from a schema (file or text): one per salt bucket (splits then stay on "
	 "bucket boundaries), or with --regions N, N regions at quantiles of a hash prefix"},
	{"regions", 0, 'r', "N", RK_ARG_NUMBER, NULL, "regions for --schema designs with a hash prefix"},
	{NULL, 0, 0, NULL, RK_ARG_NONE, NULL, "a new store"},
	{"servers", 0, 'n', "N", RK_ARG_NUMBER, NULL, "region servers when the store is new (default 4)"},
	{"split-threshold", 0, 't', "SIZE", RK_ARG_SIZE, NULL,
	 "a region's size before it splits (default 256MiB; 0: never)"},
	{"server-capacity", 0, 'c', "R", RK_ARG_TEXT, NULL,
	 "what each region server applies per second, saved with the store: OPS[/s] (cells "
	 "written, regions a read visits) or SIZE[/s] of cell bytes (5MB/s, 64KiB/s); repeat for "
	 "both; 'off' removes the capacity"},
};

const rk_cli_spec rk_cli_spec_create = {
	"create",
	"[options] TABLE -f FAMILY[:VERSIONS]...",
	"Creates a table in the store (the store is created when missing), with its column "
	"families and its initial regions: explicit split points, one region per salt bucket, "
	"uniform hex or decimal splits for hash-prefixed keys (as HBase's RegionSplitter), or split "
	"points derived from a schema.\n\n" RK_CLI_EXIT_STATUS_TEXT,
	create_opts, RK_CLI_NOPTS(create_opts), RK_ARG_NONE, NULL,
	"  $ rowkey create --db /tmp/rk events -f d --split 4 --split 8 --split c\n"
	"  created table events: 1 family, 4 regions\n"
	"  $ rowkey create --db /tmp/rk ev -f d --buckets 8\n",
	"rowkey-load(1), rowkey-put(1), rowkey-regions(1)",
};

static int out_of_memory(void)
{
	fprintf(stderr, "rowkey " CMD ": out of memory for the split points\n");
	return RK_EXIT_FAIL;
}

/* "--server-capacity" text: N[/s] operations, SIZE[/s] bytes (a number with a
 * unit: rk__size_parse), or "off" (both unlimited). -1 on junk or 0. */
static int parse_capacity(rk_store_options *so, const char *text)
{
	if (!strcmp(text, "off")) {
		so->server_capacity_ops = so->server_capacity_bytes = RK_SERVER_CAPACITY_OFF;
		return 0;
	}
	size_t len = strcspn(text, "/");
	if (text[len] && strcmp(text + len, "/s"))
		return -1;
	size_t digits = strspn(text, "0123456789");
	uint64_t v;
	if (digits == len) { /* a bare count: operations */
		char *end;
		errno = 0;
		v = strtoull(text, &end, 10);
		if (!len || errno || v == 0 || v >= RK_SERVER_CAPACITY_OFF)
			return -1;
		so->server_capacity_ops = v;
		return 0;
	}
	if (rk__size_parse(&v, text, len, 1) < 0 || v == 0 || v >= RK_SERVER_CAPACITY_OFF)
		return -1;
	so->server_capacity_bytes = v;
	return 0;
}

static int digits(unsigned long long n)
{
	int d = 1;
	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* ---- the command ---- */

/* What the command line asks for, and the split points built from it. Every
 * family name and split point is malloc'd; create_args_free frees them on
 * every path. */
typedef struct create_args {
	const char *db, *schema_arg, *table;
	rk_family_def fams[255];
	char *fambuf[255];
	size_t nf;
	rk_bytes *sp;
	size_t nsp;
	uint64_t buckets, dbuckets, hex, dec, nregions;
	unsigned bpl; /* the bucket prefix splits stay on (rk_table_def), 0: none */
	rk_store_options so;
} create_args;

static void create_args_free(create_args *a)
{
	for (size_t i = 0; i < a->nf; i++)
		free(a->fambuf[i]);
	rk_cli__splits_free(a->sp, a->nsp);
}

/* -f F[:V]. The name is counted before V is checked, so that a bad V still
 * leaves it for create_args_free. */
static int add_family(create_args *a, const char *arg)
{
	uint64_t v;
	if (a->nf == 255)
		return rk_cli_usage_error(CMD, "too many families");
	char *f = strdup(arg), *colon = f ? strchr(f, ':') : NULL;
	if (!f)
		return out_of_memory();
	rk_family_def *d = &a->fams[a->nf];
	a->fambuf[a->nf++] = f;
	d->name = f;
	d->max_versions = 1;
	d->gc = NULL;
	if (colon) {
		*colon = 0;
		if (rk_cli__parse_u64(&v, colon + 1) || v < 1 || v > 1000000)
			return rk_cli_usage_error(CMD, "bad version count in --family %s", arg);
		d->max_versions = (unsigned)v;
	}
	return 0;
}

/* --buckets, --decimal-buckets, --hex-splits or --decimal-splits N (option
 * key c). */
static int set_count(create_args *a, int c, const char *arg)
{
	uint64_t v;
	if (rk_cli__parse_u64(&v, arg) || v < 1 || v > (c == 'b' ? 256 : 100000))
		return rk_cli_usage_error(CMD, "bad count '%s' for --%s", arg,
		                          c == 'b' ? "buckets" : c == 'B' ? "decimal-buckets"
		                                             : c == 'x' ? "hex-splits"
		                                                        : "decimal-splits");
	*(c == 'b' ? &a->buckets : c == 'B' ? &a->dbuckets : c == 'x' ? &a->hex : &a->dec) = v;
	return 0;
}

/* One option (rk_cli_getopt's key c other than --help): 0, or nonzero after
 * saying why it is wrong. */
static int parse_option(create_args *a, int c, const char *arg)
{
	uint64_t v;
	uint8_t *p;
	size_t len;
	switch (c) {
	case 'd': a->db = arg; return 0;
	case 'f': return add_family(a, arg);
	case 's':
		if (rk_cli__unescape(&p, &len, arg) || rk_cli__split_add(&a->sp, &a->nsp, p, len))
			return rk_cli_usage_error(CMD, "bad split point '%s' (escapes are \\xNN and \\\\)", arg);
		return 0;
	case 'F': return rk_cli__splits_read(&a->sp, &a->nsp, arg, CMD);
	case 'b':
	case 'B':
	case 'x':
	case 'X': return set_count(a, c, arg);
	case 'S': a->schema_arg = arg; return 0;
	case 'r':
		if (rk_cli__parse_u64(&a->nregions, arg) || a->nregions < 1 || a->nregions > 100000)
			return rk_cli_usage_error(CMD, "bad region count '%s' (1..100000)", arg);
		return 0;
	case 'n':
		if (rk_cli__parse_u64(&v, arg) || v < 1 || v > RK_MAX_SERVERS)
			return rk_cli_usage_error(CMD, "bad server count '%s' (1..%u)", arg, RK_MAX_SERVERS);
		a->so.n_servers = (unsigned)v;
		return 0;
	case 't':
		return rk_cli__parse_size(&a->so.split_threshold, CMD, "split-threshold", arg, 1, 0,
		                          UINT64_MAX);
	case 'c':
		if (parse_capacity(&a->so, arg))
			return rk_cli_usage_error(CMD, "bad --server-capacity '%s' (e.g. 2000/s, 5MB/s, 64KiB/s, off)",
			                          arg);
		return 0;
	default: /* rk_cli_getopt said why */
		return RK_EXIT_USAGE;
	}
}

/* Returns -1 to go on, else the exit status (help given, or a usage error
 * said). */
static int parse_args(create_args *a, int argc, char **argv)
{
	int c;
	while ((c = rk_cli_getopt(&rk_cli_spec_create, argc, argv, NULL)) != -1) {
		if (c == 'h') {
			rk_cli_help(&rk_cli_spec_create, stdout);
			return RK_EXIT_OK;
		}
		if (parse_option(a, c, optarg))
			return RK_EXIT_USAGE;
	}
	if (optind + 1 != argc)
		return rk_cli_usage_error(CMD, "expected one TABLE argument");
	if (a->nf == 0)
		return rk_cli_usage_error(CMD, "a table needs at least one family (-f NAME)");
	if ((a->nsp != 0) + (a->buckets != 0) + (a->dbuckets != 0) + (a->hex != 0) + (a->dec != 0) +
	        (a->schema_arg != NULL) >
	    1)
		return rk_cli_usage_error(CMD, "choose one of --split, --buckets, --decimal-buckets, "
		                               "--hex-splits, --decimal-splits, --schema");
	if (a->nregions && !a->schema_arg)
		return rk_cli_usage_error(CMD, "--regions goes with --schema");
	a->table = argv[optind];
	return -1;
}

/* --schema: the split points its salt or hash prefix gives. Returns 0 or the
 * exit status. */
static int schema_splits(create_args *a)
{
	rk_schema *sc;
	rk_schema_info info;
	int rc;
	if (rk_schema_load(&sc, a->schema_arg))
		return rk_cli_fail(CMD, "reading the schema");
	rk_schema_get_info(&info, sc);
	if (info.prefix_len == 0) {
		fprintf(stderr, "rowkey create: the schema has no salt or hash prefix to derive "
		                "regions from; give --split points instead\n");
		rc = RK_EXIT_FAIL;
	} else {
		rc = rk_cli__schema_splits(&a->sp, &a->nsp, &a->bpl, sc, a->nregions, CMD);
	}
	rk_schema_free(sc);
	return rc;
}

/* --buckets, --decimal-buckets, --hex-splits, --decimal-splits: split points
 * that follow from the count alone. 0 or the exit status. */
static int counted_splits(create_args *a)
{
	char t[32];
	int bad = 0;
	for (uint64_t i = 1; i < a->buckets && !bad; i++) {
		uint8_t b = (uint8_t)i;
		bad = rk_cli__split_add_copy(&a->sp, &a->nsp, &b, 1);
		a->bpl = 1;
	}
	if (a->dbuckets) {
		int w = digits(a->dbuckets - 1) & 31; /* at most 20: a u64's digits */
		a->bpl = (unsigned)w;
		for (uint64_t i = 1; i < a->dbuckets && !bad; i++) {
			snprintf(t, sizeof t, "%0*llu", w, (unsigned long long)i);
			bad = rk_cli__split_add_copy(&a->sp, &a->nsp, t, (size_t)w);
		}
	}
	for (uint64_t i = 1; i < a->hex && !bad; i++) {
		snprintf(t, sizeof t, "%08llx", (unsigned long long)(0xFFFFFFFFull / a->hex * i));
		bad = rk_cli__split_add_copy(&a->sp, &a->nsp, t, 8);
	}
	for (uint64_t i = 1; i < a->dec && !bad; i++) {
		snprintf(t, sizeof t, "%08llu", (unsigned long long)(99999999ull / a->dec * i));
		bad = rk_cli__split_add_copy(&a->sp, &a->nsp, t, 8);
	}
	return bad ? out_of_memory() : 0;
}

static int create_table(create_args *a)
{
	rk_store *s = rk_cli__open_store(CMD, a->db, 1, &a->so);
	if (!s)
		return RK_EXIT_FAIL;
	rk_table_def def = {a->table, a->fams, a->nf, a->sp, a->nsp, a->bpl};
	int rc = RK_EXIT_OK;
	if (rk_table_create(s, &def))
		rc = rk_cli_fail(CMD, "creating the table");
	else
		printf("created table %s: %zu famil%s, %zu region%s\n", a->table, a->nf,
		       a->nf == 1 ? "y" : "ies", a->nsp + 1, a->nsp ? "s" : "");
	char done[320];
	snprintf(done, sizeof done, "table %s was created", a->table);
	return rk_cli__close_store_after(CMD, s, rc, done);
}

int rk_cli_create(int argc, char **argv)
{
	create_args a = {.db = RK_CLI_DEFAULT_DB, .so = RK_STORE_OPTIONS_INIT};
	int rc = parse_args(&a, argc, argv);
	if (rc < 0) {
		rc = a.schema_arg ? schema_splits(&a) : 0;
		if (rc == 0 && (rc = counted_splits(&a)) == 0)
			rc = create_table(&a);
	}
	create_args_free(&a);
	return rc;
}
