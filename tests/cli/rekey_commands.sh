#!/usr/bin/env bash
# rowkey rekey: a table of 20,000 rows under a sequential design (loaded with
# load -s, a few cells given more versions) moved to bucket(8, xxh3(id)):
# the new table is split on the buckets, every cell and version is there
# with its timestamp, verify is clean, cutover is refused before it and
# swaps the names after it, and query without -s reads every row through
# the new design, as the old table gave them. A planted difference makes
# verify fail naming both keys. A design that maps two old rows to one key
# is refused naming both; one that cannot encode a row names the row and
# the field; a table with no remembered schema is refused. kill -9 at
# random moments of a copy, 10 rounds, then the same command finishes it:
# verify clean, counts equal, rowkey check clean. On Bigtable (the
# emulator, when installed): copy, verify and a cutover in rowkey's table
# of names: the name reads the new design's rows, TABLE__old the old ones,
# the Bigtable ids printed and shown by describe and regions; --drop-old
# deletes the old id (gone from cbt ls); a second rekey takes a fresh id,
# --abort drops it; a third goes through to its cutover.
set -u
R=${ROWKEY:?ROWKEY must point at the rowkey binary}
T=$(mktemp -d)
EPIDS=()
cleanup() {
	for p in "${EPIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { "$R" "$@" >"$T/out" 2>"$T/err" || { cat "$T/out" "$T/err" >&2; fail "rowkey $* exited $?"; }; }
code() { local want=$1; shift; "$R" "$@" >"$T/out" 2>"$T/err"; local got=$?; [ "$got" = "$want" ] || { cat "$T/out" "$T/err" >&2; fail "rowkey $* exited $got, wanted $want"; }; }
has() { grep -q -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected '$1' in $2"; }; }

OLD='fields id:u64, ts:ts, user:str, v:str; key u64(id)'
NEW='fields id:u64, ts:ts, user:str, v:str; key bucket(8, xxh3(id)) u64(id)'
python3 - "$T/rows.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("id,ts,user,v\n")
    for i in range(20000):
        f.write(f"{i},{1700000000000 + i * 7},u{i % 37},value-{i * 31 % 1000}\n")
PY

# ---- the whole procedure on the embedded store ----
D="$T/db"
ok create --db "$D" ev -f d:3
ok load --db "$D" ev -s "$OLD" -q "$T/rows.csv"
# more versions of two rows (ids 7 and 12345), with their own timestamps
ok put --db "$D" --ts 1000 ev '\x00\x00\x00\x00\x00\x00\x00\x07' d:v older
ok put --db "$D" --ts 2000 ev '\x00\x00\x00\x00\x00\x00\x00\x07' d:v old
ok put --db "$D" --ts 5000 ev '\x00\x00\x00\x00\x00\x00\x30\x39' d:extra x
ok scan --db "$D" ev --versions 10
cut -f2- "$T/out" | sort >"$T/old-cells"
ok query --db "$D" -t ev
cp "$T/out" "$T/old-query"

code 2 rekey --db "$D" ev                      # no new design
code 1 rekey --verify --db "$D" ev             # nothing copied yet
has "no rekey of ev into ev__rekey" err
ok rekey --db "$D" ev -s "$NEW" --batch 700
has "copied 20,000 rows of ev into ev__rekey" out
ok regions --db "$D" ev__rekey
[ "$(grep -c ' ev__rekey ' "$T/out")" = 8 ] || { cat "$T/out"; fail "the new table is not split on its 8 buckets"; }
ok scan --db "$D" ev__rekey --versions 10
cut -f2- "$T/out" | sort >"$T/new-cells"
cmp -s "$T/old-cells" "$T/new-cells" || { diff "$T/old-cells" "$T/new-cells" | head; fail "cells, versions or timestamps differ after the copy"; }
grep -q $'d:v\t1000\tolder' "$T/new-cells" || fail "the oldest version of id 7 was not copied with its timestamp"
ok rekey --db "$D" ev -s "$NEW"                 # again: nothing to do
has "already copied" out

code 1 rekey --cutover --db "$D" ev
has "no clean verify" err
ok rekey --verify --db "$D" ev
has "20,000 old rows, 20,000 new rows, 0 rows differ, key digests equal: clean" out
ok rekey --cutover --db "$D" ev
has "cut over: ev now holds the new design" out
has "rowkey gen --lang java -s 'fields id:u64" out
code 1 rekey --abort --db "$D" ev
has "already cut over" err
ok query --db "$D" -t ev
cmp -s "$T/out" "$T/old-query" || { diff "$T/old-query" "$T/out" | head; fail "query through the new design differs from the old table's"; }
[ "$(wc -l <"$T/out")" = 20001 ] || fail "query returned $(wc -l <"$T/out") lines"
ok explain --db "$D" --table ev -w 'id = 5'
has "1 of 8 in table ev" out
ok query --db "$D" -t ev__old -w 'id = 19999'
has "value-" out
ok rekey --drop-old --db "$D" ev
code 1 query --db "$D" -t ev__old
ok check --db "$D"

# ---- verify finds a difference, naming both keys ----
V="$T/vdb"
head -2001 "$T/rows.csv" >"$T/small.csv"
ok create --db "$V" ev -f d
ok load --db "$V" ev -s "$OLD" -q "$T/small.csv"
ok rekey --db "$V" ev -s "$NEW" -q
ok put --db "$V" ev__rekey 'stray' d:v planted        # a row no old row maps to
code 1 rekey --verify --db "$V" ev
has "2,000 old rows, 2,001 new rows, 0 rows differ, key digests differ: NOT CLEAN" out
ok delete --db "$V" ev__rekey stray
ok rekey --verify --db "$V" ev
ok put --db "$V" ev__rekey '\x02\x00\x00\x00\x00\x00\x00\x00\x05' d:v planted
code 1 rekey --verify --db "$V" ev
has 'differs: old row \\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x05 -> new row \\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x05' out
has "NOT CLEAN" out
code 1 rekey --cutover --db "$V" ev
ok rekey --abort --db "$V" ev
has "aborted: dropped ev__rekey" out
code 1 scan --db "$V" ev__rekey

# ---- refusals before anything is overwritten ----
C="$T/cdb"
python3 -c '
print("id,ts,v")
for i in range(3000): print(f"{i % 100},{1700000000000 + i},v{i}")' >"$T/dup.csv"
ok create --db "$C" ev -f d
ok load --db "$C" ev -s 'fields id:u64, ts:ts, v:str; key u64(id) u64(ts)' -q "$T/dup.csv"
code 1 rekey --db "$C" ev -s 'fields id:u64, ts:ts, v:str; key bucket(8, xxh3(id)) u64(id)' -q --batch 10
has "old rows .* and .* both map to new key" err
# the collisions met across batches too (the second old row of a key in a later batch)
ok rekey --abort --db "$C" ev
code 1 rekey --db "$C" ev -s 'fields id:u64, ts:ts, v:str; key bucket(8, xxh3(id)) u64(id)' -q --batch 1
has "old rows .* (id=0 ts=1700000000000) and .* (id=0 ts=1700000000100) both map to new key" err
has "(1 row copied before it)" err
# nothing overwritten: every row written holds one old row's cells
ok scan --db "$C" ev__rekey
n=$(cut -f1 "$T/out" | sort -u | wc -l)
[ "$(grep -c $'\td:v\t' "$T/out")" = "$n" ] || fail "a new row holds the cells of two old rows"
ok rekey --abort --db "$C" ev
code 1 rekey --db "$C" ev -s 'fields id:u64, ts:u32, v:str; key u64(id) u32(ts)' -q
has "field ts (from the old key) does not fit the new design" err
ok rekey --abort --db "$C" ev
code 1 rekey --db "$C" ev -s 'fields id:u64, ts:ts, w:str; key w u64(id) u64(ts)' -q
has "the new design cannot encode it: field 'w'" err
ok rekey --abort --db "$C" ev
code 1 rekey --db "$C" ev -s 'fields id:u64, ts:ts; key random(4) u64(id) u64(ts)' -q
has "not deterministic" err
# an old key too long for the checkpoint (docs/formats.md B.6): refused before it is written
python3 -c 'print("n,name"); print("1,short"); print("2," + "x" * 32700)' >"$T/long.csv"
ok create --db "$C" long -f d
ok load --db "$C" long -s 'fields n:u64, name:str; key u64(n) name' -q "$T/long.csv"
code 1 rekey --db "$C" long -s 'fields n:u64, name:str; key name u64(n)' -q
has "old row .*: its key of 32708 bytes would not fit the checkpoint" err
ok scan --db "$C" long__rekey
[ ! -s "$T/out" ] || fail "rows were written before the long key was refused"
# a collision with a row an earlier run copied: the copy stops at a value
# the new design cannot hold (100 rows copied), the bad old row is deleted
# and one is added after it whose new key row id=5 already has; the rerun
# resumes and refuses it (the new table's keys are known when it begins)
python3 -c '
print("ts,id,v")
for i in range(100): print(f"{i},{i},a{i}")
print(f"{2**40},1000,big")' >"$T/resume.csv"
ok create --db "$C" res -f d
ok load --db "$C" res -s 'fields ts:u64, id:u64, v:str; key u64(ts) u64(id)' -q "$T/resume.csv"
RNEW='fields ts:u32, id:u64, v:str; key u64(id)'
code 1 rekey --db "$C" res -s "$RNEW" -q --batch 10
has "(100 rows copied before it)" err
ok delete --db "$C" res '\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\xe8'
ok put --db "$C" res '\x00\x00\x00\x00\x00\x00\x07\xd0\x00\x00\x00\x00\x00\x00\x00\x05' d:v other
code 1 rekey --db "$C" res -s "$RNEW" -q --batch 10
has "(ts=5 id=5) and .* (ts=2000 id=5) both map to new key" err
ok scan --db "$C" res__rekey
grep -q $'d:v\t.*\tother' "$T/out" && fail "the resumed copy wrote over a row an earlier run copied"
ok create --db "$C" bare -f d
ok put --db "$C" bare r1 d:x 1
code 1 rekey --db "$C" bare -s 'fields id:u64; key u64(id)'
has "remembers no key schema" err

# ---- kill -9 at random moments of the copy, then resume ----
K="$T/kdb"
ok create --db "$K" ev -f d:3
ok load --db "$K" ev -s "$OLD" -q "$T/rows.csv"
killed=0
for round in $(seq 10); do
	# a batch of 5 rows: a checkpoint every 5 rows, so a kill lands mid-copy;
	# each round copies for 0.02 to 0.16 s (the whole copy takes about 2 s)
	"$R" rekey --db "$K" ev -s "$NEW" -q --batch 5 >"$T/kout" 2>"$T/kerr" &
	pid=$!
	sleep "0.$(printf %02d $((2 + RANDOM % 15)))"
	if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
	wait "$pid" 2>/dev/null
	if grep -q "both map\|already holds\|cannot encode\|holds another" "$T/kerr"; then cat "$T/kerr"; fail "round $round: the resumed copy refused"; fi
done
[ "$killed" -ge 5 ] || fail "only $killed of 10 kills landed during the copy"
ok rekey --db "$K" ev -s "$NEW" -q --batch 50
ok rekey --verify --db "$K" ev
has "20,000 old rows, 20,000 new rows, 0 rows differ, key digests equal: clean" out
ok check --db "$K"

# ---- Bigtable (the emulator) ----
EMU=/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator
if [ ! -x "$EMU" ] || "$R" scan --db bigtable://p/i t 2>&1 | grep -q "built without the Bigtable backend"; then
	echo "ok (Bigtable part skipped: no emulator or no Bigtable backend)"
	exit 0
fi
"$EMU" --host=127.0.0.1 --port=0 >"$T/emu" 2>&1 &
EPIDS+=($!)
for _ in $(seq 100); do
	addr=$(sed -n 's/^Cloud Bigtable emulator running on //p' "$T/emu")
	[ -n "$addr" ] && break
	sleep 0.05
done
[ -n "$addr" ] || { cat "$T/emu"; fail "the emulator did not start"; }
export BIGTABLE_EMULATOR_HOST=$addr
B=bigtable://p/i
ok create --db "$B" ev -f d:3
ok load --db "$B" ev -s "$OLD" -q "$T/small.csv"
ok rekey --db "$B" ev -s "$NEW" -q --batch 300
has "copied 2,000 rows of ev into ev__rekey" out
ok rekey --verify --db "$B" ev
has "2,000 old rows, 2,000 new rows, 0 rows differ, key digests equal: clean" out
ok scan --db "$B" ev
cp "$T/out" "$T/bt-old-scan"
ok scan --db "$B" ev__rekey
cp "$T/out" "$T/bt-new-scan"
ok query --db "$B" -t ev
cp "$T/out" "$T/bt-old-query"
# the cutover: the names swap in _rowkey_meta, the Bigtable tables keep their ids
ok rekey --cutover --db "$B" ev
has "cut over: ev now holds the new design (2000 rows)" out
has "on Bigtable, ev is now table ev__rekey and ev__old is table ev" out
has "point them at ev__rekey" out
has "rowkey gen --lang java -s 'fields id:u64" out
ok rekey --cutover --db "$B" ev
has "already cut over" out
code 1 rekey --abort --db "$B" ev
has "already cut over" err
# ev answers with the new design's rows (salted keys), ev__old with the old ones
ok scan --db "$B" ev
cmp -s "$T/out" "$T/bt-new-scan" || { diff "$T/bt-new-scan" "$T/out" | head; fail "ev does not hold the new design's rows"; }
ok scan --db "$B" ev__old
cmp -s "$T/out" "$T/bt-old-scan" || { diff "$T/bt-old-scan" "$T/out" | head; fail "ev__old does not hold the old rows"; }
code 1 scan --db "$B" ev__rekey
has "table ev__rekey does not exist" err
ok query --db "$B" -t ev
cmp -s "$T/out" "$T/bt-old-query" || { diff "$T/bt-old-query" "$T/out" | head; fail "query through the new design differs from the old table's"; }
ok query --db "$B" -t ev -w 'id = 1999'
has "value-" out
ok explain --db "$B" --table ev -w 'id = 5'
has '^  \\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x05$' out   # the salted key
ok query --db "$B" -t ev__old -w 'id = 1999'
has "value-" out
ok describe --db "$B" --table ev
has "bucket(8, xxh3(id))" out
has "bigtable    table ev__rekey" out
ok regions --db "$B" ev
has "(table ev is Bigtable table ev__rekey" out
ok regions --db "$B"
has "(table ev__old is Bigtable table ev:" out
# what other clients see: the ids, unchanged, and the names row
if command -v cbt >/dev/null; then
	cbt -project p -instance i ls >"$T/cbt" 2>&1 || { cat "$T/cbt"; fail "cbt ls"; }
	grep -qx ev "$T/cbt" && grep -qx ev__rekey "$T/cbt" || { cat "$T/cbt"; fail "cbt ls: the ids changed"; }
	cbt -project p -instance i read _rowkey_meta prefix='#names' >"$T/cbt" 2>&1
	grep -q '"ev__rekey"' "$T/cbt" || { cat "$T/cbt"; fail "cbt read _rowkey_meta: no names row"; }
fi
# writes through the name land in the new table (and so in id ev__rekey)
ok put --db "$B" ev 'planted-row' d:v x
code 1 get --db "$B" ev__old 'planted-row'
ok delete --db "$B" ev 'planted-row'
# --drop-old deletes the table behind ev__old: Bigtable id ev
ok rekey --drop-old --db "$B" ev
has "dropped ev__old (Bigtable table ev); the rekey of ev is finished" out
code 1 scan --db "$B" ev__old
ok scan --db "$B" ev
cmp -s "$T/out" "$T/bt-new-scan" || fail "ev changed when ev__old was dropped"
if command -v cbt >/dev/null; then
	cbt -project p -instance i ls >"$T/cbt" 2>&1 || { cat "$T/cbt"; fail "cbt ls"; }
	! grep -qx ev "$T/cbt" || { cat "$T/cbt"; fail "cbt ls: table ev is still there after --drop-old"; }
	grep -qx ev__rekey "$T/cbt" || { cat "$T/cbt"; fail "cbt ls: ev__rekey is gone"; }
fi
# a second rekey of the same name: its new table takes a fresh id
NEW2='fields id:u64, ts:ts, user:str, v:str; key bucket(4, xxh3(id)) u64(id)'
ok rekey --db "$B" ev -s "$NEW2" -q
ok describe --db "$B" --table ev__rekey
has "bigtable    table ev__rekey-2" out
# --abort before a cutover drops the new table (id ev__rekey-2), ev unchanged
ok rekey --abort --db "$B" ev
has "aborted: dropped ev__rekey" out
code 1 scan --db "$B" ev__rekey
ok scan --db "$B" ev
cmp -s "$T/out" "$T/bt-new-scan" || fail "ev changed when the second rekey was aborted"
if command -v cbt >/dev/null; then
	cbt -project p -instance i ls >"$T/cbt" 2>&1
	! grep -qx 'ev__rekey-2' "$T/cbt" || { cat "$T/cbt"; fail "cbt ls: the aborted table is still there"; }
fi
# and once more to the end: copy, verify, cut over; the names stay consistent
ok rekey --db "$B" ev -s "$NEW2" -q
ok rekey --verify --db "$B" ev
ok rekey --cutover --db "$B" ev
has "on Bigtable, ev is now table ev__rekey-2 and ev__old is table ev__rekey" out
ok query --db "$B" -t ev
cmp -s "$T/out" "$T/bt-old-query" || fail "query after the second cutover differs"
ok rekey --drop-old --db "$B" ev
has "dropped ev__old (Bigtable table ev__rekey)" out
echo ok
