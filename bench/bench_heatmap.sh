#!/usr/bin/env bash
# The heatmap outputs at the demo's size (issue 13): the messages workload,
# 600,000 operations (2,000/s for 300 s, 2% reads) under the demo's four key
# designs on 8 simulated servers; prints the HTML report's bytes (goal: under
# 1 MB) and each PNG's. Sizes are deterministic for a given build (seed 1).
#   bench/bench_heatmap.sh [BUILD_DIR]
set -euo pipefail
R=${1:-build}/rowkey
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
F='fields date:str, time:str, id:u64, user:u64, domain:str, ts:i64'
"$R" compare -w messages --rate 2000 --duration 300 --read-fraction 0.02 --seed 1 \
  --servers 8 --capacity 10000 --split-threshold 4M --balance-interval 30 \
  --html "$T/report.html" --png "$T/heat-" \
  -d "date:time:id=$F; key date \":\" time \":\" id" -d "id:date:time=$F; key id \":\" date \":\" time" \
  -d "md5=$F; key HEX(md5(id)) \":\" date \":\" time \":\" id" \
  -d "salt8=$F; key bucket(8, xxh3(id), dec) \":\" date \":\" time \":\" id" >/dev/null
printf '%-28s %10s\n' file bytes
for f in "$T"/report.html "$T"/heat-*.png; do printf '%-28s %10d\n' "$(basename "$f")" "$(stat -c %s "$f")"; done
