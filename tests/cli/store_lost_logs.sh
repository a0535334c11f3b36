#!/usr/bin/env bash
# A write-ahead log lost while the store was closed, through the commands: a
# deleted, truncated or swapped log makes every command refuse the store
# naming the log and what was recorded of it, `rowkey check` exits 1 saying
# so, and `rowkey check --repair` accepts the loss, says what is lost (also
# in DIR/repair.log) and leaves a store that checks clean.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
code() { local want=$1; shift; "$ROWKEY" "$@" >"$T/out" 2>"$T/err"; local got=$?; [ "$got" = "$want" ] || { cat "$T/out" "$T/err" >&2; fail "rowkey $* exited $got, wanted $want"; }; }
has() { grep -qF -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected '$1' in $2"; }; }

# 30,000 acknowledged rows, all in the logs of two servers (the next open
# would replay them into tables)
GOOD="$T/good"
code 0 create --db "$GOOD" --servers 2 t -f f --split u2
{ echo name; for i in $(seq 10000 39999); do echo "u$i"; done; } >"$T/names.csv"
code 0 load --db "$GOOD" --batch 500 -q t -s 'fields name:str; key name' "$T/names.csv"
LOG0=$(ls "$GOOD"/rs-000/*.log | head -1); LOG0=${LOG0#"$GOOD/"}
LOG1=$(ls "$GOOD"/rs-001/*.log | head -1); LOG1=${LOG1#"$GOOD/"}

fresh() { rm -rf "$T/db"; cp -a "$GOOD" "$T/db"; }
refused() {
	code 1 scan --db "$T/db" t --count
	has "write-ahead log $T/db/$1 $2" err
	has "check --repair" err
	code 1 check "$T/db"
	has "write-ahead log $T/db/$1" err
}
repaired() {
	code 0 check --repair "$T/db"
	has "dropped: write-ahead log $T/db/$1" out
	has "$2" out
	has "store $T/db: ok" out
	grep -qF "write-ahead log $T/db/$1" "$T/db/repair.log" || fail "repair.log does not say what was lost"
	code 0 check "$T/db"
	code 0 scan --db "$T/db" t --count
}

# deleted: the table would have opened with none of server 0's rows
fresh
rm "$T/db/$LOG0"
refused "$LOG0" "is missing ("
repaired "$LOG0" "its writes are lost"
[ "$(cat "$T/out")" -lt 30000 ] || fail "every row there after a deleted log"

# truncated
fresh
SIZE=$(stat -c %s "$T/db/$LOG1")
truncate -s $((SIZE / 2)) "$T/db/$LOG1"
refused "$LOG1" "has $((SIZE / 2)) bytes, $SIZE were written and synced"
repaired "$LOG1" "the rest is lost"

# swapped: server 1's log in server 0's place
fresh
cp "$T/db/$LOG1" "$T/db/$LOG0"
code 1 scan --db "$T/db" t --count
has "write-ahead log $T/db/$LOG0" err
code 0 check --repair "$T/db"
has "dropped: write-ahead log $T/db/$LOG0" out

# nothing lost: every row, and check is clean
fresh
code 0 check "$T/db"
code 0 scan --db "$T/db" t --count
[ "$(cat "$T/out")" = 30000 ] || fail "$(cat "$T/out") rows in the intact store"
echo "store_lost_logs: ok"
