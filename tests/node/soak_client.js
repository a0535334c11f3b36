// The clients of the serve soak (scripts/soak_serve.sh), with the official
// Node Bigtable client against BIGTABLE_EMULATOR_HOST, table "soak"
// (family d), project p, instance i.
//
//   node soak_client.js writer ID SECONDS OUT.json
//     for SECONDS: MutateRows of 20 new rows w<ID>-<seq> (values
//     val-<ID>-<seq>- padded to 1 KiB), reads of rows it wrote (each must be there),
//     CheckAndMutateRow claims of the shared slots s000..s499 (the one whose
//     predicate saw no owner wrote itself as owner), ReadModifyWriteRow
//     increments of its counter ctr-<ID>; one call in 20 with a deadline of
//     a few milliseconds. Writes what was acknowledged, and what failed and
//     so may or may not have applied, to OUT.json.
//   node soak_client.js chaos SECONDS
//     for SECONDS: reads cancelled after their first rows, reads past a tiny
//     deadline, requests of random bytes to every method, random bytes and
//     half HTTP/2 prefaces on raw connections.
//   node soak_client.js reader
//     one read of the whole table, slowly (the soak kills it mid-stream).
//   node soak_client.js verify DIR
//     reads the whole table once and checks it against every writer's
//     DIR/writer-*.json and every cbt client's DIR/cbt-*.acked (one row key
//     a line): every acknowledged write is there with its value, each
//     counter is its acknowledged increments (plus at most its uncertain
//     ones), each slot is owned by the one writer that claimed it. Prints
//     one JSON line of figures; exits 1 on any loss.
'use strict';
const {Bigtable} = require('@google-cloud/bigtable');
const fs = require('fs');
const net = require('net');
const path = require('path');

// no client-side metrics: their exporter wants Google credentials each minute
const bt = new Bigtable({projectId: 'p', metricsEnabled: false});
const table = bt.instance('i').table('soak');
const SLOTS = 500;
const slotKey = n => 's' + String(n).padStart(3, '0');
const rnd = n => Math.floor(Math.random() * n);
// row w<id>-<s>'s value: 1 KiB, so the table passes the split threshold
const value = (id, s) => `val-${id}-${s}-`.padEnd(1024, 'x');
const short = () => (rnd(20) === 0 ? {timeout: 2 + rnd(10)} : undefined);

async function readRows(opts) {
  const rows = [];
  await new Promise((resolve, reject) => {
    table.createReadStream(Object.assign({decode: false}, opts))
      .on('data', r => rows.push(r)).on('error', reject).on('end', resolve);
  });
  return rows;
}

async function writer(id, secs, out) {
  const end = Date.now() + secs * 1000;
  const st = {id, acked: [], uncertain: [], ctr: {acked: 0, uncertain: 0}, wins: [],
              slotUncertain: [], ops: {insert: 0, read: 0, cam: 0, rmw: 0, failed: 0},
              violations: []};
  let seq = 0;
  while (Date.now() < end) {
    const op = rnd(100);
    try {
      if (op < 50) {
        const first = seq;
        seq += 20;
        const rows = [];
        for (let s = first; s < seq; s++)
          rows.push({key: `w${id}-${s}`, data: {d: {v: {value: value(id, s), timestamp: new Date(s + 1)}}}});
        st.ops.insert++;
        try {
          await table.insert(rows, short());
        } catch (e) {
          for (let s = first; s < seq; s++) st.uncertain.push(s);
          throw e;
        }
        for (let s = first; s < seq; s++) st.acked.push(s);
      } else if (op < 70) {
        if (!st.acked.length) continue;
        const s = st.acked[rnd(st.acked.length)];
        st.ops.read++;
        const rows = await readRows({keys: [`w${id}-${s}`]});
        const v = rows.length ? String(rows[0].data.d.v[0].value) : undefined;
        if (v !== value(id, s)) st.violations.push(`read w${id}-${s}: ${v && v.slice(0, 40)}`);
      } else if (op < 85) {
        const slot = rnd(SLOTS);
        st.ops.cam++;
        try {
          const [matched] = await table.row(slotKey(slot)).filter(
            [{family: 'd'}, {column: 'owner'}],
            {onNoMatch: [{method: 'insert', data: {d: {owner: `w${id}`}}}], gaxOptions: short()});
          if (!matched) st.wins.push(slot);
        } catch (e) {
          st.slotUncertain.push(slot);
          throw e;
        }
      } else {
        st.ops.rmw++;
        try {
          await table.row(`ctr-${id}`).increment('d:n', 1, short());
        } catch (e) {
          st.ctr.uncertain++;
          throw e;
        }
        st.ctr.acked++;
      }
    } catch (e) {
      st.ops.failed++;
    }
  }
  fs.writeFileSync(out, JSON.stringify(st));
}

// a client that sends requests of random bytes with gRPC framing
const grpc = require('@grpc/grpc-js');
const METHODS = ['/google.bigtable.v2.Bigtable/ReadRows', '/google.bigtable.v2.Bigtable/MutateRow',
  '/google.bigtable.v2.Bigtable/MutateRows', '/google.bigtable.v2.Bigtable/CheckAndMutateRow',
  '/google.bigtable.v2.Bigtable/ReadModifyWriteRow', '/google.bigtable.v2.Bigtable/SampleRowKeys',
  '/google.bigtable.admin.v2.BigtableTableAdmin/CreateTable',
  '/google.bigtable.admin.v2.BigtableTableAdmin/ModifyColumnFamilies',
  '/google.bigtable.admin.v2.BigtableTableAdmin/NoSuchMethod'];

function garbage(n) {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = rnd(256);
  return b;
}

function rawGarbage(host, port) {
  return new Promise(resolve => {
    const s = net.connect(port, host, () => {
      const pre = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
      s.write(rnd(2) ? Buffer.concat([pre.subarray(0, rnd(pre.length)), garbage(rnd(2000))]) : garbage(rnd(4000)));
      setTimeout(() => s.destroy(), rnd(200));
    });
    s.on('error', () => {});
    s.on('close', resolve);
  });
}

async function chaos(secs) {
  const end = Date.now() + secs * 1000;
  const [host, port] = process.env.BIGTABLE_EMULATOR_HOST.split(':');
  const raw = new grpc.Client(`${host}:${port}`, grpc.credentials.createInsecure());
  const same = b => b;
  const n = {cancelled: 0, deadlines: 0, garbage: 0, raw: 0};
  while (Date.now() < end) {
    const op = rnd(4);
    if (op === 0) { // a read cancelled after its first rows
      await new Promise(resolve => {
        const s = table.createReadStream({prefix: 'w'});
        let got = 0;
        s.on('data', () => { if (++got === 5) { s.end(); resolve(); } });
        s.on('error', resolve);
        s.on('end', resolve);
      });
      n.cancelled++;
    } else if (op === 1) { // a read past a tiny deadline
      await readRows({prefix: 'w', gaxOptions: {timeout: 1 + rnd(20), retry: null}}).catch(() => {});
      n.deadlines++;
    } else if (op === 2) { // random bytes as a request
      const m = METHODS[rnd(METHODS.length)];
      await new Promise(resolve => {
        if (m.endsWith('ReadRows') || m.endsWith('MutateRows') || m.endsWith('SampleRowKeys')) {
          const s = raw.makeServerStreamRequest(m, same, same, garbage(rnd(300)));
          s.on('data', () => {});
          s.on('error', resolve);
          s.on('end', resolve);
        } else {
          raw.makeUnaryRequest(m, same, same, garbage(rnd(300)), () => resolve());
        }
      });
      n.garbage++;
    } else {
      await rawGarbage(host, Number(port));
      n.raw++;
    }
  }
  raw.close();
  console.log(JSON.stringify({chaos: n}));
}

async function reader() {
  await new Promise(resolve => {
    const s = table.createReadStream({});
    s.on('data', () => s.pause() || setTimeout(() => s.resume(), 1));
    s.on('error', resolve);
    s.on('end', resolve);
  });
}

// a counter as the client gives it: a number (it decodes 8-byte values), a
// Buffer or a string of the bytes
const counter = v => (typeof v === 'number' ? v
  : Number((Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'binary')).readBigInt64BE()));

async function verify(dir) {
  const rows = await readRows({});
  const byKey = new Map(rows.map(r => [String(r.id), r.data.d || {}]));
  const bad = [];
  const fig = {rows: rows.length, acked_writes: 0, uncertain_writes: 0, cbt_writes: 0,
               increments: 0, slots_claimed: 0, ops: 0, failed_calls: 0};
  const winner = new Map();
  const maybe = new Map();
  for (const f of fs.readdirSync(dir).filter(f => /^writer-.*\.json$/.test(f))) {
    const st = JSON.parse(fs.readFileSync(path.join(dir, f)));
    for (const v of st.violations) bad.push(`writer ${st.id}: ${v}`);
    for (const s of st.acked) {
      const d = byKey.get(`w${st.id}-${s}`);
      const v = d && d.v ? String(d.v[0].value) : undefined;
      if (v !== value(st.id, s)) bad.push(`lost: w${st.id}-${s} (${v && v.slice(0, 40)})`);
    }
    const c = byKey.get(`ctr-${st.id}`);
    const n = c && c.n ? counter(c.n[0].value) : 0;
    if (n < st.ctr.acked || n > st.ctr.acked + st.ctr.uncertain)
      bad.push(`counter ctr-${st.id}: ${n}, acknowledged ${st.ctr.acked} (+${st.ctr.uncertain} uncertain)`);
    for (const s of st.wins) {
      if (winner.has(s)) bad.push(`slot ${s} claimed by w${winner.get(s)} and w${st.id}`);
      winner.set(s, st.id);
    }
    for (const s of st.slotUncertain) maybe.set(s, (maybe.get(s) || []).concat([st.id]));
    fig.acked_writes += st.acked.length;
    fig.uncertain_writes += st.uncertain.length;
    fig.increments += st.ctr.acked;
    fig.slots_claimed += st.wins.length;
    fig.ops += st.ops.insert + st.ops.read + st.ops.cam + st.ops.rmw;
    fig.failed_calls += st.ops.failed;
  }
  for (let s = 0; s < SLOTS; s++) {
    const d = byKey.get(slotKey(s));
    const owner = d && d.owner ? String(d.owner[0].value) : undefined;
    if (winner.has(s) && owner !== `w${winner.get(s)}`)
      bad.push(`slot ${s}: owner ${owner}, claimed by w${winner.get(s)}`);
    if (!winner.has(s) && owner !== undefined && !(maybe.get(s) || []).includes(Number(owner.slice(1))))
      bad.push(`slot ${s}: owner ${owner}, claimed by nobody`);
  }
  for (const f of fs.readdirSync(dir).filter(f => /^cbt-.*\.acked$/.test(f))) {
    for (const k of fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean)) {
      fig.cbt_writes++;
      const d = byKey.get(k);
      if (!d || !d.v || String(d.v[0].value) !== k) bad.push(`lost (cbt): ${k}`);
    }
  }
  fig.lost = bad.length;
  console.log(JSON.stringify(fig));
  for (const b of bad.slice(0, 20)) console.error('soak:', b);
  return bad.length ? 1 : 0;
}

const [mode, a, b, c] = process.argv.slice(2);
const run = mode === 'writer' ? writer(Number(a), Number(b), c).then(() => 0)
  : mode === 'chaos' ? chaos(Number(a)).then(() => 0)
  : mode === 'reader' ? reader().then(() => 0)
  : mode === 'verify' ? verify(a)
  : Promise.reject(new Error('usage: soak_client.js writer|chaos|reader|verify ...'));
run.then(code => process.exit(code), e => {
  console.error('soak_client.js:', e && e.stack ? e.stack : e);
  process.exit(1);
});
