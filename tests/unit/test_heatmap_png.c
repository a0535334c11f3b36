/*
 * The heatmap pictures, read back pixel by pixel: a known small workload (a
 * key that leads with the date, so one region at a time takes the writes) is
 * drawn, and the PNG is checked where the layout says things are: the
 * hottest cell bright, an idle cell dark, text in the key-label column, under
 * the time axis, in the title and beside the colour scale, the scale running
 * from dark to bright, the servers x time map showing the hot server, the
 * region-server strip coloured. The compare picture puts runs side by side
 * on one scale.
 */
#define _DEFAULT_SOURCE
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

#include "analyze/analyze_int.h"

static rk_analysis *run(const char *label, const char *text)
{
	rk_workload_options w = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options o = RK_ANALYZE_OPTIONS_INIT;
	rk_schema *s;
	rk_analysis *a;
	w.rate = 1000;
	w.duration = 60;
	o.servers = 4;
	o.split_threshold = 256 << 10;
	o.balance_interval = 10;
	o.time_buckets = 30;
	o.key_buckets = 60;
	assert_int_equal(rk_schema_parse(&s, text, strlen(text), label), 0);
	assert_int_equal(rk_analyze_run(&a, s, label, &w, &o), 0);
	rk_schema_free(s);
	return a;
}

typedef struct img {
	cairo_surface_t *s;
	const uint8_t *p;
	int w, h, stride;
} img;

static void load(img *m, const char *path)
{
	m->s = cairo_image_surface_create_from_png(path);
	assert_int_equal(cairo_surface_status(m->s), CAIRO_STATUS_SUCCESS);
	cairo_surface_flush(m->s);
	m->p = cairo_image_surface_get_data(m->s);
	m->w = cairo_image_surface_get_width(m->s);
	m->h = cairo_image_surface_get_height(m->s);
	m->stride = cairo_image_surface_get_stride(m->s);
}

/* 0..255 luminance of pixel (x, y) */
static int lum(const img *m, int x, int y)
{
	assert_true(x >= 0 && y >= 0 && x < m->w && y < m->h);
	uint32_t v = *(const uint32_t *)(m->p + (size_t)y * (size_t)m->stride + 4 * (size_t)x);
	int r = (v >> 16) & 255, g = (v >> 8) & 255, b = v & 255;
	return (r * 3 + g * 6 + b) / 10;
}

/* pixels darker than 110 in a rectangle (text on the white page) */
static int ink(const img *m, int x0, int y0, int x1, int y1)
{
	int n = 0;
	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++)
			n += lum(m, x, y) < 110;
	return n;
}

static void cell_centre(const rk__pic_layout *L, const rk_heatmap *h, size_t r, size_t c, int *x,
                        int *y)
{
	*x = L->map_x + (int)(((double)c + 0.5) * L->map_w / (double)h->cols);
	*y = L->map_y + (int)(((double)r + 0.5) * L->map_h / (double)h->rows);
}

static void png_of_one_run(void **state)
{
	(void)state;
	rk_analysis *a = run("by-date", "fields date:str, time:str, id:u64; key date \":\" time \":\" id");
	char path[] = "/tmp/rk_heat_XXXXXX.png";
	int fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(rk_analysis_write_png(a, path), 0);
	img m;
	load(&m, path);
	rk__pic_layout L;
	rk__pic_layout_of(&L, a);
	assert_int_equal(m.w, L.width);
	assert_int_equal(m.h, L.height);
	rk_heatmap h;
	assert_int_equal(rk_analysis_heatmap(&h, a), 0);
	assert_true(h.rows <= (size_t)L.map_h); /* every row has its own pixels */

	/* the hottest cell is bright */
	size_t best = 0;
	for (size_t k = 0; k < h.rows * h.cols; k++)
		if (h.writes[k] > h.writes[best])
			best = k;
	int x, y;
	cell_centre(&L, &h, best / h.cols, best % h.cols, &x, &y);
	assert_true(lum(&m, x, y) > 200);
	/* an idle cell (no writes in it or the rows next to it) is dark */
	size_t idle = SIZE_MAX;
	for (size_t r = 1; r + 1 < h.rows && idle == SIZE_MAX; r++)
		for (size_t c = 0; c < h.cols; c++)
			if (!h.writes[(r - 1) * h.cols + c] && !h.writes[r * h.cols + c] &&
			    !h.writes[(r + 1) * h.cols + c]) {
				idle = r * h.cols + c;
				break;
			}
	assert_true(idle != SIZE_MAX);
	cell_centre(&L, &h, idle / h.cols, idle % h.cols, &x, &y);
	assert_true(lum(&m, x, y) < 50);

	/* text: the title, the key labels at region starts, the time labels, the scale's numbers */
	assert_true(ink(&m, 8, 0, L.width / 2, L.map_y - 50) > 100);
	assert_true(ink(&m, L.keylab_x, L.map_y, L.map_x - 6, L.map_y + L.map_h) > 300);
	assert_true(ink(&m, L.map_x, L.map_y + L.map_h + 5, L.map_x + L.map_w, L.map_y + L.map_h + 18) >
	            100);
	assert_true(ink(&m, L.scale_x + L.scale_w + 4, L.scale_y, L.width, L.scale_y + L.scale_h) > 60);
	/* the scale: dark at the bottom, bright at the top */
	assert_true(lum(&m, L.scale_x + L.scale_w / 2, L.scale_y + L.scale_h - 2) < 50);
	assert_true(lum(&m, L.scale_x + L.scale_w / 2, L.scale_y + 2) > 200);
	/* the region-server strip is coloured (not the page's white, not the map's dark) */
	int sl = lum(&m, L.strip_x + 2, L.map_y + L.map_h / 2);
	assert_true(sl > 40 && sl < 240);
	/* servers x time: in the first time bucket the busiest server's row is bright,
	 * and some other server's row is dark (one region at a time takes the writes) */
	const rk_report *rep = rk_analysis_report(a);
	int bright = 0, dark = 0;
	for (unsigned s = 0; s < rep->servers; s++) {
		int l = lum(&m, L.srv_x + 2, L.srv_y + (int)((s + 0.5) * L.srv_h / rep->servers));
		bright += l > 200;
		dark += l < 50;
	}
	assert_int_equal(bright, 1);
	assert_true(dark >= 1);
	cairo_surface_destroy(m.s);
	unlink(path);
	rk_analysis_free(a);
}

static void compare_png_side_by_side(void **state)
{
	(void)state;
	rk_analysis *runs[2] = {
	    run("by-date", "fields date:str, time:str, id:u64; key date \":\" time \":\" id"),
	    run("salt-4", "fields date:str, time:str, id:u64; key bucket(4, xxh3(id), dec) \":\" date "
	                  "\":\" time \":\" id"),
	};
	char path[] = "/tmp/rk_heat_XXXXXX.png";
	int fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(rk_analysis_write_compare_png(path, (const rk_analysis *const *)runs, 2), 0);
	img m;
	load(&m, path);
	rk__pic_layout L;
	rk__pic_layout_of(&L, runs[0]);
	/* two panels wider than one map, both with titles */
	assert_true(m.w > 2 * 300);
	assert_true(ink(&m, 8, 26, m.w / 3, 60) > 50);
	assert_true(ink(&m, m.w / 2 - 40, 26, m.w - 120, 60) > 50);
	cairo_surface_destroy(m.s);
	unlink(path);
	/* no run with a heatmap: a clear error, nothing written */
	assert_int_equal(rk_analysis_write_compare_png(path, (const rk_analysis *const *)runs, 0),
	                 RK_ENOTFOUND);
	assert_int_equal(access(path, F_OK), -1);
	rk_analysis_free(runs[0]);
	rk_analysis_free(runs[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(png_of_one_run),
	    cmocka_unit_test(compare_png_side_by_side),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
