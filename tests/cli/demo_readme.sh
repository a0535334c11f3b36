#!/usr/bin/env bash
# The README shows what the demo prints and draws: a fresh `scripts/demo.sh`
# run (what make demo runs) is compared with README.md's figures block
# (written by scripts/readme.sh from such a run) and docs/img:
# - the opening lines and every simulator line of the table: equal;
# - every store line: equal but for what is measured in wall-clock time:
#   the at-time share (within 10 points) and the throughput (never above
#   twice the README's: the servers' caps bound it; a busy machine may read
#   any lower, so no lower bound: the figure is bench_demo.sh's);
# - docs/img/demo-four-designs.png: the demo's heatmap-compare.png, byte for
#   byte (the simulator's picture is the same every run);
# - the other two pictures are PNGs, and the README shows all three.
set -u
: "${ROWKEY:?}" "${RK_SOURCE_DIR:?}"
if [ -n "${RK_SANITIZE:-}" ]; then # the README shows the release build's demo, timed
	echo "skipped: a sanitizer build ($RK_SANITIZE) runs the demo slower than the README's figures"
	exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$RK_SOURCE_DIR"
scripts/demo.sh "$(dirname "$ROWKEY")" "$T/demo" >"$T/stdout" 2>"$T/stderr" ||
	{ cat "$T/stdout" "$T/stderr"; fail "the demo failed"; }
scripts/readme.sh --figures "$T/demo/demo.txt" >"$T/now"
awk '/^<!-- demo figures/ { on = 1; next } /^<!-- end of demo figures/ { on = 0 } on' README.md |
	grep -v '^```' >"$T/readme"
[ -s "$T/readme" ] || fail "README.md has no demo figures block"
[ "$(wc -l <"$T/now")" = "$(wc -l <"$T/readme")" ] ||
	{ diff "$T/readme" "$T/now"; fail "the README's figures have other lines than the demo's (run make readme)"; }
paste -d '\n' "$T/readme" "$T/now" | while IFS= read -r old && IFS= read -r new; do
	if [[ "$new" != *" store "* ]]; then
		[ "$old" = "$new" ] || fail "README: '$old'"$'\n'"  demo: '$new' (run make readme)"
		continue
	fi
	read -r -a o <<<"$old"
	read -r -a n <<<"$new"
	# design engine hottest at-time eff max/mean throughput m regions key-B reads
	for i in 0 1 2 4 5 7 8 9 10; do
		[ "${o[$i]}" = "${n[$i]}" ] || fail "store column $i differs: README '$old', demo '$new' (run make readme)"
	done
	awk -v a="${o[3]%\%}" -v b="${n[3]%\%}" 'BEGIN { exit !(a - b < 10 && b - a < 10) }' ||
		fail "at-time ${o[3]} in the README, ${n[3]} now: '$new'"
	a=${o[6]//[,\/s]/} b=${n[6]//[,\/s]/}
	awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 0 && b < 2 * a) }' ||
		fail "measured throughput ${o[6]} in the README, ${n[6]} now: '$new'"
done || exit 1
cmp -s docs/img/demo-four-designs.png "$T/demo/heatmap-compare.png" ||
	fail "docs/img/demo-four-designs.png is not the demo's heatmap-compare.png (run make readme)"
for f in demo-four-designs demo-store-date-first demo-report; do
	[ "$(head -c 8 "docs/img/$f.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "docs/img/$f.png is not a PNG"
	grep -q "(docs/img/$f.png)" README.md || fail "the README does not show docs/img/$f.png"
done
echo "ok: the README's figures and pictures are the demo's"
