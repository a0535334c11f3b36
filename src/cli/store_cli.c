/*
 * Helpers for the store subcommands (see store_cli.h). Row keys on the
 * command line are text with \xNN escapes so binary keys (salt bytes,
 * big-endian numbers) can be typed and printed back the same way.
 */
#include "cli/store_cli.h"

#include "cli/records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

rk_store *rk_cli__open_store(const char *cmd, const char *dir, int create,
                             const rk_store_options *opts)
{
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	rk_store *s;
	if (opts)
		o = *opts;
	o.create_if_missing = create;
	if (rk_store_open(&s, dir, &o)) {
		rk_cli_fail(cmd, "opening the store");
		return NULL;
	}
	return s;
}

int rk_cli__close_store(const char *cmd, rk_store *s, int rc)
{
	if (rk_store_close(s))
		return rk_cli_fail(cmd, "closing the store");
	return rc;
}

int rk_cli__unescape(uint8_t **out, size_t *len, const char *text)
{
	/* one escape dialect for every command: records.c's */
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

int rk_cli__parse_u64(uint64_t *out, const char *text)
{
	char *end;
	if (!text || !*text || *text == '-')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
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
