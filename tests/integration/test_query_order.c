/*
 * Property test of query order: for random key designs (a salt, a bucket or
 * a hash prefix in front, hashes between fields, ascending and descending
 * integers and escaped strings, reverse timestamps, reversed strings), random
 * rows and random predicates (=, IN lists, ranges, prefixes and their
 * mixes), every query returns exactly the rows a brute-force model selects,
 * in the model's order: the schema's value parts compared in template order
 * (each as its encoding orders it: descending parts and reverse timestamps
 * backwards, reversed strings by their reversal), ties by the whole key;
 * forward, reverse and with a limit; and with ORDER BY a random field and
 * LIMIT, by that field's value first (ties in the model's order, backwards
 * when the plan reads backwards). The model never looks at the key's
 * bytes except for ties. RK_TEST_LABEL_CONCURRENCY: streams run in threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <rowkey/query.h>

#include "integration/store_test_util.h"

#define NSCHEMAS 48
#define NPRED 25
#define MAXROWS 160
#define MAXF 4

static uint64_t rs = 0x243f6a8885a308d3ULL;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}
static int pick(int n)
{
	return (int)(rnd() % (uint64_t)n);
}

/* ---- random designs ---- */

typedef enum { T_U = 1, T_I, T_S } ftype;
typedef enum {
	P_U32 = 1, P_I64, P_ESC, P_RTS, P_REV, /* value parts */
	P_LIT, P_BUCKET, P_RANDOM, P_RR, P_HEXPFX, P_MIDHASH /* the rest */
} pkind;

typedef struct {
	pkind kind;
	int field, desc;
} pspec;

typedef struct {
	int nf;
	ftype type[MAXF];
	pspec parts[16];
	int np;
	char text[1024];
} design;

static const char *strs[] = {"", "a", "ab", "abc", "b", "b\x01", "ba", "bb", "c"};
#define NSTRS 9

typedef struct {
	uint64_t u[MAXF];
	int64_t i[MAXF];
	const char *s[MAXF];
	uint8_t key[256];
	size_t klen;
} row;

static void cat(char *b, size_t cap, const char *fmt, ...)
{
	size_t n = strlen(b);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b + n, cap - n, fmt, ap);
	va_end(ap);
}

/* A value part for field f, as its type allows. */
static pspec value_part(const design *d, int f)
{
	pspec p = {0, f, pick(3) == 0};
	switch (d->type[f]) {
	case T_U: p.kind = pick(3) == 0 ? P_RTS : P_U32; break;
	case T_I: p.kind = P_I64; break;
	default: p.kind = pick(3) == 0 ? P_REV : P_ESC; break;
	}
	if (p.kind == P_RTS || p.kind == P_REV)
		p.desc = 0;
	return p;
}

static void render(design *d)
{
	char *t = d->text;
	size_t cap = sizeof d->text;
	t[0] = 0;
	cat(t, cap, "fields");
	for (int f = 0; f < d->nf; f++)
		cat(t, cap, "%s f%d:%s", f ? "," : "", f, d->type[f] == T_U ? "u32" : d->type[f] == T_I ? "i64" : "str");
	cat(t, cap, "; key");
	for (int k = 0; k < d->np; k++) {
		const pspec *p = &d->parts[k];
		const char *desc = p->desc ? ":desc" : "";
		switch (p->kind) {
		case P_U32: cat(t, cap, " u32(f%d)%s", p->field, desc); break;
		case P_I64: cat(t, cap, " i64(f%d)%s", p->field, desc); break;
		case P_ESC: cat(t, cap, " esc(f%d)%s", p->field, desc); break;
		case P_RTS: cat(t, cap, " u64(rts(f%d))", p->field); break;
		case P_REV: cat(t, cap, " esc(reverse(f%d))", p->field); break;
		case P_LIT: cat(t, cap, " \":\""); break;
		case P_BUCKET: cat(t, cap, " bucket(4, xxh3(f%d))", p->field); break;
		case P_RANDOM: cat(t, cap, " random(3)"); break;
		case P_RR: cat(t, cap, " roundrobin(3)"); break;
		case P_HEXPFX: cat(t, cap, " hex(md5(f%d))[0:1]", p->field); break;
		case P_MIDHASH: cat(t, cap, " md5(f%d)[0:1]", p->field); break;
		}
	}
}

static void random_design(design *d)
{
	memset(d, 0, sizeof *d);
	d->nf = 2 + pick(MAXF - 1);
	for (int f = 0; f < d->nf; f++)
		d->type[f] = (ftype)(1 + pick(3));
	int order[MAXF];
	for (int f = 0; f < d->nf; f++)
		order[f] = f;
	for (int f = d->nf - 1; f > 0; f--) {
		int j = pick(f + 1), x = order[f];
		order[f] = order[j];
		order[j] = x;
	}
	switch (pick(6)) { /* what places rows, in front */
	case 0: d->parts[d->np++] = (pspec){P_BUCKET, pick(d->nf), 0}; break;
	case 1: d->parts[d->np++] = (pspec){P_RANDOM, 0, 0}; break;
	case 2: d->parts[d->np++] = (pspec){P_RR, 0, 0}; break;
	case 3: d->parts[d->np++] = (pspec){P_HEXPFX, pick(d->nf), 0}; break;
	default: break;
	}
	for (int k = 0; k < d->nf; k++) {
		d->parts[d->np++] = value_part(d, order[k]);
		if (k + 1 < d->nf && pick(4) == 0)
			d->parts[d->np++] = (pspec){pick(2) ? P_LIT : P_MIDHASH, pick(d->nf), 0};
	}
	render(d);
}

/* ---- rows and the model's order ---- */

static void random_row(const design *d, row *r)
{
	for (int f = 0; f < d->nf; f++) {
		r->u[f] = (uint64_t)pick(12);
		r->i[f] = (int64_t)pick(13) - 6;
		r->s[f] = strs[pick(NSTRS)];
	}
}

static int cmp_bytes(const void *a, size_t al, const void *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? (c < 0 ? -1 : 1) : (al > bl) - (al < bl);
}

static int cmp_reversed(const char *a, const char *b)
{
	char ra[16], rb[16];
	size_t al = strlen(a), bl = strlen(b);
	for (size_t k = 0; k < al; k++)
		ra[k] = a[al - 1 - k];
	for (size_t k = 0; k < bl; k++)
		rb[k] = b[bl - 1 - k];
	return cmp_bytes(ra, al, rb, bl);
}

static const design *g_design;
static int g_reverse;

/* The model: value parts in template order, each as its encoding orders. */
static int model_cmp(const void *x, const void *y)
{
	const row *a = x, *b = y;
	int c = 0;
	for (int k = 0; k < g_design->np && !c; k++) {
		const pspec *p = &g_design->parts[k];
		int f = p->field;
		switch (p->kind) {
		case P_U32: c = (a->u[f] > b->u[f]) - (a->u[f] < b->u[f]); break;
		case P_RTS: c = (a->u[f] < b->u[f]) - (a->u[f] > b->u[f]); break;
		case P_I64: c = (a->i[f] > b->i[f]) - (a->i[f] < b->i[f]); break;
		case P_ESC: c = cmp_bytes(a->s[f], strlen(a->s[f]), b->s[f], strlen(b->s[f])); break;
		case P_REV: c = cmp_reversed(a->s[f], b->s[f]); break;
		default: continue; /* literals are equal; the rest only places rows */
		}
		if (p->desc)
			c = -c;
	}
	if (!c)
		c = cmp_bytes(a->key, a->klen, b->key, b->klen);
	return g_reverse ? -c : c;
}

/* ORDER BY g_ofield (-1: none) first, DESC when g_odesc; then the model. */
static int g_ofield, g_odesc;
static int order_cmp(const void *x, const void *y)
{
	const row *a = x, *b = y;
	int f = g_ofield, c = 0;
	if (f >= 0) {
		switch (g_design->type[f]) {
		case T_U: c = (a->u[f] > b->u[f]) - (a->u[f] < b->u[f]); break;
		case T_I: c = (a->i[f] > b->i[f]) - (a->i[f] < b->i[f]); break;
		default: c = cmp_bytes(a->s[f], strlen(a->s[f]), b->s[f], strlen(b->s[f])); break;
		}
	}
	return c ? (g_odesc ? -c : c) : model_cmp(x, y);
}

/* ---- random predicates, and the model's filter ---- */

typedef enum { O_EQ = 1, O_IN, O_LT, O_LE, O_GT, O_GE, O_BETWEEN, O_PREFIX } op;

typedef struct {
	int field;
	op o;
	int nv;
	uint64_t u[3];
	int64_t i[3];
	const char *s[3];
} cond;

static int value_cmp(const design *d, const row *r, const cond *c, int k)
{
	int f = c->field;
	switch (d->type[f]) {
	case T_U: return (r->u[f] > c->u[k]) - (r->u[f] < c->u[k]);
	case T_I: return (r->i[f] > c->i[k]) - (r->i[f] < c->i[k]);
	default: return cmp_bytes(r->s[f], strlen(r->s[f]), c->s[k], strlen(c->s[k]));
	}
}

static int matches(const design *d, const row *r, const cond *cs, int nc)
{
	for (int j = 0; j < nc; j++) {
		const cond *c = &cs[j];
		int ok = 0;
		switch (c->o) {
		case O_EQ: ok = value_cmp(d, r, c, 0) == 0; break;
		case O_IN:
			for (int k = 0; k < c->nv; k++)
				ok |= value_cmp(d, r, c, k) == 0;
			break;
		case O_LT: ok = value_cmp(d, r, c, 0) < 0; break;
		case O_LE: ok = value_cmp(d, r, c, 0) <= 0; break;
		case O_GT: ok = value_cmp(d, r, c, 0) > 0; break;
		case O_GE: ok = value_cmp(d, r, c, 0) >= 0; break;
		case O_BETWEEN: ok = value_cmp(d, r, c, 0) >= 0 && value_cmp(d, r, c, 1) <= 0; break;
		case O_PREFIX: ok = !strncmp(r->s[c->field], c->s[0], strlen(c->s[0])); break;
		}
		if (!ok)
			return 0;
	}
	return 1;
}

static void cond_value(const design *d, cond *c, int k, char *w, size_t cap)
{
	switch (d->type[c->field]) {
	case T_U: c->u[k] = (uint64_t)pick(13); cat(w, cap, "%llu", (unsigned long long)c->u[k]); break;
	case T_I: c->i[k] = (int64_t)pick(15) - 7; cat(w, cap, "%lld", (long long)c->i[k]); break;
	default: c->s[k] = strs[pick(NSTRS)]; cat(w, cap, "'%s'", c->s[k]); break;
	}
}

static int random_pred(const design *d, cond *cs, char *w, size_t cap)
{
	int nc = 0;
	w[0] = 0;
	for (int f = 0; f < d->nf; f++) {
		if (pick(5) < 2)
			continue;
		cond *c = &cs[nc];
		memset(c, 0, sizeof *c);
		c->field = f;
		c->o = (op)(1 + pick(d->type[f] == T_S ? 8 : 7));
		static const char *ops[] = {"", "=", "IN", "<", "<=", ">", ">=", "BETWEEN", "PREFIX"};
		cat(w, cap, "%sf%d %s ", nc ? " AND " : "", f, ops[c->o]);
		if (c->o == O_IN) {
			c->nv = 1 + pick(3);
			cat(w, cap, "(");
			for (int k = 0; k < c->nv; k++) {
				cat(w, cap, k ? ", " : "");
				cond_value(d, c, k, w, cap);
			}
			cat(w, cap, ")");
		} else if (c->o == O_BETWEEN) {
			c->nv = 2;
			cond_value(d, c, 0, w, cap);
			cat(w, cap, " AND ");
			cond_value(d, c, 1, w, cap);
		} else {
			c->nv = 1;
			cond_value(d, c, 0, w, cap);
		}
		nc++;
	}
	return nc;
}

/* ---- the test ---- */

static rk_store *store;
static char *dir;
static uint64_t cases, skipped, sorted_cases, merged_cases, order_cases[4];

/* Loads the rows of one design into table tN; returns how many distinct keys. */
static size_t load(rk_table *t, rk_schema *s, const design *d, row *rows)
{
	rk_encoder *e;
	ST_OK(rk_encoder_new(&e, s, 1 + rnd() % 1000));
	size_t n = 0, want = 20 + (size_t)pick(MAXROWS - 20);
	rk_mutation m;
	for (size_t j = 0; j < want; j++) {
		row r;
		random_row(d, &r);
		rk_value v[MAXF];
		for (int f = 0; f < d->nf; f++) {
			v[f].present = 1;
			if (d->type[f] == T_U)
				v[f].v.u = r.u[f];
			else if (d->type[f] == T_I)
				v[f].v.i = r.i[f];
			else
				v[f].v.s.ptr = (const uint8_t *)r.s[f], v[f].v.s.len = strlen(r.s[f]);
		}
		ST_OK(rk_key_encode(r.key, sizeof r.key, &r.klen, e, v));
		int dup = 0;
		for (size_t k = 0; k < n && !dup; k++)
			dup = rows[k].klen == r.klen && !memcmp(rows[k].key, r.key, r.klen);
		if (dup)
			continue;
		rows[n] = r;
		m = (rk_mutation){RK_MUT_PUT, rows[n].key, r.klen, "d", (const uint8_t *)"v", 1, 1, (const uint8_t *)"x", 1, 0};
		ST_OK(rk_table_apply(t, &m, 1, NULL));
		n++;
	}
	rk_encoder_free(e);
	return n;
}

/* Runs one query and compares it with the model; returns 0, or 1 when the
 * predicate was refused (an impossible mix of conditions). ofield >= 0:
 * with ORDER BY that field (DESC when odesc) and, when plimit, LIMIT plimit. */
static int check(rk_table *t, rk_schema *s, const design *d, row *rows, size_t n, const char *where,
                 const cond *cs, int nc, int reverse, uint64_t limit, int ofield, int odesc, uint64_t plimit)
{
	rk_predicate *p;
	rk_plan *plan;
	char w[640];
	snprintf(w, sizeof w, "%s", where);
	if (ofield >= 0)
		cat(w, sizeof w, " ORDER BY f%d %s", ofield, odesc ? "DESC" : "ASC");
	if (plimit)
		cat(w, sizeof w, " LIMIT %llu", (unsigned long long)plimit);
	if (rk_predicate_parse(&p, s, w, strlen(w)) < 0)
		return 1;
	if (rk_plan_build(&plan, s, p) < 0) {
		rk_predicate_free(p);
		return 1;
	}
	rk_schema_info info;
	rk_schema_get_info(&info, s);
	if (ofield >= 0 && !(info.decodable_mask >> ofield & 1)) { /* nothing to sort by: refused at open */
		rk_query *q = NULL;
		assert_int_equal(rk_query_open(&q, t, s, plan, p, NULL), plan->order_by == RK_ORDER_SORT ? RK_EINVALID : 0);
		rk_query_close(q);
		rk_plan_free(plan);
		rk_predicate_free(p);
		return 1;
	}
	row *want = malloc(n * sizeof *want);
	size_t nw = 0;
	for (size_t k = 0; k < n; k++)
		if (matches(d, &rows[k], cs, nc))
			want[nw++] = rows[k];
	g_design = d;
	g_reverse = ofield >= 0 ? plan->order_by == RK_ORDER_REVERSE : reverse;
	g_ofield = ofield;
	g_odesc = odesc;
	qsort(want, nw, sizeof *want, order_cmp);
	if (plimit && (!limit || plimit < limit))
		limit = plimit;
	if (limit && nw > limit)
		nw = limit;
	rk_query *q;
	rk_query_options o = RK_QUERY_OPTIONS_INIT;
	o.reverse = reverse;
	o.limit = limit;
	ST_OK(rk_query_open(&q, t, s, plan, p, &o));
	rk_query_row qr;
	size_t got = 0;
	int rc;
	while ((rc = rk_query_next(&qr, q)) == 0) {
		if (got >= nw || qr.row->key_len != want[got].klen ||
		    memcmp(qr.row->key, want[got].key, want[got].klen))
			fail_msg("design: %s\nwhere: %s (reverse %d, limit %llu)\nplan: %s\nrow %zu differs from the "
			         "model's (%zu rows wanted)",
			         d->text, w, reverse, (unsigned long long)limit, plan->explain, got, nw);
		got++;
	}
	assert_int_equal(rc, RK_EITEROVER);
	if (got != nw)
		fail_msg("design: %s\nwhere: %s (reverse %d, limit %llu)\nplan: %s\n%zu rows, the model has %zu",
		         d->text, w, reverse, (unsigned long long)limit, plan->explain, got, nw);
	cases++;
	order_cases[plan->order_by]++;
	sorted_cases += plan->kind != RK_PLAN_GETS && !plan->ordered;
	merged_cases += plan->merge;
	rk_query_close(q);
	rk_plan_free(plan);
	rk_predicate_free(p);
	free(want);
	return 0;
}

static void test_query_order(void **state)
{
	(void)state;
	row *rows = malloc(MAXROWS * sizeof *rows);
	for (int i = 0; i < NSCHEMAS; i++) {
		design d;
		rk_schema *s;
		random_design(&d);
		if (rk_schema_parse(&s, d.text, strlen(d.text), NULL) < 0)
			fail_msg("design %s: %s", d.text, rk_error_last());
		char name[16];
		snprintf(name, sizeof name, "t%d", i);
		rk_family_def fam = {"d", 1, NULL};
		rk_table_def def = {name, &fam, 1, NULL, 0, 0};
		ST_OK(rk_table_create(store, &def));
		rk_table *t;
		ST_OK(rk_table_open(&t, store, name));
		size_t n = load(t, s, &d, rows);
		/* a region split inside the data, so scans cross regions */
		rk_region_info *ri;
		size_t nr;
		ST_OK(rk_store_regions(&ri, &nr, store, name));
		if (n > 10)
			ST_OK(rk_region_split(store, ri[0].id, rows[n / 2].key, rows[n / 2].klen));
		rk_region_info_free(ri, nr);
		for (int j = 0; j < NPRED; j++) {
			char w[512];
			cond cs[MAXF];
			int nc = random_pred(&d, cs, w, sizeof w);
			skipped += check(t, s, &d, rows, n, w, cs, nc, 0, 0, -1, 0, 0);
			check(t, s, &d, rows, n, w, cs, nc, 1, 0, -1, 0, 0);
			check(t, s, &d, rows, n, w, cs, nc, (int)(rnd() & 1), 1 + rnd() % 8, -1, 0, 0);
			check(t, s, &d, rows, n, w, cs, nc, (int)(rnd() & 1), rnd() % 3 ? 0 : 1 + rnd() % 8, pick(d.nf),
			      (int)(rnd() & 1), rnd() % 3 ? 1 + rnd() % 8 : 0);
		}
		rk_table_close(t);
		rk_schema_free(s);
	}
	free(rows);
	fprintf(stderr, "%llu query cases (%llu sorted, %llu merged), %llu predicates refused\n",
	        (unsigned long long)cases, (unsigned long long)sorted_cases,
	        (unsigned long long)merged_cases, (unsigned long long)skipped);
	assert_true(cases >= 3000);
	assert_true(sorted_cases > 100 && merged_cases > 100);
	fprintf(stderr, "ORDER BY: %llu from the key, %llu read backwards, %llu sorted\n",
	        (unsigned long long)order_cases[RK_ORDER_KEY], (unsigned long long)order_cases[RK_ORDER_REVERSE],
	        (unsigned long long)order_cases[RK_ORDER_SORT]);
	assert_true(order_cases[RK_ORDER_KEY] > 20 && order_cases[RK_ORDER_REVERSE] > 20 && order_cases[RK_ORDER_SORT] > 20);
}

static int setup(void **state)
{
	(void)state;
	dir = st_tmpdir("qorder");
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	o.n_servers = 2;
	o.background_splits = 0;
	return rk_store_open(&store, dir, &o);
}

static int teardown(void **state)
{
	(void)state;
	rk_store_close(store);
	st_rmtree(dir);
	free(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_order),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
