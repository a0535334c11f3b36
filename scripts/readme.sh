#!/usr/bin/env bash
# make readme: runs the demo and puts what it printed and drew into the README:
# - the figures block of README.md (between its "demo figures" markers): the
#   demo's opening lines and its comparison table, as printed;
# - docs/img/demo-four-designs.png: the four designs side by side (the
#   simulator's, the same picture every run);
# - docs/img/demo-store-date-first.png: the date-first store's own heatmap;
# - docs/img/demo-report.png: the HTML report as headless Chromium shows it.
# tests/cli/demo_readme.sh checks the README against a fresh run of the demo.
#
# usage: scripts/readme.sh [BUILD_DIR]
#        scripts/readme.sh --figures DEMO_TXT   (prints the block for demo.txt)
set -euo pipefail
cd "$(dirname "$0")/.."

# The figures of a demo run (its demo.txt): the opening lines, up to the
# first blank line, and the comparison table, up to the blank line after it.
figures() {
	awk 'NR == 1, /^$/ { if (NF) print; next }
	     /^design +engine/ { table = 1; print ""; }
	     table && !NF { exit }
	     table { print }' "$1"
}
if [ "${1:-}" = --figures ]; then
	figures "$2"
	exit 0
fi

build=${1:-build}
out=demo-out
chrome=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chrome" ] || { echo "readme: the report's picture needs Chromium: scripts/deps.sh installs it" >&2; exit 1; }
scripts/demo.sh "$build" "$out"

cp "$out/heatmap-compare.png" docs/img/demo-four-designs.png
cp "$out/store-heatmap-1-date_time_id.png" docs/img/demo-store-date-first.png
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--disable-background-networking --disable-component-update --disable-sync --no-first-run \
	--user-data-dir="$profile" --virtual-time-budget=5000 --window-size=1280,960 \
	--screenshot="$PWD/docs/img/demo-report.png" "file://$PWD/$out/report.html" 2>/dev/null

# the block between the markers, replaced by this run's figures
figures "$out/demo.txt" >"$profile/figures"
awk -v f="$profile/figures" '
	/^<!-- demo figures/ { print; print "```text"; while ((getline l < f) > 0) print l; print "```"; skip = 1; next }
	/^<!-- end of demo figures -->/ { skip = 0 }
	!skip' README.md >"$profile/README.md"
cmp -s README.md "$profile/README.md" || cp "$profile/README.md" README.md
echo "readme: README.md's demo figures and docs/img/demo-*.png are this run's"
