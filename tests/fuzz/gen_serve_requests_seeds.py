#!/usr/bin/env python3
"""Writes seed inputs for fuzz_serve_requests: a method byte, then a request
message encoded by hand (protobuf wire format, the field numbers of
src/store/bigtable/proto): what the clients' requests (capture_serve_seeds.sh)
do not reach, refused fields, other instances, pages, GC rules. Run from the
repository root."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import I, L  # noqa: E402


T = "projects/p/instances/i/tables/t"
INST = "projects/p/instances/i"
DATA = ["ReadRows", "MutateRow", "MutateRows", "CheckAndMutateRow", "ReadModifyWriteRow", "SampleRowKeys", "PingAndWarm"]
ADMIN = ["CreateTable", "ListTables", "GetTable", "DeleteTable", "ModifyColumnFamilies", "DropRowRange"]

def method(name):
    return bytes([(DATA + ADMIN).index(name)])

set_cell = L(1, L(1, "cf") + L(2, b"q") + I(3, 5000) + L(4, b"value"))
del_col = L(2, L(1, "cf") + L(2, b"q") + L(3, I(1, 1000) + I(2, 9000)))
del_row = L(4, b"")
chain = L(1, L(1, L(5, "c.*")) + L(1, I(12, 1)))
seeds = {
    "readrows_all": method("ReadRows") + L(1, T),
    "readrows_ranges": method("ReadRows") + L(1, T) + L(2, L(1, b"b") + L(2, L(1, b"a") + L(3, b"m"))) + I(4, 5),
    "readrows_reversed_filter": method("ReadRows") + L(1, T) + L(3, chain) + I(7, 1),
    "mutaterow": method("MutateRow") + L(1, T) + L(2, b"row1") + L(3, set_cell) + L(3, del_col),
    "mutaterows": method("MutateRows") + L(1, T) + L(2, L(1, b"a") + L(2, set_cell)) + L(2, L(1, b"") + L(2, del_row)),
    "checkandmutate": method("CheckAndMutateRow") + L(1, T) + L(2, b"row1") + L(4, set_cell) + L(5, del_row) + L(6, L(9, b"val.*")),
    "rmw": method("ReadModifyWriteRow") + L(1, T) + L(2, b"ctr") + L(3, L(1, "cf") + L(2, b"n") + I(4, 3)) + L(3, L(1, "cf") + L(2, b"s") + L(3, b"xy")),
    "sample": method("SampleRowKeys") + L(1, T),
    "createtable": method("CreateTable") + L(1, INST) + L(2, "t2") + L(3, L(3, L(1, "cf") + L(2, L(1, I(1, 2))))) + L(4, L(1, b"k")),
    "listtables": method("ListTables") + L(1, INST) + I(2, 2),
    "gettable": method("GetTable") + L(1, T),
    "deletetable": method("DeleteTable") + L(1, "projects/p/instances/i/tables/t2"),
    "modifyfamilies": method("ModifyColumnFamilies") + L(1, T) + L(2, L(1, "nf") + L(2, L(1, I(1, 1)))) + L(2, L(1, "cf") + L(3, L(1, I(1, 5))) + L(6, L(1, "gc_rule"))),
    "droprowrange": method("DropRowRange") + L(1, T) + L(2, b"ro"),
    "droprowrange_all": method("DropRowRange") + L(1, T) + I(3, 1),
    "ping": method("PingAndWarm") + L(1, INST) + L(2, "default"),
    "ping_other": method("PingAndWarm") + L(1, "projects/p/instances/j"),
    "readrows_view": method("ReadRows") + L(1, T) + L(9, T + "/authorizedViews/v") + L(11, "mv"),
    "readrows_stats": method("ReadRows") + L(1, T) + I(6, 2),
    "mutaterow_aggregate": method("MutateRow") + L(1, T) + L(2, b"r") + L(3, L(5, L(1, "cf"))) + L(8, L(1, b"tok")),
    "mutaterows_idempotency": method("MutateRows") + L(1, T) + L(2, L(1, b"a") + L(2, set_cell) + L(3, L(1, b"tok"))),
    "other_instance_create": method("CreateTable") + L(1, "projects/p/instances/j") + L(2, "t") + L(3, L(3, L(1, "cf") + L(2, b""))),
    "other_instance_read": method("ReadRows") + L(1, "projects/p/instances/j/tables/t"),
    "listtables_page": method("ListTables") + L(1, INST) + L(3, "s") + I(4, 1),
    "createtable_options": method("CreateTable") + L(1, INST) + L(2, "t3") + L(3, I(9, 1) + L(8, b"x") + I(4, 1)),
    "gettable_replication": method("GetTable") + L(1, T) + I(2, 3),
    "gc_union_age": method("ModifyColumnFamilies") + L(1, T) + L(2, L(1, "cf") + L(3, L(1, L(4, L(1, I(1, 2)) + L(1, L(3, L(1, L(2, I(1, 86400))) + L(1, I(1, 1)))))))),
    "deletecolumn_range": method("MutateRow") + L(1, T) + L(2, b"row1") + L(3, set_cell) + L(3, del_col) + L(3, del_row) + L(3, set_cell),
}
out = "tests/fuzz/corpus/fuzz_serve_requests"
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"{len(seeds)} seeds in {out}")
