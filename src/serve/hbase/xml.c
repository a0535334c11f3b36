/*
 * The XML representation read: the request bodies HBase's REST server takes
 * as text/xml (CellSet, TableSchema, Scanner), parsed into the JSON model
 * a client would have sent (repr.c), as JAXB lays them out:
 *
 *   <CellSet><Row key="B64"><Cell column="B64" timestamp="MS">B64</Cell></Row></CellSet>
 *   <TableSchema name="T"><ColumnSchema name="F" VERSIONS="3"/></TableSchema>
 *   <Scanner startRow="B64" batch="10"><column>B64</column><filter>JSON</filter></Scanner>
 *
 * An element becomes an object: its attributes members (numbers for the
 * attributes HBase types as numbers), its text "$", its child elements
 * arrays under their names. <column>, <labels> and <Namespace> are strings
 * in their arrays; <filter> is one string (HBase's filters are JSON even
 * inside XML).
 *
 * A small parser of its own, for this subset: elements, attributes, text,
 * the five predefined entities and character references, CDATA, comments
 * and processing instructions. A DOCTYPE is refused, so there are no
 * entity declarations to expand (no "billion laughs"), and nothing is
 * fetched. Nesting deeper than RK_HB_XML_MAX_DEPTH, more elements or
 * attributes than the limits are refused with 400 naming the byte offset;
 * the body itself is bounded by the server's body limit (413).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/hbase/hbase_int.h"

static const char *const roots[RK_HB_M_COUNT] = {
	"CellSet", "TableSchema", "TableList", "Version", "ClusterVersion", "ClusterStatus",
	"TableInfo", "Scanner", "Namespaces", "NamespaceProperties",
};

const char *rk_hb__xml_root(rk_hb_model m)
{
	return m < RK_HB_M_COUNT ? roots[m] : "model";
}

typedef struct xp {
	const char *base, *s, *end;
	size_t nodes;
	char *err;
	size_t cap;
} xp;

typedef struct sbuf {
	char *p;
	size_t n, cap;
} sbuf;

static int bad(xp *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(xp *x, const char *fmt, ...)
{
	char why[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	snprintf(x->err, x->cap, "Bad request: XML at byte %zu: %s", (size_t)(x->s - x->base), why);
	return -1;
}

static int put(sbuf *b, const char *p, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *q = realloc(b->p, cap);
		if (!q)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	b->p[b->n] = 0;
	return 0;
}

static int at(const xp *x, const char *lit)
{
	size_t n = strlen(lit);
	return (size_t)(x->end - x->s) >= n && !memcmp(x->s, lit, n);
}

static void spaces(xp *x)
{
	while (x->s < x->end && (*x->s == ' ' || *x->s == '\t' || *x->s == '\r' || *x->s == '\n'))
		x->s++;
}

/* past the next `lit` (a comment's, a PI's or a CDATA's end) */
static int skip_past(xp *x, const char *lit, const char *what)
{
	size_t n = strlen(lit);
	for (const char *p = x->s; (size_t)(x->end - p) >= n; p++)
		if (!memcmp(p, lit, n)) {
			x->s = p + n;
			return 0;
		}
	return bad(x, "%s never ends", what);
}

static int name_char(char c, int first)
{
	return c == '_' || c == ':' || ((c | 32) >= 'a' && (c | 32) <= 'z') ||
	       (!first && (c == '-' || c == '.' || (c >= '0' && c <= '9')));
}

/* a name at the cursor into out[cap] */
static int name(xp *x, char *out, size_t cap)
{
	size_t n = 0;
	while (x->s < x->end && name_char(*x->s, n == 0)) {
		if (n + 1 >= cap)
			return bad(x, "a name longer than %zu bytes", cap - 1);
		out[n++] = *x->s++;
	}
	out[n] = 0;
	return n ? 0 : bad(x, "expected a name");
}

static int utf8(sbuf *b, unsigned long c)
{
	char o[4];
	size_t n;
	if (c < 0x80)
		o[0] = (char)c, n = 1;
	else if (c < 0x800)
		o[0] = (char)(0xc0 | c >> 6), o[1] = (char)(0x80 | (c & 63)), n = 2;
	else if (c < 0x10000)
		o[0] = (char)(0xe0 | c >> 12), o[1] = (char)(0x80 | (c >> 6 & 63)),
		o[2] = (char)(0x80 | (c & 63)), n = 3;
	else
		o[0] = (char)(0xf0 | c >> 18), o[1] = (char)(0x80 | (c >> 12 & 63)),
		o[2] = (char)(0x80 | (c >> 6 & 63)), o[3] = (char)(0x80 | (c & 63)), n = 4;
	return put(b, o, n);
}

/* XML 1.0's Char production below U+0080: tab, newline, return and the
 * printable range; a NUL or another control could not be written back */
static int xml_char(unsigned long c)
{
	return c >= 0x20 || c == '\t' || c == '\n' || c == '\r';
}

/* characters up to `stop` (or '<'), entities decoded, into b */
static int chars(xp *x, sbuf *b, char stop)
{
	static const struct { const char *name; char c; } ents[] = {
		{"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"quot;", '"'}, {"apos;", '\''}};
	while (x->s < x->end && *x->s != stop && *x->s != '<') {
		const char *run = x->s;
		while (x->s < x->end && *x->s != stop && *x->s != '<' && *x->s != '&')
			x->s++;
		if (put(b, run, (size_t)(x->s - run)))
			return bad(x, "out of memory");
		if (x->s == x->end || *x->s != '&')
			continue;
		x->s++;
		size_t i = 0;
		while (i < sizeof ents / sizeof *ents && !at(x, ents[i].name))
			i++;
		if (i < sizeof ents / sizeof *ents) {
			x->s += strlen(ents[i].name);
			if (put(b, &ents[i].c, 1))
				return bad(x, "out of memory");
			continue;
		}
		if (x->s == x->end || *x->s != '#')
			return bad(x, "an entity other than &lt; &gt; &amp; &quot; &apos; or &#N;");
		int hex = ++x->s < x->end && *x->s == 'x';
		x->s += hex;
		unsigned long c = 0;
		size_t digits = 0;
		for (; x->s < x->end && *x->s != ';' && digits < 8; x->s++, digits++) {
			int v = *x->s >= '0' && *x->s <= '9' ? *x->s - '0'
			      : hex && (*x->s | 32) >= 'a' && (*x->s | 32) <= 'f' ? (*x->s | 32) - 'a' + 10
			                                                          : -1;
			if (v < 0)
				return bad(x, "a bad character reference");
			c = c * (hex ? 16 : 10) + (unsigned long)v;
		}
		if (x->s == x->end || *x->s != ';' || !digits || !c || c > 0x10ffff ||
		    (c >= 0xd800 && c <= 0xdfff) || c == 0xfffe || c == 0xffff || !xml_char(c))
			return bad(x, "a bad character reference");
		x->s++;
		if (utf8(b, c))
			return bad(x, "out of memory");
	}
	return 0;
}

/* attributes HBase's models type as numbers (JAXB writes them bare) */
static json_t *attr_value(const char *attr, const char *v, size_t n)
{
	static const char *const nums[] = {"timestamp", "batch",   "startTime", "endTime",
	                                   "maxVersions", "caching", "limit"};
	for (size_t i = 0; i < sizeof nums / sizeof *nums; i++)
		if (!strcmp(attr, nums[i]) && n && n <= 18 && strspn(v, "0123456789") == n)
			return json_integer(strtoll(v, NULL, 10));
	if (!strcmp(attr, "cacheBlocks") && (!strcmp(v, "true") || !strcmp(v, "false")))
		return json_boolean(!strcmp(v, "true"));
	return json_stringn(v, n);
}

/* elements whose text is the value (no attributes, no children) */
static int is_text(const char *el)
{
	return !strcmp(el, "column") || !strcmp(el, "labels") || !strcmp(el, "Namespace") ||
	       !strcmp(el, "filter");
}

static json_t *element(xp *x, unsigned depth, char *el, size_t elcap);

/* kid (taken) into o under el: an array of them, or "filter" alone */
static int attach(xp *x, json_t *o, const char *el, json_t *kid)
{
	json_t *a = json_object_get(o, el);
	if (!strcmp(el, "filter")) {
		if (a)
			return json_decref(kid), bad(x, "<filter> twice");
		return json_object_set_new(o, el, kid) ? bad(x, "out of memory") : 0;
	}
	if (!a && json_object_set_new(o, el, a = json_array()))
		return json_decref(kid), bad(x, "out of memory");
	if (!json_is_array(a))
		return json_decref(kid), bad(x, "<%s> is both an attribute and an element", el);
	return json_array_append_new(a, kid) ? bad(x, "out of memory") : 0;
}

static int attributes(xp *x, json_t *o, const char *el)
{
	char an[64];
	sbuf v = {0};
	int rc = 0;
	for (size_t n = 0;; n++) {
		spaces(x);
		if (x->s == x->end || *x->s == '>' || *x->s == '/')
			break;
		if (n == RK_HB_XML_MAX_ATTRS) {
			rc = bad(x, "<%s> has more than %u attributes", el, RK_HB_XML_MAX_ATTRS);
			break;
		}
		if ((rc = name(x, an, sizeof an)) != 0)
			break;
		spaces(x);
		if (x->s == x->end || *x->s++ != '=') {
			rc = bad(x, "expected = after attribute %s", an);
			break;
		}
		spaces(x);
		char q = x->s < x->end ? *x->s++ : 0;
		v.n = 0;
		if ((q != '"' && q != '\'') || put(&v, "", 0) || chars(x, &v, q) ||
		    x->s == x->end || *x->s++ != q) {
			rc = x->err[0] ? -1 : bad(x, "attribute %s: expected a quoted value", an);
			break;
		}
		json_t *val = attr_value(an, v.p, v.n);
		if (!val) {
			rc = bad(x, "attribute %s: not UTF-8", an);
			break;
		}
		if (json_object_get(o, an)) {
			json_decref(val);
			rc = bad(x, "attribute %s given twice", an);
			break;
		}
		json_object_set_new(o, an, val);
	}
	free(v.p);
	return rc;
}

/* the content after <el ...>, up to and past </el>, into o and text */
static int content(xp *x, json_t *o, sbuf *text, const char *el, unsigned depth)
{
	char kn[64], end[64];
	for (;;) {
		if (chars(x, text, 0))
			return -1;
		if (x->s == x->end)
			return bad(x, "<%s> never ends", el);
		if (at(x, "</")) {
			x->s += 2;
			if (name(x, end, sizeof end))
				return -1;
			spaces(x);
			if (strcmp(end, el) || x->s == x->end || *x->s++ != '>')
				return bad(x, "</%s> does not end <%s>", end, el);
			return 0;
		}
		if (at(x, "<!--")) {
			if (skip_past(x, "-->", "a comment"))
				return -1;
		} else if (at(x, "<![CDATA[")) {
			const char *from = x->s += 9;
			if (skip_past(x, "]]>", "a CDATA section") || put(text, from, (size_t)(x->s - 3 - from)))
				return x->err[0] ? -1 : bad(x, "out of memory");
		} else if (at(x, "<?")) {
			if (skip_past(x, "?>", "a processing instruction"))
				return -1;
		} else if (at(x, "<!")) {
			return bad(x, "a declaration inside an element");
		} else {
			json_t *kid = element(x, depth + 1, kn, sizeof kn);
			if (!kid || attach(x, o, kn, kid))
				return -1;
		}
	}
}

static json_t *element(xp *x, unsigned depth, char *el, size_t elcap)
{
	if (depth >= RK_HB_XML_MAX_DEPTH)
		return bad(x, "elements nested more than %u deep", RK_HB_XML_MAX_DEPTH), NULL;
	if (++x->nodes > RK_HB_XML_MAX_NODES)
		return bad(x, "more than %u elements", RK_HB_XML_MAX_NODES), NULL;
	if (x->s == x->end || *x->s++ != '<' || name(x, el, elcap))
		return x->err[0] ? NULL : (bad(x, "expected an element"), NULL);
	json_t *o = json_object();
	sbuf text = {0};
	if (!o)
		return bad(x, "out of memory"), NULL;
	if (attributes(x, o, el))
		goto fail;
	if (at(x, "/>"))
		x->s += 2;
	else if (x->s < x->end && *x->s == '>') {
		x->s++;
		if (content(x, o, &text, el, depth))
			goto fail;
	} else {
		bad(x, "<%s: expected > or />", el);
		goto fail;
	}
	/* the text without the indentation around it */
	size_t a = 0, n = text.n;
	while (a < n && strchr(" \t\r\n", text.p[a]))
		a++;
	while (n > a && strchr(" \t\r\n", text.p[n - 1]))
		n--;
	json_t *t = json_stringn(text.p ? text.p + a : "", n - a);
	free(text.p);
	if (!t) {
		json_decref(o);
		return bad(x, "<%s>: text that is not UTF-8", el), NULL;
	}
	if (is_text(el)) {
		if (json_object_size(o)) {
			json_decref(t);
			json_decref(o);
			return bad(x, "<%s> holds only text", el), NULL;
		}
		json_decref(o);
		return t;
	}
	if (n > a)
		json_object_set_new(o, "$", t);
	else
		json_decref(t);
	return o;
fail:
	free(text.p);
	json_decref(o);
	return NULL;
}

/* the prolog's or the epilogue's comments, processing instructions and
 * spaces; a DOCTYPE is refused */
static int misc(xp *x)
{
	for (;;) {
		spaces(x);
		if (at(x, "<?")) {
			if (skip_past(x, "?>", "a processing instruction"))
				return -1;
		} else if (at(x, "<!--")) {
			if (skip_past(x, "-->", "a comment"))
				return -1;
		} else if (at(x, "<!")) {
			return bad(x, "a DOCTYPE or declaration (not taken: no DTDs, no entities)");
		} else {
			return 0;
		}
	}
}

json_t *rk_hb__xml_read(const uint8_t *body, size_t len, rk_hb_model m, char *err, size_t cap)
{
	xp x = {(const char *)body, (const char *)body, (const char *)body + len, 0, err, cap};
	char el[64];
	err[0] = 0;
	if (len >= 3 && !memcmp(body, "\xef\xbb\xbf", 3))
		x.s += 3;
	/* anywhere in the document (text, CDATA, comments): a value holding one
	 * could not be written back as XML */
	for (const char *p = x.s; p < x.end; p++)
		if (!xml_char((unsigned char)*p)) {
			x.s = p;
			return bad(&x, "a control character (0x%02x), which XML does not allow",
			           (unsigned char)*p), NULL;
		}
	if (misc(&x))
		return NULL;
	json_t *j = element(&x, 0, el, sizeof el);
	if (!j)
		return NULL;
	if (!json_is_object(j) || strcmp(el, rk_hb__xml_root(m))) {
		json_decref(j);
		x.s = x.base;
		return bad(&x, "the document is <%s>, not <%s>", el, rk_hb__xml_root(m)), NULL;
	}
	if (misc(&x) || (x.s != x.end && bad(&x, "more after </%s>", el))) {
		json_decref(j);
		return NULL;
	}
	return j;
}
