#!/usr/bin/env bash
# rowkey load writes through the buffered API (rk_table_apply_async, two
# batches in flight, rk_table_flush at the end). Checked here:
# - 5,000 records in batches of 100, sync and --async: the summary counts
#   exactly 5,000 rows, and every cell of every record reads back (scan, and
#   get at batch boundaries); one timestamp per batch, 50 batches;
# - a full disk (tests/faults/enospc_shim.c) midway: the rows reported
#   written are all there (and so no more than what is there); in the batches
#   reported failed or uncertain, each region server's share is all there or
#   all missing; nothing from the line where the report says nothing was
#   written is there;
# - a full disk surfacing only at the final flush (two batches, both in
#   flight): no row is counted written, and the report says so.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
has() { grep -qE -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected /$1/ in $2"; }; }

# ---- every row of a 5,000-record load, sync and --async ----
SCHEMA='fields user:str, n:u64; key bucket(4, xxh3(user)) user'
{
	echo "user,n"
	for i in $(seq 1 5000); do echo "user$i,$i"; done
} >"$T/in.csv"
"$ROWKEY" encode -s "$SCHEMA" --in "$T/in.csv" >"$T/keys" || fail "encode"
[ "$(wc -l <"$T/keys")" = 5000 ] || fail "encode gave $(wc -l <"$T/keys") keys"
# the cells each record should leave: row, column, value
tail -n +2 "$T/in.csv" | paste -d, "$T/keys" - |
	awk -F, '{ printf "%s\td:user\t%s\n%s\td:n\t%s\n", $1, $2, $1, $3 }' | sort >"$T/want"

for mode in sync async; do
	DB="$T/db-$mode"
	opt=
	[ $mode = async ] && opt=--async
	"$ROWKEY" create --db "$DB" --servers 2 ev -f d --buckets 4 >/dev/null || fail "create ($mode)"
	"$ROWKEY" load --db "$DB" ev -s "$SCHEMA" --batch 100 $opt "$T/in.csv" >"$T/out" 2>"$T/err" ||
		{ cat "$T/err"; fail "load ($mode) exited $?"; }
	has "^5,000 rows in [0-9.]+ s \([0-9,.]+ rows/s\), 0 rejected$" out
	[ "$("$ROWKEY" scan --db "$DB" ev --count)" = 5000 ] || fail "5000 rows expected ($mode)"
	"$ROWKEY" scan --db "$DB" ev >"$T/scan" || fail "scan ($mode)"
	cut -f1,2,4 "$T/scan" | sort >"$T/have"
	cmp -s "$T/want" "$T/have" ||
		{ diff "$T/want" "$T/have" | head; fail "the cells read back differ ($mode)"; }
	# one timestamp per batch (apply_async assigns one per call): 50 batches
	NTS=$(cut -f3 "$T/scan" | sort -u | wc -l)
	[ "$NTS" = 50 ] || fail "$NTS timestamps, expected one per batch of 100 ($mode)"
	# point reads at the batch edges: records 1, 100, 101, 4900, 4901, 5000
	for r in 1 100 101 4900 4901 5000; do
		k=$(sed -n "${r}p" "$T/keys")
		"$ROWKEY" get --db "$DB" ev "$k" -c d:n >"$T/get" || fail "get of record $r ($mode)"
		[ "$(cut -f4 "$T/get")" = "$r" ] || { cat "$T/get"; fail "record $r reads back wrong ($mode)"; }
	done
	"$ROWKEY" check --db "$DB" >/dev/null || fail "check ($mode)"
done

# ---- a full disk ----
if [ -z "${RK_ENOSPC_SHIM:-}" ] || [ ! -r "$RK_ENOSPC_SHIM" ]; then
	echo "store load buffered: ok (full-disk cases skipped: RK_ENOSPC_SHIM does not name the shim)"
	exit 0
fi
SCHEMA='fields user:str, pad:str; key bucket(4, xxh3(user)) user'
PAD=$(printf '%0100d' 0)
{
	echo "user,pad"
	for i in $(seq 1 4000); do echo "user$i,$PAD"; done
} >"$T/pad.csv"
"$ROWKEY" encode -s "$SCHEMA" --in "$T/pad.csv" >"$T/padkeys" || fail "encode"

# full_load DB BUDGET OPTIONS...: a load of the first $ROWS records of pad.csv
# in batches of 100 with the shim spending BUDGET bytes; must exit 1
full_load() {
	local db=$1 budget=$2
	shift 2
	"$ROWKEY" create --db "$db" --servers 2 ev -f d --buckets 4 >/dev/null || fail "create"
	head -n $((ROWS + 1)) "$T/pad.csv" >"$T/part.csv"
	# gcc's ASan runtime insists on coming first among preloads
	LD_PRELOAD="$RK_ENOSPC_SHIM" RK_ENOSPC_DIR="$db" RK_ENOSPC_BYTES=$budget \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$ROWKEY" load --db "$db" ev -s "$SCHEMA" --batch 100 "$@" "$T/part.csv" >"$T/out" 2>"$T/err"
	local rc=$?
	[ $rc = 1 ] || { cat "$T/err"; fail "load on a full disk exited $rc, wanted 1"; }
	has "table ev: region server [0-9]+: write failed" err
	has "engine $db/rs-00[0-9]: IO error: $db/rs-00[0-9]/[0-9]+\.log: No space left on device" err
	"$ROWKEY" check --db "$db" >"$T/out" 2>"$T/err2" || { cat "$T/out" "$T/err2"; fail "check after the full disk"; }
	"$ROWKEY" scan --db "$db" ev --keys-only >"$T/present" || fail "scan"
}

# verify: what the report says against what is there. Rows are numbered as
# lines - 1 (no record is rejected); batch b holds rows 100b+1..100b+100.
verify() {
	local db=$1
	N=$(sed -n 's/.*the \([0-9,]*\) rows\( before line [0-9]*\)\{0,1\} are written.*/\1/p' "$T/err" | tr -d ,)
	[ -n "$N" ] || { cat "$T/err"; fail "the load does not say how many rows it wrote"; }
	U=$(sed -n 's/.*; rows \([0-9]*\)\.\.\([0-9]*\) (lines .*) failed or are uncertain.*/\1 \2/p' "$T/err")
	NOTHING=$(sed -n 's/.*nothing from line \([0-9]*\) on was written.*/\1/p' "$T/err")
	local present
	present=$(wc -l <"$T/present")
	[ "$N" -le "$present" ] || fail "$N rows reported written, $present there"
	# bucket (the key's first byte, as \xNN) -> region server
	"$ROWKEY" regions --db "$db" --json ev | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    print("\\x" + (r["start"]["hex"][:2] or "00"), r["server"])' >"$T/servers"
	[ "$(wc -l <"$T/servers")" = 4 ] || { cat "$T/servers"; fail "4 regions expected"; }
	head -n "$ROWS" "$T/padkeys" |
		awk -v n="$N" -v u="${U:-0 0}" -v nothing="${NOTHING:-0}" -v srv="$T/servers" -v have="$T/present" '
		BEGIN {
			while ((getline l < srv) > 0) { split(l, f, " "); server[f[1]] = f[2] }
			while ((getline l < have) > 0) there[l] = 1
			split(u, ur, " ")
		}
		{
			row = NR
			if (row <= n && !($0 in there)) { print "row " row " reported written is missing"; bad = 1 }
			if (nothing && row + 1 >= nothing && ($0 in there)) { print "row " row " (line " row + 1 ") is there, after the report said nothing was written"; bad = 1 }
			if (row >= ur[1] && row <= ur[2]) {
				g = int((row - 1) / 100) " " server[substr($0, 1, 4)]
				total[g]++
				if ($0 in there) got[g]++
			}
		}
		END {
			for (g in total)
				if (got[g] && got[g] != total[g]) {
					print "batch/server " g ": " got[g] " of " total[g] " rows there"; bad = 1
				}
			exit bad
		}' || { cat "$T/err"; fail "the report does not match the store"; }
}

# midway: the disk fills after some thousand rows
ROWS=4000
full_load "$T/full1" 300000
has "writing a batch: an earlier buffered batch failed" err
has "rows [0-9]+\.\.[0-9]+ \(lines [0-9]+\.\.[0-9]+, 2 batches in flight\) failed or are uncertain: each region server's share of a batch is written whole or not at all; nothing from line [0-9]+ on was written" err
verify "$T/full1"
[ "$N" -gt 0 ] && [ "$N" -lt 3800 ] || fail "$N rows written: the budget should stop the load midway"
[ -n "$NOTHING" ] && [ "$NOTHING" = $((N + 200 + 2)) ] ||
	fail "nothing written from line $NOTHING: expected just past the two batches in flight after row $N"
MID=$N

# two batches in all, both in flight when the disk fills: only the flush knows
ROWS=200
full_load "$T/full2" 20000 --async
has "finishing the last batches: table ev: region server [0-9]+: write failed" err
has "the 0 rows before line 2 are written; rows 1\.\.200 \(lines 2\.\.201, 2 batches in flight\) failed or are uncertain" err
verify "$T/full2"
echo "store load buffered: ok ($MID rows written before the disk filled; every cell of 5000 rows read back)"
