/*
 * rowkey rekey's copy inside (rekey_copy.c the batches, their write and the
 * checkpoint; rekey_check.c the check that no new key is taken twice and,
 * on a served table, the batch against the mirror). Internal to the two.
 */
#ifndef RK_CLI_REKEY_COPY_H
#define RK_CLI_REKEY_COPY_H

#include "cli/load_batch.h"
#include "cli/progress.h"
#include "cli/rekey.h"

typedef struct rk_rekey_brow {
	size_t ok, ol, nk, nl, m0, nm;
	int gone; /* served: the row changed since the scan read it (the mirror wrote it) */
} rk_rekey_brow;

/* A ring of batches: the one being filled and the two the store may still
 * be writing (rk_table_apply_async keeps at most two in flight). */
#define RING 3
/* Batches a checkpoint covers (its `pending`): a kill redoes at most these. */
#define BATCHES_PER_SAVE 8

typedef struct rk_rekey_batch {
	rk_rekey_brow *rows;
	size_t nrows, rcap;
	rk_mutation *m;
	size_t *foff, *qoff, *voff; /* per mutation: family, qualifier, value offsets */
	rk_cell *cells;             /* a row's cells as a read gives them, to compare */
	size_t nm, mcap;
	arena a;
	size_t *ix;                 /* the rows in new-key order */
	int flight;                 /* queued, maybe not yet acknowledged */
} rk_rekey_batch;

typedef struct rk_rekey_copier {
	rk_store *s;
	rk_rekey_ckpt *c;
	const rk_rekey_opts *o;
	rk_rekey_map map;
	rk_table *old, *nt;
	rk_rekey_batch ring[RING], *b; /* b: the one being filled */
	unsigned cur;         /* b is ring[cur] */
	rk_rekey_seen seen;
	int filter;           /* not served: every key the new table holds is in seen */
	uint64_t budget;      /* rows the saved checkpoint lets be written after its done */
	uint64_t since;       /* rows queued after it */
	uint64_t per_save;
	uint64_t window; /* rows of the next batches a killed run may have written */
	rk_cli_progress pr;
	rk_rekey_eta eta;
	uint64_t copied;
	size_t max_old_key; /* the longest old key the checkpoint can hold */
} rk_rekey_copier;

typedef rk_rekey_brow brow;
typedef rk_rekey_batch batch;
typedef rk_rekey_copier copier;

/* Says the copy ran out of memory; RK_EXIT_FAIL. */
int rk_rekey__no_memory(void);

/* Two rows of the batch cp->b with one new key: said, 1; else 0. The
 * batch's rows are left in b->ix in new-key order. */
int rk_rekey__batch_duplicates(copier *cp);

/* Checks the batch's new keys against the new table. 0 to write it, 1 on a
 * collision (said), -1 on a read error (said). */
int rk_rekey__held_keys(copier *cp);

/* Served: holds (1) or lets go (0) the server's locks of the batch's old
 * rows; -1 when out of memory. */
int rk_rekey__hold_rows(copier *cp, int hold);

/* Served, with the rows held: marks `gone` each old row not as the scan
 * read it. 0, or -1 (said). */
int rk_rekey__still_same(copier *cp);

/* The mutations of the rows not gone, moved to the front; their count. */
size_t rk_rekey__kept_mutations(batch *b);

#endif
