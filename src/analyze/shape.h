/*
 * Query shapes: the queries a key must keep cheap, as predicates of
 * `rowkey query` with ? where the data fills in values ("store = ? AND
 * ts >= ? AND ts < ?"), optionally weighted ("5: order_id = ?"), and
 * optionally ordered and limited as the predicate language allows ("uid = ?
 * ORDER BY ts DESC LIMIT 20": a user's twenty newest).
 *
 * A shape is filled from a dataset several times: each ? of an equality,
 * IN or PREFIX takes the value of a record drawn from the data; the ? of a
 * range on a field take two values of that field among the records that
 * match the equalities, a tenth of that group apart in rank (a range that
 * returns rows the data has). Each filled query says how many held records
 * match it, exactly. Pricing a filled query under a design (rk__shape_price)
 * is the key library's planner plus the design's sampled keys.
 */
#ifndef RK_ANALYZE_SHAPE_H
#define RK_ANALYZE_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/analyze.h>

#include "analyze/dataset.h"
#include "analyze/workload.h"

#define RK__SHAPE_CONDS 16
#define RK__SHAPE_SAMPLES 8

typedef enum { RK__Q_EQ = 1, RK__Q_LT, RK__Q_LE, RK__Q_GT, RK__Q_GE, RK__Q_IN, RK__Q_PREFIX } rk__qop;

typedef struct rk__qcond {
	size_t field;
	rk__qop op;
	size_t nvals;        /* IN: values; else 1 */
	int lit;             /* 1: a literal written in the template; 0: ? */
	size_t lit_off, lit_len; /* the literal in the shape's lits */
} rk__qcond;

typedef struct rk__qsample {
	char *where;         /* the filled predicate */
	uint64_t rows;       /* rows it returns: the held records that match it, at most LIMIT */
	uint64_t matched;    /* held records that match its conditions */
} rk__qsample;

typedef struct rk__qshape {
	char *name, *where;  /* the template as given (name: as the workload names it) */
	double weight;
	rk__qcond c[RK__SHAPE_CONDS];
	size_t n;
	uint64_t eq_mask;    /* fields bound by =, IN or PREFIX */
	uint64_t range_mask; /* fields bound by <, <=, >, >= */
	int order_field;     /* ORDER BY this field (dataset index), or -1 */
	int order_desc;      /* 1: ORDER BY ... DESC (the newest first, for a time) */
	uint64_t limit;      /* LIMIT n, or 0 */
	rk__qsample s[RK__SHAPE_SAMPLES];
	size_t ns;
	char lits[1024];     /* the template's literals, unescaped (lit points here) */
	size_t lits_len;
} rk__qshape;

typedef struct rk__qset {
	rk__qshape *q;
	size_t n;
	uint64_t records;    /* the dataset's records (rows a full scan reads) */
} rk__qset;

/* Parses the template text of one shape against the dataset's fields.
 * RK_EINVALID names the column and what was expected. */
int rk__shape_parse(rk__qshape *out, const char *text, const rk__dataset *d);

/* The workload's shapes parsed and filled from the dataset (seeded).
 * RK_EINVALID for a template that does not parse. Free with rk__qset_free. */
int rk__qset_build(rk__qset *out, const rk__workload *w, const rk__dataset *d, uint64_t seed);
void rk__qset_free(rk__qset *q);

/* Adds one shape, filled from the dataset (the advisor's lookup by the
 * identifying fields when no shape was given). */
int rk__qset_add(rk__qset *q, const char *where, const char *name, const rk__dataset *d,
                 uint64_t seed);

#endif
