/*
 * The analyzer's native field values: what a workload's operations and a
 * dataset's columns carry before bind.c gives them a schema's field types.
 */
#ifndef RK_ANALYZE_WVAL_H
#define RK_ANALYZE_WVAL_H

#include <stddef.h>
#include <stdint.h>

typedef enum { RK__W_U64 = 1, RK__W_I64 = 2, RK__W_STR = 3, RK__W_F64 = 4 } rk__wkind;

typedef struct rk__wval {
	int ext;        /* 0: a value; -1: the smallest of its type; +1: the largest;
	                   2: absent (a file record without the field) */
	int has_text;   /* a number that also has its text in s (as a file wrote it) */
	uint64_t u;     /* U64 */
	int64_t i;      /* I64 */
	double f;       /* F64 */
	const char *s;  /* STR (and numbers with has_text): borrowed until the next call */
	size_t len;
} rk__wval;

typedef struct rk__wfield {
	char name[64];
	rk__wkind kind;
} rk__wfield;

#endif
