/*
 * Fuzz target for the HBase REST front door's request parsers
 * (src/serve/hbase): the input's first line is a request path, the rest a
 * body. The path goes through RowSpec's grammar; the body through each
 * JSON model (CellSet against that path, TableSchema, Scanner with its
 * filter), the filter parser alone, and base64: a body that decodes must
 * encode back to itself (the decoder is strict: one spelling per value).
 * The body is also read as XML and as protobuf, as each model: an XML
 * body of a request model that parses must write out and read back to the
 * same JSON model; a protobuf one that parses must write out as bytes that
 * parse again.
 * Every answer must be a parse or a 4xx/5xx with a message, never a crash,
 * a leak or a read past the input.
 */
#define _GNU_SOURCE /* memmem */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve/hbase/hbase_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t ul = nl ? (size_t)(nl - data) : size;
	char *url = strndup((const char *)data, ul), err[256];
	const uint8_t *body = nl ? nl + 1 : data + size;
	size_t bl = size - (size_t)(body - data);
	char *text = strndup((const char *)body, bl);
	if (!url || !text)
		abort();

	rk_hb_path p;
	int st = rk_hb__path_parse(&p, url, err, sizeof err);
	if (st && (st < 400 || !err[0]))
		abort();
	rk_hb_puts puts;
	if (!st && rk_hb__cellset_parse(&puts, body, bl, &p, (int)(bl & 1), err, sizeof err) == 0) {
		for (size_t i = 0; i < puts.n; i++)
			if (!puts.m[i].row_len || !puts.m[i].family || !puts.m[i].family[0])
				abort();
		rk_hb__arena_free(&puts.a);
	}
	rk_hb__path_free(&p);

	rk_hb_schema sc;
	if (rk_hb__schema_parse(&sc, body, bl, err, sizeof err) == 0) {
		if (!sc.n)
			abort();
		rk_hb__arena_free(&sc.a);
	}
	rk_hb_scanspec s;
	if (rk_hb__scanner_parse(&s, body, bl, err, sizeof err) == 0)
		rk_hb__arena_free(&s.a);
	memset(&s, 0, sizeof s);
	s.so = (rk_scan_options)RK_SCAN_OPTIONS_INIT;
	rk_hb__filter_parse(&s, text, err, sizeof err);
	rk_hb__arena_free(&s.a);

	for (int m = 0; m < RK_HB_M_COUNT; m++) {
		json_t *j = rk_hb__xml_read(body, bl, (rk_hb_model)m, err, sizeof err), *k;
		size_t n;
		if (!j && (!err[0] || strncmp(err, "Bad request: ", 13)))
			abort();
		int request = m == RK_HB_M_CELLSET || m == RK_HB_M_SCHEMA || m == RK_HB_M_SCANNER;
		char *x = j ? rk_hb__xml_write(j, (rk_hb_model)m, &n) : NULL;
		if (j && !x)
			abort();
		if (x && request && !memmem(x, n, "Nodes", 5)) { /* wrappers: written only */
			k = rk_hb__xml_read((const uint8_t *)x, n, (rk_hb_model)m, err, sizeof err);
			if (!k || !json_equal(j, k))
				abort();
			json_decref(k);
		}
		free(x);
		json_decref(j);
		j = rk_hb__pb_read(body, bl, (rk_hb_model)m, err, sizeof err);
		uint8_t *b = j ? rk_hb__pb_write(j, (rk_hb_model)m, &n) : NULL;
		if (b && !(k = rk_hb__pb_read(b, n, (rk_hb_model)m, err, sizeof err)))
			abort();
		if (b)
			json_decref(k);
		free(b);
		json_decref(j);
	}

	rk_hb_arena a = {0};
	uint8_t *dec;
	size_t dl;
	if (rk_hb__b64_decode(&dec, &dl, &a, text, strlen(text)) == 0) {
		char *enc = rk_hb__b64_encode(dec, dl);
		if (!enc || strcmp(enc, text))
			abort();
		free(enc);
	}
	rk_hb__arena_free(&a);
	free(url);
	free(text);
	return 0;
}
