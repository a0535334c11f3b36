#!/usr/bin/env bash
# Store commands end to end: create, put, get, scan, delete, regions (list,
# split, move, balance), stats, check; exit codes and error messages for bad
# input; check catching a damaged store.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DB="$T/db"
fail() { echo "FAIL: $*" >&2; exit 1; }
# run CMD...: expects exit 0
ok() { "$ROWKEY" "$@" >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "rowkey $* exited $?"; }; }
# code N CMD...: expects exit N
code() { local want=$1; shift; "$ROWKEY" "$@" >"$T/out" 2>"$T/err"; local got=$?; [ "$got" = "$want" ] || { cat "$T/err" >&2; fail "rowkey $* exited $got, wanted $want"; }; }
has() { grep -q -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected '$1' in $2"; }; }

ok create --help; has "usage: rowkey create" out
ok create --db "$DB" --servers 2 users -f info:3 -f stats --split m
has "2 regions" out
code 1 create --db "$DB" users -f info; has "already exists" err
code 2 create --db "$DB" t2; has "at least one family" err
code 2 create --db "$DB" t2 -f f --split b --buckets 4; has "choose one" err
code 1 create --db "$DB" t3 -f "bad fam"; has "bad fam" err

# regions derived from a schema: one per bucket, or quantiles of a hash prefix
ok create --db "$DB" salted -f d --schema 'fields user:str, ts:i64; key bucket(8, md5(user), dec) user ":" ts'
has "8 regions" out
ok regions --db "$DB" salted
sed -n 3p "$T/out" | grep -q '  1 \.\. 2$' || { cat "$T/out"; fail "second bucket region is 1 .. 2"; }
ok create --db "$DB" hashed -f d --regions 4 --schema 'fields id:u64; key hex(md5(id))[0:6] id'
has "4 regions" out
code 1 create --db "$DB" plain -f d --schema 'fields id:u64; key id'; has "no salt or hash prefix" err
code 2 create --db "$DB" plain -f d --regions 3; has "with --schema" err

ok put --db "$DB" users alice info:name Alice info:city Paris
ok put --db "$DB" users bob info:name Bob
ok put --db "$DB" users 'zed\x00\xff' info:name Zed
ok put --db "$DB" --ts 100 users carol info:name C1
ok put --db "$DB" --ts 200 users carol info:name C2
code 1 put --db "$DB" users alice nofam:x v; has "unknown family 'nofam'" err
code 1 put --db "$DB" nosuch r f:q v; has "nosuch" err
code 2 put --db "$DB" users alice info:name; has "expected" err
code 1 put --db "$T/none" users a f:q v; has "opening the store" err

ok get --db "$DB" users alice
has $'alice\tinfo:city\t' out
has 'Paris' out
ok get --db "$DB" --versions 5 users carol
[ "$(wc -l <"$T/out")" = 2 ] || fail "carol should show 2 versions"
ok get --db "$DB" -c info:name --json users 'zed\x00\xff'
has '"row":"zed\\u0000\\u00ff"' out
code 1 get --db "$DB" users nobody; has "not found" err

ok scan --db "$DB" users --keys-only
[ "$(tr '\n' ' ' <"$T/out")" = 'alice bob carol zed\x00\xff ' ] || { cat "$T/out"; fail "scan order"; }
ok scan --db "$DB" users --keys-only --reverse --limit 2
[ "$(tr '\n' ' ' <"$T/out")" = 'zed\x00\xff carol ' ] || { cat "$T/out"; fail "reverse scan"; }
ok scan --db "$DB" users --count --start b --stop z
[ "$(cat "$T/out")" = 2 ] || fail "range count"
ok scan --db "$DB" users --prefix al --keys-only
[ "$(cat "$T/out")" = alice ] || fail "prefix scan"

ok delete --db "$DB" users alice info:city
ok get --db "$DB" users alice
grep -q city "$T/out" && fail "deleted column still there"
ok delete --db "$DB" users bob
code 1 get --db "$DB" users bob

ok regions --db "$DB" users
has "(start)" out
[ "$(grep -c '^[0-9].* users ' "$T/out")" = 2 ] || fail "two regions expected"
FIRST=$(awk 'NR==2 {print $1}' "$T/out")
ok regions --db "$DB" split "$FIRST" c
ok regions --db "$DB" --json users
[ "$(grep -c '"table":"users"' "$T/out")" = 3 ] || fail "three regions after split"
ok regions --db "$DB" users
FIRST=$(awk 'NR==2 {print $1}' "$T/out")
ok regions --db "$DB" move "$FIRST" 1
ok regions --db "$DB" users
[ "$(awk 'NR==2 {print $3}' "$T/out")" = 1 ] || { cat "$T/out"; fail "region not on server 1"; }
code 1 regions --db "$DB" move 999 0; has "999" err
code 2 regions --db "$DB" move x; has "expected" err
ok regions --db "$DB" balance
ok scan --db "$DB" users --count
[ "$(cat "$T/out")" = 3 ] || fail "rows after moves"

ok stats --db "$DB"
has "users" out
has "region servers" out
ok check "$DB"
has ": ok" out

# damage: a server directory missing, then check must fail naming it
mv "$DB/rs-001" "$DB/rs-001.gone"
code 1 check "$DB"; has "rs-001" err
mv "$DB/rs-001.gone" "$DB/rs-001"
# damage: a corrupt META
cp "$DB/META" "$T/META.bak"
printf 'garbage' >"$DB/META"
code 1 check --db "$DB"; has "META" err
cp "$T/META.bak" "$DB/META"
ok check --db "$DB"
# a lost META is not silently replaced by an empty one over existing data
mv "$DB/META" "$T/META.lost"
code 1 create --db "$DB" fresh -f f; has "no META file, but engine" err
mv "$T/META.lost" "$DB/META"

# damage: flip bytes inside an engine's sorted table file; check reports it
# naming the engine, reads of the damaged block fail naming table, region and
# engine, and the store still opens
DB2="$T/db2"
ok create --db "$DB2" --servers 1 t -f f
{ echo name; for i in $(seq 1 3000); do echo "user$i"; done; } >"$T/names.csv"
ok load --db "$DB2" t -s 'fields name:str; key name' "$T/names.csv"
ok check "$DB2"
LDB=$(ls "$DB2"/rs-000/*.ldb | head -1)
[ -n "$LDB" ] || fail "no engine table file to damage"
printf '\xde\xad\xbe\xef\xde\xad\xbe\xef' | dd of="$LDB" bs=1 seek=2000 conv=notrunc 2>/dev/null
code 1 check "$DB2"; has "rs-000" out; has "Corruption" out
code 1 scan --db "$DB2" t --count; has "region" err; has "rs-000" err
ok regions --db "$DB2"
echo "store commands: ok"
