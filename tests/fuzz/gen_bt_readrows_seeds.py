#!/usr/bin/env python3
# Regenerates tests/fuzz/corpus/fuzz_bt_readrows/ (run from the repository root).
import os
out = "tests/fuzz/corpus/fuzz_bt_readrows"
def varint(v):
    v &= (1 << 64) - 1
    b = bytearray()
    while v >= 0x80:
        b.append((v & 0x7f) | 0x80); v >>= 7
    b.append(v); return bytes(b)
def fld(n, wt, payload):
    t = varint(n << 3 | wt)
    return t + (varint(len(payload)) + payload if wt == 2 else varint(payload))
def chunk(key=None, fam=None, qual=None, ts=0, val=b"", vs=0, reset=False, commit=False):
    m = b""
    if key: m += fld(1, 2, key)
    if fam is not None: m += fld(2, 2, fld(1, 2, fam) if fam else b"")
    if qual is not None: m += fld(3, 2, fld(1, 2, qual) if qual else b"")
    if ts: m += fld(4, 0, ts)
    if val: m += fld(6, 2, val)
    if vs: m += fld(7, 0, vs)
    if reset: m += fld(8, 0, 1)
    if commit: m += fld(9, 0, 1)
    return fld(1, 2, m)
# Each frame's length must be a multiple of 4 (see the target): pad with
# last_scanned_row_key fields, which the decoder ignores (2 or 3 bytes each).
def pad(m):
    p = (-len(m)) % 4
    return m + {0: b"", 1: b"\x12\x00\x12\x01x", 2: b"\x12\x00", 3: b"\x12\x01x"}[p]
def frame(*msgs):
    b = b""
    for m in msgs:
        m = pad(m)
        assert len(m) % 4 == 0 and 0 < len(m) // 4 < 256
        b += bytes([len(m) // 4]) + m
    return b
seeds = {
  "two_rows": frame(chunk(b"r1", b"f", b"a", 2000, b"v2") + chunk(ts=1000, val=b"v1") +
                    chunk(qual=b"b", val=b"x", commit=True),
                    chunk(b"r2", b"g", b"", 5000, b"vg", commit=True)),
  "split_cell": frame(chunk(b"k", b"f", b"q", 7000, b"hel", vs=10),
                      chunk(val=b"lo w", vs=10), chunk(val=b"rld", commit=True)),
  "reset": frame(chunk(b"a", b"f", b"q", 1000, b"old") + chunk(reset=True) +
                 chunk(b"a", b"f", b"q", 2000, b"new", commit=True)),
  "bad_order": frame(chunk(b"m", b"f", b"q", commit=True), chunk(b"c", b"f", b"q", commit=True)),
  "no_commit": frame(chunk(b"m", b"f", b"q", val=b"x")),
}
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    open(os.path.join(out, name), "wb").write(data)
print("wrote", len(seeds), "seeds")
