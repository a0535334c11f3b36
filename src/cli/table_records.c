/*
 * A table read as records (see table_records.h).
 */
#include "cli/table_records.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rowkey/store.h>

#include "cli/cli.h"
#include "cli/rekey.h"
#include "cli/store_cli.h"

/* One CSV cell (RFC 4180: quoted when it holds a comma, a quote or a line
 * break, quotes doubled). */
static void csv_cell(FILE *f, const char *t, size_t n)
{
	if (!memchr(t, ',', n) && !memchr(t, '"', n) && !memchr(t, '\n', n) && !memchr(t, '\r', n)) {
		fwrite(t, 1, n, f);
		return;
	}
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '"')
			fputc('"', f);
		fputc(t[i], f);
	}
	fputc('"', f);
}

/* One record: the fields the mapping found, an absent one empty. */
static int write_record(FILE *f, const rk_rekey_map *m, char **buf, size_t *cap)
{
	for (size_t i = 0; i < m->nnew; i++) {
		if (i)
			fputc(',', f);
		if (!m->nv[i].present)
			continue;
		size_t need = rk_schema_value_format(*buf, *cap, m->news, i, &m->nv[i]);
		if (need >= *cap) {
			char *q = realloc(*buf, need + 1);
			if (!q)
				return -1;
			*buf = q;
			*cap = need + 1;
			rk_schema_value_format(*buf, *cap, m->news, i, &m->nv[i]);
		}
		csv_cell(f, *buf, need);
	}
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

/* Every row (up to sample) of the open table into f. */
static int write_rows(rk_cli_table_records *t, const char *cmd, rk_table *tb, rk_rekey_map *m,
                      FILE *f, uint64_t sample)
{
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_scan *sc;
	const rk_row *r;
	char *buf = malloc(64);
	size_t cap = 64;
	int rc = buf ? rk_scan_open(&sc, tb, &so) : RK_ENOMEM;
	if (rc) {
		free(buf);
		return rk_cli_fail(cmd, "reading the table");
	}
	for (size_t i = 0; i < m->nnew; i++)
		fprintf(f, "%s%s", i ? "," : "", rk_schema_field_name(m->news, i));
	fputc('\n', f);
	while ((rc = rk_scan_next(&r, sc)) == 0) {
		if (sample && t->rows == sample) {
			t->sampled = 1;
			break;
		}
		if (rk_rekey__map_fields(m, r)) {
			rc = -1;
			rk_cli_fail(cmd, t->label);
			break;
		}
		if (write_record(f, m, &buf, &cap)) {
			rc = -1;
			fprintf(stderr, "rowkey %s: writing the table's records to %s: %s\n", cmd, t->path,
			        strerror(errno));
			break;
		}
		t->rows++;
	}
	rk_scan_close(sc);
	free(buf);
	if (rc == RK_EITEROVER || (rc == 0 && t->sampled))
		return 0;
	return rc == -1 ? -1 : rk_cli_fail(cmd, t->label);
}

/* The key template of the schema text ("fields ...; key TEMPLATE; option
 * ..."), as a candidate design takes it. */
static void key_template(rk_cli_table_records *t)
{
	const char *k = strstr(t->schema_text, "; key ");
	if (!k)
		return;
	k += 6;
	const char *e = strstr(k, "; ");
	size_t n = e ? (size_t)(e - k) : strlen(k);
	snprintf(t->key, sizeof t->key, "%.*s", (int)(n < sizeof t->key ? n : sizeof t->key - 1), k);
}

/* The file's path: a directory of its own, the table's name in it. */
static int make_path(rk_cli_table_records *t, const char *cmd, const char *table)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512];
	snprintf(dir, sizeof dir, "%s/rowkey-table-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "rowkey %s: a temporary directory in %s: %s\n", cmd,
		        tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return -1;
	}
	size_t n = strlen(dir) + strlen(table) + 6;
	if (!(t->path = malloc(n))) {
		rmdir(dir);
		fprintf(stderr, "rowkey %s: out of memory\n", cmd);
		return -1;
	}
	snprintf(t->path, n, "%s/%s.csv", dir, table);
	return 0;
}

int rk_cli__table_records(rk_cli_table_records *t, const char *cmd, const char *db,
                          const char *table, uint64_t sample)
{
	memset(t, 0, sizeof *t);
	snprintf(t->label, sizeof t->label, "table %s of %s", table, db);
	rk_store *s = rk_cli__open_store(cmd, db, 0, NULL);
	if (!s)
		return -1;
	rk_table *tb = NULL;
	rk_rekey_map m = {0};
	FILE *f = NULL;
	size_t len;
	int rc = -1;
	if (rk_table_open(&tb, s, table)) {
		rk_cli_fail(cmd, t->label);
		goto done;
	}
	int g = rk_store_table_prop_get((void **)&t->schema_text, &len, s, table, "schema");
	if (g == RK_ENOTFOUND) {
		fprintf(stderr, "rowkey %s: table %s remembers no key schema (the first `rowkey load -s` "
		                "stores it): its rows cannot be read as records\n",
		        cmd, table);
		goto done;
	}
	if (g) {
		rk_cli_fail(cmd, "reading the table's schema");
		goto done;
	}
	key_template(t);
	if (rk_rekey__map_init(&m, t->schema_text, t->schema_text)) {
		rk_cli_fail(cmd, "preparing the table's schema");
		goto done;
	}
	if (make_path(t, cmd, table))
		goto done;
	if (!(f = fopen(t->path, "w"))) {
		fprintf(stderr, "rowkey %s: %s: %s\n", cmd, t->path, strerror(errno));
		goto done;
	}
	rc = write_rows(t, cmd, tb, &m, f, sample);
done:
	if (f && fclose(f) && !rc) {
		fprintf(stderr, "rowkey %s: %s: %s\n", cmd, t->path, strerror(errno));
		rc = -1;
	}
	rk_rekey__map_free(&m);
	if (tb)
		rk_table_close(tb);
	rc = rk_cli__close_store(cmd, s, rc ? RK_EXIT_FAIL : 0) ? -1 : 0;
	if (rc)
		rk_cli__table_records_free(t);
	return rc;
}

void rk_cli__table_records_free(rk_cli_table_records *t)
{
	if (t->path) {
		unlink(t->path);
		char *slash = strrchr(t->path, '/');
		if (slash) {
			*slash = 0;
			rmdir(t->path);
		}
	}
	free(t->path);
	free(t->schema_text);
	memset(t, 0, sizeof *t);
}
