#!/usr/bin/env python3
"""The advisor's figures against the store, on every panel case.

For each case, suggest's top proposal (seed 1) is loaded into an embedded
store, table by table (every record of the file loads: none rejected), and every filled query suggest priced (its "fills")
is run there with `rowkey query --stats`: the rows returned must be the
priced ones, and the rows read too (a plan whose read is an estimate from
sampled keys: within the estimate's bound; a LIMIT over merged streams:
the price is the bound, each stream stopping at the limit, so the store
reads no more). Then the top proposal, and the first proposal that prints
a cause about where writes land, are run by `rowkey analyze --engine both`
from suggest's split points: the simulator's shares, at a time and over the
run, are the store's own counters' within 5 points, so a cause printed
from them is true on the store. Usage:

    panel_store.py ROWKEY DIR [CASE ...]
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import panel_cases  # noqa: E402
import panel_lib  # noqa: E402

ROWKEY, DIR = sys.argv[1], sys.argv[2]
ONLY = set(sys.argv[3:])
WRITE_CAUSES = {"rising_lead", "hot_key", "low_cardinality", "skew", "few_buckets", "few_regions"}
POINTS = 0.05


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(args[:3]), p.returncode, p.stderr.strip()[:400]))
    return p


def store_stats(db, table, where):
    p = run([ROWKEY, "query", "--db", db, "-t", table, "-w", where, "--stats"])
    for line in p.stderr.splitlines():
        if line.startswith("rows: "):
            w = line.split()
            return int(w[1]), int(w[3])
    raise RuntimeError("no --stats line for %s: %s" % (where, p.stderr.strip()[:200]))


def check_reads(case, path, top):
    """Every fill of every shape: priced rows returned and read = the store's."""
    bad, n = [], 0
    db = os.path.join(DIR, case["name"] + ".db")
    shutil.rmtree(db, ignore_errors=True)
    for t, table in enumerate(top["tables"]):
        name = "t%d" % t
        # a uniquifier the data lacks is the writer's to supply: load numbers the records
        fields = [f.split(":")[0].strip() for f in table["schema"].split(";")[0][len("fields "):].split(",")]
        extra = [x for f in fields if f not in case["header"] for x in ("--number", f)]
        run([ROWKEY, "create", "--db", db, name, "-f", "d"])
        out = run([ROWKEY, "load", "--db", db, name, "-s", table["schema"], path] + extra).stdout
        # the proposal's schema loads every record of the file
        if not out.rstrip().endswith(" 0 rejected"):
            bad.append("load under %s: %s" % (table["schema"], out.strip()[-120:]))
    for q in top["queries"]:
        t = q["table"] if q["table"] >= 0 else 0
        for f in q["fills"]:
            ret, rd = store_stats(db, "t%d" % t, f["query"])
            n += 1
            p_read, p_ret = round(f["rows_read"]), round(f["rows_returned"])
            if ret != p_ret:
                bad.append("%s: priced %d returned, the store returned %d" % (f["query"], p_ret, ret))
            elif f["estimated"] or (q["merge_ways"] and "LIMIT" in f["query"].upper()):
                if rd > max(p_read, ret) * 1.5 + 20:
                    bad.append("%s: priced %d read (a bound), the store read %d" % (f["query"], p_read, rd))
            elif rd != p_read:
                bad.append("%s: priced %d read, the store read %d" % (f["query"], p_read, rd))
    return n, bad


def numbered(case, path, schema):
    """path, or a copy with the uniquifier column the writer supplies (the
    record's number, as load --number writes it) when the schema's key has one."""
    fields = [f.split(":")[0].strip() for f in schema.split(";")[0][len("fields "):].split(",")]
    extra = [f for f in fields if f not in case["header"]]
    if not extra:
        return path
    out = path + ".numbered"
    with open(path) as src, open(out, "w") as dst:
        for i, line in enumerate(src):
            dst.write(line.rstrip("\n") + "," + (",".join(extra) if i == 0 else str(i)) + "\n")
    return out


def check_shares(case, path, prop):
    """The proposal's write shares, simulator against the store's counters."""
    path = numbered(case, path, prop["schema"])
    splits = os.path.join(DIR, case["name"] + ".splits")
    with open(splits, "w") as f:
        for s in prop["splits"]:
            f.write("".join("\\x%s" % s[i:i + 2] for i in range(0, len(s), 2)) + "\n")
    p = run([ROWKEY, "analyze", "-w", "file", "--file", path, "-s", prop["schema"], "--engine", "both",
             "--json", "--splits", splits] + panel_lib.load_options(case))
    sim, store = json.loads(p.stdout)
    out = []
    for k, what in (("peak_share", "at a time"), ("hottest_share", "over the run")):
        if abs(sim[k] - store[k]) > POINTS:
            out.append("%s: the busiest server's share %s: simulator %.1f%%, store %.1f%%"
                       % (prop["design"], what, 100 * sim[k], 100 * store[k]))
    return out


def main():
    failures = 0
    for case in panel_cases.CASES:
        if ONLY and case["name"] not in ONLY:
            continue
        path = panel_lib.write_data(case, DIR)
        props, err = panel_lib.suggest(ROWKEY, case, path)
        try:
            if err:
                raise RuntimeError(err)
            n, bad = check_reads(case, path, props[0])
            judged = [props[0]] + [p for p in props[1:4]
                                   if any(c["kind"] in WRITE_CAUSES for c in p["causes"])][:1]
            for p in judged:
                bad += check_shares(case, path, p)
        except RuntimeError as e:
            n, bad = 0, [str(e)]
        if bad:
            failures += 1
            print("FAIL %s\n     %s" % (case["name"], "\n     ".join(bad[:6])))
        else:
            print("ok   %s: %d queries read as priced; shares agree for %s"
                  % (case["name"], n, ", ".join(p["design"] for p in judged)))
    print("panel on the store: %d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
