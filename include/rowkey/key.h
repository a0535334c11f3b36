/*
 * rowkey/key.h: the key-design library.
 *
 * A schema (see docs/schema.md) names typed fields and a key template. With it
 * a caller encodes records into row-key bytes and decodes row keys back into
 * field values. This header also holds what every other rowkey header shares:
 * error codes, the per-thread error message, and the value type.
 *
 * Conventions (all of rowkey):
 * - Functions return 0 on success or a negative RK_E* code; rk_error_last()
 *   then says what failed, where (line, column, field, offset) and why.
 * - Out-parameters come first; a single one is named `out`.
 * - Every function that hands out memory says who owns it and for how long.
 * - Byte strings travel as pointer + length and may contain NUL bytes.
 */
#ifndef ROWKEY_KEY_H
#define ROWKEY_KEY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ---- */

/* Error codes: only for failures a caller handles differently. Frozen. */
enum {
	RK_OK = 0,
	RK_ENOTFOUND = -1, /* no such row, table, field, file */
	RK_EEXISTS = -2,   /* already exists */
	RK_EINVALID = -3,  /* bad input: schema text, record, argument */
	RK_ETOOLONG = -4,  /* a key or value over its limit */
	RK_ECORRUPT = -5,  /* stored or received bytes that do not parse */
	RK_EBUSY = -6,     /* resource in use, try again */
	RK_EIO = -7,       /* the operating system or a backend failed */
	RK_ENOMEM = -8,    /* out of memory */
	RK_EITEROVER = -9  /* an iterator has no more items (not a failure) */
};

/* The calling thread's message for its last failed rowkey call. Borrowed:
 * valid until the next rowkey call on this thread that fails. Never NULL. */
const char *rk_error_last(void);

/* A short static name for an error code ("invalid", "corrupt", ...). */
const char *rk_strerror(int code);

#if defined(__GNUC__) || defined(__clang__)
#define RK_FORMAT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define RK_FORMAT_PRINTF(fmt, args)
#endif

/* Sets the calling thread's message (what rk_error_last() returns) from a
 * printf format and returns `code`, so that code reporting the rowkey way
 * reads `return rk_error_set(RK_EINVALID, "row %zu: ...", i);`: a callback
 * handed to rowkey, a store opener (rk_store_register), or a library on top
 * of rowkey. rk_error_last() may be one of the arguments. */
int rk_error_set(int code, const char *fmt, ...) RK_FORMAT_PRINTF(2, 3);

/* Prepends "context: " (from a printf format) to the calling thread's
 * message and returns `code`: `return rk_error_wrap(rc, "file %s", path);`
 * after a rowkey call that failed with rc. */
int rk_error_wrap(int code, const char *fmt, ...) RK_FORMAT_PRINTF(2, 3);

/* ---- values ---- */

/* Field types of a schema. Stored in describe output and plans; frozen. */
typedef enum rk_type {
	RK_T_U8 = 1,
	RK_T_U16 = 2,
	RK_T_U32 = 3,
	RK_T_U64 = 4,
	RK_T_I8 = 5,
	RK_T_I16 = 6,
	RK_T_I32 = 7,
	RK_T_I64 = 8,
	RK_T_F64 = 9,
	RK_T_STR = 10,
	RK_T_BYTES = 11
} rk_type;

/* One field value. `present` is 0 for a missing value (a field that a key
 * does not carry, e.g. one only hashed). For STR/BYTES, `s` borrows its bytes:
 * from the caller when encoding, from the decoder's scratch when decoding. */
typedef struct rk_value {
	int present;
	union {
		uint64_t u; /* U8..U64 */
		int64_t i;  /* I8..I64 */
		double f;   /* F64 */
		struct {
			const uint8_t *ptr;
			size_t len;
		} s; /* STR, BYTES */
	} v;
} rk_value;

/* Parses `text` (len bytes, not NUL-terminated) as a value of `type` into
 * out: decimal integers (range-checked against the type), floats (strtod
 * syntax, inf, nan), strings and bytes as they are (out borrows `text`).
 * Returns RK_EINVALID with a message naming the type and the text. */
int rk_value_parse(rk_value *out, rk_type type, const char *text, size_t len);

/* Writes a value as text (the inverse of rk_value_parse) into buf of cap
 * bytes, NUL-terminated; returns the length it needed (like snprintf). A
 * float is the shortest text that reads back as exactly the same value
 * ("19.55", "0.1", "1e+22"). */
size_t rk_value_format(char *buf, size_t cap, rk_type type, const rk_value *v);

/* ---- schemas ---- */

typedef struct rk_schema rk_schema;

/* Parses schema text (docs/schema.md) into *out. The caller owns *out and
 * frees it with rk_schema_free. On error returns RK_EINVALID and
 * rk_error_last() names the line, column and token. `name` labels messages
 * (a file name, or NULL for "<schema>"). */
int rk_schema_parse(rk_schema **out, const char *text, size_t len, const char *name);

/* Reads and parses a schema file, or, when `arg` does not name a readable
 * file and looks like schema text, parses `arg` itself. */
int rk_schema_load(rk_schema **out, const char *arg);

void rk_schema_free(rk_schema *schema);

/* Fields: count, names (borrowed, valid for the schema's life), types, lookup. */
size_t rk_schema_nfields(const rk_schema *schema);
const char *rk_schema_field_name(const rk_schema *schema, size_t i);
rk_type rk_schema_field_type(const rk_schema *schema, size_t i);
/* 1 when field i was declared `ts` (an i64 time): its text values may be
 * ISO-8601 date-times as well as integers (see rk_schema_value_parse). */
int rk_schema_field_is_time(const rk_schema *schema, size_t i);
/* Parses text as a value of field i: rk_value_parse for the field's type,
 * and for a `ts` field also an ISO-8601 date-time (YYYY-MM-DD[THH:MM[:SS
 * [.fff]]][Z|+HH:MM]; no zone is UTC), given as Unix milliseconds; a `ts`
 * field with a format takes that format only. Messages name the type (or
 * format) and the text, not the field (the caller knows it). */
int rk_schema_value_parse(rk_value *out, const rk_schema *schema, size_t i, const char *text,
                          size_t len);
/* The text format a `ts` field names (`ts("%m/%d/%Y")`, docs/schema.md),
 * borrowed for the schema's life, or NULL when it names none. A field with
 * a format takes only text in that format from rk_schema_value_parse (the
 * message says the value, the format and what did not match). */
const char *rk_schema_field_time_format(const rk_schema *schema, size_t i);
/* Writes field i's value as text like rk_value_format, but a `ts` field with
 * a format in that format (or ISO-8601 when the format cannot say the value
 * exactly, or the integer past years 0001..9999). */
size_t rk_schema_value_format(char *buf, size_t cap, const rk_schema *schema, size_t i,
                              const rk_value *v);
/* Returns the field's index, or RK_ENOTFOUND. */
int rk_schema_field_index(const rk_schema *schema, const char *name, size_t len);

/* The schema's row-key length limit (option max_key_len, default 32767). */
size_t rk_schema_max_key_len(const rk_schema *schema);

/* What a design means for writes and reads. */
typedef struct rk_schema_info {
	size_t nfields;
	size_t key_min_len;      /* fewest bytes any key can have */
	size_t key_max_len;      /* most bytes, or 0 when unbounded (variable fields) */
	uint64_t point_get_mask; /* bit i set: field i is needed to compute a key for a get */
	uint64_t decodable_mask; /* bit i set: field i can be recovered from a key */
	unsigned buckets;        /* reads fan out over this many prefixes (1 = none) */
	int deterministic;       /* 1: the same record always gives the same key */
	int order_preserving;    /* 1: key order = field order for every field that decodes */
	unsigned prefix_len;     /* bytes of spread prefix (salt / hash) before the first field */
} rk_schema_info;

void rk_schema_get_info(rk_schema_info *out, const rk_schema *schema);

/* One field in the order a key sorts rows: the key's value parts, first
 * appearance of each field, spread prefixes (hash, bucket, salt) left out. */
typedef struct rk_key_field {
	size_t field;    /* the schema field */
	int as_text;     /* 1: a number written as decimal text of varying width, so
	                    key order is text order ("10" < "9"), not numeric order */
	int transformed; /* 1: rts(), reverse(), reverse_num(), tbucket(), ...: rows
	                    sort by the transform of the value, not the value */
	int desc;        /* 1: descending */
} rk_key_field;

/* Writes up to max entries to out and returns how many fields order the
 * key (which may be more than max). */
size_t rk_schema_key_fields(const rk_schema *schema, rk_key_field *out, size_t max);

/* The fields a key's spread prefix is computed from (hash, bucket parts
 * before the first field): bit i for field i; 0 without such a prefix. */
uint64_t rk_schema_spread_fields(const rk_schema *schema);

/* A human-readable summary (fields, key parts, width, point-get fields,
 * fan-out). The caller owns *out and frees it with free(). */
int rk_schema_describe(char **out, const rk_schema *schema);

/* The schema as one line of schema text in a canonical form (fields with
 * their types, the key template as describe shows it, the length limit;
 * no name, no comments): two schemas that encode alike give the same text,
 * and parsing the text gives the same schema. The caller frees *out with
 * free(). This is what a table remembers (the `schema` table setting). */
int rk_schema_text(char **out, const rk_schema *schema);

/* The same summary as one JSON object. The caller frees *out with free(). */
int rk_schema_describe_json(char **out, const rk_schema *schema);

/* ---- encoding and decoding ---- */

/* Per-thread scratch for encode and decode: hash contexts, the round-robin
 * counter, the random salt state, the decoder's string buffer. Create one per
 * thread; it borrows the schema, which must outlive it. The caller owns *out
 * and frees it with rk_encoder_free. `seed` seeds random salts (0: a fixed
 * default, so runs are reproducible). */
typedef struct rk_encoder rk_encoder;
int rk_encoder_new(rk_encoder **out, const rk_schema *schema, uint64_t seed);
void rk_encoder_free(rk_encoder *enc);

/* Encodes one record, given as an array of rk_schema_nfields() values in
 * field order, into out[0..*outlen). `cap` must be at least the schema's
 * max_key_len (a key longer than that is RK_ETOOLONG). No allocation. A field
 * the key needs but that is not present is RK_EINVALID naming the field. */
int rk_key_encode(uint8_t *out, size_t cap, size_t *outlen, rk_encoder *enc,
                  const rk_value *fields);

/* Decodes a key into out[0..nfields). Fields the key does not carry come
 * back with present = 0. Strings and bytes in out borrow the encoder's
 * scratch: valid until the next call on `enc`. A deterministic prefix (hash,
 * bucket, Phoenix salt) is recomputed and compared: a mismatch, a truncated
 * key or a bad escape is RK_ECORRUPT naming the byte offset. */
int rk_key_decode(rk_value *out, rk_encoder *enc, const uint8_t *key, size_t len);

/* The number of the bucket a key was written to (the value of its salt or
 * bucket prefix), or -1 when the design has no buckets. For RK_ECORRUPT keys
 * returns a negative error. */
int rk_key_bucket(const rk_encoder *enc, const uint8_t *key, size_t len);

/* A key's logical form, whose byte order is the logical order of rows:
 * the bytes of its literals and value parts, in template order, without
 * the parts that only place a row (salts, buckets, hashes, hex, slices).
 * So `bucket(8, xxh3(uid)) u64(uid) u64(rts(ts))` orders by uid, then
 * newest first, whatever the bucket; a descending or reversed part orders
 * as its bytes do. Rows whose logical forms are equal order by their whole
 * keys. The key is decoded (and verified) first: RK_ECORRUPT as
 * rk_key_decode; RK_ETOOLONG when cap is too small (len always suffices).
 * Writes out[0..*outlen); no allocation. */
int rk_key_logical(uint8_t *out, size_t cap, size_t *outlen, rk_encoder *enc, const uint8_t *key,
                   size_t len);

/* rk_key_decode and rk_key_logical in one pass: fields into fields[0..
 * nfields) (borrowing the encoder's scratch, as rk_key_decode), the logical
 * form into out. */
int rk_key_decode_logical(rk_value *fields, uint8_t *out, size_t cap, size_t *outlen,
                          rk_encoder *enc, const uint8_t *key, size_t len);

/* ---- query planning ---- */

/* A predicate over a schema's fields (docs/queries.md): conditions
 * joined with AND, each `field OP value` with OP one of = < <= > >=, or
 * `field IN (v, ...)`, `field BETWEEN a AND b`, `field PREFIX 'text'`,
 * then optionally `ORDER BY field [ASC|DESC]` and `LIMIT n` (n >= 1), in
 * that order; either may stand alone. Strings are quoted with ' or ". */
typedef struct rk_predicate rk_predicate;

/* Parses predicate text against a schema. The caller owns *out and frees it
 * with rk_predicate_free. Errors (unknown field, a value that is not of the
 * field's type, a range that cannot match, LIMIT 0 or not a number, ORDER BY
 * twice, text after the end) are RK_EINVALID naming the column and the
 * token. An empty text is the predicate that matches everything. */
int rk_predicate_parse(rk_predicate **out, const rk_schema *schema, const char *text, size_t len);
void rk_predicate_free(rk_predicate *pred);

/* 1 when decoded field values satisfy every condition, else 0. A condition
 * on a field that is absent (not recoverable from the key) counts as met:
 * the key ranges already enforced what they could of it. */
int rk_predicate_match(const rk_predicate *pred, const rk_value *fields);

/* A row range: start inclusive, stop exclusive; stop_len 0 means unbounded.
 * `bucket` is the salt bucket the range reads, or -1. */
typedef struct rk_key_range {
	uint8_t *start;
	size_t start_len;
	uint8_t *stop;
	size_t stop_len;
	int bucket;
} rk_key_range;

/* How a plan gives the order a predicate's ORDER BY asks for. */
typedef enum rk_plan_order {
	RK_ORDER_NONE = 0,    /* no ORDER BY: rows come in logical order */
	RK_ORDER_KEY = 1,     /* reading the plan forward (logical order) gives it */
	RK_ORDER_REVERSE = 2, /* reading the plan backward gives it */
	RK_ORDER_SORT = 3     /* every matching row is read and sorted by the field */
} rk_plan_order;

typedef enum rk_plan_kind {
	RK_PLAN_GETS = 1,      /* every key is known: point gets */
	RK_PLAN_RANGES = 2,    /* row ranges, as tight as the bound leading fields allow */
	RK_PLAN_FULL_SCAN = 3  /* no leading field is bound: read everything */
} rk_plan_kind;

/* Rows come back in logical order: the order of their keys' logical forms
 * (rk_key_logical), ties by the whole key. A plan lists its gets and ranges
 * in that order (by the logical form each starts at) and says how to keep
 * it: the ranges of one stream hold disjoint spans of logical forms, so a
 * stream read range after range is in logical order, and the streams are
 * merged; when `ordered` is 0, rows inside one range are not in logical
 * order (a hash over an unbound field comes before a field) and the reader
 * sorts them. */
typedef struct rk_plan {
	rk_plan_kind kind;
	rk_key_range *ranges; /* GETS: start = the key, stop = NULL; FULL_SCAN: one unbounded range */
	size_t nranges;
	int residual;       /* 1: some conditions are checked on decoded rows, not by the ranges */
	int merge;          /* 1: several streams (nstreams > 1); logical order needs a merge */
	unsigned buckets;   /* the design's bucket count (1 = none) */
	unsigned prefix_len;/* bytes of salt or bucket prefix before the first field */
	char *explain;      /* the plan in words */
	int capped;         /* 1: IN lists would have made more than max_ranges keys or
	                       ranges; the plan reads whole key prefixes instead (a
	                       covering plan; the residual filter checks the rest) */
	rk_key_range *logical; /* per range: the logical forms of its keys lie in
	                          [start, stop) (stop NULL: unbounded); GETS: start is
	                          the key's logical form */
	unsigned *stream;   /* per range: its stream, 0..nstreams-1 (GETS: 0) */
	unsigned nstreams;
	int ordered;        /* 1: a range's rows, read in key order, are in logical order */
	/* The predicate's ORDER BY and LIMIT. KEY: the ORDER BY field is the
	   first value part of the logical order after the parts every range
	   binds to one value by =, in an encoding that keeps its order in the
	   direction asked (ascending for ASC; descending or rts() for DESC),
	   and the plan is ordered; REVERSE: the same in the other direction;
	   SORT: anything else (another field varies before it, IN values on an
	   earlier field, a hash in front, a transform such as tbucket(), a
	   field the key orders nothing by). */
	int order_field;        /* the ORDER BY field (schema field index), or -1 */
	int order_desc;         /* 1: DESC */
	rk_plan_order order_by; /* how the plan gives that order */
	uint64_t limit;         /* the predicate's LIMIT, 0: none */
} rk_plan;

/* Planner settings. max_ranges bounds the point gets or ranges IN lists may
 * expand to (0: the default; at most 65536). Past it the planner stops at
 * the key part that would exceed it and reads everything under the key
 * prefixes bound so far, and says so in `explain`; planning time stays
 * linear in the predicate (times the bound). A design's salt buckets always
 * get one range each, whatever the bound. */
typedef struct rk_plan_options {
	size_t max_ranges;
} rk_plan_options;
#define RK_PLAN_MAX_RANGES_DEFAULT 10000
#define RK_PLAN_OPTIONS_INIT {RK_PLAN_MAX_RANGES_DEFAULT}

/* Plans a predicate: point gets, the minimal set of row ranges (one per salt
 * bucket when the salt cannot be computed), or a full scan, plus whether a
 * residual filter is needed. The caller owns *out; free with rk_plan_free.
 * IN lists that would expand past the bound give a covering plan with
 * plan->capped set (see rk_plan_options). rk_plan_build uses the default
 * options; opts may be NULL for the defaults. */
int rk_plan_build(rk_plan **out, const rk_schema *schema, const rk_predicate *pred);
int rk_plan_build_opts(rk_plan **out, const rk_schema *schema, const rk_predicate *pred,
                       const rk_plan_options *opts);
void rk_plan_free(rk_plan *plan);

/* The plan as one JSON object; the caller frees *out with free(). */
int rk_plan_json(char **out, const rk_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
