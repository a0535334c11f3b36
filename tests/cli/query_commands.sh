#!/usr/bin/env bash
# CLI tests for rowkey explain / query: plans in words and JSON, regions
# touched, ordered reads over a salted table, LIMIT after the merge, latest
# first with reverse timestamps, bad predicates naming the token.
set -u
R=${ROWKEY:?ROWKEY must point at the rowkey binary}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
ok()  { passes=$((passes+1)); }
bad() { echo "FAIL: $*"; fails=$((fails+1)); }
expect_eq()   { if [ "$2" == "$3" ]; then ok; else bad "$1: got [$2] want [$3]"; fi; }
expect_grep() { if grep -q -- "$2" <<<"$3"; then ok; else bad "$1: '$2' not in: $3"; fi; }

S='fields uid:u64, ts:ts; key bucket(8, xxh3(uid)) u64(uid) u64(rts(ts))'
D=$T/db
"$R" create --db "$D" ev -f d --buckets 8 > /dev/null || bad "create"
{ echo "uid,ts"; for u in 1 2 3 4 5; do for t in 10 20 30 40 50 60; do echo "$u,$t"; done; done; } > "$T/rows.csv"
"$R" load --db "$D" ev -s "$S" "$T/rows.csv" > /dev/null 2>&1 || bad "load"

# explain: a computed bucket gives one range; an unbound leading field a full scan
got=$("$R" explain -s "$S" -w 'uid = 3')
expect_grep explain_one_range "ranges      1" "$got"
got=$("$R" explain -s "$S" -w 'ts > 5' --db "$D" --table ev)
expect_grep explain_full_scan "plan        full scan" "$got"
expect_grep explain_regions "regions     8 of 8 in table ev" "$got"
# without -s, with --db/--table: the schema the table remembers from its load
got=$("$R" explain -w 'ts > 5' --db "$D" --table ev)
expect_grep explain_stored_schema "regions     8 of 8 in table ev" "$got"
got=$("$R" explain -s "$S" -w 'uid = 3' --db "$D" --table ev --json)
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["kind"]=="ranges" and d["regions_touched"]==1 and d["regions"]==8' "$got" \
  && ok || bad "explain json: $got"

# query: latest first for one user, LIMIT
got=$("$R" query -s "$S" --db "$D" -t ev -w 'uid = 3' --limit 2 | cut -f1,2)
expect_eq latest_first "$got" $'uid\tts\n3\t60\n3\t50'
# time range on a reversed timestamp
got=$("$R" query -s "$S" --db "$D" -t ev -w 'uid = 4 AND ts BETWEEN 20 AND 40' | cut -f2 | tail -n +2 | paste -sd, -)
expect_eq rts_range "$got" "40,30,20"
# ordered full read across 8 buckets: logical order is uid ascending
got=$("$R" query -s "$S" --db "$D" -t ev -f jsonl | python3 -c 'import sys,json; print(",".join(str(json.loads(l)["uid"]) for l in sys.stdin))')
expect_eq merged_order "$got" "1,1,1,1,1,1,2,2,2,2,2,2,3,3,3,3,3,3,4,4,4,4,4,4,5,5,5,5,5,5"
# LIMIT applies after the merge: the first 3 rows in logical order, not of each bucket
got=$("$R" query -s "$S" --db "$D" -t ev --limit 3 | tail -n +2 | cut -f1,2 | paste -sd' ' -)
expect_eq limit_after_merge "$got" $'1\t60 1\t50 1\t40'
# --limit 0 is refused (never read as "every row"), and so is an empty
# --columns list or an empty item in it (never read as "every column")
for a in "--limit 0" "--columns=" "--columns d,,d:q" "-c ,"; do
	"$R" query -s "$S" --db "$D" -t ev $a > "$T/out" 2> "$T/err"; rc=$?
	expect_eq "refused_rc[$a]" "$rc" 2
	expect_eq "refused_no_rows[$a]" "$(wc -c < "$T/out")" 0
done
"$R" query -s "$S" --db "$D" -t ev --limit 0 2> "$T/err"
expect_grep limit_zero_msg "--limit takes 1 or more rows, not 0" "$(cat "$T/err")"
"$R" query -s "$S" --db "$D" -t ev -c '' 2> "$T/err"
expect_grep empty_columns_msg "--columns is empty" "$(cat "$T/err")"
"$R" query -s "$S" --db "$D" -t ev -c 'd,,d:q' 2> "$T/err"
expect_grep empty_item_msg "item 2 is empty" "$(cat "$T/err")"
got=$("$R" query -s "$S" --db "$D" -t ev -w 'uid = 3' --limit 1 -c d | tail -n +2 | cut -f1,2)
expect_eq columns_family "$got" $'3\t60'
got=$("$R" query -s "$S" --db "$D" -t ev --limit 1 --reverse | tail -n +2 | cut -f1,2)
expect_eq reverse "$got" $'5\t10'
got=$("$R" query -s "$S" --db "$D" -t ev --unordered | tail -n +2 | wc -l)
expect_eq unordered_count "$got" "30"
# IN over a computed bucket: logical order, whichever bucket each uid lands in
for w in 'uid IN (2, 3)' 'uid IN (3, 2)' 'uid IN (2, 3) AND ts < 70'; do
	got=$("$R" query -s "$S" --db "$D" -t ev -w "$w" --limit 1 | tail -n +2 | cut -f1,2)
	expect_eq "in_order[$w]" "$got" $'2\t60'
done
got=$("$R" query -s "$S" --db "$D" -t ev -w 'uid IN (2, 3, 5) AND ts <= 20' | tail -n +2 | cut -f1,2 | paste -sd' ' -)
expect_eq in_range_order "$got" $'2\t20 2\t10 3\t20 3\t10 5\t20 5\t10'
# a hash over the id in front: ranges over the id come back sorted by it
H='fields id:u64, ts:ts; key hex(md5(id))[0:4] u64(id) u64(ts)'
"$R" create --db "$D" hashed -f d > /dev/null || bad "create hashed"
{ echo "id,ts"; for i in 9 3 7 1 5; do echo "$i,1"; done; } | "$R" load --db "$D" hashed -s "$H" > /dev/null || bad "load hashed"
got=$("$R" query --db "$D" -t hashed -w 'id >= 3' | tail -n +2 | cut -f1 | paste -sd, -)
expect_eq hashed_sorted "$got" "3,5,7,9"
got=$("$R" explain -s "$H" -w 'id >= 3')
expect_grep hashed_explain "sorted" "$got"

# one escape dialect everywhere: a qualifier written with \xNN by put is selected
# the same way by get and query, and a backslash prints as \x5c
"$R" put --db "$D" ev "$(printf '3,60\n' | "$R" encode -s "$S" --no-header)" 'd:q\x01' 'v\\w' > /dev/null || bad "put escaped"
got=$("$R" query -s "$S" --db "$D" -t ev -w 'uid = 3 AND ts = 60' --columns 'd:q\x01' | tail -n +2 | cut -f3)
expect_eq escaped_column "$got" 'd:q\x01=v\x5cw'
got=$("$R" query -s "$S" --db "$D" -t ev -w 'uid = 3' --columns 'd:\xZZ' 2>&1 >/dev/null; echo "rc=$?")
expect_grep bad_column "rc=2" "$got"

# ORDER BY and LIMIT in the predicate: newest first from the key, oldest
# first read backwards, another order sorted; the smaller limit wins
got=$("$R" query -s "$S" --db "$D" -t ev -w 'uid = 2 ORDER BY ts DESC LIMIT 3' | tail -n +2 | cut -f2 | paste -sd, -)
expect_eq order_desc "$got" "60,50,40"
got=$("$R" query -s "$S" --db "$D" -t ev -w 'uid = 2 ORDER BY ts ASC LIMIT 3' | tail -n +2 | cut -f2 | paste -sd, -)
expect_eq order_asc "$got" "10,20,30"
got=$("$R" query -s "$S" --db "$D" -t ev -w 'uid = 2 ORDER BY ts LIMIT 3' --limit 2 | tail -n +2 | cut -f2 | paste -sd, -)
expect_eq order_smaller_limit "$got" "10,20"
got=$("$R" query -s "$S" --db "$D" -t ev -w 'ts >= 50 ORDER BY ts DESC LIMIT 4' | tail -n +2 | cut -f1,2 | paste -sd' ' -)
expect_eq order_sorted "$got" $'1\t60 2\t60 3\t60 4\t60'
got=$("$R" explain -s "$S" -w 'uid = 2 ORDER BY ts DESC LIMIT 20')
expect_grep explain_order_key "rows come newest first from the key: LIMIT 20 reads 20 rows" "$got"
got=$("$R" explain -s "$S" -w 'uid = 2 ORDER BY ts ASC')
expect_grep explain_order_reverse "read backwards" "$got"
got=$("$R" explain -s "$S" -w 'ORDER BY ts DESC LIMIT 5' --json)
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["order_by"]=="sort" and d["order_field"]==1 and d["order_desc"] and d["limit"]==5' "$got" \
  && ok || bad "explain order json: $got"
"$R" query -s "$S" --db "$D" -t ev -w 'uid = 2 ORDER BY ts' --reverse > /dev/null 2> "$T/err"; rc=$?
expect_eq order_reverse_rc $rc 2
expect_grep order_reverse "does not combine with ORDER BY" "$(cat "$T/err")"
"$R" query -s "$S" --db "$D" -t ev -w 'uid = 2 LIMIT 0' > /dev/null 2> "$T/err"; rc=$?
expect_eq limit0_rc $rc 2
expect_grep limit0 "column 15: LIMIT 0 returns nothing" "$(cat "$T/err")"

# bad predicates name the token; exit 2
"$R" query -s "$S" --db "$D" -t ev -w 'nope = 1' > /dev/null 2> "$T/err"; rc=$?
expect_eq bad_field_rc $rc 2
expect_grep bad_field "unknown field 'nope'" "$(cat "$T/err")"
"$R" explain -s "$S" -w "uid = 'x'" > /dev/null 2> "$T/err"
expect_grep type_mismatch "type mismatch: 'uid' is u64" "$(cat "$T/err")"
"$R" explain -s "$S" -w 'ts > 9 AND ts < 3' > /dev/null 2> "$T/err"
expect_grep impossible "impossible range on 'ts'" "$(cat "$T/err")"
"$R" query -s "$S" --db "$D" -t nosuch > /dev/null 2> "$T/err"; rc=$?
expect_eq missing_table_rc $rc 1
for c in explain query; do "$R" $c --help | grep -q "^usage: rowkey $c" && ok || bad "$c --help"; done

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
