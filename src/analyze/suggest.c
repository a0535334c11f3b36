/*
 * rk_suggest: candidate key designs for a workload, run in the simulator
 * and ranked. Candidates: the workload's obvious key; each other field
 * promoted to the front (composite key); salt buckets (N = S/2, S, 2S, at
 * most 256) hashed on the key's last field, and on a promoted field (which
 * keeps one entity's rows in one bucket); a 4-hex-digit MD5 prefix.
 *
 * Score = write spread / (1 + log2(mean regions a query touches)), where
 * write spread = 1 / (S x the hottest server's share at a time): 1 when
 * every server takes the same share at every moment.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "key/error.h"

typedef struct cand {
	char label[256]; /* callers build labels in 200-byte buffers */
	char key[1200];
} cand;

static int field_in(const char *key, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = key; (p = strstr(p, name)); p += n) {
		int before = p == key || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
		                           (p[-1] >= '0' && p[-1] <= '9') || p[-1] == '"');
		char c = p[n];
		int after = !(c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '"');
		if (before && after)
			return 1;
	}
	return 0;
}

static void add(cand *c, size_t *n, size_t max, const char *label, const char *key)
{
	if (*n >= max)
		return;
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(c[i].key, key))
			return;
	snprintf(c[*n].label, sizeof c[*n].label, "%s", label);
	snprintf(c[*n].key, sizeof c[*n].key, "%s", key);
	(*n)++;
}

static int cmp_score(const void *a, const void *b)
{
	const rk_suggestion *x = a, *y = b;
	return x->score < y->score ? 1 : x->score > y->score ? -1 : strcmp(x->design, y->design);
}

void rk_suggestions_free(rk_suggestion *s, size_t count)
{
	for (size_t i = 0; s && i < count; i++) {
		free(s[i].design);
		free(s[i].schema_text);
		rk_analysis_free(s[i].analysis);
	}
	free(s);
}

int rk_suggest(rk_suggestion **out, size_t *count, const rk_workload_options *wopts,
               const rk_analyze_options *opts)
{
	rk__workload *w = NULL;
	cand c[32];
	size_t nc = 0;
	int rc;
	*out = NULL;
	*count = 0;
	if ((rc = rk__check_options(opts, 100000)) != 0)
		return rc;
	if ((rc = rk__workload_open(&w, wopts)) != 0)
		return rc;
	const char *nk = rk__workload_natural_key(w);
	char fields[4096], key[1100], label[200];
	snprintf(fields, sizeof fields, "%s", rk__workload_fields_text(w));
	/* the key's fields in order, and the others */
	const char *last = NULL;
	size_t best = 0;
	for (size_t i = 0; i < rk__workload_nfields(w); i++) {
		const char *f = rk__workload_field(w, i)->name;
		const char *p = strstr(nk, f);
		if (field_in(nk, f) && p && (size_t)(p - nk) >= best) {
			best = (size_t)(p - nk);
			last = f;
		}
	}
	add(c, &nc, 32, nk, nk);
	unsigned S = opts->servers, ns[3] = {S / 2, S, 2 * S};
	for (int k = 0; k < 3 && last; k++) {
		unsigned N = ns[k] < 2 ? 2 : ns[k] > 256 ? 256 : ns[k];
		snprintf(label, sizeof label, "bucket(%u, xxh3(%s)) + %s", N, last, nk);
		snprintf(key, sizeof key, "bucket(%u, xxh3(%s), dec) \":\" %s", N, last, nk);
		add(c, &nc, 32, label, key);
	}
	if (last) {
		snprintf(label, sizeof label, "md5(%s)[0:4] + %s", last, nk);
		snprintf(key, sizeof key, "hex(md5(%s))[0:4] %s", last, nk);
		add(c, &nc, 32, label, key);
	}
	for (size_t i = 0; i < rk__workload_nfields(w); i++) {
		const rk__wfield *f = rk__workload_field(w, i);
		if (strstr(nk, f->name) == nk)
			continue; /* already leading */
		const char *rest = nk;
		if (field_in(nk, f->name)) {
			/* promote: the field first, the natural key without it after */
			snprintf(label, sizeof label, "%s first", f->name);
			char tmp[512];
			size_t o = 0;
			const char *p = strstr(nk, f->name);
			memcpy(tmp, nk, (size_t)(p - nk));
			o = (size_t)(p - nk);
			const char *after = p + strlen(f->name);
			/* drop the separator next to the field */
			if (o >= 5 && !strncmp(tmp + o - 5, " \":\" ", 5))
				o -= 5;
			else if (!strncmp(after, " \":\" ", 5))
				after += 5;
			snprintf(tmp + o, sizeof tmp - o, "%s", after);
			rest = tmp;
			snprintf(key, sizeof key, "%s \":\" %s", f->name, rest);
		} else {
			snprintf(label, sizeof label, "%s first", f->name);
			snprintf(key, sizeof key, "%s \":\" %s", f->name, nk);
		}
		add(c, &nc, 32, label, key);
		snprintf(label, sizeof label, "bucket(%u, xxh3(%s)) + %s first",
		         S < 2 ? 2 : S > 256 ? 256 : S, f->name, f->name);
		char k2[1200];
		snprintf(k2, sizeof k2, "bucket(%u, xxh3(%s), dec) \":\" %s", S < 2 ? 2 : S > 256 ? 256 : S,
		         f->name, key);
		add(c, &nc, 32, label, k2);
	}
	rk__workload_close(w);

	rk_suggestion *s = calloc(nc, sizeof *s);
	size_t n = 0;
	if (!s)
		return rk__err(RK_ENOMEM, "out of memory");
	for (size_t i = 0; i < nc; i++) {
		char text[5400];
		rk_schema *sc = NULL;
		rk_analysis *a = NULL;
		snprintf(text, sizeof text, "%s; key %s", fields, c[i].key);
		if (rk_schema_parse(&sc, text, strlen(text), "suggestion") != 0)
			continue; /* a candidate the language rejects is not a suggestion */
		rc = rk_analyze_run(&a, sc, c[i].label, wopts, opts);
		rk_schema_free(sc);
		if (rc == RK_EINVALID)
			continue;
		if (rc) {
			rk_suggestions_free(s, n);
			return rc;
		}
		const rk_report *r = rk_analysis_report(a);
		double spread = r->peak_share > 0 ? 1.0 / (r->peak_share * r->servers) : 0;
		double reg = 0;
		for (size_t q = 0; q < r->nqueries; q++)
			reg += r->queries[q].regions;
		reg = r->nqueries ? reg / r->nqueries : 1;
		s[n].score = spread / (1 + log2(reg < 1 ? 1 : reg));
		s[n].design = strdup(c[i].label);
		s[n].schema_text = strdup(text);
		s[n].analysis = a;
		n++;
		if (!s[n - 1].design || !s[n - 1].schema_text) {
			rk_suggestions_free(s, n);
			return rk__err(RK_ENOMEM, "out of memory");
		}
		free(a->schema_text);
		a->schema_text = strdup(text);
	}
	if (n == 0) {
		free(s);
		return rk__err(RK_EINVALID, "no candidate design fits workload %s", wopts->name);
	}
	qsort(s, n, sizeof *s, cmp_score);
	*out = s;
	*count = n;
	return 0;
}
