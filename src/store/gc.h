/*
 * Garbage-collection rules of column families (rk_gc_rule in store.h) as
 * the store keeps them: checked once, then held as a flat array of nodes in
 * prefix order (a node, then each of its sub-rules' subtrees), evaluated per
 * version by every read (rowasm.c) and by the local store's collection, and
 * written to META as bytes (docs/formats.md B.2). Backend-neutral.
 */
#ifndef RK_STORE_GC_H
#define RK_STORE_GC_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/store.h>

typedef struct rk__gcnode {
	uint8_t kind;      /* rk_gc_kind */
	uint8_t nkids;     /* UNION / INTERSECTION: direct sub-rules */
	uint16_t size;     /* nodes in this subtree, itself included */
	uint32_t versions; /* VERSIONS */
	uint64_t age_us;   /* AGE */
} rk__gcnode;

typedef struct rk__gc {
	size_t n;
	rk__gcnode node[]; /* node[0] is the root */
} rk__gc;

/* Checks r (depth, counts, values): RK_EINVALID naming table, family and
 * the rule's path ("gc.rules[1]") otherwise. */
int rk_gc__check(const rk_gc_rule *r, const char *table, const char *family);

/* The compiled form of a checked rule; *out NULL for a rule that is a plain
 * version count (*versions gets it) or keeps everything (UINT32_MAX), which
 * families keep as max_versions alone. Otherwise *versions gets the most
 * versions the rule ever keeps (UINT32_MAX: no bound). The caller owns *out
 * (free()). */
int rk_gc__compile(rk__gc **out, unsigned *versions, const rk_gc_rule *r);

/* 1 when the rule collects a version: the rank-th undeleted version of its
 * column (1 the newest), with timestamp ts, at time now (microseconds). */
int rk_gc__collects(const rk__gc *g, unsigned rank, uint64_t ts, uint64_t now);

/* 1 when the rule has an age part (what it collects changes with time). */
int rk_gc__has_age(const rk__gc *g);

/* A copy (NULL for NULL); NULL with the error set when out of memory. */
rk__gc *rk_gc__dup(const rk__gc *g);

/* The public tree of a compiled rule, in one allocation the caller frees
 * with free(). */
int rk_gc__to_rule(rk_gc_rule **out, const rk__gc *g);

/* The bytes of a rule (formats.md B.2 gc_rule): rk_gc__encoded_len of them
 * written at dst. Decoding checks them as hostile (RK_ECORRUPT, with what
 * is wrong in the message) and compiles them as rk_gc__compile does. */
size_t rk_gc__encoded_len(const rk__gc *g);
void rk_gc__encode(uint8_t *dst, const rk__gc *g);
int rk_gc__decode(rk__gc **out, const uint8_t *b, size_t len);

/* Wall-clock microseconds (the "now" of age rules). */
uint64_t rk_gc__now(void);

#endif
