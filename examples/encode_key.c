/*
 * Encode a record into a row key under a schema, and decode the key back.
 * The key library alone: no store, no gRPC, no cairo.
 *
 *   cc encode_key.c $(pkg-config --cflags --libs rowkey-key) -o encode_key
 *
 * The design salts the key with one of 16 buckets (a hash of the user, so a
 * user's rows stay together), then the user, a reverse timestamp (newest
 * first) and the event kind, each in an order-preserving binary form.
 */
#include <rowkey/key.h>

#include <stdio.h>
#include <string.h>

static const char schema_text[] =
	"fields user:u32, ts:ts, kind:str;"
	"key bucket(16, xxh3(user)) u32(user) u64(rts(ts)) esc(kind)";

static int fail(const char *what)
{
	fprintf(stderr, "encode_key: %s: %s\n", what, rk_error_last());
	return 1;
}

int main(void)
{
	const char *record[] = {"7", "1686465031000", "click"};
	rk_schema *schema;
	rk_encoder *enc;
	rk_value in[3], out[3];
	uint8_t key[64];
	size_t len;

	if (rk_schema_parse(&schema, schema_text, strlen(schema_text), NULL))
		return fail("schema");
	if (rk_encoder_new(&enc, schema, 0))
		return fail("encoder");
	/* the record as text, parsed by each field's type */
	for (size_t i = 0; i < 3; i++)
		if (rk_value_parse(&in[i], rk_schema_field_type(schema, i), record[i],
		                   strlen(record[i])))
			return fail(rk_schema_field_name(schema, i));
	if (rk_key_encode(key, sizeof key, &len, enc, in))
		return fail("encode");

	printf("key    ");
	for (size_t i = 0; i < len; i++)
		printf("%02x", key[i]);
	printf(" (%zu bytes, bucket %d of 16)\n", len, rk_key_bucket(enc, key, len));

	/* back into fields: the bucket is recomputed and checked on the way */
	if (rk_key_decode(out, enc, key, len))
		return fail("decode");
	printf("fields");
	for (size_t i = 0; i < 3; i++) {
		char text[64];
		rk_value_format(text, sizeof text, rk_schema_field_type(schema, i), &out[i]);
		printf(" %s=%s", rk_schema_field_name(schema, i), text);
	}
	printf("\n");

	/* a damaged key is refused, naming the byte */
	key[0] ^= 1;
	if (rk_key_decode(out, enc, key, len) == RK_ECORRUPT)
		printf("damaged key refused: %s\n", rk_error_last());

	rk_encoder_free(enc);
	rk_schema_free(schema);
	return 0;
}
