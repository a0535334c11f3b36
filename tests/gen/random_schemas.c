/*
 * Random key designs for the generated encoders' tests (tests/gen/run.sh):
 * prints N schemas the library accepts, one canonical text a line, drawn to
 * cover every part of the language: each field type, each encoding
 * ascending and descending where allowed, each value expression, hash,
 * hex case, slice, bucket form, salt and the Phoenix salt. After drawing it
 * walks the parsed schemas and exits 1 naming what none of them holds, so a
 * drawing that stops covering something fails the test instead of passing
 * silently.
 *
 * usage: gen_random_schemas N SEED
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

#include "key/schema_int.h"

static uint64_t rs;
static uint64_t rnd(uint64_t n)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return n ? rs % n : 0;
}

static const char *const tnames[] = {"", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f64", "str", "bytes"};

typedef struct {
	char *p;
	size_t len, cap;
} buf;

static void put(buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	b->len += (size_t)vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (b->len >= b->cap)
		b->len = b->cap - 1;
}

typedef struct {
	int n;
	rk_type t[8];
} fields;

static int pick_field(const fields *f, int want) /* want: 0 any, 1 integer, 2 signed, 3 string, 4 f64 */
{
	for (int tries = 0; tries < 20; tries++) {
		int i = (int)rnd((uint64_t)f->n);
		rk_type t = f->t[i];
		int ok = want == 0 || (want == 1 && t <= RK_T_I64) || (want == 2 && t >= RK_T_I8 && t <= RK_T_I64) ||
		         (want == 3 && t >= RK_T_STR) || (want == 4 && t == RK_T_F64);
		if (ok)
			return i;
	}
	return -1;
}

static void literal(buf *b)
{
	static const char *const lits[] = {"\":\"", "\"|\"", "\"#\"", "\"::\"", "\"\\x00\"", "\"\\xff\"", "\"-\"", "\".\"",
	                                   "\"a\"", "\"\\\\\"", "\"\\\"\"", "\"k\\x01\""};
	put(b, "%s", lits[rnd(sizeof lits / sizeof lits[0])]);
}

/* A value part of field i (its name is f<i>); returns 1 when it needs a
 * separator after it (text of variable width). */
static int value(buf *b, const fields *f, int top)
{
	int i;
	uint64_t k = rnd(24);
	const char *desc = top && rnd(4) == 0 ? ":desc" : "";
	if (k < 3 && (i = pick_field(f, 1)) >= 0) {
		static const char *const e[] = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64"};
		put(b, "%s(f%d)%s", e[rnd(8)], i, desc);
	} else if (k < 4 && (i = pick_field(f, 4)) >= 0) {
		put(b, "f64(f%d)%s", i, desc);
	} else if (k < 5 && (i = pick_field(f, 1)) >= 0) {
		put(b, "dec(f%d, %d)%s", i, 1 + (int)rnd(20), desc);
	} else if (k < 7 && (i = pick_field(f, 3)) >= 0) {
		put(b, "esc(f%d)%s", i, desc);
	} else if (k < 9 && (i = pick_field(f, 0)) >= 0 && f->t[i] != RK_T_F64) {
		put(b, "ordered(f%d)%s", i, desc);
	} else if (k < 10 && (i = pick_field(f, 2)) >= 0) {
		put(b, "ob(f%d)%s", i, desc);
	} else if (k < 11 && (i = pick_field(f, 4)) >= 0) {
		put(b, "ob(f%d)%s", i, desc);
	} else if (k < 13 && (i = pick_field(f, 0)) >= 0 && f->t[i] != RK_T_F64) {
		put(b, "phoenix(f%d)%s", i, desc);
	} else if (k < 14 && (i = pick_field(f, 1)) >= 0) {
		static const char *const e[] = {"u64", "i64", "dec", "ordered", "text"};
		const char *enc = e[rnd(5)];
		const char *max = rnd(2) ? "" : rnd(2) ? ", 18446744073709551615" : ", 99999999999";
		if (!strcmp(enc, "dec"))
			put(b, "dec(rts(f%d%s), 20)%s", i, max, desc);
		else if (!strcmp(enc, "text"))
			put(b, "rts(f%d%s)", i, max);
		else
			put(b, "%s(rts(f%d%s))%s", enc, i, max, desc);
		return enc[0] == 't';
	} else if (k < 15 && (i = pick_field(f, 1)) >= 0) {
		static const char *const w[] = {"1", "10", "3600", "86400000", "9223372036854775807"};
		static const char *const e[] = {"i64", "ordered", "text", "u64", "phoenix"};
		const char *enc = e[rnd(5)];
		if (!strcmp(enc, "text"))
			put(b, "tbucket(f%d, %s)", i, w[rnd(5)]);
		else
			put(b, "%s(tbucket(f%d, %s))%s", enc, i, w[rnd(5)], desc);
		return enc[0] == 't';
	} else if (k < 17 && (i = pick_field(f, 3)) >= 0) {
		static const char *const fn[] = {"reverse", "reverse_labels"};
		static const char *const e[] = {"esc", "text", "ordered", "phoenix"};
		const char *enc = e[rnd(4)], *fname = fn[rnd(2)];
		if (!strcmp(enc, "text"))
			put(b, "%s(f%d)", fname, i);
		else
			put(b, "%s(%s(f%d))%s", enc, fname, i, desc);
		return enc[0] == 't';
	} else if (k < 18 && (i = pick_field(f, 1)) >= 0) {
		put(b, "reverse_num(f%d, %d)", i, 1 + (int)rnd(20));
	} else if ((i = pick_field(f, 0)) >= 0) {
		put(b, rnd(4) ? "f%d" : "text(f%d)", i);
		return 1;
	}
	return 0;
}

/* A hash's or hex's input: one to three parts, a field in text form mostly. */
static void sub(buf *b, const fields *f, int depth)
{
	int n = 1 + (int)rnd(3);
	for (int k = 0; k < n; k++) {
		if (k)
			put(b, rnd(2) ? ", " : " ");
		uint64_t c = rnd(10);
		if (c == 0)
			literal(b);
		else if (c == 1 && depth < 3)
			put(b, "md5(f%d)", (int)rnd((uint64_t)f->n));
		else
			value(b, f, 0);
	}
}

static void hashpart(buf *b, const fields *f, int depth)
{
	static const char *const h[] = {"md5", "sha1", "sha256", "xxh3", "murmur3", "phoenix31"};
	put(b, "%s(", h[rnd(6)]);
	sub(b, f, depth + 1);
	put(b, ")");
}

static void prefix(buf *b, const fields *f)
{
	uint64_t k = rnd(5);
	if (k == 0) {
		put(b, rnd(2) ? "hex(" : "HEX(");
		hashpart(b, f, 1);
		put(b, ")");
	} else {
		hashpart(b, f, 0);
	}
	if (rnd(2)) {
		static const char *const sl[] = {"[0:2]", "[1:3]", "[-2:]", "[:1]", "[0:6]"};
		put(b, "%s", sl[rnd(5)]);
	}
	put(b, " ");
}

static void spread(buf *b, const fields *f)
{
	static const int ns[] = {1, 2, 3, 8, 10, 16, 100, 256};
	int n = ns[rnd(8)];
	const char *form = "";
	char alpha[80];
	uint64_t fk = rnd(4);
	if (fk == 1 || n > 256)
		form = ", dec";
	else if (fk == 2 && n <= 16) {
		/* an alphabet in any order, with a quote, a backslash or a control byte now and then */
		static const char *const letters[] = {"z", "a", "\\\"", "\\\\", "\\x00", "\\x01", "q", "\\xfe", "7", "M",
		                                      "b", "c", "d", "e", "f", "g", "h"};
		int o = snprintf(alpha, sizeof alpha, ", \"");
		for (int i = 0; i < n; i++)
			o += snprintf(alpha + o, sizeof alpha - (size_t)o, "%s", letters[i]);
		snprintf(alpha + o, sizeof alpha - (size_t)o, "\"");
		form = alpha;
	} else if (fk == 3)
		form = ", bin";
	if (n > 256 || (!strcmp(form, ", bin") && n > 256))
		form = ", dec";
	switch (rnd(4)) {
	case 0:
		put(b, "bucket(%d, ", n);
		hashpart(b, f, 0);
		put(b, "%s) ", form);
		break;
	case 1: put(b, "random(%d%s) ", n, form); break;
	case 2: put(b, "roundrobin(%d%s) ", n, form); break;
	default: put(b, "phoenix_salt(%d) ", n); break;
	}
}

/* An order-preserving design: ascending encodings that sort like their
 * values, nothing in front, raw text only at the end. */
static void draw_ordered(buf *b, const fields *f)
{
	static const char *const ints[] = {"u64", "i64", "ordered", "phoenix", "dec"};
	int n = 1 + (int)rnd(4);
	for (int k = 0; k < n; k++) {
		int i = (int)rnd((uint64_t)f->n);
		rk_type t = f->t[i];
		const char *e;
		if (t == RK_T_F64)
			e = rnd(2) ? "f64" : "ob";
		else if (t == RK_T_STR || t == RK_T_BYTES)
			e = k + 1 == n && rnd(2) ? "text" : rnd(2) ? "esc" : rnd(2) ? "ordered" : "phoenix";
		else if (rk_type__is_signed(t))
			e = rnd(3) == 0 ? "ob" : rnd(2) ? "i64" : ints[2 + rnd(2)];
		else
			e = ints[rnd(5)];
		if (!strcmp(e, "dec"))
			put(b, "dec(f%d, 20) ", i);
		else if (!strcmp(e, "text"))
			put(b, "f%d", i);
		else
			put(b, "%s(f%d) ", e, i);
	}
}

static void draw(buf *b)
{
	fields f = {.n = 1 + (int)rnd(5)};
	b->len = 0;
	put(b, "fields ");
	for (int i = 0; i < f.n; i++) {
		f.t[i] = (rk_type)(1 + rnd(11));
		put(b, "%sf%d:%s", i ? ", " : "", i, tnames[f.t[i]]);
	}
	if (rnd(6) == 0)
		put(b, "; option max_key_len=%d", 40 + (int)rnd(80));
	put(b, "; key ");
	if (rnd(4) == 0) {
		draw_ordered(b, &f);
		return;
	}
	if (rnd(8) == 0)
		literal(b), put(b, " ");
	if (rnd(3) == 0)
		spread(b, &f);
	if (rnd(5) == 0)
		prefix(b, &f);
	int n = 1 + (int)rnd(4);
	for (int k = 0; k < n; k++) {
		if (value(b, &f, 1) && (k + 1 < n || rnd(2))) {
			put(b, " ");
			literal(b);
		}
		put(b, " ");
		if (rnd(6) == 0) {
			literal(b);
			put(b, " ");
		}
	}
	if (rnd(6) == 0 && (n = pick_field(&f, 3)) >= 0)
		put(b, "bytes(f%d)", n);
}

/* ---- coverage ---- */

static int seen_kind[9], seen_enc[11][2], seen_vop[7], seen_alg[7], seen_form[2][4], seen_salt[3], seen_type[12],
	seen_hex[2];

static long ordered_designs;

static void walk(const rk_schema *s, const rk_part *parts, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const rk_part *p = &parts[k];
		seen_kind[p->kind] = 1;
		if (p->kind == P_VAL) {
			seen_enc[p->enc][p->desc] = 1;
			seen_vop[p->vop] = 1;
			seen_type[s->ftype[p->field]] = 1;
		}
		if (p->kind == P_HASH)
			seen_alg[p->alg] = 1;
		if (p->kind == P_HEX)
			seen_hex[p->upper] = 1;
		if (p->kind == P_BUCKET || p->kind == P_SALT)
			seen_form[p->kind == P_SALT][p->form] = 1;
		if (p->kind == P_SALT)
			seen_salt[p->salt] = 1;
		walk(s, p->sub, p->nsub);
	}
}

static int missing(const char *what, int seen)
{
	if (!seen)
		fprintf(stderr, "gen_random_schemas: no schema has %s\n", what);
	return !seen;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: gen_random_schemas N SEED\n");
		return 2;
	}
	long want = atol(argv[1]);
	rs = strtoull(argv[2], NULL, 10) * 0x9e3779b97f4a7c15ULL + 1;
	char text[4096];
	buf b = {text, 0, sizeof text};
	long got = 0, tries = 0;
	while (got < want && tries < want * 200) {
		tries++;
		draw(&b);
		rk_schema *s = NULL;
		char *canon = NULL;
		if (rk_schema_parse(&s, b.p, b.len, NULL) < 0)
			continue;
		if (rk_schema_text(&canon, s) == 0) {
			printf("%s\n", canon);
			walk(s, s->parts, s->nparts);
			ordered_designs += s->info.order_preserving;
			got++;
		}
		free(canon);
		rk_schema_free(s);
	}
	static const char *const kinds[] = {"", "a literal", "a value", "a hash", "hex", "a slice", "a bucket", "a salt",
	                                    "a Phoenix salt"};
	static const char *const encs[] = {"", "text", "u*", "i*", "f64", "dec", "esc", "bytes", "ordered", "ob", "phoenix"};
	static const char *const vops[] = {"", "a plain field", "rts", "tbucket", "reverse", "reverse_labels", "reverse_num"};
	static const char *const algs[] = {"", "md5", "sha1", "sha256", "xxh3", "murmur3", "phoenix31"};
	int bad = got < want;
	char what[64];
	for (int i = 1; i <= 8; i++)
		bad |= missing(kinds[i], seen_kind[i]);
	for (int i = 1; i <= 10; i++) {
		bad |= missing(encs[i], seen_enc[i][0]);
		snprintf(what, sizeof what, "%s:desc", encs[i]);
		if (i != 1 && i != 7)
			bad |= missing(what, seen_enc[i][1]);
	}
	for (int i = 1; i <= 6; i++)
		bad |= missing(vops[i], seen_vop[i]) | missing(algs[i], seen_alg[i]);
	for (int i = 1; i <= 11; i++) {
		snprintf(what, sizeof what, "a %s field in its key", tnames[i]);
		bad |= missing(what, seen_type[i]);
	}
	for (int i = 1; i <= 3; i++) {
		snprintf(what, sizeof what, "bucket form %d on a bucket", i);
		bad |= missing(what, seen_form[0][i]);
		snprintf(what, sizeof what, "bucket form %d on a salt", i);
		bad |= missing(what, seen_form[1][i]);
	}
	bad |= missing("a random salt", seen_salt[SALT_RANDOM]) | missing("a round-robin salt", seen_salt[SALT_ROUNDROBIN]);
	bad |= missing("hex()", seen_hex[0]) | missing("HEX()", seen_hex[1]);
	bad |= missing("an order-preserving key (a tenth of them)", ordered_designs * 10 >= got);
	if (got < want)
		fprintf(stderr, "gen_random_schemas: %ld of %ld schemas after %ld draws\n", got, want, tries);
	return bad;
}
