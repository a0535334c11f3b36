#!/usr/bin/env python3
"""Seeds for fuzz_wals and fuzz_ldb_manifest: lists of expected write-ahead
logs (docs/formats.md B.5: magic, length, body, CRC-32) in every state, a few
damaged; and LevelDB MANIFESTs, VersionEdit records (db/version_edit.cc
tags) in LevelDB's log format, one torn, one with an unknown tag. Run from
the repository root; writes tests/fuzz/corpus/fuzz_wals and
fuzz_ldb_manifest."""
import os
import struct
import zlib

from gen_ldb_log_seeds import log


def wals(logs):
    body = struct.pack(">II", 1, len(logs))
    for number, state, size, crc in logs:
        body += struct.pack(">QBQI", number, state, size, crc)
    return b"RKWALS01" + struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body))


def varint(x):
    out = b""
    while x >= 0x80:
        out += bytes([(x & 0x7F) | 0x80])
        x >>= 7
    return out + bytes([x])


def prefixed(b):
    return varint(len(b)) + b


def edit(log_number=None, prev=None, next_file=None, seq=None, comparator=None, new=(), deleted=()):
    out = b""
    if comparator:
        out += varint(1) + prefixed(comparator)
    if log_number is not None:
        out += varint(2) + varint(log_number)
    if prev is not None:
        out += varint(9) + varint(prev)
    if next_file is not None:
        out += varint(3) + varint(next_file)
    if seq is not None:
        out += varint(4) + varint(seq)
    for level, number in deleted:
        out += varint(6) + varint(level) + varint(number)
    for level, number, size, small, large in new:
        out += varint(7) + varint(level) + varint(number) + varint(size) + prefixed(small) + prefixed(large)
    return out


def main():
    d = "tests/fuzz/corpus/fuzz_wals"
    os.makedirs(d, exist_ok=True)
    sealed = wals([(3, 2, 46207, 0x1234ABCD), (5, 2, 0, 0)])
    seeds = {
        "live": wals([(7, 0, 0, 0)]),
        "switched": wals([(5, 1, 65600, 0), (6, 1, 70123, 0), (7, 0, 0, 0)]),
        "sealed": sealed,
        "empty_list": wals([]),
        "bad_crc": sealed[:-1] + bytes([sealed[-1] ^ 1]),
        "out_of_order": wals([(7, 0, 0, 0), (5, 1, 10, 0)]),
        "bad_state": wals([(7, 9, 0, 0)]),
        "short": sealed[:20],
    }
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    m = "tests/fuzz/corpus/fuzz_ldb_manifest"
    os.makedirs(m, exist_ok=True)
    key = b"\x00\x00\x00\x01row\x00\x01d\x00\x01v\x00\x01" + b"\xff" * 8 + b"\x04" + b"\x01" * 8
    first = edit(comparator=b"leveldb.BytewiseComparator")
    later = [
        edit(log_number=3, prev=0, next_file=5, seq=0),
        edit(log_number=6, prev=0, next_file=8, seq=300, new=[(0, 5, 31234, key, key)]),
        edit(log_number=9, next_file=11, seq=600, new=[(1, 10, 65000, key, key)], deleted=[(0, 5)]),
    ]
    manifest = log([first] + later)
    seeds = {
        "plain": manifest,
        "torn": manifest[:-5],
        "unknown_tag": log([first, varint(8) + varint(1)]),
        "compact_pointer": log([first, varint(5) + varint(1) + prefixed(key) + edit(log_number=4)]),
    }
    for name, data in seeds.items():
        with open(os.path.join(m, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
