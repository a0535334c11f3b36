#!/usr/bin/env bash
# profile and suggest on a records file, then the README's path from a
# records file to a pre-split, loaded, queried table: profile -> suggest
# --query --splits -> create --splits -> load -> query. Usage errors exit 2,
# failures 1 with a message that names the file and line.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { "$ROWKEY" "$@" >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "rowkey $* exited $?"; }; }
code() { local want=$1; shift; "$ROWKEY" "$@" >"$T/out" 2>"$T/err"; local got=$?; [ "$got" = "$want" ] || { cat "$T/out" "$T/err" >&2; fail "rowkey $* exited $got, wanted $want"; }; }
has() { grep -q -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected '$1' in $2"; }; }

# 3,000 orders of 20 stores, time rising, order ids unique
awk 'BEGIN { srand(7); t = 1700000000000; print "store,order_id,ts,amount";
  for (i = 0; i < 3000; i++) { t += 1 + int(rand() * 900);
    printf "%d,%d,%.0f,%.2f\n", 1 + int(rand() * 20), 50000 + i, t, rand() * 500 } }' > "$T/orders.csv"

ok profile --help; has "usage: rowkey profile" out
ok profile "$T/orders.csv"
has "3,000 records, 4 fields; every record held: figures exact" out
has "^store *u64 " out
has "^ts *ts (ms) " out
has "^amount *f64 " out
has "identifies  order_id" out
has "clock       ts (ms)" out
ok profile --json "$T/orders.csv"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["records"] == 3000 and ["order_id"] in d["unique"], d' "$T/out" \
  || fail "profile --json"
code 2 profile
code 2 profile --limit 0 "$T/orders.csv"
code 1 profile "$T/nope.csv"; has "nope.csv" err
printf 'a,a\n1,2\n' > "$T/dup.csv"
code 1 profile "$T/dup.csv"; has "names column 'a' twice" err

# -w file without --file is a usage error that says what is missing (not an
# empty path's "No such file"), in the three commands that replay workloads
S1='fields store:u64, order_id:u64; key u64(store) u64(order_id)'
code 2 analyze -w file -s "$S1"; has "w file needs --file PATH" err
code 2 compare -w file -d "$S1"; has "w file needs --file PATH" err
code 2 suggest -w file; has "w file needs --file PATH" err
# a generated workload that cannot end in reasonable time is refused at once,
# naming the limit (rate x duration, at most 100,000,000 operations)
code 2 analyze -w keys -s 'fields key:str; key esc(key)' --duration 1e9
has "is 1e+12 operations; a run takes at most 100000000" err
code 2 suggest -w users --rate 1e6 --duration 101; has "at most 100000000" err
ok analyze --help; has "at most 100,000,000 operations" out

# analyze replays every record at the data's own pace; a limit is said
ok analyze --file "$T/orders.csv" --servers 4 -s 'fields store:u64, order_id:u64, ts:ts; key u64(ts) u64(order_id)'
has "replayed    3,000 of the file's 3,000 records, at the data's own pace" out
has "cause       rising_lead: ts rises in 100% of consecutive records" out
has "unique      yes on 3,000 of 3,000 records" out
ok analyze --file "$T/orders.csv" --servers 4 --limit 100 --fixed-rate -s 'fields store:u64, order_id:u64, ts:ts; key u64(store)'
has "replayed    the first 100 records of the file (the limit), at the fixed rate" out
has "unique      NO on 20 of 100 records" out
has "LOSES ROWS: the key is not unique: 20 distinct keys for 100 records" out

# suggest with a query: the key serves it, amount stays out, splits written
ok suggest --file "$T/orders.csv" --servers 4 --query 'store = ? AND ts >= ? AND ts < ?' -n 2 -q \
  --splits "$T/splits.txt"
has "^1 " out
has "schema  fields store:u64, order_id:u64, ts:ts, amount:f64; key u64(store) i64(ts) u64(order_id)" out
has "unique  3,000 distinct keys for 3,000 records" out
[ "$(wc -l < "$T/splits.txt")" = 3 ] || { cat "$T/splits.txt"; fail "3 split points for 4 servers"; }
# a range is priced the row past its end; gets are point lookups, eight of
# them cost their fan-out alone (1 / (1 + log2(8) / 4))
ok suggest --file "$T/orders.csv" -n 1 --query 'order_id IN (?, ?, ?, ?, ?, ?, ?, ?)' --json
python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))[0]
assert p["queries"][0]["ranges"] == 8 and abs(p["read_score"] - 1 / 1.75) < 1e-4, p' "$T/out" \
  || fail "eight gets: read score"
code 1 suggest --file "$T/orders.csv" --query 'nope = ?' -q; has "no field 'nope' in the data" err
code 1 suggest --file "$T/orders.csv" --query 'store = ? OR ts = ?' -q; has "expected AND" err
# no query: said, and ranked by lookups of the identifying fields
ok suggest --file "$T/orders.csv" --servers 4 -n 1 -q
has "note: no --query given" out
has "a record by order_id" out

# from the records to a pre-split, loaded table
S=$(sed -n 's/^     schema  //p' <("$ROWKEY" suggest --file "$T/orders.csv" --servers 4 \
  --query 'store = ? AND ts >= ? AND ts < ?' -n 1 -q))
ok create --db "$T/db" orders -f d --splits "$T/splits.txt"; has "4 regions" out
ok load --db "$T/db" orders -s "$S" "$T/orders.csv"; has "^3,000 rows in " out
ok query --db "$T/db" -t orders -w 'store = 3' --limit 2
[ "$(grep -c '^3	' "$T/out")" = 2 ] || { cat "$T/out"; fail "query by store"; }
printf 'nope\\x0\n' > "$T/bad.txt"
code 2 create --db "$T/db" t2 -f d --splits "$T/bad.txt"; has "line 1: bad split point" err
code 2 create --db "$T/db" t2 -f d --splits "$T/none.txt"; has "none.txt" err
# --rows N: the table the queries will meet holds N rows; a full scan reads them
# all (the records replayed by default), an exact range what it matches
printf 'uid,v\n' > "$T/rows.csv"; for i in $(seq 1 400); do echo "$((i % 20)),$i"; done >> "$T/rows.csv"
S='fields uid:u64, v:u64; key u64(uid) u64(v)'
for rows in 0 4000000; do
	ok analyze -w file --file "$T/rows.csv" -s "$S" --query 'v = ?' --query 'uid = ?' --rows $rows --json
	python3 - "$T/out" $rows <<'PY' || fail "--rows $rows"
import json, sys
q = json.load(open(sys.argv[1]))["queries"]
want = int(sys.argv[2]) or 400
assert [round(x["rows_read"]) for x in q] == [want, 20], [x["rows_read"] for x in q]
assert all(f["rows_read"] == want for f in q[0]["fills"]), q[0]["fills"]
PY
done
code 2 analyze -w file --file "$T/rows.csv" -s "$S" --rows -3; has "rows" err
# with a clock, the rows beyond the file are older history: a window over
# time reads what it reads on the file when the key orders by time before
# the filtered field, ten times as much when the time is only filtered; a
# shape that leaves the clock open returns ten times as many rows
python3 -c '
print("host,ts,v,id")
for t in range(2000):
    for h in range(5):
        print("h%d,%d,%d,%d" % (h, 1700000000000 + t * 1000 + h, (t * 7919 + h * 104729) % 1000, t * 5 + h))
' > "$T/hist.csv"
hist() { # KEY ROWS: "read/returned read/returned" of the window and the host shapes
	ok analyze -w file --file "$T/hist.csv" -s "fields host:str, ts:ts, v:u64, id:u64; key $1" \
		--query 'host = ? AND ts >= ? AND ts < ?' --query 'host = ?' --rows "$2" --json
	python3 -c 'import json, sys
q = json.load(open(sys.argv[1]))["queries"]
print(" ".join("%d/%d" % (round(x["rows_read"] / 100), round(x["rows_returned"] / 100)) for x in q),
      "grows" if q[0]["rows_read_grow"] else "-")' "$T/out"
}
# (and whether the window's rows read grow with the history: only when the
# key leaves the window's time open; an hour's bucket, wider than the file's
# half hour, reads the whole file but stops growing at the hour)
for want in "esc(host) i64(ts)|0|2/2 20/20 -" "esc(host) i64(ts)|100000|2/2 200/200 -" \
            "i64(ts) esc(host)|0|10/2 100/20 -" "i64(ts) esc(host)|100000|10/2 1000/200 -" \
            "esc(host) u64(v) i64(ts)|0|20/2 20/20 grows" \
            "esc(host) u64(v) i64(ts)|100000|200/2 200/200 grows" \
            "esc(host) i64(tbucket(ts, 60000)) u64(v) i64(ts)|0|3/2 20/20 -" \
            "esc(host) i64(tbucket(ts, 3600000)) u64(v) i64(ts)|0|20/2 20/20 -"; do
	IFS='|' read -r key rows exp <<<"$want"
	got=$(hist "$key" "$rows")
	[ "$got" = "$exp" ] || fail "--rows $rows under $key: hundreds of rows read/returned $got, want $exp"
done
# another day's writes: a key whose time bucket comes before what spreads it
# (service + hour + host) is even on this half-hour file, whose split points
# cut its one hour by host, and sends a later day's writes of each service to
# one region; the host hashed in front of the time, or a key without the
# clock, keeps them spread
python3 -c '
import random
r = random.Random(5)
print("service,host,ts,id")
for i in range(6000):
    s = "api" if r.random() < 0.6 else "svc%d" % r.randrange(8)
    print("%s,%s-%d,%d,%d" % (s, s, r.randrange(200), 1700000000000 + i * 300, i))
' > "$T/logs.csv"
day() { # KEY: "another_day at_a_time cause|-" of analyze's run on logs.csv
	ok analyze -w file --file "$T/logs.csv" --fixed-rate --rate 50000 --presplit 2 \
		-s "fields service:str, host:str, ts:ts, id:u64; key $1" --json
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
kinds = [c["kind"] for c in d["causes"]]
print("%.0f%% %.0f%% %s" % (d["day_share"] * 100, d["peak_share"] * 100,
      "another_day" if "another_day" in kinds else "-"))' "$T/out"
}
K="esc(service) i64(tbucket(ts, 3600000)) esc(host) u64(id)"
got=$(day "$K")
case "$got" in [5-9][0-9]%\ [0-9]%\ another_day|[5-9][0-9]%\ 1[0-9]%\ another_day) ;;
	*) fail "service + hour + host: another day's share, today's, cause: $got" ;; esac
cp "$T/out" "$T/day.json" # that run's report, checked on the store below
got=$(day "esc(service) bucket(16, xxh3(esc(host))) i64(ts) esc(host) u64(id)")
case "$got" in [0-9]%\ *\ -|1[0-9]%\ *\ -) ;; *) fail "service + hash(host) + ts: $got" ;; esac
got=$(day "esc(host) u64(id)")
[ "${got%% *}" = "0%" ] && [ "${got##* }" = "-" ] || fail "a key without the clock: $got"
# and the store agrees: created with the simulator's regions, loaded with the
# file and then with the same records two days back, its busiest server takes
# the share of the second load the simulator said (within 5 points)
python3 - "$T" <<'PY' || fail "another day: the store's split points or shifted records"
import csv, json, sys
t = sys.argv[1]
d = json.load(open(t + "/day.json"))
with open(t + "/day-splits.txt", "w") as f:
    for r in d["region_list"][1:]:
        f.write("".join("\\x%02x" % c for c in r["start"].encode("latin-1")) + "\n")
rows = csv.reader(open(t + "/logs.csv"))
out = csv.writer(open(t + "/logs-2d.csv", "w"))
out.writerow(next(rows))
for row in rows:
    row[2] = str(int(row[2]) - 2 * 86400000)
    out.writerow(row)
PY
ok create --db "$T/daydb" logs -f d --servers 16 --splits "$T/day-splits.txt"
for f in logs logs-2d; do
	ok load --db "$T/daydb" logs -s "fields service:str, host:str, ts:ts, id:u64; key $K" -q "$T/$f.csv"
	"$ROWKEY" regions --db "$T/daydb" logs --json > "$T/regions-$f.json" || fail "regions --json"
done
python3 - "$T" <<'PY' || fail "another day's share: the store and the simulator disagree"
import json, sys
t = sys.argv[1]
def per_server(name):
    out = {}
    for line in open("%s/regions-%s.json" % (t, name)):
        r = json.loads(line)
        out[r["server"]] = out.get(r["server"], 0) + r["since_born"]["writes"]
    return out
a, b = per_server("logs"), per_server("logs-2d")
day = {s: b[s] - a.get(s, 0) for s in b}
store = max(day.values()) / sum(day.values())
d = json.load(open(t + "/day.json"))
sim = d["day_share"]
assert abs(store - sim) <= 0.05 and store > 0.4, (store, sim)
# the throughput before the hottest server saturates is another day's
assert abs(d["throughput"] - d["capacity"] / sim) < 1, (d["throughput"], d["capacity"], sim)
PY
ok suggest --file "$T/logs.csv" --fixed-rate --rate 50000 -n 40 --query 'service = ? AND ts >= ? AND ts < ?' \
	--query 'service = ? AND host = ? AND ts >= ? AND ts < ?'
has "of another day's" out
# eight shapes make more candidates than the advisor simulates: said, with
# how many, never dropped in silence
python3 -c '
print("metric,host,dc,ts,value")
for i in range(3000):
    print("m%d,h%03d,dc%d,%d,%d" % (i % 7, i * 37 % 120, i % 3, 1700000000000 + i * 250, i % 13))
' > "$T/m5.csv"
ok suggest --file "$T/m5.csv" -n 1 --json --query 'metric = ? AND ts >= ? AND ts < ?' \
	--query 'metric = ? AND host = ? AND ts >= ? AND ts < ?' --query 'metric = ? AND dc = ? AND ts >= ? AND ts < ?' \
	--query 'metric = ? AND dc = ? AND host = ? AND ts >= ? AND ts < ?' --query 'host = ? AND ts >= ? AND ts < ?' \
	--query 'dc = ? AND ts >= ? AND ts < ?' --query 'dc = ? AND host = ?' --query 'host = ?'
python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))[0].get("not_tried", 0) > 0' "$T/out" || fail "candidates not tried: not said"
# a point get of a key without the clock has no older rows to return
ok analyze -w file --file "$T/hist.csv" -s "fields host:str, ts:ts, v:u64, id:u64; key u64(id)" \
	--query 'id = ?' --rows 100000 --json
python3 -c 'import json, sys
q = json.load(open(sys.argv[1]))["queries"][0]
assert (q["rows_read"], q["rows_returned"]) == (1, 1), q' "$T/out" || fail "--rows: a get returns its row"
# a time empty in one record cannot be a key part: the designs with it are
# named as not proposed (with the record), the identifying key still is; when
# the identity itself needs the time, nothing can be proposed and the error
# names the record
python3 -c '
print("id,ts,v")
for i in range(3000):
    print("%d,%s,%d" % (100000 + i, "" if i == 1234 else str(1700000000000 + i * 1000), i % 7))
' > "$T/empty.csv"
ok suggest --file "$T/empty.csv" -n 2 --query 'ts >= ? AND ts < ?'
has "^note: not proposed, [0-9]* designs the data cannot give a key for: design .*record 1235: field 'ts' has no value" out
has "^1 .*  id$" out
ok suggest --file "$T/empty.csv" -n 2 --query 'ts >= ? AND ts < ?' --json
python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
assert "record 1235" in s[0]["not_proposed"] and all("not_proposed" not in x for x in s[1:]), s' "$T/out" \
	|| fail "suggest --json: not_proposed"
# a set of tables is proposed only when each of its tables serves a shape
# better than the others: id | hash(id) + id, two copies that serve the
# window alike (a full scan), is no proposal
ok suggest --file "$T/empty.csv" -n 8 --query 'ts >= ? AND ts < ?' --query 'id = ?' --json
python3 -c 'import json, sys
for s in json.load(open(sys.argv[1])):
    assert all(t["queries"] for t in s.get("tables", [])), s["design"]' "$T/out" \
	|| fail "suggest proposed a table that serves no shape"
python3 -c '
print("k,ts,v")
for i in range(3000):
    print("%d,%s,%d" % (i % 30, "" if i == 1234 else str(1700000000000 + (i // 30) * 1000), i % 7))
' > "$T/empty2.csv"
code 1 suggest --file "$T/empty2.csv" -n 2 --query 'k = ? AND ts >= ? AND ts < ?'
has "no candidate design can hold every record .*record 1235: field 'ts' has no value" err
grep -q seq "$T/err" && fail "the error names a uniquifier the data does not have: $(cat "$T/err")"
echo "advisor commands: ok"
