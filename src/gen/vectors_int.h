/*
 * Private to the test vectors (vectors.c draws and writes them,
 * vectors_json.c writes their values as JSON).
 */
#ifndef RK_GEN_VECTORS_INT_H
#define RK_GEN_VECTORS_INT_H

#include <stdint.h>
#include <stdio.h>

#include "key/schema_int.h"

typedef struct rk_vec {
	const rk_schema *s;
	rk_encoder *e;
	FILE *out;
	uint64_t rng;
	uint8_t seps[64]; /* bytes of the key's literals */
	size_t nseps;
	uint8_t *store;   /* the current record's strings */
	size_t used, cap;
	rk_value vals[RK_MAX_FIELDS];
	rk_value dec[RK_MAX_FIELDS];
	uint8_t *key, *key2; /* a key, and a damaged copy */
	size_t klen;
	char *pred;       /* predicate text */
	size_t pred_cap;
} rk_vec;

/* A JSON string of the bytes when they are UTF-8, else {"hex": "..."}. */
void rk_vec__json_bytes(FILE *out, const uint8_t *p, size_t n);

/* A JSON string of lower-case hex. */
void rk_vec__json_hex(FILE *out, const uint8_t *p, size_t n);

/* The present values as a JSON object by field name: integers up to 32 bits
 * as numbers, 64-bit ones as decimal strings, f64 as a number or "inf",
 * "-inf", "nan", str as a string, bytes as hex. */
void rk_vec__json_fields(const rk_vec *v, const rk_value *vals);

/* 1 when the bytes are UTF-8 as RFC 3629 defines it (no surrogates, no
 * overlong forms, nothing past U+10FFFF). */
int rk_vec__utf8(const uint8_t *p, size_t n);

#endif
