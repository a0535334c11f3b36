/*
 * rowkey put: write cells of one row: TABLE ROW FAMILY:QUALIFIER VALUE
 * [FAMILY:QUALIFIER VALUE ...], applied as one batch.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/store_cli.h"

#define CMD "put"

static void usage(FILE *f)
{
	fprintf(f, "usage: rowkey put [options] TABLE ROW FAMILY:QUALIFIER VALUE [FAMILY:QUALIFIER "
	           "VALUE]...\n\n"
	           "Writes cells of one row in one batch. ROW, QUALIFIER and VALUE take \\xNN "
	           "escapes.\n\n"
	           "  --db DIR     store directory (default " RK_CLI_DEFAULT_DB ")\n"
	           "  --ts N       timestamp in microseconds (default: now)\n"
	           "  --async      do not wait for the log to reach the disk\n"
	           "  -h, --help   this help\n");
}

int rk_cli_put(int argc, char **argv)
{
	static const struct option lo[] = {
		{"db", required_argument, NULL, 'd'}, {"ts", required_argument, NULL, 't'},
		{"async", no_argument, NULL, 'a'},    {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *db = RK_CLI_DEFAULT_DB;
	uint64_t ts = 0;
	rk_store_options so = RK_STORE_OPTIONS_INIT;
	int c, rc = RK_EXIT_USAGE;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 't':
			/* microseconds; the store keeps them below 2^63 */
			if (rk_cli__parse_range(&ts, CMD, "--ts", optarg, 1, INT64_MAX))
				return RK_EXIT_USAGE;
			break;
		case 'a':
			so.durability = RK_DURABILITY_ASYNC;
			break;
		case 'h':
			usage(stdout);
			return RK_EXIT_OK;
		default:
			return rk_cli_usage_error(CMD, "unknown option");
		}
	}
	int nargs = argc - optind;
	if (nargs < 4 || (nargs - 2) % 2)
		return rk_cli_usage_error(CMD, "expected TABLE ROW and FAMILY:QUALIFIER VALUE pairs");
	size_t ncells = (size_t)(nargs - 2) / 2;
	rk_mutation *m = calloc(ncells, sizeof *m);
	uint8_t **bufs = calloc(ncells * 2 + 1, sizeof *bufs);
	char **cols = calloc(ncells, sizeof *cols);
	uint8_t *row = NULL;
	size_t row_len;
	rk_store *s = NULL;
	rk_table *t = NULL;
	if (!m || !bufs || !cols)
		goto out;
	if (rk_cli__unescape(&row, &row_len, argv[optind + 1])) {
		rk_cli_usage_error(CMD, "bad escape in row '%s'", argv[optind + 1]);
		goto out;
	}
	for (size_t i = 0; i < ncells; i++) {
		rk_column col;
		const char *ct = argv[optind + 2 + 2 * i], *vt = argv[optind + 3 + 2 * i];
		if (rk_cli__parse_column(&col, &cols[i], ct) || !col.qualifier) {
			rk_cli_usage_error(CMD, "'%s' is not FAMILY:QUALIFIER", ct);
			goto out;
		}
		uint8_t *q, *v;
		size_t ql, vl;
		if (rk_cli__unescape(&q, &ql, (const char *)col.qualifier)) {
			rk_cli_usage_error(CMD, "bad escape in qualifier of '%s'", ct);
			goto out;
		}
		bufs[2 * i] = q;
		if (rk_cli__unescape(&v, &vl, vt)) {
			rk_cli_usage_error(CMD, "bad escape in value '%s'", vt);
			goto out;
		}
		bufs[2 * i + 1] = v;
		m[i] = (rk_mutation){RK_MUT_PUT, row, row_len, col.family, q, ql, ts, v, vl, 0};
	}
	rc = RK_EXIT_FAIL;
	if (!(s = rk_cli__open_store(CMD, db, 0, &so)))
		goto out;
	if (rk_table_open(&t, s, argv[optind])) {
		rk_cli_fail(CMD, "opening the table");
		goto out;
	}
	if (rk_table_apply(t, m, ncells, NULL)) {
		rk_cli_fail(CMD, "writing");
		goto out;
	}
	rc = RK_EXIT_OK;
out:
	rk_table_close(t);
	if (s)
		rc = rk_cli__close_store(CMD, s, rc);
	for (size_t i = 0; bufs && i < ncells * 2; i++)
		free(bufs[i]);
	for (size_t i = 0; cols && i < ncells; i++)
		free(cols[i]);
	free(bufs);
	free(cols);
	free(m);
	free(row);
	return rc;
}
