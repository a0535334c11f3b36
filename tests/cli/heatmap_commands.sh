#!/usr/bin/env bash
# rowkey heatmap: pictures of a real store from its metrics.tsv (the PNG, the
# HTML page, the summary agreeing with the store run that recorded the load),
# clear errors for a missing file, an unknown table, a damaged line; and the
# demo-size HTML report (600,000 operations, four designs) under 1 MB.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { "$ROWKEY" "$@" >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "rowkey $* exited $?"; }; }
code() { local want=$1; shift; "$ROWKEY" "$@" >"$T/out" 2>"$T/err"; local got=$?; [ "$got" = "$want" ] || { cat "$T/err" >&2; fail "rowkey $* exited $got, wanted $want"; }; }
has() { grep -q -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected '$1' in $2"; }; }
png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1 is not a PNG"; }

S='fields date:str, time:str, id:u64; key date ":" time ":" id'
ok analyze -w messages --rate 2000 --duration 30 --servers 4 --split-threshold 512K \
  --balance-interval 10 -s "$S" --design by-date --store "$T/db" --json
writes=$(grep -o '"engine":"store","workload":"[a-z]*","servers":4,"writes":[0-9]*' "$T/out" | grep -o '[0-9]*$')
[ -n "$writes" ] || { cat "$T/out"; fail "no store run in analyze --json"; }

ok heatmap --help; has "usage: rowkey heatmap" out
# the default picture, named after the table with the most writes
(cd "$T" && "$ROWKEY" heatmap --db "$T/db" >"$T/out" 2>"$T/err") || { cat "$T/err"; fail "heatmap --db"; }
png "$T/heatmap-analyze.png"
has "design      analyze (store $T/db) (store)" out
# counts are written with thousands separators (60,000)
has "workload    recorded by the store over [0-9]* s from [-0-9: ]* UTC, in rows (key buckets): $(echo "$writes" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') writes" out
has "verdict     " out
has "picture heatmap-analyze.png" out
# a named table, PNG and HTML; JSON agrees with the store run's writes
ok heatmap --db "$T/db" analyze --png "$T/a.png" --html "$T/a.html" --json
png "$T/a.png"
has "\"writes\":$writes," out
has '"engine":"store"' out
has '<canvas id="map-0">' a.html
grep -q 'src="http\|href="http' "$T/a.html" && fail "the page loads something from the network"
has '"t0":1[0-9]\{12\}' a.html   # wall-clock time axis (Unix ms)
has '"b":"' a.html               # bytes per cell for the metric switch
has 'value="bytes"' a.html
has '<p>Load recorded by the store over [0-9]* s from' a.html   # what, over which window, in which unit
grep -q 'ops/s each' "$T/a.html" && fail "a store page speaks of a capacity no one set"

# errors: no metrics file, an unknown table (the message lists the tables), a damaged line
mkdir "$T/empty"
code 1 heatmap --db "$T/empty"; has "metrics.tsv" err
code 1 heatmap --db "$T/db" nosuch; has "no regions of table 'nosuch'" err; has "tables: analyze" err
code 2 heatmap --db "$T/db" a b; has "one TABLE at most" err
cp -r "$T/db" "$T/bad"
sed -i '3s/^region\t[0-9]*/region\tx/' "$T/bad/metrics.tsv"
code 1 heatmap --db "$T/bad"; has "metrics.tsv line 3: region: the id is not a number" err
[ ! -e "$T/heatmap-analyze.png.tmp" ] || fail "a half-written picture"

# a binary key: the page carries each row's key decoded into its fields (hover), region
# starts at bucket prefixes read "bucket N"
B='fields user:u64, ts:ts, kind:str; key bucket(8, xxh3(user)) u64(user) u64(rts(ts)) esc(kind)'
ok analyze -w users --servers 8 --duration 60 -s "$B" --html "$T/bin.html" --png "$T/bin.png"
png "$T/bin.png"
has '"dk":\["","bucket [0-7]: user=[0-9]* ts=[0-9]* kind=[a-z]*"' bin.html
has '\[[0-9]*,[0-9]*,"bucket 1"\]' bin.html

# the demo's report: 600,000 operations under four designs, one page under 1 MB,
# and the side-by-side picture on one scale
F='fields date:str, time:str, id:u64, user:u64, domain:str, ts:i64'
ok compare -w messages --rate 2000 --duration 300 --read-fraction 0.02 --seed 1 \
  --servers 8 --capacity 10000 --split-threshold 4M --balance-interval 30 \
  --html "$T/report.html" --png "$T/heat-" \
  -d "date:time:id=$F; key date \":\" time \":\" id" -d "id:date:time=$F; key id \":\" date \":\" time" \
  -d "md5=$F; key HEX(md5(id)) \":\" date \":\" time \":\" id" \
  -d "salt8=$F; key bucket(8, xxh3(id), dec) \":\" date \":\" time \":\" id"
size=$(stat -c %s "$T/report.html")
[ "$size" -lt 1000000 ] || fail "the demo report is $size bytes (over 1 MB)"
png "$T/heat-compare.png"
for d in date_time_id id_date_time md5 salt8; do png "$T/heat-$d.png"; done
echo "heatmap commands: ok (demo report $size bytes)"
