#!/usr/bin/env bash
# rowkey rekey's speed against a plain `rowkey load` of the same rows: N rows
# (default 200,000; id, ts, user, value) loaded under a sequential design
# (key u64(id)), then
#   load   the same CSV loaded again into a fresh table under the new design
#          bucket(8, xxh3(id)) u64(id) (what a rekey replaces: reloading
#          from the source records, when they still exist);
#   rekey  the first table copied into that design by `rowkey rekey`
#          (default batch of 1000, the row count pass for the ETA included);
#   verify `rowkey rekey --verify` of that copy.
# Both write with synchronous durability (load's default, rekey's only
# mode), into the same store on disk (DIR, default a temporary directory
# under the current one: /tmp may be a RAM disk). Wall-clock times of whole
# commands. Prints a Markdown block for bench/RESULTS.md.
#
# usage: bench/bench_rekey.sh [ROWKEY_BINARY] [ROWS] [DIR]
set -eu
R=${1:-build/rowkey}
N=${2:-200000}
T=$(mktemp -d "${3:-.}/bench-rekey.XXXXXX")
trap 'rm -rf "$T"' EXIT
OLD='fields id:u64, ts:ts, user:str, v:str; key u64(id)'
NEW='fields id:u64, ts:ts, user:str, v:str; key bucket(8, xxh3(id)) u64(id)'
python3 - "$T/rows.csv" "$N" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("id,ts,user,v\n")
    for i in range(int(sys.argv[2])):
        f.write(f"{i},{1700000000000 + i * 7},u{i % 997},value-{i * 31 % 100000}\n")
PY
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.2f}')"; }
rate() { python3 -c "print(f'{$1 / ($3 - $2):,.0f}')"; }

"$R" create --db "$T/db" ev -f d >/dev/null
"$R" load --db "$T/db" ev -s "$OLD" -q "$T/rows.csv" >/dev/null
"$R" create --db "$T/db" fresh -f d --schema "$NEW" >/dev/null
a=$(now); "$R" load --db "$T/db" fresh -s "$NEW" -q "$T/rows.csv" >/dev/null; b=$(now)
"$R" rekey --db "$T/db" ev -s "$NEW" 2>/dev/null >/dev/null; c=$(now)
"$R" rekey --verify --db "$T/db" ev >"$T/verify"; d=$(now)
grep -q ": clean" "$T/verify" || { cat "$T/verify"; exit 1; }

n=$(python3 -c "print(f'{$N:,}')")
load1=$(uptime | sed 's/.*load average: \([0-9.]*\),.*/\1/')
echo "    bench/bench_rekey.sh $R $N"
echo
echo "| step | rows | wall s | rows/s |"
echo "|---|---:|---:|---:|"
echo "| load of the CSV under the new design | $n | $(secs "$a" "$b") | $(rate "$N" "$a" "$b") |"
echo "| rekey: copy from the sequential table | $n | $(secs "$b" "$c") | $(rate "$N" "$b" "$c") |"
echo "| rekey --verify | $n | $(secs "$c" "$d") | $(rate "$N" "$c" "$d") |"
echo
echo "load average (1 min) after: $load1; $(nproc) CPUs"
