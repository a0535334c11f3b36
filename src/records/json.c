/*
 * JSON lines for the records reader: one object per line, read whole (up to
 * the record limit) and parsed as RFC 8259 says: strings are UTF-8 with the
 * standard escapes (a lone surrogate is refused), numbers follow the JSON
 * grammar and are kept as written, true/false/null are their own kinds.
 * Only flat objects are records: a nested object or array is refused, and so
 * is a member named twice (RFC 8259 leaves duplicates open; a record that
 * says two things about one field is refused rather than guessed at).
 */
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "records/reader_int.h"

/* Reads the raw line into line_buf (without its LF and a CR before it).
 * Past the limit the bytes are consumed but not kept (r->over). */
static int read_line(rk_rec *r)
{
	int c;
	r->line_len = 0;
	for (;;) {
		c = rk_rec__peek(r);
		if (c == -2)
			return RK_EIO;
		if (c < 0)
			break;
		rk_rec__skip(r);
		if (c == '\n')
			break;
		if (r->rec_bytes > r->max_record) {
			r->over = 1;
			continue;
		}
		if (r->line_len + 1 >= r->line_cap) {
			size_t n = r->line_cap ? r->line_cap * 2 : 4096;
			char *b = realloc(r->line_buf, n);
			if (!b)
				return rk__err(RK_ENOMEM, "%s: line %ld: out of memory", r->name, r->rec_line);
			r->line_buf = b;
			r->line_cap = n;
		}
		r->line_buf[r->line_len++] = (char)c;
	}
	if (r->line_len && r->line_buf[r->line_len - 1] == '\r')
		r->line_len--;
	return c == -1 && r->line_len == 0 && r->rec_bytes == 0 ? RK_EITEROVER : 0;
}

typedef struct jp {
	rk_rec *r;
	const unsigned char *b;
	size_t n, i;
} jp;

static int fail(jp *p, const char *what)
{
	return rk__err(RK_EINVALID, "%s: line %ld, column %zu: %s", p->r->name, p->r->rec_line,
	               p->i + 1, what);
}

static void ws(jp *p)
{
	while (p->i < p->n && (p->b[p->i] == ' ' || p->b[p->i] == '\t' || p->b[p->i] == '\r'))
		p->i++;
}

static int hex4(const unsigned char *s, unsigned *out)
{
	unsigned v = 0;
	for (int k = 0; k < 4; k++) {
		unsigned c = s[k];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

static int put_utf8(rk_rec *r, unsigned cp)
{
	char o[4];
	int n;
	if (cp < 0x80) {
		o[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		o[0] = (char)(0xf0 | cp >> 18);
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	for (int k = 0; k < n; k++) {
		int rc = rk_rec__put(r, o[k]);
		if (rc)
			return rc;
	}
	return 0;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	unsigned cp = c & (0x3f >> (len - 1));
	for (size_t k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
		return 0;
	return len;
}

static int escape(jp *p)
{
	unsigned char e = p->i + 1 < p->n ? p->b[p->i + 1] : 0;
	const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
	const char *k = e ? strchr(from, e) : NULL;
	if (k) {
		p->i += 2;
		return rk_rec__put(p->r, to[k - from]);
	}
	unsigned cp, lo;
	if (e != 'u' || p->i + 6 > p->n || hex4(p->b + p->i + 2, &cp) < 0)
		return fail(p, "a bad escape in a string");
	p->i += 6;
	if (cp >= 0xdc00 && cp < 0xe000)
		return fail(p, "a lone low surrogate (\\uDC00-\\uDFFF) in a string");
	if (cp >= 0xd800 && cp < 0xdc00) {
		if (p->i + 6 > p->n || p->b[p->i] != '\\' || p->b[p->i + 1] != 'u' ||
		    hex4(p->b + p->i + 2, &lo) < 0 || lo < 0xdc00 || lo >= 0xe000)
			return fail(p, "a high surrogate without its low half in a string");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		p->i += 6;
	}
	return put_utf8(p->r, cp);
}

/* A string at b[i] == '"', unescaped into the cell buffer. */
static int string(jp *p)
{
	size_t open = p->i;
	int rc;
	p->i++;
	while (p->i < p->n && p->b[p->i] != '"') {
		unsigned char c = p->b[p->i];
		if (c < 0x20)
			return fail(p, "a control character in a string (escape it)");
		if (c == '\\') {
			if ((rc = escape(p)) != 0)
				return rc;
			continue;
		}
		size_t len = c < 0x80 ? 1 : utf8_len(p->b + p->i, p->n - p->i);
		if (!len)
			return fail(p, "a string that is not valid UTF-8");
		for (size_t k = 0; k < len; k++)
			if ((rc = rk_rec__put(p->r, (char)p->b[p->i + k])) != 0)
				return rc;
		p->i += len;
	}
	if (p->i >= p->n) {
		p->i = open;
		return fail(p, "a string that never ends");
	}
	p->i++;
	return 0;
}

/* A number as JSON writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(jp *p)
{
	size_t s = p->i, i = p->i;
	const unsigned char *b = p->b;
#define DIGIT(k) ((k) < p->n && b[k] >= '0' && b[k] <= '9')
	if (i < p->n && b[i] == '-')
		i++;
	if (i < p->n && b[i] == '0')
		i++;
	else if (DIGIT(i))
		while (DIGIT(i))
			i++;
	else
		return fail(p, "expected a value (a string, a number, true, false or null)");
	if (i < p->n && b[i] == '.') {
		if (!DIGIT(i + 1)) {
			p->i = i;
			return fail(p, "a number with no digit after its '.'");
		}
		for (i++; DIGIT(i); i++)
			;
	}
	if (i < p->n && (b[i] == 'e' || b[i] == 'E')) {
		i++;
		if (i < p->n && (b[i] == '+' || b[i] == '-'))
			i++;
		if (!DIGIT(i)) {
			p->i = i;
			return fail(p, "a number with no digit in its exponent");
		}
		while (DIGIT(i))
			i++;
	}
#undef DIGIT
	for (size_t k = s; k < i; k++) {
		int rc = rk_rec__put(p->r, (char)b[k]);
		if (rc)
			return rc;
	}
	p->i = i;
	return 0;
}

static int word(jp *p, const char *w, rk_cell_kind *kind, rk_cell_kind k)
{
	size_t n = strlen(w);
	if (p->i + n > p->n || memcmp(p->b + p->i, w, n))
		return 0;
	*kind = k;
	return 1;
}

/* One member: "name": value. */
static int member(jp *p)
{
	rk_rec *r = p->r;
	int rc;
	if (p->i >= p->n || p->b[p->i] != '"')
		return fail(p, "expected a member name in double quotes");
	size_t name_off = r->len, name_col = p->i + 1;
	if ((rc = string(p)) != 0)
		return rc;
	size_t name_len = r->len - name_off;
	if ((rc = rk_rec__put(r, 0)) != 0)
		return rc;
	for (size_t k = 0; k < r->ncells && !r->over; k++)
		if (r->cells[k].name_len == name_len &&
		    !memcmp(r->buf + r->cell_off[2 * k + 1], r->buf + name_off, name_len))
			return rk__err(RK_EINVALID, "%s: line %ld, column %zu: member \"%s\" is given twice",
			               r->name, r->rec_line, name_col, r->buf + name_off);
	ws(p);
	if (p->i >= p->n || p->b[p->i] != ':')
		return fail(p, "expected ':' after a member name");
	p->i++;
	ws(p);
	rk_cell_kind kind = RK_CELL_NUMBER;
	unsigned char c = p->i < p->n ? p->b[p->i] : 0;
	if (c == '{' || c == '[')
		return fail(p, "a nested object or array is not a record field (records are flat)");
	if (c == '"')
		kind = RK_CELL_TEXT;
	else if (!word(p, "true", &kind, RK_CELL_BOOL) && !word(p, "false", &kind, RK_CELL_BOOL))
		word(p, "null", &kind, RK_CELL_NULL); /* otherwise a number, or an error there */
	if ((rc = rk_rec__cell_begin(r, kind, (uint32_t)(p->i + 1))) != 0)
		return rc;
	rk_rec__cell_name(r, name_off, name_len);
	if (kind == RK_CELL_TEXT) {
		rc = string(p);
	} else if (kind == RK_CELL_NUMBER) {
		rc = number(p);
	} else if (kind == RK_CELL_BOOL) {
		size_t n = p->b[p->i] == 't' ? 4 : 5;
		for (size_t k = 0; k < n && !rc; k++)
			rc = rk_rec__put(r, (char)p->b[p->i + k]);
		p->i += n;
	} else {
		p->i += 4;
	}
	if (rc)
		return rc;
	return rk_rec__cell_end(r);
}

int rk_rec__json_record(rk_rec *r)
{
	int rc;
	jp p = {r, NULL, 0, 0};
	for (;;) {
		r->rec_line = r->line;
		r->rec_offset = r->offset;
		r->rec_bytes = 0;
		if ((rc = read_line(r)) != 0)
			return rc;
		if (r->over)
			return 0; /* the caller reports it */
		p.b = (const unsigned char *)r->line_buf;
		p.n = r->line_len;
		p.i = 0;
		ws(&p);
		if (p.i < p.n)
			break; /* not a blank line */
	}
	if (p.b[p.i] != '{')
		return fail(&p, "expected a JSON object ('{')");
	p.i++;
	ws(&p);
	if (p.i < p.n && p.b[p.i] == '}') {
		p.i++;
	} else {
		for (;;) {
			ws(&p);
			if ((rc = member(&p)) != 0)
				return rc;
			ws(&p);
			if (p.i < p.n && p.b[p.i] == ',') {
				p.i++;
				continue;
			}
			if (p.i < p.n && p.b[p.i] == '}') {
				p.i++;
				break;
			}
			return fail(&p, "expected ',' or '}'");
		}
	}
	ws(&p);
	if (p.i != p.n)
		return fail(&p, "text after the object (one object per line)");
	return 0;
}
