/*
 * Fuzz target: the advisor's query-shape templates (src/analyze/shape.c):
 * the input is a template ("5: store = ? AND ts >= ? AND ts < ?", literals,
 * IN, BETWEEN, PREFIX, ORDER BY, LIMIT) parsed against a small dataset of typed fields and,
 * when it parses, filled from the data. Every input must parse or fail with
 * a message; a filled query must be text the key library's predicate parser
 * reads under a schema of the same fields, and match no more records than
 * the data holds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rowkey/key.h>

#include "analyze/dataset.h"
#include "analyze/shape.h"

static rk__dataset *data;
static rk_schema *schema;

static void setup(void)
{
	char path[] = "/tmp/rk_fuzz_shape_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		abort();
	fputs("store,order_id,ts,amount,name,when\n", f);
	for (int i = 0; i < 200; i++)
		fprintf(f, "%d,%d,%lld,%d.%02d,n%d's \"x\",2024-01-%02dT10:00:00Z\n", i % 7, 1000 + i,
		        1700000000000ll + i * 997, i * 3, i % 100, i % 13, 1 + i % 28);
	fclose(f);
	if (rk__dataset_from_file(&data, path, NULL))
		abort();
	unlink(path);
	const char *t = "fields store:u64, order_id:u64, ts:ts, amount:f64, name:str, when:ts; key u64(store)";
	if (rk_schema_parse(&schema, t, strlen(t), "fuzz"))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	if (!data)
		setup();
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, in, size);
	text[size] = 0;
	rk__qset q = {0};
	if (rk__qset_add(&q, text, "fuzz", data, 1) == 0) {
		for (size_t k = 0; k < q.q[0].ns; k++) {
			rk_predicate *p = NULL;
			const char *w = q.q[0].s[k].where;
			if (q.q[0].s[k].rows > data->held || q.q[0].s[k].rows > q.q[0].s[k].matched ||
			    (q.q[0].limit && q.q[0].s[k].rows > q.q[0].limit))
				abort(); /* LIMIT caps what a query returns, never the matches */
			if (rk_predicate_parse(&p, schema, w, strlen(w)) && !strstr(rk_error_last(), "cannot match") &&
			    !strstr(rk_error_last(), "impossible"))
				abort(); /* a filled query the key library cannot read
				          (only a contradiction the template itself wrote) */
			rk_predicate_free(p);
		}
	}
	rk__qset_free(&q);
	free(text);
	return 0;
}
