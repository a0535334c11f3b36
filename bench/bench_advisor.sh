#!/usr/bin/env bash
# The advisor's speed: rowkey profile, then rowkey suggest (8 proposals or
# more) on a 1,000,000-record orders file (store, order_id, ts, amount: 50
# stores, ts rising, order ids unique), and suggest on every built-in
# workload at its defaults (600,000 operations). Prints wall-clock and CPU
# seconds for each (goal: profile + suggest of the file <= 10 s; each
# workload's suggest <= 10 s), and the machine's load at the start.
#   bench/bench_advisor.sh [BUILD_DIR]
set -euo pipefail
R=${1:-build}/rowkey
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
awk 'BEGIN { srand(1); t = 1700000000000; print "store,order_id,ts,amount";
  for (i = 0; i < 1000000; i++) { t += 1 + int(rand() * 200);
    printf "%d,%d,%.0f,%.2f\n", 1 + int(rand() * 50), 1000000 + i, t, rand() * 999 } }' > "$T/orders.csv"
echo "machine: $(nproc) cores, $(uptime | sed 's/.*load average/load average/')"
TIMEFORMAT='%R %U %S'
timed() { # label command...: wall and user+sys seconds
  local label=$1; shift
  { time "$@" > "$T/out" 2>/dev/null; } 2> "$T/time"
  awk -v l="$label" '{ printf "%-44s %7.2f s wall %7.2f s cpu\n", l, $1, $2 + $3 }' "$T/time"
}
timed "profile orders.csv (1,000,000 records)" "$R" profile "$T/orders.csv"
timed "suggest orders.csv, 3 queries" "$R" suggest --file "$T/orders.csv" -q -n 8 \
  --query 'store = ? AND ts >= ? AND ts < ?' --query 'order_id = ?' --query 'ts >= ? AND ts < ?'
echo "  proposals: $(grep -c '^[0-9]' "$T/out")"
for w in messages keys urls trades cars users; do
  timed "suggest -w $w" "$R" suggest -w "$w" -q -n 8
done
