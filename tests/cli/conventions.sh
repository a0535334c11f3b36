#!/usr/bin/env bash
# One way to say things, in every command: an unknown command or option is
# reported once, on stderr, with the closest real one ("did you mean") and
# exit 2; a missing or unwanted argument says which option; --help is the
# same table the man pages come from; --version is the build's version.
# Sizes take the same suffixes in every command (one parser); floats print
# as the shortest text that reads back; a missing table lists the tables; a
# mistyped field or workload gets a suggestion; and the outputs of many
# commands are read for grammar ("an 8-way merge") and for percentages over
# 100 (no server is busy 106% of the time).
set -u
R=${ROWKEY:?ROWKEY must point at the rowkey binary}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
ok()   { passes=$((passes+1)); }
bad()  { echo "FAIL: $*"; fails=$((fails+1)); }
# run ARGS...: stdout in $T/out, stderr in $T/err, status in $rc
run() { "$R" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
# says WANT_RC 'first stderr line' ARGS...: the message, once, and the status
says() {
	local want_rc=$1 msg=$2; shift 2
	run "$@"
	[ "$rc" = "$want_rc" ] || { bad "rowkey $*: exit $rc, want $want_rc"; return; }
	[ "$(head -1 "$T/err")" = "$msg" ] || { bad "rowkey $*: said '$(head -1 "$T/err")', want '$msg'"; return; }
	# reported once: the message and a pointer to --help, nothing more
	[ "$(grep -c . "$T/err")" -le 2 ] || { bad "rowkey $*: more than one message: $(cat "$T/err")"; return; }
	[ ! -s "$T/out" ] || { bad "rowkey $*: wrote to stdout"; return; }
	ok
}

says 2 "rowkey: unknown command 'creat' (did you mean 'create'?)" creat t
says 2 "rowkey: unknown command 'regoins' (did you mean 'regions'?)" regoins
says 2 "rowkey: unknown command 'frobnicate'" frobnicate
says 2 "rowkey create: unknown option '--split-treshold' (did you mean '--split-threshold'?)" \
	create --split-treshold 4M t -f d
says 2 "rowkey scan: unknown option '--jsno' (did you mean '--json'?)" scan --jsno t
says 2 "rowkey analyze: unknown option '--servres' (did you mean '--servers'?)" analyze --servres 4
says 2 "rowkey encode: unknown option '--frobnicate'" encode --frobnicate
says 2 "rowkey encode: unknown option '-x'" encode -x
says 2 "rowkey scan: option '--s' is ambiguous: --start, --stop" scan --s a t
says 2 "rowkey scan: option '--json' takes no argument" scan --json=yes t
says 2 "rowkey create: option '--db' needs an argument (DIR)" create t -f d --db
says 2 "rowkey load: option '-s' needs an argument (SCHEMA)" load t -s
says 2 "rowkey: unknown option '--verison' (a command comes first: rowkey <command> [options]; see rowkey --help)" --verison

# --help: on stdout, status 0, the usage line first, every command
for c in $("$R" --help | awk '/^commands:/{on=1; next} on && /^$/{exit} on {print $1}'); do
	run "$c" --help
	if [ "$rc" = 0 ] && head -1 "$T/out" | grep -q "^usage: rowkey $c " && [ ! -s "$T/err" ]; then ok
	else bad "rowkey $c --help: exit $rc, $(head -1 "$T/out")"; fi
done

# --version: the version written once, in CMakeLists.txt
want=$(sed -n 's/^project(rowkey VERSION \([0-9.]*\).*/\1/p' "${RK_SOURCE_DIR:?}/CMakeLists.txt")
run --version
[ "$(cat "$T/out")" = "rowkey $want" ] && ok || bad "--version says '$(cat "$T/out")', want 'rowkey $want'"

# ---- sizes: one parser, the same suffixes everywhere ----
S1='fields date:str, time:str, id:u64; key date ":" time ":" id'
for size in 4M 64MiB 1.5G 2KB 100 0; do
	run create --db "$T/sz-$size" t -f d --split-threshold "$size"
	[ "$rc" = 0 ] && ok || bad "create --split-threshold $size: exit $rc: $(cat "$T/err")"
	run analyze -w messages --duration 1 --split-threshold "$size" -s "$S1"
	[ "$rc" = 0 ] && ok || bad "analyze --split-threshold $size: exit $rc: $(cat "$T/err")"
done
printf 'date,time,id\n230611,063031,1\n' >"$T/m.csv"
run encode -s "$S1" --max-record 1KiB --in "$T/m.csv"
[ "$rc" = 0 ] && ok || bad "encode --max-record 1KiB: $(cat "$T/err")"
for c in "create --db $T/sz-bad t -f d" "analyze -w messages -s x"; do
	run $c --split-threshold 4Q
	[ "$rc" = 2 ] && grep -q "'4Q' is not a size: a number with an optional unit" "$T/err" && ok ||
		bad "$c --split-threshold 4Q: exit $rc: $(cat "$T/err")"
done

# ---- floats: the shortest text that reads back ----
D="$T/db"
"$R" create --db "$D" events -f d >/dev/null && "$R" create --db "$D" users -f d >/dev/null
FS='fields id:u64, price:f64; key u64(id) f64(price)'
printf 'id,price\n1,19.55\n2,0.1\n3,1e22\n' | "$R" load --db "$D" events -s "$FS" -q >/dev/null
run query --db "$D" -t events
for v in 19.55 0.1 1e+22; do
	grep -q "	$v	" "$T/out" && ok || bad "query prints $v as: $(cat "$T/out")"
done
grep -q "000000000001" "$T/out" && bad "a float printed with 17 digits: $(cat "$T/out")" || ok
run scan --db "$D" events
grep -q "d:price	[0-9]*	19.55$" "$T/out" && ok || bad "load stored 19.55 as: $(grep price "$T/out" | head -1)"

# ---- names: tables, fields, workloads ----
says 1 "rowkey scan: opening the table: table evnts does not exist in $D (did you mean 'events'? tables: events, users)" \
	scan --db "$D" evnts
says 1 "rowkey get: opening the table: table zzz does not exist in $D (tables: events, users)" get --db "$D" zzz r
run explain -s "$FS" -w 'idd = 3'
grep -q "unknown field 'idd' (did you mean 'id'?)" "$T/err" && ok || bad "explain idd: $(cat "$T/err")"
run describe -s 'fields user:u64; key u64(usr)'
grep -q "unknown field or function 'usr' (did you mean 'user'?)" "$T/err" && ok || bad "describe usr: $(cat "$T/err")"
run analyze -w mesages -s "$S1"
grep -q "unknown workload 'mesages' (did you mean 'messages'?" "$T/err" && ok || bad "workload: $(cat "$T/err")"

# ---- grammar and percentages, in what many commands print ----
article() { # the article English puts before the number $1
	local n=${1//,/} lead first
	lead=$n
	while [ ${#lead} -gt 3 ]; do lead=${lead:0:$(( ${#lead} - 3 ))}; done
	first=${lead:0:1}
	if [ "$first" = 8 ] || [ "$lead" = 11 ] || [ "$lead" = 18 ]; then echo an; else echo a; fi
}
SALT8='fields id:u64, day:u32; key bucket(8, xxh3(id)) u64(id) u32(day)'
SALT11='fields id:u64, day:u32; key bucket(11, xxh3(id)) u64(id) u32(day)'
SALT18='fields id:u64, day:u32; key bucket(18, xxh3(id)) u64(id) u32(day)'
{
	for s in "$SALT8" "$SALT11" "$SALT18"; do
		"$R" describe -s "$s"
		"$R" explain -s "$s" -w 'id BETWEEN 3 AND 900'
	done
	"$R" analyze -w messages --rate 2000 --duration 4 --read-fraction 0 --servers 8 --capacity 4000 \
		--engine store -s 'fields date:str, time:str, id:u64; key bucket(8, xxh3(id), dec) ":" date ":" time ":" id'
	"$R" compare -w messages --duration 60 --servers 8 -d "a=$S1" \
		-d 'b=fields date:str, time:str, id:u64; key bucket(8, xxh3(id), dec) ":" date ":" time ":" id'
	"$R" stats --db "$D"
	"$R" regions --db "$D"
} >"$T/said" 2>&1
grep -q "an 8-way merge" "$T/said" && grep -q "an 11-way merge" "$T/said" && grep -q "an 18-way" "$T/said" && ok ||
	bad "the merges: $(grep -o '[a-z]* [0-9]*-way' "$T/said" | sort -u | tr '\n' ' ')"
while read -r art num; do
	[ "$art" = "$(article "$num")" ] && ok || bad "'$art $num' should be '$(article "$num") $num'"
done < <(grep -oiE '\b(a|an) [0-9][0-9,]*\b' "$T/said" | tr 'A' 'a' | sort -u)
over=$(grep -oE '\b([1-9][0-9]{3,}|[2-9][0-9]{2}|1[1-9][0-9]|10[1-9]|100\.[0-9]*[1-9])(\.[0-9]+)?%' "$T/said")
[ -z "$over" ] && ok || bad "percentages over 100: $over"
grep -q "hottest server busy [0-9]*%" "$T/said" && ok || bad "no busy figure in: $(cat "$T/said")"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
