/*
 * The key heatmap, as Bigtable's Key Visualizer draws it: x = time, y = key
 * space (ordered key ranges, lowest keys at the top), colour = operations on
 * a log scale. Two outputs: a PNG (libpng) of the writes per cell, and one
 * self-contained HTML page (inline CSS, data and JS; no network resources)
 * with the comparison table, each run's summary, and a canvas per run with
 * hover details per cell and a choice of writes, reads or both.
 *
 * The page supports a self-test used by tests/integration/test_analyze_html:
 * opened with "#selftest", it hovers the hottest cell of each map and copies
 * the tooltip into <pre id="selftest-N">; the maps start on writes, so a headless browser's DOM dump
 * shows what a user would see.
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
#include "store/local/meta.h"

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

/* the heat row holding key k: the last row whose first key is <= k */
static size_t row_of(const rk_analysis *a, const uint8_t *k, size_t kl)
{
	size_t lo = 0, hi = a->rows;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (rk_meta__row_cmp(a->row_key[mid], a->row_key_len[mid], k, kl) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
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

static void commas(char *out, size_t cap, uint64_t n)
{
	char d[32];
	int len = snprintf(d, sizeof d, "%llu", (unsigned long long)n);
	size_t o = 0;
	for (int i = 0; i < len && o + 2 < cap; i++) {
		if (i && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = d[i];
	}
	out[o] = 0;
}

/* Key text for labels: the design's decoder (from the run's schema text, when
 * it has one) turns binary keys into their fields. */
typedef struct keyfmt {
	rk_schema *s;
	rk_encoder *e;
	rk_value *v;
	size_t nf;
} keyfmt;

static void keyfmt_init(keyfmt *f, const rk_analysis *a)
{
	memset(f, 0, sizeof *f);
	if (!a->schema_text || rk_schema_load(&f->s, a->schema_text) != 0) {
		f->s = NULL;
		return; /* no schema: labels show the key bytes */
	}
	f->nf = rk_schema_nfields(f->s);
	if (rk_encoder_new(&f->e, f->s, 0) != 0 || !(f->v = calloc(f->nf ? f->nf : 1, sizeof *f->v))) {
		rk_encoder_free(f->e);
		rk_schema_free(f->s);
		memset(f, 0, sizeof *f);
	}
}

static void keyfmt_fini(keyfmt *f)
{
	free(f->v);
	rk_encoder_free(f->e);
	rk_schema_free(f->s);
}

/* "field=value ..." of a whole key (with "bucket N: " for a bucketed design);
 * "" when the key does not decode (a split point is often only a prefix) */
static const char *key_decoded(char *buf, size_t cap, keyfmt *f, const uint8_t *k, size_t kl)
{
	size_t o = 0;
	buf[0] = 0;
	if (!f->s || !kl || rk_key_decode(f->v, f->e, k, kl) != 0)
		return buf;
	int b = rk_key_bucket(f->e, k, kl);
	if (b >= 0)
		o += (size_t)snprintf(buf, cap, "bucket %d:", b);
	for (size_t i = 0; i < f->nf && o + 8 < cap; i++) {
		if (!f->v[i].present)
			continue;
		char val[64];
		rk_value_format(val, sizeof val, rk_schema_field_type(f->s, i), &f->v[i]);
		for (char *c = val; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				*c = '?';
		o += (size_t)snprintf(buf + o, cap - o, "%s%s=%s", o ? " " : "", rk_schema_field_name(f->s, i),
		                      val);
	}
	if (o >= cap)
		buf[cap - 1] = 0;
	return buf;
}

/* a label for a key: its bytes when they are all printable, else its fields
 * when it decodes, else its bytes with \xNN escapes */
static const char *key_label(char *buf, size_t cap, keyfmt *f, const uint8_t *k, size_t kl)
{
	rk__key_text(buf, cap < 60 ? cap : 60, k, kl);
	if (!strstr(buf, "\\x"))
		return buf;
	char dec[160];
	key_decoded(dec, sizeof dec, f, k, kl);
	int b = f->s && kl ? rk_key_bucket(f->e, k, kl) : -1;
	if (dec[0])
		snprintf(buf, cap, "%s", dec);
	else if (b >= 0 && kl <= 2) /* a split point at a bucket prefix */
		snprintf(buf, cap, "bucket %d", b);
	return buf;
}

/* the key labels at region boundaries, the boundary lines and the region-server strip */
static void key_axis(cairo_t *cr, const rk_analysis *a, const rk__pic_layout *L, keyfmt *kf)
{
	char kt[96];
	double last = -100;
	font(cr, 10, 0);
	set_rgb(cr, 0.4, 0.4, 0.4);
	text_at(cr, L->keylab_x, L->map_y - 6, L->keylab_w, 0, "key (region starts) \xe2\x86\x93");
	text_at(cr, L->strip_x, L->map_y - 6, 60, 0, "server");
	size_t n = a->nregions;
	for (size_t i = 0; i < (n ? n : a->rows); i++) {
		const uint8_t *k = n ? a->regions[i].start : a->row_key[i];
		size_t kl = n ? a->regions[i].start_len : a->row_key_len[i];
		size_t r = n ? row_of(a, k, kl) : i;
		size_t r_end = a->rows;
		if (n && i + 1 < n)
			r_end = row_of(a, a->regions[i + 1].start, a->regions[i + 1].start_len);
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
		if (y0 - last < 12 || y0 > L->map_y + L->map_h - 4)
			continue;
		last = y0;
		font(cr, 10, 0);
		set_rgb(cr, 0.13, 0.13, 0.13);
		if (kl == 0)
			snprintf(kt, sizeof kt, "(first key)");
		else
			key_label(kt, sizeof kt, kf, k, kl);
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
		commas(buf, sizeof buf, v);
		cairo_move_to(cr, x + w, ty);
		cairo_line_to(cr, x + w + 3, ty);
		cairo_stroke(cr);
		text_at(cr, x + w + 5, ty + 3, 60, 0, buf);
		lasty = ty;
		if (v > UINT64_MAX / 10)
			break;
	}
	commas(buf, sizeof buf, max);
	text_at(cr, x + w + 5, y + 4, 60, 0, buf);
}

/* one run's panel: title, verdict, key map with axes, server map */
static int draw_panel(cairo_t *cr, const rk_analysis *a, const rk__pic_layout *L, int ox,
                      uint64_t max, int with_scales)
{
	const rk_report *r = &a->rep;
	char line[320], wn[32], rn[32];
	int rc;
	font(cr, 17, 1);
	set_rgb(cr, 0.1, 0.1, 0.1);
	text_at(cr, ox + 10, L->map_y - 62, L->width - 20, 0, a->design);
	commas(wn, sizeof wn, r->writes);
	commas(rn, sizeof rn, r->reads);
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
	keyfmt kf;
	keyfmt_init(&kf, a);
	key_axis(cr, a, L, &kf);
	keyfmt_fini(&kf);
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

static int save(cairo_surface_t *surf, const char *path, int rc)
{
	if (rc == 0) {
		cairo_surface_flush(surf);
		cairo_status_t st = cairo_surface_write_to_png(surf, path);
		if (st != CAIRO_STATUS_SUCCESS)
			rc = rk__err(RK_EIO, "%s: %s", path,
			             st == CAIRO_STATUS_WRITE_ERROR ? strerror(errno ? errno : EIO)
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

/* ---- HTML ---- */

static void html_text(rk__sb *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': rk__sb_put(b, "&lt;", 4); break;
		case '>': rk__sb_put(b, "&gt;", 4); break;
		case '&': rk__sb_put(b, "&amp;", 5); break;
		case '"': rk__sb_put(b, "&quot;", 6); break;
		default: rk__sb_put(b, s, 1);
		}
	}
}

static const char page_css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;background:#fafafa;color:#222}"
    "table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ccc;padding:3px 8px;"
    "text-align:right}td:first-child,th:first-child{text-align:left}th{background:#eee}"
    ".run{background:#fff;border:1px solid #ddd;padding:12px 16px;margin:16px 0}"
    ".verdict{font-weight:600;color:#a12}pre{background:#f4f4f4;padding:8px;white-space:pre-wrap}"
    ".map{position:relative;display:inline-block}canvas{border:1px solid #999;cursor:crosshair}"
    ".tip{position:absolute;pointer-events:none;background:rgba(0,0,0,.85);color:#fff;"
    "padding:4px 8px;font:12px monospace;white-space:pre;display:none;z-index:2}"
    ".axis{font-size:12px;color:#555;margin:6px 0}"
    "body.shot{margin:0}.shot h1,.shot>p,.shot table,.shot pre,.shot .run:not(#run-0),"
    ".shot #run-0>:not(.map){display:none}.shot #run-0{border:0;margin:0;padding:0}"
    ".shot canvas{border:0}.sidebox{display:flex;flex-wrap:wrap;gap:12px}"
    ".cap{font-weight:600;margin:4px 0}";

static const char page_js[] =
    "const DG='0123456789abcdefghijklmnopqrstuv',CG='ABCDEFGHIJKLMNOPQRSTUVWXYZ!#$%()';\n"
    "const DV={},CV={};for(let i=0;i<32;i++){DV[DG[i]]=i;CV[CG[i]]=i;}\n"
    "function dec(s,R,C){const o=new Float64Array(R*C);let k=0,v=0,last=0,run=false;\n"
    " const put=x=>{o[(k%R)*C+Math.floor(k/R)]=x;k++;};\n"
    " for(let i=0;i<s.length;i++){const ch=s[i];if(ch==='~'){run=true;continue;}\n"
    "  if(ch in CV){v=v*32+CV[ch];continue;}v=v*32+DV[ch];\n"
    "  if(run){for(let j=0;j<v;j++)put(last);run=false;}else{put(v);last=v;}v=0;}return o;}\n"
    "function fmt(n){return n.toLocaleString('en-US');}\n"
    "function secs(s){return s<120?s.toFixed(1)+' s':(s/60).toFixed(1)+' min';}\n"
    "const ST=[[14,14,30],[40,30,120],[150,30,130],[230,60,40],[250,170,30],[255,255,210]];\n"
    "const HUE=['#1f77b4','#ff7f0e','#2ca02c','#d62728','#9467bd','#8c564b','#e377c2','#7f7f7f','#bcbd22','#17becf'];\n"
    "function ramp(t){if(!(t>0))return ST[0];let p=1+Math.min(1,t)*4,j=Math.min(4,Math.floor(p));if(p>=5){j=4;p=5;}\n"
    " const f=p-j;return ST[j].map((a,q)=>Math.round(a+f*(ST[j+1][q]-a)));}\n"
    "function tickStep(span){const s=[0.1,0.2,0.5,1,2,5,10,15,30,60,120,300,600,900,1800,3600,7200,10800,21600,43200,86400];\n"
    " for(const x of s)if(span/x<=8)return x;return Math.ceil(span/8/86400)*86400;}\n"
    "function prep(run){if(run.P)return run.P;const R=run.rows,C=run.cols,S=run.servers;\n"
    " const M={writes:dec(run.w,R,C),reads:dec(run.r,R,C)};if(run.b)M.bytes=dec(run.b,R,C);\n"
    " M.all=M.writes.map((v,k)=>v+M.reads[k]);\n"
    " function transpose(a){const t=new Float64Array(C*S);for(let c=0;c<C;c++)for(let s=0;s<S;s++)t[s*C+c]=a[c*S+s];return t;}\n"
    " const SV={writes:transpose(dec(run.sw,C,S)),reads:transpose(dec(run.sr,C,S))};SV.all=SV.writes.map((v,k)=>v+SV.reads[k]);\n"
    " if(run.sb)SV.bytes=transpose(dec(run.sb,C,S));return run.P={M,SV};}\n"
    "function sharedMax(m){let mx=0;for(const r of RUNS)if(r.rows){const v=prep(r).M[m]||prep(r).M.writes;for(let k=0;k<v.length;k++)if(v[k]>mx)mx=v[k];}return mx;}\n"
    "const DRAWS=[];\n"
    "function setup(run,i,small){\n"
    " const pre=small?'side-':'',cv=document.getElementById((small?'side-':'map-')+i),tip=document.getElementById('tip-'+pre+i),\n"
    "  sel=document.getElementById(small?'metric-side':'metric-'+i),rz=small?null:document.getElementById('reset-'+i),\n"
    "  sh=document.getElementById('shared-scale');\n"
    " const ML=small?120:190,MT=30,MW=small?300:720,MH=small?240:420,SW=small?16:30,SC=MW+ML+SW+40;\n"
    " const R=run.rows,C=run.cols,S=run.servers,N=R*C,{M,SV}=prep(run);\n"
    " const SH=small?Math.max(32,Math.min(96,S*8)):Math.max(56,Math.min(168,S*14)),SY=MT+MH+46,H=SY+SH+44;\n"
    " cv.width=SC+110;cv.height=H;const g=cv.getContext('2d');\n"
    " const reg=run.regions;const rowReg=new Int32Array(R);\n"
    " for(let q=0,j=0;q<R;q++){while(j+1<reg.length&&reg[j+1][0]<=q)j++;rowReg[q]=j;}\n"
    " let V={c0:0,c1:C,r0:0,r1:R};\n"
    " const tl=t=>{const span=(V.c1-V.c0)*run.colS;if(run.t0){const d=new Date(run.t0+t*1000).toISOString();\n"
    "   return span>=86400?d.substr(5,11).replace('T',' '):d.substr(11,8);}\n"
    "  if((V.c1-V.c0)*run.colS>180){const s=Math.round(t);return Math.floor(s/60)+':'+String(s%60).padStart(2,'0');}\n"
    "  return (Math.round(t*10)/10)+' s';};\n"
    " function text(s,x,y,al,font,col){g.font=font||'11px sans-serif';g.fillStyle=col||'#222';g.textAlign=al||'left';g.fillText(s,x,y);}\n"
    " function timeAxis(y,drawn){const span=(V.c1-V.c0)*run.colS,a=V.c0*run.colS,st=run.t0?Math.max(1,tickStep(span)):tickStep(span);\n"
    "  g.strokeStyle='#333';for(let t=Math.ceil(a/st-1e-9)*st;t<=a+span+1e-9;t+=st){const x=Math.floor(ML+(t-a)/span*MW)+0.5;\n"
    "   g.beginPath();g.moveTo(x,y);g.lineTo(x,y+4);g.stroke();const l=tl(t);drawn.push(l);\n"
    "   text(l,x,y+15,x<ML+20?'left':x>ML+MW-25?'right':'center','10px sans-serif');}}\n"
    " function scale(x,y,h,max,share,title,drawn){for(let p=0;p<h;p++){const t=(h-1-p)/(h-1);\n"
    "   g.fillStyle='rgb('+ramp(t<=0.02?0:t)+')';g.fillRect(x,y+p,16,1);}\n"
    "  g.strokeStyle='#888';g.strokeRect(x-0.5,y-0.5,17,h+1);\n"
    "  text(title,x-6,y-20,'left','bold 11px sans-serif');text(share?'linear':'log scale',x-6,y-7,'left','10px sans-serif','#555');\n"
    "  const lab=(v,ty)=>{g.strokeStyle='#333';g.beginPath();g.moveTo(x+16,ty);g.lineTo(x+20,ty);g.stroke();text(v,x+22,ty+4,'left','10px sans-serif');drawn.push(v);};\n"
    "  if(share){for(let p=0;p<=100;p+=h>=80?25:50)lab(p+'%',y+h-p/100*h);return;}\n"
    "  const lm=Math.log1p(max);lab('0',y+h);let last=1e9;\n"
    "  for(let v=1;max&&v<=max;v*=10){const ty=y+h-Math.log1p(v)/lm*h;if(last-ty<12||ty-y<12)continue;lab(fmt(v),ty);last=ty;}\n"
    "  if(max)lab(fmt(max),y);}\n"
    " function cells(v,rows,r0,r1,y0,h,share,fixed){const img=g.createImageData(MW,h),d=img.data,vr=r1-r0,vc=V.c1-V.c0;\n"
    "  let max=0;if(fixed)max=fixed;else for(let r=r0;r<r1;r++)for(let c=V.c0;c<V.c1;c++)max=Math.max(max,v[r*C+c]);const lm=Math.log1p(max);\n"
    "  const tot=new Float64Array(C);if(share)for(let r=0;r<rows;r++)for(let c=0;c<C;c++)tot[c]+=v[r*C+c];\n"
    "  for(let py=0;py<h;py++){const a=r0+Math.floor(py*vr/h);let b=r0+Math.floor((py+1)*vr/h);if(b<=a)b=a+1;\n"
    "   for(let px=0;px<MW;px++){const c=V.c0+Math.floor(px*vc/MW);let m=0;for(let r=a;r<b;r++)m=Math.max(m,v[r*C+c]);\n"
    "    const col=share?ramp(tot[c]?m/tot[c]:0):ramp(m&&lm>0?Math.log1p(m)/lm:0),o=4*(py*MW+px);\n"
    "    d[o]=col[0];d[o+1]=col[1];d[o+2]=col[2];d[o+3]=255;}}\n"
    "  g.putImageData(img,ML,y0);return max;}\n"
    " const yOf=r=>MT+(r-V.r0)*MH/(V.r1-V.r0);\n"
    " function draw(){const m=sel.value,v=M[m],ax={time:[],keys:[],scale:[],sscale:[]};\n"
    "  g.fillStyle='#fff';g.fillRect(0,0,cv.width,cv.height);\n"
    "  const max=cells(v,R,V.r0,V.r1,MT,MH,false,small||(sh&&sh.checked)?sharedMax(m):0);\n"
    "  text('key (region starts) \\u2193',8,MT-8,'left','11px sans-serif','#555');text('server',ML+MW+3,MT-8,'left','11px sans-serif','#555');\n"
    "  let last=-100;const lab=(r,s)=>{const y=yOf(r);if(y-last<13||y>MT+MH-6)return;last=y;\n"
    "   g.strokeStyle='#888';g.beginPath();g.moveTo(ML-4,Math.floor(y)+0.5);g.lineTo(ML,Math.floor(y)+0.5);g.stroke();\n"
    "   let t=s;g.font='10px sans-serif';while(t.length>4&&g.measureText(t).width>ML-16)t=t.slice(0,-4)+'...';\n"
    "   text(t,ML-6,y+10,'right','10px sans-serif');ax.keys.push(t);};\n"
    "  for(let j=0;j<reg.length;j++){const r=reg[j][0],e=j+1<reg.length?reg[j+1][0]:R;if(e<=V.r0||r>=V.r1)continue;\n"
    "   const y0=yOf(Math.max(r,V.r0)),y1=yOf(Math.min(e,V.r1));g.fillStyle=HUE[reg[j][1]%10];g.fillRect(ML+MW+3,y0,SW,Math.max(1,y1-y0));\n"
    "   if(y1-y0>=12)text('rs'+reg[j][1],ML+MW+3+SW/2,(y0+y1)/2+4,'center','bold 9px sans-serif','#fff');\n"
    "   if(r>V.r0){g.strokeStyle='rgba(255,255,255,0.22)';g.beginPath();g.moveTo(ML,Math.floor(y0)+0.5);g.lineTo(ML+MW,Math.floor(y0)+0.5);g.stroke();}\n"
    "   lab(Math.max(r,V.r0),r>=V.r0?(r?reg[j][2]:'(first key)'):run.keys[V.r0]);}\n"
    "  if(ax.keys.length<4)for(let r=V.r0;r<V.r1;r++)lab(r,r?run.keys[r]:'(first key)');\n"
    "  timeAxis(MT+MH,ax.time);\n"
    "  scale(SC,MT,MH,max,false,{writes:'writes / cell',reads:'reads / cell',all:'ops / cell',bytes:'bytes / cell'}[m],ax.scale);\n"
    "  text('per server: share of each time bucket ('+m+')',8,SY-8,'left','11px sans-serif','#555');\n"
    "  cells(SV[m]||SV.writes,S,0,S,SY,SH,true);\n"
    "  const rh=SH/S,every=rh>=10?1:Math.ceil(10/rh);for(let s=0;s<S;s+=every)text('rs'+s,ML-6,SY+(s+0.5)*rh+4,'right','10px sans-serif');\n"
    "  timeAxis(SY+SH,[]);text(run.t0?'time (UTC) \\u2192':'time \\u2192',ML+MW,SY+SH+30,'right','11px sans-serif','#555');\n"
    "  scale(SC,SY+24,SH-24,0,true,'server share',ax.sscale);\n"
    "  cv.dataset.max=String(max);cv.dataset.axes=JSON.stringify(ax);\n"
    "  if(rz)rz.disabled=V.c0===0&&V.c1===C&&V.r0===0&&V.r1===R;}\n"
    " function at(ev){const b=cv.getBoundingClientRect();return [ev.clientX-b.left,ev.clientY-b.top];}\n"
    " function cellAt(x,y){if(x<ML||x>=ML+MW||y<MT||y>=MT+MH)return null;\n"
    "  return [V.c0+Math.floor((x-ML)*(V.c1-V.c0)/MW),V.r0+Math.floor((y-MT)*(V.r1-V.r0)/MH)];}\n"
    " function tstr(c){return run.t0?tl(c*run.colS)+' UTC':secs(c*run.colS);}\n"
    " function show(ev){const [px,py]=at(ev),ce=cellAt(px,py);\n"
    "  if(!ce){if(px>=ML&&px<ML+MW&&py>=SY&&py<SY+SH){const c=V.c0+Math.floor((px-ML)*(V.c1-V.c0)/MW),s=Math.floor((py-SY)*S/SH);\n"
    "    let tot=0;for(let q=0;q<S;q++)tot+=SV.writes[q*C+c];const w=SV.writes[s*C+c];\n"
    "    tip.textContent='time    '+tstr(c)+' .. '+tstr(c+1)+'\\nserver  rs'+s+'\\nwrites  '+fmt(w)+(tot?' ('+(100*w/tot).toFixed(1)+'% of this time bucket)':'')+'\\nreads   '+fmt(SV.reads[s*C+c])+' (region visits)';\n"
    "    tip.style.display='block';tip.style.left=(px+12)+'px';tip.style.top=(py+12)+'px';return tip.textContent;}\n"
    "   tip.style.display='none';return null;}\n"
    "  const [x,y]=ce,k=y*C+x;let tot=0;for(let r=0;r<R;r++)tot+=M.writes[r*C+x];const rg=reg[rowReg[y]];\n"
    "  const t='time    '+tstr(x)+' .. '+tstr(x+1)+'\\nkeys    '+run.keys[y]+' .. '+(y+1<R?run.keys[y+1]:'(end)')+\n"
    "   '\\nwrites  '+fmt(M.writes[k])+(tot?' ('+(100*M.writes[k]/tot).toFixed(1)+'% of this time bucket)':'')+\n"
    "   (run.dk&&run.dk[y]?'\\nfields  '+run.dk[y]+(y+1<R&&run.dk[y+1]?' ..\\n        '+run.dk[y+1]:''):'')+\n"
    "   '\\nreads   '+fmt(M.reads[k])+' (region visits)'+(M.bytes?'\\nbytes   '+fmt(M.bytes[k]):'')+\n"
    "   (rg?'\\nregion  starts at '+(rg[2]||'(first key)')+', on rs'+rg[1]:'');\n"
    "  tip.textContent=t;tip.style.display='block';tip.style.left=(px+12)+'px';tip.style.top=(py+12)+'px';return t;}\n"
    " let down=null;\n"
    " cv.addEventListener('mousedown',ev=>{down=at(ev);});\n"
    " cv.addEventListener('mouseup',ev=>{if(!down)return;const u=at(ev),a=cellAt(...down),b=cellAt(...u);down=null;\n"
    "  if(a&&b)zoom(a,b);});\n"
    " function zoom(a,b){const c0=Math.min(a[0],b[0]),c1=Math.max(a[0],b[0])+1,r0=Math.min(a[1],b[1]),r1=Math.max(a[1],b[1])+1;\n"
    "  if(c1-c0<2&&r1-r0<2)return;V={c0,c1,r0,r1};draw();}\n"
    " if(rz)rz.addEventListener('click',()=>{V={c0:0,c1:C,r0:0,r1:R};draw();});\n"
    " cv.addEventListener('mousemove',show);cv.addEventListener('mouseleave',()=>{tip.style.display='none';});\n"
    " DRAWS.push({small,draw});if(!small)sel.addEventListener('change',draw);draw();\n"
    " if(small)return;cv.dataset.cells=String(N);\n"
    " cv.zoomTo=(c0,c1,r0,r1)=>{V={c0,c1,r0,r1};draw();};\n"
    " if(location.hash==='#selftest'){let best=0;for(let k=0;k<N;k++)if(M.writes[k]>M.writes[best])best=k;\n"
    "  const b=cv.getBoundingClientRect(),x=best%C,y=Math.floor(best/C);\n"
    "  const t=show({clientX:b.left+ML+(x+0.5)*MW/C,clientY:b.top+MT+(y+0.5)*MH/R});\n"
    "  const pre=document.createElement('pre');pre.id='selftest-'+i;pre.textContent=t||'(no cell)';\n"
    "  document.body.appendChild(pre);\n"
    "  const px=(X,Y)=>{const d=g.getImageData(X,Y,1,1).data;return (d[0]*3+d[1]*6+d[2])/10;};\n"
    "  let ink=0;for(let Y=MT;Y<MT+MH;Y++)for(let X=8;X<ML-6;X++)ink+=px(X,Y)<110;\n"
    "  let tink=0;for(let Y=MT+MH+5;Y<MT+MH+18;Y++)for(let X=ML;X<ML+MW;X++)tink+=px(X,Y)<110;\n"
    "  const ax=JSON.parse(cv.dataset.axes),full=ax.time.join('|');\n"
    "  cv.zoomTo(Math.floor(C/4),Math.floor(C/2),Math.floor(R/4),Math.floor(R/2));\n"
    "  const zx=JSON.parse(cv.dataset.axes);cv.zoomTo(0,C,0,R);\n"
    "  const q=document.createElement('pre');q.id='axes-'+i;\n"
    "  q.textContent='time ticks: '+full+'\\nkey labels: '+ax.keys.length+'\\nscale: '+ax.scale.join('|')+\n"
    "   '\\nserver scale: '+ax.sscale.join('|')+'\\nscale top: '+Math.round(px(SC+8,MT+2))+'\\nscale bottom: '+Math.round(px(SC+8,MT+MH-2))+\n"
    "   '\\nkey label ink: '+ink+'\\ntime label ink: '+tink+'\\nzoomed time ticks: '+zx.time.join('|')+'\\nzoomed key labels: '+zx.keys.length;\n"
    "  document.body.appendChild(q);}\n"
    " if(location.hash==='#shot'&&i===0)document.body.classList.add('shot');\n"
    "}\n"
    "window.addEventListener('load',()=>{RUNS.forEach((r,i)=>{if(r.rows)setup(r,i,false);});\n"
    " if(document.getElementById('side')){RUNS.forEach((r,i)=>{if(r.rows)setup(r,i,true);});\n"
    "  const redraw=sm=>DRAWS.forEach(d=>{if(d.small===sm)d.draw();});\n"
    "  document.getElementById('metric-side').addEventListener('change',()=>redraw(true));\n"
    "  document.getElementById('shared-scale').addEventListener('change',()=>redraw(false));}\n"
    " document.body.dataset.rendered=String(RUNS.filter(r=>r.rows).length);});\n";

/* Cell counts (rows x cols, row-major) as a compact string the page decodes
 * (dec() in page_js), column by column: each number in base 32, most
 * significant digit first, the last digit from "0-9a-v" and the others from
 * "A-Z!#$%()"; '~' and a count N repeat the number before it N more times (0
 * before the first). The 600,000-op demo's four maps take a few hundred KB
 * this way (JSON arrays of decimals took 2.5 MB). */
static void enc_num(rk__sb *b, uint64_t v)
{
	static const char dg[] = "0123456789abcdefghijklmnopqrstuv", cg[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ!#$%()";
	char t[16];
	int n = 0;
	t[n++] = dg[v & 31];
	for (v >>= 5; v; v >>= 5)
		t[n++] = cg[v & 31];
	while (n)
		rk__sb_put(b, &t[--n], 1);
}

static void enc_cells(rk__sb *b, const uint64_t *v, size_t rows, size_t cols)
{
	size_t n = rows * cols;
	uint64_t prev = 0;
	rk__sb_put(b, "\"", 1);
	for (size_t i = 0; i < n;) {
		uint64_t x = v[(i % rows) * cols + i / rows];
		size_t z = i;
		while (z < n && v[(z % rows) * cols + z / rows] == x)
			z++;
		if (x != prev || z - i == 1) {
			enc_num(b, x);
			i++;
		}
		if (z - i >= 1) {
			rk__sb_put(b, "~", 1);
			enc_num(b, z - i);
		}
		prev = x;
		i = z;
	}
	rk__sb_put(b, "\"", 1);
}

/* one run's data for the page */
static void run_json(rk__sb *b, const rk_analysis *a)
{
	char kt[400];
	rk__sb_put(b, "{\"design\":", 10);
	rk__sb_json_str(b, (const uint8_t *)a->rep.design, strlen(a->rep.design));
	if (!a->hw) {
		rk__sb_put(b, ",\"rows\":0}", 10);
		return;
	}
	rk__sb_printf(b, ",\"rows\":%zu,\"cols\":%zu,\"colS\":%.6g,\"t0\":%lld,\"servers\":%u,\"keys\":[",
	              a->rows, a->cols, a->col_s, (long long)a->t0_ms, a->rep.servers);
	for (size_t r = 0; r < a->rows; r++) {
		if (r)
			rk__sb_put(b, ",", 1);
		rk__key_text(kt, 80, a->row_key[r], a->row_key_len[r]);
		rk__sb_json_str(b, (const uint8_t *)(r ? kt : "(start)"), r ? strlen(kt) : 7);
	}
	keyfmt kf;
	keyfmt_init(&kf, a);
	if (kf.s) { /* each row's first key decoded into its fields (hover) */
		rk__sb_put(b, "],\"dk\":[", 8);
		for (size_t r = 0; r < a->rows; r++) {
			key_decoded(kt, sizeof kt, &kf, a->row_key[r], a->row_key_len[r]);
			if (r)
				rk__sb_put(b, ",", 1);
			rk__sb_json_str(b, (const uint8_t *)kt, strlen(kt));
		}
	}
	rk__sb_put(b, "],\"regions\":[", 13);
	for (size_t i = 0; i < a->nregions; i++) {
		const rk__region_row *x = &a->regions[i];
		key_label(kt, sizeof kt, &kf, x->start, x->start_len);
		rk__sb_printf(b, "%s[%zu,%u,", i ? "," : "", row_of(a, x->start, x->start_len), x->server);
		rk__sb_json_str(b, (const uint8_t *)kt, strlen(kt));
		rk__sb_put(b, "]", 1);
	}
	if (!a->nregions)
		rk__sb_put(b, "[0,0,\"\"]", 8);
	keyfmt_fini(&kf);
	rk__sb_put(b, "],\"w\":", 6);
	enc_cells(b, a->hw, a->rows, a->cols);
	rk__sb_put(b, ",\"r\":", 5);
	enc_cells(b, a->hr, a->rows, a->cols);
	if (a->hb) {
		rk__sb_put(b, ",\"b\":", 5);
		enc_cells(b, a->hb, a->rows, a->cols);
	}
	uint64_t *zero = NULL;
	if (!a->sw && !(zero = calloc(a->cols * a->rep.servers, sizeof *zero))) {
		b->oom = 1;
		return;
	}
	rk__sb_put(b, ",\"sw\":", 6);
	enc_cells(b, a->sw ? a->sw : zero, a->cols, a->rep.servers);
	rk__sb_put(b, ",\"sr\":", 6);
	enc_cells(b, a->sr ? a->sr : zero, a->cols, a->rep.servers);
	free(zero);
	rk__sb_put(b, "}", 1);
}

int rk_analysis_write_html(const char *path, const char *title, const rk_analysis *const *runs,
                           size_t n)
{
	rk__sb b = {0};
	title = title ? title : "rowkey: where the writes land";
	rk__sb_printf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
	html_text(&b, title);
	rk__sb_printf(&b, "</title>\n<style>%s</style></head>\n<body>\n<h1>", page_css);
	html_text(&b, title);
	rk__sb_put(&b, "</h1>\n", 6);
	if (n)
		rk__sb_printf(&b, "<p>Workload <b>%s</b> on %u region servers of %.0f ops/s each. x = time, "
		              "y = key space (lowest keys at the top), colour = operations (log scale). "
		              "Hover a cell for details, drag to zoom.</p>\n",
		              runs[0]->rep.workload, runs[0]->rep.servers, runs[0]->rep.capacity);
	{
		const char *hdr = "<table id=\"summary\"><tr><th>design</th><th>engine</th><th>hottest "
		                  "server</th><th>at a time</th><th>effective servers</th><th>max/mean</th>"
		                  "<th>throughput (ops/s)</th><th>regions</th><th>key bytes</th></tr>\n";
		rk__sb_put(&b, hdr, strlen(hdr));
	}
	for (size_t i = 0; i < n; i++) {
		const rk_report *r = &runs[i]->rep;
		rk__sb_put(&b, "<tr><td>", 8);
		html_text(&b, r->design);
		rk__sb_printf(&b, "</td><td>%s</td><td>%.1f%%</td><td>", r->engine, r->hottest_share * 100);
		if (runs[i]->sw)
			rk__sb_printf(&b, "%.1f%%", r->peak_share * 100);
		else
			rk__sb_put(&b, "-", 1);
		rk__sb_printf(&b, "</td><td>%.2f</td><td>%.2f</td><td>%.0f</td><td>%zu</td><td>%.1f</td></tr>\n",
		              r->effective_servers, r->max_mean, r->throughput, r->regions, r->key_mean);
	}
	rk__sb_put(&b, "</table>\n", 9);
	size_t maps = 0;
	for (size_t i = 0; i < n; i++)
		maps += runs[i]->hw != NULL;
	if (maps > 1) { /* the designs side by side on one colour scale */
		rk__sb_printf(&b, "<div class=\"run\" id=\"side\"><h2>Side by side, one colour scale</h2>"
		                  "<div class=\"axis\">metric: <select id=\"metric-side\"><option "
		                  "value=\"writes\">writes</option><option value=\"reads\">reads (region "
		                  "visits)</option><option value=\"all\">writes + reads</option></select> "
		                  "&nbsp; <label><input type=\"checkbox\" id=\"shared-scale\"> the maps "
		                  "below on this scale too</label></div><div class=\"sidebox\">\n");
		for (size_t i = 0; i < n; i++) {
			if (!runs[i]->hw)
				continue;
			rk__sb_printf(&b, "<div class=\"map\"><div class=\"cap\">");
			html_text(&b, runs[i]->rep.design);
			rk__sb_printf(&b, " <small>(%s)</small></div><canvas id=\"side-%zu\"></canvas><div "
			                  "class=\"tip\" id=\"tip-side-%zu\"></div></div>\n",
			              runs[i]->rep.engine, i, i);
		}
		rk__sb_put(&b, "</div></div>\n", 13);
	}
	for (size_t i = 0; i < n; i++) {
		const rk_analysis *a = runs[i];
		char *text = NULL;
		rk__sb_printf(&b, "<div class=\"run\" id=\"run-%zu\"><h2>", i);
		html_text(&b, a->rep.design);
		rk__sb_printf(&b, " <small>(%s)</small></h2>\n<p class=\"verdict\">", a->rep.engine);
		html_text(&b, a->rep.verdict ? a->rep.verdict : "");
		rk__sb_put(&b, "</p>\n", 5);
		if (a->schema_text) {
			rk__sb_put(&b, "<p>schema: <code>", 17);
			html_text(&b, a->schema_text);
			rk__sb_put(&b, "</code></p>\n", 12);
		}
		if (rk_analysis_text(&text, a) == 0) {
			rk__sb_put(&b, "<pre class=\"report\">", 20);
			html_text(&b, text);
			rk__sb_put(&b, "</pre>\n", 7);
			free(text);
		}
		if (a->hw) {
			rk__sb_printf(&b, "<div class=\"axis\">metric: <select id=\"metric-%zu\"><option "
			              "value=\"writes\">writes</option><option value=\"reads\">reads (region "
			              "visits)</option><option value=\"all\">writes + reads</option>",
			              i);
			if (a->hb)
				rk__sb_printf(&b, "<option value=\"bytes\">bytes written</option>");
			rk__sb_printf(&b, "</select> <button id=\"reset-%zu\" disabled>reset zoom</button> "
			              "&nbsp; drag over the map to zoom into a time window and key range; "
			              "%.1f s per column</div><div class=\"map\"><canvas id=\"map-%zu\"></canvas>"
			              "<div class=\"tip\" id=\"tip-%zu\"></div></div>\n",
			              i, a->col_s, i, i);
		}
		rk__sb_put(&b, "</div>\n", 7);
	}
	/* the data */
	rk__sb_put(&b, "<script>\nconst RUNS=[", 21);
	for (size_t i = 0; i < n; i++) {
		if (i)
			rk__sb_put(&b, ",\n", 2);
		run_json(&b, runs[i]);
	}
	rk__sb_printf(&b, "];\n%s</script>\n</body></html>\n", page_js);
	if (b.oom) {
		free(b.p);
		return rk__err(RK_ENOMEM, "out of memory writing %s", path);
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		free(b.p);
		return rk__err(RK_EIO, "%s: %s", path, strerror(errno));
	}
	size_t wr = fwrite(b.p, 1, b.len, f);
	free(b.p);
	if (fclose(f) != 0 || wr != b.len)
		return rk__err(RK_EIO, "%s: write failed", path);
	return 0;
}
