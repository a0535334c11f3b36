/*
 * The heatmap as one self-contained HTML page (inline CSS, data and JS; no
 * network resources) with the comparison table, each run's summary, and a
 * canvas per run with hover details per cell and a choice of writes, reads
 * or both.
 *
 * The page supports a self-test used by tests/integration/test_analyze_html:
 * opened with "#selftest", it hovers the hottest cell of each map and copies
 * the tooltip into <pre id="selftest-N">; the maps start on writes, so a headless browser's DOM dump
 * shows what a user would see.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "key/error.h"
#include "key/outfile.h"
#include "key/units.h"

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
	rk__keytext *kf = rk__keytext_new(a->schema_text);
	if (!kf) {
		b->oom = 1;
		return;
	}
	if (rk__keytext_decodes(kf)) { /* each row's first key decoded into its fields (hover) */
		rk__sb_put(b, "],\"dk\":[", 8);
		for (size_t r = 0; r < a->rows; r++) {
			rk__keytext_fields(kf, kt, sizeof kt, a->row_key[r], a->row_key_len[r]);
			if (r)
				rk__sb_put(b, ",", 1);
			rk__sb_json_str(b, (const uint8_t *)kt, strlen(kt));
		}
	}
	rk__sb_put(b, "],\"regions\":[", 13);
	for (size_t i = 0; i < a->nregions; i++) {
		const rk__region_row *x = &a->regions[i];
		rk__keytext_label(kf, kt, sizeof kt, x->start, x->start_len);
		rk__sb_printf(b, "%s[%zu,%u,", i ? "," : "", rk__heat_row_of(a, x->start, x->start_len), x->server);
		rk__sb_json_str(b, (const uint8_t *)kt, strlen(kt));
		rk__sb_put(b, "]", 1);
	}
	if (!a->nregions)
		rk__sb_put(b, "[0,0,\"\"]", 8);
	rk__keytext_free(kf);
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

/* the page's opening: title, what the maps show, the table of the runs */
static void page_head(rk__sb *b, const char *title, const rk_analysis *const *runs, size_t n)
{
	rk__sb_printf(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
	html_text(b, title);
	rk__sb_printf(b, "</title>\n<style>%s</style></head>\n<body>\n<h1>", page_css);
	html_text(b, title);
	rk__sb_put(b, "</h1>\n", 6);
	char num[RK_NUM_STR];
	if (n && runs[0]->rep.capacity > 0)
		rk__sb_printf(b, "<p>Workload <b>%s</b> on %u region servers of %s each. x = time, "
		              "y = key space (lowest keys at the top), colour = operations (log scale). "
		              "Hover a cell for details, drag to zoom.</p>\n",
		              runs[0]->rep.workload, runs[0]->rep.servers,
		              rk__rate_str(num, runs[0]->rep.capacity, "ops"));
	else if (n) /* a store's record: no capacity was set, the units are the record's */
		rk__sb_printf(b, "<p>Load %s, %u region servers. x = wall-clock time, y = key space "
		              "(lowest keys at the top), colour = the load per key range and time column "
		              "(log scale); the servers map in cells. Hover a cell for details, drag to "
		              "zoom.</p>\n",
		              runs[0]->rep.workload, runs[0]->rep.servers);
	const char *hdr = "<table id=\"summary\"><tr><th>design</th><th>engine</th><th>hottest "
	                  "server</th><th>at a time</th><th>effective servers</th><th>max/mean</th>"
	                  "<th>throughput</th><th>regions</th><th>key bytes</th></tr>\n";
	rk__sb_put(b, hdr, strlen(hdr));
	for (size_t i = 0; i < n; i++) {
		const rk_report *r = &runs[i]->rep;
		rk__sb_put(b, "<tr><td>", 8);
		html_text(b, r->design);
		rk__sb_printf(b, "</td><td>%s</td><td>%.1f%%</td><td>", r->engine, r->hottest_share * 100);
		if (runs[i]->sw)
			rk__sb_printf(b, "%.1f%%", r->peak_share * 100);
		else
			rk__sb_put(b, "-", 1);
		rk__sb_printf(b, "</td><td>%.2f</td><td>%.2f</td><td>%s%s</td><td>%zu</td><td>%.1f</td></tr>\n",
		              r->effective_servers, r->max_mean,
		              rk__rate_str(num, r->throughput, r->throughput_measured ? "rows" : "ops"),
		              r->throughput_measured ? " measured" : "", r->regions, r->key_mean);
	}
	rk__sb_put(b, "</table>\n", 9);
}

/* the designs side by side on one colour scale (when more than one has a map) */
static void side_by_side(rk__sb *b, const rk_analysis *const *runs, size_t n)
{
	size_t maps = 0;
	for (size_t i = 0; i < n; i++)
		maps += runs[i]->hw != NULL;
	if (maps < 2)
		return;
	rk__sb_printf(b, "<div class=\"run\" id=\"side\"><h2>Side by side, one colour scale</h2>"
	                 "<div class=\"axis\">metric: <select id=\"metric-side\"><option "
	                 "value=\"writes\">writes</option><option value=\"reads\">reads (region "
	                 "visits)</option><option value=\"all\">writes + reads</option></select> "
	                 "&nbsp; <label><input type=\"checkbox\" id=\"shared-scale\"> the maps "
	                 "below on this scale too</label></div><div class=\"sidebox\">\n");
	for (size_t i = 0; i < n; i++) {
		if (!runs[i]->hw)
			continue;
		rk__sb_printf(b, "<div class=\"map\"><div class=\"cap\">");
		html_text(b, runs[i]->rep.design);
		rk__sb_printf(b, " <small>(%s)</small></div><canvas id=\"side-%zu\"></canvas><div "
		                 "class=\"tip\" id=\"tip-side-%zu\"></div></div>\n",
		              runs[i]->rep.engine, i, i);
	}
	rk__sb_put(b, "</div></div>\n", 13);
}

/* the run's causes, each with its number, remedy and heatmap pattern */
static void causes_list(rk__sb *b, const rk_report *r)
{
	if (!r->ncauses)
		return;
	RK__SB_LIT(b, "<ul class=\"causes\">\n");
	for (size_t k = 0; k < r->ncauses; k++) {
		const rk_cause *c = &r->causes[k];
		rk__sb_printf(b, "<li class=\"cause\" data-kind=\"%s\"><b>", c->kind);
		html_text(b, c->kind);
		RK__SB_LIT(b, "</b>: ");
		html_text(b, c->text ? c->text : "");
		if (c->pattern) {
			RK__SB_LIT(b, " <i>(Key Visualizer: ");
			html_text(b, c->pattern);
			RK__SB_LIT(b, ")</i>");
		}
		if (c->remedy) {
			RK__SB_LIT(b, "<br>remedy: ");
			html_text(b, c->remedy);
		}
		RK__SB_LIT(b, "</li>\n");
	}
	RK__SB_LIT(b, "</ul>\n");
}

/* one run's section: its verdict and causes, schema, report and map */
static void run_section(rk__sb *b, const rk_analysis *a, size_t i)
{
	char *text = NULL;
	rk__sb_printf(b, "<div class=\"run\" id=\"run-%zu\"><h2>", i);
	html_text(b, a->rep.design);
	rk__sb_printf(b, " <small>(%s)</small></h2>\n<p class=\"verdict\">", a->rep.engine);
	html_text(b, a->rep.verdict ? a->rep.verdict : "");
	rk__sb_put(b, "</p>\n", 5);
	causes_list(b, &a->rep);
	if (a->schema_text) {
		rk__sb_put(b, "<p>schema: <code>", 17);
		html_text(b, a->schema_text);
		rk__sb_put(b, "</code></p>\n", 12);
	}
	if (rk_analysis_text(&text, a) == 0) {
		rk__sb_put(b, "<pre class=\"report\">", 20);
		html_text(b, text);
		rk__sb_put(b, "</pre>\n", 7);
		free(text);
	}
	if (a->hw) {
		rk__sb_printf(b, "<div class=\"axis\">metric: <select id=\"metric-%zu\"><option "
		              "value=\"writes\">writes</option><option value=\"reads\">reads (region "
		              "visits)</option><option value=\"all\">writes + reads</option>",
		              i);
		if (a->hb)
			rk__sb_printf(b, "<option value=\"bytes\">bytes written</option>");
		rk__sb_printf(b, "</select> <button id=\"reset-%zu\" disabled>reset zoom</button> "
		              "&nbsp; drag over the map to zoom into a time window and key range; "
		              "%.1f s per column</div><div class=\"map\"><canvas id=\"map-%zu\"></canvas>"
		              "<div class=\"tip\" id=\"tip-%zu\"></div></div>\n",
		              i, a->col_s, i, i);
	}
	rk__sb_put(b, "</div>\n", 7);
}

int rk_analysis_write_html(const char *path, const char *title, const rk_analysis *const *runs,
                           size_t n)
{
	rk__sb b = {0};
	page_head(&b, title ? title : "rowkey: where the writes land", runs, n);
	side_by_side(&b, runs, n);
	for (size_t i = 0; i < n; i++)
		run_section(&b, runs[i], i);
	rk__sb_put(&b, "<script>\nconst RUNS=[", 21); /* the data */
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
	rk__outfile o;
	if (rk__outfile_open(&o, path) < 0) {
		free(b.p);
		return rk__err(RK_EIO, "%s: %s", path, strerror(errno));
	}
	errno = 0;
	size_t wr = fwrite(b.p, 1, b.len, o.f);
	free(b.p);
	if (rk__outfile_close(&o, wr == b.len) < 0)
		return rk__err(RK_EIO, "%s: %s", path, strerror(errno ? errno : EIO));
	return 0;
}
