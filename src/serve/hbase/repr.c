/*
 * Representations: HBase's REST server speaks each model as JSON, XML
 * (text/xml) and protobuf (application/x-protobuf, or the IETF spelling
 * application/protobuf). Inside, this server has one: the JSON model. A
 * request body in XML or protobuf is turned into the JSON a client would
 * have sent, and read by model.c and filter.c as any JSON body; an answer
 * is built as JSON and written out in the representation the Accept header
 * asked for. So what a body may say, and what an answer holds, is decided
 * in one place, whatever the representation.
 *
 * Not offered: text/plain (HBase's toString of a model, meant for eyes,
 * not parsers) and text/html. A request that accepts none of the three
 * gets 406 naming them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve/hbase/hbase_int.h"

static const struct {
	const char *type;
	int repr;
} types[] = {
	{"application/json", RK_HB_JSON},
	{"text/xml", RK_HB_XML},
	{"application/x-protobuf", RK_HB_PB},
	{"application/protobuf", RK_HB_PB},
	{"*/*", RK_HB_JSON},
	{"application/*", RK_HB_JSON},
};

/* strstr, ignoring case (media types are case-insensitive) */
static const char *find(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (; *s; s++)
		if (!strncasecmp(s, w, n))
			return s;
	return NULL;
}

int rk_hb__negotiate(const char *accept)
{
	if (!accept || !*accept)
		return RK_HB_JSON;
	/* the type the header names first wins (q-values are not weighed:
	 * clients of this API name one type) */
	const char *best = NULL;
	int repr = -1;
	for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
		size_t n = strlen(types[i].type);
		for (const char *s = accept; (s = find(s, types[i].type)) != NULL; s += n) {
			int starts = s == accept || s[-1] == ',' || s[-1] == ' ';
			int ends = !s[n] || s[n] == ',' || s[n] == ';' || s[n] == ' ';
			if (starts && ends && (!best || s < best)) {
				best = s;
				repr = types[i].repr;
			}
		}
	}
	return repr;
}

int rk_hb__model(rk_hb_resp *r, rk_hb_model m, int status, json_t *j)
{
	if (!j || r->repr == RK_HB_JSON)
		return rk_hb__json(r, status, j);
	char *out;
	size_t len = 0;
	const char *type;
	if (r->repr == RK_HB_XML) {
		out = rk_hb__xml_write(j, m, &len);
		type = "text/xml";
	} else if (!rk_hb__pb_has(m)) {
		json_decref(j);
		return rk_hb__fail(r, 406, "Not acceptable: %s has no protobuf representation "
		                           "(application/json or text/xml)", rk_hb__xml_root(m));
	} else {
		out = (char *)rk_hb__pb_write(j, m, &len);
		type = "application/x-protobuf";
	}
	json_decref(j);
	if (!out)
		return rk_hb__fail(r, 503, "Service unavailable: out of memory");
	free(r->body);
	r->body = out;
	r->len = len;
	r->status = status;
	r->type = type;
	return status;
}

int rk_hb__body(rk_hb_body *b, const rk_hb_req *q, rk_hb_model m, rk_hb_resp *r)
{
	char err[256] = "";
	json_t *j;
	memset(b, 0, sizeof *b);
	if (rk_hb__ctype_is(q->ctype, "application/json")) {
		b->p = q->body;
		b->len = q->body_len;
		return 0;
	}
	if (rk_hb__ctype_is(q->ctype, "text/xml"))
		j = rk_hb__xml_read(q->body, q->body_len, m, err, sizeof err);
	else if (rk_hb__ctype_is(q->ctype, "application/x-protobuf") ||
	         rk_hb__ctype_is(q->ctype, "application/protobuf"))
		j = rk_hb__pb_read(q->body, q->body_len, m, err, sizeof err);
	else
		return rk_hb__fail(r, 415, "Unsupported media type: %s (a %s is application/json, "
		                           "text/xml or application/x-protobuf)",
		                   q->ctype ? q->ctype : "none", rk_hb__xml_root(m));
	if (!j)
		return rk_hb__fail(r, 400, "%s", err[0] ? err : "Bad request: the body does not parse");
	b->owned = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (!b->owned)
		return rk_hb__fail(r, 503, "Service unavailable: out of memory");
	b->p = (const uint8_t *)b->owned;
	b->len = strlen(b->owned);
	return 0;
}
