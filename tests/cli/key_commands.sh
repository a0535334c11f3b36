#!/usr/bin/env bash
# CLI tests for rowkey encode / decode / describe: the README's examples, every
# input format, error reporting with line and field, exit codes, --on-error.
set -u
R=${ROWKEY:?ROWKEY must point at the rowkey binary}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
ok()   { passes=$((passes+1)); }
bad()  { echo "FAIL: $*"; fails=$((fails+1)); }
# expect_eq NAME GOT WANT
expect_eq() { if [ "$2" == "$3" ]; then ok; else bad "$1: got [$2] want [$3]"; fi; }
# expect_rc NAME RC WANT
expect_rc() { if [ "$2" -eq "$3" ]; then ok; else bad "$1: exit $2, want $3"; fi; }
expect_grep() { if grep -q -- "$2" "$3"; then ok; else bad "$1: '$2' not in: $(cat "$3")"; fi; }

S='fields date:str, time:str, id:u64; key date ":" time ":" id'
printf 'date,time,id\n230611,063031,1231231\n230611,063032,1231232\n' > "$T/m.csv"

# plain composite, header detected
got=$("$R" encode -s "$S" --in "$T/m.csv")
expect_eq composite "$got" $'230611:063031:1231231\n230611:063032:1231232'

# positional, from stdin
got=$(printf '230611,063031,7\n' | "$R" encode -s "$S" --no-header)
expect_eq positional "$got" "230611:063031:7"

# header in another order
got=$(printf 'id,date,time\n7,230611,063031\n' | "$R" encode -s "$S")
expect_eq header_order "$got" "230611:063031:7"

# MD5 prefix, upper-case hex, checked against md5sum
want=$(printf '1231231' | md5sum | cut -c1-32 | tr a-f A-F)
got=$("$R" encode -s 'fields date:str, time:str, id:u64; key HEX(md5(id)) ":" date ":" time ":" id' --in "$T/m.csv" | head -1)
expect_eq md5_prefix "$got" "$want:230611:063031:1231231"

# first 6 hex chars of md5 over the whole key glued in front
want=$(printf '230611:063031:1231231' | md5sum | cut -c1-6)
got=$("$R" encode -s 'fields date:str, time:str, id:u64; key hex(md5(date ":" time ":" id))[0:6] date ":" time ":" id' --in "$T/m.csv" | head -1)
expect_eq md5_6 "$got" "${want}230611:063031:1231231"

# sha1 / sha256 against coreutils
want=$(printf 'abc' | sha1sum | cut -c1-40)
got=$(printf 'abc\n' | "$R" encode --no-header -s 'fields k:str; key hex(sha1(k)) "|" k')
expect_eq sha1 "$got" "$want|abc"
want=$(printf 'abc' | sha256sum | cut -c1-64)
got=$(printf 'abc\n' | "$R" encode --no-header -s 'fields k:str; key hex(sha256(k)) "|" k')
expect_eq sha256 "$got" "$want|abc"

# jsonl and tsv input
got=$(printf '{"id": 5, "date": "230611", "time": "063031", "extra": [1]}\n' | "$R" encode -s "$S" -f jsonl 2>&1)
expect_grep jsonl_nested_rejected "nested" <(echo "$got")
got=$(printf '{"id": 5, "date": "230611", "time": "06\\u00e9"}\n' | "$R" encode -s "$S" -f jsonl)
expect_eq jsonl "$got" '230611:06\xc3\xa9:5'
got=$(printf 'date\ttime\tid\n230611\t063031\t5\n' | "$R" encode -s "$S" -f tsv)
expect_eq tsv "$got" "230611:063031:5"

# quoted CSV with a comma and a quote inside
got=$(printf 'k,n\n"a,""b",1\n' | "$R" encode -s 'fields k:str, n:u32; key esc(k) u32(n)' --out hex)
expect_eq csv_quoted "$got" "612c2262000100000001"

# text / hex / binary outputs and decode of each
"$R" encode -s 'fields k:str, n:u32; key esc(k) u32(n)' --no-header <<<'a\b,258' > "$T/k.txt"
expect_eq escaped_out "$(cat "$T/k.txt")" 'a\x5cb\x00\x01\x00\x00\x01\x02'
got=$("$R" decode -s 'fields k:str, n:u32; key esc(k) u32(n)' --in "$T/k.txt")
expect_eq decode_tsv "$got" $'k\tn\na\\x5cb\t258'
got=$("$R" encode -s 'fields k:str, n:u32; key esc(k) u32(n)' --no-header --out binary <<<'ab,1' | od -An -tx1 | tr -d ' \n')
expect_eq binary_out "$got" "00086162000100000001"

# decode JSON, hex input, reversed timestamp newest-first
RS='fields user:u32, ts:ts, kind:str; key bucket(8, xxh3(user)) u32(user) u64(rts(ts)) esc(kind)'
printf 'user,ts,kind\n7,1000,a\n7,2000,b\n' | "$R" encode -s "$RS" --out hex > "$T/rk.hex"
sorted_first=$(sort "$T/rk.hex" | head -1)
got=$(echo "$sorted_first" | "$R" decode -s "$RS" --in-form hex -f jsonl)
expect_eq newest_first "$got" '{"user":7,"ts":2000,"kind":"b"}'

# a key that does not match its design: line and byte offset
printf 'ZZ\n' > "$T/bad.txt"
"$R" decode -s "$S" --in "$T/bad.txt" > /dev/null 2> "$T/err"; rc=$?
expect_rc decode_bad_rc $rc 1
expect_grep decode_bad_msg "line 1: key byte 0" "$T/err"

# a key line over the bound (16 MiB, as encode's records) is refused, not
# held whole: line and limit; with --on-error skip the next key still decodes
{ head -c 17000000 /dev/zero | tr '\0' a; printf '\n230611:063031:7\n'; } > "$T/long.txt"
"$R" decode -s "$S" --in "$T/long.txt" > /dev/null 2> "$T/err"; rc=$?
expect_rc decode_long_rc $rc 1
expect_grep decode_long_msg "long.txt: line 1: the line is longer than 16777216 bytes" "$T/err"
got=$("$R" decode -s "$S" --in "$T/long.txt" --on-error skip 2> "$T/err" | tail -1)
expect_eq decode_long_skip "$got" $'230611\t063031\t7'
printf 'abcdef\n' | "$R" decode -s "$S" --max-record 4 > /dev/null 2> "$T/err"; rc=$?
expect_grep decode_max_record "line 1: the line is longer than 4 bytes" "$T/err"
rm -f "$T/long.txt"

# bad records: line and field, stop vs skip
printf 'date,time,id\n230611,063031,1\n230611,063031,notanumber\n230611,063031,3\n' > "$T/bad.csv"
"$R" encode -s "$S" --in "$T/bad.csv" > "$T/out" 2> "$T/err"; rc=$?
expect_rc stop_rc $rc 1
expect_grep stop_msg "line 3, column 15, field 'id': 'notanumber' is not a valid u64" "$T/err"
expect_eq stop_out_count "$(wc -l < "$T/out")" "1"
"$R" encode -s "$S" --in "$T/bad.csv" --on-error skip > "$T/out" 2> "$T/err"; rc=$?
expect_rc skip_rc $rc 0
expect_eq skip_out_count "$(wc -l < "$T/out")" "2"
expect_grep skip_summary "skipped 1 of 3 records" "$T/err"

# an empty cell of a number field: the field is absent in that record (a
# sparse column: load writes no cell for it), while a key that needs the
# field refuses the record, naming it
printf 'id,coupon,amount\n1,,2.5\n2,77,\n' > "$T/sparse.csv"
"$R" create --db "$T/sparse.db" t -f d > /dev/null
"$R" load --db "$T/sparse.db" t -s 'fields id:u64, coupon:u64, amount:f64; key u64(id)' "$T/sparse.csv" > "$T/out" 2> "$T/err"; rc=$?
expect_rc sparse_load_rc $rc 0
expect_grep sparse_loaded "2 rows.* 0 rejected" "$T/out"
"$R" scan --db "$T/sparse.db" t > "$T/out" 2>&1
expect_eq sparse_cells "$(grep -c 'd:coupon	' "$T/out") $(grep -c 'd:amount	' "$T/out")" "1 1"
"$R" encode -s 'fields id:u64, coupon:u64; key u64(coupon)' --in "$T/sparse.csv" > "$T/out" 2> "$T/err"; rc=$?
expect_rc sparse_key_rc $rc 1
expect_grep sparse_key_msg "field 'coupon' has no value and the key needs it" "$T/err"

# records no field set identifies: load --number gives the uniquifier the
# advisor asks the writer for (each record's number), so two equal records
# are two rows; a field that is no u64, or that the input has, is refused
printf 'page,ts\n/a,5\n/a,5\n/b,5\n' > "$T/clicks.csv"
"$R" create --db "$T/clicks.db" t -f d > /dev/null
"$R" load --db "$T/clicks.db" t -s 'fields page:str, ts:u64, seq:u64; key esc(page) u64(ts) u64(seq)' --number seq "$T/clicks.csv" > "$T/out" 2> "$T/err"; rc=$?
expect_rc number_rc $rc 0
"$R" scan --db "$T/clicks.db" t > "$T/out" 2>&1
expect_eq number_rows "$(grep 'd:seq' "$T/out" | cut -f4 | tr '\n' ' ')" "1 2 3 "
"$R" load --db "$T/clicks.db" t -s 'fields page:str, ts:u64, seq:u64; key esc(page) u64(ts) u64(seq)' --number page "$T/clicks.csv" > /dev/null 2> "$T/err"; rc=$?
expect_rc number_str_rc $rc 1
expect_grep number_str_msg "number page: the field is str" "$T/err"
"$R" encode -s 'fields page:str, ts:u64; key esc(page) u64(ts)' --number ts --in "$T/clicks.csv" > /dev/null 2> "$T/err"; rc=$?
expect_rc number_has_rc $rc 1
expect_grep number_has_msg "the input has a column 'ts' already" "$T/err"

# a file named .tsv is read as TSV without --format (a CSV reader would take
# each line as one cell)
printf 'date\ttime\tid\n230611\t063031\t7\n' > "$T/tabs.tsv"
"$R" encode -s "$S" --in "$T/tabs.tsv" > "$T/out" 2> "$T/err"; rc=$?
expect_rc tsv_name_rc $rc 0
expect_eq tsv_name_key "$(cat "$T/out")" "230611:063031:7"

# a value containing its separator
printf 'date,time,id\n23:06,063031,1\n' | "$R" encode -s "$S" > /dev/null 2> "$T/err"; rc=$?
expect_rc sep_rc $rc 1
expect_grep sep_msg "line 2: field 'date' value '23:06' contains the separator" "$T/err"

# a key that encodes to no bytes: refused with its line and why (HBase and
# Bigtable refuse an empty row key), by encode and by load alike
printf 'k,v\nb,1\n,2\n' > "$T/empty.csv"
"$R" encode -s 'fields k:str; key k' --in "$T/empty.csv" > "$T/out" 2> "$T/err"; rc=$?
expect_rc empty_key_rc $rc 1
expect_grep empty_key_msg "empty.csv: line 3: the row key is empty" "$T/err"
expect_grep empty_key_why "refuse an empty row key" "$T/err"
expect_eq empty_key_out "$(cat "$T/out")" "b"
"$R" create --db "$T/db" t -f d > /dev/null
"$R" load --db "$T/db" -s 'fields k:str, v:u32; key k' --strict t "$T/empty.csv" > /dev/null 2> "$T/err"; rc=$?
expect_rc load_empty_key_rc $rc 1
expect_grep load_empty_key_msg "empty.csv: line 3: the row key is empty" "$T/err"

# key too long: line and limit
printf 'k\nabcdefghij\n' | "$R" encode -s 'fields k:str; option max_key_len=8; key k' > /dev/null 2> "$T/err"; rc=$?
expect_rc toolong_rc $rc 1
expect_grep toolong_msg "line 2: key is longer than its limit of 8 bytes" "$T/err"

# schema errors: line and column; usage errors exit 2
printf 'fields a:str\nkey md5(a\n' > "$T/s.rk"
"$R" encode -s "$T/s.rk" < /dev/null 2> "$T/err"; rc=$?
expect_rc schema_err_rc $rc 1
expect_grep schema_err_msg "s.rk:2:10: missing ')'" "$T/err"
"$R" encode < /dev/null 2> "$T/err"; rc=$?
expect_rc usage_rc $rc 2
expect_grep usage_msg "a schema is required" "$T/err"
"$R" encode -s "$S" --out weird < /dev/null 2>/dev/null; expect_rc bad_out_rc $? 2
"$R" nosuchcommand 2>/dev/null; expect_rc unknown_cmd_rc $? 2
"$R" --help | grep -q '^  encode' && ok || bad "rowkey --help lists encode"
for c in encode decode describe; do
  "$R" $c --help | grep -q "^usage: rowkey $c" && ok || bad "$c --help"
done

# describe
got=$("$R" describe -s 'fields u:u64, ts:ts; key bucket(16, xxh3(u)) u64(u) u64(rts(ts))')
echo "$got" | grep -q "fan out over 16 buckets" && ok || bad "describe fan-out: $got"
got=$("$R" describe --json -s "$S")
echo "$got" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["buckets"]==1 and d["point_get_fields"]==["date","time","id"]' && ok || bad "describe json: $got"

# random salts: reproducible with a seed, decodable
a=$(seq 1 20 | "$R" encode -s 'fields id:u32; key random(8, dec) "-" id' --no-header --seed 5)
b=$(seq 1 20 | "$R" encode -s 'fields id:u32; key random(8, dec) "-" id' --no-header --seed 5)
expect_eq seeded_salt "$a" "$b"
got=$(echo "$a" | "$R" decode -s 'fields id:u32; key random(8, dec) "-" id' | tail -n +2 | paste -sd, -)
expect_eq salt_decode "$got" "$(seq 1 20 | paste -sd, -)"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
