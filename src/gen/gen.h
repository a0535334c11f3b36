/*
 * Test vectors that prove an implementation of a key design equal to the C
 * library (docs/formats.md part E): what the rowkey command calls (vectors).
 */
#ifndef RK_GEN_GEN_H
#define RK_GEN_GEN_H

#include <stdint.h>
#include <stdio.h>

#include <rowkey/key.h>

/* The version of the key byte formats (docs/formats.md part A) the vectors
 * hold; written into every vector file. */
#define RK_GEN_FORMAT_VERSION 1

/* Writes test vectors as JSON lines (docs/formats.md part E): a header,
 * then for each of n random records an encode vector, for every other record
 * a decode vector of its key damaged, and for every fourth a prefix vector
 * (the planner's ranges for some of its fields bound). Deterministic for a
 * seed, which also seeds the encoder's random salts. Returns 0, or RK_EIO
 * when out cannot be written. */
int rk_gen_vectors(FILE *out, const rk_schema *s, size_t n, uint64_t seed);

#endif
