/*
 * rowkey/analyze.h: the hotspot analyzer.
 *
 * Runs a seeded workload (messages, keys, urls, trades, cars, users, or
 * records from a file) through a key design and a model of an HBase-style
 * cluster: S region servers, regions from the design (one per bucket, an
 * even pre-split for hash prefixes, or one region), splits by size and a
 * region balancer. The simulator uses the embedded store's own meta map and
 * split policy (src/store/local) in virtual time, so a design can be tried
 * on millions of keys in seconds; rk_analyze_store loads the same workload
 * into the embedded store for real and reports the store's own counters.
 *
 * Memory is bounded by regions x time buckets and heatmap cells, never by
 * the number of keys. Conventions are those of key.h: 0 or a negative RK_E*
 * code, rk_error_last() for the message, out-parameters first.
 */
#ifndef ROWKEY_ANALYZE_H
#define ROWKEY_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/key.h>
#include <rowkey/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- workloads ---- */

typedef struct rk_workload_options {
	const char *name;     /* messages, keys, urls, trades, cars, users, file */
	uint64_t seed;        /* the same seed gives the same operations */
	double rate;          /* operations (writes + reads) per virtual second, > 0 */
	double duration;      /* virtual seconds, > 0 (generated workloads) */
	double read_fraction; /* 0..1 of operations that are reads; < 0: the workload's default */
	uint64_t cardinality; /* users, sellers, cars, subdomains per domain; 0: default */
	double zipf;          /* skew exponent of Zipf draws (> 0); <= 0: default 1.1 */
	const char *file;     /* "file" workload: records (CSV with a header, TSV, JSON lines) */
	/* the file workload: every record is replayed, in file order, at the
	 * data's own pace when it has a time field in order (that field's clock
	 * is the time axis), else at `rate` */
	uint64_t limit;       /* replay at most this many records; 0: all of them */
	int fixed_rate;       /* 1: replay at `rate` even when the data has its own clock */
	int format;           /* records format: 0 detect, 1 csv, 2 tsv, 3 jsonl */
	int no_header;        /* 1: CSV/TSV without a header (fields col1, col2, ...) */
	size_t memory;        /* bytes of records held in memory; 0: 1 GiB (past it the
	                         file is read again for each pass, and the profile's
	                         exact figures cover the records held) */
	/* query shapes (docs/advisor.md): predicates in the language of rowkey
	 * query with ? for values the data fills in, optionally led by a weight
	 * ("5: store = ? AND ts >= ? AND ts < ?"). A file workload has no other
	 * shapes; a generated workload's own shapes are replaced when set. */
	const char *const *queries;
	size_t nqueries;
	const char *file_label; /* the file's name in reports and messages; NULL: the path */
} rk_workload_options;

#define RK_WORKLOAD_OPTIONS_INIT \
	{ "messages", 1, 1000.0, 600.0, -1.0, 0, 0.0, NULL, 0, 0, 0, 0, 0, NULL, 0, NULL }

/* The workload names, NULL-terminated; static storage. */
const char *const *rk_workload_names(void);

/* A text description of a workload: its fields (name and type), its query
 * shapes and a natural key. The caller frees *out with free(). RK_ENOTFOUND
 * for an unknown name (the message lists the known ones). */
int rk_workload_describe(char **out, const rk_workload_options *opts);

/* ---- analysis ---- */

typedef struct rk_analyze_options {
	unsigned servers;          /* region servers (simulator 1..100000, store 1..256) */
	double capacity;           /* operations per second one server sustains, > 0 */
	uint64_t split_threshold;  /* region bytes before a split; 0: never split */
	double balance_interval;   /* virtual seconds between balancer runs; 0: never */
	unsigned time_buckets;     /* heatmap columns / time series length, 1..10000 */
	unsigned key_buckets;      /* heatmap rows at the finest, 1..4096 */
	size_t value_len;          /* value bytes written with each row (one cell) */
	int presplit;              /* 1: regions from the design (buckets, hash prefix); 2: also
	                              any other design, one region per server at the data's
	                              own key quantiles (what suggest proposes); 0: one */
	const rk_bytes *splits;    /* the table's split points, ascending (what rowkey create
	                              --splits takes, decoded), in place of presplit's; borrowed
	                              for the run */
	size_t nsplits;
	uint64_t table_rows;       /* rows the table holds when it is queried (a full scan
	                              reads them all, a range priced as a share of the table
	                              reads that share of them); 0: the records replayed */
} rk_analyze_options;

#define RK_ANALYZE_OPTIONS_INIT { 16, 10000.0, 256ull << 20, 300.0, 120, 1000, 100, 1, NULL, 0, 0 }

/* One filled query of a shape as it was priced (strings owned by the
 * analysis): what `rowkey query --stats` run on a store loaded with the design
 * reads and returns. */
typedef struct rk_query_fill {
	const char *query;     /* the shape with the data's values in place of ? */
	double rows_read;      /* rows the plan reads (an estimate when estimated) */
	double rows_returned;  /* rows it returns on the data */
	int estimated;         /* 1: a residual filter's read estimated from sampled keys */
} rk_query_fill;

/* What one query shape of the workload costs under the design: the shape
 * filled from the data several times, each query planned by the key
 * library's planner (rk_plan_build) and priced on the final region map
 * (docs/advisor.md). */
typedef struct rk_query_cost {
	const char *name;  /* "a seller's trades of the last hour", or the query */
	const char *plan;  /* "get", "gets", "scan", "one scan per bucket", "full scan",
	                      "ranges that read most of the table" */
	double ranges;     /* mean key ranges per query (1 for a get) */
	double regions;    /* mean regions touched per query, with the final region map */
	const char *query; /* the shape as a predicate with ? */
	double weight;     /* its weight in the ranking */
	const char *kind;  /* "gets", "ranges" or "scan" (ranges reading half the table
	                      or more are a scan) */
	double rows_read;          /* mean rows a query reads */
	double rows_returned;      /* mean rows it returns (exact on the data) */
	double rows_read_per_row;  /* read amplification: rows read / rows returned */
	double seek_cost;          /* mean of (rows read + ranges) / (rows read + 1) over the
	                              fills: each range reads the row past its end, so many
	                              ranges returning few rows cost more than one (1 for gets
	                              and scans) */
	int rows_read_estimated;   /* 1: rows read estimated from the design's sampled keys */
	unsigned merge_ways;       /* salt buckets merged to return rows in order, or 0 */
	int ordered;               /* 1: rows come back in logical order from one range or gets
	                              (0: a merge of ranges, or a sort after reading, is needed) */
	size_t samples;            /* filled queries priced */
	int read_backwards;        /* 1: the ORDER BY is served by reading the key backwards
	                              (a reversed scan: slower per row than a forward one) */
	int rows_read_grow;        /* 1: rows read grow with the table's history while rows
	                              returned do not (the query bounds the time, the key does
	                              not: the older rows are read and filtered out) */
	const rk_query_fill *fills; /* the samples filled queries, each as priced (owned by
	                               the analysis); the means above are theirs */
} rk_query_cost;

/* Why writes or reads land where they do: one cause with its number and the
 * remedy the seeds teach, with its price on reads (docs/advisor.md lists
 * every kind). Strings are static or owned by the analysis. */
typedef struct rk_cause {
	const char *kind;    /* not_unique, rising_lead, low_cardinality, hot_key,
	                        few_buckets, few_regions, balancer_off, skew, full_scan,
	                        read_amplification, fan_out, numbers_as_text, long_key */
	const char *field;   /* the field it is about, or NULL */
	const char *value;   /* hot_key: the hot value as the data writes it; else NULL */
	double number;       /* the measured number the text cites */
	const char *unit;    /* what number is: "share", "distinct", "buckets", "regions",
	                        "servers", "rows_per_row", "ranges", "bytes", "keys" */
	const char *text;    /* the cause in words, with its numbers */
	const char *remedy;  /* the remedy, with its price on reads */
	const char *pattern; /* Key Visualizer's name for its heatmap pattern, or NULL */
	const char *query;   /* a query shape's cause: the shape's name; else NULL */
} rk_cause;

typedef struct rk_report {
	const char *design;       /* label given to the run (borrowed from the analysis) */
	const char *engine;       /* "simulator" or "store" */
	const char *workload;
	unsigned servers;
	uint64_t writes, reads;   /* operations (store runs execute no reads: 0) */
	uint64_t read_visits;     /* region visits of all reads (fan-out included) */
	double offered_rate;      /* operations per second the workload asked for */
	double capacity;
	const double *server_share; /* servers entries: share of writes per server */
	double hottest_share;     /* the busiest server's share of all writes */
	unsigned hottest_server;
	double max_mean;          /* busiest server's writes / mean writes per server */
	double effective_servers; /* 1 / sum(share^2) */
	double effective_at_time; /* effective servers of each time bucket's writes, averaged
	                             over the writes (S when every moment is even) */
	double peak_share;        /* "at a time": sum over time buckets of the busiest
	                             server's writes / all writes */
	double day_share;         /* the busiest server's share of another day's writes: the
	                             records moved two days back against the table's first
	                             regions (0: the key holds no clock, or a store run) */
	double throughput;        /* ops/s before the hottest server reaches capacity:
	                             capacity / (sum over buckets of the busiest
	                             server's writes + read region visits / operations);
	                             capacity / peak_share when there are no reads; capacity
	                             / day_share when another day's writes gather more */
	size_t regions_initial, regions; /* regions at the start and at the end */
	uint64_t splits, moves;
	double key_mean;          /* bytes per row key */
	size_t key_max;
	uint64_t key_total;       /* row-key bytes of every row written */
	size_t nqueries;
	const rk_query_cost *queries;
	const char *verdict;      /* one plain-language line */
	size_t ncauses;
	const rk_cause *causes;   /* most important first */
	uint64_t records;         /* file workloads: records in the file (writes replayed
	                             may be fewer with a limit); 0 for generated ones */
	int own_time;             /* 1: the file replayed at its own pace (the time axis is
	                             the data's clock); 2: the same, from its last record
	                             to its first (the file is newest first) */
	int limited;              /* 1: the replay stopped at the limit before the file's end */
	uint64_t key_distinct;    /* distinct row keys among the writes checked */
	uint64_t keys_checked;    /* writes whose keys were counted (all, up to 16M) */
	/* store runs: the write side measured in wall-clock time, the store's
	 * region servers capped at `capacity` operations per second each */
	int throughput_measured;  /* 1: throughput is rows written per second of
	                             wall-clock time, measured; 0: the model above */
	double wall_seconds;      /* store runs: the replay's wall-clock time */
	double hottest_busy;      /* store runs: 0..1, how busy each time bucket's
	                             busiest server was (its writes / what its
	                             capacity allows in the bucket, at most 1),
	                             averaged over the buckets: about 1 when the
	                             servers set the pace, lower when this
	                             machine did (the figure then understates
	                             the design) */
	double peak_rate;         /* operations per second in the busiest time bucket,
	                             all servers together */
	double peak_server_rate;  /* operations per second of the busiest server in
	                             its busiest time bucket: the load a design must
	                             carry at its worst moment (beside capacity) */
} rk_report;

typedef struct rk_analysis rk_analysis;

/* Runs the workload through `schema` in the simulator. `design` labels the
 * run in reports (copied; NULL: "design"). The caller owns *out and frees it
 * with rk_analysis_free. Errors: RK_ENOTFOUND (unknown workload, missing
 * file), RK_EINVALID (bad option, a key field the workload does not have,
 * a record the key cannot encode) with a message naming the field. */
int rk_analyze_run(rk_analysis **out, const rk_schema *schema, const char *design,
                   const rk_workload_options *wopts, const rk_analyze_options *opts);

/* A workload read once for several runs: a file's records held in memory
 * (or read again per run when they do not fit), a generated workload's
 * writes, their profile and the query shapes filled from them. The caller
 * owns *out and frees it with rk_workload_source_free. Errors as
 * rk_analyze_run's for the workload. */
typedef struct rk_workload_source rk_workload_source;
int rk_workload_source_open(rk_workload_source **out, const rk_workload_options *wopts);
void rk_workload_source_free(rk_workload_source *src);

/* rk_analyze_run over a source opened already: the same result, without
 * reading or generating the data again. The source must outlive the call;
 * the analysis does not borrow from it. */
int rk_analyze_run_on(rk_analysis **out, const rk_schema *schema, const char *design,
                      const rk_workload_source *src, const rk_analyze_options *opts);

/* Loads the same workload's writes into a new embedded store in directory
 * `dir` (which must not hold a store yet) for real: every region server is
 * capped at opts->capacity operations per second, the table is created with
 * the design's split points and bucket prefix, rows are replayed as fast as
 * the servers admit them, the balancer runs at the same virtual times as in
 * the simulator. The throughput is measured (rows per wall-clock second,
 * rep.throughput_measured); shares and per-time-bucket loads come from the
 * store's own per-server counters sampled in real time, regions from its
 * region list; reads are not executed. The store is closed before
 * returning; `dir` is left behind. The caller owns *out. */
int rk_analyze_store(rk_analysis **out, const rk_schema *schema, const char *design,
                     const rk_workload_options *wopts, const rk_analyze_options *opts,
                     const char *dir);

void rk_analysis_free(rk_analysis *a);

/* A store's recorded load as an analysis for the pictures: reads
 * DIR/metrics.tsv (docs/formats.md B.3) and maps `table` (NULL: the table
 * with the most recorded writes) onto key rows cut at every region boundary
 * it had and the file's time buckets (wall-clock, at most 600 columns). A
 * region's counts are spread evenly over the rows it covers; the servers x
 * time map puts them on the server that held the region last. The report's
 * engine is "store", its workload "recorded load (metrics.tsv)", its design
 * "TABLE (store DIR)". The caller owns *out (rk_analysis_free). RK_ENOTFOUND: no
 * metrics file or no such table (the message lists the tables);
 * RK_ECORRUPT: a malformed line (the message names the line). */
int rk_analysis_from_metrics(rk_analysis **out, const char *dir, const char *table);

/* Sets one option from text by its command-line name: workload, seed, rate,
 * duration, read-fraction, cardinality, zipf, file, servers, capacity,
 * split-threshold (bytes, K/M/G suffixes), balance-interval, time-buckets,
 * key-buckets, value-len, presplit (0/1/2), memory, limit. `w` or `o` may be NULL when the
 * name is not theirs. Borrows `value` for the string options (workload,
 * file). RK_ENOTFOUND for an unknown name, RK_EINVALID for a bad value; the
 * message names both. */
int rk_analyze_option(rk_workload_options *w, rk_analyze_options *o, const char *name,
                      const char *value);

/* Attaches the design's schema text to a run (shown in the HTML report).
 * Copied. */
int rk_analysis_set_schema_text(rk_analysis *a, const char *text);

/* The table's initial split points in the run (bucket boundaries, hash
 * prefix or data quantiles, per rk_analyze_options.presplit): returns the
 * count, and when i is below it, split i (borrowed, valid until
 * rk_analysis_free) in *key / *len. */
size_t rk_analysis_splits(const rk_analysis *a, size_t i, const uint8_t **key, size_t *len);

/* The report of a run: borrowed, valid until rk_analysis_free. */
const rk_report *rk_analysis_report(const rk_analysis *a);

/* The heatmap: rows x cols cells, row-major, row 0 = the lowest key range,
 * col 0 = the first time bucket; writes and reads per cell. Borrowed, valid
 * until rk_analysis_free. Store runs have no heatmap (RK_ENOTFOUND). */
typedef struct rk_heatmap {
	size_t rows, cols;
	const uint64_t *writes, *reads;
	double col_seconds;  /* virtual seconds per column */
} rk_heatmap;

int rk_analysis_heatmap(rk_heatmap *out, const rk_analysis *a);

/* The first key of heatmap row `row` (row 0 starts at the empty key).
 * Borrowed, valid until rk_analysis_free. */
const uint8_t *rk_analysis_row_key(size_t *len, const rk_analysis *a, size_t row);

/* Text (several lines ending in the verdict) and one JSON object. The
 * caller frees *out with free(). */
int rk_analysis_text(char **out, const rk_analysis *a);
int rk_analysis_json(char **out, const rk_analysis *a);

/* Several runs side by side: a table of the metrics, then each verdict.
 * The caller frees *out with free(). */
int rk_analysis_compare_text(char **out, const rk_analysis *const *runs, size_t n);
/* The same as a JSON array of the runs' objects. */
int rk_analysis_compare_json(char **out, const rk_analysis *const *runs, size_t n);

/* Writes the heatmap of writes as a PNG (x = time, y = key space, lowest
 * keys at the top; colour = writes per cell, log scale) with a title, the
 * verdict, time ticks, the key at each region start, each region's server
 * beside the map, a servers x time map (share of each time bucket, linear)
 * and both colour scales with their numbers. RK_ENOTFOUND when the run has no
 * heatmap, RK_EIO naming the path on failure. */
int rk_analysis_write_png(const rk_analysis *a, const char *path);

/* The runs that have a heatmap side by side in one PNG on one shared colour
 * scale (the largest cell of any run is the top of the scale). RK_ENOTFOUND
 * when none has a heatmap, RK_EIO naming the path. */
int rk_analysis_write_compare_png(const char *path, const rk_analysis *const *runs, size_t n);

/* Writes one self-contained HTML page (no network resources) with the
 * comparison table, and for each run with a heatmap, the heatmap with hover
 * details per cell and the run's summary. `title` may be NULL. */
int rk_analysis_write_html(const char *path, const char *title, const rk_analysis *const *runs,
                           size_t n);

/* ---- data profiles ---- */

/* What a records file (or a generated workload's writes) holds: per field
 * the inferred type, values and empties, distinct values, the most frequent
 * values with their shares, how often a value is >= the one before it, the
 * lengths of its text; and the smallest field sets that identify every
 * record. One pass over the input, memory bounded (docs/advisor.md). */
typedef struct rk_profile rk_profile;

typedef struct rk_profile_options {
	size_t memory;     /* bytes of records held for exact figures; 0: 1 GiB. Past
	                      it distinct counts are HyperLogLog estimates and the
	                      field sets are checked on the records held */
	uint64_t limit;    /* records to read at most; 0: all */
	int format;        /* 0 detect, 1 csv, 2 tsv, 3 jsonl */
	int no_header;     /* CSV/TSV without a header: fields col1, col2, ... */
	/* progress, every 65536 records and at each step's end (may be NULL) */
	void (*progress)(const char *what, uint64_t done, uint64_t bytes, void *payload);
	void *payload;
	const char *label; /* the records' name in the report and messages; NULL: the path */
} rk_profile_options;

#define RK_PROFILE_OPTIONS_INIT { 0, 0, 0, 0, NULL, NULL, NULL }

typedef struct rk_value_count {
	const char *value; /* as the input wrote it (at most 48 bytes shown) */
	uint64_t count;
	double share;      /* of the field's values */
} rk_value_count;

typedef struct rk_field_profile {
	const char *name;
	const char *type;      /* u64, i64, f64, ts, ts("FORMAT") or str: what a schema should declare */
	const char *time_unit; /* ts: "s", "ms", "us", "ns", "ISO-8601" or the date format; else NULL */
	uint64_t values;       /* records with a value */
	uint64_t empties;      /* records with an empty or no value */
	uint64_t distinct;
	int distinct_exact;    /* 0: a HyperLogLog estimate (about 1.6% error) */
	double monotonic;      /* share of consecutive values >= the one before */
	double min, max;       /* numbers and times (times in ms) */
	size_t len_min, len_max;
	double len_avg;
	size_t ntop;           /* up to 5 most frequent values (counts exact when
	                          distinct_exact, else upper bounds) */
	rk_value_count top[5];
} rk_field_profile;

/* Profiles a records file (docs/records.md). The caller frees *out with
 * rk_profile_free. RK_ENOTFOUND: no such file; RK_EINVALID: no records, a
 * bad header. */
int rk_profile_file(rk_profile **out, const char *path, const rk_profile_options *o);

/* Profiles the writes of a workload (a generated one, or a file). */
int rk_profile_workload(rk_profile **out, const rk_workload_options *w,
                        const rk_profile_options *o);

void rk_profile_free(rk_profile *p);

/* Records read, records the exact figures cover (all of them unless the
 * memory bound was reached), records the reader refused. */
uint64_t rk_profile_records(const rk_profile *p);
uint64_t rk_profile_checked(const rk_profile *p);
uint64_t rk_profile_rejected(const rk_profile *p);

size_t rk_profile_nfields(const rk_profile *p);
/* Borrowed, valid until rk_profile_free. */
const rk_field_profile *rk_profile_field(const rk_profile *p, size_t i);

/* The smallest field sets whose values identify every checked record (each
 * a list of field indexes, at most 8 sets). None when no set does: then
 * rk_profile_duplicates says how many records repeat another exactly. */
size_t rk_profile_nunique(const rk_profile *p);
size_t rk_profile_unique(const rk_profile *p, size_t i, const size_t **fields);
uint64_t rk_profile_duplicates(const rk_profile *p);

/* The field that is the data's clock (a time field in order), or -1. */
int rk_profile_clock(const rk_profile *p);

/* Text (a table and the findings) and one JSON object. The caller frees
 * *out with free(). */
int rk_profile_text(char **out, const rk_profile *p);
int rk_profile_json(char **out, const rk_profile *p);

/* ---- suggestions ---- */

typedef struct rk_suggest_options {
	size_t top;         /* proposals kept, best first (0: 8) */
	unsigned threads;   /* designs simulated at once (0: 2) */
	/* progress: "profiling" (records, bytes), "design" (designs done, of total) */
	void (*progress)(const char *what, uint64_t done, uint64_t total, void *payload);
	void *payload;
	const char *current;  /* a key template ranked beside the candidates, labelled "the
	                         table's design" (a table's own, when its rows are advised);
	                         NULL: none */
} rk_suggest_options;

#define RK_SUGGEST_OPTIONS_INIT { 8, 0, NULL, NULL, NULL }

/* One table of a proposal: its key and the shapes it serves. */
typedef struct rk_suggest_table {
	char *label;
	char *schema_text;       /* schema text (inline form, ';'-separated) */
	rk_analysis *analysis;   /* its run (owned by the suggestion) */
	uint64_t serves;         /* bit q: query shape q is read from this table */
} rk_suggest_table;

typedef struct rk_suggestion {
	char *design;            /* short label */
	char *schema_text;       /* the first table's schema */
	rk_analysis *analysis;   /* the first table's run */
	double score;            /* write spread x read efficiency, 0..1 (docs/advisor.md) */
	double write_score;      /* 1 / (servers x the busiest server's share at a time), divided
	                            by the tables each write goes to */
	double read_score;       /* weighted geometric mean over the shapes of their read
	                            efficiency in the table that serves them */
	size_t ntables;          /* 1, or 2..3: a key per query shape, each write to all */
	rk_suggest_table table[3];
	char *trade;             /* the trade in words */
	int no_queries;          /* 1: no shape was given; ranked by writes and by lookups of
	                            the identifying fields only */
	int uniquifier;          /* 1: no field set identifies a record: the key ends with an
	                            added field (seq) the writer must supply; 2: the same, the
	                            set the profile found on the records it held having
	                            repeated in the whole file */
	int time_identity;       /* 1: only a time identifies a record in the data: unique
	                            here, but two events in one tick would share a key */
	size_t not_tried;        /* candidate designs past the advisor's limit (64), never
	                            simulated: many shapes make more than it tries */
	char *not_proposed;      /* the first proposal only (else NULL): the designs the data
	                            cannot give a key for, their count, the first one's name and
	                            why ("field 'month' has no value and the key needs it"), or
	                            NULL when every design ran */
} rk_suggestion;

/* Proposes key designs for a workload and ranks them: the data's profile
 * (types, identifying fields, rising, low-cardinality and hot fields), the
 * query shapes (the workload's own, or wopts->queries), candidate keys
 * built from both, each simulated (pre-split at bucket boundaries or the
 * data's key quantiles) and priced per shape; a design whose key does not
 * identify every record is never proposed. When no one key serves every
 * shape, sets of two or three tables (a key per shape) are ranked too.
 * The caller owns *out (count entries) and frees it with
 * rk_suggestions_free. opts may be NULL. */
int rk_suggest(rk_suggestion **out, size_t *count, const rk_workload_options *wopts,
               const rk_analyze_options *opts);
int rk_suggest_opts(rk_suggestion **out, size_t *count, const rk_workload_options *wopts,
                    const rk_analyze_options *opts, const rk_suggest_options *so);
void rk_suggestions_free(rk_suggestion *s, size_t count);

/* The ranked proposals as text, and as a JSON array (docs/advisor.md):
 * each entry has schema, unique {distinct, records}, writes {hottest_share,
 * effective_servers}, queries (query, plan: gets/ranges/scan, ranges,
 * rows_read_per_row, ...), causes, splits and tables. The caller frees
 * *out with free(). */
int rk_suggestions_text(char **out, const rk_suggestion *s, size_t n);
int rk_suggestions_json(char **out, const rk_suggestion *s, size_t n);

/* Writes the first table's split points of a proposal, one per line in the
 * form rowkey create --splits reads (printable ASCII as is, other bytes and
 * '\\' as \\xNN). RK_EIO naming the path. */
int rk_suggestion_write_splits(const rk_suggestion *s, const char *path);

#ifdef __cplusplus
}
#endif
#endif
