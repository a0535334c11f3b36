#!/usr/bin/env bash
# The README's picture of the live Key Visualizer page, taken the way the
# browser test drives the page (tests/browser/keyviz_page.js: Debian's
# headless Chromium over the DevTools protocol, no npm): `rowkey serve
# --http` on a fresh store, cbt writing through the Bigtable API for about
# half a minute into two key ranges at once: a sequential key (its diagonal)
# and the same key behind 4 salt prefixes (4 stripes, each climbing), then
# a screenshot of the page.
#
# usage: scripts/keyviz_shot.sh [BUILD_DIR] [OUT_PNG]
#        (defaults build, docs/img/keyviz-live.png; SECONDS_OF_LOAD=30)
# Needs: chromium, node, cbt (the Cloud SDK's), a rowkey built with gRPC.
set -euo pipefail
build=${1:-build}
out=${2:-docs/img/keyviz-live.png}
seconds=${SECONDS_OF_LOAD:-30}
here=$(cd "$(dirname "$0")/.." && pwd)
rowkey=$build/rowkey
for need in chromium node cbt; do
	command -v "$need" >/dev/null || { echo "keyviz_shot: $need is needed" >&2; exit 1; }
done
tmp=$(mktemp -d)
sv=
trap '[ -n "$sv" ] && kill "$sv" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

"$rowkey" serve --db "$tmp/db" --listen 127.0.0.1:0 --http 127.0.0.1:0 >"$tmp/sv.out" 2>"$tmp/sv.err" &
sv=$!
for _ in $(seq 400); do
	grpc=$(sed -n 's/^rowkey serve: listening on \([^ ]*\) .*/\1/p' "$tmp/sv.out")
	http=$(sed -n 's|^rowkey serve: Key Visualizer on http://\([^/]*\)/$|\1|p' "$tmp/sv.out")
	[ -n "$grpc" ] && [ -n "$http" ] && break
	sleep 0.05
done
[ -n "${http:-}" ] || { cat "$tmp/sv.err" >&2; echo "keyviz_shot: rowkey serve did not start" >&2; exit 1; }
c() { BIGTABLE_EMULATOR_HOST=$grpc cbt -project p -instance i "$@" 2>/dev/null; }
c createtable events families=d

# second by second: 1,500 rows of "seq#N" and 1,500 of "salt-B#N" (B = N mod 4)
start=$(date +%s)
n=0
while [ $(($(date +%s) - start)) -lt "$seconds" ]; do
	python3 -c '
import sys
n = int(sys.argv[1])
print(",v")
for i in range(n, n + 1500):
    print(f"seq#{i:09d},{i}")
    print(f"salt-{i % 4}#{i:09d},{i}")
' "$n" >"$tmp/rows.csv"
	c import events "$tmp/rows.csv" column-family=d >/dev/null
	n=$((n + 1500))
done
echo "keyviz_shot: wrote $((2 * n)) rows in $(($(date +%s) - start)) s; the page: http://$http/"
node "$here/tests/browser/keyviz_page.js" "http://$http/" shot "$out"
