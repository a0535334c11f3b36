/*
 * The profile's state, shared by profile.c (building it: exact figures and
 * the identifying field sets) and profile_out.c (text and JSON), and read by
 * the advisor, which keeps the profile's dataset to replay and price
 * queries on.
 */
#ifndef RK_ANALYZE_PROFILE_INT_H
#define RK_ANALYZE_PROFILE_INT_H

#include <rowkey/analyze.h>

#include "analyze/dataset.h"

#define RK__MAX_UNIQUE 8
#define RK__UNIQUE_MAX_FIELDS 4

struct rk_profile {
	rk__dataset *d;
	int own;                     /* 1: d is freed with the profile */
	rk_field_profile f[64];
	char top_text[64][5][RK__TOP_TEXT + 4];
	size_t nunique;
	size_t unique_n[RK__MAX_UNIQUE];
	size_t unique[RK__MAX_UNIQUE][64];
	int unique_all;              /* the sets needed every field, decimals included */
	uint64_t duplicates;         /* records repeating another on every field */
	int unique_has_decimal;      /* the smallest sets include an f64 field */
};

/* Builds a profile over a dataset (borrowed when own is 0). */
int rk__profile_of(rk_profile **out, rk__dataset *d, int own);

/* The dataset behind a profile (borrowed). */
rk__dataset *rk__profile_dataset(const rk_profile *p);

#endif
