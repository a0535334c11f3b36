/*
 * Generators of key encoders for other languages (schema -> source), and the
 * test vectors that prove an implementation equal to the C library. What
 * the rowkey command calls (gen, vectors); docs/gen.md describes the output.
 *
 * A generated encoder is two files: the design's own (its record type, its
 * key template as a table of parts, the codec that wraps them) and the
 * language's runtime (the field codecs, hashes, encoder, decoder and range
 * planner that walk such tables: the same file for every design). Both use
 * the language's standard library only.
 */
#ifndef RK_GEN_GEN_H
#define RK_GEN_GEN_H

#include <stdint.h>
#include <stdio.h>

#include <rowkey/key.h>

/* The version of the key byte formats (docs/formats.md part A) a generated
 * encoder implements; written into every generated file and vector file. */
#define RK_GEN_FORMAT_VERSION 1

typedef enum rk_gen_lang { RK_GEN_JAVA = 1, RK_GEN_PYTHON, RK_GEN_GO, RK_GEN_TS } rk_gen_lang;

/* Parses "java", "python", "go" or "ts" (also "typescript", "py"). */
int rk_gen_lang_parse(rk_gen_lang *out, const char *s);

typedef struct rk_gen_options {
	rk_gen_lang lang;
	const char *name;    /* the design's name; NULL: the schema's `name`, else "RowKey" */
	const char *package; /* Java package (NULL: none) or Go package (NULL: "rowkey") */
} rk_gen_options;

/* One generated source file: its name (no directory) and its text. */
typedef struct rk_gen_file {
	char *name;
	char *text;
	size_t len;
} rk_gen_file;

/* Generates the design's file into out[0] and the runtime into out[1]. The
 * caller frees both with rk_gen_files_free. RK_EINVALID when the name or
 * package is not usable in the language (the message says why). */
int rk_gen_source(rk_gen_file out[2], const rk_schema *s, const rk_gen_options *o);
void rk_gen_files_free(rk_gen_file *files, size_t n);

/* Writes test vectors as JSON lines (docs/formats.md part E): a header,
 * then for each of n random records an encode vector, for every other record
 * a decode vector of its key damaged, and for every fourth a prefix vector
 * (the planner's ranges for some of its fields bound). Deterministic for a
 * seed, which also seeds the encoder's random salts. Returns 0, or RK_EIO
 * when out cannot be written. */
int rk_gen_vectors(FILE *out, const rk_schema *s, size_t n, uint64_t seed);

#endif
