#!/usr/bin/env python3
"""Known-answer vectors for rowkey's key designs, computed independently.

This is a second implementation of every key technique, written from the
specification (docs/schema.md, docs/formats-key.md and the primary
definitions they cite: HBase OrderedBytes.java, LevelDB/Bigtable
ordered_code.cc, Phoenix SaltingUtil.java / PVarchar / PInteger), NOT by
running rowkey. Each vector is the schema text, a record, and the key bytes this
model says the schema must produce. The model does not parse the schema
language: each vector states its expected key as a composition of the byte
primitives below, so a mistake in rowkey's parser cannot leak into the answer.

Hashes: md5 / sha1 / sha256 from hashlib; MurmurHash3_x86_32 and Phoenix's
31-hash implemented here; XXH3-64 from the `xxhsum -H3` command (Debian package
xxhash, listed in scripts/deps.sh), whose output is the canonical big-endian
hex of XXH3_64bits(input, seed 0).

Writes, next to this script:
  keys.tsv    schema <TAB> record <TAB> key as lower-case hex
  errors.tsv  schema <TAB> record <TAB> error code name <TAB> message substring

Record column: the field values as CSV in schema order, no quoting. Inside a
cell, \\xNN is the byte NN, \\\\ a backslash, \\, a comma, and a cell that is
exactly \\N is a missing value (present = 0). Lines starting with '#' are
comments. Run: python3 tests/vectors/gen_vectors.py (deterministic; the
output is committed, and tests/unit/test_vectors.c checks rowkey against it).
"""
import hashlib
import math
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INT64_MAX = (1 << 63) - 1

# ---- hashes ----------------------------------------------------------------


def murmur3_32(data, seed=0):
    """MurmurHash3_x86_32 (Austin Appleby, public domain reference)."""
    c1, c2, m32 = 0xCC9E2D51, 0x1B873593, 0xFFFFFFFF

    def rotl(x, r):
        return ((x << r) | (x >> (32 - r))) & m32

    h = seed
    n = len(data)
    for i in range(0, n - n % 4, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = rotl((k * c1) & m32, 15) * c2 & m32
        h = rotl(h ^ k, 13)
        h = (h * 5 + 0xE6546B64) & m32
    tail = data[n - n % 4:]
    if tail:
        k = int.from_bytes(tail, "little")
        k = rotl((k * c1) & m32, 15) * c2 & m32
        h ^= k
    h ^= n
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & m32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & m32
    h ^= h >> 16
    return h


def phoenix31(data):
    """Phoenix SaltingUtil.calculateHashCode: h = 1; h = 31*h + (signed byte); Java int."""
    h = 1
    for b in data:
        sb = b - 256 if b >= 128 else b
        h = (31 * h + sb) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def xxh3_64(data):
    if not shutil.which("xxhsum"):
        sys.exit("gen_vectors.py: needs the xxhsum command (apt-get install xxhash)")
    out = subprocess.run(["xxhsum", "-H3", "-"], input=data, capture_output=True, check=True).stdout
    return int(out.split()[-1].decode(), 16)


def digest(alg, data):
    if alg in ("md5", "sha1", "sha256"):
        return hashlib.new(alg, data).digest()
    if alg == "xxh3":
        return xxh3_64(data).to_bytes(8, "big")
    if alg == "murmur3":
        return murmur3_32(data).to_bytes(4, "big")
    if alg == "phoenix31":
        return (phoenix31(data) & 0xFFFFFFFF).to_bytes(4, "big")
    raise ValueError(alg)


def java_abs_mod(h, n):
    """Java's Math.abs(h % n) for an int h: % truncates toward zero."""
    r = abs(h) % n
    return r


def bucket_of(alg, data, n):
    d = digest(alg, data)
    if alg == "phoenix31":
        return java_abs_mod(phoenix31(data), n)
    if alg == "murmur3":
        return int.from_bytes(d, "big") % n
    return int.from_bytes(d[:8], "big") % n


# Self-checks against published values, so a broken model fails here.
assert murmur3_32(b"") == 0
assert murmur3_32(b"hello") == 0x248BFA47
assert murmur3_32(b"The quick brown fox jumps over the lazy dog") == 0x2E4FF723
assert murmur3_32(b"", 1) == 0x514E28B7
assert phoenix31(b"") == 1 and phoenix31(b"a") == 31 + 97
assert phoenix31(b"\xff") == 31 - 1  # signed byte

# ---- field codecs ------------------------------------------------------------


def inv(b):
    return bytes(x ^ 0xFF for x in b)


def text(v):
    """Text form of a value: strings as they are, numbers in decimal."""
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    if isinstance(v, float):
        return ("%.17g" % v).encode()
    return str(v).encode()


def u(v, w):
    if not 0 <= v < 1 << (8 * w):
        raise ValueError("u%d out of range: %d" % (8 * w, v))
    return v.to_bytes(w, "big")


def i(v, w):
    """Two's complement of w bytes with the sign bit flipped = v + 2^(8w-1) unsigned."""
    if not -(1 << (8 * w - 1)) <= v < 1 << (8 * w - 1):
        raise ValueError("i%d out of range: %d" % (8 * w, v))
    return (v + (1 << (8 * w - 1))).to_bytes(w, "big")


def f64_bits(d):
    if math.isnan(d):
        b = 0x7FF8000000000000
    else:
        b = struct.unpack(">Q", struct.pack(">d", d))[0]
    return (b ^ 0xFFFFFFFFFFFFFFFF) if b >> 63 else (b ^ (1 << 63))


def f64(d):
    return f64_bits(d).to_bytes(8, "big")


def dec(v, w):
    s = str(v)
    if v < 0 or len(s) > w:
        raise ValueError("dec out of range")
    return s.rjust(w, "0").encode()


def esc(s):
    return s.replace(b"\x00", b"\x00\xff") + b"\x00\x01"


def oc_str(s):
    out = bytearray()
    for c in s:
        out.append(c)
        if c == 0x00:
            out.append(0xFF)
        elif c == 0xFF:
            out.append(0x00)
    return bytes(out) + b"\x00\x01"


def oc_uint(v):
    """WriteNumIncreasing: one length byte, then the significant bytes big-endian."""
    n = (v.bit_length() + 7) // 8
    return bytes([n]) + (v.to_bytes(n, "big") if n else b"")


def oc_int(v):
    """WriteSignedNumIncreasing: the shortest length L (1..10) whose 7L-bit two's
    complement holds v; write v as 8L-bit two's complement and invert its top L
    bits (the unary length header, which the sign then extends)."""
    for length in range(1, 11):
        if -(1 << (7 * length - 1)) <= v < 1 << (7 * length - 1):
            break
    t = v % (1 << (8 * length))
    t ^= ((1 << length) - 1) << (8 * length - length)
    return t.to_bytes(length, "big")


OB_HDR = {1: 0x29, 2: 0x2A, 4: 0x2B, 8: 0x2C}


def ob_int(v, w):
    return bytes([OB_HDR[w]]) + i(v, w)


def ob_f64(d):
    return b"\x31" + f64(d)


def phx_str(s, desc=False, last=False):
    if b"\x00" in s:
        raise ValueError("phoenix varchar with 0x00")
    if desc:
        return inv(s) + b"\xff"
    return s if last else s + b"\x00"


def rev_labels(s):
    return b".".join(reversed(s.split(b".")))


def rev_num(v, w):
    return dec(v, w)[::-1]


def tbucket(ts, w):
    return ts - ts % w  # Python % is the mathematical (floor) modulo


def rts(ts, mx=INT64_MAX):
    return mx - ts


def hexl(b):
    return b.hex().encode()


def hexu(b):
    return b.hex().upper().encode()


def psalt(n, rest):
    return bytes([java_abs_mod(phoenix31(rest), n)]) + rest


# ---- records as CSV ------------------------------------------------------------

MISSING = object()


def cell(v):
    if v is MISSING:
        return "\\N"
    if isinstance(v, float):
        if math.isnan(v):
            return "-nan" if math.copysign(1, v) < 0 else "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, int):
        return str(v)
    out = []
    for c in v:
        if c == 0x5C:
            out.append("\\\\")
        elif c == 0x2C:
            out.append("\\,")
        elif 0x20 <= c < 0x7F:
            out.append(chr(c))
        else:
            out.append("\\x%02x" % c)
    return "".join(out)


# ---- vectors ---------------------------------------------------------------------

keys = []
errors = []


def K(schema, rec, key):
    assert "\t" not in schema and "\n" not in schema
    keys.append((schema, ",".join(cell(v) for v in rec), key.hex()))


def E(schema, rec, code, msg):
    errors.append((schema, ",".join(cell(v) for v in rec), code, msg))


def section(title):
    keys.append(("#", title, None))


B = lambda s: s.encode() if isinstance(s, str) else s  # noqa: E731

# 1. plain composite keys
section("1. plain composite keys, any separator")
S3 = "fields date:str, time:str, id:u64; "
r3 = [b"230611", b"063031", 1231231]
K(S3 + 'key date ":" time ":" id', r3, b"230611:063031:1231231")
K(S3 + 'key date "|" time "#" id', r3, b"230611|063031#1231231")
K(S3 + 'key date "::" time "\\x00" id', r3, b"230611::063031\x00" + b"1231231")
K(S3 + 'key id "-" date "-" time', r3, b"1231231-230611-063031")
K(S3 + 'key date ":" time u64(id)', r3, b"230611:063031" + u(1231231, 8))
K("fields a:str, b:u32; key a u32(b)", [b"text", 7], b"text" + u(7, 4))
K("fields a:str; key a", [b""], b"")
K("fields a:i64, b:f64; key a \",\" b", [-42, 1.5], b"-42,1.5")
K("fields a:str, b:str; key 'x' a \"/\" b 'y'", [b"p", b"q"], b"xp/qy")
K("name demo; option max_key_len=64; fields a:str, b:u8; key a \":\" b  # comment", [b"k", 255], b"k:255")
K("option target=bigtable; fields a:str; key \"t\" a", [b"v"], b"tv")

# 2. hash prefixes
section("2. hash prefix: whole, upper/lower hex, substring, raw, over subsets")
md5id = hashlib.md5(b"1231231").digest()
K(S3 + 'key HEX(md5(id)) ":" date ":" time ":" id', r3,
  hexu(md5id) + b":230611:063031:1231231")
K(S3 + 'key hex(md5(id)) ":" date ":" time ":" id', r3,
  hexl(md5id) + b":230611:063031:1231231")
K(S3 + 'key hex(md5(id))[0:6] date ":" time ":" id', r3,
  hexl(md5id)[:6] + b"230611:063031:1231231")
K(S3 + 'key HEX(md5(id))[0:6] id', r3, hexu(md5id)[:6] + b"1231231")
K(S3 + 'key md5(id)[0:4] date ":" time ":" id', r3, md5id[:4] + b"230611:063031:1231231")
K(S3 + 'key md5(id)[-2:] id', r3, md5id[-2:] + b"1231231")
K(S3 + 'key md5(id) id', r3, md5id + b"1231231")
K(S3 + 'key hex(md5(date time)) ":" date ":" time ":" id', r3,
  hexl(hashlib.md5(b"230611063031").digest()) + b":230611:063031:1231231")
K(S3 + 'key hex(md5(date, time)) ":" id', r3, hexl(hashlib.md5(b"230611063031").digest()) + b":1231231")
K(S3 + 'key hex(md5(date ":" time)) ":" id', r3, hexl(hashlib.md5(b"230611:063031").digest()) + b":1231231")
K(S3 + 'key md5(u64(id)) u64(id)', r3, hashlib.md5(u(1231231, 8)).digest() + u(1231231, 8))
K(S3 + 'key hex(md5(id))[0:6] hex(md5(id))[-2:] id', r3, hexl(md5id)[:6] + hexl(md5id)[-2:] + b"1231231")
K("fields a:u16, b:u16; key HEX(u16(a) u16(b)) hex(u32(b))", [0xBEEF, 0x1234],
  b"BEEF1234" + b"00001234")
for alg in ("md5", "sha1", "sha256", "xxh3", "murmur3", "phoenix31"):
    for idval in (1231231, 42):
        d = digest(alg, str(idval).encode())
        K(S3 + "key %s(id) id" % alg, [b"230611", b"063031", idval], d + str(idval).encode())
        K(S3 + 'key hex(%s(id)) ":" id' % alg, [b"230611", b"063031", idval], hexl(d) + b":" + str(idval).encode())
        K(S3 + 'key HEX(%s(id))[0:6] id' % alg, [b"230611", b"063031", idval], hexu(d)[:6] + str(idval).encode())
# hash over a binary field with bytes >= 0x80 (Phoenix's signed bytes) and over empty input
K("fields a:bytes; key phoenix31(a) esc(a)", [b"\xff\x80\x01"], digest("phoenix31", b"\xff\x80\x01") + esc(b"\xff\x80\x01"))
K("fields a:bytes; key murmur3(a) esc(a)", [b"abcde"], digest("murmur3", b"abcde") + esc(b"abcde"))
K("fields a:str; key xxh3(a) esc(a)", [b""], digest("xxh3", b"") + esc(b""))
K("fields a:str; key sha256(a) \":\" a", [b"flink.example.com"], digest("sha256", b"flink.example.com") + b":flink.example.com")

# 3. deterministic bucket salts
section("3. bucket = hash mod N: binary byte, fixed-width decimal, alphabet letter")
users = [b"alice", b"bob", b"carol", b"dave", b"\xe2\x82\xac-euro"]
SU = "fields user:str, ts:i64; "
for alg in ("md5", "sha1", "sha256", "xxh3", "murmur3", "phoenix31"):
    for usr in users:
        rec = [usr, 1686465031]
        K(SU + "key bucket(16, %s(user)) user" % alg, rec, bytes([bucket_of(alg, usr, 16)]) + usr)
        K(SU + "key bucket(256, %s(user), bin) esc(user)" % alg, rec, bytes([bucket_of(alg, usr, 256)]) + esc(usr))
        K(SU + 'key bucket(100, %s(user), dec) ":" user' % alg, rec, dec(bucket_of(alg, usr, 100), 2) + b":" + usr)
        K(SU + 'key bucket(4, %s(user), "abcd") "-" user' % alg, rec, b"abcd"[bucket_of(alg, usr, 4):][:1] + b"-" + usr)
for n in (1, 7, 10, 11, 1000, 1001):
    usr = b"carol"
    K(SU + 'key bucket(%d, xxh3(user), dec) user' % n, [usr, 0], dec(bucket_of("xxh3", usr, n), len(str(n - 1))) + usr)
# a phoenix31 hash that is negative, with a modulus that is not a power of two
neg = b"someone-else"
assert phoenix31(neg) < 0
K(SU + 'key bucket(10, phoenix31(user), dec) user', [neg, 0], dec(java_abs_mod(phoenix31(neg), 10), 1) + neg)
K(SU + 'key bucket(7, phoenix31(user)) user', [neg, 0], bytes([java_abs_mod(phoenix31(neg), 7)]) + neg)
K(SU + 'key bucket(26, md5(user), "abcdefghijklmnopqrstuvwxyz") user', [neg, 0],
  bytes([b"abcdefghijklmnopqrstuvwxyz"[bucket_of("md5", neg, 26)]]) + neg)
# a bucket over several fields, and over fixed-width encodings
K(SU + 'key bucket(32, murmur3(user ":" ts)) user ":" ts', [b"bob", 12],
  bytes([bucket_of("murmur3", b"bob:12", 32)]) + b"bob:12")
K(SU + 'key bucket(32, xxh3(esc(user) i64(ts))) esc(user) i64(ts)', [b"bob", 12],
  bytes([bucket_of("xxh3", esc(b"bob") + i(12, 8), 32)]) + esc(b"bob") + i(12, 8))

# 4. round-robin salt (a fresh encoder per vector: the first key gets bucket 0)
section("4. round-robin salt: a fresh encoder's first key is bucket 0")
K(SU + "key roundrobin(4) user", [b"bob", 1], b"\x00bob")
K(SU + 'key roundrobin(12, dec) ":" user', [b"bob", 1], b"00:bob")
K(SU + 'key roundrobin(3, "xyz") user', [b"bob", 1], b"xbob")

# 5. Phoenix-compatible salting
section("5. phoenix_salt(N): abs(phoenix31(rest of key) % N) as the first byte")
PS = "fields user:str, ts:i64, host:str, n:i32; "
prec = [
    [b"alice", 1686465031000, b"web01", 7],
    [b"bob", -5, b"db", -1],
    [b"a-rather-long-user-name", 0, b"x", 2147483647],
    [b"", 1, b"", -2147483648],
]
for n in (4, 8, 256, 1, 3, 255):
    for r in prec:
        rest = phx_str(r[0]) + i(r[1], 8)
        K(PS + "key phoenix_salt(%d) phoenix(user) phoenix(ts)" % n, r, psalt(n, rest))
        rest = phx_str(r[0]) + phx_str(r[2], last=True)
        K(PS + "key phoenix_salt(%d) phoenix(user) phoenix(host)" % n, r, psalt(n, rest))
        rest = phx_str(r[2]) + i(r[3], 4) + phx_str(r[0], desc=True)
        K(PS + "key phoenix_salt(%d) phoenix(host) phoenix(n) phoenix(user):desc" % n, r, psalt(n, rest))
# a salt over non-Phoenix encodings works the same way (the hash reads whatever follows)
r = prec[0]
K(PS + 'key phoenix_salt(8) user ":" ts', r, psalt(8, b"alice:1686465031000"))
K(PS + "key phoenix_salt(16) esc(user) u64(rts(ts))", r, psalt(16, esc(b"alice") + u(rts(1686465031000), 8)))
# The one input where Phoenix's two historical formulas differ: a hash of
# Integer.MIN_VALUE. Current Phoenix (and rowkey) take Math.abs(h % n); older Phoenix
# releases took Math.abs(h) % n, which stays negative here.
imin = bytes.fromhex("f7f903fdfbf1f3")
assert phoenix31(imin) == -(1 << 31)
for n in (3, 7, 256, 100):
    K("fields a:bytes; key phoenix_salt(%d) bytes(a)" % n, [imin], psalt(n, imin))
    K("fields a:str; key phoenix_salt(%d) phoenix(a)" % n, [imin], psalt(n, phx_str(imin, last=True)))
    K("fields a:bytes; key bucket(%d, phoenix31(a), dec) esc(a)" % n, [imin],
      dec(java_abs_mod(-(1 << 31), n), len(str(n - 1))) + esc(imin))
# make sure a negative hash is among the vectors, for abs()
assert any(phoenix31(phx_str(r[0]) + i(r[1], 8)) < 0 for r in prec)

# 6. salting on a subset of fields; time buckets
section("6. salt on a subset of fields (one user's rows stay together), tbucket(ts, 3600)")
for usr in (b"alice", b"bob"):
    for ts in (1686465031, 1686468631, 1686400000):
        rec = [usr, ts]
        K(SU + "key bucket(8, xxh3(user)) esc(user) i64(ts)", rec,
          bytes([bucket_of("xxh3", usr, 8)]) + esc(usr) + i(ts, 8))
        K(SU + 'key bucket(8, md5(user), dec) user ":" tbucket(ts, 3600) ":" ts', rec,
          dec(bucket_of("md5", usr, 8), 1) + usr + b":" + text(tbucket(ts, 3600)) + b":" + text(ts))
        K(SU + "key bucket(16, murmur3(user i64(tbucket(ts, 3600)))) esc(user) i64(ts)", rec,
          bytes([bucket_of("murmur3", usr + i(tbucket(ts, 3600), 8), 16)]) + esc(usr) + i(ts, 8))
for ts in (0, 3599, 3600, 1686465031, -1, -3600, -3601):
    rec = [b"u", ts]
    K(SU + 'key user ":" tbucket(ts, 3600) ":" ts', rec, b"u:" + text(tbucket(ts, 3600)) + b":" + text(ts))
    K(SU + "key i64(tbucket(ts, 3600)) i64(ts)", rec, i(tbucket(ts, 3600), 8) + i(ts, 8))
    K(SU + "key hex(md5(user tbucket(ts, 3600))) i64(ts)", rec,
      hexl(hashlib.md5(b"u" + text(tbucket(ts, 3600))).digest()) + i(ts, 8))
K("fields ts:u64; key u64(tbucket(ts, 60)) \":\" ts", [1000000007], u(tbucket(1000000007, 60), 8) + b":1000000007")
K("fields ts:i64; key ob(tbucket(ts, 86400)) ob(ts)", [1686465031], ob_int(tbucket(1686465031, 86400), 8) + ob_int(1686465031, 8))

# 7. reversing
section("7. reverse, reverse_labels, reverse_num")
SD = "fields domain:str, path:str, id:u64; "
for dom in (b"flink.example.com", b"a", b"", b".x.", b"www.ab..cd", b"nodots"):
    rec = [dom, b"/p", 1231231]
    K(SD + 'key reverse(domain) "/" path', rec, dom[::-1] + b"//p")
    K(SD + 'key reverse_labels(domain) "/" path', rec, rev_labels(dom) + b"//p")
    K(SD + "key esc(reverse_labels(domain)) esc(path)", rec, esc(rev_labels(dom)) + esc(b"/p"))
    K(SD + "key esc(reverse(domain)):desc u64(id)", rec, inv(esc(dom[::-1])) + u(1231231, 8))
for idv, w in ((1231231, 10), (1231231, 7), (0, 3), (18446744073709551615, 20), (5, 1)):
    rec = [b"d", b"p", idv]
    K(SD + 'key reverse_num(id, %d) ":" path' % w, rec, rev_num(idv, w) + b":p")
    K(SD + "key reverse_num(id, %d) path" % w, rec, rev_num(idv, w) + b"p")
    K(SD + "key esc(reverse_num(id, %d)) path" % w, rec, esc(rev_num(idv, w)) + b"p")
K("fields n:i32; key reverse_num(n, 5)", [12345], b"54321")
K("fields d:bytes; key reverse(d) \":\" reverse_labels(d)", [b"a.b\x00c"], b"c\x00b.a:" + rev_labels(b"a.b\x00c"))

# 8. reverse timestamps
section("8. rts(ts) = MAX - ts: u64(rts) 8 bytes, dec(rts, 19), text; default MAX Long.MAX_VALUE and custom")
for ts in (0, 1, 1686465031000, INT64_MAX - 1, INT64_MAX):
    rec = [b"u", ts]
    K(SU + "key u64(rts(ts))", rec, u(rts(ts), 8))
    K(SU + "key dec(rts(ts), 19)", rec, dec(rts(ts), 19))
    K(SU + 'key user ":" rts(ts)', rec, b"u:" + text(rts(ts)))
    K(SU + "key esc(user) u64(rts(ts)):desc", rec, esc(b"u") + inv(u(rts(ts), 8)))
    K(SU + "key ordered(rts(ts))", rec, oc_uint(rts(ts)))
CM = 9999999999999
for ts in (0, 1686465031000, CM):
    rec = [b"u", ts]
    K(SU + "key u64(rts(ts, %d))" % CM, rec, u(rts(ts, CM), 8))
    K(SU + "key dec(rts(ts, %d), 13)" % CM, rec, dec(rts(ts, CM), 13))
    K(SU + "key dec(rts(ts, %d), 19)" % CM, rec, dec(rts(ts, CM), 19))
    K(SU + "key esc(user) u64(rts(ts, 18446744073709551615))", rec, esc(b"u") + u(rts(ts, (1 << 64) - 1), 8))
K(SU + "key esc(user) u32(rts(ts, 4294967295))", [b"u", 5], esc(b"u") + u(4294967290, 4))
K("fields ts:u64; key u64(rts(ts, 18446744073709551615))", [18446744073709551615], u(0, 8))
K("fields ts:u64; key dec(rts(ts, 18446744073709551615), 20)", [1], dec((1 << 64) - 2, 20))

# 9. typed order-preserving fields
section("9a. u8..u64 and i8..i64 (sign bit flipped), ascending and :desc")
for w, name in ((1, "8"), (2, "16"), (4, "32"), (8, "64")):
    for v in (0, 1, 0x7F, (1 << (8 * w)) - 1, (1 << (8 * w - 1))):
        K("fields x:u%s; key u%s(x)" % (name, name), [v], u(v, w))
        K("fields x:u%s; key u%s(x):desc" % (name, name), [v], inv(u(v, w)))
        K("fields x:u%s; key u%s(x):asc" % (name, name), [v], u(v, w))
    lo, hi = -(1 << (8 * w - 1)), (1 << (8 * w - 1)) - 1
    for v in (lo, lo + 1, -2, -1, 0, 1, hi):
        K("fields x:i%s; key i%s(x)" % (name, name), [v], i(v, w))
        K("fields x:i%s; key i%s(x):desc" % (name, name), [v], inv(i(v, w)))
# a wider field in a narrower encoding, a narrower one in a wider encoding
K("fields x:u64; key u8(x) u16(x)", [200], u(200, 1) + u(200, 2))
K("fields x:i64; key i8(x) i16(x) i32(x)", [-100], i(-100, 1) + i(-100, 2) + i(-100, 4))
K("fields x:u8; key u64(x) i64(x) i8(x)", [100], u(100, 8) + i(100, 8) + i(100, 1))
K("fields x:i8; key u8(x)", [5], u(5, 1))
K("fields x:ts; key i64(x) \":\" x", [1686465031000], i(1686465031000, 8) + b":1686465031000")
# text form of integers at their extremes
for name, vals in (("u8", (0, 9, 10, 255)), ("u64", (0, 1, 10, 18446744073709551615)),
                   ("i8", (-128, -1, 0, 127)), ("i32", (-2147483648, -10, 2147483647)),
                   ("i64", (-(1 << 63), -(1 << 63) + 1, -1, 0, INT64_MAX))):
    for v in vals:
        K("fields x:%s, y:str; key x \":\" y" % name, [v, b"z"], text(v) + b":z")
        K("fields x:%s; key \"<\" x" % name, [v], b"<" + text(v))
# composite: binary fields in sequence, then text at the end
K("fields a:u16, b:i32, c:str; key u16(a) i32(b):desc c", [513, -7, b"tail"], u(513, 2) + inv(i(-7, 4)) + b"tail")

section("9b. f64: negative -> all bits inverted, else sign bit flipped; NaN canonical 0x7ff8000000000000")
floats = [-math.inf, -1.7976931348623157e308, -1.5, -5e-324, -0.0, 0.0, 5e-324, 2.2250738585072014e-308,
          0.1, 1.0, 1.5, 1e300, math.inf, math.nan, -math.nan]
for d in floats:
    K("fields x:f64; key f64(x)", [d], f64(d))
    K("fields x:f64; key f64(x):desc", [d], inv(f64(d)))
for d in (-1.5, -0.0, 0.0, 0.1, 1e300, math.inf, -math.inf):
    K("fields x:f64, y:str; key x \"|\" y", [d, b"z"], text(d) + b"|z")

section("9c. dec(v, W): zero-padded fixed-width decimal")
for v, w in ((0, 1), (7, 2), (1231231, 10), (99999, 5), (18446744073709551615, 20), (42, 20)):
    K("fields x:u64; key dec(x, %d)" % w, [v], dec(v, w))
    K("fields x:u64; key dec(x, %d):desc" % w, [v], inv(dec(v, w)))
K("fields x:i32, s:str; key dec(x, 10) s", [2147483647, b"tail"], dec(2147483647, 10) + b"tail")
K("fields x:u8, y:u8; key dec(x, 3) dec(y, 3):desc", [7, 255], b"007" + inv(b"255"))

section("9d. esc(s): 00 -> 00 FF, terminator 00 01; bytes() raw as the last field")
for s in (b"", b"a", b"ab", b"\x00", b"a\x00b", b"\x00\x00", b"\x01", b"\xff", b"\xff\x00\x01", b"x,y\\z"):
    K("fields s:bytes; key esc(s)", [s], esc(s))
    K("fields s:bytes; key esc(s):desc", [s], inv(esc(s)))
    K("fields s:bytes, t:str; key esc(s) esc(t):desc", [s, b"t"], esc(s) + inv(esc(b"t")))
    K("fields a:str, s:bytes; key esc(a) bytes(s)", [b"k", s], esc(b"k") + s)
    K("fields a:str, s:bytes; key esc(a) \"/\" bytes(s)", [b"k", s], esc(b"k") + b"/" + s)
K("fields a:str, b:str, c:u32; key esc(a) esc(b) u32(c)", [b"a\x00", b"", 9], esc(b"a\x00") + esc(b"") + u(9, 4))
K("fields s:str; key bytes(s)", [b"plain"], b"plain")

section("9e. ordered(): Bigtable/LevelDB OrderedCode (strings, WriteNumIncreasing, WriteSignedNumIncreasing)")
for s in (b"", b"abc", b"\x00", b"\xff", b"a\x00\xffb", b"\xff\xff", b"\x00\x01", b"\x01\xfe"):
    K("fields s:bytes; key ordered(s)", [s], oc_str(s))
    K("fields s:bytes; key ordered(s):desc", [s], inv(oc_str(s)))
for v in (0, 1, 255, 256, 65535, 65536, 0x0102030405, (1 << 56) - 1, 1 << 56, (1 << 64) - 1):
    K("fields x:u64; key ordered(x)", [v], oc_uint(v))
    K("fields x:u64; key ordered(x):desc", [v], inv(oc_uint(v)))
K("fields x:u8; key ordered(x)", [0], oc_uint(0))
K("fields x:u16; key ordered(x)", [300], oc_uint(300))
sints = [0, 1, -1, 63, 64, -64, -65, 8191, 8192, -8192, -8193, (1 << 20) - 1, 1 << 20, -(1 << 20) - 1]
for k in range(3, 10):
    sints += [(1 << (7 * k - 1)) - 1, 1 << (7 * k - 1), -(1 << (7 * k - 1)), -(1 << (7 * k - 1)) - 1]
sints += [INT64_MAX, -INT64_MAX - 1, 1686465031000, -1686465031000]
sints = sorted(set(v for v in sints if -(1 << 63) <= v < 1 << 63))
for v in sints:
    K("fields x:i64; key ordered(x)", [v], oc_int(v))
    K("fields x:i64; key ordered(x):desc", [v], inv(oc_int(v)))
K("fields x:i8; key ordered(x)", [-128], oc_int(-128))
K("fields x:i32; key ordered(x)", [-2147483648], oc_int(-2147483648))
K("fields a:str, b:u64, c:i64, d:bytes; key ordered(a) ordered(b) ordered(c) ordered(d)",
  [b"k\x00", 300, -300, b"\xff"], oc_str(b"k\x00") + oc_uint(300) + oc_int(-300) + oc_str(b"\xff"))
K("fields a:str, c:i64; key ordered(a):desc ordered(c):desc", [b"k", 5], inv(oc_str(b"k")) + inv(oc_int(5)))

section("9f. ob(): HBase OrderedBytes fixed-width int8..int64 (0x29..0x2c) and float64 (0x31)")
for w, name in ((1, "i8"), (2, "i16"), (4, "i32"), (8, "i64")):
    lo, hi = -(1 << (8 * w - 1)), (1 << (8 * w - 1)) - 1
    for v in (lo, -1, 0, 1, hi):
        K("fields x:%s; key ob(x)" % name, [v], ob_int(v, w))
        K("fields x:%s; key ob(x):desc" % name, [v], inv(ob_int(v, w)))
K("fields x:ts; key ob(x)", [1686465031000], ob_int(1686465031000, 8))
for d in floats:
    K("fields x:f64; key ob(x)", [d], ob_f64(d))
    K("fields x:f64; key ob(x):desc", [d], inv(ob_f64(d)))
K("fields a:i32, b:f64, c:str; key ob(a) ob(b):desc esc(c)", [-3, 2.5, b"x"], ob_int(-3, 4) + inv(ob_f64(2.5)) + esc(b"x"))

section("9g. phoenix(): Phoenix row-key forms (VARCHAR asc: bytes + 00 unless last; desc: inverted + FF; ints)")
# The empty-string vectors below pin rowkey's rule as specified (docs/formats-key.md), not
# Phoenix's: Phoenix writes an empty (NULL) VARCHAR's separator as 00 even when
# DESC, and drops trailing NULL key columns with their separator (PTableImpl.newKey,
# SchemaUtil.getSeparatorByte). See docs/formats-key.md 5.10.
for s in (b"", b"abc", b"\xff\x01", b"a b"):
    K("fields s:str, n:u8; key phoenix(s) u8(n)", [s, 1], phx_str(s) + u(1, 1))
    K("fields s:str; key phoenix(s)", [s], phx_str(s, last=True))
    K("fields s:str, n:u8; key phoenix(s):desc u8(n)", [s, 1], phx_str(s, desc=True) + u(1, 1))
    K("fields s:str; key phoenix(s):desc", [s], phx_str(s, desc=True, last=True))
    K("fields s:str, t:str; key phoenix(s) phoenix(t)", [s, b"t"], phx_str(s) + phx_str(b"t", last=True))
    K("fields s:str, t:str; key phoenix(s):desc phoenix(t):desc", [s, b"t"], phx_str(s, desc=True) + phx_str(b"t", desc=True))
for w, name in ((1, "8"), (2, "16"), (4, "32"), (8, "64")):
    lo, hi = -(1 << (8 * w - 1)), (1 << (8 * w - 1)) - 1
    for v in (0, 1, (1 << (8 * w)) - 1):
        K("fields x:u%s; key phoenix(x)" % name, [v], u(v, w))
        K("fields x:u%s; key phoenix(x):desc" % name, [v], inv(u(v, w)))
    for v in (lo, -1, 0, hi):
        K("fields x:i%s; key phoenix(x)" % name, [v], i(v, w))
        K("fields x:i%s; key phoenix(x):desc" % name, [v], inv(i(v, w)))
K("fields x:ts; key phoenix(x)", [1686465031000], i(1686465031000, 8))
K("fields a:str, b:i64, c:str; key phoenix(a) phoenix(b):desc phoenix(c)", [b"k", 3, b"v"],
  phx_str(b"k") + inv(i(3, 8)) + phx_str(b"v", last=True))

section("10. the issue's designs together")
K("fields user:u64, ts:i64, kind:str, order:u64; key bucket(16, xxh3(user)) u64(user) u64(rts(ts)) kind", [77, 1686465031000, b"click", 5],
  bytes([bucket_of("xxh3", b"77", 16)]) + u(77, 8) + u(rts(1686465031000), 8) + b"click")
K("fields user:u64, ts:i64, kind:str, order:u64; key hex(md5(order))[0:6] order", [77, 0, b"", 1231231],
  hexl(hashlib.md5(b"1231231").digest())[:6] + b"1231231")
K("fields domain:str; key reverse(domain)", [b"flink.example.com"], b"moc.elpmaxe.knilf")
K("fields domain:str; key reverse_labels(domain)", [b"flink.example.com"], b"com.example.flink")
K("fields user:u64, kind:str; key phoenix_salt(8) phoenix(user) phoenix(kind):desc", [77, b"click"],
  psalt(8, u(77, 8) + phx_str(b"click", desc=True)))

# ---- errors ----------------------------------------------------------------------

# schema errors (rk_schema_parse fails)
E("fields a:str, b:str; key a b", [b"x", b"y"], "invalid", "must be followed by a literal separator")
E("fields a:str, b:u64; key a esc(a) b", [b"x", 1], "invalid", "must be followed by a literal separator")
E("fields a:str, b:u64; key bytes(a) u64(b)", [b"x", 1], "invalid", "must be its last part")
E("fields a:str, b:u64; key u64(b) phoenix_salt(4) a", [b"x", 1], "invalid", "must be the first part")
E("fields a:str; key a:desc", [b"x"], "invalid", "desc needs a fixed-width or terminated encoding")
E("fields a:str; key bytes(a):desc", [b"x"], "invalid", "desc needs a fixed-width or terminated encoding")
E("fields a:str; key md5(a):desc", [b"x"], "invalid", "desc needs a fixed-width or terminated encoding")
E("fields a:str; key u64(a)", [b"x"], "invalid", "needs an integer value")
E("fields a:u64; key esc(a)", [1], "invalid", "needs a str or bytes value")
E("fields a:u64; key f64(a)", [1], "invalid", "f64() needs an f64 field")
E("fields a:u64; key ob(a)", [1], "invalid", "no unsigned form")
E("fields a:f64; key ordered(a)", [1.0], "invalid", "no float form")
E("fields a:f64; key phoenix(a)", [1.0], "invalid", "phoenix() supports str, bytes and integer")
E("fields a:str; key hex(a)", [b"x"], "invalid", "hex() needs a fixed-width input")
E("fields a:str; key a[2:]", [b"abc"], "invalid", "needs explicit non-negative bounds")
E("fields a:str; key md5(a)[3:3] a", [b"x"], "invalid", "is empty or outside")
E("fields a:str; key md5(a)[0:17] a", [b"x"], "invalid", "is empty or outside")
E("fields a:str; key bucket(4, a) a", [b"x"], "invalid", "takes a hash as its second argument")
E("fields a:str; key bucket(4, md5(a), \"abc\") a", [b"x"], "invalid", "exactly 4 characters")
E("fields a:str; key bucket(3, md5(a), \"aba\") a", [b"x"], "invalid", "repeats 'a'")
E("fields a:str; key bucket(257, md5(a)) a", [b"x"], "invalid", "at most 256 buckets")
E("fields a:str; key bucket(0, md5(a)) a", [b"x"], "invalid", "bucket count must be between 1")
E("fields a:str; key bucket(4, md5(a), hex) a", [b"x"], "invalid", "expected a bucket form")
E("fields a:str; key phoenix_salt(257) phoenix(a)", [b"x"], "invalid", "bucket count must be between 1 and 256")
E("fields a:str; key md5(bucket(4, md5(a))) a", [b"x"], "invalid", "may only stand at the top level")
E("fields a:str; key md5(md5(md5(md5(md5(a))))) a", [b"x"], "invalid", "nested deeper than 4")
E("fields a:str; key phoenix(a) \":\" a", [b"x"], "invalid", "writes its own 0x00 separator")
E("fields a:str; key b", [b"x"], "invalid", "unknown field or function 'b'")
E("fields a:str; key frob(a)", [b"x"], "invalid", "unknown function 'frob'")
E("fields a:string; key a", [b"x"], "invalid", "unknown type")
E("fields a:str, a:u8; key a", [b"x", 1], "invalid", "declared twice")
E("fields a:str; key a \":", [b"x"], "invalid", "unterminated string literal")
E("fields a:str; key a \"\\q\"", [b"x"], "invalid", "unknown escape")
E("fields a:str; key \"\" a", [b"x"], "invalid", "empty literal")
E("fields a:str", [b"x"], "invalid", "no 'key' line")
E("fields a:str; key a; key a", [b"x"], "invalid", "one key line")
E("key a; fields a:str", [b"x"], "invalid", "declare the fields before the key")
E("fields a:str; key a; option max_key_len=0", [b"x"], "invalid", "max_key_len must be between 1")
E("option max_key_len=4; fields a:str, n:u8; key esc(a) dec(n, 5)", [b"x", 1], "invalid", "shortest key (7 bytes) is over max_key_len 4")
E("option target=cassandra; fields a:str; key a", [b"x"], "invalid", "target must be hbase or bigtable")
E("option colour=blue; fields a:str; key a", [b"x"], "invalid", "unknown option")
E("fields a:str; key a; frobnicate", [b"x"], "invalid", "expected a directive")
E("fields a:str; key a:up", [b"x"], "invalid", "expected asc or desc")
E("fields a:u64; key dec(a, 21)", [1], "invalid", "decimal width must be between 1 and 20")
E("fields a:u64; key reverse_num(a, 0)", [1], "invalid", "digit count must be between 1 and 20")
E("fields a:u64; key reverse(a)", [1], "invalid", "reverse() needs a str or bytes field")
E("fields a:str; key rts(a)", [b"x"], "invalid", "rts() needs an integer timestamp field")
E("fields a:str; key tbucket(a, 60)", [b"x"], "invalid", "tbucket() needs an integer field")
E("fields a:i64; key tbucket(a, 0)", [1], "invalid", "bucket width must be between 1")
E("fields a:i64; key rts(a, -1)", [1], "invalid", "expected rts maximum (a non-negative number)")
E("fields a:str; key md5() a", [b"x"], "invalid", "expected at least one key part")
E("fields a:str; key md5(a a", [b"x"], "invalid", "missing ')'")
E("fields a:str; key a @", [b"x"], "invalid", "unexpected character")
# record errors (rk_value_parse fails)
E("fields a:u8; key u8(a)", [256], "invalid", "'256' is not a valid u8")
E("fields a:i8; key i8(a)", [-129], "invalid", "'-129' is not a valid i8")
E("fields a:u64; key u64(a)", [-1], "invalid", "'-1' is not a valid u64")
E("fields a:u64; key u64(a)", [b"12x"], "invalid", "'12x' is not a valid u64")
E("fields a:f64; key f64(a)", [b"one"], "invalid", "'one' is not a valid f64")
E("fields a:i32; key i32(a)", [b""], "invalid", "is not a valid i32")
# encode errors (rk_key_encode fails)
E("fields a:str, b:str; key a \":\" b", [b"x:y", b"z"], "invalid", "contains the separator \":\" that follows it")
E("fields a:u64, b:str; key a \"1\" b", [21, b"z"], "invalid", "contains the separator \"1\"")
E("fields a:str, b:str; key a \"::\" b", [b"x:", b"z"], "invalid", "contains the separator")
E("fields a:str, b:str; key a \":\" b", [MISSING, b"z"], "invalid", "field 'a' has no value and the key needs it")
E("fields a:str; key md5(a) \"-\"", [MISSING], "invalid", "field 'a' has no value")
E("option max_key_len=8; fields a:str; key esc(a)", [b"1234567"], "toolong", "longer than its limit of 8 bytes")
E("option max_key_len=8; fields a:str; key a", [b"123456789"], "toolong", "longer than its limit")
E("fields a:u64; key dec(a, 3)", [1234], "invalid", "does not fit in 3 decimal digits")
E("fields a:u64; key u8(a)", [256], "invalid", "does not fit in u8")
E("fields a:u64; key u32(a)", [1 << 32], "invalid", "does not fit in u32")
E("fields a:i64; key i8(a)", [-200], "invalid", "does not fit in i8")
E("fields a:i64; key i16(a)", [40000], "invalid", "does not fit in i16")
E("fields a:i64; key u32(a)", [-1], "invalid", "is negative")
E("fields a:i64; key dec(a, 5)", [-1], "invalid", "is negative")
E("fields a:u64; key i64(a)", [1 << 63], "invalid", "over the signed 64-bit range")
E("fields ts:i64; key u64(rts(ts, 1000))", [1001], "invalid", "is over the maximum 1000")
E("fields ts:i64; key u64(rts(ts))", [-1], "invalid", "is negative")
E("fields ts:u64; key u64(rts(ts))", [1 << 63], "invalid", "is over the maximum")
E("fields a:u64; key reverse_num(a, 3)", [1234], "invalid", "has more than 3 digits")
E("fields a:i64; key reverse_num(a, 3)", [-5], "invalid", "is negative")
E("fields a:str; key phoenix(a)", [b"a\x00b"], "invalid", "cannot contain a 0x00 byte")
E("fields a:str; key phoenix(a):desc", [b"\x00"], "invalid", "cannot contain a 0x00 byte")
E("fields a:str; key a[0:6] \":\" a", [b"abc"], "invalid", "the value is too short")

# ---- output ----------------------------------------------------------------------

HEADER_KEYS = """# rowkey known-answer vectors: made by tests/vectors/gen_vectors.py (do not edit by hand).
# Columns (TAB-separated): schema (inline, ';' between directives) | record | expected key, lower-case hex.
# Record: CSV in schema order, no quoting; \\xNN = byte NN, \\\\ = backslash, \\, = comma, a cell \\N = missing.
# Every vector is encoded by a fresh encoder (round-robin salts start at bucket 0).
"""
HEADER_ERRS = """# rowkey error vectors: made by tests/vectors/gen_vectors.py (do not edit by hand).
# Columns (TAB-separated): schema | record | error code (rk_strerror name) | substring of rk_error_last().
# The schema may fail to parse, a record cell may fail rk_value_parse, or rk_key_encode must fail.
"""


def main():
    seen = set()
    with open(os.path.join(HERE, "keys.tsv"), "w") as f:
        f.write(HEADER_KEYS)
        n = 0
        for schema, rec, key in keys:
            if schema == "#":
                f.write("# ---- %s\n" % rec)
                continue
            if (schema, rec) in seen:
                continue
            seen.add((schema, rec))
            f.write("%s\t%s\t%s\n" % (schema, rec, key))
            n += 1
    with open(os.path.join(HERE, "errors.tsv"), "w") as f:
        f.write(HEADER_ERRS)
        for e in errors:
            f.write("\t".join(e) + "\n")
    print("gen_vectors.py: %d key vectors, %d error vectors" % (n, len(errors)))


if __name__ == "__main__":
    main()
