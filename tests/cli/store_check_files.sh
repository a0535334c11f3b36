#!/usr/bin/env bash
# rowkey check on damaged engine table files: a flipped byte inside an .ldb,
# a damaged footer, a truncated .ldb and a missing .ldb each make check exit
# 1 with a message that names the file (and its region server's engine),
# says what is wrong and, for a damaged block, at which offset. A scan over
# the damage names the file too. Only a missing file keeps the store from
# opening (LevelDB refuses); with the others it opens, and the undamaged
# server serves reads and writes. An undamaged copy checks clean.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
code() { local want=$1; shift; "$ROWKEY" "$@" >"$T/out" 2>"$T/err"; local got=$?; [ "$got" = "$want" ] || { cat "$T/out" "$T/err" >&2; fail "rowkey $* exited $got, wanted $want"; }; }
has() { grep -qF -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected '$1' in $2"; }; }

# a store whose two servers each hold a table file (the reopen by check turns
# each server's log into one)
GOOD="$T/good"
code 0 create --db "$GOOD" --servers 2 t -f f --split m
{ echo name; for i in $(seq 1 20000); do echo "a$i"; echo "user$i"; done; } >"$T/names.csv"
code 0 load --db "$GOOD" t -s 'fields name:str; key name' "$T/names.csv"
code 0 check "$GOOD"
ls "$GOOD"/rs-001/*.ldb >/dev/null 2>&1 || fail "server 1 has no table file"
fresh() { rm -rf "$T/db"; cp -a "$GOOD" "$T/db"; DB="$T/db"; LDB=$(ls "$DB"/rs-001/*.ldb | head -1); }

# a flipped byte in a data block
fresh
printf '\xde\xad\xbe\xef' | dd of="$LDB" bs=1 seek=2000 conv=notrunc 2>/dev/null
code 1 check "$DB"
has "server 1: table file $LDB: data block at offset " out
has "checksum mismatch" out
has "engine $DB/rs-001" out
code 1 scan --db "$DB" t --count
has "table file $LDB: data block at offset" err

# a damaged footer: the store still opens; check, and a scan over the
# damage, name the file; the other server's rows read and writes go on
fresh
SIZE=$(stat -c %s "$LDB")
printf '\x00' | dd of="$LDB" bs=1 seek=$((SIZE - 3)) conv=notrunc 2>/dev/null
code 1 check "$DB"
has "server 1: engine read failed: engine $DB/rs-001" out
has "table file $LDB: footer at offset $((SIZE - 48)): bad magic number" out
code 1 scan --db "$DB" t --count
has "table t: region 2: engine $DB/rs-001" err
has "table file $LDB: footer at offset" err
code 0 get --db "$DB" t a1
code 0 put --db "$DB" t a0 f:x 1

# a truncated file: the same
fresh
SIZE=$(stat -c %s "$LDB")
truncate -s 3000 "$LDB"
code 1 check "$DB"
has "engine $DB/rs-001" out
has "table file $LDB: 3000 bytes, the engine's manifest records $SIZE (truncated)" out
code 0 get --db "$DB" t a1

# a missing file
fresh
rm "$LDB"
code 1 check "$DB"
has "engine $DB/rs-001" err
has "missing files; e.g.: $LDB" err

# the undamaged store is still clean
code 0 check "$GOOD"
has ": ok" out
echo "store check files: ok"
