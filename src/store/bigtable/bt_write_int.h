/*
 * Private to the MutateRows writer (bt_write.c, its calls in bt_wcall.c):
 * the rows it holds, its calls and its state.
 */
#ifndef RK_STORE_BT_WRITE_INT_H
#define RK_STORE_BT_WRITE_INT_H

#include <stdlib.h>
#include <time.h>

#include "store/bigtable/bt_int.h"

#define MAX_BACKOFF_MS 5000

/* One row waiting to be acknowledged. The key and the packed entry follow the
 * struct in the same allocation. */
typedef struct went {
	size_t key_len, len;
	uint64_t seq;          /* its number in add order */
	unsigned attempts;     /* calls it has been sent in */
	int64_t not_before_ms; /* retries: not before this time */
	int code;              /* last gRPC code seen for it */
	char *msg;             /* last failure text, malloc'd */
	uint8_t data[];        /* key, then the packed Entry */
} went;

static inline const uint8_t *went_key(const went *e) { return e->data; }
static inline const uint8_t *went_bytes(const went *e) { return e->data + e->key_len; }

static inline void went_free(went *e)
{
	if (e) {
		free(e->msg);
		free(e);
	}
}

typedef struct wcall wcall;
typedef struct wtag {
	wcall *call;
	int recv; /* 0: the status batch, 1: a receive */
} wtag;

struct wcall {
	grpc_call *call;
	grpc_byte_buffer *send;
	grpc_metadata md;
	grpc_metadata_array init_md, trail_md;
	grpc_status_code status;
	grpc_slice details;
	const char *errstr;
	grpc_byte_buffer *recv;
	int status_done, recv_done;
	wtag tag_status, tag_recv;
	went **ents;
	int *codes; /* per entry: -1 until the server reports on it */
	size_t n;
	char *protocol_error; /* set when a response made no sense */
};

struct rk_bt_writer {
	rk_bt_client *c;
	char *table_name;
	char *routing;
	char what[128];
	grpc_completion_queue *cq;
	wcall **calls;
	unsigned ncalls;
	went **fresh; /* FIFO of rows never sent */
	size_t fhead, fn, fcap;
	went **retry; /* rows waiting for their backoff */
	size_t rn, rcap;
	rk_bt_write_stats st;
	uint64_t failed_reported;
	uint64_t rng;
	rk_bt_row_done done;
	void *done_payload;
	/* the first row given up on since the last flush */
	int first_code;
	char first_key[200];
	char *first_msg;
	unsigned first_attempts;
};

static inline int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- bt_wcall.c ---- */

/* Starts a MutateRows call with entries ents[0..n) (each sent once more). */
int rk_bt__start_call(rk_bt_writer *w, went **ents, size_t n);
/* Waits for one event of the writer's calls until deadline, and handles it. */
int rk_bt__wait_event(rk_bt_writer *w, gpr_timespec deadline);
/* Puts a failed row back for a retry after its backoff. */
int rk_bt__push_retry(rk_bt_writer *w, went *e);
/* Gives up on a row: its failure becomes final. */
void rk_bt__give_up(rk_bt_writer *w, went *e);
void rk_bt__wcall_free(wcall *k);

#endif
