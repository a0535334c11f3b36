#!/usr/bin/env bash
# rowkey keyviz and rowkey serve --http: the live Key Visualizer page's
# server and JSON (docs/serve.md, "The live page"), read with python3 (the
# browser test is keyviz_browser.sh): the page and its assets built into
# the binary, /api/tables and /api/heatmap of a store loaded through a
# schema (keys decoded into their fields, a prefix hierarchy, regions with
# their servers, the hottest ranges, counts equal to the rows loaded), a
# zoom into a key range and a time window, a table with no load recorded
# yet (an empty map, 200, not an error), clear 400s for bad arguments,
# read-only (405), loopback only by its Host (403), and usage errors.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# a salted sequential key: 8 buckets, ids growing in each
S='fields id:u64, ts:ts, msg:str; key bucket(8, xxh3(id)) u64(ts) u64(id)'
"$ROWKEY" create --db "$T/db" ev -f d --buckets 8 >/dev/null || fail "create"
python3 -c 'print("id,ts,msg"); [print(f"{i},{1700000000000 + i},m{i}") for i in range(4000)]' >"$T/in.csv"
"$ROWKEY" load --db "$T/db" ev -s "$S" "$T/in.csv" >/dev/null 2>"$T/err" || { cat "$T/err"; fail "load"; }
"$ROWKEY" create --db "$T/db" fresh -f d >/dev/null || fail "create fresh" # nothing written to it

# usage errors
"$ROWKEY" keyviz --db "$T/db" --http nonsense:x >/dev/null 2>"$T/err"; [ $? = 2 ] || fail "a bad --http is a usage error"
grep -q "is not \[HOST:\]PORT" "$T/err" || { cat "$T/err"; fail "the usage error says why"; }
"$ROWKEY" keyviz --help | grep -q "usage: rowkey keyviz" || fail "keyviz --help"

start() { # start OUT ARGS...: sets ADDR from the line it prints, PID
	local out=$1
	shift
	: >"$out"
	"$@" >"$out" 2>"$out.err" &
	PID=$!
	PIDS+=("$PID")
	ADDR=
	for _ in $(seq 200); do
		ADDR=$(sed -n 's|.*on http://\([^/]*\)/$|\1|p' "$out")
		[ -n "$ADDR" ] && return 0
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$out" "$out.err" >&2
	fail "$* did not start"
}

# checks ADDR [live]: python3 reads the page and the JSON and checks them
checks() {
	python3 - "$1" "${2:-}" <<'EOF' || fail "the live page's server ($1)"
import json, sys, urllib.request, urllib.error
addr, live = sys.argv[1], sys.argv[2] == "live"
def get(path, method="GET", host=None):
    req = urllib.request.Request(f"http://{addr}{path}", method=method)
    if host:
        req.add_header("Host", host)
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()
def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)
s, ct, body = get("/")
if s != 200 or not ct.startswith("text/html") or b"/keyviz.js" not in body:
    fail(f"/ gave {s} {ct}")
for p, t in (("/keyviz.js", "text/javascript"), ("/keyviz.css", "text/css")):
    s, ct, body = get(p)
    if s != 200 or not ct.startswith(t) or len(body) < 500:
        fail(f"{p} gave {s} {ct} {len(body)} bytes")
if b"http://" in get("/")[2] or b"https://" in get("/keyviz.js")[2]:
    fail("the page refers to something on the network")
s, _, body = get("/api/tables")
t = json.loads(body)
if s != 200 or t["live"] != live or sorted(x["name"] for x in t["tables"]) != ["ev", "fresh"]:
    fail(f"/api/tables: {s} {body[:300]}")
ev = next(x for x in t["tables"] if x["name"] == "ev")
if not ev["key_buckets"] or ev["rows_written"] != 4000 or not ev["schema"].startswith("fields id:u64"):
    fail(f"/api/tables ev: {ev}")
# a table with no load recorded yet: an empty map with its region, not a 404
s, _, body = get("/api/heatmap?table=fresh")
e = json.loads(body)
if s != 200 or (e["rows"], e["cols"], e["row_keys"], e["writes"], e["hottest"]) != (0, 0, [], [], []) \
        or len(e["regions"]) != 1 or e["table"] != "fresh":
    fail(f"/api/heatmap of a table with no load yet: {s} {body[:300]}")
if json.loads(get("/api/heatmap")[2])["table"] != "ev":
    fail("/api/heatmap without a table is not the one that took the most rows")
s, _, body = get("/api/heatmap?table=ev&rows=200&cols=50")
h = json.loads(body)
if s != 200:
    fail(f"/api/heatmap: {s} {body[:300]}")
n = h["rows"] * h["cols"]
if not (8 <= h["rows"] <= 200) or h["cols"] > 50 or len(h["writes"]) != n or len(h["reads"]) != n:
    fail(f"/api/heatmap shape: {h['rows']} x {h['cols']}")
if sum(h["writes"]) != 4000:
    fail(f"/api/heatmap: {sum(h['writes'])} rows written in the map, 4000 loaded")
if not h["decoded"] or not any(k.get("fields") and "id" in k["fields"] for k in h["row_keys"]):
    fail("/api/heatmap: keys not decoded through the schema")
k = next(k for k in h["row_keys"] if k.get("fields"))
if not isinstance(k["fields"]["id"], int) or not k["hex"] or "bucket" not in k:
    fail(f"/api/heatmap: a key object {k}")
top = [g["label"] for g in h["levels"][0]]
if top != [f"bucket {b}" for b in range(8)]:
    fail(f"/api/heatmap: the first level of the key hierarchy is {top[:10]}")
if len(h["regions"]) != 8 or sorted({r["server"] for r in h["regions"]}) != [0, 1, 2, 3]:
    fail(f"/api/heatmap: regions {h['regions'][:2]}")
if not h["hottest"] or h["hottest"][0]["writes"] < max(h["hottest"][-1]["writes"], 1):
    fail("/api/heatmap: the hottest ranges are not listed hottest first")
# zoom: bucket 3's key range, the first half of the time window
lo = next(g for g in h["levels"][0] if g["label"] == "bucket 3")
hi = next(g for g in h["levels"][0] if g["label"] == "bucket 4")
lo_hex, hi_hex = h["row_keys"][lo["row"]]["hex"], h["row_keys"][hi["row"]]["hex"]
s, _, body = get(f"/api/heatmap?table=ev&lo={lo_hex}&hi={hi_hex}&from={h['from_ms']}&to={h['to_ms']}")
z = json.loads(body)
if s != 200 or z["row_keys"][0]["hex"] != lo_hex or z["end"]["hex"] != hi_hex:
    fail(f"zoom: {s} {body[:300]}")
# the map's rows are merged key buckets, whose edges follow the keys written (and the
# moments they were written in), so the rows that begin bucket 3 and 4 need not begin
# at the buckets' first keys: the zoom must hold exactly the writes of the map's rows
# between them, and its rows begin in bucket 3 or, past a merged row's edge, 4
want = sum(h["writes"][r * h["cols"] + c] for r in range(lo["row"], hi["row"]) for c in range(h["cols"]))
labels = {g["label"] for g in z["levels"][0]}
if sum(z["writes"]) != want or not (300 < want < 700) or "bucket 3" not in labels \
        or not labels <= {"bucket 3", "bucket 4"}:
    fail(f"zoom into bucket 3: {sum(z['writes'])} rows for the map's {want}, levels {z['levels'][0][:3]}")
for q, why in (("rows=0", "rows"), ("cols=x", "cols"), ("lo=zz", "lo"), ("table=nope", "table"),
               ("from=10&to=5", "time window"), ("lo=02&hi=01", "key window")):
    s, ct, body = get("/api/heatmap?" + q)
    if s != 400 or why not in json.loads(body)["error"]:
        fail(f"/api/heatmap?{q}: {s} {body[:200]}")
if get("/api/tables", method="POST")[0] != 405 or get("/api/tables", method="DELETE")[0] != 405:
    fail("not read-only")
if get("/api/tables", host="evil.example")[0] != 403:
    fail("a foreign Host header was answered")
if get("/api/tables", host=f"localhost:{addr.split(':')[1]}")[0] != 200:
    fail("localhost:PORT refused")
if get("/nothing")[0] != 404:
    fail("an unknown path")
EOF
}

start "$T/kv.out" "$ROWKEY" keyviz --db "$T/db" --http 127.0.0.1:0
case "$ADDR" in 127.0.0.1:[0-9]*) ;; *) fail "keyviz listens on loopback: $ADDR" ;; esac
checks "$ADDR"
kill -TERM "$PID"; wait "$PID" || fail "keyviz did not stop with exit 0 on SIGTERM"

# rowkey serve --http: the same page from the open store, live
if "$ROWKEY" serve --help 2>&1 | grep -q "has no gRPC"; then
	echo "keyviz commands: ok (rowkey serve --http skipped: built without gRPC)"
	exit 0
fi
"$ROWKEY" serve --db "$T/db" --listen 127.0.0.1:0 --http 127.0.0.1:0x >/dev/null 2>"$T/err"
[ $? = 2 ] || fail "serve --http with a bad address is a usage error"
start "$T/sv.out" "$ROWKEY" serve --db "$T/db" --listen 127.0.0.1:0 --http 127.0.0.1:0
grep -q "listening on 127.0.0.1:" "$T/sv.out" || fail "serve printed no gRPC address"
checks "$ADDR" live
kill -TERM "$PID"; wait "$PID" || fail "serve --http did not stop with exit 0"
echo "keyviz commands: ok"
