#!/usr/bin/env bash
# analyze, compare, suggest end to end: help, usage errors (exit 2), failures
# with clear messages (exit 1), text / JSON / PNG / HTML output, a store run.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { "$ROWKEY" "$@" >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "rowkey $* exited $?"; }; }
code() { local want=$1; shift; "$ROWKEY" "$@" >"$T/out" 2>"$T/err"; local got=$?; [ "$got" = "$want" ] || { cat "$T/err" >&2; fail "rowkey $* exited $got, wanted $want"; }; }
has() { grep -q -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected '$1' in $2"; }; }

F='fields date:str, time:str, id:u64, user:u64, domain:str, ts:i64'
S1="$F; key date \":\" time \":\" id"
S2="$F; key bucket(8, xxh3(id), dec) \":\" date \":\" time \":\" id"
SMALL=(--rate 1000 --duration 20 --servers 4 --split-threshold 256K --balance-interval 5)

for c in analyze compare suggest; do ok $c --help; has "usage: rowkey $c" out; done

# what a workload offers
for w in messages keys urls trades cars users; do ok analyze -w $w --describe; has "^fields " out; has "natural key" out; done
ok analyze -w users --describe; has "query       latest 10 for a user" out

# usage errors: exit 2
code 2 analyze -w messages; has "a schema is required" err
code 1 analyze -w nope --describe; has "unknown workload 'nope'" err
code 2 analyze -s "$S1"; has "a workload is required" err
code 2 analyze -s "$S1" -w messages --servers 0; has "servers" err
code 2 analyze -s "$S1" -w messages --rate abc; has "not a number" err
code 2 analyze -s "$S1" -w messages --bogus; has "unknown option '--bogus'" err
code 2 compare -w messages; has "at least one design" err
code 2 suggest; has "a workload is required" err

# failures while working: exit 1, the message says what and why
code 1 analyze -s "$S1" -w nope; has "unknown workload 'nope'" err
code 1 analyze -s 'fields car:u64, speed:u64; key car' -w messages; has "the key uses field 'car', which workload 'messages' does not have" err
code 1 analyze -s "$S1" -w file --file "$T/none.csv"; has "none.csv" err
code 1 analyze -s "$S1" -w messages "${SMALL[@]}" --png /nonexistent/x.png; has "/nonexistent/x.png" err

# a growing key: one server at a time, and the verdict says why
ok analyze -s "$S1" -w messages "${SMALL[@]}"
has "verdict     100% of writes hit 1 of 4 servers" out
has "date rises in 100% of consecutive records" out
has "a message by id: full scan" out
# salted: spread, reads fan out
ok analyze -s "$S2" -w messages "${SMALL[@]}" --json
python3 -c "
import json,sys
r=json.load(open('$T/out'))
assert r['servers']==4 and r['writes']==20000, r
assert abs(sum(r['server_share'])-1)<1e-9
assert r['effective_servers']>3.9, r['effective_servers']
assert r['regions_initial']==8
q={x['name']:x for x in r['queries']}
assert q['messages of the last minute']['ranges']==8
" || fail "analyze --json"

# the same seed gives the same report; another seed another one
U="fields user:u64, ts:i64; key user \":\" ts"
ok analyze -s "$U" -w users "${SMALL[@]}" --json --seed 3; cp "$T/out" "$T/a"
ok analyze -s "$U" -w users "${SMALL[@]}" --json --seed 3; cmp -s "$T/out" "$T/a" || fail "not deterministic"
ok analyze -s "$U" -w users "${SMALL[@]}" --json --seed 4; cmp -s "$T/out" "$T/a" && fail "seed 4 gave seed 3's run"

# PNG and HTML
ok analyze -s "$S1" -w messages "${SMALL[@]}" --png "$T/h.png" --html "$T/h.html"
[ "$(head -c 8 "$T/h.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || fail "not a PNG"
grep -q '<canvas id="map-0"' "$T/h.html" || fail "no heatmap in the page"
grep -qE 'src="https?:|href="https?:' "$T/h.html" && fail "the page loads network resources"

# compare with a store run
ok compare -w messages "${SMALL[@]}" -d "by-date=$S1" -d "salted=$S2" --store "$T/st" --png "$T/c-" --html "$T/c.html"
has "by-date  *simulator" out
has "by-date  *store" out
has "salted  *store" out
[ -s "$T/c-by-date.png" ] && [ -s "$T/c-salted.png" ] || fail "compare --png"
[ -d "$T/st/1-by-date" ] && [ -d "$T/st/2-salted" ] || fail "store directories"
code 1 compare -w messages "${SMALL[@]}" -d "by-date=$S1" --store "$T/st"; has "already holds a store" err

# suggest ranks designs; the obvious key is not the best for users
ok suggest -w users "${SMALL[@]}" -n 3
has "^1 " out
has "schema  fields user:u64" out
[ "$(grep -c '^[0-9] ' "$T/out")" = 3 ] || fail "suggest -n 3 shows 3"
# analyze --splits FILE starts the table where suggest --splits put it: the same regions and
# the same figures as suggest's proposal (not one region on one server)
awk 'BEGIN { srand(7); t = 1700000000000; print "store,order_id,ts";
	for (i = 0; i < 20000; i++) { t += 1 + int(rand() * 2000); printf "%d,%d,%.0f\n", 1 + int(rand() * 50), 100000 + i, t } }' >"$T/orders.csv"
SO='fields store:u64, order_id:u64, ts:ts; key u64(store) i64(ts) u64(order_id)'
ok suggest --file "$T/orders.csv" --servers 8 --query 'store = ? AND ts >= ? AND ts < ?' --splits "$T/sp.txt" -n 1 -q --json
python3 -c "import json,sys; p=json.load(open(sys.argv[1]))[0]; assert p['schema'] == sys.argv[2], p['schema']; print(p['writes']['at_a_time'], p['writes']['hottest_share'])" "$T/out" "$SO" >"$T/want" || fail "suggest's top schema"
ok analyze -w file --file "$T/orders.csv" --servers 8 -s "$SO" --splits "$T/sp.txt" --json
python3 -c "import json,sys; a=json.load(open(sys.argv[1])); print(a['peak_share'], a['hottest_share']); assert a['regions_initial'] == 8, a['regions_initial']" "$T/out" >"$T/got" || fail "analyze --splits: 8 regions"
cmp -s "$T/want" "$T/got" || { cat "$T/want" "$T/got"; fail "analyze --splits differs from suggest's figures"; }
printf 'b\na\n' >"$T/bad.txt"
code 1 analyze -w file --file "$T/orders.csv" -s "$SO" --splits "$T/bad.txt"; has "split point 2 is not after the one before it" err
code 2 analyze -w file --file "$T/orders.csv" -s "$SO" --splits "$T/none.txt"; has "splits $T/none.txt: No such file" err
echo "analyze commands: ok"
