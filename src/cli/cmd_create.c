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

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static size_t sort_len; /* prefix length for prefix_cmp (the CLI is single-threaded) */

static int prefix_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sort_len);
}

/* Encodes random records and returns their key prefixes (plen bytes each,
 * *n of them, malloc'd). Records the design rejects are skipped. */
static int sample_prefixes(uint8_t **out, size_t *n, const rk_schema *sc, size_t plen,
                           size_t want, int distinct)
{
	size_t nf = rk_schema_nfields(sc), maxkey = rk_schema_max_key_len(sc), got = 0;
	rk_encoder *enc = NULL;
	rk_value *v = calloc(nf ? nf : 1, sizeof *v);
	char (*str)[17] = calloc(nf ? nf : 1, sizeof *str);
	uint8_t *key = malloc(maxkey ? maxkey : 1), *pre = malloc(want * plen + 1);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int rc = -1;
	if (!v || !str || !key || !pre || rk_encoder_new(&enc, sc, 1))
		goto out;
	for (size_t attempt = 0; attempt < 200000 && got < want; attempt++) {
		for (size_t i = 0; i < nf; i++) {
			uint64_t r = rng_next(&x);
			v[i].present = 1;
			switch (rk_schema_field_type(sc, i)) {
			case RK_T_U8: v[i].v.u = r & 0xFF; break;
			case RK_T_U16: v[i].v.u = r & 0xFFFF; break;
			case RK_T_U32: v[i].v.u = r & 0xFFFFFFFF; break;
			case RK_T_U64: v[i].v.u = r >> 1; break;
			case RK_T_I8: v[i].v.i = (int64_t)(r & 0x7F); break;
			case RK_T_I16: v[i].v.i = (int64_t)(r & 0x7FFF); break;
			case RK_T_I32: v[i].v.i = (int64_t)(r & 0x7FFFFFFF); break;
			case RK_T_I64: v[i].v.i = (int64_t)(r >> 12); break;
			case RK_T_F64: v[i].v.f = (double)(r >> 11) / 9007199254740992.0; break;
			default:
				snprintf(str[i], sizeof str[i], "%016llx", (unsigned long long)r);
				v[i].v.s.ptr = (const uint8_t *)str[i];
				v[i].v.s.len = 16;
				break;
			}
		}
		size_t klen;
		if (rk_key_encode(key, maxkey, &klen, enc, v) || klen < plen)
			continue;
		int seen = 0;
		for (size_t k = 0; distinct && k < got && !seen; k++)
			seen = !memcmp(pre + k * plen, key, plen);
		if (!seen)
			memcpy(pre + got++ * plen, key, plen);
	}
	sort_len = plen;
	qsort(pre, got, plen, prefix_cmp);
	*out = pre;
	*n = got;
	pre = NULL;
	rc = 0;
out:
	rk_encoder_free(enc);
	free(v);
	free(str);
	free(key);
	free(pre);
	return rc;
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

/* A salted design: one region per bucket, the split points being the
 * buckets' prefixes as the encoder writes them. */
static int bucket_splits(create_args *a, const rk_schema *sc, const rk_schema_info *info)
{
	size_t plen = info->prefix_len, np = 0;
	uint8_t *pre = NULL;
	if (plen > 8) {
		fprintf(stderr, "rowkey create: bucket prefix of %zu bytes (the store keeps up to 8)\n",
		        plen);
		return RK_EXIT_FAIL;
	}
	if (sample_prefixes(&pre, &np, sc, plen, info->buckets, 1) || np != info->buckets) {
		free(pre);
		fprintf(stderr, "rowkey create: found %zu of the schema's %u buckets by encoding sample "
		                "records\n", np, info->buckets);
		return RK_EXIT_FAIL;
	}
	a->bpl = (unsigned)plen;
	for (size_t i = 1; i < np; i++)
		if (rk_cli__split_add_copy(&a->sp, &a->nsp, pre + i * plen, plen)) {
			free(pre);
			return out_of_memory();
		}
	free(pre);
	return 0;
}

/* A hash prefix: --regions N regions at quantiles of sampled prefixes, so
 * any hash or prefix form splits evenly. */
static int quantile_splits(create_args *a, const rk_schema *sc, size_t plen)
{
	size_t want = a->nregions ? a->nregions : 1, np = 0;
	uint8_t *pre = NULL;
	if (want > 1 && (sample_prefixes(&pre, &np, sc, plen, 20000, 0) || np < want)) {
		free(pre);
		fprintf(stderr, "rowkey create: could not sample the schema's key prefix\n");
		return RK_EXIT_FAIL;
	}
	for (size_t i = 1; i < want; i++) {
		const uint8_t *q = pre + (np * i / want) * plen;
		if (a->nsp && a->sp[a->nsp - 1].len == plen && !memcmp(a->sp[a->nsp - 1].ptr, q, plen))
			continue; /* a repeated quantile */
		if (rk_cli__split_add_copy(&a->sp, &a->nsp, q, plen)) {
			free(pre);
			return out_of_memory();
		}
	}
	free(pre);
	return 0;
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
	} else if (info.buckets > 1) {
		rc = bucket_splits(a, sc, &info);
	} else {
		rc = quantile_splits(a, sc, info.prefix_len);
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
