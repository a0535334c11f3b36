#!/usr/bin/env bash
# rowkey rekey's speed against a plain `rowkey load` of the same rows: N rows
# (default 200,000; id, ts, user, value) loaded under a sequential design
# (key u64(id)), then
#   load   the same CSV loaded again into a fresh table under the new design
#          bucket(8, xxh3(id)) u64(id) (what a rekey replaces: reloading
#          from the source records, when they still exist), with load's
#          default batch (1000 records) and with --batch 4000;
#   rekey  the first table copied into that design by `rowkey rekey` (its
#          default batch, progress line on: what a user runs);
#   verify `rowkey rekey --verify` of that copy.
# All write with synchronous durability (load's default, rekey's only
# mode), into the same store on disk (DIR, default a temporary directory
# under the current one: /tmp may be a RAM disk). Before each timed command
# an untimed `rowkey regions` opens the store once, so no timed command
# pays for replaying the log the previous one left (LevelDB replays it on
# open). Wall-clock times of whole commands; ROUNDS rounds (default 1) in a
# fresh store each, the median of each step printed. Prints a Markdown
# block for bench/RESULTS.md.
#
# usage: bench/bench_rekey.sh [ROWKEY_BINARY] [ROWS] [DIR] [ROUNDS]
set -eu
R=${1:-build/rowkey}
N=${2:-200000}
T=$(mktemp -d "${3:-.}/bench-rekey.XXXXXX")
ROUNDS=${4:-1}
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
settle() { "$R" regions --db "$T/db" >/dev/null; }

load1=$(uptime | sed 's/.*load average: \([0-9.]*\),.*/\1/')
for round in $(seq "$ROUNDS"); do
	rm -rf "$T/db"
	"$R" create --db "$T/db" ev -f d >/dev/null
	"$R" load --db "$T/db" ev -s "$OLD" -q "$T/rows.csv" >/dev/null
	"$R" create --db "$T/db" fresh -f d --schema "$NEW" >/dev/null
	"$R" create --db "$T/db" fresh4k -f d --schema "$NEW" >/dev/null
	settle; a=$(now); "$R" load --db "$T/db" fresh -s "$NEW" -q "$T/rows.csv" >/dev/null; b=$(now)
	settle; c=$(now); "$R" load --db "$T/db" fresh4k -s "$NEW" -q --batch 4000 "$T/rows.csv" >/dev/null; d=$(now)
	settle; e=$(now); "$R" rekey --db "$T/db" ev -s "$NEW" 2>/dev/null >/dev/null; f=$(now)
	settle; g=$(now); "$R" rekey --verify --db "$T/db" ev >"$T/verify"; h=$(now)
	grep -q ": clean" "$T/verify" || { cat "$T/verify"; exit 1; }
	echo "$a $b $c $d $e $f $g $h" >>"$T/times"
done
load2=$(uptime | sed 's/.*load average: \([0-9.]*\),.*/\1/')

python3 - "$T/times" "$N" "$R" "$ROUNDS" "$load1" "$load2" "$(nproc)" <<'PY'
import statistics, sys
times, n, r, rounds, l1, l2, cpus = sys.argv[1:]
n = int(n)
rows = [list(map(float, l.split())) for l in open(times)]
med = [statistics.median(x[2 * i + 1] - x[2 * i] for x in rows) for i in range(4)]
names = ["load of the CSV under the new design", "load of the CSV, --batch 4000",
         "rekey: copy from the sequential table", "rekey --verify"]
print(f"    bench/bench_rekey.sh {r} {n} DIR {rounds}\n")
print("| step | rows | wall s | rows/s |\n|---|---:|---:|---:|")
for name, s in zip(names, med):
    print(f"| {name} | {n:,} | {s:.2f} | {n / s:,.0f} |")
print(f"\nrekey copy / load: {med[0] / med[2]:.2f}; medians of {rounds} round(s); "
      f"load average (1 min) {l1} before, {l2} after; {cpus} CPUs")
PY
