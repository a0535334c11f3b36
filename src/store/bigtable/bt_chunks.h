/*
 * ReadRows chunk reassembly: turns the stream of ReadRowsResponse messages of
 * a Bigtable ReadRows call back into whole rows.
 *
 * The server cuts rows into CellChunks. A chunk with a row key starts a row;
 * family and qualifier carry over from the previous chunk when absent; a cell
 * whose value is split over several chunks announces the total in value_size
 * on every chunk but the last; reset_row drops the row in progress (it will be
 * sent again); commit_row ends the row. This module is that state machine and
 * nothing else: it does no I/O, so tests and the fuzzer drive it with bytes.
 * Any violation of the protocol (a row key going backwards, a continuation
 * chunk that carries a new cell header, a commit inside a split cell, a stream
 * that ends inside a row, ...) is RK_ECORRUPT with a message that says which
 * chunk and why. It does not apply filters or row limits: the server does.
 */
#ifndef RK_STORE_BT_CHUNKS_H
#define RK_STORE_BT_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

/* One cell of a reassembled row. All pointers borrow the row's storage. The
 * family name is not NUL-terminated. */
typedef struct rk_bt_cell {
	const char *family;
	size_t family_len;
	const uint8_t *qualifier;
	size_t qualifier_len;
	int64_t ts_micros;
	const uint8_t *value;
	size_t value_len;
} rk_bt_cell;

/* One committed row. Its cells are ordered by family name (bytewise: the
 * server leaves the order of families unspecified, so the decoder sorts
 * them), and within a family as the server sent them: by qualifier, then
 * newest timestamp first. */
typedef struct rk_bt_row {
	const uint8_t *key;
	size_t key_len;
	const rk_bt_cell *cells;
	size_t ncells;
} rk_bt_row;

/* Largest row the decoder assembles (Bigtable's own limit for a read). */
#define RK_BT_MAX_ROW_BYTES ((size_t)256 << 20)

typedef struct rk_bt_chunks rk_bt_chunks;

/* A decoder for one ReadRows stream. The caller owns *out and frees it with
 * rk_bt__chunks_free. */
int rk_bt__chunks_new(rk_bt_chunks **out);
void rk_bt__chunks_free(rk_bt_chunks *d);

/* Feeds one ReadRowsResponse message (its serialized bytes). Rows it commits
 * are queued for rk_bt__chunks_next. After an error the decoder stays failed:
 * every later call returns RK_ECORRUPT again. */
int rk_bt__chunks_feed(rk_bt_chunks *d, const uint8_t *msg, size_t len);

/* Hands out the next committed row, or RK_EITEROVER when none is queued. The
 * row is owned by the decoder and valid until the next call to
 * rk_bt__chunks_next, rk_bt__chunks_feed or rk_bt__chunks_free. */
int rk_bt__chunks_next(const rk_bt_row **out, rk_bt_chunks *d);

/* Says the stream ended normally: RK_ECORRUPT if a row was left uncommitted. */
int rk_bt__chunks_finish(rk_bt_chunks *d);

/* Makes the stream start after `key`: the first row must have a greater
 * key (for a read resumed after that row). Call before the first feed. */
int rk_bt__chunks_start_after(rk_bt_chunks *d, const uint8_t *key, size_t len);

/* The key of the last committed row (NULL, 0 before the first), e.g. to
 * resume a read after it. Borrowed, valid until the next feed. */
const uint8_t *rk_bt__chunks_last_key(const rk_bt_chunks *d, size_t *len);

#endif
