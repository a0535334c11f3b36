/*
 * Internals shared by the analyzer's files: the binder (workload values ->
 * a schema's typed field values), key ranges of queries, the analysis object
 * that the simulator (sim.c) and the store run (storerun.c) fill and that
 * report.c and heatmap.c render.
 */
#ifndef RK_ANALYZE_INT_H
#define RK_ANALYZE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/analyze.h>
#include <rowkey/store.h>

#include "key/units.h"
#include "key/strbuf.h"
#include "analyze/workload.h"
#include "key/keytext.h"

/* ---- binder ---- */

typedef struct rk__binder {
	size_t nf;         /* schema fields */
	int src[64];       /* workload field index per schema field, or -1 */
	rk__wkind kind[64]; /* the workload field's kind */
	rk_type type[64];
	char buf[64][48];  /* text of numbers bound to str fields */
	rk_value vals[64];
	const char *design;
	const rk__workload *w;
} rk__binder;

/* Maps the schema's fields onto the workload's by name. RK_EINVALID when
 * a field the key needs is not a field of the workload (the message names
 * it and lists the workload's fields), or the schema has over 64 fields. */
int rk__bind_init(rk__binder *b, const rk_schema *s, const rk__workload *w, const char *design);

/* Converts one record; returns the values (inside b) or NULL with an error
 * (a value that does not fit the field's type). */
const rk_value *rk__bind(rk__binder *b, const rk__wval *rec);

/* ---- key ranges of a query ---- */

/* The bucket prefixes of a design (sorted, distinct), found by encoding
 * sampled records. */
typedef struct rk__prefixes {
	size_t n, len;    /* count, bytes each */
	uint8_t *p;       /* n * len bytes */
} rk__prefixes;

enum { RK__HI_INCLUSIVE, RK__HI_EXCLUSIVE, RK__HI_NONE };

typedef struct rk__range {
	uint8_t *lo, *hi; /* lo inclusive; hi as hi_kind says (NONE: unbounded) */
	size_t lo_len, hi_len;
	int hi_kind;
} rk__range;

/* The key ranges a query reads, from the key library's planner
 * (rk_plan_build): the query's bounds become a predicate ("=" for a bound
 * field, BETWEEN for a range, nothing for an open field). */
typedef struct rk__ranger_memo rk__ranger_memo;

typedef struct rk__ranger {
	const rk_schema *schema;
	rk__binder *bind;
	rk__range *r;     /* n ranges (cap_r allocated) */
	size_t n, cap_r;
	int full;         /* 1: the plan is a full scan */
	int get;          /* 1: point gets */
	rk__ranger_memo *memo; /* the plans of recent predicates: a workload's
	                          reads repeat their popular values */
} rk__ranger;

int rk__ranger_init(rk__ranger *g, const rk_schema *s, rk__binder *b);
void rk__ranger_fini(rk__ranger *g);

/* Plans the query whose bounds are lo / hi. An error when the planner
 * rejects it (message names the design and the predicate). */
int rk__ranger_plan(rk__ranger *g, const rk__wval *lo, const rk__wval *hi);

/* ---- the analysis ---- */

typedef struct rk__region_row {
	uint8_t *start, *end; /* end NULL: unbounded */
	size_t start_len, end_len;
	unsigned server;
	uint64_t id, writes, reads;
	uint32_t first, len;  /* time buckets of the series */
	uint64_t *wr;         /* len pairs: writes, reads per time bucket */
} rk__region_row;

struct rk_analysis {
	char *design, *workload, *schema_text;
	rk_report rep;
	double *share;           /* per server */
	uint64_t *srv_writes;    /* per server totals */
	rk_query_cost *queries;
	char **query_str;        /* 2 per query: its name and predicate (owned) */
	rk_query_fill **fills;   /* per query: its filled queries as priced (owned) */
	char *verdict;
	char lead[64];           /* the key's leading field from describe, or "" */
	double mono;             /* fraction of writes whose key sorts after the previous */
	double hot_load;         /* hottest server's work per operation, time-weighted */
	/* heatmap (simulator only) */
	size_t rows, cols;
	uint64_t *hw, *hr;
	uint8_t **row_key;
	size_t *row_key_len;
	double col_s;
	uint32_t *first2;        /* heat row of each 2-byte key prefix (65537 entries) */
	size_t last_row;         /* the row found last (growing keys hit it again) */
	/* per server and time bucket: writes and read visits (cols x servers) */
	uint64_t *sw, *sr;
	/* final regions */
	rk__region_row *regions;
	size_t nregions;
	/* schema info */
	rk_schema_info info;
	/* the table's initial split points (owned) */
	uint8_t **split;
	size_t *split_len, nsplits;
	/* causes (causes.c): strings owned here */
	rk_cause causes[16];
	char *cause_str[16][4]; /* text, remedy, value, field */
	size_t ncauses;
	/* pictures: wall-clock start of column 0 in Unix ms (0: virtual time from
	 * 0 s), bytes written per heat cell (NULL: not recorded) */
	int64_t t0_ms;
	uint64_t *hb;
};

/* Allocates an analysis with the common fields set. */
rk_analysis *rk__analysis_new(const char *design, const char *workload, const char *engine,
                              unsigned servers);

typedef struct rk_workload_source rk__source;

/* Computes the derived metrics (shares, effective servers, ...), the causes
 * and the verdict from rep.writes, srv_writes, sw/sr, queries; src (may be
 * NULL) gives the data's profile the causes cite. */
int rk__analysis_finish(rk_analysis *a, const rk_schema *schema, const rk__source *src,
                        const rk_analyze_options *o);

/* The causes of the run's write spread and read costs (a->causes) and the
 * verdict built from them (causes.c). src (may be NULL) gives the profile. */
int rk__causes(rk_analysis *a, const rk_schema *schema, const rk__source *src,
               const rk_analyze_options *o);

/* A simulated run over a source built already (rk_analyze_run builds one
 * per call; suggest shares one across designs). */
int rk__analyze_on(rk_analysis **out, const rk_schema *schema, const char *design,
                   const rk__source *src, const rk_analyze_options *o);

/* ---- pricing query shapes (price.c) ---- */

typedef struct rk__qset rk__qset;
typedef struct rk__tmeta rk__tmeta;

typedef struct rk__price_in {
	const rk__qset *q;           /* filled shapes (NULL or empty: none) */
	const rk_schema *schema;
	const rk__tmeta *map;        /* the final region map */
	uint8_t *const *keys;        /* the design's sampled keys, sorted */
	const size_t *key_len;
	size_t nkeys;
	uint64_t records;            /* rows the table holds */
	uint64_t file_records;       /* of them, the file's (the rest are older history) */
	uint8_t *const *hist;        /* the older rows' sampled keys (rk__sample_history) */
	const size_t *hist_len;
	size_t nhist;                /* 0: the older rows are priced like the file's */
	uint8_t *const *far;         /* the same records moved far back (two days or more) */
	const size_t *far_len;
	size_t nfar;                 /* 0: none (no shape binds the clock, or no clock) */
	int clock;                   /* the workload's clock field, or -1 */
} rk__price_in;

/* ,"fills":[...]: each filled query of q as priced (report_json.c). */
void rk__fills_json(rk__sb *b, const rk_query_cost *q);

/* Fills a->queries (and rep.nqueries) with the cost of every shape. */
int rk__price_queries(rk_analysis *a, const rk__price_in *in);

/* Keeps a copy of the table's initial split points. */
int rk__analysis_set_splits(rk_analysis *a, const rk_bytes *sp, size_t n);

/* Validates options common to both engines. */
int rk__check_options(const rk_analyze_options *o, unsigned max_servers);

/* The ranges rk__check_options holds a run to, which rk_analyze_option
 * checks as it parses so that a command line's error names the option. */
#define RK__MAX_TIME_BUCKETS 10000u
#define RK__MAX_KEY_BUCKETS 4096u

/* Samples the design's keys: the sorted distinct bucket prefixes (when the
 * design has buckets) and, when want_keys, up to `max` sampled keys sorted
 * (*keys, *key_len arrays, caller frees each and the arrays). The writes
 * come from the workload's dataset, or held_writes (a generated workload's
 * writes held already; may be NULL), or else the workload itself. */
int rk__sample_keys(rk__prefixes *pfx, uint8_t ***keys, size_t **key_len, size_t *nkeys,
                    size_t max, const rk_schema *s, rk__workload *w, const rk__dataset *held_writes,
                    rk__binder *b, uint64_t seed);

/* The keys of the table's older rows: the records rk__sample_keys draws
 * with this seed, their clock (workload field `clock`) moved back by the
 * span of its sampled values times spans, and by at least min_shift (in the
 * clock's own units), so a design that orders by time puts them before
 * every window the file holds and one that does not mixes them with the
 * file's keys. One span back prices reads at a table larger than the file
 * (--rows); far back (two days, past any time bucket the advisor makes)
 * tells a range the key bounds in time from one it only filters. *nkeys 0
 * when the key does not carry the clock as an integer (the older rows are
 * then other entities', priced like the file's). Sorted; the caller frees
 * each key and the arrays. */
int rk__sample_history(uint8_t ***keys, size_t **key_len, size_t *nkeys, size_t max,
                       const rk_schema *s, rk__workload *w, const rk__dataset *held_writes,
                       rk__binder *b, uint64_t seed, int clock, uint64_t spans,
                       int64_t min_shift);

/* 1 when the run's time buckets hold enough writes to judge a moment's
 * spread: 10 a server on average (with fewer, the busiest of 16 servers
 * takes twice its share of a perfectly even key's writes by chance). */
int rk__moments_tell(const rk_analysis *a);

/* The initial split points of a design: the options' own (o->splits), or
 * bucket prefixes, or for a hash prefix (any design with presplit 2)
 * o->servers quantiles of the sampled keys. Points point into o->splits,
 * pfx or keys (borrowed). RK_EINVALID for given points out of order. */
int rk__initial_splits(rk_bytes **out, size_t *n, const rk_schema_info *info,
                       const rk__prefixes *pfx, uint8_t *const *keys, const size_t *key_len,
                       size_t nkeys, const rk_analyze_options *o);

/* ---- report text on a growing string (key/strbuf.h) ---- */

/* A JSON number (null for inf and NaN), a JSON string (null for NULL). */
void rk__sb_jnum(rk__sb *b, double v);
void rk__sb_jstr(rk__sb *b, const char *s);
/* Hands the string to *out (caller frees) or fails with RK_ENOMEM. */
int rk__sb_done(char **out, rk__sb *b);

/* Counts with thousands separators ("30,000"): rk__count_text, key/units.h. */
/* A share as a percentage for text ("31%", "2.4%", "<0.1%"); the string
 * lives in one of 8 per-thread buffers, so up to 8 may be used at once. */
const char *rk__share_text(double share);

/* One cause as a JSON object appended to b (after a comma unless first). */
void rk__cause_json(rk__sb *b, const rk_cause *c, int first);

/* The analysis as a JSON object appended to b. */
void rk__analysis_json(rk__sb *b, const rk_analysis *a);

/* ---- pictures (heatmap.c) ---- */

/* Where the PNG of one run puts things, in pixels (the pixel test reads it). */
typedef struct rk__pic_layout {
	int width, height;
	int map_x, map_y, map_w, map_h;       /* key space x time */
	int strip_x, strip_w;                 /* region servers beside the key map */
	int srv_x, srv_y, srv_w, srv_h;       /* servers x time */
	int keylab_x, keylab_w;               /* key labels column, left of the map */
	int scale_x, scale_y, scale_w, scale_h; /* the writes colour scale */
} rk__pic_layout;

void rk__pic_layout_of(rk__pic_layout *L, const rk_analysis *a);

/* ---- key rows of the pictures (heatmap_keys.c) ---- */

/* The heat row holding key k: the last row whose first key is <= k. */
size_t rk__heat_row_of(const rk_analysis *a, const uint8_t *k, size_t kl);

/* rk_analysis_from_metrics on the file's text (len bytes, need not end in a
 * NUL); `name` names it in messages. */
int rk__analysis_from_metrics_text(rk_analysis **out, const char *text, size_t len,
                                   const char *table, const char *name);

#endif
