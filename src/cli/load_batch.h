/*
 * rowkey load's batches (load_batch.c): the byte arena a batch's mutations
 * point into, the pending batch, and the ledger of which rows are known
 * written, so a failed load says exactly which rows are written, which may
 * be, and from where nothing was.
 */
#ifndef RK_CLI_LOAD_BATCH_H
#define RK_CLI_LOAD_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/store.h>

/* A batch's byte arena: row keys and values live here until the batch is
 * applied, so mutations can point into it. Offsets, not pointers, while
 * filling (the arena may move), fixed up before applying. */
typedef struct arena {
	uint8_t *p;
	size_t len, cap;
} arena;

/* The records of one batch: loaded rows (1-based, rejected records not
 * counted) and the input lines they came from. */
typedef struct span {
	uint64_t first_row, nrows;
	long first_line, last_line;
} span;

typedef struct pending {
	rk_mutation *m;
	size_t n, cap;
	size_t *row_off, *val_off;
	size_t *rec;   /* per mutation: its record's index in the batch */
	int *res;      /* per mutation: the backend's result (synchronous backends) */
	long *line;    /* per record: the input line it ended on */
	span sp; /* sp.nrows: records in the batch (some may have no cells) */
} pending;

/* ---- the ledger: which rows are known written ----
 * rk_table_apply_async returns before its batch is applied, and at most two
 * batches of a handle are in flight: when the call for batch k returns 0,
 * batch k-2 (and every earlier one) is acknowledged; when rk_table_flush
 * returns 0, every batch is. Batches are acknowledged in order here, so the
 * written rows are always rows 1..written. After a failure the batches still
 * in flight stay uncertain: the API does not say which of them failed. */
typedef struct ledger {
	uint64_t written; /* rows of acknowledged batches */
	span fly[2];      /* sent, not yet known acknowledged; oldest first */
	unsigned nfly;
} ledger;

/* Appends n bytes to the arena; returns their offset, or -1 (out of memory). */
long rk_load__arena_put(arena *a, const void *src, size_t n);

/* Acknowledges the n oldest batches in flight: their rows are written. */
void rk_load__ledger_ack(ledger *l, unsigned n);

/* Queues the pending batch (which must have cells). On success the ledger
 * records it and the batch and arena are empty again; on failure nothing was
 * queued and they are left as they were, for the report. */
int rk_load__send(rk_table *t, ledger *l, pending *p, arena *a);

/* A write failed at `what`: lets the batches in flight finish, then says
 * what is known written, what failed or is uncertain, and from where
 * nothing was written. */
void rk_load__failed_write(rk_table *t, ledger *l, const pending *p, const arena *a,
                           const char *what);

#endif
