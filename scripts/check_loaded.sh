#!/usr/bin/env bash
# make check on fresh clones of HEAD, RUNS times (default 10), with two busy
# loops beside it, as a newcomer's machine doing something else would be:
# shows that no test depends on having the machine to itself. Prints one line
# per run and a summary; exits 1 when any run failed or skipped a test.
#   scripts/check_loaded.sh [RUNS] [BUSY]      (BUSY loops, default 2)
set -u
runs=${1:-10} busy=${2:-2}
top=$(git rev-parse --show-toplevel) || exit 2
work=$(mktemp -d)
pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"; }
trap stop EXIT
for _ in $(seq "$busy"); do (while :; do :; done) & pids+=($!); done
pass=0 fail=0 skipped=0
for i in $(seq "$runs"); do
	rm -rf "$work/clone"
	git clone -q "$top" "$work/clone" || exit 2
	t0=$(date +%s)
	if make -C "$work/clone" check >"$work/log" 2>&1; then ok=1; else ok=0; fi
	s=$(grep -c '\*\*\*Skipped' "$work/log")
	summary=$(grep -E 'tests passed|tests failed' "$work/log" | tail -1)
	printf 'run %d: %s, %d skipped, %d s: %s\n' "$i" "$([ $ok = 1 ] && echo pass || echo FAIL)" \
		"$s" $(( $(date +%s) - t0 )) "$summary"
	[ $ok = 1 ] || { grep -E '\(Failed\)|\(Timeout\)|\(SEGFAULT\)' "$work/log"; cp "$work/log" "/tmp/check_loaded.$i.log"; }
	[ $ok = 1 ] && pass=$((pass + 1)) || fail=$((fail + 1))
	[ "$s" = 0 ] || skipped=$((skipped + 1))
done
echo "loaded make check: $pass passed, $fail failed ($skipped runs skipped tests; $busy busy loops)"
[ $fail = 0 ] && [ $skipped = 0 ]
