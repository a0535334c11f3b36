#!/usr/bin/env bash
# rowkey analyze / compare --engine sim|store|both: which engines run, where a
# store run keeps its store (--store DIR, else a temporary directory removed
# at the end), and the usage errors. The measured figures themselves are
# checked in tests/integration/test_analyze_store.c.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/tmp"
export TMPDIR="$T/tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { "$ROWKEY" "$@" >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "rowkey $* exited $?"; }; }
code() { local want=$1; shift; "$ROWKEY" "$@" >"$T/out" 2>"$T/err"; local got=$?; [ "$got" = "$want" ] || { cat "$T/err" >&2; fail "rowkey $* exited $got, wanted $want"; }; }
has() { grep -q -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected '$1' in $2"; }; }
hasnt() { ! grep -q -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "did not expect '$1' in $2"; }; }
empty_tmp() { [ -z "$(ls -A "$T/tmp")" ] || { ls -la "$T/tmp"; fail "$1 left a temporary directory"; }; }

F='fields date:str, time:str, id:u64, user:u64, domain:str, ts:i64'
SEQ="$F; key date \":\" time \":\" id"
SALT="$F; key bucket(4, xxh3(id), dec) \":\" date \":\" time \":\" id"
W=(-w messages --rate 2000 --duration 2 --read-fraction 0 --seed 1 --servers 4 --capacity 4000)

ok analyze --help; has "engine sim|store|both" out
ok analyze -s "$SEQ" "${W[@]}"                          # default: the simulator alone
has "^design      design (simulator)$" out; hasnt "measured" out; empty_tmp "the simulator"
ok analyze -s "$SEQ" "${W[@]}" --engine store           # the store alone, in a temporary store
has "^design      design (store)$" out; has "rows/s measured" out; empty_tmp "--engine store"
ok analyze -s "$SEQ" "${W[@]}" --engine both --json     # both: an array of two
has '"engine":"simulator"' out; has '"engine":"store"' out; empty_tmp "--engine both"
ok analyze -s "$SEQ" "${W[@]}" --store "$T/kept"        # --store DIR: both, the store kept
has '^design  store ' out; [ -f "$T/kept/META" ] || fail "--store DIR did not keep the store"
ok compare "${W[@]}" --engine store -d "seq=$SEQ" -d "salt=$SALT"
has "^seq  *store " out; has "^salt  *store " out; hasnt "simulator" out; empty_tmp "compare --engine store"

code 2 analyze -s "$SEQ" "${W[@]}" --engine fast;  has "expected sim, store or both" err
code 2 analyze -s "$SEQ" "${W[@]}" --engine sim --store "$T/x"; has "needs --engine store or both" err
[ ! -e "$T/x" ] || fail "a refused run made a store"
code 2 analyze -s "$SEQ" "${W[@]}" --engine store --png "$T/p.png"; has "png" err
code 2 compare "${W[@]}" --engine sim --store "$T/x" -d "seq=$SEQ"; has "needs --engine store or both" err
code 2 compare "${W[@]}" --engine store --png "$T/p-" -d "seq=$SEQ"; has "png" err
empty_tmp "the refused runs"
echo "ok"
