/* Unit tests for src/key/datefmt.c (the strict text formats of a ts field)
 * and what builds on it: ts("FORMAT") in the schema language, its canonical
 * text, values parsed and printed in the format, query literals of a time
 * field (its format, ISO-8601), and the profile's date columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

#include "analyze/fstats.h"
#include "key/predicate_int.h"
#include "key/schema_int.h"
#include "key/timefmt.h"

#define DAY 86400000LL

/* ms of a date under fmt; fails the test when it does not parse */
static int64_t ms_of(const char *fmt, const char *text)
{
	int64_t ms = 0;
	const char *why = NULL;
	assert_int_equal(rk__datefmt_check(fmt, strlen(fmt), &why), 0);
	if (rk__datefmt_parse(&ms, fmt, text, strlen(text), &why) != 0)
		fail_msg("'%s' under '%s': %s", text, fmt, why);
	return ms;
}

/* the reason a text is refused under fmt */
static const char *refused(const char *fmt, const char *text)
{
	int64_t ms = 0;
	const char *why = NULL;
	if (rk__datefmt_parse(&ms, fmt, text, strlen(text), &why) == 0)
		fail_msg("'%s' under '%s' was accepted as %lld", text, fmt, (long long)ms);
	assert_non_null(why);
	return why;
}

static void test_parse_valid(void **state)
{
	(void)state;
	assert_true(ms_of("%b %d %Y", "Jan 1 2000") == 10957 * DAY);
	assert_true(ms_of("%b %d %Y", "Jan 01 2000") == 10957 * DAY);
	assert_true(ms_of("%b %d %Y", "JAN 1 2000") == 10957 * DAY); /* month names in any case */
	assert_true(ms_of("%b %d %Y", "dec 31 1999") == 10956 * DAY);
	assert_true(ms_of("%B %d, %Y", "September 9, 2001") == 11574 * DAY);
	assert_true(ms_of("%d %b %Y", "9 Sep 2001") == 11574 * DAY);
	assert_true(ms_of("%Y/%m/%d", "2000/01/31") == 10987 * DAY);
	assert_true(ms_of("%m/%d/%Y", "01/31/2000") == 10987 * DAY);
	assert_true(ms_of("%m/%d/%Y", "1/31/2000") == 10987 * DAY);
	assert_true(ms_of("%d/%m/%Y", "31/01/2000") == 10987 * DAY);
	assert_true(ms_of("%d.%m.%Y", "31.01.2000") == 10987 * DAY);
	assert_true(ms_of("%d.%m.%Y %H:%M", "31.01.2000 13:45") == 10987 * DAY + (13 * 60 + 45) * 60000LL);
	assert_true(ms_of("%Y/%m/%d %H:%M:%S", "2000/01/31 09:05:07") ==
	            10987 * DAY + (9 * 3600 + 5 * 60 + 7) * 1000LL);
	assert_true(ms_of("%Y/%m/%d %H:%M:%S", "2000/01/31 9:05:07") ==
	            10987 * DAY + (9 * 3600 + 5 * 60 + 7) * 1000LL);
	assert_true(ms_of("%m/%d/%Y", "12/31/1969") == -DAY); /* before the epoch */
	assert_true(ms_of("%Y/%m/%d", "0001/01/01") == -62135596800000LL);
	assert_true(ms_of("%Y/%m/%d", "9999/12/31") == 253402214400000LL);
	assert_true(ms_of("%d%%%m%%%Y", "1%2%2000") == 10988 * DAY);
}

static void test_leap_years(void **state)
{
	(void)state;
	assert_true(ms_of("%m/%d/%Y", "02/29/2000") == ms_of("%m/%d/%Y", "03/01/2000") - DAY); /* 400 */
	assert_true(ms_of("%m/%d/%Y", "02/29/2004") == ms_of("%m/%d/%Y", "03/01/2004") - DAY);
	assert_string_equal(refused("%m/%d/%Y", "02/29/1900"), "not a leap year: February has 28 days");
	assert_string_equal(refused("%m/%d/%Y", "02/29/2001"), "not a leap year: February has 28 days");
	assert_string_equal(refused("%m/%d/%Y", "02/30/2000"), "the day is not in its month");
	assert_string_equal(refused("%b %d %Y", "Apr 31 2000"), "the day is not in its month");
	assert_true(ms_of("%b %d %Y", "Dec 31 2100") - ms_of("%b %d %Y", "Jan 1 2100") == 364 * DAY);
}

static void test_parse_invalid(void **state)
{
	(void)state;
	assert_string_equal(refused("%m/%d/%Y", "13/01/2000"), "the month is not 1..12");
	assert_string_equal(refused("%m/%d/%Y", "00/01/2000"), "the month is not 1..12");
	assert_string_equal(refused("%m/%d/%Y", "01/00/2000"), "the day is not in its month");
	assert_string_equal(refused("%m/%d/%Y", "01/31/00"), "the year is not 4 digits");
	assert_string_equal(refused("%m/%d/%Y", "01/31/20000"), "text follows the end of the format");
	assert_string_equal(refused("%Y/%m/%d", "0000/01/01"), "the year is 0000 (years are 0001..9999)");
	assert_string_equal(refused("%m/%d/%Y", "01-31-2000"), "a separator differs from the format's");
	assert_string_equal(refused("%m/%d/%Y", "01/31"), "the text ends before the format does");
	assert_string_equal(refused("%m/%d/%Y", "001/31/2000"), "a separator differs from the format's");
	assert_string_equal(refused("%m/%d/%Y", " 01/31/2000"), "the month is not 1 or 2 digits");
	assert_string_equal(refused("%m/%d/%Y", "01/31/2000 "), "text follows the end of the format");
	assert_string_equal(refused("%b %d %Y", "Jan  1 2000"), "the day is not 1 or 2 digits");
	assert_string_equal(refused("%b %d %Y", "Jun. 1 2000"), "a separator differs from the format's");
	assert_string_equal(refused("%b %d %Y", "June 1 2000"), "not a month's abbreviation (Jan..Dec)");
	assert_string_equal(refused("%B %d %Y", "Jun 1 2000"), "not a month's name (January..December)");
	assert_string_equal(refused("%b %d %Y", "Jnu 1 2000"), "not a month's abbreviation (Jan..Dec)");
	assert_string_equal(refused("%Y/%m/%d %H:%M", "2000/01/31 24:00"), "the hour is not 0..23");
	assert_string_equal(refused("%Y/%m/%d %H:%M", "2000/01/31 23:60"), "the minutes are not 00..59");
	assert_string_equal(refused("%Y/%m/%d %H:%M", "2000/01/31 23:5"), "the minutes are not 2 digits");
	assert_string_equal(refused("%Y/%m/%d %H:%M:%S", "2000/01/31 23:59:60"), "the seconds are not 00..59");
	assert_string_equal(refused("%Y/%m/%d", ""), "the year is not 4 digits");
}

static void test_check(void **state)
{
	(void)state;
	static const char *const ok[] = {"%b %d %Y", "%Y/%m/%d", "%m/%d/%Y", "%d.%m.%Y", "%d.%m.%Y %H:%M",
	                                 "%Y-%m-%dT%H:%M:%S", "%B %d, %Y", "%d%%%m%%%Y", "%Y/%m", "%b %Y"};
	static const char *const bad[] = {"", "%Y", "%Y/%m %H:%M", "%m/%d", "%Y%m%d", "%Y/%m/%d %H", "%Y/%m/%d %M",
	                                  "%Y/%m/%d %H:%S", "%Y/%m/%d/%d", "%Y/%b/%m/%d", "%Y/%m/%d %q",
	                                  "%Y/%m/%d%", "%Y/%m/%d 1", "%Y/%m/%d\t",
	                                  "%Y/%m/%d ------------------------------------------"};
	const char *why;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (rk__datefmt_check(ok[i], strlen(ok[i]), &why))
			fail_msg("'%s' refused: %s", ok[i], why);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(rk__datefmt_check(bad[i], strlen(bad[i]), &why), -1);
}

static void test_format_round_trip(void **state)
{
	(void)state;
	char buf[64];
	assert_int_equal(rk__datefmt_format(buf, sizeof buf, "%b %d %Y", 10957 * DAY), 11);
	assert_string_equal(buf, "Jan 01 2000");
	/* a month's format: its first day reads and writes; any other day has no spelling */
	assert_int_equal(rk__datefmt_format(buf, sizeof buf, "%Y-%m", 10957 * DAY), 7);
	assert_string_equal(buf, "2000-01");
	assert_int_equal(rk__datefmt_format(buf, sizeof buf, "%Y-%m", 10958 * DAY), 0);
	int64_t ms;
	const char *why;
	assert_int_equal(rk__datefmt_parse(&ms, "%Y-%m", "2000-01", 7, &why), 0);
	assert_int_equal(ms, 10957 * DAY);
	rk__datefmt_format(buf, sizeof buf, "%B %d, %Y", 11574 * DAY);
	assert_string_equal(buf, "September 09, 2001");
	rk__datefmt_format(buf, sizeof buf, "%m/%d/%Y", -DAY);
	assert_string_equal(buf, "12/31/1969");
	rk__datefmt_format(buf, sizeof buf, "%d.%m.%Y %H:%M:%S", 10987 * DAY + 3723000);
	assert_string_equal(buf, "31.01.2000 01:02:03");
	/* what the format cannot say exactly is refused: the caller prints ISO */
	assert_int_equal(rk__datefmt_format(buf, sizeof buf, "%m/%d/%Y", 10987 * DAY + 1000), 0);
	assert_int_equal(rk__datefmt_format(buf, sizeof buf, "%m/%d/%Y %H:%M", 10987 * DAY + 1000), 0);
	assert_int_equal(rk__datefmt_format(buf, sizeof buf, "%m/%d/%Y", 253402300800000LL), 0);
	assert_int_equal(rk__datefmt_format(buf, 5, "%m/%d/%Y", 0), 0); /* too small a buffer */
	assert_int_equal(rk__iso8601_format(buf, sizeof buf, 10987 * DAY + 1), 24);
	assert_string_equal(buf, "2000-01-31T00:00:00.001Z");
	/* every day of 1899..2101 parses back to itself under each layout */
	static const char *const fmts[] = {"%b %d %Y", "%m/%d/%Y", "%d.%m.%Y", "%B %d, %Y", "%Y/%m/%d %H:%M"};
	for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
		for (int64_t d = -25567; d < 48579; d += 7) {
			int64_t ms = d * DAY, back = 0;
			const char *why;
			size_t n = rk__datefmt_format(buf, sizeof buf, fmts[f], ms);
			assert_true(n > 0);
			assert_int_equal(rk__datefmt_parse(&back, fmts[f], buf, n, &why), 0);
			assert_true(back == ms);
		}
}

/* ---- the schema language and values ---- */

static void test_schema_format(void **state)
{
	(void)state;
	rk_schema *s = NULL;
	char *text = NULL;
	const char *src = "fields id:u64, d:ts(\"%b %d %Y\"), e:ts, f:ts('%d.%m.%Y \"x\"'); key i64(d) u64(id)";
	assert_int_equal(rk_schema_parse(&s, src, strlen(src), NULL), 0);
	assert_string_equal(rk_schema_field_time_format(s, 1), "%b %d %Y");
	assert_null(rk_schema_field_time_format(s, 2));
	assert_int_equal(rk_schema_field_is_time(s, 1), 1);
	assert_int_equal(rk_schema_field_type(s, 1), RK_T_I64);
	assert_int_equal(rk_schema_text(&text, s), 0);
	assert_string_equal(text, "fields id:u64, d:ts(\"%b %d %Y\"), e:ts, f:ts(\"%d.%m.%Y \\\"x\\\"\"); "
	                          "key i64(d) u64(id); option max_key_len=32767");
	/* the text reads back as the same schema */
	rk_schema *again = NULL;
	assert_int_equal(rk_schema_parse(&again, text, strlen(text), NULL), 0);
	assert_string_equal(rk_schema_field_time_format(again, 3), "%d.%m.%Y \"x\"");
	assert_int_equal(rk_schema__matches_text(again, text, strlen(text)), 1);
	/* a table written when ts printed as i64 still matches */
	const char *legacy = "fields id:u64, d:i64, e:i64, f:i64; key i64(d) u64(id); option max_key_len=32767";
	assert_int_equal(rk_schema__matches_text(again, legacy, strlen(legacy)), 1);
	assert_int_equal(rk_schema__matches_text(again, "fields id:u64", 13), 0);
	rk_schema_free(again);
	free(text);

	rk_value v;
	char buf[64];
	assert_int_equal(rk_schema_value_parse(&v, s, 1, "Feb 29 2000", 11), 0);
	assert_true(v.v.i == 11016 * DAY);
	assert_int_equal(rk_schema_value_format(buf, sizeof buf, s, 1, &v), 11);
	assert_string_equal(buf, "Feb 29 2000");
	v.v.i += 1500; /* finer than the format: ISO-8601 */
	rk_schema_value_format(buf, sizeof buf, s, 1, &v);
	assert_string_equal(buf, "2000-02-29T00:00:01.500Z");
	v.v.i = INT64_MAX; /* past year 9999: the integer */
	rk_schema_value_format(buf, sizeof buf, s, 1, &v);
	assert_string_equal(buf, "9223372036854775807");
	/* strict: ISO-8601 and integers are not the field's format */
	assert_int_equal(rk_schema_value_parse(&v, s, 1, "2000-02-29", 10), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "'2000-02-29' does not match the time format \"%b %d %Y\""));
	assert_int_equal(rk_schema_value_parse(&v, s, 1, "951782400000", 12), RK_EINVALID);
	assert_int_equal(rk_schema_value_parse(&v, s, 1, "Feb 30 2000", 11), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "the day is not in its month"));
	/* a plain ts keeps integers and ISO-8601 */
	assert_int_equal(rk_schema_value_parse(&v, s, 2, "2000-02-29", 10), 0);
	assert_int_equal(rk_schema_value_parse(&v, s, 2, "951782400000", 12), 0);
	rk_schema_free(s);

	static const char *const bad[] = {
		"fields d:ts(\"%Y%m%d\"); key i64(d)", "fields d:ts(\"%m/%d\"); key i64(d)",
		"fields d:ts(%Y); key i64(d)",         "fields d:ts(\"%Y/%m/%d\"; key i64(d)",
		"fields d:i64(\"%Y/%m/%d\"); key i64(d)", "fields d:ts(\"\\x00%Y/%m/%d\"); key i64(d)",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		s = NULL;
		if (rk_schema_parse(&s, bad[i], strlen(bad[i]), NULL) == 0)
			fail_msg("accepted: %s", bad[i]);
	}
	assert_int_equal(rk_schema_parse(&s, bad[0], strlen(bad[0]), NULL), RK_EINVALID);
	assert_non_null(strstr(rk_error_last(), "time format of 'd': two numbers side by side"));
}

/* The value a one-condition predicate binds, or RK_EINVALID. */
static int literal(const char *schema, const char *where, int64_t *out)
{
	rk_schema *s = NULL;
	rk_predicate *p = NULL;
	assert_int_equal(rk_schema_parse(&s, schema, strlen(schema), NULL), 0);
	int rc = rk_predicate_parse(&p, s, where, strlen(where));
	if (rc == 0)
		*out = p->conds[0].vals[0].v.i;
	rk_predicate_free(p);
	rk_schema_free(s);
	return rc;
}

static void test_query_literals(void **state)
{
	(void)state;
	int64_t v = 0;
	const char *fmt = "fields d:ts(\"%b %d %Y\"); key i64(d)", *plain = "fields d:ts; key i64(d)";
	assert_int_equal(literal(fmt, "d >= 'Jan 1 2000'", &v), 0);
	assert_true(v == 10957 * DAY);
	assert_int_equal(literal(fmt, "d >= '2000-01-01'", &v), 0);
	assert_true(v == 10957 * DAY);
	assert_int_equal(literal(fmt, "d >= '2000-01-01T12:00:00Z'", &v), 0);
	assert_true(v == 10957 * DAY + DAY / 2);
	assert_int_equal(literal(fmt, "d < 946684800000", &v), 0); /* integer ms, as the analyzer writes */
	assert_int_equal(literal(fmt, "d >= 'Jan 32 2000'", &v), RK_EINVALID);
	assert_int_equal(literal(plain, "d >= '2000-01-01'", &v), 0);
	assert_true(v == 10957 * DAY);
	assert_int_equal(literal(plain, "d >= 946684800000", &v), 0);
	assert_int_equal(literal(plain, "d >= 'Jan 1 2000'", &v), RK_EINVALID);
	assert_int_equal(literal("fields d:i64; key i64(d)", "d >= '2000-01-01'", &v), RK_EINVALID);
}

/* ---- the profile's recognition ---- */

static int profiled(const char *const *vals, size_t n, int *also)
{
	rk__fstats st;
	rk__fstats_init(&st);
	for (size_t i = 0; i < n; i++)
		rk__fstats_text(&st, vals[i], strlen(vals[i]), 0);
	return rk__fstats_date_format(&st, also);
}

static void test_profile_formats(void **state)
{
	(void)state;
	int also;
	const char *us[] = {"01/02/2000", "12/13/2000", ""};
	int k = profiled(us, 3, &also);
	assert_string_equal(rk__fstats_datefmt(k), "%m/%d/%Y");
	assert_int_equal(also, -1);
	const char *eu[] = {"01/02/2000", "13/12/2000"};
	assert_string_equal(rk__fstats_datefmt(profiled(eu, 2, &also)), "%d/%m/%Y");
	const char *both[] = {"01/02/2000", "03/04/2000"};
	assert_string_equal(rk__fstats_datefmt(profiled(both, 2, &also)), "%m/%d/%Y");
	assert_string_equal(rk__fstats_datefmt(also), "%d/%m/%Y");
	const char *neither[] = {"01/13/2000", "13/01/2000"};
	assert_int_equal(profiled(neither, 2, &also), -1);
	const char *names[] = {"Jan 1 2000", "Feb 28 2001", "dec 31 1999"};
	assert_string_equal(rk__fstats_datefmt(profiled(names, 3, &also)), "%b %d %Y");
	const char *timed[] = {"31.01.2000 13:45", "01.02.2000 09:05"};
	assert_string_equal(rk__fstats_datefmt(profiled(timed, 2, &also)), "%d.%m.%Y %H:%M");
	const char *mixed[] = {"2000/01/31", "2000/01/31 10:00"};
	assert_int_equal(profiled(mixed, 2, &also), -1);
	const char *with_int[] = {"2000/01/31", "12"};
	assert_int_equal(profiled(with_int, 2, &also), -1);
	const char *bad_day[] = {"02/29/2000", "02/29/2001"};
	assert_int_equal(profiled(bad_day, 2, &also), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_valid),       cmocka_unit_test(test_leap_years),
		cmocka_unit_test(test_parse_invalid),     cmocka_unit_test(test_check),
		cmocka_unit_test(test_format_round_trip), cmocka_unit_test(test_schema_format),
		cmocka_unit_test(test_query_literals),    cmocka_unit_test(test_profile_formats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
