#!/usr/bin/env bash
# Bigtable backend benchmark (issue 6): the same N rows (default 100,000)
# written into Google's Bigtable emulator through `rowkey load` and through
# `cbt import` of the same rows from CSV, in the same run, then read back in
# full, in key order, both ways. Prints a Markdown block for bench/RESULTS.md.
#
# usage: bench/bench_bigtable.sh [ROWKEY_BINARY] [ROWS]
#   ROWKEY_BINARY  default build-bt2/rowkey
#   ROWS           default 100000
# The rows: id,name,score with key hex(md5(id))[0:4] "-" dec(id, 10) (a
# printable, hash-spread key, so cbt's CSV can carry the very same keys);
# each field is one cell of family d, both ways. Wall-clock times of whole
# commands (process start, CSV parsing and key encoding included).
set -eu
ROWKEY=${1:-build-bt2/rowkey}
N=${2:-100000}
EMU=/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator
[ -x "$EMU" ] || { echo "no $EMU" >&2; exit 1; }
command -v cbt >/dev/null || { echo "no cbt" >&2; exit 1; }

T=$(mktemp -d)
EPID=
stop_emulator() {
	if [ -n "$EPID" ]; then
		{ kill -9 "$EPID"; wait "$EPID"; } 2>/dev/null || true
	fi
	EPID=
}
cleanup() {
	stop_emulator
	rm -rf "$T"
}
trap cleanup EXIT

# Every write runs against a fresh emulator (it keeps everything in memory:
# earlier tables would slow later runs down).
fresh_emulator() {
	stop_emulator
	: >"$T/emu"
	"$EMU" --host=127.0.0.1 --port=0 >"$T/emu" 2>&1 &
	EPID=$!
	local addr=
	for _ in $(seq 100); do
		addr=$(sed -n 's/^Cloud Bigtable emulator running on //p' "$T/emu")
		[ -n "$addr" ] && break
		sleep 0.05
	done
	[ -n "$addr" ] || { cat "$T/emu" >&2; exit 1; }
	export BIGTABLE_EMULATOR_HOST=$addr
	"$ROWKEY" create --db "$DB" t -f d >/dev/null
}
emulator_cpu() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$EPID/stat"; }
DB=bigtable://p/i
CBT="cbt -project p -instance i"

now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

SCHEMA='fields id:u64, name:str, score:i64; key hex(md5(id))[0:4] "-" dec(id, 10)'
awk -v n="$N" 'BEGIN { print "id,name,score"; for (i = 1; i <= n; i++) printf "%d,user%d,%d\n", i, i, (i * 7919) % 100000 }' >"$T/in.csv"
"$ROWKEY" encode -s "$SCHEMA" --in "$T/in.csv" >"$T/keys"
{ echo ",id,name,score"; tail -n +2 "$T/in.csv" | paste -d, "$T/keys" -; } >"$T/cbt.csv"

run() { # label command...: times it, output to $T/<label>.out
	local label=$1; shift
	local a b c0
	c0=$(emulator_cpu)
	a=$(now)
	"$@" >"$T/$label.out" 2>"$T/$label.err" || { cat "$T/$label.err" >&2; exit 1; }
	b=$(now)
	echo "$a $b $(awk -v x="$c0" -v y="$(emulator_cpu)" 'BEGIN { printf "%.2f", y - x }')" >"$T/$label.time"
}
check_rows() {
	local c
	c=$("$ROWKEY" scan --db "$DB" t --count)
	[ "$c" = "$N" ] || { echo "$1: $c rows, expected $N" >&2; exit 1; }
}

fresh_emulator; run load_cbt1 $CBT import t "$T/cbt.csv" column-family=d; check_rows "cbt import"
fresh_emulator; run load_cbt4 $CBT import t "$T/cbt.csv" column-family=d workers=4 batch-size=1000; check_rows "cbt import workers=4"
fresh_emulator; run load_rk8k "$ROWKEY" load --db "$DB" -q --batch 8000 t -s "$SCHEMA" "$T/in.csv"; check_rows "rowkey load --batch 8000"
fresh_emulator; run load_rk "$ROWKEY" load --db "$DB" -q t -s "$SCHEMA" "$T/in.csv"; check_rows "rowkey load"
[ "$($CBT count t 2>/dev/null)" = "$N" ] || { echo "cbt count t" >&2; exit 1; }

# full ordered read back of what rowkey load wrote: every cell printed, and
# a count
run read_rk "$ROWKEY" scan --db "$DB" t
run read_cbt $CBT read t
run count_rk "$ROWKEY" scan --db "$DB" t --count
run count_cbt $CBT count t
[ "$(wc -l <"$T/read_rk.out")" = $((3 * N)) ] || { echo "rowkey scan: wrong cell count" >&2; exit 1; }
# the same rows, in the same order, both ways
sed -n 's/\t.*//p' "$T/read_rk.out" | uniq >"$T/order_rk"
grep -E '^[0-9a-f]{4}-[0-9]{10}$' "$T/read_cbt.out" >"$T/order_cbt"
cmp -s "$T/order_rk" "$T/order_cbt" || { echo "rowkey and cbt read different orders" >&2; exit 1; }

line() { # label kind notes
	read -r a b cpu <"$T/$1.time"
	printf '| %s | %s | %s | %s | %s |\n' "$2" "$(secs "$a" "$b")" "$(rate "$N" "$a" "$b")" "$cpu" "$3"
}
cat <<EOF
Machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'); emulator $("$EMU" --version 2>/dev/null || echo "from google-cloud-sdk $(cat /usr/lib/google-cloud-sdk/VERSION 2>/dev/null)"), on the same machine.
Rows: $N, 3 cells each (family d), key \`hex(md5(id))[0:4] "-" dec(id, 10)\`.

| what | seconds | rows/s | emulator CPU s | notes |
|---|---|---|---|---|
$(line load_rk "write: rowkey load" "--batch 1000 (default): one rk_table_apply per 1000 rows, 4 MutateRows calls of 250 rows in flight")
$(line load_rk8k "write: rowkey load --batch 8000" "32 calls of 250 rows per apply, 4 in flight")
$(line load_cbt1 "write: cbt import" "defaults: workers=1 batch-size=500")
$(line load_cbt4 "write: cbt import workers=4" "batch-size=1000")
$(line read_rk "read: rowkey scan (every cell printed)" "one ReadRows stream, key order")
$(line read_cbt "read: cbt read (every cell printed)" "same rows, same order (checked)")
$(line count_rk "read: rowkey scan --count" "")
$(line count_cbt "read: cbt count" "")
EOF
