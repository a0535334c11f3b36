/*
 * The rekey checkpoint (docs/formats.md B.6): a text value kept as the
 * target table's `rekey` setting, so that one atomic setting write moves it
 * from one state to the next on both backends. Parsed strictly: a value
 * that does not read back field by field is refused, never guessed at.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/rekey.h"

static const char *const fields[] = {"source", "target", "old",   "new",  "state",
                                     "done",   "pending", "rows", "cells", "verify"};
#define NFIELDS (sizeof fields / sizeof *fields)

void rk_rekey__ckpt_free(rk_rekey_ckpt *c)
{
	free(c->source);
	free(c->target);
	free(c->old_schema);
	free(c->new_schema);
	free(c->done);
	memset(c, 0, sizeof *c);
}

int rk_rekey__table_exists(rk_store *s, const char *name)
{
	rk_table *t;
	int rc = rk_table_open(&t, s, name);
	if (!rc)
		rk_table_close(t);
	return !rc ? 1 : rc == RK_ENOTFOUND ? 0 : -1;
}

const char *rk_rekey__key_text(char *buf, size_t cap, const uint8_t *k, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 8 < cap; i++) {
		if (o > 200) {
			o += (size_t)snprintf(buf + o, cap - o, "...");
			break;
		}
		if (k[i] >= 0x20 && k[i] < 0x7f && k[i] != '\\')
			buf[o++] = (char)k[i];
		else
			o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", k[i]);
	}
	buf[o < cap ? o : cap - 1] = 0;
	return buf;
}

int rk_rekey__ckpt_text(char **out, size_t *len, const rk_rekey_ckpt *c)
{
	size_t cap = 512 + strlen(c->source) + strlen(c->target) + strlen(c->old_schema) +
	             strlen(c->new_schema) + 2 * c->done_len;
	char *b = malloc(cap), *p = b;
	if (!b)
		return rk__err(RK_ENOMEM, "rekey checkpoint: out of memory");
	p += sprintf(p, "rowkey-rekey 1\nsource %s\ntarget %s\nold %s\nnew %s\nstate %s\ndone ",
	             c->source, c->target, c->old_schema, c->new_schema, c->state);
	if (!c->done)
		*p++ = '-';
	for (size_t i = 0; c->done && i < c->done_len; i++)
		p += sprintf(p, "%02x", c->done[i]);
	p += sprintf(p, "\npending %llu\nrows %llu\ncells %llu\nverify %s\n",
	             (unsigned long long)c->pending, (unsigned long long)c->rows,
	             (unsigned long long)c->cells, c->verify);
	*out = b;
	*len = (size_t)(p - b);
	return 0;
}

int rk_rekey__ckpt_save(rk_store *s, const char *table, const rk_rekey_ckpt *c)
{
	char *t;
	size_t len;
	int rc = rk_rekey__ckpt_text(&t, &len, c);
	if (rc)
		return rc;
	if (len > 65536) {
		free(t);
		return rk__err(RK_ETOOLONG, "table %s: the rekey checkpoint would be %zu bytes (a "
		                            "setting holds 65536): the old row key is too long",
		               table, len);
	}
	rc = rk_store_table_prop_set(s, table, RK_REKEY_SETTING, t, len);
	free(t);
	return rc;
}

static int parse_dec(uint64_t *out, const char *v)
{
	char *end;
	if (!*v || (v[0] == '0' && v[1]) || strspn(v, "0123456789") != strlen(v))
		return -1;
	*out = strtoull(v, &end, 10);
	return 0;
}

static int parse_hex(rk_rekey_ckpt *c, const char *v)
{
	size_t n = strlen(v);
	if (!strcmp(v, "-"))
		return 0;
	if (!n || n % 2 || strspn(v, "0123456789abcdef") != n || !(c->done = malloc(n / 2)))
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned b;
		sscanf(v + 2 * i, "%2x", &b);
		c->done[i] = (uint8_t)b;
	}
	c->done_len = n / 2;
	return 0;
}

static int known_word(const char *v, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(v, *words))
			return 1;
	return 0;
}

/* Field i's value v into c; -1 when it does not read. */
static int parse_field(rk_rekey_ckpt *c, size_t i, const char *v)
{
	static const char *const states[] = {"copying", "copied", "verified", "cutover", NULL};
	char **str[] = {&c->source, &c->target, &c->old_schema, &c->new_schema};
	if (i < 4)
		return (*str[i] = strdup(v)) && **str[i] ? 0 : -1;
	switch (i) {
	case 4:
		if (!known_word(v, states))
			return -1;
		snprintf(c->state, sizeof c->state, "%s", v);
		return 0;
	case 5: return parse_hex(c, v);
	case 6: return parse_dec(&c->pending, v);
	case 7: return parse_dec(&c->rows, v);
	case 8: return parse_dec(&c->cells, v);
	default:
		if (strlen(v) >= sizeof c->verify ||
		    (strcmp(v, "-") && strncmp(v, "clean ", 6) && strncmp(v, "failed ", 7)))
			return -1;
		snprintf(c->verify, sizeof c->verify, "%s", v);
		return 0;
	}
}

int rk_rekey__ckpt_load(rk_rekey_ckpt *c, rk_store *s, const char *table)
{
	void *val;
	size_t len;
	memset(c, 0, sizeof *c);
	int rc = rk_store_table_prop_get(&val, &len, s, table, RK_REKEY_SETTING);
	if (rc)
		return rc;
	char *text = val, *line = text, *nl;
	size_t i = 0, lineno = 1;
	if (strlen(text) != len || strncmp(text, "rowkey-rekey 1\n", 15))
		goto bad;
	line = text + 15;
	for (i = 0; i < NFIELDS; i++, line = nl + 1) {
		lineno = i + 2;
		size_t fl = strlen(fields[i]);
		if (!(nl = strchr(line, '\n')) || strncmp(line, fields[i], fl) || line[fl] != ' ')
			goto bad;
		*nl = 0;
		if (parse_field(c, i, line + fl + 1))
			goto bad;
	}
	if (*line)
		goto bad;
	free(text);
	return 0;
bad:
	free(text);
	rk_rekey__ckpt_free(c);
	return rk__err(RK_ECORRUPT, "table %s: its rekey checkpoint (setting '%s') does not read "
	                            "at line %zu (%s expected; docs/formats.md B.6)",
	               table, RK_REKEY_SETTING, lineno, i < NFIELDS ? fields[i] : "the end");
}
