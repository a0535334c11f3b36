/*
 * Writing the meta map: every change is encoded under the meta write lock
 * (rk_local__meta_snapshot) and written after it is dropped
 * (rk_local__meta_persist), so no caller does file I/O while holding the
 * lock; snapshots carry a sequence number and the newest on disk wins, as
 * two changes may finish their writes out of order.
 */
#include <pthread.h>
#include <stdlib.h>

#include "store/local/local_int.h"

/* Encodes the meta map (write lock held); the caller persists it. */
int rk_local__meta_snapshot(rk__local *s, uint8_t **buf, size_t *len, uint64_t *seq)
{
	*seq = ++s->meta_seq;
	return rk_meta__encode(buf, len, &s->meta);
}

/* Writes a snapshot unless a newer one is already on disk. Frees buf. */
int rk_local__meta_persist(rk__local *s, uint8_t *buf, size_t len, uint64_t seq)
{
	int rc = 0;
	pthread_mutex_lock(&s->persist_mu);
	if (seq > s->persisted_seq) {
		rc = rk_meta__save(s->dir, buf, len);
		if (!rc)
			s->persisted_seq = seq;
	}
	pthread_mutex_unlock(&s->persist_mu);
	free(buf);
	return rc;
}
