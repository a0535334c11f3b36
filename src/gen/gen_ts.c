/*
 * The TypeScript generator: a module per design with an interface for the
 * record (optional properties named as the schema's fields), a codec class
 * over Uint8Array, and the key template as a table for rowkey_runtime.ts
 * (written beside it). Integers up to 32 bits are number, u64 and i64
 * bigint, f64 number, str string, bytes Uint8Array. ES2020, no platform API.
 */
#include <stdio.h>
#include <string.h>

#include "gen/gen_int.h"

static void ts_bytes(rk__sb *b, const uint8_t *p, size_t n)
{
	rk_gen__bytes_literal(b, p, n, "rt.bytes(", ")", 0);
}

static void ts_u64(rk__sb *b, uint64_t v)
{
	rk__sb_printf(b, "%llun", (unsigned long long)v);
}

static void ts_i64(rk__sb *b, int64_t v)
{
	rk__sb_printf(b, "%lldn", (long long)v);
}

static const rk_gen_syntax ts = {
	.comment = "//",
	.ctor = {NULL, "rt.lit", "rt.val", "rt.hash", "rt.hex", "rt.slice", "rt.bucket", "rt.salt", "rt.psalt"},
	.enc = {NULL, "rt.E_TEXT", "rt.E_UINT", "rt.E_INT", "rt.E_F64", "rt.E_DEC", "rt.E_ESC", "rt.E_BYTES", "rt.E_OC",
	        "rt.E_OB", "rt.E_PHX"},
	.vop = {NULL, "rt.V_FIELD", "rt.V_RTS", "rt.V_TBUCKET", "rt.V_REVERSE", "rt.V_REVLABELS", "rt.V_REVNUM"},
	.form = {NULL, "rt.F_BIN", "rt.F_DEC", "rt.F_ALPHA"},
	.saltk = {NULL, "rt.SALT_RANDOM", "rt.SALT_ROUNDROBIN"},
	.alg = {NULL, "rt.MD5", "rt.SHA1", "rt.SHA256", "rt.XXH3", "rt.MURMUR3", "rt.PHOENIX31"},
	.type = {NULL, "rt.U8", "rt.U16", "rt.U32", "rt.U64", "rt.I8", "rt.I16", "rt.I32", "rt.I64", "rt.F64", "rt.STR",
	         "rt.BYTES"},
	.bytes = ts_bytes,
	.u64 = ts_u64,
	.i64 = ts_i64,
	.yes = "true",
	.no = "false",
	.none = "null",
};

static const char *ts_type(rk_type t)
{
	switch (t) {
	case RK_T_U64: case RK_T_I64: return "bigint";
	case RK_T_STR: return "string";
	case RK_T_BYTES: return "Uint8Array";
	default: return "number";
	}
}

int rk_gen__ts(rk_gen_file *out, const rk_schema *s, const rk_gen_options *o, const char *name, const char *schema)
{
	char typ[RK_GEN_NAME_MAX], file[RK_GEN_NAME_MAX + 4];
	rk__sb b = {0};
	(void)o;
	rk_gen__case(typ, name, RK_CASE_PASCAL);
	rk_gen__case(file, name, RK_CASE_SNAKE);
	if (!strcmp(file, "rowkey_runtime"))
		return rk__err(RK_EINVALID, "the name '%s' would overwrite the runtime module rowkey_runtime.ts", name);
	strcat(file, ".ts");

	rk_gen__header(&b, "//", "ts", name, schema);
	rk__sb_printf(&b, "\nimport * as rt from \"./rowkey_runtime\";\n"
	                   "export { RowKeyError } from \"./rowkey_runtime\";\n"
	                   "export type { KeyRange } from \"./rowkey_runtime\";\n\n"
	                   "/** A record of the design %s. Encoding needs every field the key holds. */\n"
	                   "export interface %s {\n",
	               typ, typ);
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(&b, "  /** %s: %s */\n  %s?: %s;\n", rk_type__name(s->ftype[i]), rk_gen__field_role(s, i),
		               s->fname[i], ts_type(s->ftype[i]));
	rk__sb_printf(&b, "}\n\nif (rt.FORMAT_VERSION !== %d)\n"
	                   "  throw new Error(\"rowkey_runtime.ts implements another key format than %s: generate both again\");\n\n"
	                   "const TEMPLATE = new rt.Template(%zu, [",
	               RK_GEN_FORMAT_VERSION, file, s->max_key_len);
	rk_gen__types(&b, s, &ts);
	rk__sb_printf(&b, "], [");
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(&b, "%s\"%s\"", i ? ", " : "", s->fname[i]);
	rk__sb_printf(&b, "], [\n");
	rk_gen__parts(&b, s, &ts, "  ");
	rk__sb_printf(&b, ",\n]);\n\n"
	                   "/**\n"
	                   " * Encodes %s records into row keys and decodes keys back, as the rowkey C library\n"
	                   " * does. Refusals throw RowKeyError (kind \"invalid\", \"toolong\" or \"corrupt\"). A random\n"
	                   " * or round-robin salt draws from the codec's state, seeded as the library's encoder is.\n"
	                   " */\n"
	                   "export class %sCodec {\n"
	                   "  /** The design's schema, as rowkey writes it. */\n"
	                   "  static readonly SCHEMA = ",
	               typ, typ);
	rk_gen__quoted(&b, schema);
	rk__sb_printf(&b, ";\n  /** The version of the key formats the codec implements. */\n"
	                   "  static readonly FORMAT_VERSION = %d;\n"
	                   "  /** The buckets the keys spread over (a salt or bucket part); 1: none. */\n"
	                   "  static readonly BUCKETS = %u;\n"
	                   "  /** (schema field, property, type) of each field, in schema order. */\n"
	                   "  static readonly FIELDS: ReadonlyArray<readonly [string, string, string]> = [",
	               RK_GEN_FORMAT_VERSION, s->info.buckets);
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(&b, "%s[\"%s\", \"%s\", \"%s\"]", i ? ", " : "", s->fname[i], s->fname[i],
		               rk_type__name(s->ftype[i]));
	rk__sb_printf(&b,
	               "];\n\n  private readonly c: rt.Codec;\n\n"
	               "  /** seed seeds random salts (0n: the library's default). */\n"
	               "  constructor(seed: bigint = 0n) {\n    this.c = new rt.Codec(TEMPLATE, seed);\n  }\n\n"
	               "  /** The row key of a record. */\n"
	               "  encode(record: %s): Uint8Array {\n    return this.c.encode(rt.fromRecord(TEMPLATE, record));\n  }\n\n"
	               "  /** The record a key holds; fields the key does not carry are left out. */\n"
	               "  decode(key: Uint8Array): %s {\n    return rt.toRecord<%s>(TEMPLATE, this.c.decode(key));\n  }\n\n"
	               "  /** The bucket a key was written to, or -1 when the design has none. */\n"
	               "  bucketOf(key: Uint8Array): number {\n    return this.c.bucket(key);\n  }\n\n"
	               "  /**\n"
	               "   * The key ranges holding every record whose fields equal the ones set in bound, as\n"
	               "   * rowkey's query planner reads them: one range per bucket when the bucket cannot be\n"
	               "   * computed from those fields.\n"
	               "   */\n"
	               "  prefixRanges(bound: %s): rt.KeyRange[] {\n"
	               "    return this.c.prefixRanges(rt.fromRecord(TEMPLATE, bound));\n  }\n\n"
	               "  /** The key range of one bucket. */\n"
	               "  bucketRange(bucket: number): rt.KeyRange {\n    return this.c.bucketRange(bucket);\n  }\n}\n",
	               typ, typ, typ, typ);
	return rk_gen__finish(out, &b, file);
}
