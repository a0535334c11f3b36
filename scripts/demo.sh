#!/usr/bin/env bash
# make demo: where a chat service's writes land under four row-key designs.
# The messages workload (a date, a time of day, a growing message id) runs
# under each design in the simulator and on the embedded store for real
# (8 region servers of 4,000 ops/s each, splits by size, the balancer every
# 15 s of virtual time); the store replays the writes as fast as its capped
# servers admit them, so its throughput is measured in wall-clock time,
# beside the simulator's prediction. The comparison is printed, the heatmaps
# (PNG) and one HTML report go to demo-out/.
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
R="$build/rowkey"
out=demo-out
rm -rf "$out/store" "$out"/heatmap-*.png "$out"/store-heatmap-*.png "$out/report.html"
mkdir -p "$out"

F='fields date:str, time:str, id:u64, user:u64, domain:str, ts:i64'
labels=(date:time:id id:date:time md5+date:time:id salt8+date:time:id)
keys=(
  'date ":" time ":" id'
  'id ":" date ":" time'
  'HEX(md5(id)) ":" date ":" time ":" id'
  'bucket(8, xxh3(id), dec) ":" date ":" time ":" id'
)
args=()
echo "rowkey demo: 120,000 chat messages (2,000/s for a minute) under four key designs, in the"
echo "simulator and loaded for real into the embedded store, whose 8 region servers each apply"
echo "at most 4,000 writes/s (about a minute: the growing keys run at one server's speed)."
echo
awk -v n=1 -f examples/messages.csv.awk > "$out/message.csv"
for i in "${!labels[@]}"; do
  key=$("$R" encode -s "$F; key ${keys[$i]}" --in "$out/message.csv")
  printf '  %-20s key %-52s e.g. %s\n' "${labels[$i]}" "${keys[$i]}" "$key"
  args+=(-d "${labels[$i]}=$F; key ${keys[$i]}")
done
echo
"$R" compare -w messages --rate 2000 --duration 60 --read-fraction 0 --seed 1 \
  --servers 8 --capacity 4000 --split-threshold 4M --balance-interval 15 --time-buckets 50 \
  --store "$out/store" --html "$out/report.html" --png "$out/heatmap-" "${args[@]}"
echo
echo "Columns: hottest = busiest server's share of all writes; at-time = its share within"
echo "each time bucket (1.2 s; for the store, 1/50 of its wall-clock run); eff = servers"
echo "effectively used (1/sum of squared shares); throughput = for the simulator, ops/s before"
echo "the hottest server saturates (modelled), for the store (m), rows written per second of"
echo "wall-clock time (measured); reads = regions one query touches, priced by the planner on"
echo "the final regions (ok: a scan, fan: one scan per bucket, full: every region) for"
echo "'messages of the last minute' and 'a message by id'."
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
