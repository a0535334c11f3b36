/*
 * Private to src/gen: what the four language generators share. gen.c walks
 * the parsed schema (src/key/schema_int.h) once for all of them: names in
 * each language's case, the key template as a table of constructor calls
 * in the language's syntax, string literals and the header comment. A
 * language file says only what differs: its record type, its codec class
 * and its syntax.
 */
#ifndef RK_GEN_GEN_INT_H
#define RK_GEN_GEN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "gen/gen.h"
#include "key/error.h"
#include "key/strbuf.h"
#include "key/schema_int.h"

/* Moves the buffer into a file named `name` (copied); RK_ENOMEM when the
 * buffer or the copy ran out of memory. The buffer is emptied either way. */
int rk_gen__finish(rk_gen_file *f, rk__sb *b, const char *name);

/* ---- names ---- */

typedef enum { RK_CASE_KEEP = 1, RK_CASE_PASCAL, RK_CASE_CAMEL, RK_CASE_SNAKE } rk_gen_case;

#define RK_GEN_NAME_MAX 320 /* an identifier (at most 255 bytes) with suffixes */

/* An identifier in another case: "user_id" -> UserId, userId, user_id;
 * "EventKey" -> event_key in snake case. A name that would be empty or
 * start with a digit gets a leading "f" (field) or "F". */
void rk_gen__case(char out[RK_GEN_NAME_MAX], const char *in, rk_gen_case c);

/* The fields' member names in a language: the case applied, then "_"
 * appended while the name is reserved (a NULL-terminated list: keywords and
 * the generated type's own members) or taken by an earlier field. */
void rk_gen__members(char (*out)[RK_GEN_NAME_MAX], const rk_schema *s, rk_gen_case c, const char *const *reserved_names);

/* The design's name: the option, the schema's `name`, or "RowKey", as
 * given (callers apply their case). RK_EINVALID unless it is a letter then
 * letters, digits and '_'. */
int rk_gen__design_name(char out[RK_GEN_NAME_MAX], const rk_schema *s, const rk_gen_options *o);

/* ---- the key template as a table of parts ---- */

/* How a language writes the runtime's part constructors and constants;
 * arrays are indexed by the enum values of schema_int.h and hash.h. */
typedef struct rk_gen_syntax {
	const char *comment;   /* a line comment: "//" or "#" */
	const char *ctor[9];   /* by rk_part_kind: lit val hash hex slice bucket salt psalt */
	const char *enc[11];   /* by rk_enc_kind */
	const char *vop[7];    /* by rk_val_op */
	const char *form[4];   /* by rk_bucket_form */
	const char *saltk[3];  /* by rk_salt_kind */
	const char *alg[7];    /* by rk_hash_alg */
	const char *type[12];  /* by rk_type */
	void (*bytes)(rk__sb *b, const uint8_t *p, size_t n); /* a byte-string literal */
	void (*u64)(rk__sb *b, uint64_t v);
	void (*i64)(rk__sb *b, int64_t v);
	const char *yes, *no, *none;
} rk_gen_syntax;

/* The template's parts as constructor calls, one top-level part a line,
 * each after a comment holding the part's schema text, each line started
 * by `indent`, separated by ",\n" (no newline after the last). */
void rk_gen__parts(rk__sb *b, const rk_schema *s, const rk_gen_syntax *syn, const char *indent);

/* The field types as a list of the syntax's type constants: "A, B, C". */
void rk_gen__types(rk__sb *b, const rk_schema *s, const rk_gen_syntax *syn);

/* ---- literals and comments ---- */

/* A double-quoted string literal of printable ASCII (the schema text and
 * names): " and \ escaped, valid in Java, Python, Go and TypeScript. */
void rk_gen__quoted(rk__sb *b, const char *s);

/* Bytes as open + a double-quoted string + close: printable ASCII as it is,
 * other bytes, " and \ as \xNN, or as three octal digits when octal (Java,
 * where \u escapes are read before the string is). */
void rk_gen__bytes_literal(rk__sb *b, const uint8_t *p, size_t n, const char *open, const char *close, int octal);

/* The opening comment of a generated file: generated, do not edit, how to
 * generate it again, the format version and the schema text. */
void rk_gen__header(rk__sb *b, const char *comment, const char *lang, const char *name, const char *schema);

/* What the key does with field i, for the record type's documentation:
 * decoded, only hashed (decode leaves it unset), or not in the key. */
const char *rk_gen__field_role(const rk_schema *s, size_t i);

/* ---- the languages ---- */

/* Each fills out with the design's file; `name` is rk_gen__design_name's,
 * `schema` the canonical schema text (rk_schema_text). */
int rk_gen__java(rk_gen_file *out, const rk_schema *s, const rk_gen_options *o, const char *name, const char *schema);
int rk_gen__python(rk_gen_file *out, const rk_schema *s, const rk_gen_options *o, const char *name,
                   const char *schema);
int rk_gen__go(rk_gen_file *out, const rk_schema *s, const rk_gen_options *o, const char *name, const char *schema);
int rk_gen__ts(rk_gen_file *out, const rk_schema *s, const rk_gen_options *o, const char *name, const char *schema);

/* The runtimes, src/gen/runtime/ embedded at build time (runtime.cmake). */
extern const char rk_gen__runtime_java[], rk_gen__runtime_python[], rk_gen__runtime_go[], rk_gen__runtime_ts[];
extern const size_t rk_gen__runtime_java_len, rk_gen__runtime_python_len, rk_gen__runtime_go_len,
	rk_gen__runtime_ts_len;

#endif
