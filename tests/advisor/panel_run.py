#!/usr/bin/env python3
"""The judged panel: cases an independent HBase/Bigtable engineer wrote down
(panel_cases.py, their reasoning in PANEL.md) before seeing the advisor's
answers, each with the key they would choose. For every case the data is
generated (seeded), `rowkey suggest` runs on it with the case's queries,
servers, capacity and production write rate, and its top proposal's key is
compared, part by part, with the expert's (or one of the keys the expert
accepts as equally good).

panel_known.txt lists the cases the advisor does not yet judge as the expert
does, each with what it proposes instead and why. A case not listed whose key
differs fails; so does a listed case that now matches (take it off the list:
the list only shrinks). With --seeds N, each case judged as the expert
chose must also come out the same for suggest --seed 1..N (the queries are
filled from other draws of the data): a ranking that moves with the draws is
no judgement. Usage:

    panel_run.py ROWKEY DIR [--seeds N] [CASE ...]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import panel_cases  # noqa: E402
import panel_lib  # noqa: E402

ROWKEY, DIR = sys.argv[1], sys.argv[2]
ARGS = sys.argv[3:]
SEEDS = 1
if ARGS[:1] == ["--seeds"]:
    SEEDS, ARGS = int(ARGS[1]), ARGS[2:]
ONLY = set(ARGS)


def known_misses():
    out = {}
    with open(os.path.join(HERE, "panel_known.txt")) as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                name, _, why = line.partition("\t")
                out[name] = why
    return out


# ---- the advisor's key as the panel's parts ----

def split_top(s, sep):
    """s split at sep outside parentheses and quotes."""
    out, depth, cur, quote = [], 0, "", None
    for ch in s:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def call(tok):
    """'f(a, b)' -> ('f', ['a', 'b']); an identifier -> (None, [it])."""
    if "(" not in tok:
        return None, [tok]
    name, rest = tok.split("(", 1)
    return name.strip(), split_top(rest[:rest.rfind(")")], ",")


TYPES = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "esc", "str", "bytes",
         "dec", "oc", "ob", "phx"}


def part_of(tok):
    if tok.startswith('"') or tok.startswith("'"):
        return None  # a literal separator
    if tok.endswith(":desc"):
        inner = part_of(tok[:-len(":desc")])
        return ("desc", inner[1]) if inner and inner[0] == "field" else inner
    fn, args = call(tok)
    if fn == "bucket":
        hfn, hargs = call(args[1]) if len(args) > 1 else (None, [])
        return ("salt", int(args[0]), tuple(sorted(hargs if hfn else [])))
    if fn in TYPES or fn is None:
        inner = args[0]
        ifn, iargs = call(inner)
        if ifn == "rts":
            return ("desc", iargs[0])
        if ifn in ("reverse_labels", "rlabels"):
            return ("reverse_labels", iargs[0])
        if ifn in ("tbucket", "time_bucket"):
            return ("time_bucket", iargs[0])
        return ("field", inner) if ifn is None else (ifn, tuple(iargs))
    if fn == "rts":
        return ("desc", args[0])
    if fn in ("reverse_labels", "rlabels"):
        return ("reverse_labels", args[0])
    return (fn, tuple(args))


def parts_of_schema(schema):
    key = schema.split("; key ", 1)[1]
    return [p for p in (part_of(t) for t in split_top(key, " ")) if p]


def field_types(schema):
    fields = schema.split("; key ", 1)[0]
    fields = fields[len("fields "):] if fields.startswith("fields ") else fields
    out = {}
    for f in split_top(fields, ","):
        name, _, typ = f.partition(":")
        out[name.strip()] = typ.strip().split("(")[0]
    return out


def norm(parts):
    out = []
    for p in parts:
        if p[0] == "salt":
            out.append(("salt", p[1], tuple(sorted(p[2]))))
        elif p[0] == "time_bucket":
            out.append(("time_bucket", p[1]))
        else:
            out.append(tuple(p))
    return out


def show(parts):
    return " + ".join("%s(%s)" % (p[0], ", ".join(str(x) for x in p[1:])) for p in parts)


# ---- one case ----

def judge(case):
    """(matched, what the advisor proposed)"""
    path = panel_lib.write_data(case, DIR)
    props, err = panel_lib.suggest(ROWKEY, case, path)
    if err:
        return False, err
    for seed in range(2, SEEDS + 1):
        other, err = panel_lib.suggest(ROWKEY, case, path, seed)
        if err or other[0]["schema"] != props[0]["schema"] or other[0]["design"] != props[0]["design"]:
            return False, "seed 1 proposes %s, seed %d %s" % (props[0]["design"], seed,
                                                            err or other[0]["design"])
    top = props[0]
    tables = [norm(parts_of_schema(t["schema"])) for t in top["tables"]]
    types = field_types(top["schema"])
    for f in case.get("text_times", {}):
        if types.get(f) != "ts":
            return False, "%s typed %s, not a time (%s)" % (f, types.get(f), show(tables[0]))
    want = [norm(case["expert_parts"])] + [norm(a["parts"]) for a in case.get("accept", [])]
    got = show(tables[0]) + "".join(" | " + show(t) for t in tables[1:])
    if tables[0] not in want:
        return False, got
    extra = sorted(show(norm(t)) for t in case.get("index_tables", []))
    if sorted(show(t) for t in tables[1:]) != extra:
        return False, got
    return True, got


def main():
    known = known_misses()
    names = {c["name"] for c in panel_cases.CASES}
    stale = sorted(set(known) - names)
    failures, matched, missed = [], 0, 0
    for case in panel_cases.CASES:
        if ONLY and case["name"] not in ONLY:
            continue
        ok, got = judge(case)
        expert = show(norm(case["expert_parts"]))
        if ok and case["name"] in known:
            failures.append(case["name"])
            print("FAIL %s: now matches the expert (%s): take it off panel_known.txt" % (case["name"], got))
        elif ok:
            matched += 1
            print("ok   %s: %s" % (case["name"], got))
        elif case["name"] in known:
            missed += 1
            print("miss %s (known: %s)\n     advisor %s\n     expert  %s" % (case["name"], known[case["name"]], got, expert))
        else:
            failures.append(case["name"])
            print("FAIL %s\n     advisor %s\n     expert  %s\n     the expert's reasoning: %s" % (case["name"], got, expert, case["why"]))
    for s in stale:
        failures.append(s)
        print("FAIL panel_known.txt names %s, which is no case" % s)
    print("panel: %d as the expert chose, %d known misses, %d failed" % (matched, missed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
