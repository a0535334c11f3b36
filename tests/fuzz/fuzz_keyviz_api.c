/*
 * Fuzz target for the live page's /api/heatmap (src/serve/http/http_api.c):
 * the input is a query string, a line "--", then a metrics file (parsed by
 * the store's lenient reader, as a store carries its own). Every answer
 * must be 200 with a JSON object, or a 400 / 404 naming the error; hostile
 * windows (reversed, empty, far away), keys and counts must not crash the
 * keymap or the JSON.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve/http/http_api.h"
#include "store/local/metrics.h"

typedef struct query {
	char *names[16], *values[16];
	size_t n;
} query;

static const char *arg(void *req, const char *name)
{
	query *q = req;
	for (size_t i = 0; i < q->n; i++)
		if (!strcmp(q->names[i], name))
			return q->values[i];
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t ql = 0;
	while (ql + 4 <= size && memcmp(data + ql, "\n--\n", 4))
		ql++;
	if (ql + 4 > size)
		return 0;
	const char *sep = (const char *)data + ql;
	char *qs = strndup((const char *)data, ql);
	query q = {0};
	for (char *save = NULL, *p = strtok_r(qs, "&", &save); p && q.n < 16; p = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(p, '=');
		if (!eq)
			continue;
		*eq = 0;
		q.names[q.n] = p;
		q.values[q.n++] = eq + 1;
	}
	rk_metrics *m;
	if (rk_metrics__parse(&m, sep + 4, size - ql - 4, "fuzz", 1) == 0) {
		char *body = NULL;
		size_t len = 0;
		int status = rk_http__heatmap(&body, &len, m, data[0] & 1, arg, &q);
		if ((status != 200 && status != 400 && status != 404) || !body || len < 2 || body[0] != '{')
			abort();
		if (status != 200 && !strstr(body, "\"error\""))
			abort();
		free(body);
		rk_metrics_free(m);
	}
	free(qs);
	return 0;
}
