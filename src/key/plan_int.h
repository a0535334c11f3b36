/*
 * What the planner's files share: the per-field constraints a predicate
 * folds into (plan_cons.c), the planner's state (plan.c walks the key
 * template; plan_ranges.c turns where the walk stopped into gets or ranges).
 */
#ifndef RK_KEY_PLAN_INT_H
#define RK_KEY_PLAN_INT_H

#include <rowkey/key.h>

#include "key/error.h"
#include "key/schema_int.h"

/* ---- per-field constraints ---- */

typedef struct {
	const rk_value *eq; /* the values of = / IN (intersected), or NULL */
	size_t neq;
	rk_value *eqbuf;    /* owned when intersected */
	const rk_value *lo, *hi; /* range bounds, or NULL */
	int lo_incl, hi_incl;
	const rk_value *prefix;
} fcons;

/* Folds every condition of p into fc (one per field of its schema, zeroed
 * by the caller). RK_EINVALID when conditions on a field cannot all hold. */
int rk_plan__gather(fcons *fc, const rk_predicate *p);

/* Frees what rk_plan__gather allocated in fc[0..n). */
void rk_plan__cons_free(fcons *fc, size_t n);

/* ---- the planner ---- */

#define RK_PLAN_MAX 65536 /* keys or ranges a plan may expand to */

/* A key prefix: its bytes, and its logical form (rk_key_logical: the same
 * bytes without those of the parts that only place a row). */
typedef struct {
	uint8_t *bytes;
	size_t len;
	uint8_t *lbytes;
	size_t llen, lcap;
	uint32_t *choice; /* per field: index into its eq values */
	int bucket;
} state;

/* A range of the plan being built, and the bounds on the logical forms of
 * the keys it holds (start inclusive; stop exclusive, NULL: unbounded). */
typedef struct {
	rk_key_range r, l;
} rk__rpair;

typedef struct {
	const rk_schema *s;
	rk_encoder *enc;
	fcons *fc;
	state *st;
	size_t nst;
	uint8_t *buf; /* scratch of max_key_len */
	rk_value vals[RK_MAX_FIELDS];
	char *words;
	size_t wlen, wcap;
	size_t max;   /* rk_plan_options.max_ranges */
	int capped;   /* the bound stopped the walk */
	rk_plan *plan;
	rk__rpair *pairs;  /* the plan's ranges while they are built */
	size_t npairs, pcap;
	uint64_t eqmask;   /* fields bound by = / IN */
	uint64_t expanded; /* fields whose values the key prefixes were expanded over */
	uint64_t covered;  /* fields whose conditions the key bytes enforce exactly */
	const rk_part *stop_part; /* the part the walk stopped on, or NULL */
	size_t stop_at;    /* its index (nparts: every part was bound) */
	int fanned;        /* a salt or bucket forked the prefixes */
	int salt_capped;   /* a Phoenix salt over a bound key was over the bound */
} planner;

/* ---- plan_state.c ---- */

/* Appends printf-style words to the plan's explanation. */
void rk_plan__say(planner *pl, const char *fmt, ...) RK_PRINTF(2, 3);

/* The canonical text of part p, into buf (for the explanation). */
const char *rk_plan__part_words(const rk_schema *s, const rk_part *p, char *buf, size_t cap);

/* How many key prefixes expanding the fields in `mask` not yet expanded
 * (`done`) would make, saturating at SIZE_MAX. */
size_t rk_plan__expansion(const planner *pl, uint64_t mask, uint64_t done);

/* The bound is reached before part p: said, and the walk stops there. */
void rk_plan__cap_at(planner *pl, const rk_part *p, size_t would);

/* The field values of a state (its = / IN choices) into pl->vals. */
void rk_plan__state_values(planner *pl, const state *st);

/* Expands the key prefixes over the = / IN values of every field in `mask`
 * not yet expanded (bit set in *done). */
int rk_plan__expand_fields(planner *pl, uint64_t mask, uint64_t *done);

/* Frees states st[0..n). */
void rk_plan__states_free(state *st, size_t n);
/* Replaces the state set by `mult` copies of each (the caller fills them). */
int rk_plan__states_fork(planner *pl, size_t mult);
/* Appends n bytes to a state's logical form. */
int rk_plan__append_logical(state *st, const uint8_t *b, size_t n);
/* Appends bound part p's bytes under state st's values to st. */
int rk_plan__append_part(planner *pl, state *st, const rk_part *p);

/* ---- plan_ranges.c ---- */

/* The plan's gets (every key part bound), or its ranges, into pl->pairs. */
int rk_plan__make_gets(planner *pl);
int rk_plan__make_ranges(planner *pl);

/* 1 when part p's bytes keep its field's order, so a range (is_prefix 0)
 * or a string prefix (1) on the field is one tight key range. */
int rk_plan__range_capable(const rk_part *p, int is_prefix);

/* Frees pairs[0..n). */
void rk_plan__pairs_free(rk__rpair *pairs, size_t n);

/* Smallest key above every key that starts with p[0..n) (out may be p): 0
 * when there is none (unbounded). */
size_t rk_plan__prefix_end(uint8_t *out, const uint8_t *p, size_t n);

/* Lists pl->pairs in the plan in logical order, grouped into streams, and
 * says whether a range's rows come in logical order (plan_order.c). The
 * pairs move into the plan. When the rows of a range do not, *unordered_by
 * gets the first part that places rows inside a range. */
int rk_plan__order(planner *pl, const rk_part **unordered_by);

/* ---- plan_orderby.c ---- */

/* The predicate's ORDER BY and LIMIT into the plan: whether reading it
 * forward, backward, or only a sort of every matching row gives that
 * order (rk_plan.order_by), said in words. */
void rk_plan__order_by(planner *pl, const rk_predicate *pred);

#endif
