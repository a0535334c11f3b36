/*
 * A dataset: the records of a file, or the writes of a generated workload,
 * in typed columns in memory, with each field's streaming statistics.
 *
 * A file is read once, through the one records reader (src/records). While
 * it is read each field's statistics say what its values look like; at the
 * end each field gets the type a profile infers (fstats.h's shape counts):
 *   integers -> u64, or i64 when one is negative; written with a leading
 *               zero -> str (an identifier: "007" is not 7);
 *   decimals (and integers mixed with them) -> f64;
 *   ISO-8601 date-times -> a time, held as Unix milliseconds (i64);
 *   dates in one of the formats fstats.c names (Jan 1 2000, 01/31/2000,
 *   31.01.2000, ...) -> a time in that format, ts("%m/%d/%Y"), held as
 *   Unix milliseconds; month-first when every value reads both ways;
 *   integers in a field named like a time (ts, time, timestamp, date,
 *   created, *_at, *_ts, *_time) whose values are plausible Unix times ->
 *   a time in seconds, milliseconds, microseconds or nanoseconds;
 *   anything else -> str.
 * Records past the memory bound are counted and still feed the statistics,
 * but are not held: `complete` is 0 and `held` says how many are.
 */
#ifndef RK_ANALYZE_DATASET_H
#define RK_ANALYZE_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/fstats.h"
#include "analyze/wval.h"
#include "records/reader.h"

typedef enum {
	RK__TU_NONE = 0,
	RK__TU_S = 1,
	RK__TU_MS = 2,
	RK__TU_US = 3,
	RK__TU_NS = 4,
	RK__TU_ISO = 5, /* ISO-8601 text, held as ms */
	RK__TU_FMT = 6  /* dates in a named format (rk__column.dfmt), held as ms */
} rk__tunit;

#define RK__ABSENT UINT32_MAX

typedef struct rk__column {
	char name[64];
	rk__wkind kind;     /* U64, I64, F64 or STR */
	rk__tunit tu;
	rk__fstats st;
	uint64_t *v;        /* per record: the number (f64 as its bits) */
	uint64_t *off;      /* per record: its text in the arena */
	uint32_t *len;      /* per record: the text's length, or RK__ABSENT */
	int seq;            /* a uniquifier the advisor added: record number from 1, no text */
	const char *dfmt;   /* RK__TU_FMT: the format, rk__fstats_datefmt(dfmt_k) */
	int dfmt_k;
	const char *dfmt_also; /* another format every value reads in too, or NULL */
	char type_text[64]; /* RK__TU_FMT: the type a schema declares, ts("...") */
} rk__column;

typedef struct rk__dataset {
	char source[256];   /* the records' name in messages: the file, its label, or
	                       "workload NAME" */
	char path[4096];    /* the file, read again when it does not fit in memory */
	size_t nf;
	rk__column col[64];
	uint64_t held, cap; /* records held */
	uint64_t records;   /* records read (held or not) */
	int limited;        /* reading stopped at the limit, before the file's end */
	uint64_t rejected;  /* records the reader refused */
	char first_error[256];
	int complete;       /* 1: every record read is held */
	int typed;          /* numbers held as numbers from the start (a generated workload) */
	char *arena;
	size_t alen, acap, memory;
	int time_field;     /* the field that is the data's clock, or -1 */
	double peak_per_s;  /* the clock's busiest second: the most held records whose
	                       times lie within 1,000 ms of each other (0: no clock) */
	double clock_falls; /* > 0: the clock falls in this share of consecutive
	                       records (the file is newest first): a replay reads
	                       the records last to first, forward in time; 0: it rises */
	int64_t *t_ms;      /* per held record: its time in ms (time_field), or NULL */
	rk_rec_options rec; /* how the file was read (for a second pass) */
} rk__dataset;

typedef struct rk__dataset_options {
	const char *label;  /* the records' name in messages and reports; NULL: the path */
	size_t memory;      /* bytes the held records may take; 0: 1 GiB */
	uint64_t limit;     /* records to read at most; 0: all */
	rk_rec_options rec;
	/* called every 2^16 records and at the end (may be NULL) */
	void (*progress)(const char *what, uint64_t done, uint64_t bytes, void *payload);
	void *payload;
} rk__dataset_options;

#define RK__DATASET_MEMORY_DEFAULT ((size_t)1 << 30)

/* Reads a records file (o NULL: the defaults, a header included).
 * RK_ENOTFOUND when it cannot be opened, RK_EINVALID
 * when it has no records or a bad header, RK_EIO on a read error. Bad
 * records are counted (rejected, first_error), not fatal. The caller frees
 * *out with rk__dataset_free. */
int rk__dataset_from_file(rk__dataset **out, const char *path, const rk__dataset_options *o);

/* The next record for rk__dataset_from_values: 0 with *rec set (borrowed
 * until the next call), RK_EITEROVER after the last, or an error. */
typedef int (*rk__dataset_next)(void *ctx, const rk__wval **rec);

/* Holds records already typed (fields[0..nf), their kinds as they are),
 * drawn from `next` until it ends; `source` names them in messages. */
int rk__dataset_from_values(rk__dataset **out, const char *source, const rk__wfield *fields,
                           size_t nf, rk__dataset_next next, void *ctx,
                           const rk__dataset_options *o);

void rk__dataset_free(rk__dataset *d);

/* Record i (i < held) as workload values: numbers in their kind, and for
 * every present value its text (s, len) as the file wrote it. */
void rk__dataset_record(const rk__dataset *d, uint64_t i, rk__wval *out);

/* A field's value of record i as text (borrowed), or NULL when absent. */
const char *rk__dataset_text(const rk__dataset *d, size_t f, uint64_t i, size_t *len);

/* The type a field gets in a schema: u64, i64, f64, ts, ts("FORMAT") or str. */
const char *rk__dataset_type(const rk__dataset *d, size_t f);

/* The field's time unit as a word ("s", "ms", "us", "ns", "ISO-8601") or NULL
 * (RK__TU_FMT: "format"; the column's dfmt says which). */
const char *rk__tunit_name(rk__tunit tu);

/* A cell's text (non-empty) as the column's number (f64 as its bits). */
uint64_t rk__column_parse(const rk__column *c, const char *t, size_t n);
/* The column's monotonic share (rk__fstats_monotonic) compared the way its
 * type orders: numbers as numbers, ISO-8601 as bytes, dates in a format as
 * the times they say. */
double rk__column_monotonic(const rk__column *c);
/* A time in the unit as milliseconds. */
int64_t rk__tunit_ms(rk__tunit tu, int64_t v);
/* Milliseconds as a time in the unit (the inverse; callers keep ms small
 * enough for nanoseconds). */
int64_t rk__tunit_of_ms(rk__tunit tu, int64_t ms);

/* Finds the data's clock once the columns are typed: sets time_field,
 * clock_falls, t_ms and peak_per_s (dataset_clock.c). 0 or RK_ENOMEM. */
int rk__dataset_pick_clock(rk__dataset *d);
/* The field named name[0..n), or -1. */
int rk__dataset_find(const rk__dataset *d, const char *name, size_t n);

/* Adds a uniquifier: a u64 field numbering the records from 1 (what a
 * writer's sequence number or event id would be). Its name is "seq", or
 * "seq_2", ... when the data has one. Returns its index, or an error. */
int rk__dataset_add_seq(rk__dataset *d);

/* A second pass over a file too large to hold: the same file read again,
 * each record converted by the dataset's types. */
typedef struct rk__dstream rk__dstream;
int rk__dstream_open(rk__dstream **out, const rk__dataset *d);
/* 0 with out filled (nf values), RK_EITEROVER, or an error. Rejected
 * records are skipped as in the first pass. */
int rk__dstream_next(rk__dstream *s, rk__wval *out, int64_t *t_ms);
void rk__dstream_close(rk__dstream *s);

#endif
