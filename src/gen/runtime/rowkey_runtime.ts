// rowkey runtime for TypeScript: written by `rowkey gen --lang ts` next to
// the encoders it generates. DO NOT EDIT: generate again with the same rowkey.
//
// The generated module of each key design holds its record type and its key
// template as a table of parts; this module walks that table to encode and
// decode keys exactly as the rowkey C library does (docs/formats.md part A),
// refuses what it refuses, and computes the scan ranges its planner gives
// for fields bound by equality. ES2020, no platform API: MD5, SHA-1,
// SHA-256, XXH3-64, MurmurHash3, Phoenix's hash and UTF-8 are written out
// below (Web Crypto's digests are asynchronous, node:crypto is not in
// browsers), so keys are computed the same way in Node, Deno and browsers.
// 64-bit integers are bigint.
//
// One file, longer than this project's usual 600 lines, on purpose: a design is
// then exactly two files in a service's tree. It is the port of src/key's
// schema_rules.c (widths and tails), codec.c, hash.c, encode.c, decode.c and
// plan.c's walk for fields bound by =, in sections in that order, each named
// after its C file so the two can be read side by side.

export const FORMAT_VERSION = 1;

// field types, part kinds, encodings, value expressions, bucket forms,
// salts and hashes (the C library's schema_int.h and hash.h)
export const U8 = 1, U16 = 2, U32 = 3, U64 = 4, I8 = 5, I16 = 6, I32 = 7, I64 = 8, F64 = 9, STR = 10, BYTES = 11;
const P_LIT = 1, P_VAL = 2, P_HASH = 3, P_HEX = 4, P_SLICE = 5, P_BUCKET = 6, P_SALT = 7, P_PSALT = 8;
export const E_TEXT = 1, E_UINT = 2, E_INT = 3, E_F64 = 4, E_DEC = 5, E_ESC = 6, E_BYTES = 7, E_OC = 8, E_OB = 9,
  E_PHX = 10;
export const V_FIELD = 1, V_RTS = 2, V_TBUCKET = 3, V_REVERSE = 4, V_REVLABELS = 5, V_REVNUM = 6;
export const F_BIN = 1, F_DEC = 2, F_ALPHA = 3;
export const SALT_RANDOM = 1, SALT_ROUNDROBIN = 2;
export const MD5 = 1, SHA1 = 2, SHA256 = 3, XXH3 = 4, MURMUR3 = 5, PHOENIX31 = 6;
const TYPE_NAMES = ["", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f64", "str", "bytes"];
const SUB_MAX = 65536; // bytes a hash, hex or slice input may have
const M64 = (1n << 64n) - 1n;

/** A record, key or length the rowkey library refuses; kind says which. */
export class RowKeyError extends Error {
  constructor(readonly kind: "invalid" | "toolong" | "corrupt", message: string) {
    super(message);
    this.name = "RowKeyError";
  }
}

const invalid = (m: string) => new RowKeyError("invalid", m);
const corrupt = (m: string) => new RowKeyError("corrupt", m);
const tooLong = (m: string) => new RowKeyError("toolong", m);

/** The rows start <= key < stop (stop null: to the end); bucket is -1 when none. */
export interface KeyRange {
  readonly start: Uint8Array;
  readonly stop: Uint8Array | null;
  readonly bucket: number;
}

// ---- parts of a key template ----

export class Part {
  desc = false;
  upper = false;
  lit: Uint8Array = new Uint8Array(0);
  alpha: Uint8Array = new Uint8Array(0);
  enc = 0;
  width = 0;
  vop = 0;
  field = 0;
  varg = 0n;
  vmax = 0n;
  sub: Part[] = [];
  alg = 0;
  sa = 0;
  sb = 0;
  n = 0;
  form = 0;
  salt = 0;
  vtype = 0;
  fixed = -1;
  tailFixed = -1;
  nextIsLit = false;
  last = false;
  invert = false;
  sepcheck = false;
  constructor(readonly kind: number) {}
}

/** Bytes from a string of char codes 0..255 (a literal as generated code writes it). */
export function bytes(s: string): Uint8Array {
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

export function lit(b: Uint8Array): Part {
  const p = new Part(P_LIT);
  p.lit = b;
  return p;
}

export function val(enc: number, width: number, vop: number, field: number, varg: bigint, vmax: bigint,
                    desc: boolean): Part {
  const p = new Part(P_VAL);
  Object.assign(p, { enc, width, vop, field, varg, vmax, desc });
  return p;
}

export function hash(alg: number, ...sub: Part[]): Part {
  const p = new Part(P_HASH);
  Object.assign(p, { alg, sub });
  return p;
}

export function hex(upper: boolean, ...sub: Part[]): Part {
  const p = new Part(P_HEX);
  Object.assign(p, { upper, sub });
  return p;
}

export function slice(sa: number, sb: number, sub: Part): Part {
  const p = new Part(P_SLICE);
  Object.assign(p, { sa, sb, sub: [sub] });
  return p;
}

export function bucket(n: number, form: number, alpha: Uint8Array | null, h: Part): Part {
  const p = new Part(P_BUCKET);
  Object.assign(p, { n, form, alpha: alpha ?? new Uint8Array(0), sub: [h] });
  return p;
}

export function salt(kind: number, n: number, form: number, alpha: Uint8Array | null): Part {
  const p = new Part(P_SALT);
  Object.assign(p, { salt: kind, n, form, alpha: alpha ?? new Uint8Array(0) });
  return p;
}

export function psalt(n: number): Part {
  const p = new Part(P_PSALT);
  p.n = n;
  return p;
}

function used(parts: Part[]): bigint {
  let m = 0n;
  for (const p of parts) {
    if (p.kind === P_VAL) m |= 1n << BigInt(p.field);
    m |= used(p.sub);
  }
  return m;
}

const isStr = (t: number) => t === STR || t === BYTES;
const isSigned = (t: number) => t >= I8 && t <= I64;
const isInt = (t: number) => t >= U8 && t <= I64;
const widthOf = (t: number) => (t === U8 || t === I8 ? 1 : t === U16 || t === I16 ? 2 : t === U32 || t === I32 ? 4 : 8);

/** A key design: field types and names, its parts, its length limit. */
export class Template {
  readonly arena: number;
  readonly pointGet: bigint;

  constructor(readonly maxKeyLen: number, readonly types: number[], readonly names: string[],
              readonly parts: Part[]) {
    this.arena = Math.max(maxKeyLen, SUB_MAX);
    this.derive(parts, 0);
    this.pointGet = used(parts);
  }

  /** Widths and tails as the C parser derives them (schema_rules.c). */
  private derive(parts: Part[], depth: number): void {
    for (const p of parts) {
      this.derive(p.sub, depth + 1);
      if (p.kind === P_VAL)
        p.vtype = p.vop === V_RTS ? U64 : p.vop === V_REVERSE || p.vop === V_REVLABELS || p.vop === V_REVNUM ? STR
          : this.types[p.field];
      let sub = 0;
      for (const q of p.sub) sub = sub < 0 || q.fixed < 0 ? -1 : sub + q.fixed;
      switch (p.kind) {
        case P_LIT: p.fixed = p.lit.length; break;
        case P_VAL:
          p.fixed = p.enc === E_UINT || p.enc === E_INT || p.enc === E_DEC ? p.width : p.enc === E_F64 ? 8
            : p.enc === E_OB ? p.width + 1 : p.enc === E_PHX && p.width > 0 ? p.width : -1;
          if (p.enc === E_TEXT && p.vop === V_REVNUM) p.fixed = Number(p.varg);
          break;
        case P_HASH: p.fixed = hashSize(p.alg); break;
        case P_HEX: p.fixed = 2 * sub; break;
        case P_SLICE: p.fixed = p.sb - p.sa; break;
        case P_BUCKET: case P_SALT: p.fixed = p.form === F_DEC ? String(p.n - 1).length : 1; break;
        default: p.fixed = 1;
      }
    }
    let tail = 0;
    for (let k = parts.length - 1; k >= 0; k--) {
      const p = parts[k];
      p.tailFixed = tail;
      p.last = k === parts.length - 1;
      p.nextIsLit = k + 1 < parts.length && parts[k + 1].kind === P_LIT;
      tail = tail < 0 || p.fixed < 0 ? -1 : tail + p.fixed;
      if (p.kind === P_VAL) {
        p.invert = p.desc && !(p.enc === E_PHX && isStr(p.vtype));
        p.sepcheck = depth === 0 && p.enc === E_TEXT && p.fixed < 0 && p.nextIsLit;
      }
    }
  }
}

// ---- values: the generated modules' records, converted ----

/** A field's value as the codec holds it: integers bigint, f64 number, str and bytes their bytes. */
export type Value = bigint | number | Uint8Array | undefined;

/** A record (an object keyed by field name) as the codec's values; a value outside its type is refused. */
export function fromRecord(t: Template, r: object): Value[] {
  const rec = r as Record<string, unknown>;
  return t.names.map((name, i) => {
    const v = rec[name];
    const ty = t.types[i];
    if (v === undefined || v === null) return undefined;
    if (ty === F64) {
      if (typeof v !== "number") throw invalid(`field '${name}' is f64: ${String(v)} is not a number`);
      return v;
    }
    if (ty === STR) {
      if (typeof v !== "string") throw invalid(`field '${name}' is str: ${String(v)} is not a string`);
      return utf8Encode(v, name);
    }
    if (ty === BYTES) {
      if (!(v instanceof Uint8Array)) throw invalid(`field '${name}' is bytes: ${String(v)} is not a Uint8Array`);
      return v.slice();
    }
    const w = BigInt(8 * widthOf(ty));
    let x: bigint;
    if (ty === U64 || ty === I64) {
      if (typeof v !== "bigint") throw invalid(`field '${name}' is ${TYPE_NAMES[ty]}: ${String(v)} is not a bigint`);
      x = v;
    } else {
      if (typeof v !== "number" || !Number.isInteger(v))
        throw invalid(`field '${name}' is ${TYPE_NAMES[ty]}: ${String(v)} is not an integer`);
      x = BigInt(v);
    }
    const [lo, hi] = isSigned(ty) ? [-(1n << (w - 1n)), (1n << (w - 1n)) - 1n] : [0n, (1n << w) - 1n];
    if (x < lo || x > hi) throw invalid(`field '${name}': ${x} is outside ${TYPE_NAMES[ty]}`);
    return x;
  });
}

/** The codec's values as a record: integers up to 32 bits as numbers, str as text; absent fields left out. */
export function toRecord<R>(t: Template, vals: Value[]): R {
  const out: Record<string, unknown> = {};
  vals.forEach((v, i) => {
    if (v === undefined) return;
    const ty = t.types[i];
    out[t.names[i]] = ty === STR ? utf8Decode(v as Uint8Array, t.names[i])
      : isInt(ty) && ty !== U64 && ty !== I64 ? Number(v) : v;
  });
  return out as unknown as R;
}

function utf8Encode(s: string, name: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c > 0xdbff || d < 0xdc00 || d > 0xdfff)
        throw invalid(`field '${name}': the string is not valid Unicode (a lone surrogate)`);
      c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      i++;
    }
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}

function utf8Decode(b: Uint8Array, name: string): string {
  let s = "";
  for (let i = 0; i < b.length;) {
    const c = b[i];
    const [k, min, first] = c < 0x80 ? [0, 0, c] : (c & 0xe0) === 0xc0 ? [1, 0x80, c & 0x1f]
      : (c & 0xf0) === 0xe0 ? [2, 0x800, c & 0x0f] : (c & 0xf8) === 0xf0 ? [3, 0x10000, c & 0x07] : [-1, 0, 0];
    let cp = first;
    let ok = k >= 0 && i + k < b.length;
    for (let j = 1; ok && j <= k; j++) {
      ok = (b[i + j] & 0xc0) === 0x80;
      cp = (cp << 6) | (b[i + j] & 0x3f);
    }
    if (!ok || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      throw corrupt(`field '${name}' decodes to bytes that are not UTF-8`);
    s += String.fromCodePoint(cp);
    i += k + 1;
  }
  return s;
}

// ---- bytes ----

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function ascii(s: string): Uint8Array {
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

function indexOf(b: Uint8Array, x: Uint8Array, from: number, end: number): number {
  outer: for (let i = from; i + x.length <= end; i++) {
    for (let k = 0; k < x.length; k++) if (b[i + k] !== x[k]) continue outer;
    return i;
  }
  return -1;
}

function toHex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** Unsigned lexicographic order of byte strings, as HBase and Bigtable sort rows. */
export function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

class W {
  private buf: number[] = [];
  constructor(readonly cap: number, start?: Uint8Array) {
    if (start) for (const c of start) this.buf.push(c);
  }
  put(x: Uint8Array): void {
    if (x.length > this.cap - this.buf.length) throw tooLong(`key is longer than its limit of ${this.cap} bytes`);
    for (const c of x) this.buf.push(c);
  }
  get size(): number {
    return this.buf.length;
  }
  set(i: number, c: number): void {
    this.buf[i] = c;
  }
  bytes(from = 0): Uint8Array {
    return Uint8Array.from(this.buf.slice(from));
  }
}

// ---- field codecs (codec.c) ----

const F64BUF = new DataView(new ArrayBuffer(8));

function f64ToBits(d: number): bigint {
  if (Number.isNaN(d)) return 0xfff8000000000000n;
  F64BUF.setFloat64(0, d);
  const b = F64BUF.getBigUint64(0);
  return b >> 63n ? ~b & M64 : b ^ (1n << 63n);
}

function f64FromBits(b: bigint): number {
  F64BUF.setBigUint64(0, b >> 63n ? b ^ (1n << 63n) : ~b & M64);
  return F64BUF.getFloat64(0);
}

/** C's printf %.17g, every NaN "nan": the exact value's 17 digits, ties to even (as glibc). */
export function textF64(d: number): string {
  if (Number.isNaN(d)) return "nan";
  if (!Number.isFinite(d)) return d > 0 ? "inf" : "-inf";
  F64BUF.setFloat64(0, d);
  const bits = F64BUF.getBigUint64(0);
  const neg = bits >> 63n === 1n;
  let digits = "00000000000000000";
  let x = 0;
  if (d !== 0) {
    const e = Number((bits >> 52n) & 0x7ffn);
    let m = bits & ((1n << 52n) - 1n);
    let e2 = e - 1075;
    if (e === 0) e2 = -1074;
    else m |= 1n << 52n;
    // the exact value as i / 10^scale
    const [i, scale] = e2 >= 0 ? [m << BigInt(e2), 0] : [m * 5n ** BigInt(-e2), -e2];
    const s = i.toString();
    x = s.length - 1 - scale;
    let head = BigInt(s.slice(0, 17));
    if (s.length > 17) {
      const rest = s.slice(17);
      const half = rest[0] > "5" || (rest[0] === "5" && /[1-9]/.test(rest.slice(1)));
      if (half || (rest[0] === "5" && !/[1-9]/.test(rest.slice(1)) && head % 2n === 1n)) head += 1n;
      if (head.toString().length > 17) {
        head /= 10n;
        x += 1;
      }
    }
    digits = head.toString().padEnd(17, "0");
  }
  let out = neg ? "-" : "";
  if (x < -4 || x >= 17) {
    const frac = digits.slice(1).replace(/0+$/, "");
    out += digits[0] + (frac ? "." + frac : "");
    return out + "e" + (x < 0 ? "-" : "+") + String(Math.abs(x)).padStart(2, "0");
  }
  const ip = x >= 0 ? digits.slice(0, x + 1) : "0";
  const fp = (x >= 0 ? digits.slice(x + 1) : "0".repeat(-x - 1) + digits).replace(/0+$/, "");
  return out + ip + (fp ? "." + fp : "");
}

function putUint(v: bigint, width: number): Uint8Array {
  const b = new Uint8Array(width);
  for (let i = width - 1; i >= 0; i--, v >>= 8n) b[i] = Number(v & 0xffn);
  return b;
}

function putInt(v: bigint, width: number): Uint8Array {
  const w = BigInt(width * 8);
  return putUint(BigInt.asUintN(width * 8, v) ^ (1n << (w - 1n)), width);
}

function getUint(b: Uint8Array, off: number, width: number, mask: number): bigint {
  let v = 0n;
  for (let i = 0; i < width; i++) v = (v << 8n) | BigInt((b[off + i] ^ mask) & 0xff);
  return v;
}

function getInt(b: Uint8Array, off: number, width: number, mask: number): bigint {
  return BigInt.asIntN(width * 8, getUint(b, off, width, mask) ^ (1n << BigInt(width * 8 - 1)));
}

function putDec(v: bigint, width: number): Uint8Array {
  const s = v.toString();
  if (s.length > width) throw invalid(`value ${s} does not fit in ${width} decimal digits`);
  return ascii(s.padStart(width, "0"));
}

function getDec(b: Uint8Array, off: number, width: number, mask: number): bigint {
  let v = 0n;
  for (let i = 0; i < width; i++) {
    const c = (b[off + i] ^ mask) & 0xff;
    if (c < 0x30 || c > 0x39) throw corrupt(`expected a decimal digit at offset ${i}, found 0x${c.toString(16)}`);
    v = v * 10n + BigInt(c - 0x30);
    if (v > M64) throw corrupt("decimal number overflows 64 bits");
  }
  return v;
}

function esc(s: Uint8Array, ff: boolean): Uint8Array {
  const o: number[] = [];
  for (const c of s) {
    o.push(c);
    if (c === 0) o.push(0xff);
    else if (ff && c === 0xff) o.push(0);
  }
  o.push(0, 1);
  return Uint8Array.from(o);
}

/** An escaped (ff: ordered-code) string at b[off, end): value and bytes used. */
function getEscaped(b: Uint8Array, off: number, end: number, mask: number, ff: boolean): [Uint8Array, number] {
  const o: number[] = [];
  for (let i = off; i < end; i++) {
    const c = (b[i] ^ mask) & 0xff;
    if (c === 0 || (ff && c === 0xff)) {
      if (i + 1 >= end) throw corrupt(`string truncated after escape byte at offset ${i - off}`);
      const d = (b[i + 1] ^ mask) & 0xff;
      if (c === 0 && d === 1) return [Uint8Array.from(o), i + 2 - off];
      if ((c === 0 && d !== 0xff) || (c === 0xff && d !== 0)) throw corrupt(`bad escape at offset ${i - off}`);
      o.push(c);
      i++;
      continue;
    }
    o.push(c);
  }
  throw corrupt(`string has no terminator (00 01) within ${end - off} bytes`);
}

const bitLen = (x: bigint) => (x === 0n ? 0 : x.toString(2).length);

function ocUint(v: bigint): Uint8Array {
  const n = Math.ceil(bitLen(v) / 8);
  return concat(Uint8Array.of(n), putUint(v, 8).slice(8 - n));
}

const OC_HEADER = [[0, 0], [0x80, 0], [0xc0, 0], [0xe0, 0], [0xf0, 0], [0xf8, 0], [0xfc, 0], [0xfe, 0], [0xff, 0],
  [0xff, 0x80], [0xff, 0xc0]];

const ocSignedLen = (x: bigint) => Math.floor(bitLen(x) / 7) + 1;

function ocInt(v: bigint): Uint8Array {
  const x = v < 0n ? ~v : v;
  const n = ocSignedLen(x);
  const sign = v < 0n ? 0xff : 0;
  const buf = concat(Uint8Array.of(sign, sign), putUint(BigInt.asUintN(64, v), 8));
  const begin = 10 - n;
  buf[begin] ^= OC_HEADER[n][0];
  if (n >= 2) buf[begin + 1] ^= OC_HEADER[n][1];
  return buf.slice(begin);
}

function getOcUint(b: Uint8Array, off: number, end: number, mask: number): [bigint, number] {
  if (end - off < 1) throw corrupt("ordered-code number truncated: no length byte");
  const n = (b[off] ^ mask) & 0xff;
  if (n > 8) throw corrupt(`ordered-code number length ${n} is over 8`);
  if (n + 1 > end - off) throw corrupt("ordered-code number truncated");
  if (n > 0 && ((b[off + 1] ^ mask) & 0xff) === 0) throw corrupt("ordered-code number has a leading zero byte");
  return [getUint(b, off + 1, n, mask), n + 1];
}

function getOcInt(b: Uint8Array, off: number, end: number, mask: number): [bigint, number] {
  if (end - off < 1) throw corrupt("ordered-code signed number truncated");
  const b0 = (b[off] ^ mask) & 0xff;
  const sign = b0 & 0x80 ? 0 : 0xff;
  const hdr = ((b0 ^ sign) << 8) | (end - off > 1 ? (b[off + 1] ^ mask ^ sign) & 0xff : 0);
  let n = 0;
  while (n < 11 && hdr & (0x8000 >> n)) n++;
  if (n < 1 || n > 10) throw corrupt("ordered-code signed number has a bad header");
  if (n > end - off) throw corrupt("ordered-code signed number truncated");
  const buf = new Uint8Array(10).fill(sign);
  for (let i = 0; i < n; i++) buf[10 - n + i] = (b[off + i] ^ mask) & 0xff;
  buf[10 - n] ^= OC_HEADER[n][0];
  if (n >= 2) buf[10 - n + 1] ^= OC_HEADER[n][1];
  if (buf[0] !== sign || buf[1] !== sign) throw corrupt("ordered-code signed number out of 64-bit range");
  const v = BigInt.asIntN(64, getUint(buf, 2, 8, 0));
  if ((v < 0n) !== (sign === 0xff) || ocSignedLen(v < 0n ? ~v : v) !== n)
    throw corrupt("ordered-code signed number is not in canonical form");
  return [v, n];
}

const obHeader = (width: number) => (width === 1 ? 0x29 : width === 2 ? 0x2a : width === 4 ? 0x2b : 0x2c);

function getF64(b: Uint8Array, off: number, mask: number): number {
  const u = getUint(b, off, 8, mask);
  const d = f64FromBits(u);
  if (f64ToBits(d) !== u) throw corrupt("a NaN other than the one f64 keys hold");
  return d;
}

function reverse(b: Uint8Array): Uint8Array {
  return Uint8Array.from(b).reverse();
}

function reverseLabels(b: Uint8Array): Uint8Array {
  const labels: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i <= b.length; i++)
    if (i === b.length || b[i] === 0x2e) {
      labels.push(b.slice(start, i));
      start = i + 1;
    }
  labels.reverse();
  const parts: Uint8Array[] = [];
  labels.forEach((l, i) => parts.push(...(i ? [Uint8Array.of(0x2e), l] : [l])));
  return concat(...parts);
}

// ---- hashes (hash.c) ----

const P64_1 = 0x9e3779b185ebca87n, P64_2 = 0xc2b2ae3d27d4eb4fn, P64_3 = 0x165667b19e3779f9n,
  P64_4 = 0x85ebca77c2b2ae63n, P64_5 = 0x27d4eb2f165667c5n, P32_1 = 0x9e3779b1n, P32_2 = 0x85ebca77n,
  P32_3 = 0xc2b2ae3dn;
const SECRET = Uint8Array.from(("b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f" +
  "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c" +
  "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8" +
  "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364" +
  "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e" +
  "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e").match(/../g) ?? [], (h) => parseInt(h, 16));

function le(b: Uint8Array, i: number, n: number): bigint {
  let v = 0n;
  for (let k = n - 1; k >= 0; k--) v = (v << 8n) | BigInt(b[i + k]);
  return v;
}

const mul = (a: bigint, b: bigint) => (a * b) & M64;
const fold64 = (a: bigint, b: bigint) => {
  const p = a * b;
  return (p ^ (p >> 64n)) & M64;
};
const rotl64 = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & M64;

function xxh64Avalanche(h: bigint): bigint {
  h ^= h >> 33n;
  h = mul(h, P64_2);
  h ^= h >> 29n;
  h = mul(h, P64_3);
  return h ^ (h >> 32n);
}

function xxh3Avalanche(h: bigint): bigint {
  h ^= h >> 37n;
  h = mul(h, 0x165667919e3779f9n);
  return h ^ (h >> 32n);
}

const mix16 = (b: Uint8Array, i: number, s: number) =>
  fold64(le(b, i, 8) ^ le(SECRET, s, 8), le(b, i + 8, 8) ^ le(SECRET, s + 8, 8));

/** XXH3_64bits(b): seed 0, the default secret (xxHash 0.8). */
function xxh3(b: Uint8Array): bigint {
  const n = b.length, s = SECRET, N = BigInt(n);
  if (n === 0) return xxh64Avalanche(le(s, 56, 8) ^ le(s, 64, 8));
  if (n <= 3) {
    const combined = (BigInt(b[0]) << 16n) | (BigInt(b[n >> 1]) << 24n) | BigInt(b[n - 1]) | (N << 8n);
    return xxh64Avalanche(combined ^ (le(s, 0, 4) ^ le(s, 4, 4)));
  }
  if (n <= 8) {
    let x = ((le(b, n - 4, 4) + (le(b, 0, 4) << 32n)) & M64) ^ (le(s, 8, 8) ^ le(s, 16, 8));
    x ^= rotl64(x, 49n) ^ rotl64(x, 24n);
    x = mul(x, 0x9fb21c651e98df25n);
    x ^= ((x >> 35n) + N) & M64;
    x = mul(x, 0x9fb21c651e98df25n);
    return x ^ (x >> 28n);
  }
  if (n <= 16) {
    const lo = le(b, 0, 8) ^ (le(s, 24, 8) ^ le(s, 32, 8));
    const hi = le(b, n - 8, 8) ^ (le(s, 40, 8) ^ le(s, 48, 8));
    const swapped = le(putUint(lo, 8), 0, 8);
    return xxh3Avalanche((N + swapped + hi + fold64(lo, hi)) & M64);
  }
  if (n <= 128) {
    let acc = N * P64_1;
    if (n > 32) {
      if (n > 64) {
        if (n > 96) acc += mix16(b, 48, 96) + mix16(b, n - 64, 112);
        acc += mix16(b, 32, 64) + mix16(b, n - 48, 80);
      }
      acc += mix16(b, 16, 32) + mix16(b, n - 32, 48);
    }
    acc += mix16(b, 0, 0) + mix16(b, n - 16, 16);
    return xxh3Avalanche(acc & M64);
  }
  if (n <= 240) {
    let acc = N * P64_1;
    for (let i = 0; i < 8; i++) acc += mix16(b, 16 * i, 16 * i);
    acc = xxh3Avalanche(acc & M64);
    for (let i = 8; i < Math.floor(n / 16); i++) acc += mix16(b, 16 * i, 16 * (i - 8) + 3);
    acc += mix16(b, n - 16, 136 - 17);
    return xxh3Avalanche(acc & M64);
  }
  const acc = [P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1];
  const stripe = (off: number, so: number) => {
    for (let i = 0; i < 8; i++) {
      const v = le(b, off + 8 * i, 8);
      const k = v ^ le(s, so + 8 * i, 8);
      acc[i ^ 1] = (acc[i ^ 1] + v) & M64;
      acc[i] = (acc[i] + (k & 0xffffffffn) * (k >> 32n)) & M64;
    }
  };
  const perBlock = (s.length - 64) / 8, block = 64 * perBlock, blocks = Math.floor((n - 1) / block);
  for (let blk = 0; blk < blocks; blk++) {
    for (let st = 0; st < perBlock; st++) stripe(blk * block + 64 * st, 8 * st);
    for (let i = 0; i < 8; i++) {
      let a = acc[i];
      a ^= a >> 47n;
      a ^= le(s, s.length - 64 + 8 * i, 8);
      acc[i] = mul(a, P32_1);
    }
  }
  for (let st = 0; st < Math.floor((n - 1 - block * blocks) / 64); st++) stripe(blocks * block + 64 * st, 8 * st);
  stripe(n - 64, s.length - 64 - 7);
  let r = N * P64_1;
  for (let i = 0; i < 4; i++) r += fold64(acc[2 * i] ^ le(s, 11 + 16 * i, 8), acc[2 * i + 1] ^ le(s, 19 + 16 * i, 8));
  return xxh3Avalanche(r & M64);
}

/** MurmurHash3_x86_32 with seed 0. */
function murmur3(b: Uint8Array): number {
  const c1 = 0xcc9e2d51, c2 = 0x1b873593, n = b.length;
  const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));
  let h = 0;
  for (let i = 0; i + 4 <= n; i += 4) {
    let k = b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
    k = Math.imul(rotl(Math.imul(k, c1), 15), c2);
    h ^= k;
    h = (Math.imul(rotl(h, 13), 5) + 0xe6546b64) | 0;
  }
  const t = n & 3;
  if (t) {
    let k = 0;
    for (let i = t - 1; i >= 0; i--) k = (k << 8) | b[n - t + i];
    h ^= Math.imul(rotl(Math.imul(k, c1), 15), c2);
  }
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Phoenix's hash: h = 31*h + (signed)byte from 1, a Java int. */
function phoenix31(b: Uint8Array, from = 0): number {
  let h = 1;
  for (let i = from; i < b.length; i++) h = (Math.imul(31, h) + ((b[i] << 24) >> 24)) | 0;
  return h;
}

const javaAbsMod = (h: number, n: number) => Math.abs(h % n);

// MD5 (RFC 1321), SHA-1 and SHA-256 (FIPS 180-4) over 32-bit words.
function pad(b: Uint8Array, bigEndian: boolean): DataView {
  const len = Math.ceil((b.length + 9) / 64) * 64;
  const buf = new Uint8Array(len);
  buf.set(b);
  buf[b.length] = 0x80;
  const dv = new DataView(buf.buffer);
  const bits = BigInt(b.length) * 8n;
  dv.setBigUint64(len - 8, bits, !bigEndian);
  return dv;
}

const MD5_S = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
const MD5_K = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) | 0);

function md5(b: Uint8Array): Uint8Array {
  const dv = pad(b, false);
  const h = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476];
  for (let o = 0; o < dv.byteLength; o += 64) {
    let [a, bb, c, d] = h;
    for (let i = 0; i < 64; i++) {
      const r = i >> 4;
      const f = r === 0 ? (bb & c) | (~bb & d) : r === 1 ? (d & bb) | (~d & c) : r === 2 ? bb ^ c ^ d : c ^ (bb | ~d);
      const g = r === 0 ? i : r === 1 ? (5 * i + 1) & 15 : r === 2 ? (3 * i + 5) & 15 : (7 * i) & 15;
      const x = (a + f + MD5_K[i] + dv.getInt32(o + 4 * g, true)) | 0;
      const sh = MD5_S[(r << 2) | (i & 3)];
      a = d;
      d = c;
      c = bb;
      bb = (bb + ((x << sh) | (x >>> (32 - sh)))) | 0;
    }
    h[0] = (h[0] + a) | 0;
    h[1] = (h[1] + bb) | 0;
    h[2] = (h[2] + c) | 0;
    h[3] = (h[3] + d) | 0;
  }
  const out = new DataView(new ArrayBuffer(16));
  h.forEach((v, i) => out.setInt32(4 * i, v, true));
  return new Uint8Array(out.buffer);
}

function sha1(b: Uint8Array): Uint8Array {
  const dv = pad(b, true);
  const h = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476, 0xc3d2e1f0 | 0];
  const w = new Int32Array(80);
  const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));
  for (let o = 0; o < dv.byteLength; o += 64) {
    for (let i = 0; i < 16; i++) w[i] = dv.getInt32(o + 4 * i);
    for (let i = 16; i < 80; i++) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    let [a, bb, c, d, e] = h;
    for (let i = 0; i < 80; i++) {
      const [f, k] = i < 20 ? [(bb & c) | (~bb & d), 0x5a827999] : i < 40 ? [bb ^ c ^ d, 0x6ed9eba1]
        : i < 60 ? [(bb & c) | (bb & d) | (c & d), 0x8f1bbcdc | 0] : [bb ^ c ^ d, 0xca62c1d6 | 0];
      const t = (rotl(a, 5) + f + e + k + w[i]) | 0;
      e = d;
      d = c;
      c = rotl(bb, 30);
      bb = a;
      a = t;
    }
    [a, bb, c, d, e].forEach((v, i) => (h[i] = (h[i] + v) | 0));
  }
  const out = new DataView(new ArrayBuffer(20));
  h.forEach((v, i) => out.setInt32(4 * i, v));
  return new Uint8Array(out.buffer);
}

const SHA256_K = Int32Array.from(("428a2f98 71374491 b5c0fbcf e9b5dba5 3956c25b 59f111f1 923f82a4 ab1c5ed5 " +
  "d807aa98 12835b01 243185be 550c7dc3 72be5d74 80deb1fe 9bdc06a7 c19bf174 e49b69c1 efbe4786 0fc19dc6 240ca1cc " +
  "2de92c6f 4a7484aa 5cb0a9dc 76f988da 983e5152 a831c66d b00327c8 bf597fc7 c6e00bf3 d5a79147 06ca6351 14292967 " +
  "27b70a85 2e1b2138 4d2c6dfc 53380d13 650a7354 766a0abb 81c2c92e 92722c85 a2bfe8a1 a81a664b c24b8b70 c76c51a3 " +
  "d192e819 d6990624 f40e3585 106aa070 19a4c116 1e376c08 2748774c 34b0bcb5 391c0cb3 4ed8aa4a 5b9cca4f 682e6ff3 " +
  "748f82ee 78a5636f 84c87814 8cc70208 90befffa a4506ceb bef9a3f7 c67178f2").split(" "), (x) => parseInt(x, 16) | 0);

function sha256(b: Uint8Array): Uint8Array {
  const dv = pad(b, true);
  const h = Int32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
    0x5be0cd19]);
  const w = new Int32Array(64);
  const rotr = (x: number, r: number) => (x >>> r) | (x << (32 - r));
  for (let o = 0; o < dv.byteLength; o += 64) {
    for (let i = 0; i < 16; i++) w[i] = dv.getInt32(o + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let [a, bb, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + SHA256_K[i] + w[i]) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c))) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = bb;
      bb = a;
      a = (t1 + t2) | 0;
    }
    [a, bb, c, d, e, f, g, hh].forEach((v, i) => (h[i] = (h[i] + v) | 0));
  }
  const out = new DataView(new ArrayBuffer(32));
  h.forEach((v, i) => out.setInt32(4 * i, v));
  return new Uint8Array(out.buffer);
}

function hashSize(alg: number): number {
  return alg === MD5 ? 16 : alg === SHA1 ? 20 : alg === SHA256 ? 32 : alg === XXH3 ? 8 : 4;
}

function digest(alg: number, b: Uint8Array): Uint8Array {
  switch (alg) {
    case MD5: return md5(b);
    case SHA1: return sha1(b);
    case SHA256: return sha256(b);
    case XXH3: return putUint(xxh3(b), 8);
    case MURMUR3: return putUint(BigInt(murmur3(b)), 4);
  }
  return putUint(BigInt(phoenix31(b) >>> 0), 4);
}

function bucketOf(alg: number, b: Uint8Array, n: number): number {
  if (alg === XXH3) return Number(xxh3(b) % BigInt(n));
  if (alg === MURMUR3) return murmur3(b) % n;
  if (alg === PHOENIX31) return javaAbsMod(phoenix31(b), n);
  return Number(getUint(digest(alg, b), 0, 8, 0) % BigInt(n));
}

// ---- encoding (encode.c) ----

/** A typed intermediate value: t is U64, I64, F64, STR or BYTES. */
interface V {
  t: number;
  i: bigint;
  f: number;
  s: Uint8Array;
}

const EMPTY: Uint8Array = new Uint8Array(0);
const tv = (t: number, i = 0n, f = 0, s: Uint8Array = EMPTY): V => ({ t, i, f, s });

/**
 * Encodes and decodes the keys of one template (values as fromRecord gives
 * them). Random and round-robin salts draw from its state, as the C
 * library's encoder does.
 */
export class Codec {
  private rng: bigint;
  private rr = 0n;
  private forced = -1;

  constructor(private readonly t: Template, seed: bigint = 0n) {
    this.rng = BigInt.asUintN(64, seed) || 0x2545f4914f6cdd1dn;
  }

  private eval(p: Part, vals: Value[]): V {
    const name = this.t.names[p.field];
    const v = vals[p.field];
    if (v === undefined) throw invalid(`field '${name}' has no value and the key needs it`);
    const ft = this.t.types[p.field];
    const x = isInt(ft) ? tv(isSigned(ft) ? I64 : U64, v as bigint) : ft === F64 ? tv(F64, 0n, v as number)
      : tv(ft, 0n, 0, v as Uint8Array);
    switch (p.vop) {
      case V_FIELD: return x;
      case V_RTS:
        if (x.i < 0n) throw invalid(`rts(${name}): ${x.i} is negative; this encoding holds only values >= 0`);
        if (x.i > p.vmax) throw invalid(`rts(${name}): timestamp ${x.i} is over the maximum ${p.vmax}`);
        return tv(U64, p.vmax - x.i);
      case V_TBUCKET: {
        const m = ((x.i % p.varg) + p.varg) % p.varg;
        if (x.i - m < -(1n << 63n)) throw invalid(`tbucket(${name}, ${p.varg}): ${x.i} has no bucket start within i64`);
        return tv(x.t, x.i - m);
      }
      case V_REVERSE:
      case V_REVLABELS:
        if (x.s.length > this.t.arena)
          throw tooLong(`a value of ${x.s.length} bytes is over the encoder's ${this.t.arena}-byte scratch`);
        return tv(STR, 0n, 0, p.vop === V_REVERSE ? reverse(x.s) : reverseLabels(x.s));
    }
    if (x.i < 0n) throw invalid(`reverse_num(${name}): ${x.i} is negative`);
    const d = x.i.toString();
    if (d.length > Number(p.varg)) throw invalid(`reverse_num(${name}, ${p.varg}): ${d} has more than ${p.varg} digits`);
    return tv(STR, 0n, 0, reverse(ascii(d.padStart(Number(p.varg), "0"))));
  }

  private static intChecked(v: V, width: number, signed: boolean, name: string): Uint8Array {
    const w = BigInt(width * 8);
    if (signed) {
      if (v.i > (1n << 63n) - 1n) throw invalid(`${name}: ${v.i} is over the signed 64-bit range`);
      if (width < 8 && (v.i < -(1n << (w - 1n)) || v.i >= 1n << (w - 1n)))
        throw invalid(`field '${name}': ${v.i} does not fit in i${w}`);
      return putInt(v.i, width);
    }
    if (v.i < 0n) throw invalid(`${name}: ${v.i} is negative; this encoding holds only values >= 0`);
    if (width < 8 && v.i >> w) throw invalid(`field '${name}': ${v.i} does not fit in u${w}`);
    return putUint(v.i, width);
  }

  private encodeVal(p: Part, v: V, name: string): Uint8Array {
    const str = isStr(v.t);
    switch (p.enc) {
      case E_TEXT: return str ? v.s : ascii(v.t === F64 ? textF64(v.f) : v.i.toString());
      case E_UINT: return Codec.intChecked(v, p.width, false, name);
      case E_INT: return Codec.intChecked(v, p.width, true, name);
      case E_F64: return putUint(f64ToBits(v.f), 8);
      case E_DEC:
        if (v.i < 0n) throw invalid(`${name}: ${v.i} is negative; this encoding holds only values >= 0`);
        try {
          return putDec(v.i, p.width);
        } catch (e) {
          throw invalid(`field '${name}': ${(e as Error).message}`);
        }
      case E_ESC: return esc(v.s, false);
      case E_BYTES: return v.s;
      case E_OC: return str ? esc(v.s, true) : v.t === I64 ? ocInt(v.i) : ocUint(v.i);
      case E_OB: {
        if (v.t === F64) return concat(Uint8Array.of(0x31), putUint(f64ToBits(v.f), 8));
        const w = BigInt(p.width * 8);
        if (v.i > (1n << 63n) - 1n) throw invalid(`${name}: ${v.i} is over the signed 64-bit range`);
        if (p.width < 8 && (v.i < -(1n << (w - 1n)) || v.i >= 1n << (w - 1n)))
          throw invalid(`field '${name}': ${v.i} does not fit in OrderedBytes int${w}`);
        return concat(Uint8Array.of(obHeader(p.width)), putInt(v.i, p.width));
      }
    }
    if (!str) return Codec.intChecked(v, p.width, v.t === I64, name); // E_PHX
    if (v.s.includes(0)) throw invalid(`field '${name}': a Phoenix VARCHAR key field cannot contain a 0x00 byte`);
    if (p.desc) return concat(v.s.map((c) => c ^ 0xff), Uint8Array.of(0xff));
    return p.last ? v.s : concat(v.s, Uint8Array.of(0));
  }

  private static bucketBytes(p: Part, b: number): Uint8Array {
    if (p.form === F_DEC) return putDec(BigInt(b), p.fixed);
    if (p.form === F_ALPHA) return Uint8Array.of(p.alpha[b]);
    return Uint8Array.of(b);
  }

  /** Writes parts[lo, hi) to w; parts[hi] may be read (a separator). */
  private encodeParts(w: W, parts: Part[], lo: number, hi: number, vals: Value[]): void {
    let psaltAt = -1, psaltN = 0;
    for (let k = lo; k < hi; k++) {
      const p = parts[k];
      switch (p.kind) {
        case P_LIT: w.put(p.lit); break;
        case P_VAL: {
          const name = this.t.names[p.field];
          let b = this.encodeVal(p, this.eval(p, vals), name);
          if (p.invert) b = b.map((c) => c ^ 0xff);
          w.put(b);
          if (p.sepcheck) {
            const sep = parts[k + 1].lit;
            const joined = concat(b, sep);
            if (indexOf(joined, sep, 0, joined.length) < b.length)
              throw invalid(`field '${name}' value ${toHex(b)} contains the separator ${toHex(sep)} that follows it`);
          }
          break;
        }
        case P_HASH: case P_HEX: case P_SLICE: {
          const sw = new W(SUB_MAX);
          this.encodeParts(sw, p.sub, 0, p.sub.length, vals);
          const input = sw.bytes();
          if (p.kind === P_HASH) w.put(digest(p.alg, input));
          else if (p.kind === P_HEX) w.put(ascii(p.upper ? toHex(input).toUpperCase() : toHex(input)));
          else {
            if (p.sb > input.length)
              throw invalid(`slice [${p.sa}:${p.sb}] of a ${input.length}-byte value: the value is too short`);
            w.put(input.slice(p.sa, p.sb));
          }
          break;
        }
        case P_BUCKET: {
          const h = p.sub[0];
          const sw = new W(SUB_MAX);
          this.encodeParts(sw, h.sub, 0, h.sub.length, vals);
          w.put(Codec.bucketBytes(p, bucketOf(h.alg, sw.bytes(), p.n)));
          break;
        }
        case P_SALT: {
          let b: number;
          if (this.forced >= 0) b = this.forced;
          else if (p.salt === SALT_RANDOM) {
            let r = this.rng;
            r ^= (r << 13n) & M64;
            r ^= r >> 7n;
            r ^= (r << 17n) & M64;
            this.rng = r;
            b = Number(r % BigInt(p.n));
          } else {
            b = Number(this.rr % BigInt(p.n));
            this.rr = (this.rr + 1n) & M64;
          }
          w.put(Codec.bucketBytes(p, b));
          break;
        }
        default:
          psaltAt = w.size;
          psaltN = p.n;
          w.put(Uint8Array.of(0));
      }
    }
    if (psaltAt >= 0) w.set(psaltAt, javaAbsMod(phoenix31(w.bytes(psaltAt + 1)), psaltN));
  }

  private encodeForced(vals: Value[], forced: number): Uint8Array {
    const w = new W(this.t.maxKeyLen);
    this.forced = forced;
    try {
      this.encodeParts(w, this.t.parts, 0, this.t.parts.length, vals);
    } finally {
      this.forced = -1;
    }
    return w.bytes();
  }

  /** The key of one record's values. */
  encode(vals: Value[]): Uint8Array {
    return this.encodeForced(vals, -1);
  }

  // ---- decoding (decode.c) ----

  private static readBucket(p: Part, key: Uint8Array, off: number): number {
    if (p.form === F_DEC) {
      let v = -1n;
      try {
        v = getDec(key, off, p.fixed, 0);
      } catch {
        v = -1n;
      }
      if (v < 0n || v >= BigInt(p.n)) throw corrupt(`key byte ${off}: bucket number is not a decimal below the bucket count`);
      return Number(v);
    }
    if (p.form === F_ALPHA) {
      const i = p.alpha.indexOf(key[off]);
      if (i < 0) throw corrupt(`key byte ${off}: bucket letter is not in the alphabet`);
      return i;
    }
    if (key[off] >= p.n) throw corrupt(`key byte ${off}: bucket byte is not below the bucket count`);
    return key[off];
  }

  /** A number in text form, spelled exactly as the encoder writes it. */
  private static parseText(key: Uint8Array, off: number, end: number, t: number): V {
    let s = "";
    for (let i = off; i < end; i++) s += String.fromCharCode(key[i]);
    let v: V | undefined;
    try {
      if (t === F64) {
        const f = s === "nan" ? NaN : s === "inf" ? Infinity : s === "-inf" ? -Infinity : Number(s);
        if (textF64(f) === s) v = tv(F64, 0n, f);
      } else if (/^-?[0-9]+$/.test(s)) {
        const i = BigInt(s);
        const ok = t === I64 ? i >= -(1n << 63n) && i < 1n << 63n : i >= 0n && i <= M64;
        if (ok && i.toString() === s) v = tv(t, i);
      }
    } catch {
      v = undefined;
    }
    if (!v) throw corrupt(`'${s}' is not how the encoder writes a number`);
    return v;
  }

  /** Value part p at key[off, end): the value and the bytes used. */
  private decodeVal(p: Part, key: Uint8Array, off: number, end: number): [V, number] {
    const mask = p.desc ? 0xff : 0;
    const vt = p.vtype, n = end - off;
    if (p.fixed >= 0 && p.fixed > n) throw corrupt("key ends inside a fixed-width field");
    switch (p.enc) {
      case E_TEXT: {
        const len = p.fixed >= 0 ? p.fixed : n;
        if (isStr(vt)) return [tv(STR, 0n, 0, key.slice(off, off + len)), len];
        return [Codec.parseText(key, off, off + len, isSigned(vt) ? I64 : isInt(vt) ? U64 : F64), len];
      }
      case E_UINT: return [tv(U64, getUint(key, off, p.width, mask)), p.width];
      case E_INT: return [tv(I64, getInt(key, off, p.width, mask)), p.width];
      case E_F64: return [tv(F64, 0n, getF64(key, off, mask)), 8];
      case E_DEC: return [tv(U64, getDec(key, off, p.width, mask)), p.width];
      case E_ESC: case E_OC: {
        if (isStr(vt)) {
          const [s, used] = getEscaped(key, off, end, mask, p.enc === E_OC);
          return [tv(STR, 0n, 0, s), used];
        }
        const [i, used] = isSigned(vt) ? getOcInt(key, off, end, mask) : getOcUint(key, off, end, mask);
        return [tv(isSigned(vt) ? I64 : U64, i), used];
      }
      case E_BYTES: return [tv(BYTES, 0n, 0, key.slice(off, end)), n];
      case E_OB: {
        if (n < p.width + 1) throw corrupt("OrderedBytes value truncated");
        const hdr = (key[off] ^ mask) & 0xff;
        if (vt === F64) {
          if (hdr !== 0x31) throw corrupt(`OrderedBytes float64 header 0x${hdr.toString(16)}, expected 0x31`);
          return [tv(F64, 0n, getF64(key, off + 1, mask)), 9];
        }
        if (hdr !== obHeader(p.width)) throw corrupt(`OrderedBytes int${8 * p.width} header 0x${hdr.toString(16)}`);
        return [tv(I64, getInt(key, off + 1, p.width, mask)), p.width + 1];
      }
    }
    if (isStr(vt)) { // E_PHX
      const sep = p.desc ? 0xff : 0;
      let i = off;
      while (i < end && key[i] !== sep) i++;
      if (i === end && p.desc) throw corrupt("descending Phoenix VARCHAR has no 0xff separator");
      return [tv(STR, 0n, 0, key.slice(off, i).map((c) => c ^ mask)), i < end ? i + 1 - off : i - off];
    }
    return [isSigned(vt) ? tv(I64, getInt(key, off, p.width, mask)) : tv(U64, getUint(key, off, p.width, mask)),
      p.width];
  }

  private toField(ft: number, v: V, off: number, name: string): Value {
    if (isStr(ft)) return v.s;
    if (ft === F64) return v.f;
    const w = BigInt(8 * widthOf(ft));
    const [lo, hi] = isSigned(ft) ? [-(1n << (w - 1n)), (1n << (w - 1n)) - 1n] : [0n, (1n << w) - 1n];
    if (v.i < lo || v.i > hi) throw corrupt(`key byte ${off}: field '${name}' decodes to a value outside ${TYPE_NAMES[ft]}`);
    return v.i;
  }

  private invert(out: Value[], p: Part, v: V, off: number): void {
    const name = this.t.names[p.field], ft = this.t.types[p.field];
    switch (p.vop) {
      case V_TBUCKET:
        if (v.i % p.varg !== 0n) throw corrupt(`key byte ${off}: time bucket is not a multiple of its width`);
        return;
      case V_RTS:
        if (v.i < 0n) throw corrupt(`key byte ${off}: reverse timestamp is negative`);
        if (v.i > p.vmax) throw corrupt(`key byte ${off}: reverse timestamp is over its maximum`);
        v = tv(U64, p.vmax - v.i);
        break;
      case V_REVERSE: v = tv(v.t, 0n, 0, reverse(v.s)); break;
      case V_REVLABELS: v = tv(v.t, 0n, 0, reverseLabels(v.s)); break;
      case V_REVNUM:
        if (v.s.length >= 24) throw corrupt(`key byte ${off}: reversed number too long`);
        try {
          v = tv(U64, getDec(reverse(v.s), 0, v.s.length, 0));
        } catch {
          throw corrupt(`key byte ${off}: reversed number has a non-digit`);
        }
    }
    const fv = this.toField(ft, v, off, name);
    const old = out[p.field];
    if (old !== undefined) {
      const same = ft === F64 ? f64ToBits(old as number) === f64ToBits(fv as number)
        : isStr(ft) ? compare(old as Uint8Array, fv as Uint8Array) === 0 : old === fv;
      if (!same) throw corrupt(`key byte ${off}: field '${name}' decodes to two different values`);
    }
    out[p.field] = fv;
  }

  /** The values of a key (undefined for fields it does not carry). */
  decode(key: Uint8Array): Value[] {
    const t = this.t, n = key.length;
    if (n > t.maxKeyLen) throw corrupt(`key of ${n} bytes is over the schema's max_key_len ${t.maxKeyLen}`);
    const out: Value[] = t.types.map(() => undefined);
    const offs: number[] = [];
    let saltRead = -1, pos = 0;
    t.parts.forEach((p, k) => {
      const rem = n - pos;
      offs[k] = pos;
      if (p.fixed >= 0 && p.fixed > rem)
        throw corrupt(`key byte ${pos}: key ends early (part ${k + 1} needs ${p.fixed} bytes, ${rem} left)`);
      switch (p.kind) {
        case P_LIT:
          if (indexOf(key, p.lit, pos, pos + p.lit.length) !== pos) throw corrupt(`key byte ${pos}: expected the literal`);
          pos += p.lit.length;
          return;
        case P_SALT: case P_BUCKET: {
          const v = Codec.readBucket(p, key, pos);
          if (p.kind === P_SALT) saltRead = v;
          pos += p.fixed;
          return;
        }
        case P_PSALT:
          if (key[pos] !== javaAbsMod(phoenix31(key, pos + 1), p.n))
            throw corrupt(`key byte ${pos}: the Phoenix salt byte is not the one the rest of the key gives`);
          pos++;
          return;
        case P_HASH: case P_HEX: case P_SLICE:
          pos += p.fixed;
          return;
      }
      let end = n;
      if (p.enc === E_TEXT && p.fixed < 0) {
        if (p.nextIsLit) {
          end = indexOf(key, t.parts[k + 1].lit, pos, n);
          if (end < 0) throw corrupt(`key byte ${pos}: no separator after field '${t.names[p.field]}'`);
        } else if (p.tailFixed > 0) {
          if (p.tailFixed > rem) throw corrupt(`key byte ${pos}: key too short for its fixed-width tail`);
          end = n - p.tailFixed;
        }
      }
      let r: [V, number];
      try {
        r = this.decodeVal(p, key, pos, end);
      } catch (e) {
        throw corrupt(`key byte ${pos}: ${(e as Error).message}`);
      }
      this.invert(out, p, r[0], pos);
      pos += r[1];
    });
    if (pos !== n) throw corrupt(`key byte ${pos}: ${n - pos} unexpected bytes after the last part`);
    let have = 0n;
    out.forEach((v, i) => {
      if (v !== undefined) have |= 1n << BigInt(i);
    });
    if (t.pointGet & ~have) {
      this.verifyParts(out, have, key, offs);
      return out;
    }
    let again: Uint8Array;
    try {
      again = this.encodeForced(out, saltRead);
    } catch (e) {
      throw corrupt(`key does not re-encode: ${(e as Error).message}`);
    }
    if (compare(again, key) !== 0)
      throw corrupt("the key does not match its design (a hash, bucket or salt prefix that its fields do not produce)");
    return out;
  }

  private verifyParts(out: Value[], have: bigint, key: Uint8Array, offs: number[]): void {
    this.t.parts.forEach((p, k) => {
      if ((p.kind !== P_HASH && p.kind !== P_HEX && p.kind !== P_SLICE && p.kind !== P_BUCKET) || used([p]) & ~have)
        return;
      let ok: boolean;
      try {
        const w = new W(this.t.maxKeyLen);
        this.encodeParts(w, this.t.parts, k, k + 1, out);
        ok = w.size === p.fixed && compare(w.bytes(), key.slice(offs[k], offs[k] + p.fixed)) === 0;
      } catch {
        ok = false;
      }
      if (!ok) throw corrupt(`key byte ${offs[k]}: the key does not match its design (its prefix is not what its fields produce)`);
    });
  }

  /** The bucket a key was written to, or -1 when the design has none. */
  bucket(key: Uint8Array): number {
    let pos = 0;
    for (const p of this.t.parts) {
      if (p.fixed < 0) return -1;
      if (p.fixed > key.length - pos) throw corrupt(`key of ${key.length} bytes is shorter than its prefix`);
      if (p.kind === P_PSALT) {
        if (key[pos] >= p.n) throw corrupt(`key byte ${pos}: salt byte ${key[pos]} is not below ${p.n}`);
        return key[pos];
      }
      if (p.kind === P_SALT || p.kind === P_BUCKET) return Codec.readBucket(p, key, pos);
      pos += p.fixed;
    }
    return -1;
  }

  // ---- scan ranges (plan.c, for fields bound by equality) ----

  /**
   * The rows whose fields equal every value given, as the C planner reads
   * them: one range per bucket when the bucket cannot be computed from those
   * fields (only that of bucket `only` when it is not -1), or the keys
   * themselves when every field the key needs is bound ([key, key 00)).
   */
  prefixRanges(vals: Value[], only = -1): KeyRange[] {
    const t = this.t;
    let bound = 0n;
    vals.forEach((v, i) => {
      if (v !== undefined) bound |= 1n << BigInt(i);
    });
    let states: Array<[Uint8Array, number]> = [[EMPTY, -1]];
    let k = 0;
    for (; k < t.parts.length; k++) {
      const p = t.parts[k];
      const u = used([p]);
      if (p.kind === P_LIT) {
        states = states.map(([st, b]) => {
          const w = new W(t.maxKeyLen, st);
          w.put(p.lit);
          return [w.bytes(), b];
        });
        continue;
      }
      if (p.kind === P_PSALT && !(t.pointGet & ~bound)) {
        const key = this.encode(vals);
        return [{ start: key, stop: concat(key, Uint8Array.of(0)), bucket: this.bucket(key) }];
      }
      if (p.kind === P_SALT || p.kind === P_PSALT || (p.kind === P_BUCKET && u & ~bound)) {
        const next: Array<[Uint8Array, number]> = [];
        for (const [st] of states)
          for (let b = 0; b < p.n; b++) if (only < 0 || b === only) next.push([concat(st, Codec.bucketBytes(p, b)), b]);
        states = next;
        continue;
      }
      if (u & ~bound) break;
      states = states.map(([st, b]) => {
        const w = new W(t.maxKeyLen, st);
        this.encodeParts(w, t.parts, k, k + 1, vals);
        return [w.bytes(), b];
      });
    }
    const whole = k === t.parts.length;
    return states
      .map(([st, b]) => ({ start: st, stop: whole ? concat(st, Uint8Array.of(0)) : prefixEnd(st), bucket: b }))
      .sort((a, b) => compare(a.start, b.start));
  }

  /** The rows of bucket b. */
  bucketRange(b: number): KeyRange {
    const r = this.prefixRanges(this.t.types.map(() => undefined), b).find((x) => x.bucket === b);
    if (!r) throw invalid(`the design has no bucket ${b} at the start of its keys`);
    return r;
  }
}

/** The smallest key above every key that starts with p, or null. */
function prefixEnd(p: Uint8Array): Uint8Array | null {
  let n = p.length;
  while (n > 0 && p[n - 1] === 0xff) n--;
  if (n === 0) return null;
  const o = p.slice(0, n);
  o[n - 1]++;
  return o;
}
