/*
 * The HTML report in a real browser: headless Chromium loads the page with
 * "#selftest" (the page then hovers the hottest cell of each heatmap and
 * copies the tooltip into <pre id="selftest-N">) and dumps the DOM after its
 * scripts ran. The test checks what a user would see: the summary table,
 * each verdict, both heatmaps drawn, and the hover details of the hottest
 * cell (time range, key range, writes) matching the analysis.
 *
 * Exits 77 (skipped) when Chromium is not installed (Debian: chromium).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rowkey/analyze.h>

static const char *chromium(void)
{
	const char *env = getenv("RK_CHROMIUM");
	static const char *const cands[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser", NULL};
	if (env && access(env, X_OK) == 0)
		return env;
	for (int i = 0; cands[i]; i++)
		if (access(cands[i], X_OK) == 0)
			return cands[i];
	return NULL;
}

static rk_analysis *run(const char *label, const char *text)
{
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	rk_schema *s;
	rk_analysis *a;
	w.rate = 2000;
	w.duration = 60;
	o.servers = 4;
	o.split_threshold = 1 << 20;
	o.balance_interval = 10;
	o.time_buckets = 60;
	o.key_buckets = 200;
	assert_int_equal(rk_schema_parse(&s, text, strlen(text), label), 0);
	assert_int_equal(rk_analyze_run(&a, s, label, &w, &o), 0);
	assert_int_equal(rk_analysis_set_schema_text(a, text), 0);
	rk_schema_free(s);
	return a;
}

/* n with thousands separators, as the page's toLocaleString('en-US') */
static void commas(char *out, uint64_t n)
{
	char d[32];
	int len = snprintf(d, sizeof d, "%llu", (unsigned long long)n), o = 0;
	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = d[i];
	}
	out[o] = 0;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	size_t got = fread(b, 1, (size_t)n, f);
	b[got] = 0;
	fclose(f);
	return b;
}

static void page_in_chromium(void **state)
{
	(void)state;
	const char *chrome = chromium();
	rk_analysis *runs[2] = {
	    run("by-date", "fields date:str, time:str, id:u64; key date \":\" time \":\" id"),
	    run("salt-8", "fields date:str, time:str, id:u64; key bucket(8, xxh3(id), dec) \":\" date "
	                  "\":\" time \":\" id"),
	};
	char dir[] = "/tmp/rk_html_XXXXXX", html[96], dom[96], cmd[1024];
	assert_non_null(mkdtemp(dir));
	snprintf(html, sizeof html, "%s/report.html", dir);
	snprintf(dom, sizeof dom, "%s/dom.html", dir);
	assert_int_equal(rk_analysis_write_html(html, "agree <test>", (const rk_analysis *const *)runs, 2),
	                 0);
	snprintf(cmd, sizeof cmd,
	         "timeout 120 '%s' --headless --no-sandbox --disable-gpu --disable-background-networking "
	         "--disable-component-update --disable-sync --no-first-run --user-data-dir='%s/profile' "
	         "--virtual-time-budget=5000 --dump-dom 'file://%s#selftest' > '%s' 2>/dev/null",
	         chrome, dir, html, dom);
	assert_int_equal(system(cmd), 0);
	char *d = slurp(dom);
	assert_non_null(d);
	/* the page ran its scripts: both maps drawn */
	assert_non_null(strstr(d, "data-rendered=\"2\""));
	/* the title is escaped, the summary table names both designs */
	assert_non_null(strstr(d, "agree &lt;test&gt;"));
	assert_non_null(strstr(d, "<td>by-date</td>"));
	assert_non_null(strstr(d, "<td>salt-8</td>"));
	for (int i = 0; i < 2; i++) {
		const rk_report *r = rk_analysis_report(runs[i]);
		assert_non_null(strstr(d, r->verdict));
		/* hover details of the hottest cell */
		rk_heatmap h;
		assert_int_equal(rk_analysis_heatmap(&h, runs[i]), 0);
		size_t best = 0;
		for (size_t k = 0; k < h.rows * h.cols; k++)
			if (h.writes[k] > h.writes[best]) /* the maps open on writes */
				best = k;
		char id[32], want[64], num[32];
		snprintf(id, sizeof id, "id=\"selftest-%d\">", i);
		const char *pre = strstr(d, id);
		assert_non_null(pre);
		const char *end = strstr(pre, "</pre>");
		assert_non_null(end);
		commas(num, h.writes[best]);
		snprintf(want, sizeof want, "writes  %s", num);
		char *cell = strndup(pre, (size_t)(end - pre));
		assert_non_null(strstr(cell, want));
		assert_non_null(strstr(cell, "time    "));
		assert_non_null(strstr(cell, "keys    "));
		/* the cell's key range starts at its row's first key */
		size_t kl;
		const uint8_t *k = rk_analysis_row_key(&kl, runs[i], best / h.cols);
		char key[128];
		snprintf(key, sizeof key, "keys    %.*s", (int)kl, (const char *)k);
		if (best / h.cols > 0)
			assert_non_null(strstr(cell, key));
		free(cell);
	}
	free(d);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	rk_analysis_free(runs[0]);
	rk_analysis_free(runs[1]);
}

int main(void)
{
	if (!chromium()) {
		printf("chromium not installed (Debian: apt-get install chromium): skipped\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {cmocka_unit_test(page_in_chromium)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
