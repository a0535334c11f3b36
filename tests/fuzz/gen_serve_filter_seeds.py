#!/usr/bin/env python3
"""Writes seed inputs for fuzz_serve_filter: RowFilter messages encoded by
hand (protobuf wire format, field numbers of google/bigtable/v2/data.proto as
in src/store/bigtable/proto/bt_data.proto). Run from the repository root."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import I, L  # noqa: E402


fam, lim, strip, lab, sink = L(5, "c.*"), I(12, 1), I(13, 1), L(19, "x"), I(16, 1)
seeds = {
    "chain": L(1, L(1, fam) + L(1, lim)),
    "interleave_sink": L(2, L(1, L(1, L(1, lab) + L(1, sink))) + L(1, L(6, b"b"))),
    "condition": L(3, L(1, L(9, b"v.*")) + L(2, strip) + L(3, L(5, "m"))),
    "column_range": L(7, L(1, "cf") + L(2, b"a") + L(5, b"b")),
    "value_range": L(15, L(1, b"v1") + L(3, b"v2")),
    "timestamp_range": L(8, I(1, 10) + I(2, 25)),
    "offset_limit": L(1, L(1, I(10, 1)) + L(1, I(11, 2))),
    "row_regex": L(4, b"k\\C.*"),
    "unknown_field": bytes([0xA2, 0x01, 0x00]),
    "bad_regex": L(9, b"(("),
    "pass": I(17, 1),
}
out = "tests/fuzz/corpus/fuzz_serve_filter"
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"{len(seeds)} seeds in {out}")
