#!/usr/bin/env bash
# Hostile inputs across every command: each case runs under a
# timeout and must end promptly. A case fails on a hang (the timeout), a crash
# (a signal), an exit 0 where an error is due, an error without a message
# that says where (a line, column, byte, offset, file, option, field or
# table), or a bounded-result case that does not finish with exit 0.
#
# Kinds:
#   err   exit 1 or 2, and stderr names where
#   ok    exit 0 (a bounded result, promptly)
#   note  exit 0 and stderr carries a note saying what was assumed (or
#         how many records were skipped)
set -u
R=${ROWKEY:?ROWKEY must point at the rowkey binary}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
LIMIT=${RK_HOSTILE_TIMEOUT:-30} # seconds per case: generous for a loaded machine
fails=0; n=0
WHERE='line [0-9]|column [0-9]|:[0-9]+:[0-9]+|byte [0-9]|offset [0-9]|at '"'"'|--[a-z]|'"'"'[^'"'"']+'"'"'|"[^"]+"|table [A-Za-z0-9_]+|/'

# run KIND NAME INPUT ARGS...: INPUT is a file for stdin (or /dev/null)
run() {
	local kind=$1 name=$2 input=$3
	shift 3
	n=$((n + 1))
	timeout -k 5 "$LIMIT" "$R" "$@" < "$input" > "$T/out" 2> "$T/err"
	local rc=$?
	local err
	err=$(head -c 600 "$T/err")
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "FAIL [$name]: hung (no end within ${LIMIT}s): rowkey $*"; fails=$((fails + 1)); return
	fi
	if [ $rc -gt 128 ]; then
		echo "FAIL [$name]: killed by signal $((rc - 128)): rowkey $*"; fails=$((fails + 1)); return
	fi
	case $kind in
	err)
		if [ $rc -eq 0 ]; then
			echo "FAIL [$name]: exit 0 where an error is due: rowkey $*"; fails=$((fails + 1))
		elif [ -z "$err" ]; then
			echo "FAIL [$name]: exit $rc without a message: rowkey $*"; fails=$((fails + 1))
		elif ! grep -Eq -- "$WHERE" <<< "$err"; then
			echo "FAIL [$name]: the message does not say where: $err"; fails=$((fails + 1))
		fi ;;
	ok)
		if [ $rc -ne 0 ]; then
			echo "FAIL [$name]: exit $rc, a bounded result was due: $err"; fails=$((fails + 1))
		fi ;;
	note)
		if [ $rc -ne 0 ] || ! grep -Eq "note|skipped [0-9]+ of" <<< "$err"; then
			echo "FAIL [$name]: exit $rc, a note was due: $err"; fails=$((fails + 1))
		fi ;;
	esac
}

# ---- fixtures ----
S='fields a:u32, s:str; key u32(a) esc(s)'
S2='fields a:u32, s:str; key esc(s) u32(a)'
TXT='fields d:str, t:str, id:u64; key d ":" t ":" id'
D=$T/db
"$R" create --db "$D" t -f f > /dev/null || { echo "FAIL: create"; exit 1; }
printf 'a,s\n1,x\n2,y\n' | "$R" load -q --db "$D" t -s "$S" > /dev/null || { echo "FAIL: load"; exit 1; }
mkdir "$T/dir"
mkfifo "$T/fifo"
: > "$T/empty"
printf 'fields a:u32; key u32(a)\n' > "$T/ok.schema"
python3 - "$T" <<'EOF'
import sys
t = sys.argv[1]
w = lambda name, text: open(f"{t}/{name}", "w").write(text)
w("parts10k.schema", "option max_key_len=1048576\nfields a:u32, s:str\nkey " + " ".join(['"x" s'] * 10000) + "\n")
w("parts10k_long.schema", "fields a:u32, s:str\nkey " + " ".join(['u32(a)'] * 10000) + "\n")
w("fields65.schema", "fields " + ", ".join(f"f{i}:u32" for i in range(65)) + "\nkey f0\n")
w("longname.schema", "fields " + "a" * 100000 + ":u32\nkey u32(" + "a" * 100000 + ")\n")
w("deep.schema", "fields s:str\nkey " + "md5(" * 50 + "s" + ")" * 50 + "\n")
w("longlit.schema", "fields s:str\nkey \"" + "x" * 2000 + "\" s\n")
w("bigline.csv", "a,s\n" + "1," + "y" * 5000000 + "\n")
w("manycells.csv", ",".join(["1"] * 300) + "\n")
w("in2x300.txt", "a IN (" + ",".join(map(str, range(300))) + ") AND s IN (" +
  ",".join(f"'{i}'" for i in range(300)) + ")")
w("in_same_10k.txt", "a IN (" + ",".join(map(str, range(10000))) + ") AND a IN (" +
  ",".join(map(str, range(10000))) + ")")
w("conds10k.txt", " AND ".join(["a > 1"] * 10000))
open(f"{t}/nul.csv", "wb").write(b"1\x002,x\n")
open(f"{t}/binary.csv", "wb").write(bytes(range(256)) * 4)
w("utf8bad.jsonl", '{"a":1,"s":"\\ud800"}\n')
EOF
IN2=$(cat "$T/in2x300.txt"); INSAME=$(cat "$T/in_same_10k.txt"); C10K=$(cat "$T/conds10k.txt")
rec() { printf '%b' "$1" > "$T/in.$2"; echo "$T/in.$2"; }

# ---- schemas (describe, encode, decode, explain, analyze take them) ----
run err schema_fifo /dev/null describe -s "$T/fifo"
run err schema_dir /dev/null describe -s "$T/dir"
run err schema_devnull /dev/null describe -s /dev/null
run err schema_empty_file /dev/null describe -s "$T/empty"
run err schema_missing /dev/null describe -s "$T/nosuch.schema"
run ok schema_10k_parts /dev/null describe -s "$T/parts10k.schema"
run err schema_10k_parts_too_long /dev/null describe -s "$T/parts10k_long.schema"
run err schema_65_fields /dev/null describe -s "$T/fields65.schema"
run err schema_100k_name /dev/null describe -s "$T/longname.schema"
run err schema_deep_nesting /dev/null describe -s "$T/deep.schema"
run err schema_long_literal /dev/null describe -s "$T/longlit.schema"
run err schema_num_past_64bit_dec /dev/null describe -s 'fields a:u32; key dec(a, 99999999999999999999999)'
run err schema_num_past_64bit_bucket /dev/null describe -s 'fields a:u32; key bucket(99999999999999999999999, md5(a)) u32(a)'
run err schema_num_past_64bit_rts /dev/null describe -s 'fields a:u64; key u64(rts(a, 99999999999999999999999))'
run err schema_num_past_64bit_maxlen /dev/null describe -s 'option max_key_len=99999999999999999999999; fields a:u32; key u32(a)'
run err schema_num_past_64bit_slice /dev/null describe -s 'fields s:str; key s[0:99999999999999999999999]'
run err schema_num_past_64bit_tbucket /dev/null describe -s 'fields a:i64; key tbucket(a, 99999999999999999999999) ":" a'
run err schema_dup_field /dev/null describe -s 'fields a:u32, a:u32; key u32(a)'
run err schema_unknown_type /dev/null describe -s 'fields a:u128; key u32(a)'
run err schema_unknown_field /dev/null describe -s 'fields a:u32; key u32(b)'
run err schema_two_keys /dev/null describe -s 'fields a:u32; key u32(a); key u32(a)'
run err schema_no_key /dev/null describe -s 'fields a:u32; name x; key'
run err schema_key_before_fields /dev/null describe -s 'key u32(a); fields a:u32'
run err schema_unterminated_string /dev/null describe -s 'fields s:str; key "abc s'
run err schema_empty_literal /dev/null describe -s 'fields s:str; key "" s'
run err schema_bad_escape /dev/null describe -s 'fields s:str; key "\q" s'
run err schema_two_salts /dev/null describe -s 'fields a:u32; key random(4) random(4) u32(a)'
run err schema_salt_in_hash /dev/null describe -s 'fields a:u32; key md5(random(4) a)'
run err schema_bucket_zero /dev/null describe -s 'fields a:u32; key bucket(0, md5(a)) u32(a)'
run err schema_desc_text /dev/null describe -s 'fields s:str; key s:desc'
run err schema_text_not_decodable /dev/null describe -s 'fields s:str, t:str; key s t'
run err schema_bad_option /dev/null describe -s 'option colour=blue; fields a:u32; key u32(a)'
run err schema_slice_backwards /dev/null describe -s 'fields s:str; key md5(s)[5:2]'
run err schema_esc_on_int /dev/null describe -s 'fields a:u32; key esc(a)'
run err schema_junk /dev/null describe -s 'key !!!; fields'
run err schema_nul_in_text /dev/null describe -s "$(printf 'fields a:u32; key u32(a) \x01')"
run err schema_shortest_over_limit /dev/null describe -s 'option max_key_len=3; fields a:u32; key u32(a)'

# ---- encode: records ----
run err enc_sep_in_value "$(rec '12:30,00,1\n' sep)" encode --no-header -s "$TXT"
run err enc_nul_in_int "$T/nul.csv" encode --no-header -s 'fields a:u32, s:str; key u32(a) esc(s)'
run err enc_int_overflow "$(rec '99999999999999999999,x\n' ovf)" encode --no-header -s "$S"
run err enc_negative_unsigned "$(rec '-1,x\n' neg)" encode --no-header -s "$S"
run err enc_space_int "$(rec ' 1,x\n' spc)" encode --no-header -s "$S"
run err enc_plus_int "$(rec '+1,x\n' plus)" encode --no-header -s "$S"
run err enc_hex_int "$(rec '0x10,x\n' hexint)" encode --no-header -s "$S"
run err enc_float_int "$(rec '1.5,x\n' flt)" encode --no-header -s "$S"
run err enc_u8_range "$(rec '256\n' u8)" encode --no-header -s 'fields a:u8; key u8(a)'
run err enc_i8_range "$(rec '-129\n' i8)" encode --no-header -s 'fields a:i8; key i8(a)'
run err enc_f64_junk "$(rec '1e\n' f64)" encode --no-header -s 'fields f:f64; key f64(f)'
run err enc_too_many_cells "$(rec '1,x,extra\n' many)" encode --no-header -s "$S"
run err enc_too_few_cells "$(rec '1\n' few)" encode --no-header -s "$S"
run err enc_300_cells "$T/manycells.csv" encode --no-header -s "$S"
run err enc_unterminated_quote "$(rec '1,"abc\n' quote)" encode --no-header -s "$S"
run err enc_text_after_quote "$(rec '1,"abc"x\n' quote2)" encode --no-header -s "$S"
run err enc_missing_field "$(rec 'a\n1\n' missing)" encode -s "$S"
run err enc_binary_junk "$T/binary.csv" encode --no-header -s "$S"
run err enc_key_over_32767 "$T/bigline.csv" encode -s "$S" -o hex
run err enc_key_over_limit "$T/bigline.csv" encode -s 'option max_key_len=100; fields a:u32, s:str; key u32(a) esc(s)'
run note enc_header_reordered "$(rec 's,a\nx,1\n' reord)" encode -s "$S"
run note enc_header_unknown_col "$(rec 'a,s,zz\n1,x,9\n' unk)" encode --header -s "$S"
run err enc_json_dup_member "$(rec '{"a":1,"a":2,"s":"x"}\n' dup)" encode -f jsonl -s "$S"
run err enc_json_nested "$(rec '{"a":1,"s":{"x":1}}\n' nest)" encode -f jsonl -s "$S"
run err enc_json_array "$(rec '[1,"x"]\n' arr)" encode -f jsonl -s "$S"
run err enc_json_trailing "$(rec '{"a":1,"s":"x"} junk\n' trail)" encode -f jsonl -s "$S"
run err enc_json_bad_escape "$(rec '{"a":1,"s":"\\q"}\n' jesc)" encode -f jsonl -s "$S"
run err enc_json_unterminated "$(rec '{"a":1,"s":"x\n' junt)" encode -f jsonl -s "$S"
run err enc_json_control_char "$(rec '{"a":1,"s":"a\tb"}\n' jctl)" encode -f jsonl -s "$S"
run err enc_json_number_string "$(rec '{"a":"x","s":"x"}\n' jnum)" encode -f jsonl -s "$S"
run err enc_json_no_colon "$(rec '{"a" 1}\n' jcolon)" encode -f jsonl -s "$S"
run err enc_input_dir /dev/null encode -s "$S" -i "$T/dir"
run err enc_input_missing /dev/null encode -s "$S" -i "$T/nosuch.csv"
run err enc_seed_negative "$(rec '1,x\n' seed)" encode --no-header -s "$S" --seed -1
run err enc_seed_junk "$(rec '1,x\n' seed2)" encode --no-header -s "$S" --seed 12abc
run err enc_seed_overflow "$(rec '1,x\n' seed3)" encode --no-header -s "$S" --seed 99999999999999999999999
run err enc_bad_format /dev/null encode -s "$S" -f xml
run err enc_bad_out /dev/null encode -s "$S" -o base64
run err enc_bad_onerror /dev/null encode -s "$S" --on-error ignore
run err enc_no_schema /dev/null encode
run err enc_stray_arg /dev/null encode -s "$S" extra
run note enc_skip_counts "$(rec '1,x\nx,1\n' skip)" encode --no-header -s "$S" --on-error skip

# ---- decode: keys ----
run err dec_input_dir /dev/null decode -s "$S" -i "$T/dir"
run err dec_input_fifo_missing /dev/null decode -s "$S" -i "$T/nosuch"
run err dec_short_key "$(rec '\\\\x00\\\\x01\n' short)" decode -s "$S"
run err dec_bad_escape "$(rec '\\\\q\n' desc)" decode -s "$S"
run err dec_odd_hex "$(rec 'abc\n' oddhex)" decode -s "$S" --in-form hex
run err dec_not_hex "$(rec 'zz\n' nothex)" decode -s "$S" --in-form hex
run err dec_hash_mismatch "$(rec '8D4646EB2D7067126EB08ADB0672F7BC:1\n' hash)" decode -s 'fields id:u64; key HEX(md5(id)) ":" id'
run err dec_trailing_bytes "$(rec '00000001780001ff\n' trail)" decode -s "$S" --in-form hex
run err dec_bad_form /dev/null decode -s "$S" --in-form base64
run err dec_bad_format /dev/null decode -s "$S" -f xml
run note dec_skip_counts "$(rec 'zz\n00000001780001\n' dskip)" decode -s "$S" --in-form hex --on-error skip
run ok dec_empty_input /dev/null decode -s "$S"

# ---- explain / query: predicates and plans ----
run ok plan_two_in_lists_and_range /dev/null explain -s 'fields a:u32, b:u32, c:u32; key u32(a) u32(b) u32(c)' -w "a IN ($(seq -s, 0 299)) AND b IN ($(seq -s, 0 299)) AND c > 5"
run ok plan_in_str_list /dev/null explain -s "$S" -w "$IN2"
run ok plan_same_field_10k /dev/null explain -s "$S" -w "$INSAME"
run ok plan_10k_conditions /dev/null explain -s "$S" -w "$C10K"
run ok plan_salted_in /dev/null explain -s 'fields a:u32, b:u32; key random(16) u32(a) u32(b)' -w "a IN ($(seq -s, 0 999)) AND b IN ($(seq -s, 0 999))"
run ok plan_phoenix_in /dev/null explain -s 'fields a:u32, b:u32; key phoenix_salt(8) u32(a) u32(b)' -w "a IN ($(seq -s, 0 999)) AND b IN ($(seq -s, 0 999))"
run err plan_max_ranges_zero /dev/null explain -s "$S" -w 'a = 1' --max-ranges 0
run err plan_max_ranges_huge /dev/null explain -s "$S" -w 'a = 1' --max-ranges 99999999
run err pred_unknown_field /dev/null explain -s "$S" -w 'zz = 1'
run err pred_type_mismatch /dev/null explain -s "$S" -w "a = 'x'"
run err pred_unquoted_string /dev/null explain -s "$S" -w 's = x'
run err pred_or /dev/null explain -s "$S" -w 'a = 1 OR a = 2'
run err pred_impossible_range /dev/null explain -s "$S" -w 'a > 9 AND a < 3'
run err pred_between_backwards /dev/null explain -s "$S" -w 'a BETWEEN 9 AND 3'
run err pred_in_unclosed /dev/null explain -s "$S" -w 'a IN (1, 2'
run err pred_in_empty /dev/null explain -s "$S" -w 'a IN ()'
run err pred_prefix_on_int /dev/null explain -s "$S" -w "a PREFIX '1'"
run err pred_unterminated_string /dev/null explain -s "$S" -w "s = 'abc"
run err pred_eq_outside_range /dev/null explain -s "$S" -w 'a = 5 AND a > 9'
run err pred_disjoint_in /dev/null explain -s "$S" -w 'a IN (1,2) AND a IN (3,4)'
run err pred_number_overflow /dev/null explain -s "$S" -w 'a = 99999999999999999999999'
run err pred_junk /dev/null explain -s "$S" -w ')))'
run err explain_db_without_table /dev/null explain -s "$S" -w 'a = 1' --db "$D"
run err query_other_schema /dev/null query --db "$D" -t t -s "$S2"
run err query_other_schema_forced_does_not_decode /dev/null query --db "$D" -t t -s "$S2" --force
run ok query_stored_schema /dev/null query --db "$D" -t t -w 'a = 1'
run err query_no_table /dev/null query --db "$D" -s "$S"
run err query_missing_table /dev/null query --db "$D" -t nosuch -s "$S"
run err query_missing_store /dev/null query --db "$T/nostore" -t t -s "$S"
run err query_bad_limit /dev/null query --db "$D" -t t --limit -1
run err query_bad_column /dev/null query --db "$D" -t t -c ':x'
run err query_bad_format /dev/null query --db "$D" -t t -f xml
run note query_bounded_plan /dev/null query --db "$D" -t t -w "a IN ($(seq -s, 0 199)) AND s IN ($(seq -s, -f "'%g'" 0 199))" --max-ranges 100

# ---- load ----
run err load_input_dir /dev/null load -q --db "$D" t -s "$S" "$T/dir"
run err load_input_missing /dev/null load -q --db "$D" t -s "$S" "$T/nosuch.csv"
run err load_other_schema "$(rec '3,z\n' lother)" load -q --db "$D" t -s "$S2" --no-header
run err load_schema_fifo /dev/null load -q --db "$D" t -s "$T/fifo"
run err load_missing_table "$(rec '3,z\n' lmiss)" load -q --db "$D" nosuch -s "$S"
run err load_missing_family "$(rec '3,z\n' lfam)" load -q --db "$D" t -s "$S" -f nofam
run err load_strict_bad_record "$(rec 'x,z\n' lstrict)" load -q --db "$D" t -s "$S" --no-header --strict
run err load_bad_batch /dev/null load -q --db "$D" t -s "$S" --batch 0
run err load_bad_seed /dev/null load -q --db "$D" t -s "$S" --seed -1
run err load_bad_format /dev/null load -q --db "$D" t -s "$S" --format xml
run err load_no_schema /dev/null load -q --db "$D" t

# ---- the store commands ----
run err scan_versions_zero /dev/null scan --db "$D" t --versions 0
run err scan_versions_2p32 /dev/null scan --db "$D" t --versions 4294967296
run err scan_start_after_stop /dev/null scan --db "$D" t --start b --stop a
run ok scan_count_json /dev/null scan --db "$D" t --count --json
run err scan_bad_limit /dev/null scan --db "$D" t --limit x
run err scan_bad_escape /dev/null scan --db "$D" t --start '\x'
run err scan_missing_table /dev/null scan --db "$D" nosuch
run err scan_missing_store /dev/null scan --db "$T/nostore" t
run err scan_store_is_file /dev/null scan --db "$T/ok.schema" t
run err get_missing_table /dev/null get --db "$D" nosuch r
run err get_bad_versions /dev/null get --db "$D" t r --versions x
run err get_bad_escape /dev/null get --db "$D" t '\xZZ'
run err put_missing_value /dev/null put --db "$D" t r f:q
run err put_missing_family /dev/null put --db "$D" t r nofam:q v
run err put_bad_ts /dev/null put --db "$D" t r f:q v --ts x
run err put_empty_row /dev/null put --db "$D" t '' f:q v
run err delete_missing_table /dev/null delete --db "$D" nosuch r
run err delete_bad_ts /dev/null delete --db "$D" t r --ts -5
run err create_no_family /dev/null create --db "$D" t2
run err create_exists /dev/null create --db "$D" t -f f
run err create_bad_buckets /dev/null create --db "$D" t3 -f f --buckets 0
run err create_bad_split_escape /dev/null create --db "$D" t4 -f f --split '\xZZ'
run err create_bad_table_name /dev/null create --db "$D" 'a/b' -f f
run err create_schema_fifo /dev/null create --db "$D" t5 -f f --schema "$T/fifo"
run err regions_missing_table /dev/null regions --db "$D" nosuch
run err stats_missing_store /dev/null stats --db "$T/nostore"
run err check_missing_store /dev/null check "$T/nostore"
run err check_not_a_store /dev/null check "$T/dir"

# ---- the workload commands ----
run err analyze_schema_fifo /dev/null analyze -s "$T/fifo" -w keys
run err analyze_unknown_workload /dev/null analyze -s "$S" -w nosuch
run err analyze_file_dir /dev/null analyze -s "$S" -w file --file "$T/dir"
run err compare_bad_design /dev/null compare -w keys -d 'x=fields a:u32; key u32(b)' -d "y=$S"
run err suggest_unknown_workload /dev/null suggest -w nosuch
run err unknown_command /dev/null frobnicate

echo "hostile_inputs: $n cases, $fails failed"
[ "$n" -ge 100 ] || { echo "FAIL: fewer than 100 cases"; exit 1; }
[ $fails -eq 0 ]
