#!/usr/bin/env python3
"""Hostile record inputs across the commands that read records (encode, load,
profile, analyze, suggest), in CSV and JSON lines: malformed UTF-8, NULs,
huge fields, deep JSON, signs and overflows in every type, headers that lie,
empty files, directories and special files. Each case asserts the exact exit
code, a message that says where when it fails, and for load that nothing was
half written: the table holds exactly the good records, each with all its
cells.

    hostile_records.py ROWKEY DIR
"""
import json
import os
import subprocess
import sys

R, DIR = sys.argv[1], sys.argv[2]
cases = 0
failures = []


def run(args, stdin=None, timeout=60):
    p = subprocess.run([R] + args, input=stdin, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def case(name, want_rc, args, stdin=None, err_has=None, out_has=None, check=None):
    global cases
    cases += 1
    try:
        rc, out, err = run(args, stdin)
    except subprocess.TimeoutExpired:
        failures.append("%s: hung" % name)
        return
    why = []
    if rc != want_rc:
        why.append("exit %d, wanted %d" % (rc, want_rc))
    if rc < 0:
        why.append("killed by signal %d" % -rc)
    if want_rc != 0 and not err.strip():
        why.append("no message")
    if err_has and err_has not in err:
        why.append("message lacks %r" % err_has)
    if out_has and out_has.encode() not in out:
        why.append("output lacks %r" % out_has)
    if check and not why:
        c = check(out, err)
        if c:
            why.append(c)
    if why:
        failures.append("%s: %s\n    rowkey %s\n    stderr: %s" % (name, "; ".join(why), " ".join(args)[:200], err[:300]))


def path(name, data):
    p = os.path.join(DIR, name)
    with open(p, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return p


# ---- every type, every hostile value, both formats, through encode ----

# (type, value text, accepted?)
VALUES = {
    "u8": [("0", 1), ("255", 1), ("256", 0), ("-1", 0), ("+1", 0), (" 1", 0), ("1.0", 0), ("1e2", 0), ("0x10", 0), ("", 0)],
    "u16": [("65535", 1), ("65536", 0), ("-0", 0), ("007", 1), ("9" * 30, 0)],
    "u32": [("4294967295", 1), ("4294967296", 0), ("-4294967295", 0), ("1_000", 0), ("１", 0)],
    "u64": [("18446744073709551615", 1), ("18446744073709551616", 0), ("-1", 0), ("99999999999999999999999", 0), ("nan", 0)],
    "i8": [("-128", 1), ("127", 1), ("128", 0), ("-129", 0), ("--1", 0)],
    "i16": [("-32768", 1), ("32768", 0), ("-32769", 0)],
    "i32": [("-2147483648", 1), ("2147483648", 0), ("-2147483649", 0), ("2147483647", 1)],
    "i64": [("-9223372036854775808", 1), ("9223372036854775807", 1), ("9223372036854775808", 0), ("-9223372036854775809", 0), ("1e18", 0)],
    "f64": [("1.5", 1), ("-0", 1), ("1e308", 1), ("1e309", 1), ("inf", 1), ("nan", 1), ("1.5x", 0), ("", 0), ("0x1p3", 1), (".5", 1)],
    "ts": [("1700000000000", 1), ("2024-01-02T03:04:05Z", 1), ("2024-01-02", 1), ("2024-02-30", 0), ("2024-01-02T25:00", 0), ("yesterday", 0), ("2024-01-02T03:04:05+01:30", 1), ("-1", 1)],
    "str": [("", 1), ("x" * 2000, 1), ("a,b", 1), ('say "hi"', 1), ("\u00e9\u4e2d", 1), ("tab\there", 1)],
}


def csv_quote(v):
    if any(c in v for c in ',"\r\n') or v != v.strip():
        return '"' + v.replace('"', '""') + '"'
    return v


for ty, vals in VALUES.items():
    schema = "fields v:%s, k:u32; key u32(k) %s" % (ty, "esc(v)" if ty == "str" else "%s(v)" % ("i64" if ty == "ts" else ty) if ty != "f64" else "f64(v)")
    for i, (v, good) in enumerate(vals):
        name = "encode-%s-%d" % (ty, i)
        data = "v,k\n%s,1\n" % csv_quote(v)
        case(name + "-csv", 0 if good else 1, ["encode", "-s", schema], stdin=data.encode(),
             err_has=None if good else "line 2")
        # JSON: as a string, and as a number when the text is one JSON can write
        js = json.dumps({"v": v, "k": 1}) + "\n"
        case(name + "-jsonstr", 0 if (good and (ty != "str" or True)) else 1,
             ["encode", "-s", schema, "-f", "jsonl"], stdin=js.encode(), err_has=None if good else "line 1")
        try:
            num = json.loads(v) if v and v[0] in "-0123456789" else None
        except ValueError:
            num = None
        if isinstance(num, (int, float)) and not isinstance(num, bool) and v == json.dumps(num):
            js = '{"v": %s, "k": 1}\n' % v
            case(name + "-jsonnum", 0 if good else 1, ["encode", "-s", schema, "-f", "jsonl"],
                 stdin=js.encode(), err_has=None if good else "line 1")
    # a boolean is never a number, nor a string
    case("encode-%s-bool" % ty, 1, ["encode", "-s", schema, "-f", "jsonl"],
         stdin=b'{"v": true, "k": 1}\n', err_has="boolean")
    # null is a missing value: the key needs v, so the record is refused
    case("encode-%s-null" % ty, 1, ["encode", "-s", schema, "-f", "jsonl"],
         stdin=b'{"v": null, "k": 1}\n', err_has="line 1")

# ---- record structure: CSV ----

S = "fields a:u32, s:str; key u32(a) esc(s)"
CSV = [
    ("empty-file", b"", 1, "empty"),
    ("header-only", b"a,s\n", 0, None),
    ("bom", b"\xef\xbb\xbfa,s\n1,x\n", 0, None),
    ("crlf", b"a,s\r\n1,x\r\n", 0, None),
    ("no-final-newline", b"a,s\n1,x", 0, None),
    ("blank-lines", b"a,s\n\n1,x\n\n\n2,y\n", 0, None),
    ("quoted-crlf-kept", b'a,s\n1,"x\r\ny"\n', 0, None),
    ("quoted-cr-kept", b'a,s\n1,"x\ry"\n', 0, None),
    ("doubled-quotes", b'a,s\n1,"say ""hi"""\n', 0, None),
    ("lone-cr", b"a,s\n1,x\ry\n", 1, "line 2"),
    ("unterminated-quote", b'a,s\n1,"open\n', 1, "never ends"),
    ("text-after-quote", b'a,s\n1,"x"y\n', 1, "after the closing quote"),
    ("too-many-cells", b"a,s\n1,x,extra\n", 1, "3 cells, but the header names 2"),
    ("too-few-cells", b"a,s\n1\n", 1, "1 cells"),
    ("header-dup", b"a,a\n1,2\n", 1, "names column 'a' twice"),
    ("header-empty-name", b"a,,s\n1,2,x\n", 1, "has no name"),
    ("header-missing-key-field", b"s,b\nx,1\n", 1, "no column 'a', which the key needs"),
    ("header-reordered", b"s,a\nx,1\n", 0, None),
    ("header-extra-column", b"a,s,zz\n1,x,9\n", 0, None),
    ("nul-in-str", b"a,s\n1,x\x00y\n", 0, None),
    ("nul-in-number", b"a,s\n1\x002,x\n", 1, "NUL"),
    ("bad-utf8-csv", b"a,s\n1,\xff\xfe\n", 0, None),
    ("only-newlines", b"\n\n\n", 1, "empty"),
    ("4097-cells", ("a,s" + ",x" * 4095 + "\n").encode(), 1, "more than 4096 cells"),
]
for name, data, rc, msg in CSV:
    case("csv-" + name, rc, ["encode", "-s", S], stdin=data, err_has=msg)
    case("csv-" + name + "-profile", 0 if rc == 0 and name not in ("header-only",) else 1,
         ["profile", path("p-" + name + ".csv", data)], check=None) if name in (
        "bom", "crlf", "no-final-newline", "blank-lines", "quoted-crlf-kept", "header-reordered",
        "header-dup", "empty-file", "only-newlines", "header-only") else None

# ---- record structure: JSON lines ----

JL = [
    ("object", b'{"a": 1, "s": "x"}\n', 0, None),
    ("blank-lines", b'\n{"a": 1, "s": "x"}\n\n', 0, None),
    ("crlf", b'{"a": 1, "s": "x"}\r\n', 0, None),
    ("nested-object", b'{"a": 1, "s": {"x": 1}}\n', 1, "nested"),
    ("nested-array", b'{"a": 1, "s": [1]}\n', 1, "nested"),
    ("deep", (b'{"a": 1, "s": ' + b"[" * 10000 + b"]" * 10000 + b"}\n"), 1, "nested"),
    ("dup-member", b'{"a": 1, "a": 2, "s": "x"}\n', 1, "given twice"),
    ("trailing-text", b'{"a": 1, "s": "x"} junk\n', 1, "text after the object"),
    ("two-objects", b'{"a": 1, "s": "x"}{"a": 2}\n', 1, "text after"),
    ("array-record", b"[1, \"x\"]\n", 1, "expected a JSON object"),
    ("bad-escape", b'{"a": 1, "s": "\\q"}\n', 1, "bad escape"),
    ("lone-high-surrogate", b'{"a": 1, "s": "\\ud800"}\n', 1, "surrogate"),
    ("lone-low-surrogate", b'{"a": 1, "s": "\\udc00"}\n', 1, "surrogate"),
    ("pair-surrogate", b'{"a": 1, "s": "\\ud83d\\ude00"}\n', 0, None),
    ("bad-utf8", b'{"a": 1, "s": "\xff"}\n', 1, "UTF-8"),
    ("overlong-utf8", b'{"a": 1, "s": "\xc0\xaf"}\n', 1, "UTF-8"),
    ("raw-tab", b'{"a": 1, "s": "x\ty"}\n', 1, "control character"),
    ("raw-nul", b'{"a": 1, "s": "x\x00y"}\n', 1, "control character"),
    ("escaped-nul", b'{"a": 1, "s": "x\\u0000y"}\n', 0, None),
    ("unterminated-string", b'{"a": 1, "s": "x\n', 1, "never ends"),
    ("missing-colon", b'{"a" 1}\n', 1, "expected ':'"),
    ("missing-value", b'{"a": }\n', 1, "expected a value"),
    ("leading-zero", b'{"a": 01, "s": "x"}\n', 1, "line 1"),
    ("plus-sign", b'{"a": +1, "s": "x"}\n', 1, "expected a value"),
    ("float-into-u32", b'{"a": 1.5, "s": "x"}\n', 1, "field 'a'"),
    ("exp-into-u32", b'{"a": 1e3, "s": "x"}\n', 1, "field 'a'"),
    ("neg-into-u32", b'{"a": -1, "s": "x"}\n', 1, "field 'a'"),
    ("huge-into-u32", b'{"a": 99999999999999999999, "s": "x"}\n', 1, "field 'a'"),
    ("string-number", b'{"a": "12", "s": "x"}\n', 0, None),
    ("number-into-str", b'{"a": 1, "s": 12}\n', 0, None),
    ("bool-into-str", b'{"a": 1, "s": false}\n', 1, "boolean"),
    ("null-key-field", b'{"a": null, "s": "x"}\n', 1, "line 1"),
    ("unknown-member", b'{"a": 1, "s": "x", "z": 1}\n', 0, None),
    ("empty-object", b"{}\n", 1, "line 1"),
    ("not-json", b"hello\n", 1, "line 1"),
]
for name, data, rc, msg in JL:
    case("jsonl-" + name, rc, ["encode", "-s", S, "-f", "jsonl"], stdin=data, err_has=msg)

# ---- limits: long records cost the limit, not their length ----

big = b"a,s\n1," + b"y" * 3000000 + b"\n2,ok\n"
SZ = "fields a:u32, s:str; key u32(a)"
case("limit-csv-default-ok", 0, ["encode", "-s", SZ], stdin=big)
case("limit-csv-small", 1, ["encode", "-s", S, "--max-record", "1000"], stdin=big, err_has="longer than 1000 bytes")
case("limit-csv-skip", 0, ["encode", "-s", S, "--max-record", "1000", "--on-error", "skip"], stdin=big,
     err_has="skipped 1 of 2", out_has="\\x00\\x00\\x00\\x02ok")
bigj = b'{"a": 1, "s": "' + b"y" * 3000000 + b'"}\n{"a": 2, "s": "ok"}\n'
case("limit-jsonl-small", 1, ["encode", "-s", S, "-f", "jsonl", "--max-record", "1000"], stdin=bigj, err_has="longer than")
noeol = b"a,s\n1," + b"z" * 20000000
case("limit-no-newline", 1, ["encode", "-s", S, "--max-record", "65536"], stdin=noeol, err_has="longer than 65536")
for bad in ("0", "-1", "x", "3000000000", ""):
    case("limit-option-" + (bad or "empty"), 2, ["encode", "-s", S, "--max-record", bad], stdin=b"a,s\n1,x\n", err_has="--max-record")

# ---- files that are not files ----

os.makedirs(os.path.join(DIR, "adir"), exist_ok=True)
for cmd in (["profile"], ["suggest", "-q", "--file"], ["analyze", "-s", S, "--file"]):
    tag = cmd[0]
    case(tag + "-directory", 1, cmd + [os.path.join(DIR, "adir")])
    case(tag + "-missing", 1, cmd + [os.path.join(DIR, "missing.csv")], err_has="missing.csv")
    case(tag + "-empty", 1, cmd + [path("empty-%s.csv" % tag, b"")], err_has="empty")
    case(tag + "-header-only", 1, cmd + [path("ho-%s.csv" % tag, b"a,s\n")], err_has="no records")
    case(tag + "-devnull", 1, cmd + ["/dev/null"])
    # the CLI adds no third name to the message's two, and the first rejected
    # record's error is closed with its parenthesis
    p = path("unclosed-%s.csv" % tag, b'a,s\n1,"x\n')
    case(tag + "-unclosed", 1, cmd + [p], err_has="the quoted cell never ends)",
         check=lambda out, err, p=p: None if err.count(p) == 2 else "names %s %d times" % (p, err.count(p)))
    long_name = "summary (" + "w" * 80 + ")"
    case(tag + "-long-header", 1, cmd + [path("long-%s.tsv" % tag, "a\t%s\n1\tx\n" % long_name)],
         err_has="field 2's name ('summary (wwwwwwwwwww...') is 90 bytes, more than 63: rename the column")
case("encode-in-directory", 1, ["encode", "-s", S, "--in", os.path.join(DIR, "adir")])
case("encode-in-missing", 1, ["encode", "-s", S, "--in", os.path.join(DIR, "nope")], err_has="nope")
case("load-file-directory", 1, ["load", "--db", os.path.join(DIR, "db-dir"), "t", "-s", S, os.path.join(DIR, "adir")])

# ---- load: nothing half written ----

DB = os.path.join(DIR, "db")
rc, _, err = run(["create", "--db", DB, "t", "-f", "d"])
assert rc == 0, err


def rows_in(table):
    rc, out, _ = run(["scan", "--db", DB, table])
    rows = {}
    for line in out.decode("utf-8", "replace").splitlines():
        parts = line.split("\t")
        if len(parts) >= 2:
            rows.setdefault(parts[0], set()).add(parts[1])
    return rows


def table_holds(table, n, cells):
    def check(out, err):
        rows = rows_in(table)
        if len(rows) != n:
            return "table %s holds %d rows, wanted %d" % (table, len(rows), n)
        for k, cs in rows.items():
            if len(cs) != cells:
                return "row %s has %d cells, wanted %d (half written)" % (k, len(cs), cells)
        return None
    return check


LOADS = [
    # name, data, format, extra args, exit, good rows
    ("mixed-csv", b"a,s\n1,x\n-1,y\n2,z\n99999999999,w\n3,v\n", [], 0, 3),
    ("mixed-jsonl", b'{"a":1,"s":"x"}\n{"a":true,"s":"y"}\n{"a":2,"s":"z"}\n{"a":2,"s":{"n":1}}\n', ["--format", "jsonl"], 0, 2),
    ("strict-stops", b"a,s\n1,x\n2,y\nbad,z\n3,w\n", ["--strict"], 1, 0),
    ("header-refused", b"timestamp,user\n1,2\n", [], 1, 0),
    ("dup-header", b"a,a,s\n1,2,x\n", [], 1, 0),
    ("long-record", b"a,s\n1," + b"q" * 5000 + b"\n2,ok\n", ["--max-record", "1000"], 0, 1),
    ("bad-utf8-json", b'{"a":1,"s":"ok"}\n{"a":2,"s":"\xff"}\n', ["--format", "jsonl"], 0, 1),
    ("no-header-positional", b"1,x\n2,y\n", ["--no-header"], 0, 2),
    ("no-header-short", b"1,x\n2\n", ["--no-header"], 0, 1),
]
for i, (name, data, extra, rc, good) in enumerate(LOADS):
    table = "l%d" % i
    run(["create", "--db", DB, table, "-f", "d"])
    case("load-" + name, rc, ["load", "-q", "--db", DB, table, "-s", S] + extra + [path(name, data)],
         check=table_holds(table, good, 2))

print("hostile records: %d cases, %d failed" % (cases, len(failures)))
for f in failures:
    print("FAIL " + f)
sys.exit(1 if failures else 0)
