#!/usr/bin/env bash
# The live Key Visualizer page in a real browser: `rowkey serve --http`
# serves a store that cbt fills through the Bigtable API; Debian's headless
# Chromium, driven over the DevTools protocol on a pipe by
# tests/browser/keyviz_page.js (node, no npm package), loads the page with
# no console error and a non-empty heatmap and its hottest ranges listed;
# then cbt writes 200 rows into the key range [zz, z{) and they must show
# in that range of the map, and nowhere else, within two refreshes; a table
# created with no rows, chosen in the page, draws as "no load recorded yet"
# with no console error.
#
# Exits 77 (skipped) without chromium (Debian: chromium; CI installs it with
# scripts/deps.sh installs it), node, cbt, or a rowkey with gRPC.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
SRC=${RK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CHROMIUM=${RK_CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "skipped: $CHROMIUM not installed (scripts/deps.sh installs it)"; exit 77; }
command -v node >/dev/null || { echo "skipped: node is needed to drive the browser"; exit 77; }
command -v cbt >/dev/null || { echo "skipped: cbt is needed to write through the Bigtable API"; exit 77; }
"$ROWKEY" serve --help 2>&1 | grep -q "has no gRPC" && { echo "skipped: rowkey built without RK_WITH_BIGTABLE"; exit 77; }

T=$(mktemp -d)
SV=
cleanup() {
	[ -n "$SV" ] && kill -9 "$SV" 2>/dev/null && wait "$SV" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$ROWKEY" serve --db "$T/db" --listen 127.0.0.1:0 --http 127.0.0.1:0 >"$T/sv.out" 2>"$T/sv.err" &
SV=$!
GRPC= HTTP=
for _ in $(seq 400); do
	GRPC=$(sed -n 's/^rowkey serve: listening on \([^ ]*\) .*/\1/p' "$T/sv.out")
	HTTP=$(sed -n 's|^rowkey serve: Key Visualizer on http://\([^/]*\)/$|\1|p' "$T/sv.out")
	[ -n "$GRPC" ] && [ -n "$HTTP" ] && break
	kill -0 "$SV" 2>/dev/null || break
	sleep 0.05
done
[ -n "$GRPC" ] && [ -n "$HTTP" ] || { cat "$T/sv.out" "$T/sv.err" >&2; fail "rowkey serve --http did not start"; }

c() { BIGTABLE_EMULATOR_HOST=$GRPC cbt -project p -instance i "$@"; }
c createtable events families=d || fail "cbt createtable"
# rows through cbt import (MutateRows): a CSV of row key, then the cells
rows() { # rows PREFIX N: N rows PREFIX000 ..
	echo ",n"
	for i in $(seq 0 $(($2 - 1))); do printf '%s%03d,%d\n' "$1" "$i" "$i"; done
}
rows a 300 >"$T/a.csv"
rows zz 200 >"$T/zz.csv"
c import events "$T/a.csv" column-family=d >/dev/null 2>"$T/imp.err" || { cat "$T/imp.err"; fail "cbt import"; }

KEYVIZ_WRITE="BIGTABLE_EMULATOR_HOST=$GRPC cbt -project p -instance i import events $T/zz.csv column-family=d >/dev/null" \
	KEYVIZ_NEW_TABLE="BIGTABLE_EMULATOR_HOST=$GRPC cbt -project p -instance i createtable fresh families=d" \
	KEYVIZ_NEW_NAME=fresh KEYVIZ_LO=7a7a KEYVIZ_HI=7a7b KEYVIZ_ROWS=200 RK_CHROMIUM=$CHROMIUM \
	node "$SRC/tests/browser/keyviz_page.js" "http://$HTTP/" check >"$T/page.json" 2>"$T/page.err" ||
	{ cat "$T/page.err" >&2; fail "the live page in Chromium"; }
cat "$T/page.json"
kill -TERM "$SV"; wait "$SV" || fail "rowkey serve did not stop with exit 0"
SV=
echo "keyviz browser: ok"
