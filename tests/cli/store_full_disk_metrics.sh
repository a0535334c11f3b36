#!/usr/bin/env bash
# A disk that fills between a change and the store's close: the write-ahead
# log takes the change, then the metrics file (the load counters, written at
# close) cannot be written. tests/faults/enospc_shim.c preloaded with
# RK_ENOSPC_STDIO=1 and RK_ENOSPC_NAME=metrics.tsv fails only that file.
# put, delete, create, regions split and load say what was applied and what
# failed (the file and the errno text), and exit 3, the status their --help
# documents; the change is there afterwards and the old metrics file is kept
# whole (no temporary file left).
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
if [ -z "${RK_ENOSPC_SHIM:-}" ] || [ ! -r "$RK_ENOSPC_SHIM" ]; then
	echo "skipped: RK_ENOSPC_SHIM does not name the full-disk shim"
	exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DB="$T/db"
fail() { echo "FAIL: $*" >&2; exit 1; }
has() { grep -qE -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected /$1/ in $2"; }; }
# full CMD...: runs rowkey with the metrics file's disk full; wants exit 3
full() {
	LD_PRELOAD="$RK_ENOSPC_SHIM" RK_ENOSPC_DIR="$DB" RK_ENOSPC_BYTES=0 RK_ENOSPC_STDIO=1 \
		RK_ENOSPC_NAME=metrics.tsv \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$ROWKEY" "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	[ $rc = 3 ] || { cat "$T/err"; fail "rowkey $* exited $rc, wanted 3"; }
	has "the store's metrics could not be saved: metrics file $DB/metrics.tsv.tmp: (writing failed: )?No space left on device" err
	[ ! -e "$DB/metrics.tsv.tmp" ] || fail "rowkey $* left metrics.tsv.tmp behind"
	cmp -s "$DB/metrics.tsv" "$T/metrics.before" || fail "rowkey $* changed metrics.tsv"
}

"$ROWKEY" create --db "$DB" t -f d >/dev/null || fail "create"
"$ROWKEY" put --db "$DB" t r0 d:q v0 || fail "put"
cp "$DB/metrics.tsv" "$T/metrics.before"

full put --db "$DB" t r1 d:q v1
has "^rowkey put: the put was applied; " err
[ "$("$ROWKEY" get --db "$DB" t r1 | cut -f4)" = v1 ] || fail "the put is not there"
cp "$DB/metrics.tsv" "$T/metrics.before"

full delete --db "$DB" t r0
has "^rowkey delete: the delete was applied; " err
"$ROWKEY" get --db "$DB" t r0 >/dev/null 2>&1 && fail "the delete is not there"
cp "$DB/metrics.tsv" "$T/metrics.before"

full create --db "$DB" t2 -f d
has "^rowkey create: table t2 was created; " err
"$ROWKEY" put --db "$DB" t2 a d:q v >/dev/null || fail "t2 is not there"
cp "$DB/metrics.tsv" "$T/metrics.before"

ID=$("$ROWKEY" regions --db "$DB" t --json | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
full regions --db "$DB" split "$ID" m
has "^rowkey regions: the split was applied; " err
[ "$("$ROWKEY" regions --db "$DB" t --json | wc -l)" = 2 ] ||
	fail "the split is not there"
cp "$DB/metrics.tsv" "$T/metrics.before"

# enough rows that the metrics file outgrows the stream's buffer: the write
# fails before the close does, and still names the file and the errno
{ echo k,v; for i in $(seq 1 3000); do echo "k$i,$i"; done; echo y,2; } >"$T/in.csv"
full load --db "$DB" t -s 'fields k:str, v:u32; key k' "$T/in.csv"
has "^rowkey load: the rows were written; " err
[ "$("$ROWKEY" get --db "$DB" t y | grep -c d:v)" = 1 ] || fail "the load is not there"

# the status is documented where a script's author looks
for c in put delete create regions load; do
	"$ROWKEY" $c --help >"$T/out" || fail "$c --help"
	tr '\n' ' ' <"$T/out" >"$T/help"
	has "3 the change was applied but closing the store failed" help
done
"$ROWKEY" check --db "$DB" >/dev/null || fail "check"
echo "store full disk (metrics): ok"
