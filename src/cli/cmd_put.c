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

static const rk_cli_opt put_opts[] = {
	RK_CLI_OPT_DB,
	{"ts", 0, 't', "N", RK_ARG_NUMBER, NULL, "the cells' timestamp in microseconds (default: now)"},
	{"async", 0, 'a', NULL, RK_ARG_NONE, NULL, "do not wait for the log to reach the disk"},
};

const rk_cli_spec rk_cli_spec_put = {
	"put",
	"[options] TABLE ROW FAMILY:QUALIFIER VALUE [FAMILY:QUALIFIER VALUE]...",
	"Writes cells of one row in one batch: all of them, or none. ROW, QUALIFIER and VALUE "
	"take \\xNN escapes.",
	put_opts, RK_CLI_NOPTS(put_opts), RK_ARG_TABLE, NULL,
	"  $ rowkey put --db /tmp/rk events row1 d:msg hello\n",
	"rowkey-get(1), rowkey-delete(1), rowkey-load(1)",
};

int rk_cli_put(int argc, char **argv)
{
	const char *db = RK_CLI_DEFAULT_DB;
	uint64_t ts = 0;
	rk_store_options so = RK_STORE_OPTIONS_INIT;
	int c, rc = RK_EXIT_USAGE;
	while ((c = rk_cli_getopt(&rk_cli_spec_put, argc, argv, NULL)) != -1) {
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
			rk_cli_help(&rk_cli_spec_put, stdout);
			return RK_EXIT_OK;
		default: /* rk_cli_getopt said why */
			return RK_EXIT_USAGE;
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
