/*
 * The rows a rekey copy has left, estimated without reading them: how far
 * the copy has come through the old table's key range, from the first key
 * it copied to the table's last key (one reverse read). Each key is placed
 * by the eight bytes after the prefix the first and last keys share, read
 * as a number: exact for keys spread evenly over that range (sequential
 * ids, hashed buckets), rough for skewed ones, which is enough for a
 * progress line's ETA (a count of the rows first would cost a second scan
 * of the old table).
 */
#include <stdlib.h>
#include <string.h>

#include "cli/rekey.h"

static double place(const rk_rekey_eta *e, const uint8_t *k, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < 8; i++)
		v = v << 8 | (e->plen + i < n ? k[e->plen + i] : 0);
	return (double)v;
}

static int keep(uint8_t **to, size_t *len, const uint8_t *k, size_t n)
{
	if (!(*to = malloc(n ? n : 1)))
		return -1;
	memcpy(*to, k, n);
	*len = n;
	return 0;
}

void rk_rekey__eta_init(rk_rekey_eta *e, rk_table *old)
{
	rk_filter kids[2] = {{.kind = RK_FILTER_ROW_LIMIT, .n = 1}, {.kind = RK_FILTER_STRIP_VALUE}};
	rk_filter f = {.kind = RK_FILTER_CHAIN, .kids = kids, .nkids = 2};
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_scan *sc;
	const rk_row *r;
	*e = (rk_rekey_eta){0};
	so.reverse = 1;
	so.limit = 1;
	so.read.filter = &f;
	if (rk_scan_open(&sc, old, &so)) /* a backend that cannot: no ETA */
		return;
	if (rk_scan_next(&r, sc) == 0 && keep(&e->last, &e->last_len, r->key, r->key_len) == 0)
		e->ok = 1;
	rk_scan_close(sc);
}

void rk_rekey__eta_start(rk_rekey_eta *e, const uint8_t *k, size_t n)
{
	if (!e->ok || e->first)
		return;
	if (keep(&e->first, &e->first_len, k, n)) {
		e->ok = 0;
		return;
	}
	size_t m = e->first_len < e->last_len ? e->first_len : e->last_len;
	while (e->plen < m && e->first[e->plen] == e->last[e->plen])
		e->plen++;
	e->lo = place(e, e->first, e->first_len);
	e->hi = place(e, e->last, e->last_len);
}

uint64_t rk_rekey__eta_total(const rk_rekey_eta *e, const uint8_t *k, size_t n, uint64_t rows)
{
	if (!e->ok || !e->first || e->hi <= e->lo)
		return 0;
	double f = (place(e, k, n) - e->lo) / (e->hi - e->lo);
	if (f <= 1e-6)
		return 0;
	double t = (double)rows / (f < 1 ? f : 1);
	return t > (double)rows ? (uint64_t)t : rows;
}

void rk_rekey__eta_free(rk_rekey_eta *e)
{
	free(e->first);
	free(e->last);
	*e = (rk_rekey_eta){0};
}
