#!/usr/bin/env bash
# rowkey load: CSV and JSON lines through a schema into a table; rejected
# records reported with their line and skipped (or fatal with --strict);
# rows land in the right buckets and read back through get and scan.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DB="$T/db"
fail() { echo "FAIL: $*" >&2; exit 1; }
SCHEMA='fields user:str, ts:i64, kind:str; key bucket(4, xxh3(user)) user ":" u64(rts(ts))'

"$ROWKEY" create --db "$DB" --servers 2 ev -f d --buckets 4 >/dev/null || fail "create"
{
	echo "user,ts,kind"
	for i in $(seq 1 500); do echo "user$i,$((1000 + i)),k$((i % 3))"; done
	echo "broken,notanumber,x"
} >"$T/in.csv"
"$ROWKEY" load --db "$DB" ev -s "$SCHEMA" "$T/in.csv" >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "load exited $?"; }
grep -q "^500 rows in [0-9.]* s ([0-9,.]* rows/s), 1 rejected$" "$T/out" || { cat "$T/out"; fail "summary"; }
grep -q ", 1 rejected$" "$T/out" || fail "rejected count"
grep -q "line 502" "$T/err" || { cat "$T/err"; fail "rejected record names its line"; }

[ "$("$ROWKEY" scan --db "$DB" ev --count)" = 500 ] || fail "500 rows expected"
# a file of which every record is rejected loads nothing: exit 1, said so
printf 'user,ts,kind\na,x,k\nb,y,k\n' >"$T/allbad.csv"
"$ROWKEY" load --db "$DB" ev -s "$SCHEMA" "$T/allbad.csv" >"$T/out" 2>"$T/err"
[ $? = 1 ] || fail "a load that rejected every record should exit 1"
grep -q "every record was rejected (2): nothing was loaded" "$T/err" || { cat "$T/err"; fail "all rejected"; }
# the load's writes are recorded per region across runs: 500 rows x 3 fields
W=$("$ROWKEY" regions --db "$DB" --json ev | awk -F'"writes":' '{ split($2, a, ","); s += a[1] } END { print s }')
[ "$W" = 1500 ] || fail "regions record $W writes, expected 1500"
# every bucket got rows, each region holds only its bucket's rows
"$ROWKEY" regions --db "$DB" --json ev >"$T/regions" || fail "regions"
[ "$(grep -c '"table":"ev"' "$T/regions")" = 4 ] || fail "4 regions"
for b in 00 01 02 03; do
	n=$("$ROWKEY" scan --db "$DB" ev --prefix "\\x$b" --count)
	[ "$n" -gt 50 ] || fail "bucket $b has only $n rows"
done
"$ROWKEY" scan --db "$DB" ev --keys-only --limit 1 -c d:kind --json | grep -q '"row"' || fail "json scan"

# JSON lines, strict mode stops at the bad record
printf '{"user":"eve","ts":5,"kind":"x"}\n{"user":"f","ts":"bad"}\n{"user":"g","ts":7,"kind":"y"}\n' >"$T/in.jsonl"
"$ROWKEY" load --db "$DB" ev --format jsonl --strict -s "$SCHEMA" "$T/in.jsonl" >"$T/out" 2>"$T/err"
[ $? = 1 ] || fail "strict load should exit 1"
grep -q "line 2" "$T/err" || { cat "$T/err"; fail "strict error names line 2"; }
"$ROWKEY" load --db "$DB" ev --format jsonl -s "$SCHEMA" "$T/in.jsonl" >"$T/out" 2>"$T/err" || fail "jsonl load"
grep -q "^2 rows in " "$T/out" || { cat "$T/out"; fail "jsonl summary"; }
[ "$("$ROWKEY" scan --db "$DB" ev --count)" = 502 ] || fail "502 rows expected (the strict run wrote nothing: it stopped inside its first batch)"

# usage errors
"$ROWKEY" load --db "$DB" ev "$T/in.csv" 2>/dev/null; [ $? = 2 ] || fail "missing schema is a usage error"
"$ROWKEY" load --db "$DB" nosuch -s "$SCHEMA" "$T/in.csv" 2>"$T/err"; [ $? = 1 ] || fail "unknown table"
grep -q nosuch "$T/err" || fail "unknown table named"
"$ROWKEY" check --db "$DB" >/dev/null || fail "check after load"
echo "store load: ok"
