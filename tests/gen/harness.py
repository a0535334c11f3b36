#!/usr/bin/env python3
"""Checks generated Python encoders against rowkey's test vectors.

usage: harness.py DIR MANIFEST

MANIFEST lists one design a line: "<module name> <vectors file>". Each module
was generated into DIR by `rowkey gen --lang python`; its vectors came from
`rowkey vectors` (docs/formats.md part E). For every vector: encode gives the
key (or the same kind of error), decode gives the record back, bucket_of the
bucket, a damaged key decodes to the same fields (or is refused), and
prefix_ranges gives the planner's ranges. Where the header names an order,
keys sort as their records do. Prints one line per failure (at most 20 a
design) and a summary; exits 1 on any failure.
"""
import importlib
import json
import math
import struct
import sys

failures = 0


def fail(design, n, what):
    global failures
    failures += 1
    if failures <= 200:
        print("FAIL %s line %d: %s" % (design, n, what))


def value(v, t, name):
    """A vector's JSON value as the record holds it (BadUtf8 for {"hex"} strings)."""
    if t in ("u64", "i64"):
        return int(v)
    if t == "f64":
        return {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}.get(v, v) if isinstance(v, str) else float(v)
    if t == "bytes":
        return bytes.fromhex(v)
    if t == "str" and isinstance(v, dict):
        return BadUtf8(bytes.fromhex(v["hex"]))
    return v


def json_int(s):
    """JSON's -0 is the float -0.0 (the library writes no other integer so)."""
    return -0.0 if s == "-0" else int(s)


class BadUtf8:
    def __init__(self, b):
        self.b = b


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return struct.pack(">d", a) == struct.pack(">d", b) or (a != a and b != b)
    return a == b and type(a) == type(b)


def sort_key(mod, hdr, rec):
    out = []
    types = {f["name"]: f["type"] for f in hdr["fields"]}
    attrs = {s: a for s, a, _ in mod.FIELDS}
    for name in hdr["order"]:
        v = getattr(rec, attrs[name])
        t = types[name]
        if t == "f64":
            b = struct.unpack(">Q", struct.pack(">d", v))[0] if v == v else 0x7FF8000000000000
            v = (~b & (2**64 - 1)) if b >> 63 else b ^ (1 << 63)
        elif t == "str":
            v = v.encode("utf-8")
        out.append(v)
    return tuple(out)


def check(design, mod, path):
    lines = open(path, encoding="utf-8").read().splitlines()
    hdr = json.loads(lines[0])
    fields = {f["name"]: f for f in hdr["fields"]}
    attrs = {s: a for s, a, _ in mod.FIELDS}
    Rec = None
    for name in dir(mod):
        obj = getattr(mod, name)
        if isinstance(obj, type) and hasattr(obj, "__dataclass_fields__"):
            Rec = obj
    Codec = [getattr(mod, n) for n in dir(mod) if n.endswith("Codec")][0]
    if mod.SCHEMA != hdr["schema"] or mod.FORMAT_VERSION != hdr["format"] or mod.BUCKETS != hdr["buckets"]:
        fail(design, 1, "embedded schema %r, format %d, buckets %d differ from the vectors'" %
             (mod.SCHEMA, mod.FORMAT_VERSION, mod.BUCKETS))
    codec = Codec(hdr["seed"])
    bad_before = failures

    def make(vals):
        kw = {}
        for sname, v in vals.items():
            kw[attrs[sname]] = value(v, fields[sname]["type"], sname)
        return Rec(**kw)

    def expect(n, rec_out, vals):
        for sname, f in fields.items():
            got = getattr(rec_out, attrs[sname])
            if sname not in vals:
                if got is not None:
                    fail(design, n, "field %s: expected unset, got %r" % (sname, got))
                continue
            want = value(vals[sname], f["type"], sname)
            if not same(got, want):
                fail(design, n, "field %s: expected %r, got %r" % (sname, want, got))

    ordered = []
    for n, line in enumerate(lines[1:], 2):
        if failures - bad_before >= 20:
            break
        v = json.loads(line, parse_int=json_int)
        if "encode" in v:
            rec = make(v["encode"])
            try:
                key = codec.encode(rec)
            except mod.RowKeyError as e:
                if "error" not in v:
                    fail(design, n, "encode refused (%s: %s), expected key %s" % (e.kind, e, v["key"]))
                elif e.kind != v["error"]:
                    fail(design, n, "encode: error %s (%s), expected %s (%s)" % (e.kind, e, v["error"], v["message"]))
                continue
            if "error" in v:
                fail(design, n, "encode gave %s, expected error %s (%s)" % (key.hex(), v["error"], v["message"]))
                continue
            if key.hex() != v["key"]:
                fail(design, n, "encode gave %s, expected %s" % (key.hex(), v["key"]))
                continue
            if "bucket" in v and codec.bucket_of(key) != v["bucket"]:
                fail(design, n, "bucket_of gave %d, expected %d" % (codec.bucket_of(key), v["bucket"]))
            try:
                back = codec.decode(key)
            except mod.RowKeyError as e:
                fail(design, n, "decode of its own key refused: %s" % e)
                continue
            expect(n, back, {k: x for k, x in v["encode"].items() if fields[k]["decodes"]})
            if "order" in hdr:
                ordered.append((sort_key(mod, hdr, rec), key, n))
        elif "decode" in v:
            key = bytes.fromhex(v["decode"])
            want_bad_utf8 = any(isinstance(x, dict) for x in v.get("fields", {}).values())
            try:
                back = codec.decode(key)
            except mod.RowKeyError as e:
                if e.kind != "corrupt":
                    fail(design, n, "decode: error kind %s" % e.kind)
                if "error" not in v and not want_bad_utf8:
                    fail(design, n, "decode refused (%s), expected %s" % (e, v["fields"]))
                continue
            if "error" in v or want_bad_utf8:
                fail(design, n, "decode accepted a key the library refuses (%s)" % v.get("message", "not UTF-8"))
                continue
            expect(n, back, v["fields"])
        else:
            bound = make(v["prefix"])
            try:
                got = [(r.start.hex(), r.stop.hex() if r.stop is not None else None, r.bucket)
                       for r in codec.prefix_ranges(bound)]
            except mod.RowKeyError as e:
                if "error" not in v or e.kind != v["error"]:
                    fail(design, n, "prefix_ranges refused (%s: %s), expected %s" % (e.kind, e, v.get("ranges", v.get("error"))))
                continue
            if "error" in v:
                fail(design, n, "prefix_ranges gave %s, expected error %s" % (got, v["error"]))
                continue
            want = [(r["start"], r["stop"], r["bucket"]) for r in v["ranges"]]
            if got != want:
                fail(design, n, "prefix_ranges gave %s, expected %s" % (got, want))
            if not v["prefix"]:
                for start, stop, b in want:
                    if b >= 0:
                        r = codec.bucket_range(b)
                        if (r.start.hex(), r.stop.hex() if r.stop is not None else None, r.bucket) != (start, stop, b):
                            fail(design, n, "bucket_range(%d) gave %s" % (b, r))
    ordered.sort(key=lambda x: x[0])
    for (ta, ka, na), (tb, kb, nb) in zip(ordered, ordered[1:]):
        if (ta < tb and not ka < kb) or (ta == tb and ka != kb):
            fail(design, nb, "order: the record of line %d sorts before this one, its key does not" % na)
    return len(lines) - 1


def main():
    sys.path.insert(0, sys.argv[1])
    designs = vectors = 0
    for line in open(sys.argv[2]):
        name, path = line.split()
        mod = importlib.import_module(name)
        vectors += check(name, mod, path)
        designs += 1
    print("python: %d designs, %d vectors, %d failures" % (designs, vectors, failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
