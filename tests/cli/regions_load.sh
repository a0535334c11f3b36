#!/usr/bin/env bash
# rowkey regions and stats tell where the load is: after a load and a split
# made once the writes were over, the live halves show what they took since
# they were born (nothing) and what their key ranges take now (the rows per
# second of the last 60 s recorded, from the key buckets); the retired
# parent keeps its history and shows only with --retired; every number
# names its unit and the window is stated; keys read as their fields, in
# JSON as hex plus the fields.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { "$ROWKEY" "$@" >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "rowkey $* exited $?"; }; }
has() { grep -q -- "$1" "$T/out" || { cat "$T/out"; fail "expected '$1'"; }; }

S='fields id:u64, ts:ts; key u64(id) u64(ts)'
ok create --db "$T/db" ev -f d
python3 -c 'print("id,ts"); [print(f"{i},{1700000000000 + i}") for i in range(2000)]' >"$T/in.csv"
ok load --db "$T/db" ev -s "$S" "$T/in.csv"
ok regions --db "$T/db" ev
ID=$(awk '/^[0-9]/ { print $1; exit }' "$T/out")
ok regions --db "$T/db" split "$ID"

ok regions --db "$T/db" ev
has "written"
has "now:written"
has "born(UTC)"
has "over the last 60 s recorded, [0-9:]*-[0-9:]* UTC, from the key buckets"
[ "$(grep -c '^[0-9]' "$T/out")" = 2 ] || { cat "$T/out"; fail "two live halves"; }
grep -q '\\x' "$T/out" && { cat "$T/out"; fail "keys shown as escapes, not their fields"; }
has "(start) .. id=[0-9]* ts=[0-9]*"
has "id=[0-9]* ts=[0-9]* .. (end)"
# every number with its unit: a size, cells since born, rows per second now
ROW='^[0-9]+ +ev +[0-9]+ +[0-9.]+ (B|KiB|MiB) +([0-9,]+) cells +([0-9,]+) cells +([0-9.,]+) rows/s +([0-9.,]+) rows/s  '
[ "$(grep -cE "$ROW" "$T/out")" = 2 ] || { cat "$T/out"; fail "a region's row: size, cells and rows/s with their units"; }
# both halves: born after the writes (nothing since), yet the writes are where their keys are now
grep -E "$ROW" "$T/out" | sed -E "s#$ROW.*#\2 \4#" | awk 'NF != 2 { bad = 1 } { if ($1 != 0 || $2 + 0 <= 0) bad = 1 } END { exit bad || NR != 2 }' ||
	{ cat "$T/out"; fail "a half should show 0 cells since born and rows/s now"; }
grep -E "$ROW" "$T/out" | sed -E "s#$ROW.*#\4#" | awk '{ s += $1 } END { exit !(s > 33.2 && s < 33.4) }' ||
	{ cat "$T/out"; fail "now: 2000 rows over 60 s is 33.3 rows/s in all"; }

ok regions --db "$T/db" --retired ev
[ "$(grep -c '^[0-9]' "$T/out")" = 3 ] || { cat "$T/out"; fail "the retired parent with --retired"; }
grep "(retired)" "$T/out" | grep -qE ' 4,000 cells +0 cells ' || { cat "$T/out"; fail "the parent keeps its 4,000 cells (2 a row)"; }

ok regions --db "$T/db" --json ev
python3 - "$T/out" <<'EOF' || fail "regions --json"
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
assert len(rs) == 2 and all(r["state"] == "live" for r in rs), rs
a, b = rs
assert a["start"] == {"hex": "", "text": "", "fields": None}, a["start"]
assert a["end"] == b["start"] and set(b["start"]["fields"]) == {"id", "ts"}, b["start"]
assert len(b["start"]["hex"]) == 32 and b["end"] is None
assert all(r["since_born"]["unit"] == "cells" and r["since_born"]["writes"] == 0 for r in rs)
assert all(r["now"]["unit"] == "rows" and r["born_ms"] > 0 for r in rs)
assert sum(r["now"]["writes"] for r in rs) == 2000
# the stable form: these members, as docs/store.md lists them
keys = {"id", "table", "state", "server", "size_bytes", "born_ms", "start", "end", "since_born", "now"}
assert all(set(r) == keys for r in rs), [sorted(r) for r in rs]
EOF
# the help and docs/store.md send scripts to --json, not the table's columns
ok regions --help
tr '\n' ' ' <"$T/out" | grep -q "Scripts read --json" || { cat "$T/out"; fail "regions --help: --json as the stable form"; }
grep -q "Scripts read \`rowkey regions --json\`" "$RK_SOURCE_DIR/docs/store.md" || fail "docs/store.md: --json as the stable form"

ok stats --db "$T/db"
has "load recorded from [-0-9 :]* to [-0-9 :]* UTC over every run of the store; now: the last 60 s"
grep -qE '^ev +2 +[0-9]+ +[0-9.]+ (B|KiB|MiB) +2,000 rows +0 rows +[0-9.,]+ rows/s ' "$T/out" ||
	{ cat "$T/out"; fail "stats: ev's 2 regions, its size and 2,000 rows written"; }
grep -qE '^[0-9]+ +[0-9]+ +[0-9.]+ (B|KiB|MiB) +[0-9,]+ cells +[0-9,]+ cells +[0-9.]+ (B|KiB|MiB) ' "$T/out" ||
	{ cat "$T/out"; fail "stats: a server's size, cells and bytes with their units"; }
grep -E '^(ev|[0-9])' "$T/out" | grep -qE '(^| )[0-9]{4,}( |$)' && { cat "$T/out"; fail "stats: a count without its thousands separator"; }
echo "regions load: ok"
