#!/usr/bin/env bash
# rowkey serve against Google's Bigtable emulator, same client, same run:
# the official Node client (bench/serve_load.js) loads N rows (default
# 1,000,000; MutateRows of 1000, 4 in flight) into each server and reads them
# all back; rows/s both ways, the ratios, and each server's peak RSS
# (VmHWM); then `cbt import` loads the same rows from a CSV file into each. rowkey serve runs with the store's sync durability (every
# acknowledged MutateRows is on disk). The Node client is installed from npm
# into BUILD/node-serve as the tests do.
#
# usage: bench/bench_serve.sh [BUILD_DIR] [ROWS]
set -euo pipefail
build=${1:-build}
n=${2:-1000000}
src=$(cd "$(dirname "$0")/.." && pwd)
EMU=/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator
[ -x "$EMU" ] || { echo "bench_serve: needs $EMU"; exit 1; }
work=$build/node-serve
mkdir -p "$work"
cp "$src/tests/node/package.json" "$src/bench/serve_load.js" "$work/"
[ -d "$work/node_modules/@google-cloud/bigtable" ] ||
	(cd "$work" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT

peak() { awk '/VmHWM/ {print int($2/1024) " MiB"}' "/proc/$1/status"; }
addr_of() { # file pattern
	for _ in $(seq 200); do
		local a
		a=$(sed -n "$2" "$1")
		[ -n "$a" ] && { echo "$a"; return; }
		sleep 0.05
	done
	cat "$1" >&2
	exit 1
}

"$EMU" --host=127.0.0.1 --port=0 >"$tmp/emu.out" 2>&1 &
emu=$!
pids+=("$emu")
ea=$(addr_of "$tmp/emu.out" 's/^Cloud Bigtable emulator running on //p')
"$build/rowkey" serve --db "$tmp/db" --listen 127.0.0.1:0 --servers 4 >"$tmp/sv.out" 2>&1 &
sv=$!
pids+=("$sv")
sa=$(addr_of "$tmp/sv.out" 's/^rowkey serve: listening on \([^ ]*\) .*/\1/p')

echo "bench_serve: $n rows, Node client @google-cloud/bigtable $(cd "$work" && node -p "require('@google-cloud/bigtable/package.json').version"), $(nproc) cores"
e_line=$(cd "$work" && BIGTABLE_EMULATOR_HOST=$ea node serve_load.js emulator "$n")
echo "$e_line   peak RSS $(peak "$emu")"
s_line=$(cd "$work" && BIGTABLE_EMULATOR_HOST=$sa node serve_load.js "rowkey-serve(sync)" "$n")
echo "$s_line   peak RSS $(peak "$sv")"
ew=$(echo "$e_line" | awk '{print $7}'); er=$(echo "$e_line" | awk '{print $14}')
sw=$(echo "$s_line" | awk '{print $7}'); sr=$(echo "$s_line" | awk '{print $14}')
awk -v ew="$ew" -v sw="$sw" -v er="$er" -v sr="$sr" \
	'BEGIN { printf "rowkey/emulator: load %.2fx, read %.2fx\n", sw/ew, sr/er }'

# cbt import: the same rows from a CSV file (batches of 1000, 4 workers)
awk -v n="$n" 'BEGIN { print ",a,b"; a = sprintf("%20s", ""); gsub(/ /, "a", a);
	b = sprintf("%80s", ""); gsub(/ /, "b", b);
	for (i = 0; i < n; i++) printf "user%08d,%s,%s\n", (i * 2654435761) % 100000000, a, b }' >"$tmp/rows.csv"
cbt_import() { # label addr
	BIGTABLE_EMULATOR_HOST=$2 cbt -project p -instance i createtable imp families=d splits=user2,user4,user6,user8 2>/dev/null
	local t0 t1
	t0=$(date +%s.%N)
	BIGTABLE_EMULATOR_HOST=$2 cbt -project p -instance i import imp "$tmp/rows.csv" column-family=d batch-size=1000 workers=4 >/dev/null 2>&1
	t1=$(date +%s.%N)
	local got
	got=$(BIGTABLE_EMULATOR_HOST=$2 cbt -project p -instance i count imp 2>/dev/null | tail -1)
	awk -v l="$1" -v n="$got" -v a="$t0" -v b="$t1" 'BEGIN { printf "%s cbt import %d rows %.1f s %.0f rows/s\n", l, n, b - a, n / (b - a) }'
}
cbt_import emulator "$ea"
cbt_import "rowkey-serve(sync)" "$sa"
kill -TERM "$sv"; wait "$sv"
"$build/rowkey" regions --db "$tmp/db" bench | head -20
