#!/usr/bin/env python3
"""Seeds for fuzz_ldb_log and fuzz_metrics: LevelDB write-ahead logs written
as LevelDB's log::Writer writes them (doc/log_format.md: 32 KiB blocks,
records fragmented across them, masked CRC-32C), holding write batches, a
few of them damaged or cut short; and metrics.tsv files. Run from the
repository root; writes tests/fuzz/corpus/fuzz_ldb_log and fuzz_metrics."""
import os
import struct

BLOCK = 32768


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def mask(c):
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def batch(seq, n, vlen):
    out = struct.pack("<QI", seq, n)
    for i in range(n):
        k = b"key%06d" % (seq + i)
        v = bytes((seq + i + j) & 0xFF for j in range(vlen))
        out += b"\x01" + bytes([len(k)]) + k
        # varint value length
        x = len(v)
        while x >= 0x80:
            out += bytes([(x & 0x7F) | 0x80])
            x >>= 7
        out += bytes([x]) + v
    return out


def log(records):
    out = bytearray()
    off = 0
    for rec in records:
        begin = True
        left = rec
        while True:
            room = BLOCK - off
            if room < 7:
                out += b"\0" * room
                off = 0
                room = BLOCK
            frag = left[: room - 7]
            left = left[len(frag):]
            end = not left
            t = 1 if begin and end else 2 if begin else 4 if end else 3
            out += struct.pack("<IHB", mask(crc32c(bytes([t]) + frag)), len(frag), t) + frag
            off += 7 + len(frag)
            begin = False
            if end:
                break
    return bytes(out)


def main():
    d = "tests/fuzz/corpus/fuzz_ldb_log"
    os.makedirs(d, exist_ok=True)
    small = log([batch(1 + 3 * i, 3, 20) for i in range(12)])
    big = log([batch(1, 2, 20), batch(3, 1, 40000), batch(4, 2, 20)])  # spans blocks
    seeds = {
        "small": small,
        "fragmented": big,
        "torn_tail": small[:-9],
        "flipped_middle": small[:200] + bytes([small[200] ^ 1]) + small[201:],
        "zero_hole": small[:150] + b"\0" * 100 + small[250:],
        "empty": b"",
    }
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    m = "tests/fuzz/corpus/fuzz_metrics"
    os.makedirs(m, exist_ok=True)
    head = "# rowkey metrics v1 bucket_ms=1000 servers=2\n"
    region = "region\t1\tt\t0\t\t-\nregion\t2\tt\t1\t6b\t-\n"
    rs = "".join("r\t%d\t%d\t%d\t%d\t%d\t%d\n" % (1 + i % 2, 1600000000000 + 1000 * i, i, 2 * i, 100 * i, 7)
                 for i in range(40))
    ss = "s\t0\t1600000000000\t5\t6\t7\t8\ns\t1\t1600000004000\t1\t0\t10\t0\t16000\n"
    with open(os.path.join(m, "plain"), "w") as f:
        f.write(head + region + rs + ss)
    with open(os.path.join(m, "damaged"), "w") as f:
        f.write(head + region + "r\t1\tx\t1\t2\t3\t4\nr\t1\t5\t1\t2\t3\nr\t1\t1000\t1\t2\t3\t4\t0\n" + rs[:50])


if __name__ == "__main__":
    main()
