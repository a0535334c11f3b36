/*
 * The expected write-ahead logs list and its file (wals.h, formats.md B.5).
 * Decoding is strict and bounds-checked, as META's: every field is read
 * against the end of the buffer, the CRC covers the body, and the logs must
 * be in increasing order with known states.
 */
#include "store/local/wals.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/cell.h"
#include "store/local/crc.h"
#include "store/local/durable.h"
#include "store/local/engine_files.h"

#define WALS_MAGIC "RKWALS01"
#define WALS_VERSION 1u
#define WALS_ENTRY 21u               /* number u64, state u8, size u64, sum u32 */
#define WALS_MAX_BODY (1u << 20)

void rk_wals__free(rk__wals *w)
{
	free(w->logs);
	memset(w, 0, sizeof *w);
}

/* The index of log `number`, or where it would go. */
static size_t position(const rk__wals *w, uint64_t number)
{
	size_t lo = 0, hi = w->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->logs[mid].number < number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

rk__wal *rk_wals__find(rk__wals *w, uint64_t number)
{
	size_t i = position(w, number);
	return i < w->n && w->logs[i].number == number ? &w->logs[i] : NULL;
}

int rk_wals__set(rk__wals *w, uint64_t number, uint8_t state, uint64_t size, uint32_t sum)
{
	size_t i = position(w, number);
	if (i == w->n || w->logs[i].number != number) {
		if (w->n == w->cap) {
			size_t cap = w->cap ? w->cap * 2 : 8;
			rk__wal *nl = realloc(w->logs, cap * sizeof *nl);
			if (!nl)
				return rk__err(RK_ENOMEM, "out of memory listing write-ahead logs");
			w->logs = nl;
			w->cap = cap;
		}
		memmove(&w->logs[i + 1], &w->logs[i], (w->n - i) * sizeof *w->logs);
		w->n++;
	}
	w->logs[i] = (rk__wal){number, state, size, sum};
	return 0;
}

void rk_wals__remove(rk__wals *w, uint64_t number)
{
	size_t i = position(w, number);
	if (i < w->n && w->logs[i].number == number) {
		memmove(&w->logs[i], &w->logs[i + 1], (w->n - i - 1) * sizeof *w->logs);
		w->n--;
	}
}

/* ---- the file ---- */

int rk_wals__decode(rk__wals *out, const uint8_t *p, size_t n, const char *path)
{
	out->n = 0;
	if (n < 16 || memcmp(p, WALS_MAGIC, 8))
		return rk__err(RK_ECORRUPT, "%s: not a list of write-ahead logs (bad magic or too short)",
		               path);
	uint32_t body_len = rk_cell__get_u32(p + 8);
	if (body_len > WALS_MAX_BODY || body_len != n - 16)
		return rk__err(RK_ECORRUPT, "%s: body of %u bytes in a file of %zu", path, body_len, n);
	const uint8_t *b = p + 12;
	if (rk_crc__32(b, body_len) != rk_cell__get_u32(b + body_len))
		return rk__err(RK_ECORRUPT, "%s: checksum mismatch", path);
	if (body_len < 8 || rk_cell__get_u32(b) != WALS_VERSION)
		return rk__err(RK_ECORRUPT, "%s: unknown version", path);
	uint32_t count = rk_cell__get_u32(b + 4);
	if (count > RK_WALS_MAX || (size_t)count * WALS_ENTRY != body_len - 8)
		return rk__err(RK_ECORRUPT, "%s: %u logs in a body of %u bytes", path, count, body_len);
	const uint8_t *e = b + 8;
	for (uint32_t i = 0; i < count; i++, e += WALS_ENTRY) {
		uint64_t number = rk_cell__get_u64(e);
		uint8_t state = e[8];
		if (state > RK_WAL_SEALED)
			return rk__err(RK_ECORRUPT, "%s: log %llu: unknown state %u", path,
			               (unsigned long long)number, state);
		if (out->n && out->logs[out->n - 1].number >= number)
			return rk__err(RK_ECORRUPT, "%s: log %llu out of order", path,
			               (unsigned long long)number);
		int rc = rk_wals__set(out, number, state, rk_cell__get_u64(e + 9),
		                      rk_cell__get_u32(e + 17));
		if (rc)
			return rc;
	}
	return 0;
}

int rk_wals__encode(uint8_t **out, size_t *len, const rk__wals *w)
{
	size_t body = 8 + w->n * WALS_ENTRY;
	uint8_t *p = malloc(16 + body);
	if (!p)
		return rk__err(RK_ENOMEM, "out of memory writing the write-ahead log list");
	memcpy(p, WALS_MAGIC, 8);
	rk_cell__put_u32(p + 8, (uint32_t)body);
	uint8_t *b = p + 12, *e = b + 8;
	rk_cell__put_u32(b, WALS_VERSION);
	rk_cell__put_u32(b + 4, (uint32_t)w->n);
	for (size_t i = 0; i < w->n; i++, e += WALS_ENTRY) {
		rk_cell__put_u64(e, w->logs[i].number);
		e[8] = w->logs[i].state;
		rk_cell__put_u64(e + 9, w->logs[i].size);
		rk_cell__put_u32(e + 17, w->logs[i].sum);
	}
	rk_cell__put_u32(b + body, rk_crc__32(b, body));
	*out = p;
	*len = 16 + body;
	return 0;
}

int rk_wals__load(rk__wals *out, int *found, const char *dir)
{
	char path[4200];
	uint8_t *buf;
	size_t len;
	snprintf(path, sizeof path, "%s/WALS", dir);
	*found = 0;
	if (rk_engine__slurp(&buf, &len, path)) {
		if (errno == ENOENT)
			return 0;
		return rk__err(RK_EIO, "%s: %s", path, strerror(errno));
	}
	int rc = rk_wals__decode(out, buf, len, path);
	free(buf);
	*found = rc == 0;
	return rc;
}

int rk_wals__save(const char *dir, const rk__wals *w)
{
	uint8_t *buf;
	size_t len;
	int rc = rk_wals__encode(&buf, &len, w);
	if (rc)
		return rc;
	/* an older list is as good after a crash: it names fewer logs, never
	   wrong ones (a closed log does not change) */
	rc = rk_local__replace_file(dir, "WALS", buf, len, 0);
	free(buf);
	return rc;
}
