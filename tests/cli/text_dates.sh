#!/usr/bin/env bash
# CLI tests for dates written as text (ts("FORMAT"), docs/schema.md): the
# profile types "Jan 1 2000" and "01/31/2000" columns as ts with their format,
# suggest's schema declares it and loads every record, a range over the date
# returns the rows in date order (the format's literal or ISO-8601), decode
# prints the format, a record off the format is refused saying where and why.
set -u
R=${ROWKEY:?ROWKEY must point at the rowkey binary}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
ok()  { passes=$((passes+1)); }
bad() { echo "FAIL: $*"; fails=$((fails+1)); }
expect_eq()   { if [ "$2" == "$3" ]; then ok; else bad "$1: got [$2] want [$3]"; fi; }
expect_grep() { if grep -q -- "$2" <<<"$3"; then ok; else bad "$1: '$2' not in: $3"; fi; }

# 120 records: opened as "Jan 1 2000" (one or two digit days), closed as US
# 01/31/2000; by text "Dec 9 1999" < "Jan 1 2000" would sort wrongly, by time
# it does not
python3 - "$T/d.csv" <<'EOF'
import datetime, random, sys
random.seed(11)
mon = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
base = datetime.date(1999, 6, 1)
with open(sys.argv[1], "w") as f:
    f.write("id,opened,closed,kind\n")
    for i in range(1, 121):
        o = base + datetime.timedelta(days=random.randrange(0, 900))
        c = o + datetime.timedelta(days=random.randrange(0, 400))
        day = str(o.day) if i % 2 else "%02d" % o.day
        f.write("%d,%s %s %d,%02d/%02d/%d,%s\n" % (i, mon[o.month - 1], day, o.year, c.month, c.day, c.year,
                                                 random.choice("abc")))
    # Feb 29 of a leap year, and a closing date whose day (31) settles month-first
    f.write("121,Feb 29 2000,01/31/2001,a\n")
EOF
# the expected answer of a range, computed apart from rowkey: ids by opening date
expected() { python3 - "$T/d.csv" "$1" "$2" <<'EOF'
import csv, datetime, sys
lo, hi = (datetime.date.fromisoformat(x) for x in sys.argv[2:4])
rows = [(datetime.datetime.strptime(r["opened"], "%b %d %Y").date(), int(r["id"]))
        for r in csv.DictReader(open(sys.argv[1]))]
print(",".join(str(i) for d, i in sorted(rows) if lo <= d < hi))
EOF
}

# profile: both columns are times in their format
got=$("$R" profile "$T/d.csv")
expect_grep profile_opened 'opened  *ts("%b %d %Y") ' "$got"
expect_grep profile_closed 'closed  *ts("%m/%d/%Y") ' "$got"
got=$("$R" profile --json "$T/d.csv")
python3 -c '
import csv, datetime, json, sys
f = {x["name"]: x for x in json.loads(sys.argv[1])["fields"]}
assert f["opened"]["type"] == "ts(\"%b %d %Y\")" and f["opened"]["time_unit"] == "%b %d %Y", f["opened"]
assert f["closed"]["type"] == "ts(\"%m/%d/%Y\")", f["closed"]
ms = sorted(int(datetime.datetime.strptime(r["opened"], "%b %d %Y").replace(tzinfo=datetime.timezone.utc)
                .timestamp()) * 1000 for r in csv.DictReader(open(sys.argv[2])))
assert (f["opened"]["min"], f["opened"]["max"]) == (ms[0], ms[-1]), (f["opened"], ms[0], ms[-1])
' "$got" "$T/d.csv" && ok || bad "profile json: $got"

# a column that reads both ways is taken month-first, and the profile says so
printf 'id,d\n1,01/02/2000\n2,03/04/2001\n' > "$T/amb.csv"
got=$("$R" profile "$T/amb.csv")
expect_grep ambiguous_type 'd  *ts("%m/%d/%Y")' "$got"
expect_grep ambiguous_note 'every value reads as both %m/%d/%Y and %d/%m/%Y; taken as %m/%d/%Y' "$got"
printf 'id,d\n1,01/02/2000\n2,13/04/2001\n' > "$T/eu.csv"
expect_grep day_first 'd  *ts("%d/%m/%Y")' "$("$R" profile "$T/eu.csv")"

# suggest: the top schema types the date as ts with its format, and loads every record
Q="opened >= 'Jan 1 2000' AND opened < 'Mar 1 2000'"
got=$("$R" suggest --file "$T/d.csv" --query "$Q" -n 1 -q --json)
S=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])[0]["schema"])' "$got")
expect_grep suggest_schema 'opened:ts("%b %d %Y")' "$S"
expect_grep suggest_key 'i64(opened)' "$S"
D=$T/db
"$R" create --db "$D" t -f d > /dev/null || bad "create"
got=$("$R" load --db "$D" t -s "$S" "$T/d.csv" 2>&1)
expect_grep load_all "^121 rows .* 0 rejected" "$got"

# a range over the date, with the table's own schema: the right rows, in date order
want=$(expected 2000-01-01 2000-03-01)
[ -n "$want" ] || bad "no rows in the test's range"
got=$("$R" query --db "$D" -t t -w "$Q" | tail -n +2 | cut -f1 | paste -sd, -)
expect_eq range_format "$got" "$want"
got=$("$R" query --db "$D" -t t -w "opened >= '2000-01-01' AND opened < '2000-03-01'" | tail -n +2 | cut -f1 |
      paste -sd, -)
expect_eq range_iso "$got" "$want"
got=$("$R" query --db "$D" -t t -w "opened = 'Feb 29 2000'" -f jsonl)
expect_grep query_prints_format '"opened":"Feb 29 2000"' "$got"
got=$("$R" explain -s "$S" -w "$Q")
expect_grep explain_range "ranges      1" "$got"
got=$("$R" explain -s "$S" -w "opened >= 'Feb 30 2000'" 2>&1)
expect_grep explain_bad_date "is not a date in that format, an ISO-8601 date-time nor integer milliseconds" "$got"
# a plain ts field takes an ISO-8601 literal in query and explain, as load does
got=$("$R" explain -s 'fields d:ts; key i64(d)' -w "d >= '2000-01-01T00:00:00Z'" 2>&1)
expect_grep explain_iso_plain "ranges      1" "$got"

# encode and decode: the format in, the same format out (days zero-padded)
S2='fields id:u64, opened:ts("%b %d %Y"); key i64(opened) ":" id'
got=$(printf 'id,opened\n7,Jan 1 2000\n' | "$R" encode -s "$S2" | "$R" decode -s "$S2")
expect_eq decode_format "$got" $'id\topened\n7\tJan 01 2000'
# strict: a record off the format is refused with line, field, value and format
got=$(printf 'id,opened\n7,Jan 1 2000\n8,2000-01-02\n9,Feb 30 2000\n' | "$R" encode -s "$S2" 2>&1)
expect_grep strict_iso "line 3, column 3, field 'opened': '2000-01-02' does not match the time format \"%b %d %Y\"" "$got"
got=$(printf 'id,opened\n9,Feb 30 2000\n' | "$R" encode -s "$S2" 2>&1)
expect_grep strict_day "line 2, column 3, field 'opened': 'Feb 30 2000' does not match the time format \"%b %d %Y\": the day is not in its month" "$got"
got=$("$R" describe -s 'fields d:ts("%Y%m%d"); key i64(d)' 2>&1)
expect_grep bad_format "time format of 'd': two numbers side by side" "$got"

# months written as 2017-08 (a package index's release month) are times too:
# each stands for its first day; a range over them in their own spelling
printf 'pkg,month\na,2017-08\nb,2017-12\nc,2018-01\nd,2026-10\n' > "$T/m.csv"
expect_grep month_profile 'month  *ts("%Y-%m")' "$("$R" profile "$T/m.csv")"
S3='fields pkg:str, month:ts("%Y-%m"); key i64(month) esc(pkg)'
"$R" create --db "$T/mdb" t -f d >/dev/null && "$R" load -q --db "$T/mdb" t -s "$S3" "$T/m.csv" >/dev/null
got=$("$R" query --db "$T/mdb" -t t -w "month >= '2017-12' AND month < '2026-10'" | cut -f1,2)
expect_eq month_range "$got" $'pkg\tmonth\nb\t2017-12\nc\t2018-01'
got=$(printf 'pkg,month\na,2017-13\n' | "$R" encode -s "$S3" 2>&1)
expect_grep month_bad "'2017-13' does not match the time format \"%Y-%m\": the month is not 1..12" "$got"
got=$("$R" describe -s 'fields d:ts("%Y-%m %H:%M"); key i64(d)' 2>&1)
expect_grep month_time "a day (%d) before a time" "$got"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
