/*
 * The advisor's proposals as text, as JSON (the members docs/advisor.md
 * lists) and as split-point files for rowkey create --splits.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/advisor.h"
#include "analyze/analyze_int.h"
#include "key/error.h"
#include "key/outfile.h"

static const char *kind_word(const rk_query_cost *q)
{
	return q->kind ? q->kind : "scan";
}

/* 1 when the shape named `name` is one the table serves. */
static int serves_named(const rk_report *r, uint64_t serves, const char *name)
{
	for (size_t q = 0; q < r->nqueries; q++)
		if ((serves >> q & 1) && !strcmp(r->queries[q].name, name))
			return 1;
	return 0;
}

/* ---- text ---- */

static void table_text(rk__sb *b, const rk_suggest_table *t, int set)
{
	const rk_report *r = rk_analysis_report(t->analysis);
	char d[32], n[32], rd[32], rt[32];
	if (set)
		rk__sb_printf(b, "     table   %s\n", t->label);
	rk__sb_printf(b, "     schema  %s\n", t->schema_text);
	rk__count_text(d, sizeof d, r->key_distinct);
	rk__count_text(n, sizeof n, r->keys_checked);
	rk__sb_printf(b, "     unique  %s distinct keys for %s records\n", d, n);
	char pk[RK_NUM_STR], cap[RK_NUM_STR];
	char day[64] = "";
	if (r->day_share > r->peak_share)
		snprintf(day, sizeof day, ", %s of another day's", rk__share_text(r->day_share));
	rk__sb_printf(b, "     writes  busiest server %s of each moment's writes%s, %s over the run, "
	                 "%.1f of %u servers effective; at the peak %s on the busiest server "
	                 "(capacity %s); key %.0f bytes\n",
	              rk__share_text(r->peak_share), day, rk__share_text(r->hottest_share),
	              r->effective_servers, r->servers, rk__rate_str(pk, r->peak_server_rate, "ops"),
	              rk__rate_str(cap, r->capacity, "ops"), r->key_mean);
	for (size_t q = 0; q < r->nqueries; q++) {
		const rk_query_cost *c = &r->queries[q];
		if (set && !(t->serves >> q & 1))
			continue;
		rk__count_text(rd, sizeof rd, (uint64_t)llround(c->rows_read));
		rk__count_text(rt, sizeof rt, (uint64_t)llround(c->rows_returned));
		char what[64];
		if (!strcmp(kind_word(c), "gets"))
			snprintf(what, sizeof what, "%.0f get%s", c->ranges, c->ranges < 1.5 ? "" : "s");
		else if (!strcmp(kind_word(c), "scan"))
			snprintf(what, sizeof what, "a scan (%.0f range%s)", c->ranges, c->ranges < 1.5 ? "" : "s");
		else
			snprintf(what, sizeof what, "%.0f range%s%s%s", c->ranges, c->ranges < 1.5 ? "" : "s",
			         c->merge_ways ? " merged" : "", c->read_backwards ? " read backwards" : "");
		rk__sb_printf(b, "     query   %s: %s, %s%s rows read for %s returned (%.1f per row%s)\n",
		              c->name, what, c->rows_read_estimated ? "~" : "", rd, rt,
		              c->rows_read_per_row, c->rows_read_grow ? ", growing with the history" : "");
	}
	for (size_t k = 0; k < r->ncauses; k++)
		if (!set || !r->causes[k].query || serves_named(r, t->serves, r->causes[k].query))
			rk__sb_printf(b, "     cause   %s\n", r->causes[k].text);
	size_t ns = rk_analysis_splits(t->analysis, 0, &(const uint8_t *){NULL}, &(size_t){0});
	if (ns)
		rk__sb_printf(b, "     splits  %zu split points (%zu regions) from the data: suggest "
		                 "--splits FILE, then rowkey create --splits FILE\n",
		              ns, ns + 1);
}

/* The load rule in numbers: the data's peak against one server's capacity,
 * and whether the proposals had to spread it. */
static void load_note(rk__sb *b, const rk_suggestion *s, size_t n)
{
	const rk_report *r = rk_analysis_report(s[0].table[0].analysis);
	double least = r->peak_server_rate;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < s[i].ntables; j++) {
			double x = rk_analysis_report(s[i].table[j].analysis)->peak_server_rate;
			least = x < least ? x : least;
		}
	char pk[RK_NUM_STR], cap[RK_NUM_STR];
	rk__rate_str(pk, r->peak_rate, "ops");
	rk__rate_str(cap, r->capacity, "ops");
	if (r->peak_rate <= r->capacity)
		rk__sb_printf(b, "load: the peak is %s, and one server takes %s: any key carries the "
		                 "writes, so designs are ranked by their reads (a spread prefix would "
		                 "only cost them)\n",
		              pk, cap);
	else
		rk__sb_printf(b, "load: the peak is %s, more than one server's %s: designs whose busiest "
		                 "server stays within it carry the writes, the others score the share of "
		                 "their busiest server's peak it can take%s\n",
		              pk, cap, least > r->capacity ? " (none stays within it)" : "");
}

int rk_suggestions_text(char **out, const rk_suggestion *s, size_t n)
{
	rk__sb b = {0};
	if (n && s[0].no_queries)
		rk__sb_printf(&b, "note: no --query given: designs are ranked by where writes land and "
		                  "by lookups of the identifying fields only; name the queries that must "
		                  "stay cheap with --query\n");
	if (n && s[0].uniquifier == 2)
		rk__sb_printf(&b, "note: the fields that identified the records held in memory repeat in "
		                  "the whole file: each key ends with a uniquifier field the writer must "
		                  "supply (a sequence number or an event id)\n");
	else if (n && s[0].uniquifier)
		rk__sb_printf(&b, "note: no set of the data's fields identifies every record: each key "
		                  "ends with a uniquifier field the writer must supply (a sequence number "
		                  "or an event id)\n");
	if (n && s[0].time_identity)
		rk__sb_printf(&b, "note: only a time identifies a record in this data: the keys are unique "
		                  "here, but two events in one tick would share a key; add an id or a "
		                  "sequence number to the data if that can happen\n");
	if (n && s[0].not_proposed)
		rk__sb_printf(&b, "note: not proposed, %s\n", s[0].not_proposed);
	if (n && s[0].not_tried)
		rk__sb_printf(&b, "note: %zu more candidate design%s not tried (the advisor simulates "
		                  "at most %u: give fewer query shapes at a time to see the rest)\n",
		              s[0].not_tried, s[0].not_tried == 1 ? " was" : "s were", RK__MAX_CANDIDATES);
	if (n)
		load_note(&b, s, n);
	rk__sb_printf(&b, "%-4s %-6s %-6s %-6s %s\n", "rank", "score", "writes", "reads", "design");
	for (size_t i = 0; i < n; i++) {
		rk__sb_printf(&b, "%-4zu %-6.3f %-6.3f %-6.3f %s\n", i + 1, s[i].score, s[i].write_score,
		              s[i].read_score, s[i].design);
		rk__sb_printf(&b, "     trade   %s\n", s[i].trade);
		for (size_t t = 0; t < s[i].ntables; t++)
			table_text(&b, &s[i].table[t], s[i].ntables > 1);
	}
	return rk__sb_done(out, &b);
}

/* ---- JSON ---- */

static void hex(rk__sb *b, const uint8_t *p, size_t n)
{
	RK__SB_LIT(b, "\"");
	for (size_t i = 0; i < n; i++)
		rk__sb_printf(b, "%02x", p[i]);
	RK__SB_LIT(b, "\"");
}

static void query_json(rk__sb *b, const rk_query_cost *c, int first, int table)
{
	if (first)
		RK__SB_LIT(b, "{\"query\":");
	else
		RK__SB_LIT(b, ",{\"query\":");
	rk__sb_jstr(b, c->query);
	RK__SB_LIT(b, ",\"name\":");
	rk__sb_jstr(b, c->name);
	rk__sb_printf(b, ",\"table\":%d,\"plan\":\"%s\",\"ranges\":", table, kind_word(c));
	rk__sb_jnum(b, c->ranges);
	RK__SB_LIT(b, ",\"rows_read_per_row\":");
	rk__sb_jnum(b, c->rows_read_per_row);
	RK__SB_LIT(b, ",\"rows_read\":");
	rk__sb_jnum(b, c->rows_read);
	RK__SB_LIT(b, ",\"rows_returned\":");
	rk__sb_jnum(b, c->rows_returned);
	RK__SB_LIT(b, ",\"weight\":");
	rk__sb_jnum(b, c->weight);
	rk__sb_printf(b, ",\"ordered\":%s,\"merge_ways\":%u,\"estimated\":%s,\"read_backwards\":%s"
	                 ",\"rows_read_grow\":%s",
	              c->ordered ? "true" : "false", c->merge_ways,
	              c->rows_read_estimated ? "true" : "false", c->read_backwards ? "true" : "false",
	              c->rows_read_grow ? "true" : "false");
	rk__fills_json(b, c);
	RK__SB_LIT(b, "}");
}

/* Every shape, priced in the table of the proposal that serves it. */
static void queries_json(rk__sb *b, const rk_suggestion *s)
{
	const rk_report *r0 = rk_analysis_report(s->table[0].analysis);
	RK__SB_LIT(b, "[");
	for (size_t q = 0; q < r0->nqueries; q++) {
		size_t t = 0;
		while (t + 1 < s->ntables && !(s->table[t].serves >> q & 1))
			t++;
		query_json(b, &rk_analysis_report(s->table[t].analysis)->queries[q], q == 0, (int)t);
	}
	RK__SB_LIT(b, "]");
}

static void table_queries_json(rk__sb *b, const rk_report *r, uint64_t serves, int set)
{
	int first = 1;
	RK__SB_LIT(b, "[");
	for (size_t q = 0; q < r->nqueries; q++)
		if (!set || (serves >> q & 1)) {
			query_json(b, &r->queries[q], first, -1);
			first = 0;
		}
	RK__SB_LIT(b, "]");
}

static void causes_json(rk__sb *b, const rk_report *r, uint64_t serves, int set)
{
	RK__SB_LIT(b, "[");
	int first = 1;
	for (size_t k = 0; k < r->ncauses; k++) {
		const rk_cause *c = &r->causes[k];
		if (set && c->query && !serves_named(r, serves, c->query))
			continue; /* a shape another table of the set serves */
		rk__cause_json(b, c, first);
		first = 0;
	}
	RK__SB_LIT(b, "]");
}

static void table_json(rk__sb *b, const rk_suggest_table *t, int set)
{
	const rk_report *r = rk_analysis_report(t->analysis);
	RK__SB_LIT(b, "{\"design\":");
	rk__sb_jstr(b, t->label);
	RK__SB_LIT(b, ",\"schema\":");
	rk__sb_jstr(b, t->schema_text);
	rk__sb_printf(b, ",\"unique\":{\"distinct\":%llu,\"records\":%llu}",
	              (unsigned long long)r->key_distinct, (unsigned long long)r->keys_checked);
	RK__SB_LIT(b, ",\"writes\":{\"hottest_share\":");
	rk__sb_jnum(b, r->hottest_share);
	RK__SB_LIT(b, ",\"at_a_time\":");
	rk__sb_jnum(b, r->peak_share);
	RK__SB_LIT(b, ",\"another_day\":");
	rk__sb_jnum(b, r->day_share);
	RK__SB_LIT(b, ",\"effective_servers\":");
	rk__sb_jnum(b, r->effective_servers);
	RK__SB_LIT(b, ",\"peak_rate\":");
	rk__sb_jnum(b, r->peak_rate);
	RK__SB_LIT(b, ",\"peak_server_rate\":");
	rk__sb_jnum(b, r->peak_server_rate);
	RK__SB_LIT(b, ",\"capacity\":");
	rk__sb_jnum(b, r->capacity);
	rk__sb_printf(b, ",\"servers\":%u},\"key_bytes\":", r->servers);
	rk__sb_jnum(b, r->key_mean);
	RK__SB_LIT(b, ",\"queries\":");
	table_queries_json(b, r, t->serves, set);
	RK__SB_LIT(b, ",\"causes\":");
	causes_json(b, r, t->serves, set);
	RK__SB_LIT(b, ",\"splits\":[");
	const uint8_t *k;
	size_t kl, ns = rk_analysis_splits(t->analysis, 0, &k, &kl);
	for (size_t i = 0; i < ns; i++) {
		rk_analysis_splits(t->analysis, i, &k, &kl);
		if (i)
			RK__SB_LIT(b, ",");
		hex(b, k, kl);
	}
	RK__SB_LIT(b, "]}");
}

int rk_suggestions_json(char **out, const rk_suggestion *s, size_t n)
{
	rk__sb b = {0};
	RK__SB_LIT(&b, "[");
	for (size_t i = 0; i < n; i++) {
		rk__sb_printf(&b, "%s{\"rank\":%zu,\"design\":", i ? "," : "", i + 1);
		rk__sb_jstr(&b, s[i].design);
		RK__SB_LIT(&b, ",\"score\":");
		rk__sb_jnum(&b, s[i].score);
		RK__SB_LIT(&b, ",\"write_score\":");
		rk__sb_jnum(&b, s[i].write_score);
		RK__SB_LIT(&b, ",\"read_score\":");
		rk__sb_jnum(&b, s[i].read_score);
		RK__SB_LIT(&b, ",\"trade\":");
		rk__sb_jstr(&b, s[i].trade);
		rk__sb_printf(&b, ",\"no_queries\":%s,\"uniquifier\":%s,\"time_identity\":%s,",
		              s[i].no_queries ? "true" : "false", s[i].uniquifier ? "true" : "false",
		              s[i].time_identity ? "true" : "false");
		if (s[i].not_tried)
			rk__sb_printf(&b, "\"not_tried\":%zu,", s[i].not_tried);
		if (s[i].not_proposed) {
			RK__SB_LIT(&b, "\"not_proposed\":");
			rk__sb_jstr(&b, s[i].not_proposed);
			RK__SB_LIT(&b, ",");
		}
		/* the first table's members at the top (the queries from the tables
		 * that serve them), every table under "tables" */
		rk__sb b1 = {0};
		table_json(&b1, &s[i].table[0], s[i].ntables > 1);
		/* from its schema on: the proposal's own design names it (a set's
		 * "a | b"; a second "design" member would shadow it) */
		const char *sc = b1.p ? strstr(b1.p, ",\"schema\":") : NULL;
		const char *qs = sc ? strstr(sc, ",\"queries\":[") : NULL;
		const char *cs = qs ? strstr(qs, "],\"causes\":[") : NULL;
		if (b1.oom || !cs) {
			free(b1.p);
			b.oom = 1;
			break;
		}
		rk__sb_put(&b, sc + 1, (size_t)(qs - sc - 1));
		RK__SB_LIT(&b, ",\"queries\":");
		queries_json(&b, &s[i]);
		rk__sb_put(&b, cs + 1, b1.len - (size_t)(cs + 1 - b1.p) - 1);
		free(b1.p);
		RK__SB_LIT(&b, ",\"tables\":[");
		for (size_t t = 0; t < s[i].ntables; t++) {
			if (t)
				RK__SB_LIT(&b, ",");
			table_json(&b, &s[i].table[t], s[i].ntables > 1);
		}
		RK__SB_LIT(&b, "]}");
	}
	RK__SB_LIT(&b, "]");
	return rk__sb_done(out, &b);
}

/* ---- split points ---- */

int rk_suggestion_write_splits(const rk_suggestion *s, const char *path)
{
	rk__outfile o;
	if (rk__outfile_open(&o, path) < 0)
		return rk__err(RK_EIO, "%s: %s", path, strerror(errno));
	FILE *f = o.f;
	const uint8_t *k;
	size_t kl, ns = rk_analysis_splits(s->table[0].analysis, 0, &k, &kl);
	for (size_t i = 0; i < ns; i++) {
		rk_analysis_splits(s->table[0].analysis, i, &k, &kl);
		for (size_t j = 0; j < kl; j++) {
			if (k[j] >= 0x20 && k[j] < 0x7f && k[j] != '\\')
				fputc(k[j], f);
			else
				fprintf(f, "\\x%02x", k[j]);
		}
		fputc('\n', f);
	}
	if (rk__outfile_close(&o, 1) < 0)
		return rk__err(RK_EIO, "%s: writing the split points failed: %s", path,
		               strerror(errno ? errno : EIO));
	return 0;
}
