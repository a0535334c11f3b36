/*
 * The Python generator: a module per design with a dataclass for the record,
 * a codec class, and the key template as a table for rowkey_runtime.py.
 * Attributes keep the schema's field names (a keyword gets a trailing "_").
 */
#include <stdio.h>
#include <string.h>

#include "gen/gen_int.h"

static const char *const keywords[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
	"del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
	"lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", NULL};

static void py_bytes(rk__sb *b, const uint8_t *p, size_t n)
{
	rk_gen__bytes_literal(b, p, n, "b", "", 0);
}

static void py_u64(rk__sb *b, uint64_t v)
{
	rk__sb_printf(b, "%llu", (unsigned long long)v);
}

static void py_i64(rk__sb *b, int64_t v)
{
	rk__sb_printf(b, "%lld", (long long)v);
}

static const rk_gen_syntax py = {
	.comment = "#",
	.ctor = {NULL, "_rt.lit", "_rt.val", "_rt.hash_", "_rt.hex_", "_rt.slice_", "_rt.bucket", "_rt.salt", "_rt.psalt"},
	.enc = {NULL, "_rt.E_TEXT", "_rt.E_UINT", "_rt.E_INT", "_rt.E_F64", "_rt.E_DEC", "_rt.E_ESC", "_rt.E_BYTES",
	        "_rt.E_OC", "_rt.E_OB", "_rt.E_PHX"},
	.vop = {NULL, "_rt.V_FIELD", "_rt.V_RTS", "_rt.V_TBUCKET", "_rt.V_REVERSE", "_rt.V_REVLABELS", "_rt.V_REVNUM"},
	.form = {NULL, "_rt.F_BIN", "_rt.F_DEC", "_rt.F_ALPHA"},
	.saltk = {NULL, "_rt.SALT_RANDOM", "_rt.SALT_ROUNDROBIN"},
	.alg = {NULL, "_rt.MD5", "_rt.SHA1", "_rt.SHA256", "_rt.XXH3", "_rt.MURMUR3", "_rt.PHOENIX31"},
	.type = {NULL, "_rt.U8", "_rt.U16", "_rt.U32", "_rt.U64", "_rt.I8", "_rt.I16", "_rt.I32", "_rt.I64", "_rt.F64",
	         "_rt.STR", "_rt.BYTES"},
	.bytes = py_bytes,
	.u64 = py_u64,
	.i64 = py_i64,
	.yes = "True",
	.no = "False",
	.none = "None",
};

static const char *py_type(rk_type t)
{
	return t == RK_T_F64 ? "float" : t == RK_T_STR ? "str" : t == RK_T_BYTES ? "bytes" : "int";
}

/* The module's head: imports, the schema and its fields, the runtime's
 * names, and the key template. */
static void py_head(rk__sb *b, const rk_schema *s, char (*attr)[RK_GEN_NAME_MAX], const char *cls,
                    const char *name, const char *schema)
{
	rk_gen__header(b, "#", "python", name, schema);
	rk__sb_printf(b, "\"\"\"Row keys of the design %s, encoded and decoded as the rowkey C library does.\"\"\"\n"
	                  "from __future__ import annotations\n\n"
	                  "from dataclasses import dataclass\n"
	                  "from typing import List, Optional\n\n"
	                  "try:\n"
	                  "    from . import rowkey_runtime as _rt\n"
	                  "except ImportError:\n"
	                  "    import rowkey_runtime as _rt\n\n",
	               cls);
	rk__sb_printf(b, "SCHEMA = ");
	rk_gen__quoted(b, schema);
	rk__sb_printf(b, "\nFORMAT_VERSION = %d\n"
	                  "#: buckets the keys spread over (a salt or bucket part); 1: none\n"
	                  "BUCKETS = %u\n"
	                  "#: (schema field, attribute, type) of each field, in schema order\n"
	                  "FIELDS = (",
	               RK_GEN_FORMAT_VERSION, s->info.buckets);
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(b, "(\"%s\", \"%s\", \"%s\"),%s", s->fname[i], attr[i], rk_type__name(s->ftype[i]),
		               i + 1 < s->nfields ? " " : "");
	rk__sb_printf(b, ")\n\n"
	                  "RowKeyError = _rt.RowKeyError\n"
	                  "InvalidValueError = _rt.InvalidValueError\n"
	                  "KeyTooLongError = _rt.KeyTooLongError\n"
	                  "CorruptKeyError = _rt.CorruptKeyError\n"
	                  "KeyRange = _rt.KeyRange\n\n"
	                  "if _rt.FORMAT_VERSION != FORMAT_VERSION:\n"
	                  "    raise ImportError(\"rowkey_runtime.py implements key format %%d, this module %%d: \"\n"
	                  "                      \"generate both again\" %% (_rt.FORMAT_VERSION, FORMAT_VERSION))\n\n"
	                  "_TEMPLATE = _rt.Template(%zu, (",
	               s->max_key_len);
	rk_gen__types(b, s, &py);
	rk__sb_printf(b, "%s), (", s->nfields == 1 ? "," : "");
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(b, "\"%s\"%s", s->fname[i], i + 1 < s->nfields || s->nfields == 1 ? ", " : "");
	rk__sb_printf(b, "), (\n");
	rk_gen__parts(b, s, &py, "    ");
	rk__sb_printf(b, ",\n))\n\n\n");
}

/* The record: a dataclass, a field per schema field. */
static void py_record(rk__sb *b, const rk_schema *s, char (*attr)[RK_GEN_NAME_MAX], const char *cls)
{
	rk__sb_printf(b, "@dataclass\nclass %s:\n"
	                  "    \"\"\"A record of the design %s. Encoding needs every field the key holds.\"\"\"\n\n",
	               cls, cls);
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(b, "    %s: Optional[%s] = None\n    \"\"\"%s: %s\"\"\"\n", attr[i], py_type(s->ftype[i]),
		               rk_type__name(s->ftype[i]), rk_gen__field_role(s, i));
}

/* The codec class, and the functions between a record and the runtime's
 * list of values. */
static void py_codec(rk__sb *b, const rk_schema *s, char (*attr)[RK_GEN_NAME_MAX], const char *cls)
{
	rk__sb_printf(b,
	               "\n\nclass %sCodec:\n"
	               "    \"\"\"Encodes %s records into row keys and decodes keys back.\n\n"
	               "    A random or round-robin salt draws from the codec's own state, seeded as the\n"
	               "    C library's encoder is: use one codec per thread.\"\"\"\n\n"
	               "    def __init__(self, seed: int = 0) -> None:\n"
	               "        self._c = _rt.Codec(_TEMPLATE, seed)\n\n"
	               "    def encode(self, record: %s) -> bytes:\n"
	               "        \"\"\"The row key of a record. Raises InvalidValueError, KeyTooLongError.\"\"\"\n"
	               "        return self._c.encode(_values(record))\n\n"
	               "    def decode(self, key: bytes) -> %s:\n"
	               "        \"\"\"The record a key holds; fields the key does not carry are None.\n"
	               "        Raises CorruptKeyError.\"\"\"\n"
	               "        return _record(self._c.decode(key))\n\n"
	               "    def bucket_of(self, key: bytes) -> int:\n"
	               "        \"\"\"The bucket a key was written to, or -1 when the design has none.\"\"\"\n"
	               "        return self._c.bucket(key)\n\n"
	               "    def prefix_ranges(self, bound: %s) -> List[KeyRange]:\n"
	               "        \"\"\"The key ranges holding every record whose fields equal the ones set in\n"
	               "        bound, as rowkey's query planner reads them: one range per bucket when the\n"
	               "        bucket cannot be computed from those fields.\"\"\"\n"
	               "        return self._c.prefix_ranges(_values(bound))\n\n"
	               "    def bucket_range(self, bucket: int) -> KeyRange:\n"
	               "        \"\"\"The key range of one bucket.\"\"\"\n"
	               "        return self._c.bucket_range(bucket)\n\n\n"
	               "def _values(r: %s) -> list:\n"
	               "    return [",
	               cls, cls, cls, cls, cls, cls);
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(b, "%s_rt.value_in(r.%s, %s, \"%s\")", i ? ",\n            " : "", attr[i],
		               py.type[s->ftype[i]], s->fname[i]);
	rk__sb_printf(b, "]\n\n\ndef _record(v: list) -> %s:\n    return %s(", cls, cls);
	for (size_t i = 0; i < s->nfields; i++)
		rk__sb_printf(b, "%s_rt.value_out(v[%zu], %s, \"%s\")", i ? ",\n        " : "", i, py.type[s->ftype[i]],
		               s->fname[i]);
	rk__sb_printf(b, ")\n");
}

int rk_gen__python(rk_gen_file *out, const rk_schema *s, const rk_gen_options *o, const char *name, const char *schema)
{
	char cls[RK_GEN_NAME_MAX], mod[RK_GEN_NAME_MAX], file[RK_GEN_NAME_MAX + 4];
	char attr[RK_MAX_FIELDS][RK_GEN_NAME_MAX];
	rk__sb b = {0};
	(void)o;
	rk_gen__case(cls, name, RK_CASE_PASCAL);
	rk_gen__case(mod, name, RK_CASE_SNAKE);
	if (!strcmp(mod, "rowkey_runtime"))
		return rk__err(RK_EINVALID, "the name '%s' would overwrite the runtime module rowkey_runtime.py", name);
	snprintf(file, sizeof file, "%s.py", mod);
	rk_gen__members(attr, s, RK_CASE_KEEP, keywords);

	py_head(&b, s, attr, cls, name, schema);
	py_record(&b, s, attr, cls);
	py_codec(&b, s, attr, cls);
	return rk_gen__finish(out, &b, file);
}
