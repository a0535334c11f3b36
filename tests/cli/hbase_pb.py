"""HBase REST's protobuf messages by hand, for serve_hbase_rest.sh (no
protoc on the machine; the wire format is varints and length-delimited
fields). Field numbers as HBase's REST .proto files give them.

  hbase_pb.py cellset ROW|FAM:QUAL|VALUE ...   a CellSet on stdout
  hbase_pb.py cells FILE                       a CellSet's cells, ROW|COLUMN|VALUE
  hbase_pb.py schema NAME FAMILY:VERSIONS ...  a TableSchema on stdout
  hbase_pb.py scanner BATCH FILTER-JSON        a Scanner on stdout
  hbase_pb.py dump FILE PATHS                  every field as PATH=VALUE; PATHS
                                               (comma-separated, e.g. 1,1.6) are
                                               the fields holding messages
"""
import os
import struct
import sys

# the encoder is the fuzz seeds' (varints, length-delimited and varint fields)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz"))
from pbwire import I, L, varint  # noqa: E402,F401


def fields(buf):
    """(number, value) of each field: an int, or bytes, or a double"""
    i = 0
    while i < len(buf):
        tag, i = read_varint(buf, i)
        num, wt = tag >> 3, tag & 7
        if wt == 0:
            v, i = read_varint(buf, i)
        elif wt == 2:
            n, i = read_varint(buf, i)
            v, i = buf[i:i + n], i + n
        elif wt == 1:
            v, i = struct.unpack("<d", buf[i:i + 8])[0], i + 8
        else:
            raise ValueError("wire type %d at %d" % (wt, i))
        yield num, v


def read_varint(buf, i):
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def dump(buf, nested, path=""):
    for num, v in fields(buf):
        p = path + str(num)
        if p in nested:
            dump(v, nested, p + ".")
        else:
            print("%s=%s" % (p, v.decode("latin-1") if isinstance(v, bytes) else v))


def main(a):
    out = sys.stdout.buffer
    if a[0] == "cellset":
        rows = {}
        for arg in a[1:]:
            k, c, v = arg.split("|", 2)
            rows.setdefault(k, b"")
            rows[k] += L(2, L(2, c) + L(4, v))
        out.write(b"".join(L(1, L(1, k) + cells) for k, cells in rows.items()))
    elif a[0] == "cells":
        for num, row in fields(open(a[1], "rb").read()):
            f = list(fields(row))
            key = [v for n, v in f if n == 1][0]
            for cell in (v for n, v in f if n == 2):
                c = dict(fields(cell))
                print(key.decode("latin-1"), c[2].decode("latin-1"), c.get(4, b"").decode("latin-1"),
                      sep="|")
    elif a[0] == "schema":
        cols = b"".join(L(3, L(1, f.split(":")[0]) + I(4, int(f.split(":")[1]))) for f in a[2:])
        out.write(L(1, a[1]) + cols)
    elif a[0] == "scanner":
        out.write(I(4, int(a[1])) + L(8, a[2]))
    elif a[0] == "dump":
        dump(open(a[1], "rb").read(), set(a[2].split(",")) if len(a) > 2 else set())
    else:
        sys.exit("unknown command " + a[0])


main(sys.argv[1:])
