/*
 * Known-answer tests for every key technique: tests/vectors/keys.tsv and
 * tests/vectors/errors.tsv, made by tests/vectors/gen_vectors.py, an
 * independent Python model of the byte layouts (it never runs rowkey).
 *
 * keys.tsv:   schema, record (CSV in schema order), expected key in hex. Each
 *             vector is parsed, encoded with a fresh encoder and compared byte
 *             for byte; then the key is decoded and every field the schema
 *             says decodes must come back equal to the record's value.
 * errors.tsv: schema, record, error code name, message substring. Parsing the
 *             schema, a record cell, or encoding must fail with that code and
 *             a message containing the substring.
 *
 * Every mismatch is printed with its file and line number; the test fails
 * after reporting all of them, so one run shows the whole picture.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

#define MAX_LINE (64 * 1024)
#define KEY_CAP (1 << 20)

/* ---- reading the vector files ---- */

static FILE *open_vectors(const char *file)
{
	const char *src = getenv("RK_SOURCE_DIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/vectors/%s", src ? src : ".", file);
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s (is RK_SOURCE_DIR set to the source tree?)", path);
	return f;
}

/* Splits line at TABs into at most max columns; returns the count. */
static int split_tabs(char *line, char **col, int max)
{
	int n = 0;
	char *p = line;
	col[n++] = p;
	while ((p = strchr(p, '\t')) != NULL && n < max) {
		*p++ = 0;
		col[n++] = p;
	}
	return n;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* One record: its cells unescaped into buf, each with a length; missing[i]
 * set for a cell written as \N. */
typedef struct {
	size_t n;
	uint8_t *cell[64];
	size_t len[64];
	int missing[64];
	uint8_t buf[MAX_LINE];
} record;

/* Parses a CSV record with the escapes \xNN, \\, \, and a whole cell \N.
 * Returns 0, or -1 on a malformed escape or too many cells. */
static int parse_record(record *r, const char *text)
{
	size_t o = 0;
	r->n = 0;
	r->cell[0] = r->buf;
	r->missing[0] = 0;
	const char *p = text;
	const char *cell_start = p;
	for (;;) {
		char c = *p;
		if (c == ',' || c == 0) {
			size_t i = r->n;
			r->len[i] = (size_t)(r->buf + o - r->cell[i]);
			r->missing[i] = (p - cell_start == 2 && cell_start[0] == '\\' && cell_start[1] == 'N');
			r->n++;
			if (c == 0)
				return 0;
			if (r->n >= 64)
				return -1;
			r->cell[r->n] = r->buf + o;
			p++;
			cell_start = p;
			continue;
		}
		if (c == '\\') {
			if (p[1] == 'x' && hexval(p[2]) >= 0 && hexval(p[3]) >= 0) {
				r->buf[o++] = (uint8_t)(hexval(p[2]) * 16 + hexval(p[3]));
				p += 4;
			} else if (p[1] == '\\' || p[1] == ',') {
				r->buf[o++] = (uint8_t)p[1];
				p += 2;
			} else if (p[1] == 'N') {
				p += 2; /* only meaningful as a whole cell */
			} else {
				return -1;
			}
			continue;
		}
		r->buf[o++] = (uint8_t)c;
		p++;
	}
}

static size_t unhex(uint8_t *out, size_t cap, const char *hex)
{
	size_t n = 0;
	while (hex[0] && hex[1] && n < cap) {
		out[n++] = (uint8_t)(hexval(hex[0]) * 16 + hexval(hex[1]));
		hex += 2;
	}
	return n;
}

static void to_hex(char *out, size_t cap, const uint8_t *b, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 3 < cap; i++)
		o += (size_t)snprintf(out + o, cap - o, "%02x", b[i]);
	if (cap)
		out[o < cap ? o : cap - 1] = 0;
}

static void chomp(char *line)
{
	size_t n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = 0;
}

static int values_equal(rk_type t, const rk_value *a, const rk_value *b)
{
	if (t == RK_T_STR || t == RK_T_BYTES)
		return a->v.s.len == b->v.s.len && (a->v.s.len == 0 || !memcmp(a->v.s.ptr, b->v.s.ptr, a->v.s.len));
	if (t == RK_T_F64) {
		if (isnan(a->v.f) || isnan(b->v.f))
			return isnan(a->v.f) && isnan(b->v.f);
		return !memcmp(&a->v.f, &b->v.f, sizeof(double)); /* -0 and +0 differ */
	}
	return a->v.u == b->v.u;
}

/* Parses every cell of r as the schema's field types into vals. Returns 0 or
 * the rk_value_parse error; *bad = the failing field. */
static int parse_values(rk_value *vals, const rk_schema *s, const record *r, size_t *bad)
{
	for (size_t i = 0; i < r->n; i++) {
		if (r->missing[i]) {
			memset(&vals[i], 0, sizeof vals[i]);
			continue;
		}
		int rc = rk_value_parse(&vals[i], rk_schema_field_type(s, i), (const char *)r->cell[i], r->len[i]);
		if (rc < 0) {
			*bad = i;
			return rc;
		}
	}
	return 0;
}

/* ---- keys.tsv ---- */

static int check_key_vector(const char *where, char **col, record *r, uint8_t *key, uint8_t *want)
{
	rk_schema *s = NULL;
	rk_encoder *e = NULL;
	int bad = 1, rc;
	char h1[2 * 512 + 1], h2[2 * 512 + 1];
	rk_value vals[64], dec[64];
	if ((rc = rk_schema_parse(&s, col[0], strlen(col[0]), "keys.tsv")) < 0) {
		fprintf(stderr, "%s: schema does not parse: %s\n  schema: %s\n", where, rk_error_last(), col[0]);
		goto out;
	}
	if (parse_record(r, col[1]) < 0 || r->n != rk_schema_nfields(s)) {
		fprintf(stderr, "%s: record '%s' has %zu cells or a bad escape; the schema has %zu fields\n", where, col[1],
		        r->n, rk_schema_nfields(s));
		goto out;
	}
	size_t badf = 0;
	if ((rc = parse_values(vals, s, r, &badf)) < 0) {
		fprintf(stderr, "%s: field %zu does not parse: %s\n", where, badf, rk_error_last());
		goto out;
	}
	if ((rc = rk_encoder_new(&e, s, 0)) < 0) {
		fprintf(stderr, "%s: rk_encoder_new: %s\n", where, rk_error_last());
		goto out;
	}
	size_t klen = 0;
	size_t wlen = unhex(want, KEY_CAP, col[2]);
	if ((rc = rk_key_encode(key, KEY_CAP, &klen, e, vals)) < 0) {
		fprintf(stderr, "%s: encode failed (%s): %s\n  schema: %s\n  record: %s\n", where, rk_strerror(rc),
		        rk_error_last(), col[0], col[1]);
		goto out;
	}
	if (klen != wlen || memcmp(key, want, klen)) {
		to_hex(h1, sizeof h1, want, wlen);
		to_hex(h2, sizeof h2, key, klen);
		fprintf(stderr, "%s: key mismatch\n  schema:   %s\n  record:   %s\n  expected: %s\n  got:      %s\n", where,
		        col[0], col[1], h1, h2);
		goto out;
	}
	if ((rc = rk_key_decode(dec, e, key, klen)) < 0) {
		fprintf(stderr, "%s: decode of its own key failed (%s): %s\n  schema: %s\n  key:    %s\n", where,
		        rk_strerror(rc), rk_error_last(), col[0], col[2]);
		goto out;
	}
	rk_schema_info info;
	rk_schema_get_info(&info, s);
	for (size_t i = 0; i < rk_schema_nfields(s); i++) {
		if (!(info.decodable_mask >> i & 1))
			continue;
		rk_type t = rk_schema_field_type(s, i);
		if (!dec[i].present || !values_equal(t, &dec[i], &vals[i])) {
			char a[256], b[256];
			rk_value_format(a, sizeof a, t, &vals[i]);
			rk_value_format(b, sizeof b, t, &dec[i]);
			fprintf(stderr, "%s: field '%s' does not round-trip: encoded '%s', decoded %s'%s'\n  schema: %s\n", where,
			        rk_schema_field_name(s, i), a, dec[i].present ? "" : "(absent) ", b, col[0]);
			goto out;
		}
	}
	bad = 0;
out:
	rk_encoder_free(e);
	rk_schema_free(s);
	return bad;
}

static void test_key_vectors(void **state)
{
	(void)state;
	FILE *f = open_vectors("keys.tsv");
	char *line = malloc(MAX_LINE);
	record *r = malloc(sizeof *r);
	uint8_t *key = malloc(KEY_CAP), *want = malloc(KEY_CAP);
	assert_non_null(line);
	assert_non_null(r);
	assert_non_null(key);
	assert_non_null(want);
	int lineno = 0, count = 0, failures = 0;
	while (fgets(line, MAX_LINE, f)) {
		lineno++;
		chomp(line);
		if (!line[0] || line[0] == '#')
			continue;
		char *col[4];
		char where[64];
		snprintf(where, sizeof where, "keys.tsv:%d", lineno);
		count++;
		if (split_tabs(line, col, 4) != 3) {
			fprintf(stderr, "%s: expected 3 TAB-separated columns\n", where);
			failures++;
			continue;
		}
		failures += check_key_vector(where, col, r, key, want);
	}
	fclose(f);
	free(line);
	free(r);
	free(key);
	free(want);
	fprintf(stderr, "keys.tsv: %d vectors, %d failed\n", count, failures);
	assert_true(count > 0);
	if (failures)
		fail_msg("%d of %d key vectors failed (see the lines above)", failures, count);
}

/* ---- errors.tsv ---- */

static int code_by_name(const char *name)
{
	static const struct {
		const char *name;
		int code;
	} codes[] = {{"invalid", RK_EINVALID}, {"toolong", RK_ETOOLONG}, {"corrupt", RK_ECORRUPT},
	             {"notfound", RK_ENOTFOUND}};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		if (!strcmp(codes[i].name, name))
			return codes[i].code;
	return 1;
}

static int check_error_vector(const char *where, char **col, record *r, uint8_t *key)
{
	rk_schema *s = NULL;
	rk_encoder *e = NULL;
	int rc, bad = 1;
	const char *stage = "schema";
	rk_value vals[64];
	if ((rc = rk_schema_parse(&s, col[0], strlen(col[0]), "errors.tsv")) < 0)
		goto failed;
	stage = "record";
	if (parse_record(r, col[1]) < 0 || r->n != rk_schema_nfields(s)) {
		fprintf(stderr, "%s: record '%s' has %zu cells or a bad escape; the schema has %zu fields\n", where, col[1],
		        r->n, rk_schema_nfields(s));
		goto out;
	}
	size_t badf;
	if ((rc = parse_values(vals, s, r, &badf)) < 0)
		goto failed;
	stage = "encode";
	if ((rc = rk_encoder_new(&e, s, 0)) < 0) {
		fprintf(stderr, "%s: rk_encoder_new: %s\n", where, rk_error_last());
		goto out;
	}
	size_t klen;
	if ((rc = rk_key_encode(key, KEY_CAP, &klen, e, vals)) < 0)
		goto failed;
	{
		char h[2 * 256 + 1];
		to_hex(h, sizeof h, key, klen);
		fprintf(stderr, "%s: expected a failure (%s: %s), but the key encoded as %s\n  schema: %s\n", where, col[2],
		        col[3], h, col[0]);
	}
	goto out;
failed:
	if (rc != code_by_name(col[2]) || !strstr(rk_error_last(), col[3])) {
		fprintf(stderr, "%s: %s failed as %s with \"%s\"\n  expected %s with a message containing \"%s\"\n"
		                "  schema: %s\n",
		        where, stage, rk_strerror(rc), rk_error_last(), col[2], col[3], col[0]);
		goto out;
	}
	bad = 0;
out:
	rk_encoder_free(e);
	rk_schema_free(s);
	return bad;
}

static void test_error_vectors(void **state)
{
	(void)state;
	FILE *f = open_vectors("errors.tsv");
	char *line = malloc(MAX_LINE);
	record *r = malloc(sizeof *r);
	uint8_t *key = malloc(KEY_CAP);
	assert_non_null(line);
	assert_non_null(r);
	assert_non_null(key);
	int lineno = 0, count = 0, failures = 0;
	while (fgets(line, MAX_LINE, f)) {
		lineno++;
		chomp(line);
		if (!line[0] || line[0] == '#')
			continue;
		char *col[5];
		char where[64];
		snprintf(where, sizeof where, "errors.tsv:%d", lineno);
		count++;
		if (split_tabs(line, col, 5) != 4) {
			fprintf(stderr, "%s: expected 4 TAB-separated columns\n", where);
			failures++;
			continue;
		}
		failures += check_error_vector(where, col, r, key);
	}
	fclose(f);
	free(line);
	free(r);
	free(key);
	fprintf(stderr, "errors.tsv: %d vectors, %d failed\n", count, failures);
	assert_true(count > 0);
	if (failures)
		fail_msg("%d of %d error vectors failed (see the lines above)", failures, count);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_vectors),
		cmocka_unit_test(test_error_vectors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
