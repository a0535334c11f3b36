#!/usr/bin/env bash
# rowkey serve with the official Node client (@google-cloud/bigtable), call
# for call against Google's emulator: tests/node/serve_diff.js makes the same
# calls (create with splits, families, insert, createReadStream over keys,
# ranges, prefixes and filters, checkAndMutate, increment, append rules,
# deletes, a MutateRows with a bad entry, a table of the same id in another
# instance, deleteRows, delete, and requests at the edge of the API: inverted
# and empty row ranges, filters of zero limits and of too few members)
# against each server and the two JSON answers must be equal. Known
# differences are left out of the comparison by the script and listed there
# (timestamps, random SampleRowKeys, the emulator's random family order when
# counting cells per row). The differences docs/serve.md lists (a negative
# rows_limit, a column range without a family, negative or inverted
# timestamp ranges, an increment of an empty value, CheckAndMutateRow's
# branch not taken, ModifyColumnFamilies without modifications) are asserted
# per server by tests/node/serve_differs.js, each answer the one expected of
# that server. SampleRowKeys of rowkey serve must be the table's splits.
#
# The client is installed from npm into the build directory on first use
# (tests/node/package.json pins it); exits 77 (skipped) when node, npm, the
# registry or the emulator are not there, or rowkey has no gRPC.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
EMU=/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator
SRC=${RK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
WORK=${RK_BINARY_DIR:-/tmp}/node-serve
[ -x "$EMU" ] || { echo "skipped: $EMU not installed"; exit 77; }
command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node and npm are needed"; exit 77; }
"$ROWKEY" serve --help 2>&1 | grep -q "has no gRPC" && { echo "skipped: rowkey built without RK_WITH_BIGTABLE"; exit 77; }

mkdir -p "$WORK"
cp "$SRC/tests/node/package.json" "$SRC/tests/node/serve_diff.js" "$SRC/tests/node/serve_differs.js" "$WORK/"
if [ ! -d "$WORK/node_modules/@google-cloud/bigtable" ]; then
	echo "installing @google-cloud/bigtable from npm into $WORK"
	if ! (cd "$WORK" && npm install --no-audit --no-fund --loglevel=error >"$WORK/npm.log" 2>&1); then
		tail -5 "$WORK/npm.log"
		echo "skipped: npm could not install @google-cloud/bigtable (is the npm registry reachable?)"
		exit 77
	fi
fi

T=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$EMU" --host=127.0.0.1 --port=0 >"$T/emu.out" 2>&1 &
PIDS+=("$!")
"$ROWKEY" serve --db "$T/db" --listen 127.0.0.1:0 >"$T/sv.out" 2>"$T/sv.err" &
SV=$!
PIDS+=("$SV")
EMU_ADDR= SV_ADDR=
for _ in $(seq 200); do
	EMU_ADDR=$(sed -n 's/^Cloud Bigtable emulator running on //p' "$T/emu.out")
	SV_ADDR=$(sed -n 's/^rowkey serve: listening on \([^ ]*\) .*/\1/p' "$T/sv.out")
	[ -n "$EMU_ADDR" ] && [ -n "$SV_ADDR" ] && break
	sleep 0.05
done
[ -n "$EMU_ADDR" ] && [ -n "$SV_ADDR" ] || { cat "$T"/*.out "$T/sv.err" >&2; fail "servers did not start"; }

run() { # run ADDR OUT [env...]
	local addr=$1 out=$2
	shift 2
	(cd "$WORK" && env BIGTABLE_EMULATOR_HOST="$addr" "$@" node serve_diff.js nodetest >"$out" 2>"$out.err") ||
		{ cat "$out.err" >&2; fail "the Node client failed against $addr"; }
}
run "$EMU_ADDR" "$T/emu.json"
run "$SV_ADDR" "$T/sv.json"
(cd "$WORK" && node serve_differs.js "$T/emu.json" "$T/sv.json" "$SRC/docs/serve.md") ||
	fail "the documented differences from the emulator are not what each server answered"
if ! diff -u "$T/emu.json" "$T/sv.json" >"$T/diff"; then
	head -80 "$T/diff" >&2
	fail "the Node client sees rowkey serve differently from the emulator (- emulator, + rowkey)"
fi
grep -q '"v-zz"\|762d7a7a' "$T/sv.json" || fail "the Node client read nothing back"
# SampleRowKeys: the regions (splits g and p, then the end)
run "$SV_ADDR" "$T/samples.json" RK_CHECK_SAMPLES=1
node -e '
const s = require(process.argv[1]).samples;
if (JSON.stringify(s) !== JSON.stringify(["g", "p", ""])) { console.error("samples:", s); process.exit(1); }
' "$T/samples.json" || fail "SampleRowKeys is not the table's regions"
kill -TERM "$SV"; wait "$SV" || fail "rowkey serve did not exit 0 on SIGTERM"
echo "serve_node: ok"
