#!/usr/bin/env bash
# Soak of rowkey serve under load and faults (make soak): for SECONDS, on a
# store whose regions split at 1 MiB, with the balancer every 2 s (moves) and
# the GC collection every 10 s:
#   - WRITERS Node clients (tests/node/soak_client.js writer): MutateRows,
#     reads of their own rows, CheckAndMutateRow claims of shared slots,
#     ReadModifyWriteRow increments, one call in 20 past a tiny deadline;
#   - CBT cbt clients: set, read, lookup;
#   - chaos Node clients: reads cancelled mid-stream, reads past deadlines,
#     random bytes as requests to every method, garbage connections;
#   - a reader killed (SIGKILL) mid-stream, again and again.
# Then every acknowledged write is read back and compared with what each
# client recorded (soak_client.js verify), the server is stopped (SIGTERM:
# exit 0), its stderr must hold no sanitizer report (the default binary is
# the ASan+UBSan build: LeakSanitizer runs at exit), `rowkey check` must
# find the store clean, and the server's RSS (sampled each second) must stay
# under SOAK_MAX_RSS_MIB. Prints one line of figures.
#
# usage: scripts/soak_serve.sh [SECONDS (300)] [ROWKEY (build-asan/rowkey)] [BUILD (build)]
# env: SOAK_WRITERS (6), SOAK_CBT (2), SOAK_CHAOS (2), SOAK_MAX_RSS_MIB (2048)
# Needs node, npm (the client is installed into BUILD/node-serve as the tests
# do) and cbt.
set -euo pipefail
secs=${1:-300}
rowkey=${2:-build-asan/rowkey}
build=${3:-build}
writers=${SOAK_WRITERS:-6}
ncbt=${SOAK_CBT:-2}
nchaos=${SOAK_CHAOS:-2}
max_rss=${SOAK_MAX_RSS_MIB:-2048}
src=$(cd "$(dirname "$0")/.." && pwd)
for t in node npm cbt; do
	command -v $t >/dev/null || { echo "soak: $t is needed" >&2; exit 1; }
done
[ -x "$rowkey" ] || { echo "soak: no $rowkey (make asan builds it)" >&2; exit 1; }
work=$build/node-serve
mkdir -p "$work"
cp "$src/tests/node/package.json" "$src/tests/node/soak_client.js" "$work/"
[ -d "$work/node_modules/@google-cloud/bigtable" ] ||
	(cd "$work" && npm install --no-audit --no-fund --loglevel=error >/dev/null)

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "soak: FAIL: $*" >&2; exit 1; }

db=$tmp/db
"$rowkey" create --db "$db" --servers 4 --split-threshold 1048576 seed -f d >/dev/null
"$rowkey" serve --db "$db" --listen 127.0.0.1:0 --balance-every 2 --collect-every 10 \
	>"$tmp/sv.out" 2>"$tmp/sv.err" &
sv=$!
pids+=("$sv")
addr=
for _ in $(seq 600); do
	addr=$(sed -n 's/^rowkey serve: listening on \([^ ]*\) .*/\1/p' "$tmp/sv.out")
	[ -n "$addr" ] && break
	sleep 0.05
done
[ -n "$addr" ] || { cat "$tmp/sv.err" >&2; fail "rowkey serve did not start"; }
export BIGTABLE_EMULATOR_HOST=$addr
c() { cbt -project p -instance i "$@"; }
c createtable soak families=d splits=m,w 2>"$tmp/cbt.err" || { cat "$tmp/cbt.err"; fail "createtable"; }

( while kill -0 "$sv" 2>/dev/null; do
	awk '/VmRSS/ {print $2}' "/proc/$sv/status" 2>/dev/null || true
	sleep 1
  done >"$tmp/rss" ) &
pids+=("$!")

mkdir "$tmp/out"
clients=()
names=() # each client's stderr file
t0=$(date +%s)
for i in $(seq "$writers"); do
	(cd "$work" && exec node soak_client.js writer "$i" "$secs" "$tmp/out/writer-$i.json") \
		2>"$tmp/writer-$i.err" &
	clients+=("$!")
	names+=("$tmp/writer-$i.err")
done
for i in $(seq "$nchaos"); do
	(cd "$work" && exec node soak_client.js chaos "$secs") >"$tmp/chaos-$i.out" 2>"$tmp/chaos-$i.err" &
	clients+=("$!")
	names+=("$tmp/chaos-$i.err")
done
for i in $(seq "$ncbt"); do
	( n=0
	  while [ $(($(date +%s) - t0)) -lt "$secs" ]; do
		n=$((n + 1))
		k=c$i-$n
		if c set soak "$k" d:v="$k" 2>/dev/null; then echo "$k" >>"$tmp/out/cbt-$i.acked"; fi
		if [ $((n % 5)) = 0 ]; then
			c read soak prefix="c$i-" count=3 >/dev/null 2>&1 || true
			c lookup soak "$k" >/dev/null 2>&1 || true
		fi
	  done ) &
	clients+=("$!")
	names+=(/dev/null)
done
( kills=0
  while [ $(($(date +%s) - t0)) -lt "$secs" ]; do
	(cd "$work" && exec node soak_client.js reader) >/dev/null 2>&1 &
	r=$!
	sleep "0.$((RANDOM % 9 + 1))"
	kill -9 "$r" 2>/dev/null || true
	wait "$r" 2>/dev/null || true
	kills=$((kills + 1))
  done
  echo "$kills" >"$tmp/kills" ) &
clients+=("$!")
names+=(/dev/null)
for i in "${!clients[@]}"; do
	wait "${clients[$i]}" || { grep -v Warning "${names[$i]}" | tail -20 >&2; fail "a client failed (${names[$i]})"; }
done
kill -0 "$sv" 2>/dev/null || { tail -30 "$tmp/sv.err" >&2; fail "rowkey serve died under the load"; }

(cd "$work" && node soak_client.js verify "$tmp/out") >"$tmp/verify.json" 2>"$tmp/verify.err" ||
	{ cat "$tmp/verify.json" "$tmp/verify.err" >&2; fail "acknowledged writes lost"; }
kill -TERM "$sv"
rc=0
wait "$sv" || rc=$?
[ "$rc" = 0 ] || { tail -40 "$tmp/sv.err" >&2; fail "rowkey serve exited $rc on SIGTERM"; }
if grep -q "Sanitizer\|runtime error" "$tmp/sv.err"; then
	grep -m 40 -A 12 "Sanitizer\|runtime error" "$tmp/sv.err" >&2
	fail "a sanitizer report from rowkey serve"
fi
"$rowkey" check --db "$db" >"$tmp/check.out" 2>&1 || { cat "$tmp/check.out" >&2; fail "rowkey check"; }

n=$(wc -l <"$tmp/rss")
[ "$n" -gt 3 ] || fail "no RSS samples"
peak=$(sort -n "$tmp/rss" | tail -1)
third=$(sed -n "$((n / 3))p" "$tmp/rss")
last=$(tail -1 "$tmp/rss")
[ $((peak / 1024)) -le "$max_rss" ] || fail "peak RSS $((peak / 1024)) MiB over $max_rss MiB"
regions=$("$rowkey" regions --db "$db" soak 2>/dev/null | grep -c '^[0-9]' || true)
moves=$(grep -c "balancer moved" "$tmp/sv.err" || true)
echo "soak: $secs s, $writers Node writers, $ncbt cbt clients, $nchaos chaos clients," \
	"$(cat "$tmp/kills") readers killed mid-stream; $(cat "$tmp/verify.json");" \
	"chaos $(cat "$tmp"/chaos-*.out | tr -d '\n'); regions of soak at the end $regions," \
	"balancer passes that moved $moves; server RSS peak $((peak / 1024)) MiB," \
	"at a third $((third / 1024)) MiB, at the end $((last / 1024)) MiB; exit 0, no sanitizer" \
	"report, rowkey check clean"
