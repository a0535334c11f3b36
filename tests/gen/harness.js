// Checks generated TypeScript encoders against rowkey's test vectors: the
// same checks as tests/gen/harness.py (see there), over the JavaScript tsc
// made of every design (tests/gen/run.sh compiles them with --strict against
// ES2020 alone, so they use no platform API). This harness is plain
// JavaScript so that it needs no Node type definitions. JavaScript strings
// are Unicode: a str field that decodes to bytes that are not UTF-8 must be
// refused as a corrupt key.
//
// usage: node harness.js OUTDIR MANIFEST (lines "<design> <vectors file>")
"use strict";
const fs = require("fs");
const path = require("path");

let failures = 0;

const hex = (b) => Buffer.from(b).toString("hex");
const unhex = (s) => new Uint8Array(Buffer.from(s, "hex"));

// A JSON reader that keeps numbers as text: 64-bit values and -0 survive.
function parse(line) {
  return JSON.parse(line.replace(/("(?:[^"\\]|\\.)*")|(-?\d[\d.eE+-]*)/g, (m, str, num) =>
    str !== undefined ? str : JSON.stringify({ $num: num })));
}

function value(j, t) {
  switch (t) {
    case "u64": case "i64": return BigInt(j);
    case "f64": return typeof j === "string" ? { nan: NaN, inf: Infinity, "-inf": -Infinity }[j] : Number(j.$num);
    case "str": return typeof j === "string" ? j : { badUtf8: true };
    case "bytes": return unhex(j);
    default: return Number(j.$num);
  }
}

function same(a, b) {
  if (typeof a === "number" && typeof b === "number") return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
  if (a instanceof Uint8Array && b instanceof Uint8Array) return hex(a) === hex(b);
  return a === b;
}

function tupleKey(rec, order, types) {
  return order.map((name) => {
    const v = rec[name];
    const t = types[name];
    if (t === "f64") {
      const dv = new DataView(new ArrayBuffer(8));
      if (Number.isNaN(v)) return 0xfff8000000000000n;
      dv.setFloat64(0, v);
      const b = dv.getBigUint64(0);
      return b >> 63n ? ~b & ((1n << 64n) - 1n) : b ^ (1n << 63n);
    }
    if (t === "str") return new Uint8Array(Buffer.from(v, "utf8"));
    return v;
  });
}

function cmpBytes(a, b) {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function cmpTuple(a, b) {
  for (let i = 0; i < a.length; i++) {
    const c = a[i] instanceof Uint8Array ? cmpBytes(a[i], b[i]) : a[i] < b[i] ? -1 : a[i] > b[i] ? 1 : 0;
    if (c) return c;
  }
  return 0;
}

function check(name, file, outdir) {
  const mod = require(path.join(outdir, name + ".js"));
  const Codec = Object.values(mod).find((x) => typeof x === "function" && x.name.endsWith("Codec"));
  const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l);
  const hdr = parse(lines[0]);
  const types = {}, decodes = {};
  for (const f of hdr.fields) {
    types[f.name] = f.type;
    decodes[f.name] = f.decodes;
  }
  let bad = 0;
  const fail = (n, msg) => {
    failures++;
    bad++;
    if (failures <= 200) console.log(`FAIL ${name} line ${n}: ${msg}`);
  };
  if (Codec.SCHEMA !== hdr.schema || Codec.FORMAT_VERSION !== Number(hdr.format.$num) ||
      Codec.BUCKETS !== Number(hdr.buckets.$num))
    fail(1, "embedded schema, format or buckets differ from the vectors'");
  const codec = new Codec(BigInt(hdr.seed.$num));
  const record = (fields) => {
    const r = {};
    for (const [k, v] of Object.entries(fields)) r[k] = value(v, types[k]);
    return r;
  };
  const expect = (n, got, want) => {
    for (const k of Object.keys(types)) {
      const w = k in want ? want[k] : undefined;
      if (!same(got[k], w)) fail(n, `field ${k}: expected ${String(w)}, got ${String(got[k])}`);
    }
  };
  const ordered = [];
  lines.slice(1).forEach((line, idx) => {
    const n = idx + 2;
    if (bad >= 20) return;
    const v = parse(line);
    if ("encode" in v) {
      const rec = record(v.encode);
      let key;
      try {
        key = codec.encode(rec);
      } catch (e) {
        if (!v.error) fail(n, `encode refused (${e.kind}: ${e.message}), expected key ${v.key}`);
        else if (e.kind !== v.error) fail(n, `encode: error ${e.kind} (${e.message}), expected ${v.error} (${v.message})`);
        return;
      }
      if (v.error) return fail(n, `encode gave ${hex(key)}, expected error ${v.error} (${v.message})`);
      if (hex(key) !== v.key) return fail(n, `encode gave ${hex(key)}, expected ${v.key}`);
      if ("bucket" in v && codec.bucketOf(key) !== Number(v.bucket.$num))
        fail(n, `bucketOf gave ${codec.bucketOf(key)}, expected ${v.bucket.$num}`);
      let back;
      try {
        back = codec.decode(key);
      } catch (e) {
        return fail(n, `decode of its own key refused: ${e.message}`);
      }
      const want = {};
      for (const [k, x] of Object.entries(rec)) if (decodes[k]) want[k] = x;
      expect(n, back, want);
      if (hdr.order) ordered.push([tupleKey(rec, hdr.order, types), key, n]);
    } else if ("decode" in v) {
      const badUtf8 = v.fields && Object.values(v.fields).some((x) => typeof x === "object" && "hex" in x);
      let got;
      try {
        got = codec.decode(unhex(v.decode));
      } catch (e) {
        if (e.kind !== "corrupt" || (!v.error && !badUtf8)) fail(n, `decode refused (${e.message}), expected ${line}`);
        return;
      }
      if (v.error || badUtf8) return fail(n, "decode accepted a key the library refuses or that is not UTF-8");
      expect(n, got, record(v.fields));
    } else {
      let got;
      try {
        got = codec.prefixRanges(record(v.prefix));
      } catch (e) {
        if (e.kind !== v.error) fail(n, `prefixRanges refused (${e.kind}: ${e.message}), expected ${line}`);
        return;
      }
      if (v.error) return fail(n, `prefixRanges gave ranges, expected error ${v.error}`);
      const show = (r) => `${hex(r.start)} ${r.stop === null ? "null" : hex(r.stop)} ${r.bucket}`;
      const want = v.ranges.map((r) => `${r.start} ${r.stop === null ? "null" : r.stop} ${Number(r.bucket.$num)}`);
      if (got.map(show).join(";") !== want.join(";")) fail(n, `prefixRanges gave ${got.map(show)}, expected ${want}`);
      if (Object.keys(v.prefix).length === 0)
        for (const r of v.ranges) {
          const b = Number(r.bucket.$num);
          if (b < 0) continue;
          const br = codec.bucketRange(b);
          if (show(br) !== `${r.start} ${r.stop === null ? "null" : r.stop} ${b}`) fail(n, `bucketRange(${b}) gave ${show(br)}`);
        }
    }
  });
  ordered.sort((a, b) => cmpTuple(a[0], b[0]));
  for (let i = 1; i < ordered.length; i++) {
    const [ta, ka, na] = ordered[i - 1], [tb, kb, nb] = ordered[i];
    const t = cmpTuple(ta, tb), k = cmpBytes(ka, kb);
    if ((t < 0 && k >= 0) || (t === 0 && k !== 0))
      fail(nb, `order: the record of line ${na} sorts before this one, its key does not`);
  }
  return lines.length - 1;
}

const [outdir, manifest] = process.argv.slice(2);
let designs = 0, vectors = 0;
for (const line of fs.readFileSync(manifest, "utf8").split("\n").filter((l) => l)) {
  const [name, file] = line.split(" ");
  vectors += check(name, file, path.resolve(outdir));
  designs++;
}
console.log(`ts: ${designs} designs, ${vectors} vectors, ${failures} failures`);
process.exit(failures ? 1 : 0);
