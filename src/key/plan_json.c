/*
 * A plan as one JSON object (rk_plan_json): its kind, flags, the ORDER BY
 * and LIMIT it serves, keys or ranges in hex, and the explanation in words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"

/* ---- JSON ---- */

static void jbytes(char **b, size_t *l, size_t *c, const uint8_t *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		if (*l + 8 >= *c) {
			size_t nc = *c * 2 + 64;
			char *nb = realloc(*b, nc);
			if (!nb)
				return;
			*b = nb;
			*c = nc;
		}
		(*b)[(*l)++] = hx[p[i] >> 4];
		(*b)[(*l)++] = hx[p[i] & 15];
	}
	(*b)[*l] = 0;
}

static void jcat(char **b, size_t *l, size_t *c, const char *s)
{
	size_t n = strlen(s);
	if (*l + n + 1 >= *c) {
		size_t nc = (*c + n) * 2 + 64;
		char *nb = realloc(*b, nc);
		if (!nb)
			return;
		*b = nb;
		*c = nc;
	}
	memcpy(*b + *l, s, n + 1);
	*l += n;
}

int rk_plan_json(char **out, const rk_plan *plan)
{
	char *b = NULL, tmp[128];
	size_t l = 0, c = 0;
	static const char *kinds[] = {"", "gets", "ranges", "full_scan"};
	snprintf(tmp, sizeof tmp, "{\"kind\":\"%s\",\"residual\":%s,\"merge\":%s,\"capped\":%s,\"buckets\":%u,\"prefix_len\":%u,"
	         "\"ordered\":%s,\"streams\":%u,",
	         kinds[plan->kind], plan->residual ? "true" : "false", plan->merge ? "true" : "false",
	         plan->capped ? "true" : "false", plan->buckets, plan->prefix_len,
	         plan->ordered ? "true" : "false", plan->nstreams);
	jcat(&b, &l, &c, tmp);
	static const char *orders[] = {"none", "key", "reverse", "sort"};
	snprintf(tmp, sizeof tmp, "\"order_by\":\"%s\",\"order_field\":%d,\"order_desc\":%s,\"limit\":%llu,",
	         orders[plan->order_by <= RK_ORDER_SORT ? plan->order_by : 0], plan->order_field,
	         plan->order_desc ? "true" : "false", (unsigned long long)plan->limit);
	jcat(&b, &l, &c, tmp);
	jcat(&b, &l, &c, plan->kind == RK_PLAN_GETS ? "\"keys\":[" : "\"ranges\":[");
	for (size_t i = 0; i < plan->nranges; i++) {
		const rk_key_range *r = &plan->ranges[i];
		if (i)
			jcat(&b, &l, &c, ",");
		if (plan->kind == RK_PLAN_GETS) {
			jcat(&b, &l, &c, "\"");
			jbytes(&b, &l, &c, r->start, r->start_len);
			jcat(&b, &l, &c, "\"");
			continue;
		}
		jcat(&b, &l, &c, "{\"start\":\"");
		jbytes(&b, &l, &c, r->start, r->start_len);
		jcat(&b, &l, &c, "\",\"stop\":");
		if (r->stop) {
			jcat(&b, &l, &c, "\"");
			jbytes(&b, &l, &c, r->stop, r->stop_len);
			jcat(&b, &l, &c, "\"");
		} else {
			jcat(&b, &l, &c, "null");
		}
		snprintf(tmp, sizeof tmp, ",\"bucket\":%d,\"stream\":%u}", r->bucket,
		         plan->stream ? plan->stream[i] : 0);
		jcat(&b, &l, &c, tmp);
	}
	jcat(&b, &l, &c, "],\"explain\":\"");
	for (const char *p = plan->explain ? plan->explain : ""; *p; p++) {
		char e[3] = {'\\', *p, 0}, one[2] = {*p, 0};
		jcat(&b, &l, &c, (*p == '"' || *p == '\\') ? e : one);
	}
	jcat(&b, &l, &c, "\"}");
	if (!b)
		return rk__err(RK_ENOMEM, "out of memory writing a plan");
	*out = b;
	return 0;
}
