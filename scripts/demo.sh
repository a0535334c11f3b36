#!/usr/bin/env bash
# make demo: where a chat service's writes land under four row-key designs.
# The messages workload (a date, a time of day, a growing message id) runs
# under each design in the simulator and on the embedded store for real
# (8 region servers capped at CAP writes/s each, splits by size, the
# balancer every BALANCE s of virtual time); the store replays the writes as
# fast as its capped servers admit them, so its throughput is measured in
# wall-clock time, beside the simulator's prediction. The comparison is
# printed (and kept in OUT/demo.txt, the README's figures: scripts/readme.sh),
# the heatmaps (PNG) and one HTML report go to OUT (default demo-out/).
#
# usage: scripts/demo.sh [BUILD_DIR [OUT]]
set -euo pipefail
build=${1:-build}
out=${2:-demo-out}
cd "$(dirname "$0")/.."
R="$build/rowkey"
start=$(date +%s.%N)
rm -rf "$out/store" "$out"/heatmap-*.png "$out"/store-heatmap-*.png "$out/report.html" "$out/demo.txt"
mkdir -p "$out"
exec > >(tee "$out/demo.txt") # what it prints, kept: the README's figures (scripts/readme.sh)

# The run: RATE writes/s for DURATION s. A growing key runs at one server's
# speed, so the demo lasts about 2 x RATE x DURATION / CAP seconds.
RATE=2000 DURATION=15 SERVERS=8 CAP=5000 SPLIT=1M BALANCE=5 BUCKETS=50
F='fields date:str, time:str, id:u64, user:u64, domain:str, ts:i64'
labels=(date:time:id id:date:time md5+date:time:id salt8+date:time:id)
keys=(
  'date ":" time ":" id'
  'id ":" date ":" time'
  'HEX(md5(id)) ":" date ":" time ":" id'
  'bucket(8, xxh3(id), dec) ":" date ":" time ":" id'
)
args=()
commas() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; } # counts as rowkey prints them
echo "rowkey demo: $(commas $((RATE * DURATION))) chat messages ($(commas "$RATE")/s for $DURATION s) under four key designs, in the"
echo "simulator and loaded for real into the embedded store, whose $SERVERS region servers each apply"
echo "at most $(commas "$CAP") writes/s (the growing keys run at one server's speed)."
echo
awk -v n=1 -f examples/messages.csv.awk > "$out/message.csv"
for i in "${!labels[@]}"; do
  key=$("$R" encode -s "$F; key ${keys[$i]}" --in "$out/message.csv")
  printf '  %-20s key %-52s e.g. %s\n' "${labels[$i]}" "${keys[$i]}" "$key"
  args+=(-d "${labels[$i]}=$F; key ${keys[$i]}")
done
echo
"$R" compare -w messages --rate "$RATE" --duration "$DURATION" --read-fraction 0 --seed 1 \
  --servers "$SERVERS" --capacity "$CAP" --split-threshold "$SPLIT" --balance-interval "$BALANCE" \
  --time-buckets "$BUCKETS" --store "$out/store" --html "$out/report.html" --png "$out/heatmap-" \
  "${args[@]}"
echo
echo "Columns: hottest = busiest server's share of all writes; at-time = its share within"
echo "each time bucket ($(awk -v d="$DURATION" -v b="$BUCKETS" 'BEGIN { printf "%g", d / b }') s; for the store, 1/$BUCKETS of its wall-clock run); eff = servers"
echo "effectively used (1/sum of squared shares); throughput = for the simulator, writes/s"
echo "before the hottest server saturates (modelled), for the store (m), rows written per"
echo "second of wall-clock time (measured); reads = regions one query touches, priced by the"
echo "planner on the final regions (ok: a scan, fan: one scan per bucket, full: every region)"
echo "for 'messages of the last minute' and 'a message by id'."
echo
# the same pictures from each store's own recorded load (metrics.tsv, wall-clock time)
for d in "$out"/store/*/; do
  "$R" heatmap --db "$d" --png "$out/store-heatmap-$(basename "$d").png" >/dev/null
done
echo "Heatmaps (x = time, y = key space, lowest keys on top, colour = writes; servers x time below):"
for f in "$out"/heatmap-*.png; do [ "$f" = "$out/heatmap-compare.png" ] || echo "  $f"; done
echo "  $out/heatmap-compare.png: the four side by side on one colour scale"
echo "From each store's recorded load (rowkey heatmap --db DIR):"
for f in "$out"/store-heatmap-*.png; do echo "  $f"; done
echo "Report with hover details per cell, zoom and a metric switch: $out/report.html"
echo "Store directories (rowkey stats --db ...): $out/store/"
echo "(the demo took $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }') s)"
