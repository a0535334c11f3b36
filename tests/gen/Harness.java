// Checks generated Java encoders against rowkey's test vectors: the same
// checks as tests/gen/harness.py (see there), over every design in one JVM.
// The designs' classes are found by name (d12 -> class D12) and driven by
// reflection through their builders, accessors and Codec. Java strings are
// Unicode, so a str field that decodes to bytes that are not UTF-8 must be
// refused as a corrupt key.
//
// usage: java Harness MANIFEST (lines "<design> <vectors file>")

import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Harness {
    static int failures;

    // ---- a small JSON reader: objects, arrays, strings, numbers (kept as text), literals ----

    static final class Json {
        final String s;
        int i;

        Json(String s) {
            this.s = s;
        }

        Object value() {
            ws();
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++;
                ws();
                if (s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                for (;;) {
                    ws();
                    String k = string();
                    ws();
                    i++; // ':'
                    m.put(k, value());
                    ws();
                    if (s.charAt(i++) == '}')
                        return m;
                }
            }
            if (c == '[') {
                List<Object> l = new ArrayList<>();
                i++;
                ws();
                if (s.charAt(i) == ']') {
                    i++;
                    return l;
                }
                for (;;) {
                    l.add(value());
                    ws();
                    if (s.charAt(i++) == ']')
                        return l;
                }
            }
            if (c == '"')
                return string();
            int start = i;
            while (i < s.length() && ",}] ".indexOf(s.charAt(i)) < 0)
                i++;
            String t = s.substring(start, i);
            if (t.equals("null"))
                return null;
            if (t.equals("true") || t.equals("false"))
                return Boolean.valueOf(t);
            return new Num(t);
        }

        String string() {
            StringBuilder b = new StringBuilder();
            i++;
            for (;;) {
                char c = s.charAt(i++);
                if (c == '"')
                    return b.toString();
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = s.charAt(i++);
                switch (e) {
                case 'n': b.append('\n'); break;
                case 't': b.append('\t'); break;
                case 'r': b.append('\r'); break;
                case 'b': b.append('\b'); break;
                case 'f': b.append('\f'); break;
                case 'u':
                    b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                    break;
                default: b.append(e);
                }
            }
        }

        void ws() {
            while (i < s.length() && s.charAt(i) == ' ')
                i++;
        }
    }

    static final class Num {
        final String text;

        Num(String t) {
            text = t;
        }
    }

    static final class BadUtf8 {}

    // ---- one design ----

    static final class Design {
        final String name;
        final Class<?> cls, builderCls, codecCls;
        final String[][] fields;
        final Map<String, String> types = new LinkedHashMap<>();
        final Map<String, Boolean> decodes = new LinkedHashMap<>();
        Object codec;
        int bad;
        List<Object[]> ordered = new ArrayList<>();

        Design(String name) throws Exception {
            this.name = name;
            cls = Class.forName("D" + name.substring(1));
            builderCls = Class.forName(cls.getName() + "$Builder");
            codecCls = Class.forName(cls.getName() + "$Codec");
            fields = (String[][]) cls.getField("FIELDS").get(null);
        }

        void fail(int line, String msg) {
            failures++;
            bad++;
            if (failures <= 200)
                System.out.println("FAIL " + name + " line " + line + ": " + msg);
        }

        Class<?> boxed(String t) {
            switch (t) {
            case "u32": case "u64": case "i64": return Long.class;
            case "f64": return Double.class;
            case "str": return String.class;
            case "bytes": return byte[].class;
            default: return Integer.class;
            }
        }

        Object value(Object j, String t) {
            switch (t) {
            case "u64": return Long.parseUnsignedLong((String) j);
            case "i64": return Long.parseLong((String) j);
            case "u32": return Long.parseLong(((Num) j).text);
            case "f64":
                if (j instanceof String)
                    return j.equals("nan") ? Double.NaN : j.equals("inf") ? Double.POSITIVE_INFINITY
                            : Double.NEGATIVE_INFINITY;
                return Double.parseDouble(((Num) j).text);
            case "str": return j instanceof String ? j : new BadUtf8();
            case "bytes": return hex((String) j);
            default: return Integer.parseInt(((Num) j).text);
            }
        }

        @SuppressWarnings("unchecked")
        Object record(Object fieldsJson) throws Exception {
            Map<String, Object> m = (Map<String, Object>) fieldsJson;
            Object b = method(cls, "builder").invoke(null);
            for (String[] f : fields)
                if (m.containsKey(f[0]))
                    method(builderCls, f[1], boxed(f[2])).invoke(b, value(m.get(f[0]), f[2]));
            return method(builderCls, "build").invoke(b);
        }

        Object get(Object rec, String member) throws Exception {
            return method(cls, member).invoke(rec);
        }

        @SuppressWarnings("unchecked")
        void expect(int line, Object got, Object want, boolean onlyDecoded) throws Exception {
            Map<String, Object> m = (Map<String, Object>) want;
            for (String[] f : fields) {
                Object g = get(got, f[1]);
                boolean given = m.containsKey(f[0]) && (!onlyDecoded || decodes.get(f[0]));
                Object w = given ? value(m.get(f[0]), f[2]) : null;
                if (!same(g, w))
                    fail(line, "field " + f[0] + ": expected " + show(w) + ", got " + show(g));
            }
        }

        final Map<String, Method> methods = new LinkedHashMap<>();

        Method method(Class<?> c, String name, Class<?>... types) throws Exception {
            String k = c.getName() + "." + name + Arrays.toString(types);
            Method m = methods.get(k);
            if (m == null)
                methods.put(k, m = c.getMethod(name, types));
            return m;
        }

        Object call(String name, Class<?> type, Object arg) throws Throwable {
            try {
                return method(codecCls, name, type).invoke(codec, arg);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    static boolean same(Object a, Object b) {
        if (a instanceof Double && b instanceof Double)
            return Double.doubleToRawLongBits((Double) a) == Double.doubleToRawLongBits((Double) b)
                    || (((Double) a).isNaN() && ((Double) b).isNaN());
        if (a instanceof byte[] && b instanceof byte[])
            return Arrays.equals((byte[]) a, (byte[]) b);
        return a == null ? b == null : a.equals(b);
    }

    static String show(Object o) {
        return o instanceof byte[] ? hexOf((byte[]) o) : String.valueOf(o);
    }

    static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++)
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    static String hexOf(byte[] b) {
        char[] c = new char[2 * b.length];
        for (int i = 0; i < b.length; i++) {
            c[2 * i] = "0123456789abcdef".charAt((b[i] >> 4) & 15);
            c[2 * i + 1] = "0123456789abcdef".charAt(b[i] & 15);
        }
        return new String(c);
    }

    static String kind(Throwable e) {
        if (!(e instanceof RowKeyRuntime.RowKeyException))
            return "unexpected " + e;
        switch (((RowKeyRuntime.RowKeyException) e).kind()) {
        case INVALID: return "invalid";
        case TOO_LONG: return "toolong";
        default: return "corrupt";
        }
    }

    static String ranges(List<RowKeyRuntime.KeyRange> rs) {
        StringBuilder sb = new StringBuilder();
        for (RowKeyRuntime.KeyRange r : rs)
            sb.append(range(r.start, r.stop, r.bucket)).append(';');
        return sb.toString();
    }

    static String range(byte[] start, byte[] stop, int bucket) {
        return hexOf(start) + " " + (stop == null ? "null" : hexOf(stop)) + " " + bucket;
    }

    // a record's order tuple: unsigned longs for numbers, bytes for strings
    static Object[] tuple(Design d, Object rec, List<Object> order) throws Exception {
        Object[] t = new Object[order.size()];
        for (int k = 0; k < t.length; k++)
            for (String[] f : d.fields)
                if (f[0].equals(order.get(k))) {
                    Object v = d.get(rec, f[1]);
                    if (v instanceof Double) {
                        double x = (Double) v;
                        long b = Double.isNaN(x) ? 0x7ff8000000000000L : Double.doubleToRawLongBits(x);
                        t[k] = b < 0 ? ~b : b ^ Long.MIN_VALUE;
                    } else if (v instanceof String) {
                        t[k] = ((String) v).getBytes(StandardCharsets.UTF_8);
                    } else if (v instanceof byte[]) {
                        t[k] = v;
                    } else {
                        long x = ((Number) v).longValue();
                        t[k] = f[2].equals("u64") ? x : x ^ Long.MIN_VALUE; // signed order as unsigned
                    }
                }
        return t;
    }

    static int cmp(Object[] a, Object[] b) {
        for (int k = 0; k < a.length; k++) {
            int c = a[k] instanceof Long ? Long.compareUnsigned((Long) a[k], (Long) b[k])
                    : RowKeyRuntime.compare((byte[]) a[k], (byte[]) b[k]);
            if (c != 0)
                return c;
        }
        return 0;
    }

    @SuppressWarnings("unchecked")
    static int check(String name, String path) throws Exception {
        Design d = new Design(name);
        int n = 1, count = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new FileInputStream(path), StandardCharsets.UTF_8))) {
            Map<String, Object> hdr = (Map<String, Object>) new Json(r.readLine()).value();
            for (Object o : (List<Object>) hdr.get("fields")) {
                Map<String, Object> f = (Map<String, Object>) o;
                d.types.put((String) f.get("name"), (String) f.get("type"));
                d.decodes.put((String) f.get("name"), (Boolean) f.get("decodes"));
            }
            List<Object> order = (List<Object>) hdr.get("order");
            if (!d.cls.getField("SCHEMA").get(null).equals(hdr.get("schema"))
                    || (int) d.cls.getField("FORMAT_VERSION").get(null) != Integer.parseInt(((Num) hdr.get("format")).text)
                    || (int) d.cls.getField("BUCKETS").get(null) != Integer.parseInt(((Num) hdr.get("buckets")).text))
                d.fail(1, "embedded schema, format or buckets differ from the vectors'");
            long seed = Long.parseUnsignedLong(((Num) hdr.get("seed")).text);
            d.codec = d.codecCls.getConstructor(long.class).newInstance(seed);
            for (String line; (line = r.readLine()) != null;) {
                n++;
                count++;
                if (d.bad < 20)
                    line(d, n, (Map<String, Object>) new Json(line).value(), order);
            }
        }
        d.ordered.sort((a, b) -> cmp((Object[]) a[0], (Object[]) b[0]));
        for (int i = 1; i < d.ordered.size(); i++) {
            Object[] a = d.ordered.get(i - 1), b = d.ordered.get(i);
            int t = cmp((Object[]) a[0], (Object[]) b[0]);
            int k = RowKeyRuntime.compare((byte[]) a[1], (byte[]) b[1]);
            if ((t < 0 && k >= 0) || (t == 0 && k != 0))
                d.fail((Integer) b[2], "order: the record of line " + a[2] + " sorts before this one, its key does not");
        }
        return count;
    }

    @SuppressWarnings("unchecked")
    static void line(Design d, int n, Map<String, Object> v, List<Object> order) throws Exception {
        String wantErr = (String) v.get("error");
        if (v.containsKey("encode")) {
            Object rec = d.record(v.get("encode"));
            byte[] key;
            try {
                key = (byte[]) d.call("encode", d.cls, rec);
            } catch (Throwable e) {
                if (wantErr == null)
                    d.fail(n, "encode refused (" + e + "), expected key " + v.get("key"));
                else if (!kind(e).equals(wantErr))
                    d.fail(n, "encode: error " + e + ", expected " + wantErr + " (" + v.get("message") + ")");
                return;
            }
            if (wantErr != null) {
                d.fail(n, "encode gave " + hexOf(key) + ", expected error " + wantErr + " (" + v.get("message") + ")");
                return;
            }
            if (!hexOf(key).equals(v.get("key"))) {
                d.fail(n, "encode gave " + hexOf(key) + ", expected " + v.get("key"));
                return;
            }
            try {
                if (v.containsKey("bucket") && (int) d.call("bucketOf", byte[].class, key)
                        != Integer.parseInt(((Num) v.get("bucket")).text))
                    d.fail(n, "bucketOf gave " + d.call("bucketOf", byte[].class, key));
                d.expect(n, d.call("decode", byte[].class, key), v.get("encode"), true);
            } catch (Throwable e) {
                d.fail(n, "decode of its own key refused: " + e);
                return;
            }
            if (order != null)
                d.ordered.add(new Object[] {tuple(d, rec, order), key, n});
        } else if (v.containsKey("decode")) {
            boolean badUtf8 = false;
            if (v.containsKey("fields"))
                for (Object x : ((Map<String, Object>) v.get("fields")).values())
                    badUtf8 |= x instanceof Map;
            Object got;
            try {
                got = d.call("decode", byte[].class, hex((String) v.get("decode")));
            } catch (Throwable e) {
                if (!kind(e).equals("corrupt") || (wantErr == null && !badUtf8))
                    d.fail(n, "decode refused (" + e + "), expected " + v.get("fields"));
                return;
            }
            if (wantErr != null || badUtf8) {
                d.fail(n, "decode accepted a key the library refuses or that is not UTF-8");
                return;
            }
            d.expect(n, got, v.get("fields"), false);
        } else {
            Map<String, Object> bound = (Map<String, Object>) v.get("prefix");
            List<RowKeyRuntime.KeyRange> got;
            try {
                got = (List<RowKeyRuntime.KeyRange>) d.call("prefixRanges", d.cls, d.record(bound));
            } catch (Throwable e) {
                if (!kind(e).equals(wantErr))
                    d.fail(n, "prefixRanges refused (" + e + "), expected " + v.get("ranges"));
                return;
            }
            if (wantErr != null) {
                d.fail(n, "prefixRanges gave " + ranges(got) + ", expected error " + wantErr);
                return;
            }
            StringBuilder want = new StringBuilder();
            for (Object o : (List<Object>) v.get("ranges")) {
                Map<String, Object> r = (Map<String, Object>) o;
                int b = Integer.parseInt(((Num) r.get("bucket")).text);
                String one = r.get("start") + " " + (r.get("stop") == null ? "null" : r.get("stop")) + " " + b;
                want.append(one).append(';');
                if (bound.isEmpty() && b >= 0) {
                    RowKeyRuntime.KeyRange br;
                    try {
                        br = (RowKeyRuntime.KeyRange) d.call("bucketRange", int.class, b);
                    } catch (Throwable e) {
                        d.fail(n, "bucketRange(" + b + ") refused: " + e);
                        continue;
                    }
                    if (!range(br.start, br.stop, br.bucket).equals(one))
                        d.fail(n, "bucketRange(" + b + ") gave " + range(br.start, br.stop, br.bucket));
                }
            }
            if (!ranges(got).equals(want.toString()))
                d.fail(n, "prefixRanges gave " + ranges(got) + ", expected " + want);
        }
    }

    public static void main(String[] args) throws Exception {
        int designs = 0, vectors = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new FileInputStream(args[0]), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null;) {
                String[] p = line.trim().split(" ");
                vectors += check(p[0], p[1]);
                designs++;
            }
        } catch (IOException e) {
            throw e;
        }
        System.out.println("java: " + designs + " designs, " + vectors + " vectors, " + failures + " failures");
        System.exit(failures > 0 ? 1 : 0);
    }
}
