package rowkey

// rowkey runtime for Go: written by `rowkey gen --lang go` next to the
// encoders it generates, in their package. DO NOT EDIT: generate again with
// the same rowkey.
//
// The generated file of each key design holds its record type and its key
// template as a table of parts; this file walks that table to encode and
// decode keys exactly as the rowkey C library does (docs/formats.md part A),
// refuses what it refuses, and computes the scan ranges its planner gives
// for fields bound by equality. Standard library only: md5, sha1 and sha256
// from crypto, XXH3-64, MurmurHash3 and Phoenix's hash written out below.
// Its names start with rk (or are the three errors and KeyRange) so that
// several designs share one copy in a package.
//
// One file, longer than this project's usual 600 lines, on purpose: a design is
// then exactly two files in a service's tree. It is the port of src/key's
// schema_rules.c (widths and tails), codec.c, hash.c, encode.c, decode.c and
// plan.c's walk for fields bound by =, in sections in that order, each named
// after its C file so the two can be read side by side.

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
)

const rkFormatVersion = 1

// The kinds of refusal, as the rowkey C library's error codes. Errors from a
// codec wrap one of them: test with errors.Is.
var (
	ErrInvalid = errors.New("invalid")  // a record the design cannot encode
	ErrTooLong = errors.New("too long") // the key would pass the design's max_key_len
	ErrCorrupt = errors.New("corrupt")  // bytes that are not a key of the design
)

// KeyRange is the rows Start <= key < Stop (Stop nil: to the end of the
// table); Bucket is the salt bucket it reads, or -1.
type KeyRange struct {
	Start  []byte
	Stop   []byte
	Bucket int
}

func rkErr(kind error, format string, args ...interface{}) error {
	return fmt.Errorf("%w: %s", kind, fmt.Sprintf(format, args...))
}

// field types, part kinds, encodings, value expressions, bucket forms,
// salts and hashes (the C library's schema_int.h and hash.h)
const (
	rkU8 = iota + 1
	rkU16
	rkU32
	rkU64
	rkI8
	rkI16
	rkI32
	rkI64
	rkF64
	rkStr
	rkBytes
)

const (
	rkPLit = iota + 1
	rkPVal
	rkPHash
	rkPHex
	rkPSlice
	rkPBucket
	rkPSalt
	rkPPsalt
)

const (
	rkEText = iota + 1
	rkEUint
	rkEInt
	rkEF64
	rkEDec
	rkEEsc
	rkEBytes
	rkEOc
	rkEOb
	rkEPhx
)

const (
	rkVField = iota + 1
	rkVRts
	rkVTbucket
	rkVReverse
	rkVRevlabels
	rkVRevnum
)

const (
	rkFBin = iota + 1
	rkFDec
	rkFAlpha
)

const (
	rkSaltRandom = iota + 1
	rkSaltRoundrobin
)

const (
	rkMD5 = iota + 1
	rkSHA1
	rkSHA256
	rkXXH3
	rkMurmur3
	rkPhoenix31
)

const rkSubMax = 65536 // bytes a hash, hex or slice input may have

var rkTypeNames = [...]string{"", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f64", "str", "bytes"}

func rkWidth(t int) int {
	switch t {
	case rkU8, rkI8:
		return 1
	case rkU16, rkI16:
		return 2
	case rkU32, rkI32:
		return 4
	}
	return 8
}

func rkSigned(t int) bool { return t >= rkI8 && t <= rkI64 }
func rkIsInt(t int) bool  { return t >= rkU8 && t <= rkI64 }
func rkIsStr(t int) bool  { return t == rkStr || t == rkBytes }

// ---- parts of a key template ----

type rkPart struct {
	kind, enc, width, vop, field int
	desc, upper                  bool
	lit, alpha                   []byte
	varg                         int64
	vmax                         uint64
	sub                          []*rkPart
	alg, sa, sb, n, form, salt   int
	vtype, fixed, tailFixed      int
	nextIsLit, last              bool
	invert, sepcheck             bool
}

func rkLit(b []byte) *rkPart { return &rkPart{kind: rkPLit, lit: b} }

func rkVal(enc, width, vop, field int, varg int64, vmax uint64, desc bool) *rkPart {
	return &rkPart{kind: rkPVal, enc: enc, width: width, vop: vop, field: field, varg: varg, vmax: vmax, desc: desc}
}

func rkHash(alg int, sub ...*rkPart) *rkPart { return &rkPart{kind: rkPHash, alg: alg, sub: sub} }

func rkHex(upper bool, sub ...*rkPart) *rkPart { return &rkPart{kind: rkPHex, upper: upper, sub: sub} }

func rkSlice(sa, sb int, sub *rkPart) *rkPart {
	return &rkPart{kind: rkPSlice, sa: sa, sb: sb, sub: []*rkPart{sub}}
}

func rkBucket(n, form int, alpha []byte, h *rkPart) *rkPart {
	return &rkPart{kind: rkPBucket, n: n, form: form, alpha: alpha, sub: []*rkPart{h}}
}

func rkSalt(kind, n, form int, alpha []byte) *rkPart {
	return &rkPart{kind: rkPSalt, salt: kind, n: n, form: form, alpha: alpha}
}

func rkPsalt(n int) *rkPart { return &rkPart{kind: rkPPsalt, n: n} }

func rkUsed(parts []*rkPart) uint64 {
	var m uint64
	for _, p := range parts {
		if p.kind == rkPVal {
			m |= 1 << uint(p.field)
		}
		m |= rkUsed(p.sub)
	}
	return m
}

// rkTemplate is a key design: field types and names, parts, length limit.
type rkTemplate struct {
	maxKeyLen, arena int
	types            []int
	names            []string
	parts            []*rkPart
	pointGet         uint64
}

func rkNewTemplate(maxKeyLen int, types []int, names []string, parts ...*rkPart) *rkTemplate {
	t := &rkTemplate{maxKeyLen: maxKeyLen, types: types, names: names, parts: parts, arena: maxKeyLen}
	if t.arena < rkSubMax {
		t.arena = rkSubMax
	}
	t.derive(parts, 0)
	t.pointGet = rkUsed(parts)
	return t
}

// derive sets widths and tails as the C parser does (schema_rules.c).
func (t *rkTemplate) derive(parts []*rkPart, depth int) {
	for _, p := range parts {
		t.derive(p.sub, depth+1)
		if p.kind == rkPVal {
			switch p.vop {
			case rkVRts:
				p.vtype = rkU64
			case rkVReverse, rkVRevlabels, rkVRevnum:
				p.vtype = rkStr
			default:
				p.vtype = t.types[p.field]
			}
		}
		sub := 0
		for _, q := range p.sub {
			if sub < 0 || q.fixed < 0 {
				sub = -1
			} else {
				sub += q.fixed
			}
		}
		switch p.kind {
		case rkPLit:
			p.fixed = len(p.lit)
		case rkPVal:
			switch p.enc {
			case rkEUint, rkEInt, rkEDec:
				p.fixed = p.width
			case rkEF64:
				p.fixed = 8
			case rkEOb:
				p.fixed = p.width + 1
			case rkEPhx:
				p.fixed = p.width
				if p.width == 0 {
					p.fixed = -1
				}
			default:
				p.fixed = -1
			}
			if p.enc == rkEText && p.vop == rkVRevnum {
				p.fixed = int(p.varg)
			}
		case rkPHash:
			p.fixed = rkHashSize(p.alg)
		case rkPHex:
			p.fixed = 2 * sub
		case rkPSlice:
			p.fixed = p.sb - p.sa
		case rkPBucket, rkPSalt:
			p.fixed = 1
			if p.form == rkFDec {
				p.fixed = len(strconv.Itoa(p.n - 1))
			}
		default:
			p.fixed = 1
		}
	}
	tail := 0
	for k := len(parts) - 1; k >= 0; k-- {
		p := parts[k]
		p.tailFixed = tail
		p.last = k == len(parts)-1
		p.nextIsLit = k+1 < len(parts) && parts[k+1].kind == rkPLit
		if tail < 0 || p.fixed < 0 {
			tail = -1
		} else {
			tail += p.fixed
		}
		if p.kind == rkPVal {
			p.invert = p.desc && !(p.enc == rkEPhx && rkIsStr(p.vtype))
			p.sepcheck = depth == 0 && p.enc == rkEText && p.fixed < 0 && p.nextIsLit
		}
	}
}

// rkValue is one field's value: u for unsigned, i for signed integers, f,
// s for str and bytes. present false: the record does not give it.
type rkValue struct {
	present bool
	u       uint64
	i       int64
	f       float64
	s       []byte
}

// rkTval is a value expression's result: t is rkU64, rkI64, rkF64, rkStr or rkBytes.
type rkTval struct {
	t int
	u uint64
	i int64
	f float64
	s []byte
}

// ---- field codecs (codec.c) ----

type rkW struct {
	b   []byte
	cap int
}

func (w *rkW) put(b ...byte) error {
	if len(b) > w.cap-len(w.b) {
		return rkErr(ErrTooLong, "key is longer than its limit of %d bytes", w.cap)
	}
	w.b = append(w.b, b...)
	return nil
}

func rkF64ToBits(d float64) uint64 {
	b := math.Float64bits(d)
	if math.IsNaN(d) {
		b = 0x7ff8000000000000
	}
	if b>>63 != 0 {
		return ^b
	}
	return b ^ (1 << 63)
}

func rkF64FromBits(b uint64) float64 {
	if b>>63 != 0 {
		b ^= 1 << 63
	} else {
		b = ^b
	}
	return math.Float64frombits(b)
}

// rkTextF64 is C's printf %.17g, every NaN "nan".
func rkTextF64(d float64) []byte {
	switch {
	case math.IsNaN(d):
		return []byte("nan")
	case math.IsInf(d, 1):
		return []byte("inf")
	case math.IsInf(d, -1):
		return []byte("-inf")
	}
	// 17 significant digits, correctly rounded (ties to even, as glibc)
	e := strconv.FormatFloat(d, 'e', 16, 64)
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	digits := e[:1] + e[2:18]
	x, _ := strconv.Atoi(e[19:])
	var out []byte
	if neg {
		out = append(out, '-')
	}
	if x < -4 || x >= 17 {
		frac := bytes.TrimRight([]byte(digits[1:]), "0")
		out = append(out, digits[0])
		if len(frac) > 0 {
			out = append(out, '.')
			out = append(out, frac...)
		}
		sign := byte('+')
		if x < 0 {
			sign, x = '-', -x
		}
		out = append(out, 'e', sign)
		if x < 10 {
			out = append(out, '0')
		}
		return strconv.AppendInt(out, int64(x), 10)
	}
	var ip, fp string
	if x >= 0 {
		ip, fp = digits[:x+1], digits[x+1:]
	} else {
		ip = "0"
		fp = string(bytes.Repeat([]byte("0"), -x-1)) + digits
	}
	out = append(out, ip...)
	if f := bytes.TrimRight([]byte(fp), "0"); len(f) > 0 {
		out = append(out, '.')
		out = append(out, f...)
	}
	return out
}

func rkPutUint(v uint64, width int) []byte {
	b := make([]byte, width)
	for i := width - 1; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
	return b
}

func rkPutInt(v int64, width int) []byte {
	return rkPutUint(uint64(v)^(1<<uint(width*8-1)), width)
}

func rkGetUint(b []byte, mask byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c^mask)
	}
	return v
}

func rkGetInt(b []byte, mask byte) int64 {
	w := uint(len(b) * 8)
	u := rkGetUint(b, mask) ^ (1 << (w - 1))
	if w < 64 && (u>>(w-1))&1 != 0 {
		u |= ^uint64(0) << w
	}
	return int64(u)
}

func rkPutDec(v uint64, width int) ([]byte, error) {
	s := strconv.FormatUint(v, 10)
	if len(s) > width {
		return nil, rkErr(ErrInvalid, "value %d does not fit in %d decimal digits", v, width)
	}
	return append(bytes.Repeat([]byte("0"), width-len(s)), s...), nil
}

func rkGetDec(b []byte, mask byte) (uint64, error) {
	var v uint64
	for i, c := range b {
		c ^= mask
		if c < '0' || c > '9' {
			return 0, rkErr(ErrCorrupt, "expected a decimal digit at offset %d, found 0x%02x", i, c)
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, rkErr(ErrCorrupt, "decimal number overflows 64 bits")
		}
		v = v*10 + d
	}
	return v, nil
}

// rkEsc escapes a string: 00 -> 00 FF, and for ordered code (ff) FF -> FF 00;
// then the terminator 00 01.
func rkEsc(s []byte, ff bool) []byte {
	out := make([]byte, 0, len(s)+2)
	for _, c := range s {
		out = append(out, c)
		if c == 0 {
			out = append(out, 0xff)
		} else if ff && c == 0xff {
			out = append(out, 0)
		}
	}
	return append(out, 0, 1)
}

// rkGetEscaped reads an escaped (or, escFF, ordered-code) string: value, bytes used.
func rkGetEscaped(b []byte, mask byte, escFF bool) ([]byte, int, error) {
	out := []byte{}
	for i := 0; i < len(b); i++ {
		c := b[i] ^ mask
		if c == 0 || (escFF && c == 0xff) {
			if i+1 >= len(b) {
				return nil, 0, rkErr(ErrCorrupt, "string truncated after escape byte at offset %d", i)
			}
			d := b[i+1] ^ mask
			if c == 0 && d == 1 {
				return out, i + 2, nil
			}
			if (c == 0 && d != 0xff) || (c == 0xff && d != 0) {
				return nil, 0, rkErr(ErrCorrupt, "bad escape 0x%02x 0x%02x at offset %d", c, d, i)
			}
			out = append(out, c)
			i++
			continue
		}
		out = append(out, c)
	}
	return nil, 0, rkErr(ErrCorrupt, "string has no terminator (00 01) within %d bytes", len(b))
}

func rkOcUint(v uint64) []byte {
	n := (bits.Len64(v) + 7) / 8
	return append([]byte{byte(n)}, rkPutUint(v, 8)[8-n:]...)
}

func rkGetOcUint(b []byte, mask byte) (uint64, int, error) {
	if len(b) < 1 {
		return 0, 0, rkErr(ErrCorrupt, "ordered-code number truncated: no length byte")
	}
	n := int(b[0] ^ mask)
	if n > 8 {
		return 0, 0, rkErr(ErrCorrupt, "ordered-code number length %d is over 8", n)
	}
	if n+1 > len(b) {
		return 0, 0, rkErr(ErrCorrupt, "ordered-code number truncated")
	}
	if n > 0 && b[1]^mask == 0 {
		return 0, 0, rkErr(ErrCorrupt, "ordered-code number has a leading zero byte")
	}
	return rkGetUint(b[1:n+1], mask), n + 1, nil
}

var rkOcHeader = [11][2]byte{{0, 0}, {0x80, 0}, {0xc0, 0}, {0xe0, 0}, {0xf0, 0}, {0xf8, 0}, {0xfc, 0},
	{0xfe, 0}, {0xff, 0}, {0xff, 0x80}, {0xff, 0xc0}}

func rkOcSignedLen(x uint64) int { return bits.Len64(x)/7 + 1 }

func rkOcInt(v int64) []byte {
	x := uint64(v)
	var sign byte
	if v < 0 {
		x, sign = ^x, 0xff
	}
	n := rkOcSignedLen(x)
	buf := append([]byte{sign, sign}, rkPutUint(uint64(v), 8)...)
	begin := 10 - n
	buf[begin] ^= rkOcHeader[n][0]
	if n >= 2 {
		buf[begin+1] ^= rkOcHeader[n][1]
	}
	return buf[begin:]
}

func rkGetOcInt(b []byte, mask byte) (int64, int, error) {
	if len(b) < 1 {
		return 0, 0, rkErr(ErrCorrupt, "ordered-code signed number truncated")
	}
	b0 := b[0] ^ mask
	sign := byte(0xff)
	if b0&0x80 != 0 {
		sign = 0
	}
	hdr := uint16(b0^sign) << 8
	if len(b) > 1 {
		hdr |= uint16(b[1] ^ mask ^ sign)
	}
	n := 0
	for n < 11 && hdr&(0x8000>>uint(n)) != 0 {
		n++
	}
	if n < 1 || n > 10 {
		return 0, 0, rkErr(ErrCorrupt, "ordered-code signed number has a bad header 0x%02x", b0)
	}
	if n > len(b) {
		return 0, 0, rkErr(ErrCorrupt, "ordered-code signed number truncated")
	}
	buf := bytes.Repeat([]byte{sign}, 10)
	for i := 0; i < n; i++ {
		buf[10-n+i] = b[i] ^ mask
	}
	buf[10-n] ^= rkOcHeader[n][0]
	if n >= 2 {
		buf[10-n+1] ^= rkOcHeader[n][1]
	}
	if buf[0] != sign || buf[1] != sign {
		return 0, 0, rkErr(ErrCorrupt, "ordered-code signed number out of 64-bit range")
	}
	u := binary.BigEndian.Uint64(buf[2:])
	v := int64(u)
	x := u
	if v < 0 {
		x = ^u
	}
	if (v < 0) != (sign == 0xff) || rkOcSignedLen(x) != n {
		return 0, 0, rkErr(ErrCorrupt, "ordered-code signed number is not in canonical form")
	}
	return v, n, nil
}

func rkObHeader(width int) byte {
	switch width {
	case 1:
		return 0x29
	case 2:
		return 0x2a
	case 4:
		return 0x2b
	}
	return 0x2c
}

func rkGetF64(b []byte, mask byte) (float64, error) {
	u := rkGetUint(b, mask)
	d := rkF64FromBits(u)
	if rkF64ToBits(d) != u {
		return 0, rkErr(ErrCorrupt, "a NaN other than the one f64 keys hold")
	}
	return d, nil
}

func rkPhxStr(s []byte, desc, last bool) ([]byte, error) {
	if bytes.IndexByte(s, 0) >= 0 {
		return nil, rkErr(ErrInvalid, "a Phoenix VARCHAR key field cannot contain a 0x00 byte")
	}
	out := append([]byte{}, s...)
	if desc {
		for i := range out {
			out[i] ^= 0xff
		}
		return append(out, 0xff), nil
	}
	if last {
		return out, nil
	}
	return append(out, 0), nil
}

func rkGetPhxStr(b []byte, desc bool) ([]byte, int, error) {
	sep, mask := byte(0), byte(0)
	if desc {
		sep, mask = 0xff, 0xff
	}
	i := bytes.IndexByte(b, sep)
	used := i + 1
	if i < 0 {
		if desc {
			return nil, 0, rkErr(ErrCorrupt, "descending Phoenix VARCHAR has no 0xff separator")
		}
		i, used = len(b), len(b)
	}
	out := make([]byte, i)
	for k := 0; k < i; k++ {
		out[k] = b[k] ^ mask
	}
	return out, used, nil
}

// ---- hashes (hash.c) ----

const (
	rkP32a = 0x9E3779B1
	rkP32b = 0x85EBCA77
	rkP32c = 0xC2B2AE3D
	rkP64a = 0x9E3779B185EBCA87
	rkP64b = 0xC2B2AE3D27D4EB4F
	rkP64c = 0x165667B19E3779F9
	rkP64d = 0x85EBCA77C2B2AE63
	rkP64e = 0x27D4EB2F165667C5
)

var rkSecret, _ = hex.DecodeString("b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f" +
	"cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c" +
	"3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8" +
	"a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364" +
	"eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e" +
	"2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e")

func rkLE64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }
func rkLE32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }

func rkFold64(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func rkXXH64Avalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= rkP64b
	h ^= h >> 29
	h *= rkP64c
	return h ^ h>>32
}

func rkXXH3Avalanche(h uint64) uint64 {
	h ^= h >> 37
	h *= 0x165667919E3779F9
	return h ^ h>>32
}

func rkMix16(b []byte, i, s int) uint64 {
	return rkFold64(rkLE64(b, i)^rkLE64(rkSecret, s), rkLE64(b, i+8)^rkLE64(rkSecret, s+8))
}

// rkXXH3Hash is XXH3_64bits(b): seed 0, the default secret (xxHash 0.8).
func rkXXH3Hash(b []byte) uint64 {
	n := len(b)
	s := rkSecret
	switch {
	case n == 0:
		return rkXXH64Avalanche(rkLE64(s, 56) ^ rkLE64(s, 64))
	case n <= 3:
		combined := uint32(b[0])<<16 | uint32(b[n>>1])<<24 | uint32(b[n-1]) | uint32(n)<<8
		return rkXXH64Avalanche(uint64(combined) ^ uint64(rkLE32(s, 0)^rkLE32(s, 4)))
	case n <= 8:
		x := (uint64(rkLE32(b, n-4)) + uint64(rkLE32(b, 0))<<32) ^ (rkLE64(s, 8) ^ rkLE64(s, 16))
		x ^= bits.RotateLeft64(x, 49) ^ bits.RotateLeft64(x, 24)
		x *= 0x9FB21C651E98DF25
		x ^= (x >> 35) + uint64(n)
		x *= 0x9FB21C651E98DF25
		return x ^ x>>28
	case n <= 16:
		lo := rkLE64(b, 0) ^ (rkLE64(s, 24) ^ rkLE64(s, 32))
		hi := rkLE64(b, n-8) ^ (rkLE64(s, 40) ^ rkLE64(s, 48))
		return rkXXH3Avalanche(uint64(n) + bits.ReverseBytes64(lo) + hi + rkFold64(lo, hi))
	case n <= 128:
		acc := uint64(n) * rkP64a
		if n > 32 {
			if n > 64 {
				if n > 96 {
					acc += rkMix16(b, 48, 96) + rkMix16(b, n-64, 112)
				}
				acc += rkMix16(b, 32, 64) + rkMix16(b, n-48, 80)
			}
			acc += rkMix16(b, 16, 32) + rkMix16(b, n-32, 48)
		}
		acc += rkMix16(b, 0, 0) + rkMix16(b, n-16, 16)
		return rkXXH3Avalanche(acc)
	case n <= 240:
		acc := uint64(n) * rkP64a
		for i := 0; i < 8; i++ {
			acc += rkMix16(b, 16*i, 16*i)
		}
		acc = rkXXH3Avalanche(acc)
		for i := 8; i < n/16; i++ {
			acc += rkMix16(b, 16*i, 16*(i-8)+3)
		}
		acc += rkMix16(b, n-16, 136-17)
		return rkXXH3Avalanche(acc)
	}
	acc := [8]uint64{rkP32c, rkP64a, rkP64b, rkP64c, rkP64d, rkP32b, rkP64e, rkP32a}
	stripe := func(off, so int) {
		for i := 0; i < 8; i++ {
			v := rkLE64(b, off+8*i)
			k := v ^ rkLE64(s, so+8*i)
			acc[i^1] += v
			acc[i] += (k & 0xffffffff) * (k >> 32)
		}
	}
	perBlock := (len(s) - 64) / 8
	block := 64 * perBlock
	blocks := (n - 1) / block
	for blk := 0; blk < blocks; blk++ {
		for st := 0; st < perBlock; st++ {
			stripe(blk*block+64*st, 8*st)
		}
		for i := 0; i < 8; i++ {
			a := acc[i]
			a ^= a >> 47
			a ^= rkLE64(s, len(s)-64+8*i)
			acc[i] = a * rkP32a
		}
	}
	for st := 0; st < ((n-1)-block*blocks)/64; st++ {
		stripe(blocks*block+64*st, 8*st)
	}
	stripe(n-64, len(s)-64-7)
	r := uint64(n) * rkP64a
	for i := 0; i < 4; i++ {
		r += rkFold64(acc[2*i]^rkLE64(s, 11+16*i), acc[2*i+1]^rkLE64(s, 11+16*i+8))
	}
	return rkXXH3Avalanche(r)
}

// rkMurmur3Hash is MurmurHash3_x86_32 with seed 0.
func rkMurmur3Hash(b []byte) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	var h uint32
	n := len(b)
	for i := 0; i+4 <= n; i += 4 {
		k := binary.LittleEndian.Uint32(b[i:]) * c1
		k = bits.RotateLeft32(k, 15) * c2
		h ^= k
		h = bits.RotateLeft32(h, 13)*5 + 0xe6546b64
	}
	if t := n & 3; t != 0 {
		var k uint32
		for i := t - 1; i >= 0; i-- {
			k = k<<8 | uint32(b[n-t+i])
		}
		k *= c1
		k = bits.RotateLeft32(k, 15) * c2
		h ^= k
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	return h ^ h>>16
}

// rkPhoenix31Hash is Phoenix's hash: h = 31*h + (signed)byte from 1, a Java int.
func rkPhoenix31Hash(b []byte) int32 {
	h := int32(1)
	for _, c := range b {
		h = 31*h + int32(int8(c))
	}
	return h
}

// rkJavaAbsMod is Java's Math.abs(h % n): % truncates, so |h % n| < n.
func rkJavaAbsMod(h int32, n int) int {
	m := int64(h) % int64(n)
	if m < 0 {
		m = -m
	}
	return int(m)
}

func rkHashSize(alg int) int {
	switch alg {
	case rkMD5:
		return 16
	case rkSHA1:
		return 20
	case rkSHA256:
		return 32
	case rkXXH3:
		return 8
	}
	return 4
}

func rkDigest(alg int, b []byte) []byte {
	switch alg {
	case rkMD5:
		d := md5.Sum(b)
		return d[:]
	case rkSHA1:
		d := sha1.Sum(b)
		return d[:]
	case rkSHA256:
		d := sha256.Sum256(b)
		return d[:]
	case rkXXH3:
		return rkPutUint(rkXXH3Hash(b), 8)
	case rkMurmur3:
		return rkPutUint(uint64(rkMurmur3Hash(b)), 4)
	}
	return rkPutUint(uint64(uint32(rkPhoenix31Hash(b))), 4)
}

func rkBucketOf(alg int, b []byte, n int) int {
	switch alg {
	case rkXXH3:
		return int(rkXXH3Hash(b) % uint64(n))
	case rkMurmur3:
		return int(rkMurmur3Hash(b) % uint32(n))
	case rkPhoenix31:
		return rkJavaAbsMod(rkPhoenix31Hash(b), n)
	}
	return int(binary.BigEndian.Uint64(rkDigest(alg, b)[:8]) % uint64(n))
}

// ---- encoding (encode.c) ----

func rkReverse(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		out[len(b)-1-i] = c
	}
	return out
}

func rkReverseLabels(b []byte) []byte {
	labels := bytes.Split(b, []byte("."))
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	return bytes.Join(labels, []byte("."))
}

// rkCodec encodes and decodes the keys of one template. Random and
// round-robin salts draw from its state, as the C library's rk_encoder does.
type rkCodec struct {
	t       *rkTemplate
	rng, rr uint64
	forced  int
}

func rkNewCodec(t *rkTemplate, seed uint64) rkCodec {
	if seed == 0 {
		seed = 0x2545f4914f6cdd1d
	}
	return rkCodec{t: t, rng: seed, forced: -1}
}

// rkAsUnsigned is an integer value as unsigned; a negative one is
// ErrInvalid for `what` (encode.c's as_unsigned).
func rkAsUnsigned(v rkTval, what string) (uint64, error) {
	if v.t == rkI64 {
		if v.i < 0 {
			return 0, rkErr(ErrInvalid, "%s: %d is negative; this encoding holds only values >= 0", what, v.i)
		}
		return uint64(v.i), nil
	}
	return v.u, nil
}

// rkAsSigned is an integer value as signed; one past the int64 range is
// ErrInvalid for `what` (encode.c's as_signed).
func rkAsSigned(v rkTval, what string) (int64, error) {
	if v.t == rkU64 {
		if v.u > math.MaxInt64 {
			return 0, rkErr(ErrInvalid, "%s: %d is over the signed 64-bit range", what, v.u)
		}
		return int64(v.u), nil
	}
	return v.i, nil
}

func (c *rkCodec) eval(p *rkPart, vals []rkValue) (rkTval, error) {
	name := c.t.names[p.field]
	v := vals[p.field]
	if !v.present {
		return rkTval{}, rkErr(ErrInvalid, "field '%s' has no value and the key needs it", name)
	}
	ft := c.t.types[p.field]
	in := rkTval{t: ft, u: v.u, i: v.i, f: v.f, s: v.s}
	if rkSigned(ft) {
		in.t = rkI64
	} else if rkIsInt(ft) {
		in.t = rkU64
	}
	switch p.vop {
	case rkVField:
		return in, nil
	case rkVRts:
		ts, err := rkAsUnsigned(in, "rts("+name+")")
		if err != nil {
			return in, err
		}
		if ts > p.vmax {
			return in, rkErr(ErrInvalid, "rts(%s): timestamp %d is over the maximum %d", name, ts, p.vmax)
		}
		return rkTval{t: rkU64, u: p.vmax - ts}, nil
	case rkVTbucket:
		if in.t == rkI64 {
			m := in.i % p.varg
			if m < 0 {
				m += p.varg
			}
			if in.i < math.MinInt64+m {
				return in, rkErr(ErrInvalid, "tbucket(%s, %d): %d has no bucket start within i64", name, p.varg, in.i)
			}
			in.i -= m
		} else {
			in.u -= in.u % uint64(p.varg)
		}
		return in, nil
	case rkVReverse, rkVRevlabels:
		if len(in.s) > c.t.arena {
			return in, rkErr(ErrTooLong, "a value of %d bytes is over the encoder's %d-byte scratch", len(in.s), c.t.arena)
		}
		if p.vop == rkVReverse {
			return rkTval{t: rkStr, s: rkReverse(in.s)}, nil
		}
		return rkTval{t: rkStr, s: rkReverseLabels(in.s)}, nil
	}
	u, err := rkAsUnsigned(in, "reverse_num("+name+")")
	if err != nil {
		return in, err
	}
	d := strconv.FormatUint(u, 10)
	if len(d) > int(p.varg) {
		return in, rkErr(ErrInvalid, "reverse_num(%s, %d): %d has more than %d digits", name, p.varg, u, p.varg)
	}
	padded := append(bytes.Repeat([]byte("0"), int(p.varg)-len(d)), d...)
	return rkTval{t: rkStr, s: rkReverse(padded)}, nil
}

func rkIntChecked(v rkTval, width int, signed bool, name string) ([]byte, error) {
	if signed {
		x, err := rkAsSigned(v, name)
		if err != nil {
			return nil, err
		}
		if width < 8 && (x < -(1<<uint(width*8-1)) || x >= 1<<uint(width*8-1)) {
			return nil, rkErr(ErrInvalid, "field '%s': %d does not fit in i%d", name, x, width*8)
		}
		return rkPutInt(x, width), nil
	}
	x, err := rkAsUnsigned(v, name)
	if err != nil {
		return nil, err
	}
	if width < 8 && x>>uint(width*8) != 0 {
		return nil, rkErr(ErrInvalid, "field '%s': %d does not fit in u%d", name, x, width*8)
	}
	return rkPutUint(x, width), nil
}

func (c *rkCodec) encodeVal(p *rkPart, v rkTval, name string) ([]byte, error) {
	isStr := rkIsStr(v.t)
	switch p.enc {
	case rkEText:
		switch {
		case isStr:
			return v.s, nil
		case v.t == rkF64:
			return rkTextF64(v.f), nil
		case v.t == rkI64:
			return []byte(strconv.FormatInt(v.i, 10)), nil
		}
		return []byte(strconv.FormatUint(v.u, 10)), nil
	case rkEUint:
		return rkIntChecked(v, p.width, false, name)
	case rkEInt:
		return rkIntChecked(v, p.width, true, name)
	case rkEF64:
		return rkPutUint(rkF64ToBits(v.f), 8), nil
	case rkEDec:
		x, err := rkAsUnsigned(v, name)
		if err != nil {
			return nil, err
		}
		b, err := rkPutDec(x, p.width)
		if err != nil {
			return nil, fmt.Errorf("field '%s': %w", name, err)
		}
		return b, nil
	case rkEEsc:
		return rkEsc(v.s, false), nil
	case rkEBytes:
		return v.s, nil
	case rkEOc:
		if isStr {
			return rkEsc(v.s, true), nil
		}
		if v.t == rkI64 {
			return rkOcInt(v.i), nil
		}
		return rkOcUint(v.u), nil
	case rkEOb:
		if v.t == rkF64 {
			return append([]byte{0x31}, rkPutUint(rkF64ToBits(v.f), 8)...), nil
		}
		x, err := rkAsSigned(v, name)
		if err != nil {
			return nil, err
		}
		if p.width < 8 && (x < -(1<<uint(p.width*8-1)) || x >= 1<<uint(p.width*8-1)) {
			return nil, rkErr(ErrInvalid, "field '%s': %d does not fit in OrderedBytes int%d", name, x, p.width*8)
		}
		return append([]byte{rkObHeader(p.width)}, rkPutInt(x, p.width)...), nil
	}
	if isStr { // rkEPhx
		b, err := rkPhxStr(v.s, p.desc, p.last)
		if err != nil {
			return nil, fmt.Errorf("field '%s': %w", name, err)
		}
		return b, nil
	}
	return rkIntChecked(v, p.width, v.t == rkI64, name)
}

func (c *rkCodec) bucketBytes(p *rkPart, b int) []byte {
	switch p.form {
	case rkFDec:
		d, _ := rkPutDec(uint64(b), p.fixed)
		return d
	case rkFAlpha:
		return []byte{p.alpha[b]}
	}
	return []byte{byte(b)}
}

// encodeParts writes parts[lo:hi] to w; parts[hi] may be read (a separator).
func (c *rkCodec) encodeParts(w *rkW, parts []*rkPart, lo, hi int, vals []rkValue) error {
	psaltAt, psaltN := -1, 0
	for k := lo; k < hi; k++ {
		p := parts[k]
		start := len(w.b)
		var err error
		switch p.kind {
		case rkPLit:
			err = w.put(p.lit...)
		case rkPVal:
			name := c.t.names[p.field]
			v, e := c.eval(p, vals)
			if e != nil {
				return e
			}
			b, e := c.encodeVal(p, v, name)
			if e != nil {
				return e
			}
			if err = w.put(b...); err != nil {
				return err
			}
			if p.invert {
				for i := start; i < len(w.b); i++ {
					w.b[i] ^= 0xff
				}
			}
			if p.sepcheck {
				sep := parts[k+1].lit
				joined := append(append([]byte{}, w.b[start:]...), sep...)
				if bytes.Index(joined, sep) < len(w.b)-start {
					return rkErr(ErrInvalid, "field '%s' value %q contains the separator %q that follows it",
						name, w.b[start:], sep)
				}
			}
		case rkPHash, rkPHex, rkPSlice:
			sw := &rkW{cap: rkSubMax}
			if e := c.encodeParts(sw, p.sub, 0, len(p.sub), vals); e != nil {
				return e
			}
			switch p.kind {
			case rkPHash:
				err = w.put(rkDigest(p.alg, sw.b)...)
			case rkPHex:
				h := []byte(hex.EncodeToString(sw.b))
				if p.upper {
					h = bytes.ToUpper(h)
				}
				err = w.put(h...)
			default:
				if p.sb > len(sw.b) {
					return rkErr(ErrInvalid, "slice [%d:%d] of a %d-byte value: the value is too short", p.sa, p.sb, len(sw.b))
				}
				err = w.put(sw.b[p.sa:p.sb]...)
			}
		case rkPBucket:
			h := p.sub[0]
			sw := &rkW{cap: rkSubMax}
			if e := c.encodeParts(sw, h.sub, 0, len(h.sub), vals); e != nil {
				return e
			}
			err = w.put(c.bucketBytes(p, rkBucketOf(h.alg, sw.b, p.n))...)
		case rkPSalt:
			var b int
			switch {
			case c.forced >= 0:
				b = c.forced
			case p.salt == rkSaltRandom:
				c.rng ^= c.rng << 13
				c.rng ^= c.rng >> 7
				c.rng ^= c.rng << 17
				b = int(c.rng % uint64(p.n))
			default:
				b = int(c.rr % uint64(p.n))
				c.rr++
			}
			err = w.put(c.bucketBytes(p, b)...)
		default:
			psaltAt, psaltN = len(w.b), p.n
			err = w.put(0)
		}
		if err != nil {
			return err
		}
	}
	if psaltAt >= 0 {
		w.b[psaltAt] = byte(rkJavaAbsMod(rkPhoenix31Hash(w.b[psaltAt+1:]), psaltN))
	}
	return nil
}

func (c *rkCodec) encode(vals []rkValue, forced int) ([]byte, error) {
	w := &rkW{cap: c.t.maxKeyLen}
	c.forced = forced
	err := c.encodeParts(w, c.t.parts, 0, len(c.t.parts), vals)
	c.forced = -1
	if err != nil {
		return nil, err
	}
	return w.b, nil
}

// ---- decoding (decode.c) ----

func (c *rkCodec) readBucket(p *rkPart, b []byte, off int) (int, error) {
	switch p.form {
	case rkFDec:
		v, err := rkGetDec(b[:p.fixed], 0)
		if err != nil || v >= uint64(p.n) {
			return 0, rkErr(ErrCorrupt, "key byte %d: bucket number is not a decimal below the bucket count", off)
		}
		return int(v), nil
	case rkFAlpha:
		i := bytes.IndexByte(p.alpha, b[0])
		if i < 0 {
			return 0, rkErr(ErrCorrupt, "key byte %d: bucket letter is not in the alphabet", off)
		}
		return i, nil
	}
	if int(b[0]) >= p.n {
		return 0, rkErr(ErrCorrupt, "key byte %d: bucket byte is not below the bucket count", off)
	}
	return int(b[0]), nil
}

// rkParseText reads a number in text form spelled exactly as the encoder writes it.
func rkParseText(b []byte, t int) (rkTval, error) {
	s := string(b)
	v := rkTval{t: t}
	var err error
	var again string
	switch t {
	case rkI64:
		v.i, err = strconv.ParseInt(s, 10, 64)
		again = strconv.FormatInt(v.i, 10)
	case rkU64:
		v.u, err = strconv.ParseUint(s, 10, 64)
		again = strconv.FormatUint(v.u, 10)
	default:
		v.f, err = strconv.ParseFloat(s, 64)
		if s == "nan" || s == "inf" || s == "-inf" {
			err = nil
		}
		again = string(rkTextF64(v.f))
	}
	if err != nil || again != s {
		return v, rkErr(ErrCorrupt, "%q is not how the encoder writes a number", s)
	}
	return v, nil
}

// decodeVal reads value part p at the start of b: the value and the bytes used.
func (c *rkCodec) decodeVal(p *rkPart, b []byte, off int) (rkTval, int, error) {
	v, used, err := c.decodeValAt(p, b)
	if err != nil && !errors.Is(err, ErrCorrupt) {
		err = rkErr(ErrCorrupt, "%v", err)
	}
	if err != nil {
		return v, 0, fmt.Errorf("key byte %d: %w", off, err)
	}
	return v, used, nil
}

func (c *rkCodec) decodeValAt(p *rkPart, b []byte) (rkTval, int, error) {
	var mask byte
	if p.desc {
		mask = 0xff
	}
	vt := p.vtype
	n := len(b)
	if p.fixed >= 0 && p.fixed > n {
		return rkTval{}, 0, rkErr(ErrCorrupt, "key ends inside a fixed-width field")
	}
	switch p.enc {
	case rkEText:
		ln := n
		if p.fixed >= 0 {
			ln = p.fixed
		}
		if rkIsStr(vt) {
			return rkTval{t: rkStr, s: append([]byte{}, b[:ln]...)}, ln, nil
		}
		pt := rkF64
		if rkSigned(vt) {
			pt = rkI64
		} else if rkIsInt(vt) {
			pt = rkU64
		}
		v, err := rkParseText(b[:ln], pt)
		return v, ln, err
	case rkEUint:
		return rkTval{t: rkU64, u: rkGetUint(b[:p.width], mask)}, p.width, nil
	case rkEInt:
		return rkTval{t: rkI64, i: rkGetInt(b[:p.width], mask)}, p.width, nil
	case rkEF64:
		f, err := rkGetF64(b[:8], mask)
		return rkTval{t: rkF64, f: f}, 8, err
	case rkEDec:
		u, err := rkGetDec(b[:p.width], mask)
		return rkTval{t: rkU64, u: u}, p.width, err
	case rkEEsc, rkEOc:
		if rkIsStr(vt) {
			s, used, err := rkGetEscaped(b, mask, p.enc == rkEOc)
			return rkTval{t: rkStr, s: s}, used, err
		}
		if rkSigned(vt) {
			i, used, err := rkGetOcInt(b, mask)
			return rkTval{t: rkI64, i: i}, used, err
		}
		u, used, err := rkGetOcUint(b, mask)
		return rkTval{t: rkU64, u: u}, used, err
	case rkEBytes:
		return rkTval{t: rkBytes, s: append([]byte{}, b...)}, n, nil
	case rkEOb:
		if n < p.width+1 {
			return rkTval{}, 0, rkErr(ErrCorrupt, "OrderedBytes value truncated")
		}
		hdr := b[0] ^ mask
		if vt == rkF64 {
			if hdr != 0x31 {
				return rkTval{}, 0, rkErr(ErrCorrupt, "OrderedBytes float64 header 0x%02x, expected 0x31", hdr)
			}
			f, err := rkGetF64(b[1:9], mask)
			return rkTval{t: rkF64, f: f}, 9, err
		}
		if hdr != rkObHeader(p.width) {
			return rkTval{}, 0, rkErr(ErrCorrupt, "OrderedBytes int%d header 0x%02x", 8*p.width, hdr)
		}
		return rkTval{t: rkI64, i: rkGetInt(b[1:p.width+1], mask)}, p.width + 1, nil
	}
	if rkIsStr(vt) { // rkEPhx
		s, used, err := rkGetPhxStr(b, p.desc)
		return rkTval{t: rkStr, s: s}, used, err
	}
	if rkSigned(vt) {
		return rkTval{t: rkI64, i: rkGetInt(b[:p.width], mask)}, p.width, nil
	}
	return rkTval{t: rkU64, u: rkGetUint(b[:p.width], mask)}, p.width, nil
}

func (c *rkCodec) toField(ft int, v rkTval, off int, name string) (rkValue, error) {
	out := rkValue{present: true, f: v.f, s: v.s}
	if rkIsStr(ft) || ft == rkF64 {
		return out, nil
	}
	w := uint(rkWidth(ft) * 8)
	bad := rkErr(ErrCorrupt, "key byte %d: field '%s' decodes to a value outside %s", off, name, rkTypeNames[ft])
	if rkSigned(ft) {
		x := v.i
		if v.t == rkU64 {
			if v.u > math.MaxInt64 {
				return out, bad
			}
			x = int64(v.u)
		}
		if w < 64 && (x < -(1<<(w-1)) || x >= 1<<(w-1)) {
			return out, bad
		}
		out.i = x
		return out, nil
	}
	x := v.u
	if v.t == rkI64 {
		if v.i < 0 {
			return out, bad
		}
		x = uint64(v.i)
	}
	if w < 64 && x>>w != 0 {
		return out, bad
	}
	out.u = x
	return out, nil
}

func (c *rkCodec) invert(out []rkValue, p *rkPart, v rkTval, off int) error {
	name, ft := c.t.names[p.field], c.t.types[p.field]
	switch p.vop {
	case rkVTbucket:
		if (v.t == rkI64 && v.i%p.varg != 0) || (v.t == rkU64 && v.u%uint64(p.varg) != 0) {
			return rkErr(ErrCorrupt, "key byte %d: time bucket is not a multiple of its width", off)
		}
		return nil
	case rkVRts:
		r := v.u
		if v.t == rkI64 {
			if v.i < 0 {
				return rkErr(ErrCorrupt, "key byte %d: reverse timestamp is negative", off)
			}
			r = uint64(v.i)
		}
		if r > p.vmax {
			return rkErr(ErrCorrupt, "key byte %d: reverse timestamp is over its maximum", off)
		}
		v = rkTval{t: rkU64, u: p.vmax - r}
	case rkVReverse:
		v.s = rkReverse(v.s)
	case rkVRevlabels:
		v.s = rkReverseLabels(v.s)
	case rkVRevnum:
		if len(v.s) >= 24 {
			return rkErr(ErrCorrupt, "key byte %d: reversed number too long", off)
		}
		u, err := rkGetDec(rkReverse(v.s), 0)
		if err != nil {
			return rkErr(ErrCorrupt, "key byte %d: reversed number has a non-digit", off)
		}
		v = rkTval{t: rkU64, u: u}
	}
	fv, err := c.toField(ft, v, off, name)
	if err != nil {
		return err
	}
	if old := out[p.field]; old.present {
		same := old.u == fv.u && old.i == fv.i
		if rkIsStr(ft) {
			same = bytes.Equal(old.s, fv.s)
		} else if ft == rkF64 {
			same = rkF64ToBits(old.f) == rkF64ToBits(fv.f)
		}
		if !same {
			return rkErr(ErrCorrupt, "key byte %d: field '%s' decodes to two different values", off, name)
		}
	}
	out[p.field] = fv
	return nil
}

func (c *rkCodec) decode(key []byte) ([]rkValue, error) {
	t := c.t
	n := len(key)
	if n > t.maxKeyLen {
		return nil, rkErr(ErrCorrupt, "key of %d bytes is over the schema's max_key_len %d", n, t.maxKeyLen)
	}
	out := make([]rkValue, len(t.types))
	off := make([]int, len(t.parts))
	saltRead, pos := -1, 0
	for k, p := range t.parts {
		rem := n - pos
		off[k] = pos
		if p.fixed >= 0 && p.fixed > rem {
			return nil, rkErr(ErrCorrupt, "key byte %d: key ends early (part %d needs %d bytes, %d left)", pos, k+1, p.fixed, rem)
		}
		switch p.kind {
		case rkPLit:
			if !bytes.Equal(key[pos:pos+len(p.lit)], p.lit) {
				return nil, rkErr(ErrCorrupt, "key byte %d: expected the literal %q", pos, p.lit)
			}
			pos += len(p.lit)
		case rkPSalt, rkPBucket:
			v, err := c.readBucket(p, key[pos:pos+p.fixed], pos)
			if err != nil {
				return nil, err
			}
			if p.kind == rkPSalt {
				saltRead = v
			}
			pos += p.fixed
		case rkPPsalt:
			if int(key[pos]) != rkJavaAbsMod(rkPhoenix31Hash(key[pos+1:]), p.n) {
				return nil, rkErr(ErrCorrupt, "key byte %d: the Phoenix salt byte is not the one the rest of the key gives", pos)
			}
			pos++
		case rkPHash, rkPHex, rkPSlice:
			pos += p.fixed
		default:
			end := n
			if p.enc == rkEText && p.fixed < 0 {
				if p.nextIsLit {
					at := bytes.Index(key[pos:], t.parts[k+1].lit)
					if at < 0 {
						return nil, rkErr(ErrCorrupt, "key byte %d: no separator %q after field '%s'", pos, t.parts[k+1].lit, t.names[p.field])
					}
					end = pos + at
				} else if p.tailFixed > 0 {
					if p.tailFixed > rem {
						return nil, rkErr(ErrCorrupt, "key byte %d: key too short for its fixed-width tail", pos)
					}
					end = n - p.tailFixed
				}
			}
			v, used, err := c.decodeVal(p, key[pos:end], pos)
			if err != nil {
				return nil, err
			}
			if err := c.invert(out, p, v, pos); err != nil {
				return nil, err
			}
			pos += used
		}
	}
	if pos != n {
		return nil, rkErr(ErrCorrupt, "key byte %d: %d unexpected bytes after the last part", pos, n-pos)
	}
	var have uint64
	for i, v := range out {
		if v.present {
			have |= 1 << uint(i)
		}
	}
	if t.pointGet&^have != 0 {
		return out, c.verifyParts(out, have, key, off)
	}
	again, err := c.encode(out, saltRead)
	if err != nil {
		return nil, rkErr(ErrCorrupt, "key does not re-encode: %v", err)
	}
	if !bytes.Equal(again, key) {
		d := 0
		for d < n && d < len(again) && again[d] == key[d] {
			d++
		}
		return nil, rkErr(ErrCorrupt, "key byte %d: the key does not match its design (a hash, bucket or salt prefix that its fields do not produce)", d)
	}
	return out, nil
}

func (c *rkCodec) verifyParts(out []rkValue, have uint64, key []byte, off []int) error {
	for k, p := range c.t.parts {
		if (p.kind != rkPHash && p.kind != rkPHex && p.kind != rkPSlice && p.kind != rkPBucket) ||
			rkUsed([]*rkPart{p})&^have != 0 {
			continue
		}
		w := &rkW{cap: c.t.maxKeyLen}
		err := c.encodeParts(w, c.t.parts, k, k+1, out)
		if err != nil || len(w.b) != p.fixed || !bytes.Equal(w.b, key[off[k]:off[k]+p.fixed]) {
			return rkErr(ErrCorrupt, "key byte %d: the key does not match its design (its prefix is not what its fields produce)", off[k])
		}
	}
	return nil
}

func (c *rkCodec) bucket(key []byte) (int, error) {
	pos := 0
	for _, p := range c.t.parts {
		if p.fixed < 0 {
			return -1, nil
		}
		if p.fixed > len(key)-pos {
			return 0, rkErr(ErrCorrupt, "key of %d bytes is shorter than its prefix", len(key))
		}
		switch p.kind {
		case rkPPsalt:
			if int(key[pos]) >= p.n {
				return 0, rkErr(ErrCorrupt, "key byte %d: salt byte %d is not below %d", pos, key[pos], p.n)
			}
			return int(key[pos]), nil
		case rkPSalt, rkPBucket:
			return c.readBucket(p, key[pos:pos+p.fixed], pos)
		}
		pos += p.fixed
	}
	return -1, nil
}

// ---- scan ranges (plan.c, for fields bound by equality) ----

type rkState struct {
	b      []byte
	bucket int
}

// prefixRanges gives the rows whose fields equal every present value, as
// the C planner reads them: one range per bucket when the bucket cannot be
// computed from those fields (only that of bucket `only` when it is not
// -1), or the keys themselves when every field the key needs is bound
// ([key, key 00)).
func (c *rkCodec) prefixRanges(vals []rkValue, only int) ([]KeyRange, error) {
	t := c.t
	var bound uint64
	for i, v := range vals {
		if v.present {
			bound |= 1 << uint(i)
		}
	}
	states := []rkState{{bucket: -1}}
	k := 0
	for ; k < len(t.parts); k++ {
		p := t.parts[k]
		used := rkUsed([]*rkPart{p})
		if p.kind == rkPLit {
			for i := range states {
				w := &rkW{b: states[i].b, cap: t.maxKeyLen}
				if err := w.put(p.lit...); err != nil {
					return nil, err
				}
				states[i].b = w.b
			}
			continue
		}
		if p.kind == rkPPsalt && t.pointGet&^bound == 0 {
			key, err := c.encode(vals, -1)
			if err != nil {
				return nil, err
			}
			b, err := c.bucket(key)
			if err != nil {
				return nil, err
			}
			return []KeyRange{{Start: key, Stop: append(append([]byte{}, key...), 0), Bucket: b}}, nil
		}
		if p.kind == rkPSalt || p.kind == rkPPsalt || (p.kind == rkPBucket && used&^bound != 0) {
			var next []rkState
			for _, st := range states {
				for b := 0; b < p.n; b++ {
					if only < 0 || b == only {
						nb := append(append([]byte{}, st.b...), c.bucketBytes(p, b)...)
						next = append(next, rkState{b: nb, bucket: b})
					}
				}
			}
			states = next
			continue
		}
		if used&^bound != 0 {
			break
		}
		for i := range states {
			w := &rkW{b: states[i].b, cap: t.maxKeyLen}
			if err := c.encodeParts(w, t.parts, k, k+1, vals); err != nil {
				return nil, err
			}
			states[i].b = w.b
		}
	}
	out := make([]KeyRange, 0, len(states))
	for _, st := range states {
		r := KeyRange{Start: st.b, Bucket: st.bucket}
		if k == len(t.parts) {
			r.Stop = append(append([]byte{}, st.b...), 0)
		} else {
			r.Stop = rkPrefixEnd(st.b)
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return bytes.Compare(out[i].Start, out[j].Start) < 0 })
	return out, nil
}

func (c *rkCodec) bucketRange(b int) (KeyRange, error) {
	rs, err := c.prefixRanges(make([]rkValue, len(c.t.types)), b)
	if err != nil {
		return KeyRange{}, err
	}
	for _, r := range rs {
		if r.Bucket == b {
			return r, nil
		}
	}
	return KeyRange{}, rkErr(ErrInvalid, "the design has no bucket %d at the start of its keys", b)
}

// rkFieldMask gives the bits of the named fields; an unknown name is ErrInvalid.
func rkFieldMask(t *rkTemplate, fields []string) (uint64, error) {
	var m uint64
	for _, f := range fields {
		i := -1
		for k, n := range t.names {
			if n == f {
				i = k
			}
		}
		if i < 0 {
			return 0, rkErr(ErrInvalid, "the design has no field '%s'", f)
		}
		m |= 1 << uint(i)
	}
	return m, nil
}

// rkPrefixEnd is the smallest key above every key starting with p, or nil.
func rkPrefixEnd(p []byte) []byte {
	n := len(p)
	for n > 0 && p[n-1] == 0xff {
		n--
	}
	if n == 0 {
		return nil
	}
	out := append([]byte{}, p[:n]...)
	out[n-1]++
	return out
}
