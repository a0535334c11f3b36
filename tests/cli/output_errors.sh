#!/usr/bin/env bash
# Output errors are errors: every command, its standard output on a full disk
# (/dev/full), exits 1 with a message naming the cause; a command that
# writes nothing to standard output still succeeds; files a command writes
# (--png, --html) on a full disk are errors naming the file; a closed pipe
# ends the command quietly.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { "$ROWKEY" "$@" >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "rowkey $* exited $?"; }; }
has() { grep -q -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected '$1' in $2"; }; }
# full CMD...: standard output on /dev/full: exit 1 and the disk is named
full() {
	"$ROWKEY" "$@" >/dev/full 2>"$T/err"
	local got=$?
	[ "$got" = 1 ] || { cat "$T/err" >&2; fail "rowkey $* >/dev/full exited $got, wanted 1"; }
	has "No space left on device" err
	n=$((n + 1))
}
n=0
DB="$T/db"
S='fields uid:u64, ts:ts; key bucket(4, xxh3(uid)) u64(uid) u64(rts(ts))'
{ echo "uid,ts"; for u in 1 2 3; do for t in 10 20 30; do echo "$u,$t"; done; done; } >"$T/rows.csv"
ok create --db "$DB" ev -f d --buckets 4
ok load --db "$DB" ev -s "$S" "$T/rows.csv"
ok encode -s "$S" --in "$T/rows.csv"
cp "$T/out" "$T/keys.txt"

# every command, and --help / --version
full --help
full --version
# every command there is
cmds=$(sed -n 's/^RK_CMD(\([a-z]*\),.*/\1/p' "${RK_SOURCE_DIR:?}/src/cli/commands.def")
[ "$(echo "$cmds" | wc -l)" -ge 20 ] || fail "commands.def lists $(echo "$cmds" | wc -l) commands"
for c in $cmds; do
	full "$c" --help
done
full encode -s "$S" --in "$T/rows.csv"
full decode -s "$S" --in "$T/keys.txt"
full describe -s "$S"
full explain -s "$S" -w 'uid = 2'
full query --db "$DB" -t ev -w 'uid IN (1, 2)'
full create --db "$DB" ev2 -f d
full get --db "$DB" ev "$(head -1 "$T/keys.txt")"
full scan --db "$DB" ev
full scan --db "$DB" ev --count
full regions --db "$DB"
full regions --db "$DB" balance
full stats --db "$DB"
full check --db "$DB"
full load --db "$DB" ev -s "$S" "$T/rows.csv"
W=(-w messages --rate 200 --duration 5 --servers 2)
full analyze -s "fields date:str, time:str, id:u64; key date \":\" time \":\" id" "${W[@]}"
full compare -d "a=fields date:str, time:str, id:u64; key id" "${W[@]}"
full suggest "${W[@]}" -n 1
full profile "$T/rows.csv"
full heatmap --db "$DB" ev --png "$T/h.png"
if "$ROWKEY" serve --help >/dev/null 2>&1; then
	# the address line is how a caller finds the server: unwritten, it stops
	full serve --db "$T/served" --listen 127.0.0.1:0
fi
# the page's address line likewise
full keyviz --db "$DB" --http 127.0.0.1:0

# writing nothing to standard output is no failure
"$ROWKEY" put --db "$DB" ev row1 d:x 1 >/dev/full 2>"$T/err" || { cat "$T/err"; fail "put >/dev/full"; }
"$ROWKEY" delete --db "$DB" ev row1 >/dev/full 2>"$T/err" || { cat "$T/err"; fail "delete >/dev/full"; }

# files a command writes
code_file() {
	"$ROWKEY" "$@" >"$T/out" 2>"$T/err"
	local got=$?
	[ "$got" = 1 ] || { cat "$T/err" >&2; fail "rowkey $* exited $got, wanted 1"; }
	has "/dev/full" err
	n=$((n + 1))
}
code_file heatmap --db "$DB" ev --png /dev/full
code_file heatmap --db "$DB" ev --html /dev/full
code_file analyze -s "fields id:u64; key id" "${W[@]}" --html /dev/full

# a closed standard output: the command fails as on a full disk, and what it
# prints reaches no file of the store's (the next file opened would get fd 1)
closed() { # (a server that wrote its address into a store file would serve on)
	timeout 30 "$ROWKEY" "$@" >&- 2>"$T/err"
	local got=$?
	[ "$got" = 1 ] || { cat "$T/err" >&2; fail "rowkey $* >&- exited $got, wanted 1"; }
	has "Bad file descriptor" err
	n=$((n + 1))
}
closed create --db "$T/closed" ev -f d
closed load --db "$T/closed" ev -s "$S" "$T/rows.csv"
if "$ROWKEY" serve --help >/dev/null 2>&1; then
	closed serve --db "$T/closed" --listen 127.0.0.1:0
fi
grep -rl "listening on\|rows in\|created table" "$T/closed" && fail "the command's output went into a store file"
"$ROWKEY" check --db "$T/closed" >"$T/out" 2>"$T/err" || { cat "$T/out" "$T/err"; fail "check after >&-"; }
"$ROWKEY" scan --db "$T/closed" ev --count >"$T/out" || fail "scan after >&-"
[ "$(cat "$T/out")" = 9 ] || { cat "$T/out"; fail "the 9 rows loaded with standard output closed"; }

# a closed pipe: the command ends, and says nothing about it
"$ROWKEY" scan --db "$DB" ev 2>"$T/err" | head -c 1 >/dev/null
[ -s "$T/err" ] && { cat "$T/err"; fail "a closed pipe was reported"; }
"$ROWKEY" --help 2>"$T/err" | true
[ -s "$T/err" ] && { cat "$T/err"; fail "a closed pipe was reported"; }

echo "output errors: ok ($n runs on a full disk)"
