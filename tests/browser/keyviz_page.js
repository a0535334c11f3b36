// Drives Debian's headless Chromium over the DevTools protocol on a pipe
// (--remote-debugging-pipe: no npm package, no browser download) against the
// live Key Visualizer page of `rowkey serve --http`:
//
//   node keyviz_page.js URL check   the page loads with no console error and a
//                                   non-empty heatmap, its key axis as DOM text
//                                   (labels of the map's keys, found by the
//                                   browser's search in the axis); then the command in
//                                   KEYVIZ_WRITE (writes through the Bigtable
//                                   API into [KEYVIZ_LO, KEYVIZ_HI), hex) runs and
//                                   those rows must show in that key range of the
//                                   map within two refreshes; then the command in
//                                   KEYVIZ_NEW_TABLE creates table KEYVIZ_NEW_NAME
//                                   with no rows: chosen in the page, it must draw
//                                   as "no load recorded yet" with no console error;
//                                   prints a JSON summary
//   node keyviz_page.js URL shot F  waits for the map to draw, saves a PNG to F
//
// Exits 1 with the reason on stderr when a check fails.
'use strict';
const { spawn, execSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [url, mode, shotFile] = process.argv.slice(2);
const CHROMIUM = process.env.RK_CHROMIUM || '/usr/bin/chromium';
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rk-keyviz-chromium-'));
const browser = spawn(CHROMIUM, [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', `--user-data-dir=${profile}`,
  '--remote-debugging-pipe', '--window-size=1120,1180', 'about:blank',
], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });

let ending = false;
function done(code, msg) {
  if (ending) return;
  ending = true;
  if (msg) (code ? console.error : console.log)(msg);
  const bye = () => {
    try { fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); } catch (e) { /* left in tmp */ }
    process.exit(code);
  };
  if (browser.exitCode !== null || browser.signalCode !== null) return bye();
  browser.removeAllListeners('exit');
  browser.on('exit', bye); // its files are written until it is gone
  browser.kill('SIGKILL');
}
setTimeout(() => done(1, 'FAIL: the browser check took over 120 s'), 120000).unref();
browser.on('exit', (c) => done(1, `FAIL: chromium exited (${c}) before the check ended`));

// ---- the protocol: JSON messages ended by a NUL byte, fd 3 out, fd 4 in ----
let nextId = 1, inbuf = Buffer.alloc(0), session = null;
const waiting = new Map(), events = [];
browser.stdio[4].on('data', (chunk) => {
  inbuf = Buffer.concat([inbuf, chunk]);
  for (let z; (z = inbuf.indexOf(0)) >= 0;) {
    const m = JSON.parse(inbuf.subarray(0, z).toString());
    inbuf = inbuf.subarray(z + 1);
    if (m.id && waiting.has(m.id)) {
      const [ok, bad] = waiting.get(m.id);
      waiting.delete(m.id);
      m.error ? bad(new Error(m.error.message)) : ok(m.result);
    } else if (m.method) {
      events.push(m);
    }
  }
});
function send(method, params, inSession) {
  const id = nextId++, msg = { id, method, params: params || {} };
  if (inSession) msg.sessionId = session;
  browser.stdio[3].write(JSON.stringify(msg) + '\0');
  return new Promise((ok, bad) => waiting.set(id, [ok, bad]));
}
const page = (method, params) => send(method, params, true);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function evaluate(expr) {
  const r = await page('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true });
  if (r.exceptionDetails) throw new Error('page: ' + r.exceptionDetails.text);
  return r.result.value;
}
// what the page logged as an error: console.error, uncaught exceptions, failed loads
function consoleErrors() {
  const out = [];
  for (const e of events) {
    if (e.method === 'Runtime.consoleAPICalled' && (e.params.type === 'error' || e.params.type === 'assert'))
      out.push('console.error: ' + e.params.args.map((a) => a.value || a.description).join(' '));
    else if (e.method === 'Runtime.exceptionThrown')
      out.push('exception: ' + (e.params.exceptionDetails.exception || {}).description);
    else if (e.method === 'Log.entryAdded' && e.params.entry.level === 'error')
      out.push('log: ' + e.params.entry.text + ' ' + (e.params.entry.url || ''));
  }
  return out;
}
async function until(what, fn, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting for ' + what);
    await sleep(200);
  }
}

// the key axis's labels in the DOM: each one a key or key prefix of the map,
// and the first whole key among them found by the browser's search (the
// first match in the page is in the axis, which comes before the table of
// hottest ranges)
function keyAxisText() {
  return evaluate(`(() => {
    const li = [...document.querySelectorAll('#keyaxis li')].map((e) => e.textContent), d = keyviz.data;
    const known = new Set([...d.row_keys.map((k) => (k.hex === '' ? '(start)' : k.text)),
      ...d.levels.flat().map((g) => g.label)]);
    const key = li.find((t) => t.length > 1 && !t.startsWith('('));
    const found = key ? window.find(key, true) : false, sel = document.getSelection();
    const foundInAxis = found && !!sel.anchorNode && !!sel.anchorNode.parentElement.closest('#keyaxis');
    sel.removeAllRanges();
    return { labels: li.length, unknown: li.filter((t) => !known.has(t)).slice(0, 5), key, foundInAxis,
      list: document.getElementById('keyaxis').getAttribute('aria-label') };
  })()`);
}

// a table created with no rows (KEYVIZ_NEW_TABLE), chosen in the page once
// it is listed: its empty map drawn as such
async function freshTable() {
  const name = process.env.KEYVIZ_NEW_NAME;
  if (!process.env.KEYVIZ_NEW_TABLE) return null;
  execSync(process.env.KEYVIZ_NEW_TABLE, { stdio: 'inherit' });
  const n = JSON.stringify(name);
  await until('the new table listed', () => evaluate(
    `[...document.getElementById('table').options].some((o) => o.value === ${n})`), 2 * 3000 + 2000);
  await evaluate(`(() => { const s = document.getElementById('table'); s.value = ${n};
      s.dispatchEvent(new Event('change')); })()`);
  return until('the empty map of the new table', () => evaluate(`(() => {
      const d = keyviz.data, st = document.getElementById('status').textContent;
      return d && d.table === ${n} && d.rows === 0 && st.includes('no load recorded yet') ? st : null; })()`),
  2 * 3000 + 2000);
}

async function main() {
  const { targetInfos } = await send('Target.getTargets');
  const target = targetInfos.find((t) => t.type === 'page');
  ({ sessionId: session } = await send('Target.attachToTarget', { targetId: target.targetId, flatten: true }));
  await page('Runtime.enable');
  await page('Log.enable');
  await page('Page.enable');
  await page('Page.navigate', { url });
  const drawn = () => evaluate(`(() => { const b = document.body; return b && +b.dataset.draws > 0 &&
      +b.dataset.nonzero > 0 ? { draws: +b.dataset.draws, nonzero: +b.dataset.nonzero } : null; })()`);
  const first = await until('a non-empty heatmap', drawn, 30000);
  if (mode === 'shot') {
    await sleep(1500);
    const { data } = await page('Page.captureScreenshot', { format: 'png' });
    fs.writeFileSync(shotFile, Buffer.from(data, 'base64'));
    return done(0, `screenshot ${shotFile}`);
  }
  let errs = consoleErrors();
  if (errs.length) return done(1, 'FAIL: the page logged errors:\n' + errs.join('\n'));
  const hot = await evaluate('document.querySelectorAll("#hottest tbody tr").length');
  if (!hot) return done(1, 'FAIL: no hottest key ranges listed');
  const axis = await keyAxisText();
  if (!axis.labels || axis.unknown.length || !axis.key || !axis.foundInAxis)
    return done(1, 'FAIL: the key axis is not the map\'s keys as text in the page: ' + JSON.stringify(axis));
  // writes through the Bigtable API to a known key range show there within two refreshes
  const lo = process.env.KEYVIZ_LO, hi = process.env.KEYVIZ_HI, rows = +process.env.KEYVIZ_ROWS;
  const before = await evaluate(`keyviz.probe(${JSON.stringify(lo)}, ${JSON.stringify(hi)}, 1000000)`);
  const t0 = Date.now();
  execSync(process.env.KEYVIZ_WRITE, { stdio: 'inherit' });
  const written = Date.now();
  const seen = await until('the new rows in their key range', async () => {
    const p = await evaluate(`keyviz.probe(${JSON.stringify(lo)}, ${JSON.stringify(hi)}, 1000000)`);
    return p && p.writes - before.writes >= rows && p.lit > 0 ? p : null;
  }, 2 * 3000 + 2000);
  const shown = Date.now();
  if (seen.writes - before.writes !== rows || seen.outside !== before.outside)
    return done(1, `FAIL: ${rows} rows written in [${lo}, ${hi}): the map shows ${seen.writes - before.writes} ` +
      `there and ${seen.outside - before.outside} more elsewhere`);
  errs = consoleErrors();
  if (errs.length) return done(1, 'FAIL: the page logged errors:\n' + errs.join('\n'));
  let state = await evaluate('({ draws: keyviz.draws, errors: keyviz.errors, rows: keyviz.data.rows })');
  if (state.errors.length) return done(1, 'FAIL: the page failed: ' + state.errors.join('; '));
  const fresh = await freshTable();
  errs = consoleErrors();
  if (errs.length) return done(1, 'FAIL: the page logged errors for a table with no load yet:\n' + errs.join('\n'));
  state = await evaluate('({ draws: keyviz.draws, errors: keyviz.errors })');
  if (state.errors.length) return done(1, 'FAIL: the page failed: ' + state.errors.join('; '));
  done(0, JSON.stringify({ first, hottest: hot, axis, before, after: seen, write_ms: written - t0,
    shown_after_ms: shown - written, fresh, draws: state.draws }));
}
main().catch((e) => done(1, 'FAIL: ' + e.message));
