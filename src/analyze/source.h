/*
 * A source: what every run of one workload shares, built once - the
 * workload options, the writes' profile (and its dataset: a file's records
 * in memory, or a generated workload's writes) and the query shapes filled
 * from that data. analyze builds one per command; suggest builds one and
 * runs every candidate design over it, so a file is read once however many
 * designs are tried.
 */
#ifndef RK_ANALYZE_SOURCE_H
#define RK_ANALYZE_SOURCE_H

#include <rowkey/analyze.h>

#include "analyze/dataset.h"
#include "analyze/shape.h"
#include "analyze/workload.h"

typedef struct rk_workload_source rk__source;

struct rk_workload_source {
	rk_workload_options o;  /* the file name is copied */
	char *file;
	rk_profile *profile;    /* owns the dataset */
	rk__dataset *d;
	rk__workload *shapes;   /* a cursor kept for the shapes' names and templates */
	rk__qset q;
};

typedef void (*rk__progress_fn)(const char *what, uint64_t done, uint64_t bytes, void *payload);

/* Reads the data (a file once; a generated workload's writes) and fills the
 * query shapes. Caller frees with rk__source_free. */
int rk__source_open(rk__source **out, const rk_workload_options *o, rk__progress_fn progress,
                    void *payload);
void rk__source_free(rk__source *s);

/* A fresh cursor over the source's operations (a file replays the dataset). */
int rk__source_workload(rk__workload **out, const rk__source *s);

#endif
