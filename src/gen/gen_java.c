/*
 * The Java generator: a class per design (Java 8 and later) holding an
 * immutable record with a builder, a nested Codec, and the key template as
 * a table for RowKeyRuntime.java (written beside it, in the same package).
 * Members are the schema's field names in camel case, accessors named like
 * the field (user()); integers up to 32 bits but u32 are Integer, u32, u64
 * (its bits) and i64 are Long, f64 Double, str String, bytes byte[]; null is
 * an unset field.
 */
#include <stdio.h>
#include <string.h>

#include "gen/gen_int.h"

static const char *const reserved[] = {
	"abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const", "continue",
	"default", "do", "double", "else", "enum", "extends", "final", "finally", "float", "for", "goto", "if",
	"implements", "import", "instanceof", "int", "interface", "long", "native", "new", "package", "private",
	"protected", "public", "return", "short", "static", "strictfp", "super", "switch", "synchronized", "this",
	"throw", "throws", "transient", "try", "void", "volatile", "while", "true", "false", "null", "var", "record",
	"yield", "_",
	/* the class's own members and Object's */
	"builder", "toBuilder", "build", "values", "of", "equals", "hashCode", "toString", "getClass", "notify",
	"notifyAll", "wait", "clone", "finalize", NULL};

static void java_bytes(rk__sb *b, const uint8_t *p, size_t n)
{
	rk_gen__bytes_literal(b, p, n, "RowKeyRuntime.bytes(", ")", 1);
}

static void java_u64(rk__sb *b, uint64_t v)
{
	rk__sb_printf(b, "0x%llxL", (unsigned long long)v);
}

static void java_i64(rk__sb *b, int64_t v)
{
	rk__sb_printf(b, "%lldL", (long long)v);
}

#define R "RowKeyRuntime."
static const rk_gen_syntax java = {
	.comment = "//",
	.ctor = {NULL, R "lit", R "val", R "hash", R "hex", R "slice", R "bucket", R "salt", R "psalt"},
	.enc = {NULL, R "E_TEXT", R "E_UINT", R "E_INT", R "E_F64", R "E_DEC", R "E_ESC", R "E_BYTES", R "E_OC", R "E_OB",
	        R "E_PHX"},
	.vop = {NULL, R "V_FIELD", R "V_RTS", R "V_TBUCKET", R "V_REVERSE", R "V_REVLABELS", R "V_REVNUM"},
	.form = {NULL, R "F_BIN", R "F_DEC", R "F_ALPHA"},
	.saltk = {NULL, R "SALT_RANDOM", R "SALT_ROUNDROBIN"},
	.alg = {NULL, R "MD5", R "SHA1", R "SHA256", R "XXH3", R "MURMUR3", R "PHOENIX31"},
	.type = {NULL, R "U8", R "U16", R "U32", R "U64", R "I8", R "I16", R "I32", R "I64", R "F64", R "STR", R "BYTES"},
	.bytes = java_bytes,
	.u64 = java_u64,
	.i64 = java_i64,
	.yes = "true",
	.no = "false",
	.none = "null",
};

/* The boxed type a record holds, and the primitive a builder also takes. */
static const char *boxed(rk_type t)
{
	switch (t) {
	case RK_T_U32: case RK_T_U64: case RK_T_I64: return "Long";
	case RK_T_F64: return "Double";
	case RK_T_STR: return "String";
	case RK_T_BYTES: return "byte[]";
	default: return "Integer";
	}
}

static const char *primitive(rk_type t)
{
	switch (t) {
	case RK_T_U32: case RK_T_U64: case RK_T_I64: return "long";
	case RK_T_F64: return "double";
	case RK_T_STR: case RK_T_BYTES: return NULL;
	default: return "int";
	}
}

static void builder(rk__sb *b, const rk_schema *s, const char *cls, char (*m)[RK_GEN_NAME_MAX])
{
	rk__sb_printf(b, "    /** Builds %s records; a field left unset (or set to null) is absent. */\n"
	                    "    public static final class Builder {\n",
	               cls);
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(b, "        private %s %s;\n", boxed(s->ftype[i]), m[i]);
	rk__sb_printf(b, "\n        private Builder() {}\n");
	for (size_t i = 0; i < s->nfields; i++) {
		const char *prim = primitive(s->ftype[i]);
		if (prim)
			rk__sb_printf(b, "\n        public Builder %s(%s v) {\n            this.%s = v;\n            return this;\n        }\n",
			               m[i], prim, m[i]);
		rk__sb_printf(b, "\n        public Builder %s(%s v) {\n            this.%s = v;\n            return this;\n        }\n",
		               m[i], boxed(s->ftype[i]), m[i]);
	}
	rk__sb_printf(b, "\n        public %s build() {\n            return new %s(this);\n        }\n    }\n\n", cls, cls);
}

static void object_methods(rk__sb *b, const rk_schema *s, const char *cls, char (*m)[RK_GEN_NAME_MAX])
{
	/* locals start with '_', which no member does: a field may be named r, o or h */
	rk__sb_printf(b, "    @Override\n    public boolean equals(Object _o) {\n"
	                  "        if (!(_o instanceof %s))\n            return false;\n"
	                  "        %s _r = (%s) _o;\n        return true",
	               cls, cls, cls);
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(b, "\n                && %s.equals(%s, _r.%s)",
		               s->ftype[i] == RK_T_BYTES ? "java.util.Arrays" : "java.util.Objects", m[i], m[i]);
	rk__sb_printf(b, ";\n    }\n\n    @Override\n    public int hashCode() {\n        int _h = 17;\n");
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(b, "        _h = 31 * _h + %s.hashCode(%s);\n",
		               s->ftype[i] == RK_T_BYTES ? "java.util.Arrays" : "java.util.Objects", m[i]);
	rk__sb_printf(b, "        return _h;\n    }\n\n    @Override\n    public String toString() {\n"
	                  "        return \"%s{\"",
	               cls);
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(b, "\n                + \"%s%s=\" + %s%s%s", i ? ", " : "", m[i],
		               s->ftype[i] == RK_T_BYTES ? "java.util.Arrays.toString(" : "", m[i],
		               s->ftype[i] == RK_T_BYTES ? ")" : "");
	rk__sb_printf(b, " + \"}\";\n    }\n\n");
}

static void codec(rk__sb *b, const rk_schema *s, const char *cls, char (*m)[RK_GEN_NAME_MAX])
{
	rk__sb_printf(b,
	               "    /**\n"
	               "     * Encodes %s records into row keys and decodes keys back, as the rowkey C library\n"
	               "     * does. Refusals are RowKeyRuntime.RowKeyException (kind INVALID, TOO_LONG or\n"
	               "     * CORRUPT). A random or round-robin salt draws from the codec's state, seeded as\n"
	               "     * the library's encoder is: use one codec per thread.\n"
	               "     */\n"
	               "    public static final class Codec {\n"
	               "        private final RowKeyRuntime.Codec c;\n\n"
	               "        public Codec() {\n            this(0);\n        }\n\n"
	               "        /** seed seeds random salts (0: the library's default). */\n"
	               "        public Codec(long seed) {\n            c = new RowKeyRuntime.Codec(TEMPLATE, seed);\n        }\n\n"
	               "        /** The row key of a record. */\n"
	               "        public byte[] encode(%s record) {\n            return c.encode(record.values());\n        }\n\n"
	               "        /** The record a key holds; fields the key does not carry are null. */\n"
	               "        public %s decode(byte[] key) {\n            return of(c.decode(key));\n        }\n\n"
	               "        /** The bucket a key was written to, or -1 when the design has none. */\n"
	               "        public int bucketOf(byte[] key) {\n            return c.bucket(key);\n        }\n\n"
	               "        /**\n"
	               "         * The key ranges holding every record whose fields equal the ones set in bound, as\n"
	               "         * rowkey's query planner reads them: one range per bucket when the bucket cannot be\n"
	               "         * computed from those fields.\n"
	               "         */\n"
	               "        public java.util.List<RowKeyRuntime.KeyRange> prefixRanges(%s bound) {\n"
	               "            return c.prefixRanges(bound.values(), -1);\n        }\n\n"
	               "        /** The key range of one bucket. */\n"
	               "        public RowKeyRuntime.KeyRange bucketRange(int bucket) {\n"
	               "            return c.bucketRange(bucket);\n        }\n    }\n\n"
	               "    private Object[] values() {\n        return new Object[] {",
	               cls, cls, cls, cls);
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(b, "%sRowKeyRuntime.in(%s, %s, \"%s\")", i ? ",\n                " : "", m[i],
		               java.type[s->ftype[i]], s->fname[i]);
	rk__sb_printf(b, "};\n    }\n\n    private static %s of(Object[] _v) {\n        Builder _b = new Builder();\n", cls);
	for (size_t i = 0; i < s->nfields; i++) {
		const char *bx = boxed(s->ftype[i]);
		if (!strcmp(bx, "Integer"))
			rk__sb_printf(b, "        _b.%s = RowKeyRuntime.toInt(_v[%zu]);\n", m[i], i);
		else if (s->ftype[i] == RK_T_STR)
			rk__sb_printf(b, "        _b.%s = RowKeyRuntime.toStr(_v[%zu], \"%s\");\n", m[i], i, s->fname[i]);
		else
			rk__sb_printf(b, "        _b.%s = (%s) _v[%zu];\n", m[i], bx, i);
	}
	rk__sb_printf(b, "        return _b.build();\n    }\n}\n");
}

int rk_gen__java(rk_gen_file *out, const rk_schema *s, const rk_gen_options *o, const char *name, const char *schema)
{
	char cls[RK_GEN_NAME_MAX], file[RK_GEN_NAME_MAX + 8];
	char m[RK_MAX_FIELDS][RK_GEN_NAME_MAX];
	rk__sb b = {0};
	rk_gen__case(cls, name, RK_CASE_PASCAL);
	if (!strcmp(cls, "RowKeyRuntime"))
		return rk__err(RK_EINVALID, "the name '%s' would overwrite the runtime class RowKeyRuntime", name);
	snprintf(file, sizeof file, "%s.java", cls);
	rk_gen__members(m, s, RK_CASE_CAMEL, reserved);

	rk_gen__header(&b, "//", "java", name, schema);
	if (o->package)
		rk__sb_printf(&b, "\npackage %s;\n", o->package);
	rk__sb_printf(&b, "\n/**\n * A record of the design %s, and its key {@link Codec}: keys encoded and decoded as\n"
	                   " * the rowkey C library does.\n */\n"
	                   "public final class %s {\n"
	                   "    /** The design's schema, as rowkey writes it. */\n    public static final String SCHEMA = ",
	               cls, cls);
	rk_gen__quoted(&b, schema);
	rk__sb_printf(&b, ";\n    /** The version of the key formats the codec implements. */\n"
	                   "    public static final int FORMAT_VERSION = %d;\n"
	                   "    /** The buckets the keys spread over (a salt or bucket part); 1: none. */\n"
	                   "    public static final int BUCKETS = %u;\n"
	                   "    /** (schema field, member, type) of each field, in schema order. */\n"
	                   "    public static final String[][] FIELDS = {",
	               RK_GEN_FORMAT_VERSION, s->info.buckets);
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(&b, "%s{\"%s\", \"%s\", \"%s\"}", i ? ", " : "", s->fname[i], m[i], rk_type__name(s->ftype[i]));
	rk__sb_printf(&b, "};\n\n    private static final RowKeyRuntime.Template TEMPLATE;\n\n    static {\n"
	                   "        if (RowKeyRuntime.FORMAT_VERSION != FORMAT_VERSION)\n"
	                   "            throw new IllegalStateException(\"RowKeyRuntime implements another key format than %s: "
	                   "generate both again\");\n"
	                   "        TEMPLATE = new RowKeyRuntime.Template(%zu, new int[] {",
	               cls, s->max_key_len);
	rk_gen__types(&b, s, &java);
	rk__sb_printf(&b, "}, new String[] {");
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(&b, "%s\"%s\"", i ? ", " : "", s->fname[i]);
	rk__sb_printf(&b, "},\n");
	rk_gen__parts(&b, s, &java, "            ");
	rk__sb_printf(&b, ");\n    }\n\n");
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(&b, "    private final %s %s;\n", boxed(s->ftype[i]), m[i]);
	rk__sb_printf(&b, "\n    private %s(Builder _b) {\n", cls);
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(&b, "        this.%s = _b.%s;\n", m[i], m[i]);
	rk__sb_printf(&b, "    }\n");
	for (size_t i = 0; i < s->nfields; i++) {
		rk__sb_printf(&b, "\n    /** %s: %s. Null when unset. */\n    public %s %s() {\n        return ",
		               rk_type__name(s->ftype[i]), rk_gen__field_role(s, i), boxed(s->ftype[i]), m[i]);
		if (s->ftype[i] == RK_T_BYTES) /* a copy: the record stays immutable */
			rk__sb_printf(&b, "%s == null ? null : %s.clone();\n    }\n", m[i], m[i]);
		else
			rk__sb_printf(&b, "%s;\n    }\n", m[i]);
	}
	rk__sb_printf(&b, "\n    public static Builder builder() {\n        return new Builder();\n    }\n\n"
	                   "    public Builder toBuilder() {\n        Builder _b = new Builder();\n");
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(&b, "        _b.%s = %s;\n", m[i], m[i]);
	rk__sb_printf(&b, "        return _b;\n    }\n\n");
	object_methods(&b, s, cls, m);
	builder(&b, s, cls, m);
	codec(&b, s, cls, m);
	return rk_gen__finish(out, &b, file);
}
