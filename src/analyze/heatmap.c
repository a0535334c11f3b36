/*
 * The key heatmap as a PNG, as Bigtable's Key Visualizer draws it: x = time,
 * y = key space (ordered key ranges, lowest keys at the top), colour =
 * operations on a log scale (cairo draws it, text in DejaVu Sans), with the
 * key at each region start, each region's server beside the map, a servers
 * x time map below and the colour scales. The HTML page is heatmap_html.c;
 * the key labels both use are heatmap_keys.c.
 */
#include <errno.h>
#include <math.h>
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/analyze_int.h"
#include "key/error.h"
#include "key/outfile.h"
#include "key/units.h"

/* ---- colours ---- */

static const double stops[][3] = {
    {14, 14, 30}, {40, 30, 120}, {150, 30, 130}, {230, 60, 40}, {250, 170, 30}, {255, 255, 210}};

/* t in [0, 1] along the ramp; t <= 0 is the idle colour */
static void ramp(uint8_t *px, double t)
{
	if (!(t > 0)) {
		px[0] = 14;
		px[1] = 14;
		px[2] = 30;
		return;
	}
	double pos = 1 + (t > 1 ? 1 : t) * 4; /* stops 1..5: anything non-zero is visible */
	int i = (int)pos;
	if (i >= 5) {
		i = 4;
		pos = 5;
	}
	double f = pos - i;
	for (int c = 0; c < 3; c++)
		px[c] = (uint8_t)lround(stops[i][c] + f * (stops[i + 1][c] - stops[i][c]));
}

static void colour(uint8_t *px, uint64_t v, double logmax)
{
	ramp(px, v && logmax > 0 ? log1p((double)v) / logmax : 0);
}

/* ---- the PNG (cairo, text in DejaVu Sans through fontconfig) ---- */

static const double server_hue[][3] = {
    {0.12, 0.47, 0.71}, {1.00, 0.50, 0.05}, {0.17, 0.63, 0.17}, {0.84, 0.15, 0.16},
    {0.58, 0.40, 0.74}, {0.55, 0.34, 0.29}, {0.89, 0.47, 0.76}, {0.50, 0.50, 0.50},
    {0.74, 0.74, 0.13}, {0.09, 0.75, 0.81}};

enum { PIC_MAP_W = 660, PIC_MAP_H = 360, PIC_KEYLAB = 190, PIC_TOP = 84 };

static int srv_height(unsigned servers)
{
	int h = (int)servers * 14;
	return h < 56 ? 56 : h > 168 ? 168 : h;
}

/* the layout of one run's panel at (ox, oy) with a key map map_w wide */
static void layout_at(rk__pic_layout *L, const rk_analysis *a, int ox, int oy, int map_w)
{
	memset(L, 0, sizeof *L);
	L->keylab_x = ox + 8;
	L->keylab_w = PIC_KEYLAB - 14;
	L->map_x = ox + PIC_KEYLAB;
	L->map_y = oy + PIC_TOP;
	L->map_w = map_w;
	L->map_h = PIC_MAP_H;
	L->strip_x = L->map_x + L->map_w + 3;
	L->strip_w = 30;
	L->srv_x = L->map_x;
	L->srv_y = L->map_y + L->map_h + 30;
	L->srv_w = map_w;
	L->srv_h = srv_height(a->rep.servers);
	L->scale_x = L->strip_x + L->strip_w + 26;
	L->scale_y = L->map_y;
	L->scale_w = 16;
	L->scale_h = L->map_h;
	L->width = L->scale_x + L->scale_w + 80 - ox;
	L->height = L->srv_y + L->srv_h + 44 - oy;
}

void rk__pic_layout_of(rk__pic_layout *L, const rk_analysis *a)
{
	layout_at(L, a, 0, 0, PIC_MAP_W);
}

static void set_rgb(cairo_t *cr, double r, double g, double b)
{
	cairo_set_source_rgb(cr, r, g, b);
}

/* draws s at (x, y) (baseline), cut with "..." to fit w pixels; align 0
 * left, 1 right, 0.5 centre */
static void text_at(cairo_t *cr, double x, double y, double w, double align, const char *s)
{
	char buf[256];
	cairo_text_extents_t e;
	snprintf(buf, sizeof buf, "%s", s);
	cairo_text_extents(cr, buf, &e);
	size_t n = strlen(buf);
	while (e.x_advance > w && n > 3) {
		n--;
		memcpy(buf + n - 3, "...", 4);
		cairo_text_extents(cr, buf, &e);
	}
	cairo_move_to(cr, x - align * e.x_advance, y);
	cairo_show_text(cr, buf);
}

static void font(cairo_t *cr, double size, int bold)
{
	cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
	                       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

/* a tick step of 1, 2, 5 x 10^k (seconds: also 15, 30 s and minutes) giving at most ~8 ticks */
static double tick_step(double span)
{
	static const double steps[] = {0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900,
	                               1800, 3600, 7200, 10800, 21600, 43200, 86400};
	for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
		if (span / steps[i] <= 8)
			return steps[i];
	return ceil(span / 8 / 86400) * 86400;
}

static void time_label(char *buf, size_t cap, const rk_analysis *a, double t, double span)
{
	if (a->t0_ms) {
		time_t secs = (time_t)((a->t0_ms + (int64_t)llround(t * 1000)) / 1000);
		struct tm tm;
		gmtime_r(&secs, &tm);
		if (span >= 86400)
			strftime(buf, cap, "%m-%d %H:%M", &tm);
		else
			strftime(buf, cap, "%H:%M:%S", &tm);
	} else if (span > 180) {
		long s = lround(t);
		snprintf(buf, cap, "%ld:%02ld", s / 60, s % 60);
	} else {
		snprintf(buf, cap, "%g s", t);
	}
}

/* time ticks and labels under a map drawn at (x, y) w wide */
static void time_axis(cairo_t *cr, const rk_analysis *a, double x, double y, double w, int caption)
{
	double span = a->cols * a->col_s, step = tick_step(span);
	if (a->t0_ms && step < 1)
		step = 1; /* wall-clock labels are whole seconds */
	char buf[48];
	font(cr, 10, 0);
	set_rgb(cr, 0.2, 0.2, 0.2);
	cairo_set_line_width(cr, 1);
	for (double t = 0; t <= span + 1e-9; t += step) {
		double px = floor(x + t / span * w) + 0.5;
		cairo_move_to(cr, px, y);
		cairo_line_to(cr, px, y + 4);
		cairo_stroke(cr);
		time_label(buf, sizeof buf, a, t, span);
		text_at(cr, px, y + 14, 80, t == 0 ? 0 : px + 30 > x + w ? 1 : 0.5, buf);
	}
	if (caption) {
		font(cr, 10, 0);
		set_rgb(cr, 0.4, 0.4, 0.4);
		text_at(cr, x + w, y + 27, 300, 1,
		        a->t0_ms ? "time (UTC) \xe2\x86\x92"
		                 : span > 180 ? "time (min:s) \xe2\x86\x92" : "time \xe2\x86\x92");
	}
}


/* pixels of a heat image: w x h, each pixel the largest cell it covers */
static void paint_cells(uint8_t *img, int stride, int w, int h, size_t rows, size_t cols,
                        const uint64_t *v, double logmax, int share)
{
	for (int py = 0; py < h; py++) {
		size_t r0 = (size_t)py * rows / (size_t)h, r1 = (size_t)(py + 1) * rows / (size_t)h;
		if (r1 <= r0)
			r1 = r0 + 1;
		for (int px = 0; px < w; px++) {
			size_t c = (size_t)px * cols / (size_t)w;
			uint64_t m = 0, tot = 0;
			for (size_t r = r0; r < r1; r++)
				m = v[r * cols + c] > m ? v[r * cols + c] : m;
			uint8_t rgb[3];
			if (share) { /* rows are servers: share of the column's writes, linear */
				for (size_t r = 0; r < rows; r++)
					tot += v[r * cols + c];
				ramp(rgb, tot ? (double)m / (double)tot : 0);
			} else {
				colour(rgb, m, logmax);
			}
			uint32_t *p = (uint32_t *)(img + (size_t)py * (size_t)stride) + px;
			*p = 0xff000000u | (uint32_t)rgb[0] << 16 | (uint32_t)rgb[1] << 8 | rgb[2];
		}
	}
}

static int blit(cairo_t *cr, int x, int y, int w, int h, size_t rows, size_t cols,
                const uint64_t *v, double logmax, int share)
{
	cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(img);
		return RK_ENOMEM;
	}
	cairo_surface_flush(img);
	paint_cells(cairo_image_surface_get_data(img), cairo_image_surface_get_stride(img), w, h, rows,
	            cols, v, logmax, share);
	cairo_surface_mark_dirty(img);
	cairo_set_source_surface(cr, img, x, y);
	cairo_paint(cr);
	cairo_surface_destroy(img);
	return 0;
}

/* The prefix hierarchy of the rows' keys, as Key Visualizer's key axis:
 * the groups of the first key part (a bucket, or the first field) in bold
 * with a bracket, those of the next part beside them. 0 when the first part
 * alone tells most rows apart: then keys are labelled at region starts. */
static int key_levels(cairo_t *cr, const rk_analysis *a, const rk__pic_layout *L, rk__keytext *kf)
{
	rk__keygroup *g[2];
	size_t ng[2];
	if (rk__keytext_groups(g, ng, 2, kf, (const uint8_t *const *)a->row_key, a->row_key_len, a->rows))
		return 0;
	int coarse = ng[0] && ng[0] * 2 <= a->rows;
	double w0 = L->keylab_w * 0.42, hr = (double)L->map_h / (double)a->rows;
	for (int lv = 0; coarse && lv < 2; lv++) {
		double last = -100;
		for (size_t i = 0; i < ng[lv]; i++) {
			double y0 = L->map_y + (double)g[lv][i].row * hr, y1 = y0 + (double)g[lv][i].rows * hr;
			if (!lv) {
				set_rgb(cr, 0.6, 0.6, 0.6);
				cairo_set_line_width(cr, 1);
				cairo_move_to(cr, L->keylab_x + w0 - 1, y0 + 1);
				cairo_line_to(cr, L->keylab_x + w0 + 2, y0 + 1);
				cairo_line_to(cr, L->keylab_x + w0 + 2, y1 - 1);
				cairo_line_to(cr, L->keylab_x + w0 - 1, y1 - 1);
				cairo_stroke(cr);
			}
			if (y0 - last < 12 || y0 > L->map_y + L->map_h - 4)
				continue;
			last = y0;
			font(cr, lv ? 9 : 10, !lv);
			set_rgb(cr, 0.13, 0.13, 0.13);
			text_at(cr, L->keylab_x + (lv ? w0 + 6 : 0), y0 + 9, lv ? L->keylab_w - w0 - 10 : w0 - 4, 0,
			        g[lv][i].label);
		}
	}
	free(g[0]);
	free(g[1]);
	return coarse;
}

/* the key labels (a prefix hierarchy, or keys at region boundaries), the
 * boundary lines and the region-server strip */
static void key_axis(cairo_t *cr, const rk_analysis *a, const rk__pic_layout *L, rk__keytext *kf)
{
	char kt[96];
	double last = -100;
	int levels = key_levels(cr, a, L, kf);
	font(cr, 10, 0);
	set_rgb(cr, 0.4, 0.4, 0.4);
	text_at(cr, L->keylab_x, L->map_y - 6, L->keylab_w, 0,
	        levels ? "key (first part, then the next) \xe2\x86\x93" : "key (region starts) \xe2\x86\x93");
	text_at(cr, L->strip_x, L->map_y - 6, 60, 0, "server");
	size_t n = a->nregions;
	for (size_t i = 0; i < (n ? n : a->rows); i++) {
		const uint8_t *k = n ? a->regions[i].start : a->row_key[i];
		size_t kl = n ? a->regions[i].start_len : a->row_key_len[i];
		size_t r = n ? rk__heat_row_of(a, k, kl) : i;
		size_t r_end = a->rows;
		if (n && i + 1 < n)
			r_end = rk__heat_row_of(a, a->regions[i + 1].start, a->regions[i + 1].start_len);
		else if (!n)
			r_end = i + 1;
		double y0 = L->map_y + (double)r * L->map_h / (double)a->rows;
		double y1 = L->map_y + (double)r_end * L->map_h / (double)a->rows;
		if (n) { /* the region's server, beside the map */
			unsigned s = a->regions[i].server;
			const double *c = server_hue[s % 10];
			cairo_set_source_rgb(cr, c[0], c[1], c[2]);
			cairo_rectangle(cr, L->strip_x, y0, L->strip_w, y1 - y0 > 1 ? y1 - y0 : 1);
			cairo_fill(cr);
			if (y1 - y0 >= 11) {
				char sv[16];
				snprintf(sv, sizeof sv, "rs%u", s);
				font(cr, 9, 1);
				set_rgb(cr, 1, 1, 1);
				text_at(cr, L->strip_x + L->strip_w / 2.0, (y0 + y1) / 2 + 3.5, L->strip_w, 0.5, sv);
			}
			if (i && a->regions[i].server != a->regions[i - 1].server) {
				set_rgb(cr, 0.1, 0.1, 0.1); /* a server boundary */
				cairo_set_line_width(cr, 1.5);
				cairo_move_to(cr, L->strip_x, y0);
				cairo_line_to(cr, L->strip_x + L->strip_w, y0);
				cairo_stroke(cr);
			}
			if (i) { /* the region boundary across the map */
				cairo_set_source_rgba(cr, 1, 1, 1, 0.22);
				cairo_set_line_width(cr, 1);
				cairo_move_to(cr, L->map_x, floor(y0) + 0.5);
				cairo_line_to(cr, L->map_x + L->map_w, floor(y0) + 0.5);
				cairo_stroke(cr);
			}
		}
		if (levels || y0 - last < 12 || y0 > L->map_y + L->map_h - 4)
			continue;
		last = y0;
		font(cr, 10, 0);
		set_rgb(cr, 0.13, 0.13, 0.13);
		if (kl == 0)
			snprintf(kt, sizeof kt, "(first key)");
		else
			rk__keytext_label(kf, kt, sizeof kt, k, kl);
		text_at(cr, L->map_x - 5, y0 + 9, L->keylab_w, 1, kt);
		set_rgb(cr, 0.5, 0.5, 0.5);
		cairo_set_line_width(cr, 1);
		cairo_move_to(cr, L->map_x - 4, floor(y0) + 0.5);
		cairo_line_to(cr, L->map_x, floor(y0) + 0.5);
		cairo_stroke(cr);
	}
}

/* a vertical colour bar: log (writes per cell up to max) or linear (0..100 %) */
static void scale_bar(cairo_t *cr, double x, double y, double w, double h, uint64_t max, int share,
                      const char *title)
{
	uint8_t rgb[3];
	double logmax = log1p((double)max);
	for (int i = 0; i < (int)h; i++) {
		double t = (h - 1 - i) / (h - 1);
		ramp(rgb, t <= 0.02 ? 0 : t);
		set_rgb(cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
		cairo_rectangle(cr, x, y + i, w, 1);
		cairo_fill(cr);
	}
	set_rgb(cr, 0.5, 0.5, 0.5);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, x - 0.5, y - 0.5, w + 1, h + 1);
	cairo_stroke(cr);
	font(cr, 10, 1);
	set_rgb(cr, 0.2, 0.2, 0.2);
	text_at(cr, x - 6, y - 20, 120, 0, title);
	font(cr, 9, 0);
	text_at(cr, x - 6, y - 8, 120, 0, share ? "linear" : "log scale");
	char buf[32];
	double lasty = 1e9;
	if (share) {
		for (int p = 0; p <= 100; p += h >= 80 ? 25 : 50) {
			double ty = y + h - p / 100.0 * h;
			snprintf(buf, sizeof buf, "%d%%", p);
			cairo_move_to(cr, x + w, ty);
			cairo_line_to(cr, x + w + 3, ty);
			cairo_stroke(cr);
			text_at(cr, x + w + 5, ty + 3, 60, 0, buf);
		}
		return;
	}
	/* 0, then 1, 10, 100, ... and the maximum */
	text_at(cr, x + w + 5, y + h + 3, 60, 0, "0");
	for (uint64_t v = 1; max && v <= max; v *= 10) {
		double ty = y + h - log1p((double)v) / logmax * h;
		if (lasty - ty < 11 || ty - y < 11)
			continue;
		rk__count_text(buf, RK_NUM_STR, v);
		cairo_move_to(cr, x + w, ty);
		cairo_line_to(cr, x + w + 3, ty);
		cairo_stroke(cr);
		text_at(cr, x + w + 5, ty + 3, 60, 0, buf);
		lasty = ty;
		if (v > UINT64_MAX / 10)
			break;
	}
	rk__count_text(buf, RK_NUM_STR, max);
	text_at(cr, x + w + 5, y + 4, 60, 0, buf);
}

/* one run's panel: title, verdict, key map with axes, server map */
static int draw_panel(cairo_t *cr, const rk_analysis *a, const rk__pic_layout *L, int ox,
                      uint64_t max, int with_scales)
{
	const rk_report *r = &a->rep;
	char line[320], wn[RK_NUM_STR], rn[RK_NUM_STR];
	int rc;
	font(cr, 17, 1);
	set_rgb(cr, 0.1, 0.1, 0.1);
	text_at(cr, ox + 10, L->map_y - 62, L->width - 20, 0, a->design);
	rk__count_text(wn, RK_NUM_STR, r->writes);
	rk__count_text(rn, RK_NUM_STR, r->reads);
	snprintf(line, sizeof line, "workload %s \xc2\xb7 %s writes, %s reads \xc2\xb7 %u servers \xc2\xb7 %s",
	         a->workload, wn, rn, r->servers, r->engine);
	font(cr, 11, 0);
	set_rgb(cr, 0.3, 0.3, 0.3);
	text_at(cr, ox + 10, L->map_y - 44, L->width - 20, 0, line);
	font(cr, 11, 1);
	set_rgb(cr, 0.65, 0.1, 0.15);
	text_at(cr, ox + 10, L->map_y - 26, L->width - 20, 0, r->verdict ? r->verdict : "");
	/* the key map */
	if ((rc = blit(cr, L->map_x, L->map_y, L->map_w, L->map_h, a->rows, a->cols, a->hw,
	               log1p((double)max), 0)) != 0)
		return rc;
	rk__keytext *kf = rk__keytext_new(a->schema_text);
	if (!kf)
		return RK_ENOMEM;
	key_axis(cr, a, L, kf);
	rk__keytext_free(kf);
	time_axis(cr, a, L->map_x, L->map_y + L->map_h, L->map_w, 0);
	/* the servers x time map */
	if (a->sw) {
		unsigned S = r->servers;
		uint64_t *t = malloc((size_t)S * a->cols * sizeof *t); /* rows = servers */
		if (!t)
			return RK_ENOMEM;
		for (size_t c = 0; c < a->cols; c++)
			for (unsigned s = 0; s < S; s++)
				t[s * a->cols + c] = a->sw[c * S + s];
		rc = blit(cr, L->srv_x, L->srv_y, L->srv_w, L->srv_h, S, a->cols, t, 0, 1);
		free(t);
		if (rc)
			return rc;
		font(cr, 10, 0);
		set_rgb(cr, 0.4, 0.4, 0.4);
		text_at(cr, L->keylab_x, L->srv_y - 6, L->keylab_w + 200, 0,
		        "writes per server (share of each time bucket)");
		double rh = (double)L->srv_h / S;
		unsigned every = rh >= 10 ? 1 : (unsigned)ceil(10 / rh);
		font(cr, 9, 0);
		for (unsigned s = 0; s < S; s += every) {
			char sv[16];
			snprintf(sv, sizeof sv, "rs%u", s);
			set_rgb(cr, 0.13, 0.13, 0.13);
			text_at(cr, L->srv_x - 5, L->srv_y + (s + 0.5) * rh + 3.5, 60, 1, sv);
		}
		time_axis(cr, a, L->srv_x, L->srv_y + L->srv_h, L->srv_w, 1);
		if (with_scales)
			scale_bar(cr, L->scale_x, L->srv_y + 24, L->scale_w, L->srv_h - 24, 0, 1,
			          "server share");
	}
	if (with_scales) {
		char t[64];
		snprintf(t, sizeof t, "writes / cell");
		scale_bar(cr, L->scale_x, L->scale_y, L->scale_w, L->scale_h, max, 0, t);
	}
	return 0;
}

static uint64_t max_writes(const rk_analysis *a)
{
	uint64_t max = 0;
	for (size_t i = 0; i < a->rows * a->cols; i++)
		max = a->hw[i] > max ? a->hw[i] : max;
	return max;
}

static cairo_status_t png_out(void *f, const unsigned char *p, unsigned int n)
{
	return fwrite(p, 1, n, f) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* The picture appears whole or not at all (key/outfile.h). */
static int save(cairo_surface_t *surf, const char *path, int rc)
{
	rk__outfile o;
	if (rc == 0 && rk__outfile_open(&o, path) < 0) {
		rc = rk__err(RK_EIO, "%s: %s", path, strerror(errno));
	} else if (rc == 0) {
		cairo_surface_flush(surf);
		errno = 0;
		cairo_status_t st = cairo_surface_write_to_png_stream(surf, png_out, o.f);
		if (rk__outfile_close(&o, st == CAIRO_STATUS_SUCCESS) < 0)
			rc = rk__err(RK_EIO, "%s: %s", path,
			             st == CAIRO_STATUS_SUCCESS || st == CAIRO_STATUS_WRITE_ERROR
			                     ? strerror(errno ? errno : EIO)
			                     : cairo_status_to_string(st));
	} else if (rc == RK_ENOMEM) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory for the picture", path);
	}
	cairo_surface_destroy(surf);
	return rc;
}

static cairo_t *canvas(cairo_surface_t **surf, int w, int h)
{
	*surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	cairo_t *cr = cairo_create(*surf);
	set_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	return cr;
}

int rk_analysis_write_png(const rk_analysis *a, const char *path)
{
	rk_heatmap h;
	int rc;
	if ((rc = rk_analysis_heatmap(&h, a)) != 0)
		return rc;
	rk__pic_layout L;
	rk__pic_layout_of(&L, a);
	cairo_surface_t *surf;
	cairo_t *cr = canvas(&surf, L.width, L.height);
	errno = 0;
	rc = cairo_status(cr) == CAIRO_STATUS_SUCCESS ? draw_panel(cr, a, &L, 0, max_writes(a), 1)
	                                               : RK_ENOMEM;
	cairo_destroy(cr);
	return save(surf, path, rc);
}

int rk_analysis_write_compare_png(const char *path, const rk_analysis *const *runs, size_t n)
{
	uint64_t max = 0;
	size_t k = 0;
	unsigned S = 1;
	for (size_t i = 0; i < n; i++)
		if (runs[i]->hw) {
			uint64_t m = max_writes(runs[i]);
			max = m > max ? m : max;
			S = runs[i]->rep.servers > S ? runs[i]->rep.servers : S;
			k++;
		}
	if (!k)
		return rk__err(RK_ENOTFOUND, "%s: none of the %zu runs has a heatmap", path, n);
	/* panels in a row (two rows beyond three runs), one shared scale on the right */
	size_t per_row = k <= 3 ? k : (k + 1) / 2, nrows = (k + per_row - 1) / per_row;
	int mw = 300;
	rk__pic_layout L;
	layout_at(&L, runs[0], 0, 0, mw);
	int pw = L.strip_x + L.strip_w + 12, ph = L.map_y + L.map_h + 44 + srv_height(S) + 44;
	int W = (int)per_row * pw + 110, H = (int)nrows * ph + 30;
	cairo_surface_t *surf;
	cairo_t *cr = canvas(&surf, W, H);
	errno = 0;
	int rc = cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : RK_ENOMEM;
	if (rc == 0) {
		font(cr, 12, 1);
		set_rgb(cr, 0.2, 0.2, 0.2);
		text_at(cr, 10, 20, W - 20, 0, "one colour scale for every design: brighter = more writes");
	}
	for (size_t i = 0, j = 0; rc == 0 && i < n; i++) {
		if (!runs[i]->hw)
			continue;
		int ox = (int)(j % per_row) * pw, oy = 26 + (int)(j / per_row) * ph;
		layout_at(&L, runs[i], ox, oy, mw);
		L.width = pw;
		rc = draw_panel(cr, runs[i], &L, ox, max, 0);
		j++;
	}
	if (rc == 0) {
		layout_at(&L, runs[0], 0, 26, mw);
		scale_bar(cr, W - 90, L.map_y, 16, L.map_h, max, 0, "writes / cell");
		scale_bar(cr, W - 90, L.map_y + L.map_h + 70, 16, srv_height(S) - 24, 0, 1,
		          "server share");
	}
	cairo_destroy(cr);
	return save(surf, path, rc);
}
