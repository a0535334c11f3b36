# rowkey runtime for Python: written by `rowkey gen --lang python` next to the
# encoders it generates. DO NOT EDIT: generate again with the same rowkey.
#
# The generated module of each key design holds its record type and its key
# template as a table of parts; this module walks that table to encode and
# decode keys exactly as the rowkey C library does (docs/formats.md part A),
# refuses what it refuses, and computes the scan ranges its planner gives
# for fields bound by equality. Standard library only: md5, sha1 and sha256
# from hashlib, XXH3-64, MurmurHash3 and Phoenix's hash written out below.
#
# One file, longer than this project's usual 600 lines, on purpose: a design is
# then exactly two files in a service's tree. It is the port of src/key's
# schema_rules.c (widths and tails), codec.c, hash.c, encode.c, decode.c and
# plan.c's walk for fields bound by =, in sections in that order, each named
# after its C file so the two can be read side by side.
"""rowkey's key codec, driven by the part tables of generated modules."""
import hashlib
import struct
from typing import List, NamedTuple, Optional

FORMAT_VERSION = 1

# field types (rk_type)
U8, U16, U32, U64, I8, I16, I32, I64, F64, STR, BYTES = range(1, 12)
_WIDTH = {U8: 1, U16: 2, U32: 4, U64: 8, I8: 1, I16: 2, I32: 4, I64: 8, F64: 8}
_TYPE_NAME = {U8: "u8", U16: "u16", U32: "u32", U64: "u64", I8: "i8", I16: "i16",
              I32: "i32", I64: "i64", F64: "f64", STR: "str", BYTES: "bytes"}
# part kinds, encodings, value expressions, bucket forms, salts (schema_int.h)
P_LIT, P_VAL, P_HASH, P_HEX, P_SLICE, P_BUCKET, P_SALT, P_PSALT = range(1, 9)
E_TEXT, E_UINT, E_INT, E_F64, E_DEC, E_ESC, E_BYTES, E_OC, E_OB, E_PHX = range(1, 11)
V_FIELD, V_RTS, V_TBUCKET, V_REVERSE, V_REVLABELS, V_REVNUM = range(1, 7)
F_BIN, F_DEC, F_ALPHA = range(1, 4)
SALT_RANDOM, SALT_ROUNDROBIN = 1, 2
MD5, SHA1, SHA256, XXH3, MURMUR3, PHOENIX31 = range(1, 7)
_HASH_SIZE = {MD5: 16, SHA1: 20, SHA256: 32, XXH3: 8, MURMUR3: 4, PHOENIX31: 4}

SUB_MAX = 65536  # bytes a hash, hex or slice input may have
_M64 = (1 << 64) - 1
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


class RowKeyError(ValueError):
    """A value, key or length the rowkey library refuses; `kind` says which."""
    kind = ""


class InvalidValueError(RowKeyError):
    """A record the design cannot encode (a value out of range, missing, ...)."""
    kind = "invalid"


class KeyTooLongError(RowKeyError):
    """The key would be longer than the design's max_key_len."""
    kind = "toolong"


class CorruptKeyError(RowKeyError):
    """Bytes that are not a key of the design."""
    kind = "corrupt"


class KeyRange(NamedTuple):
    """Rows start <= key < stop (stop None: to the end); bucket -1 if none."""
    start: bytes
    stop: Optional[bytes]
    bucket: int


# ---- parts of a key template ----

class Part:
    __slots__ = ("kind", "desc", "lit", "enc", "width", "vop", "field", "varg", "vmax", "sub",
                 "alg", "upper", "sa", "sb", "n", "form", "alpha", "salt", "vtype", "fixed",
                 "tail_fixed", "next_is_lit", "last", "invert", "sepcheck")

    def __init__(self, kind):
        self.kind = kind
        self.desc = False
        self.lit = b""
        self.enc = self.width = self.vop = self.field = self.varg = self.vmax = 0
        self.sub = ()
        self.alg = self.upper = self.sa = self.sb = self.n = self.form = self.salt = 0
        self.alpha = b""
        self.vtype = 0
        self.fixed = self.tail_fixed = -1
        self.next_is_lit = self.last = self.invert = self.sepcheck = False


def lit(b):
    p = Part(P_LIT)
    p.lit = b
    return p


def val(enc, width, vop, field, varg, vmax, desc):
    p = Part(P_VAL)
    p.enc, p.width, p.vop, p.field, p.varg, p.vmax, p.desc = enc, width, vop, field, varg, vmax, desc
    return p


def hash_(alg, *sub):
    p = Part(P_HASH)
    p.alg, p.sub = alg, sub
    return p


def hex_(upper, *sub):
    p = Part(P_HEX)
    p.upper, p.sub = upper, sub
    return p


def slice_(sa, sb, sub):
    p = Part(P_SLICE)
    p.sa, p.sb, p.sub = sa, sb, (sub,)
    return p


def bucket(n, form, alpha, h):
    p = Part(P_BUCKET)
    p.n, p.form, p.alpha, p.sub = n, form, alpha or b"", (h,)
    return p


def salt(kind, n, form, alpha):
    p = Part(P_SALT)
    p.salt, p.n, p.form, p.alpha = kind, n, form, alpha or b""
    return p


def psalt(n):
    p = Part(P_PSALT)
    p.n = n
    return p


def _used(parts):
    m = 0
    for p in parts:
        if p.kind == P_VAL:
            m |= 1 << p.field
        m |= _used(p.sub)
    return m


class Template:
    """A key design: field types and names, the parts, the length limit."""

    def __init__(self, max_key_len, types, names, parts):
        self.max_key_len, self.types, self.names, self.parts = max_key_len, types, names, parts
        self.arena = max(max_key_len, SUB_MAX)
        self._derive(parts, 0)
        self.point_get = _used(parts)
        self.decodable = 0
        self.buckets = 1
        for p in parts:
            if p.kind == P_VAL and p.vop != V_TBUCKET:
                self.decodable |= 1 << p.field
            if p.kind in (P_BUCKET, P_SALT, P_PSALT):
                self.buckets = p.n

    def _derive(self, parts, depth):
        """Widths and tails as the C parser derives them (schema_rules.c)."""
        for p in parts:
            self._derive(p.sub, depth + 1)
            if p.kind == P_VAL:
                ft = self.types[p.field]
                p.vtype = U64 if p.vop == V_RTS else STR if p.vop in (V_REVERSE, V_REVLABELS, V_REVNUM) else ft
            sub = 0
            for q in p.sub:
                sub = -1 if sub < 0 or q.fixed < 0 else sub + q.fixed
            if p.kind == P_LIT:
                p.fixed = len(p.lit)
            elif p.kind == P_VAL:
                p.fixed = {E_UINT: p.width, E_INT: p.width, E_F64: 8, E_DEC: p.width,
                           E_OB: p.width + 1, E_PHX: p.width or -1}.get(p.enc, -1)
                if p.enc == E_TEXT and p.vop == V_REVNUM:
                    p.fixed = p.varg
            elif p.kind == P_HASH:
                p.fixed = _HASH_SIZE[p.alg]
            elif p.kind == P_HEX:
                p.fixed = 2 * sub
            elif p.kind == P_SLICE:
                p.fixed = p.sb - p.sa
            elif p.kind in (P_BUCKET, P_SALT):
                p.fixed = len(str(p.n - 1)) if p.form == F_DEC else 1
            else:
                p.fixed = 1
        tail = 0
        for k in range(len(parts) - 1, -1, -1):
            p = parts[k]
            p.tail_fixed = tail
            p.last = k == len(parts) - 1
            p.next_is_lit = k + 1 < len(parts) and parts[k + 1].kind == P_LIT
            tail = -1 if tail < 0 or p.fixed < 0 else tail + p.fixed
            if p.kind == P_VAL:
                p.invert = p.desc and not (p.enc == E_PHX and p.vtype in (STR, BYTES))
                p.sepcheck = depth == 0 and p.enc == E_TEXT and p.fixed < 0 and p.next_is_lit


# ---- field codecs (codec.c) ----

def _too_long(cap):
    return KeyTooLongError("key is longer than its limit of %d bytes" % cap)


def _put(w, cap, b):
    if len(b) > cap - len(w):
        raise _too_long(cap)
    w += b


def f64_to_bits(d):
    if d != d:
        b = 0x7FF8000000000000
    else:
        b = struct.unpack(">Q", struct.pack(">d", d))[0]
    return (~b & _M64) if b >> 63 else b ^ (1 << 63)


def f64_from_bits(b):
    b = b ^ (1 << 63) if b >> 63 else ~b & _M64
    return struct.unpack(">d", struct.pack(">Q", b))[0]


def text_f64(d):
    """C's printf %.17g, every NaN "nan"."""
    return b"nan" if d != d else b"%.17g" % d


def _uint(v, width):
    return v.to_bytes(width, "big")


def _int(v, width):
    return ((v & ((1 << (8 * width)) - 1)) ^ (1 << (8 * width - 1))).to_bytes(width, "big")


def _get_uint(b, mask):
    return int.from_bytes(bytes(x ^ mask for x in b), "big")


def _get_int(b, mask):
    w = len(b)
    u = _get_uint(b, mask) ^ (1 << (8 * w - 1))
    return u - (1 << (8 * w)) if u >> (8 * w - 1) else u


def _put_dec(v, width):
    s = b"%d" % v
    if len(s) > width:
        raise InvalidValueError("value %d does not fit in %d decimal digits" % (v, width))
    return s.rjust(width, b"0")


def _get_dec(b, mask):
    v = 0
    for i, x in enumerate(b):
        c = x ^ mask
        if c < 0x30 or c > 0x39:
            raise CorruptKeyError("expected a decimal digit at offset %d, found 0x%02x" % (i, c))
        v = v * 10 + c - 0x30
        if v > _M64:
            raise CorruptKeyError("decimal number overflows 64 bits")
    return v


def _esc(s):
    return s.replace(b"\x00", b"\x00\xff") + b"\x00\x01"


def _oc_str(s):
    return bytes(_oc_bytes(s)) + b"\x00\x01"


def _oc_bytes(s):
    for x in s:
        yield x
        if x == 0x00:
            yield 0xFF
        elif x == 0xFF:
            yield 0x00


def _get_escaped(b, mask, esc_ff):
    """The escaped or ordered-code string at b: (value, bytes used)."""
    out = bytearray()
    n, i = len(b), 0
    while i < n:
        c = b[i] ^ mask
        if c == 0x00 or (esc_ff and c == 0xFF):
            if i + 1 >= n:
                raise CorruptKeyError("string truncated after escape byte at offset %d" % i)
            d = b[i + 1] ^ mask
            if c == 0x00 and d == 0x01:
                return bytes(out), i + 2
            if (c == 0x00 and d != 0xFF) or (c == 0xFF and d != 0x00):
                raise CorruptKeyError("bad escape 0x%02x 0x%02x at offset %d" % (c, d, i))
            out.append(c)
            i += 2
            continue
        out.append(c)
        i += 1
    raise CorruptKeyError("string has no terminator (00 01) within %d bytes" % n)


def _oc_uint(v):
    n = (v.bit_length() + 7) // 8
    return bytes([n]) + v.to_bytes(n, "big")


def _get_oc_uint(b, mask):
    if len(b) < 1:
        raise CorruptKeyError("ordered-code number truncated: no length byte")
    n = b[0] ^ mask
    if n > 8:
        raise CorruptKeyError("ordered-code number length %d is over 8" % n)
    if n + 1 > len(b):
        raise CorruptKeyError("ordered-code number truncated")
    if n > 0 and b[1] ^ mask == 0:
        raise CorruptKeyError("ordered-code number has a leading zero byte")
    return _get_uint(b[1:n + 1], mask), n + 1


_OC_HEADER = ((0, 0), (0x80, 0), (0xC0, 0), (0xE0, 0), (0xF0, 0), (0xF8, 0), (0xFC, 0), (0xFE, 0),
              (0xFF, 0), (0xFF, 0x80), (0xFF, 0xC0))


def _oc_signed_len(x):
    return x.bit_length() // 7 + 1


def _oc_int(v):
    x = ~v & _M64 if v < 0 else v
    n = _oc_signed_len(x)
    sign = 0xFF if v < 0 else 0x00
    buf = bytearray([sign, sign]) + bytearray((v & _M64).to_bytes(8, "big"))
    begin = 10 - n
    buf[begin] ^= _OC_HEADER[n][0]
    if n >= 2:
        buf[begin + 1] ^= _OC_HEADER[n][1]
    return bytes(buf[begin:])


def _get_oc_int(b, mask):
    if len(b) < 1:
        raise CorruptKeyError("ordered-code signed number truncated")
    b0 = b[0] ^ mask
    sign = 0x00 if b0 & 0x80 else 0xFF
    hdr = ((b0 ^ sign) << 8) | ((b[1] ^ mask ^ sign) if len(b) > 1 else 0)
    n = 0
    while n < 11 and hdr & (0x8000 >> n):
        n += 1
    if n < 1 or n > 10:
        raise CorruptKeyError("ordered-code signed number has a bad header 0x%02x" % b0)
    if n > len(b):
        raise CorruptKeyError("ordered-code signed number truncated")
    buf = bytearray([sign] * 10)
    for i in range(n):
        buf[10 - n + i] = b[i] ^ mask
    buf[10 - n] ^= _OC_HEADER[n][0]
    if n >= 2:
        buf[10 - n + 1] ^= _OC_HEADER[n][1]
    if buf[0] != sign or buf[1] != sign:
        raise CorruptKeyError("ordered-code signed number out of 64-bit range")
    u = int.from_bytes(bytes(buf[2:]), "big")
    v = u - (1 << 64) if u >> 63 else u
    if (v < 0) != (sign == 0xFF) or _oc_signed_len(~u & _M64 if v < 0 else u) != n:
        raise CorruptKeyError("ordered-code signed number is not in canonical form")
    return v, n


_OB_HEADER = {1: 0x29, 2: 0x2A, 4: 0x2B, 8: 0x2C}


def _get_f64(b, mask):
    u = _get_uint(b, mask)
    d = f64_from_bits(u)
    if f64_to_bits(d) != u:
        raise CorruptKeyError("a NaN other than the one f64 keys hold")
    return d


def _put_phx_str(s, desc, last):
    if 0 in s:
        raise InvalidValueError("a Phoenix VARCHAR key field cannot contain a 0x00 byte")
    if desc:
        return bytes(x ^ 0xFF for x in s) + b"\xff"
    return s if last else s + b"\x00"


def _get_phx_str(b, desc):
    sep = 0xFF if desc else 0x00
    i = b.find(bytes([sep]))
    if i < 0:
        if desc:
            raise CorruptKeyError("descending Phoenix VARCHAR has no 0xff separator")
        i = len(b)
        used = i
    else:
        used = i + 1
    v = b[:i]
    return (bytes(x ^ 0xFF for x in v) if desc else bytes(v)), used


# ---- hashes (hash.c) ----

_P32_1, _P32_2, _P32_3 = 0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D
_P64_1, _P64_2, _P64_3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_P64_4, _P64_5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5
_KSECRET = bytes.fromhex(
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
    "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
    "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e")


def _le64(b, i):
    return int.from_bytes(b[i:i + 8], "little")


def _le32(b, i):
    return int.from_bytes(b[i:i + 4], "little")


def _fold64(a, b):
    p = a * b
    return (p ^ (p >> 64)) & _M64


def _xxh64_avalanche(h):
    h ^= h >> 33
    h = h * _P64_2 & _M64
    h ^= h >> 29
    h = h * _P64_3 & _M64
    return h ^ (h >> 32)


def _xxh3_avalanche(h):
    h ^= h >> 37
    h = h * 0x165667919E3779F9 & _M64
    return h ^ (h >> 32)


def _mix16(b, i, s):
    return _fold64(_le64(b, i) ^ _le64(_KSECRET, s), _le64(b, i + 8) ^ _le64(_KSECRET, s + 8))


def xxh3_64(b):
    """XXH3_64bits(b), seed 0, the default secret (xxHash 0.8)."""
    n = len(b)
    s = _KSECRET
    if n == 0:
        return _xxh64_avalanche(_le64(s, 56) ^ _le64(s, 64))
    if n <= 3:
        combined = (b[0] << 16) | (b[n >> 1] << 24) | b[n - 1] | (n << 8)
        return _xxh64_avalanche(combined ^ (_le32(s, 0) ^ _le32(s, 4)))
    if n <= 8:
        x = (_le32(b, n - 4) + (_le32(b, 0) << 32)) ^ (_le64(s, 8) ^ _le64(s, 16))
        x ^= ((x << 49 | x >> 15) & _M64) ^ ((x << 24 | x >> 40) & _M64)
        x = x * 0x9FB21C651E98DF25 & _M64
        x ^= (x >> 35) + n
        x = x * 0x9FB21C651E98DF25 & _M64
        return x ^ (x >> 28)
    if n <= 16:
        lo = _le64(b, 0) ^ (_le64(s, 24) ^ _le64(s, 32))
        hi = _le64(b, n - 8) ^ (_le64(s, 40) ^ _le64(s, 48))
        swapped = int.from_bytes(lo.to_bytes(8, "little"), "big")
        return _xxh3_avalanche((n + swapped + hi + _fold64(lo, hi)) & _M64)
    if n <= 128:
        acc = n * _P64_1 & _M64
        if n > 32:
            if n > 64:
                if n > 96:
                    acc += _mix16(b, 48, 96) + _mix16(b, n - 64, 112)
                acc += _mix16(b, 32, 64) + _mix16(b, n - 48, 80)
            acc += _mix16(b, 16, 32) + _mix16(b, n - 32, 48)
        acc += _mix16(b, 0, 0) + _mix16(b, n - 16, 16)
        return _xxh3_avalanche(acc & _M64)
    if n <= 240:
        acc = n * _P64_1
        for i in range(8):
            acc += _mix16(b, 16 * i, 16 * i)
        acc = _xxh3_avalanche(acc & _M64)
        for i in range(8, n // 16):
            acc += _mix16(b, 16 * i, 16 * (i - 8) + 3)
        acc += _mix16(b, n - 16, 136 - 17)
        return _xxh3_avalanche(acc & _M64)
    acc = [_P32_3, _P64_1, _P64_2, _P64_3, _P64_4, _P32_2, _P64_5, _P32_1]

    def stripe(off, so):
        for i in range(8):
            v = _le64(b, off + 8 * i)
            k = v ^ _le64(s, so + 8 * i)
            acc[i ^ 1] = (acc[i ^ 1] + v) & _M64
            acc[i] = (acc[i] + (k & 0xFFFFFFFF) * (k >> 32)) & _M64

    per_block = (len(s) - 64) // 8
    block = 64 * per_block
    blocks = (n - 1) // block
    for blk in range(blocks):
        for st in range(per_block):
            stripe(blk * block + 64 * st, 8 * st)
        for i in range(8):
            a = acc[i]
            a ^= a >> 47
            a ^= _le64(s, len(s) - 64 + 8 * i)
            acc[i] = a * _P32_1 & _M64
    for st in range(((n - 1) - block * blocks) // 64):
        stripe(blocks * block + 64 * st, 8 * st)
    stripe(n - 64, len(s) - 64 - 7)
    r = n * _P64_1
    for i in range(4):
        r += _fold64(acc[2 * i] ^ _le64(s, 11 + 16 * i), acc[2 * i + 1] ^ _le64(s, 11 + 16 * i + 8))
    return _xxh3_avalanche(r & _M64)


def murmur3_32(b, seed=0):
    """MurmurHash3_x86_32."""
    c1, c2, m = 0xCC9E2D51, 0x1B873593, 0xFFFFFFFF
    h = seed
    n = len(b)
    for i in range(0, n - n % 4, 4):
        k = int.from_bytes(b[i:i + 4], "little") * c1 & m
        k = ((k << 15) | (k >> 17)) & m
        h ^= k * c2 & m
        h = ((h << 13) | (h >> 19)) & m
        h = (h * 5 + 0xE6546B64) & m
    if n % 4:
        k = int.from_bytes(b[n - n % 4:], "little") * c1 & m
        k = ((k << 15) | (k >> 17)) & m
        h ^= k * c2 & m
    h ^= n
    h ^= h >> 16
    h = h * 0x85EBCA6B & m
    h ^= h >> 13
    h = h * 0xC2B2AE35 & m
    return h ^ (h >> 16)


def phoenix31(b):
    """Phoenix's hash: h = 31*h + (signed)byte from 1, as a Java int."""
    h = 1
    for x in b:
        h = (31 * h + (x - 256 if x >= 128 else x)) & 0xFFFFFFFF
    return h - (1 << 32) if h >> 31 else h


def _java_abs_mod(h, n):
    m = abs(h) % n  # Java's % truncates: |h % n| = |h| % n
    return m


def digest(alg, b):
    if alg == MD5:
        return hashlib.md5(b).digest()
    if alg == SHA1:
        return hashlib.sha1(b).digest()
    if alg == SHA256:
        return hashlib.sha256(b).digest()
    if alg == XXH3:
        return xxh3_64(b).to_bytes(8, "big")
    if alg == MURMUR3:
        return murmur3_32(b).to_bytes(4, "big")
    return (phoenix31(b) & 0xFFFFFFFF).to_bytes(4, "big")


def bucket_of(alg, b, n):
    """The bucket in [0, n) of input b under hash alg (formats.md A.7.1)."""
    if alg == XXH3:
        return xxh3_64(b) % n
    if alg == MURMUR3:
        return murmur3_32(b) % n
    if alg == PHOENIX31:
        return _java_abs_mod(phoenix31(b), n)
    return int.from_bytes(digest(alg, b)[:8], "big") % n


# ---- values (the generated record types convert to and from these lists) ----

def value_in(v, t, name):
    """A record's field value as the codec holds it; None stays None."""
    if v is None:
        return None
    if t == F64:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise InvalidValueError("field '%s' is f64: %r is not a number" % (name, v))
        return float(v)
    if t == STR:
        if not isinstance(v, str):
            raise InvalidValueError("field '%s' is str: %r is not a str" % (name, v))
        try:
            return v.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidValueError("field '%s': the str is not valid Unicode (a lone surrogate)" % name)
    if t == BYTES:
        if not isinstance(v, (bytes, bytearray, memoryview)):
            raise InvalidValueError("field '%s' is bytes: %r is not bytes" % (name, v))
        return bytes(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise InvalidValueError("field '%s' is %s: %r is not an int" % (name, _TYPE_NAME[t], v))
    w = _WIDTH[t] * 8
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t >= I8 else (0, (1 << w) - 1)
    if v < lo or v > hi:
        raise InvalidValueError("field '%s': %d is outside %s" % (name, v, _TYPE_NAME[t]))
    return v


def value_out(v, t, name):
    """A decoded value as the record holds it: str fields as text."""
    if v is None or t != STR:
        return v
    try:
        return v.decode("utf-8")
    except UnicodeDecodeError:
        raise CorruptKeyError("field '%s' decodes to bytes that are not UTF-8" % name)


# ---- encoding (encode.c) ----

def _reverse_labels(b):
    return b".".join(reversed(b.split(b".")))


class Codec:
    """Encodes and decodes the keys of one template. The random and round-robin
    salts draw from per-codec state, as the C library's rk_encoder does."""

    def __init__(self, template, seed=0):
        self.t = template
        self.rng = seed & _M64 or 0x2545F4914F6CDD1D
        self.rr = 0
        self.forced = -1

    # values and value expressions

    def _eval(self, p, vals):
        t = self.t
        name = t.names[p.field]
        v = vals[p.field]
        if v is None:
            raise InvalidValueError("field '%s' has no value and the key needs it" % name)
        ft = t.types[p.field]
        it = I64 if I8 <= ft <= I64 else U64 if ft <= U64 else ft
        if p.vop == V_FIELD:
            return it, v
        if p.vop == V_RTS:
            if v < 0:
                raise InvalidValueError("rts(%s): %d is negative; this encoding holds only values >= 0"
                                        % (name, v))
            if v > p.vmax:
                raise InvalidValueError("rts(%s): timestamp %d is over the maximum %d" % (name, v, p.vmax))
            return U64, p.vmax - v
        if p.vop == V_TBUCKET:
            b = v - v % p.varg
            if b < _I64_MIN:
                raise InvalidValueError("tbucket(%s, %d): %d has no bucket start within i64" % (name, p.varg, v))
            return it, b
        if p.vop in (V_REVERSE, V_REVLABELS):
            if len(v) > t.arena:
                raise KeyTooLongError("a value of %d bytes is over the encoder's %d-byte scratch"
                                      % (len(v), t.arena))
            return STR, v[::-1] if p.vop == V_REVERSE else _reverse_labels(v)
        if v < 0:
            raise InvalidValueError("reverse_num(%s): %d is negative" % (name, v))
        d = b"%0*d" % (p.varg, v)
        if len(d) > p.varg:
            raise InvalidValueError("reverse_num(%s, %d): %d has more than %d digits" % (name, p.varg, v, p.varg))
        return STR, d[::-1]

    @staticmethod
    def _int_checked(tv, width, signed, name):
        t, x = tv
        if signed:
            if x > _I64_MAX:
                raise InvalidValueError("%s: %d is over the signed 64-bit range" % (name, x))
            if width < 8 and not -(1 << (8 * width - 1)) <= x < 1 << (8 * width - 1):
                raise InvalidValueError("field '%s': %d does not fit in i%d" % (name, x, 8 * width))
            return _int(x, width)
        if x < 0:
            raise InvalidValueError("%s: %d is negative; this encoding holds only values >= 0" % (name, x))
        if width < 8 and x >> (8 * width):
            raise InvalidValueError("field '%s': %d does not fit in u%d" % (name, x, 8 * width))
        return _uint(x, width)

    def _encode_val(self, p, tv, name):
        t, x = tv
        e = p.enc
        if e == E_TEXT:
            if t in (STR, BYTES):
                return x
            return text_f64(x) if t == F64 else b"%d" % x
        if e == E_UINT:
            return self._int_checked(tv, p.width, False, name)
        if e == E_INT:
            return self._int_checked(tv, p.width, True, name)
        if e == E_F64:
            return _uint(f64_to_bits(x), 8)
        if e == E_DEC:
            if x < 0:
                raise InvalidValueError("%s: %d is negative; this encoding holds only values >= 0" % (name, x))
            try:
                return _put_dec(x, p.width)
            except InvalidValueError as err:
                raise InvalidValueError("field '%s': %s" % (name, err))
        if e == E_ESC:
            return _esc(x)
        if e == E_BYTES:
            return x
        if e == E_OC:
            if t in (STR, BYTES):
                return _oc_str(x)
            return _oc_int(x) if t == I64 else _oc_uint(x)
        if e == E_OB:
            if t == F64:
                return b"\x31" + _uint(f64_to_bits(x), 8)
            if x > _I64_MAX:
                raise InvalidValueError("%s: %d is over the signed 64-bit range" % (name, x))
            if p.width < 8 and not -(1 << (8 * p.width - 1)) <= x < 1 << (8 * p.width - 1):
                raise InvalidValueError("field '%s': %d does not fit in OrderedBytes int%d" % (name, x, 8 * p.width))
            return bytes([_OB_HEADER[p.width]]) + _int(x, p.width)
        if t in (STR, BYTES):  # E_PHX
            try:
                return _put_phx_str(x, p.desc, p.last)
            except InvalidValueError as err:
                raise InvalidValueError("field '%s': %s" % (name, err))
        return self._int_checked(tv, p.width, t == I64, name)

    def _bucket_bytes(self, p, b):
        if p.form == F_DEC:
            return _put_dec(b, p.fixed)
        if p.form == F_ALPHA:
            return p.alpha[b:b + 1]
        return bytes([b])

    def _template(self, w, cap, parts, lo, hi, vals, depth):
        """Writes parts[lo:hi] to w; parts[hi] may be read (a separator)."""
        psalt_at = psalt_n = -1
        for k in range(lo, hi):
            p = parts[k]
            start = len(w)
            if p.kind == P_LIT:
                _put(w, cap, p.lit)
            elif p.kind == P_VAL:
                name = self.t.names[p.field]
                _put(w, cap, self._encode_val(p, self._eval(p, vals), name))
                if p.invert:
                    w[start:] = bytes(x ^ 0xFF for x in w[start:])
                if p.sepcheck:
                    sep = parts[k + 1].lit
                    if (bytes(w[start:]) + sep).find(sep) < len(w) - start:
                        raise InvalidValueError("field '%s' value %r contains the separator %r that follows it"
                                                % (name, bytes(w[start:]), sep))
            elif p.kind in (P_HASH, P_HEX, P_SLICE):
                sw = bytearray()
                self._template(sw, SUB_MAX, p.sub, 0, len(p.sub), vals, depth + 1)
                if p.kind == P_HASH:
                    _put(w, cap, digest(p.alg, bytes(sw)))
                elif p.kind == P_HEX:
                    h = bytes(sw).hex()
                    _put(w, cap, (h.upper() if p.upper else h).encode())
                else:
                    if p.sb > len(sw):
                        raise InvalidValueError("slice [%d:%d] of a %d-byte value: the value is too short"
                                                % (p.sa, p.sb, len(sw)))
                    _put(w, cap, bytes(sw[p.sa:p.sb]))
            elif p.kind == P_BUCKET:
                h = p.sub[0]
                sw = bytearray()
                self._template(sw, SUB_MAX, h.sub, 0, len(h.sub), vals, depth + 1)
                _put(w, cap, self._bucket_bytes(p, bucket_of(h.alg, bytes(sw), p.n)))
            elif p.kind == P_SALT:
                if self.forced >= 0:
                    b = self.forced
                elif p.salt == SALT_RANDOM:
                    r = self.rng
                    r ^= r << 13 & _M64
                    r ^= r >> 7
                    r ^= r << 17 & _M64
                    self.rng = r
                    b = r % p.n
                else:
                    b = self.rr % p.n
                    self.rr = (self.rr + 1) & _M64
                _put(w, cap, self._bucket_bytes(p, b))
            else:
                psalt_at, psalt_n = len(w), p.n
                _put(w, cap, b"\x00")
        if psalt_at >= 0:
            w[psalt_at] = _java_abs_mod(phoenix31(bytes(w[psalt_at + 1:])), psalt_n)

    def encode(self, vals, forced_salt=-1):
        """The key of one record (a list of field values, None for absent)."""
        t = self.t
        w = bytearray()
        self.forced = forced_salt
        try:
            self._template(w, t.max_key_len, t.parts, 0, len(t.parts), vals, 0)
        finally:
            self.forced = -1
        return bytes(w)

    # ---- decoding (decode.c) ----

    def _read_bucket(self, p, b, off):
        if p.form == F_DEC:
            try:
                v = _get_dec(b[:p.fixed], 0)
            except CorruptKeyError:
                v = p.n
            if v >= p.n:
                raise CorruptKeyError("key byte %d: bucket number is not a decimal below the bucket count" % off)
            return v
        if p.form == F_ALPHA:
            i = p.alpha.find(b[:1])
            if i < 0:
                raise CorruptKeyError("key byte %d: bucket letter is not in the alphabet" % off)
            return i
        if b[0] >= p.n:
            raise CorruptKeyError("key byte %d: bucket byte is not below the bucket count" % off)
        return b[0]

    def _decode_val(self, p, b, off):
        """The value part p at the start of b: ((type, value), bytes used)."""
        mask = 0xFF if p.desc else 0x00
        vt = p.vtype
        is_str = vt in (STR, BYTES)
        n = len(b)
        if p.fixed >= 0 and p.fixed > n:
            raise CorruptKeyError("key byte %d: key ends inside a fixed-width field" % off)
        e = p.enc
        try:
            if e == E_TEXT:
                ln = p.fixed if p.fixed >= 0 else n
                text = bytes(b[:ln])
                if is_str:
                    return (STR, text), ln
                pt = I64 if I8 <= vt <= I64 else U64 if vt <= U64 else F64
                return (pt, _parse_text(text, pt)), ln
            if e == E_UINT:
                return (U64, _get_uint(b[:p.width], mask)), p.width
            if e == E_INT:
                return (I64, _get_int(b[:p.width], mask)), p.width
            if e == E_F64:
                return (F64, _get_f64(b[:8], mask)), 8
            if e == E_DEC:
                return (U64, _get_dec(b[:p.width], mask)), p.width
            if e in (E_ESC, E_OC):
                if is_str:
                    v, used = _get_escaped(b, mask, e == E_OC)
                    return (STR, v), used
                if I8 <= vt <= I64:
                    v, used = _get_oc_int(b, mask)
                    return (I64, v), used
                v, used = _get_oc_uint(b, mask)
                return (U64, v), used
            if e == E_BYTES:
                return (BYTES, bytes(b)), n
            if e == E_OB:
                if n < p.width + 1:
                    raise CorruptKeyError("OrderedBytes value truncated")
                hdr = b[0] ^ mask
                if vt == F64:
                    if hdr != 0x31:
                        raise CorruptKeyError("OrderedBytes float64 header 0x%02x, expected 0x31" % hdr)
                    return (F64, _get_f64(b[1:9], mask)), 9
                if hdr != _OB_HEADER[p.width]:
                    raise CorruptKeyError("OrderedBytes int%d header 0x%02x" % (8 * p.width, hdr))
                return (I64, _get_int(b[1:p.width + 1], mask)), p.width + 1
            if is_str:  # E_PHX
                v, used = _get_phx_str(b, p.desc)
                return (STR, v), used
            if I8 <= vt <= I64:
                return (I64, _get_int(b[:p.width], mask)), p.width
            return (U64, _get_uint(b[:p.width], mask)), p.width
        except CorruptKeyError as err:
            raise CorruptKeyError("key byte %d: %s" % (off, err))

    def _to_field(self, ft, tv, off, name):
        t, x = tv
        if ft in (STR, BYTES, F64):
            return x
        w = _WIDTH[ft] * 8
        lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if ft >= I8 else (0, (1 << w) - 1)
        if not lo <= x <= hi:
            raise CorruptKeyError("key byte %d: field '%s' decodes to a value outside %s" % (off, name, _TYPE_NAME[ft]))
        return x

    def _invert(self, out, p, tv, off):
        t = self.t
        name, ft = t.names[p.field], t.types[p.field]
        vt, x = tv
        if p.vop == V_TBUCKET:
            if x % p.varg != 0:
                raise CorruptKeyError("key byte %d: time bucket is not a multiple of its width" % off)
            return
        if p.vop == V_RTS:
            if x < 0:
                raise CorruptKeyError("key byte %d: reverse timestamp is negative" % off)
            if x > p.vmax:
                raise CorruptKeyError("key byte %d: reverse timestamp is over its maximum" % off)
            x = p.vmax - x
        elif p.vop == V_REVERSE:
            x = x[::-1]
        elif p.vop == V_REVLABELS:
            x = _reverse_labels(x)
        elif p.vop == V_REVNUM:
            if len(x) >= 24:
                raise CorruptKeyError("key byte %d: reversed number too long" % off)
            try:
                x = _get_dec(x[::-1], 0)
            except CorruptKeyError:
                raise CorruptKeyError("key byte %d: reversed number has a non-digit" % off)
        fv = self._to_field(ft, (vt, x), off, name)
        old = out[p.field]
        if old is not None:
            same = f64_to_bits(old) == f64_to_bits(fv) if ft == F64 else old == fv
            if not same:
                raise CorruptKeyError("key byte %d: field '%s' decodes to two different values" % (off, name))
        out[p.field] = fv

    def decode(self, key):
        """The field values of a key (None for those it does not carry)."""
        t = self.t
        key = bytes(key)
        n = len(key)
        if n > t.max_key_len:
            raise CorruptKeyError("key of %d bytes is over the schema's max_key_len %d" % (n, t.max_key_len))
        out = [None] * len(t.types)
        off = [0] * len(t.parts)
        salt_read = -1
        pos = 0
        parts = t.parts
        for k, p in enumerate(parts):
            rem = n - pos
            off[k] = pos
            if p.fixed >= 0 and p.fixed > rem:
                raise CorruptKeyError("key byte %d: key ends early (part %d needs %d bytes, %d left)"
                                      % (pos, k + 1, p.fixed, rem))
            if p.kind == P_LIT:
                if key[pos:pos + len(p.lit)] != p.lit:
                    raise CorruptKeyError("key byte %d: expected the literal %r" % (pos, p.lit))
                pos += len(p.lit)
            elif p.kind in (P_SALT, P_BUCKET):
                v = self._read_bucket(p, key[pos:pos + p.fixed], pos)
                if p.kind == P_SALT:
                    salt_read = v
                pos += p.fixed
            elif p.kind == P_PSALT:
                if key[pos] != _java_abs_mod(phoenix31(key[pos + 1:]), p.n):
                    raise CorruptKeyError("key byte %d: the Phoenix salt byte is not the one the rest of the key gives"
                                          % pos)
                pos += 1
            elif p.kind in (P_HASH, P_HEX, P_SLICE):
                pos += p.fixed
            else:
                end = n
                if p.enc == E_TEXT and p.fixed < 0:
                    if p.next_is_lit:
                        at = key.find(parts[k + 1].lit, pos)
                        if at < 0:
                            raise CorruptKeyError("key byte %d: no separator %r after field '%s'"
                                                  % (pos, parts[k + 1].lit, t.names[p.field]))
                        end = at
                    elif p.tail_fixed > 0:
                        if p.tail_fixed > rem:
                            raise CorruptKeyError("key byte %d: key too short for its fixed-width tail" % pos)
                        end = n - p.tail_fixed
                tv, used = self._decode_val(p, key[pos:end], pos)
                self._invert(out, p, tv, pos)
                pos += used
        if pos != n:
            raise CorruptKeyError("key byte %d: %d unexpected bytes after the last part" % (pos, n - pos))
        have = 0
        for i, v in enumerate(out):
            if v is not None:
                have |= 1 << i
        if t.point_get & ~have:
            self._verify_parts(out, have, key, off)
            return out
        try:
            again = self.encode(out, salt_read)
        except RowKeyError as err:
            raise CorruptKeyError("key does not re-encode: %s" % err)
        if again != key:
            d = 0
            while d < n and d < len(again) and again[d] == key[d]:
                d += 1
            raise CorruptKeyError("key byte %d: the key does not match its design "
                                  "(a hash, bucket or salt prefix that its fields do not produce)" % d)
        return out

    def _verify_parts(self, out, have, key, off):
        parts = self.t.parts
        for k, p in enumerate(parts):
            if p.kind not in (P_HASH, P_HEX, P_SLICE, P_BUCKET) or _used((p,)) & ~have:
                continue
            w = bytearray()
            try:
                self._template(w, self.t.max_key_len, parts, k, k + 1, out, 0)
                ok = len(w) == p.fixed and bytes(w) == key[off[k]:off[k] + p.fixed]
            except RowKeyError:
                ok = False
            if not ok:
                raise CorruptKeyError("key byte %d: the key does not match its design "
                                      "(its prefix is not what its fields produce)" % off[k])

    def bucket(self, key):
        """The bucket a key was written to, or -1 when the design has none."""
        pos = 0
        n = len(key)
        for p in self.t.parts:
            if p.fixed < 0:
                return -1
            if p.fixed > n - pos:
                raise CorruptKeyError("key of %d bytes is shorter than its prefix" % n)
            if p.kind == P_PSALT:
                if key[pos] >= p.n:
                    raise CorruptKeyError("key byte %d: salt byte %d is not below %d" % (pos, key[pos], p.n))
                return key[pos]
            if p.kind in (P_SALT, P_BUCKET):
                return self._read_bucket(p, key[pos:pos + p.fixed], pos)
            pos += p.fixed
        return -1

    # ---- scan ranges (plan.c, for fields bound by equality) ----

    def prefix_ranges(self, vals, only=-1):
        """The rows whose fields equal every non-None value of vals, as the
        C planner reads them: one range per bucket when the bucket cannot be
        computed from those fields (only that of bucket `only` when it is not
        -1), or the keys themselves when every field the key needs is bound
        ([key, key 00))."""
        t = self.t
        bound = 0
        for i, v in enumerate(vals):
            if v is not None:
                bound |= 1 << i
        states = [(bytearray(), -1)]
        parts = t.parts
        k = 0
        whole = False
        while k < len(parts):
            p = parts[k]
            used = _used((p,))
            if p.kind == P_LIT:
                for st, _ in states:
                    _put(st, t.max_key_len, p.lit)
                k += 1
                continue
            if p.kind == P_PSALT and not t.point_get & ~bound:
                whole = True
                break
            if p.kind in (P_SALT, P_PSALT) or (p.kind == P_BUCKET and used & ~bound):
                bs = range(p.n) if only < 0 else range(only, only + 1) if only < p.n else ()
                states = [(st + self._bucket_bytes(p, b), b) for st, _ in states for b in bs]
                k += 1
                continue
            if used & ~bound:
                break
            for st, _ in states:
                self._template(st, t.max_key_len, parts, k, k + 1, vals, 0)
            k += 1
        if whole:
            key = self.encode(vals)
            return [KeyRange(key, key + b"\x00", self.bucket(key))]
        if k == len(parts):
            keys = sorted({bytes(st): b for st, b in states}.items())
            return [KeyRange(key, key + b"\x00", b) for key, b in keys]
        out = [KeyRange(bytes(st), _prefix_end(bytes(st)), b) for st, b in states]
        return sorted(out, key=lambda r: r.start)

    def bucket_range(self, b):
        """The rows of bucket b: the range of prefix_ranges with nothing bound."""
        for r in self.prefix_ranges([None] * len(self.t.types), b):
            if r.bucket == b:
                return r
        raise InvalidValueError("the design has no bucket %d at the start of its keys" % b)


def _prefix_end(p):
    """The smallest key above every key starting with p, or None."""
    p = p.rstrip(b"\xff")
    if not p:
        return None
    return p[:-1] + bytes([p[-1] + 1])


def _parse_text(b, t):
    """A number in text form, spelled exactly as the encoder writes it."""
    try:
        s = b.decode("ascii")
        if t == F64:
            v = float(s)
            ok = text_f64(v) == b
        else:
            v = int(s, 10)
            ok = (b"%d" % v) == b and (t == I64 and _I64_MIN <= v <= _I64_MAX or t == U64 and 0 <= v <= _M64)
    except (UnicodeDecodeError, ValueError):
        ok = False
    if not ok:
        raise CorruptKeyError("%r is not how the encoder writes a %s" % (b, "number" if t != F64 else "float"))
    return v
