/*
 * Fuzz target: the schema parser. Any input must either parse or fail with
 * RK_EINVALID and a message; a schema that parses must describe itself and
 * encode a record of default values (or refuse it with an error code), and a
 * key it encodes must decode.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk_schema *s = NULL;
	if (rk_schema_parse(&s, (const char *)data, size, "fuzz") != 0)
		return 0;
	char *d = NULL;
	if (rk_schema_describe(&d, s) == 0)
		free(d);
	if (rk_schema_describe_json(&d, s) == 0)
		free(d);
	/* a ts field's format: its canonical text reads back as the same
	   format, and dates parse or are refused, never crash */
	for (size_t i = 0; i < rk_schema_nfields(s); i++) {
		const char *fmt = rk_schema_field_time_format(s, i);
		if (!fmt)
			continue;
		static const char *const texts[] = {"Jan 1 2000", "01/31/2000", "2000/02/29 23:59:59", "31.12.9999", ""};
		rk_value v;
		char buf[128];
		for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++)
			if (rk_schema_value_parse(&v, s, i, texts[k], strlen(texts[k])) == 0) {
				size_t n = rk_schema_value_format(buf, sizeof buf, s, i, &v);
				rk_value back;
				/* what the format prints, it reads */
				if (n >= sizeof buf || rk_schema_value_parse(&back, s, i, buf, n) != 0 || back.v.i != v.v.i)
					abort();
			}
		char *text = NULL;
		rk_schema *again = NULL;
		if (rk_schema_text(&text, s) == 0 && rk_schema_parse(&again, text, strlen(text), "again") == 0) {
			const char *f2 = rk_schema_field_time_format(again, i);
			if (!f2 || strcmp(f2, fmt))
				abort();
		}
		rk_schema_free(again);
		free(text);
	}
	rk_encoder *e = NULL;
	if (rk_encoder_new(&e, s, 1) == 0) {
		size_t n = rk_schema_nfields(s);
		rk_value vals[64];
		memset(vals, 0, sizeof vals);
		for (size_t i = 0; i < n; i++) {
			vals[i].present = 1;
			rk_type t = rk_schema_field_type(s, i);
			if (t == RK_T_STR || t == RK_T_BYTES) {
				vals[i].v.s.ptr = (const uint8_t *)"a.b";
				vals[i].v.s.len = 3;
			} else {
				vals[i].v.u = 7;
			}
		}
		size_t cap = rk_schema_max_key_len(s), klen;
		uint8_t *key = malloc(cap);
		if (key && rk_key_encode(key, cap, &klen, e, vals) == 0) {
			rk_value out[64];
			if (rk_key_decode(out, e, key, klen) != 0)
				abort(); /* a key the schema wrote must decode */
		}
		free(key);
		rk_encoder_free(e);
	}
	rk_schema_free(s);
	return 0;
}
