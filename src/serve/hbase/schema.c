/*
 * The cluster and its tables: /version, /version/cluster, /status/cluster,
 * the table list (/), /TABLE/schema and /TABLE/regions. Tables are named
 * by their store name; they are made and dropped through the gRPC server's
 * catalog and family changes wait for its handles (rk_sv__table_block), so
 * both front doors see one set of tables. Region servers are named
 * "server-N" (N the store's server id): they live in this one process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "key/error.h"
#include "rowkey/version.h"
#include "serve/hbase/hbase_int.h"

int rk_hb__root(rk_hb *h, rk_hb_resp *r)
{
	rk_table_info *ti;
	size_t n;
	int rc = rk_table_list(&ti, &n, h->env->store);
	if (rc)
		return rk_hb__from_store(r, rc, "listing tables");
	json_t *list = json_array();
	for (size_t i = 0; list && i < n; i++)
		json_array_append_new(list, json_pack("{s:s}", "name", ti[i].name));
	rk_table_info_free(ti, n);
	return rk_hb__model(r, RK_HB_M_TABLES, 200, list ? json_pack("{s:o}", "table", list) : NULL);
}

int rk_hb__version(rk_hb *h, int cluster, rk_hb_resp *r)
{
	(void)h;
	if (cluster)
		return rk_hb__model(r, RK_HB_M_CVERSION, 200,
		                    json_pack("{s:s}", "Version", "rowkey-" RK_VERSION));
	struct utsname u;
	char os[200] = "unknown";
	if (uname(&u) == 0)
		snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
	return rk_hb__model(r, RK_HB_M_VERSION, 200,
	                    json_pack("{s:s,s:s,s:s,s:s,s:s}", "REST", "rowkey-" RK_VERSION, "JVM",
	                              "none (C)", "OS", os, "Server", "rowkey serve --hbase-rest",
	                              "Jersey", "none"));
}

/* "TABLE,STARTKEY,ID." as HBase names a region (the start key as bytes) */
static char *region_name(const rk_region_info *g, size_t *len)
{
	size_t tl = strlen(g->table), n = tl + g->start_len + 24;
	char *s = malloc(n + 1);
	if (!s)
		return NULL;
	memcpy(s, g->table, tl);
	s[tl] = ',';
	memcpy(s + tl + 1, g->start, g->start_len);
	*len = tl + 1 + g->start_len +
	       (size_t)snprintf(s + tl + 1 + g->start_len, 24, ",%llu.", (unsigned long long)g->id);
	return s;
}

static json_t *b64_string(const uint8_t *p, size_t n)
{
	char *s = rk_hb__b64_encode(p, n);
	json_t *j = s ? json_string(s) : NULL;
	free(s);
	return j;
}

int rk_hb__status(rk_hb *h, rk_hb_resp *r)
{
	rk_server_info *sv = NULL;
	rk_region_info *rg = NULL;
	size_t ns = 0, nr = 0;
	int rc = rk_store_servers(&sv, &ns, h->env->store);
	if (rc || (rc = rk_store_regions(&rg, &nr, h->env->store, NULL)) != 0) {
		free(sv);
		return rk_hb__from_store(r, rc, "reading the cluster's status");
	}
	json_t *live = json_array();
	unsigned long long requests = 0;
	for (size_t i = 0; live && i < ns; i++) {
		char name[32];
		json_t *regions = json_array();
		snprintf(name, sizeof name, "server-%u", sv[i].id);
		for (size_t k = 0; regions && k < nr; k++) {
			size_t nl;
			char *rn = rg[k].server == sv[i].id ? region_name(&rg[k], &nl) : NULL;
			if (!rn)
				continue;
			json_array_append_new(
			        regions, json_pack("{s:o,s:i,s:i,s:I,s:I,s:I}", "name",
			                           b64_string((uint8_t *)rn, nl), "stores", 1, "storefiles", 0,
			                           "storefileSizeMB", (json_int_t)(rg[k].size_bytes >> 20),
			                           "readRequestsCount", (json_int_t)rg[k].reads,
			                           "writeRequestsCount", (json_int_t)rg[k].writes));
			free(rn);
		}
		requests += sv[i].reads + sv[i].writes;
		json_array_append_new(live, json_pack("{s:s,s:I,s:I,s:i,s:i,s:o}", "name", name,
		                                      "startCode", (json_int_t)0, "requests",
		                                      (json_int_t)(sv[i].reads + sv[i].writes),
		                                      "heapSizeMB", 0, "maxHeapSizeMB", 0, "Region",
		                                      regions ? regions : json_array()));
	}
	json_t *j = live ? json_pack("{s:I,s:I,s:f,s:o,s:[]}", "regions", (json_int_t)nr, "requests",
	                             (json_int_t)requests, "averageLoad",
	                             ns ? (double)nr / (double)ns : 0.0, "LiveNodes", live, "DeadNodes")
	                 : NULL;
	free(sv);
	rk_region_info_free(rg, nr);
	return rk_hb__model(r, RK_HB_M_STATUS, 200, j);
}

/* s[n] as HBase's Bytes.toStringBinary shows bytes: printable ASCII as is,
 * the rest as \xHH (malloc'd) */
static char *printable(const char *s, size_t n)
{
	char *o = malloc(4 * n + 1), *w = o;
	for (size_t i = 0; o && i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\\')
			*w++ = (char)c;
		else
			w += snprintf(w, 5, "\\x%02X", c);
	}
	if (o)
		*w = 0;
	return o;
}

int rk_hb__regions(rk_hb *h, const rk_hb_path *p, rk_hb_resp *r)
{
	rk_sv_ref ref;
	rk_region_info *rg;
	size_t n;
	if (rk_sv__catalog_find(&ref, h->env->catalog, NULL, p->table))
		return rk_hb__fail(r, 404, "Not found: table %s", p->table);
	int rc = rk_store_regions(&rg, &n, h->env->store, p->table);
	if (rc)
		return rk_hb__from_store(r, rc, p->table);
	json_t *list = json_array();
	for (size_t i = 0; list && i < n; i++) {
		char loc[32], *rn;
		size_t nl;
		snprintf(loc, sizeof loc, "server-%u", rg[i].server);
		if (!(rn = region_name(&rg[i], &nl)))
			continue;
		char *text = printable(rn, nl);
		free(rn);
		if (!text)
			continue;
		json_array_append_new(list, json_pack("{s:I,s:o,s:o,s:s,s:s}", "id", (json_int_t)rg[i].id,
		                                      "startKey", b64_string(rg[i].start, rg[i].start_len),
		                                      "endKey", b64_string(rg[i].end, rg[i].end_len),
		                                      "location", loc, "name", text));
		free(text);
	}
	rk_region_info_free(rg, n);
	return rk_hb__model(r, RK_HB_M_TABLEINFO, 200,
	                    list ? json_pack("{s:s,s:o}", "name", p->table, "Region", list) : NULL);
}

/* ---- /TABLE/schema ---- */

static int schema_get(rk_hb *h, const rk_hb_path *p, rk_hb_resp *r)
{
	rk_table_info *ti;
	size_t n;
	int rc = rk_table_list(&ti, &n, h->env->store);
	if (rc)
		return rk_hb__from_store(r, rc, "listing tables");
	json_t *j = NULL;
	for (size_t i = 0; i < n && !j; i++) {
		if (strcmp(ti[i].name, p->table))
			continue;
		json_t *fams = json_array();
		for (size_t k = 0; fams && k < ti[i].nfamilies; k++)
			json_array_append_new(fams, rk_hb__family_json(&ti[i].families[k]));
		j = json_pack("{s:s,s:o,s:s,s:s}", "name", p->table, "ColumnSchema",
		              fams ? fams : json_array(), "IS_META", "false", "IS_ROOT", "false");
		if (!j)
			j = json_null(); /* found; out of memory said below */
	}
	rk_table_info_free(ti, n);
	if (!j)
		return rk_hb__fail(r, 404, "Not found: table %s", p->table);
	if (json_is_null(j))
		return rk_hb__json(r, 200, NULL);
	return rk_hb__model(r, RK_HB_M_SCHEMA, 200, j);
}

/* PUT and POST on an existing table: set the families given; PUT (replace)
 * also drops those it does not name, as HBase's modifyTable does. With no
 * handle open (the store refuses family changes while there are). */
static int schema_update(rk_hb *h, const rk_sv_ref *ref, const rk_hb_schema *s, int replace,
                         rk_hb_resp *r)
{
	rk_table_info *ti = NULL;
	size_t n = 0;
	int rc = 0;
	rk_sv__table_block(h->env->tables, ref->store);
	if (!rk_sv__catalog_still(h->env->catalog, ref))
		rc = rk__err(RK_ENOTFOUND, "table %s was dropped", ref->store);
	for (size_t i = 0; i < s->n && !rc; i++)
		rc = rk_table_family_set(h->env->store, ref->store, &s->fams[i]);
	if (!rc && replace && !(rc = rk_table_list(&ti, &n, h->env->store)))
		for (size_t i = 0; i < n && !rc; i++)
			for (size_t k = 0; !strcmp(ti[i].name, ref->store) && k < ti[i].nfamilies && !rc; k++) {
				size_t f = 0;
				while (f < s->n && strcmp(s->fams[f].name, ti[i].families[k].name))
					f++;
				if (f == s->n)
					rc = rk_table_family_drop(h->env->store, ref->store,
					                          ti[i].families[k].name);
			}
	rk_table_info_free(ti, n);
	rk_sv__table_unblock(h->env->tables, ref->store);
	return rc ? rk_hb__from_store(r, rc, ref->store) : rk_hb__ok(r, 200);
}

int rk_hb__schema(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r)
{
	rk_sv_ref ref;
	int exists = rk_sv__catalog_find(&ref, h->env->catalog, NULL, p->table) == 0;
	char err[256];
	if (!strcmp(q->method, "GET") || !strcmp(q->method, "HEAD"))
		return schema_get(h, p, r);
	if (!strcmp(q->method, "DELETE")) {
		int rc = rk_sv__catalog_drop(h->env->catalog, NULL, p->table);
		return rc ? rk_hb__from_store(r, rc, p->table) : rk_hb__ok(r, 200);
	}
	if (strcmp(q->method, "PUT") && strcmp(q->method, "POST"))
		return rk_hb__fail(r, 405, "Method not allowed: %s on a schema", q->method);
	rk_hb_body b;
	if (rk_hb__body(&b, q, RK_HB_M_SCHEMA, r))
		return r->status;
	rk_hb_schema s;
	int st = rk_hb__schema_parse(&s, b.p, b.len, err, sizeof err);
	free(b.owned);
	if (st)
		return rk_hb__fail(r, st, "%s", err);
	const char *named = strncmp(s.name, "default:", 8) ? s.name : s.name + 8;
	if (named[0] && strcmp(named, p->table)) {
		rk_hb__arena_free(&s.a);
		return rk_hb__fail(r, 400, "Bad request: TableSchema.name %s is not the table of the "
		                           "path, %s", s.name, p->table);
	}
	if (exists) {
		st = schema_update(h, &ref, &s, !strcmp(q->method, "PUT"), r);
	} else {
		/* HBase's schema model carries no split points: a table made here
		 * starts as one region and splits as it grows */
		rk_table_def def = {p->table, s.fams, s.n, NULL, 0, 0};
		int rc = rk_sv__catalog_create(&ref, h->env->catalog, NULL, p->table, &def);
		st = rc ? rk_hb__from_store(r, rc, p->table) : rk_hb__ok(r, 201);
	}
	rk_hb__arena_free(&s.a);
	return st;
}

/* ---- namespaces ---- */

/* The store has one namespace: HBase's default, where a table named
 * without one lives. HBase's own "hbase" namespace holds its system tables
 * (meta, namespace), which this server has none of, so it is not listed:
 * a client walking the list finds only tables it can read. */
int rk_hb__namespaces(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r)
{
	int get = !strcmp(q->method, "GET") || !strcmp(q->method, "HEAD");
	int write = !strcmp(q->method, "PUT") || !strcmp(q->method, "POST") ||
	            !strcmp(q->method, "DELETE");
	if (p->route != RK_HB_NAMESPACES && strcmp(p->table, "default")) {
		if (p->route == RK_HB_NAMESPACE && write && strcmp(q->method, "DELETE"))
			return rk_hb__fail(r, 403, "Forbidden: namespace %s cannot be made: this server's "
			                           "tables all live in namespace default", p->table);
		return rk_hb__fail(r, 404, "Not found: namespace %s (this server has only default)",
		                   p->table);
	}
	if (!get && p->route == RK_HB_NAMESPACE && write)
		return rk_hb__fail(r, 403, "Forbidden: namespace default cannot be %s: it holds every "
		                           "table of the store, and has no properties to set",
		                   !strcmp(q->method, "DELETE") ? "dropped" : "made or changed");
	if (!get)
		return rk_hb__fail(r, 405, "Method not allowed: %s on %s", q->method, q->url);
	if (p->route == RK_HB_NAMESPACES)
		return rk_hb__model(r, RK_HB_M_NAMESPACES, 200,
		                    json_pack("{s:[s]}", "Namespace", "default"));
	if (p->route == RK_HB_NAMESPACE)
		return rk_hb__model(r, RK_HB_M_NSPROPS, 200, json_object());
	return rk_hb__root(h, r);
}
