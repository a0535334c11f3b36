/*
 * rowkey delete: delete a row, a family or a column (every version up to
 * --ts, default now, that exists: a later put shows whatever its timestamp).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/store_cli.h"

#define CMD "delete"

static const rk_cli_opt delete_opts[] = {
	RK_CLI_OPT_DB,
	{"ts", 0, 't', "N", RK_ARG_NUMBER, NULL,
	 "delete the versions up to this timestamp (microseconds; default: now)"},
};

const rk_cli_spec rk_cli_spec_delete = {
	"delete",
	"[options] TABLE ROW [FAMILY[:QUALIFIER]]",
	"Deletes the whole row, one family of it, or one column (every version up to --ts) that "
	"exists now; a put made later shows, whatever its timestamp.\n\n" RK_CLI_EXIT_STATUS_TEXT,
	delete_opts, RK_CLI_NOPTS(delete_opts), RK_ARG_TABLE, NULL,
	"  $ rowkey delete --db /tmp/rk events row1 d:msg\n",
	"rowkey-put(1), rowkey-get(1)",
};

int rk_cli_delete(int argc, char **argv)
{
	const char *db = RK_CLI_DEFAULT_DB;
	uint64_t ts = 0;
	int c, rc = RK_EXIT_FAIL;
	while ((c = rk_cli_getopt(&rk_cli_spec_delete, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 't':
			/* microseconds; the store keeps them below 2^63 */
			if (rk_cli__parse_range(&ts, CMD, "--ts", optarg, 1, INT64_MAX))
				return RK_EXIT_USAGE;
			break;
		case 'h':
			rk_cli_help(&rk_cli_spec_delete, stdout);
			return RK_EXIT_OK;
		default: /* rk_cli_getopt said why */
			return RK_EXIT_USAGE;
		}
	}
	int nargs = argc - optind;
	if (nargs < 2 || nargs > 3)
		return rk_cli_usage_error(CMD, "expected TABLE ROW [FAMILY[:QUALIFIER]]");
	uint8_t *row = NULL, *q = NULL;
	size_t row_len, ql = 0;
	char *colbuf = NULL;
	rk_column col = {NULL, NULL, 0};
	if (rk_cli__unescape(&row, &row_len, argv[optind + 1]))
		return rk_cli_usage_error(CMD, "bad escape in row '%s'", argv[optind + 1]);
	if (nargs == 3) {
		if (rk_cli__parse_column(&col, &colbuf, argv[optind + 2]) ||
		    (col.qualifier && rk_cli__unescape(&q, &ql, (const char *)col.qualifier))) {
			free(row);
			free(colbuf);
			return rk_cli_usage_error(CMD, "bad column '%s'", argv[optind + 2]);
		}
	}
	rk_store *s = rk_cli__open_store(CMD, db, 0, NULL);
	rk_table *t = NULL;
	if (!s)
		goto out;
	if (rk_table_open(&t, s, argv[optind])) {
		rk_cli_fail(CMD, "opening the table");
		goto out;
	}
	if (rk_table_delete(t, row, row_len, col.family, col.qualifier ? q : NULL,
	                    col.qualifier ? ql : 0, ts)) {
		rk_cli_fail(CMD, "deleting");
		goto out;
	}
	rc = RK_EXIT_OK;
out:
	rk_table_close(t);
	if (s)
		rc = rk_cli__close_store_after(CMD, s, rc, "the delete was applied");
	free(row);
	free(q);
	free(colbuf);
	return rc;
}
