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
	"take \\xNN escapes.\n\n" RK_CLI_EXIT_STATUS_TEXT,
	put_opts, RK_CLI_NOPTS(put_opts), RK_ARG_TABLE, NULL,
	"  $ rowkey put --db /tmp/rk events row1 d:msg hello\n",
	"rowkey-get(1), rowkey-delete(1), rowkey-load(1)",
};

typedef struct put_args {
	const char *db;
	uint64_t ts;
	rk_store_options so;
} put_args;

/* -1 to go on, else the exit status (help, a usage error). */
static int parse_args(put_args *a, int argc, char **argv)
{
	int c;
	while ((c = rk_cli_getopt(&rk_cli_spec_put, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'd':
			a->db = optarg;
			break;
		case 't':
			/* microseconds; the store keeps them below 2^63 */
			if (rk_cli__parse_range(&a->ts, CMD, "--ts", optarg, 1, INT64_MAX))
				return RK_EXIT_USAGE;
			break;
		case 'a':
			a->so.durability = RK_DURABILITY_ASYNC;
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
	return -1;
}

/* The row's cells as mutations; every buffer they point into is owned
 * here and freed by cells_free. */
typedef struct cells {
	rk_mutation *m;
	uint8_t **bufs; /* qualifier and value of each cell */
	char **cols;
	uint8_t *row;
	size_t row_len, n;
} cells;

static void cells_free(cells *c)
{
	for (size_t i = 0; c->bufs && i < c->n * 2; i++)
		free(c->bufs[i]);
	for (size_t i = 0; c->cols && i < c->n; i++)
		free(c->cols[i]);
	free(c->bufs);
	free(c->cols);
	free(c->m);
	free(c->row);
}

/* One FAMILY:QUALIFIER VALUE pair into cell i. 0 or the usage error's
 * exit status. */
static int cell(cells *c, size_t i, const char *ct, const char *vt, uint64_t ts)
{
	rk_column col;
	uint8_t *q, *v;
	size_t ql, vl;
	if (rk_cli__parse_column(&col, &c->cols[i], ct) || !col.qualifier)
		return rk_cli_usage_error(CMD, "'%s' is not FAMILY:QUALIFIER", ct);
	if (rk_cli__unescape(&q, &ql, (const char *)col.qualifier))
		return rk_cli_usage_error(CMD, "bad escape in qualifier of '%s'", ct);
	c->bufs[2 * i] = q;
	if (rk_cli__unescape(&v, &vl, vt))
		return rk_cli_usage_error(CMD, "bad escape in value '%s'", vt);
	c->bufs[2 * i + 1] = v;
	c->m[i] = (rk_mutation){RK_MUT_PUT, c->row, c->row_len, col.family, q, ql, ts, v, vl, 0};
	return 0;
}

/* ROW and the pairs after it (args[0] is ROW). 0 or the exit status. */
static int build_cells(cells *c, char **args, size_t n, uint64_t ts)
{
	c->n = n;
	c->m = calloc(n, sizeof *c->m);
	c->bufs = calloc(n * 2 + 1, sizeof *c->bufs);
	c->cols = calloc(n, sizeof *c->cols);
	if (!c->m || !c->bufs || !c->cols) {
		fprintf(stderr, "rowkey " CMD ": out of memory for %zu cells\n", n);
		return RK_EXIT_FAIL;
	}
	if (rk_cli__unescape(&c->row, &c->row_len, args[0]))
		return rk_cli_usage_error(CMD, "bad escape in row '%s'", args[0]);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		rc = cell(c, i, args[1 + 2 * i], args[2 + 2 * i], ts);
	return rc;
}

static int write_cells(const put_args *a, const char *table, const cells *c)
{
	rk_table *t = NULL;
	rk_store *s = rk_cli__open_store(CMD, a->db, 0, &a->so);
	if (!s)
		return RK_EXIT_FAIL;
	int rc = RK_EXIT_OK;
	if (rk_table_open(&t, s, table))
		rc = rk_cli_fail(CMD, "opening the table");
	else if (rk_table_apply(t, c->m, c->n, NULL))
		rc = rk_cli_fail(CMD, "writing");
	rk_table_close(t);
	return rk_cli__close_store_after(CMD, s, rc, "the put was applied");
}

int rk_cli_put(int argc, char **argv)
{
	put_args a = {.db = RK_CLI_DEFAULT_DB, .so = RK_STORE_OPTIONS_INIT};
	int rc = parse_args(&a, argc, argv);
	if (rc >= 0)
		return rc;
	cells c = {0};
	size_t n = (size_t)(argc - optind - 2) / 2;
	if ((rc = build_cells(&c, argv + optind + 1, n, a.ts)) == 0)
		rc = write_cells(&a, argv[optind], &c);
	cells_free(&c);
	return rc;
}
