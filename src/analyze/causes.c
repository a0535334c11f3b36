/*
 * Causes (rk_cause) and the verdict: why a design's writes land where they
 * do and what its queries cost, each named with the number it was measured
 * at (in the run, or on the data's profile) and the remedy an HBase or
 * Bigtable engineer would give, with its price on reads (docs/advisor.md).
 *
 * Write causes are looked for only when writes concentrate (the busiest
 * server takes half of a time bucket's writes or more, or fewer than 60% of
 * the servers are effectively used), and only those the numbers support: a
 * leading field that rises (the run's keys sort after the previous one in
 * 90% of writes), one with fewer distinct values than servers, a hot value
 * of the field that places rows, fewer salt buckets than servers, too few
 * regions, regions piled on few servers. A key that is not unique is named
 * first, whatever the spread: it loses rows.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "analyze/profile_int.h"
#include "analyze/source.h"
#include "key/error.h"

typedef struct ctx {
	rk_analysis *a;
	const rk_schema *s;
	const rk__source *src;
	const rk_analyze_options *o;
	rk_key_field kf[64];
	size_t nkf;
	uint64_t spread;  /* fields of the spread prefix */
	int oom;
} ctx;

static char *fmt(const char *f, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, f, ap);
	char *p = n < 0 ? NULL : malloc((size_t)n + 1);
	if (p)
		vsnprintf(p, (size_t)n + 1, f, again);
	va_end(again);
	return p;
}

/* Adds a cause; text and remedy are printf formats (remedy's arguments
 * follow text's). */
static rk_cause *add(ctx *c, const char *kind, const char *field, double number, const char *unit,
                     const char *pattern)
{
	rk_analysis *a = c->a;
	if (a->ncauses == sizeof a->causes / sizeof a->causes[0])
		return NULL;
	size_t i = a->ncauses++;
	rk_cause *x = &a->causes[i];
	memset(x, 0, sizeof *x);
	x->kind = kind;
	if (field) { /* the schema's names do not outlive the run */
		c->oom |= !(a->cause_str[i][3] = strdup(field));
		x->field = a->cause_str[i][3];
	}
	x->number = number;
	x->unit = unit;
	x->pattern = pattern;
	return x;
}

static void say(ctx *c, rk_cause *x, int which, const char *f, ...)
	__attribute__((format(printf, 4, 5)));
static void say(ctx *c, rk_cause *x, int which, const char *f, ...)
{
	if (!x)
		return;
	va_list ap;
	va_start(ap, f);
	char *s = fmt(f, ap);
	va_end(ap);
	size_t i = (size_t)(x - c->a->causes);
	c->oom |= !s;
	free(c->a->cause_str[i][which]);
	c->a->cause_str[i][which] = s;
	if (which == 0)
		x->text = s;
	else if (which == 1)
		x->remedy = s;
	else
		x->value = s;
}

/* The profile of a schema field, when the source has one. */
static const rk_field_profile *prof(const ctx *c, size_t field)
{
	if (!c->src || !c->src->profile)
		return NULL;
	const char *name = rk_schema_field_name(c->s, field);
	int f = rk__dataset_find(c->src->d, name, strlen(name));
	return f < 0 ? NULL : rk_profile_field(c->src->profile, (size_t)f);
}

static unsigned servers_holding(const rk_analysis *a)
{
	unsigned n = 0;
	for (size_t i = 0; i < a->nregions; i++) {
		size_t k = 0;
		while (k < i && a->regions[k].server != a->regions[i].server)
			k++;
		n += k == i;
	}
	return n;
}

/* ---- the key ---- */

static void not_unique(ctx *c)
{
	const rk_report *r = &c->a->rep;
	if (!r->keys_checked || r->key_distinct >= r->keys_checked)
		return;
	char d[32], n[32], lost[32], ids[200] = "";
	rk__count_text(d, sizeof d, r->key_distinct);
	rk__count_text(n, sizeof n, r->keys_checked);
	rk__count_text(lost, sizeof lost, r->keys_checked - r->key_distinct);
	rk_cause *x = add(c, "not_unique", NULL, (double)r->key_distinct, "keys", NULL);
	say(c, x, 0, "the key is not unique: %s distinct keys for %s records, so %s writes overwrite "
	             "an earlier row",
	    d, n, lost);
	const rk_profile *p = c->src ? c->src->profile : NULL;
	size_t o = 0;
	for (size_t u = 0; p && u < rk_profile_nunique(p) && u < 3 && o < sizeof ids; u++) {
		const size_t *fs;
		size_t k = rk_profile_unique(p, u, &fs);
		o += (size_t)snprintf(ids + o, sizeof ids - o, "%s", u ? " or " : "");
		for (size_t j = 0; j < k && o < sizeof ids; j++)
			o += (size_t)snprintf(ids + o, sizeof ids - o, "%s%s", j ? " + " : "",
			                      rk_profile_field(p, fs[j])->name);
	}
	if (o)
		say(c, x, 1, "put the fields that identify a record in the key (%s identifies every "
		             "record of the data)", ids);
	else
		say(c, x, 1, "add a uniquifier to the key (a sequence number or event id the writer "
		             "supplies): no field set of the data identifies a record");
}

static void long_key(ctx *c)
{
	const rk_report *r = &c->a->rep;
	if (r->key_mean < 40)
		return;
	rk_cause *x = add(c, "long_key", NULL, r->key_mean, "bytes", NULL);
	say(c, x, 0, "keys average %.0f bytes: every cell stores its row key, %.0f MB of keys per "
	             "million rows before any value",
	    r->key_mean, r->key_mean);
	say(c, x, 1, "encode numbers and times as fixed-width binary (u64(), i64(): 8 bytes), use a "
	             "1-byte bucket instead of a hex hash, leave out fields no query binds");
}

/* ---- where writes land ---- */

int rk__moments_tell(const rk_analysis *a)
{
	const rk_report *r = &a->rep;
	size_t cols = a->cols ? a->cols : 1;
	return (double)r->writes / (double)cols >= 10.0 * r->servers;
}

static int moments_tell(const ctx *c)
{
	return rk__moments_tell(c->a);
}

/* Writes concentrate: judged moment by moment (the Key Visualizer's view)
 * when the time buckets hold enough writes to tell, and over the run; a
 * spread within 1.25/N of even is even, whatever else the figures say. */
static int concentrated(const ctx *c)
{
	const rk_report *r = &c->a->rep;
	if (!r->writes || r->servers <= 1)
		return 0;
	double even = 1.25 / r->servers;
	int run = r->hottest_share > even && r->effective_servers < 0.6 * r->servers;
	if (!moments_tell(c))
		return run;
	return (r->peak_share > even &&
	        (r->peak_share >= 0.5 || r->effective_at_time < 0.6 * r->servers)) ||
	       run;
}

/* Too few writes per time bucket to judge a moment: said once, so that a
 * reader knows why no cause was drawn from the at-a-time figure. */
static void small_sample(ctx *c)
{
	const rk_report *r = &c->a->rep;
	if (!r->writes || r->servers <= 1 || moments_tell(c))
		return;
	size_t cols = c->a->cols ? c->a->cols : 1;
	double per = (double)r->writes / (double)cols;
	rk_cause *x = add(c, "small_sample", NULL, per, "writes", NULL);
	say(c, x, 0, "each time bucket holds %.1f writes on average, too few to tell a moment's "
	             "spread over %u servers from chance (10 a server are needed): the spread is "
	             "judged over the whole run",
	    per, r->servers);
	say(c, x, 1, "replay more records, or fewer time buckets (--time-buckets), to judge each "
	             "moment");
}

static const char *lead_name(const ctx *c)
{
	return c->nkf ? rk_schema_field_name(c->s, c->kf[0].field) : NULL;
}

/* The lead's share of consecutive records in which it rises or repeats,
 * in the order the run wrote them: a time that repeats (many records a
 * millisecond) sends each moment's writes to one region although the keys,
 * ordered by what follows it, do not all rise. */
static double lead_rises(const ctx *c)
{
	const rk_field_profile *p = prof(c, c->kf[0].field);
	if (!p)
		return c->a->mono;
	const rk__dataset *d = c->src->d;
	int f = rk__dataset_find(d, p->name, strlen(p->name));
	if (f >= 0 && f == d->time_field && d->clock_falls)
		return d->clock_falls; /* replayed last record first: the clock's falls are its rises */
	return p->monotonic;
}

static void rising(ctx *c)
{
	rk_analysis *a = c->a;
	if (c->spread || !c->nkf)
		return;
	double share = lead_rises(c);
	if (a->mono < 0.9 && share < 0.9)
		return;
	share = share > a->mono ? share : a->mono;
	const char *f = lead_name(c);
	rk_cause *x = add(c, "rising_lead", f, share, "share", "sequential keys");
	say(c, x, 0, "%s rises in %s of consecutive records: every write lands in the last region, "
	             "on one server at a time",
	    f, rk__share_text(share));
	say(c, x, 1, "salt the key (bucket(N, xxh3(...)) in front, N >= servers: a range read becomes "
	             "N ranges merged), hash a prefix (point reads stay one get, ranges over the "
	             "hashed fields become scans), promote a well-spread field in front (queries "
	             "must bind it), or reverse a fixed-width number (ranges over it are lost)");
}

static void low_cardinality(ctx *c)
{
	const rk_report *r = &c->a->rep;
	if (c->spread || !c->nkf)
		return;
	const rk_field_profile *p = prof(c, c->kf[0].field);
	if (!p || p->distinct >= r->servers)
		return;
	const char *f = lead_name(c);
	rk_cause *x = add(c, "low_cardinality", f, (double)p->distinct, "distinct", NULL);
	say(c, x, 0, "%s has %llu distinct value%s: at most %llu region%s take%s writes at a time, "
	             "for %u servers",
	    f, (unsigned long long)p->distinct, p->distinct == 1 ? "" : "s",
	    (unsigned long long)p->distinct, p->distinct == 1 ? "" : "s", p->distinct == 1 ? "s" : "",
	    r->servers);
	say(c, x, 1, "lead with a field of more values, or salt within %s (a bucket of a finer "
	             "field after it: reads of one %s become N ranges)",
	    f, f);
}

/* The field whose values place rows: the spread prefix's one field, or the lead. */
static int placing_field(const ctx *c)
{
	if (c->spread) {
		if (c->spread & (c->spread - 1))
			return -1; /* several hashed together: no one value decides */
		return __builtin_ctzll(c->spread);
	}
	return c->nkf ? (int)c->kf[0].field : -1;
}

static void hot_key(ctx *c)
{
	const rk_report *r = &c->a->rep;
	int f = placing_field(c);
	const rk_field_profile *p = f >= 0 ? prof(c, (size_t)f) : NULL;
	if (!p || !p->ntop || p->top[0].share < 0.1 || p->top[0].share < 2.0 / r->servers ||
	    r->peak_share < 0.8 * p->top[0].share)
		return;
	const char *name = rk_schema_field_name(c->s, (size_t)f);
	rk_cause *x = add(c, "hot_key", name, p->top[0].share, "share", "hot key range");
	say(c, x, 2, "%s", p->top[0].value);
	say(c, x, 0, "%s %s makes %s of writes: no key design spreads one key's writes while its "
	             "rows stay together",
	    name, p->top[0].value, rk__share_text(p->top[0].share));
	say(c, x, 1, "change the data model, not the prefix: split the entity's rows by time or a "
	             "sub-id, cache or batch its writes; salting within %s %s spreads it at the price "
	             "of N ranges for each of its reads",
	    name, p->top[0].value);
}

static void few_buckets(ctx *c)
{
	const rk_report *r = &c->a->rep;
	unsigned b = c->a->info.buckets;
	if (b <= 1 || b >= r->servers)
		return;
	rk_cause *x = add(c, "few_buckets", NULL, b, "buckets", NULL);
	say(c, x, 0, "%u salt buckets for %u servers: at most %u servers take writes at a time", b,
	    r->servers, b);
	say(c, x, 1, "use at least as many buckets as servers (a multiple of them); every read of a "
	             "range then merges that many ranges");
}

static void regions_and_balance(ctx *c)
{
	rk_analysis *a = c->a;
	const rk_report *r = &a->rep;
	unsigned held = servers_holding(a);
	if (r->regions_initial < r->servers && r->regions_initial <= 1) {
		rk_cause *x = add(c, "few_regions", NULL, (double)r->regions_initial, "regions", NULL);
		say(c, x, 0, "the table starts as %zu region%s (%zu at the end) for %u servers: until it "
		             "splits, %s",
		    r->regions_initial, r->regions_initial == 1 ? "" : "s", r->regions, r->servers,
		    r->regions_initial == 1 ? "one server takes every write" : "few servers take the writes");
		say(c, x, 1, "pre-split the table at the data's own key quantiles (rowkey suggest "
		             "--splits FILE, then rowkey create --splits FILE) or at its bucket boundaries");
	}
	if (r->regions > held && held < r->servers && held <= r->servers / 2 && r->regions >= 2) {
		rk_cause *x = add(c, "balancer_off", NULL, held, "servers", NULL);
		if (c->o && c->o->balance_interval <= 0)
			say(c, x, 0, "the balancer is off: %zu regions sit on %u server%s", r->regions, held,
			    held == 1 ? "" : "s");
		else
			say(c, x, 0, "%zu regions sit on %u server%s: splits keep daughters on their server "
			             "until the balancer moves them",
			    r->regions, held, held == 1 ? "" : "s");
		say(c, x, 1, "run the balancer (rowkey regions --balance; --balance-interval) and "
		             "pre-split so regions start on every server");
	}
}

/* Another day's writes gather where today's spread: the key's time comes
 * before what spreads it (service + tbucket(ts) + host on a file shorter
 * than the bucket, whose split points cut that one bucket by host), so a
 * later day's rows of each value land at one end of its range. Named when
 * the busiest server takes twice today's share and 2.5/N or more (quantile
 * split points do not fall on a hash's bucket edges, so another day of a
 * well-spread key is a little less even than the file). */
static void another_day(ctx *c)
{
	const rk_report *r = &c->a->rep;
	double today = moments_tell(c) ? r->peak_share : r->hottest_share;
	if (!c->src || !c->src->d || c->src->d->time_field < 0 || r->servers <= 1 ||
	    r->day_share < 2.5 / r->servers || r->day_share < 2 * today)
		return;
	const char *f = c->src->d->col[c->src->d->time_field].name;
	rk_cause *x = add(c, "another_day", f, r->day_share, "share", "sequential keys");
	say(c, x, 0, "another day's writes gather: the busiest server takes %s of the same writes "
	             "two days away, %s %s on the file: %s comes before the fields that spread the "
	             "writes, so each later day's rows of a value land at the end of its range, one "
	             "region",
	    rk__share_text(r->day_share), rk__share_text(today),
	    moments_tell(c) ? "of each moment's" : "over the run", f);
	say(c, x, 1, "put what spreads the writes before %s (a hash of it after the equality "
	             "fields: service + hash(host) + ts), or salt the key in front",
	    f);
}

static void write_causes(ctx *c)
{
	another_day(c); /* today's spread may be even */
	size_t before = c->a->ncauses;
	if (!concentrated(c))
		return;
	rising(c);
	low_cardinality(c);
	hot_key(c);
	few_buckets(c);
	regions_and_balance(c);
	if (c->a->ncauses == before) {
		const rk_report *r = &c->a->rep;
		if (r->hottest_share <= 1.25 / r->servers &&
		    (!moments_tell(c) || r->peak_share <= 1.25 / r->servers))
			return; /* even within 1.25/N: nothing to explain */
		rk_cause *x = add(c, "skew", NULL, r->hottest_share, "share", "hot key range");
		say(c, x, 0, "a few key ranges take most writes: the busiest server takes %s (skewed "
		             "keys)", rk__share_text(r->hottest_share));
		say(c, x, 1, "find the hot range in the heatmap; salt or hash the fields that place it");
	}
}

/* ---- what reads cost ---- */

/* The first field a shape binds that the key does not lead with. */
static const char *missing_lead(const ctx *c, const rk_query_cost *q)
{
	if (!c->src)
		return NULL;
	for (size_t s = 0; s < c->src->q.n; s++) {
		const rk__qshape *sh = &c->src->q.q[s];
		if (strcmp(sh->where, q->query))
			continue;
		for (size_t k = 0; k < sh->n; k++)
			return c->src->d->col[sh->c[k].field].name;
	}
	return NULL;
}

static void query_causes(ctx *c)
{
	const rk_report *r = &c->a->rep;
	char rd[32], rt[32];
	for (size_t q = 0; q < r->nqueries; q++) {
		const rk_query_cost *k = &r->queries[q];
		rk__count_text(rd, sizeof rd, (uint64_t)llround(k->rows_read));
		rk__count_text(rt, sizeof rt, (uint64_t)llround(k->rows_returned));
		if (!strcmp(k->kind, "scan")) {
			const char *want = missing_lead(c, k);
			rk_cause *x = add(c, !strcmp(k->plan, "full scan") ? "full_scan" : "read_amplification",
			                  want, k->rows_read_per_row, "rows_per_row", NULL);
			if (x)
				x->query = k->name;
			if (!strcmp(k->plan, "full scan"))
				say(c, x, 0, "'%s' is a full scan: %s rows read for %s returned (the key does "
				             "not lead with what it binds%s%s)",
				    k->name, rd, rt, want ? ": " : "", want ? want : "");
			else
				say(c, x, 0, "'%s' reads %.0f ranges covering %s rows for %s returned: ranges "
				             "over whole buckets are a scan",
				    k->name, k->ranges, rd, rt);
			say(c, x, 1, "a key led by the fields it binds by equality, then the one it ranges "
			             "over; or, when another query needs this key, an index table keyed for "
			             "this one (every write goes to both)");
		} else if (k->rows_read_grow) {
			rk_cause *x = add(c, "read_amplification", NULL, k->rows_read_per_row, "rows_per_row",
			                  NULL);
			if (x)
				x->query = k->name;
			say(c, x, 0, "'%s' reads %s rows for %s returned (%.0f per row), more as the table "
			             "ages: the key does not bound its time window, so the window's range "
			             "holds the older rows too and they are read and filtered out",
			    k->name, rd, rt, k->rows_read_per_row);
			say(c, x, 1, "put the time (or a time bucket) right after the fields the query binds "
			             "by equality, before the fields it leaves open");
		} else if (k->rows_read_per_row >= 10) {
			rk_cause *x = add(c, "read_amplification", NULL, k->rows_read_per_row, "rows_per_row",
			                  NULL);
			if (x)
				x->query = k->name;
			say(c, x, 0, "'%s' reads %s rows for %s returned (%.0f per row)", k->name, rd, rt,
			    k->rows_read_per_row);
			say(c, x, 1, "bind the fields between the key's start and the queried range, or "
			             "reorder the key so this query's fields lead");
		} else if (k->merge_ways > 1) {
			rk_cause *x = add(c, "fan_out", NULL, k->merge_ways, "ranges", NULL);
			if (x)
				x->query = k->name;
			say(c, x, 0, "'%s' reads %u ranges, one per salt bucket, merged to keep order",
			    k->name, k->merge_ways);
			say(c, x, 1, "bucket by a field the query binds (bucket(N, xxh3(that field)): the "
			             "bucket is computed, one range), or use fewer buckets (less spread)");
		}
	}
}

static void numbers_as_text(ctx *c)
{
	for (size_t i = 0; i < c->nkf && i < 64; i++) {
		if (!c->kf[i].as_text)
			continue;
		const char *f = rk_schema_field_name(c->s, c->kf[i].field);
		rk_cause *x = add(c, "numbers_as_text", f, 0, NULL, NULL);
		say(c, x, 0, "%s is a number written as decimal text in the key: \"10\" sorts before "
		             "\"9\", so a range over it reads rows it does not return",
		    f);
		say(c, x, 1, "encode it fixed-width: u64(%s) or i64(%s) (8 bytes, numeric order), or "
		             "dec(%s, W) zero-padded",
		    f, f, f);
	}
}

/* ---- the verdict ---- */

static void verdict(ctx *c, rk__sb *v)
{
	rk_analysis *a = c->a;
	const rk_report *r = &a->rep;
	unsigned S = r->servers;
	int tell = moments_tell(c);
	double ps = tell ? r->peak_share : r->hottest_share;
	if (r->writes == 0)
		rk__sb_printf(v, "no writes in this run");
	else if (S == 1)
		rk__sb_printf(v, "one server takes every write: the cluster has 1 server");
	else if (ps >= 0.5)
		rk__sb_printf(v, "%s of writes hit 1 of %u servers%s", rk__share_text(ps), S,
		              r->hottest_share < ps - 0.05 ? " at a time" : "");
	else if (r->effective_servers < 0.6 * S)
		rk__sb_printf(v, "writes use %.1f of %u servers effectively (hottest %s)",
		              r->effective_servers, S, rk__share_text(r->hottest_share));
	else if (tell && r->effective_at_time < 0.6 * S)
		rk__sb_printf(v, "writes use %.1f of %u servers at a time (the busiest takes %s of each "
		                 "moment's writes)",
		              r->effective_at_time, S, rk__share_text(ps));
	else
		rk__sb_printf(v, "writes spread over %u servers (hottest %s, %.1f effective)", S,
		              rk__share_text(r->hottest_share), r->effective_servers);
	/* the first write cause, the costliest read cause; a lost-rows cause always */
	const rk_cause *worst = NULL;
	int said_write = 0;
	for (size_t i = 0; i < a->ncauses; i++) {
		const rk_cause *x = &a->causes[i];
		if (x->query) {
			if (!worst || x->number > worst->number)
				worst = x;
			continue;
		}
		int lost = !strcmp(x->kind, "not_unique");
		if (lost || (!said_write && strcmp(x->kind, "long_key") && strcmp(x->kind, "numbers_as_text"))) {
			rk__sb_printf(v, "%s%s", lost ? "; LOSES ROWS: " : "; ", x->text);
			said_write |= !lost;
		}
	}
	if (worst)
		rk__sb_printf(v, "; %s", worst->text);
}

int rk__causes(rk_analysis *a, const rk_schema *schema, const rk__source *src,
               const rk_analyze_options *o)
{
	ctx c = {a, schema, src, o, {{0}}, 0, 0, 0};
	for (size_t i = 0; i < a->ncauses; i++)
		for (int k = 0; k < 4; k++) {
			free(a->cause_str[i][k]);
			a->cause_str[i][k] = NULL;
		}
	a->ncauses = 0;
	if (schema) {
		c.nkf = rk_schema_key_fields(schema, c.kf, 64);
		c.nkf = c.nkf > 64 ? 64 : c.nkf;
		c.spread = rk_schema_spread_fields(schema);
	}
	not_unique(&c);
	if (schema)
		write_causes(&c);
	small_sample(&c);
	query_causes(&c);
	if (schema)
		numbers_as_text(&c);
	long_key(&c);
	rk__sb v = {0};
	verdict(&c, &v);
	free(a->verdict);
	a->verdict = NULL;
	if (c.oom || rk__sb_done(&a->verdict, &v))
		return rk__err(RK_ENOMEM, "out of memory writing the verdict");
	a->rep.verdict = a->verdict;
	a->rep.causes = a->causes;
	a->rep.ncauses = a->ncauses;
	return 0;
}
