// The live Key Visualizer page of rowkey (served by `rowkey serve --http` and
// `rowkey keyviz`): reads /api/tables and /api/heatmap (docs/serve.md) every
// few seconds and draws the key buckets x time map on a canvas, the key axis
// as a prefix hierarchy (its labels are DOM text over the canvas, so the
// browser's search, copying and screen readers find the keys), the regions
// and their servers beside it, a tooltip per cell, drag-to-zoom into a key range and a time window, and the hottest
// key ranges. No library, nothing fetched from elsewhere.
'use strict';

(function () {
  const REFRESH_MS = 3000;
  const STOPS = [[14, 14, 30], [40, 30, 120], [150, 30, 130], [230, 60, 40], [250, 170, 30], [255, 255, 210]];
  const HUE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
  const LW = 250, MT = 8, SW = 30, BOTTOM = 44;
  const $ = (id) => document.getElementById(id);
  const cv = $('map'), g = cv.getContext('2d'), tip = $('tip'), axis = $('keyaxis');
  const state = { data: null, table: null, zoom: null, busy: false, draws: 0, errors: [], tables: [], now: 0 };
  window.keyviz = state;

  function ramp(t) {
    if (!(t > 0)) return STOPS[0];
    const pos = 1 + Math.min(t, 1) * 4, i = Math.min(Math.floor(pos), 4), f = pos - i;
    return STOPS[i].map((c, k) => Math.round(c + f * (STOPS[i + 1][k] - c)));
  }
  const fmt = (v) => Number(v).toLocaleString('en-US');
  function utc(ms, withDate) {
    const s = new Date(ms).toISOString();
    return withDate ? s.slice(0, 10) + ' ' + s.slice(11, 19) : s.slice(11, 19);
  }
  const keyText = (k) => (k === null ? '(end)' : k.hex === '' ? '(start)' : k.text);

  function values(d) {
    const m = $('metric').value;
    if (m !== 'all') return d[m];
    return d.writes.map((v, i) => v + d.reads[i]);
  }

  // geometry of the map for the current data
  function geo(d) {
    const W = cv.width, H = cv.height;
    const MW = W - LW - SW - 12, MH = H - MT - BOTTOM;
    return { W, H, MW, MH, rh: MH / d.rows, cw: MW / d.cols };
  }

  function text(s, x, y, align, font, colour) {
    g.font = font || '11px sans-serif';
    g.fillStyle = colour || '#222';
    g.textAlign = align || 'left';
    g.fillText(s, x, y);
  }

  // a key-axis label: text in the list over the canvas, its baseline at y
  // (canvas pixels; the canvas has a 1 px border), cut to w with an ellipsis
  // by CSS, the whole text in its title
  function axisLabel(items, s, x, y, w, cls) {
    const li = document.createElement('li');
    li.textContent = s;
    li.title = s;
    li.className = cls;
    li.style.left = x + 'px';
    li.style.top = (y - 10) + 'px';
    li.style.width = w + 'px';
    items.push(li);
  }

  // the key axis: the first key part's groups in bold with a bracket, the
  // next part's beside them; when the first part alone tells most rows apart,
  // each row's key where there is room
  function keyAxis(d, G) {
    const lv = d.levels || [[], [], []], items = [];
    let drawn = 0;
    const lane = [[8, 'top', 110], [128, 'sub', LW - 136]];
    const coarse = lv[0].length > 0 && lv[0].length * 2 <= d.rows;
    for (let L = 0; coarse && L < 2; L++) {
      let last = -100;
      for (const grp of lv[L]) {
        const y0 = MT + grp.row * G.rh, y1 = MT + (grp.row + grp.rows) * G.rh;
        if (L === 0) {
          g.strokeStyle = '#999';
          g.beginPath();
          g.moveTo(lane[0][0] + 112, y0 + 1); g.lineTo(lane[0][0] + 116, y0 + 1);
          g.lineTo(lane[0][0] + 116, y1 - 1); g.lineTo(lane[0][0] + 112, y1 - 1);
          g.stroke();
        }
        if (y0 - last < 13 || y0 > MT + G.MH - 6) continue;
        last = y0;
        axisLabel(items, grp.label, lane[L][0], Math.min(y0 + 11, MT + G.MH), lane[L][2], lane[L][1]);
        drawn++;
      }
    }
    if (!drawn) { // keys without parts: their text at row starts
      let last = -100;
      d.row_keys.forEach((k, r) => {
        const y = MT + r * G.rh;
        if (y - last < 13) return;
        last = y;
        axisLabel(items, keyText(k), 8, y + 11, LW - 16, 'sub');
      });
    }
    axis.replaceChildren(...items);
  }

  function regionStrip(d, G) {
    const x = LW + G.MW + 4;
    text('server', x, MT + G.MH + 14, 'left', '10px sans-serif', '#555');
    d.regions.forEach((rg, i) => {
      const next = i + 1 < d.regions.length ? d.regions[i + 1].row : d.rows;
      const y0 = MT + rg.row * G.rh, y1 = MT + next * G.rh;
      g.fillStyle = HUE[rg.server % HUE.length];
      g.fillRect(x, y0, SW, Math.max(1, y1 - y0));
      if (y1 - y0 >= 12) text('rs' + rg.server, x + SW / 2, (y0 + y1) / 2 + 4, 'center', 'bold 9px sans-serif', '#fff');
      if (rg.row > 0) { // the region boundary across the map
        g.strokeStyle = 'rgba(255,255,255,0.25)';
        g.beginPath(); g.moveTo(LW, Math.floor(y0) + 0.5); g.lineTo(LW + G.MW, Math.floor(y0) + 0.5); g.stroke();
      }
    });
  }

  function timeAxis(d, G) {
    const span = d.cols * d.col_ms, steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400];
    let step = steps.find((s) => span / (s * 1000) <= 8) || 86400;
    step *= 1000;
    const y = MT + G.MH;
    for (let t = Math.ceil(d.t0_ms / step) * step; t <= d.t0_ms + span; t += step) {
      const x = LW + (t - d.t0_ms) / span * G.MW;
      g.strokeStyle = '#666';
      g.beginPath(); g.moveTo(x, y); g.lineTo(x, y + 4); g.stroke();
      text(utc(t, span > 86400000), x, y + 16, 'center', '10px sans-serif', '#333');
    }
    text('time (UTC) \u2192', LW + G.MW, y + 32, 'right', '11px sans-serif', '#555');
  }

  function draw() {
    const d = state.data;
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.fillStyle = '#fff';
    g.fillRect(0, 0, cv.width, cv.height);
    if (!d || !d.rows || !d.cols) axis.replaceChildren();
    if (!d) return;
    if (!d.rows || !d.cols) { // a table the store has no load of yet: an empty map
      text('no load recorded yet', cv.width / 2, cv.height / 2, 'center', '14px sans-serif', '#666');
      drawn(0);
      return;
    }
    const G = geo(d), v = values(d);
    let max = 0;
    for (const x of v) if (x > max) max = x;
    const lm = Math.log1p(max);
    g.fillStyle = 'rgb(14,14,30)';
    g.fillRect(LW, MT, G.MW, G.MH);
    let nonzero = 0;
    for (let r = 0; r < d.rows; r++) {
      for (let c = 0; c < d.cols; c++) {
        const x = v[r * d.cols + c];
        if (!x) continue;
        nonzero++;
        const [R, Gr, B] = ramp(Math.log1p(x) / lm);
        g.fillStyle = `rgb(${R},${Gr},${B})`;
        g.fillRect(LW + c * G.cw, MT + r * G.rh, Math.ceil(G.cw), Math.max(1, Math.ceil(G.rh)));
      }
    }
    keyAxis(d, G);
    regionStrip(d, G);
    timeAxis(d, G);
    text('max ' + fmt(max) + ' per bucket and column', LW, cv.height - 4, 'left', '10px sans-serif', '#555');
    drawn(nonzero);
  }

  function drawn(nonzero) {
    state.draws++;
    document.body.dataset.draws = String(state.draws);
    document.body.dataset.nonzero = String(nonzero);
  }

  function hottest(d) {
    const tb = $('hottest').querySelector('tbody');
    tb.textContent = '';
    d.hottest.forEach((h, i) => {
      const tr = document.createElement('tr');
      [String(i + 1), keyText(h.start) + ' .. ' + keyText(h.end), fmt(h.writes), fmt(h.reads),
        fmt(h.bytes_written), fmt(h.bytes_read)].forEach((s) => {
        const td = document.createElement('td');
        td.textContent = s;
        tr.appendChild(td);
      });
      tb.appendChild(tr);
    });
    $('hot-window').textContent = `(${utc(d.from_ms, true)} .. ${utc(d.to_ms)} UTC)`;
  }

  function cellAt(px, py) {
    const d = state.data;
    if (!d || !d.rows || !d.cols) return null;
    const G = geo(d);
    if (px < LW || px >= LW + G.MW || py < MT || py >= MT + G.MH) return null;
    return [Math.floor((px - LW) / G.cw), Math.floor((py - MT) / G.rh)];
  }

  function regionOf(d, r) {
    let found = null;
    for (const rg of d.regions) if (rg.row <= r) found = rg;
    return found;
  }

  function tipText(c, r) {
    const d = state.data, k = r * d.cols + c, t = d.t0_ms + c * d.col_ms;
    const end = r + 1 < d.rows ? d.row_keys[r + 1] : d.end;
    const rg = regionOf(d, r);
    return `time     ${utc(t, true)} .. ${utc(t + d.col_ms)} UTC\n` +
      `keys     ${keyText(d.row_keys[r])}\n      .. ${keyText(end)}\n` +
      `written  ${fmt(d.writes[k])} rows, ${fmt(d.bytes_written[k])} bytes\n` +
      `read     ${fmt(d.reads[k])} rows, ${fmt(d.bytes_read[k])} bytes` +
      (rg ? `\nregion   ${rg.id} on server rs${rg.server}` : '');
  }

  function at(ev) {
    const b = cv.getBoundingClientRect();
    return [ev.clientX - b.left, ev.clientY - b.top];
  }

  let down = null;
  cv.addEventListener('mousemove', (ev) => {
    const [x, y] = at(ev), ce = cellAt(x, y);
    if (!ce) { tip.style.display = 'none'; return; }
    tip.textContent = tipText(ce[0], ce[1]);
    tip.style.display = 'block';
    tip.style.left = (x + 14) + 'px';
    tip.style.top = (y + 14) + 'px';
  });
  cv.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
  cv.addEventListener('mousedown', (ev) => { down = cellAt(...at(ev)); });
  cv.addEventListener('mouseup', (ev) => {
    const a = down, b = cellAt(...at(ev)), d = state.data;
    down = null;
    if (!a || !b || !d) return;
    const c0 = Math.min(a[0], b[0]), c1 = Math.max(a[0], b[0]) + 1;
    const r0 = Math.min(a[1], b[1]), r1 = Math.max(a[1], b[1]) + 1;
    if (c1 - c0 < 2 && r1 - r0 < 2) return;
    zoomTo(d.t0_ms + c0 * d.col_ms, d.t0_ms + c1 * d.col_ms, d.row_keys[r0].hex,
      r1 < d.rows ? d.row_keys[r1].hex : (d.end ? d.end.hex : null));
  });

  function zoomTo(from, to, lo, hi) {
    state.zoom = { from, to, lo, hi };
    $('reset').disabled = false;
    refresh();
  }
  state.zoomTo = zoomTo;
  $('reset').addEventListener('click', () => { state.zoom = null; $('reset').disabled = true; refresh(); });
  ['metric'].forEach((id) => $(id).addEventListener('change', draw));
  ['span', 'table'].forEach((id) => $(id).addEventListener('change', () => { state.zoom = null; refresh(); }));

  function fail(msg) {
    state.errors.push(msg);
    $('status').textContent = msg;
    $('status').className = 'status error';
  }

  async function getJSON(url) {
    const r = await fetch(url, { cache: 'no-store' });
    const j = await r.json();
    if (!r.ok) throw new Error(j.error || r.statusText);
    return j;
  }

  async function loadTables() {
    const t = await getJSON('/api/tables');
    state.tables = t.tables;
    state.now = t.now_ms;
    const sel = $('table'), keep = sel.value;
    if (sel.options.length !== t.tables.length) {
      sel.textContent = '';
      let best = null;
      for (const x of t.tables) {
        const o = document.createElement('option');
        o.value = x.name;
        o.textContent = `${x.name} (${x.regions} region${x.regions === 1 ? '' : 's'})`;
        sel.appendChild(o);
        if (x.key_buckets && (!best || x.rows_written + x.rows_read > best.rows_written + best.rows_read)) best = x;
      }
      sel.value = keep || (best ? best.name : (t.tables[0] ? t.tables[0].name : ''));
    }
    $('store').textContent = (t.live ? 'live' : 'from its metrics file') + ', ' + t.servers + ' region servers';
    return t;
  }

  async function refresh() {
    if (state.busy) return;
    state.busy = true;
    try {
      const t = await loadTables();
      const table = $('table').value;
      if (!table) { $('status').textContent = 'no table recorded yet'; return; }
      const q = new URLSearchParams({ table, rows: '400', cols: '240' });
      const z = state.zoom, span = Number($('span').value);
      if (z) {
        q.set('from', z.from); q.set('to', z.to);
        if (z.lo) q.set('lo', z.lo);
        if (z.hi) q.set('hi', z.hi);
      } else if (span) {
        const x = t.tables.find((e) => e.name === table), end = t.live ? t.now_ms : (x ? x.to_ms : t.now_ms);
        const first = x && x.key_buckets ? x.from_ms : 0; // no wider than what was recorded
        q.set('from', Math.max(first, end - span)); q.set('to', end + (t.live ? 1000 : 0));
      }
      const d = await getJSON('/api/heatmap?' + q);
      state.data = d;
      draw();
      hottest(d);
      $('status').textContent = !d.rows ? `updated ${utc(d.now_ms)} UTC \u00b7 no load recorded yet for ${d.table}`
        : `updated ${utc(d.now_ms)} UTC \u00b7 ${d.rows} key buckets x ${d.cols} columns of ` +
        `${d.col_ms / 1000} s${d.decoded ? ' \u00b7 keys decoded through the table\'s schema' : ''}`;
      $('status').className = 'status';
    } catch (e) {
      fail('refresh failed: ' + e.message);
    } finally {
      state.busy = false;
    }
  }

  // the load of rows whose keys lie in [lo, hi) (hex) over the last `cols`
  // columns, and whether the map shows it (a pixel of those rows not idle)
  state.probe = function (lo, hi, cols) {
    const d = state.data;
    if (!d) return null;
    const G = geo(d);
    let w = 0, rows = 0, lit = 0, outside = 0;
    const c0 = Math.max(0, d.cols - (cols || d.cols));
    for (let r = 0; r < d.rows; r++) {
      const k = d.row_keys[r].hex, inside = k >= lo && (hi === null || k < hi);
      for (let c = c0; c < d.cols; c++) {
        const v = d.writes[r * d.cols + c];
        if (inside) w += v; else outside += v;
        if (inside && v) {
          const px = g.getImageData(Math.floor(LW + (c + 0.5) * G.cw), Math.floor(MT + (r + 0.5) * G.rh), 1, 1).data;
          lit += px[0] + px[1] + px[2] > 14 + 14 + 30 + 30;
        }
      }
      rows += inside;
    }
    return { rows, writes: w, outside, lit };
  };

  window.addEventListener('error', (e) => state.errors.push(String(e.message)));
  refresh();
  setInterval(refresh, REFRESH_MS);
})();
