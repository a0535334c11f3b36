/*
 * The advisor's candidate keys (see advisor.h).
 */
#include "analyze/advisor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/profile_int.h"
#include "key/error.h"

typedef struct gen {
	rk__candidates *out;
	const rk__source *src;
	const rk__dataset *d;
	const rk_profile *p;
	unsigned servers;
	int desc;            /* the field the shape at hand reads descending, or -1 */
} gen;

/* ---- the identifying fields ---- */

static int f64_field(const rk__dataset *d, size_t f)
{
	return d->col[f].kind == RK__W_F64;
}

/* Which of the profile's identifying sets a key should use: the one the
 * shapes bind most, without decimals (measurements, not identities), of
 * fewest fields, of the narrowest values. */
static double set_score(const gen *g, const size_t *fs, size_t k)
{
	double s = 0;
	for (size_t j = 0; j < k; j++) {
		uint64_t bit = 1ull << fs[j];
		for (size_t q = 0; q < g->src->q.n; q++)
			s += ((g->src->q.q[q].eq_mask | g->src->q.q[q].range_mask) & bit) ? 100 : 0;
		s -= f64_field(g->d, fs[j]) ? 1000 : 0;
		s -= g->d->col[fs[j]].tu ? 150 : 0; /* two events in one tick share a time */
		s -= 10 + (g->d->col[fs[j]].kind == RK__W_STR ? g->p->f[fs[j]].len_avg : 8) / 10;
	}
	return s;
}

static int pick_identity(gen *g, int uniquifier)
{
	rk__candidates *o = g->out;
	const rk_profile *p = g->p;
	double best = -1e300;
	int from = -1;
	for (size_t u = 0; u < p->nunique; u++) {
		if (p->unique_all)
			break;
		double s = set_score(g, p->unique[u], p->unique_n[u]);
		if (s > best) {
			best = s;
			from = (int)u;
		}
	}
	if (from >= 0 && !(p->unique_has_decimal && best < -500)) {
		o->nident = p->unique_n[from];
		memcpy(o->ident, p->unique[from], o->nident * sizeof *o->ident);
		o->time_identity = 1;
		for (size_t j = 0; j < o->nident; j++)
			o->time_identity &= g->d->col[o->ident[j]].tu != RK__TU_NONE;
		if (!uniquifier)
			return 0;
		/* the set collided past what the profile held: the same fields (a
		 * lookup by them stays one prefix), then a uniquifier */
		o->time_identity = 0;
	}
	/* nothing but every field, or decimals, identify a record: a uniquifier
	 * after the shapes' fields, which lead every key (nothing else: a
	 * country or a browser in the key would only lengthen it); with no
	 * shape, after the most telling identifiers the data has (up to three,
	 * most distinct first), so that a lookup by them stays one prefix */
	int telling = o->nident == 0 && !g->src->q.n;
	for (size_t f = 0; telling && f < g->d->nf; f++) {
		const rk_field_profile *x = &p->f[f];
		if (f64_field(g->d, f) || x->empties || x->distinct < 2)
			continue;
		size_t at = o->nident;
		while (at > 0 && p->f[o->ident[at - 1]].distinct < x->distinct)
			at--;
		if (at >= 3)
			continue;
		size_t end = o->nident < 3 ? o->nident : 2;
		memmove(o->ident + at + 1, o->ident + at, (end - at) * sizeof *o->ident);
		o->ident[at] = f;
		o->nident = end + 1;
	}
	int f = rk__dataset_add_seq(g->src->d);
	if (f < 0)
		return f;
	o->uniquifier = from >= 0 && uniquifier ? 2 : 1;
	o->ident[o->nident++] = (size_t)f;
	return 0;
}

/* ---- key text ---- */

/* A field in descending order: a time as a reverse timestamp (MAX - ts,
 * the seeds' newest first), other fixed-width values inverted (:desc). */
static void put_field_desc(char *k, size_t cap, const rk__dataset *d, size_t f)
{
	const char *t = rk__dataset_type(d, f), *name = d->col[f].name;
	size_t o = strlen(k);
	if (!strncmp(t, "ts", 2))
		snprintf(k + o, cap - o, "%su64(rts(%s))", o ? " " : "", name);
	else if (!strcmp(t, "u64") || !strcmp(t, "i64") || !strcmp(t, "f64"))
		snprintf(k + o, cap - o, "%s%s(%s):desc", o ? " " : "", t, name);
	else
		snprintf(k + o, cap - o, "%sesc(%s):desc", o ? " " : "", name);
}

static void put_field(char *k, size_t cap, const rk__dataset *d, size_t f)
{
	const char *t = rk__dataset_type(d, f), *name = d->col[f].name;
	size_t o = strlen(k);
	if (!strcmp(t, "u64"))
		snprintf(k + o, cap - o, "%su64(%s)", o ? " " : "", name);
	else if (!strcmp(t, "i64") || !strncmp(t, "ts", 2)) /* ts, ts("FORMAT") */
		snprintf(k + o, cap - o, "%si64(%s)", o ? " " : "", name);
	else if (!strcmp(t, "f64"))
		snprintf(k + o, cap - o, "%sf64(%s)", o ? " " : "", name);
	else
		snprintf(k + o, cap - o, "%sesc(%s)", o ? " " : "", name);
}

/* The fields' names joined by sep; the descending one (desc: a dataset
 * index, or -1) as the key has it: rts(ts) for a time, else "name desc". */
static void names(char *out, size_t cap, const rk__dataset *d, const size_t *fs, size_t n,
                  const char *sep, int desc)
{
	size_t o = 0;
	out[0] = 0;
	for (size_t j = 0; j < n && o < cap; j++) {
		const char *nm = d->col[fs[j]].name;
		if ((int)fs[j] != desc)
			o += (size_t)snprintf(out + o, cap - o, "%s%s", j ? sep : "", nm);
		else if (!strncmp(rk__dataset_type(d, fs[j]), "ts", 2))
			o += (size_t)snprintf(out + o, cap - o, "%srts(%s)", j ? sep : "", nm);
		else
			o += (size_t)snprintf(out + o, cap - o, "%s%s desc", j ? sep : "", nm);
	}
}

/* Salt buckets: one a server, 2..256. */
static unsigned buckets_of(const gen *g)
{
	return g->servers < 2 ? 2 : g->servers > 256 ? 256 : g->servers;
}

/* One candidate, once; past RK__MAX_CANDIDATES counted as not tried (the
 * table's own design has a slot of its own). */
static void add(gen *g, const char *label, const char *key, int shape, const char *variant)
{
	rk__candidates *o = g->out;
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->c[i].key, key))
			return;
	if (o->n >= RK__MAX_CANDIDATES + !strcmp(variant, "current")) {
		o->not_tried++;
		return;
	}
	rk__cand *c = &o->c[o->n++];
	snprintf(c->label, sizeof c->label, "%s", label);
	snprintf(c->key, sizeof c->key, "%s", key);
	c->shape = shape;
	c->variant = variant;
}

void rk__candidates_add(rk__candidates *c, const char *label, const char *key, const char *variant)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->c[i].key, key)) { /* one of ours already: say so in its name */
			size_t n = strlen(c->c[i].label);
			snprintf(c->c[i].label + n, sizeof c->c[i].label - n, " (%s)", label);
			return;
		}
	gen g = {.out = c};
	add(&g, label, key, -1, variant);
}

/* ---- bases and variants ---- */

static int has(const size_t *fs, size_t n, size_t f)
{
	for (size_t j = 0; j < n; j++)
		if (fs[j] == f)
			return 1;
	return 0;
}

/* The shape's equality fields (most distinct first), its range fields, then
 * the identifying fields not yet in. */
static size_t base_of(const gen *g, const rk__qshape *q, size_t *fs, size_t *neq)
{
	size_t n = 0;
	const rk__dataset *d = g->d;
	for (size_t f = 0; q && f < d->nf; f++)
		if (q->eq_mask >> f & 1) {
			size_t at = n;
			while (at > 0 && g->p->f[fs[at - 1]].distinct < g->p->f[f].distinct)
				at--;
			memmove(fs + at + 1, fs + at, (n - at) * sizeof *fs);
			fs[at] = f;
			n++;
		}
	*neq = n;
	/* the field the rows are read in order of, right after the equalities
	 * (descending: a reverse timestamp; "the last 20" are then the first
	 * 20 rows of one prefix) */
	if (q && q->order_field >= 0 && !has(fs, n, (size_t)q->order_field))
		fs[n++] = (size_t)q->order_field;
	for (size_t f = 0; q && f < d->nf; f++)
		if ((q->range_mask >> f & 1) && !has(fs, n, f))
			fs[n++] = f;
	for (size_t j = 0; j < g->out->nident; j++)
		if (!has(fs, n, g->out->ident[j]))
			fs[n++] = g->out->ident[j];
	return n;
}

/* The key fs with a bucket over hashed (m fields) right after its first
 * neq fields: each value of those spread over S sub-ranges. */
static void add_inner(gen *g, const size_t *fs, size_t n, size_t neq, const size_t *hashed,
                      size_t m, int shape, const char *why)
{
	char key[1200] = "", hs[128], head[128], tail[256], label[600];
	unsigned S = buckets_of(g);
	names(hs, sizeof hs, g->d, hashed, m, ", ", -1);
	for (size_t j = 0; j < n; j++) {
		if (j == neq) {
			size_t o = strlen(key);
			snprintf(key + o, sizeof key - o, " bucket(%u, xxh3(%s))", S, hs);
		}
		if ((int)fs[j] == g->desc)
			put_field_desc(key, sizeof key, g->d, fs[j]);
		else
			put_field(key, sizeof key, g->d, fs[j]);
	}
	names(head, sizeof head, g->d, fs, neq, " + ", g->desc);
	names(tail, sizeof tail, g->d, fs + neq, n - neq, " + ", g->desc);
	snprintf(label, sizeof label, "%s + hash(%s) %u buckets + %s%s", head, hs, S, tail, why);
	add(g, label, key, shape, "inner");
}

/* A bucket after the equality fields (a hot tenant's or device's writes
 * spread inside its prefix, where a salt in front would spread every
 * query's reads over all the table's regions): over the identifying fields
 * the equalities leave out, and over each of them alone (a query that also
 * binds it computes its bucket: one range). */
static void inner_buckets(gen *g, const size_t *fs, size_t n, size_t neq, int shape, const char *why)
{
	size_t rest[8], m = 0;
	int hot = 0;
	/* only where one value of the equalities is hotter than a server's even
	   share (a dominant tenant): else their own spread is the spread */
	for (size_t j = 0; j < neq; j++) {
		const rk_field_profile *x = &g->p->f[fs[j]];
		hot |= x->ntop && x->top[0].share > 1.0 / (g->servers ? g->servers : 1);
	}
	if (!neq || n <= neq || !hot)
		return;
	for (size_t j = 0; j < g->out->nident && m < 8; j++)
		if (!has(fs, neq, g->out->ident[j]) && !g->d->col[g->out->ident[j]].seq)
			rest[m++] = g->out->ident[j];
	if (m)
		add_inner(g, fs, n, neq, rest, m, shape, why);
	for (size_t j = 0; m > 1 && j < m; j++)
		add_inner(g, fs, n, neq, rest + j, 1, shape, why);
	/* a field another shape binds by equality (service = ? AND host = ?
	 * beside service = ?): hashed after this shape's equalities and kept
	 * after its range, so that shape computes its bucket */
	const rk__qset *qs = &g->src->q;
	const rk__qshape *q = shape >= 0 && (size_t)shape < qs->n ? &qs->q[shape] : NULL;
	uint64_t others = 0;
	for (size_t k = 0; q && k < qs->n; k++)
		others |= (size_t)shape == k ? 0 : qs->q[k].eq_mask;
	for (size_t f = 0; q && f < g->d->nf && n < 63; f++) {
		if (!(others >> f & 1) || has(fs, neq, f))
			continue;
		size_t alt[64], a = neq, tail[64], t = 0, k = 0;
		for (size_t j = neq; j < n; j++)
			if (fs[j] != f)
				tail[t++] = fs[j];
		while (k < t && ((q->range_mask >> tail[k] & 1) || (int)tail[k] == q->order_field))
			k++;
		memcpy(alt, fs, neq * sizeof *fs);
		memcpy(alt + a, tail, k * sizeof *tail);
		a += k;
		alt[a++] = f;
		memcpy(alt + a, tail + k, (t - k) * sizeof *tail);
		a += t - k;
		add_inner(g, alt, a, neq, &f, 1, shape, why);
	}
}

/* "1h", "10min": a window W in a time field's units, in words. */
static void dur_words(char *out, size_t cap, int64_t W, rk__tunit tu)
{
	double ms = (double)rk__tunit_ms(tu, W);
	if (ms >= 86400000)
		snprintf(out, cap, "%.0fd", ms / 86400000);
	else if (ms >= 3600000)
		snprintf(out, cap, "%.0fh", ms / 3600000);
	else if (ms >= 60000)
		snprintf(out, cap, "%.0fmin", ms / 60000);
	else
		snprintf(out, cap, "%.0fs", ms / 1000);
}

/* The window of a time bucket for time field t, in its own units, from 1 s,
 * 10 s, 1 min, 10 min, 1 h and 1 day: the largest at most a tenth of the
 * data's span (up 0: a window of a tenth of the history spans a few buckets,
 * each read exactly) or the smallest at least a tenth (up 1: the window is
 * one bucket or two, so a shape that binds the fields after the bucket
 * seeks once or twice, while one that binds only those before reads whole
 * buckets, up to ten times its window). Under 10 s of data both are 1 s, over
 * 10 days both 1 day. 0 when t is no epoch number. Which costs less depends
 * on how many rows a bucket holds against a range's seek: the prices say. */
static int64_t window_of(const gen *g, size_t t, int up)
{
	static const int64_t windows_ms[] = {1000, 10000, 60000, 600000, 3600000, 86400000};
	const size_t nw = sizeof windows_ms / sizeof *windows_ms;
	const rk__column *c = &g->d->col[t];
	if (c->tu < RK__TU_S || c->tu > RK__TU_NS || !(c->st.max > c->st.min))
		return 0;
	double tenth = (double)rk__tunit_ms(c->tu, (int64_t)(c->st.max - c->st.min)) / 10;
	size_t i = 0;
	while (i + 1 < nw && (double)windows_ms[i + 1] <= tenth)
		i++;
	if (up && (double)windows_ms[i] < tenth && i + 1 < nw)
		i++;
	return rk__tunit_of_ms(c->tu, windows_ms[i]);
}

/* The time-window keys of one shape at window W (time_windows). */
static void windows_at(gen *g, int shape, const size_t *fs, size_t n, size_t neq, size_t t,
                       int64_t W)
{
	const rk__qset *qs = &g->src->q;
	const rk__qshape *q = &qs->q[shape];
	unsigned S = buckets_of(g);
	for (size_t k = 0; k < qs->n; k++) {
		uint64_t more = qs->q[k].eq_mask & ~q->eq_mask;
		if ((int)k == shape || !more || (qs->q[k].eq_mask & q->eq_mask) != q->eq_mask ||
		    !(qs->q[k].range_mask >> t & 1))
			continue;
		char key[1200] = "", label[600], eqs[128], ms[128], lbl_w[32];
		size_t alt[64], a = 0, m = 0, mf[64];
		for (size_t j = 0; j < neq; j++)
			put_field(key, sizeof key, g->d, fs[j]);
		size_t o = strlen(key);
		snprintf(key + o, sizeof key - o, " i64(tbucket(%s, %lld))", g->d->col[t].name, (long long)W);
		for (size_t f = 0; f < g->d->nf; f++)
			if (more >> f & 1) {
				put_field(key, sizeof key, g->d, f);
				mf[m++] = f;
			}
		for (size_t j = neq; j < n; j++)
			if (!(more >> fs[j] & 1))
				alt[a++] = fs[j];
		for (size_t j = 0; j < a; j++)
			put_field(key, sizeof key, g->d, alt[j]);
		names(eqs, sizeof eqs, g->d, fs, neq, " + ", -1);
		names(ms, sizeof ms, g->d, mf, m, " + ", -1);
		dur_words(lbl_w, sizeof lbl_w, W, g->d->col[t].tu);
		snprintf(label, sizeof label, "%s + tbucket(%s, %s) + %s + %s", eqs, g->d->col[t].name,
		         lbl_w, ms, g->d->col[t].name);
		add(g, label, key, shape, "windows");
		/* and salted by the fields the narrower shape binds: it computes its
		   bucket, the wider one reads every bucket's windows */
		char key2[1400], label2[800], all[128];
		size_t both[64], nb = 0;
		for (size_t f = 0; f < g->d->nf; f++)
			if (qs->q[k].eq_mask >> f & 1)
				both[nb++] = f;
		names(all, sizeof all, g->d, both, nb, ", ", -1);
		snprintf(key2, sizeof key2, "bucket(%u, xxh3(%s)) %s", S, all, key);
		snprintf(label2, sizeof label2, "hash(%s) %u buckets + %s", all, S, label);
		add(g, label2, key2, shape, "windows");
	}
}

/* A time bucket between a shape's equalities and the fields another shape
 * binds too (metric = ? AND ts range beside metric = ? AND host = ? AND ts
 * range: metric + tbucket(ts) + host + ts, OpenTSDB's row key): the first
 * reads one range over the windows, the second one range a window, each
 * narrowed by the host. up: the wider of the two windows (window_of), only
 * when it differs. */
static void time_windows(gen *g, int shape, int up)
{
	const rk__qshape *q = &g->src->q.q[shape];
	size_t fs[64], n, neq, t = 64;
	n = base_of(g, q, fs, &neq);
	for (size_t f = 0; f < g->d->nf; f++)
		if ((q->range_mask >> f & 1) && g->d->col[f].tu)
			t = f;
	int64_t W = t < 64 ? window_of(g, t, up) : 0;
	if (!neq || !W || (up && W == window_of(g, t, 0)))
		return;
	windows_at(g, shape, fs, n, neq, t, W);
}

/* The plain key of fields fs in order (g->desc descending) into key, and
 * its name ("a + b") into all. */
static void plain_key(const gen *g, const size_t *fs, size_t n, char *key, size_t kcap, char *all,
                      size_t acap)
{
	for (size_t j = 0; j < n; j++)
		if ((int)fs[j] == g->desc)
			put_field_desc(key, kcap, g->d, fs[j]);
		else
			put_field(key, kcap, g->d, fs[j]);
	names(all, acap, g->d, fs, n, " + ", g->desc);
}

/* The plain key, its equality fields hashed in front, and salted by the
 * identifying fields. */
static void variants(gen *g, const size_t *fs, size_t n, size_t neq, int shape, const char *why)
{
	char key[1024] = "", key2[1200], label[400], all[128], lead[128], ids[128];
	unsigned S = buckets_of(g);
	plain_key(g, fs, n, key, sizeof key, all, sizeof all);
	snprintf(label, sizeof label, "%s%s", all, why);
	add(g, label, key, shape, "plain");
	if (neq) {
		names(lead, sizeof lead, g->d, fs, neq, ", ", -1);
		snprintf(key2, sizeof key2, "bucket(%u, xxh3(%s)) %s", S, lead, key);
		snprintf(label, sizeof label, "hash(%s) %u buckets + %s%s", lead, S, all, why);
		add(g, label, key2, shape, "hashed");
	}
	/* a hash of one equality field alone: a query that binds only that one
	 * of them still computes its bucket (day = ? AND store = ? reads one
	 * range under hash(store) + day + store; day = ? reads S) */
	for (size_t j = 1; neq > 1 && j < neq; j++) {
		const char *f = g->d->col[fs[j]].name;
		snprintf(key2, sizeof key2, "bucket(%u, xxh3(%s)) %s", S, f, key);
		snprintf(label, sizeof label, "hash(%s) %u buckets + %s%s", f, S, all, why);
		add(g, label, key2, shape, "hashed");
	}
	names(ids, sizeof ids, g->d, g->out->ident, g->out->nident, ", ", -1);
	snprintf(key2, sizeof key2, "bucket(%u, xxh3(%s)) %s", S, ids, key);
	snprintf(label, sizeof label, "salt(%s) %u buckets + %s%s", ids, S, all, why);
	add(g, label, key2, shape, "salted");
}

/* The other orders of the shape's first equality fields (up to three): the
 * queries, not the distinct counts, decide which field leads (a per-tenant
 * query needs the tenant first, whatever the users' count), and pricing
 * every order under every shape finds the one that serves them all. */
static void other_orders(gen *g, const size_t *fs, size_t n, size_t neq, int shape)
{
	static const unsigned char perm3[5][3] = {{0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
	size_t k = neq < 3 ? neq : 3, alt[64];
	for (size_t p = 0; k >= 2 && p < 5; p++) {
		if (k == 2 && p != 1)
			continue; /* of two fields, only the swap */
		memcpy(alt, fs, n * sizeof *fs);
		for (size_t j = 0; j < k; j++)
			alt[j] = fs[perm3[p][j]];
		variants(g, alt, n, neq, shape, "");
	}
}

/* A well-spread field to lead a key whose own lead rises: many distinct
 * values, not rising, no hot value, not a decimal. */
static int spread_field(const gen *g, const size_t *fs, size_t n)
{
	int best = -1;
	for (size_t f = 0; f < g->d->nf; f++) {
		const rk_field_profile *x = &g->p->f[f];
		if (f64_field(g->d, f) || g->d->col[f].seq || x->empties || x->monotonic >= 0.9 ||
		    x->distinct < g->servers || has(fs, n, f) ||
		    (x->ntop && x->top[0].share > 2.0 / g->servers))
			continue;
		if (best < 0 || x->distinct > g->p->f[best].distinct)
			best = (int)f;
	}
	return best;
}

/* Every field becomes a schema field by its name: the names must be the
 * schema language's identifiers. */
static int valid_names(const gen *g)
{
	for (size_t f = 0; f < g->d->nf; f++) {
		const char *n = g->d->col[f].name;
		int ok = (n[0] >= 'a' && n[0] <= 'z') || (n[0] >= 'A' && n[0] <= 'Z') || n[0] == '_';
		for (const char *p = n; *p && ok; p++)
			ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			     *p == '_';
		if (!ok)
			return rk__err(RK_EINVALID, "field '%s' cannot be a schema field's name (letters, "
			                            "digits and _, not starting with a digit): rename the "
			                            "column in the data",
			               n);
	}
	char text[4200];
	rk_schema *s = NULL;
	snprintf(text, sizeof text, "%s; key \"k\"", g->out->fields);
	if (rk_schema_parse(&s, text, strlen(text), "suggestion") != 0)
		return rk__err(RK_EINVALID, "the data's fields do not make a schema: %s", rk_error_last());
	rk_schema_free(s);
	return 0;
}

/* The field a shape reads newest (largest) first, or -1. */
static int desc_of(const rk__qshape *q)
{
	return q->order_field >= 0 && q->order_desc ? q->order_field : -1;
}

int rk__candidates_build(rk__candidates *out, rk__source *src, unsigned servers, int uniquifier)
{
	gen g = {out, src, src->d, src->profile, servers, -1};
	size_t fs[64], n, neq;
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = pick_identity(&g, uniquifier)) != 0)
		return rc;
	size_t o = (size_t)snprintf(out->fields, sizeof out->fields, "fields ");
	for (size_t f = 0; f < g.d->nf && o < sizeof out->fields; f++)
		o += (size_t)snprintf(out->fields + o, sizeof out->fields - o, "%s%s:%s", f ? ", " : "",
		                      g.d->col[f].name, rk__dataset_type(g.d, f));
	if ((rc = valid_names(&g)) != 0)
		return rc;
	if (!src->q.n) {
		char where[1024], nm[300], ids[200];
		size_t w = 0;
		size_t nid = out->nident - (out->uniquifier && out->nident > 1);
		for (size_t j = 0; j < nid; j++)
			w += (size_t)snprintf(where + w, sizeof where - w, "%s%s = ?", j ? " AND " : "",
			                      g.d->col[out->ident[j]].name);
		names(ids, sizeof ids, g.d, out->ident, nid, " + ", -1);
		snprintf(nm, sizeof nm, "a record by %s (no query given)", ids);
		if ((rc = rk__qset_add(&src->q, where, nm, g.d, src->o.seed)) != 0)
			return rc;
		out->implicit_shape = 1;
	}
	/* the identifying fields alone, first (the list is capped): a key that
	 * holds every record even when a field the queries bind cannot be a key
	 * part (a time empty in some records), its queries priced like any
	 * other's */
	if (!out->uniquifier) {
		char key[1024] = "", label[128];
		plain_key(&g, out->ident, out->nident, key, sizeof key, label, sizeof label);
		add(&g, label, key, -1, "plain");
	}
	for (size_t s = 0; s < src->q.n; s++) {
		n = base_of(&g, &src->q.q[s], fs, &neq);
		g.desc = desc_of(&src->q.q[s]);
		variants(&g, fs, n, neq, (int)s, "");
		/* in the shape's own order only: every order of every bucket is
		   more candidates than the judgement gains (suggest -w urls) */
		inner_buckets(&g, fs, n, neq, (int)s, "");
		/* a rising lead that no equality binds: a spread field promoted in front */
		if (!neq && n && g.p->f[fs[0]].monotonic >= 0.9) {
			int f = spread_field(&g, fs, n);
			if (f >= 0) {
				memmove(fs + 1, fs, n * sizeof *fs);
				fs[0] = (size_t)f;
				variants(&g, fs, n + 1, 0, (int)s, " (promoted)");
			}
		}
	}
	for (size_t s = 0; s < src->q.n; s++) {
		n = base_of(&g, &src->q.q[s], fs, &neq);
		g.desc = desc_of(&src->q.q[s]);
		other_orders(&g, fs, n, neq, (int)s);
		g.desc = -1;
		time_windows(&g, (int)s, 0);
	}
	/* the wider windows last: the first of each shape is tried first */
	for (size_t s = 0; s < src->q.n; s++)
		time_windows(&g, (int)s, 1);
	return 0;
}
