/*
 * The workload cursor's state, shared by workload.c (the cursor, file
 * replay) and gen.c (the generated workloads).
 */
#ifndef RK_ANALYZE_WSTATE_H
#define RK_ANALYZE_WSTATE_H

#include "analyze/dataset.h"
#include "analyze/workload.h"

#define RK__WMAXF 64
#define RK__T0_MS 1686465031000ll /* 2023-06-11 06:30:31 UTC: generated time starts here */
#define RK__WMAXSHAPES 16

enum { RK__WL_MESSAGES, RK__WL_KEYS, RK__WL_URLS, RK__WL_TRADES, RK__WL_CARS, RK__WL_USERS,
       RK__WL_FILE };

typedef struct rk__zipf {
	uint64_t n;
	double s, hx1, hn, sc;
	uint64_t perm; /* rank -> id scramble: id = (rank - 1) * perm mod n */
} rk__zipf;

typedef struct rk__strbuf {
	char b[160];
} rk__strbuf;

/* A query shape: its name, its predicate with ?, its weight. */
typedef struct rk__wshape {
	const char *name, *where;
	double weight;
} rk__wshape;

struct rk__workload {
	int kind;
	rk_workload_options o;
	char *file;
	rk__wfield fields[RK__WMAXF];
	size_t nfields;
	rk__wshape shapes[RK__WMAXSHAPES];
	size_t nshapes;
	int own_shapes; /* the generator's reads execute shapes (not --query ones) */
	const char *natural_key;
	char fields_text_buf[RK__WMAXF * 72];
	uint64_t total, i, writes;
	int64_t dur_ms;
	double rate, read_fraction, ms_per_op;
	rk__rng rng, qrng;
	rk__zipf z1, z2;
	uint64_t card;
	unsigned key_width;
	rk__wval rec[RK__WMAXF], lo[RK__WMAXF], hi[RK__WMAXF];
	rk__strbuf rs[RK__WMAXF], ls[RK__WMAXF], hs[RK__WMAXF];
	/* messages: the date text of the current day, the time of the second */
	int64_t day, sec;
	char date[8], tod[8];
	/* file replay */
	rk__dataset *own;         /* a dataset the workload read itself */
	const rk__dataset *ds;
	rk__dstream *stream;      /* a second pass when the dataset is not complete */
	int own_time;             /* replay at the data's pace */
	int64_t t0;               /* the data's first time, ms */
	int64_t stream_last;      /* the streamed clock so far (never backwards) */
};

/* gen.c: the generated workloads */
int rk__gen_setup(rk__workload *w);
void rk__gen_write(rk__workload *w, int64_t t_ms);
void rk__gen_query(rk__workload *w, int shape, int64_t t_ms);
void rk__zipf_init(rk__zipf *z, uint64_t n, double s);
uint64_t rk__zipf_draw(const rk__zipf *z, rk__rng *r);

#endif
