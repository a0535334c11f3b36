#!/usr/bin/env bash
# Builds every tests/fuzz/fuzz_*.c as a libFuzzer binary with clang and runs
# each for the given number of seconds, seeded with its corpus directory.
# New corpus entries stay in build-fuzz/, not in the source tree.
set -euo pipefail
secs=${1:-60}
cd "$(dirname "$0")/.."
if ! command -v clang >/dev/null; then
  echo "fuzz: clang not found; the plain replay drivers still run in make check" >&2
  exit 1
fi
# The library too is built with coverage (fuzzer-no-link) and ASan+UBSan, so
# libFuzzer is guided by the decoders' branches, not only the harness's.
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRK_BUILD_FUZZERS=ON -DRK_BUILD_BENCH=OFF \
  -DRK_SANITIZE=fuzzer-no-link,address,undefined >/dev/null
cmake --build build-fuzz -j "$(nproc)"
shopt -s nullglob
for src in tests/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  work=build-fuzz/corpus/$name
  mkdir -p "$work"
  echo "fuzz: $name for ${secs}s"
  # a dictionary when there is one; a time limit per input (the predicate
  # fuzzer's blow-ups show as timeouts)
  extra=()
  [ -f "tests/fuzz/$name.dict" ] && extra+=(-dict="tests/fuzz/$name.dict")
  build-fuzz/tests/$name -max_total_time="$secs" -max_len=4096 -print_final_stats=1 \
    -timeout="${FUZZ_INPUT_SECONDS:-5}" "${extra[@]}" \
    "$work" "tests/fuzz/corpus/$name" 2>&1 | tail -n 12
done
