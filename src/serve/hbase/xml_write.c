/*
 * The XML representation written: an answer's JSON model as the document
 * HBase's REST server (JAXB) writes for it. The mapping is xml.c's read
 * backwards: an object is an element named by the member holding it (the
 * model's root element at the top), its scalar members attributes, "$" its
 * text, an array one child element per item (a string item: an element
 * holding that text). Two models differ from that:
 *
 *   ClusterStatus    LiveNodes and DeadNodes are wrapper elements around
 *                    <Node> children, as JAXB's @XmlElementWrapper;
 *   NamespaceProperties  a "properties" object is JAXB's map:
 *                    <properties><entry><key>K</key><value>V</value></entry>...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/hbase/hbase_int.h"

static void escaped(FILE *f, const char *s, int attr)
{
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs(attr ? "&quot;" : "\"", f); break;
		case '\r': fputs("&#13;", f); break;
		case '\n': fputs(attr ? "&#10;" : "\n", f); break;
		case '\t': fputs(attr ? "&#9;" : "\t", f); break;
		default: fputc(*s, f);
		}
}

/* a scalar as XML writes it (JAXB: numbers bare, doubles with a point) */
static void scalar(FILE *f, const json_t *v, int attr)
{
	if (json_is_string(v))
		escaped(f, json_string_value(v), attr);
	else if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v)) {
		char b[32];
		snprintf(b, sizeof b, "%.17g", json_real_value(v));
		fputs(b, f);
		if (!strpbrk(b, ".eEn"))
			fputs(".0", f);
	} else if (json_is_boolean(v))
		fputs(json_is_true(v) ? "true" : "false", f);
}

static int is_scalar(const json_t *v)
{
	return json_is_string(v) || json_is_number(v) || json_is_boolean(v);
}

static void element(FILE *f, const char *name, const json_t *o);

static void map(FILE *f, const char *name, const json_t *o)
{
	const char *k;
	json_t *v;
	fprintf(f, "<%s>", name);
	json_object_foreach((json_t *)o, k, v) {
		fputs("<entry><key>", f);
		escaped(f, k, 0);
		fputs("</key><value>", f);
		scalar(f, v, 0);
		fputs("</value></entry>", f);
	}
	fprintf(f, "</%s>", name);
}

static void item(FILE *f, const char *name, const json_t *v)
{
	if (json_is_object(v)) {
		element(f, name, v);
	} else if (is_scalar(v)) {
		fprintf(f, "<%s>", name);
		scalar(f, v, 0);
		fprintf(f, "</%s>", name);
	}
}

static void element(FILE *f, const char *name, const json_t *o)
{
	const char *k;
	json_t *v;
	int kids = 0;
	fprintf(f, "<%s", name);
	json_object_foreach((json_t *)o, k, v) {
		if (!is_scalar(v) || !strcmp(k, "$"))
			kids |= json_is_array(v) || json_is_object(v) || !strcmp(k, "$");
		else {
			fprintf(f, " %s=\"", k);
			scalar(f, v, 1);
			fputc('"', f);
		}
	}
	if (!kids) {
		fputs("/>", f);
		return;
	}
	fputc('>', f);
	json_object_foreach((json_t *)o, k, v) {
		size_t i;
		json_t *e;
		int wrapper = !strcmp(k, "LiveNodes") || !strcmp(k, "DeadNodes");
		if (json_is_array(v) && wrapper) {
			fprintf(f, "<%s>", k);
			json_array_foreach(v, i, e)
				item(f, "Node", e);
			fprintf(f, "</%s>", k);
		} else if (json_is_array(v)) {
			json_array_foreach(v, i, e)
				item(f, k, e);
		} else if (json_is_object(v)) {
			map(f, k, v);
		}
	}
	if ((v = json_object_get(o, "$")) != NULL)
		scalar(f, v, 0);
	fprintf(f, "</%s>", name);
}

char *rk_hb__xml_write(const json_t *j, rk_hb_model m, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return NULL;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>", f);
	if (json_is_object(j))
		element(f, rk_hb__xml_root(m), j);
	if (fclose(f) || !buf) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}
