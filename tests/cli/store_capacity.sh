#!/usr/bin/env bash
# rowkey create --server-capacity: the capacity of each region server is
# saved with the store, shown by stats, kept by later commands, replaced by
# a later --server-capacity, removed by 'off'; bad values are usage errors.
# The capped writes themselves are timed in tests/integration/test_store_capacity.c.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DB="$T/db"
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { "$ROWKEY" "$@" >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "rowkey $* exited $?"; }; }
code() { local want=$1; shift; "$ROWKEY" "$@" >"$T/out" 2>"$T/err"; local got=$?; [ "$got" = "$want" ] || { cat "$T/err" >&2; fail "rowkey $* exited $got, wanted $want"; }; }
has() { grep -q -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected '$1' in $2"; }; }
hasnt() { ! grep -q -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "did not expect '$1' in $2"; }; }

ok create --help; has "server-capacity" out
for bad in 0 0/s x 12/m 5XB/s -3 2000/s/s 99999999999999999999; do
  code 2 create --db "$DB" t -f d --server-capacity "$bad"; has "bad --server-capacity" err
done
[ ! -e "$DB" ] || fail "a rejected create made a store"

ok create --db "$DB" --servers 2 t -f d --server-capacity 2000/s
ok stats --db "$DB"; has "capacity: 2,000 ops/s$" out
ok put --db "$DB" t r1 d:q v                     # a later command keeps it
ok stats --db "$DB"; has "capacity: 2,000 ops/s$" out
ok create --db "$DB" t2 -f d --server-capacity 5MB/s
ok stats --db "$DB"; has "capacity: 2,000 ops/s, 4.8 MiB/s" out
ok create --db "$DB" t3 -f d --server-capacity 300 --server-capacity 64KB
ok stats --db "$DB"; has "capacity: 300 ops/s, 62.5 KiB/s" out
ok create --db "$DB" t5 -f d --server-capacity 1.5M/s     # one size syntax: binary M
ok stats --db "$DB"; has "capacity: 300 ops/s, 1.5 MiB/s" out
ok get --db "$DB" t r1; has "v" out              # reads pass a capped server
ok create --db "$DB" t4 -f d --server-capacity off
ok stats --db "$DB"; hasnt "capacity" out
echo "store_capacity: ok"
