#!/usr/bin/env bash
# A damaged write-ahead log through the commands: a store
# whose log holds a damaged record refuses every command, naming the log
# file and offset; `rowkey check --repair` says what it drops, logs it to
# DIR/repair.log, and leaves a store that checks clean, with the rows of the
# intact records there. A log cut short after a clean close is a lost log:
# refused, then accepted by --repair saying what is lost.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
code() { local want=$1; shift; "$ROWKEY" "$@" >"$T/out" 2>"$T/err"; local got=$?; [ "$got" = "$want" ] || { cat "$T/out" "$T/err" >&2; fail "rowkey $* exited $got, wanted $want"; }; }
has() { grep -qF -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected '$1' in $2"; }; }

# one load: its batches are the records of one log (the next open replays it)
GOOD="$T/good"
code 0 create --db "$GOOD" --servers 1 t -f f
{ echo name; for i in $(seq 1000 1999); do echo "u$i"; done; } >"$T/names.csv"
code 0 load --db "$GOOD" --batch 50 -q t -s 'fields name:str; key name' "$T/names.csv"
LOGNAME_=$(cd "$GOOD/rs-000" && ls -S *.log | head -1)
SIZE=$(stat -c %s "$GOOD/rs-000/$LOGNAME_")
[ "$SIZE" -gt 10000 ] || fail "the log holds $SIZE bytes"

# a damaged record in the middle
rm -rf "$T/db"; cp -a "$GOOD" "$T/db"; LOG="$T/db/rs-000/$LOGNAME_"
printf '\xff' | dd of="$LOG" bs=1 seek=$((SIZE / 2)) conv=notrunc 2>/dev/null
code 1 scan --db "$T/db" t
has "write-ahead log $LOG: damaged at offset" err
has "--repair" err
code 1 check "$T/db"
code 0 check --repair "$T/db"
has "dropped: write-ahead log $LOG: damaged at offset" out
has "store $T/db: ok" out
grep -qF "write-ahead log $LOG" "$T/db/repair.log" || fail "repair.log does not say what was dropped"
code 0 scan --db "$T/db" t
ROWS=$(wc -l <"$T/out")
[ "$ROWS" -ge 850 ] && [ "$ROWS" -lt 1000 ] || fail "$ROWS rows after the repair"
code 0 get --db "$T/db" t u1999 # in the last batch, after the damage
code 0 check "$T/db"

# a log cut short after the store closed cleanly: not a crash's torn tail
# (that is accepted: test_store_integrity), acknowledged writes lost: refused
# until --repair accepts the loss and says so
rm -rf "$T/db"; cp -a "$GOOD" "$T/db"; LOG="$T/db/rs-000/$LOGNAME_"
truncate -s $((SIZE - 20)) "$LOG"
code 1 scan --db "$T/db" t
has "write-ahead log $LOG has $((SIZE - 20)) bytes, $SIZE were written and synced" err
code 1 check "$T/db"
has "cut short" err
code 0 check --repair "$T/db"
has "dropped: write-ahead log $LOG has $((SIZE - 20)) bytes" out
has "store $T/db: ok" out
code 0 scan --db "$T/db" t
ROWS=$(wc -l <"$T/out")
[ "$ROWS" -ge 850 ] && [ "$ROWS" -lt 1000 ] || fail "$ROWS rows after the repair" # the last record (up to two batches: group commit)
code 0 check "$T/db"
echo "store_log_repair: ok"
