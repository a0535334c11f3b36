/*
 * The meta map in memory (see meta.h): tables, their families, settings and
 * regions; lookups by row, region replacement for splits, and the map's
 * invariants (rk_meta__validate_table). Its persisted form, the META file,
 * is meta_file.c's.
 */
#include "key/bytes.h"
#include "store/local/meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/cell.h"
#include "store/local/keyviz.h"

int rk_meta__row_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	return rk__bytes_cmp(a, al, b, bl);
}

void rk_meta__init(rk__meta *m, unsigned n_servers)
{
	memset(m, 0, sizeof *m);
	m->n_servers = n_servers;
	m->next_table_id = 1;
	m->next_region_id = 1;
}

/* ---- properties ---- */

int rk_meta__prop_key_ok(const char *key)
{
	return rk_store__valid_prop_key(key);
}

/* Index of key in p, or of where it would go (*found 0). */
static size_t prop_find(const rk__props *p, const char *key, int *found)
{
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(p->v[mid].key, key);
		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = 0;
	return lo;
}

int rk_meta__prop_set(rk__props *p, const char *key, const void *val, size_t len)
{
	int found;
	if (!rk_meta__prop_key_ok(key))
		return rk__err(RK_EINVALID,
		               "setting '%s': a key is 1..%d bytes of lower-case letters, digits, _ .",
		               key ? key : "(null)", RK__PROP_KEY_MAX);
	if (len > RK__PROP_VAL_MAX)
		return rk__err(RK_EINVALID, "setting %s: value of %zu bytes (at most %d)", key, len,
		               RK__PROP_VAL_MAX);
	uint8_t *copy = malloc(len + 1);
	if (!copy)
		return rk__err(RK_ENOMEM, "setting %s: out of memory", key);
	if (len)
		memcpy(copy, val, len);
	copy[len] = 0;
	size_t i = prop_find(p, key, &found);
	if (found) {
		free(p->v[i].val);
		p->v[i].val = copy;
		p->v[i].len = len;
		return 0;
	}
	if (p->n >= RK__PROPS_MAX) {
		free(copy);
		return rk__err(RK_EINVALID, "setting %s: already %d settings", key, RK__PROPS_MAX);
	}
	rk__prop *nv = realloc(p->v, (p->n + 1) * sizeof *nv);
	if (!nv) {
		free(copy);
		return rk__err(RK_ENOMEM, "setting %s: out of memory", key);
	}
	p->v = nv;
	memmove(p->v + i + 1, p->v + i, (p->n - i) * sizeof *p->v);
	snprintf(p->v[i].key, sizeof p->v[i].key, "%s", key);
	p->v[i].val = copy;
	p->v[i].len = len;
	p->n++;
	return 0;
}

int rk_meta__prop_get(const rk__props *p, const char *key, const uint8_t **val, size_t *len)
{
	int found;
	size_t i = prop_find(p, key, &found);
	if (!found)
		return RK_ENOTFOUND;
	*val = p->v[i].val;
	*len = p->v[i].len;
	return 0;
}

int rk_meta__prop_del(rk__props *p, const char *key)
{
	int found;
	size_t i = prop_find(p, key, &found);
	if (found) {
		free(p->v[i].val);
		memmove(p->v + i, p->v + i + 1, (p->n - i - 1) * sizeof *p->v);
		p->n--;
	}
	return 0;
}

int rk_meta__prop_u64(const rk__props *p, const char *key, uint64_t *out)
{
	const uint8_t *v;
	size_t n;
	uint64_t x = 0;
	if (rk_meta__prop_get(p, key, &v, &n))
		return 0;
	if (n == 0 || n > 20)
		goto bad;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9' || x > (UINT64_MAX - (uint64_t)(v[i] - '0')) / 10)
			goto bad;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*out = x;
	return 0;
bad:
	return rk__err(RK_ECORRUPT, "setting %s: '%.*s' is not a decimal number", key,
	               (int)(n > 40 ? 40 : n), (const char *)v);
}

void rk_meta__props_free(rk__props *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].val);
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

void rk_meta__table_free(rk__tmeta *t)
{
	if (!t)
		return;
	rk_meta__props_free(&t->props);
	rk_kvt__free(t->kv);
	rk_store__families_free(t->families, t->nfamilies);
	free(t->regions);
	free(t);
}

void rk_meta__fini(rk__meta *m)
{
	for (size_t i = 0; i < m->ntables; i++)
		rk_meta__table_free(m->tables[i]);
	free(m->tables);
	while (m->dropped) {
		rk__tmeta *t = m->dropped;
		m->dropped = t->next_dropped;
		rk_meta__table_free(t);
	}
	rk_meta__props_free(&m->props);
	while (m->all_regions) {
		rk__region *r = m->all_regions;
		m->all_regions = r->next_all;
		rk_metrics__fini(&r->metrics);
		free(r->start);
		free(r->end);
		free(r->lo);
		free(r->hi);
		free(r);
	}
	memset(m, 0, sizeof *m);
}

rk__region *rk_meta__region_new(rk__meta *m, rk__tmeta *t, uint64_t id, const uint8_t *start,
                                size_t start_len, const uint8_t *end, size_t end_len,
                                unsigned server)
{
	rk__region *r = calloc(1, sizeof *r);
	if (!r)
		goto nomem;
	r->start = malloc(start_len + 1);
	r->lo = malloc(4 + 2 * start_len + 2);
	r->hi = malloc(4 + 2 * end_len + 2);
	if (!r->start || !r->lo || !r->hi)
		goto nomem;
	if (end) {
		if (!(r->end = malloc(end_len + 1)))
			goto nomem;
		if (end_len)
			memcpy(r->end, end, end_len);
		r->end_len = end_len;
	}
	if (start_len)
		memcpy(r->start, start, start_len);
	r->start_len = start_len;
	r->id = id;
	r->table = t;
	r->server = server;
	r->lo_len = rk_cell__row_bound(r->lo, t->id, start_len ? start : NULL, start_len, 0);
	r->hi_len = rk_cell__row_bound(r->hi, t->id, end, end_len, end == NULL);
	atomic_init(&r->retired, 0);
	atomic_init(&r->size, 0);
	atomic_init(&r->split_at_size, 0);
	atomic_init(&r->split_pending, 0);
	atomic_init(&r->moving, 0);
	rk_metrics__init(&r->metrics);
	r->next_all = m->all_regions;
	m->all_regions = r;
	return r;
nomem:
	if (r) {
		free(r->start);
		free(r->lo);
		free(r->hi);
		free(r->end);
		free(r);
	}
	rk__err(RK_ENOMEM, "table %s: out of memory for a region", t->name);
	return NULL;
}

rk__tmeta *rk_meta__table(const rk__meta *m, const char *name)
{
	for (size_t i = 0; i < m->ntables; i++)
		if (!strcmp(m->tables[i]->name, name))
			return m->tables[i];
	return NULL;
}

rk__tmeta *rk_meta__table_by_id(const rk__meta *m, uint32_t id)
{
	for (size_t i = 0; i < m->ntables; i++)
		if (m->tables[i]->id == id)
			return m->tables[i];
	return NULL;
}

int rk_meta__table_add(rk__meta *m, rk__tmeta *t)
{
	rk__tmeta **n = realloc(m->tables, (m->ntables + 1) * sizeof *n);
	if (!n)
		return rk__err(RK_ENOMEM, "table %s: out of memory", t->name);
	m->tables = n;
	size_t i = m->ntables;
	while (i > 0 && strcmp(m->tables[i - 1]->name, t->name) > 0) {
		m->tables[i] = m->tables[i - 1];
		i--;
	}
	m->tables[i] = t;
	m->ntables++;
	return 0;
}

void rk_meta__table_remove(rk__meta *m, rk__tmeta *t)
{
	size_t i = 0;
	while (i < m->ntables && m->tables[i] != t)
		i++;
	if (i == m->ntables)
		return;
	memmove(m->tables + i, m->tables + i + 1, (m->ntables - i - 1) * sizeof *m->tables);
	m->ntables--;
	for (size_t k = 0; k < t->nregions; k++)
		atomic_store(&t->regions[k]->retired, 1);
	t->next_dropped = m->dropped;
	m->dropped = t;
}

size_t rk_meta__lookup_index(const rk__tmeta *t, const uint8_t *row, size_t len)
{
	/* the last region whose start <= row; region 0 starts at the empty row */
	size_t lo = 0, hi = t->nregions;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		const rk__region *r = t->regions[mid];
		if (rk_meta__row_cmp(r->start, r->start_len, row, len) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

rk__region *rk_meta__lookup(const rk__tmeta *t, const uint8_t *row, size_t len)
{
	return t->regions[rk_meta__lookup_index(t, row, len)];
}

rk__region *rk_meta__region(const rk__meta *m, uint64_t id)
{
	for (size_t i = 0; i < m->ntables; i++)
		for (size_t k = 0; k < m->tables[i]->nregions; k++)
			if (m->tables[i]->regions[k]->id == id)
				return m->tables[i]->regions[k];
	return NULL;
}

size_t rk_meta__regions_on_server(const rk__tmeta *t, unsigned server)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nregions; i++)
		n += t->regions[i]->server == server;
	return n;
}

int rk_meta__replace(rk__tmeta *t, size_t i, rk__region **repl, size_t n)
{
	size_t total = t->nregions - 1 + n;
	rk__region **a = malloc(total * sizeof *a);
	if (!a)
		return rk__err(RK_ENOMEM, "table %s: out of memory replacing a region", t->name);
	memcpy(a, t->regions, i * sizeof *a);
	memcpy(a + i, repl, n * sizeof *a);
	memcpy(a + i + n, t->regions + i + 1, (t->nregions - i - 1) * sizeof *a);
	free(t->regions);
	t->regions = a;
	t->nregions = total;
	return 0;
}

int rk_meta__validate_table(const rk__meta *m, const rk__tmeta *t)
{
	char b1[200], b2[200];
	if (t->nregions == 0)
		return rk__err(RK_ECORRUPT, "table %s: no regions", t->name);
	if (t->regions[0]->start_len != 0)
		return rk__err(RK_ECORRUPT, "table %s: region %llu: first region starts at '%s', not at "
		                            "the empty row (gap before it)",
		               t->name, (unsigned long long)t->regions[0]->id,
		               rk__err_bytes(b1, sizeof b1, t->regions[0]->start, t->regions[0]->start_len));
	for (size_t k = 0; k < t->nregions; k++) {
		const rk__region *r = t->regions[k];
		if (r->server >= m->n_servers)
			return rk__err(RK_ECORRUPT, "table %s: region %llu: server %u of %u", t->name,
			               (unsigned long long)r->id, r->server, m->n_servers);
		if (k + 1 == t->nregions) {
			if (r->end)
				return rk__err(RK_ECORRUPT,
				               "table %s: region %llu: last region ends at '%s' (gap after it)",
				               t->name, (unsigned long long)r->id,
				               rk__err_bytes(b1, sizeof b1, r->end, r->end_len));
			continue;
		}
		const rk__region *n = t->regions[k + 1];
		if (!r->end)
			return rk__err(RK_ECORRUPT,
			               "table %s: region %llu: unbounded but not last (overlaps region %llu)",
			               t->name, (unsigned long long)r->id, (unsigned long long)n->id);
		if (rk_meta__row_cmp(r->start, r->start_len, r->end, r->end_len) >= 0)
			return rk__err(RK_ECORRUPT, "table %s: region %llu: empty range ['%s', '%s')",
			               t->name, (unsigned long long)r->id,
			               rk__err_bytes(b1, sizeof b1, r->start, r->start_len),
			               rk__err_bytes(b2, sizeof b2, r->end, r->end_len));
		int c = rk_meta__row_cmp(r->end, r->end_len, n->start, n->start_len);
		if (c)
			return rk__err(RK_ECORRUPT,
			               "table %s: region %llu ends at '%s' but region %llu starts at '%s' (%s)",
			               t->name, (unsigned long long)r->id,
			               rk__err_bytes(b1, sizeof b1, r->end, r->end_len),
			               (unsigned long long)n->id,
			               rk__err_bytes(b2, sizeof b2, n->start, n->start_len),
			               c < 0 ? "gap" : "overlap");
	}
	return 0;
}
