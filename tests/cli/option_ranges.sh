#!/usr/bin/env bash
# Ports, sizes and counts on the command line are range-checked: a value out
# of range, with a sign, or not a number is a usage error (exit 2) whose
# message names the option, before anything is done.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
# refused WORD CMD...: exit 2, the message names WORD
refused() {
	local word=$1
	shift
	"$ROWKEY" "$@" >"$T/out" 2>"$T/err"
	local got=$?
	[ "$got" = 2 ] || { cat "$T/err" >&2; fail "rowkey $* exited $got, wanted 2"; }
	grep -q -- "$word" "$T/err" || { cat "$T/err" >&2; fail "rowkey $*: '$word' not in the message"; }
	n=$((n + 1))
}
DB="$T/db"
S='fields a:u32; key u32(a)'
"$ROWKEY" create --db "$DB" t -f d >/dev/null || fail create

if "$ROWKEY" serve --help >/dev/null 2>&1; then
	for l in 127.0.0.1:99999 127.0.0.1:65536 127.0.0.1:-1 127.0.0.1:+80 '127.0.0.1: 80' \
		127.0.0.1: :80 127.0.0.1 127.0.0.1:80x; do
		refused --listen serve --db "$T/s" --listen "$l"
	done
	[ -e "$T/s" ] && fail "a refused serve created its store"
	refused --servers serve --db "$T/s" --servers 257
	refused --block-cache serve --db "$T/s" --block-cache 65537
	refused --balance-every serve --db "$T/s" --balance-every -1
fi
for v in 0 -1 x '' 18446744073709551616 ' 5'; do
	refused --limit scan --db "$DB" t --limit "$v"
	refused --limit query -s "$S" --db "$DB" -t t -w 'a = 1' --limit "$v"
done
refused --versions scan --db "$DB" t --versions 0
refused --versions get --db "$DB" t r --versions 1000001
refused --min-ts get --db "$DB" t r --min-ts 9223372036854775808
refused --ts put --db "$DB" t r d:q v --ts 9223372036854775808
refused --ts put --db "$DB" t r d:q v --ts 0
refused --ts delete --db "$DB" t r --ts -5
refused SERVER regions --db "$DB" move 1 4294967297
refused --max-ranges explain -s "$S" -w 'a = 1' --max-ranges 65537
refused --top suggest -w users --top 0
refused --top suggest -w users --top 99999999999999999999
W=(-s "$S" -w users)
refused time-buckets analyze "${W[@]}" --time-buckets 10001
refused key-buckets analyze "${W[@]}" --key-buckets 4097
refused servers analyze "${W[@]}" --servers 0
refused value-len compare -d "$S" -w users --value-len 65M
refused cardinality analyze "${W[@]}" --cardinality 0
refused seed analyze "${W[@]}" --seed -1
refused --buckets create --db "$DB" t2 -f d --buckets 257
refused batch load --db "$DB" t -s "$S" --batch 0 /dev/null
echo "option ranges: ok ($n refusals)"
