#!/usr/bin/env bash
# A full disk under `rowkey load` (tests/faults/enospc_shim.c preloaded: writes
# under the store fail with ENOSPC once a byte budget is spent). The load
# exits 1 naming the table, the region server, the engine file and the cause,
# and says how many rows are known written (the batches acknowledged before the
# failure: the load keeps two in flight). Then, without
# the shim: the store opens, `rowkey check` is clean, every row the load
# reported written is there, and the same load finishes.
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
SCHEMA='fields user:str, pad:str; key bucket(4, xxh3(user)) user'
PAD=$(printf '%0100d' 0)

"$ROWKEY" create --db "$DB" --servers 2 ev -f d --buckets 4 >/dev/null || fail "create"
{
	echo "user,pad"
	for i in $(seq 1 4000); do echo "user$i,$PAD"; done
} >"$T/in.csv"

# gcc's ASan runtime insists on coming first among preloads
LD_PRELOAD="$RK_ENOSPC_SHIM" RK_ENOSPC_DIR="$DB" RK_ENOSPC_BYTES=300000 \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	"$ROWKEY" load --db "$DB" ev -s "$SCHEMA" --batch 100 "$T/in.csv" >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] || { cat "$T/err"; fail "load on a full disk exited $rc, wanted 1"; }
has "table ev: region server [0-9]+: write failed" err
has "engine $DB/rs-00[0-9]: IO error: $DB/rs-00[0-9]/[0-9]+\.log: No space left on device" err
N=$(sed -n 's/.*the \([0-9,]*\) rows before line [0-9]* are written.*/\1/p' "$T/err" | tr -d ,)
[ -n "$N" ] || { cat "$T/err"; fail "the load does not say how many rows it wrote"; }
[ "$N" -gt 0 ] && [ "$N" -lt 4000 ] || fail "$N rows written: the budget should stop the load midway"

# the disk has room again: the store opens and is sound
"$ROWKEY" check --db "$DB" >"$T/out" 2>"$T/err" || { cat "$T/out" "$T/err"; fail "check after the full disk"; }
# every row reported written is there
head -n $((N + 1)) "$T/in.csv" | "$ROWKEY" encode -s "$SCHEMA" | sort >"$T/want" || fail "encode"
"$ROWKEY" scan --db "$DB" ev --keys-only | sort >"$T/have" || fail "scan"
MISSING=$(comm -23 "$T/want" "$T/have" | wc -l)
[ "$MISSING" = 0 ] || fail "$MISSING of the $N rows reported written are missing"
# and the load can be finished
"$ROWKEY" load --db "$DB" ev -s "$SCHEMA" --batch 100 "$T/in.csv" >"$T/out" 2>"$T/err" ||
	{ cat "$T/err"; fail "load after the full disk"; }
[ "$("$ROWKEY" scan --db "$DB" ev --count)" = 4000 ] || fail "4000 rows expected after the second load"
"$ROWKEY" check --db "$DB" >/dev/null || fail "check after the second load"
echo "store full disk: ok ($N rows written before the disk filled)"
