/*
 * Unit tests for src/records: the records reader (CSV per RFC 4180, TSV,
 * JSON lines), its bounds, and the mapping of records onto a schema.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

#include "records/map.h"
#include "records/reader.h"

/* A reader over an in-memory text. */
typedef struct src {
	FILE *f;
	rk_rec *r;
} src;

static int open_text(src *s, const char *text, size_t len, rk_rec_format fmt, int header,
                     size_t max)
{
	rk_rec_options o = RK_REC_OPTIONS_INIT;
	o.format = fmt;
	o.header = header;
	o.max_record = max;
	o.name = "t.csv";
	s->f = fmemopen((void *)text, len ? len : 1, "rb");
	assert_non_null(s->f);
	if (len == 0) { /* fmemopen refuses an empty buffer: read past its one byte */
		fgetc(s->f);
	}
	return rk_rec__open(&s->r, s->f, &o);
}

static void close_text(src *s)
{
	rk_rec__close(s->r);
	fclose(s->f);
}

static void cell_is(const rk_record *rec, size_t i, const char *want, size_t want_len)
{
	assert_true(i < rec->n);
	assert_int_equal(rec->cell[i].len, want_len);
	assert_memory_equal(rec->cell[i].p, want, want_len);
}

static void test_csv_quotes_keep_cr_lf(void **st)
{
	(void)st;
	const char t[] = "a,b\r\n\"x\ry\",\"1\"\"2\"\r\n\"line\none\",\"crlf\r\nkept\"\n";
	src s;
	rk_record rec;
	assert_int_equal(open_text(&s, t, sizeof t - 1, RK_REC_CSV, 1, 0), 0);
	assert_int_equal(rk_rec__ncolumns(s.r), 2);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	cell_is(&rec, 0, "x\ry", 3);
	cell_is(&rec, 1, "1\"2", 3);
	assert_int_equal(rec.line, 2);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	cell_is(&rec, 0, "line\none", 8);
	cell_is(&rec, 1, "crlf\r\nkept", 10);
	assert_int_equal(rec.line, 3);
	assert_int_equal(rk_rec__next(s.r, &rec), RK_EITEROVER);
	close_text(&s);
}

static void test_csv_blank_lines_bom_and_empty_cells(void **st)
{
	(void)st;
	const char t[] = "\xef\xbb\xbf" "a,b,c\n\n,,\r\n\n1,,3";
	src s;
	rk_record rec;
	assert_int_equal(open_text(&s, t, sizeof t - 1, 0, 1, 0), 0);
	assert_int_equal(rk_rec__format(s.r), RK_REC_CSV);
	assert_string_equal(rk_rec__column(s.r, 0, NULL), "a");
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	assert_int_equal(rec.n, 3);
	cell_is(&rec, 0, "", 0);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	cell_is(&rec, 0, "1", 1);
	cell_is(&rec, 2, "3", 1);
	assert_int_equal(rec.line, 5);
	assert_int_equal(rk_rec__next(s.r, &rec), RK_EITEROVER);
	close_text(&s);
}

static void test_csv_errors_name_line_and_column(void **st)
{
	(void)st;
	const char t[] = "a,b\n\"x\"y,1\n1,2,3\n4,5\n\"open,6\n";
	src s;
	rk_record rec;
	assert_int_equal(open_text(&s, t, sizeof t - 1, RK_REC_CSV, 1, 0), 0);
	assert_int_equal(rk_rec__next(s.r, &rec), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "t.csv: line 2, column 4: text after the closing quote"));
	assert_int_equal(rk_rec__next(s.r, &rec), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "line 3: 3 cells, but the header names 2 columns (a, b)"));
	assert_int_equal(rk_rec__next(s.r, &rec), 0); /* the reader reads on */
	cell_is(&rec, 1, "5", 1);
	assert_int_equal(rk_rec__next(s.r, &rec), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "line 5, column 1: the quoted cell never ends"));
	assert_int_equal(rk_rec__next(s.r, &rec), RK_EITEROVER);
	close_text(&s);
}

static void test_csv_lone_cr_refused(void **st)
{
	(void)st;
	const char t[] = "a\nx\ry\nz\n";
	src s;
	rk_record rec;
	assert_int_equal(open_text(&s, t, sizeof t - 1, RK_REC_CSV, 1, 0), 0);
	assert_int_equal(rk_rec__next(s.r, &rec), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "a CR outside quotes"));
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	cell_is(&rec, 0, "z", 1);
	close_text(&s);
}

static void test_header_twice_and_empty(void **st)
{
	(void)st;
	src s;
	const char t1[] = "user,ts,user\n1,2,3\n";
	assert_int_equal(open_text(&s, t1, sizeof t1 - 1, RK_REC_CSV, 1, 0), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "names column 'user' twice (columns 1 and 3; the header: user, ts, user)"));
	close_text(&s);
	const char t2[] = "user,,ts\n";
	assert_int_equal(open_text(&s, t2, sizeof t2 - 1, RK_REC_CSV, 1, 0), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "header column 2 has no name"));
	close_text(&s);
	assert_int_equal(open_text(&s, "", 0, RK_REC_CSV, 1, 0), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "the input is empty"));
	close_text(&s);
}

/* A record past the limit is refused and not kept; the next one reads. */
static void test_record_limit_bounds_memory(void **st)
{
	(void)st;
	size_t big = 1 << 20;
	char *t = malloc(big + 64);
	size_t n = (size_t)sprintf(t, "a,b\n");
	memset(t + n, 'x', big);
	n += big;
	n += (size_t)sprintf(t + n, ",1\n\"q%s\",2\nok,3\n", "yy");
	src s;
	rk_record rec;
	assert_int_equal(open_text(&s, t, n, RK_REC_CSV, 1, 4096), 0);
	assert_int_equal(rk_rec__next(s.r, &rec), RK_ETOOLONG);
	assert_non_null(strstr(rk_error_last(), "line 2: the record is longer than 4096 bytes"));
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	cell_is(&rec, 0, "qyy", 3);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	cell_is(&rec, 0, "ok", 2);
	close_text(&s);
	/* the same through JSON lines */
	n = (size_t)sprintf(t, "{\"a\":\"");
	memset(t + n, 'x', big);
	n += big;
	n += (size_t)sprintf(t + n, "\"}\n{\"a\":\"ok\"}\n");
	assert_int_equal(open_text(&s, t, n, RK_REC_JSONL, 1, 4096), 0);
	assert_int_equal(rk_rec__next(s.r, &rec), RK_ETOOLONG);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	cell_is(&rec, 0, "ok", 2);
	close_text(&s);
	free(t);
}

static void test_tsv(void **st)
{
	(void)st;
	const char t[] = "a\tb\n\"q\"\t2\n";
	src s;
	rk_record rec;
	assert_int_equal(open_text(&s, t, sizeof t - 1, RK_REC_TSV, 1, 0), 0);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	cell_is(&rec, 0, "\"q\"", 3); /* TSV does not quote */
	close_text(&s);
}

/* One item a line (decode's keys): blank lines are items, a CR inside a line
 * is data, and a line over the bound is refused and skipped. */
static void test_lines_bounded(void **st)
{
	(void)st;
	const char t[] = "ab\r\n\nx\ry\n0123456789\nlast";
	src s;
	rk_record rec;
	assert_int_equal(open_text(&s, t, sizeof t - 1, RK_REC_LINES, 1, 8), 0);
	assert_int_equal(rk_rec__ncolumns(s.r), 0); /* never a header */
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	cell_is(&rec, 0, "ab", 2);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	cell_is(&rec, 0, "", 0);
	assert_int_equal(rec.line, 2);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	cell_is(&rec, 0, "x\ry", 3);
	assert_int_equal(rk_rec__next(s.r, &rec), RK_ETOOLONG);
	assert_non_null(strstr(rk_error_last(), "t.csv: line 4: the line is longer than 8 bytes"));
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	cell_is(&rec, 0, "last", 4);
	assert_int_equal(rec.line, 5);
	assert_int_equal(rk_rec__next(s.r, &rec), RK_EITEROVER);
	close_text(&s);
}

static void test_json_kinds_and_escapes(void **st)
{
	(void)st;
	const char t[] = "{\"s\": \"a\\u00e9\\ud83d\\ude00\\n\", \"n\": -1.5e3, \"b\": true, \"z\": null}\n"
	                 "\n   \n{}\n";
	src s;
	rk_record rec;
	assert_int_equal(open_text(&s, t, sizeof t - 1, 0, 1, 0), 0);
	assert_int_equal(rk_rec__format(s.r), RK_REC_JSONL);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	assert_int_equal(rec.n, 4);
	assert_string_equal(rec.cell[0].name, "s");
	cell_is(&rec, 0, "a\xc3\xa9\xf0\x9f\x98\x80\n", 8);
	assert_int_equal(rec.cell[1].kind, RK_CELL_NUMBER);
	cell_is(&rec, 1, "-1.5e3", 6);
	assert_int_equal(rec.cell[2].kind, RK_CELL_BOOL);
	assert_int_equal(rec.cell[3].kind, RK_CELL_NULL);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	assert_int_equal(rec.n, 0);
	assert_int_equal(rec.line, 4);
	close_text(&s);
}

static void json_refused(const char *line, const char *why)
{
	src s;
	rk_record rec;
	assert_int_equal(open_text(&s, line, strlen(line), RK_REC_JSONL, 1, 0), 0);
	assert_int_equal(rk_rec__next(s.r, &rec), RK_EINVALID);
	if (!strstr(rk_error_last(), why))
		fail_msg("%s: got '%s', want '%s'", line, rk_error_last(), why);
	close_text(&s);
}

static void test_json_strict(void **st)
{
	(void)st;
	json_refused("{\"a\": {\"b\": 1}}", "nested object or array");
	json_refused("{\"a\": [1]}", "nested object or array");
	json_refused("{\"a\": 1, \"a\": 2}", "member \"a\" is given twice");
	json_refused("{\"a\": \"\xff\"}", "not valid UTF-8");
	json_refused("{\"a\": \"\xc0\xaf\"}", "not valid UTF-8"); /* overlong '/' */
	json_refused("{\"a\": \"\\ud800\"}", "high surrogate");
	json_refused("{\"a\": \"\\udc00\"}", "lone low surrogate");
	json_refused("{\"a\": 01}", "expected ',' or '}'");
	json_refused("{\"a\": 1.}", "no digit after its '.'");
	json_refused("{\"a\": +1}", "expected a value");
	json_refused("{\"a\": tru}", "expected a value");
	json_refused("{\"a\": 1} x", "text after the object");
	json_refused("[1]", "expected a JSON object");
	json_refused("{\"a\": \"x\ty\"}", "control character");
}

static rk_schema *schema(const char *text)
{
	rk_schema *s;
	assert_int_equal(rk_schema_parse(&s, text, strlen(text), "t"), 0);
	return s;
}

static void test_map_by_name_any_order(void **st)
{
	(void)st;
	rk_schema *sc = schema("fields user:u32, ts:ts, kind:str; key u32(user) u64(ts)");
	const char t[] = "kind,extra,ts,user\nclick,z,2024-01-02T03:04:05Z,7\nview,z,1700000000000,8\n";
	src s;
	rk_record rec;
	rk_rec_map m;
	rk_value v[3];
	assert_int_equal(open_text(&s, t, sizeof t - 1, RK_REC_CSV, 1, 0), 0);
	assert_int_equal(rk_rec__map_init(&m, s.r, sc, NULL), 0);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	assert_int_equal(rk_rec__map_values(v, &m, s.r, &rec), 0);
	assert_int_equal(v[0].v.u, 7);
	assert_int_equal(v[1].v.i, 1704164645000LL);
	assert_int_equal(v[2].v.s.len, 5);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	assert_int_equal(rk_rec__map_values(v, &m, s.r, &rec), 0);
	assert_int_equal(v[1].v.i, 1700000000000LL);
	close_text(&s);
	rk_schema_free(sc);
}

/* A header that lacks a field the key needs is refused before any record;
 * the header is never data. */
static void test_map_missing_key_field(void **st)
{
	(void)st;
	rk_schema *sc = schema("fields user:u64, ts:ts; key u64(user) u64(ts)");
	const char t[] = "timestamp,user\n1,2\n";
	src s;
	rk_rec_map m;
	assert_int_equal(open_text(&s, t, sizeof t - 1, RK_REC_CSV, 1, 0), 0);
	assert_int_equal(rk_rec__map_init(&m, s.r, sc, NULL), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "the header has no column 'ts', which the key needs (the header: timestamp, user"));
	close_text(&s);
	/* positional only when asked: then the first line is data */
	rk_record rec;
	rk_value v[2];
	assert_int_equal(open_text(&s, t, sizeof t - 1, RK_REC_CSV, 0, 0), 0);
	assert_int_equal(rk_rec__map_init(&m, s.r, sc, NULL), 0);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	assert_int_equal(rk_rec__map_values(v, &m, s.r, &rec), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "line 1, column 1, field 'user'"));
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	assert_int_equal(rk_rec__map_values(v, &m, s.r, &rec), 0);
	assert_int_equal(v[0].v.u, 1);
	assert_int_equal(v[1].v.i, 2);
	close_text(&s);
	rk_schema_free(sc);
}

static void test_map_json_types_strict(void **st)
{
	(void)st;
	rk_schema *sc = schema("fields a:u32, b:str, c:i8; key u32(a)");
	const char t[] = "{\"a\": true}\n{\"a\": 4294967296}\n{\"a\": \"12\", \"b\": 5, \"c\": null}\n"
	                 "{\"a\": 1.5}\n{\"a\": 1, \"b\": false}\n";
	src s;
	rk_record rec;
	rk_rec_map m;
	rk_value v[3];
	assert_int_equal(open_text(&s, t, sizeof t - 1, 0, 1, 0), 0);
	assert_int_equal(rk_rec__map_init(&m, s.r, sc, NULL), 0);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	assert_int_equal(rk_rec__map_values(v, &m, s.r, &rec), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "field 'a': true is a boolean, not a number"));
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	assert_int_equal(rk_rec__map_values(v, &m, s.r, &rec), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "4294967296"));
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	assert_int_equal(rk_rec__map_values(v, &m, s.r, &rec), 0);
	assert_int_equal(v[0].v.u, 12);
	assert_memory_equal(v[1].v.s.ptr, "5", 1);
	assert_int_equal(v[2].present, 0);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	assert_int_equal(rk_rec__map_values(v, &m, s.r, &rec), RK_EINVALID);
	assert_int_equal(rk_rec__next(s.r, &rec), 0);
	assert_int_equal(rk_rec__map_values(v, &m, s.r, &rec), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "false is a boolean, not a string"));
	close_text(&s);
	rk_schema_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_quotes_keep_cr_lf),
		cmocka_unit_test(test_csv_blank_lines_bom_and_empty_cells),
		cmocka_unit_test(test_csv_errors_name_line_and_column),
		cmocka_unit_test(test_csv_lone_cr_refused),
		cmocka_unit_test(test_header_twice_and_empty),
		cmocka_unit_test(test_record_limit_bounds_memory),
		cmocka_unit_test(test_tsv),
		cmocka_unit_test(test_lines_bounded),
		cmocka_unit_test(test_json_kinds_and_escapes),
		cmocka_unit_test(test_json_strict),
		cmocka_unit_test(test_map_by_name_any_order),
		cmocka_unit_test(test_map_missing_key_field),
		cmocka_unit_test(test_map_json_types_strict),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
