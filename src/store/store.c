/*
 * The public table API (include/rowkey/store.h): argument checks shared by
 * every backend, timestamp assignment, then a call through the store's ops.
 * A mutation batch is validated whole here, before any backend sees it, so
 * a bad entry means nothing is written. Reads are in reads.c, the atomic
 * row operations in atomic.c.
 */
#include "key/bytes.h"
#include "store/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "rowkey/metrics.h"
#include "key/suggest.h"

int rk_store_open(rk_store **out, const char *dir, const rk_store_options *opts)
{
	rk_store_options def = RK_STORE_OPTIONS_INIT;
	*out = NULL;
	if (!dir || !*dir)
		return rk__err(RK_EINVALID, "store: no directory given");
	if (!opts)
		opts = &def;
	if (opts->durability != RK_DURABILITY_SYNC && opts->durability != RK_DURABILITY_ASYNC)
		return rk__err(RK_EINVALID, "store %s: unknown durability mode %d", dir,
		               (int)opts->durability);
	if (opts->n_servers < 1 || opts->n_servers > RK_MAX_SERVERS)
		return rk__err(RK_EINVALID, "store %s: %u region servers (allowed 1..%u)", dir,
		               opts->n_servers, RK_MAX_SERVERS);
	if (opts->metrics_bucket_ms == 0)
		return rk__err(RK_EINVALID, "store %s: metrics bucket of 0 ms", dir);
	if (opts->key_buckets == 1 || opts->key_buckets > 1000)
		return rk__err(RK_EINVALID, "store %s: %u key buckets (allowed 2..1000, or 0: none)",
		               dir, opts->key_buckets);
	return rk_store__open_name(out, dir, opts);
}

int rk_store_repair(size_t *out, const char *dir,
                    void (*report)(const char *line, void *payload), void *payload)
{
	if (out)
		*out = 0;
	if (!dir || !*dir)
		return rk__err(RK_EINVALID, "store: no directory given");
	return rk_store__repair_name(out, dir, report, payload);
}

int rk_store_close(rk_store *store)
{
	return store ? store->ops->close(store) : 0;
}

int rk_store_sync(rk_store *store)
{
	return store->ops->sync(store);
}

/* ---- a table that is not there ---- */

/* rc from a call on table `name`: when it is RK_ENOTFOUND because the table
 * is missing (not a setting or a family of it), the message goes on to say
 * which tables there are, and which one was probably meant. */
static int table_missing(rk_store *store, const char *name, int rc)
{
	rk_table_info *ti;
	size_t n;
	char msg[512], list[400] = "";
	if (rc != RK_ENOTFOUND)
		return rc;
	snprintf(msg, sizeof msg, "%s", rk_error_last());
	if (store->ops->table_list(&ti, &n, store))
		return rk__err(rc, "%s", msg);
	rk__suggest sg;
	rk__suggest_init(&sg, name, strlen(name));
	int present = 0;
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		present |= !strcmp(ti[i].name, name);
		rk__suggest_add(&sg, ti[i].name);
		if (shown < 10 && strlen(list) + strlen(ti[i].name) + 3 < sizeof list) {
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", shown ? ", " : "",
			         ti[i].name);
			shown++;
		}
	}
	if (n > shown)
		snprintf(list + strlen(list), sizeof list - strlen(list), " and %zu more", n - shown);
	char best[RK_MAX_TABLE_NAME_LEN + 1] = "";
	if (rk__suggest_best(&sg))
		snprintf(best, sizeof best, "%s", rk__suggest_best(&sg));
	rk_table_info_free(ti, n);
	if (present) /* the table is there: something of it is missing */
		return rk__err(rc, "%s", msg);
	if (!n)
		return rk__err(rc, "%s (the store has no tables)", msg);
	if (*best)
		return rk__err(rc, "%s (did you mean '%s'? tables: %s)", msg, best, list);
	return rk__err(rc, "%s (tables: %s)", msg, list);
}

/* ---- table settings (the backend checks the key) ---- */

static int prop_args(rk_store *store, const char *table, const char *key)
{
	if (!table || !rk_store__valid_name(table, RK_MAX_TABLE_NAME_LEN))
		return rk__err(RK_EINVALID, "table name '%s': must be 1..%u bytes of letters, "
		                            "digits, _ . -",
		               table ? table : "(null)", RK_MAX_TABLE_NAME_LEN);
	if (!key)
		return rk__err(RK_EINVALID, "table %s: no setting name", table);
	if (!store->ops->table_prop_set)
		return rk__err(RK_EINVALID, "table %s: the %s backend keeps no table settings", table,
		               store->ops->name);
	return 0;
}

int rk_store_table_prop_set(rk_store *store, const char *table, const char *key,
                            const void *val, size_t len)
{
	int rc = prop_args(store, table, key);
	if (rc)
		return rc;
	if (val && len > 65536)
		return rk__err(RK_EINVALID, "table %s: setting %s: %zu bytes (at most 65536)", table,
		               key, len);
	return table_missing(store, table, store->ops->table_prop_set(store, table, key, val, len));
}

int rk_store_table_prop_get(void **out, size_t *out_len, rk_store *store, const char *table,
                            const char *key)
{
	*out = NULL;
	*out_len = 0;
	int rc = prop_args(store, table, key);
	return rc ? rc : table_missing(store, table,
	                               store->ops->table_prop_get(out, out_len, store, table, key));
}

/* ---- tables ---- */

static int check_def(const rk_table_def *def)
{
	if (!def || !rk_store__valid_name(def->name, RK_MAX_TABLE_NAME_LEN))
		return rk__err(RK_EINVALID,
		               "table name '%s': must be 1..%u bytes of letters, digits, _ . -",
		               def && def->name ? def->name : "(null)", RK_MAX_TABLE_NAME_LEN);
	if (def->nfamilies > 255 || (def->nfamilies && !def->families))
		return rk__err(RK_EINVALID, "table %s: %zu column families (allowed 0..255)", def->name,
		               def->nfamilies);
	for (size_t i = 0; i < def->nfamilies; i++) {
		const rk_family_def *f = &def->families[i];
		if (!rk_store__valid_name(f->name, RK_MAX_FAMILY_LEN))
			return rk__err(RK_EINVALID,
			               "table %s: family '%s': must be 1..%u bytes of letters, digits, _ . -",
			               def->name, f->name ? f->name : "(null)", RK_MAX_FAMILY_LEN);
		int rc = f->gc ? rk_gc__check(f->gc, def->name, f->name) : 0;
		if (rc)
			return rc;
		if (!f->gc && f->max_versions < 1)
			return rk__err(RK_EINVALID, "table %s: family %s: max_versions must be >= 1",
			               def->name, f->name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(def->families[j].name, f->name))
				return rk__err(RK_EINVALID, "table %s: family %s declared twice", def->name,
				               f->name);
	}
	for (size_t i = 0; i < def->nsplits; i++) {
		const rk_bytes *b = &def->split_points[i];
		char buf[200];
		if (b->len == 0 || b->len > RK_MAX_ROW_LEN)
			return rk__err(RK_EINVALID, "table %s: split point %zu is %zu bytes (allowed 1..%u)",
			               def->name, i, b->len, RK_MAX_ROW_LEN);
		if (i && rk__bytes_cmp(def->split_points[i - 1].ptr, def->split_points[i - 1].len, b->ptr,
		                 b->len) >= 0)
			return rk__err(RK_EINVALID,
			               "table %s: split point %zu ('%s') is not greater than the one before",
			               def->name, i, rk__err_bytes(buf, sizeof buf, b->ptr, b->len));
		if (def->bucket_prefix_len && b->len != def->bucket_prefix_len)
			return rk__err(RK_EINVALID,
			               "table %s: split point %zu ('%s') is not on a bucket boundary "
			               "(salted tables split only at %u-byte bucket prefixes)",
			               def->name, i, rk__err_bytes(buf, sizeof buf, b->ptr, b->len),
			               def->bucket_prefix_len);
	}
	if (def->bucket_prefix_len > 8)
		return rk__err(RK_EINVALID, "table %s: bucket prefix of %u bytes (allowed 0..8)",
		               def->name, def->bucket_prefix_len);
	return 0;
}

int rk_table_create(rk_store *store, const rk_table_def *def)
{
	int rc = check_def(def);
	return rc ? rc : store->ops->table_create(store, def, NULL, 0);
}

int rk_table_create_with(rk_store *store, const rk_table_def *def, const rk_table_prop *props,
                         size_t nprops)
{
	int rc = check_def(def);
	if (rc)
		return rc;
	if (nprops && !store->ops->table_prop_set)
		return rk__err(RK_EINVALID, "table %s: the %s backend keeps no table settings",
		               def->name, store->ops->name);
	for (size_t i = 0; i < nprops; i++)
		if (!props[i].key || (props[i].len && !props[i].val) || props[i].len > 65536)
			return rk__err(RK_EINVALID, "table %s: setting %zu: no key, or a value of "
			               "%zu bytes (at most 65536)",
			               def->name, i, props[i].len);
	return store->ops->table_create(store, def, props, nprops);
}

int rk_table_drop(rk_store *store, const char *name)
{
	if (!rk_store__valid_name(name, RK_MAX_TABLE_NAME_LEN))
		return rk__err(RK_EINVALID, "table name '%s' is not valid", name ? name : "(null)");
	return table_missing(store, name, store->ops->table_drop(store, name));
}

int rk_store_tables_rename(rk_store *store, const rk_table_rename *v, size_t n)
{
	if (!v || n < 1 || n > 16)
		return rk__err(RK_EINVALID, "rename: %zu renames (1..16 in one call)", n);
	for (size_t i = 0; i < n; i++) {
		const char *f = v[i].from, *t = v[i].to;
		if (!rk_store__valid_name(f, RK_MAX_TABLE_NAME_LEN) ||
		    !rk_store__valid_name(t, RK_MAX_TABLE_NAME_LEN))
			return rk__err(RK_EINVALID, "rename %s -> %s: not a valid table name",
			               f ? f : "(null)", t ? t : "(null)");
		for (size_t k = 0; k < i; k++)
			if (!strcmp(v[k].from, f) || !strcmp(v[k].to, t))
				return rk__err(RK_EINVALID, "rename: table %s named twice in one call",
				               !strcmp(v[k].from, f) ? f : t);
	}
	if (!store->ops->tables_rename)
		return rk__err(RK_EINVALID, "rename %s -> %s: the %s backend has no table rename",
		               v[0].from, v[0].to, store->ops->name);
	return store->ops->tables_rename(store, v, n);
}

int rk_table_family_set(rk_store *store, const char *table, const rk_family_def *fam)
{
	if (!rk_store__valid_name(table, RK_MAX_TABLE_NAME_LEN))
		return rk__err(RK_EINVALID, "table name '%s' is not valid", table ? table : "(null)");
	if (!fam || !rk_store__valid_name(fam->name, RK_MAX_FAMILY_LEN))
		return rk__err(RK_EINVALID, "table %s: family name '%s' is not valid", table,
		               fam && fam->name ? fam->name : "(null)");
	int rc = fam->gc ? rk_gc__check(fam->gc, table, fam->name) : 0;
	if (rc)
		return rc;
	if (!fam->gc && fam->max_versions < 1)
		return rk__err(RK_EINVALID, "table %s: family %s: max_versions must be >= 1", table,
		               fam->name);
	if (!store->ops->family_set)
		return rk__err(RK_EINVALID, "table %s: the %s backend does not change families here",
		               table, store->ops->name);
	return table_missing(store, table, store->ops->family_set(store, table, fam));
}

int rk_table_family_drop(rk_store *store, const char *table, const char *family)
{
	if (!rk_store__valid_name(table, RK_MAX_TABLE_NAME_LEN))
		return rk__err(RK_EINVALID, "table name '%s' is not valid", table ? table : "(null)");
	if (!rk_store__valid_name(family, RK_MAX_FAMILY_LEN))
		return rk__err(RK_EINVALID, "table %s: family name '%s' is not valid", table,
		               family ? family : "(null)");
	if (!store->ops->family_drop)
		return rk__err(RK_EINVALID, "table %s: the %s backend does not change families here",
		               table, store->ops->name);
	return table_missing(store, table, store->ops->family_drop(store, table, family));
}

int rk_table_list(rk_table_info **out, size_t *count, rk_store *store)
{
	*out = NULL;
	*count = 0;
	return store->ops->table_list(out, count, store);
}

void rk_table_info_free(rk_table_info *infos, size_t count)
{
	if (!infos)
		return;
	for (size_t i = 0; i < count; i++) {
		for (size_t j = 0; j < infos[i].nfamilies; j++) {
			free((char *)infos[i].families[j].name);
			free((rk_gc_rule *)infos[i].families[j].gc);
		}
		free(infos[i].families);
		free(infos[i].name);
	}
	free(infos);
}

int rk_table_open(rk_table **out, rk_store *store, const char *name)
{
	*out = NULL;
	if (!rk_store__valid_name(name, RK_MAX_TABLE_NAME_LEN))
		return rk__err(RK_EINVALID, "table name '%s' is not valid", name ? name : "(null)");
	return table_missing(store, name, store->ops->table_open(out, store, name));
}

int rk_table_has_family(const rk_table *table, const char *family)
{
	return family && rk_store__family(table, family, strlen(family)) != NULL;
}

void rk_table_close(rk_table *table)
{
	if (table)
		table->store->ops->table_close(table);
}

/* ---- writes ---- */

int rk_store__check_mutation(const rk_table *t, const rk_mutation *m, size_t i,
                             const char **known)
{
	char buf[200];
	if (m->type < RK_MUT_PUT || m->type > RK_MUT_DELETE_ROW)
		return rk__err(RK_EINVALID, "table %s: mutation %zu: unknown type %d", t->name, i,
		               (int)m->type);
	if (!m->row || m->row_len == 0)
		return rk__err(RK_EINVALID, "table %s: mutation %zu: empty row key", t->name, i);
	if (m->row_len > RK_MAX_ROW_LEN)
		return rk__err(RK_ETOOLONG, "table %s: mutation %zu: row key '%s' is %zu bytes (max %u)",
		               t->name, i, rk__err_bytes(buf, sizeof buf, m->row, m->row_len), m->row_len,
		               RK_MAX_ROW_LEN);
	if (m->ts > RK_TS_MAX)
		return rk__err(RK_EINVALID, "table %s: mutation %zu: timestamp %llu out of range",
		               t->name, i, (unsigned long long)m->ts);
	if (m->ts_from && (m->type == RK_MUT_PUT || m->type == RK_MUT_DELETE_CELL))
		return rk__err(RK_EINVALID, "table %s: mutation %zu: ts_from is for deletes of a "
		               "column, family or row", t->name, i);
	if (m->ts_from && m->ts && m->ts_from > m->ts)
		return rk__err(RK_EINVALID, "table %s: mutation %zu: empty time range [%llu, %llu]",
		               t->name, i, (unsigned long long)m->ts_from,
		               (unsigned long long)m->ts);
	if (m->type == RK_MUT_DELETE_ROW)
		return 0;
	if (!m->family ||
	    (m->family != *known && !rk_store__family(t, m->family, strlen(m->family))))
		return rk__err(RK_EINVALID, "table %s: mutation %zu (row '%s'): unknown family '%s'",
		               t->name, i, rk__err_bytes(buf, sizeof buf, m->row, m->row_len),
		               m->family ? m->family : "(null)");
	*known = m->family;
	if (m->type == RK_MUT_DELETE_FAMILY)
		return 0;
	if (m->qualifier_len > RK_MAX_QUALIFIER_LEN)
		return rk__err(RK_ETOOLONG, "table %s: mutation %zu: qualifier of %zu bytes (max %u)",
		               t->name, i, m->qualifier_len, RK_MAX_QUALIFIER_LEN);
	if (m->qualifier_len && !m->qualifier)
		return rk__err(RK_EINVALID, "table %s: mutation %zu: NULL qualifier of %zu bytes",
		               t->name, i, m->qualifier_len);
	if (m->type == RK_MUT_DELETE_CELL && m->ts == 0)
		return rk__err(RK_EINVALID,
		               "table %s: mutation %zu: deleting one version needs its timestamp",
		               t->name, i);
	if (m->type == RK_MUT_PUT) {
		if (m->value_len > RK_MAX_VALUE_LEN)
			return rk__err(RK_ETOOLONG, "table %s: mutation %zu: value of %zu bytes (max %u)",
			               t->name, i, m->value_len, RK_MAX_VALUE_LEN);
		if (m->value_len && !m->value)
			return rk__err(RK_EINVALID, "table %s: mutation %zu: NULL value of %zu bytes",
			               t->name, i, m->value_len);
	}
	return 0;
}

/* Validates muts and gives them timestamps: *use is muts or a copy the
 * caller frees (*copy). */
static int prepare(rk_table *table, const rk_mutation *muts, size_t n, int *results,
                   const rk_mutation **use, rk_mutation **copy)
{
	int first = 0, need_ts = 0;
	const char *known = NULL;
	*use = muts;
	*copy = NULL;
	for (size_t i = 0; i < n; i++) {
		int rc = rk_store__check_mutation(table, &muts[i], i, &known);
		if (results)
			results[i] = rc;
		if (rc && !first)
			first = rc;
		if (!muts[i].ts)
			need_ts = 1;
	}
	if (first) {
		/* re-run the first failing check so its message is the one left */
		known = NULL;
		for (size_t i = 0; i < n; i++)
			if (rk_store__check_mutation(table, &muts[i], i, &known))
				break;
		return first;
	}
	if (n && need_ts) {
		uint64_t ts = table->store->ops->clock(table->store);
		rk_mutation *c = malloc(n * sizeof *c);
		if (!c)
			return rk__err(RK_ENOMEM, "table %s: out of memory for %zu mutations", table->name,
			               n);
		memcpy(c, muts, n * sizeof *c);
		for (size_t i = 0; i < n; i++)
			if (!c[i].ts)
				c[i].ts = ts;
		*use = *copy = c;
	}
	return 0;
}

int rk_table_apply(rk_table *table, const rk_mutation *muts, size_t n, int *results)
{
	const rk_mutation *use;
	rk_mutation *copy;
	int rc = prepare(table, muts, n, results, &use, &copy);
	if (rc || n == 0)
		return rc;
	rc = table->store->ops->apply(table, use, n, results);
	free(copy);
	return rc;
}

int rk_table_apply_async(rk_table *table, const rk_mutation *muts, size_t n)
{
	const rk_mutation *use;
	rk_mutation *copy;
	int rc = prepare(table, muts, n, NULL, &use, &copy);
	if (rc || n == 0)
		return rc;
	const struct rk_backend_ops *ops = table->store->ops;
	rc = ops->apply_async ? ops->apply_async(table, use, n) : ops->apply(table, use, n, NULL);
	free(copy);
	return rc;
}

int rk_table_apply_is_async(const rk_table *table)
{
	return table->store->ops->apply_async != NULL;
}

int rk_table_flush(rk_table *table)
{
	return table->store->ops->flush ? table->store->ops->flush(table) : 0;
}

int rk_table_put(rk_table *table, const uint8_t *row, size_t row_len, const char *family,
                 const uint8_t *qualifier, size_t qualifier_len, uint64_t ts,
                 const uint8_t *value, size_t value_len)
{
	rk_mutation m = {RK_MUT_PUT, row, row_len, family, qualifier, qualifier_len, ts, value,
	                 value_len, 0};
	return rk_table_apply(table, &m, 1, NULL);
}

int rk_table_delete(rk_table *table, const uint8_t *row, size_t row_len, const char *family,
                    const uint8_t *qualifier, size_t qualifier_len, uint64_t ts)
{
	rk_mutation m = {RK_MUT_DELETE_COLUMN, row, row_len, family, qualifier, qualifier_len, ts,
	                 NULL, 0, 0};
	if (!family)
		m.type = RK_MUT_DELETE_ROW;
	else if (!qualifier)
		m.type = RK_MUT_DELETE_FAMILY;
	return rk_table_apply(table, &m, 1, NULL);
}

/* ---- regions and maintenance ---- */

int rk_store_regions(rk_region_info **out, size_t *count, rk_store *store, const char *table)
{
	*out = NULL;
	*count = 0;
	int rc = store->ops->regions(out, count, store, table);
	return table ? table_missing(store, table, rc) : rc;
}

void rk_region_info_free(rk_region_info *infos, size_t count)
{
	if (!infos)
		return;
	for (size_t i = 0; i < count; i++) {
		free(infos[i].table);
		free(infos[i].start);
		free(infos[i].end);
	}
	free(infos);
}

int rk_store_servers(rk_server_info **out, size_t *count, rk_store *store)
{
	*out = NULL;
	*count = 0;
	return store->ops->servers(out, count, store);
}

int rk_region_split(rk_store *store, uint64_t region_id, const uint8_t *at, size_t at_len)
{
	if (at && (at_len == 0 || at_len > RK_MAX_ROW_LEN))
		return rk__err(RK_EINVALID, "region %llu: split row of %zu bytes",
		               (unsigned long long)region_id, at_len);
	return store->ops->region_split(store, region_id, at, at_len);
}

int rk_region_move(rk_store *store, uint64_t region_id, unsigned server)
{
	return store->ops->region_move(store, region_id, server);
}

int rk_store_split_due(size_t *out, rk_store *store)
{
	size_t dummy;
	if (!out)
		out = &dummy;
	*out = 0;
	return store->ops->split_due ? store->ops->split_due(out, store) : 0;
}

int rk_store_collect(size_t *out, rk_store *store)
{
	size_t dummy;
	if (!out)
		out = &dummy;
	*out = 0;
	return store->ops->collect ? store->ops->collect(out, store) : 0;
}

int rk_store_balance(size_t *out, rk_store *store)
{
	size_t dummy;
	if (!out)
		out = &dummy;
	*out = 0;
	return store->ops->balance(out, store);
}

int rk_store_check(size_t *out, rk_store *store,
                   void (*report)(const char *problem, void *payload), void *payload)
{
	size_t dummy;
	if (!out)
		out = &dummy;
	*out = 0;
	return store->ops->check(out, store, report, payload);
}

int rk_store_write_metrics(rk_store *store, const char *path)
{
	return store->ops->write_metrics(store, path);
}

int rk_store_metrics(rk_metrics **out, rk_store *store)
{
	*out = NULL;
	if (!store->ops->metrics)
		return rk__err(RK_EINVALID, "the %s backend records no load (see its own console)",
		               store->ops->name);
	return store->ops->metrics(out, store);
}
