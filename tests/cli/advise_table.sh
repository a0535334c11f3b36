#!/usr/bin/env bash
# profile and suggest of a table (--db DB TABLE): the table's rows read through the
# schema it remembers, a field its key does not carry taken from the row's cell of
# that name, a sample when asked; suggest ranks the table's own design among the
# proposals, named as such, with its cause.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export TMPDIR="$T/tmp" # where the table's records are written, and removed
mkdir "$TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { "$ROWKEY" "$@" >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "rowkey $* exited $?"; }; }
code() { local want=$1; shift; "$ROWKEY" "$@" >"$T/out" 2>"$T/err"; local got=$?; [ "$got" = "$want" ] || { cat "$T/err" >&2; fail "rowkey $* exited $got, wanted $want"; }; }
has() { grep -q -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected '$1' in $2"; }; }
python3 -c "
import random
r = random.Random(8)
print('id,ts,v')
t = 1700000000000
for i in range(20000):
    t += r.randint(0, 3)
    print('%d,%d,%d' % (100000 + i, t, r.randint(1, 99)))" >"$T/seq.csv"
DB="$T/db"
ok create --db "$DB" ev -f d
ok load --db "$DB" ev -s 'fields id:u64, ts:ts, v:u64; key u64(id)' "$T/seq.csv"

# the table as records: every row, v from its cell (the key carries id only)
ok profile --db "$DB" ev
has "^profile     table ev of $DB: 20,000 records, 3 fields" out
has "^v     u64 *20,000 *0 *99 " out
has "^identifies  id " out
ok profile --db "$DB" ev --sample 500 --json
python3 -c "import json,sys; p=json.load(open(sys.argv[1])); assert p['records'] == 500, p['records']" "$T/out" ||
	fail "--sample 500 profiles 500 rows"
has "a sample: the first 500 rows of table ev of $DB" err

# at a production rate no one server takes, the salted key ranks above the table's own
ok suggest --db "$DB" ev --fixed-rate --rate 200000 -q --json -n 40
python3 - "$T/out" <<'PY' || fail "suggest --db: the table's design ranked below a spread one, with its cause"
import json, sys
props = json.load(open(sys.argv[1]))
top = props[0]
assert "bucket(" in top["schema"], top["schema"]
own = [p for p in props if "the table's design" in p["design"]]
assert len(own) == 1, [p["design"] for p in props]
assert own[0]["schema"].endswith("key u64(id)"), own[0]["schema"]
assert any(c["kind"] == "rising_lead" for c in own[0]["causes"]), own[0]["causes"]
assert props.index(own[0]) > 0
PY

# what cannot be read as records is said
ok create --db "$DB" bare -f d
ok put --db "$DB" bare r1 d:x 1
code 1 profile --db "$DB" bare; has "table bare remembers no key schema" err
# a table with a schema and no rows: named once, as the table (never its
# records' spool file, which is gone by then)
printf 'x,y\n' > "$T/none.csv"
ok create --db "$DB" empty -f d
ok load --db "$DB" empty -s 'fields x:u64, y:str; key u64(x)' "$T/none.csv"
for cmd in profile suggest; do
	code 1 $cmd --db "$DB" empty
	[ "$(cat "$T/err")" = "rowkey $cmd: table empty of $DB: no records" ] || { cat "$T/err"; fail "$cmd of an empty table"; }
done
code 1 suggest --db "$DB" nosuch; has "nosuch" err
code 2 suggest --db "$DB" ev --file "$T/seq.csv"; has "no -w or --file" err
code 2 profile --sample 5 "$T/seq.csv"; has "--sample goes with --db TABLE" err
[ -z "$(ls -A "$TMPDIR")" ] || { ls -R "$TMPDIR"; fail "the table's records were left in \$TMPDIR"; }
echo "advise a table: ok"
