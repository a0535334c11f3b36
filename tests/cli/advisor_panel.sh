#!/usr/bin/env bash
# The judged panel (tests/advisor/panel_cases.py, PANEL.md): cases an independent
# HBase/Bigtable engineer wrote with the key they would choose, before seeing the advisor's;
# suggest's top proposal must be that key, the same for --seed 1..5, but for the known
# misses of panel_known.txt.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# the sanitizer build checks the judgement once; the seeds' stability is the release build's
seeds=5
[ -z "${RK_SANITIZE:-}" ] || seeds=1
python3 "$(dirname "$0")/../advisor/panel_run.py" "$ROWKEY" "$T" --seeds $seeds
