// rowkey runtime for Java: written by `rowkey gen --lang java` next to the
// encoders it generates, in their package. DO NOT EDIT: generate again with
// the same rowkey.
//
// The generated class of each key design holds its record type and its key
// template as a table of parts; this class walks that table to encode and
// decode keys exactly as the rowkey C library does (docs/formats.md part A),
// refuses what it refuses, and computes the scan ranges its planner gives
// for fields bound by equality. Standard library only (Java 8): md5, sha1
// and sha256 from MessageDigest, XXH3-64, MurmurHash3 and Phoenix's hash
// written out below.
//
// One file, longer than this project's usual 600 lines, on purpose: a design is
// then exactly two files in a service's tree. It is the port of src/key's
// schema_rules.c (widths and tails), codec.c, hash.c, encode.c, decode.c and
// plan.c's walk for fields bound by =, in sections in that order, each named
// after its C file so the two can be read side by side.

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** rowkey's key codec, driven by the part tables of generated classes. */
public final class RowKeyRuntime {
    private RowKeyRuntime() {}

    /** The version of the key formats this runtime implements. */
    public static final int FORMAT_VERSION = 1;

    // field types, part kinds, encodings, value expressions, bucket forms,
    // salts and hashes (the C library's schema_int.h and hash.h)
    public static final int U8 = 1, U16 = 2, U32 = 3, U64 = 4, I8 = 5, I16 = 6, I32 = 7, I64 = 8, F64 = 9,
            STR = 10, BYTES = 11;
    public static final int P_LIT = 1, P_VAL = 2, P_HASH = 3, P_HEX = 4, P_SLICE = 5, P_BUCKET = 6, P_SALT = 7,
            P_PSALT = 8;
    public static final int E_TEXT = 1, E_UINT = 2, E_INT = 3, E_F64 = 4, E_DEC = 5, E_ESC = 6, E_BYTES = 7,
            E_OC = 8, E_OB = 9, E_PHX = 10;
    public static final int V_FIELD = 1, V_RTS = 2, V_TBUCKET = 3, V_REVERSE = 4, V_REVLABELS = 5, V_REVNUM = 6;
    public static final int F_BIN = 1, F_DEC = 2, F_ALPHA = 3;
    public static final int SALT_RANDOM = 1, SALT_ROUNDROBIN = 2;
    public static final int MD5 = 1, SHA1 = 2, SHA256 = 3, XXH3 = 4, MURMUR3 = 5, PHOENIX31 = 6;
    private static final String[] TYPE_NAMES = {"", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f64",
            "str", "bytes"};
    private static final int SUB_MAX = 65536; // bytes a hash, hex or slice input may have

    /** A record, key or length the rowkey library refuses; kind() says which. */
    public static final class RowKeyException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        /** The kinds of refusal, as the rowkey C library's error codes. */
        public enum Kind {
            /** A record the design cannot encode. */
            INVALID,
            /** The key would pass the design's max_key_len. */
            TOO_LONG,
            /** Bytes that are not a key of the design. */
            CORRUPT
        }

        private final Kind kind;

        RowKeyException(Kind kind, String message) {
            super(message);
            this.kind = kind;
        }

        public Kind kind() {
            return kind;
        }
    }

    static RowKeyException invalid(String fmt, Object... args) {
        return new RowKeyException(RowKeyException.Kind.INVALID, String.format(fmt, args));
    }

    static RowKeyException corrupt(String fmt, Object... args) {
        return new RowKeyException(RowKeyException.Kind.CORRUPT, String.format(fmt, args));
    }

    static RowKeyException tooLong(String fmt, Object... args) {
        return new RowKeyException(RowKeyException.Kind.TOO_LONG, String.format(fmt, args));
    }

    /** The rows start &lt;= key &lt; stop (stop null: to the end); bucket is -1 when none. */
    public static final class KeyRange {
        public final byte[] start;
        public final byte[] stop;
        public final int bucket;

        KeyRange(byte[] start, byte[] stop, int bucket) {
            this.start = start;
            this.stop = stop;
            this.bucket = bucket;
        }

        @Override
        public String toString() {
            return "[" + hex(start) + ", " + (stop == null ? "end" : hex(stop)) + ") bucket " + bucket;
        }
    }

    // ---- parts of a key template ----

    /** One part of a key template (made by the generated class). */
    public static final class Part {
        final int kind;
        boolean desc, upper;
        byte[] lit = new byte[0], alpha = new byte[0];
        int enc, width, vop, field, alg, sa, sb, n, form, salt;
        long varg, vmax;
        Part[] sub = new Part[0];
        int vtype, fixed, tailFixed;
        boolean nextIsLit, last, invert, sepcheck;

        Part(int kind) {
            this.kind = kind;
        }
    }

    /** Bytes from a string of chars 0..255 (a literal as generated code writes it). */
    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    public static Part lit(byte[] b) {
        Part p = new Part(P_LIT);
        p.lit = b;
        return p;
    }

    public static Part val(int enc, int width, int vop, int field, long varg, long vmax, boolean desc) {
        Part p = new Part(P_VAL);
        p.enc = enc;
        p.width = width;
        p.vop = vop;
        p.field = field;
        p.varg = varg;
        p.vmax = vmax;
        p.desc = desc;
        return p;
    }

    public static Part hash(int alg, Part... sub) {
        Part p = new Part(P_HASH);
        p.alg = alg;
        p.sub = sub;
        return p;
    }

    public static Part hex(boolean upper, Part... sub) {
        Part p = new Part(P_HEX);
        p.upper = upper;
        p.sub = sub;
        return p;
    }

    public static Part slice(int sa, int sb, Part sub) {
        Part p = new Part(P_SLICE);
        p.sa = sa;
        p.sb = sb;
        p.sub = new Part[] {sub};
        return p;
    }

    public static Part bucket(int n, int form, byte[] alpha, Part h) {
        Part p = new Part(P_BUCKET);
        p.n = n;
        p.form = form;
        p.alpha = alpha == null ? new byte[0] : alpha;
        p.sub = new Part[] {h};
        return p;
    }

    public static Part salt(int kind, int n, int form, byte[] alpha) {
        Part p = new Part(P_SALT);
        p.salt = kind;
        p.n = n;
        p.form = form;
        p.alpha = alpha == null ? new byte[0] : alpha;
        return p;
    }

    public static Part psalt(int n) {
        Part p = new Part(P_PSALT);
        p.n = n;
        return p;
    }

    static long used(Part[] parts) {
        long m = 0;
        for (Part p : parts) {
            if (p.kind == P_VAL)
                m |= 1L << p.field;
            m |= used(p.sub);
        }
        return m;
    }

    /** A key design: field types and names, its parts, its length limit. */
    public static final class Template {
        final int maxKeyLen, arena;
        final int[] types;
        final String[] names;
        final Part[] parts;
        final long pointGet;

        public Template(int maxKeyLen, int[] types, String[] names, Part... parts) {
            this.maxKeyLen = maxKeyLen;
            this.arena = Math.max(maxKeyLen, SUB_MAX);
            this.types = types;
            this.names = names;
            this.parts = parts;
            derive(parts, 0);
            this.pointGet = used(parts);
        }

        /** Widths and tails as the C parser derives them (schema_rules.c). */
        private void derive(Part[] parts, int depth) {
            for (Part p : parts) {
                derive(p.sub, depth + 1);
                if (p.kind == P_VAL)
                    p.vtype = p.vop == V_RTS ? U64
                            : p.vop == V_REVERSE || p.vop == V_REVLABELS || p.vop == V_REVNUM ? STR
                            : types[p.field];
                int sub = 0;
                for (Part q : p.sub)
                    sub = sub < 0 || q.fixed < 0 ? -1 : sub + q.fixed;
                switch (p.kind) {
                case P_LIT: p.fixed = p.lit.length; break;
                case P_VAL:
                    switch (p.enc) {
                    case E_UINT: case E_INT: case E_DEC: p.fixed = p.width; break;
                    case E_F64: p.fixed = 8; break;
                    case E_OB: p.fixed = p.width + 1; break;
                    case E_PHX: p.fixed = p.width == 0 ? -1 : p.width; break;
                    default: p.fixed = -1;
                    }
                    if (p.enc == E_TEXT && p.vop == V_REVNUM)
                        p.fixed = (int) p.varg;
                    break;
                case P_HASH: p.fixed = hashSize(p.alg); break;
                case P_HEX: p.fixed = 2 * sub; break;
                case P_SLICE: p.fixed = p.sb - p.sa; break;
                case P_BUCKET:
                case P_SALT: p.fixed = p.form == F_DEC ? Integer.toString(p.n - 1).length() : 1; break;
                default: p.fixed = 1;
                }
            }
            int tail = 0;
            for (int k = parts.length - 1; k >= 0; k--) {
                Part p = parts[k];
                p.tailFixed = tail;
                p.last = k == parts.length - 1;
                p.nextIsLit = k + 1 < parts.length && parts[k + 1].kind == P_LIT;
                tail = tail < 0 || p.fixed < 0 ? -1 : tail + p.fixed;
                if (p.kind == P_VAL) {
                    p.invert = p.desc && !(p.enc == E_PHX && isStr(p.vtype));
                    p.sepcheck = depth == 0 && p.enc == E_TEXT && p.fixed < 0 && p.nextIsLit;
                }
            }
        }
    }

    static boolean isStr(int t) {
        return t == STR || t == BYTES;
    }

    static boolean isSigned(int t) {
        return t >= I8 && t <= I64;
    }

    static boolean isInt(int t) {
        return t >= U8 && t <= I64;
    }

    static int width(int t) {
        return t == U8 || t == I8 ? 1 : t == U16 || t == I16 ? 2 : t == U32 || t == I32 ? 4 : 8;
    }

    // ---- values: the generated classes convert their records to and from these ----

    /**
     * A record's field value as the codec holds it: integers as Long (u64 as its
     * bits), f64 as Double, str as its UTF-8 bytes, bytes as a copy; null stays
     * null. A value outside its type is refused.
     */
    public static Object in(Object v, int t, String name) {
        if (v == null)
            return null;
        if (t == F64)
            return (Double) v;
        if (t == STR) {
            try {
                ByteBuffer b = StandardCharsets.UTF_8.newEncoder().encode(CharBuffer.wrap((String) v));
                return Arrays.copyOf(b.array(), b.limit());
            } catch (CharacterCodingException e) {
                throw invalid("field '%s': the string is not valid Unicode (a lone surrogate)", name);
            }
        }
        if (t == BYTES)
            return ((byte[]) v).clone();
        long x = ((Number) v).longValue();
        if (t != U64 && t != I64) {
            int w = 8 * width(t);
            boolean ok = isSigned(t) ? x >= -(1L << (w - 1)) && x < 1L << (w - 1) : x >= 0 && x >>> w == 0;
            if (!ok)
                throw invalid("field '%s': %d is outside %s", name, x, TYPE_NAMES[t]);
        }
        return x;
    }

    /** A decoded integer as an int (the generated class knows it fits). */
    public static Integer toInt(Object v) {
        return v == null ? null : (int) (long) (Long) v;
    }

    /** A decoded str field as text; bytes that are not UTF-8 are a corrupt key. */
    public static String toStr(Object v, String name) {
        if (v == null)
            return null;
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap((byte[]) v)).toString();
        } catch (CharacterCodingException e) {
            throw corrupt("field '%s' decodes to bytes that are not UTF-8", name);
        }
    }

    /** A typed intermediate value: t is U64 (i holds the bits), I64, F64, STR or BYTES. */
    static final class V {
        int t;
        long i;
        double f;
        byte[] s;

        V(int t, long i, double f, byte[] s) {
            this.t = t;
            this.i = i;
            this.f = f;
            this.s = s;
        }
    }

    // ---- field codecs (codec.c) ----

    /** A bounded output buffer. */
    static final class W {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        final int cap;

        W(int cap) {
            this.cap = cap;
        }

        W(int cap, byte[] start) {
            this.cap = cap;
            b.write(start, 0, start.length);
        }

        void put(byte[] x) {
            if (x.length > cap - b.size())
                throw tooLong("key is longer than its limit of %d bytes", cap);
            b.write(x, 0, x.length);
        }

        int size() {
            return b.size();
        }

        byte[] bytes() {
            return b.toByteArray();
        }
    }

    static long f64ToBits(double d) {
        long b = Double.isNaN(d) ? 0x7ff8000000000000L : Double.doubleToRawLongBits(d);
        return b < 0 ? ~b : b ^ Long.MIN_VALUE;
    }

    static double f64FromBits(long b) {
        return Double.longBitsToDouble(b < 0 ? b ^ Long.MIN_VALUE : ~b);
    }

    /** C's printf %.17g, every NaN "nan". */
    static String textF64(double d) {
        if (Double.isNaN(d))
            return "nan";
        if (Double.isInfinite(d))
            return d > 0 ? "inf" : "-inf";
        boolean neg = Double.doubleToRawLongBits(d) < 0;
        String digits;
        int x;
        if (d == 0) {
            digits = "00000000000000000";
            x = 0;
        } else {
            // 17 significant digits of the exact value, ties to even (as glibc)
            BigDecimal bd = new BigDecimal(d).abs().round(new MathContext(17, RoundingMode.HALF_EVEN));
            String u = bd.unscaledValue().toString();
            x = u.length() - 1 - bd.scale();
            StringBuilder sb = new StringBuilder(u);
            while (sb.length() < 17)
                sb.append('0');
            digits = sb.substring(0, 17);
        }
        StringBuilder out = new StringBuilder(neg ? "-" : "");
        if (x < -4 || x >= 17) {
            String frac = trimZeros(digits.substring(1));
            out.append(digits.charAt(0));
            if (!frac.isEmpty())
                out.append('.').append(frac);
            out.append('e').append(x < 0 ? '-' : '+');
            int ax = Math.abs(x);
            if (ax < 10)
                out.append('0');
            return out.append(ax).toString();
        }
        String ip, fp;
        if (x >= 0) {
            ip = digits.substring(0, x + 1);
            fp = digits.substring(x + 1);
        } else {
            ip = "0";
            StringBuilder z = new StringBuilder();
            for (int i = 0; i < -x - 1; i++)
                z.append('0');
            fp = z + digits;
        }
        out.append(ip);
        String f = trimZeros(fp);
        if (!f.isEmpty())
            out.append('.').append(f);
        return out.toString();
    }

    private static String trimZeros(String s) {
        int n = s.length();
        while (n > 0 && s.charAt(n - 1) == '0')
            n--;
        return s.substring(0, n);
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] putUint(long v, int width) {
        byte[] b = new byte[width];
        for (int i = width - 1; i >= 0; i--, v >>>= 8)
            b[i] = (byte) v;
        return b;
    }

    static byte[] putInt(long v, int width) {
        return putUint(v ^ (1L << (width * 8 - 1)), width);
    }

    static long getUint(byte[] b, int off, int width, int mask) {
        long v = 0;
        for (int i = 0; i < width; i++)
            v = v << 8 | ((b[off + i] ^ mask) & 0xff);
        return v;
    }

    static long getInt(byte[] b, int off, int width, int mask) {
        long u = getUint(b, off, width, mask) ^ (1L << (width * 8 - 1));
        if (width < 8 && ((u >>> (width * 8 - 1)) & 1) != 0)
            u |= -1L << (width * 8);
        return u;
    }

    static byte[] putDec(long v, int width) {
        String s = Long.toUnsignedString(v);
        if (s.length() > width)
            throw invalid("value %s does not fit in %d decimal digits", s, width);
        StringBuilder sb = new StringBuilder();
        for (int i = s.length(); i < width; i++)
            sb.append('0');
        return ascii(sb.append(s).toString());
    }

    static long getDec(byte[] b, int off, int width, int mask) {
        long v = 0;
        for (int i = 0; i < width; i++) {
            int c = (b[off + i] ^ mask) & 0xff;
            if (c < '0' || c > '9')
                throw corrupt("expected a decimal digit at offset %d, found 0x%02x", i, c);
            long d = c - '0';
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, 10)) > 0)
                throw corrupt("decimal number overflows 64 bits");
            v = v * 10 + d;
        }
        return v;
    }

    static byte[] esc(byte[] s, boolean ff) {
        ByteArrayOutputStream o = new ByteArrayOutputStream(s.length + 2);
        for (byte c : s) {
            o.write(c);
            if (c == 0)
                o.write(0xff);
            else if (ff && c == (byte) 0xff)
                o.write(0);
        }
        o.write(0);
        o.write(1);
        return o.toByteArray();
    }

    /** An escaped (ff: ordered-code) string at b[off..end): value and bytes used. */
    static Object[] getEscaped(byte[] b, int off, int end, int mask, boolean ff) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (int i = off; i < end; i++) {
            int c = (b[i] ^ mask) & 0xff;
            if (c == 0 || (ff && c == 0xff)) {
                if (i + 1 >= end)
                    throw corrupt("string truncated after escape byte at offset %d", i - off);
                int d = (b[i + 1] ^ mask) & 0xff;
                if (c == 0 && d == 1)
                    return new Object[] {o.toByteArray(), i + 2 - off};
                if ((c == 0 && d != 0xff) || (c == 0xff && d != 0))
                    throw corrupt("bad escape 0x%02x 0x%02x at offset %d", c, d, i - off);
                o.write(c);
                i++;
                continue;
            }
            o.write(c);
        }
        throw corrupt("string has no terminator (00 01) within %d bytes", end - off);
    }

    static byte[] ocUint(long v) {
        int n = (64 - Long.numberOfLeadingZeros(v) + 7) / 8;
        byte[] b = new byte[n + 1];
        b[0] = (byte) n;
        System.arraycopy(putUint(v, 8), 8 - n, b, 1, n);
        return b;
    }

    private static final int[][] OC_HEADER = {{0, 0}, {0x80, 0}, {0xc0, 0}, {0xe0, 0}, {0xf0, 0}, {0xf8, 0},
            {0xfc, 0}, {0xfe, 0}, {0xff, 0}, {0xff, 0x80}, {0xff, 0xc0}};

    static int ocSignedLen(long x) {
        return (64 - Long.numberOfLeadingZeros(x)) / 7 + 1;
    }

    static byte[] ocInt(long v) {
        long x = v < 0 ? ~v : v;
        int n = ocSignedLen(x);
        byte sign = (byte) (v < 0 ? 0xff : 0);
        byte[] buf = new byte[10];
        buf[0] = buf[1] = sign;
        System.arraycopy(putUint(v, 8), 0, buf, 2, 8);
        int begin = 10 - n;
        buf[begin] ^= OC_HEADER[n][0];
        if (n >= 2)
            buf[begin + 1] ^= OC_HEADER[n][1];
        return Arrays.copyOfRange(buf, begin, 10);
    }

    static byte[] obHeader(int width) {
        return new byte[] {(byte) (width == 1 ? 0x29 : width == 2 ? 0x2a : width == 4 ? 0x2b : 0x2c)};
    }

    static double getF64(byte[] b, int off, int mask) {
        long u = getUint(b, off, 8, mask);
        double d = f64FromBits(u);
        if (f64ToBits(d) != u)
            throw corrupt("a NaN other than the one f64 keys hold");
        return d;
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts)
            o.write(p, 0, p.length);
        return o.toByteArray();
    }

    static int indexOf(byte[] b, int from, int end, byte[] x) {
        outer:
        for (int i = from; i + x.length <= end; i++) {
            for (int k = 0; k < x.length; k++)
                if (b[i + k] != x[k])
                    continue outer;
            return i;
        }
        return -1;
    }

    static byte[] reverse(byte[] b) {
        byte[] o = new byte[b.length];
        for (int i = 0; i < b.length; i++)
            o[b.length - 1 - i] = b[i];
        return o;
    }

    static byte[] reverseLabels(byte[] b) {
        List<byte[]> labels = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= b.length; i++)
            if (i == b.length || b[i] == '.') {
                labels.add(Arrays.copyOfRange(b, start, i));
                start = i + 1;
            }
        Collections.reverse(labels);
        ByteArrayOutputStream o = new ByteArrayOutputStream(b.length);
        for (int i = 0; i < labels.size(); i++) {
            if (i > 0)
                o.write('.');
            o.write(labels.get(i), 0, labels.get(i).length);
        }
        return o.toByteArray();
    }

    static String hex(byte[] b) {
        char[] c = new char[2 * b.length];
        for (int i = 0; i < b.length; i++) {
            c[2 * i] = Character.forDigit((b[i] >> 4) & 15, 16);
            c[2 * i + 1] = Character.forDigit(b[i] & 15, 16);
        }
        return new String(c);
    }

    // ---- hashes (hash.c) ----

    private static final long P32_1 = 0x9E3779B1L, P32_2 = 0x85EBCA77L, P32_3 = 0xC2B2AE3DL;
    private static final long P64_1 = 0x9E3779B185EBCA87L, P64_2 = 0xC2B2AE3D27D4EB4FL,
            P64_3 = 0x165667B19E3779F9L, P64_4 = 0x85EBCA77C2B2AE63L, P64_5 = 0x27D4EB2F165667C5L;
    private static final byte[] SECRET = fromHex(
            "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
            + "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
            + "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
            + "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
            + "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
            + "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e");

    private static byte[] fromHex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++)
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    private static long le64(byte[] b, int i) {
        long v = 0;
        for (int k = 7; k >= 0; k--)
            v = v << 8 | (b[i + k] & 0xff);
        return v;
    }

    private static long le32(byte[] b, int i) {
        return (b[i] & 0xffL) | (b[i + 1] & 0xffL) << 8 | (b[i + 2] & 0xffL) << 16 | (b[i + 3] & 0xffL) << 24;
    }

    /** The 64x64 -> 128-bit unsigned product, high half xor low half. */
    private static long fold64(long a, long b) {
        long loLo = (a & 0xffffffffL) * (b & 0xffffffffL);
        long hiLo = (a >>> 32) * (b & 0xffffffffL);
        long loHi = (a & 0xffffffffL) * (b >>> 32);
        long hiHi = (a >>> 32) * (b >>> 32);
        long cross = (loLo >>> 32) + (hiLo & 0xffffffffL) + loHi;
        long upper = (hiLo >>> 32) + (cross >>> 32) + hiHi;
        return upper ^ (a * b);
    }

    private static long xxh64Avalanche(long h) {
        h ^= h >>> 33;
        h *= P64_2;
        h ^= h >>> 29;
        h *= P64_3;
        return h ^ h >>> 32;
    }

    private static long xxh3Avalanche(long h) {
        h ^= h >>> 37;
        h *= 0x165667919E3779F9L;
        return h ^ h >>> 32;
    }

    private static long mix16(byte[] b, int i, int s) {
        return fold64(le64(b, i) ^ le64(SECRET, s), le64(b, i + 8) ^ le64(SECRET, s + 8));
    }

    /** XXH3_64bits(b): seed 0, the default secret (xxHash 0.8). */
    static long xxh3(byte[] b) {
        int n = b.length;
        byte[] s = SECRET;
        if (n == 0)
            return xxh64Avalanche(le64(s, 56) ^ le64(s, 64));
        if (n <= 3) {
            long combined = (long) (b[0] & 0xff) << 16 | (long) (b[n >> 1] & 0xff) << 24 | (b[n - 1] & 0xff)
                    | (long) n << 8;
            return xxh64Avalanche(combined ^ (le32(s, 0) ^ le32(s, 4)));
        }
        if (n <= 8) {
            long x = (le32(b, n - 4) + (le32(b, 0) << 32)) ^ (le64(s, 8) ^ le64(s, 16));
            x ^= Long.rotateLeft(x, 49) ^ Long.rotateLeft(x, 24);
            x *= 0x9FB21C651E98DF25L;
            x ^= (x >>> 35) + n;
            x *= 0x9FB21C651E98DF25L;
            return x ^ x >>> 28;
        }
        if (n <= 16) {
            long lo = le64(b, 0) ^ (le64(s, 24) ^ le64(s, 32));
            long hi = le64(b, n - 8) ^ (le64(s, 40) ^ le64(s, 48));
            return xxh3Avalanche(n + Long.reverseBytes(lo) + hi + fold64(lo, hi));
        }
        if (n <= 128) {
            long acc = n * P64_1;
            if (n > 32) {
                if (n > 64) {
                    if (n > 96)
                        acc += mix16(b, 48, 96) + mix16(b, n - 64, 112);
                    acc += mix16(b, 32, 64) + mix16(b, n - 48, 80);
                }
                acc += mix16(b, 16, 32) + mix16(b, n - 32, 48);
            }
            acc += mix16(b, 0, 0) + mix16(b, n - 16, 16);
            return xxh3Avalanche(acc);
        }
        if (n <= 240) {
            long acc = n * P64_1;
            for (int i = 0; i < 8; i++)
                acc += mix16(b, 16 * i, 16 * i);
            acc = xxh3Avalanche(acc);
            for (int i = 8; i < n / 16; i++)
                acc += mix16(b, 16 * i, 16 * (i - 8) + 3);
            acc += mix16(b, n - 16, 136 - 17);
            return xxh3Avalanche(acc);
        }
        long[] acc = {P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1};
        int perBlock = (s.length - 64) / 8, block = 64 * perBlock, blocks = (n - 1) / block;
        for (int blk = 0; blk < blocks; blk++) {
            for (int st = 0; st < perBlock; st++)
                stripe(acc, b, blk * block + 64 * st, 8 * st);
            for (int i = 0; i < 8; i++) {
                long a = acc[i];
                a ^= a >>> 47;
                a ^= le64(s, s.length - 64 + 8 * i);
                acc[i] = a * P32_1;
            }
        }
        for (int st = 0; st < ((n - 1) - block * blocks) / 64; st++)
            stripe(acc, b, blocks * block + 64 * st, 8 * st);
        stripe(acc, b, n - 64, s.length - 64 - 7);
        long r = n * P64_1;
        for (int i = 0; i < 4; i++)
            r += fold64(acc[2 * i] ^ le64(s, 11 + 16 * i), acc[2 * i + 1] ^ le64(s, 11 + 16 * i + 8));
        return xxh3Avalanche(r);
    }

    private static void stripe(long[] acc, byte[] b, int off, int so) {
        for (int i = 0; i < 8; i++) {
            long v = le64(b, off + 8 * i);
            long k = v ^ le64(SECRET, so + 8 * i);
            acc[i ^ 1] += v;
            acc[i] += (k & 0xffffffffL) * (k >>> 32);
        }
    }

    /** MurmurHash3_x86_32 with seed 0. */
    static int murmur3(byte[] b) {
        int c1 = 0xcc9e2d51, c2 = 0x1b873593, h = 0, n = b.length;
        for (int i = 0; i + 4 <= n; i += 4) {
            int k = (int) le32(b, i) * c1;
            k = Integer.rotateLeft(k, 15) * c2;
            h ^= k;
            h = Integer.rotateLeft(h, 13) * 5 + 0xe6546b64;
        }
        int t = n & 3;
        if (t != 0) {
            int k = 0;
            for (int i = t - 1; i >= 0; i--)
                k = k << 8 | (b[n - t + i] & 0xff);
            k *= c1;
            k = Integer.rotateLeft(k, 15) * c2;
            h ^= k;
        }
        h ^= n;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ h >>> 16;
    }

    /** Phoenix's hash (Java's Arrays.hashCode of the bytes). */
    static int phoenix31(byte[] b, int from) {
        int h = 1;
        for (int i = from; i < b.length; i++)
            h = 31 * h + b[i];
        return h;
    }

    static int hashSize(int alg) {
        return alg == MD5 ? 16 : alg == SHA1 ? 20 : alg == SHA256 ? 32 : alg == XXH3 ? 8 : 4;
    }

    static byte[] digest(int alg, byte[] b) {
        if (alg == XXH3)
            return putUint(xxh3(b), 8);
        if (alg == MURMUR3)
            return putUint(murmur3(b) & 0xffffffffL, 4);
        if (alg == PHOENIX31)
            return putUint(phoenix31(b, 0) & 0xffffffffL, 4);
        try {
            return MessageDigest.getInstance(alg == MD5 ? "MD5" : alg == SHA1 ? "SHA-1" : "SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every Java platform has these three
        }
    }

    static int bucketOf(int alg, byte[] b, int n) {
        if (alg == XXH3)
            return (int) Long.remainderUnsigned(xxh3(b), n);
        if (alg == MURMUR3)
            return (int) ((murmur3(b) & 0xffffffffL) % n);
        if (alg == PHOENIX31)
            return Math.abs(phoenix31(b, 0) % n);
        return (int) Long.remainderUnsigned(getUint(digest(alg, b), 0, 8, 0), n);
    }

    // ---- encoding (encode.c) ----

    /**
     * Encodes and decodes the keys of one template; values are as in(). Random
     * and round-robin salts draw from its state, as the C library's encoder does:
     * use one per thread.
     */
    public static final class Codec {
        private final Template t;
        private long rng, rr;
        private int forced = -1;

        public Codec(Template t, long seed) {
            this.t = t;
            this.rng = seed == 0 ? 0x2545f4914f6cdd1dL : seed;
        }

        private V eval(Part p, Object[] vals) {
            String name = t.names[p.field];
            Object v = vals[p.field];
            if (v == null)
                throw invalid("field '%s' has no value and the key needs it", name);
            int ft = t.types[p.field];
            V in = isInt(ft) ? new V(isSigned(ft) ? I64 : U64, (Long) v, 0, null)
                    : ft == F64 ? new V(F64, 0, (Double) v, null) : new V(ft, 0, 0, (byte[]) v);
            switch (p.vop) {
            case V_FIELD: return in;
            case V_RTS:
                if (in.t == I64 && in.i < 0)
                    throw invalid("rts(%s): %d is negative; this encoding holds only values >= 0", name, in.i);
                if (Long.compareUnsigned(in.i, p.vmax) > 0)
                    throw invalid("rts(%s): timestamp %s is over the maximum %s", name, Long.toUnsignedString(in.i),
                            Long.toUnsignedString(p.vmax));
                return new V(U64, p.vmax - in.i, 0, null);
            case V_TBUCKET:
                if (in.t == I64) {
                    long m = in.i % p.varg;
                    if (m < 0)
                        m += p.varg;
                    if (in.i < Long.MIN_VALUE + m)
                        throw invalid("tbucket(%s, %d): %d has no bucket start within i64", name, p.varg, in.i);
                    in.i -= m;
                } else {
                    in.i -= Long.remainderUnsigned(in.i, p.varg);
                }
                return in;
            case V_REVERSE:
            case V_REVLABELS:
                if (in.s.length > t.arena)
                    throw tooLong("a value of %d bytes is over the encoder's %d-byte scratch", in.s.length, t.arena);
                return new V(STR, 0, 0, p.vop == V_REVERSE ? reverse(in.s) : reverseLabels(in.s));
            default:
                if (in.t == I64 && in.i < 0)
                    throw invalid("reverse_num(%s): %d is negative", name, in.i);
                String d = Long.toUnsignedString(in.i);
                if (d.length() > p.varg)
                    throw invalid("reverse_num(%s, %d): %s has more than %d digits", name, p.varg, d, p.varg);
                StringBuilder sb = new StringBuilder();
                for (int i = d.length(); i < p.varg; i++)
                    sb.append('0');
                return new V(STR, 0, 0, reverse(ascii(sb.append(d).toString())));
            }
        }

        private static byte[] intChecked(V v, int width, boolean signed, String name) {
            long x = v.i;
            if (signed) {
                if (v.t == U64 && x < 0)
                    throw invalid("%s: %s is over the signed 64-bit range", name, Long.toUnsignedString(x));
                if (width < 8 && (x < -(1L << (width * 8 - 1)) || x >= 1L << (width * 8 - 1)))
                    throw invalid("field '%s': %d does not fit in i%d", name, x, width * 8);
                return putInt(x, width);
            }
            if (v.t == I64 && x < 0)
                throw invalid("%s: %d is negative; this encoding holds only values >= 0", name, x);
            if (width < 8 && x >>> (width * 8) != 0)
                throw invalid("field '%s': %s does not fit in u%d", name, Long.toUnsignedString(x), width * 8);
            return putUint(x, width);
        }

        private byte[] encodeVal(Part p, V v, String name) {
            boolean str = isStr(v.t);
            switch (p.enc) {
            case E_TEXT:
                if (str)
                    return v.s;
                return ascii(v.t == F64 ? textF64(v.f) : v.t == I64 ? Long.toString(v.i) : Long.toUnsignedString(v.i));
            case E_UINT: return intChecked(v, p.width, false, name);
            case E_INT: return intChecked(v, p.width, true, name);
            case E_F64: return putUint(f64ToBits(v.f), 8);
            case E_DEC:
                if (v.t == I64 && v.i < 0)
                    throw invalid("%s: %d is negative; this encoding holds only values >= 0", name, v.i);
                try {
                    return putDec(v.i, p.width);
                } catch (RowKeyException e) {
                    throw invalid("field '%s': %s", name, e.getMessage());
                }
            case E_ESC: return esc(v.s, false);
            case E_BYTES: return v.s;
            case E_OC:
                return str ? esc(v.s, true) : v.t == I64 ? ocInt(v.i) : ocUint(v.i);
            case E_OB:
                if (v.t == F64)
                    return concat(new byte[] {0x31}, putUint(f64ToBits(v.f), 8));
                if (v.t == U64 && v.i < 0)
                    throw invalid("%s: %s is over the signed 64-bit range", name, Long.toUnsignedString(v.i));
                if (p.width < 8 && (v.i < -(1L << (p.width * 8 - 1)) || v.i >= 1L << (p.width * 8 - 1)))
                    throw invalid("field '%s': %d does not fit in OrderedBytes int%d", name, v.i, p.width * 8);
                return concat(obHeader(p.width), putInt(v.i, p.width));
            default: // E_PHX
                if (!str)
                    return intChecked(v, p.width, v.t == I64, name);
                for (byte c : v.s)
                    if (c == 0)
                        throw invalid("field '%s': a Phoenix VARCHAR key field cannot contain a 0x00 byte", name);
                if (p.desc) {
                    byte[] o = new byte[v.s.length + 1];
                    for (int i = 0; i < v.s.length; i++)
                        o[i] = (byte) ~v.s[i];
                    o[v.s.length] = (byte) 0xff;
                    return o;
                }
                return p.last ? v.s : concat(v.s, new byte[] {0});
            }
        }

        private static byte[] bucketBytes(Part p, int b) {
            if (p.form == F_DEC)
                return putDec(b, p.fixed);
            if (p.form == F_ALPHA)
                return new byte[] {p.alpha[b]};
            return new byte[] {(byte) b};
        }

        /** Writes parts[lo, hi) to w; parts[hi] may be read (a separator). */
        private void encodeParts(W w, Part[] parts, int lo, int hi, Object[] vals) {
            int psaltAt = -1, psaltN = 0;
            for (int k = lo; k < hi; k++) {
                Part p = parts[k];
                int start = w.size();
                switch (p.kind) {
                case P_LIT:
                    w.put(p.lit);
                    break;
                case P_VAL: {
                    String name = t.names[p.field];
                    byte[] b = encodeVal(p, eval(p, vals), name);
                    if (p.invert) {
                        b = b.clone();
                        for (int i = 0; i < b.length; i++)
                            b[i] = (byte) ~b[i];
                    }
                    w.put(b);
                    if (p.sepcheck) {
                        byte[] sep = parts[k + 1].lit;
                        byte[] joined = concat(b, sep);
                        if (indexOf(joined, 0, joined.length, sep) < b.length)
                            throw invalid("field '%s' value %s contains the separator %s that follows it", name, hex(b),
                                    hex(sep));
                    }
                    break;
                }
                case P_HASH:
                case P_HEX:
                case P_SLICE: {
                    W sw = new W(SUB_MAX);
                    encodeParts(sw, p.sub, 0, p.sub.length, vals);
                    byte[] in = sw.bytes();
                    if (p.kind == P_HASH) {
                        w.put(digest(p.alg, in));
                    } else if (p.kind == P_HEX) {
                        String h = hex(in);
                        w.put(ascii(p.upper ? h.toUpperCase(java.util.Locale.ROOT) : h));
                    } else {
                        if (p.sb > in.length)
                            throw invalid("slice [%d:%d] of a %d-byte value: the value is too short", p.sa, p.sb,
                                    in.length);
                        w.put(Arrays.copyOfRange(in, p.sa, p.sb));
                    }
                    break;
                }
                case P_BUCKET: {
                    Part h = p.sub[0];
                    W sw = new W(SUB_MAX);
                    encodeParts(sw, h.sub, 0, h.sub.length, vals);
                    w.put(bucketBytes(p, bucketOf(h.alg, sw.bytes(), p.n)));
                    break;
                }
                case P_SALT: {
                    int b;
                    if (forced >= 0) {
                        b = forced;
                    } else if (p.salt == SALT_RANDOM) {
                        rng ^= rng << 13;
                        rng ^= rng >>> 7;
                        rng ^= rng << 17;
                        b = (int) Long.remainderUnsigned(rng, p.n);
                    } else {
                        b = (int) Long.remainderUnsigned(rr++, p.n);
                    }
                    w.put(bucketBytes(p, b));
                    break;
                }
                default:
                    psaltAt = w.size();
                    psaltN = p.n;
                    w.put(new byte[] {0});
                }
            }
            if (psaltAt >= 0) {
                byte[] all = w.bytes();
                int salt = Math.abs(phoenix31(all, psaltAt + 1) % psaltN);
                all[psaltAt] = (byte) salt;
                w.b.reset();
                w.b.write(all, 0, all.length);
            }
        }

        private byte[] encode(Object[] vals, int forcedSalt) {
            W w = new W(t.maxKeyLen);
            forced = forcedSalt;
            try {
                encodeParts(w, t.parts, 0, t.parts.length, vals);
            } finally {
                forced = -1;
            }
            return w.bytes();
        }

        /** The key of one record (field values as in(), null for absent). */
        public byte[] encode(Object[] vals) {
            return encode(vals, -1);
        }

        // ---- decoding (decode.c) ----

        private static int readBucket(Part p, byte[] key, int off) {
            if (p.form == F_DEC) {
                long v;
                try {
                    v = getDec(key, off, p.fixed, 0);
                } catch (RowKeyException e) {
                    v = -1;
                }
                if (v < 0 || v >= p.n)
                    throw corrupt("key byte %d: bucket number is not a decimal below the bucket count", off);
                return (int) v;
            }
            if (p.form == F_ALPHA) {
                for (int i = 0; i < p.alpha.length; i++)
                    if (p.alpha[i] == key[off])
                        return i;
                throw corrupt("key byte %d: bucket letter is not in the alphabet", off);
            }
            if ((key[off] & 0xff) >= p.n)
                throw corrupt("key byte %d: bucket byte is not below the bucket count", off);
            return key[off] & 0xff;
        }

        /** A number in text form, spelled exactly as the encoder writes it. */
        private static V parseText(byte[] key, int off, int end, int t) {
            String s = new String(key, off, end - off, StandardCharsets.ISO_8859_1);
            V v = new V(t, 0, 0, null);
            String again;
            try {
                if (t == I64) {
                    v.i = Long.parseLong(s);
                    again = Long.toString(v.i);
                } else if (t == U64) {
                    v.i = Long.parseUnsignedLong(s);
                    again = Long.toUnsignedString(v.i);
                } else {
                    v.f = s.equals("nan") ? Double.NaN : s.equals("inf") ? Double.POSITIVE_INFINITY
                            : s.equals("-inf") ? Double.NEGATIVE_INFINITY : Double.parseDouble(s);
                    again = textF64(v.f);
                }
            } catch (NumberFormatException e) {
                again = null;
            }
            if (!s.equals(again))
                throw corrupt("'%s' is not how the encoder writes a number", s);
            return v;
        }

        /** Value part p at key[off, end): the value and the bytes used. */
        private Object[] decodeVal(Part p, byte[] key, int off, int end) {
            int mask = p.desc ? 0xff : 0;
            int vt = p.vtype, n = end - off;
            if (p.fixed >= 0 && p.fixed > n)
                throw corrupt("key ends inside a fixed-width field");
            switch (p.enc) {
            case E_TEXT: {
                int len = p.fixed >= 0 ? p.fixed : n;
                if (isStr(vt))
                    return new Object[] {new V(STR, 0, 0, Arrays.copyOfRange(key, off, off + len)), len};
                int pt = isSigned(vt) ? I64 : isInt(vt) ? U64 : F64;
                return new Object[] {parseText(key, off, off + len, pt), len};
            }
            case E_UINT: return new Object[] {new V(U64, getUint(key, off, p.width, mask), 0, null), p.width};
            case E_INT: return new Object[] {new V(I64, getInt(key, off, p.width, mask), 0, null), p.width};
            case E_F64: return new Object[] {new V(F64, 0, getF64(key, off, mask), null), 8};
            case E_DEC: return new Object[] {new V(U64, getDec(key, off, p.width, mask), 0, null), p.width};
            case E_ESC:
            case E_OC:
                if (isStr(vt)) {
                    Object[] r = getEscaped(key, off, end, mask, p.enc == E_OC);
                    return new Object[] {new V(STR, 0, 0, (byte[]) r[0]), r[1]};
                }
                return isSigned(vt) ? getOcInt(key, off, end, mask) : getOcUint(key, off, end, mask);
            case E_BYTES: return new Object[] {new V(BYTES, 0, 0, Arrays.copyOfRange(key, off, end)), n};
            case E_OB: {
                if (n < p.width + 1)
                    throw corrupt("OrderedBytes value truncated");
                int hdr = (key[off] ^ mask) & 0xff;
                if (vt == F64) {
                    if (hdr != 0x31)
                        throw corrupt("OrderedBytes float64 header 0x%02x, expected 0x31", hdr);
                    return new Object[] {new V(F64, 0, getF64(key, off + 1, mask), null), 9};
                }
                if (hdr != (obHeader(p.width)[0] & 0xff))
                    throw corrupt("OrderedBytes int%d header 0x%02x", 8 * p.width, hdr);
                return new Object[] {new V(I64, getInt(key, off + 1, p.width, mask), 0, null), p.width + 1};
            }
            default: // E_PHX
                if (isStr(vt)) {
                    int sep = p.desc ? 0xff : 0;
                    int i = off;
                    while (i < end && (key[i] & 0xff) != sep)
                        i++;
                    if (i == end && p.desc)
                        throw corrupt("descending Phoenix VARCHAR has no 0xff separator");
                    byte[] s = Arrays.copyOfRange(key, off, i);
                    for (int k = 0; k < s.length; k++)
                        s[k] ^= mask;
                    return new Object[] {new V(STR, 0, 0, s), i < end ? i + 1 - off : i - off};
                }
                return new Object[] {isSigned(vt) ? new V(I64, getInt(key, off, p.width, mask), 0, null)
                        : new V(U64, getUint(key, off, p.width, mask), 0, null), p.width};
            }
        }

        private static Object[] getOcUint(byte[] key, int off, int end, int mask) {
            if (end - off < 1)
                throw corrupt("ordered-code number truncated: no length byte");
            int n = (key[off] ^ mask) & 0xff;
            if (n > 8)
                throw corrupt("ordered-code number length %d is over 8", n);
            if (n + 1 > end - off)
                throw corrupt("ordered-code number truncated");
            if (n > 0 && ((key[off + 1] ^ mask) & 0xff) == 0)
                throw corrupt("ordered-code number has a leading zero byte");
            return new Object[] {new V(U64, getUint(key, off + 1, n, mask), 0, null), n + 1};
        }

        private static Object[] getOcInt(byte[] key, int off, int end, int mask) {
            if (end - off < 1)
                throw corrupt("ordered-code signed number truncated");
            int b0 = (key[off] ^ mask) & 0xff;
            int sign = (b0 & 0x80) != 0 ? 0 : 0xff;
            int hdr = (b0 ^ sign) << 8 | (end - off > 1 ? (key[off + 1] ^ mask ^ sign) & 0xff : 0);
            int n = 0;
            while (n < 11 && (hdr & (0x8000 >> n)) != 0)
                n++;
            if (n < 1 || n > 10)
                throw corrupt("ordered-code signed number has a bad header 0x%02x", b0);
            if (n > end - off)
                throw corrupt("ordered-code signed number truncated");
            byte[] buf = new byte[10];
            Arrays.fill(buf, (byte) sign);
            for (int i = 0; i < n; i++)
                buf[10 - n + i] = (byte) (key[off + i] ^ mask);
            buf[10 - n] ^= OC_HEADER[n][0];
            if (n >= 2)
                buf[10 - n + 1] ^= OC_HEADER[n][1];
            if ((buf[0] & 0xff) != sign || (buf[1] & 0xff) != sign)
                throw corrupt("ordered-code signed number out of 64-bit range");
            long v = getUint(buf, 2, 8, 0);
            if ((v < 0) != (sign == 0xff) || ocSignedLen(v < 0 ? ~v : v) != n)
                throw corrupt("ordered-code signed number is not in canonical form");
            return new Object[] {new V(I64, v, 0, null), n};
        }

        private Object toField(int ft, V v, int off, String name) {
            if (isStr(ft))
                return v.s;
            if (ft == F64)
                return v.f;
            int w = 8 * width(ft);
            long x = v.i;
            boolean ok;
            if (isSigned(ft))
                ok = !(v.t == U64 && x < 0) && (w == 64 || (x >= -(1L << (w - 1)) && x < 1L << (w - 1)));
            else
                ok = !(v.t == I64 && x < 0) && (w == 64 || x >>> w == 0);
            if (!ok)
                throw corrupt("key byte %d: field '%s' decodes to a value outside %s", off, name, TYPE_NAMES[ft]);
            return x;
        }

        private void invert(Object[] out, Part p, V v, int off) {
            String name = t.names[p.field];
            int ft = t.types[p.field];
            switch (p.vop) {
            case V_TBUCKET:
                if (v.t == I64 ? v.i % p.varg != 0 : Long.remainderUnsigned(v.i, p.varg) != 0)
                    throw corrupt("key byte %d: time bucket is not a multiple of its width", off);
                return;
            case V_RTS:
                if (v.t == I64 && v.i < 0)
                    throw corrupt("key byte %d: reverse timestamp is negative", off);
                if (Long.compareUnsigned(v.i, p.vmax) > 0)
                    throw corrupt("key byte %d: reverse timestamp is over its maximum", off);
                v = new V(U64, p.vmax - v.i, 0, null);
                break;
            case V_REVERSE: v.s = reverse(v.s); break;
            case V_REVLABELS: v.s = reverseLabels(v.s); break;
            case V_REVNUM:
                if (v.s.length >= 24)
                    throw corrupt("key byte %d: reversed number too long", off);
                try {
                    v = new V(U64, getDec(reverse(v.s), 0, v.s.length, 0), 0, null);
                } catch (RowKeyException e) {
                    throw corrupt("key byte %d: reversed number has a non-digit", off);
                }
                break;
            default:
                break;
            }
            Object fv = toField(ft, v, off, name);
            Object old = out[p.field];
            if (old != null) {
                boolean same = ft == F64 ? f64ToBits((Double) old) == f64ToBits((Double) fv)
                        : isStr(ft) ? Arrays.equals((byte[]) old, (byte[]) fv) : old.equals(fv);
                if (!same)
                    throw corrupt("key byte %d: field '%s' decodes to two different values", off, name);
            }
            out[p.field] = fv;
        }

        /** The field values of a key (null for those it does not carry). */
        public Object[] decode(byte[] key) {
            int n = key.length;
            if (n > t.maxKeyLen)
                throw corrupt("key of %d bytes is over the schema's max_key_len %d", n, t.maxKeyLen);
            Object[] out = new Object[t.types.length];
            int[] offs = new int[t.parts.length];
            int saltRead = -1, pos = 0;
            for (int k = 0; k < t.parts.length; k++) {
                Part p = t.parts[k];
                int rem = n - pos;
                offs[k] = pos;
                if (p.fixed >= 0 && p.fixed > rem)
                    throw corrupt("key byte %d: key ends early (part %d needs %d bytes, %d left)", pos, k + 1, p.fixed,
                            rem);
                switch (p.kind) {
                case P_LIT:
                    if (indexOf(key, pos, pos + p.lit.length, p.lit) != pos)
                        throw corrupt("key byte %d: expected the literal %s", pos, hex(p.lit));
                    pos += p.lit.length;
                    break;
                case P_SALT:
                case P_BUCKET: {
                    int v = readBucket(p, key, pos);
                    if (p.kind == P_SALT)
                        saltRead = v;
                    pos += p.fixed;
                    break;
                }
                case P_PSALT:
                    if ((key[pos] & 0xff) != Math.abs(phoenix31(key, pos + 1) % p.n))
                        throw corrupt("key byte %d: the Phoenix salt byte is not the one the rest of the key gives",
                                pos);
                    pos++;
                    break;
                case P_HASH:
                case P_HEX:
                case P_SLICE:
                    pos += p.fixed;
                    break;
                default: {
                    int end = n;
                    if (p.enc == E_TEXT && p.fixed < 0) {
                        if (p.nextIsLit) {
                            byte[] sep = t.parts[k + 1].lit;
                            end = indexOf(key, pos, n, sep);
                            if (end < 0)
                                throw corrupt("key byte %d: no separator %s after field '%s'", pos, hex(sep),
                                        t.names[p.field]);
                        } else if (p.tailFixed > 0) {
                            if (p.tailFixed > rem)
                                throw corrupt("key byte %d: key too short for its fixed-width tail", pos);
                            end = n - p.tailFixed;
                        }
                    }
                    Object[] r;
                    try {
                        r = decodeVal(p, key, pos, end);
                    } catch (RowKeyException e) {
                        throw corrupt("key byte %d: %s", pos, e.getMessage());
                    }
                    invert(out, p, (V) r[0], pos);
                    pos += (Integer) r[1];
                }
                }
            }
            if (pos != n)
                throw corrupt("key byte %d: %d unexpected bytes after the last part", pos, n - pos);
            long have = 0;
            for (int i = 0; i < out.length; i++)
                if (out[i] != null)
                    have |= 1L << i;
            if ((t.pointGet & ~have) != 0) {
                verifyParts(out, have, key, offs);
                return out;
            }
            byte[] again;
            try {
                again = encode(out, saltRead);
            } catch (RowKeyException e) {
                throw corrupt("key does not re-encode: %s", e.getMessage());
            }
            if (!Arrays.equals(again, key)) {
                int d = 0;
                while (d < n && d < again.length && again[d] == key[d])
                    d++;
                throw corrupt("key byte %d: the key does not match its design (a hash, bucket or salt prefix "
                        + "that its fields do not produce)", d);
            }
            return out;
        }

        private void verifyParts(Object[] out, long have, byte[] key, int[] offs) {
            for (int k = 0; k < t.parts.length; k++) {
                Part p = t.parts[k];
                if ((p.kind != P_HASH && p.kind != P_HEX && p.kind != P_SLICE && p.kind != P_BUCKET)
                        || (used(new Part[] {p}) & ~have) != 0)
                    continue;
                boolean ok;
                try {
                    W w = new W(t.maxKeyLen);
                    encodeParts(w, t.parts, k, k + 1, out);
                    byte[] b = w.bytes();
                    ok = b.length == p.fixed
                            && Arrays.equals(b, Arrays.copyOfRange(key, offs[k], offs[k] + p.fixed));
                } catch (RowKeyException e) {
                    ok = false;
                }
                if (!ok)
                    throw corrupt("key byte %d: the key does not match its design (its prefix is not what its "
                            + "fields produce)", offs[k]);
            }
        }

        /** The bucket a key was written to, or -1 when the design has none. */
        public int bucket(byte[] key) {
            int pos = 0;
            for (Part p : t.parts) {
                if (p.fixed < 0)
                    return -1;
                if (p.fixed > key.length - pos)
                    throw corrupt("key of %d bytes is shorter than its prefix", key.length);
                if (p.kind == P_PSALT) {
                    if ((key[pos] & 0xff) >= p.n)
                        throw corrupt("key byte %d: salt byte %d is not below %d", pos, key[pos] & 0xff, p.n);
                    return key[pos] & 0xff;
                }
                if (p.kind == P_SALT || p.kind == P_BUCKET)
                    return readBucket(p, key, pos);
                pos += p.fixed;
            }
            return -1;
        }

        // ---- scan ranges (plan.c, for fields bound by equality) ----

        /**
         * The rows whose fields equal every non-null value of vals, as the C
         * planner reads them: one range per bucket when the bucket cannot be
         * computed from those fields (only that of bucket `only` when it is not
         * -1), or the keys themselves when every field the key needs is bound
         * ([key, key 00)).
         */
        public List<KeyRange> prefixRanges(Object[] vals, int only) {
            long bound = 0;
            for (int i = 0; i < vals.length; i++)
                if (vals[i] != null)
                    bound |= 1L << i;
            List<byte[]> states = new ArrayList<>();
            List<Integer> buckets = new ArrayList<>();
            states.add(new byte[0]);
            buckets.add(-1);
            int k = 0;
            for (; k < t.parts.length; k++) {
                Part p = t.parts[k];
                long used = used(new Part[] {p});
                if (p.kind == P_LIT) {
                    for (int i = 0; i < states.size(); i++) {
                        W w = new W(t.maxKeyLen, states.get(i));
                        w.put(p.lit);
                        states.set(i, w.bytes());
                    }
                    continue;
                }
                if (p.kind == P_PSALT && (t.pointGet & ~bound) == 0) {
                    byte[] key = encode(vals, -1);
                    return Collections.singletonList(new KeyRange(key, Arrays.copyOf(key, key.length + 1), bucket(key)));
                }
                if (p.kind == P_SALT || p.kind == P_PSALT || (p.kind == P_BUCKET && (used & ~bound) != 0)) {
                    List<byte[]> ns = new ArrayList<>();
                    List<Integer> nb = new ArrayList<>();
                    for (byte[] st : states)
                        for (int b = 0; b < p.n; b++)
                            if (only < 0 || b == only) {
                                ns.add(concat(st, bucketBytes(p, b)));
                                nb.add(b);
                            }
                    states = ns;
                    buckets = nb;
                    continue;
                }
                if ((used & ~bound) != 0)
                    break;
                for (int i = 0; i < states.size(); i++) {
                    W w = new W(t.maxKeyLen, states.get(i));
                    encodeParts(w, t.parts, k, k + 1, vals);
                    states.set(i, w.bytes());
                }
            }
            List<KeyRange> out = new ArrayList<>();
            for (int i = 0; i < states.size(); i++) {
                byte[] st = states.get(i);
                out.add(new KeyRange(st, k == t.parts.length ? Arrays.copyOf(st, st.length + 1) : prefixEnd(st),
                        buckets.get(i)));
            }
            Collections.sort(out, (a, b) -> compare(a.start, b.start));
            return out;
        }

        /** The rows of bucket b. */
        public KeyRange bucketRange(int b) {
            for (KeyRange r : prefixRanges(new Object[t.types.length], b))
                if (r.bucket == b)
                    return r;
            throw invalid("the design has no bucket %d at the start of its keys", b);
        }
    }

    /** Unsigned lexicographic order of byte strings, as HBase and Bigtable sort rows. */
    public static int compare(byte[] a, byte[] b) {
        for (int i = 0; i < Math.min(a.length, b.length); i++)
            if (a[i] != b[i])
                return (a[i] & 0xff) - (b[i] & 0xff);
        return a.length - b.length;
    }

    /** The smallest key above every key that starts with p, or null. */
    static byte[] prefixEnd(byte[] p) {
        int n = p.length;
        while (n > 0 && p[n - 1] == (byte) 0xff)
            n--;
        if (n == 0)
            return null;
        byte[] o = Arrays.copyOf(p, n);
        o[n - 1]++;
        return o;
    }
}
