#!/usr/bin/env bash
# The store commands against Bigtable (Google's emulator): create, put, get,
# scan, delete, regions and load with --db bigtable://p/i, cross-checked with
# Google's own `cbt` tool both ways (rows written by rowkey are counted and
# read by cbt with the expected values and timestamps; rows written by
# `cbt set` are read by rowkey); a table's schema remembered by its first
# load -s (in the instance's _rowkey_meta table, which cbt sees) and used by
# query, explain, describe and regions. Failure cases: bad URIs, a missing table,
# what Bigtable cannot do (reverse scans, old-timestamp family deletes,
# region moves), and the emulator stopped in the middle of a load.
#
# The emulator listens on a port the kernel picks (--port=0, read back from
# its banner) and is killed by pid on exit. Exits 77 (skipped) when rowkey
# was built without the Bigtable backend or the emulator / cbt are missing.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
EMU=/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator
if [ ! -x "$EMU" ] || ! command -v cbt >/dev/null; then
	echo "skipped: $EMU or cbt not installed"
	exit 77
fi
if "$ROWKEY" scan --db bigtable://p/i t 2>&1 | grep -q "built without the Bigtable backend"; then
	echo "skipped: rowkey built without RK_WITH_BIGTABLE"
	exit 77
fi

T=$(mktemp -d)
EPIDS=()
cleanup() {
	for p in "${EPIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# start_emulator VAR: starts one, sets BIGTABLE_EMULATOR_HOST, pid in VAR
start_emulator() {
	local out="$T/emu.$RANDOM"
	"$EMU" --host=127.0.0.1 --port=0 >"$out" 2>&1 &
	local pid=$!
	EPIDS+=("$pid")
	printf -v "$1" '%s' "$pid"
	for _ in $(seq 100); do
		local addr
		addr=$(sed -n 's/^Cloud Bigtable emulator running on //p' "$out")
		if [ -n "$addr" ]; then
			export BIGTABLE_EMULATOR_HOST=$addr
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	cat "$out" >&2
	fail "the emulator did not start"
}

DB=bigtable://p/i
ok() { "$ROWKEY" "$@" >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "rowkey $* exited $?"; }; }
code() { local want=$1; shift; "$ROWKEY" "$@" >"$T/out" 2>"$T/err"; local got=$?; [ "$got" = "$want" ] || { cat "$T/out" "$T/err" >&2; fail "rowkey $* exited $got, wanted $want"; }; }
has() { grep -q -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected '$1' in $2"; }; }
cbt_() { cbt -project p -instance i "$@" 2>"$T/cbt.err" || { cat "$T/cbt.err" >&2; fail "cbt $* failed"; }; }

start_emulator EPID

# ---- bad URIs ----
code 1 scan --db bigtable://p t; has "bad URI" err
code 1 scan --db bigtable://p/i/x t; has "bad URI" err
code 1 scan --db 'bigtable://p/I!' t; has "instance id" err

# ---- create, put, get, scan ----
ok create --db "$DB" users -f info:3 -f stats --split m
has "2 regions" out
code 1 create --db "$DB" users -f info; has "already exists" err
code 1 create --db "$DB" t3 -f "bad fam"; has "bad fam" err
cbt_ ls users >"$T/cbt"
grep -q "versions() > 3" "$T/cbt" || { cat "$T/cbt"; fail "cbt sees the GC rule of info"; }

ok put --db "$DB" users alice info:name Alice info:city Paris
ok put --db "$DB" users bob info:name Bob
ok put --db "$DB" users 'zed\x00\xff' info:name Zed
ok put --db "$DB" --ts 100000 users carol info:name C1
ok put --db "$DB" --ts 200000 users carol info:name C2
code 1 put --db "$DB" --ts 100 users carol info:name C0; has "not a whole millisecond" err
code 1 put --db "$DB" users alice nofam:x v; has "unknown family 'nofam'" err
code 1 put --db "$DB" nosuch r f:q v; has "table nosuch does not exist in bigtable://p/i" err

ok get --db "$DB" users alice
has $'alice\tinfo:city\t' out
has 'Paris' out
ok get --db "$DB" --versions 5 users carol
[ "$(wc -l <"$T/out")" = 2 ] || fail "carol should show 2 versions"
has $'carol\tinfo:name\t200000\tC2' out
ok get --db "$DB" --versions 5 --min-ts 150000 users carol
[ "$(wc -l <"$T/out")" = 1 ] || fail "the time range keeps one version"
ok get --db "$DB" -c info:name --json users 'zed\x00\xff'
has '"row":"zed\\u0000\\u00ff"' out
code 1 get --db "$DB" users nobody; has "not found" err

ok scan --db "$DB" users --keys-only
[ "$(tr '\n' ' ' <"$T/out")" = 'alice bob carol zed\x00\xff ' ] || { cat "$T/out"; fail "scan order"; }
code 1 scan --db "$DB" users --keys-only --reverse --limit 2; has "not supported by Bigtable" err
ok scan --db "$DB" users --count --start b --stop z
[ "$(cat "$T/out")" = 2 ] || fail "range count"
ok scan --db "$DB" users --prefix al --keys-only
[ "$(cat "$T/out")" = alice ] || fail "prefix scan"
ok scan --db "$DB" users --keys-only --limit 2
[ "$(tr '\n' ' ' <"$T/out")" = 'alice bob ' ] || { cat "$T/out"; fail "limit"; }
code 1 scan --db "$DB" nosuch; has "nosuch does not exist" err

# ---- cbt reads what rowkey wrote ----
[ "$(cbt_ count users)" = 4 ] || fail "cbt count users"
cbt_ read users >"$T/cbt"
grep -q '"Paris"' "$T/cbt" || { cat "$T/cbt"; fail "cbt read: alice's city"; }
cbt_ read users prefix=carol >"$T/cbt"
grep -q '1970/01/01-00:00:00.200000' "$T/cbt" && grep -q '"C2"' "$T/cbt" &&
	grep -q '1970/01/01-00:00:00.100000' "$T/cbt" || { cat "$T/cbt"; fail "cbt read: carol's versions and timestamps"; }

# ---- rowkey reads what cbt wrote ----
cbt_ set users dave info:name=Dave info:age=41@7000 >/dev/null
ok get --db "$DB" users dave
has $'dave\tinfo:age\t7000\t41' out
has $'dave\tinfo:name\t' out
has 'Dave' out
ok scan --db "$DB" users --count
[ "$(cat "$T/out")" = 5 ] || fail "5 rows after cbt set"

# ---- deletes ----
ok delete --db "$DB" users alice info:city
ok get --db "$DB" users alice
grep -q city "$T/out" && fail "deleted column still there"
code 1 delete --db "$DB" --ts 5000 users carol info; has "not supported by Bigtable" err
ok delete --db "$DB" users bob
code 1 get --db "$DB" users bob
[ "$(cbt_ count users)" = 4 ] || fail "cbt count after the row delete"

# ---- regions: the tablets SampleRowKeys reports ----
ok regions --db "$DB" users
has "(start)" out
has "(end)" out
# Bigtable reports no load and no servers: '-' in the table, null in JSON,
# never '0 cells' (an idle region) nor server 0
grep -q "0 cells" "$T/out" && { cat "$T/out"; fail "regions on Bigtable shows an unknown load as 0 cells"; }
has "^1 *users *- " out
has "server, written, read, now: - where the backend does not say" out
ok regions --db "$DB" --json users
has '"table":"users"' out
python3 - "$T/out" <<'EOF' || fail "regions --json on Bigtable"
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
assert rs and all(r["since_born"] is None and r["now"] is None and r["server"] is None for r in rs), rs
assert all(isinstance(r["size_bytes"], int) and r["start"] is not None for r in rs), rs
EOF
code 1 regions --db "$DB" nosuch; has "nosuch does not exist" err
code 1 regions --db "$DB" move 1 0; has "not supported by Bigtable" err

# ---- load through a schema; cbt counts it ----
SCHEMA='fields user:str, ts:i64, kind:str; key bucket(4, xxh3(user)) user ":" u64(rts(ts))'
ok create --db "$DB" ev -f d --buckets 4
{
	echo "user,ts,kind"
	for i in $(seq 1 500); do echo "user$i,$((1000 + i)),k$((i % 3))"; done
} >"$T/in.csv"
ok load --db "$DB" -q ev -s "$SCHEMA" "$T/in.csv"
has "^500 rows in " out
ok scan --db "$DB" ev --count
[ "$(cat "$T/out")" = 500 ] || fail "500 rows loaded"
[ "$(cbt_ count ev)" = 500 ] || fail "cbt count ev"
for b in 00 01 02 03; do
	n=$("$ROWKEY" scan --db "$DB" ev --prefix "\\x$b" --count)
	[ "$n" -gt 50 ] || fail "bucket $b has only $n rows"
done

# ---- the table remembers its schema, in the instance's _rowkey_meta table ----
ok load --db "$DB" -q ev -s "$SCHEMA" "$T/in.csv"
grep -q "not checked" "$T/err" && { cat "$T/err"; fail "load: the schema is checked on Bigtable"; }
ok query --db "$DB" -t ev -w 'user = "user7"'
has $'user7\t1007' out
[ "$(wc -l <"$T/out")" = 2 ] || { cat "$T/out"; fail "query without -s: a header and user7"; }
ok explain --db "$DB" --table ev -w 'user = "user7"'
has "^ranges      1" out
ok describe --db "$DB" --table ev
has "the schema it remembers" out
has "u64(rts(ts))" out
OTHER='fields user:str, ts:i64, kind:str; key user'
code 1 load --db "$DB" -q ev -s "$OTHER" "$T/in.csv"
has "refused: table ev was written with another schema" err
has "table's: fields user:str, ts:i64, kind:str; key bucket(4, xxh3(user))" err
code 1 query --db "$DB" -t ev -s "$OTHER" -w 'user = "user7"'
has "refused: table ev was written with another schema" err
ok query --db "$DB" -t ev -s "$OTHER" --force -w 'user = "user7"'
has "note: table ev was written with another schema" err
# regions decode their keys through it; rowkey's listing leaves _rowkey_meta out
ok regions --db "$DB" ev
has "bucket [0-3]: user=user" out
ok regions --db "$DB"
grep -q _rowkey_meta "$T/out" && { cat "$T/out"; fail "regions lists rowkey's settings table"; }
# a table with no schema stored says how to give one
code 1 query --db "$DB" -t users -w 'user = "x"'
has "table users has no stored schema" err
# the settings are a Bigtable table like any other: cbt sees the row
cbt_ ls >"$T/cbt"
grep -qx _rowkey_meta "$T/cbt" || { cat "$T/cbt"; fail "cbt ls: no _rowkey_meta"; }
cbt_ read _rowkey_meta prefix=ev >"$T/cbt"
grep -q '^  s:schema ' "$T/cbt" && grep -qF 'key bucket(4, xxh3(user)) user' "$T/cbt" ||
	{ cat "$T/cbt"; fail "cbt read _rowkey_meta: ev's schema"; }

# ---- a batch refused part way: the report says which rows are written ----
ok create --db "$DB" part -f d
awk 'BEGIN { print "user,ts,kind"; for (i = 1; i <= 20; i++) { u = "u" i; if (i == 7) { u = ""; for (k = 0; k < 5000; k++) u = u "x" } printf "%s,%d,k\n", u, i } }' >"$T/part.csv"
code 1 load --db "$DB" part -s "$SCHEMA" --batch 5 "$T/part.csv"
has "Bigtable row keys are at most 4096" err
# rows 1-5 were acknowledged; the batch of lines 7..11 was refused whole (the
# bad key is checked before anything is sent): read back, none of it is there
has "the 5 rows before line 7 are written; of the batch at lines 7\.\.11 (rows 6\.\.10; this backend writes each row on its own), 0 rows read back as written, 5 failed (lines 7, 8, 9, 10, 11); nothing after line 11 was written" err
n=$(cbt_ count part | tail -1)
[ "$n" = 5 ] || fail "cbt counts $n rows in part, the report said 5"

# ---- the emulator stopped in the middle of a load ----
start_emulator EPID2
ok create --db "$DB" big -f d
awk 'BEGIN { print "user,ts,kind"; for (i = 0; i < 200000; i++) printf "u%d,%d,k\n", i, i }' >"$T/big.csv"
# about 3 s of work at the emulator's pace: stop it after 0.7 s
"$ROWKEY" load --db "$DB" -q big -s "$SCHEMA" "$T/big.csv" >"$T/out" 2>"$T/err" &
LPID=$!
sleep 0.7
{ kill -9 "$EPID2"; wait "$EPID2"; } 2>/dev/null
wait "$LPID"
[ $? = 1 ] || { cat "$T/out" "$T/err"; fail "a load into a stopped emulator must fail"; }
has "writing a batch" err
has "rows acknowledged (this call)" err
has "since the store was opened" err
has "UNAVAILABLE" err
# the failed batch cannot be read back with the emulator gone: the backend's
# own word per row, which adds up to the rows it says it acknowledged
has "this backend writes each row on its own" err
has "acknowledged by the backend (reading back failed" err
said=$(sed -n 's/.*: \([0-9]*\) of [0-9]* rows acknowledged (this call).*/\1/p' "$T/err")
got=$(sed -n 's/.*read back as written, \([0-9,]*\) acknowledged by the backend.*/\1/p' "$T/err" | tr -d ,)
[ -n "$said" ] && [ "$said" = "$got" ] || fail "the report counts $got acknowledged rows, the backend said $said"
cat "$T/err"

echo "bigtable commands: ok"
