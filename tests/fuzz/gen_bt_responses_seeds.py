#!/usr/bin/env python3
"""Writes seed inputs for fuzz_bt_responses: a kind byte (0 GetTable, 1
ListTables, 2 SampleRowKeys, 3 MutateRows), a byte for the MutateRows entry
count, then a response message encoded by hand (field numbers of
src/store/bigtable/proto). Run from the repository root."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import I, L  # noqa: E402


fam = lambda name, versions: L(3, L(1, name) + L(2, L(1, I(1, versions))))
seeds = {
    "table_two_families": b"\x00\x00" + L(1, "projects/p/instances/i/tables/t") + fam("cf", 3) + fam("meta", 1),
    "table_bad_family": b"\x00\x00" + fam("bad name", 1),
    "table_union_gc": b"\x00\x00" + L(3, L(1, "d") + L(2, L(1, L(4, L(1, I(1, 2)) + L(1, I(1, 5)))))),
    "list_two_pages": b"\x01\x00" + L(1, L(1, "projects/p/instances/i/tables/a")) + L(1, L(1, "other/b")) + L(2, "next"),
    "sample": b"\x02\x00" + L(1, b"g") + I(2, 1 << 20),
    "sample_negative": b"\x02\x00" + L(1, b"g") + I(2, -5),
    "mutate_rows": b"\x03\x04" + L(1, I(1, 0) + L(2, I(1, 0))) + L(1, I(1, 3) + L(2, I(1, 14) + L(2, "unavailable"))),
    "mutate_rows_bad_index": b"\x03\x01" + L(1, I(1, 7) + L(2, I(1, 5))),
}
out = "tests/fuzz/corpus/fuzz_bt_responses"
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"{len(seeds)} seeds in {out}")
