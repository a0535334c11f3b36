// bench_serve.sh's client: the official Node Bigtable client loading N rows
// into the server BIGTABLE_EMULATOR_HOST names (MutateRows of 1000 rows, 4
// in flight), then reading them all back with one createReadStream. Prints
// one line: "<server> load <rows> rows <secs> s <rows/s> rows/s; read
// <rows> rows <secs> s <rows/s> rows/s". Row i: key "user%08d" (i scattered
// by a multiplicative hash, so writes spread over the key space), family d,
// columns a and b of 20 and 80 bytes.
'use strict';
const {Bigtable} = require('@google-cloud/bigtable');

const label = process.argv[2];
const n = Number(process.argv[3] || 1000000);
const table = new Bigtable({projectId: 'p'}).instance('i').table('bench');
const BATCH = 1000, INFLIGHT = 4;

function key(i) {
  const h = Number((BigInt(i) * 2654435761n) % 100000000n);
  return 'user' + String(h).padStart(8, '0');
}

async function main() {
  await table.create({families: ['d'], splits: ['user2', 'user4', 'user6', 'user8'].map(s => Buffer.from(s))});
  const a = 'a'.repeat(20), b = 'b'.repeat(80);
  let next = 0;
  const t0 = process.hrtime.bigint();
  async function worker() {
    for (;;) {
      const start = next;
      if (start >= n) return;
      next += BATCH;
      const rows = [];
      for (let i = start; i < Math.min(n, start + BATCH); i++)
        rows.push({key: key(i), data: {d: {a: {value: a, timestamp: 1000}, b: {value: b, timestamp: 1000}}}});
      await table.insert(rows);
    }
  }
  await Promise.all(Array.from({length: INFLIGHT}, worker));
  const t1 = process.hrtime.bigint();
  let got = 0;
  await new Promise((resolve, reject) => {
    table.createReadStream({decode: false}).on('data', () => got++).on('error', reject).on('end', resolve);
  });
  const t2 = process.hrtime.bigint();
  const ls = Number(t1 - t0) / 1e9, rs = Number(t2 - t1) / 1e9;
  console.log(`${label} load ${n} rows ${ls.toFixed(1)} s ${Math.round(n / ls)} rows/s; ` +
              `read ${got} rows ${rs.toFixed(1)} s ${Math.round(got / rs)} rows/s`);
  if (got !== n) throw new Error(`read back ${got} rows of ${n}`);
}

main().then(() => process.exit(0), e => { console.error(e && e.stack ? e.stack : e); process.exit(1); });
