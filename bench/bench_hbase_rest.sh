#!/usr/bin/env bash
# rowkey serve's two front doors on the same store, the same rows: the official
# Node Bigtable client (bench/serve_load.js: MutateRows of 1000 rows, 4 in flight,
# one read stream) against HBase REST (bench/hbase_rest_load.py: CellSets of 1000
# rows, 4 in flight, one scanner of 2000-cell batches); rows/s both ways and the
# ratios. The Node client is installed from npm into BUILD/node-serve as the tests
# do.
#   bench/bench_hbase_rest.sh [BUILD_DIR] [ROWS]      (default 200000 rows)
set -euo pipefail
build=${1:-build}
n=${2:-200000}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$build/node-serve
mkdir -p "$work"
cp "$src/tests/node/package.json" "$src/bench/serve_load.js" "$work/"
[ -d "$work/node_modules/@google-cloud/bigtable" ] ||
	(cd "$work" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
tmp=$(mktemp -d)
sv=
trap '[ -n "$sv" ] && kill -9 "$sv" 2>/dev/null; rm -rf "$tmp"' EXIT
"$build/rowkey" serve --db "$tmp/db" --listen 127.0.0.1:0 --hbase-rest 127.0.0.1:0 --servers 4 \
	>"$tmp/sv.out" 2>&1 &
sv=$!
for _ in $(seq 200); do
	rest=$(sed -n 's|^rowkey serve: HBase REST on http://\([^/]*\)/$|\1|p' "$tmp/sv.out")
	grpc=$(sed -n 's/^rowkey serve: listening on \([^ ]*\) .*/\1/p' "$tmp/sv.out")
	[ -n "$rest" ] && [ -n "$grpc" ] && break
	sleep 0.05
done
[ -n "$rest" ] || { cat "$tmp/sv.out"; exit 1; }
echo "bench_hbase_rest: $n rows, $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg)"
g=$(cd "$work" && BIGTABLE_EMULATOR_HOST=$grpc node serve_load.js grpc "$n")
echo "$g"
r=$(python3 "$src/bench/hbase_rest_load.py" "$rest" "$n")
echo "$r"
awk -v gw="$(echo "$g" | awk '{print $7}')" -v rw="$(echo "$r" | awk '{print $7}')" \
	-v gr="$(echo "$g" | awk '{print $14}')" -v rr="$(echo "$r" | awk '{print $14}')" \
	'BEGIN { printf "REST/gRPC: writes %.2fx, reads %.2fx\n", rw / gw, rr / gr }'
kill -TERM "$sv"; wait "$sv"; sv=
