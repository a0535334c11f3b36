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
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "key/error.h"

/* ---- colours ---- */

static void colour(uint8_t *px, uint64_t v, double logmax)
{
	static const double stops[][3] = {
	    {14, 14, 30}, {40, 30, 120}, {150, 30, 130}, {230, 60, 40}, {250, 170, 30}, {255, 255, 210}};
	if (v == 0 || logmax <= 0) {
		px[0] = 14;
		px[1] = 14;
		px[2] = 30;
		return;
	}
	double x = log1p((double)v) / logmax; /* (0, 1] */
	double pos = 1 + x * 4;               /* stops 1..5: anything non-zero is visible */
	int i = (int)pos;
	if (i >= 5) {
		i = 4;
		pos = 5;
	}
	double f = pos - i;
	for (int c = 0; c < 3; c++)
		px[c] = (uint8_t)lround(stops[i][c] + f * (stops[i + 1][c] - stops[i][c]));
}

/* ---- PNG ---- */

int rk_analysis_write_png(const rk_analysis *a, const char *path)
{
	rk_heatmap h;
	int rc;
	if ((rc = rk_analysis_heatmap(&h, a)) != 0)
		return rc;
	size_t cw = h.cols < 960 ? 960 / h.cols : 1, ch = h.rows < 600 ? 600 / h.rows : 1;
	size_t W = h.cols * cw, H = h.rows * ch;
	uint64_t max = 0;
	for (size_t i = 0; i < h.rows * h.cols; i++)
		if (h.writes[i] > max)
			max = h.writes[i];
	double logmax = log1p((double)max);
	FILE *f = fopen(path, "wb");
	if (!f)
		return rk__err(RK_EIO, "%s: %s", path, strerror(errno));
	uint8_t *row = malloc(W * 3);
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	if (!row || !png || !info) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory for the PNG", path);
		goto out;
	}
	if (setjmp(png_jmpbuf(png))) {
		rc = rk__err(RK_EIO, "%s: libpng failed writing the heatmap", path);
		goto out;
	}
	png_init_io(png, f);
	png_set_IHDR(png, info, (png_uint_32)W, (png_uint_32)H, 8, PNG_COLOR_TYPE_RGB,
	             PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (size_t y = 0; y < H; y++) {
		size_t r = y / ch;
		for (size_t x = 0; x < W; x++) {
			size_t c = x / cw;
			colour(row + 3 * x, h.writes[r * h.cols + c], logmax);
		}
		png_write_row(png, row);
	}
	png_write_end(png, NULL);
	rc = 0;
out:
	if (png)
		png_destroy_write_struct(&png, info ? &info : NULL);
	free(row);
	if (fclose(f) != 0 && rc == 0)
		rc = rk__err(RK_EIO, "%s: %s", path, strerror(errno));
	return rc;
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
    ".axis{font-size:12px;color:#555}";

static const char page_js[] =
    "function fmt(n){return n.toLocaleString('en-US');}\n"
    "function secs(s){return s<120?s.toFixed(1)+' s':(s/60).toFixed(1)+' min';}\n"
    "const ST=[[14,14,30],[40,30,120],[150,30,130],[230,60,40],[250,170,30],[255,255,210]];\n"
    "function setup(run,i){\n"
    " const cv=document.getElementById('map-'+i),tip=document.getElementById('tip-'+i),\n"
    "  sel=document.getElementById('metric-'+i);\n"
    " const R=run.rows,C=run.cols,cw=Math.max(1,Math.floor(900/C)),ch=Math.max(1,Math.floor(500/R));\n"
    " cv.width=C*cw;cv.height=R*ch;const g=cv.getContext('2d');\n"
    " function val(k){const m=sel.value;return m==='writes'?run.w[k]:m==='reads'?run.r[k]:run.w[k]+run.r[k];}\n"
    " function draw(){let max=0;for(let k=0;k<R*C;k++)max=Math.max(max,val(k));const lm=Math.log1p(max);\n"
    "  g.fillStyle='rgb(14,14,30)';g.fillRect(0,0,cv.width,cv.height);\n"
    "  for(let y=0;y<R;y++)for(let x=0;x<C;x++){const v=val(y*C+x);if(!v||lm<=0)continue;\n"
    "   let p=1+Math.log1p(v)/lm*4,j=Math.min(4,Math.floor(p));if(p>=5){j=4;p=5;}const f=p-j;\n"
    "   g.fillStyle='rgb('+ST[j].map((a,q)=>Math.round(a+f*(ST[j+1][q]-a)))+')';g.fillRect(x*cw,y*ch,cw,ch);}\n"
    "  cv.dataset.max=String(max);}\n"
    " function show(ev){const b=cv.getBoundingClientRect();const x=Math.floor((ev.clientX-b.left)/cw),\n"
    "  y=Math.floor((ev.clientY-b.top)/ch);if(x<0||y<0||x>=C||y>=R){tip.style.display='none';return null;}\n"
    "  const k=y*C+x,tot=run.colw[x]||0;\n"
    "  const t='time    '+secs(x*run.colS)+' .. '+secs((x+1)*run.colS)+'\\nkeys    '+run.keys[y]+' .. '+\n"
    "   (y+1<R?run.keys[y+1]:'(end)')+'\\nwrites  '+fmt(run.w[k])+(tot?' ('+(100*run.w[k]/tot).toFixed(1)+\n"
    "   '% of this time bucket)':'')+'\\nreads   '+fmt(run.r[k])+' (region visits)';\n"
    "  tip.textContent=t;tip.style.display='block';tip.style.left=(x*cw+12)+'px';tip.style.top=(y*ch+12)+'px';return t;}\n"
    " cv.addEventListener('mousemove',show);cv.addEventListener('mouseleave',()=>{tip.style.display='none';});\n"
    " sel.addEventListener('change',draw);draw();cv.dataset.cells=String(R*C);\n"
    " if(location.hash==='#selftest'){let best=0;for(let k=0;k<R*C;k++)if(val(k)>val(best))best=k;\n"
    "  const b=cv.getBoundingClientRect(),x=best%C,y=Math.floor(best/C);\n"
    "  const t=show({clientX:b.left+x*cw+cw/2,clientY:b.top+y*ch+ch/2});\n"
    "  const pre=document.createElement('pre');pre.id='selftest-'+i;pre.textContent=t||'(no cell)';\n"
    "  document.body.appendChild(pre);}\n"
    "}\n"
    "window.addEventListener('load',()=>{RUNS.forEach((r,i)=>{if(r.rows)setup(r,i);});\n"
    " document.body.dataset.rendered=String(RUNS.filter(r=>r.rows).length);});\n";

int rk_analysis_write_html(const char *path, const char *title, const rk_analysis *const *runs,
                           size_t n)
{
	rk__sb b = {0};
	char kt[400];
	title = title ? title : "rowkey: where the writes land";
	rk__sb_printf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
	html_text(&b, title);
	rk__sb_printf(&b, "</title>\n<style>%s</style></head>\n<body>\n<h1>", page_css);
	html_text(&b, title);
	rk__sb_put(&b, "</h1>\n", 6);
	if (n)
		rk__sb_printf(&b, "<p>Workload <b>%s</b> on %u region servers of %.0f ops/s each. x = time, "
		              "y = key space (lowest keys at the top), colour = operations (log scale). "
		              "Hover a cell for details.</p>\n",
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
		if (a->hw)
			rk__sb_printf(&b, "<div class=\"axis\">colour: <select id=\"metric-%zu\"><option "
			              "value=\"writes\">writes</option><option value=\"reads\">reads (region "
			              "visits)</option><option value=\"all\">writes + reads</option></select> "
			              "&nbsp; key space (top: lowest keys) &darr; &nbsp; time &rarr; (%.1f s per "
			              "column)</div><div class=\"map\"><canvas id=\"map-%zu\"></canvas><div "
			              "class=\"tip\" id=\"tip-%zu\"></div></div>\n",
			              i, a->col_s, i, i);
		rk__sb_put(&b, "</div>\n", 7);
	}
	/* the data */
	rk__sb_put(&b, "<script>\nconst RUNS=[", 21);
	for (size_t i = 0; i < n; i++) {
		const rk_analysis *a = runs[i];
		rk__sb_put(&b, i ? ",\n{" : "{", i ? 3 : 1);
		rk__sb_put(&b, "\"design\":", 9);
		rk__sb_json_str(&b, (const uint8_t *)a->rep.design, strlen(a->rep.design));
		if (!a->hw) {
			rk__sb_put(&b, ",\"rows\":0}", 10);
			continue;
		}
		rk__sb_printf(&b, ",\"rows\":%zu,\"cols\":%zu,\"colS\":%.6g,\"keys\":[", a->rows, a->cols,
		              a->col_s);
		for (size_t r = 0; r < a->rows; r++) {
			if (r)
				rk__sb_put(&b, ",", 1);
			rk__key_text(kt, 80, a->row_key[r], a->row_key_len[r]);
			rk__sb_json_str(&b, (const uint8_t *)(r ? kt : "(start)"), r ? strlen(kt) : 7);
		}
		rk__sb_put(&b, "],\"w\":[", 7);
		for (size_t k = 0; k < a->rows * a->cols; k++)
			rk__sb_printf(&b, "%s%llu", k ? "," : "", (unsigned long long)a->hw[k]);
		rk__sb_put(&b, "],\"r\":[", 7);
		for (size_t k = 0; k < a->rows * a->cols; k++)
			rk__sb_printf(&b, "%s%llu", k ? "," : "", (unsigned long long)a->hr[k]);
		rk__sb_put(&b, "],\"colw\":[", 10);
		for (size_t c = 0; c < a->cols; c++) {
			uint64_t t = 0;
			for (size_t r = 0; r < a->rows; r++)
				t += a->hw[r * a->cols + c];
			rk__sb_printf(&b, "%s%llu", c ? "," : "", (unsigned long long)t);
		}
		rk__sb_put(&b, "]}", 2);
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
