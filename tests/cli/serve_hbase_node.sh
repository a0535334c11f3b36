#!/usr/bin/env bash
# rowkey serve --hbase-rest with the npm `hbase` client (node-hbase, HBase's
# REST connector): tests/node/hbase_rest/hbase_rest.js creates a table,
# puts, gets, scans with scanners and a filter, deletes and drops through
# it, checking each answer.
#
# The client is installed from npm into the build directory on first use
# (tests/node/hbase_rest/package.json pins it); exits 77 (skipped) when node
# or npm are not there, the registry cannot be reached, or rowkey has no
# gRPC.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
SRC=${RK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
WORK=${RK_BINARY_DIR:-/tmp}/node-hbase-rest
command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node and npm are needed"; exit 77; }
"$ROWKEY" serve --help 2>&1 | grep -q "has no gRPC" && { echo "skipped: rowkey built without RK_WITH_BIGTABLE"; exit 77; }

mkdir -p "$WORK"
cp "$SRC/tests/node/hbase_rest/package.json" "$SRC/tests/node/hbase_rest/hbase_rest.js" "$WORK/"
if [ ! -d "$WORK/node_modules/hbase" ]; then
	echo "installing hbase from npm into $WORK"
	if ! (cd "$WORK" && npm install --no-audit --no-fund --loglevel=error >"$WORK/npm.log" 2>&1); then
		tail -5 "$WORK/npm.log"
		echo "skipped: npm could not install hbase (is the npm registry reachable?)"
		exit 77
	fi
fi

T=$(mktemp -d)
SV=
: >"$T/sv.out" # before the server's own redirection makes it
cleanup() {
	[ -n "$SV" ] && { kill -9 "$SV" 2>/dev/null; wait "$SV" 2>/dev/null; }
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$ROWKEY" serve --db "$T/db" --listen 127.0.0.1:0 --hbase-rest 127.0.0.1:0 >"$T/sv.out" 2>"$T/sv.err" &
SV=$!
REST=
for _ in $(seq 200); do
	REST=$(sed -n 's#^rowkey serve: HBase REST on http://\([^/]*\)/$#\1#p' "$T/sv.out")
	[ -n "$REST" ] && break
	kill -0 "$SV" 2>/dev/null || break
	sleep 0.05
done
[ -n "$REST" ] || { cat "$T/sv.out" "$T/sv.err" >&2; fail "rowkey serve --hbase-rest did not start"; }
(cd "$WORK" && node hbase_rest.js "${REST%:*}" "${REST##*:}") || fail "the npm hbase client (above)"
kill -TERM "$SV"
wait "$SV" || fail "SIGTERM: exit $?"
SV=
echo "ok"
