/*
 * The parsed form of a predicate (predicate.c), shared with the planner:
 * its conditions, one per `field OP value`, the value order they use, and
 * the ORDER BY and LIMIT that may end it.
 */
#ifndef RK_KEY_PREDICATE_INT_H
#define RK_KEY_PREDICATE_INT_H

#include <rowkey/key.h>

#include "key/schema_int.h"

typedef enum { C_EQ = 1, C_IN, C_LT, C_LE, C_GT, C_GE, C_BETWEEN, C_PREFIX } cond_op;

typedef struct {
	int field;
	cond_op op;
	rk_value *vals; /* owned copies (strings point into `store`) */
	size_t nvals;
	int col;        /* where it was written */
} cond;

struct rk_predicate {
	const rk_schema *s;
	cond *conds;
	size_t nconds;
	char *store; /* copied string literals */
	size_t store_len, store_cap;
	int order_field;  /* ORDER BY: its field, or -1 */
	int order_desc;   /* 1: ORDER BY ... DESC */
	uint64_t limit;   /* LIMIT n, 0: none */
};

/* The order of two values of type t (-1, 0, 1): numbers by value, f64 by
 * its order-preserving bits, strings and bytes bytewise. */
int rk_pred__value_cmp(rk_type t, const rk_value *a, const rk_value *b);

/* 1 when string value v starts with pre. */
int rk_pred__starts_with(const rk_value *v, const rk_value *pre);

#endif
