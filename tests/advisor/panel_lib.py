"""What the panel's runners share: a case's data written (seeded) and
`rowkey suggest` run on it with the case's queries, servers, capacity and
production write rate."""
import csv
import json
import os
import random
import re
import subprocess


def write_data(case, dir):
    rows = case["gen"](random.Random(20261127))
    path = os.path.join(dir, case["name"] + ".csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(case["header"])
        w.writerows(rows)
    return path


def newest_first(case, shape):
    """The shape as the predicate language says "the newest first": where
    the expert noted that reads of a field want its newest rows, a shape that
    binds it by equality reads the twenty newest by the time field the
    expert's key reverses."""
    times = [p[1] for p in case["expert_parts"] if p[0] == "desc"]
    if not times or "ORDER BY" in shape.upper():
        return shape
    for f in case.get("newest_first", []):
        if re.search(r"\b%s\s*=" % re.escape(f), shape):
            return "%s ORDER BY %s DESC LIMIT 20" % (shape, times[0])
    return shape


def load_options(case):
    """The case's cluster and write rate as suggest and analyze take them."""
    o = case.get("options", {})
    args = ["--servers", str(o.get("servers", 16)), "--capacity", str(o.get("capacity", 10000))]
    if "rate" in o:
        args += ["--fixed-rate", "--rate", str(o["rate"])]
    return args


def suggest(rowkey, case, path, seed=1):
    args = [rowkey, "suggest", "--file", path, "--json", "-q", "-n", "40", "--seed", str(seed)]
    args += load_options(case)
    for q in case["queries"]:
        shape, weight = (q, 1) if isinstance(q, str) else q
        args += ["--query", "%g: %s" % (weight, newest_first(case, shape))]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        return None, "suggest exited %d: %s" % (p.returncode, p.stderr.strip()[:300])
    return json.loads(p.stdout), None
