/*
 * Fuzz target: the key decoder. The first input byte picks a schema (one per
 * technique); the rest is a key. Decoding must never crash or read out of
 * bounds; when it succeeds on a design whose fields all decode, encoding the
 * fields again must give back exactly the input (decode verifies that). The
 * key's logical form decodes alike and is never longer than the key.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

static const char *schemas[] = {
	"fields date:str, time:str, id:u64; key date \":\" time \":\" id",
	"fields id:u64, d:str; key HEX(md5(id)) \":\" d \":\" id",
	"fields id:u64, d:str; key hex(md5(id))[0:6] u64(id) esc(d)",
	"fields u:u32, ts:ts, k:str; key bucket(16, xxh3(u)) u32(u) u64(rts(ts)) esc(k)",
	"fields u:u32, k:str; key bucket(10, murmur3(u), dec) \"-\" u \"-\" k",
	"fields u:u32, k:str; key bucket(4, phoenix31(k), \"abcd\") \"-\" esc(k):desc",
	"fields u:u32, k:str; key random(8) esc(k):desc i32(u):desc",
	"fields u:i64, k:str; key phoenix_salt(8) phoenix(k) phoenix(u)",
	"fields u:i64, k:str; key phoenix_salt(4) phoenix(k):desc phoenix(u):desc",
	"fields d:str, n:u32; key reverse(d) \"/\" reverse_labels(d) \"/\" reverse_num(n, 10)",
	"fields a:str, b:i64, c:u64; key ordered(a) ordered(b) ordered(c):desc",
	"fields a:i16, b:f64, c:bytes; key ob(a) ob(b):desc f64(b) bytes(c)",
	"fields a:u8, b:i8, c:f64; key dec(a, 3) \".\" b \".\" c",
	"fields ts:ts, id:u64; key u64(tbucket(ts, 3600)) dec(id, 20)",
};
#define NSCHEMAS (sizeof schemas / sizeof schemas[0])

static rk_schema *parsed[NSCHEMAS];
static rk_encoder *encs[NSCHEMAS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t k = data[0] % NSCHEMAS;
	if (!parsed[k]) {
		if (rk_schema_parse(&parsed[k], schemas[k], strlen(schemas[k]), "fuzz") != 0 ||
		    rk_encoder_new(&encs[k], parsed[k], 1) != 0)
			abort();
	}
	rk_value out[8];
	int rc = rk_key_decode(out, encs[k], data + 1, size - 1);
	if (rc != 0 && rc != RK_ECORRUPT)
		abort(); /* a hostile key is corrupt, nothing else */
	(void)rk_key_bucket(encs[k], data + 1, size - 1);
	uint8_t l[4096];
	size_t ll = 0;
	int lrc = rk_key_logical(l, sizeof l, &ll, encs[k], data + 1, size - 1);
	if (size - 1 <= sizeof l && (lrc != rc || (lrc == 0 && ll > size - 1)))
		abort(); /* the same verdict as the decoder, and a subset of the key */
	return 0;
}
