/*
 * The Bigtable client's table-admin calls (CreateTable, DeleteTable,
 * ListTables, GetTable for the families) and SampleRowKeys, each over
 * bt_call.c's helper, their responses decoded as hostile input.
 */
#include "store/bigtable/bt_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_admin.pb-c.h"
#include "bt_data.pb-c.h"
#include "key/error.h"
#include "store/bigtable/bt_map.h"
#include "store/gc.h"

/* ---- admin ---- */

/* What CreateTable would refuse, refused before the call. */
static int create_check(rk_bt_client *c, const char *table, const rk_bt_family *families,
                        size_t nfamilies, const rk_bt_bytes *splits, size_t nsplits,
                        const char *what)
{
	char *name = NULL;
	int rc = rk_bt__table_name(&name, c, table);
	if (rc < 0)
		return rc;
	free(name);
	for (size_t i = 0; i < nfamilies; i++) {
		if (!families[i].name || !rk_bt__id_ok(families[i].name, 64, 1))
			return rk__err(RK_EINVALID, "%s: bad family name '%s': want 1-64 characters of "
			               "[-_.a-zA-Z0-9]", what, families[i].name ? families[i].name : "(null)");
		if (families[i].max_versions < 0)
			return rk__err(RK_EINVALID, "%s: family %s: negative max_versions", what,
			               families[i].name);
	}
	for (size_t i = 0; i < nsplits; i++)
		if (!splits[i].len || splits[i].len > RK_BT_MAX_KEY)
			return rk__err(RK_EINVALID, "%s: split key %zu is %s", what, i,
			               splits[i].len ? "over 4 KiB" : "empty");
	return 0;
}

/* CreateTable's parts, one per family and one per split, pointing at the
 * caller's names and keys; rules (converted from a family's gc) are owned. */
typedef struct create_parts {
	Rkbt__Table__ColumnFamiliesEntry *fe, **fep;
	Rkbt__ColumnFamily *cf;
	Rkbt__GcRule *gc;     /* a plain version limit */
	Rkbt__GcRule **rules; /* from ->gc */
	size_t nfamilies;
	Rkbt__CreateTableRequest__Split *sp, **spp;
} create_parts;

static int create_parts_alloc(create_parts *p, size_t nfamilies, size_t nsplits, const char *what)
{
	size_t nf = nfamilies ? nfamilies : 1, ns = nsplits ? nsplits : 1;
	p->fe = calloc(nf, sizeof *p->fe);
	p->fep = calloc(nf, sizeof *p->fep);
	p->cf = calloc(nf, sizeof *p->cf);
	p->gc = calloc(nf, sizeof *p->gc);
	p->rules = calloc(nf, sizeof *p->rules);
	p->nfamilies = nfamilies;
	p->sp = calloc(ns, sizeof *p->sp);
	p->spp = calloc(ns, sizeof *p->spp);
	if (!p->fe || !p->fep || !p->cf || !p->gc || !p->rules || !p->sp || !p->spp)
		return rk__err(RK_ENOMEM, "%s: out of memory", what);
	return 0;
}

static void create_parts_free(create_parts *p)
{
	free(p->fe);
	free(p->fep);
	free(p->cf);
	free(p->gc);
	for (size_t i = 0; p->rules && i < p->nfamilies; i++)
		rk_bt__gc_pb_free(p->rules[i]);
	free(p->rules);
	free(p->sp);
	free(p->spp);
}

/* Each family with its GC rule: the one it was given, else a version limit,
 * else none. */
static int create_families(create_parts *p, const rk_bt_family *families, size_t nfamilies)
{
	int rc;
	for (size_t i = 0; i < nfamilies; i++) {
		rkbt__table__column_families_entry__init(&p->fe[i]);
		rkbt__column_family__init(&p->cf[i]);
		p->fe[i].key = (char *)families[i].name;
		p->fe[i].value = &p->cf[i];
		if (families[i].gc) {
			if ((rc = rk_bt__gc_to_pb(&p->rules[i], families[i].gc)) != 0)
				return rc;
			p->cf[i].gc_rule = p->rules[i];
		} else if (families[i].max_versions > 0) {
			rkbt__gc_rule__init(&p->gc[i]);
			p->gc[i].rule_case = RKBT__GC_RULE__RULE_MAX_NUM_VERSIONS;
			p->gc[i].max_num_versions = families[i].max_versions;
			p->cf[i].gc_rule = &p->gc[i];
		}
		p->fep[i] = &p->fe[i];
	}
	return 0;
}

static void create_splits(create_parts *p, const rk_bt_bytes *splits, size_t nsplits)
{
	for (size_t i = 0; i < nsplits; i++) {
		rkbt__create_table_request__split__init(&p->sp[i]);
		p->sp[i].key.data = (uint8_t *)splits[i].ptr;
		p->sp[i].key.len = splits[i].len;
		p->spp[i] = &p->sp[i];
	}
}

/* Sends the request; the reply must parse as a Table. */
static int create_send(rk_bt_client *c, const Rkbt__CreateTableRequest *req, const char *what)
{
	uint8_t *resp = NULL;
	size_t resp_len;
	size_t len = rkbt__create_table_request__get_packed_size(req);
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return rk__err(RK_ENOMEM, "%s: out of memory", what);
	rkbt__create_table_request__pack(req, buf);
	int rc = rk_bt__unary(&resp, &resp_len, c->admin, RK_BT_M_CREATE_TABLE, buf, len, NULL,
	                      rk_bt__deadline(c->opts.timeout_ms), what);
	if (rc == 0) {
		Rkbt__Table *got = rkbt__table__unpack(NULL, resp_len, resp);
		if (!got)
			rc = rk__err(RK_ECORRUPT, "%s: the response does not parse as a Table", what);
		rkbt__table__free_unpacked(got, NULL);
		free(resp);
	}
	free(buf);
	return rc;
}

int rk_bt__table_create(rk_bt_client *c, const char *table, const rk_bt_family *families,
                        size_t nfamilies, const rk_bt_bytes *splits, size_t nsplits)
{
	char what[128];
	create_parts p;
	snprintf(what, sizeof what, "bigtable CreateTable %.60s", table ? table : "");
	int rc = create_check(c, table, families, nfamilies, splits, nsplits, what);
	if (rc < 0)
		return rc;
	if ((rc = create_parts_alloc(&p, nfamilies, nsplits, what)) == 0 &&
	    (rc = create_families(&p, families, nfamilies)) == 0) {
		create_splits(&p, splits, nsplits);
		Rkbt__Table t;
		rkbt__table__init(&t);
		t.n_column_families = nfamilies;
		t.column_families = p.fep;
		t.granularity = RKBT__TABLE__TIMESTAMP_GRANULARITY__MILLIS;
		Rkbt__CreateTableRequest req;
		rkbt__create_table_request__init(&req);
		req.parent = c->instance_name;
		req.table_id = (char *)table;
		req.table = &t;
		req.n_initial_splits = nsplits;
		req.initial_splits = p.spp;
		rc = create_send(c, &req, what);
	}
	create_parts_free(&p);
	return rc;
}

int rk_bt__table_delete(rk_bt_client *c, const char *table)
{
	char what[128];
	snprintf(what, sizeof what, "bigtable DeleteTable %.60s", table ? table : "");
	char *name;
	int rc = rk_bt__table_name(&name, c, table);
	if (rc < 0)
		return rc;
	Rkbt__DeleteTableRequest req;
	rkbt__delete_table_request__init(&req);
	req.name = name;
	size_t len = rkbt__delete_table_request__get_packed_size(&req);
	uint8_t *buf = malloc(len ? len : 1), *resp = NULL;
	size_t resp_len;
	if (!buf) {
		free(name);
		return rk__err(RK_ENOMEM, "%s: out of memory", what);
	}
	rkbt__delete_table_request__pack(&req, buf);
	rc = rk_bt__unary(&resp, &resp_len, c->admin, RK_BT_M_DELETE_TABLE, buf, len, NULL,
	                  rk_bt__deadline(c->opts.timeout_ms), what);
	free(resp);
	free(buf);
	free(name);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int rk_bt__table_ids_from_list(char ***vp, size_t *np, char **token, const uint8_t *resp,
                               size_t resp_len, const char *instance_name, const char *what)
{
	char **v = *vp;
	size_t n = *np, plen = strlen(instance_name);
	Rkbt__ListTablesResponse *r = rkbt__list_tables_response__unpack(NULL, resp_len, resp);
	if (!r)
		return rk__err(RK_ECORRUPT, "%s: the response does not parse", what);
	char **nv = realloc(v, (n + r->n_tables + 1) * sizeof *v);
	if (!nv) {
		rkbt__list_tables_response__free_unpacked(r, NULL);
		return rk__err(RK_ENOMEM, "%s: out of memory", what);
	}
	*vp = v = nv;
	v[n] = NULL;
	int rc = 0;
	for (size_t i = 0; i < r->n_tables && !rc; i++) {
		const char *full = r->tables[i]->name;
		/* names come back as projects/P/instances/I/tables/T */
		const char *id = full;
		if (strncmp(full, instance_name, plen) == 0 && strncmp(full + plen, "/tables/", 8) == 0)
			id = full + plen + 8;
		if (!(v[n] = strdup(id)))
			rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
		else
			v[++n] = NULL;
	}
	*np = n;
	if (!rc) {
		free(*token);
		if (!(*token = strdup(r->next_page_token ? r->next_page_token : "")))
			rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
	}
	rkbt__list_tables_response__free_unpacked(r, NULL);
	return rc;
}

int rk_bt__table_list(char ***out, size_t *count, rk_bt_client *c)
{
	const char *what = "bigtable ListTables";
	char **v = calloc(1, sizeof *v);
	size_t n = 0;
	char *token = strdup("");
	int rc = 0;
	unsigned pages = 0;
	if (!v || !token) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
		goto fail;
	}
	do {
		if (++pages > 100000) { /* a server that never ends its pages */
			rc = rk__err(RK_ECORRUPT, "%s: more than 100000 pages of tables", what);
			goto fail;
		}
		Rkbt__ListTablesRequest req;
		rkbt__list_tables_request__init(&req);
		req.parent = c->instance_name;
		req.view = RKBT__TABLE__VIEW__NAME_ONLY;
		req.page_token = token;
		size_t len = rkbt__list_tables_request__get_packed_size(&req);
		uint8_t *buf = malloc(len ? len : 1), *resp = NULL;
		size_t resp_len;
		if (!buf) {
			rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
			goto fail;
		}
		rkbt__list_tables_request__pack(&req, buf);
		rc = rk_bt__unary(&resp, &resp_len, c->admin, RK_BT_M_LIST_TABLES, buf, len, NULL,
		                  rk_bt__deadline(c->opts.timeout_ms), what);
		free(buf);
		if (rc < 0)
			goto fail;
		rc = rk_bt__table_ids_from_list(&v, &n, &token, resp, resp_len, c->instance_name,
		                                what);
		free(resp);
		if (rc < 0)
			goto fail;
	} while (*token);
	free(token);
	v[n] = NULL;
	qsort(v, n, sizeof *v, cmp_str);
	*out = v;
	*count = n;
	return 0;
fail:
	free(token);
	if (v) {
		v[n] = NULL;
		rk_bt__strv_free(v);
	}
	return rc;
}

/* ---- SampleRowKeys ---- */

int rk_bt__sample_from_response(rk_bt_sample *out, const uint8_t *m, size_t ml, size_t i,
                                const char *what)
{
	Rkbt__SampleRowKeysResponse *r = rkbt__sample_row_keys_response__unpack(NULL, ml, m);
	if (!r)
		return rk__err(RK_ECORRUPT, "%s: response %zu does not parse", what, i);
	size_t kl = r->row_key.len;
	long long off = (long long)r->offset_bytes;
	if (kl > RK_BT_MAX_KEY || off < 0) {
		rkbt__sample_row_keys_response__free_unpacked(r, NULL);
		return kl > RK_BT_MAX_KEY
		               ? rk__err(RK_ECORRUPT,
		                         "%s: response %zu: a sample key of %zu bytes (at most %u)",
		                         what, i, kl, RK_BT_MAX_KEY)
		               : rk__err(RK_ECORRUPT, "%s: response %zu: negative offset %lld", what, i,
		                         off);
	}
	out->key_len = r->row_key.len;
	out->key = malloc(r->row_key.len ? r->row_key.len : 1);
	out->offset_bytes = r->offset_bytes;
	if (!out->key) {
		rkbt__sample_row_keys_response__free_unpacked(r, NULL);
		return rk__err(RK_ENOMEM, "%s: out of memory", what);
	}
	if (r->row_key.len)
		memcpy(out->key, r->row_key.data, r->row_key.len);
	rkbt__sample_row_keys_response__free_unpacked(r, NULL);
	return 0;
}

int rk_bt__sample_row_keys(rk_bt_sample **out, size_t *count, rk_bt_client *c, const char *table)
{
	char what[128];
	snprintf(what, sizeof what, "bigtable SampleRowKeys %.60s", table ? table : "");
	char *name, *routing = NULL;
	uint8_t *buf = NULL;
	rk_bt_call *call = NULL;
	rk_bt_sample *v = NULL;
	size_t n = 0, cap = 0;
	int rc = rk_bt__table_name(&name, c, table);
	if (rc < 0)
		return rc;
	Rkbt__SampleRowKeysRequest req;
	rkbt__sample_row_keys_request__init(&req);
	req.table_name = name;
	if (c->opts.app_profile_id)
		req.app_profile_id = (char *)c->opts.app_profile_id;
	size_t len = rkbt__sample_row_keys_request__get_packed_size(&req);
	buf = malloc(len ? len : 1);
	routing = rk_bt__routing(name);
	if (!buf || !routing) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
		goto fail;
	}
	rkbt__sample_row_keys_request__pack(&req, buf);
	if ((rc = rk_bt__call_start(&call, c->data, RK_BT_M_SAMPLE_ROW_KEYS, buf, len, routing,
	                            rk_bt__deadline(c->opts.timeout_ms), what)) < 0)
		goto fail;
	for (;;) {
		const uint8_t *m;
		size_t ml;
		rc = rk_bt__call_next(call, &m, &ml);
		if (rc == RK_EITEROVER)
			break;
		if (rc < 0)
			goto fail;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			rk_bt_sample *nv = realloc(v, ncap * sizeof *nv);
			if (!nv) {
				rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
				goto fail;
			}
			v = nv;
			cap = ncap;
		}
		if ((rc = rk_bt__sample_from_response(&v[n], m, ml, n, what)) < 0)
			goto fail;
		n++;
	}
	rk_bt__call_free(call);
	free(routing);
	free(buf);
	free(name);
	*out = v;
	*count = n;
	return 0;
fail:
	rk_bt__call_free(call);
	rk_bt__samples_free(v, n);
	free(routing);
	free(buf);
	free(name);
	return rc;
}

/* ---- GetTable: the column families ---- */

/* A family's rule from the server's GcRule (hostile: bounded, checked). */
static int family_rule(rk_bt_family *f, const Rkbt__GcRule *g, const char *what)
{
	rk_gc_rule *r;
	rk__gc *c;
	unsigned versions;
	char path[160];
	snprintf(path, sizeof path, "%s: family %s: gc_rule", what, f->name);
	if (rk_bt__gc_from_pb(&r, g, path))
		return rk__err(RK_ECORRUPT, "%s", rk_error_last());
	if (rk_gc__compile(&c, &versions, r)) {
		free(r);
		return RK_ENOMEM;
	}
	f->max_versions = versions > INT32_MAX ? -1 : (int)versions;
	if (c) {
		f->gc = r; /* more than a version count: kept as sent */
		free(c);
	} else {
		free(r);
	}
	return 0;
}

static int cmp_family(const void *a, const void *b)
{
	return strcmp(((const rk_bt_family *)a)->name, ((const rk_bt_family *)b)->name);
}

void rk_bt__families_free(rk_bt_family *f, size_t count)
{
	if (!f)
		return;
	for (size_t i = 0; i < count; i++) {
		free((char *)f[i].name);
		free(f[i].gc);
	}
	free(f);
}

int rk_bt__families_from_table(rk_bt_family **out, size_t *count, const uint8_t *resp,
                               size_t resp_len, const char *what)
{
	int rc = 0;
	size_t n = 0;
	rk_bt_family *v = NULL;
	Rkbt__Table *t = rkbt__table__unpack(NULL, resp_len, resp);
	if (!t) {
		rc = rk__err(RK_ECORRUPT, "%s: the response does not parse as a Table", what);
		goto done;
	}
	v = calloc(t->n_column_families + 1, sizeof *v);
	if (!v) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
		goto done;
	}
	for (size_t i = 0; i < t->n_column_families; i++) {
		const Rkbt__Table__ColumnFamiliesEntry *e = t->column_families[i];
		if (!e->key || !rk_bt__id_ok(e->key, 64, 1)) {
			rc = rk__err(RK_ECORRUPT, "%s: the server named a family '%.80s' that is not a "
			             "valid family name", what, e->key ? e->key : "(null)");
			goto done;
		}
		for (size_t j = 0; j < n; j++)
			if (!strcmp(v[j].name, e->key)) {
				rc = rk__err(RK_ECORRUPT, "%s: family %s listed twice", what, e->key);
				goto done;
			}
		v[n].name = strdup(e->key);
		if (!v[n].name) {
			rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
			goto done;
		}
		n++;
		if ((rc = family_rule(&v[n - 1], e->value ? e->value->gc_rule : NULL, what)) != 0)
			goto done;
	}
	qsort(v, n, sizeof *v, cmp_family);
	*out = v;
	*count = n;
	v = NULL;
	n = 0;
done:
	rk_bt__families_free(v, n);
	if (t)
		rkbt__table__free_unpacked(t, NULL);
	return rc;
}

int rk_bt__table_families(rk_bt_family **out, size_t *count, rk_bt_client *c, const char *table)
{
	char what[128];
	snprintf(what, sizeof what, "bigtable GetTable %.60s", table ? table : "");
	char *name;
	int rc = rk_bt__table_name(&name, c, table);
	if (rc < 0)
		return rc;
	Rkbt__GetTableRequest req;
	rkbt__get_table_request__init(&req);
	req.name = name;
	req.view = RKBT__TABLE__VIEW__SCHEMA_VIEW;
	size_t len = rkbt__get_table_request__get_packed_size(&req);
	uint8_t *buf = malloc(len ? len : 1), *resp = NULL;
	size_t resp_len = 0;
	if (!buf) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
		goto done;
	}
	rkbt__get_table_request__pack(&req, buf);
	rc = rk_bt__unary(&resp, &resp_len, c->admin, RK_BT_M_GET_TABLE, buf, len, NULL,
	                  rk_bt__deadline(c->opts.timeout_ms), what);
	if (rc < 0)
		goto done;
	rc = rk_bt__families_from_table(out, count, resp, resp_len, what);
done:
	free(resp);
	free(buf);
	free(name);
	return rc;
}
