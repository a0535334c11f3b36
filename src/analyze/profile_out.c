/*
 * A profile as text (a table of the fields, then what identifies a record
 * and the data's clock) and as JSON (docs/advisor.md lists the members).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "analyze/analyze_int.h"
#include "analyze/profile_int.h"

static void iso(char *b, size_t cap, double ms)
{
	time_t t = (time_t)floor(ms / 1000);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(b, cap, "%Y-%m-%d %H:%M:%S", &tm);
}

static void field_row(rk__sb *b, const rk_profile *p, size_t f, int w, int tw)
{
	const rk_field_profile *x = &p->f[f];
	char type[80], vals[32], emp[32], dist[40], len[40], top[200];
	if (!strncmp(x->type, "ts(", 3)) /* a date format: the declaration itself */
		snprintf(type, sizeof type, "%s", x->type);
	else
		snprintf(type, sizeof type, x->time_unit ? "ts (%s)" : "%s", x->time_unit ? x->time_unit : x->type);
	rk__count_text(vals, sizeof vals, x->values);
	rk__count_text(emp, sizeof emp, x->empties);
	rk__count_text(dist, sizeof dist, x->distinct);
	if (!x->distinct_exact)
		memmove(dist + 1, dist, strlen(dist) + 1), dist[0] = '~';
	if (x->len_min == x->len_max)
		snprintf(len, sizeof len, "%zu", x->len_max);
	else
		snprintf(len, sizeof len, "%zu..%zu", x->len_min, x->len_max);
	size_t o = 0;
	top[0] = 0;
	for (size_t k = 0; k < x->ntop && k < 3 && o < sizeof top; k++)
		o += (size_t)snprintf(top + o, sizeof top - o, "%s%s %s", k ? ", " : "", x->top[k].value,
		                      rk__share_text(x->top[k].share));
	rk__sb_printf(b, "%-*s %-*s %11s %9s %11s %7.1f%%  %-9s %s\n", w, x->name, tw, type, vals, emp,
	              dist, x->monotonic * 100, len, x->ntop ? top : "-");
}

static void unique_lines(rk__sb *b, const rk_profile *p)
{
	char n[32];
	rk__count_text(n, sizeof n, p->d->held);
	if (!p->nunique) {
		char dup[32];
		rk__count_text(dup, sizeof dup, p->duplicates);
		rk__sb_printf(b, "identifies  no set of fields: %s record%s repeat%s another on every field, "
		                 "so any key of these fields overwrites rows; a key needs a uniquifier (a "
		                 "sequence number or an event id the writer supplies)\n",
		              dup, p->duplicates == 1 ? "" : "s", p->duplicates == 1 ? "s" : "");
		return;
	}
	rk__sb_printf(b, "identifies  ");
	for (size_t u = 0; u < p->nunique; u++) {
		rk__sb_printf(b, "%s", u ? " | " : "");
		for (size_t j = 0; j < p->unique_n[u]; j++)
			rk__sb_printf(b, "%s%s", j ? " + " : "", p->f[p->unique[u][j]].name);
	}
	rk__sb_printf(b, " (each identifies every record: checked on %s%s)\n",
	              p->d->complete ? "all " : "the first ", n);
	if (p->unique_has_decimal || p->unique_all)
		rk__sb_printf(b, "            only with decimals or every field: no smaller set of "
		                 "identifiers names a record; a uniquifier makes a shorter key\n");
}

int rk_profile_text(char **out, const rk_profile *p)
{
	const rk__dataset *d = p->d;
	rk__sb b = {0};
	char n[32], held[32], rej[32];
	int w = 5, tw = 14; /* ts("...") may pass the type column's usual width */
	for (size_t f = 0; f < d->nf; f++) {
		if ((int)strlen(p->f[f].name) > w)
			w = (int)strlen(p->f[f].name);
		if ((int)strlen(p->f[f].type) > tw)
			tw = (int)strlen(p->f[f].type);
	}
	rk__count_text(n, sizeof n, d->records);
	rk__count_text(held, sizeof held, d->held);
	rk__sb_printf(&b, "profile     %s: %s record%s, %zu field%s", d->source, n,
	              d->records == 1 ? "" : "s", d->nf, d->nf == 1 ? "" : "s");
	if (d->complete)
		rk__sb_printf(&b, "; every record held: figures exact\n");
	else
		rk__sb_printf(&b, "; the first %s held (memory bound): distinct counts marked ~ are "
		                  "estimates\n",
		              held);
	if (d->rejected) {
		rk__count_text(rej, sizeof rej, d->rejected);
		rk__sb_printf(&b, "rejected    %s record%s the reader refused (the first: %s)\n", rej,
		              d->rejected == 1 ? "" : "s", d->first_error);
	}
	rk__sb_printf(&b, "\n%-*s %-*s %11s %9s %11s %8s  %-9s %s\n", w, "field", tw, "type", "values",
	              "empty", "distinct", "rises", "length", "most frequent");
	for (size_t f = 0; f < d->nf; f++)
		field_row(&b, p, f, w, tw);
	RK__SB_LIT(&b, "\n");
	unique_lines(&b, p);
	for (size_t f = 0; f < d->nf; f++)
		if (d->col[f].tu == RK__TU_FMT && d->col[f].dfmt_also)
			rk__sb_printf(&b, "dates       %s: every value reads as both %s and %s; taken as %s "
			                  "(month first, as in the US): declare ts(\"%s\") if the day comes first\n",
			              d->col[f].name, d->col[f].dfmt, d->col[f].dfmt_also, d->col[f].dfmt,
			              d->col[f].dfmt_also);
	if (d->time_field >= 0) {
		const rk_field_profile *x = &p->f[d->time_field];
		char a[40], z[40];
		iso(a, sizeof a, x->min);
		iso(z, sizeof z, x->max);
		if (d->clock_falls > 0)
			rk__sb_printf(&b, "clock       %s (%s), falling in %.1f%% of consecutive records (the "
			                  "file is newest first): %s .. %s UTC; a replay runs from the last "
			                  "record to the first, at this pace\n",
			              x->name, x->time_unit, d->clock_falls * 100, a, z);
		else
			rk__sb_printf(&b, "clock       %s (%s), in order in %.1f%% of consecutive records: "
			                  "%s .. %s UTC; a replay runs at this pace\n",
			              x->name, x->time_unit, x->monotonic * 100, a, z);
	}
	rk__sb_printf(&b, "\nrises: the share of consecutive records whose value is at least the one "
	                  "before (a leading field near 100%% sends every write to the last region)\n");
	return rk__sb_done(out, &b);
}

int rk_profile_json(char **out, const rk_profile *p)
{
	const rk__dataset *d = p->d;
	rk__sb b = {0};
	RK__SB_LIT(&b, "{\"source\":");
	rk__sb_json_str(&b, (const uint8_t *)d->source, strlen(d->source));
	rk__sb_printf(&b, ",\"records\":%llu,\"checked\":%llu,\"exact\":%s,\"rejected\":%llu,\"fields\":[",
	              (unsigned long long)d->records, (unsigned long long)d->held,
	              d->complete ? "true" : "false", (unsigned long long)d->rejected);
	for (size_t f = 0; f < d->nf; f++) {
		const rk_field_profile *x = &p->f[f];
		rk__sb_printf(&b, "%s{\"name\":", f ? "," : "");
		rk__sb_json_str(&b, (const uint8_t *)x->name, strlen(x->name));
		RK__SB_LIT(&b, ",\"type\":");
		rk__sb_json_str(&b, (const uint8_t *)x->type, strlen(x->type));
		RK__SB_LIT(&b, ",\"time_unit\":");
		if (x->time_unit)
			rk__sb_json_str(&b, (const uint8_t *)x->time_unit, strlen(x->time_unit));
		else
			RK__SB_LIT(&b, "null");
		rk__sb_printf(&b, ",\"values\":%llu,\"empties\":%llu,\"distinct\":%llu,\"distinct_exact\":%s",
		              (unsigned long long)x->values, (unsigned long long)x->empties,
		              (unsigned long long)x->distinct, x->distinct_exact ? "true" : "false");
		rk__sb_printf(&b, ",\"monotonic\":%.6g,\"length\":{\"min\":%zu,\"avg\":%.6g,\"max\":%zu}",
		              x->monotonic, x->len_min, x->len_avg, x->len_max);
		if (strcmp(x->type, "str"))
			rk__sb_printf(&b, ",\"min\":%.17g,\"max\":%.17g", x->min, x->max);
		RK__SB_LIT(&b, ",\"top\":[");
		for (size_t k = 0; k < x->ntop; k++) {
			rk__sb_printf(&b, "%s{\"value\":", k ? "," : "");
			rk__sb_json_str(&b, (const uint8_t *)x->top[k].value, strlen(x->top[k].value));
			rk__sb_printf(&b, ",\"count\":%llu,\"share\":%.6g}", (unsigned long long)x->top[k].count,
			              x->top[k].share);
		}
		RK__SB_LIT(&b, "]}");
	}
	RK__SB_LIT(&b, "],\"unique\":[");
	for (size_t u = 0; u < p->nunique; u++) {
		rk__sb_put(&b, u ? ",[" : "[", u ? 2 : 1);
		for (size_t j = 0; j < p->unique_n[u]; j++) {
			const char *nm = p->f[p->unique[u][j]].name;
			if (j)
				RK__SB_LIT(&b, ",");
			rk__sb_json_str(&b, (const uint8_t *)nm, strlen(nm));
		}
		RK__SB_LIT(&b, "]");
	}
	rk__sb_printf(&b, "],\"duplicates\":%llu,\"clock\":", (unsigned long long)p->duplicates);
	if (d->time_field >= 0)
		rk__sb_json_str(&b, (const uint8_t *)p->f[d->time_field].name,
		                strlen(p->f[d->time_field].name));
	else
		RK__SB_LIT(&b, "null");
	RK__SB_LIT(&b, "}");
	return rk__sb_done(out, &b);
}
