/*
 * Record readers (see records.h): CSV with RFC 4180 quoting (a quoted cell
 * may span lines), TSV (no quoting), and JSON lines holding one flat object
 * each (strings, numbers, true/false/null; nested values are rejected).
 */
#include "cli/records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"

int rk_rec_format_parse(rk_rec_format *out, const char *s)
{
	if (!strcmp(s, "csv"))
		*out = RK_FMT_CSV;
	else if (!strcmp(s, "tsv"))
		*out = RK_FMT_TSV;
	else if (!strcmp(s, "jsonl") || !strcmp(s, "json"))
		*out = RK_FMT_JSONL;
	else
		return rk__err(RK_EINVALID, "unknown record format '%s' (csv, tsv, jsonl)", s);
	return 0;
}

/* Reads one physical line, appending to r->buf at *len. Returns 0,
 * RK_EITEROVER at end of input with nothing read, or RK_EIO when the input
 * cannot be read (a directory, an I/O error): a read error is never taken
 * for the end of the input, even after part of a line. */
static int read_line(rk_reader *r, size_t *len)
{
	size_t start = *len;
	int c;
	errno = 0;
	while ((c = fgetc(r->in)) != EOF) {
		if (*len + 2 > r->cap) {
			size_t ncap = r->cap ? r->cap * 2 : 4096;
			char *nb = realloc(r->buf, ncap);
			if (!nb)
				return rk__err(RK_ENOMEM, "out of memory reading line %ld", r->line);
			r->buf = nb;
			r->cap = ncap;
		}
		if (c == '\n')
			break;
		r->buf[(*len)++] = (char)c;
	}
	if (c == EOF && ferror(r->in))
		return rk__err(RK_EIO, "line %ld: reading the input failed: %s", r->line,
		               errno ? strerror(errno) : "read error");
	if (c == EOF && *len == start)
		return RK_EITEROVER;
	if (*len > start && r->buf[*len - 1] == '\r')
		(*len)--;
	r->buf[*len] = 0;
	return 0;
}

static int cell_room(rk_reader *r, size_t need)
{
	if (need <= r->cellcap)
		return 0;
	size_t ncap = need * 2 + 256;
	char *nb = realloc(r->cellbuf, ncap);
	if (!nb)
		return rk__err(RK_ENOMEM, "out of memory reading line %ld", r->line);
	/* cells point into cellbuf: rebase them */
	for (size_t i = 0; i < r->ncells; i++) {
		r->cell[i] = nb + (r->cell[i] - r->cellbuf);
		if (r->name[i])
			r->name[i] = nb + (r->name[i] - r->cellbuf);
	}
	r->cellbuf = nb;
	r->cellcap = ncap;
	return 0;
}

/* Splits a CSV or TSV record (which may continue over lines inside quotes). */
static int split_delimited(rk_reader *r)
{
	size_t len = 0;
	int rc = read_line(r, &len);
	if (rc < 0)
		return rc;
	char sep = r->fmt == RK_FMT_TSV ? '\t' : ',';
	r->ncells = 0;
	size_t i = 0, o = 0;
	if ((rc = cell_room(r, len + 1)) < 0)
		return rc;
	for (;;) {
		if (r->ncells >= RK_REC_MAX_CELLS)
			return rk__err(RK_EINVALID, "line %ld: more than %d cells", r->line, RK_REC_MAX_CELLS);
		size_t cstart = o;
		if (r->fmt == RK_FMT_CSV && i < len && r->buf[i] == '"') {
			size_t qcol = i + 1;
			i++;
			for (;;) {
				if (i >= len) { /* the quoted cell continues on the next line */
					r->buf[len++] = '\n';
					long l0 = r->line;
					if ((rc = read_line(r, &len)) < 0)
						return rc == RK_EITEROVER
						               ? rk__err(RK_EINVALID, "line %ld, column %zu: unterminated quoted cell", l0, qcol)
						               : rc;
					if ((rc = cell_room(r, len + 1)) < 0)
						return rc;
					continue;
				}
				if (r->buf[i] == '"') {
					if (i + 1 < len && r->buf[i + 1] == '"') {
						r->cellbuf[o++] = '"';
						i += 2;
						continue;
					}
					i++;
					break;
				}
				r->cellbuf[o++] = r->buf[i++];
			}
			if (i < len && r->buf[i] != sep)
				return rk__err(RK_EINVALID, "line %ld, column %zu: text after a closing quote", r->line, i + 1);
		} else {
			while (i < len && r->buf[i] != sep)
				r->cellbuf[o++] = r->buf[i++];
		}
		r->cell[r->ncells] = r->cellbuf + cstart;
		r->cell_len[r->ncells] = o - cstart;
		r->name[r->ncells] = NULL;
		r->ncells++;
		r->cellbuf[o++] = 0;
		if (i >= len)
			break;
		i++; /* separator */
	}
	return 0;
}

/* ---- JSON lines ---- */

static void skip_ws(const char *b, size_t n, size_t *i)
{
	while (*i < n && (b[*i] == ' ' || b[*i] == '\t' || b[*i] == '\r'))
		(*i)++;
}

static int put_utf8(char *o, size_t *on, unsigned cp)
{
	if (cp < 0x80) {
		o[(*on)++] = (char)cp;
	} else if (cp < 0x800) {
		o[(*on)++] = (char)(0xc0 | cp >> 6);
		o[(*on)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		o[(*on)++] = (char)(0xe0 | cp >> 12);
		o[(*on)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[(*on)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		o[(*on)++] = (char)(0xf0 | cp >> 18);
		o[(*on)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[(*on)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[(*on)++] = (char)(0x80 | (cp & 0x3f));
	}
	return 0;
}

static int hex4(const char *b, unsigned *out)
{
	unsigned v = 0;
	for (int k = 0; k < 4; k++) {
		char c = b[k];
		v <<= 4;
		if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
		else return -1;
	}
	*out = v;
	return 0;
}

/* Parses a JSON string at b[*i] == '"' into cellbuf at *o. */
static int json_string(rk_reader *r, const char *b, size_t n, size_t *i, size_t *o)
{
	size_t col = *i + 1;
	(*i)++;
	while (*i < n && b[*i] != '"') {
		char c = b[*i];
		if ((unsigned char)c < 0x20)
			return rk__err(RK_EINVALID, "line %ld, column %zu: control character in a string", r->line, *i + 1);
		if (c != '\\') {
			r->cellbuf[(*o)++] = c;
			(*i)++;
			continue;
		}
		if (*i + 1 >= n)
			break;
		char e = b[*i + 1];
		*i += 2;
		switch (e) {
		case '"': r->cellbuf[(*o)++] = '"'; break;
		case '\\': r->cellbuf[(*o)++] = '\\'; break;
		case '/': r->cellbuf[(*o)++] = '/'; break;
		case 'b': r->cellbuf[(*o)++] = '\b'; break;
		case 'f': r->cellbuf[(*o)++] = '\f'; break;
		case 'n': r->cellbuf[(*o)++] = '\n'; break;
		case 'r': r->cellbuf[(*o)++] = '\r'; break;
		case 't': r->cellbuf[(*o)++] = '\t'; break;
		case 'u': {
			unsigned cp;
			if (*i + 4 > n || hex4(b + *i, &cp) < 0)
				return rk__err(RK_EINVALID, "line %ld, column %zu: bad \\u escape", r->line, *i - 1);
			*i += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && *i + 6 <= n && b[*i] == '\\' && b[*i + 1] == 'u') {
				unsigned lo;
				if (hex4(b + *i + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					*i += 6;
				}
			}
			put_utf8(r->cellbuf, o, cp);
			break;
		}
		default:
			return rk__err(RK_EINVALID, "line %ld, column %zu: bad escape '\\%c'", r->line, *i - 1, e);
		}
	}
	if (*i >= n)
		return rk__err(RK_EINVALID, "line %ld, column %zu: unterminated string", r->line, col);
	(*i)++;
	return 0;
}

static int split_json(rk_reader *r)
{
	size_t len = 0;
	int rc;
	do {
		len = 0;
		if ((rc = read_line(r, &len)) < 0)
			return rc;
		size_t k = 0;
		skip_ws(r->buf, len, &k);
		if (k < len)
			break;
		r->line++; /* blank line */
	} while (1);
	const char *b = r->buf;
	/* strings can only shrink when unescaped (\uXXXX: 6 chars -> at most 4 bytes) */
	if ((rc = cell_room(r, len * 2 + 2)) < 0)
		return rc;
	r->ncells = 0;
	size_t i = 0, o = 0;
	skip_ws(b, len, &i);
	if (i >= len || b[i] != '{')
		return rk__err(RK_EINVALID, "line %ld, column %zu: expected a JSON object", r->line, i + 1);
	i++;
	skip_ws(b, len, &i);
	if (i < len && b[i] == '}') {
		i++;
		goto end;
	}
	for (;;) {
		skip_ws(b, len, &i);
		if (i >= len || b[i] != '"')
			return rk__err(RK_EINVALID, "line %ld, column %zu: expected a \"key\"", r->line, i + 1);
		if (r->ncells >= RK_REC_MAX_CELLS)
			return rk__err(RK_EINVALID, "line %ld: more than %d members", r->line, RK_REC_MAX_CELLS);
		size_t ns = o;
		if ((rc = json_string(r, b, len, &i, &o)) < 0)
			return rc;
		r->name[r->ncells] = r->cellbuf + ns;
		r->name_len[r->ncells] = o - ns;
		r->cellbuf[o++] = 0;
		for (size_t d = 0; d < r->ncells; d++) /* RFC 8259 leaves duplicates open: refuse them */
			if (r->name_len[d] == o - 1 - ns && !memcmp(r->name[d], r->cellbuf + ns, o - 1 - ns))
				return rk__err(RK_EINVALID, "line %ld, column %zu: duplicate member \"%s\"", r->line, i - (o - 1 - ns) - 1,
				               r->cellbuf + ns);
		skip_ws(b, len, &i);
		if (i >= len || b[i] != ':')
			return rk__err(RK_EINVALID, "line %ld, column %zu: expected ':'", r->line, i + 1);
		i++;
		skip_ws(b, len, &i);
		size_t vs = o;
		if (i < len && b[i] == '"') {
			if ((rc = json_string(r, b, len, &i, &o)) < 0)
				return rc;
		} else if (i < len && (b[i] == '{' || b[i] == '[')) {
			return rk__err(RK_EINVALID, "line %ld, column %zu: nested objects and arrays are not record fields",
			               r->line, i + 1);
		} else {
			size_t s0 = i;
			while (i < len && b[i] != ',' && b[i] != '}' && b[i] != ' ' && b[i] != '\t')
				r->cellbuf[o++] = b[i++];
			if (i == s0)
				return rk__err(RK_EINVALID, "line %ld, column %zu: expected a value", r->line, i + 1);
			size_t vl = o - vs;
			if (vl == 4 && !memcmp(r->cellbuf + vs, "null", 4)) {
				o = vs;
				r->cellbuf[o++] = 0;
				r->cell[r->ncells] = NULL; /* null: missing */
				r->cell_len[r->ncells] = 0;
				r->ncells++;
				goto next;
			}
			if (vl == 4 && !memcmp(r->cellbuf + vs, "true", 4)) {
				o = vs;
				r->cellbuf[o++] = '1';
			} else if (vl == 5 && !memcmp(r->cellbuf + vs, "false", 5)) {
				o = vs;
				r->cellbuf[o++] = '0';
			}
		}
		r->cell[r->ncells] = r->cellbuf + vs;
		r->cell_len[r->ncells] = o - vs;
		r->cellbuf[o++] = 0;
		r->ncells++;
	next:
		skip_ws(b, len, &i);
		if (i < len && b[i] == ',') {
			i++;
			continue;
		}
		if (i < len && b[i] == '}') {
			i++;
			break;
		}
		return rk__err(RK_EINVALID, "line %ld, column %zu: expected ',' or '}'", r->line, i + 1);
	}
end:
	skip_ws(b, len, &i);
	if (i != len)
		return rk__err(RK_EINVALID, "line %ld, column %zu: text after the object", r->line, i + 1);
	return 0;
}

/* ---- public ---- */

static int next_raw(rk_reader *r)
{
	r->line++;
	return r->fmt == RK_FMT_JSONL ? split_json(r) : split_delimited(r);
}

int rk_reader_open(rk_reader *r, FILE *in, rk_rec_format fmt, const rk_schema *s, int header_mode)
{
	memset(r, 0, sizeof *r);
	r->in = in;
	r->fmt = fmt;
	for (int i = 0; i < RK_REC_MAX_CELLS; i++)
		r->colfield[i] = i < (int)rk_schema_nfields(s) ? i : -1;
	if (fmt == RK_FMT_JSONL || header_mode == 0)
		return 0;
	/* look at the first line */
	errno = 0;
	int c = fgetc(in);
	if (c == EOF && ferror(in))
		return rk__err(RK_EIO, "line 1: reading the input failed: %s", errno ? strerror(errno) : "read error");
	if (c == EOF)
		return 0;
	ungetc(c, in);
	int rc = next_raw(r);
	if (rc < 0)
		return rc;
	int all_names = r->ncells > 0;
	for (size_t i = 0; i < r->ncells; i++) {
		int f = rk_schema_field_index(s, r->cell[i], r->cell_len[i]);
		r->colfield[i] = f >= 0 ? f : -1;
		if (f < 0)
			all_names = 0;
	}
	if (header_mode == 1 || all_names) {
		r->header = 1;
		r->header_cells = r->ncells;
		return 0;
	}
	/* not a header: rewind is impossible on a pipe, so keep the record for the first next() */
	for (int i = 0; i < RK_REC_MAX_CELLS; i++)
		r->colfield[i] = i < (int)rk_schema_nfields(s) ? i : -1;
	r->header = -1; /* a pending record */
	return 0;
}

void rk_reader_note_ignored(const rk_reader *r, FILE *out, const char *cmd)
{
	if (r->header != 1)
		return;
	int reordered = 0, last = -1;
	for (size_t i = 0; i < r->header_cells; i++) {
		if (r->colfield[i] < 0) {
			fprintf(out, "rowkey %s: note: column %zu of the header is not a schema field; ignored\n", cmd, i + 1);
			continue;
		}
		reordered |= r->colfield[i] < last;
		last = r->colfield[i];
	}
	if (reordered)
		fprintf(out, "rowkey %s: note: the header names the fields in another order than the schema; "
		             "columns are mapped by name\n", cmd);
}

void rk_reader_close(rk_reader *r)
{
	free(r->buf);
	free(r->cellbuf);
	r->buf = r->cellbuf = NULL;
}

int rk_reader_next(rk_reader *r, rk_value *values, const rk_schema *s)
{
	int rc;
	if (r->header == -1)
		r->header = 0; /* the first line, already split by open */
	else if ((rc = next_raw(r)) < 0)
		return rc;
	size_t nf = rk_schema_nfields(s);
	memset(values, 0, nf * sizeof *values);
	for (size_t i = 0; i < r->ncells; i++) {
		int f;
		if (r->name[i]) {
			f = rk_schema_field_index(s, r->name[i], r->name_len[i]);
			if (f < 0)
				continue; /* members the schema does not name are ignored */
		} else {
			f = r->colfield[i];
			if (f < 0) {
				if (!r->header)
					return rk__err(RK_EINVALID, "line %ld: %zu cells, but the schema has %zu fields", r->line,
					               r->ncells, nf);
				continue;
			}
		}
		if (!r->cell[i])
			continue; /* JSON null */
		if ((rc = rk_value_parse(&values[f], rk_schema_field_type(s, (size_t)f), r->cell[i], r->cell_len[i])) < 0)
			return rk__err(RK_EINVALID, "line %ld, field '%s': %s", r->line, rk_schema_field_name(s, (size_t)f),
			               rk_error_last());
	}
	return 0;
}

void rk_write_escaped(FILE *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			fputc(p[i], out);
		else
			fprintf(out, "\\x%02x", p[i]);
	}
}

static int hexv(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

int rk_parse_escaped(uint8_t *out, size_t *outlen, const char *p, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '\\') {
			out[o++] = (uint8_t)p[i];
			continue;
		}
		if (i + 1 < n && p[i + 1] == '\\') {
			out[o++] = '\\';
			i++;
			continue;
		}
		if (i + 3 < n + 0 && p[i + 1] == 'x' && hexv(p[i + 2]) >= 0 && hexv(p[i + 3]) >= 0) {
			out[o++] = (uint8_t)(hexv(p[i + 2]) * 16 + hexv(p[i + 3]));
			i += 3;
			continue;
		}
		return rk__err(RK_EINVALID, "column %zu: bad escape (use \\xNN or \\\\)", i + 1);
	}
	*outlen = o;
	return 0;
}

int rk_parse_hex(uint8_t *out, size_t *outlen, const char *p, size_t n)
{
	if (n % 2)
		return rk__err(RK_EINVALID, "hex key has an odd number of digits (%zu)", n);
	for (size_t i = 0; i < n; i += 2) {
		int a = hexv(p[i]), b = hexv(p[i + 1]);
		if (a < 0 || b < 0)
			return rk__err(RK_EINVALID, "column %zu: not a hex digit", i + 1 + (a >= 0));
		out[i / 2] = (uint8_t)(a * 16 + b);
	}
	*outlen = n / 2;
	return 0;
}

void rk_write_json_string(FILE *out, const uint8_t *p, size_t n)
{
	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void rk_write_value(FILE *out, rk_type t, const rk_value *v, int json)
{
	if (!v->present) {
		if (json)
			fputs("null", out);
		return;
	}
	if (t == RK_T_STR || t == RK_T_BYTES) {
		if (json)
			rk_write_json_string(out, v->v.s.ptr, v->v.s.len);
		else
			rk_write_escaped(out, v->v.s.ptr, v->v.s.len);
		return;
	}
	char buf[64];
	rk_value_format(buf, sizeof buf, t, v);
	if (json && t == RK_T_F64 && (strstr(buf, "inf") || strstr(buf, "nan")))
		fprintf(out, "\"%s\"", buf); /* JSON has no inf or NaN */
	else
		fputs(buf, out);
}
