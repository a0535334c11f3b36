/*
 * rowkey rekey's parts (cmd_rekey.c the command; rekey_ckpt.c the
 * checkpoint, docs/formats.md B.6; rekey_map.c an old row's new key;
 * rekey_copy.c the copy; rekey_verify.c the verify). The procedure and
 * what it guarantees: docs/rekey.md.
 */
#ifndef RK_CLI_REKEY_H
#define RK_CLI_REKEY_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include <rowkey/key.h>
#include <rowkey/store.h>

#include "store/rekey.h"

#define RK_REKEY_CMD "rekey"

/* Where a rekey's messages go: standard output and error, or, for a rekey
 * `rowkey serve` runs for a `rowkey rekey` client, that client's
 * connection (set by the serving thread for itself alone). */
extern _Thread_local FILE *rk_rekey__out, *rk_rekey__err;
#define RK_REKEY_OUT (rk_rekey__out ? rk_rekey__out : stdout)
#define RK_REKEY_ERR (rk_rekey__err ? rk_rekey__err : stderr)

/* "rowkey rekey: WHAT: rk_error_last()" to RK_REKEY_ERR; RK_EXIT_FAIL. */
int rk_rekey__fail(const char *what);
/* ---- the copy and the verify ---- */

typedef struct rk_rekey_opts {
	const char *db, *table, *into, *schema_arg, *splits;
	uint64_t batch;
	int quiet;
	const rk_rekey_live *live; /* run by rowkey serve: its hooks; else NULL */
} rk_rekey_opts;

/* The copy into the checkpoint's target (created by the caller), resumed
 * from its checkpoint. Returns the exit status (said). */
int rk_rekey__copy(rk_store *s, rk_rekey_ckpt *c, const rk_rekey_opts *o);

/* The verify: exit status, and the result recorded in the checkpoint. */
int rk_rekey__verify(rk_store *s, rk_rekey_ckpt *c, const rk_rekey_opts *o);

/* The steps after the copy (rekey_admin.c): the names they work on. Each
 * returns the exit status (said). */
typedef struct rk_rekey_names {
	const char *db, *table, *target, *oldname;
	const rk_rekey_live *live;
} rk_rekey_names;
int rk_rekey__cutover(rk_store *s, const rk_rekey_names *n);
int rk_rekey__abort(rk_store *s, const rk_rekey_names *n);
int rk_rekey__drop_old(rk_store *s, const rk_rekey_names *n);

/* The new keys the new table may hold (rekey_seen.c): a Bloom filter that
 * never says "no" for a key added. Zeroed is empty. */
#define RK_REKEY_SEEN_MAX ((size_t)256 << 20)
typedef struct rk_rekey_seen {
	struct rk_rekey_seen_level *lv;
	size_t nlv, bytes;
	int full; /* past the cap (or out of memory): every key "maybe" */
} rk_rekey_seen;
void rk_rekey__seen_add(rk_rekey_seen *s, const uint8_t *k, size_t n);
/* 0: key k was never added; 1: it may have been. */
int rk_rekey__seen_maybe(const rk_rekey_seen *s, const uint8_t *k, size_t n);
void rk_rekey__seen_free(rk_rekey_seen *s);

/* The rows a copy has in all, estimated from how far through the old
 * table's key range it has come (rekey_eta.c). */
typedef struct rk_rekey_eta {
	uint8_t *first, *last; /* the first key copied in this run; the table's last */
	size_t first_len, last_len, plen;
	double lo, hi;
	int ok;
} rk_rekey_eta;
/* Reads the old table's last key (nothing known when it cannot). */
void rk_rekey__eta_init(rk_rekey_eta *e, rk_table *old);
/* The first old key this run copies: the range's start. */
void rk_rekey__eta_start(rk_rekey_eta *e, const uint8_t *k, size_t n);
/* The rows this run will copy in all, estimated when it has copied `rows`
 * and reached old key k; 0: no estimate. */
uint64_t rk_rekey__eta_total(const rk_rekey_eta *e, const uint8_t *k, size_t n, uint64_t rows);
void rk_rekey__eta_free(rk_rekey_eta *e);

/* Reads that see every version a family keeps. */
void rk_rekey__all_versions(rk_read_options *ro);

/* 1 when rows a and b hold the same cells (family, qualifier, timestamp,
 * value, in order). */
int rk_rekey__same_cells(const rk_row *a, const rk_row *b);

/* ---- on a served store (rekey_door.c) ---- */

/* The rekey `rowkey serve` runs for a client (its admin door): argv as the
 * command's, on the server's store, messages to out and err. Returns the
 * exit status. */
int rk_cli__rekey_served(rk_store *s, const rk_rekey_live *live, int argc, char **argv,
                         FILE *out, FILE *err);

/* Sends the command to the server of store `db` through its admin door at
 * `addr` (HOST:PORT) and prints what it says. Returns the exit status. */
int rk_cli__rekey_ask(const char *addr, const char *db, int argc, char **argv);

/* The admin door of the server of store `db`, started by rowkey serve;
 * rk_cli__door_stop ends it. 0, or -1 with rk_error_last(). The address
 * bound goes to bound[cap]. */
typedef struct rk_cli_door rk_cli_door;
int rk_cli__door_start(rk_cli_door **out, rk_store *s, const rk_rekey_live *live, char *bound,
                       size_t cap);
void rk_cli__door_stop(rk_cli_door *d);

#endif
