/*
 * The HTML report in a real browser: headless Chromium loads the page with
 * "#selftest" (the page then hovers the hottest cell of each heatmap and
 * copies the tooltip into <pre id="selftest-N">) and dumps the DOM after its
 * scripts ran. The test checks what a user would see: the summary table,
 * each verdict, both heatmaps drawn, and the hover details of the hottest
 * cell (time range, key range, writes) matching the analysis. The page also
 * reports what it drew on each map (<pre id="axes-N">: the time tick labels,
 * the key labels at region starts, the colour scale's numbers, pixels read
 * back from the canvas, the ticks after zooming into a window); the
 * side-by-side maps share one colour scale (topped by the larger run's
 * largest cell); a screenshot of the first map ("#shot") is read back with
 * cairo: the colour scale is a bar running from dark to bright, and there is
 * text left of the map and under it.
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

#include <cairo.h>
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

/* the largest writes count of a run's heatmap cells */
static uint64_t max_cell(const rk_analysis *a)
{
	rk_heatmap h;
	uint64_t max = 0;
	assert_int_equal(rk_analysis_heatmap(&h, a), 0);
	for (size_t k = 0; k < h.rows * h.cols; k++)
		max = h.writes[k] > max ? h.writes[k] : max;
	return max;
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
		/* the verdict's causes, each named with its kind */
		for (size_t k = 0; k < r->ncauses; k++) {
			char kind[96];
			snprintf(kind, sizeof kind, "data-kind=\"%s\"", r->causes[k].kind);
			assert_non_null(strstr(d, kind));
		}
		if (i == 0) /* the date-first key: its rising lead is named */
			assert_non_null(strstr(d, "data-kind=\"rising_lead\""));
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
	/* side by side on one scale: both small maps' scales top at the larger run's largest cell */
	{
		uint64_t top = 0;
		for (int i = 0; i < 2; i++)
			top = max_cell(runs[i]) > top ? max_cell(runs[i]) : top;
		char want[64];
		snprintf(want, sizeof want, "data-max=\"%llu\"", (unsigned long long)top);
		for (int i = 0; i < 2; i++) {
			char id[32];
			snprintf(id, sizeof id, "id=\"side-%d\"", i);
			const char *c = strstr(d, id);
			assert_non_null(c);
			char *tag = strndup(c, (size_t)(strchr(c, '>') - c));
			assert_non_null(strstr(tag, want));
			free(tag);
		}
	}
	/* what each map drew: axes and scale */
	for (int i = 0; i < 2; i++) {
		char id[32];
		snprintf(id, sizeof id, "id=\"axes-%d\">", i);
		const char *pre = strstr(d, id);
		assert_non_null(pre);
		char *ax = strndup(pre, (size_t)(strstr(pre, "</pre>") - pre));
		int ticks = 0, keys = 0, top = 0, bottom = 255, ink = 0, tink = 0, zkeys = 0;
		const char *t = strstr(ax, "time ticks: ");
		assert_non_null(t);
		for (t += 12; *t && *t != '\n'; t++)
			ticks += *t == '|';
		assert_true(ticks >= 3); /* 0 s .. 60 s: at least 4 labels */
		assert_non_null(strstr(ax, "time ticks: 0 s|"));
		assert_int_equal(sscanf(strstr(ax, "key labels: "), "key labels: %d", &keys), 1);
		assert_true(keys >= 4);
		/* the scale: 0, powers of ten, the largest cell */
		char want[64], num[32];
		commas(num, max_cell(runs[i]));
		snprintf(want, sizeof want, "|%s\n", num);
		assert_non_null(strstr(ax, "scale: 0|1|10|"));
		assert_non_null(strstr(ax, want));
		assert_non_null(strstr(ax, "server scale: 0%|"));
		assert_non_null(strstr(ax, "|100%\n"));
		assert_int_equal(sscanf(strstr(ax, "scale top: "), "scale top: %d", &top), 1);
		assert_int_equal(sscanf(strstr(ax, "scale bottom: "), "scale bottom: %d", &bottom), 1);
		assert_true(top > 200 && bottom < 50);
		assert_int_equal(sscanf(strstr(ax, "key label ink: "), "key label ink: %d", &ink), 1);
		assert_int_equal(sscanf(strstr(ax, "time label ink: "), "time label ink: %d", &tink), 1);
		assert_true(ink > 60 && tink > 50); /* salt buckets: one-digit labels */
		/* zoomed into the second quarter of the time: ticks from 15 s on */
		const char *z = strstr(ax, "zoomed time ticks: ");
		assert_non_null(z);
		assert_true(strncmp(z + 19, "0 s", 3) != 0);
		assert_int_equal(sscanf(strstr(ax, "zoomed key labels: "), "zoomed key labels: %d", &zkeys), 1);
		assert_true(zkeys >= 3);
		free(ax);
	}
	free(d);
	/* a screenshot of the first map */
	char shot[96];
	snprintf(shot, sizeof shot, "%s/shot.png", dir);
	snprintf(cmd, sizeof cmd,
	         "timeout 120 '%s' --headless --no-sandbox --disable-gpu --disable-background-networking "
	         "--disable-component-update --disable-sync --no-first-run --user-data-dir='%s/profile' "
	         "--virtual-time-budget=5000 --window-size=1200,800 --screenshot='%s' 'file://%s#shot' "
	         ">/dev/null 2>&1",
	         chrome, dir, shot, html);
	assert_int_equal(system(cmd), 0);
	cairo_surface_t *img = cairo_image_surface_create_from_png(shot);
	assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
	cairo_surface_flush(img);
	const uint8_t *px = cairo_image_surface_get_data(img);
	int W = cairo_image_surface_get_width(img), H = cairo_image_surface_get_height(img),
	    st = cairo_image_surface_get_stride(img);
#define LUM(x, y)                                                                                  \
	((int)((((*(const uint32_t *)(px + (size_t)(y) * (size_t)st + 4 * (size_t)(x))) >> 16) & 255) * 3 + \
	       (((*(const uint32_t *)(px + (size_t)(y) * (size_t)st + 4 * (size_t)(x))) >> 8) & 255) * 6 + \
	       ((*(const uint32_t *)(px + (size_t)(y) * (size_t)st + 4 * (size_t)(x))) & 255)) / 10)
	/* the scale: the longest column run of pixels getting brighter upwards, >= 150 px,
	 * from dark (< 50) to bright (> 200), right of the middle */
	int sx = -1, sy0 = 0, sy1 = 0;
	for (int x = W / 2; x < W && sx < 0; x++) {
		int run0 = H - 1;
		for (int y = H - 2; y >= 0; y--) {
			if (LUM(x, y) + 2 < LUM(x, y + 1) || LUM(x, y) > 250) {
				if (run0 - y >= 150 && LUM(x, run0) < 50 && LUM(x, y + 1) > 200) {
					sx = x;
					sy0 = y + 1;
					sy1 = run0;
					break;
				}
				run0 = y;
			}
		}
	}
	assert_true(sx >= 0);
	/* text left of the map (key labels) and in the band under the map (time labels) */
	int ink = 0, tink = 0;
	for (int y = sy0; y < sy1; y++)
		for (int x = 0; x < 170; x++)
			ink += LUM(x, y) < 110;
	for (int y = sy1 + 5; y < sy1 + 20 && y < H; y++)
		for (int x = 180; x < sx - 60; x++)
			tink += LUM(x, y) < 110;
	assert_true(ink > 300);
	assert_true(tink > 50);
#undef LUM
	cairo_surface_destroy(img);
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
