#!/usr/bin/env bash
# make bench: runs every benchmark at the sizes bench/RESULTS.md quotes, one
# after the other, and keeps each one's output under $OUT (default
# bench-out/). Figures are copied into bench/RESULTS.md by hand, with the
# machine and the date: a benchmark is a measurement, not a test.
#
# usage: scripts/bench.sh [BUILD_DIR]    (BENCH_QUICK=1: small sizes, a smoke run)
set -euo pipefail

build=${1:-build}
out=${OUT:-bench-out}
mkdir -p "$out"
quick=${BENCH_QUICK:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # name, command...
  local name=$1; shift
  echo "bench: $name: $*"
  if ! "$@" >"$out/$name.txt" 2>&1; then
    echo "bench: $name failed; its output: $out/$name.txt" >&2
    tail -n 20 "$out/$name.txt" >&2
    exit 1
  fi
  tail -n 5 "$out/$name.txt"
}

if [ "$quick" = 1 ]; then
  run keys     "$build/bench/bench_keys" 100000 --json "$out/keys.json"
  run query    "$build/bench/bench_query" 20000 --json "$out/query.json" --dir "$tmp/query"
  run analyze  "$build/bench/bench_analyze" 1e6 64
  run store    "$build/bench/bench_store" "$tmp/store" 20000
  run keyviz   "$build/bench/bench_keyviz" 20000 1
  run capacity "$build/bench/bench_capacity" designs 2000 1000
else
  run keys     "$build/bench/bench_keys" 10000000 --json "$out/keys.json"
  run query    "$build/bench/bench_query" 1000000 --json "$out/query.json" --dir "$tmp/query"
  run analyze  "$build/bench/bench_analyze"
  run store    "$build/bench/bench_store" "$tmp/store" 1000000
  run keyviz   "$build/bench/bench_keyviz" 500000 7
  run capacity "$build/bench/bench_capacity" designs 20000 1000
  run heatmap  bench/bench_heatmap.sh "$build"
  run demo     bench/bench_demo.sh 3
  # needs Google's emulator; it says so and stops when it is missing
  run bigtable bench/bench_bigtable.sh "$build/rowkey"
  # rowkey serve vs the emulator, one Node client, 1M rows each (npm once)
  run serve    bench/bench_serve.sh "$build" 1000000
fi
echo "bench: outputs in $out/"
