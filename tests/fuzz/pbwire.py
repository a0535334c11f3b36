"""Protobuf wire format by hand, for the seed generators of the fuzz
targets (gen_*_seeds.py): varints, length-delimited fields, varint fields."""

def varint(n):
    out = b""
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out

def L(num, payload):
    """Field `num`, length-delimited (bytes, strings, messages)."""
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(num << 3 | 2) + varint(len(payload)) + payload

def I(num, v):
    """Field `num`, varint (ints, bools, enums)."""
    return varint(num << 3) + varint(v)
