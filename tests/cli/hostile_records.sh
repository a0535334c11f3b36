#!/usr/bin/env bash
# Hostile record inputs (tests/cli/hostile_records.py): every type's signs
# and overflows in CSV and JSON lines, malformed UTF-8, NULs, huge fields,
# deep JSON, lying headers, empty files, directories and special files,
# through encode, load, profile, analyze and suggest; exact exit codes, and
# load never half writes a record. With hostile_inputs.sh, over 400 cases.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 "$(dirname "$0")/hostile_records.py" "$ROWKEY" "$T"
