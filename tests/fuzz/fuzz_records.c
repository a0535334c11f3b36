/*
 * Fuzz target: the records reader (CSV with quoting, TSV, JSON lines) and
 * its mapping onto a schema. The first byte picks the format, the header
 * mode and a small record limit; the rest is the input. Every record must
 * parse or fail with a code that lets the next one be read; cells must lie
 * inside what was read, no record may be kept past the limit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

#include "records/map.h"
#include "records/reader.h"

static rk_schema *schema;

static void check_record(const rk_record *rec, size_t limit)
{
	size_t total = 0;
	for (size_t i = 0; i < rec->n; i++) {
		const rk_rec_cell *c = &rec->cell[i];
		if (c->p[c->len] != 0 || (c->name && c->name[c->name_len] != 0))
			abort(); /* cells are NUL-terminated inside the reader's buffer */
		total += c->len + c->name_len;
	}
	if (total > limit)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (!schema) {
		const char *t = "fields a:str, b:u32, c:f64, d:i8, e:ts; key esc(a) u32(b)";
		if (rk_schema_parse(&schema, t, strlen(t), "fuzz"))
			abort();
	}
	rk_rec_options o = RK_REC_OPTIONS_INIT;
	o.format = (rk_rec_format)(data[0] % 4); /* 0: detect */
	o.header = data[0] / 4 % 2;
	o.max_record = data[0] >= 128 ? 64 : 0;
	o.name = "fuzz";
	FILE *in = fmemopen((void *)(data + 1), size - 1, "rb");
	if (!in) {
		if (size == 1)
			return 0; /* fmemopen refuses an empty buffer */
		abort();
	}
	rk_rec *r = NULL;
	rk_rec_map m;
	rk_value vals[5];
	if (rk_rec__open(&r, in, &o) == 0 && rk_rec__map_init(&m, r, schema, NULL) == 0) {
		for (int n = 0; n < 10000; n++) {
			rk_record rec;
			int rc = rk_rec__next(r, &rec);
			if (rc == RK_EITEROVER)
				break;
			if (rc == RK_EIO || rc == RK_ENOMEM)
				break;
			if (rc == RK_EINVALID || rc == RK_ETOOLONG)
				continue;
			if (rc)
				abort();
			check_record(&rec, o.max_record ? o.max_record * 2 + 8 : size * 2 + 8);
			rc = rk_rec__map_values(vals, &m, r, &rec);
			if (rc && rc != RK_EINVALID)
				abort();
		}
	}
	rk_rec__close(r);
	fclose(in);
	return 0;
}
