/*
 * Streaming statistics of one field of a record stream, in constant memory
 * per field: what the values look like (integers, decimals, ISO-8601 times,
 * dates in a named format, text: the type a profile infers), empties, lengths, the distinct count
 * (HyperLogLog, 4096 registers: about 1.6% standard error), and how often
 * a value is at least the one before it (the monotonic share).
 *
 * Exact counts and the most frequent values come from the records the
 * dataset holds (profile.c); these are what remain true for a stream of any
 * length.
 */
#ifndef RK_ANALYZE_FSTATS_H
#define RK_ANALYZE_FSTATS_H

#include <stddef.h>
#include <stdint.h>

#define RK__HLL_BITS 12
#define RK__TOP_TEXT 48 /* bytes of a frequent value kept for display */
#define RK__DATEFMTS 31 /* date formats a profile recognises (fstats.c) */

/* What the text of the values says about their type. */
typedef struct rk__shape_counts {
	uint64_t ints;      /* -?[0-9]+ that fits 64 bits */
	uint64_t lead0;     /* integers written with a leading zero ("007"): identifiers */
	uint64_t decs;      /* other numbers: decimals, exponents */
	uint64_t isos;      /* ISO-8601 date-times */
	uint64_t dates;     /* dates in one of the named formats (rk__fstats_datefmt) */
	uint32_t dfmts;     /* bit k: every one of those dates reads in format k */
	uint64_t texts;     /* anything else */
	int neg;            /* some integer is negative */
	int big;            /* some integer is over INT64_MAX */
} rk__shape_counts;

typedef struct rk__fstats {
	uint64_t cells;     /* values seen, empties included */
	uint64_t empties;   /* empty text or absent */
	rk__shape_counts shape;
	double min, max;    /* numbers (integers and decimals) */
	int have_num;
	int64_t iso_min, iso_max; /* ISO-8601 values as Unix ms */
	/* per named date format k: the least and greatest value as Unix ms, and
	 * the consecutive pairs in order (the order depends on the format:
	 * 01/02 and 02/01 swap under %d/%m) */
	int64_t dmin[RK__DATEFMTS], dmax[RK__DATEFMTS], dprev[RK__DATEFMTS];
	uint64_t dpairs, dge[RK__DATEFMTS];
	size_t len_min, len_max;
	uint64_t len_sum;
	/* monotonic: pairs of consecutive non-empty values, and those where the
	 * value is >= the one before, compared as numbers (when both are) and as
	 * bytes */
	uint64_t pairs, ge_num, num_pairs, ge_bytes;
	int prev_kind;      /* 0 none, 1 number, 2 text */
	double prev_num;
	uint8_t prev_text[64];
	size_t prev_len;
	uint8_t hll[1 << RK__HLL_BITS];
} rk__fstats;

void rk__fstats_init(rk__fstats *s);

/* One value as text (a cell of a file); absent: an absent value. */
void rk__fstats_text(rk__fstats *s, const char *p, size_t n, int absent);

/* One typed value of a generated workload (no inference needed). */
void rk__fstats_u64(rk__fstats *s, uint64_t v);
void rk__fstats_i64(rk__fstats *s, int64_t v);

/* Date formats (timefmt.h) a profile recognises, in order of preference
 * (%m/%d/%Y before %d/%m/%Y): the k-th, or NULL past the last. */
const char *rk__fstats_datefmt(int k);

/* The format every non-empty value is a date in (the first such), or -1;
 * *also gets another format that fits every value as well, or -1. */
int rk__fstats_date_format(const rk__fstats *s, int *also);

/* The HyperLogLog estimate of distinct values. */
double rk__fstats_distinct(const rk__fstats *s);

/* The share of consecutive values that are >= the one before, as numbers
 * when `numeric` (the field's type is a number), else as bytes. */
double rk__fstats_monotonic(const rk__fstats *s, int numeric);

/* The 64-bit hash of a value's bytes, as the statistics use it. */
uint64_t rk__fstats_hash(const void *p, size_t n);

#endif
