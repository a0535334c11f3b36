#!/usr/bin/env bash
# How long `make demo` takes on a built tree, as a user runs it: N runs
# (default 3) one after the other, each timed from the command to its exit,
# with the machine's load average beside it. Prints a Markdown table for
# bench/RESULTS.md.
#
# usage: bench/bench_demo.sh [RUNS]
set -euo pipefail
runs=${1:-3}
cd "$(dirname "$0")/.."
make demo >/dev/null 2>&1 # built and warm
echo "| run | make demo, wall s | the demo's own time, s | load average (1 min) before |"
echo "|---:|---:|---:|---:|"
for i in $(seq "$runs"); do
	load=$(cut -d' ' -f1 /proc/loadavg)
	t0=$(date +%s.%N)
	make demo >/tmp/rk_bench_demo.$$ 2>&1
	t1=$(date +%s.%N)
	own=$(sed -n 's/^(the demo took \([0-9]*\) s)$/\1/p' /tmp/rk_bench_demo.$$)
	echo "| $i | $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') | $own | $load |"
done
rm -f /tmp/rk_bench_demo.$$
