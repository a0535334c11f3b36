#!/usr/bin/env bash
# The advisor's judged cases (tests/advisor/cases.py): generated data and
# queries, what an HBase/Bigtable engineer would pick, reject and name.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 "$(dirname "$0")/../advisor/cases.py" "$ROWKEY" "$T"
