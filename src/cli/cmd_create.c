/*
 * rowkey create: make a table with column families and initial regions:
 * explicit split points, one region per salt bucket (--buckets), or
 * RegionSplitter-style uniform hex / decimal splits for hash-prefixed keys.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/store_cli.h"

#define CMD "create"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: rowkey create [options] TABLE -f FAMILY[:VERSIONS]...\n\n"
	        "Creates a table in the store (the store is created when missing).\n\n"
	        "  --db DIR               store directory (default " RK_CLI_DEFAULT_DB ")\n"
	        "  -f, --family F[:V]     a column family keeping V versions (default 1); repeatable\n"
	        "  --split ROW            a split point (\\xNN escapes allowed); repeatable\n"
	        "  --buckets N            one region per salt bucket: N buckets of one byte\n"
	        "                         (0x00..N-1), splits kept on bucket boundaries\n"
	        "  --decimal-buckets N    the same for zero-padded decimal buckets (\"00\"..)\n"
	        "  --hex-splits N         N regions split uniformly over 8 hex digits\n"
	        "                         (HBase HexStringSplit), for hex hash prefixes\n"
	        "  --decimal-splits N     N regions split uniformly over 8 decimal digits\n"
	        "  --servers N            region servers when the store is new (default 4)\n"
	        "  --split-threshold B    (new store) bytes before a region splits\n"
	        "  -h, --help             this help\n");
}

static int add_split(rk_bytes **sp, size_t *n, uint8_t *p, size_t len)
{
	rk_bytes *q = realloc(*sp, (*n + 1) * sizeof *q);
	if (!q)
		return -1;
	*sp = q;
	q[*n].ptr = p;
	q[*n].len = len;
	++*n;
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

int rk_cli_create(int argc, char **argv)
{
	static const struct option lo[] = {
		{"db", required_argument, NULL, 'd'},
		{"family", required_argument, NULL, 'f'},
		{"split", required_argument, NULL, 's'},
		{"buckets", required_argument, NULL, 'b'},
		{"decimal-buckets", required_argument, NULL, 'B'},
		{"hex-splits", required_argument, NULL, 'x'},
		{"decimal-splits", required_argument, NULL, 'X'},
		{"servers", required_argument, NULL, 'n'},
		{"split-threshold", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *db = RK_CLI_DEFAULT_DB;
	rk_family_def fams[255];
	char *fambuf[255];
	size_t nf = 0, nsp = 0;
	rk_bytes *sp = NULL;
	uint64_t buckets = 0, dbuckets = 0, hex = 0, dec = 0, v;
	rk_store_options so = RK_STORE_OPTIONS_INIT;
	int rc = RK_EXIT_USAGE, c;
	while ((c = getopt_long(argc, argv, "d:f:h", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'f': {
			if (nf == 255) {
				rk_cli_usage_error(CMD, "too many families");
				goto out;
			}
			char *f = strdup(optarg), *colon = strchr(f, ':');
			fambuf[nf] = f;
			fams[nf].name = f;
			fams[nf].max_versions = 1;
			if (colon) {
				*colon = 0;
				if (rk_cli__parse_u64(&v, colon + 1) || v < 1 || v > 1000000) {
					nf++;
					rk_cli_usage_error(CMD, "bad version count in --family %s", optarg);
					goto out;
				}
				fams[nf].max_versions = (unsigned)v;
			}
			nf++;
			break;
		}
		case 's': {
			uint8_t *p;
			size_t len;
			if (rk_cli__unescape(&p, &len, optarg) || add_split(&sp, &nsp, p, len)) {
				rk_cli_usage_error(CMD, "bad split point '%s' (escapes are \\xNN and \\\\)",
				                   optarg);
				goto out;
			}
			break;
		}
		case 'b':
		case 'B':
		case 'x':
		case 'X':
			if (rk_cli__parse_u64(&v, optarg) || v < 1 || v > (c == 'b' ? 256 : 100000)) {
				rk_cli_usage_error(CMD, "bad count '%s' for --%s", optarg,
				                   c == 'b' ? "buckets" : c == 'B' ? "decimal-buckets"
				                                      : c == 'x' ? "hex-splits"
				                                                 : "decimal-splits");
				goto out;
			}
			*(c == 'b' ? &buckets : c == 'B' ? &dbuckets : c == 'x' ? &hex : &dec) = v;
			break;
		case 'n':
			if (rk_cli__parse_u64(&v, optarg) || v < 1 || v > RK_MAX_SERVERS) {
				rk_cli_usage_error(CMD, "bad server count '%s' (1..%u)", optarg,
				                   RK_MAX_SERVERS);
				goto out;
			}
			so.n_servers = (unsigned)v;
			break;
		case 't':
			if (rk_cli__parse_u64(&v, optarg)) {
				rk_cli_usage_error(CMD, "bad split threshold '%s'", optarg);
				goto out;
			}
			so.split_threshold = v;
			break;
		case 'h':
			usage(stdout);
			rc = RK_EXIT_OK;
			goto out;
		default:
			rk_cli_usage_error(CMD, "unknown option");
			goto out;
		}
	}
	if (optind + 1 != argc) {
		rk_cli_usage_error(CMD, "expected one TABLE argument");
		goto out;
	}
	if (nf == 0) {
		rk_cli_usage_error(CMD, "a table needs at least one family (-f NAME)");
		goto out;
	}
	if ((nsp != 0) + (buckets != 0) + (dbuckets != 0) + (hex != 0) + (dec != 0) > 1) {
		rk_cli_usage_error(CMD, "choose one of --split, --buckets, --decimal-buckets, "
		                        "--hex-splits, --decimal-splits");
		goto out;
	}
	unsigned bpl = 0;
	for (uint64_t i = 1; i < buckets; i++) {
		uint8_t *p = malloc(1);
		p[0] = (uint8_t)i;
		add_split(&sp, &nsp, p, 1);
		bpl = 1;
	}
	if (dbuckets) {
		int w = digits(dbuckets - 1);
		bpl = (unsigned)w;
		for (uint64_t i = 1; i < dbuckets; i++) {
			char *p = malloc((size_t)w + 1);
			snprintf(p, (size_t)w + 1, "%0*llu", w, (unsigned long long)i);
			add_split(&sp, &nsp, (uint8_t *)p, (size_t)w);
		}
	}
	for (uint64_t i = 1; i < hex; i++) {
		char *p = malloc(9);
		snprintf(p, 9, "%08llx", (unsigned long long)(0xFFFFFFFFull / hex * i));
		add_split(&sp, &nsp, (uint8_t *)p, 8);
	}
	for (uint64_t i = 1; i < dec; i++) {
		char *p = malloc(9);
		snprintf(p, 9, "%08llu", (unsigned long long)(99999999ull / dec * i));
		add_split(&sp, &nsp, (uint8_t *)p, 8);
	}
	rk_store *s = rk_cli__open_store(CMD, db, 1, &so);
	if (!s) {
		rc = RK_EXIT_FAIL;
		goto out;
	}
	rk_table_def def = {argv[optind], fams, nf, sp, nsp, bpl};
	rc = RK_EXIT_OK;
	if (rk_table_create(s, &def))
		rc = rk_cli_fail(CMD, "creating the table");
	else
		printf("created table %s: %zu famil%s, %zu region%s\n", argv[optind], nf,
		       nf == 1 ? "y" : "ies", nsp + 1, nsp ? "s" : "");
	rc = rk_cli__close_store(CMD, s, rc);
out:
	for (size_t i = 0; i < nf; i++)
		free(fambuf[i]);
	for (size_t i = 0; i < nsp; i++)
		free((void *)sp[i].ptr);
	free(sp);
	return rc;
}
