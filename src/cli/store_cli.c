/*
 * Helpers for the store subcommands (see store_cli.h). Row keys on the
 * command line are text with \xNN escapes so binary keys (salt bytes,
 * big-endian numbers) can be typed and printed back the same way.
 */
#include "cli/store_cli.h"

#include "cli/textio.h"

#include <stdlib.h>
#include <string.h>

#ifdef RK_WITH_BIGTABLE
#include <rowkey/bigtable.h>
#endif

#include "cli/cli.h"
#include "key/schema_int.h"
#include "key/units.h"

int rk_cli__say_served(const char *cmd, const char *dir)
{
	char path[4200], line[256], listen[200] = "", pid[32] = "";
	snprintf(path, sizeof path, "%s/SERVING", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fgets(line, sizeof line, f) && strncmp(line, "rowkey-serving 1", 16) == 0;
	while (ok && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "pid ", 4) == 0)
			snprintf(pid, sizeof pid, "%.31s", line + 4);
		else if (strncmp(line, "listen ", 7) == 0)
			snprintf(listen, sizeof listen, "%.199s", line + 7);
	}
	fclose(f);
	if (!ok || !*listen)
		return 0;
	fprintf(stderr,
	        "rowkey %s: the store %s is served by rowkey serve (pid %s) at %s: use a Bigtable "
	        "client there (BIGTABLE_EMULATOR_HOST=%s), or stop the server first\n",
	        cmd, dir, *pid ? pid : "?", listen, listen);
	return 1;
}

char *rk_cli__bigtable_id(rk_store *s, const char *table)
{
	char *id = NULL;
#ifdef RK_WITH_BIGTABLE
	if (rk_bigtable_table_id(&id, s, table) < 0)
		id = NULL;
#else
	(void)s;
	(void)table;
#endif
	return id;
}

rk_store *rk_cli__open_store(const char *cmd, const char *dir, int create,
                             const rk_store_options *opts)
{
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	rk_store *s;
	if (opts)
		o = *opts;
	o.create_if_missing = create;
	int rc = rk_store_open(&s, dir, &o);
	if (rc == RK_EBUSY && rk_cli__say_served(cmd, dir))
		return NULL;
	if (rc) {
		rk_cli_fail(cmd, "opening the store");
		return NULL;
	}
	return s;
}

int rk_cli__close_store_after(const char *cmd, rk_store *s, int rc, const char *done)
{
	if (!rk_store_close(s))
		return rc;
	if (rc != RK_EXIT_OK) {
		fprintf(stderr, "rowkey %s: closing the store failed too: %s\n", cmd, rk_error_last());
		return rc;
	}
	fprintf(stderr, "rowkey %s: %s; %s\n", cmd, done ? done : "the command finished", rk_error_last());
	return RK_EXIT_CLOSE;
}

int rk_cli__close_store(const char *cmd, rk_store *s, int rc)
{
	return rk_cli__close_store_after(cmd, s, rc, NULL);
}

int rk_cli__unescape(uint8_t **out, size_t *len, const char *text)
{
	/* one escape dialect for every command: textio.c */
	size_t n = strlen(text);
	uint8_t *b = malloc(n + 1);
	if (!b || rk_parse_escaped(b, len, text, n) < 0) {
		free(b);
		return -1;
	}
	*out = b;
	return 0;
}

void rk_cli__print_bytes(FILE *f, const uint8_t *p, size_t n)
{
	rk_write_escaped(f, p, n);
}

void rk_cli__print_json_bytes(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '"' || p[i] == '\\')
			fprintf(f, "\\%c", p[i]);
		else if (p[i] >= 0x20 && p[i] < 0x7f)
			fputc(p[i], f);
		else
			fprintf(f, "\\u%04x", p[i]);
	}
}

int rk_cli__parse_column(rk_column *c, char **buf, const char *text)
{
	char *copy = strdup(text);
	if (!copy || !*copy) {
		free(copy);
		return -1;
	}
	char *colon = strchr(copy, ':');
	memset(c, 0, sizeof *c);
	c->family = copy;
	if (colon) {
		*colon = 0;
		c->qualifier = (const uint8_t *)(colon + 1);
		c->qualifier_len = strlen(colon + 1);
	}
	*buf = copy;
	return 0;
}

void rk_cli__print_row(FILE *f, const rk_row *r, int json, int keys_only)
{
	if (json) {
		fputs("{\"row\":\"", f);
		rk_cli__print_json_bytes(f, r->key, r->key_len);
		fputc('"', f);
		if (!keys_only) {
			fputs(",\"cells\":[", f);
			for (size_t i = 0; i < r->ncells; i++) {
				const rk_cell *c = &r->cells[i];
				fprintf(f, "%s{\"family\":\"%s\",\"qualifier\":\"", i ? "," : "", c->family);
				rk_cli__print_json_bytes(f, c->qualifier, c->qualifier_len);
				fprintf(f, "\",\"ts\":%llu,\"value\":\"", (unsigned long long)c->ts);
				rk_cli__print_json_bytes(f, c->value, c->value_len);
				fputs("\"}", f);
			}
			fputc(']', f);
		}
		fputs("}\n", f);
		return;
	}
	if (keys_only) {
		rk_cli__print_bytes(f, r->key, r->key_len);
		fputc('\n', f);
		return;
	}
	for (size_t i = 0; i < r->ncells; i++) {
		const rk_cell *c = &r->cells[i];
		rk_cli__print_bytes(f, r->key, r->key_len);
		fprintf(f, "\t%s:", c->family);
		rk_cli__print_bytes(f, c->qualifier, c->qualifier_len);
		fprintf(f, "\t%llu\t", (unsigned long long)c->ts);
		rk_cli__print_bytes(f, c->value, c->value_len);
		fputc('\n', f);
	}
}

int rk_cli__parse_size(uint64_t *out, const char *cmd, const char *opt, const char *text,
                       uint64_t unit, uint64_t min, uint64_t max)
{
	uint64_t v;
	char lo[RK_NUM_STR], hi[RK_NUM_STR];
	if (rk__size_parse(&v, text, strlen(text), unit) < 0) {
		rk_cli_usage_error(cmd, "--%s: %s", opt, rk_error_last());
		return -1;
	}
	if (v < min || v > max) {
		rk_cli_usage_error(cmd, "--%s: %s is not in %s..%s", opt, text, rk__size_str(lo, min),
		                   rk__size_str(hi, max));
		return -1;
	}
	*out = v;
	return 0;
}

int rk_cli__table_schema(rk_store *s, const char *cmd, const char *table, const rk_schema *schema,
                         int remember, int force)
{
	char *want = NULL;
	void *have = NULL;
	size_t hl = 0;
	int ret = -1;
	if (rk_schema_text(&want, schema)) {
		rk_cli_fail(cmd, "schema");
		return -1;
	}
	int rc = rk_store_table_prop_get(&have, &hl, s, table, "schema");
	if (rc == RK_ENOTFOUND) {
		if (remember && rk_store_table_prop_set(s, table, "schema", want, strlen(want))) {
			fprintf(stderr, "rowkey %s: table %s: remembering its schema: %s\n", cmd, table, rk_error_last());
			goto out;
		}
	} else if (rc == RK_EINVALID) {
		/* the message names the table already */
		fprintf(stderr, "rowkey %s: note: %s; its schema is not checked\n", cmd, rk_error_last());
	} else if (rc) {
		fprintf(stderr, "rowkey %s: table %s: reading its schema: %s\n", cmd, table, rk_error_last());
		goto out;
	} else if (rk_schema__matches_text(schema, have, hl) != 1) {
		fprintf(stderr,
		        "rowkey %s: %s: table %s was written with another schema than the one given%s\n"
		        "  table's: %.*s\n  given:   %s\n",
		        cmd, force ? "note" : "refused", table,
		        force ? " (--force: going on; the table keeps its own)" :
		                ": its keys would not decode (use the table's schema, or --force)",
		        (int)hl, (const char *)have, want);
		if (!force)
			goto out;
	}
	ret = 0;
out:
	free(want);
	free(have);
	return ret;
}

int rk_cli__stored_schema(rk_schema **out, rk_store *s, const char *cmd, const char *table)
{
	void *have = NULL;
	size_t hl = 0;
	int rc = rk_store_table_prop_get(&have, &hl, s, table, "schema");
	rk_table *t = NULL;
	if (rc == RK_ENOTFOUND && rk_table_open(&t, s, table)) {
		fprintf(stderr, "rowkey %s: %s\n", cmd, rk_error_last());
		return -1;
	}
	rk_table_close(t);
	if (rc == RK_ENOTFOUND) {
		fprintf(stderr, "rowkey %s: table %s has no stored schema (it is stored by the first load with -s): "
		                "give one with -s\n", cmd, table);
		return -1;
	}
	if (rc) {
		fprintf(stderr, "rowkey %s: table %s: reading its schema: %s\n", cmd, table, rk_error_last());
		return -1;
	}
	rc = rk_schema_parse(out, have, hl, "<the table's stored schema>");
	free(have);
	if (rc) {
		fprintf(stderr, "rowkey %s: table %s: its stored schema: %s\n", cmd, table, rk_error_last());
		return -1;
	}
	return 0;
}

int rk_cli__parse_max_ranges(rk_plan_options *o, const char *cmd, const char *text)
{
	uint64_t v;
	if (rk_cli__parse_range(&v, cmd, "--max-ranges", text, 1, 65536))
		return -1;
	o->max_ranges = (size_t)v;
	return 0;
}

int rk_cli__add_column(rk_column *cols, char **colbufs, uint8_t **qbufs, size_t *nc, size_t max,
                       const char *text)
{
	if (*nc == max || rk_cli__parse_column(&cols[*nc], &colbufs[*nc], text))
		return -1;
	qbufs[*nc] = NULL;
	size_t i = (*nc)++; /* counted now, so the caller frees its buffers either way */
	if (cols[i].qualifier &&
	    rk_cli__unescape(&qbufs[i], &cols[i].qualifier_len, (const char *)cols[i].qualifier))
		return -1;
	if (qbufs[i])
		cols[i].qualifier = qbufs[i];
	return 0;
}

int rk_cli__columns_add(rk_cli_columns *c, const char *cmd, const char *text)
{
	if (!rk_cli__add_column(c->cols, c->colbufs, c->qbufs, &c->n, RK_CLI_MAX_COLUMNS, text))
		return 0;
	rk_cli_usage_error(cmd, "bad column '%s' (FAMILY or FAMILY:QUALIFIER, at most 64)", text);
	return -1;
}

void rk_cli__columns_free(rk_cli_columns *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->colbufs[i]);
		free(c->qbufs[i]);
	}
}
