#!/usr/bin/env bash
# Seeds fuzz_serve_requests with the requests of the differential tests: the
# Node client's calls (tests/node/serve_diff.js) and the cbt scenario
# (tests/cli/lib/cbt_scenario.sh) run against rowkey serve through a
# recording proxy (grpc_record.js), which writes each distinct request as a
# seed cap_<method>_<hash> into tests/fuzz/corpus/fuzz_serve_requests (the
# older cap_* seeds are replaced; the hand-made ones of
# gen_serve_requests_seeds.py stay).
#
# Usage: tests/fuzz/capture_serve_seeds.sh BUILD_DIR, from the repository
# root, after `ctest -R cli_serve_node` has installed the Node client into
# BUILD_DIR/node-serve; needs cbt.
set -eu
BUILD=${1:?usage: capture_serve_seeds.sh BUILD_DIR}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$BUILD/node-serve
OUT=$SRC/tests/fuzz/corpus/fuzz_serve_requests
[ -d "$WORK/node_modules/@grpc/grpc-js" ] || { echo "no $WORK/node_modules: run ctest -R cli_serve_node first" >&2; exit 1; }
command -v cbt >/dev/null || { echo "cbt is needed" >&2; exit 1; }

T=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

wait_line() { # wait_line FILE SED: the first match of SED in FILE, within 10 s
	for _ in $(seq 200); do
		v=$(sed -n "$2" "$1")
		[ -n "$v" ] && { echo "$v"; return 0; }
		sleep 0.05
	done
	cat "$1" >&2
	return 1
}

"$BUILD/rowkey" serve --db "$T/db" --listen 127.0.0.1:0 >"$T/sv.out" 2>"$T/sv.err" &
PIDS+=("$!")
SV=$(wait_line "$T/sv.out" 's/^rowkey serve: listening on \([^ ]*\) .*/\1/p')
mkdir -p "$T/seeds"
cp "$SRC/tests/fuzz/grpc_record.js" "$SRC/tests/node/serve_diff.js" "$WORK/"
(cd "$WORK" && exec node grpc_record.js 127.0.0.1:0 "$SV" "$T/seeds") >"$T/rec.out" 2>&1 &
PIDS+=("$!")
REC=$(wait_line "$T/rec.out" 's/^recording on //p')

(cd "$WORK" && BIGTABLE_EMULATOR_HOST=$REC node serve_diff.js nodetest >/dev/null)
. "$SRC/tests/cli/lib/cbt_scenario.sh"
scenario "$REC" >/dev/null 2>&1 || true # (errors are part of it; set -e is off in it)

rm -f "$OUT"/cap_*
cp "$T"/seeds/cap_* "$OUT/"
echo "$(ls "$T/seeds" | wc -l) seeds captured into $OUT"
