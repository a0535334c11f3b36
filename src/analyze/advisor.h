/*
 * The advisor's candidates: key designs built from the data's profile and
 * the query shapes, as an HBase or Bigtable engineer builds them
 * (docs/advisor.md, "How candidates are made").
 *
 * Every candidate is a key of whole fields, typed by the profile:
 *   - the identifying fields (the profile's smallest unique set, or a
 *     uniquifier when the data has none) are always in the key, so no two
 *     records share a key;
 *   - a query shape's equality fields lead, its range field follows, then
 *     the rest of the identifying fields (the shape reads one range);
 *   - fields no shape binds and uniqueness does not need stay out;
 *   - numbers and times are fixed-width binary (u64, i64, f64), text is
 *     escaped (esc) so composite keys sort field by field.
 * Each such base key comes plain, with a hash bucket of its equality fields
 * in front (writes spread, the shape still reads one range), and salted by
 * the identifying fields (everything spreads, the shape reads one range per
 * bucket). With no shapes the base is the identifying fields, plus a
 * well-spread field promoted in front when the lead rises.
 */
#ifndef RK_ANALYZE_ADVISOR_H
#define RK_ANALYZE_ADVISOR_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/source.h"

#define RK__MAX_CANDIDATES 64

typedef struct rk__cand {
	char label[400];
	char key[1200];      /* the key template */
	int shape;           /* the shape the base serves, or -1 */
	const char *variant; /* "plain", "hashed", "salted", "promoted", "current" */
} rk__cand;

typedef struct rk__candidates {
	rk__cand c[RK__MAX_CANDIDATES + 1]; /* + the table's own design */
	size_t n;
	size_t not_tried;    /* designs past RK__MAX_CANDIDATES, never simulated */
	char fields[4096];   /* the schema's fields directive */
	size_t ident[8], nident; /* the identifying fields used (dataset indexes) */
	int uniquifier;      /* 1: no field set identifies a record: a "seq" field was added;
	                        2: the profile's set repeated in the whole file: added after it */
	int time_identity;   /* 1: only time fields identify a record (two events in one
	                        tick would share a key) */
	int implicit_shape;  /* 1: no shapes were given; a lookup by the identifying fields was added */
} rk__candidates;

/* Builds the candidates for the source's data and shapes on `servers`.
 * May add a uniquifier field to the source's dataset and a lookup shape to
 * its shapes; with uniquifier set, adds one whatever the profile's
 * identifying sets (they were checked on part of the data only, and the
 * whole of it showed them to collide). RK_EINVALID when a field name cannot
 * be a schema name. */
int rk__candidates_build(rk__candidates *out, rk__source *src, unsigned servers, int uniquifier);

/* Adds key template `key` (labelled, of `variant`) unless the candidates
 * are full; when one has that key already, its label gains "(label)". */
void rk__candidates_add(rk__candidates *c, const char *label, const char *key, const char *variant);

#endif
